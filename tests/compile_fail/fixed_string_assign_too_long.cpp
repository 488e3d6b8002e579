// SPDX-License-Identifier: MIT
// expect: string literal longer than FixedString capacity
// Compile-fail check: assigning a string literal longer than the capacity must be rejected.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include "mccc/containers/fixed_string.hpp"

int main() {
  mccc::FixedString<4> name;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  name = "motor";  // 5 chars into 4
#else
  name = "moto";
#endif
  return static_cast<int>(name.size());
}
