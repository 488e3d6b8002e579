// SPDX-License-Identifier: MIT
// expect: raise Capacity or capture less
// Compile-fail check: a callable larger than the FixedFunction storage must be rejected.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile (it then stores a callable that fits).
#include <array>

#include "mccc/containers/fixed_function.hpp"

int main() {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  std::array<unsigned char, 17> captured{};  // one byte more than the 16-byte storage
#else
  std::array<unsigned char, 16> captured{};
#endif
  mccc::FixedFunction<int(), 16> f = [captured] { return static_cast<int>(captured[0]); };
  return f();
}
