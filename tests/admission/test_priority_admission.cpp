// SPDX-License-Identifier: MIT
// Priority admission: exact thresholds for several capacities, backpressure levels, and the
// deterministic overload burst (150,000 messages into a 131,072-slot queue, consumer paused).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <variant>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

using mccc::BackpressureLevel;
using mccc::MessagePriority;

// G-7: LOW < 60 %, MEDIUM < 80 %, HIGH < 99 %, exact for every capacity; kBareMetal when full
TEST(PriorityAdmission, LimitsAreExactPercentagesOfCapacity) {
  // "Below x% of capacity": occupancy * 100 < x * capacity.
  using A64 = mccc::PriorityAdmission<64U>;
  EXPECT_EQ(A64::LimitFor(MessagePriority::kLow), 39U);     // 38.4 -> admit up to 38
  EXPECT_EQ(A64::LimitFor(MessagePriority::kMedium), 52U);  // 51.2 -> admit up to 51
  EXPECT_EQ(A64::LimitFor(MessagePriority::kHigh), 64U);    // 63.36 -> admit up to 63
  using A100 = mccc::PriorityAdmission<128U>;
  EXPECT_EQ(A100::LimitFor(MessagePriority::kLow), 77U);      // 76.8
  EXPECT_EQ(A100::LimitFor(MessagePriority::kMedium), 103U);  // 102.4
  EXPECT_EQ(A100::LimitFor(MessagePriority::kHigh), 127U);    // 126.72
  using ABig = mccc::PriorityAdmission<131072U>;
  EXPECT_EQ(ABig::LimitFor(MessagePriority::kLow), 78644U);
  EXPECT_EQ(ABig::LimitFor(MessagePriority::kMedium), 104858U);
  EXPECT_EQ(ABig::LimitFor(MessagePriority::kHigh), 129762U);
  // Brute force: the rule holds for every occupancy of a few capacities.
  auto check = [](auto admission, uint64_t capacity) {
    using A = decltype(admission);
    for (uint64_t occ = 0; occ <= capacity; ++occ) {
      EXPECT_EQ(occ < A::LimitFor(MessagePriority::kLow), occ * 100U < 60U * capacity) << occ;
      EXPECT_EQ(occ < A::LimitFor(MessagePriority::kMedium), occ * 100U < 80U * capacity) << occ;
      EXPECT_EQ(occ < A::LimitFor(MessagePriority::kHigh), occ * 100U < 99U * capacity) << occ;
    }
  };
  check(mccc::PriorityAdmission<1U>{}, 1U);
  check(mccc::PriorityAdmission<2U>{}, 2U);
  check(mccc::PriorityAdmission<1024U>{}, 1024U);
}

TEST(PriorityAdmission, BackpressureLevelsFollowTheDocumentedBands) {
  using A = mccc::PriorityAdmission<1000U * 1024U>;  // not a ring capacity; pure arithmetic
  constexpr uint64_t kCap = 1000U * 1024U;
  for (uint64_t occ = 0; occ <= kCap; occ += 997U) {
    const BackpressureLevel expected = occ >= kCap                ? BackpressureLevel::kFull
                                       : occ * 100U >= 90U * kCap ? BackpressureLevel::kCritical
                                       : occ * 100U >= 75U * kCap ? BackpressureLevel::kWarning
                                                                  : BackpressureLevel::kNormal;
    EXPECT_EQ(A::LevelFor(occ), expected) << occ;
  }
  EXPECT_EQ(A::LevelFor(kCap), BackpressureLevel::kFull);
}

struct Msg {
  uint32_t seq;
};
using Payload = std::variant<Msg>;
// Default depth (131,072 slots) without a HIGH ring: HIGH shares the one ring and is admitted
// below 99 % of it, in FIFO order with the rest (the shared ring's own admission).
using SharedRingTraits = mccc_test::NoHighRing<mccc::DefaultBusTraits>;
using BigBus = mccc::AsyncBus<Payload, SharedRingTraits>;
// The default traits: HIGH travels on the HIGH ring (1,024 slots).
using DefaultBus = mccc::AsyncBus<Payload>;

MessagePriority PriorityOf(uint32_t i) {
  switch (i % 5U) {  // 20% HIGH, 40% MEDIUM, 40% LOW
    case 0U:
      return MessagePriority::kHigh;
    case 1U:
    case 3U:
      return MessagePriority::kMedium;
    default:
      return MessagePriority::kLow;
  }
}

// G-7: the burst figures of docs/guarantees.md, without a HIGH ring (and with one, the next test)
TEST(PriorityAdmission, OverloadBurstHasExactPerPriorityCounts) {
  auto bus = std::make_unique<BigBus>();
  constexpr uint32_t kBurst = 150000U;
  std::array<uint64_t, 3> sent{};
  std::array<uint64_t, 3> admitted{};
  std::array<uint64_t, 3> dropped{};
  for (uint32_t i = 0; i < kBurst; ++i) {
    const MessagePriority p = PriorityOf(i);
    const auto k = static_cast<std::size_t>(p);
    ++sent[k];
    const uint32_t depth_before = bus->QueueOccupancy();
    if (bus->PublishWithPriority(Msg{i}, 1U, p)) {
      ++admitted[k];
    } else {
      ++dropped[k];
      // Never dropped below the threshold of its priority (no spurious rejection).
      EXPECT_GE(depth_before, BigBus::Admission::LimitFor(p)) << i;
    }
  }
  const std::size_t kLow = 0U;
  const std::size_t kMedium = 1U;
  const std::size_t kHigh = 2U;
  // Figures derived by hand from the thresholds (LOW < 78,644, MEDIUM < 104,858, HIGH < 129,762).
  EXPECT_EQ(sent[kHigh], 30000U);
  EXPECT_EQ(sent[kMedium], 60000U);
  EXPECT_EQ(sent[kLow], 60000U);
  EXPECT_EQ(admitted[kHigh], 30000U);  // HIGH never dropped: the queue never reached 99%
  EXPECT_EQ(dropped[kHigh], 0U);
  EXPECT_EQ(admitted[kMedium], 48934U);
  EXPECT_EQ(dropped[kMedium], 11066U);
  EXPECT_EQ(admitted[kLow], 31457U);
  EXPECT_EQ(dropped[kLow], 28543U);
  EXPECT_EQ(bus->QueueOccupancy(), 110391U);
  // LOW is refused first: its drops start before any MEDIUM drop.
  const auto s = bus->GetStatistics();
  EXPECT_EQ(s.high_priority_published, admitted[kHigh]);
  EXPECT_EQ(s.medium_priority_published, admitted[kMedium]);
  EXPECT_EQ(s.low_priority_published, admitted[kLow]);
  EXPECT_EQ(s.high_priority_dropped, 0U);
  EXPECT_EQ(s.medium_priority_dropped, dropped[kMedium]);
  EXPECT_EQ(s.low_priority_dropped, dropped[kLow]);
  EXPECT_EQ(s.messages_published, 110391U);
  EXPECT_EQ(s.messages_dropped, 39609U);
  EXPECT_EQ(bus->GetBackpressureLevel(), BackpressureLevel::kWarning);  // 84.2%

  // Now HIGH alone: admitted up to 99% exactly, then refused; the queue keeps 1% headroom.
  uint32_t high_admitted = 0U;
  while (bus->PublishWithPriority(Msg{0U}, 1U, MessagePriority::kHigh)) {
    ++high_admitted;
  }
  EXPECT_EQ(bus->QueueOccupancy(), 129762U);
  EXPECT_EQ(high_admitted, 129762U - 110391U);
  EXPECT_EQ(bus->GetBackpressureLevel(), BackpressureLevel::kCritical);

  // Delivery: every admitted message exactly once, in publish order.
  uint32_t delivered = 0U;
  uint32_t last_seq = 0U;
  bool ordered = true;
  while (bus->ProcessBatchWith([&](const Msg& m) {
    if (delivered > 0U && delivered < 110391U && m.seq <= last_seq) {
      ordered = false;
    }
    last_seq = m.seq;
    ++delivered;
  }) != 0U) {
  }
  EXPECT_TRUE(ordered);
  EXPECT_EQ(delivered, 129762U);
  EXPECT_EQ(bus->QueueOccupancy(), 0U);
}

// The same burst on the default bus: LOW and MEDIUM fill the normal ring exactly as above but
// without HIGH among them, and HIGH fills the HIGH ring, refused only once that ring is full.
TEST(PriorityAdmission, OverloadBurstWithHighRingHasExactPerPriorityCounts) {
  ASSERT_EQ(DefaultBus::kQueueDepth, 131072U);
  ASSERT_EQ(DefaultBus::kHighQueueDepth, 1024U);
  auto bus = std::make_unique<DefaultBus>();
  constexpr uint32_t kBurst = 150000U;
  std::array<uint64_t, 3> admitted{};
  std::array<uint64_t, 3> dropped{};
  for (uint32_t i = 0; i < kBurst; ++i) {
    const MessagePriority p = PriorityOf(i);
    const auto k = static_cast<std::size_t>(p);
    const uint32_t high_before = bus->HighRingOccupancy();
    const uint32_t normal_before = bus->QueueOccupancy() - high_before;
    if (bus->PublishWithPriority(Msg{i}, 1U, p)) {
      ++admitted[k];
    } else {
      ++dropped[k];
      if (p == MessagePriority::kHigh) {
        EXPECT_EQ(high_before, DefaultBus::kHighQueueDepth) << i;  // only a full lane refuses
      } else {
        EXPECT_GE(normal_before, DefaultBus::Admission::LimitFor(p)) << i;
      }
    }
  }
  const std::size_t kLow = 0U;
  const std::size_t kMedium = 1U;
  const std::size_t kHigh = 2U;
  // Each group of five (HIGH, MEDIUM, LOW, MEDIUM, LOW) adds four messages to the normal ring:
  // after 19,661 groups it holds 78,644 (LOW's limit); the remaining 10,339 groups add their two
  // MEDIUM messages each, up to 99,322, below MEDIUM's limit of 104,858.
  EXPECT_EQ(admitted[kHigh], 1024U);
  EXPECT_EQ(dropped[kHigh], 30000U - 1024U);
  EXPECT_EQ(admitted[kMedium], 60000U);
  EXPECT_EQ(dropped[kMedium], 0U);
  EXPECT_EQ(admitted[kLow], 39322U);
  EXPECT_EQ(dropped[kLow], 20678U);
  EXPECT_EQ(bus->HighRingOccupancy(), 1024U);
  EXPECT_EQ(bus->QueueOccupancy(), 99322U + 1024U);
  const auto s = bus->GetStatistics();
  EXPECT_EQ(s.high_priority_published, admitted[kHigh]);
  EXPECT_EQ(s.medium_priority_published, admitted[kMedium]);
  EXPECT_EQ(s.low_priority_published, admitted[kLow]);
  EXPECT_EQ(s.high_priority_dropped, dropped[kHigh]);
  EXPECT_EQ(s.medium_priority_dropped, 0U);
  EXPECT_EQ(s.low_priority_dropped, dropped[kLow]);
  // The fullest ring is the HIGH ring.
  EXPECT_EQ(bus->GetBackpressureLevel(), BackpressureLevel::kFull);
  EXPECT_EQ(bus->QueueUtilizationPercent(), 100U);

  // Delivery: the 1,024 HIGH messages first, then the normal ring; each in publish order.
  uint32_t delivered = 0U;
  uint32_t last_seq = 0U;
  bool ordered = true;
  bool high_first = true;
  while (bus->ProcessBatchWith([&](const Msg& m, const mccc::MessageHeader& h) {
    const bool is_high = h.priority == MessagePriority::kHigh;
    high_first = high_first && is_high == (delivered < 1024U);
    if (delivered != 0U && delivered != 1024U && m.seq <= last_seq) {
      ordered = false;
    }
    last_seq = m.seq;
    ++delivered;
  }) != 0U) {
  }
  EXPECT_TRUE(high_first);
  EXPECT_TRUE(ordered);
  EXPECT_EQ(delivered, 99322U + 1024U);
  EXPECT_EQ(bus->QueueOccupancy(), 0U);
}

// No HIGH ring: HIGH's 99 % limit is one of this ring's.
using Depth128Traits = mccc_test::SharedRing<128U>;

// G-7: LOW is refused before MEDIUM, MEDIUM before HIGH
TEST(PriorityAdmission, LowIsDroppedBeforeMediumBeforeHigh) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, Depth128Traits>>();
  // At each occupancy try LOW, then MEDIUM, then HIGH; the first one admitted grows the queue by
  // one. Which one that is shows the order in which priorities are refused.
  for (uint32_t occ = 0; occ < 128U; ++occ) {
    ASSERT_EQ(bus->QueueOccupancy(), occ);
    const bool low = occ < 77U;
    const bool medium = occ < 103U;
    const bool high = occ < 127U;
    if (!high) {
      EXPECT_FALSE(bus->PublishWithPriority(Msg{occ}, 1U, MessagePriority::kHigh));
      break;
    }
    EXPECT_EQ(bus->PublishWithPriority(Msg{occ}, 1U, MessagePriority::kLow), low) << occ;
    if (low) {
      continue;
    }
    EXPECT_EQ(bus->PublishWithPriority(Msg{occ}, 1U, MessagePriority::kMedium), medium) << occ;
    if (medium) {
      continue;
    }
    EXPECT_TRUE(bus->PublishWithPriority(Msg{occ}, 1U, MessagePriority::kHigh)) << occ;
  }
  EXPECT_EQ(bus->QueueOccupancy(), 127U);
  const auto s = bus->GetStatistics();
  EXPECT_EQ(s.low_priority_published, 77U);
  EXPECT_EQ(s.medium_priority_published, 103U - 77U);
  EXPECT_EQ(s.high_priority_published, 127U - 103U);
  EXPECT_EQ(s.high_priority_dropped, 1U);
}

}  // namespace
