// SPDX-License-Identifier: MIT
// expect: mccc: the bus Clock needs `static uint64_t NowUs\(\) noexcept`
// A bus clock is read through NowUs(); a type without it is not a clock.
#include <cstdint>

#include "mccc/clock/clock_stamp.hpp"

struct TickCounter {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static uint64_t Ticks() noexcept {
    return 1U;
  }
#else
  static uint64_t NowUs() noexcept {
    return 1U;
  }
#endif
};

int main() {
  return static_cast<int>(mccc::detail::ClockStamp<TickCounter, true>::Take().ToUs());
}
