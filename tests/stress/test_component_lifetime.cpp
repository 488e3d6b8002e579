// SPDX-License-Identifier: MIT
// Stress test of the mccc::Component lifetime guarantee: a component destroyed on another
// thread while the consumer dispatches to it never has a callback run on freed (or
// half-destroyed) memory. Meant to run under -fsanitize=thread and -fsanitize=address,undefined.
//
// Threads:
// - two producers publish Tick and Reading messages without pause;
// - the consumer waits and dispatches;
// - a churn thread creates components, keeps a few alive at random, and destroys them: itself
//   (possibly while the consumer is inside one of their callbacks), or by handing the last
//   reference to the consumer, which drops it inside a callback (the destructor then runs on the
//   consumer thread, in the middle of a dispatch that may include the component's own callbacks).
// Every component callback touches member data (a heap-backed vector, a counter) and checks a
// canary the destructor overwrites; plain (non-atomic) members so that ThreadSanitizer reports
// any callback that is not ordered before the destructor.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "mccc/components/component.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Tick {
  uint64_t sequence;
};
struct Reading {
  uint32_t value;
};
using Payload = std::variant<Tick, Reading>;

// Short batches: subscription changes settle fast.
using StressTraits = mccc_test::WithCallbacks<mccc_test::Ring<4096U, 32U>, 128U>;
using Bus = mccc::AsyncBus<Payload, StressTraits>;
using Base = mccc::Component<Payload, StressTraits>;

constexpr int kComponentCycles = 4000;
constexpr std::size_t kLiveSlots = 4U;   // components the churn thread keeps alive at once
constexpr std::size_t kMaxHandoff = 8U;  // components waiting for the consumer to drop them
constexpr uint64_t kAlive = 0xA11CEA11CEA11CEULL;
constexpr uint64_t kDead = 0xDEADDEADDEADDEADULL;

thread_local bool t_is_consumer = false;

struct Counters {
  std::atomic<uint64_t> constructed{0U};
  std::atomic<uint64_t> destroyed{0U};
  std::atomic<uint64_t> destroyed_on_consumer{0U};
  std::atomic<uint64_t> callback_runs{0U};
  std::atomic<uint64_t> violations{0U};
};

class Victim : public Base {
 public:
  Victim(Bus& bus, Counters& counters) : Base(bus), counters_(counters) {
    history_.reserve(16U);
    counters_.constructed.fetch_add(1U);
  }

  ~Victim() override {
    dying_ = true;  // plain write: races with any late callback (TSan)
    magic_ = kDead;
    if (t_is_consumer) {
      counters_.destroyed_on_consumer.fetch_add(1U);
    }
    counters_.destroyed.fetch_add(1U);
    // history_ is freed when the members are destroyed (ASan: use after free for a late call).
  }

 protected:
  void OnInitialize() override {
    static_cast<void>(SubscribeSimple<Tick>([this](const Tick& tick) { Touch(tick.sequence); }));
    static_cast<void>(SubscribeSafe<Reading>(
        [](const std::shared_ptr<Victim>& self, const Reading& reading,
           const mccc::MessageHeader& header) { self->Touch(reading.value + header.msg_id); }));
    static_cast<void>(SubscribeSimple<Reading>([this](const Reading& reading) {
      Touch(reading.value);
      return true;
    }));
  }

 private:
  void Touch(uint64_t value) {
    if (dying_ || magic_ != kAlive) {
      counters_.violations.fetch_add(1U);
    }
    if (history_.size() == 16U) {
      history_.clear();
    }
    history_.push_back(value);
    sum_ += value;
    counters_.callback_runs.fetch_add(1U, std::memory_order_relaxed);
  }

  Counters& counters_;
  uint64_t magic_ = kAlive;
  bool dying_ = false;
  uint64_t sum_ = 0U;
  std::vector<uint64_t> history_;
};

// Components handed from the churn thread to the consumer, which drops them inside a callback.
class Handoff {
 public:
  bool Full() {
    std::lock_guard<std::mutex> guard(mutex_);
    return pending_.size() >= kMaxHandoff;
  }
  bool Empty() {
    std::lock_guard<std::mutex> guard(mutex_);
    return pending_.empty();
  }
  void Give(std::shared_ptr<Victim> victim) {
    std::lock_guard<std::mutex> guard(mutex_);
    pending_.push_back(std::move(victim));
  }
  // Consumer thread, inside a callback: drops the last references outside the lock.
  void DropAll() {
    std::vector<std::shared_ptr<Victim>> doomed;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      doomed.swap(pending_);
    }
    doomed.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<Victim>> pending_;
};

// Small deterministic generator for the churn pattern (no global state, no <random> seeding).
class XorShift {
 public:
  uint32_t Next() {
    state_ ^= state_ << 13U;
    state_ ^= state_ >> 7U;
    state_ ^= state_ << 17U;
    return static_cast<uint32_t>(state_ >> 32U);
  }

 private:
  uint64_t state_ = 0x9E3779B97F4A7C15ULL;
};

template <typename Predicate>
bool WaitFor(Predicate predicate, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::yield();
  }
  return true;
}

// G-16: components destroyed during dispatch: no call on a dead component (TSan, ASan)
TEST(ComponentLifetimeStress, DestroyWhileDispatchingNeverRunsACallbackOnADeadComponent) {
  auto bus = std::make_unique<Bus>();
  Counters counters;
  Handoff handoff;

  // Registered first, so it runs before the components' Tick callbacks of the same message: a
  // component dropped here is destroyed in the middle of that dispatch.
  const mccc::SubscriptionHandle dropper =
      bus->Subscribe<Tick>([&handoff](const Tick&) { handoff.DropAll(); });
  ASSERT_TRUE(dropper.IsValid());

  std::atomic<bool> stop_producers{false};
  std::atomic<bool> stop_consumer{false};
  std::atomic<uint64_t> published{0U};

  std::thread consumer([&] {
    t_is_consumer = true;
    while (!stop_consumer.load()) {
      if (bus->WaitForMessages(500U)) {
        static_cast<void>(bus->ProcessBatch());
      }
    }
    while (bus->ProcessBatch() > 0U) {
    }
  });

  std::vector<std::thread> producers;
  for (uint32_t id = 1U; id <= 2U; ++id) {
    producers.emplace_back([&, id] {
      uint64_t sequence = 0U;
      while (!stop_producers.load(std::memory_order_relaxed)) {
        const bool ok = (sequence % 2U == 0U)
                            ? bus->Publish(Tick{sequence}, id)
                            : bus->Publish(Reading{static_cast<uint32_t>(sequence)}, id);
        if (ok) {
          published.fetch_add(1U, std::memory_order_relaxed);
          ++sequence;
        } else {
          std::this_thread::yield();  // queue full: let the consumer catch up
        }
      }
    });
  }

  uint64_t initialized = 0U;
  uint64_t refused = 0U;
  uint64_t handed_off = 0U;
  {
    std::array<std::shared_ptr<Victim>, kLiveSlots> live;
    XorShift random;
    for (int cycle = 0; cycle < kComponentCycles; ++cycle) {
      auto victim = std::make_shared<Victim>(*bus, counters);
      // Refused only while the bus table is full of entries removed during the consumer's
      // current batch (not reclaimable yet); the consumer frees them as it moves on.
      while (!victim->InitializeComponent()) {
        ++refused;
        victim = std::make_shared<Victim>(*bus, counters);
        std::this_thread::yield();
      }
      ++initialized;
      const uint32_t choice = random.Next();
      if (choice % 4U == 0U && !handoff.Full()) {
        handoff.Give(std::move(victim));  // the consumer will destroy it
        ++handed_off;
        continue;
      }
      for (uint32_t spin = choice % 64U; spin > 0U; --spin) {  // let some messages reach it
        std::this_thread::yield();
      }
      // Replacing a slot destroys its previous occupant on this thread, unless the consumer is
      // inside one of its callbacks right now (it is then destroyed there when the call ends).
      live[(choice >> 8U) % kLiveSlots] = std::move(victim);
    }
  }  // the remaining live components are destroyed here, while the producers still run

  // Handed-off components need one more Tick each to be dropped; the producers still publish.
  // (No ASSERT before the threads are joined: leaving the test would abandon them.)
  const bool handoff_drained = WaitFor([&] { return handoff.Empty(); }, std::chrono::seconds(60));
  const bool all_destroyed =
      WaitFor([&] { return counters.destroyed.load() == counters.constructed.load(); },
              std::chrono::seconds(60));
  stop_producers.store(true);
  for (std::thread& producer : producers) {
    producer.join();
  }
  stop_consumer.store(true);
  bus->WakeConsumer();
  consumer.join();

  EXPECT_TRUE(handoff_drained);
  EXPECT_TRUE(all_destroyed);
  EXPECT_EQ(counters.violations.load(), 0U);
  EXPECT_EQ(counters.constructed.load(), initialized + refused);
  EXPECT_EQ(counters.destroyed.load(), counters.constructed.load());
  EXPECT_EQ(initialized, static_cast<uint64_t>(kComponentCycles));
  EXPECT_GE(counters.destroyed_on_consumer.load(), handed_off);
  EXPECT_GT(handed_off, 0U);
  EXPECT_GT(counters.callback_runs.load(), 0U);  // the test is not vacuous
  EXPECT_EQ(bus->GetStatistics().processing_errors, 0U);
  EXPECT_EQ(bus->QueueOccupancy(), 0U);
  EXPECT_EQ(bus->SubscriberCount<Tick>(), 1U);  // only `dropper`
  EXPECT_EQ(bus->SubscriberCount<Reading>(), 0U);
  EXPECT_TRUE(bus->Unsubscribe(dropper));
  EXPECT_EQ(bus->SubscriberCount<Tick>(), 0U);

  std::printf(
      "[ stress   ] components: %llu (%llu refused at init while the table was full), "
      "destroyed on the consumer: %llu, callback runs: %llu, messages: %llu\n",
      static_cast<unsigned long long>(initialized), static_cast<unsigned long long>(refused),
      static_cast<unsigned long long>(counters.destroyed_on_consumer.load()),
      static_cast<unsigned long long>(counters.callback_runs.load()),
      static_cast<unsigned long long>(published.load()));
}

}  // namespace
