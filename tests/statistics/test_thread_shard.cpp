// SPDX-License-Identifier: MIT
// Producer identities (statistics/thread_shard.hpp): a lease ends in two steps, the holder
// stops using its index and the index returns to the registry, in that order. The test hook
// between the two steps runs what a signal handler landing there could run: a new producer
// handle takes the lowest free index, and the ending holder publishes once more. Neither may
// find itself on the lane of the other (two producers on one single-producer lane).
#define MCCC_ENABLE_TEST_HOOKS 1

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <variant>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Item {
  uint32_t seq;
};

using LanesTraits = mccc_test::WithClock<mccc_test::WithLanes<mccc_test::SharedRing<64U, 16U>, 4U>,
                                         mccc::NullClock>;
using LanesBus = mccc::AsyncBus<std::variant<Item>, LanesTraits>;
using Rings = std::array<uint32_t, LanesBus::LaneCount() + 1U>;

Rings DepthOfEveryRing(const LanesBus& bus) {
  Rings depth{};
  for (uint32_t ring = 0U; ring <= LanesBus::LaneCount(); ++ring) {
    depth[ring] = bus.LaneOccupancy(ring);
  }
  return depth;
}

/// What the hook saw and did between the two steps of the ending lease.
struct BetweenTheSteps {
  LanesBus* bus = nullptr;
  LanesBus::Producer* ending_handle = nullptr;  // null: a thread's lease ends
  uint32_t calls = 0U;
  uint32_t returned_index = ~0U;
  std::optional<LanesBus::Producer> newcomer;
  bool ending_publish_admitted = false;
  Rings depth_after_ending_publish{};
};

void RunBetweenTheSteps(uint32_t index, void* context) {
  auto& state = *static_cast<BetweenTheSteps*>(context);
  ++state.calls;
  state.returned_index = index;
  state.newcomer.emplace(state.bus->MakeProducer());
  // The ending holder publishes once more, as a signal handler on its thread would.
  state.ending_publish_admitted = state.ending_handle == nullptr
                                      ? state.bus->Publish(Item{2U}, 2U)
                                      : state.ending_handle->Publish(Item{2U}, 2U);
  state.depth_after_ending_publish = DepthOfEveryRing(*state.bus);
}

class LeaseEndHook {
 public:
  explicit LeaseEndHook(BetweenTheSteps& state) {
    mccc::detail::lease_end_hook_context = &state;
    mccc::detail::lease_end_hook = &RunBetweenTheSteps;
  }
  ~LeaseEndHook() {
    mccc::detail::lease_end_hook = nullptr;
    mccc::detail::lease_end_hook_context = nullptr;
  }
  LeaseEndHook(const LeaseEndHook&) = delete;
  LeaseEndHook& operator=(const LeaseEndHook&) = delete;
};

// G-3, G-1: a thread that exits stops using its lane before the lane returns to the registry:
// a handler publishing in between goes to the shared ring, and the lane lent meanwhile is
// published on by its new holder alone.
TEST(ThreadShard, AnExitingThreadStopsUsingItsLaneBeforeTheLaneIsLentAgain) {
  auto bus = std::make_unique<LanesBus>();
  BetweenTheSteps state;
  state.bus = bus.get();
  uint32_t exiting_lane = ~0U;
  {
    std::thread exiting([&] {
      ASSERT_TRUE(bus->Publish(Item{1U}, 1U));  // leases the thread's index
      exiting_lane = mccc::detail::ThisThreadShard();
      mccc::detail::lease_end_hook_context = &state;
      mccc::detail::lease_end_hook = &RunBetweenTheSteps;  // for this thread's exit only
    });
    exiting.join();
  }
  mccc::detail::lease_end_hook = nullptr;
  mccc::detail::lease_end_hook_context = nullptr;
  ASSERT_LT(exiting_lane, LanesBus::LaneCount());
  ASSERT_EQ(state.calls, 1U);
  EXPECT_EQ(state.returned_index, exiting_lane);
  ASSERT_TRUE(state.newcomer.has_value());
  EXPECT_NE(state.newcomer->Lane(), exiting_lane)
      << "the registry lent the exiting thread's lane while the thread could still publish on it";
  EXPECT_TRUE(state.ending_publish_admitted);
  Rings expected{};
  expected[exiting_lane] = 1U;           // the thread's message before it began to exit
  expected[LanesBus::LaneCount()] = 1U;  // the publish between the steps: no lane of its own
  EXPECT_EQ(state.depth_after_ending_publish, expected);
  // Now returned: the next handle gets the exiting thread's lane, its message first.
  LanesBus::Producer next = bus->MakeProducer();
  EXPECT_EQ(next.Lane(), exiting_lane);
  state.newcomer.reset();
}

// The same for a producer handle: it stops publishing before its lane is lent again.
TEST(ThreadShard, AReleasedHandleStopsUsingItsLaneBeforeTheLaneIsLentAgain) {
  auto bus = std::make_unique<LanesBus>();
  BetweenTheSteps state;
  state.bus = bus.get();
  auto ending = std::make_unique<LanesBus::Producer>(bus->MakeProducer());
  ASSERT_TRUE(ending->HasOwnLane());
  const uint32_t ending_lane = ending->Lane();
  ASSERT_TRUE(ending->Publish(Item{1U}, 1U));
  state.ending_handle = ending.get();
  {
    const LeaseEndHook hook(state);
    *ending = LanesBus::Producer{};  // releases its identity
  }
  ASSERT_EQ(state.calls, 1U);
  EXPECT_EQ(state.returned_index, ending_lane);
  ASSERT_TRUE(state.newcomer.has_value());
  EXPECT_NE(state.newcomer->Lane(), ending_lane);
  EXPECT_FALSE(state.ending_publish_admitted) << "a released handle publishes nothing";
  Rings expected{};
  expected[ending_lane] = 1U;
  EXPECT_EQ(state.depth_after_ending_publish, expected);
  state.newcomer.reset();
}

}  // namespace
