// SPDX-License-Identifier: MIT
// expect: mccc: Clock::NowUs\(\) must return uint64_t microseconds
// MessageHeader::timestamp_us is a uint64_t; a signed or narrower reading would be converted.
#include <cstdint>

#include "mccc/clock/clock_stamp.hpp"

struct SignedClock {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static int64_t NowUs() noexcept {
    return 1;
  }
#else
  static uint64_t NowUs() noexcept {
    return 1U;
  }
#endif
};

int main() {
  return static_cast<int>(mccc::detail::ClockStamp<SignedClock, true>::Take().ToUs());
}
