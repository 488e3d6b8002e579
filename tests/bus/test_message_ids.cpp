// SPDX-License-Identifier: MIT
// The msg_id sequence (bus/message_ids.hpp) on its own: ids assigned by the producer, by the
// consumer in delivery order, and widened from 32-bit positions; the id a refused publish
// reports in each case; the wrap of the 64-bit sequence. No bus, no threads.
#include <mccc/bus/message_ids.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace {

struct BatchOf8 {
  static constexpr uint32_t kMostPerBatch = 8U;
};

template <typename Position, bool kProducerAssigns, bool kDeliveryOrder>
using Ids =
    mccc::detail::MessageIds<Position, false, 64U, kProducerAssigns, kDeliveryOrder, BatchOf8>;

// Delivers `count` messages: a header as the producer wrote it, completed by the consumer.
template <typename MessageIds, typename Position>
void Deliver(MessageIds& ids, Position first_position, uint32_t count) {
  ids.PrepareBatch();
  for (uint32_t i = 0U; i < count; ++i) {
    mccc::MessageHeader header{};
    header.msg_id = ids.IdForHeader(static_cast<Position>(first_position + i));
    EXPECT_FALSE(ids.Assign(header));
    EXPECT_EQ(header.msg_id, ids.LastDelivered());
  }
  ids.FinishBatch();
}

TEST(MessageIds, AFreshSequenceIsAllZeroAndStartsAtOne) {
  Ids<uint64_t, false, true> ids;
  EXPECT_EQ(ids.LastDelivered(), 0U);
  mccc::MessageHeader header{};
  EXPECT_FALSE(ids.Assign(header));
  EXPECT_EQ(header.msg_id, 1U);
}

TEST(MessageIds, OneRingWith64BitPositionsLetsTheProducerWriteTheId) {
  Ids<uint64_t, true, false> ids(100U, 7U);  // position 100 carries id 7
  EXPECT_EQ(ids.IdForHeader(100U), 7U);
  EXPECT_EQ(ids.IdForHeader(105U), 12U);
  Deliver(ids, uint64_t{100U}, 3U);
  EXPECT_EQ(ids.LastDelivered(), 9U);
  // A refusal at observed tail 103 reports the id the next admitted message receives.
  EXPECT_EQ(ids.WouldBeId(103U, [] { return uint64_t{0U}; }), 10U);
}

TEST(MessageIds, SeveralRingsNumberInDeliveryOrderAndReportTheLastFinishedBatch) {
  Ids<uint64_t, false, true> ids;
  EXPECT_EQ(ids.IdForHeader(55U), 0U) << "the consumer assigns";
  const auto never = []() -> uint64_t {
    ADD_FAILURE() << "delivery-order ids never read a ring position";
    return 0U;
  };
  EXPECT_EQ(ids.WouldBeId(12345U, never), 1U);
  Deliver(ids, uint64_t{0U}, 5U);
  EXPECT_EQ(ids.WouldBeId(0U, never), 6U);
  // Mid-batch (before FinishBatch), a refusal still reports the last finished batch's mark.
  mccc::MessageHeader header{};
  EXPECT_FALSE(ids.Assign(header));
  EXPECT_EQ(header.msg_id, 6U);
  EXPECT_EQ(ids.WouldBeId(0U, never), 6U);
  ids.FinishBatch();
  EXPECT_EQ(ids.WouldBeId(0U, never), 7U);
}

TEST(MessageIds, ThirtyTwoBitPositionsAreWidenedAcrossTheWrap) {
  // The ring starts 4 positions before the 32-bit wrap, its first message has id 1,000.
  constexpr uint32_t kStart = 0xFFFFFFFCU;
  Ids<uint32_t, false, false> ids(kStart, 1000U);
  uint32_t consumed = kStart;
  const auto consumer_position = [&consumed] { return consumed; };
  for (uint32_t batch = 0U; batch < 4U; ++batch) {
    Deliver(ids, consumed, 3U);
    consumed += 3U;
    // Refused at a tail up to a ring ahead of the consumer: the id is its widened distance.
    for (uint32_t ahead = 0U; ahead < 16U; ++ahead) {
      EXPECT_EQ(ids.WouldBeId(consumed + ahead, consumer_position),
                ids.LastDelivered() + 1U + ahead)
          << "batch " << batch << ", " << ahead << " ahead";
    }
  }
  EXPECT_EQ(ids.LastDelivered(), 1011U);
}

TEST(MessageIds, ThirtyTwoBitDeliveryOrderIdsAreWidenedToo) {
  Ids<uint32_t, false, true> ids(0xFFFFFFFEU, 1U);
  const auto unused = [] { return uint32_t{0U}; };
  Deliver(ids, uint32_t{0U}, 5U);
  EXPECT_EQ(ids.LastDelivered(), 5U);
  EXPECT_EQ(ids.WouldBeId(0U, unused), 6U);
}

TEST(MessageIds, TheWrapOfThe64BitSequenceIsReportedOnce) {
  Ids<uint64_t, false, true> ids(0U, ~uint64_t{0});  // the first id is 2^64 - 1
  mccc::MessageHeader header{};
  EXPECT_FALSE(ids.Assign(header));
  EXPECT_EQ(header.msg_id, ~uint64_t{0});
  EXPECT_TRUE(ids.Assign(header)) << "2^64 wraps to 0";
  EXPECT_EQ(header.msg_id, 0U);
  EXPECT_FALSE(ids.Assign(header));
  EXPECT_EQ(header.msg_id, 1U);
}

}  // namespace
