// SPDX-License-Identifier: MIT
// expect: wrap a plain function
// Compile-fail check: make_overloaded needs class types (it inherits their operator()); a plain
// function pointer must be rejected with a hint to wrap it in a lambda.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include "mccc/dispatch/overloaded.hpp"

int Free(int x) {
  return x;
}

int main() {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  auto f = mccc::make_overloaded([](double) { return 0; }, &Free);
#else
  auto f = mccc::make_overloaded([](double) { return 0; }, [](int x) { return Free(x); });
#endif
  return f(1);
}
