// SPDX-License-Identifier: MIT
// G-38: stress test of mccc::Domain (include/mccc/fanout/domain.hpp): many producers publish once,
// every consumer on its own thread receives its copy.
//
// Matrix: consumers 1, 2, 4, 8 x producers 1, 2, 4, 8 x inline / loaned messages x HIGH ring
// on / off x producer lanes on / off (2 lanes per consumer, so with more producer threads some
// share the ring). Rings of 64 slots (HIGH: 16), so consumers refuse now and then, each on its
// own; loans come from one pool of 32 blocks shared by the consumers (a producer whose loan the
// pool refuses yields and asks again). Each producer publishes its messages cycling LOW, MEDIUM,
// HIGH and records, per message, which consumers admitted it (the FanOutResult). Exact checks,
// per consumer:
// - exactly the messages that consumer admitted arrive, each once (none it refused), and a
//   loaned one with the contents its producer wrote;
// - per producer and priority, in publish order;
// - its statistics: published and dropped per priority equal the admissions and refusals the
//   producers recorded for it; processed equals what arrived;
// and at the end every block is back in the pool.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "mccc/fanout/domain.hpp"
#include "stress/stress_support.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Tick {
  uint32_t producer;
  uint32_t seq;
};
/// A loaned message: its bytes are a function of (producer, seq), checked by every consumer.
struct Frame {
  uint32_t producer;
  uint32_t seq;
  std::array<uint32_t, 62> words;
};
using Payload = std::variant<Tick, mccc::Loaned<Frame>>;

uint32_t WordOf(uint32_t producer, uint32_t seq, std::size_t i) {
  return static_cast<uint32_t>(
      mccc_stress::Mix((uint64_t{producer} << 40U) ^ (uint64_t{seq} << 8U) ^ i));
}
bool Intact(const Frame& frame) {
  for (std::size_t i = 0U; i < frame.words.size(); ++i) {
    if (frame.words[i] != WordOf(frame.producer, frame.seq, i)) {
      return false;
    }
  }
  return true;
}

constexpr uint32_t kMaxProducers = 8U;

uint32_t MessagesPerProducer() {
  return static_cast<uint32_t>(3000.0 * mccc_stress::StressScale()) / 3U * 3U + 3U;
}

constexpr mccc::MessagePriority PriorityOf(uint32_t seq) noexcept {
  return static_cast<mccc::MessagePriority>(seq % 3U);
}

// Structs, not aliases: the configuration is named in the test names.
using FramePool = mccc::PoolOf<Frame, 32U>;
struct HighRing : mccc_test::WithLoans<mccc_test::Ring<64U, 8U, 16U>, FramePool> {};
struct NoHighRing : mccc_test::NoHighRing<HighRing> {};
struct HighRingLanes : mccc_test::WithLanes<HighRing, 2U, 64U> {};
struct NoHighRingLanes : mccc_test::WithLanes<NoHighRing, 2U, 64U> {};

template <class Traits, std::size_t>
using Same = Traits;
template <class Traits, class Sequence>
struct DomainOf;
template <class Traits, std::size_t... I>
struct DomainOf<Traits, std::index_sequence<I...>> {
  using Type = mccc::Domain<Payload, Same<Traits, I>...>;
};

/// What one consumer saw (written only by its own thread): per producer, seqs in arrival order.
struct Arrivals {
  std::array<std::vector<uint32_t>, kMaxProducers> seqs;
  uint32_t damaged = 0U;  // loaned frames whose contents were not what their producer wrote
};

template <class Bus>
void Record(Bus& bus, Arrivals& seen) {
  bus.template Subscribe<Tick>(
      [&seen](const Tick& tick) { seen.seqs[tick.producer].push_back(tick.seq); });
  bus.template Subscribe<Frame>([&seen](const Frame& frame) {
    seen.seqs[frame.producer].push_back(frame.seq);
    seen.damaged += Intact(frame) ? 0U : 1U;
  });
}

template <class Domain, std::size_t... I>
void SubscribeAll(Domain& domain, std::vector<Arrivals>& arrivals,
                  std::index_sequence<I...> /*consumers*/) {
  static_cast<void>(((Record(domain.template Consumer<I>(), arrivals[I])), ...));
}

/// One message of producer p: a Tick copied to each consumer, or a Frame loaned once (asked
/// again, after a yield, while the pool refuses).
template <bool kLoaned, class Domain>
mccc::FanOutResult PublishOne(Domain& domain, uint32_t p, uint32_t seq) {
  const mccc::MessagePriority priority = PriorityOf(seq);
  if constexpr (kLoaned) {
    mccc::MessageLoan<Frame> loan = domain.template Loan<Frame>(priority);
    while (!loan) {
      std::this_thread::yield();
      loan = domain.template Loan<Frame>(priority);
    }
    loan->producer = p;
    loan->seq = seq;
    for (std::size_t i = 0U; i < loan->words.size(); ++i) {
      loan->words[i] = WordOf(p, seq, i);
    }
    return domain.Publish(std::move(loan), p);  // refused by all: the loan returns its block
  } else {
    return domain.PublishWithPriority(Tick{p, seq}, p, priority);
  }
}

/// One thread per consumer, each running ConsumeUntilProducersDone on its own bus.
template <class Domain, std::size_t... I>
void StartConsumers(Domain& domain, std::array<std::thread, sizeof...(I)>& threads,
                    const std::atomic<bool>& producers_done,
                    std::index_sequence<I...> /*consumers*/) {
  static_cast<void>(((threads[I] = std::thread([&domain, &producers_done] {
                        auto& bus = domain.template Consumer<I>();
                        mccc_stress::ConsumeUntilProducersDone(
                            bus, [&bus] { return bus.ProcessBatch(); }, producers_done);
                      })),
                     ...));
}

template <class Domain, std::size_t... I>
void WakeAll(Domain& domain, std::index_sequence<I...> /*consumers*/) {
  static_cast<void>(((domain.template Consumer<I>().WakeConsumer()), ...));
}

template <class Domain, std::size_t... I>
std::vector<mccc::BusStatisticsSnapshot> StatisticsOf(Domain& domain,
                                                      std::index_sequence<I...> /*consumers*/) {
  return {domain.template Consumer<I>().GetStatistics()...};
}

template <std::size_t kConsumers, class Traits, bool kLoaned>
void RunCase(uint32_t producers) {
  using Domain = typename DomainOf<Traits, std::make_index_sequence<kConsumers>>::Type;
  constexpr auto kEach = std::make_index_sequence<kConsumers>{};
  SCOPED_TRACE(::testing::Message() << kConsumers << " consumers, " << producers << " producers"
                                    << (kLoaned ? ", loaned" : ", inline"));
  const uint32_t messages = MessagesPerProducer();
  auto domain = std::make_unique<Domain>();
  std::vector<Arrivals> arrivals(kConsumers);
  // Per producer, per message: the consumers that admitted it (written by that producer only).
  std::vector<std::vector<mccc::ConsumerMask>> admitted(producers,
                                                        std::vector<mccc::ConsumerMask>(messages));
  SubscribeAll(*domain, arrivals, kEach);
  ASSERT_EQ(domain->template SubscribersOf<Tick>(), Domain::kAllConsumers);

  std::atomic<bool> go{false};
  std::atomic<bool> producers_done{false};
  std::array<std::thread, kConsumers> consumers;
  StartConsumers(*domain, consumers, producers_done, kEach);
  std::vector<std::thread> threads;
  threads.reserve(producers);
  for (uint32_t p = 0U; p < producers; ++p) {
    threads.emplace_back([&, p] {
      // acquire: pairs with the release store of `go` below.
      while (!go.load(std::memory_order_acquire)) {
        std::this_thread::yield();
      }
      for (uint32_t seq = 0U; seq < messages; ++seq) {
        const mccc::FanOutResult result = PublishOne<kLoaned>(*domain, p, seq);
        EXPECT_EQ(result.subscribed, Domain::kAllConsumers);
        admitted[p][seq] = result.admitted;
        if ((seq & 63U) == 63U) {
          std::this_thread::yield();  // let the consumers run on two cores
        }
      }
    });
  }
  // release: pairs with the producers' acquire loads of `go`.
  go.store(true, std::memory_order_release);
  for (std::thread& t : threads) {
    t.join();
  }
  // release: pairs with each consumer's acquire load; every claimed slot is written by now.
  producers_done.store(true, std::memory_order_release);
  WakeAll(*domain, kEach);
  for (std::thread& t : consumers) {
    t.join();
  }

  const std::vector<mccc::BusStatisticsSnapshot> stats = StatisticsOf(*domain, kEach);
  for (std::size_t c = 0U; c < kConsumers; ++c) {
    SCOPED_TRACE(::testing::Message() << "consumer " << c);
    std::array<uint64_t, mccc::kPriorityCount> attempted{};
    std::array<uint64_t, mccc::kPriorityCount> admitted_here{};
    uint64_t arrived = 0U;
    for (uint32_t p = 0U; p < producers; ++p) {
      // Exactly the admitted messages, each once, in publish order per priority: the arrivals
      // of each priority, in order, equal the admitted seqs of that priority.
      std::array<std::vector<uint32_t>, mccc::kPriorityCount> expected;
      for (uint32_t seq = 0U; seq < messages; ++seq) {
        const auto priority = static_cast<std::size_t>(PriorityOf(seq));
        ++attempted[priority];
        if (((admitted[p][seq] >> c) & 1U) != 0U) {
          ++admitted_here[priority];
          expected[priority].push_back(seq);
        }
      }
      std::array<std::vector<uint32_t>, mccc::kPriorityCount> actual;
      for (const uint32_t seq : arrivals[c].seqs[p]) {
        actual[static_cast<std::size_t>(PriorityOf(seq))].push_back(seq);
      }
      arrived += arrivals[c].seqs[p].size();
      for (std::size_t priority = 0U; priority < mccc::kPriorityCount; ++priority) {
        EXPECT_EQ(actual[priority], expected[priority])
            << "producer " << p << ", priority " << priority;
      }
    }
    mccc_stress::ExpectPerPriorityCounts(stats[c], attempted, admitted_here);
    EXPECT_EQ(stats[c].messages_processed, arrived);
    EXPECT_EQ(arrivals[c].damaged, 0U);
  }
  EXPECT_EQ(domain->template GetLoanStatistics<Frame>().in_use, 0U);  // every block is back
}

template <class Traits>
class FanOutExactlyOnce : public ::testing::Test {};
using Configurations = ::testing::Types<HighRing, NoHighRing, HighRingLanes, NoHighRingLanes>;
TYPED_TEST_SUITE(FanOutExactlyOnce, Configurations);

template <std::size_t kConsumers, class Traits, bool kLoaned>
void RunProducerCounts() {
  for (const uint32_t producers : {1U, 2U, 4U, 8U}) {
    RunCase<kConsumers, Traits, kLoaned>(producers);
  }
}

TYPED_TEST(FanOutExactlyOnce, OneConsumer) {
  RunProducerCounts<1U, TypeParam, false>();
}
TYPED_TEST(FanOutExactlyOnce, TwoConsumers) {
  RunProducerCounts<2U, TypeParam, false>();
}
TYPED_TEST(FanOutExactlyOnce, FourConsumers) {
  RunProducerCounts<4U, TypeParam, false>();
}
TYPED_TEST(FanOutExactlyOnce, EightConsumers) {
  RunProducerCounts<8U, TypeParam, false>();
}
TYPED_TEST(FanOutExactlyOnce, OneConsumerLoaned) {
  RunProducerCounts<1U, TypeParam, true>();
}
TYPED_TEST(FanOutExactlyOnce, TwoConsumersLoaned) {
  RunProducerCounts<2U, TypeParam, true>();
}
TYPED_TEST(FanOutExactlyOnce, FourConsumersLoaned) {
  RunProducerCounts<4U, TypeParam, true>();
}
TYPED_TEST(FanOutExactlyOnce, EightConsumersLoaned) {
  RunProducerCounts<8U, TypeParam, true>();
}

}  // namespace
