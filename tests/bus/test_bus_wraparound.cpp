// SPDX-License-Identifier: MIT
// Long life: msg_id and ring positions near their wrap points (test hook constructor), and the
// kOverflowDetected report when the 64-bit msg_id sequence wraps.
#define MCCC_ENABLE_TEST_HOOKS 1  // this test binary only: enables AsyncBus(position, first_id)
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Msg {
  uint32_t seq;
};
using Payload = std::variant<Msg>;

// No HIGH ring: every message travels through the one ring whose positions start near their
// wrap point, and kQueueFull reports the exact would-be id of the refused position.
using Small64 = mccc_test::WithPosition<mccc_test::SharedRing<16U>, uint64_t>;
// The same with MCU-style positions, exercised on the host.
using Small32 = mccc_test::WithPosition<mccc_test::SharedRing<16U>, uint32_t>;
// The same with a HIGH ring: ids are given at delivery, kQueueFull reports the id the consumer
// gives next as of its last finished batch (a delivered count widened like a position).
using Small64HighRing = mccc_test::WithHighRing<Small64, 16U>;
using Small32HighRing = mccc_test::WithHighRing<Small32, 16U>;

// Records every error except kQueueFull (the tests fill the queue on purpose).
struct Errors {
  static inline std::vector<std::pair<mccc::BusError, uint64_t>> seen;
  static inline std::vector<uint64_t> queue_full_ids;  // every kQueueFull report's id
  static inline uint64_t queue_full = 0U;
  static void Record(mccc::BusError e, uint64_t id) {
    if (e == mccc::BusError::kQueueFull) {
      queue_full_ids.push_back(id);
      ++queue_full;
      if (queue_full == 1U) {
        seen.emplace_back(e, id);  // keep the first one for the would-be-id check
      }
      return;
    }
    seen.emplace_back(e, id);
  }
  static void Clear() {
    seen.clear();
    queue_full_ids.clear();
    queue_full = 0U;
  }
  static std::size_t Count(mccc::BusError e) {
    std::size_t n = 0U;
    for (const auto& entry : seen) {
      n += entry.first == e ? 1U : 0U;
    }
    return n;
  }
};

template <typename Traits>
void RunAcrossWrap(typename Traits::Position start, uint64_t first_id, uint32_t messages,
                   std::vector<uint64_t>& ids) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, Traits>>(start, first_id);
  bus->SetErrorCallback(&Errors::Record);
  uint32_t next_in = 0U;
  uint32_t next_out = 0U;
  while (next_out < messages) {
    while (next_in < messages &&
           bus->PublishWithPriority(Msg{next_in}, 1U, mccc::MessagePriority::kHigh)) {
      ++next_in;
    }
    bus->ProcessBatchWith([&](const Msg& m, const mccc::MessageHeader& h) {
      EXPECT_EQ(m.seq, next_out);
      ++next_out;
      ids.push_back(h.msg_id);
    });
  }
  EXPECT_EQ(bus->GetStatistics().messages_processed, messages);
  EXPECT_EQ(bus->QueueOccupancy(), 0U);
}

// G-20: msg_id and positions exact across their wrap points; kOverflowDetected; kQueueFull
// reports the would-be id (the tests below)
TEST(BusWrapAround, ThirtyTwoBitPositionsWrapWithoutAffectingDelivery) {
  Errors::Clear();
  std::vector<uint64_t> ids;
  constexpr uint32_t kStart = std::numeric_limits<uint32_t>::max() - 37U;
  RunAcrossWrap<Small32>(kStart, 1000U, 200U, ids);
  ASSERT_EQ(ids.size(), 200U);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], 1000U + i);  // 64-bit ids keep increasing through the 32-bit wrap
  }
  EXPECT_EQ(Errors::Count(mccc::BusError::kOverflowDetected), 0U);
  EXPECT_EQ(Errors::Count(mccc::BusError::kProcessingError), 0U);
}

TEST(BusWrapAround, SixtyFourBitIdSequenceWrapReportsOverflowOnce) {
  Errors::Clear();
  std::vector<uint64_t> ids;
  constexpr uint64_t kStart = std::numeric_limits<uint64_t>::max() - 40U;
  RunAcrossWrap<Small64>(kStart, kStart + 1U, 100U, ids);
  ASSERT_EQ(ids.size(), 100U);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], kStart + 1U + i);  // modular: ..., UINT64_MAX, 0, 1, ...
  }
  EXPECT_EQ(Errors::Count(mccc::BusError::kOverflowDetected), 1U);
  for (const auto& entry : Errors::seen) {
    if (entry.first == mccc::BusError::kOverflowDetected) {
      EXPECT_EQ(entry.second, 0U);  // reported with the wrapped id
    }
  }
}

/// Publishes messages of `priority` numbered 0, 1, 2, ... until the first refusal; returns how
/// many were admitted.
template <typename Bus>
uint32_t FillUntilRefused(Bus& bus, mccc::MessagePriority priority) {
  uint32_t admitted = 0U;
  while (bus.PublishWithPriority(Msg{admitted}, 1U, priority)) {
    ++admitted;
  }
  return admitted;
}

template <typename Bus>
uint32_t FillWithHighUntilRefused(Bus& bus) {
  return FillUntilRefused(bus, mccc::MessagePriority::kHigh);
}

TEST(BusWrapAround, QueueFullIdIsTheNextIdAcrossPositionWrap) {
  Errors::Clear();
  constexpr uint64_t kStart = std::numeric_limits<uint64_t>::max() - 3U;
  auto bus = std::make_unique<mccc::AsyncBus<Payload, Small64>>(kStart, kStart + 1U);
  bus->SetErrorCallback(&Errors::Record);
  EXPECT_EQ(FillWithHighUntilRefused(*bus), 16U);
  ASSERT_EQ(Errors::seen.size(), 1U);
  EXPECT_EQ(Errors::seen[0].first, mccc::BusError::kQueueFull);
  EXPECT_EQ(Errors::seen[0].second, kStart + 16U + 1U);  // wrapped: 12
}

TEST(BusWrapAround, QueueFullIdIsTheNextIdAfterThirtyTwoBitWrap) {
  Errors::Clear();
  constexpr uint32_t kStart = std::numeric_limits<uint32_t>::max() - 2U;
  constexpr uint64_t kFirstId = 5000000000ULL;  // beyond 32 bits on purpose
  auto bus = std::make_unique<mccc::AsyncBus<Payload, Small32>>(kStart, kFirstId);
  bus->SetErrorCallback(&Errors::Record);
  // Deliver 10 messages so the consumer's position wraps, then fill the queue.
  for (uint32_t i = 0U; i < 10U; ++i) {
    ASSERT_TRUE(bus->Publish(Msg{i}, 1U));
  }
  EXPECT_EQ(bus->ProcessBatchWith([](const Msg&) {}), 10U);
  EXPECT_EQ(FillWithHighUntilRefused(*bus), 16U);
  ASSERT_EQ(Errors::seen.size(), 1U);
  EXPECT_EQ(Errors::seen[0].first, mccc::BusError::kQueueFull);
  EXPECT_EQ(Errors::seen[0].second, kFirstId + 10U + 16U);  // the id the next message receives
  std::vector<uint64_t> ids;
  bus->ProcessBatchWith([&](const Msg&, const mccc::MessageHeader& h) { ids.push_back(h.msg_id); });
  ASSERT_EQ(ids.size(), 16U);
  EXPECT_EQ(ids.front(), kFirstId + 10U);
  EXPECT_EQ(ids.back(), kFirstId + 25U);
}

TEST(BusWrapAround, HighRingQueueFullIdIsTheConsumersNextIdAcrossSixtyFourBitIdWrap) {
  Errors::Clear();
  constexpr uint64_t kStart = std::numeric_limits<uint64_t>::max() - 3U;
  auto bus = std::make_unique<mccc::AsyncBus<Payload, Small64HighRing>>(kStart, kStart + 1U);
  bus->SetErrorCallback(&Errors::Record);
  EXPECT_EQ(FillWithHighUntilRefused(*bus), 16U);                          // the HIGH ring is full
  EXPECT_EQ(FillUntilRefused(*bus, mccc::MessagePriority::kMedium), 13U);  // 80 % of 16
  std::vector<uint64_t> ids;
  EXPECT_EQ(bus->ProcessBatchWith(
                [&](const Msg&, const mccc::MessageHeader& h) { ids.push_back(h.msg_id); }),
            29U);
  EXPECT_EQ(FillUntilRefused(*bus, mccc::MessagePriority::kLow), 10U);  // 60 % of 16
  ASSERT_EQ(Errors::queue_full_ids.size(), 3U);
  EXPECT_EQ(Errors::queue_full_ids[0], kStart + 1U) << "nothing delivered: the first id";
  EXPECT_EQ(Errors::queue_full_ids[1], kStart + 1U);
  EXPECT_EQ(Errors::queue_full_ids[2], kStart + 1U + 29U) << "wrapped: 25";
  ASSERT_EQ(ids.size(), 29U);
  for (std::size_t i = 0U; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], kStart + 1U + i);  // HIGH first, then MEDIUM; modular through 0
  }
  EXPECT_EQ(Errors::Count(mccc::BusError::kOverflowDetected), 1U);
}

TEST(BusWrapAround, HighRingQueueFullIdIsTheConsumersNextIdAfterThirtyTwoBitWrap) {
  Errors::Clear();
  constexpr uint32_t kStart = std::numeric_limits<uint32_t>::max() - 2U;
  constexpr uint64_t kFirstId = 5000000000ULL;  // beyond 32 bits on purpose
  auto bus = std::make_unique<mccc::AsyncBus<Payload, Small32HighRing>>(kStart, kFirstId);
  bus->SetErrorCallback(&Errors::Record);
  // Deliver 10 messages so the consumer's delivered count wraps its 32 bits, then fill both rings.
  for (uint32_t i = 0U; i < 10U; ++i) {
    ASSERT_TRUE(bus->Publish(Msg{i}, 1U));
  }
  EXPECT_EQ(bus->ProcessBatchWith([](const Msg&) {}), 10U);
  EXPECT_EQ(FillWithHighUntilRefused(*bus), 16U);
  EXPECT_EQ(FillUntilRefused(*bus, mccc::MessagePriority::kMedium), 13U);
  std::vector<uint64_t> ids;
  std::vector<mccc::MessagePriority> priorities;
  bus->ProcessBatchWith([&](const Msg&, const mccc::MessageHeader& h) {
    ids.push_back(h.msg_id);
    priorities.push_back(h.priority);
  });
  EXPECT_EQ(FillUntilRefused(*bus, mccc::MessagePriority::kLow), 10U);
  ASSERT_EQ(Errors::queue_full_ids.size(), 3U);
  EXPECT_EQ(Errors::queue_full_ids[0], kFirstId + 10U);
  EXPECT_EQ(Errors::queue_full_ids[1], kFirstId + 10U);
  EXPECT_EQ(Errors::queue_full_ids[2], kFirstId + 10U + 29U);
  ASSERT_EQ(ids.size(), 29U);
  for (std::size_t i = 0U; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], kFirstId + 10U + i);
    EXPECT_EQ(priorities[i],
              i < 16U ? mccc::MessagePriority::kHigh : mccc::MessagePriority::kMedium);
  }
  EXPECT_EQ(Errors::Count(mccc::BusError::kOverflowDetected), 0U);
}

}  // namespace
