// SPDX-License-Identifier: MIT
// Unit tests of mccc/clock/tsc_timeline.hpp: the arithmetic of TscClock, driven with a
// simulated counter and reference clock.
#include <gtest/gtest.h>

#include <cstdint>

#include "mccc/clock/tsc_timeline.hpp"

namespace {

#if MCCC_HAS_TSC_TIMELINE

using mccc::detail::TscEvaluate;
using mccc::detail::TscExpired;
using mccc::detail::TscExpiryTicks;
using mccc::detail::TscLine;
using mccc::detail::TscNextLine;
using mccc::detail::TscReadableTick;
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

TEST(TscTimeline, ALineExpiresOneLeadAfterItsResynchronisationFallsDue) {
  const TscSteering steering{1000U, 10U, 500U, 1000000U};
  const TscLine line{5000U, 0U, kOneQ32, kOneQ32};
  EXPECT_EQ(TscExpiryTicks(steering), 1020U);
  EXPECT_FALSE(TscExpired(line, 4000U, steering));  // before the anchor
  EXPECT_FALSE(TscExpired(line, 6020U, steering));
  EXPECT_TRUE(TscExpired(line, 6021U, steering));
  // A reader past the expiry evaluates the line at the expiry: time holds still there.
  EXPECT_EQ(TscReadableTick(line, 6020U, steering), 6020U);
  EXPECT_EQ(TscReadableTick(line, 6021U, steering), 6020U);
  EXPECT_EQ(TscReadableTick(line, 9000U, steering), 6020U);
  EXPECT_EQ(TscReadableTick(line, 4000U, steering), 4000U);
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

// Checks the switch from `old_line` to `new_line`, computed from a pair read at `t_w`. Readers
// evaluate the old line at ticks up to its expiry (a reader past it evaluates it at the expiry),
// and the new line at ticks t2 >= t_w, however late it was published. For a reading of the new
// line at t2, the highest earlier reading of the old line is at min(t2, expiry): the new line
// must not read below it. And the new line must not decrease anywhere (sampled across its bend).
void ExpectMonotonicSwitch(const TscLine& old_line, const TscLine& new_line, uint64_t t_w) {
  const uint64_t bend = kSteering.period_ticks;
  const uint64_t lead = kSteering.lead_ticks;
  const uint64_t expiry = old_line.anchor_ticks + TscExpiryTicks(kSteering);
  const auto old_reading_before = [&](uint64_t t2) {
    return TscEvaluate(old_line, t2 < expiry ? t2 : expiry, bend);
  };
  for (uint64_t t2 = t_w; t2 < t_w + 4U * lead; t2 += lead / 64U) {
    ASSERT_GE(TscEvaluate(new_line, t2, bend), old_reading_before(t2)) << "tick " << t2;
  }
  uint64_t previous = TscEvaluate(new_line, t_w, bend);
  for (uint64_t t2 = t_w; t2 < t_w + 2U * bend; t2 += bend / 1000U + 7U) {
    const uint64_t now = TscEvaluate(new_line, t2, bend);
    ASSERT_GE(now, previous) << "tick " << t2;
    ASSERT_GE(now, old_reading_before(t2)) << "tick " << t2;
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
  EXPECT_TRUE(mccc::detail::TscStepsForward(line, t_w, machine.ReferenceNs(t_w), kSteering));
  EXPECT_EQ(next.anchor_ticks, t_w);
  EXPECT_EQ(next.anchor_ns, machine.ReferenceNs(t_w));
  // The rate does not take in the jump: the counter did not make it.
  EXPECT_EQ(next.slope_q32, line.base_slope_q32);
  EXPECT_EQ(next.base_slope_q32, line.base_slope_q32);
  ExpectMonotonicSwitch(line, next, t_w);
}

// G-30: slews but never steps back when the reference falls behind
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

// The writer of a resynchronisation reads its (counter, reference) pair at t_w, computes the
// next line and is preempted for `delay` before publishing it. Meanwhile the others read the old
// line: up to its expiry as it is, past it at the expiry (they could not publish a line of their
// own). The reference runs 100 ppm slower than the line, so the new line is the slower one,
// which crosses the old line from above: the first reading on it must still not be lower than
// the last one on the old line, for any delay.
// G-30: a writer delayed 5 us to 200 ms before publishing never steps time back
TEST(TscTimeline, AWriterDelayedBeforePublishingNeverStepsTimeBack) {
  const uint64_t first_ticks = 3U * kTicksPerMs;
  const uint64_t first_ns = 1000000000000U;
  const TscLine old_line{first_ticks, first_ns, kOneQ32 / 3U, kOneQ32 / 3U};
  const uint64_t t_w = first_ticks + 60U * kTicksPerMs;  // 10 ms past the bend
  ASSERT_TRUE(TscResyncDue(old_line, t_w, kSteering));
  const uint64_t ours = TscEvaluate(old_line, t_w, kSteering.period_ticks);
  const uint64_t reference = first_ns + (ours - first_ns) / 1000000U * 999900U;  // -100 ppm
  const TscLine new_line = TscNextLine(old_line, first_ticks, first_ns, t_w, reference, kSteering);
  ASSERT_LT(new_line.slope_q32, old_line.base_slope_q32) << "the new line must be the slower";
  for (const uint64_t delay_us : {5U, 20U, 100U, 1000U, 4000U, 10000U, 200000U}) {
    const uint64_t last_old_tick = t_w + delay_us * kTicksPerMs / 1000U;  // then it publishes
    const uint64_t last_old = TscEvaluate(
        old_line, TscReadableTick(old_line, last_old_tick, kSteering), kSteering.period_ticks);
    const uint64_t first_new = TscEvaluate(new_line, last_old_tick + 60U, kSteering.period_ticks);
    EXPECT_GE(first_new, last_old) << "writer delayed " << delay_us << " us";
  }
}

#endif  // MCCC_HAS_TSC_TIMELINE

}  // namespace
