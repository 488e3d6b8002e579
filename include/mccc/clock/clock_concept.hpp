// SPDX-License-Identifier: MIT
/// @file clock_concept.hpp
/// @brief What a bus Clock must provide, checked at compile time with messages that say what to
/// change.
///
/// A Clock is a type with
///   `static uint64_t NowUs() noexcept`: microseconds since a fixed epoch, never decreasing
///   (within a thread, and for a value received from another thread with acquire/release).
/// It may also split a reading in two:
///   `static Reading Sample() noexcept`: takes the instant (for TscClock: the counter and the
///   line that converts it), cheap and free of branches on the value read;
///   `static uint64_t ToUs(const Reading&) noexcept`: its microseconds, with
///   `NowUs() == ToUs(Sample())` for a reading taken at the same instant.
/// A multi-producer publish then samples before its ring claim and converts after it, so that
/// nothing the claim's locked instruction waits for depends on the conversion (clock_stamp.hpp).
#ifndef MCCC_CLOCK_CLOCK_CONCEPT_HPP_
#define MCCC_CLOCK_CLOCK_CONCEPT_HPP_

#include <cstdint>
#include <type_traits>

namespace mccc {
namespace detail {

template <typename Clock, typename = void>
struct ClockHasNowUs : std::false_type {};
template <typename Clock>
struct ClockHasNowUs<Clock, std::void_t<decltype(Clock::NowUs())>> : std::true_type {};

template <typename Clock, typename = void>
struct ClockHasSample : std::false_type {};
template <typename Clock>
struct ClockHasSample<Clock, std::void_t<decltype(Clock::Sample())>> : std::true_type {};

template <typename Clock, typename = void>
struct ClockHasToUs : std::false_type {};
template <typename Clock>
struct ClockHasToUs<Clock, std::void_t<decltype(Clock::ToUs(Clock::Sample()))>> : std::true_type {};

/// True when `Clock` splits a reading into Sample() and ToUs() (see the file comment).
template <typename Clock, typename = void>
struct ClockSplitsReading : std::false_type {};
template <typename Clock>
struct ClockSplitsReading<Clock, std::void_t<decltype(Clock::ToUs(Clock::Sample()))>>
    : std::bool_constant<std::is_same_v<decltype(Clock::ToUs(Clock::Sample())), uint64_t>> {};

/// True when `Clock` meets every requirement of the file comment (no diagnostics).
template <typename Clock>
constexpr bool ClockMeetsRequirements() noexcept {
  if constexpr (!ClockHasNowUs<Clock>::value) {
    return false;
  } else {
    bool met = std::is_same_v<decltype(Clock::NowUs()), uint64_t>&& noexcept(Clock::NowUs());
    if constexpr (ClockSplitsReading<Clock>::value) {
      met = met&& noexcept(Clock::Sample())&& noexcept(Clock::ToUs(Clock::Sample()));
    } else if constexpr (ClockHasSample<Clock>::value) {
      met = false;
    } else {
      // NowUs() alone: the split reading is optional, nothing more to check.
    }
    return met;
  }
}
template <typename Clock>
inline constexpr bool kIsValidClock = ClockMeetsRequirements<Clock>();

/// Checks `Clock` against the file comment; each unmet requirement stops the compilation with
/// its own message. Returns true, so that it can sit in a static_assert of its own.
template <typename Clock>
constexpr bool CheckClock() noexcept {
  static_assert(ClockHasNowUs<Clock>::value,
                "mccc: the bus Clock needs `static uint64_t NowUs() noexcept` (microseconds since "
                "a fixed epoch); use mccc::NullClock when messages need no timestamp");
  if constexpr (ClockHasNowUs<Clock>::value) {
    static_assert(std::is_same_v<decltype(Clock::NowUs()), uint64_t>,
                  "mccc: Clock::NowUs() must return uint64_t microseconds");
    static_assert(noexcept(Clock::NowUs()),
                  "mccc: Clock::NowUs() must be noexcept: every publish path reads it and is "
                  "noexcept; catch inside NowUs() and return a value instead");
  }
  if constexpr (ClockHasSample<Clock>::value) {
    static_assert(ClockHasToUs<Clock>::value,
                  "mccc: a Clock with Sample() must also provide `static uint64_t ToUs(const "
                  "Reading&) noexcept` taking what Sample() returns (or drop Sample())");
    if constexpr (ClockHasToUs<Clock>::value) {
      static_assert(std::is_same_v<decltype(Clock::ToUs(Clock::Sample())), uint64_t>,
                    "mccc: Clock::ToUs(Clock::Sample()) must return uint64_t microseconds");
      static_assert(noexcept(Clock::Sample())&& noexcept(Clock::ToUs(Clock::Sample())),
                    "mccc: Clock::Sample() and Clock::ToUs() must be noexcept, like NowUs()");
    }
  }
  return true;
}

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_CLOCK_CLOCK_CONCEPT_HPP_
