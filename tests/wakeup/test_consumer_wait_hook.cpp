// SPDX-License-Identifier: MIT
// A user ConsumerWait hook (wakeup/consumer_parking.hpp): the consumer sleeps in the hook's Wait
// and the producer that finds it asleep calls Notify, with the same handshake as the kernel
// wait, so no wake-up is lost. The hook here is a binary semaphore on a condition variable and
// counts how each Wait ended: with a long timeout, every Wait must end by a Notify (or find the
// semaphore already given), never by its timeout.
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
#include "support/bus_configs.hpp"

namespace {

struct Tick {
  uint32_t seq;
};
using Payload = std::variant<Tick>;

/// A binary semaphore: Notify gives (latches), Wait takes or times out.
struct SemaphoreWait {
  static inline std::mutex mutex;
  static inline std::condition_variable cv;
  static inline bool given = false;
  static inline std::atomic<uint32_t> waits{0U};
  static inline std::atomic<uint32_t> timeouts{0U};
  static inline std::atomic<uint32_t> notifies{0U};

  static void Wait(uint32_t timeout_us) noexcept {
    waits.fetch_add(1U);
    std::unique_lock<std::mutex> lock(mutex);
    if (!cv.wait_for(lock, std::chrono::microseconds(timeout_us), [] { return given; })) {
      timeouts.fetch_add(1U);
    }
    given = false;
  }
  static void Notify() noexcept {
    notifies.fetch_add(1U);
    {
      std::lock_guard<std::mutex> lock(mutex);
      given = true;
    }
    cv.notify_one();
  }
};

using HookTraits = mccc_test::WithConsumerWait<mccc_test::Ring<1024U>, SemaphoreWait>;
using HookSingleProducerTraits = mccc_test::SingleProducer<HookTraits>;

template <typename Traits>
void RunPingPong() {
  using Bus = mccc::AsyncBus<Payload, Traits>;
  auto bus = std::make_unique<Bus>();
  SemaphoreWait::waits = 0U;
  SemaphoreWait::timeouts = 0U;
  SemaphoreWait::notifies = 0U;
  SemaphoreWait::given = false;
  constexpr uint32_t kMessages = 2000U;
  std::atomic<uint32_t> delivered{0U};
  uint32_t next = 0U;
  uint32_t order_errors = 0U;
  const auto handle = bus->template Subscribe<Tick>([&](const Tick& tick) {
    order_errors += tick.seq == next ? 0U : 1U;
    next = tick.seq + 1U;
    delivered.fetch_add(1U, std::memory_order_release);
  });
  std::thread consumer([&] {
    while (delivered.load(std::memory_order_acquire) < kMessages) {
      // 20 s: far beyond any wake-up; a lost Notify shows up as a timeout, not as a slow test.
      if (bus->WaitForMessages(20000000U)) {
        bus->ProcessBatch();
      }
    }
  });
  for (uint32_t i = 0U; i < kMessages; ++i) {
    // Wait until the consumer took the previous message, so that it goes back to sleep and the
    // next publish has to wake it through the hook.
    while (delivered.load(std::memory_order_acquire) < i) {
      std::this_thread::yield();
    }
    ASSERT_TRUE(bus->Publish(Tick{i}, 1U));
  }
  consumer.join();
  EXPECT_EQ(delivered.load(), kMessages);
  EXPECT_EQ(order_errors, 0U);
  EXPECT_GT(SemaphoreWait::waits.load(), 0U) << "the consumer never slept in the hook";
  EXPECT_GT(SemaphoreWait::notifies.load(), 0U);
  EXPECT_EQ(SemaphoreWait::timeouts.load(), 0U) << "a wake-up was lost";
  EXPECT_TRUE(bus->Unsubscribe(handle));
}

// G-36: a consumer sleeping in a user ConsumerWait hook loses no wake-up (the tests below)
TEST(ConsumerWaitHook, MultiProducerBusLosesNoWakeUp) {
  RunPingPong<HookTraits>();
}

TEST(ConsumerWaitHook, SingleProducerBusLosesNoWakeUp) {
  RunPingPong<HookSingleProducerTraits>();
}

TEST(ConsumerWaitHook, WakeConsumerReachesTheHook) {
  using Bus = mccc::AsyncBus<Payload, HookTraits>;
  auto bus = std::make_unique<Bus>();
  SemaphoreWait::timeouts = 0U;
  SemaphoreWait::given = false;
  std::atomic<bool> returned{false};
  std::thread consumer([&] {
    EXPECT_FALSE(bus->WaitForMessages(20000000U));
    returned.store(true);
  });
  // Whether the request comes before or after the consumer sleeps, it is not lost.
  bus->WakeConsumer();
  consumer.join();
  EXPECT_TRUE(returned.load());
  EXPECT_EQ(SemaphoreWait::timeouts.load(), 0U);
}

static_assert(!mccc::detail::ConsumerParking<mccc::NoConsumerWait>::kCanSleep,
              "NoConsumerWait never sleeps");

using NeverSleepTraits = mccc_test::WithConsumerWait<mccc_test::SmallRing, mccc::NoConsumerWait>;

TEST(ConsumerWaitHook, NoConsumerWaitReturnsAtOnce) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, NeverSleepTraits>>();
  // A sleep would last the whole hour (and the test would time out): it must return at once.
  EXPECT_FALSE(bus->WaitForMessages(3600U * 1000000U));
  ASSERT_TRUE(bus->Publish(Tick{1U}, 1U));
  EXPECT_TRUE(bus->WaitForMessages(3600U * 1000000U));
}

}  // namespace
