// SPDX-License-Identifier: MIT
// G-19, G-36: the consumer's very first WaitForMessages races with a publish whose claim is a
// plain store (a producer lane, the single producer). Such a producer skips its StoreLoad fence
// while it reads "sleep not enabled"; if it read that while the consumer was enabling sleep, its
// tail could still sit in its store buffer when the consumer looked for work (store buffering,
// allowed on x86 too), and the consumer slept with a message ready. Each trial here is a fresh
// bus, a producer publishing once after a random delay and the consumer's first wait after
// another. The wait hook detects a lost wake-up exactly: it is entered (the consumer found no
// work after announcing its sleep) after the publish had returned (acquire on `returned`), and no
// Notify is pending (the producer notifies before its publish returns).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>

#include "mccc/mccc.hpp"
#include "stress/stress_support.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Tick {
  uint32_t trial;
};
using Payload = std::variant<Tick>;

/// A binary semaphore hook that also judges each wait of the current trial.
struct JudgingWait {
  static inline std::mutex mutex;
  static inline std::condition_variable cv;
  static inline bool given = false;
  static inline std::atomic<uint32_t> returned{0U};  // the last trial whose publish returned
  static inline uint32_t trial = 0U;                 // consumer thread only
  static inline uint32_t waits = 0U;                 // consumer thread only
  static inline uint32_t lost = 0U;                  // consumer thread only

  static void Wait(uint32_t timeout_us) noexcept {
    ++waits;
    std::unique_lock<std::mutex> lock(mutex);
    // acquire: pairs with the producer's release store after its publish returned.
    if (returned.load(std::memory_order_acquire) == trial && !given) {
      ++lost;  // it would sleep until the timeout with the trial's message ready
      return;
    }
    cv.wait_for(lock, std::chrono::microseconds(timeout_us), [] { return given; });
    given = false;
  }

  static void Notify() noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex);
      given = true;
    }
    cv.notify_one();
  }

  static void Reset(uint32_t next_trial) {
    std::lock_guard<std::mutex> lock(mutex);
    given = false;
    trial = next_trial;
  }
};

using LaneTraits = mccc_test::WithConsumerWait<
    mccc_test::WithClock<mccc_test::WithLanes<mccc_test::SharedRing<64U, 8U>, 1U>, mccc::NullClock>,
    JudgingWait>;
using SingleProducerTraits = mccc_test::WithConsumerWait<
    mccc_test::WithClock<mccc_test::SingleProducer<mccc_test::SharedRing<64U, 8U>>,
                         mccc::NullClock>,
    JudgingWait>;

uint32_t NextRandom(uint32_t& state) {
  state ^= state << 13U;
  state ^= state >> 17U;
  state ^= state << 5U;
  return state;
}

void SpinFor(uint32_t rounds) {
  for (; rounds != 0U; --rounds) {
    mccc::CpuRelax();
  }
}

/// Runs `trials` races on fresh buses; returns how many first waits lost their wake-up.
template <typename Bus>
uint32_t LostWakeups(uint32_t trials, bool& every_message_delivered) {
  JudgingWait::waits = 0U;
  JudgingWait::lost = 0U;
  JudgingWait::returned.store(0U);
  std::atomic<uint32_t> go{0U};
  std::atomic<Bus*> current{nullptr};
  std::thread producer([&] {
    uint32_t random = 12345U;
    for (uint32_t t = 1U; t <= trials; ++t) {
      // acquire: pairs with the consumer's release of `go` after it built the trial's bus.
      while (go.load(std::memory_order_acquire) != t) {
        mccc::CpuRelax();
      }
      SpinFor(NextRandom(random) % 64U);
      static_cast<void>(current.load(std::memory_order_relaxed)->Publish(Tick{t}, 1U));
      // release: pairs with the hook's acquire (the publish, its notify included, is done).
      JudgingWait::returned.store(t, std::memory_order_release);
    }
  });
  every_message_delivered = true;
  uint32_t random = 777U;
  for (uint32_t t = 1U; t <= trials; ++t) {
    auto bus = std::make_unique<Bus>();  // fresh: sleeping not yet enabled
    JudgingWait::Reset(t);
    current.store(bus.get(), std::memory_order_relaxed);
    // release: pairs with the producer's acquire (the bus is built before it publishes).
    go.store(t, std::memory_order_release);
    SpinFor(NextRandom(random) % 64U);
    static_cast<void>(bus->WaitForMessages(20000U));
    // acquire: the publish has returned before the bus is drained and destroyed.
    while (JudgingWait::returned.load(std::memory_order_acquire) != t) {
      mccc::CpuRelax();
    }
    uint32_t delivered = 0U;
    while (bus->ProcessBatchWith(
               [&](const Tick& tick) { delivered += tick.trial == t ? 1U : 0U; }) != 0U) {
    }
    every_message_delivered = every_message_delivered && delivered == 1U;
  }
  producer.join();
  return JudgingWait::lost;
}

uint32_t Trials() {
  const double scaled = 20000.0 * mccc_stress::StressScale();
  return scaled < 200.0 ? 200U : static_cast<uint32_t>(scaled);
}

using LaneBus = mccc::AsyncBus<Payload, LaneTraits>;
using SingleProducerBus = mccc::AsyncBus<Payload, SingleProducerTraits>;

TEST(FirstWaitWakeup, ALanePublishRacingTheFirstWaitWakesTheConsumer) {
  bool delivered = false;
  EXPECT_EQ(LostWakeups<LaneBus>(Trials(), delivered), 0U);
  EXPECT_TRUE(delivered);
}

TEST(FirstWaitWakeup, ASingleProducerPublishRacingTheFirstWaitWakesTheConsumer) {
  bool delivered = false;
  EXPECT_EQ(LostWakeups<SingleProducerBus>(Trials(), delivered), 0U);
  EXPECT_TRUE(delivered);
}

}  // namespace
