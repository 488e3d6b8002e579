// SPDX-License-Identifier: MIT
// Unit tests of mccc/clock/tsc_clock.hpp: BasicTscClock driven by a simulated counter
// (tests/support/fake_counter_source.hpp), which makes resynchronisations, preempted writers,
// readers that interrupt them and a counter the kernel stops trusting happen exactly when a test
// says; then TscClock on the real cycle counter.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "mccc/clock.hpp"
#include "support/fake_counter_source.hpp"

namespace {

#if MCCC_HAS_TSC_TIMELINE && MCCC_HOSTED

using mccc::detail::CounterVerdict;

constexpr uint64_t kUs = 1000U;
constexpr uint64_t kMs = 1000000U;

uint64_t Distance(uint64_t a, uint64_t b) {
  return a > b ? a - b : b - a;
}

// Reads `Clock` every `step_ns` of simulated time for `duration_ns`, checking that no reading
// is below the one before (`previous`, updated) and, when `tolerance_us` is not 0, that each
// reading lies within tolerance_us of the reference.
template <typename Clock, typename Source>
void ReadAlong(uint64_t duration_ns, uint64_t step_ns, uint64_t& previous,
               uint64_t tolerance_us = 0U) {
  for (uint64_t elapsed = 0U; elapsed < duration_ns; elapsed += step_ns) {
    Source::Advance(step_ns);
    const uint64_t now = Clock::NowUs();
    ASSERT_GE(now, previous) << "after " << elapsed << " ns";
    if (tolerance_us != 0U) {
      ASSERT_LE(Distance(now, Source::PeekReferenceNs() / kUs), tolerance_us)
          << "after " << elapsed << " ns";
    }
    previous = now;
  }
}

TEST(BasicTscClock, CalibratesAndStaysOnTheReferenceThatDrifts) {
  using Source = fake::CounterSource<1>;
  using Clock = mccc::BasicTscClock<Source>;
  uint64_t previous = Clock::NowUs();  // calibrates
  EXPECT_TRUE(Clock::UsesCycleCounter());
  EXPECT_LE(Distance(previous, Source::PeekReferenceNs() / kUs), 1U);
  // The reference runs 300 ppm fast against the calibrated rate (far more than a 1 ms
  // calibration is off): the line steers onto it and follows it, never going back.
  Source::SetReferencePpm(300);
  ReadAlong<Clock, Source>(1000U * kMs, kMs, previous);
  ReadAlong<Clock, Source>(1000U * kMs, kMs, previous, 5U);
  // Read rarely (every 0.7 s): the rate measured over the uptime keeps it on the reference.
  ReadAlong<Clock, Source>(7000U * kMs, 700U * kMs, previous, 5U);
  // NTP slews the reference the other way: steered back, within the steering bound.
  Source::SetReferencePpm(-200);
  ReadAlong<Clock, Source>(2000U * kMs, kMs, previous, 30U);
}

TEST(BasicTscClock, StepsForwardWhenTheReferenceJumpsAhead) {
  using Source = fake::CounterSource<2>;
  using Clock = mccc::BasicTscClock<Source>;
  uint64_t previous = Clock::NowUs();
  ReadAlong<Clock, Source>(100U * kMs, kMs, previous);
  Source::StepReference(static_cast<int64_t>(250U * kMs));  // e.g. a suspend the counter missed
  ReadAlong<Clock, Source>(60U * kMs, kMs, previous);       // past the next resynchronisation
  EXPECT_LE(Distance(Clock::NowUs(), Source::PeekReferenceNs() / kUs), 2U);
}

TEST(BasicTscClock, SplitReadingIsNowUsInTwoHalves) {
  using Source = fake::CounterSource<3>;
  using Clock = mccc::BasicTscClock<Source>;
  static_assert(mccc::detail::ClockSplitsReading<Clock>::value, "BasicTscClock splits");
  Source::SetReferencePpm(-200);
  uint64_t previous = Clock::NowUs();
  for (int i = 0; i < 3000; ++i) {  // 300 ms: across several resynchronisations
    Source::Advance(100U * kUs);
    const uint64_t before = Clock::NowUs();
    const Clock::Reading sample = Clock::Sample();
    const uint64_t split = Clock::ToUs(sample);
    const uint64_t after = Clock::NowUs();
    ASSERT_LE(previous, before);
    ASSERT_LE(before, split);
    ASSERT_LE(split, after);
    previous = after;
  }
}

// The scenario of a resynchronisation whose writer is preempted right after reading its pair:
// the reference runs 100 ppm slower than the line, so the writer computes a slower line that
// meets the old one shortly after its pair. While it is away for 10 ms, the other readers (here
// on the same thread, as an interrupt would be) keep reading and cannot publish a line of their
// own (every pair they take comes out interrupted). The writer then publishes its line, which it
// computed 10 ms ago. No reading may be lower than one before it.
// G-30: a writer preempted after its pair never steps time back
TEST(BasicTscClock, AWriterPreemptedAfterItsPairNeverStepsTimeBack) {
  using Source = fake::CounterSource<4>;
  using Clock = mccc::BasicTscClock<Source>;
  static uint64_t previous = 0U;
  static uint64_t readings_while_away = 0U;
  previous = Clock::NowUs();
  Source::SetReferencePpm(-100);
  ReadAlong<Clock, Source>(50U * kMs, kMs, previous);  // up to the bend: no resync yet
  Source::Advance(5U * kMs);                           // resynchronisation due
  Source::after_next_pair.store([] {
    Source::spoil_pairs.store(true);
    for (int i = 0; i < 100; ++i) {  // the writer is away for 10 ms
      Source::Advance(100U * kUs);
      const uint64_t now = Clock::NowUs();
      EXPECT_GE(now, previous) << "reading " << i << " while the writer is away";
      previous = now;
      ++readings_while_away;
    }
    Source::spoil_pairs.store(false);
  });
  const uint64_t writer_reading = Clock::NowUs();  // this reading resynchronises
  EXPECT_EQ(Source::after_next_pair.load(), nullptr) << "the hook did not run";
  EXPECT_EQ(readings_while_away, 100U);
  EXPECT_GE(writer_reading, previous) << "the late line stepped time back";
  previous = writer_reading;
  EXPECT_TRUE(Clock::UsesCycleCounter());
  ReadAlong<Clock, Source>(200U * kMs, 100U * kUs, previous);
  EXPECT_LE(Distance(previous, Source::PeekReferenceNs() / kUs), 20U);
}

// An interrupt (here: a reading made from inside the writer, as a signal handler on the
// writer's thread would) while a resynchronisation is under way: it must neither wait for the
// writer, which cannot run until it returns, nor see time go back. Once the old line has
// expired it publishes the next line itself, so time keeps running; the writer's own line is
// then dropped.
// G-30: readers never wait for a writer, also one that interrupted it
TEST(BasicTscClock, AReaderThatInterruptsTheWriterNeverWaitsAndTimeKeepsRunning) {
  using Source = fake::CounterSource<5>;
  using Clock = mccc::BasicTscClock<Source>;
  static uint64_t previous = 0U;
  previous = Clock::NowUs();
  Source::SetReferencePpm(-150);  // the writer's line will be the slower one
  ReadAlong<Clock, Source>(50U * kMs, kMs, previous);
  Source::Advance(5U * kMs);
  Source::after_next_pair.store([] {
    for (int i = 0; i < 200; ++i) {  // 20 ms of interrupts, 100 us apart
      Source::Advance(100U * kUs);
      const uint64_t now = Clock::NowUs();
      EXPECT_GE(now, previous) << "interrupt " << i;
      // Time runs: within the steering bound of the reference, never frozen at the expiry.
      EXPECT_LE(Distance(now, Source::PeekReferenceNs() / kUs), 20U) << "interrupt " << i;
      previous = now;
    }
  });
  const uint64_t writer_reading = Clock::NowUs();
  EXPECT_EQ(Source::after_next_pair.load(), nullptr) << "the hook did not run";
  EXPECT_GE(writer_reading, previous);
  previous = writer_reading;
  ReadAlong<Clock, Source>(200U * kMs, 100U * kUs, previous, 20U);
}

// The kernel stops trusting the counter (its watchdog left the `tsc` clocksource). The clock
// notices at its next source check (at most a second later, on a resynchronisation) and reads
// the reference from then on, held at or above the last value the counter could have given:
// here the line runs ahead of the reference when it happens, so time holds still until the
// reference catches up, and never goes back.
// G-30: loss of trust in the TSC moves readings to steady_clock without a step back
TEST(BasicTscClock, FallsBackToTheReferenceWhenTheSourceStopsTrustingTheCounter) {
  using Source = fake::CounterSource<6>;
  using Clock = mccc::BasicTscClock<Source>;
  uint64_t previous = Clock::NowUs();
  EXPECT_EQ(Source::checks.load(), 1U);  // at calibration
  ReadAlong<Clock, Source>(900U * kMs, kMs, previous);
  Source::StepReference(-static_cast<int64_t>(900U * kUs));  // the line is now 900 us ahead
  Source::verdict.store(CounterVerdict::kUntrusted);
  const uint32_t checks_before = Source::checks.load();
  // Read every 10 us, so that the resynchronisation that notices it happens before the line
  // expires (a later one would take the line's value at its expiry as the floor, already behind
  // what the line would read then).
  for (int i = 0; i < 200000 && Clock::UsesCycleCounter(); ++i) {
    Source::Advance(10U * kUs);
    const uint64_t now = Clock::NowUs();
    ASSERT_GE(now, previous);
    previous = now;
  }
  ASSERT_FALSE(Clock::UsesCycleCounter()) << "the distrust was never noticed";
  EXPECT_EQ(Source::checks.load(), checks_before + 1U);
  uint64_t held = 0U;
  for (int i = 0; i < 2000; ++i) {  // 20 ms in 10 us steps
    Source::Advance(10U * kUs);
    const uint64_t now = Clock::NowUs();
    ASSERT_GE(now, previous) << "step " << i;
    if (now == previous) {
      ++held;
    }
    previous = now;
  }
  // About 870 us ahead when noticed: time holds still for as long, in 10 us steps.
  EXPECT_GT(held, 50U) << "time should have held still while the reference caught up";
  // Caught up: the reference itself.
  EXPECT_LE(Distance(Clock::NowUs(), Source::PeekReferenceNs() / kUs), 1U);
  EXPECT_FALSE(Clock::UsesCycleCounter());
}

TEST(BasicTscClock, KeepsTheCounterWhenTheSourceCannotTell) {
  using Source = fake::CounterSource<7>;
  using Clock = mccc::BasicTscClock<Source>;
  uint64_t previous = Clock::NowUs();
  Source::verdict.store(CounterVerdict::kUnknown);  // e.g. the verdict could not be read
  ReadAlong<Clock, Source>(3000U * kMs, kMs, previous, 20U);
  EXPECT_GE(Source::checks.load(), 3U);
  EXPECT_TRUE(Clock::UsesCycleCounter());
}

TEST(BasicTscClock, AsksTheSourceAboutOncePerSecondOfReferenceTime) {
  using Source = fake::CounterSource<8>;
  using Clock = mccc::BasicTscClock<Source>;
  uint64_t previous = Clock::NowUs();
  ASSERT_EQ(Source::checks.load(), 1U);
  // 10 s read every millisecond: 200 resynchronisations, about 10 source checks.
  ReadAlong<Clock, Source>(10000U * kMs, kMs, previous);
  EXPECT_GE(Source::checks.load(), 1U + 9U);
  EXPECT_LE(Source::checks.load(), 1U + 11U);
}

TEST(BasicTscClock, UntrustedFromTheStartReadsTheReference) {
  using Source = fake::CounterSource<9>;
  using Clock = mccc::BasicTscClock<Source>;
  Source::verdict.store(CounterVerdict::kUntrusted);
  const uint64_t first = Clock::NowUs();
  EXPECT_FALSE(Clock::UsesCycleCounter());
  EXPECT_LE(Distance(first, Source::PeekReferenceNs() / kUs), 1U);
  uint64_t previous = first;
  ReadAlong<Clock, Source>(100U * kMs, kMs, previous, 1U);
  Source::verdict.store(CounterVerdict::kTrusted);  // never trusted again once refused
  ReadAlong<Clock, Source>(2000U * kMs, 10U * kMs, previous, 1U);
  EXPECT_FALSE(Clock::UsesCycleCounter());
}

// The state is constant-initialised and calibration waits for the first reading that reaches
// the slow path: a first reading through the split halves (what a publish takes) calibrates too.
TEST(BasicTscClock, AFirstReadingThroughTheSplitHalvesCalibratesOnce) {
  using Source = fake::CounterSource<10>;
  using Clock = mccc::BasicTscClock<Source>;
  const Clock::Reading first = Clock::Sample();
  const uint64_t first_us = Clock::ToUs(first);
  EXPECT_EQ(Source::checks.load(), 1U);
  EXPECT_TRUE(Clock::UsesCycleCounter());
  EXPECT_LE(Distance(first_us, Source::PeekReferenceNs() / kUs), 1U);
  uint64_t previous = first_us;
  ReadAlong<Clock, Source>(100U * kMs, kMs, previous, 1U);
  EXPECT_EQ(Source::checks.load(), 1U);
}

// Threads whose first readings race: one calibrates, the others wait for it (none reads a line
// half written), and no thread's readings go back.
TEST(BasicTscClock, ThreadsWhoseFirstReadingsRaceCalibrateOnceAndNeverGoBack) {
  using Source = fake::CounterSource<11>;
  using Clock = mccc::BasicTscClock<Source>;
  constexpr int kThreads = 4;
  constexpr int kReadings = 2000;
  std::atomic<bool> go{false};
  std::atomic<int> went_back{0};
  std::atomic<int> off_the_reference{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < kThreads; ++t) {
    readers.emplace_back([&] {
      while (!go.load()) {
      }
      uint64_t previous = 0U;
      for (int i = 0; i < kReadings; ++i) {
        const uint64_t before_us = Source::PeekReferenceNs() / kUs;
        const uint64_t now = Clock::NowUs();
        const uint64_t after_us = Source::PeekReferenceNs() / kUs;
        went_back.fetch_add(now < previous ? 1 : 0);
        // Within the reference's bounds, give or take a microsecond of rounding.
        off_the_reference.fetch_add(now + 1U < before_us || now > after_us + 1U ? 1 : 0);
        previous = now;
      }
    });
  }
  go.store(true);
  for (std::thread& reader : readers) {
    reader.join();
  }
  EXPECT_EQ(went_back.load(), 0);
  EXPECT_EQ(off_the_reference.load(), 0);
  EXPECT_EQ(Source::checks.load(), 1U);
  EXPECT_TRUE(Clock::UsesCycleCounter());
}

#endif  // MCCC_HAS_TSC_TIMELINE && MCCC_HOSTED

// ---- TscClock on the real cycle counter ----------------------------------------------------

#if MCCC_HAS_TSC_CLOCK

TEST(TscClock, UsesTheCounterExactlyWhenTheSourceTrustsIt) {
  const bool trusted = mccc::detail::TscSource::Check() == mccc::detail::CounterVerdict::kTrusted;
  EXPECT_EQ(mccc::TscClock::UsesCycleCounter(), trusted);
}

// G-29: never backwards on any thread across resynchronisations
TEST(TscClock, NeverGoesBackwardsOnAnyThreadAcrossResynchronisations) {
  // 4 threads read for ~120 ms, i.e. across two resynchronisations (every ~50 ms).
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  const uint64_t end = mccc::SteadyClock::NowUs() + 120000U;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&]() {
      uint64_t previous = mccc::TscClock::NowUs();
      while (mccc::SteadyClock::NowUs() < end) {
        const uint64_t now = mccc::TscClock::NowUs();
        if (now < previous) {
          failures.fetch_add(1);
        }
        previous = now;
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_EQ(failures.load(), 0);
}

TEST(TscClock, StaysOnSteadyClocksTimeLine) {
  // Each reading is bracketed by two steady_clock readings, give or take the steering bound
  // (a few us; 200 us leaves room for sanitizer builds and a preempted thread).
  for (int i = 0; i < 30; ++i) {
    const uint64_t before = mccc::SteadyClock::NowUs();
    const uint64_t tsc = mccc::TscClock::NowUs();
    const uint64_t after = mccc::SteadyClock::NowUs();
    EXPECT_GE(tsc + 200U, before);
    EXPECT_LE(tsc, after + 200U);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST(TscClock, SplitReadingIsNowUsInTwoHalves) {
  static_assert(mccc::detail::ClockSplitsReading<mccc::TscClock>::value, "TscClock splits");
  // Across two resynchronisations (~120 ms): each split reading lies between the whole readings
  // taken before and after it, and the split readings never go backwards.
  const uint64_t end = mccc::SteadyClock::NowUs() + 120000U;
  uint64_t previous = 0U;
  uint64_t readings = 0U;
  while (mccc::SteadyClock::NowUs() < end) {
    const uint64_t before = mccc::TscClock::NowUs();
    const mccc::TscClock::Reading sample = mccc::TscClock::Sample();
    const uint64_t split = mccc::TscClock::ToUs(sample);
    const uint64_t after = mccc::TscClock::NowUs();
    ASSERT_LE(before, split);
    ASSERT_LE(split, after);
    ASSERT_LE(previous, split);
    previous = split;
    ++readings;
  }
  EXPECT_GT(readings, 0U);
}

#endif  // MCCC_HAS_TSC_CLOCK

}  // namespace
