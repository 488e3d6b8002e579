// SPDX-License-Identifier: MIT
// Unit tests of the receiver window (sequence_check.hpp): every transition of the table in
// docs/bridge.md ("The receiver window"), for one stream (SequenceWindow) and for the bounded
// table of streams (StreamTable): admission by data frames only, eviction that keeps the streams
// with genuine traffic, retired records that still refuse repeats and replays.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "mccc/bridge/sequence_check.hpp"

namespace {

using mccc::bridge::Channel;
using mccc::bridge::SequenceLimits;
using mccc::bridge::SequenceVerdict;
using mccc::bridge::SequenceWindow;
using mccc::bridge::StreamState;

constexpr uint64_t kLast = std::numeric_limits<uint64_t>::max();

SequenceLimits Limits(uint64_t max_delta, uint32_t resync_frames) {
  SequenceLimits limits;
  limits.max_delta = max_delta;
  limits.resync_frames = resync_frames;
  return limits;
}

// ---- one stream -----------------------------------------------------------------------------

TEST(BridgeSequence, NewStreamJoinsAtItsFirstDataFrame) {
  SequenceWindow late;
  const auto join = late.CheckData(500U);
  EXPECT_EQ(join.verdict, SequenceVerdict::kAccept);
  EXPECT_EQ(join.missed_at_join, 500U);
  EXPECT_EQ(join.lost, 0U);
  EXPECT_EQ(late.State(), StreamState::kSynced);
  EXPECT_EQ(late.Next(), 501U);

  SequenceWindow marker_first;
  EXPECT_EQ(marker_first.CheckMarker(0U).missed_at_join, 0U);
  EXPECT_EQ(marker_first.CheckData(0U).verdict, SequenceVerdict::kAccept);
}

TEST(BridgeSequence, SyncedInOrderGapRepeatAndReorder) {
  SequenceWindow window;
  EXPECT_EQ(window.CheckData(0U).verdict, SequenceVerdict::kAccept);
  EXPECT_EQ(window.CheckData(1U).verdict, SequenceVerdict::kAccept);
  const auto gap = window.CheckData(4U);  // 2 and 3 missing
  EXPECT_EQ(gap.verdict, SequenceVerdict::kAccept);
  EXPECT_EQ(gap.lost, 2U);
  EXPECT_EQ(gap.first_missing, 2U);
  EXPECT_EQ(window.CheckData(4U).verdict, SequenceVerdict::kRepeated);
  EXPECT_EQ(window.CheckData(1U).verdict, SequenceVerdict::kRepeated);
  EXPECT_EQ(window.CheckData(3U).verdict, SequenceVerdict::kReordered);
  EXPECT_EQ(window.CheckData(3U).verdict, SequenceVerdict::kRepeated);  // a copy of the late one
  EXPECT_EQ(window.CheckData(5U).lost, 0U);
  EXPECT_EQ(window.Next(), 6U);
  EXPECT_EQ(window.State(), StreamState::kSynced);
}

TEST(BridgeSequence, SyncedBeyondTheBitWindowALateFrameIsReordered) {
  SequenceWindow window;
  window.CheckData(0U);
  EXPECT_EQ(window.CheckData(200U).lost, 199U);
  EXPECT_EQ(window.CheckData(0U).verdict, SequenceVerdict::kReordered);
  EXPECT_EQ(window.CheckData(137U).verdict, SequenceVerdict::kReordered);
  EXPECT_EQ(window.CheckData(200U).verdict, SequenceVerdict::kRepeated);
}

TEST(BridgeSequence, SyncedTheLargestStepWithinMaxDeltaIsAcceptedTheNextIsNot) {
  const SequenceLimits limits = Limits(10U, 3U);
  SequenceWindow window;
  window.CheckData(0U, limits);                       // N = 1
  const auto widest = window.CheckData(10U, limits);  // a step of 10 from 0: 9 lost
  EXPECT_EQ(widest.verdict, SequenceVerdict::kAccept);
  EXPECT_EQ(widest.lost, 9U);
  const auto beyond = window.CheckData(21U, limits);  // a step of 11 from 10
  EXPECT_EQ(beyond.verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_EQ(beyond.lost, 0U);
  EXPECT_EQ(window.State(), StreamState::kJumped);
  EXPECT_EQ(window.Next(), 11U);  // not moved
}

TEST(BridgeSequence, AJumpToTheLastNumberNeitherWrapsNorHidesALaterReplay) {
  SequenceWindow window;
  for (uint64_t n = 0U; n < 10U; ++n) {
    window.CheckData(n);
  }
  EXPECT_EQ(window.CheckData(kLast).verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_EQ(window.Next(), 10U);
  EXPECT_EQ(window.CheckData(5U).verdict, SequenceVerdict::kRepeated);
  EXPECT_EQ(window.CheckData(10U).verdict, SequenceVerdict::kAccept);
  EXPECT_EQ(window.State(), StreamState::kSynced);
  SequenceWindow fresh;
  EXPECT_EQ(fresh.CheckData(kLast).verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_EQ(fresh.State(), StreamState::kNew);
}

TEST(BridgeSequence, JumpedAFrameWithinTheWindowCancelsTheRun) {
  const SequenceLimits limits = Limits(10U, 3U);
  SequenceWindow window;
  window.CheckData(0U, limits);
  EXPECT_EQ(window.CheckData(1000U, limits).verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_EQ(window.CheckData(1001U, limits).verdict, SequenceVerdict::kOutOfWindow);
  const auto genuine = window.CheckData(1U, limits);
  EXPECT_EQ(genuine.verdict, SequenceVerdict::kAccept);
  EXPECT_EQ(window.State(), StreamState::kSynced);
  // The run starts over: two more beyond the window do not resynchronise.
  EXPECT_EQ(window.CheckData(1002U, limits).verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_EQ(window.CheckData(1003U, limits).verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_EQ(window.Next(), 2U);
}

TEST(BridgeSequence, JumpedAFrameThatDoesNotContinueTheRunStartsANewOne) {
  const SequenceLimits limits = Limits(10U, 3U);
  SequenceWindow window;
  window.CheckData(0U, limits);
  window.CheckData(1000U, limits);
  window.CheckData(1001U, limits);
  EXPECT_EQ(window.CheckData(5000U, limits).verdict, SequenceVerdict::kOutOfWindow);  // run: 1
  EXPECT_EQ(window.CheckData(5001U, limits).verdict, SequenceVerdict::kOutOfWindow);  // run: 2
  EXPECT_EQ(window.State(), StreamState::kJumped);
  EXPECT_EQ(window.CheckData(0U, limits).verdict, SequenceVerdict::kRepeated);  // still judged
  EXPECT_EQ(window.State(), StreamState::kJumped);
  const auto resync = window.CheckData(5002U, limits);  // run: 3
  EXPECT_EQ(resync.verdict, SequenceVerdict::kAccept);
  EXPECT_TRUE(resync.resynchronised);
}

TEST(BridgeSequence, JumpedResyncFramesInARowResynchroniseAndAreCounted) {
  const SequenceLimits limits = Limits(10U, 3U);
  SequenceWindow window;
  window.CheckData(0U, limits);
  window.CheckData(1U, limits);  // N = 2
  EXPECT_EQ(window.CheckData(100U, limits).verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_EQ(window.CheckData(101U, limits).verdict, SequenceVerdict::kOutOfWindow);
  const auto resync = window.CheckData(102U, limits);
  EXPECT_EQ(resync.verdict, SequenceVerdict::kAccept);
  EXPECT_TRUE(resync.resynchronised);
  EXPECT_EQ(resync.skipped_at_resync, 100U);  // 2..101: the run's discarded frames included
  EXPECT_EQ(resync.first_missing, 2U);
  EXPECT_EQ(resync.lost, 0U);
  EXPECT_EQ(window.State(), StreamState::kSynced);
  EXPECT_EQ(window.Next(), 103U);
  // Accepted 3 + skipped 100 = N: the per-stream identity holds.
  EXPECT_EQ(window.CheckData(101U, limits).verdict, SequenceVerdict::kRepeated);
  EXPECT_EQ(window.CheckData(103U, limits).verdict, SequenceVerdict::kAccept);
}

TEST(BridgeSequence, MarkersRevealALostTailWithinTheWindowAndAreRefusedBeyondIt) {
  const SequenceLimits limits = Limits(10U, 3U);
  SequenceWindow window;
  window.CheckData(500U, limits);
  const auto tail = window.CheckMarker(505U, limits);  // 501..504 never came
  EXPECT_EQ(tail.verdict, SequenceVerdict::kAccept);
  EXPECT_EQ(tail.lost, 4U);
  EXPECT_EQ(tail.first_missing, 501U);
  EXPECT_EQ(window.CheckMarker(505U, limits).lost, 0U);   // a repeated heartbeat: nothing
  EXPECT_EQ(window.CheckMarker(400U, limits).lost, 0U);   // a stale one: nothing
  EXPECT_EQ(window.CheckMarker(515U, limits).lost, 10U);  // exactly max_delta
  const auto forged = window.CheckMarker(uint64_t{1} << 63U, limits);
  EXPECT_EQ(forged.verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_EQ(forged.lost, 0U);
  EXPECT_EQ(window.Next(), 515U);
  EXPECT_EQ(window.CheckData(515U, limits).verdict, SequenceVerdict::kAccept);
  // Markers never resynchronise.
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(window.CheckMarker(uint64_t{1} << 63U, limits).verdict,
              SequenceVerdict::kOutOfWindow);
  }
  EXPECT_EQ(window.Next(), 516U);
}

TEST(BridgeSequence, AMarkerWithinTheWindowCancelsAJump) {
  const SequenceLimits limits = Limits(10U, 2U);
  SequenceWindow window;
  window.CheckData(0U, limits);
  window.CheckData(100U, limits);
  EXPECT_EQ(window.State(), StreamState::kJumped);
  EXPECT_EQ(window.CheckMarker(3U, limits).lost, 2U);
  EXPECT_EQ(window.State(), StreamState::kSynced);
  EXPECT_EQ(window.CheckData(101U, limits).verdict, SequenceVerdict::kOutOfWindow);  // run: 1
}

TEST(BridgeSequence, EndedEveryLaterDataFrameIsAfterEnd) {
  SequenceWindow window;
  window.CheckData(0U);
  window.CheckData(1U);
  window.End();
  EXPECT_EQ(window.State(), StreamState::kEnded);
  EXPECT_EQ(window.CheckData(1U).verdict, SequenceVerdict::kAfterEnd);
  EXPECT_EQ(window.CheckData(2U).verdict, SequenceVerdict::kAfterEnd);
  EXPECT_EQ(window.CheckMarker(2U).verdict, SequenceVerdict::kAfterEnd);
}

// ---- the table of streams -------------------------------------------------------------------

TEST(BridgeStreamTable, FollowsStreamsPerChannelFromTheirFirstDataFrame) {
  mccc::bridge::StreamTable<4U, 4U> table;
  EXPECT_TRUE(table.CheckData(1U, Channel::kNormal, 0U).joined);
  EXPECT_TRUE(table.CheckData(1U, Channel::kHigh, 7U).joined);
  EXPECT_FALSE(table.CheckData(1U, Channel::kNormal, 1U).joined);
  EXPECT_EQ(table.CheckData(1U, Channel::kHigh, 7U).verdict, SequenceVerdict::kRepeated);
  EXPECT_TRUE(table.Follows(1U, Channel::kNormal));
  EXPECT_TRUE(table.Follows(1U, Channel::kHigh));
}

TEST(BridgeStreamTable, MarkersOfUnknownStreamsTakeNoRoom) {
  mccc::bridge::StreamTable<2U, 2U> table;
  table.CheckData(1U, Channel::kNormal, 0U);
  table.CheckData(1U, Channel::kNormal, 1U);
  for (uint64_t id = 100U; id < 200U; ++id) {
    const auto result = table.CheckMarker(id, Channel::kNormal, 0U, false);
    EXPECT_EQ(result.verdict, SequenceVerdict::kAccept);
    EXPECT_FALSE(result.joined);
    EXPECT_FALSE(result.evicted);
  }
  EXPECT_TRUE(table.Follows(1U, Channel::kNormal));
  EXPECT_FALSE(table.Follows(100U, Channel::kNormal));
  const auto end = table.CheckMarker(300U, Channel::kNormal, 0U, true);  // still confirmed
  EXPECT_TRUE(end.ended);
  EXPECT_EQ(table.StateOf(300U, Channel::kNormal), StreamState::kNew);
}

TEST(BridgeStreamTable, AFrameThatCannotBeFollowedTakesNoRoom) {
  mccc::bridge::StreamTable<1U, 1U> table;
  table.CheckData(1U, Channel::kNormal, 0U);
  const auto result = table.CheckData(2U, Channel::kNormal, kLast);
  EXPECT_EQ(result.verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_FALSE(result.evicted);
  EXPECT_TRUE(table.Follows(1U, Channel::kNormal));
}

TEST(BridgeStreamTable, NewcomersGoBeforeEstablishedStreams) {
  mccc::bridge::StreamTable<3U, 8U> table;
  for (uint64_t n = 0U; n < 3U; ++n) {  // two established streams
    table.CheckData(1U, Channel::kNormal, n);
    table.CheckData(2U, Channel::kNormal, n);
  }
  // A flood of invented ids, one data frame each: they churn among themselves.
  uint64_t evicted = 0U;
  for (uint64_t id = 1000U; id < 1100U; ++id) {
    evicted += table.CheckData(id, Channel::kNormal, 0U).evicted ? 1U : 0U;
  }
  EXPECT_EQ(evicted, 99U);  // the first took the free entry
  EXPECT_TRUE(table.Follows(1U, Channel::kNormal));
  EXPECT_TRUE(table.Follows(2U, Channel::kNormal));
  EXPECT_EQ(table.CheckData(1U, Channel::kNormal, 1U).verdict, SequenceVerdict::kRepeated);
}

TEST(BridgeStreamTable, AmongEstablishedStreamsTheLeastRecentlyAcceptedGoes) {
  mccc::bridge::StreamTable<2U, 4U> table;
  for (uint64_t n = 0U; n < 2U; ++n) {
    table.CheckData(1U, Channel::kNormal, n);
    table.CheckData(2U, Channel::kNormal, n);
  }
  table.CheckData(1U, Channel::kNormal, 2U);  // 2 is now the least recent
  table.CheckData(1U, Channel::kNormal, 2U);  // a repeat refreshes nothing
  EXPECT_TRUE(table.CheckData(3U, Channel::kNormal, 0U).evicted);
  EXPECT_TRUE(table.Follows(1U, Channel::kNormal));
  EXPECT_FALSE(table.Follows(2U, Channel::kNormal));
  EXPECT_EQ(table.StateOf(2U, Channel::kNormal), StreamState::kSynced);  // retired, remembered
}

TEST(BridgeStreamTable, ARetiredStreamStillRefusesRepeatsAndIsFollowedOnWhenItComesBack) {
  mccc::bridge::StreamTable<1U, 4U> table;
  for (uint64_t n = 0U; n < 6U; ++n) {
    table.CheckData(1U, Channel::kNormal, n);
  }
  table.CheckData(2U, Channel::kNormal, 0U);  // stream 1 retired
  EXPECT_FALSE(table.Follows(1U, Channel::kNormal));
  const auto repeat = table.CheckData(1U, Channel::kNormal, 3U);
  EXPECT_EQ(repeat.verdict, SequenceVerdict::kRepeated);
  EXPECT_FALSE(repeat.restored);
  EXPECT_FALSE(table.Follows(1U, Channel::kNormal));  // a repeat does not bring it back
  const auto back = table.CheckData(1U, Channel::kNormal, 9U);
  EXPECT_EQ(back.verdict, SequenceVerdict::kAccept);
  EXPECT_TRUE(back.restored);
  EXPECT_FALSE(back.joined);
  EXPECT_EQ(back.lost, 3U);  // 6, 7, 8
  EXPECT_EQ(back.missed_at_join, 0U);
  EXPECT_TRUE(back.evicted);  // stream 2 went to make room
  EXPECT_TRUE(table.Follows(1U, Channel::kNormal));
  EXPECT_EQ(table.CheckData(1U, Channel::kNormal, 5U).verdict, SequenceVerdict::kRepeated);
}

TEST(BridgeStreamTable, AnEndedStreamRefusesLaterFramesAndConfirmsAgain) {
  mccc::bridge::StreamTable<2U, 2U> table;
  for (uint64_t n = 0U; n < 3U; ++n) {
    table.CheckData(1U, Channel::kNormal, n);
  }
  const auto end = table.CheckMarker(1U, Channel::kNormal, 3U, true);
  EXPECT_EQ(end.verdict, SequenceVerdict::kAccept);
  EXPECT_TRUE(end.ended);
  EXPECT_FALSE(table.Follows(1U, Channel::kNormal));
  EXPECT_EQ(table.StateOf(1U, Channel::kNormal), StreamState::kEnded);
  EXPECT_EQ(table.CheckData(1U, Channel::kNormal, 1U).verdict, SequenceVerdict::kAfterEnd);
  EXPECT_EQ(table.CheckData(1U, Channel::kNormal, 3U).verdict, SequenceVerdict::kAfterEnd);
  const auto again = table.CheckMarker(1U, Channel::kNormal, 3U, true);
  EXPECT_EQ(again.verdict, SequenceVerdict::kAfterEnd);
  EXPECT_FALSE(again.ended);
}

TEST(BridgeStreamTable, AnEndBeyondTheWindowDoesNotEndTheStream) {
  mccc::bridge::StreamTable<2U, 2U> table(Limits(10U, 3U));
  table.CheckData(1U, Channel::kNormal, 0U);
  const auto end = table.CheckMarker(1U, Channel::kNormal, 1000U, true);
  EXPECT_EQ(end.verdict, SequenceVerdict::kOutOfWindow);
  EXPECT_FALSE(end.ended);
  EXPECT_TRUE(table.Follows(1U, Channel::kNormal));
}

TEST(BridgeStreamTable, AnEndOfARetiredStreamEndsItsRecord) {
  mccc::bridge::StreamTable<1U, 2U> table;
  table.CheckData(1U, Channel::kNormal, 0U);
  table.CheckData(2U, Channel::kNormal, 0U);  // 1 retired
  EXPECT_TRUE(table.CheckMarker(1U, Channel::kNormal, 1U, true).ended);
  EXPECT_EQ(table.StateOf(1U, Channel::kNormal), StreamState::kEnded);
  EXPECT_EQ(table.CheckData(1U, Channel::kNormal, 0U).verdict, SequenceVerdict::kAfterEnd);
}

TEST(BridgeStreamTable, ARecordThatLeftTheRingIsForgottenAndJoinedAnew) {
  mccc::bridge::StreamTable<1U, 2U> table;
  table.CheckData(1U, Channel::kNormal, 0U);
  table.CheckData(2U, Channel::kNormal, 0U);  // 1 retired
  table.CheckData(3U, Channel::kNormal, 0U);  // 2 retired
  table.CheckData(4U, Channel::kNormal, 0U);  // 3 retired: 1's record leaves the ring
  EXPECT_EQ(table.StateOf(1U, Channel::kNormal), StreamState::kNew);
  const auto back = table.CheckData(1U, Channel::kNormal, 0U);
  EXPECT_TRUE(back.joined);
  EXPECT_EQ(back.verdict, SequenceVerdict::kAccept);
}

TEST(BridgeStreamTable, RestoringIntoTheSlotItsOwnRecordLeavesKeepsTheEvictedRecord) {
  // One retired slot: stream 1 comes back from it while stream 2 is retired into it.
  mccc::bridge::StreamTable<1U, 1U> table;
  table.CheckData(1U, Channel::kNormal, 0U);
  table.CheckData(2U, Channel::kNormal, 0U);                        // 1 retired
  EXPECT_TRUE(table.CheckData(1U, Channel::kNormal, 1U).restored);  // 2 retired
  EXPECT_TRUE(table.Follows(1U, Channel::kNormal));
  EXPECT_EQ(table.StateOf(2U, Channel::kNormal), StreamState::kSynced);
  EXPECT_EQ(table.CheckData(2U, Channel::kNormal, 0U).verdict, SequenceVerdict::kRepeated);
}

}  // namespace
