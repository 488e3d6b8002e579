// Unit tests of mccc/clock.hpp and the TscClock arithmetic in mccc/detail/tsc_timeline.hpp.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

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

#if MCCC_HAS_TSC_TIMELINE

using mccc::detail::TscEvaluate;
using mccc::detail::TscLine;
using mccc::detail::TscNextLine;
using mccc::detail::TscResyncDue;
using mccc::detail::TscSteering;

constexpr uint64_t kOneQ32 = uint64_t{1} << 32U;

TEST(TscTimeline, EvaluatesBothSegmentsAndTicksBeforeTheAnchor) {
  // 0.5 ns per tick for 400 ticks after the anchor, then 1 ns per tick.
  const TscLine line{1000U, 1000U, kOneQ32 / 2U, kOneQ32};
  EXPECT_EQ(TscEvaluate(line, 1000U, 400U), 1000U);
  EXPECT_EQ(TscEvaluate(line, 1200U, 400U), 1100U);
  EXPECT_EQ(TscEvaluate(line, 1400U, 400U), 1200U);  // the bend
  EXPECT_EQ(TscEvaluate(line, 1600U, 400U), 1400U);  // base slope after it
  EXPECT_EQ(TscEvaluate(line, 600U, 400U), 800U);    // before the anchor: steering slope
}

TEST(TscTimeline, ResyncIsDueOnlyPastTheBendAndLead) {
  const TscSteering steering{1000U, 10U, 500U, 1000000U};
  const TscLine line{5000U, 0U, kOneQ32, kOneQ32};
  EXPECT_FALSE(TscResyncDue(line, 4000U, steering));
  EXPECT_FALSE(TscResyncDue(line, 6010U, steering));
  EXPECT_TRUE(TscResyncDue(line, 6011U, steering));
}

// A simulated machine: a 3 GHz counter and a reference clock whose rate differs from the
// counter's nominal rate by `reference_ppm` (what NTP does to steady_clock), plus jumps.
struct Machine {
  double reference_ppm = 0.0;
  int64_t reference_offset_ns = 0;
  uint64_t ReferenceNs(uint64_t ticks) const {
    const double ns = static_cast<double>(ticks) / 3.0 * (1.0 + reference_ppm * 1e-6);
    return static_cast<uint64_t>(ns) + static_cast<uint64_t>(reference_offset_ns);
  }
};

constexpr uint64_t kTicksPerMs = 3000000U;
const TscSteering kSteering{50U * kTicksPerMs, kTicksPerMs / 50U, 500U, 1000000U};

// Checks the switch from `old_line` to `new_line` computed at `t_w`: within the lead window a
// reader may hold either, so the new line must never read below the old one there; and the new
// line must not decrease anywhere (sampled across its bend).
void ExpectMonotonicSwitch(const TscLine& old_line, const TscLine& new_line, uint64_t t_w) {
  const uint64_t bend = kSteering.period_ticks;
  const uint64_t lead = kSteering.lead_ticks;
  for (uint64_t t = t_w - lead + 1U; t < t_w + lead; t += lead / 64U) {
    ASSERT_GE(TscEvaluate(new_line, t, bend), TscEvaluate(old_line, t, bend)) << "tick " << t;
  }
  uint64_t previous = TscEvaluate(new_line, t_w - lead, bend);
  for (uint64_t t = t_w - lead; t < t_w + 2U * bend; t += bend / 1000U + 7U) {
    const uint64_t now = TscEvaluate(new_line, t, bend);
    ASSERT_GE(now, previous) << "tick " << t;
    previous = now;
  }
}

// Runs `resyncs` resynchronisations spaced by `gap(k)` ticks past the bend and returns the
// final |error| in ns, checking monotonic switches all along.
template <typename Gap>
int64_t Simulate(Machine& machine, double calibration_error_ppm, int resyncs, Gap gap,
                 int64_t* first_error_ns = nullptr) {
  const uint64_t first_ticks = 3U * kTicksPerMs;  // calibrated 1 ms after power-up
  const uint64_t first_ns = machine.ReferenceNs(first_ticks);
  const auto slope = static_cast<uint64_t>(static_cast<double>(kOneQ32) / 3.0 *
                                           (1.0 + calibration_error_ppm * 1e-6));
  TscLine line{first_ticks, first_ns, slope, slope};
  int64_t error = 0;
  for (int k = 0; k < resyncs; ++k) {
    const uint64_t t_w =
        line.anchor_ticks + kSteering.period_ticks + kSteering.lead_ticks + 1U + gap(k);
    EXPECT_TRUE(TscResyncDue(line, t_w, kSteering));
    error = static_cast<int64_t>(machine.ReferenceNs(t_w) -
                                 TscEvaluate(line, t_w, kSteering.period_ticks));
    if (k == 0 && first_error_ns != nullptr) {
      *first_error_ns = error;
    }
    const TscLine next =
        TscNextLine(line, first_ticks, first_ns, t_w, machine.ReferenceNs(t_w), kSteering);
    ExpectMonotonicSwitch(line, next, t_w);
    if (::testing::Test::HasFailure()) {
      return error;
    }
    line = next;
  }
  return error < 0 ? -error : error;
}

TEST(TscTimeline, SteersACalibrationErrorAwayWithoutGoingBackwards) {
  Machine machine;
  // 300 ppm calibration error (far worse than a 1 ms calibration gives), resyncs right past the
  // bend: the error is gone within a few periods.
  const int64_t error = Simulate(machine, 300.0, 20, [](int) { return uint64_t{0}; });
  EXPECT_LT(error, 1000);  // < 1 us
}

TEST(TscTimeline, ConvergesWhenReadRarelyAndNeverOvershootsIntoOscillation) {
  Machine machine;
  // Gaps from 0 to 10 periods past the bend (a clock read now and then): the steering segment
  // ends at the bend, so a long gap runs at the base rate instead of over-steering.
  int64_t first_error = 0;
  const int64_t error = Simulate(
      machine, -200.0, 30,
      [](int k) { return static_cast<uint64_t>(k % 11) * kSteering.period_ticks; }, &first_error);
  EXPECT_LT(error, 1000);
  EXPECT_GT(first_error < 0 ? -first_error : first_error, 5000);  // it really had to steer
}

TEST(TscTimeline, FollowsAReferenceThatRunsFastOrSlow) {
  for (const double ppm : {-400.0, -50.0, 50.0, 400.0}) {
    Machine machine;
    machine.reference_ppm = ppm;
    const int64_t error = Simulate(machine, 0.0, 40, [](int k) {
      return static_cast<uint64_t>(k % 3) * kSteering.period_ticks;
    });
    EXPECT_LT(error, 2000) << ppm << " ppm";
  }
}

TEST(TscTimeline, SurvivesAnHourWithoutReadings) {
  Machine machine;
  const int64_t error = Simulate(
      machine, 100.0, 12, [](int k) { return k == 3 ? 3600U * 1000U * kTicksPerMs : uint64_t{0}; });
  EXPECT_LT(error, 1000);
}

TEST(TscTimeline, StepsForwardWhenTheReferenceJumpsAhead) {
  Machine machine;
  const uint64_t first_ticks = 3U * kTicksPerMs;
  const uint64_t first_ns = machine.ReferenceNs(first_ticks);
  const TscLine line{first_ticks, first_ns, kOneQ32 / 3U, kOneQ32 / 3U};
  machine.reference_offset_ns = 5000000;  // +5 ms (e.g. the counter paused in a suspend)
  const uint64_t t_w = first_ticks + 2U * kSteering.period_ticks;
  const TscLine next =
      TscNextLine(line, first_ticks, first_ns, t_w, machine.ReferenceNs(t_w), kSteering);
  EXPECT_EQ(next.anchor_ticks, t_w);
  EXPECT_EQ(next.anchor_ns, machine.ReferenceNs(t_w));
  ExpectMonotonicSwitch(line, next, t_w);
}

TEST(TscTimeline, SlewsButNeverStepsBackWhenTheReferenceFallsBehind) {
  Machine machine;
  const uint64_t first_ticks = 3U * kTicksPerMs;
  const uint64_t first_ns = machine.ReferenceNs(first_ticks);
  const TscLine line{first_ticks, first_ns, kOneQ32 / 3U, kOneQ32 / 3U};
  machine.reference_offset_ns = -3000000;  // we are 3 ms ahead
  const uint64_t t_w = first_ticks + 2U * kSteering.period_ticks;
  const TscLine next =
      TscNextLine(line, first_ticks, first_ns, t_w, machine.ReferenceNs(t_w), kSteering);
  ExpectMonotonicSwitch(line, next, t_w);
  // Slowed by the 500 ppm limit, no more.
  const double ratio =
      static_cast<double>(next.slope_q32) / static_cast<double>(next.base_slope_q32);
  EXPECT_NEAR(ratio, 1.0 - 500e-6, 2e-6);
}

#endif  // MCCC_HAS_TSC_TIMELINE

#if MCCC_HAS_TSC_CLOCK

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
  static_assert(!mccc::detail::ClockSplitsReading<mccc::SteadyClock>::value, "one piece");
  static_assert(!mccc::detail::ClockSplitsReading<mccc::NullClock>::value, "one piece");
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

TEST(TscClock, IsTheDefaultClockOnX86) {
#if MCCC_DEFAULT_CLOCK_STEADY
  EXPECT_TRUE((std::is_same_v<mccc::DefaultBusTraits::Clock, mccc::SteadyClock>));
#else
  EXPECT_TRUE((std::is_same_v<mccc::DefaultBusTraits::Clock, mccc::TscClock>));
#endif
}

#endif  // MCCC_HAS_TSC_CLOCK

}  // namespace
