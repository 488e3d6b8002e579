// SPDX-License-Identifier: MIT
// expect: FixedVector element type must be a non-const
// Compile-fail check: const elements cannot be erased or assigned, so they are rejected up front.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include "mccc/containers/fixed_vector.hpp"

int main() {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  mccc::FixedVector<const int, 4> v;
#else
  mccc::FixedVector<int, 4> v;
#endif
  return static_cast<int>(v.size());
}
