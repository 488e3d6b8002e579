// SPDX-License-Identifier: MIT
// expect: FixedVector capacity N must be greater than 0
// Compile-fail check: a FixedVector with capacity 0 is a configuration error.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include "mccc/containers/fixed_vector.hpp"

int main() {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  mccc::FixedVector<int, 0> v;
#else
  mccc::FixedVector<int, 1> v;
#endif
  return static_cast<int>(v.size());
}
