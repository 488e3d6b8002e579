// SPDX-License-Identifier: MIT
/// @file null_clock.hpp
/// @brief NullClock: timestamps that are always 0.
#ifndef MCCC_CLOCK_NULL_CLOCK_HPP_
#define MCCC_CLOCK_NULL_CLOCK_HPP_

#include <cstdint>

namespace mccc {

/// @brief A clock that always reads 0: for targets with no time base (timestamps unused), or for
/// callers that always use PublishFast. Thread-safe, wait-free, async-signal-safe.
struct NullClock {
  /// @brief Always 0.
  static constexpr uint64_t NowUs() noexcept { return 0U; }
};

}  // namespace mccc

#endif  // MCCC_CLOCK_NULL_CLOCK_HPP_
