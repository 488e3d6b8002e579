// SPDX-License-Identifier: MIT
// Unit tests of mccc/clock.hpp: NullClock, SteadyClock, DefaultClock, the Clock requirements
// (clock/clock_concept.hpp) and the stamp a publish takes (clock/clock_stamp.hpp). TscClock and
// its arithmetic: test_tsc_clock.cpp, test_tsc_timeline.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

#include "mccc/clock.hpp"
#include "mccc/traits.hpp"

namespace {

TEST(NullClock, AlwaysReadsZero) {
  EXPECT_EQ(mccc::NullClock::NowUs(), 0U);
}

TEST(SteadyClock, NeverGoesBackwards) {
  uint64_t previous = mccc::SteadyClock::NowUs();
  for (int i = 0; i < 10000; ++i) {
    const uint64_t now = mccc::SteadyClock::NowUs();
    ASSERT_GE(now, previous);
    previous = now;
  }
}

TEST(SteadyClock, NanosecondsAreOnTheSameTimeLine) {
  const uint64_t before_us = mccc::SteadyClock::NowUs();
  const uint64_t ns = mccc::SteadyClock::NowNs();
  const uint64_t after_us = mccc::SteadyClock::NowUs();
  EXPECT_GE(ns / 1000U, before_us);
  EXPECT_LE(ns / 1000U, after_us);
}

TEST(DefaultClock, IsTheDocumentedClockOfThisPlatform) {
#if MCCC_HAS_TSC_CLOCK && !MCCC_DEFAULT_CLOCK_STEADY
  EXPECT_TRUE((std::is_same_v<mccc::DefaultClock, mccc::TscClock>));
#else
  EXPECT_TRUE((std::is_same_v<mccc::DefaultClock, mccc::SteadyClock>));
#endif
  EXPECT_TRUE((std::is_same_v<mccc::DefaultBusTraits::Clock, mccc::DefaultClock>));
}

// ---- What a Clock must provide ------------------------------------------------------------

struct WholeClock {
  static uint64_t NowUs() noexcept { return 7U; }
};
struct TicketClock {  // splits a reading; its Reading is an integer (raw ticks, say)
  static uint64_t Sample() noexcept { return 41U; }
  static uint64_t ToUs(uint64_t ticks) noexcept { return ticks + 1U; }
  static uint64_t NowUs() noexcept { return ToUs(Sample()); }
};
struct ThrowingClock {
  static uint64_t NowUs() { return 0U; }
};
struct SignedClock {
  static int64_t NowUs() noexcept { return 0; }
};
struct HalfSplitClock {  // Sample() without ToUs()
  static int Sample() noexcept { return 0; }
  static uint64_t NowUs() noexcept { return 0U; }
};
struct NoClock {};

TEST(ClockConcept, AcceptsWholeAndSplitClocksAndNamesWhatIsMissing) {
  using mccc::detail::ClockSplitsReading;
  using mccc::detail::kIsValidClock;
  EXPECT_TRUE(kIsValidClock<mccc::NullClock>);
  EXPECT_TRUE(kIsValidClock<mccc::SteadyClock>);
  EXPECT_TRUE(kIsValidClock<mccc::DefaultClock>);
  EXPECT_TRUE(kIsValidClock<WholeClock>);
  EXPECT_TRUE(kIsValidClock<TicketClock>);
  EXPECT_FALSE(kIsValidClock<ThrowingClock>);
  EXPECT_FALSE(kIsValidClock<SignedClock>);
  EXPECT_FALSE(kIsValidClock<HalfSplitClock>);
  EXPECT_FALSE(kIsValidClock<NoClock>);
  EXPECT_FALSE(ClockSplitsReading<WholeClock>::value);
  EXPECT_TRUE(ClockSplitsReading<TicketClock>::value);
  EXPECT_FALSE(ClockSplitsReading<HalfSplitClock>::value);
  EXPECT_FALSE(ClockSplitsReading<mccc::NullClock>::value);
  EXPECT_FALSE(ClockSplitsReading<mccc::SteadyClock>::value);
#if MCCC_HAS_TSC_CLOCK
  EXPECT_TRUE(ClockSplitsReading<mccc::TscClock>::value);
#endif
}

// ---- The stamp of a publish -----------------------------------------------------------------

// Counts where a stamp reads and where it converts.
struct CountingClock {
  struct Reading {
    uint64_t ticket;
  };
  static inline uint64_t samples = 0U;
  static inline uint64_t conversions = 0U;
  static inline uint64_t whole_readings = 0U;
  static Reading Sample() noexcept { return Reading{++samples}; }
  static uint64_t ToUs(const Reading& reading) noexcept {
    ++conversions;
    return 1000U + reading.ticket;
  }
  static uint64_t NowUs() noexcept {
    ++whole_readings;
    return 2000U;
  }
  static void Reset() noexcept { samples = conversions = whole_readings = 0U; }
};

TEST(ClockStamp, DeferredStampSamplesWhenTakenAndConvertsWhenAsked) {
  using Stamp = mccc::detail::ClockStamp<CountingClock, true>;
  static_assert(Stamp::kDeferred, "a splitting clock converts after the claim");
  CountingClock::Reset();
  const Stamp stamp = Stamp::Take();
  EXPECT_EQ(CountingClock::samples, 1U);
  EXPECT_EQ(CountingClock::conversions, 0U);
  EXPECT_EQ(stamp.ToUs(), 1001U);
  EXPECT_EQ(CountingClock::conversions, 1U);
  EXPECT_EQ(CountingClock::whole_readings, 0U);
}

TEST(ClockStamp, UndeferredStampReadsTheWholeClockOnce) {
  using Stamp = mccc::detail::ClockStamp<CountingClock, false>;
  static_assert(!Stamp::kDeferred, "not deferred when the bus does not ask for it");
  CountingClock::Reset();
  const Stamp stamp = Stamp::Take();
  EXPECT_EQ(stamp.ToUs(), 2000U);
  EXPECT_EQ(stamp.ToUs(), 2000U);
  EXPECT_EQ(CountingClock::whole_readings, 1U);
  EXPECT_EQ(CountingClock::samples, 0U);
  EXPECT_EQ(CountingClock::conversions, 0U);
}

TEST(ClockStamp, ClockWithoutSplitIsReadWholeEvenWhenDeferralIsAsked) {
  using Stamp = mccc::detail::ClockStamp<WholeClock, true>;
  static_assert(!Stamp::kDeferred, "nothing to defer");
  EXPECT_EQ(Stamp::Take().ToUs(), 7U);
}

TEST(ClockStamp, AnIntegerReadingIsConvertedNotTakenForMicroseconds) {
  using Stamp = mccc::detail::ClockStamp<TicketClock, true>;
  static_assert(Stamp::kDeferred, "the integer reading is a reading");
  EXPECT_EQ(Stamp::Take().ToUs(), 42U);
}

TEST(ClockStamp, GivenStampIsTheCallersValueAndWarmUpReadsOnce) {
  EXPECT_EQ(mccc::detail::GivenStamp(12345U).ToUs(), 12345U);
  CountingClock::Reset();
  mccc::detail::ClockStamp<CountingClock, true>::WarmUp();
  EXPECT_EQ(CountingClock::whole_readings, 1U);
}

}  // namespace
