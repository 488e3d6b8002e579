// SPDX-License-Identifier: MIT
// G-38: freedom from interference between the consumers of a mccc::Domain: one consumer blocked
// inside a callback changes neither another consumer's deliveries nor its admissions.
//
// Consumer 2 blocks in its first callback for at least 100 ms, and until consumers 0 and 1 have
// received every message the producers publish meanwhile (with a 10 s limit, so that a failure
// of isolation fails the test instead of hanging it). Outcomes, exact:
// - consumers 0 and 1 receive every message, once, in order per producer, with no refusal:
//   exactly what they receive when consumer 2 is not subscribed at all (the same run without it);
// - consumer 2 refuses once its ring is full: its statistics and the domain's error callback
//   count exactly the refusals the producers' FanOutResults name, and it receives exactly the
//   messages it admitted.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

#include "mccc/components/active_object.hpp"
#include "mccc/fanout/domain.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Frame {
  uint32_t producer;
  uint32_t seq;
};
using Payload = std::variant<Frame>;

struct Fast : mccc_test::Ring<8192U, 64U> {};
struct Blocked : mccc_test::Ring<64U, 8U> {};
using Domain = mccc::Domain<Payload, Fast, Fast, Blocked>;

constexpr uint32_t kProducers = 2U;
constexpr uint32_t kMessages = 2000U;  // per producer; consumers 0 and 1 hold them all

std::atomic<uint64_t> g_refusals_reported[3];

void CountReport(uint32_t consumer, mccc::BusError error, uint64_t /*msg_id*/) {
  if (error == mccc::BusError::kQueueFull && consumer < 3U) {
    // relaxed: read after the producers are joined.
    g_refusals_reported[consumer].fetch_add(1U, std::memory_order_relaxed);
  }
}

struct Outcome {
  std::array<std::vector<Frame>, 3> received;  // each written by its consumer's thread only
  std::array<uint64_t, 3> refused_by_results{};
  std::array<mccc::BusStatisticsSnapshot, 3> stats{};
  std::vector<std::vector<mccc::ConsumerMask>> admitted;
};

Outcome RunDomain(bool with_blocked_consumer) {
  for (auto& count : g_refusals_reported) {
    count.store(0U);
  }
  auto domain = std::make_unique<Domain>();
  domain->SetErrorCallback(&CountReport);
  Outcome outcome;
  outcome.admitted.assign(kProducers, std::vector<mccc::ConsumerMask>(kMessages));
  std::atomic<uint32_t> fast_received{0U};
  std::atomic<bool> blocked_inside{false};
  const uint32_t total = kProducers * kMessages;

  domain->Consumer<0>().Subscribe<Frame>([&](const Frame& f) {
    outcome.received[0].push_back(f);
    fast_received.fetch_add(1U, std::memory_order_release);  // pairs with the blocked wait
  });
  domain->Consumer<1>().Subscribe<Frame>([&](const Frame& f) {
    outcome.received[1].push_back(f);
    fast_received.fetch_add(1U, std::memory_order_release);  // pairs with the blocked wait
  });
  if (with_blocked_consumer) {
    domain->Consumer<2>().Subscribe<Frame>([&](const Frame& f) {
      outcome.received[2].push_back(f);
      if (outcome.received[2].size() == 1U) {
        // release: pairs with the producers' acquire wait; they start once this consumer is stuck.
        blocked_inside.store(true, std::memory_order_release);
        const auto start = std::chrono::steady_clock::now();
        const auto elapsed = [start] { return std::chrono::steady_clock::now() - start; };
        // acquire: pairs with the fast consumers' release increments. Each of them receives
        // the producers' messages and this first one.
        while (elapsed() < std::chrono::milliseconds(100) ||
               (fast_received.load(std::memory_order_acquire) < 2U * (total + 1U) &&
                elapsed() < std::chrono::seconds(10))) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      }
    });
  }

  mccc::ActiveObject<Domain::ConsumerBus<0>> consumer0(domain->Consumer<0>());
  mccc::ActiveObject<Domain::ConsumerBus<1>> consumer1(domain->Consumer<1>());
  mccc::ActiveObject<Domain::ConsumerBus<2>> consumer2(domain->Consumer<2>());
  EXPECT_TRUE(consumer0.Start().Ok());
  EXPECT_TRUE(consumer1.Start().Ok());
  EXPECT_TRUE(consumer2.Start().Ok());
  if (with_blocked_consumer) {
    // The first message, for every consumer: consumer 2 blocks on it.
    domain->Publish(Frame{kProducers, 0U}, 0U);
    // acquire: pairs with the release store in consumer 2's callback.
    while (!blocked_inside.load(std::memory_order_acquire)) {
      std::this_thread::yield();
    }
  }
  std::vector<std::thread> producers;
  producers.reserve(kProducers);
  for (uint32_t p = 0U; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (uint32_t seq = 0U; seq < kMessages; ++seq) {
        outcome.admitted[p][seq] = domain->Publish(Frame{p, seq}, p).admitted;
      }
    });
  }
  for (std::thread& t : producers) {
    t.join();
  }
  consumer0.Stop();
  consumer1.Stop();
  consumer2.Stop();
  for (uint32_t p = 0U; p < kProducers; ++p) {
    for (uint32_t seq = 0U; seq < kMessages; ++seq) {
      for (std::size_t c = 0U; c < 3U; ++c) {
        const bool subscribed = c < 2U || with_blocked_consumer;
        outcome.refused_by_results[c] +=
            subscribed && ((outcome.admitted[p][seq] >> c) & 1U) == 0U ? 1U : 0U;
      }
    }
  }
  outcome.stats = {domain->Consumer<0>().GetStatistics(), domain->Consumer<1>().GetStatistics(),
                   domain->Consumer<2>().GetStatistics()};
  if (with_blocked_consumer) {
    // The first (blocking) message went to all three; the comparison below is of the rest.
    for (auto& received : outcome.received) {
      if (!received.empty() && received.front().producer == kProducers) {
        received.erase(received.begin());
      }
    }
  }
  return outcome;
}

/// The frames of `received` from producer p, as seqs in arrival order.
std::vector<uint32_t> SeqsOf(const std::vector<Frame>& received, uint32_t p) {
  std::vector<uint32_t> seqs;
  for (const Frame& f : received) {
    if (f.producer == p) {
      seqs.push_back(f.seq);
    }
  }
  return seqs;
}

TEST(FanOutIsolation, ABlockedConsumerChangesNothingForTheOthers) {
  const Outcome alone = RunDomain(/*with_blocked_consumer=*/false);
  const Outcome blocked = RunDomain(/*with_blocked_consumer=*/true);

  std::vector<uint32_t> all(kMessages);
  for (uint32_t seq = 0U; seq < kMessages; ++seq) {
    all[seq] = seq;
  }
  for (std::size_t c = 0U; c < 2U; ++c) {
    SCOPED_TRACE(::testing::Message() << "consumer " << c);
    EXPECT_EQ(blocked.received[c].size(), alone.received[c].size());
    for (uint32_t p = 0U; p < kProducers; ++p) {
      EXPECT_EQ(SeqsOf(alone.received[c], p), all);
      EXPECT_EQ(SeqsOf(blocked.received[c], p), all);
    }
    EXPECT_EQ(alone.refused_by_results[c], 0U);
    EXPECT_EQ(blocked.refused_by_results[c], 0U);
    EXPECT_EQ(blocked.stats[c].messages_dropped, 0U);
    EXPECT_EQ(g_refusals_reported[c].load(), 0U);
  }

  // The blocked consumer: its refusals, exactly, and exactly the messages it admitted.
  EXPECT_GT(blocked.refused_by_results[2], 0U);  // its 64-slot ring filled while it was stuck
  EXPECT_EQ(blocked.stats[2].messages_dropped, blocked.refused_by_results[2]);
  EXPECT_EQ(g_refusals_reported[2].load(), blocked.refused_by_results[2]);
  for (uint32_t p = 0U; p < kProducers; ++p) {
    std::vector<uint32_t> admitted;
    for (uint32_t seq = 0U; seq < kMessages; ++seq) {
      if (((blocked.admitted[p][seq] >> 2U) & 1U) != 0U) {
        admitted.push_back(seq);
      }
    }
    EXPECT_EQ(SeqsOf(blocked.received[2], p), admitted);
  }
}

}  // namespace
