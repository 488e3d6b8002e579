// SPDX-License-Identifier: MIT
// expect: noexcept move constructor
// Compile-fail check: FixedFunction's move operations are noexcept, so a callable whose move
// constructor may throw must be rejected instead of turning a throw into std::terminate.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include "mccc/containers/fixed_function.hpp"

struct Functor {
  Functor() = default;
  Functor(const Functor&) = default;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  Functor(Functor&& /*other*/) {}  // not noexcept
#else
  Functor(Functor&& /*other*/) noexcept {}
#endif
  int operator()() const {
    return 0;
  }
};

int main() {
  mccc::FixedFunction<int()> f = Functor{};
  return f();
}
