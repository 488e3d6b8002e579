// SPDX-License-Identifier: MIT
// With 32-bit ring positions a refused publish reports the 64-bit msg_id its message would have
// received. The widening is wait-free (a producer in an interrupt or signal handler that
// preempted the consumer completes) and exact when the refusing producer is delayed while the
// consumer moves past the tail it observed. Also: the producers' cached head only moves forward.
#define MCCC_ENABLE_TEST_HOOKS 1  // this test binary only: AsyncBus(position, id), reject hook
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "mccc/ring/mpsc_ring.hpp"
#include "support/bus_configs.hpp"

namespace {

constexpr uint64_t kTwoTo31 = uint64_t{1} << 31U;
constexpr uint64_t kTwoTo32 = uint64_t{1} << 32U;

// ---------------------------------------------------------------------------------------------
// detail::IdBase on its own: every head a batch can reach, every tail near it, and a reader
// whose head is older than the consumer's latest preparation.
// ---------------------------------------------------------------------------------------------

// G-24: the exact 64-bit would-be id from 32-bit positions near every boundary
TEST(IdBase, WidensEveryPositionNearEveryHalfLapBoundary) {
  // The bias is msg_id - 1 - position: position p carries id kBias + 1 + p.
  constexpr uint64_t kBias = 999U;
  constexpr uint64_t kOffset = kBias + 1U;
  constexpr uint32_t kBatch = 64U;
  const uint64_t boundaries[] = {
      0U, kTwoTo31, kTwoTo32, 3U * kTwoTo31, 5U * kTwoTo32 + 7U, (uint64_t{1} << 40U)};
  for (const uint64_t boundary : boundaries) {
    const uint64_t first = boundary > 300U ? boundary - 300U : 0U;
    mccc::detail::IdBase<false> base(kBias, static_cast<uint32_t>(first));
    // The consumer's batches start every kBatch positions; a reader may see any head of the
    // batch, with the latest preparation or the next one (the consumer moved on meanwhile).
    for (uint64_t start = first; start < boundary + 300U; start += kBatch) {
      base.PrepareBatch(start, kBatch);
      for (uint64_t head = start; head <= start + kBatch; head += 7U) {
        for (uint64_t position = head >= 200U ? head - 200U : 0U; position < head + 80U;
             position += 13U) {
          ASSERT_EQ(base.IdOfPosition(static_cast<uint32_t>(position), static_cast<uint32_t>(head)),
                    kOffset + position)
              << "boundary " << boundary << " head " << head << " position " << position;
        }
      }
      // A reader that loaded a head of this batch and then the next batch's preparation.
      mccc::detail::IdBase<false> ahead(kBias, static_cast<uint32_t>(first));
      ahead.PrepareBatch(start, kBatch);
      ahead.PrepareBatch(start + kBatch, kBatch);
      for (uint64_t head = start; head <= start + kBatch; head += 5U) {
        ASSERT_EQ(ahead.IdOfPosition(static_cast<uint32_t>(head + 3U), static_cast<uint32_t>(head)),
                  kOffset + head + 3U)
            << "boundary " << boundary << " head " << head;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The bus: a refusing producer delayed (reject hook) while the consumer moves past its tail.
// ---------------------------------------------------------------------------------------------

struct Msg {
  uint32_t seq;
};
using Payload = std::variant<Msg>;

// Structs, not aliases: a typed test names its type parameter in its CTest name.
// No HIGH ring: one ring, whose 32-bit positions the refusing producer widens to the exact id
// of the position it observed.
struct Small32 : mccc_test::WithPosition<mccc_test::SharedRing<16U, 4U>, uint32_t> {};
struct Small64 : mccc_test::WithPosition<mccc_test::SharedRing<16U, 4U>, uint64_t> {};
// With a HIGH ring the id is decided at delivery: a refusal reports the id the consumer gives
// next as of its last finished batch, a delivered count the producer widens the same way.
struct Small32HighRing : mccc_test::WithHighRing<Small32, 16U> {};
struct Small64HighRing : mccc_test::WithHighRing<Small64, 16U> {};

struct Reported {
  static inline std::vector<uint64_t> queue_full_ids;
  static void Record(mccc::BusError error, uint64_t id) {
    if (error == mccc::BusError::kQueueFull) {
      queue_full_ids.push_back(id);
    }
  }
};

template <typename Bus>
struct MoveConsumerOn {
  Bus* bus;
  uint32_t extra;  // messages published and consumed beyond the observed tail
  bool done = false;
  static void Run(void* raw) {
    auto& self = *static_cast<MoveConsumerOn*>(raw);
    if (self.done) {
      return;
    }
    self.done = true;
    while (self.bus->ProcessBatch() != 0U) {
    }
    for (uint32_t i = 0U; i < self.extra; ++i) {
      EXPECT_TRUE(self.bus->PublishWithPriority(Msg{i}, 2U, mccc::MessagePriority::kHigh));
      EXPECT_EQ(self.bus->ProcessBatch(), 1U);
    }
  }
};

// Fills a bus started at `start` to LOW's limit, then refuses one LOW message while the
// reject hook lets the consumer dispatch `extra` messages, and returns the id the refusal reported.
template <typename Bus>
uint64_t IdReportedByADelayedRefusal(uint64_t start, uint64_t first_id, uint32_t extra) {
  using Position = typename Bus::Position;
  const uint32_t low_limit = Bus::Admission::LimitFor(mccc::MessagePriority::kLow);
  auto bus = std::make_unique<Bus>(static_cast<Position>(start), first_id);
  bus->SetErrorCallback(&Reported::Record);
  Reported::queue_full_ids.clear();
  for (uint32_t i = 0U; i < low_limit; ++i) {
    EXPECT_TRUE(bus->PublishWithPriority(Msg{i}, 1U, mccc::MessagePriority::kLow));
  }
  MoveConsumerOn<Bus> mover{bus.get(), extra};
  bus->SetBeforeRejectReportHook(&MoveConsumerOn<Bus>::Run, &mover);
  EXPECT_FALSE(bus->PublishWithPriority(Msg{99U}, 1U, mccc::MessagePriority::kLow));
  EXPECT_EQ(Reported::queue_full_ids.size(), 1U);
  return Reported::queue_full_ids.empty() ? 0U : Reported::queue_full_ids[0];
}

// Starts just below a 32-bit wrap, at a half-lap boundary and at zero.
constexpr uint64_t kDelayedRefusalStarts[] = {kTwoTo32 - 5U, kTwoTo31 - 3U, 0U};

template <typename Traits>
class DelayedRefusal : public ::testing::Test {};
using Widths = ::testing::Types<Small32, Small64>;
TYPED_TEST_SUITE(DelayedRefusal, Widths);

// G-24: exact id when the refusing producer was delayed while the consumer moved on
TYPED_TEST(DelayedRefusal, ReportsTheIdOfTheObservedTail) {
  using Bus = mccc::AsyncBus<Payload, TypeParam>;
  const uint32_t low_limit = Bus::Admission::LimitFor(mccc::MessagePriority::kLow);
  for (const uint64_t start : kDelayedRefusalStarts) {
    for (const uint32_t extra : {1U, 3U, 40U}) {
      const uint64_t first_id = (uint64_t{7} << 40U) + start;
      // The refused message observed the tail right after the low_limit admitted ones.
      EXPECT_EQ(IdReportedByADelayedRefusal<Bus>(start, first_id, extra), first_id + low_limit)
          << "start " << start << " extra " << extra;
    }
  }
}

// The same delay with a HIGH ring: the report is read after the consumer moved on, so it carries
// the id the consumer gives next by then (every earlier id was delivered before the report).
template <typename Traits>
class DelayedRefusalWithHighRing : public ::testing::Test {};
using HighRingWidths = ::testing::Types<Small32HighRing, Small64HighRing>;
TYPED_TEST_SUITE(DelayedRefusalWithHighRing, HighRingWidths);

TYPED_TEST(DelayedRefusalWithHighRing, ReportsTheConsumersNextIdAfterTheDelay) {
  using Bus = mccc::AsyncBus<Payload, TypeParam>;
  const uint32_t low_limit = Bus::Admission::LimitFor(mccc::MessagePriority::kLow);
  for (const uint64_t start : kDelayedRefusalStarts) {
    for (const uint32_t extra : {1U, 3U, 40U}) {
      const uint64_t first_id = (uint64_t{7} << 40U) + start;
      // Delivered by then: the low_limit LOW messages and the mover's `extra` HIGH ones.
      EXPECT_EQ(IdReportedByADelayedRefusal<Bus>(start, first_id, extra),
                first_id + low_limit + extra)
          << "start " << start << " extra " << extra;
    }
  }
}

// A refusal made by the consumer's own thread in the middle of its batch (what an interrupt
// handler that preempted the consumer does) completes and reports the exact id.
// G-24: a refusal that preempted the consumer completes (wait-free)
TEST(IdWidening, RefusalInsideTheConsumersBatchCompletes) {
  using Bus = mccc::AsyncBus<Payload, Small32>;
  auto bus = std::make_unique<Bus>(static_cast<uint32_t>(kTwoTo32 - 2U), 50U);
  bus->SetErrorCallback(&Reported::Record);
  Reported::queue_full_ids.clear();
  const uint32_t high_limit = Bus::Admission::LimitFor(mccc::MessagePriority::kHigh);
  for (uint32_t i = 0U; i < high_limit; ++i) {
    ASSERT_TRUE(bus->PublishWithPriority(Msg{i}, 1U, mccc::MessagePriority::kHigh));
  }
  uint32_t calls = 0U;
  static_cast<void>(bus->Subscribe<Msg>([&](const Msg&) {
    if (calls++ == 1U) {
      // The first message is consumed, the second is being dispatched: the queue is still
      // above the LOW limit, so LOW is refused at the tail after the high_limit admitted ones.
      EXPECT_FALSE(bus->PublishFast(Msg{0U}, 9U, 0U, mccc::MessagePriority::kLow));
    }
  }));
  EXPECT_EQ(bus->ProcessBatch(), Small32::kBatchSize);
  ASSERT_EQ(Reported::queue_full_ids.size(), 1U);
  EXPECT_EQ(Reported::queue_full_ids[0], 50U + high_limit);
}

// The same with a HIGH ring, the delivered count just below a 32-bit wrap: the refusal reports
// the consumer's next id as of its last finished batch (none yet: the first id); a HIGH message
// published by the callback is dispatched before the batch's next MEDIUM one.
TEST(IdWidening, HighRingRefusalInsideTheConsumersBatchCompletes) {
  using Bus = mccc::AsyncBus<Payload, Small32HighRing>;
  auto bus = std::make_unique<Bus>(static_cast<uint32_t>(kTwoTo32 - 2U), 50U);
  bus->SetErrorCallback(&Reported::Record);
  Reported::queue_full_ids.clear();
  const uint32_t medium_limit = Bus::Admission::LimitFor(mccc::MessagePriority::kMedium);
  for (uint32_t i = 0U; i < medium_limit; ++i) {
    ASSERT_TRUE(bus->PublishWithPriority(Msg{i}, 1U, mccc::MessagePriority::kMedium));
  }
  uint32_t calls = 0U;
  std::vector<uint64_t> ids;
  std::vector<uint32_t> seqs;
  static_cast<void>(bus->Subscribe<Msg>([&](const Msg& m, const mccc::MessageHeader& h) {
    ids.push_back(h.msg_id);
    seqs.push_back(m.seq);
    if (calls++ == 1U) {
      // The normal ring is still above the LOW limit: refused. HIGH goes to the HIGH ring.
      EXPECT_FALSE(bus->PublishFast(Msg{0U}, 9U, 0U, mccc::MessagePriority::kLow));
      EXPECT_TRUE(bus->PublishFast(Msg{1000U}, 9U, 0U, mccc::MessagePriority::kHigh));
    }
  }));
  EXPECT_EQ(bus->ProcessBatch(), Small32::kBatchSize + 1U);
  ASSERT_EQ(Reported::queue_full_ids.size(), 1U);
  EXPECT_EQ(Reported::queue_full_ids[0], 50U);
  EXPECT_EQ(ids, (std::vector<uint64_t>{50U, 51U, 52U, 53U, 54U}));
  EXPECT_EQ(seqs, (std::vector<uint32_t>{0U, 1U, 1000U, 2U, 3U}));
  // After the batch: the next id is 55, widened across the wrap of the 32-bit delivered count.
  uint32_t refilled = 0U;
  while (bus->PublishFast(Msg{0U}, 9U, 0U, mccc::MessagePriority::kMedium)) {
    ++refilled;
  }
  EXPECT_EQ(refilled, 4U) << "9 queued, MEDIUM admitted below 13";
  ASSERT_EQ(Reported::queue_full_ids.size(), 2U);
  EXPECT_EQ(Reported::queue_full_ids[1], 55U);
}

// ---------------------------------------------------------------------------------------------
// Stress: refusals from a signal handler that interrupts the consumer at arbitrary points.
// ---------------------------------------------------------------------------------------------

struct SignalStress {
  using Bus = mccc::AsyncBus<Payload, Small32>;
  static inline Bus* bus = nullptr;
  static inline std::atomic<uint64_t> handled{0U};
  static inline std::atomic<uint64_t> largest_id{0U};
  static void OnError(mccc::BusError error, uint64_t id) {
    if (error == mccc::BusError::kQueueFull) {
      // relaxed: a statistic read after the threads are joined.
      uint64_t seen = largest_id.load(std::memory_order_relaxed);
      while (id > seen && !largest_id.compare_exchange_weak(seen, id, std::memory_order_relaxed)) {
      }
    }
  }
  static void OnSignal(int) {
    // Refused unless the queue drained below the LOW limit; kNoStats mode: no thread_local.
    static_cast<void>(bus->PublishFast(Msg{0U}, 7U, 0U, mccc::MessagePriority::kLow));
    handled.fetch_add(1U, std::memory_order_relaxed);  // relaxed: a progress counter
  }
};

// G-24: refusals from signal handlers on the consumer thread complete
TEST(IdWideningStress, RefusalsFromSignalHandlersOnTheConsumerThreadComplete) {
  auto bus = std::make_unique<SignalStress::Bus>();
  SignalStress::bus = bus.get();
  bus->SetPerformanceMode(mccc::PerformanceMode::kNoStats);
  bus->SetErrorCallback(&SignalStress::OnError);
  std::atomic<uint64_t> delivered{0U};
  static_cast<void>(
      bus->Subscribe<Msg>([&](const Msg&) { delivered.fetch_add(1U, std::memory_order_relaxed); }));
  struct sigaction action {};
  action.sa_handler = &SignalStress::OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ASSERT_EQ(sigaction(SIGUSR1, &action, nullptr), 0);

  constexpr uint64_t kSignals = 2000U;
  std::atomic<bool> stop{false};
  std::thread consumer([&] {
    while (!stop.load(std::memory_order_relaxed)) {  // relaxed: a stop flag
      static_cast<void>(bus->ProcessBatch());
    }
  });
  std::thread producer([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      static_cast<void>(bus->PublishFast(Msg{1U}, 1U, 0U, mccc::MessagePriority::kHigh));
    }
  });
  const auto started = std::chrono::steady_clock::now();
  for (uint64_t sent = 0U; sent < kSignals; ++sent) {
    ASSERT_EQ(pthread_kill(consumer.native_handle(), SIGUSR1), 0);
    // Wait for this handler to finish before the next signal; a handler spinning on the
    // preempted consumer would never finish: fail instead of hanging.
    while (SignalStress::handled.load(std::memory_order_relaxed) <= sent) {
      if (std::chrono::steady_clock::now() - started > std::chrono::seconds(60)) {
        std::fprintf(stderr, "a refusal in a signal handler did not complete\n");
        std::_Exit(1);
      }
      std::this_thread::yield();
    }
  }
  stop.store(true, std::memory_order_relaxed);
  producer.join();
  consumer.join();
  signal(SIGUSR1, SIG_DFL);
  EXPECT_EQ(SignalStress::handled.load(), kSignals);
  // Every reported id lies within one queue of what was delivered (never 2^32 off).
  EXPECT_LE(SignalStress::largest_id.load(), delivered.load() + 2U * Small32::kQueueDepth);
}

// ---------------------------------------------------------------------------------------------
// The producers' cached head only moves forward, whatever order racing refreshes land in.
// ---------------------------------------------------------------------------------------------

// G-25: the producers' cached head only moves forward
TEST(CachedHead, OnlyMovesForwardUnderRacingRefreshes) {
  using Ring = mccc::detail::MpscRing<uint32_t, 16U, false, false, uint32_t, 64U>;
  auto ring = std::make_unique<Ring>(static_cast<uint32_t>(kTwoTo32 - 1000U));
  constexpr int kProducers = 3;
  constexpr uint32_t kPerProducer = 200000U;
  std::atomic<uint32_t> backwards{0U};
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&] {
      uint32_t previous = ring->CachedHeadForTest();
      for (uint32_t sent = 0U; sent < kPerProducer;) {
        // A limit just below the capacity keeps every producer refreshing the head.
        if (ring->TryPublish(
                    15U, [&](void* storage, uint32_t) noexcept { ::new (storage) uint32_t{sent}; })
                .admitted) {
          ++sent;
        }
        const uint32_t now = ring->CachedHeadForTest();
        if (static_cast<int32_t>(now - previous) < 0) {
          backwards.fetch_add(1U, std::memory_order_relaxed);  // relaxed: a count
        }
        previous = now;
      }
    });
  }
  uint64_t consumed = 0U;
  while (consumed < uint64_t{kProducers} * kPerProducer) {
    consumed += ring->ConsumeBatch(4U, [](uint32_t&, uint32_t) noexcept {});
  }
  for (std::thread& t : producers) {
    t.join();
  }
  EXPECT_EQ(backwards.load(), 0U);
}

}  // namespace
