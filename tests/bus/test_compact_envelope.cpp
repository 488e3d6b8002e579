// SPDX-License-Identifier: MIT
// Compact envelopes (bus/stored_envelope.hpp): a slot keeps only the sender, the priority, the
// timestamp unless the clock is NullClock, and the payload; subscribers, components and
// visitors still get a complete MessageHeader with msg_ids 1, 2, 3, ... in delivery order.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Reading {
  int32_t value;
  uint32_t seq;
};
struct Command {
  uint32_t code;
  uint32_t arg;
};
using Payload = std::variant<Reading, Command>;

// Full envelopes whatever MCCC_COMPACT_ENVELOPE says: the reference the compact ones are
// compared with.
struct FullTraits
    : mccc_test::WithClock<mccc_test::WithHighRing<mccc_test::SmallRing, 8U>, mccc::NullClock> {
  static constexpr bool kCompactEnvelope = false;
};
// Structs, not aliases: a typed test names its type parameter in its CTest name.
struct CompactNullClock : mccc_test::Compact<FullTraits> {};
struct CompactSteadyClock : mccc_test::WithClock<CompactNullClock, mccc::SteadyClock> {};
struct CompactOneRing32
    : mccc_test::WithPosition<mccc_test::NoHighRing<CompactNullClock>, uint32_t> {};

using FullBus = mccc::AsyncBus<Payload, FullTraits>;
using CompactBus = mccc::AsyncBus<Payload, CompactNullClock>;
using CompactTimedBus = mccc::AsyncBus<Payload, CompactSteadyClock>;
using CompactOneRingBus = mccc::AsyncBus<Payload, CompactOneRing32>;

static_assert(!FullBus::kCompactEnvelope && CompactBus::kCompactEnvelope,
              "the trait selects the slot form");
static_assert(!CompactBus::kStoresTimestamp && CompactTimedBus::kStoresTimestamp,
              "only a NullClock compact bus drops the timestamp field");
static_assert(std::is_same_v<CompactBus::StoredEnvelope, mccc::CompactEnvelope<Payload, false>>);
static_assert(std::is_same_v<FullBus::StoredEnvelope, mccc::MessageEnvelope<Payload>>);
// A compact slot is the stored header plus the payload, rounded to their alignment: nothing else.
static_assert(sizeof(CompactBus::StoredEnvelope) ==
                  ((sizeof(mccc::CompactHeader<false>) + alignof(Payload) - 1U) / alignof(Payload) *
                       alignof(Payload) +
                   sizeof(Payload)),
              "no msg_id and no timestamp in a NullClock compact slot");
static_assert(sizeof(CompactBus::StoredEnvelope) < sizeof(FullBus::StoredEnvelope));
static_assert(CompactBus::SlotBytes() < FullBus::SlotBytes());

template <typename Bus>
class CompactEnvelopeTest : public ::testing::Test {};
using Buses = ::testing::Types<CompactBus, CompactTimedBus, CompactOneRingBus>;
TYPED_TEST_SUITE(CompactEnvelopeTest, Buses);

// G-34: compact slots; subscribers and visitors get complete headers, ids 1, 2, 3, ...
TYPED_TEST(CompactEnvelopeTest, SubscribersGetCompleteHeadersInDeliveryOrder) {
  using Bus = TypeParam;
  auto bus = std::make_unique<Bus>();
  std::vector<mccc::MessageHeader> headers;
  std::vector<uint32_t> seqs;
  const auto handle =
      bus->template Subscribe<Reading>([&](const Reading& r, const mccc::MessageHeader& h) {
        headers.push_back(h);
        seqs.push_back(r.seq);
      });
  ASSERT_TRUE(handle.IsValid());
  for (uint32_t i = 0U; i < 10U; ++i) {
    const auto priority =
        (i % 3U == 0U) ? mccc::MessagePriority::kLow : mccc::MessagePriority::kMedium;
    ASSERT_TRUE(bus->PublishWithPriority(Reading{static_cast<int32_t>(i), i}, 100U + i, priority));
  }
  EXPECT_EQ(bus->ProcessBatch(), 10U);
  ASSERT_EQ(headers.size(), 10U);
  for (uint32_t i = 0U; i < 10U; ++i) {
    EXPECT_EQ(seqs[i], i);
    EXPECT_EQ(headers[i].msg_id, i + 1U) << "ids are assigned by the consumer: 1, 2, 3, ...";
    EXPECT_EQ(headers[i].sender_id, 100U + i);
    EXPECT_EQ(headers[i].priority,
              (i % 3U == 0U) ? mccc::MessagePriority::kLow : mccc::MessagePriority::kMedium);
    if constexpr (!Bus::kStoresTimestamp) {
      EXPECT_EQ(headers[i].timestamp_us, 0U);
    }
  }
}

TYPED_TEST(CompactEnvelopeTest, VisitorAndCallbacksShareOneIdSequence) {
  using Bus = TypeParam;
  auto bus = std::make_unique<Bus>();
  ASSERT_TRUE(bus->Publish(Reading{1, 0U}, 1U));
  ASSERT_TRUE(bus->Publish(Command{7U, 9U}, 2U));
  std::vector<uint64_t> ids;
  const auto visitor = mccc::make_overloaded(
      [&](const Reading&, const mccc::MessageHeader& h) { ids.push_back(h.msg_id); },
      [&](const Command& c, const mccc::MessageHeader& h) {
        EXPECT_EQ(c.code, 7U);
        EXPECT_EQ(c.arg, 9U);
        EXPECT_EQ(h.sender_id, 2U);
        ids.push_back(h.msg_id);
      });
  EXPECT_EQ(bus->ProcessBatchWith(visitor), 2U);
  ASSERT_TRUE(bus->Publish(Reading{2, 1U}, 1U));
  const auto handle = bus->template Subscribe<Reading>(
      [&](const Reading&, const mccc::MessageHeader& h) { ids.push_back(h.msg_id); });
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(ids, (std::vector<uint64_t>{1U, 2U, 3U}));
  EXPECT_TRUE(bus->Unsubscribe(handle));
}

TEST(CompactEnvelope, TimestampTravelsWhenTheClockIsReal) {
  auto bus = std::make_unique<CompactTimedBus>();
  uint64_t seen = 0U;
  const auto handle = bus->Subscribe<Command>(
      [&](const Command&, const mccc::MessageHeader& h) { seen = h.timestamp_us; });
  ASSERT_TRUE(bus->PublishFast(Command{1U, 2U}, 3U, 123456789U));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(seen, 123456789U);
  EXPECT_TRUE(bus->Unsubscribe(handle));
}

TEST(CompactEnvelope, HighRingStillOvertakesTheBacklog) {
  auto bus = std::make_unique<CompactBus>();
  std::vector<uint32_t> order;
  const auto handle = bus->Subscribe<Reading>([&](const Reading& r) { order.push_back(r.seq); });
  ASSERT_TRUE(bus->Publish(Reading{0, 1U}, 1U));
  ASSERT_TRUE(bus->Publish(Reading{0, 2U}, 1U));
  ASSERT_TRUE(bus->PublishWithPriority(Reading{0, 99U}, 1U, mccc::MessagePriority::kHigh));
  EXPECT_EQ(bus->ProcessBatch(), 3U);
  EXPECT_EQ(order, (std::vector<uint32_t>{99U, 1U, 2U}));
  EXPECT_TRUE(bus->Unsubscribe(handle));
}

// G-34: refusal at the exact limit
TEST(CompactEnvelope, RefusedPublishReportsTheNextIdAndLeavesStatisticsExact) {
  auto bus = std::make_unique<CompactOneRingBus>();
  uint32_t admitted = 0U;
  while (bus->Publish(Command{admitted, 0U}, 1U)) {
    ++admitted;
  }
  EXPECT_EQ(admitted, static_cast<uint32_t>(
                          CompactOneRingBus::Admission::LimitFor(mccc::MessagePriority::kMedium)));
  const mccc::BusStatisticsSnapshot stats = bus->GetStatistics();
  EXPECT_EQ(stats.messages_published, admitted);
  EXPECT_EQ(stats.medium_priority_dropped, 1U);
  EXPECT_EQ(bus->ProcessBatch(), admitted);
}

}  // namespace
