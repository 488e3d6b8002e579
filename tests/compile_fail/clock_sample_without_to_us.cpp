// SPDX-License-Identifier: MIT
// expect: mccc: a Clock with Sample\(\) must also provide `static uint64_t ToUs
// A clock that splits its reading must say how to convert it; a Sample() alone would silently
// be ignored.
#include <cstdint>

#include "mccc/clock/clock_stamp.hpp"

struct HalfSplitClock {
  struct Reading {
    uint64_t ticks;
  };
  static Reading Sample() noexcept { return Reading{41U}; }
#ifdef MCCC_COMPILE_FAIL_CONTROL
  static uint64_t ToUs(const Reading& reading) noexcept {
    return reading.ticks + 1U;
  }
#endif
  static uint64_t NowUs() noexcept {
    return 42U;
  }
};

int main() {
  return static_cast<int>(mccc::detail::ClockStamp<HalfSplitClock, true>::Take().ToUs());
}
