// SPDX-License-Identifier: MIT
/// @file timeout_micros.hpp
/// @brief The one rule by which a std::chrono duration becomes the whole microseconds that the
/// `uint32_t timeout_us` forms take (AsyncBus::WaitForMessages, IdleStrategy::max_sleep_us).
///
/// The rule, for a duration d:
/// - d <= 0 (and a floating-point NaN): 0, the value the uint32_t forms read as "do not sleep";
/// - otherwise d rounded *up* to whole microseconds, so a wait is never shorter than asked:
///   1 ns -> 1 us, 1.5 us -> 2 us, 1 ms -> 1000 us (std::chrono::duration_cast would round
///   toward zero and turn 1 ns into a 0 us, i.e. no wait at all);
/// - at most UINT32_MAX us (a little over 71 minutes): longer durations saturate there.
///
/// Integer durations are converted exactly, with no intermediate overflow even for
/// `std::chrono::hours::max()`, where `std::chrono::ceil<std::chrono::microseconds>` would
/// overflow its 64-bit count before any clamp could apply. Floating-point durations are first
/// converted to floating-point microseconds (std::chrono's own conversion, with its rounding
/// error) and then rounded up.
///
/// Hosted builds only (MCCC_HOSTED): config.hpp keeps <chrono> out of bare-metal builds, where
/// freestanding toolchains need not provide it; there the uint32_t forms are the interface.
#ifndef MCCC_DETAIL_TIMEOUT_MICROS_HPP_
#define MCCC_DETAIL_TIMEOUT_MICROS_HPP_

#include "mccc/config.hpp"

#if MCCC_HOSTED

#include <chrono>
#include <cstdint>
#include <limits>
#include <ratio>
#include <type_traits>

namespace mccc {
namespace detail {

/// @brief `timeout` as whole microseconds: zero or negative -> 0, otherwise rounded up and
/// saturated at UINT32_MAX (file comment). constexpr, noexcept, no allocation.
template <class Rep, class Period>
constexpr uint32_t TimeoutMicros(std::chrono::duration<Rep, Period> timeout) noexcept {
  static_assert(std::is_arithmetic_v<Rep>,
                "mccc: TimeoutMicros: the duration's representation must be an arithmetic type");
  constexpr uint32_t kMax = std::numeric_limits<uint32_t>::max();
  if constexpr (std::is_floating_point_v<Rep>) {
    const std::chrono::duration<Rep, std::micro> micros = timeout;  // implicit for floating point
    const Rep count = micros.count();
    if (!(count > Rep{0})) {
      return 0U;  // zero, negative or NaN
    }
    if (count >= static_cast<Rep>(kMax)) {
      return kMax;
    }
    const auto whole = static_cast<uint32_t>(count);  // truncates; below kMax, so it fits
    return static_cast<Rep>(whole) < count ? whole + 1U : whole;
  } else {
    // micros = count * kNum / kDen, in lowest terms.
    using Ratio = std::ratio_divide<Period, std::micro>;
    static_assert(Ratio::num > 0 && Ratio::den > 0, "mccc: TimeoutMicros: a negative period");
    constexpr auto kNum = static_cast<uintmax_t>(Ratio::num);
    constexpr auto kDen = static_cast<uintmax_t>(Ratio::den);
    // The standard units have kNum == 1 or kDen == 1; any other period is accepted as long as
    // the remainder's product below cannot overflow.
    static_assert(kDen == 1U || kNum <= std::numeric_limits<uintmax_t>::max() / kDen,
                  "mccc: TimeoutMicros: the duration's period is too far from a whole ratio of a "
                  "microsecond to convert without overflow; cast it to std::chrono::nanoseconds "
                  "or std::chrono::microseconds first");
    if (timeout.count() <= Rep{0}) {
      return 0U;
    }
    uintmax_t count = 0U;
    if constexpr (std::is_same_v<Rep, uintmax_t>) {
      count = timeout.count();  // a cast would be useless (-Wuseless-cast)
    } else {
      count = static_cast<uintmax_t>(timeout.count());  // positive here
    }
    const uintmax_t whole = count / kDen;  // whole multiples of kDen: exactly whole * kNum us
    if (whole > kMax / kNum) {
      return kMax;  // whole * kNum alone exceeds the maximum
    }
    const uintmax_t rest = count % kDen;  // below kDen, so rest * kNum fits (static_assert)
    const uintmax_t rest_scaled = rest * kNum;
    const uintmax_t rest_micros = rest_scaled / kDen + (rest_scaled % kDen != 0U ? 1U : 0U);
    // whole * kNum <= kMax, and rest_micros <= kNum, which is 0 extra when kDen == 1 and at most
    // UINTMAX_MAX / 2 otherwise: the sum cannot wrap.
    const uintmax_t micros = whole * kNum + rest_micros;
    return micros > kMax ? kMax : static_cast<uint32_t>(micros);
  }
}

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_HOSTED

#endif  // MCCC_DETAIL_TIMEOUT_MICROS_HPP_
