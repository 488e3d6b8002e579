// SPDX-License-Identifier: MIT
// Queue snapshots (QueueDepth, utilisation, backpressure) are values the queue really had, or
// the capacity as a safe bound, never a wrapped difference. The consumer may take a message the
// instant it is announced, before the publish returns: the hook below runs the consumer exactly
// there, which is where a single-producer ring used to publish its tail only afterwards.
#define MCCC_ENABLE_TEST_HOOKS 1  // this test binary only: SetAfterAnnounceHook
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Sample {
  uint32_t seq;
};
using Payload = std::variant<Sample>;

// Structs, not aliases: a typed test names its type parameter in its CTest name.
struct MultiProducer : mccc_test::SmallRing {};
struct SingleProducer : mccc_test::SingleProducer<MultiProducer> {};
struct SingleProducer32 : mccc_test::WithPosition<SingleProducer, uint32_t> {};

// What the hook saw, after it let the consumer take every announced message.
struct Observation {
  uint32_t depth = 0U;
  uint32_t utilisation = 0U;
  mccc::BackpressureLevel level = mccc::BackpressureLevel::kNormal;
  uint32_t consumed = 0U;
  uint32_t calls = 0U;
};

template <typename Bus>
struct HookContext {
  Bus* bus;
  std::vector<Observation> observations;
};

template <typename Bus>
void ConsumeThenObserve(void* raw, typename Bus::Position) {
  auto& context = *static_cast<HookContext<Bus>*>(raw);
  Observation seen;
  seen.consumed = context.bus->ProcessBatch();
  seen.depth = context.bus->QueueOccupancy();
  seen.utilisation = context.bus->QueueUtilizationPercent();
  seen.level = context.bus->GetBackpressureLevel();
  context.observations.push_back(seen);
}

template <typename Traits>
class SnapshotBounds : public ::testing::Test {};
using TraitsUnderTest = ::testing::Types<MultiProducer, SingleProducer, SingleProducer32>;
TYPED_TEST_SUITE(SnapshotBounds, TraitsUnderTest);

// A message consumed between its announcement and the end of its publish leaves an empty queue
// that every snapshot reports as empty.
// G-23: every queue snapshot is a value the queue had, never a wrapped difference (tests below)
TYPED_TEST(SnapshotBounds, ConsumedBeforePublishReturnsReadsEmpty) {
  using Bus = mccc::AsyncBus<Payload, TypeParam>;
  auto bus = std::make_unique<Bus>();
  uint32_t delivered = 0U;
  static_cast<void>(bus->template Subscribe<Sample>([&](const Sample&) { ++delivered; }));
  HookContext<Bus> context{bus.get(), {}};
  bus->SetAfterAnnounceHook(&ConsumeThenObserve<Bus>, &context);

  for (uint32_t i = 0U; i < 3U * Bus::Capacity(); ++i) {  // several laps of the ring
    ASSERT_TRUE(bus->PublishWithPriority(Sample{i}, 1U, mccc::MessagePriority::kLow));
  }
  const Sample batch[5] = {{0U}, {1U}, {2U}, {3U}, {4U}};
  ASSERT_EQ(bus->PublishBatch(batch, 5U, 1U), 5U);

  ASSERT_EQ(context.observations.size(), 3U * Bus::Capacity() + 1U);
  for (const Observation& seen : context.observations) {
    EXPECT_GE(seen.consumed, 1U);
    EXPECT_EQ(seen.depth, 0U);
    EXPECT_EQ(seen.utilisation, 0U);
    EXPECT_EQ(seen.level, mccc::BackpressureLevel::kNormal);
  }
  EXPECT_EQ(delivered, 3U * Bus::Capacity() + 5U);
  EXPECT_EQ(bus->QueueOccupancy(), 0U);
}

// Admission after such a publish sees the room that is really there: a LOW message is admitted
// (a wrapped occupancy would have read as "full" and refused it).
TYPED_TEST(SnapshotBounds, AdmissionAfterEarlyConsumptionSeesRoom) {
  using Bus = mccc::AsyncBus<Payload, TypeParam>;
  auto bus = std::make_unique<Bus>();
  HookContext<Bus> context{bus.get(), {}};
  bus->SetAfterAnnounceHook(&ConsumeThenObserve<Bus>, &context);
  ASSERT_TRUE(bus->PublishWithPriority(Sample{1U}, 1U, mccc::MessagePriority::kLow));
  bus->SetAfterAnnounceHook(nullptr, nullptr);
  for (uint32_t i = 0U; i < Bus::Admission::LimitFor(mccc::MessagePriority::kLow); ++i) {
    ASSERT_TRUE(bus->PublishWithPriority(Sample{i}, 1U, mccc::MessagePriority::kLow)) << i;
  }
  EXPECT_FALSE(bus->PublishWithPriority(Sample{0U}, 1U, mccc::MessagePriority::kLow));
  EXPECT_EQ(bus->QueueOccupancy(), Bus::Admission::LimitFor(mccc::MessagePriority::kLow));
}

// With a real consumer thread racing a single producer that keeps at most kInFlight messages
// outstanding, the consumer (which may take a message the instant it is announced) never reads
// a depth above kInFlight: a wrapped snapshot would read the capacity.
TEST(SnapshotBoundsStress, SingleProducerDepthNeverExceedsOutstanding) {
  using Bus = mccc::AsyncBus<Payload, SingleProducer>;
  auto bus = std::make_unique<Bus>();
  constexpr uint32_t kMessages = 50000U;
  constexpr uint32_t kInFlight = 4U;
  std::atomic<uint32_t> delivered{0U};
  static_cast<void>(bus->Subscribe<Sample>([&](const Sample&) {
    // release: pairs with the producer's acquire load (bounds the outstanding messages).
    delivered.fetch_add(1U, std::memory_order_release);
  }));
  uint32_t worst = 0U;
  std::thread consumer([&] {
    while (delivered.load(std::memory_order_relaxed) < kMessages) {  // relaxed: own counter
      static_cast<void>(bus->ProcessBatch());
      const uint32_t depth = bus->QueueOccupancy();
      worst = depth > worst ? depth : worst;
    }
  });
  for (uint32_t i = 0U; i < kMessages; ++i) {
    // acquire: pairs with the callback's release increment.
    while (i - delivered.load(std::memory_order_acquire) >= kInFlight) {
    }
    ASSERT_TRUE(bus->PublishFast(Sample{i}, 1U, 0U));
  }
  consumer.join();
  EXPECT_LE(worst, kInFlight);
  EXPECT_EQ(delivered.load(), kMessages);
}

}  // namespace
