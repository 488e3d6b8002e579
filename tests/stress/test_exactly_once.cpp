// SPDX-License-Identifier: MIT
// Stress test of mccc::AsyncBus (include/mccc/bus/async_bus.hpp): many producers, one consumer.
// The checks and knobs are described in exactly_once_harness.hpp (MCCC_STRESS_SCALE,
// MCCC_STRESS_SECONDS); the MCCC_SINGLE_PRODUCER=1 build is test_exactly_once_single_producer.cpp.
//
// Matrix: producers 1, 2, 4, 8, 16, 32 x rings of 64 (constantly full), 4096 and the default
// depth (DefaultBusTraits, 131072 slots) x kFullFeatured / kNoStats / kBareMetal x
// retry-until-admitted / count-refusals x ProcessBatch with subscribers / ProcessBatchWith, plus a
// kSingleProducer traits bus with its one producer. Those buses have the default HIGH ring; the
// matrix adds HIGH ring off (HIGH shares the ring) x producer lanes 0 / 1 / 4, with fewer,
// as many and more producer threads than lanes (threads beyond the lanes share the ring).
// Also here: exact statistics with more producer threads than statistics shards, a parked
// consumer woken by every publish (no lost wake-up), and a kSingleCore bus driven by one thread.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "mccc/bus/async_bus.hpp"
#include "mccc/message.hpp"
#include "mccc/traits.hpp"
#include "stress/exactly_once_harness.hpp"
#include "support/bus_configs.hpp"

namespace {

using namespace mccc_stress;  // NOLINT(google-build-using-namespace): the test's own harness

// ----- bus configurations -----------------------------------------------------------------------

/// Tiny ring: constantly full with more than one producer; small batches interleave.
using Depth64Traits = mccc_test::Ring<64U, 16U>;
using Depth4096Traits = mccc_test::Ring<4096U, 256U>;
using SingleProducerTraits = mccc_test::SingleProducer<mccc_test::Ring<256U, 32U>>;

using Bus64 = mccc::AsyncBus<Payload, Depth64Traits>;
using Bus4096 = mccc::AsyncBus<Payload, Depth4096Traits>;
/// Everything default: 131072 slots (about 14 MiB here, hence make_unique), batches of 1024.
using BusDefault = mccc::AsyncBus<Payload>;
using SingleProducerBus = mccc::AsyncBus<Payload, SingleProducerTraits>;

/// The tiny ring without a HIGH ring: HIGH shares the ring, per-producer order across priorities.
using Depth64NoHighRingTraits = mccc_test::NoHighRing<Depth64Traits>;
/// One producer lane of 64 slots (the first producer thread's), a 64-slot shared ring for the
/// others, a HIGH ring of 16 slots (full now and then, so HIGH refusals happen too).
using Lanes1Traits = mccc_test::WithLanes<mccc_test::WithHighRing<Depth64Traits, 16U>, 1U>;
using Lanes1NoHighRingTraits = mccc_test::NoHighRing<Lanes1Traits>;
/// Four producer lanes of 256 slots, a 256-slot shared ring, a 64-slot HIGH ring.
using Lanes4Traits = mccc_test::WithLanes<mccc_test::Ring<256U, 32U, 64U>, 4U>;
using Lanes4NoHighRingTraits = mccc_test::NoHighRing<Lanes4Traits>;
using Bus64NoHighRing = mccc::AsyncBus<Payload, Depth64NoHighRingTraits>;
using BusLanes1 = mccc::AsyncBus<Payload, Lanes1Traits>;
using BusLanes1NoHighRing = mccc::AsyncBus<Payload, Lanes1NoHighRingTraits>;
using BusLanes4 = mccc::AsyncBus<Payload, Lanes4Traits>;
using BusLanes4NoHighRing = mccc::AsyncBus<Payload, Lanes4NoHighRingTraits>;
static_assert(Bus64::kHighQueueDepth > 0U && BusDefault::kHighQueueDepth > 0U,
              "the default matrix runs with the default HIGH ring");

static_assert(BusDefault::kQueueDepth == 131072U, "the matrix promises the default depth");
static_assert(!mccc::DefaultBusTraits::kSingleProducer,
              "this file is the MPSC build; see test_exactly_once_single_producer.cpp");

enum BusKind : uint32_t {
  kDepth64,
  kDepth4096,
  kDepthDefault,
  kSingleProducer,
  kDepth64NoHighRing,
  kLanes1,
  kLanes1NoHighRing,
  kLanes4,
  kLanes4NoHighRing
};

std::vector<Scenario> AllScenarios() {
  std::vector<Scenario> all;
  const std::initializer_list<uint32_t> producers = {1U, 2U, 4U, 8U, 16U, 32U};
  AddMatrix(all, kDepth64, "Depth64", producers);
  AddMatrix(all, kDepth4096, "Depth4096", producers);
  AddMatrix(all, kDepthDefault, "DefaultDepth131072", producers);
  AddMatrix(all, kSingleProducer, "SingleProducerDepth256", {1U});
  AddMatrix(all, kDepth64NoHighRing, "Depth64NoHighRing", {1U, 4U});
  // Lanes: 1 producer on its lane; 2 and 8 with more threads than lanes.
  AddMatrix(all, kLanes1, "Lanes1Depth64High16", {1U, 2U, 8U});
  AddMatrix(all, kLanes1NoHighRing, "Lanes1Depth64NoHighRing", {2U});
  // 1 and 4: every producer on a lane of its own; 8: four of them share the ring.
  AddMatrix(all, kLanes4, "Lanes4Depth256High64", {1U, 4U, 8U});
  AddMatrix(all, kLanes4NoHighRing, "Lanes4Depth256NoHighRing", {4U, 8U});
  return all;
}

class ExactlyOnceTest : public ::testing::TestWithParam<Scenario> {};

// G-1: every admitted message dispatched once, in order per producer and class, intact
// G-2: the same with the HIGH ring on and off
// G-3: the same with 0, 1 and 4 producer lanes and more threads than lanes
// G-5: per producer and priority, admitted + refused == attempted == GetStatistics()
// G-9: a refused rvalue is not moved from (the Tracked payload's moved-from marker)
TEST_P(ExactlyOnceTest, EveryAdmittedMessageDeliveredOnceInOrderAndIntact) {
  const Scenario& scenario = GetParam();
  switch (scenario.bus) {
    case kDepth64:
      RunScenario<Bus64>(scenario);
      break;
    case kDepth4096:
      RunScenario<Bus4096>(scenario);
      break;
    case kDepthDefault:
      RunScenario<BusDefault>(scenario);
      break;
    case kDepth64NoHighRing:
      RunScenario<Bus64NoHighRing>(scenario);
      break;
    case kLanes1:
      RunScenario<BusLanes1>(scenario);
      break;
    case kLanes1NoHighRing:
      RunScenario<BusLanes1NoHighRing>(scenario);
      break;
    case kLanes4:
      RunScenario<BusLanes4>(scenario);
      break;
    case kLanes4NoHighRing:
      RunScenario<BusLanes4NoHighRing>(scenario);
      break;
    default:
      RunScenario<SingleProducerBus>(scenario);
      break;
  }
}

INSTANTIATE_TEST_SUITE_P(Bus, ExactlyOnceTest, ::testing::ValuesIn(AllScenarios()), ScenarioName);

// ----- more producer threads than statistics shards ---------------------------------------------

// Threads beyond kStatisticsShards share an overflow shard with atomic increments; the counters
// must still be exact. All producers stay alive until every one has finished, so all of them hold
// a shard lease (or the overflow) at the same time.
// G-5: statistics exact with more producer threads than statistics shards
TEST(ExactlyOnceStatisticsTest, ExactWithMoreProducerThreadsThanStatisticsShards) {
  constexpr uint32_t kProducers = Depth4096Traits::kStatisticsShards + 8U;
  static_assert(kProducers > Depth4096Traits::kStatisticsShards, "");
  auto bus = std::make_unique<Bus4096>();
  g_queue_full_reports.store(0U);
  g_other_error_reports.store(0U);
  bus->SetErrorCallback(&CountErrors);
  DeliveryChecker checker(kProducers, /*retry=*/false, kHighOvertakes<Bus4096>);
  auto visitor = [&checker](const auto& m, const MessageHeader& h) {
    using M = std::decay_t<decltype(m)>;
    checker.Check(m, h, std::is_same_v<M, Wide> ? 0U : (std::is_same_v<M, Narrow> ? 1U : 2U));
  };

  const uint64_t quota = Scaled(60000U, 2U * kProducers) / kProducers;
  std::vector<ProducerRecord> records(kProducers);
  std::atomic<uint32_t> finished{0U};
  RunProducersAndConsumer(
      *bus, kProducers,
      [&](uint32_t p, const std::atomic<bool>& go) {
        RunProducer(*bus, p, quota, false, {}, /*retry=*/false, go, records[p]);
        finished.fetch_add(1U);
        while (finished.load() < kProducers) {
          std::this_thread::yield();
        }
      },
      [&] { return bus->ProcessBatchWith(visitor); });

  EXPECT_EQ(checker.failures(), 0U) << "first failure: " << checker.first_failure();
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
  for (uint32_t p = 0U; p < kProducers; ++p) {
    EXPECT_EQ(checker.per_producer()[p].count, records[p].admitted_count) << "producer " << p;
    for (std::size_t cls = 0U; cls < kClasses; ++cls) {
      EXPECT_EQ(checker.per_producer()[p].classes[cls].hash, records[p].class_hash[cls])
          << "producer " << p;
    }
    for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
      attempted[i] += records[p].attempted[i];
      admitted[i] += records[p].admitted[i];
    }
  }
  const BusStatisticsSnapshot s = bus->GetStatistics();
  ExpectPerPriorityCounts(s, attempted, admitted);
  ExpectLaneStatistics(*bus, records, /*counting=*/true);
  EXPECT_EQ(s.messages_processed, checker.delivered());
  EXPECT_EQ(s.messages_dropped, g_queue_full_reports.load());
  EXPECT_EQ(g_other_error_reports.load(), 0U);
  uint64_t attempted_total = 0U;
  for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
    attempted_total += attempted[i];
  }
  RecordVerified(checker.delivered(), attempted_total, s.messages_dropped, kProducers);
}

// ----- a parked consumer is woken by every publish ---------------------------------------------

// RunWakeupPingPong (exactly_once_harness.hpp): the consumer parks, each publish must wake it.

// G-19: a parked consumer is woken by every publish (the three tests below)
TEST(ExactlyOnceWakeupTest, ParkedConsumerIsWokenByEveryPublishOneProducer) {
  RunWakeupPingPong<Bus4096>(1U);
}

TEST(ExactlyOnceWakeupTest, ParkedConsumerIsWokenByEveryPublishFourProducers) {
  RunWakeupPingPong<Bus64>(4U);
}

TEST(ExactlyOnceWakeupTest, ParkedConsumerIsWokenByEveryPublishSingleProducerTraits) {
  RunWakeupPingPong<SingleProducerBus>(1U);
}

// ----- single-core traits --------------------------------------------------------------------

// kSingleCore = true (acknowledged): relaxed atomics plus compiler fences, no padding. That is
// only correct when every publisher and the consumer share one core; here one thread does both,
// which is correct on any machine. Messages that are refused are retried after a ProcessBatch.
using SingleCoreTraits = mccc_test::SingleCore<Depth64Traits>;
using SingleCoreBus = mccc::AsyncBus<Payload, SingleCoreTraits>;

TEST(ExactlyOnceSingleCoreTest, OneThreadPublishingAndConsumingDeliversEveryMessageOnceInOrder) {
  auto bus = std::make_unique<SingleCoreBus>();
  g_queue_full_reports.store(0U);
  g_other_error_reports.store(0U);
  bus->SetErrorCallback(&CountErrors);
  DeliveryChecker checker(1U, /*retry=*/true, kHighOvertakes<SingleCoreBus>);
  auto visitor = [&checker](const auto& m, const MessageHeader& h) {
    using M = std::decay_t<decltype(m)>;
    checker.Check(m, h, std::is_same_v<M, Wide> ? 0U : (std::is_same_v<M, Narrow> ? 1U : 2U));
  };
  const auto count = static_cast<uint32_t>(Scaled(100000U, 1000U));
  ProducerRecord record;
  for (uint32_t seq = 0U; seq < count; ++seq) {
    const Plan plan = PlanFor(0U, seq);
    const auto prio = static_cast<std::size_t>(plan.priority);
    for (;;) {
      ++record.attempted[prio];
      if (PublishPlanned(*bus, 0U, seq, plan, record.moved_on_refusal)) {
        break;
      }
      ASSERT_GT(bus->ProcessBatchWith(visitor), 0U) << "refused although nothing is queued";
    }
    record.RecordAdmitted(seq, plan.priority, kHighOvertakes<SingleCoreBus>);
  }
  while (bus->ProcessBatchWith(visitor) != 0U) {
  }
  EXPECT_EQ(checker.failures(), 0U) << "first failure: " << checker.first_failure();
  EXPECT_EQ(checker.delivered(), count);
  for (std::size_t cls = 0U; cls < kClasses; ++cls) {
    EXPECT_EQ(checker.per_producer()[0].classes[cls].count, record.class_count[cls]);
    EXPECT_EQ(checker.per_producer()[0].classes[cls].hash, record.class_hash[cls]);
  }
  EXPECT_EQ(record.moved_on_refusal, 0U);
  const BusStatisticsSnapshot s = bus->GetStatistics();
  EXPECT_EQ(s.low_priority_published, record.admitted[0]);
  EXPECT_EQ(s.medium_priority_published, record.admitted[1]);
  EXPECT_EQ(s.high_priority_published, record.admitted[2]);
  EXPECT_EQ(s.low_priority_dropped, record.attempted[0] - record.admitted[0]);
  EXPECT_EQ(s.medium_priority_dropped, record.attempted[1] - record.admitted[1]);
  EXPECT_EQ(s.high_priority_dropped, record.attempted[2] - record.admitted[2]);
  EXPECT_EQ(s.messages_processed, count);
  EXPECT_EQ(g_queue_full_reports.load(), s.messages_dropped);
  EXPECT_EQ(g_other_error_reports.load(), 0U);
  RecordVerified(checker.delivered(),
                 record.attempted[0] + record.attempted[1] + record.attempted[2],
                 s.messages_dropped, 1U);
}

}  // namespace
