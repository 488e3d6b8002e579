// SPDX-License-Identifier: MIT
// expect: needs a plain function type
// Compile-fail check: FixedFunction's first template argument must be a function type.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include "mccc/containers/fixed_function.hpp"

int main() {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  mccc::FixedFunction<int> f;
#else
  mccc::FixedFunction<int()> f;
#endif
  return f ? 1 : 0;
}
