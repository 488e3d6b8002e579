// SPDX-License-Identifier: MIT
// expect: mccc: Clock::NowUs\(\) must be noexcept
// Every publish path reads the clock and is noexcept: a throwing NowUs() would terminate.
#include <cstdint>

#include "mccc/clock/clock_stamp.hpp"

struct ThrowingClock {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static uint64_t NowUs() {
    return 1U;
  }
#else
  static uint64_t NowUs() noexcept {
    return 1U;
  }
#endif
};

int main() {
  return static_cast<int>(mccc::detail::ClockStamp<ThrowingClock, true>::Take().ToUs());
}
