// SPDX-License-Identifier: MIT
// expect: string literal longer than FixedString capacity
// Compile-fail check: a string literal longer than the FixedString capacity must be rejected.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include "mccc/containers/fixed_string.hpp"

int main() {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  const mccc::FixedString<4> name("motor");  // 5 chars into 4
#else
  const mccc::FixedString<4> name("moto");
#endif
  return static_cast<int>(name.size());
}
