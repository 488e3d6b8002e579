// SPDX-License-Identifier: MIT
// Unit tests of mccc::IdleStrategy / mccc::IdleBackoff (the idle policy, no threads or timing).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mccc/components/idle_strategy.hpp"

namespace {

using mccc::IdleAction;
using mccc::IdleBackoff;
using mccc::IdleMode;
using mccc::IdleStrategy;

std::vector<IdleAction> Actions(IdleBackoff& backoff, int count) {
  std::vector<IdleAction> actions;
  for (int i = 0; i < count; ++i) {
    actions.push_back(backoff.OnEmptyPoll());
  }
  return actions;
}

TEST(IdleStrategyTest, NamedConstructorsSetModeAndCounts) {
  constexpr IdleStrategy spin = IdleStrategy::BusySpin();
  static_assert(spin.mode == IdleMode::kBusySpin, "BusySpin mode");
  constexpr IdleStrategy yield = IdleStrategy::SpinThenYield(7U);
  static_assert(yield.mode == IdleMode::kSpinThenYield && yield.spin_polls == 7U, "SpinThenYield");
  constexpr IdleStrategy sleep = IdleStrategy::SpinThenYieldThenSleep(3U, 4U, 500U);
  static_assert(sleep.mode == IdleMode::kSpinThenYieldThenSleep, "sleep mode");
  EXPECT_EQ(sleep.spin_polls, 3U);
  EXPECT_EQ(sleep.yield_polls, 4U);
  EXPECT_EQ(sleep.max_sleep_us, 500U);

  const IdleStrategy defaults;
  EXPECT_EQ(defaults.mode, IdleMode::kSpinThenYieldThenSleep);
  EXPECT_EQ(defaults.spin_polls, IdleStrategy::kDefaultSpinPolls);
  EXPECT_EQ(defaults.yield_polls, IdleStrategy::kDefaultYieldPolls);
  EXPECT_EQ(defaults.max_sleep_us, IdleStrategy::kDefaultMaxSleepUs);
}

TEST(IdleStrategyTest, IsValidRejectsZeroSleepAndUnknownMode) {
  EXPECT_TRUE(IdleStrategy::BusySpin().IsValid());
  EXPECT_TRUE(IdleStrategy::SpinThenYield(0U).IsValid());
  EXPECT_TRUE(IdleStrategy::SpinThenYieldThenSleep(0U, 0U, 1U).IsValid());
  EXPECT_FALSE(IdleStrategy::SpinThenYieldThenSleep(10U, 10U, 0U).IsValid());
  IdleStrategy bogus;
  bogus.mode = static_cast<IdleMode>(7);
  EXPECT_FALSE(bogus.IsValid());
  // Only the sleeping mode reads max_sleep_us.
  IdleStrategy spin_zero = IdleStrategy::BusySpin();
  spin_zero.max_sleep_us = 0U;
  EXPECT_TRUE(spin_zero.IsValid());
}

TEST(IdleBackoffTest, BusySpinAlwaysSpins) {
  IdleBackoff backoff(IdleStrategy::BusySpin());
  for (IdleAction action : Actions(backoff, 5000)) {
    ASSERT_EQ(action, IdleAction::kSpin);
  }
}

TEST(IdleBackoffTest, SpinThenYieldSpinsExactlySpinPollsThenYieldsForever) {
  IdleBackoff backoff(IdleStrategy::SpinThenYield(3U));
  const std::vector<IdleAction> expected = {IdleAction::kSpin,  IdleAction::kSpin,
                                            IdleAction::kSpin,  IdleAction::kYield,
                                            IdleAction::kYield, IdleAction::kYield};
  EXPECT_EQ(Actions(backoff, 6), expected);
}

TEST(IdleBackoffTest, SleepModeWalksThroughThePhasesAndStaysAsleep) {
  IdleBackoff backoff(IdleStrategy::SpinThenYieldThenSleep(2U, 3U, 250U));
  EXPECT_EQ(backoff.SleepTimeoutUs(), 250U);
  const std::vector<IdleAction> expected = {
      IdleAction::kSpin,  IdleAction::kSpin,  IdleAction::kYield, IdleAction::kYield,
      IdleAction::kYield, IdleAction::kSleep, IdleAction::kSleep, IdleAction::kSleep};
  EXPECT_EQ(Actions(backoff, 8), expected);
}

TEST(IdleBackoffTest, ResetRestartsTheFirstPhase) {
  IdleBackoff backoff(IdleStrategy::SpinThenYieldThenSleep(1U, 1U, 10U));
  EXPECT_EQ(Actions(backoff, 3),
            (std::vector<IdleAction>{IdleAction::kSpin, IdleAction::kYield, IdleAction::kSleep}));
  backoff.Reset();
  EXPECT_EQ(Actions(backoff, 3),
            (std::vector<IdleAction>{IdleAction::kSpin, IdleAction::kYield, IdleAction::kSleep}));
}

TEST(IdleBackoffTest, ZeroCountsSkipPhases) {
  IdleBackoff sleep_at_once(IdleStrategy::SpinThenYieldThenSleep(0U, 0U, 10U));
  EXPECT_EQ(sleep_at_once.OnEmptyPoll(), IdleAction::kSleep);
  IdleBackoff yield_at_once(IdleStrategy::SpinThenYield(0U));
  EXPECT_EQ(yield_at_once.OnEmptyPoll(), IdleAction::kYield);
  IdleBackoff spin_then_sleep(IdleStrategy::SpinThenYieldThenSleep(1U, 0U, 10U));
  EXPECT_EQ(Actions(spin_then_sleep, 2),
            (std::vector<IdleAction>{IdleAction::kSpin, IdleAction::kSleep}));
}

TEST(IdleBackoffTest, LargestCountsDoNotOverflow) {
  // spin + yield exceeds 32 bits; the policy must still yield after the spins, not sleep.
  IdleStrategy strategy = IdleStrategy::SpinThenYieldThenSleep(0xFFFFFFFFU, 0xFFFFFFFFU, 10U);
  strategy.spin_polls = 1U;
  IdleBackoff backoff(strategy);
  EXPECT_EQ(Actions(backoff, 3),
            (std::vector<IdleAction>{IdleAction::kSpin, IdleAction::kYield, IdleAction::kYield}));
}

TEST(IdleBackoffTest, UnknownModeNeverSleeps) {
  IdleStrategy bogus;
  bogus.mode = static_cast<IdleMode>(9);
  IdleBackoff backoff(bogus);
  for (IdleAction action : Actions(backoff, 100)) {
    ASSERT_EQ(action, IdleAction::kSpin);
  }
}

TEST(IdleBackoffTest, UsableInConstantExpressions) {
  constexpr IdleAction first = [] {
    IdleBackoff backoff(IdleStrategy::SpinThenYieldThenSleep(0U, 1U, 5U));
    return backoff.OnEmptyPoll();
  }();
  static_assert(first == IdleAction::kYield, "constexpr policy");
  mccc::CpuRelax();  // a hint; must simply compile and return
  SUCCEED();
}

}  // namespace
