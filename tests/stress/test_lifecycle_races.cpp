// SPDX-License-Identifier: MIT
// Races between the lifecycle operations of mccc::AsyncBus (include/mccc/bus/async_bus.hpp,
// include/mccc/dispatch/subscription_table.hpp, include/mccc/statistics/bus_statistics.hpp) and
// the traffic: Subscribe / Unsubscribe from other threads and from inside callbacks while
// producers publish and the consumer dispatches; ResetStatistics and SetPerformanceMode while
// producers publish.
//
// The guarantees checked are the documented ones (async_bus.hpp, Subscribe / Unsubscribe):
// - Unsubscribe on another thread: at most the invocation already under way; none for a message
//   published after Unsubscribe returned, and none for messages queued behind the one in flight;
// - Unsubscribe on the consumer thread (from a callback): never again, not even for the message
//   being dispatched;
// - a subscriber added from a callback sees every later message;
// - the callable's captures are destroyed once no invocation can be running (at the end of the
//   batch), never while it runs (ASan turns a violation into a report);
// - statistics are exact for a phase that starts with a reset after the churn stopped;
// - Subscribe is refused only at kMaxCallbacksPerType live subscribers;
// - WakeConsumer makes a consumer that is about to park notice a stop request.
//
// Knobs (environment): MCCC_STRESS_SCALE (default 1, 0.1 under TSan, 0.3 under ASan or without
// optimisation) and MCCC_STRESS_SECONDS (storm duration per test instead of a cycle count).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

#include "mccc/bus/async_bus.hpp"
#include "mccc/message.hpp"
#include "mccc/traits.hpp"

#include "stress_support.hpp"

namespace {

using mccc::BusError;
using mccc::BusStatisticsSnapshot;
using mccc::MessageHeader;
using mccc::MessagePriority;
using mccc::PerformanceMode;
using mccc::SubscriptionHandle;

// ----- knobs ----------------------------------------------------------------------------------

using mccc_stress::StressScale;
using mccc_stress::StressSeconds;

uint32_t Scaled(uint32_t base, uint32_t minimum) {
  const auto n = static_cast<uint32_t>(static_cast<double>(base) * StressScale());
  return n < minimum ? minimum : n;
}

// ----- messages and bus -----------------------------------------------------------------------

constexpr uint32_t kStormThreads = 2U;

/// Published by the storm producers. `unsubscribed[t]` is how many Unsubscribe calls storm
/// thread t had completed when the producer published this message.
struct Ping {
  uint32_t producer;
  uint32_t seq;
  std::array<uint32_t, kStormThreads> unsubscribed;
};
struct Pong {
  uint32_t producer;
  uint32_t seq;
  std::array<uint32_t, kStormThreads> unsubscribed;
};
/// Handed along a chain of subscribers that replace themselves from inside their callback.
struct Relay {
  uint32_t seq;
};
using Payload = std::variant<Ping, Pong, Relay>;

using LifecycleTraits = mccc_stress::StressTraits<256U, 8U>;
using Bus = mccc::AsyncBus<Payload, LifecycleTraits>;

template <typename F>
void SpinUntil(F&& done) {
  while (!done()) {
    std::this_thread::yield();
  }
}

/// Runs ProcessBatch on its own thread until Stop(); Stop drains the queue first.
class ConsumerThread {
 public:
  explicit ConsumerThread(Bus& bus) : bus_(bus), thread_([this] { Run(); }) {}
  ConsumerThread(const ConsumerThread&) = delete;
  ConsumerThread& operator=(const ConsumerThread&) = delete;
  ~ConsumerThread() { Stop(); }

  /// Call only after every producer has been joined: then everything claimed is published.
  void Stop() {
    if (thread_.joinable()) {
      stop_.store(true, std::memory_order_release);
      bus_.WakeConsumer();
      thread_.join();
    }
  }

 private:
  void Run() {
    for (;;) {
      if (bus_.ProcessBatch() != 0U) {
        continue;
      }
      if (stop_.load(std::memory_order_acquire)) {
        while (bus_.ProcessBatch() != 0U) {
        }
        return;
      }
      // Short timeout: a WakeConsumer that comes just before the park is lost (see the
      // WakeConsumerJustBeforeTheConsumerParksIsNotLost test), so Stop may wait for it.
      bus_.WaitForMessages(1000U);
    }
  }

  Bus& bus_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

template <typename Message>
void PublishUntilAdmitted(Bus& bus, const Message& message, uint32_t sender,
                          MessagePriority priority = MessagePriority::kHigh) {
  while (!bus.PublishWithPriority(message, sender, priority)) {
    std::this_thread::yield();
  }
}

// =============================================================================================
// Deterministic lifecycle cases
// =============================================================================================

// G-16: no call after Unsubscribe returned on the consumer; captures destroyed only when no
// call can run; Subscribe/Unsubscribe from callbacks without deadlock (the tests below)
TEST(LifecycleTest, UnsubscribeWhileIdleDestroysCapturesAtOnce) {
  auto bus = std::make_unique<Bus>();
  auto other_bus = std::make_unique<Bus>();
  auto token = std::make_shared<int>(1);
  int calls = 0;
  const SubscriptionHandle handle = bus->Subscribe<Ping>([token, &calls](const Ping&) { ++calls; });
  ASSERT_TRUE(handle.IsValid());
  EXPECT_EQ(token.use_count(), 2);
  EXPECT_FALSE(other_bus->Unsubscribe(handle)) << "a handle of another bus names nothing here";
  EXPECT_EQ(bus->SubscriberCount<Ping>(), 1U);

  EXPECT_TRUE(bus->Unsubscribe(handle));
  EXPECT_EQ(token.use_count(), 1) << "no batch was running: the capture can go at once";
  EXPECT_FALSE(bus->Unsubscribe(handle)) << "only the first Unsubscribe succeeds";
  EXPECT_EQ(bus->SubscriberCount<Ping>(), 0U);

  ASSERT_TRUE(bus->Publish(Ping{0U, 0U, {}}, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(calls, 0);
}

// The consumer is inside the callback for message 0 when another thread unsubscribes it.
// Messages 1 and 2 were queued before Unsubscribe, yet must not reach the callback; the capture
// must outlive the running invocation and be destroyed when the batch ends.
TEST(LifecycleTest, UnsubscribeFromAnotherThreadSkipsQueuedMessagesAndFreesCapturesAtBatchEnd) {
  auto bus = std::make_unique<Bus>();
  auto token = std::make_shared<int>(42);
  struct Shared {
    std::atomic<bool> entered{false};
    std::atomic<bool> release{false};
    std::atomic<int> calls{0};
    std::atomic<long> use_count_inside{0};
    std::atomic<int> value_inside{0};
  } shared;
  const SubscriptionHandle handle = bus->Subscribe<Ping>([token, &shared](const Ping&) {
    shared.calls.fetch_add(1);
    shared.entered.store(true);
    SpinUntil([&] { return shared.release.load(); });
    // Still our own capture: Unsubscribe has returned, but this invocation is running.
    shared.use_count_inside.store(token.use_count());
    shared.value_inside.store(*token);
  });
  ASSERT_TRUE(handle.IsValid());
  for (uint32_t i = 0U; i < 3U; ++i) {
    ASSERT_TRUE(bus->Publish(Ping{0U, i, {}}, 1U));
  }
  uint32_t processed = 0U;
  std::thread consumer([&] { processed = bus->ProcessBatch(); });
  SpinUntil([&] { return shared.entered.load(); });

  EXPECT_TRUE(bus->Unsubscribe(handle));
  EXPECT_EQ(token.use_count(), 2) << "the capture was destroyed while its callback runs";
  EXPECT_EQ(bus->SubscriberCount<Ping>(), 0U);
  shared.release.store(true);
  consumer.join();

  EXPECT_EQ(processed, 3U);
  EXPECT_EQ(shared.calls.load(), 1) << "invoked for a message queued behind the one in flight";
  EXPECT_EQ(shared.use_count_inside.load(), 2);
  EXPECT_EQ(shared.value_inside.load(), 42);
  EXPECT_EQ(token.use_count(), 1) << "captures must be destroyed at the end of the batch";

  ASSERT_TRUE(bus->Publish(Ping{0U, 3U, {}}, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(shared.calls.load(), 1);
}

TEST(LifecycleTest, CallbackUnsubscribingItselfIsNeverCalledAgainAndKeepsItsCapturesWhileRunning) {
  auto bus = std::make_unique<Bus>();
  auto token = std::make_shared<int>(5);
  struct State {
    Bus* bus;
    SubscriptionHandle handle;
    int calls;
    bool unsubscribed;
    long use_count_after_unsubscribe;
    int value_after_unsubscribe;
  } state{bus.get(), mccc::kInvalidSubscription, 0, false, 0, 0};
  state.handle = bus->Subscribe<Ping>([token, st = &state](const Ping&) {
    ++st->calls;
    st->unsubscribed = st->bus->Unsubscribe(st->handle);
    // The callable (and so `token`) must survive its own Unsubscribe until it returns.
    st->use_count_after_unsubscribe = token.use_count();
    st->value_after_unsubscribe = *token;
  });
  ASSERT_TRUE(state.handle.IsValid());
  for (uint32_t i = 0U; i < 4U; ++i) {
    ASSERT_TRUE(bus->Publish(Ping{0U, i, {}}, 1U));
  }
  EXPECT_EQ(bus->ProcessBatch(), 4U);
  EXPECT_EQ(state.calls, 1);
  EXPECT_TRUE(state.unsubscribed);
  EXPECT_EQ(state.use_count_after_unsubscribe, 2);
  EXPECT_EQ(state.value_after_unsubscribe, 5);
  EXPECT_EQ(token.use_count(), 1) << "captures must be destroyed when the batch ends";
  EXPECT_FALSE(bus->Unsubscribe(state.handle));
  EXPECT_EQ(bus->SubscriberCount<Ping>(), 0U);
}

// S1, S2, S4 subscribe to Ping in this order. During message 1, S1 removes S2 (dispatched after
// S1 in the same message) and adds S3; during message 2, S4 removes S1 (dispatched before S4).
TEST(LifecycleTest, CallbacksRemoveAndAddOtherSubscribersDuringDispatch) {
  auto bus = std::make_unique<Bus>();
  struct Cross {
    Bus* bus;
    SubscriptionHandle h1, h2, h3, h4;
    std::vector<uint32_t> seen1, seen2, seen3, seen4;
    bool removed2 = false;
    bool removed1 = false;
  } x{bus.get(),
      mccc::kInvalidSubscription,
      mccc::kInvalidSubscription,
      mccc::kInvalidSubscription,
      mccc::kInvalidSubscription,
      {},
      {},
      {},
      {}};
  auto t1 = std::make_shared<int>(1);
  auto t2 = std::make_shared<int>(2);
  auto t4 = std::make_shared<int>(4);
  x.h1 = bus->Subscribe<Ping>([t1, c = &x](const Ping& m) {
    c->seen1.push_back(m.seq);
    if (m.seq == 1U) {
      c->removed2 = c->bus->Unsubscribe(c->h2);
      c->h3 = c->bus->Subscribe<Ping>([c](const Ping& n) { c->seen3.push_back(n.seq); });
    }
  });
  x.h2 = bus->Subscribe<Ping>([t2, c = &x](const Ping& m) { c->seen2.push_back(m.seq); });
  x.h4 = bus->Subscribe<Ping>([t4, c = &x](const Ping& m) {
    c->seen4.push_back(m.seq);
    if (m.seq == 2U) {
      c->removed1 = c->bus->Unsubscribe(c->h1);
    }
  });
  ASSERT_TRUE(x.h1.IsValid() && x.h2.IsValid() && x.h4.IsValid());
  for (uint32_t i = 0U; i < 5U; ++i) {
    ASSERT_TRUE(bus->Publish(Ping{0U, i, {}}, 1U));
  }
  EXPECT_EQ(bus->ProcessBatch(), 5U);

  EXPECT_TRUE(x.removed2);
  EXPECT_TRUE(x.removed1);
  ASSERT_TRUE(x.h3.IsValid());
  EXPECT_EQ(x.seen1, (std::vector<uint32_t>{0U, 1U, 2U}));
  EXPECT_EQ(x.seen2, (std::vector<uint32_t>{0U})) << "removed from a callback: not even the "
                                                     "message being dispatched";
  EXPECT_EQ(x.seen4, (std::vector<uint32_t>{0U, 1U, 2U, 3U, 4U}));
  // S3 may or may not see message 1 (it was added while 1 was dispatched); it sees all later.
  std::vector<uint32_t> later3;
  for (const uint32_t s : x.seen3) {
    if (s >= 2U) {
      later3.push_back(s);
    }
  }
  EXPECT_EQ(later3, (std::vector<uint32_t>{2U, 3U, 4U}));
  ASSERT_FALSE(x.seen3.empty());
  EXPECT_GE(x.seen3.front(), 1U);
  EXPECT_EQ(t1.use_count(), 1) << "S1 removed: its captures go when the batch ends";
  EXPECT_EQ(t2.use_count(), 1) << "S2 removed: its captures go when the batch ends";
  EXPECT_EQ(t4.use_count(), 2);
  EXPECT_EQ(bus->SubscriberCount<Ping>(), 2U);  // S3 and S4
}

// Subscribe is refused only when T has kMaxCallbacksPerType live subscribers, or when every spare
// entry of the row holds a subscription removed during the consumer's current batch (those are
// freed when it ends). Here T has one live subscriber while the consumer sits inside a slow
// callback and another thread subscribes and unsubscribes: the row has 2 * kMaxCallbacksPerType
// entries, so exactly 2 * kMaxCallbacksPerType - 1 cycles succeed, the next one is refused, and
// after the batch everything works again.
TEST(LifecycleTest, SubscribeDuringALongBatchIsRefusedOnlyWhenSpareEntriesAreExhausted) {
  auto bus = std::make_unique<Bus>();
  std::atomic<bool> entered{false};
  std::atomic<bool> release{false};
  const SubscriptionHandle slow = bus->Subscribe<Ping>([&entered, &release](const Ping&) {
    entered.store(true);
    SpinUntil([&] { return release.load(); });
  });
  ASSERT_TRUE(slow.IsValid());
  ASSERT_TRUE(bus->Publish(Ping{0U, 0U, {}}, 1U));
  std::thread consumer([&] { bus->ProcessBatch(); });
  SpinUntil([&] { return entered.load(); });

  constexpr uint32_t kCycles = 2U * LifecycleTraits::kMaxCallbacksPerType - 1U;
  uint32_t refused = 0U;
  for (uint32_t i = 0U; i < kCycles; ++i) {
    const SubscriptionHandle h = bus->Subscribe<Ping>([](const Ping&) {});
    if (!h.IsValid()) {
      ++refused;
      continue;
    }
    EXPECT_TRUE(bus->Unsubscribe(h));
  }
  EXPECT_EQ(refused, 0U) << "Subscribe refused " << refused << " of " << kCycles
                         << " times although Ping never had more than 2 live subscribers";
  EXPECT_FALSE(bus->Subscribe<Ping>([](const Ping&) {}).IsValid())
      << "every entry is live or waiting for the batch to end: documented refusal";
  release.store(true);
  consumer.join();
  // Once the batch has ended the removed entries are reclaimed and Subscribe works again.
  const SubscriptionHandle after = bus->Subscribe<Ping>([](const Ping&) {});
  EXPECT_TRUE(after.IsValid());
  EXPECT_EQ(bus->SubscriberCount<Ping>(), 2U);
}

// WakeConsumer is documented as the way to make a parked consumer notice a stop request. A
// consumer loop reads its stop flag and then calls WaitForMessages; the stopping thread may set
// the flag and call WakeConsumer between those two steps. This plays that interleaving on one
// thread: the wake-up comes just before the consumer parks and must not be lost.
// G-19: a WakeConsumer just before the consumer parks is not lost
TEST(LifecycleTest, WakeConsumerJustBeforeTheConsumerParksIsNotLost) {
  auto bus = std::make_unique<Bus>();
  static_cast<void>(bus->WaitForMessages(1U));  // as in a running consumer loop: sleeping enabled
  // consumer: `while (!stop.load()) {` has just read false ...
  bus->WakeConsumer();  // ... stopping thread: `stop.store(true); bus.WakeConsumer();` ...
  const auto start = std::chrono::steady_clock::now();
  static_cast<void>(bus->WaitForMessages(2000000U));  // ... consumer: parks for up to 2 s
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_LT(waited, std::chrono::milliseconds(1000))
      << "the wake-up was lost: the consumer slept "
      << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()
      << " ms (the whole timeout) and would notice the stop request only then";
}

// =============================================================================================
// Subscribe / Unsubscribe storm while producers publish and the consumer dispatches
// =============================================================================================

/// State of the storm test. Fields without std::atomic are touched by the consumer thread only
/// (and read by the main thread after joining it).
struct Storm {
  std::array<std::atomic<uint32_t>, kStormThreads> unsubscribed{};
  uint64_t probe_calls = 0U;
  uint64_t late_probe_calls = 0U;  // a probe called for a message published after its removal
  std::array<std::array<uint32_t, 2>, 2> next_seq{};  // permanent subscriber: [type][producer]
  uint64_t order_violations = 0U;
  std::array<uint64_t, 2> permanent_calls{};
};

/// A storm thread's temporary subscriber: number `index` of storm thread `thread`.
struct Probe {
  std::shared_ptr<int> token;
  Storm* storm;
  uint32_t thread;
  uint32_t index;
  void Hit(const std::array<uint32_t, kStormThreads>& unsubscribed) const {
    ++storm->probe_calls;
    // The producer saw this probe's Unsubscribe completed before it published the message.
    if (unsubscribed[thread] > index) {
      ++storm->late_probe_calls;
    }
  }
  void operator()(const Ping& m) const { Hit(m.unsubscribed); }
  void operator()(const Pong& m) const { Hit(m.unsubscribed); }
};

/// The chain of Relay subscribers; consumer thread only once the first link is subscribed.
struct RelayChain {
  Bus* bus = nullptr;
  std::vector<SubscriptionHandle> handles;
  std::vector<uint32_t> first_seq;      // the first message link i must handle
  std::vector<uint32_t> handled_calls;  // calls of link i for messages >= first_seq[i]
  std::vector<uint32_t> handled_per_message;
  uint64_t early_call_violations = 0U;  // a call for a message before the one it was added in
  uint64_t unsubscribe_failures = 0U;
  uint64_t subscribe_failures = 0U;
};

struct RelayLink {
  RelayChain* chain;
  uint32_t index;
  void operator()(const Relay& m) const {
    RelayChain& c = *chain;
    if (m.seq < c.first_seq[index]) {
      // Added while message first_seq - 1 was being dispatched: it may see that one, no other.
      if (m.seq + 1U != c.first_seq[index]) {
        ++c.early_call_violations;
      }
      return;
    }
    ++c.handled_calls[index];
    if (m.seq < c.handled_per_message.size()) {
      ++c.handled_per_message[m.seq];
    }
    if (!c.bus->Unsubscribe(c.handles[index])) {
      ++c.unsubscribe_failures;
    }
    const auto next = static_cast<uint32_t>(c.handles.size());
    c.handles.push_back(mccc::kInvalidSubscription);
    c.first_seq.push_back(m.seq + 1U);
    c.handled_calls.push_back(0U);
    const SubscriptionHandle h = c.bus->Subscribe<Relay>(RelayLink{chain, next});
    if (!h.IsValid()) {
      ++c.subscribe_failures;
    }
    c.handles[next] = h;
  }
};

// G-16: Subscribe/Unsubscribe storm from threads and callbacks while publishing, dispatching
TEST(LifecycleStormTest, SubscribeUnsubscribeStormWhilePublishingAndDispatching) {
  auto bus = std::make_unique<Bus>();
  Storm storm;
  auto token = std::make_shared<int>(0);

  // Permanent subscribers: every Ping and Pong exactly once, in per-producer order.
  const auto permanent = [&storm](std::size_t type, uint32_t producer, uint32_t seq) {
    ++storm.permanent_calls[type];
    if (seq != storm.next_seq[type][producer]) {
      ++storm.order_violations;
    }
    storm.next_seq[type][producer] = seq + 1U;
  };
  ASSERT_TRUE(
      bus->Subscribe<Ping>([&permanent](const Ping& m) { permanent(0U, m.producer, m.seq); })
          .IsValid());
  ASSERT_TRUE(
      bus->Subscribe<Pong>([&permanent](const Pong& m) { permanent(1U, m.producer, m.seq); })
          .IsValid());

  // The relay chain: link 0 before anything is published.
  const uint32_t relay_messages = Scaled(20000U, 500U);
  RelayChain chain;
  chain.bus = bus.get();
  chain.handles.push_back(mccc::kInvalidSubscription);
  chain.first_seq.push_back(0U);
  chain.handled_calls.push_back(0U);
  chain.handled_per_message.assign(relay_messages, 0U);
  chain.handles[0] = bus->Subscribe<Relay>(RelayLink{&chain, 0U});
  ASSERT_TRUE(chain.handles[0].IsValid());

  const double seconds = StressSeconds();
  const uint32_t cycles = Scaled(10000U, 1000U);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(seconds));

  ConsumerThread consumer(*bus);
  std::atomic<uint32_t> storms_running{kStormThreads};
  std::array<uint64_t, kStormThreads> unsubscribe_failures{};
  std::array<uint64_t, kStormThreads> double_unsubscribe_successes{};
  std::array<uint64_t, kStormThreads> row_full{};
  std::vector<std::thread> threads;
  for (uint32_t t = 0U; t < kStormThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint32_t k = 0U;; ++k) {
        if (seconds > 0.0 ? std::chrono::steady_clock::now() >= deadline : k >= cycles) {
          break;
        }
        const Probe probe{token, &storm, t, k};
        SubscriptionHandle h = mccc::kInvalidSubscription;
        for (;;) {
          h = ((k + t) % 2U) == 0U ? bus->Subscribe<Ping>(probe) : bus->Subscribe<Pong>(probe);
          if (h.IsValid()) {
            break;
          }
          // Removed entries wait for the end of the consumer's batch (see the test above).
          ++row_full[t];
          std::this_thread::yield();
        }
        for (uint32_t y = 0U; y < (k % 4U); ++y) {
          std::this_thread::yield();  // let the probe see some traffic
        }
        if (!bus->Unsubscribe(h)) {
          ++unsubscribe_failures[t];
        }
        if (bus->Unsubscribe(h)) {
          ++double_unsubscribe_successes[t];
        }
        // release: a producer that reads k + 1 publishes after this Unsubscribe returned.
        storm.unsubscribed[t].store(k + 1U, std::memory_order_release);
      }
      storms_running.fetch_sub(1U);
    });
  }
  std::array<uint32_t, 2> published{};
  for (uint32_t p = 0U; p < 2U; ++p) {
    threads.emplace_back([&, p] {
      uint32_t seq = 0U;
      while (storms_running.load() != 0U) {
        std::array<uint32_t, kStormThreads> seen{};
        for (uint32_t t = 0U; t < kStormThreads; ++t) {
          seen[t] = storm.unsubscribed[t].load(std::memory_order_acquire);
        }
        if (p == 0U) {
          PublishUntilAdmitted(*bus, Ping{p, seq, seen}, 10U + p);
        } else {
          PublishUntilAdmitted(*bus, Pong{p, seq, seen}, 10U + p);
        }
        ++seq;
        if ((seq % 16U) == 0U) {
          std::this_thread::yield();  // leave the storm threads some CPU on small machines
        }
      }
      published[p] = seq;
    });
  }
  threads.emplace_back([&] {
    for (uint32_t seq = 0U; seq < relay_messages; ++seq) {
      PublishUntilAdmitted(*bus, Relay{seq}, 20U, MessagePriority::kMedium);
    }
  });
  for (std::thread& t : threads) {
    t.join();
  }
  consumer.Stop();

  for (uint32_t t = 0U; t < kStormThreads; ++t) {
    EXPECT_EQ(unsubscribe_failures[t], 0U) << "storm thread " << t;
    EXPECT_EQ(double_unsubscribe_successes[t], 0U) << "storm thread " << t;
  }
  EXPECT_EQ(storm.late_probe_calls, 0U)
      << "a callback ran for a message published after its Unsubscribe returned ("
      << storm.probe_calls << " probe calls in total)";
  EXPECT_EQ(storm.order_violations, 0U);
  EXPECT_EQ(storm.permanent_calls[0], published[0]);
  EXPECT_EQ(storm.permanent_calls[1], published[1]);
  EXPECT_EQ(bus->SubscriberCount<Ping>(), 1U);
  EXPECT_EQ(bus->SubscriberCount<Pong>(), 1U);

  // The relay: every message handled by exactly one link, every link handled exactly one message
  // (the last link is still waiting), links never see a message from before they were added.
  EXPECT_EQ(chain.subscribe_failures, 0U);
  EXPECT_EQ(chain.unsubscribe_failures, 0U);
  EXPECT_EQ(chain.early_call_violations, 0U);
  uint64_t wrong_handled = 0U;
  for (const uint32_t n : chain.handled_per_message) {
    wrong_handled += n == 1U ? 0U : 1U;
  }
  EXPECT_EQ(wrong_handled, 0U) << "relay messages not handled exactly once";
  ASSERT_EQ(chain.handles.size(), static_cast<std::size_t>(relay_messages) + 1U);
  uint64_t wrong_links = 0U;
  for (std::size_t i = 0U; i + 1U < chain.handled_calls.size(); ++i) {
    wrong_links += chain.handled_calls[i] == 1U ? 0U : 1U;
  }
  EXPECT_EQ(wrong_links, 0U);
  EXPECT_EQ(chain.handled_calls.back(), 0U);
  EXPECT_EQ(bus->SubscriberCount<Relay>(), 1U);

  // All probes are unsubscribed. Removals made during the last batches are reclaimed at the end
  // of the next batch: after one more batch no probe capture may be left.
  ASSERT_TRUE(bus->Publish(Ping{0U, published[0], {}}, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(token.use_count(), 1) << "probe captures leaked after Unsubscribe + a later batch";
  std::printf("[ info     ] %llu probe calls; Subscribe found the row full %llu times\n",
              static_cast<unsigned long long>(storm.probe_calls),
              static_cast<unsigned long long>(row_full[0] + row_full[1]));
}

// =============================================================================================
// ResetStatistics / SetPerformanceMode racing with publishers
// =============================================================================================

using mccc_stress::CountErrors;
using mccc_stress::g_queue_full_reports;

struct PhaseRecord {
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
};

/// Publishes `count` messages with mixed priorities; refusals are counted, not retried.
void PublishPhase(Bus& bus, uint32_t producer, uint32_t count, PhaseRecord& record) {
  for (uint32_t seq = 0U; seq < count; ++seq) {
    const auto priority = static_cast<MessagePriority>((seq + producer) % 3U);
    const auto index = static_cast<std::size_t>(priority);
    ++record.attempted[index];
    const bool admitted =
        (seq % 2U) == 0U ? bus.PublishWithPriority(Ping{producer, seq, {}}, producer, priority)
                         : bus.PublishWithPriority(Pong{producer, seq, {}}, producer, priority);
    if (admitted) {
      ++record.admitted[index];
    } else {
      std::this_thread::yield();
    }
  }
}

bool SnapshotWithin(const BusStatisticsSnapshot& s, uint64_t bound) {
  return s.messages_published <= bound && s.messages_dropped <= bound &&
         s.messages_processed <= bound && s.processing_errors <= bound &&
         s.low_priority_published <= bound && s.medium_priority_published <= bound &&
         s.high_priority_published <= bound && s.low_priority_dropped <= bound &&
         s.medium_priority_dropped <= bound && s.high_priority_dropped <= bound;
}

TEST(LifecycleStatisticsTest, CountersExactAfterResetFollowingModeAndResetChurn) {
  auto bus = std::make_unique<Bus>();
  bus->SetErrorCallback(&CountErrors);
  constexpr uint32_t kProducers = 4U;
  uint64_t delivered = 0U;  // consumer thread only (one consumer thread at a time)
  bool fail_some = true;    // phase 1: some callbacks report errors; phase 2: none
  const auto handler = [&](uint32_t seq) {
    ++delivered;
    if (fail_some && (seq % 7U) == 0U) {
      return false;
    }
    return true;
  };
  ASSERT_TRUE(bus->Subscribe<Ping>([&handler](const Ping& m) { return handler(m.seq); }).IsValid());
  ASSERT_TRUE(bus->Subscribe<Pong>([&handler](const Pong& m) { return handler(m.seq); }).IsValid());

  // ---- phase 1: churn ----
  const uint32_t churn_count = Scaled(40000U, 1000U);
  const uint64_t bound = static_cast<uint64_t>(churn_count) * kProducers;
  uint64_t snapshots_out_of_bounds = 0U;
  {
    ConsumerThread consumer(*bus);
    std::atomic<bool> producers_done{false};
    std::vector<PhaseRecord> records(kProducers);
    std::thread chaos([&] {
      constexpr std::array<PerformanceMode, 3> kModes = {
          PerformanceMode::kFullFeatured, PerformanceMode::kNoStats, PerformanceMode::kBareMetal};
      for (uint32_t i = 0U; !producers_done.load(); ++i) {
        bus->SetPerformanceMode(kModes[i % 3U]);
        if ((i % 2U) == 0U) {
          bus->ResetStatistics();
        }
        // A reset never makes a counter go "negative" (wrap around).
        if (!SnapshotWithin(bus->GetStatistics(), bound)) {
          ++snapshots_out_of_bounds;
        }
        std::this_thread::yield();
      }
    });
    std::vector<std::thread> producers;
    for (uint32_t p = 0U; p < kProducers; ++p) {
      producers.emplace_back([&, p] { PublishPhase(*bus, p, churn_count, records[p]); });
    }
    for (std::thread& t : producers) {
      t.join();
    }
    producers_done.store(true);
    chaos.join();
    consumer.Stop();
  }
  EXPECT_EQ(snapshots_out_of_bounds, 0U);
  EXPECT_TRUE(SnapshotWithin(bus->GetStatistics(), bound));
  EXPECT_EQ(bus->QueueOccupancy(), 0U);

  // ---- phase 2: fixed mode, reset once, then exact counts (new producer threads) ----
  bus->SetPerformanceMode(PerformanceMode::kFullFeatured);
  bus->ResetStatistics();
  g_queue_full_reports.store(0U);
  fail_some = false;
  delivered = 0U;
  const BusStatisticsSnapshot zero = bus->GetStatistics();
  EXPECT_EQ(zero.messages_published, 0U);
  EXPECT_EQ(zero.messages_dropped, 0U);
  EXPECT_EQ(zero.messages_processed, 0U);
  EXPECT_EQ(zero.processing_errors, 0U);

  const uint32_t exact_count = Scaled(20000U, 1000U);
  std::vector<PhaseRecord> records(kProducers);
  {
    ConsumerThread consumer(*bus);
    std::vector<std::thread> producers;
    for (uint32_t p = 0U; p < kProducers; ++p) {
      producers.emplace_back([&, p] { PublishPhase(*bus, p, exact_count, records[p]); });
    }
    for (std::thread& t : producers) {
      t.join();
    }
    consumer.Stop();
  }
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
  for (const PhaseRecord& r : records) {
    for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
      attempted[i] += r.attempted[i];
      admitted[i] += r.admitted[i];
    }
  }
  const BusStatisticsSnapshot s = bus->GetStatistics();
  mccc_stress::ExpectPerPriorityCounts(s, attempted, admitted);
  EXPECT_EQ(s.messages_published, admitted[0] + admitted[1] + admitted[2]);
  EXPECT_EQ(s.messages_dropped, g_queue_full_reports.load());
  EXPECT_EQ(s.messages_processed, delivered);
  EXPECT_EQ(s.messages_processed, s.messages_published);
  EXPECT_EQ(s.processing_errors, 0U);
}

}  // namespace
