// SPDX-License-Identifier: MIT
/// @file steady_clock.hpp
/// @brief SteadyClock: std::chrono::steady_clock in microseconds (hosted systems only).
#ifndef MCCC_CLOCK_STEADY_CLOCK_HPP_
#define MCCC_CLOCK_STEADY_CLOCK_HPP_

#include <cstdint>

#include "mccc/config.hpp"

#if MCCC_HOSTED
#include <chrono>
#endif

namespace mccc {

#if MCCC_HOSTED
/// @brief std::chrono::steady_clock in microseconds (monotonic, never goes back): the default on
/// hosted systems other than x86-64 (see DefaultClock), and TscClock's reference and fallback.
/// One clock_gettime call on Linux (through the vDSO, no system call), which orders the counter
/// read it makes behind earlier instructions. Thread-safe, wait-free, async-signal-safe
/// (clock_gettime is).
struct SteadyClock {
  /// @brief Microseconds since an unspecified epoch (the steady_clock epoch).
  static uint64_t NowUs() noexcept {
    const auto since_epoch = std::chrono::steady_clock::now().time_since_epoch();
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count());
  }

  /// @brief Nanoseconds on the same time line.
  static uint64_t NowNs() noexcept {
    const auto since_epoch = std::chrono::steady_clock::now().time_since_epoch();
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count());
  }
};
#endif

}  // namespace mccc

#endif  // MCCC_CLOCK_STEADY_CLOCK_HPP_
