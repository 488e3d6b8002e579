// SPDX-License-Identifier: MIT
// The drain order (bus/drain_order.hpp) on rings made of plain queues: which message one batch
// takes next, HIGH first, the lanes in turn, and the HIGH turn that lets LOW/MEDIUM through a
// flood (G-2, G-3, G-4). No bus, no threads: every outcome is exact.
#include <mccc/bus/drain_order.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace {

// A ring as the drain order sees it: elements are ints, consumed from the front.
class FakeRing {
 public:
  struct Probe {
    const FakeRing* ring;
    bool Ready() const noexcept { return !ring->queue_.empty(); }
  };

  void Push(int value) { queue_.push_back(value); }
  /// Pushes `count` elements numbered from `first`.
  void PushRun(int first, int count) {
    for (int i = 0; i < count; ++i) {
      Push(first + i);
    }
  }
  std::size_t Size() const noexcept { return queue_.size(); }

  template <typename Visit>
  uint32_t ConsumeBatch(uint32_t max_count, Visit&& visit) noexcept {
    uint32_t consumed = 0U;
    while (consumed < max_count && !queue_.empty()) {
      int value = queue_.front();
      queue_.pop_front();
      ++consumed;
      ++consumed_position_;
      bool go_on = true;
      if constexpr (std::is_same_v<decltype(visit(value)), bool>) {
        go_on = visit(value);
      } else {
        visit(value);
      }
      if (!go_on) {
        break;
      }
    }
    return consumed;
  }

  Probe ProbeNext() const noexcept { return Probe{this}; }
  uint32_t ConsumedPosition() const noexcept { return consumed_position_; }

 private:
  std::deque<int> queue_;
  uint32_t consumed_position_ = 0U;
};

template <uint32_t kLanes>
struct FakeRings {
  FakeRing& Shared() noexcept { return shared; }
  FakeRing& High() noexcept { return high; }
  FakeRing& LaneAt(uint32_t index) noexcept { return lanes[index]; }

  FakeRing shared;
  FakeRing high;
  std::array<FakeRing, (kLanes > 0U ? kLanes : 1U)> lanes;
};

// Element codes: the ring in the thousands, the sequence below.
constexpr int kHigh = 1000;
constexpr int kShared = 2000;
constexpr int kLane0 = 3000;
constexpr int kLane1 = 4000;

// A HIGH flood: one HIGH message now, and the returned callback publishes the next one each
// time a HIGH message is dispatched, so the HIGH ring is never empty.
std::function<void(int)> StartHighFlood(FakeRing& high) {
  high.Push(kHigh);
  return [&high, next = kHigh + 1](int value) mutable {
    if (value >= kHigh && value < kShared) {
      high.Push(next++);
    }
  };
}

template <typename Drain, typename Rings>
std::vector<int> RunBatch(Drain& drain, Rings& rings,
                          const std::function<void(int)>& on_dispatch = nullptr) {
  std::vector<int> order;
  const uint32_t count = drain.Drain(rings, [&](int& value) noexcept {
    order.push_back(value);
    if (on_dispatch) {
      on_dispatch(value);
    }
  });
  EXPECT_EQ(count, order.size());
  return order;
}

TEST(DrainOrder, OneRingTakesUpToTheBatchSizeInOrder) {
  mccc::detail::DrainOrder<4U, 0U, 0U, uint32_t> drain;
  static_assert(decltype(drain)::kMostPerBatch == 4U, "one ring: kBatchSize per batch");
  FakeRings<0U> rings;
  rings.shared.PushRun(kShared, 6);
  EXPECT_EQ(RunBatch(drain, rings), (std::vector<int>{2000, 2001, 2002, 2003}));
  EXPECT_EQ(RunBatch(drain, rings), (std::vector<int>{2004, 2005}));
  EXPECT_TRUE(RunBatch(drain, rings).empty());
}

TEST(DrainOrder, HighReadyAtTheStartGoesFirstAndCountsApart) {
  mccc::detail::DrainOrder<4U, 8U, 0U, uint32_t> drain;
  static_assert(decltype(drain)::kMostPerBatch == 8U, "HIGH ring: kBatchSize of each");
  FakeRings<0U> rings;
  rings.shared.PushRun(kShared, 5);
  rings.high.PushRun(kHigh, 3);
  // Three HIGH first, then four LOW/MEDIUM: the HIGH ones do not use the LOW/MEDIUM budget.
  EXPECT_EQ(RunBatch(drain, rings), (std::vector<int>{1000, 1001, 1002, 2000, 2001, 2002, 2003}));
}

TEST(DrainOrder, AHighMessagePublishedByACallbackWaitsForNoFurtherLowMedium) {
  mccc::detail::DrainOrder<4U, 8U, 0U, uint32_t> drain;
  FakeRings<0U> rings;
  rings.shared.PushRun(kShared, 4);
  // The callback of the second LOW/MEDIUM message publishes HIGH: it is dispatched right after
  // that message, before the third (at most one LOW/MEDIUM dispatch between its publication and
  // its own, G-2).
  const auto order = RunBatch(drain, rings, [&rings](int value) {
    if (value == kShared + 1) {
      rings.high.Push(kHigh);
    }
  });
  EXPECT_EQ(order, (std::vector<int>{2000, 2001, 1000, 2002, 2003}));
}

TEST(DrainOrder, AHighFloodLetsOneLowMediumThroughEveryHighRingOfHigh) {
  constexpr uint32_t kBatch = 4U;
  constexpr uint32_t kHighDepth = 8U;
  mccc::detail::DrainOrder<kBatch, kHighDepth, 0U, uint32_t> drain;
  FakeRings<0U> rings;
  rings.shared.PushRun(kShared, 8);
  const auto flood = StartHighFlood(rings.high);
  std::vector<uint32_t> low_medium_per_batch;
  for (int batch = 0; batch < 8; ++batch) {
    const auto order = RunBatch(drain, rings, flood);
    uint32_t high = 0U;
    uint32_t low_medium = 0U;
    for (const int value : order) {
      (value < kShared ? high : low_medium) += 1U;
    }
    EXPECT_EQ(high, kBatch) << "batch " << batch;
    low_medium_per_batch.push_back(low_medium);
  }
  // The first batch that finds the HIGH consumer a whole HIGH ring (8) past the last
  // LOW/MEDIUM dispatch lets exactly one LOW/MEDIUM message through: every ceil(8 / 4) = 2
  // batches (G-4).
  EXPECT_EQ(low_medium_per_batch, (std::vector<uint32_t>{0U, 1U, 0U, 1U, 0U, 1U, 0U, 1U}));
  EXPECT_EQ(rings.shared.Size(), 4U);
}

TEST(DrainOrder, LanesAndTheSharedRingShareABatchFromARotatingStart) {
  // Two lanes and the shared ring (index 2), batch 6: a first round of 2 each.
  mccc::detail::DrainOrder<6U, 0U, 2U, uint32_t> drain;
  FakeRings<2U> rings;
  rings.lanes[0].PushRun(kLane0, 10);
  rings.lanes[1].PushRun(kLane1, 10);
  rings.shared.PushRun(kShared, 10);
  EXPECT_EQ(RunBatch(drain, rings), (std::vector<int>{3000, 3001, 4000, 4001, 2000, 2001}));
  EXPECT_EQ(RunBatch(drain, rings), (std::vector<int>{4002, 4003, 2002, 2003, 3002, 3003}));
  EXPECT_EQ(RunBatch(drain, rings), (std::vector<int>{2004, 2005, 3004, 3005, 4004, 4005}));
}

TEST(DrainOrder, ASecondRoundGivesTheRestOfTheBatchToTheRingsThatHaveMore) {
  mccc::detail::DrainOrder<6U, 0U, 2U, uint32_t> drain;
  FakeRings<2U> rings;
  rings.lanes[0].PushRun(kLane0, 10);
  rings.lanes[1].Push(kLane1);
  // Round one: lane 0 two, lane 1 its one, shared none; round two: lane 0 the remaining three.
  EXPECT_EQ(RunBatch(drain, rings), (std::vector<int>{3000, 3001, 4000, 3002, 3003, 3004}));
}

TEST(DrainOrder, WithLanesAHighFloodStillLetsOneLowMediumThroughPerTurn) {
  constexpr uint32_t kBatch = 4U;
  mccc::detail::DrainOrder<kBatch, 4U, 1U, uint32_t> drain;
  FakeRings<1U> rings;
  rings.lanes[0].PushRun(kLane0, 4);
  rings.shared.PushRun(kShared, 4);
  const auto flood = StartHighFlood(rings.high);
  // HIGH depth 4 = one batch of HIGH: every batch is a turn, and each lets exactly one
  // LOW/MEDIUM message through, from the rings in turn.
  for (int batch = 0; batch < 4; ++batch) {
    const auto order = RunBatch(drain, rings, flood);
    ASSERT_EQ(order.size(), kBatch + 1U) << "batch " << batch;
    EXPECT_GE(order.back(), kShared) << "batch " << batch;
  }
  EXPECT_EQ(rings.lanes[0].Size() + rings.shared.Size(), 4U);
}

}  // namespace
