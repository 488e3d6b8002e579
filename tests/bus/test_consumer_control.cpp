// SPDX-License-Identifier: MIT
// The consumer's control paths: the error callback is published with release/acquire (state set
// up before installing it is visible to the producer that calls it), ProcessBatch re-entered
// from a callback is refused in every build, a removed callable is reclaimed within a stated
// bound with an idle consumer, and a membarrier call that starts failing after start-up makes
// the bus fall back to the symmetric handshake instead of aborting.
#define MCCC_ENABLE_TEST_HOOKS 1  // this test binary only: AsymmetricFence::FailForTest
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

struct Msg {
  uint32_t seq;
};
using Payload = std::variant<Msg>;

using Small = mccc_test::SmallRing;
using SmallSymmetric = mccc_test::SymmetricFence<Small>;
using Bus = mccc::AsyncBus<Payload, Small>;

// ---------------------------------------------------------------------------------------------
// Error callback publication (ThreadSanitizer reports a data race here if it were relaxed).
// ---------------------------------------------------------------------------------------------

struct Logger {
  int lines_per_error = 0;
  std::atomic<uint64_t> lines{0U};
};
Logger* g_logger = nullptr;  // plain pointer, written before the callback is installed

void LogError(mccc::BusError, uint64_t) {
  g_logger->lines.fetch_add(static_cast<uint64_t>(g_logger->lines_per_error),
                            std::memory_order_relaxed);  // relaxed: a count read after join
}

// G-26: the error callback sees what its installer set up before installing it
TEST(ErrorCallback, StateSetUpBeforeInstallingIsVisibleToTheProducer) {
  auto bus = std::make_unique<Bus>();
  // Filled to MEDIUM's limit, so that every MEDIUM publish below is refused (HIGH would go to
  // the HIGH ring and leave the ring the producer publishes into with room).
  uint32_t filled = 0U;
  while (bus->Publish(Msg{filled}, 1U)) {
    ++filled;
  }
  ASSERT_EQ(filled, Bus::Admission::LimitFor(mccc::MessagePriority::kMedium));
  std::atomic<bool> started{false};
  std::atomic<bool> installed{false};
  uint64_t refusals = 0U;
  std::thread producer([&] {
    started.store(true, std::memory_order_relaxed);  // relaxed: only a start signal
    // The producer learns about the callback only through the bus (installed is read relaxed
    // and only ends the loop); until then, its refusals may or may not call the callback.
    while (!installed.load(std::memory_order_relaxed)) {
      refusals += bus->Publish(Msg{0U}, 2U) ? 0U : 1U;
    }
    for (int i = 0; i < 1000; ++i) {
      refusals += bus->Publish(Msg{0U}, 2U) ? 0U : 1U;
    }
  });
  while (!started.load(std::memory_order_relaxed)) {
  }
  g_logger = new Logger;
  g_logger->lines_per_error = 2;
  bus->SetErrorCallback(&LogError);
  installed.store(true, std::memory_order_relaxed);
  producer.join();
  const uint64_t lines = g_logger->lines.load();
  EXPECT_GE(lines, 2U * 1000U);
  EXPECT_LE(lines, 2U * refusals);
  EXPECT_EQ(lines % 2U, 0U);
  bus->SetErrorCallback(nullptr);
  delete g_logger;
  g_logger = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Re-entry from a callback.
// ---------------------------------------------------------------------------------------------

struct ErrorLog {
  static inline std::vector<std::pair<mccc::BusError, uint64_t>> seen;
  static void Record(mccc::BusError error, uint64_t id) { seen.emplace_back(error, id); }
};

// G-27: ProcessBatch* from a callback returns 0 and reports kReentrantCall; the batch goes on
TEST(Reentry, ProcessBatchFromACallbackIsRefusedAndReported) {
  auto bus = std::make_unique<Bus>();
  ErrorLog::seen.clear();
  bus->SetErrorCallback(&ErrorLog::Record);
  std::vector<uint32_t> order;
  std::vector<uint32_t> inner_results;
  static_cast<void>(bus->Subscribe<Msg>([&](const Msg& m) {
    order.push_back(m.seq);
    if (m.seq == 1U) {
      inner_results.push_back(bus->ProcessBatch());
      inner_results.push_back(bus->ProcessBatchWith([](const Msg&) { ADD_FAILURE(); }));
    }
  }));
  for (uint32_t i = 0U; i < 4U; ++i) {
    ASSERT_TRUE(bus->Publish(Msg{i}, 1U));
  }
  EXPECT_EQ(bus->ProcessBatch(), 4U);
  EXPECT_EQ(order, (std::vector<uint32_t>{0U, 1U, 2U, 3U}));  // the outer batch went on
  EXPECT_EQ(inner_results, (std::vector<uint32_t>{0U, 0U}));
  ASSERT_EQ(ErrorLog::seen.size(), 2U);
  for (const auto& [error, id] : ErrorLog::seen) {
    EXPECT_EQ(error, mccc::BusError::kReentrantCall);
    EXPECT_EQ(id, 2U);  // msg_id of the message being dispatched (seq 1)
  }
  // The bus is usable afterwards, and the visitor path refuses re-entry the same way.
  ErrorLog::seen.clear();
  ASSERT_TRUE(bus->Publish(Msg{9U}, 1U));
  uint32_t inner = 7U;
  EXPECT_EQ(bus->ProcessBatchWith([&](const Msg&) { inner = bus->ProcessBatch(); }), 1U);
  EXPECT_EQ(inner, 0U);
  ASSERT_EQ(ErrorLog::seen.size(), 1U);
  EXPECT_EQ(ErrorLog::seen[0].first, mccc::BusError::kReentrantCall);
  EXPECT_EQ(ErrorLog::seen[0].second, 5U);
}

// G-27 on a full ring: producers reuse the slots a batch has already consumed while the batch
// goes on, so a re-entrant call can find the next position's slot holding a later lap. It is
// refused and reported all the same (the re-entry check does not rely on the rings).
TEST(Reentry, ProcessBatchFromACallbackIsRefusedWhileProducersReuseTheBatchsSlots) {
  using FullTraits = mccc_test::SharedRing<8U>;  // one ring of 8: MEDIUM admitted below 7
  auto bus = std::make_unique<mccc::AsyncBus<Payload, FullTraits>>();
  ErrorLog::seen.clear();
  bus->SetErrorCallback(&ErrorLog::Record);
  std::vector<uint32_t> order;
  uint32_t inner = 7U;
  static_cast<void>(bus->Subscribe<Msg>([&](const Msg& m) {
    order.push_back(m.seq);
    if (m.seq == 2U) {
      // Two messages consumed: positions 7 and 8 are admitted, and 8 takes position 0's slot.
      EXPECT_TRUE(bus->Publish(Msg{7U}, 1U));
      EXPECT_TRUE(bus->Publish(Msg{8U}, 1U));
      inner = bus->ProcessBatch();
    }
  }));
  for (uint32_t i = 0U; i < 7U; ++i) {
    ASSERT_TRUE(bus->Publish(Msg{i}, 1U));
  }
  ASSERT_FALSE(bus->Publish(Msg{99U}, 1U)) << "the ring must be at MEDIUM's limit";
  ErrorLog::seen.clear();  // the refusal above
  while (bus->ProcessBatch() != 0U) {
  }
  EXPECT_EQ(order, (std::vector<uint32_t>{0U, 1U, 2U, 3U, 4U, 5U, 6U, 7U, 8U}));
  EXPECT_EQ(inner, 0U);
  ASSERT_EQ(ErrorLog::seen.size(), 1U);
  EXPECT_EQ(ErrorLog::seen[0].first, mccc::BusError::kReentrantCall);
  EXPECT_EQ(ErrorLog::seen[0].second, 3U);  // msg_id of the message being dispatched (seq 2)
}

// ---------------------------------------------------------------------------------------------
// Reclaim bound: a callable removed while the consumer runs it is destroyed by the end of that
// batch, or at the latest by the consumer's next ProcessBatch call (an empty poll included).
// ---------------------------------------------------------------------------------------------

struct CaptureProbe {
  std::atomic<int>* destroyed;
  bool armed = true;
  explicit CaptureProbe(std::atomic<int>& counter) : destroyed(&counter) {}
  CaptureProbe(CaptureProbe&& other) noexcept : destroyed(other.destroyed) { other.armed = false; }
  CaptureProbe(const CaptureProbe&) = delete;
  CaptureProbe& operator=(const CaptureProbe&) = delete;
  CaptureProbe& operator=(CaptureProbe&&) = delete;
  ~CaptureProbe() {
    if (armed) {
      destroyed->fetch_add(1, std::memory_order_release);  // release: the test's acquire load
    }
  }
};

template <typename Traits>
void ExpectReclaimWithinOneBatchOrOnePoll(int rounds) {
  using TheBus = mccc::AsyncBus<Payload, Traits>;
  auto bus = std::make_unique<TheBus>();
  for (int round = 0; round < rounds; ++round) {
    std::atomic<int> destroyed{0};
    std::atomic<int> stage{0};  // 1: callback entered, 2: unsubscribed
    const mccc::SubscriptionHandle handle =
        bus->template Subscribe<Msg>([probe = CaptureProbe(destroyed), &stage](const Msg&) {
          static_cast<void>(probe);
          // release/acquire: a handshake with the unsubscribing thread.
          stage.store(1, std::memory_order_release);
          while (stage.load(std::memory_order_acquire) != 2) {
          }
        });
    ASSERT_TRUE(handle.IsValid());
    ASSERT_TRUE(bus->Publish(Msg{0U}, 1U));
    std::atomic<uint32_t> polls{0U};
    std::atomic<bool> stop{false};
    std::thread consumer([&] {
      while (!stop.load(std::memory_order_acquire)) {
        static_cast<void>(bus->ProcessBatch());
        polls.fetch_add(1U, std::memory_order_release);  // release: pairs with the reader
      }
    });
    while (stage.load(std::memory_order_acquire) != 1) {
    }
    ASSERT_TRUE(bus->Unsubscribe(handle));  // the consumer is inside the callable
    const uint32_t polls_at_unsubscribe = polls.load(std::memory_order_acquire);
    stage.store(2, std::memory_order_release);
    // The batch that ran the callable ends (poll + 1), then one more poll at most.
    while (polls.load(std::memory_order_acquire) < polls_at_unsubscribe + 2U) {
    }
    const int destroyed_after_bound = destroyed.load(std::memory_order_acquire);
    stop.store(true, std::memory_order_release);
    consumer.join();
    ASSERT_EQ(destroyed_after_bound, 1) << "round " << round;
  }
}

// G-28: a removed callable is destroyed by the end of that batch or the next ProcessBatch
TEST(ReclaimBound, AsymmetricHandshake) {
  ExpectReclaimWithinOneBatchOrOnePoll<Small>(200);
}

TEST(ReclaimBound, SymmetricHandshake) {
  ExpectReclaimWithinOneBatchOrOnePoll<SmallSymmetric>(200);
}

// ---------------------------------------------------------------------------------------------
// A membarrier call that fails after start-up (as under a seccomp filter installed later).
// ---------------------------------------------------------------------------------------------

// G-28: a membarrier that starts failing switches to the symmetric handshake
TEST(MembarrierFailure, FallsBackToTheSymmetricHandshake) {
  auto bus = std::make_unique<Bus>();
  std::atomic<int> destroyed{0};
  std::atomic<uint32_t> calls_a{0U};
  std::atomic<uint32_t> calls_b{0U};
  const mccc::SubscriptionHandle a =
      bus->Subscribe<Msg>([probe = CaptureProbe(destroyed), &calls_a](const Msg&) {
        static_cast<void>(probe);
        calls_a.fetch_add(1U, std::memory_order_relaxed);  // relaxed: read after join
      });
  static_cast<void>(bus->Subscribe<Msg>([&calls_b](const Msg&) {
    calls_b.fetch_add(1U, std::memory_order_relaxed);  // relaxed: read after join
  }));
  constexpr uint32_t kMessages = 20000U;
  std::atomic<bool> stop{false};
  std::atomic<uint32_t> processed{0U};
  std::thread consumer([&] {
    while (!stop.load(std::memory_order_acquire)) {
      processed.fetch_add(bus->ProcessBatch(), std::memory_order_release);
    }
  });
  mccc::detail::AsymmetricFence::FailForTest().store(true, std::memory_order_relaxed);
  uint32_t published = 0U;
  for (; published < kMessages / 2U; ++published) {
    while (!bus->PublishWithPriority(Msg{published}, 1U, mccc::MessagePriority::kHigh)) {
    }
  }
  EXPECT_TRUE(bus->Unsubscribe(a));  // must not abort
  const uint32_t calls_a_at_unsubscribe = calls_a.load(std::memory_order_relaxed);
  for (; published < kMessages; ++published) {
    while (!bus->PublishWithPriority(Msg{published}, 1U, mccc::MessagePriority::kHigh)) {
    }
  }
  while (processed.load(std::memory_order_acquire) < kMessages) {
  }
  // One more poll: the consumer acknowledges the switch; the removed callable can go now.
  const uint32_t before = processed.load(std::memory_order_acquire);
  ASSERT_TRUE(bus->PublishWithPriority(Msg{kMessages}, 1U, mccc::MessagePriority::kHigh));
  while (processed.load(std::memory_order_acquire) == before) {
  }
  stop.store(true, std::memory_order_release);
  consumer.join();
  mccc::detail::AsymmetricFence::FailForTest().store(false, std::memory_order_relaxed);
  EXPECT_EQ(calls_b.load(), kMessages + 1U);  // every message to the remaining subscriber
  // At most the one invocation under way when Unsubscribe was called ran after it.
  EXPECT_LE(calls_a.load(), calls_a_at_unsubscribe + 1U);
  // The callable is destroyed by the next Subscribe/Unsubscribe at the latest.
  static_cast<void>(bus->Subscribe<Msg>([](const Msg&) {}));
  EXPECT_EQ(destroyed.load(std::memory_order_acquire), 1);
}

}  // namespace
