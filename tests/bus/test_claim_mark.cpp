// SPDX-License-Identifier: MIT
// MarkClaimed / HasConsumed: "everything claimed before the mark has been consumed", exact in
// every ring layout, also when later messages are dispatched before earlier ones (HIGH first,
// lanes served in turn), where counting "as many messages as were queued" stops too early.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Tick {
  uint32_t seq;
};
using Payload = std::variant<Tick>;

// One LOW/MEDIUM and one HIGH message per batch: each ProcessBatch step is visible.
using OneByOneTraits = mccc_test::Ring<64U, 1U, 16U>;

using LaneTraits = mccc_test::WithLanes<mccc_test::Ring<64U, 3U, 16U>, 2U, 64U>;

// G-4: draining before a stop delivers every message published before it (the tests below)
TEST(ClaimMark, AHighMessagePublishedAfterTheMarkDoesNotCountForTheMessagesBeforeIt) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, OneByOneTraits>>();
  std::vector<uint32_t> delivered;
  bus->Subscribe<Tick>([&delivered](const Tick& t) { delivered.push_back(t.seq); });
  for (uint32_t i = 1U; i <= 3U; ++i) {
    ASSERT_TRUE(bus->PublishWithPriority(Tick{i}, 1U, mccc::MessagePriority::kLow));
  }
  const auto mark = bus->MarkClaimed();
  EXPECT_FALSE(bus->HasConsumed(mark));
  ASSERT_TRUE(bus->PublishWithPriority(Tick{100U}, 1U, mccc::MessagePriority::kHigh));

  // The HIGH message goes first: two dispatched, one of the three marked ones among them.
  EXPECT_EQ(bus->ProcessBatch(), 2U);
  EXPECT_EQ(delivered, (std::vector<uint32_t>{100U, 1U}));
  EXPECT_FALSE(bus->HasConsumed(mark));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_FALSE(bus->HasConsumed(mark));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_TRUE(bus->HasConsumed(mark));
  EXPECT_EQ(delivered, (std::vector<uint32_t>{100U, 1U, 2U, 3U}));
}

TEST(ClaimMark, AnEmptyBusHasConsumedItsMarkAndLaterPublishesDoNotMatter) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, OneByOneTraits>>();
  const auto mark = bus->MarkClaimed();
  EXPECT_TRUE(bus->HasConsumed(mark));
  ASSERT_TRUE(bus->Publish(Tick{1U}, 1U));
  ASSERT_TRUE(bus->PublishWithPriority(Tick{2U}, 1U, mccc::MessagePriority::kHigh));
  EXPECT_TRUE(bus->HasConsumed(mark));
  EXPECT_FALSE(bus->HasConsumed(bus->MarkClaimed()));
}

TEST(ClaimMark, EveryLaneAndTheSharedRingMustPassTheirMark) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, LaneTraits>>();
  std::vector<uint32_t> delivered;
  bus->Subscribe<Tick>([&delivered](const Tick& t) { delivered.push_back(t.seq); });
  // Two handles (each a lane if one is free for them), and this thread.
  auto first = bus->MakeProducer();
  auto second = bus->MakeProducer();
  for (uint32_t i = 0U; i < 4U; ++i) {
    ASSERT_TRUE(first.Publish(Tick{10U + i}, 1U));
    ASSERT_TRUE(second.Publish(Tick{20U + i}, 2U));
    ASSERT_TRUE(bus->Publish(Tick{30U + i}, 3U));
  }
  const auto mark = bus->MarkClaimed();
  // Published after the mark: the first handle's ring keeps being refilled.
  for (uint32_t i = 0U; i < 8U; ++i) {
    ASSERT_TRUE(first.Publish(Tick{40U + i}, 1U));
  }
  uint32_t batches = 0U;
  while (!bus->HasConsumed(mark)) {
    ASSERT_NE(bus->ProcessBatch(), 0U);
    ASSERT_LT(++batches, 100U);
  }
  // Every marked message was delivered, whatever came along with it.
  for (uint32_t i = 0U; i < 4U; ++i) {
    for (const uint32_t base : {10U, 20U, 30U}) {
      EXPECT_EQ(std::count(delivered.begin(), delivered.end(), base + i), 1) << base + i;
    }
  }
  while (bus->ProcessBatch() != 0U) {
  }
  EXPECT_EQ(delivered.size(), 20U);
}

}  // namespace
