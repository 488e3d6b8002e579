// SPDX-License-Identifier: MIT
// expect: over-aligned for FixedFunction storage
// Compile-fail check: a callable aligned more strictly than alignof(std::max_align_t) must be
// rejected (the storage cannot place it correctly).
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstddef>

#include "mccc/containers/fixed_function.hpp"

#ifndef MCCC_COMPILE_FAIL_CONTROL
struct alignas(2 * alignof(std::max_align_t)) Functor {
#else
struct Functor {
#endif
  int operator()() const {
    return 0;
  }
};

int main() {
  mccc::FixedFunction<int(), 256> f = Functor{};
  return f();
}
