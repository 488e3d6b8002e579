// SPDX-License-Identifier: MIT
// <mccc/message_bus.hpp>, the original MCCC's header of the bus, as the only mccc include: the
// bus with its constants and errors, VariantIndex, and everything protocol.hpp offers.
#include <mccc/message_bus.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <variant>

namespace {

struct Ping {
  uint32_t sequence;
};
struct Pong {
  uint32_t sequence;
};
using Payload = std::variant<Ping, Pong>;
using Bus = mccc::AsyncBus<Payload>;

TEST(OriginalMessageBusHeader, BusNamesAndVocabulary) {
  auto& bus = Bus::Instance();
  while (bus.ProcessBatch() > 0U) {
  }
  static_assert(mccc::VariantIndex<Pong, Payload>::value == 1U, "");
  static_assert(Bus::LOW_PRIORITY_THRESHOLD < Bus::MEDIUM_PRIORITY_THRESHOLD, "");

  uint32_t pongs = 0U;
  const mccc::SubscriptionHandle handle = bus.Subscribe<Pong>(
      [&pongs](const Bus::EnvelopeType& env) { pongs += std::get<Pong>(env.payload).sequence; });
  EXPECT_EQ(handle.type_index, (mccc::VariantIndex<Pong, Payload>::value));

  ASSERT_TRUE(bus.PublishFast(Pong{4U}, 1U, /*timestamp_us=*/99U));
  ASSERT_TRUE(bus.PublishWithPriority(Ping{1U}, 1U, mccc::MessagePriority::LOW));
  EXPECT_EQ(bus.QueueDepth(), 2U);
  EXPECT_EQ(bus.GetBackpressureLevel(), mccc::BackpressureLevel::NORMAL);
  EXPECT_EQ(bus.ProcessBatch(), 2U);
  EXPECT_EQ(pongs, 4U);
  EXPECT_TRUE(bus.Unsubscribe(handle));
}

}  // namespace
