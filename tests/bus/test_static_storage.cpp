// SPDX-License-Identifier: MIT
// A bus in static storage needs no start-up code: its constructor is constexpr, and a fresh
// single-core NullClock bus is all zero bytes, so a global one is constant-initialised into
// zero-initialised memory (.bss: no flash image, no constructor call). Under Clang the global
// below carries require_constant_initialization, so the build itself fails if the bus ever
// needs a dynamic initialiser (tests/CMakeLists.txt compiles this file with clang++ as well).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Sample {
  int32_t value;
  uint32_t seq;
};
struct Command {
  uint32_t code;
};
using Payload = std::variant<Sample, Command>;

// A microcontroller's bus: single core, compact envelopes, 32-bit positions, no clock, few and
// small callbacks.
struct StaticTraits : mccc_test::SingleCore<
                          mccc_test::Compact<mccc_test::WithHighRing<mccc_test::SmallRing, 16U>>> {
  static constexpr uint32_t kMaxCallbacksPerType = 2U;
  static constexpr uint32_t kCallbackStorageBytes = 16U;
  using Position = uint32_t;
  using Clock = mccc::NullClock;
};
using StaticBus = mccc::AsyncBus<Payload, StaticTraits>;

#if defined(__clang__)
[[clang::require_constant_initialization]]
#endif
StaticBus g_static_bus;

// A hosted multi-core bus with producer lanes and a HIGH ring: constant-initialised as well (its
// lanes' slot storage has an initialiser), so a global one needs no start-up code either.
using StaticLanesTraits =
    mccc_test::WithClock<mccc_test::SymmetricFence<mccc_test::WithLanes<
                             mccc_test::WithHighRing<mccc_test::SmallRing, 16U>, 2U>>,
                         mccc::NullClock>;
using StaticLanesBus = mccc::AsyncBus<Payload, StaticLanesTraits>;

#if defined(__clang__)
[[clang::require_constant_initialization]]
#endif
StaticLanesBus g_static_lanes_bus;

// G-35: a fresh bus is all zero bytes and works as a fresh one (the tests below)
TEST(StaticStorage, AFreshGlobalBusIsAllZeroBytes) {
  // Read before any use: every byte of the object must be zero (it lives in .bss).
  const auto* bytes = reinterpret_cast<const unsigned char*>(&g_static_bus);
  std::size_t non_zero = 0U;
  for (std::size_t i = 0U; i < sizeof(StaticBus); ++i) {
    non_zero += bytes[i] != 0U ? 1U : 0U;
  }
  EXPECT_EQ(non_zero, 0U) << "a non-zero word would move the bus into .data (a flash image)";
}

TEST(StaticStorage, AFreshGlobalLanesBusIsAllZeroBytesAndWorks) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&g_static_lanes_bus);
  std::size_t non_zero = 0U;
  for (std::size_t i = 0U; i < sizeof(StaticLanesBus); ++i) {
    non_zero += bytes[i] != 0U ? 1U : 0U;
  }
  EXPECT_EQ(non_zero, 0U);
  std::vector<int32_t> values;
  const auto handle = g_static_lanes_bus.Subscribe<Sample>(
      [&](const Sample& s, const mccc::MessageHeader&) { values.push_back(s.value); });
  auto producer = g_static_lanes_bus.MakeProducer();
  ASSERT_TRUE(producer.Publish(Sample{1, 0U}, 1U));
  ASSERT_TRUE(g_static_lanes_bus.Publish(Sample{2, 1U}, 1U));
  EXPECT_EQ(g_static_lanes_bus.ProcessBatch(), 2U);
  EXPECT_EQ(values.size(), 2U);
  EXPECT_TRUE(g_static_lanes_bus.Unsubscribe(handle));
}

TEST(StaticStorage, TheZeroBusWorksAsAFreshOne) {
  std::vector<uint64_t> ids;
  const auto handle = g_static_bus.Subscribe<Sample>(
      [&](const Sample&, const mccc::MessageHeader& h) { ids.push_back(h.msg_id); });
  ASSERT_TRUE(handle.IsValid());
  ASSERT_TRUE(g_static_bus.Publish(Sample{1, 0U}, 1U));
  ASSERT_TRUE(g_static_bus.PublishWithPriority(Sample{2, 1U}, 1U, mccc::MessagePriority::kHigh));
  EXPECT_EQ(g_static_bus.ProcessBatch(), 2U);
  EXPECT_EQ(ids, (std::vector<uint64_t>{1U, 2U})) << "msg_ids start at 1 from the zero state";
  const mccc::BusStatisticsSnapshot stats = g_static_bus.GetStatistics();
  EXPECT_EQ(stats.messages_published, 2U);
  EXPECT_EQ(stats.messages_processed, 2U);
  EXPECT_TRUE(g_static_bus.Unsubscribe(handle));
}

TEST(StaticStorage, InstanceIsOneObjectAndUsable) {
  StaticBus& first = StaticBus::Instance();
  EXPECT_EQ(&StaticBus::Instance(), &first);
  ASSERT_TRUE(first.Publish(Command{7U}, 3U));
  uint32_t code = 0U;
  EXPECT_EQ(first.ProcessBatchWith(mccc::make_overloaded([](const Sample&) {},
                                                         [&](const Command& c) { code = c.code; })),
            1U);
  EXPECT_EQ(code, 7U);
}

}  // namespace
