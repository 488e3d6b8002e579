// SPDX-License-Identifier: MIT
/// @file clock_stamp.hpp
/// @brief The one way a publish reads its clock: a stamp taken before the ring claim and turned
/// into microseconds after it, for every publish path alike.
///
/// The protocol (AsyncBus, every path: Publish, PublishWithPriority, PublishEmplace,
/// PublishBatch; PublishFast passes a GivenStamp instead):
///   1. `auto stamp = ClockStamp<Clock, !kSingleProducer>::Take();` before the claim;
///   2. the claim;
///   3. only if something was admitted, `stamp.ToUs()` once, and that value in every header the
///      call writes (a refused publish converts nothing).
/// With a clock that splits its reading (clock_concept.hpp) and kConvertAfterClaim, Take() is
/// the clock's Sample() and ToUs() its conversion, so the claim's locked instruction never waits
/// behind the conversion's range check; otherwise Take() is NowUs() and ToUs() returns it (a
/// single-producer claim has no locked instruction to protect).
#ifndef MCCC_CLOCK_CLOCK_STAMP_HPP_
#define MCCC_CLOCK_CLOCK_STAMP_HPP_

#include <cstdint>

#include "mccc/clock/clock_concept.hpp"
#include "mccc/config.hpp"

namespace mccc {
namespace detail {

/// What a stamp of `Clock` holds until it is converted: the clock's Reading when the conversion
/// is deferred, else the microseconds.
template <typename Clock, bool kDeferred>
struct ClockStampValue {
  using Type = uint64_t;
};
template <typename Clock>
struct ClockStampValue<Clock, true> {
  using Type = decltype(Clock::Sample());
};

/// @brief A clock reading taken before a ring claim, converted after it (see the file comment).
/// Trivially copyable; thread-safe as far as the clock is.
template <typename Clock, bool kConvertAfterClaim>
class ClockStamp {
  static_assert(CheckClock<Clock>(), "mccc: the bus Clock does not meet clock_concept.hpp");

 public:
  /// True when Take() samples and ToUs() converts.
  static constexpr bool kDeferred = kConvertAfterClaim && ClockSplitsReading<Clock>::value;

  /// @brief Reads the clock (before the claim).
  MCCC_ALWAYS_INLINE static ClockStamp Take() noexcept {
    if constexpr (kDeferred) {
      return ClockStamp(Clock::Sample());
    } else {
      return ClockStamp(Clock::NowUs());
    }
  }

  /// @brief The microseconds of the reading (after the claim).
  // cppcheck-suppress functionStatic ; false positive: both branches read value_
  MCCC_ALWAYS_INLINE uint64_t ToUs() const noexcept {
    if constexpr (kDeferred) {
      return Clock::ToUs(value_);
    } else {
      return value_;
    }
  }

  /// @brief Takes the clock's first reading, which may calibrate it (TscClock: about 1 ms), so
  /// that no publish pays for it: call it while constructing the bus. constexpr for a clock whose
  /// reading is (NullClock), so that such a bus stays constant-initialisable.
  static constexpr void WarmUp() noexcept { static_cast<void>(Clock::NowUs()); }

 private:
  using Value = typename ClockStampValue<Clock, kDeferred>::Type;
  explicit ClockStamp(const Value& value) noexcept : value_(value) {}

  Value value_;
};

/// @brief PublishFast's caller-supplied microseconds, with ClockStamp's ToUs().
class GivenStamp {
 public:
  explicit constexpr GivenStamp(uint64_t timestamp_us) noexcept : timestamp_us_(timestamp_us) {}
  /// @brief The caller's microseconds.
  constexpr uint64_t ToUs() const noexcept { return timestamp_us_; }

 private:
  uint64_t timestamp_us_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_CLOCK_CLOCK_STAMP_HPP_
