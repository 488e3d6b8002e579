// SPDX-License-Identifier: MIT
// Shared harness of the exactly-once stress tests (test_exactly_once.cpp: MPSC buses;
// test_exactly_once_single_producer.cpp: the MCCC_SINGLE_PRODUCER=1 build). Each test file
// includes it once, after choosing its MCCC_* macros, and defines its bus types and scenarios.
//
// Every producer numbers its messages (producer id, sequence) and fills the payload with words
// derived from that pair plus a checksum. The consumer checks, for every delivered message:
// - exactly once: per producer and priority class the delivered sequences are strictly
//   increasing (no duplicate), and their count and order-dependent hash equal the producer's
//   record of admitted sequences of that class (no loss, no phantom). When producers retry until
//   admitted they are exactly 0..N-1;
// - per-producer FIFO order within a priority class: one class on a bus without a HIGH ring;
//   with a HIGH ring (kHighQueueDepth > 0) HIGH is a class of its own, because a HIGH message
//   overtakes its producer's earlier LOW/MEDIUM ones (that is its purpose);
// - an intact payload, the header the producer asked for (sender id, priority, PublishFast
//   timestamp, alternative);
// - msg_id = 1, 2, 3, ... in delivery order;
// - kFullFeatured: per priority, admitted + refused == attempted, equal to GetStatistics();
//   messages_processed == delivered; per producer lane (kProducerLanes > 0; each producer
//   thread records the lane its identity selects) GetLaneStatistics(lane) equals the sum of
//   the records of that lane's producers, and the shared ring's (index LaneCount()) those of the
//   producers without a lane. kNoStats / kBareMetal count nothing;
// - the error callback saw one kQueueFull per refusal (none in kBareMetal);
// - a refused rvalue is left untouched (not moved from).
//
// Knobs (environment):
//   MCCC_STRESS_SCALE=<x>    multiplies the message counts (default 1; 0.1 under TSan, 0.3 under
//                            ASan or without optimisation).
//   MCCC_STRESS_SECONDS=<s>  long run: every producer publishes for <s> seconds per test case
//                            instead of a fixed count (all checks stay exact).
// At the end of a run the binary prints one "[ summary  ]" line: cases run and messages verified.
#ifndef MCCC_TESTS_STRESS_EXACTLY_ONCE_HARNESS_HPP_
#define MCCC_TESTS_STRESS_EXACTLY_ONCE_HARNESS_HPP_

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "mccc/bus/async_bus.hpp"
#include "mccc/message.hpp"
#include "mccc/statistics/thread_shard.hpp"
#include "mccc/traits.hpp"

#include "stress_support.hpp"

namespace mccc_stress {

using mccc::BusError;
using mccc::BusStatisticsSnapshot;
using mccc::MessageHeader;
using mccc::MessagePriority;
using mccc::PerformanceMode;

// ----- knobs ----------------------------------------------------------------------------------

inline uint64_t Scaled(uint64_t base, uint64_t minimum) {
  const auto n = static_cast<uint64_t>(static_cast<double>(base) * StressScale());
  return n < minimum ? minimum : n;
}

// ----- message contents -----------------------------------------------------------------------

constexpr uint64_t Key(uint32_t producer, uint32_t seq) noexcept {
  return (static_cast<uint64_t>(producer) << 32U) | seq;
}

constexpr uint64_t Word(uint32_t producer, uint32_t seq, uint64_t i) noexcept {
  return Mix(Key(producer, seq) * 8U + i);
}

/// Order-dependent running hash over a sequence of sequence numbers.
constexpr uint64_t HashStep(uint64_t hash, uint32_t seq) noexcept {
  return Mix(hash ^ (static_cast<uint64_t>(seq) + 1U));
}

constexpr std::size_t kWideWords = 6U;

/// Alternative 0: 64 payload bytes.
struct Wide {
  Wide() noexcept = default;
  Wide(uint32_t p, uint32_t s) noexcept : producer(p), seq(s) {
    uint64_t sum = 0U;
    for (std::size_t i = 0U; i < kWideWords; ++i) {
      words[i] = Word(p, s, i);
      sum = Mix(sum ^ words[i]);
    }
    checksum = sum;
  }
  bool Intact() const noexcept {
    uint64_t sum = 0U;
    for (std::size_t i = 0U; i < kWideWords; ++i) {
      if (words[i] != Word(producer, seq, i)) {
        return false;
      }
      sum = Mix(sum ^ words[i]);
    }
    return sum == checksum;
  }
  uint32_t producer = 0U;
  uint32_t seq = 0U;
  std::array<uint64_t, kWideWords> words{};
  uint64_t checksum = 0U;
};

/// Alternative 1: one payload word.
struct Narrow {
  Narrow() noexcept = default;
  Narrow(uint32_t p, uint32_t s) noexcept
      : producer(p), seq(s), word(Word(p, s, 0U)), checksum(Mix(~Word(p, s, 0U))) {}
  bool Intact() const noexcept { return word == Word(producer, seq, 0U) && checksum == Mix(~word); }
  uint32_t producer = 0U;
  uint32_t seq = 0U;
  uint64_t word = 0U;
  uint64_t checksum = 0U;
};

/// Alternative 2: a move marks its source, so a refused publish can be shown not to move.
struct Tracked {
  Tracked() noexcept = default;
  Tracked(uint32_t p, uint32_t s) noexcept
      : producer(p), seq(s), word(Word(p, s, 1U)), checksum(Mix(word ^ 0x5555U)) {}
  Tracked(const Tracked&) noexcept = default;
  Tracked(Tracked&& other) noexcept
      : producer(other.producer), seq(other.seq), word(other.word), checksum(other.checksum) {
    other.moved_from = true;
  }
  Tracked& operator=(const Tracked&) noexcept = default;
  Tracked& operator=(Tracked&&) noexcept = default;
  ~Tracked() = default;
  bool Intact() const noexcept {
    return !moved_from && word == Word(producer, seq, 1U) && checksum == Mix(word ^ 0x5555U);
  }
  uint32_t producer = 0U;
  uint32_t seq = 0U;
  uint64_t word = 0U;
  uint64_t checksum = 0U;
  bool moved_from = false;
};

using Payload = std::variant<Wide, Narrow, Tracked>;

/// What (producer, seq) is published as: alternative, priority and publish function are all a
/// function of the pair, so the consumer can recompute them.
struct Plan {
  std::size_t alternative;
  MessagePriority priority;
  /// 0: Publish (MEDIUM) or PublishWithPriority of an rvalue; 1: PublishFast; 2: PublishEmplace;
  /// 3: PublishWithPriority of an lvalue (copied).
  uint32_t api;
  uint64_t timestamp;  // PublishFast only
};

constexpr uint32_t kApiFast = 1U;

inline Plan PlanFor(uint32_t producer, uint32_t seq) noexcept {
  const uint64_t h = Mix(Key(producer, seq) ^ 0xABCDEF12345ULL);
  Plan plan{};
  plan.alternative = static_cast<std::size_t>(h % 3U);
  plan.priority = static_cast<MessagePriority>((h >> 8U) % 3U);
  plan.api = seq % 4U;
  plan.timestamp = (h >> 16U) | 1U;
  return plan;
}

constexpr uint32_t SenderId(uint32_t producer) noexcept {
  return 1000U + producer;
}

/// Priority classes within which a producer's order is kept: LOW/MEDIUM and, when the bus has a
/// HIGH ring (`high_overtakes`), HIGH apart.
constexpr std::size_t kClasses = 2U;

constexpr std::size_t ClassOf(MessagePriority priority, bool high_overtakes) noexcept {
  return high_overtakes && priority == MessagePriority::kHigh ? 1U : 0U;
}

/// True when a HIGH message of Bus may overtake its producer's earlier LOW/MEDIUM ones.
template <typename Bus>
constexpr bool kHighOvertakes = Bus::kHighQueueDepth > 0U;

/// The smallest sequence >= `from` that producer `producer` publishes in class `cls`.
inline uint32_t NextSeqInClass(uint32_t producer, uint32_t from, std::size_t cls,
                               bool high_overtakes) noexcept {
  uint32_t seq = from;
  while (ClassOf(PlanFor(producer, seq).priority, high_overtakes) != cls &&
         seq != std::numeric_limits<uint32_t>::max()) {
    ++seq;
  }
  return seq;
}

/// The ring the calling thread publishes on: its producer lane, or LaneCount() (the shared
/// ring) when it has none or the bus has no lanes. The identity is taken now if it was not yet.
template <typename Bus>
uint32_t LaneOfThisThread() noexcept {
  if constexpr (Bus::LaneCount() == 0U) {
    return 0U;
  } else {
    const uint32_t index = mccc::detail::ThisThreadShard();
    return index < Bus::LaneCount() ? index : Bus::LaneCount();
  }
}

// ----- producer side ----------------------------------------------------------------------------

struct ProducerRecord {
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
  uint32_t sequences = 0U;       // sequence numbers used: 0 .. sequences-1
  uint64_t admitted_count = 0U;  // distinct sequences admitted
  // Per priority class (ClassOf): admitted sequences and a HashStep over them, in order.
  std::array<uint64_t, kClasses> class_count{};
  std::array<uint64_t, kClasses> class_hash{};
  uint64_t moved_on_refusal = 0U;  // refused publishes that moved from the message (must be 0)
  uint32_t lane = 0U;              // the ring this producer's identity selects (LaneOfThisThread)

  void RecordAdmitted(uint32_t seq, MessagePriority priority, bool high_overtakes) {
    ++admitted[static_cast<std::size_t>(priority)];
    ++admitted_count;
    const std::size_t cls = ClassOf(priority, high_overtakes);
    ++class_count[cls];
    class_hash[cls] = HashStep(class_hash[cls], seq);
  }
};

template <typename Bus, typename Message>
bool PublishOnce(Bus& bus, uint32_t producer, uint32_t seq, const Plan& plan,
                 uint64_t& moved_on_refusal) {
  const uint32_t sender = SenderId(producer);
  if (plan.api == 2U) {
    return bus.template PublishEmplace<Message>(sender, plan.priority, producer, seq);
  }
  Message message(producer, seq);
  bool admitted = false;
  if (plan.api == kApiFast) {
    admitted = bus.PublishFast(std::move(message), sender, plan.timestamp, plan.priority);
  } else if (plan.api == 0U && plan.priority == MessagePriority::kMedium) {
    admitted = bus.Publish(std::move(message), sender);
  } else if (plan.api == 0U) {
    admitted = bus.PublishWithPriority(std::move(message), sender, plan.priority);
  } else {
    admitted = bus.PublishWithPriority(message, sender, plan.priority);  // lvalue: copied
  }
  // A refused publish must leave the rvalue untouched (async_bus.hpp: "not moved from").
  if (!admitted && !message.Intact()) {
    ++moved_on_refusal;
  }
  return admitted;
}

template <typename Bus>
bool PublishPlanned(Bus& bus, uint32_t producer, uint32_t seq, const Plan& plan,
                    uint64_t& moved_on_refusal) {
  switch (plan.alternative) {
    case 0U:
      return PublishOnce<Bus, Wide>(bus, producer, seq, plan, moved_on_refusal);
    case 1U:
      return PublishOnce<Bus, Narrow>(bus, producer, seq, plan, moved_on_refusal);
    default:
      return PublishOnce<Bus, Tracked>(bus, producer, seq, plan, moved_on_refusal);
  }
}

/// Publishes sequences 0, 1, 2, ... until `quota` (count mode) or `deadline` (time mode).
/// `retry`: a refused message is published again until admitted (so all sequences arrive).
template <typename Bus>
void RunProducer(Bus& bus, uint32_t producer, uint64_t quota, bool timed,
                 std::chrono::steady_clock::time_point deadline, bool retry,
                 const std::atomic<bool>& go, ProducerRecord& record) {
  while (!go.load(std::memory_order_acquire)) {
    std::this_thread::yield();
  }
  record.lane = LaneOfThisThread<Bus>();
  uint32_t seq = 0U;
  for (;; ++seq) {
    if (timed) {
      // The last sequence number is kept unused so that "strictly increasing" stays meaningful.
      if (((seq % 64U) == 0U && std::chrono::steady_clock::now() >= deadline) ||
          seq == std::numeric_limits<uint32_t>::max()) {
        break;
      }
    } else if (seq >= quota) {
      break;
    }
    const Plan plan = PlanFor(producer, seq);
    const auto prio = static_cast<std::size_t>(plan.priority);
    bool admitted = false;
    for (uint32_t refusals = 1U;; ++refusals) {
      ++record.attempted[prio];
      admitted = PublishPlanned(bus, producer, seq, plan, record.moved_on_refusal);
      if (admitted) {
        break;
      }
      // Let the consumer make room. Many producers yielding in a loop on a small machine burn
      // the CPU the consumer needs, so a producer that keeps being refused naps briefly.
      if ((refusals % 8U) == 0U) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      } else {
        std::this_thread::yield();
      }
      if (!retry) {
        break;
      }
    }
    if (admitted) {
      record.RecordAdmitted(seq, plan.priority, kHighOvertakes<Bus>);
    }
  }
  record.sequences = seq;
}

// ----- consumer side ----------------------------------------------------------------------------

/// Consumer-thread-only record of what was delivered, with the first failure described.
class DeliveryChecker {
 public:
  /// `high_overtakes`: the bus has a HIGH ring, so order is checked per class (see ClassOf).
  DeliveryChecker(uint32_t producers, bool retry, bool high_overtakes)
      : per_producer_(producers), retry_(retry), high_overtakes_(high_overtakes) {}

  template <typename Message>
  void Check(const Message& message, const MessageHeader& header, std::size_t alternative) {
    ++delivered_;
    if (header.msg_id != next_msg_id_) {
      Fail("msg_id " + std::to_string(header.msg_id) + ", expected " +
           std::to_string(next_msg_id_));
    }
    next_msg_id_ = header.msg_id + 1U;
    const uint32_t p = message.producer;
    if (p >= per_producer_.size()) {
      Fail("producer id out of range: " + std::to_string(p));
      return;
    }
    const uint32_t seq = message.seq;
    if (!message.Intact()) {
      Fail("payload corrupted: producer " + std::to_string(p) + " seq " + std::to_string(seq));
    }
    if (header.sender_id != SenderId(p)) {
      Fail("sender_id " + std::to_string(header.sender_id) + " for producer " + std::to_string(p));
    }
    const Plan plan = PlanFor(p, seq);
    if (plan.alternative != alternative || plan.priority != header.priority) {
      Fail("alternative or priority differ from what was published: producer " + std::to_string(p) +
           " seq " + std::to_string(seq));
    }
    if (plan.api == kApiFast && header.timestamp_us != plan.timestamp) {
      Fail("PublishFast timestamp lost: producer " + std::to_string(p));
    }
    PerProducer& producer = per_producer_[p];
    const std::size_t cls = ClassOf(header.priority, high_overtakes_);
    PerClass& state = producer.classes[cls];
    // Retrying producers publish every sequence, so within a class the next delivered one is
    // the class's next sequence; otherwise only "later than the last one" is known.
    const bool in_order =
        state.count == 0U
            ? (!retry_ || seq == NextSeqInClass(p, 0U, cls, high_overtakes_))
            : (retry_ ? seq == NextSeqInClass(p, state.last_seq + 1U, cls, high_overtakes_)
                      : seq > state.last_seq);
    if (!in_order) {
      Fail("producer " + std::to_string(p) + " class " + std::to_string(cls) + ": seq " +
           std::to_string(seq) + " after " +
           (state.count == 0U ? std::string("nothing") : std::to_string(state.last_seq)) +
           (retry_ ? " (expected the next one)" : " (duplicate or reordered)"));
    }
    state.last_seq = seq;
    ++state.count;
    state.hash = HashStep(state.hash, seq);
    ++producer.count;
    if (producer.count == 1U || seq > producer.last_seq) {
      producer.last_seq = seq;
    }
  }

  struct PerClass {
    uint32_t last_seq = 0U;
    uint64_t count = 0U;
    uint64_t hash = 0U;  // HashStep over the delivered sequences of the class, in order
  };
  struct PerProducer {
    std::array<PerClass, kClasses> classes{};
    uint32_t last_seq = 0U;  // the highest sequence delivered
    uint64_t count = 0U;     // delivered, all classes
  };

  const std::vector<PerProducer>& per_producer() const { return per_producer_; }
  uint64_t delivered() const { return delivered_; }
  uint64_t failures() const { return failures_; }
  const std::string& first_failure() const { return first_failure_; }

 private:
  void Fail(const std::string& what) {
    if (failures_ == 0U) {
      first_failure_ = what;
    }
    ++failures_;
  }

  std::vector<PerProducer> per_producer_;
  bool retry_;
  bool high_overtakes_;
  uint64_t next_msg_id_ = 1U;
  uint64_t delivered_ = 0U;
  uint64_t failures_ = 0U;
  std::string first_failure_;
};
// ----- run summary ------------------------------------------------------------------------------

/// Totals over every case this process ran, printed once at the end ("messages checked" in
/// docs/reliability.md are read from this line).
struct Tally {
  std::atomic<uint64_t> cases{0U};
  std::atomic<uint64_t> verified{0U};   // delivered and checked (once, order, payload, header)
  std::atomic<uint64_t> attempted{0U};  // publish calls
  std::atomic<uint64_t> refused{0U};    // publish calls refused (admission)
  std::atomic<uint32_t> max_producers{0U};
};

inline Tally g_tally;

inline void RecordVerified(uint64_t verified, uint64_t attempted, uint64_t refused,
                           uint32_t producers) {
  g_tally.cases.fetch_add(1U);
  g_tally.verified.fetch_add(verified);
  g_tally.attempted.fetch_add(attempted);
  g_tally.refused.fetch_add(refused);
  uint32_t seen = g_tally.max_producers.load();
  while (seen < producers && !g_tally.max_producers.compare_exchange_weak(seen, producers)) {
  }
}

class SummaryEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { start_ = std::chrono::steady_clock::now(); }
  void TearDown() override {
    if (g_tally.cases.load() == 0U) {
      return;  // e.g. --gtest_list_tests, or a filter that selected no exactly-once case
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::printf(
        "[ summary  ] %llu cases, %llu messages verified exactly once / in order / intact, "
        "%llu publish attempts (%llu refused), up to %u producers, %.1f s\n",
        static_cast<unsigned long long>(g_tally.cases.load()),
        static_cast<unsigned long long>(g_tally.verified.load()),
        static_cast<unsigned long long>(g_tally.attempted.load()),
        static_cast<unsigned long long>(g_tally.refused.load()), g_tally.max_producers.load(),
        seconds);
  }

 private:
  std::chrono::steady_clock::time_point start_{};
};

/// Registered at static initialisation (gtest_main owns main); gtest takes ownership.
inline ::testing::Environment* const g_summary_environment =
    ::testing::AddGlobalTestEnvironment(new SummaryEnvironment);

// ----- scenarios --------------------------------------------------------------------------------

struct Scenario {
  uint32_t producers;
  uint32_t bus;          // which bus type of the test file (its own enumeration)
  const char* bus_name;  // appears in the test name, e.g. "Depth64"
  PerformanceMode mode;
  bool retry;        // true: retry until admitted; false: count refusals and move on
  bool use_visitor;  // true: ProcessBatchWith; false: Subscribe + ProcessBatch
};

inline std::string ModeName(PerformanceMode mode) {
  switch (mode) {
    case PerformanceMode::kFullFeatured:
      return "FullFeatured";
    case PerformanceMode::kNoStats:
      return "NoStats";
    case PerformanceMode::kBareMetal:
      return "BareMetal";
  }
  return "Unknown";
}

inline std::string Describe(const Scenario& s) {
  return "P" + std::to_string(s.producers) + "_" + s.bus_name + "_" + ModeName(s.mode) +
         (s.retry ? "_Retry" : "_CountDrops") + (s.use_visitor ? "_Visitor" : "_Callbacks");
}

inline std::string ScenarioName(const ::testing::TestParamInfo<Scenario>& info) {
  return Describe(info.param);
}

// Readable GetParam() in failure messages.
inline void PrintTo(const Scenario& s, std::ostream* os) {
  *os << Describe(s);
}

/// Appends producers x {kFullFeatured, kNoStats, kBareMetal} x {retry, count refusals} x
/// {callbacks, visitor} for one bus type.
inline void AddMatrix(std::vector<Scenario>& all, uint32_t bus, const char* bus_name,
                      std::initializer_list<uint32_t> producer_counts) {
  for (const uint32_t producers : producer_counts) {
    for (const PerformanceMode mode :
         {PerformanceMode::kFullFeatured, PerformanceMode::kNoStats, PerformanceMode::kBareMetal}) {
      for (const bool retry : {true, false}) {
        for (const bool use_visitor : {false, true}) {
          all.push_back(Scenario{producers, bus, bus_name, mode, retry, use_visitor});
        }
      }
    }
  }
}

/// Messages per test case in count mode (split across the producers). On the 64-slot ring
/// nearly every publish meets a full queue and waits for the consumer (thread switches), so it
/// gets fewer messages for the same wall time.
constexpr uint64_t kBaseMessagesPerCase = 80000U;
constexpr uint64_t kBaseMessagesPerCaseSmallRing = 24000U;

/// Per ring (each producer lane, and LaneCount(): the shared ring), GetLaneStatistics equals
/// the sum of the records of the producers that published on it (`counting`: kFullFeatured;
/// otherwise every lane reads 0). A bus without lanes has one ring, index 0, for everybody. The
/// rings' figures add up to GetStatistics()'s.
template <typename Bus>
void ExpectLaneStatistics(const Bus& bus, const std::vector<ProducerRecord>& records,
                          bool counting) {
  BusStatisticsSnapshot sum{};
  for (uint32_t lane = 0U; lane <= Bus::LaneCount(); ++lane) {
    std::array<uint64_t, mccc::kPriorityCount> attempted{};
    std::array<uint64_t, mccc::kPriorityCount> admitted{};
    for (const ProducerRecord& r : records) {
      if (counting && r.lane == lane) {
        for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
          attempted[i] += r.attempted[i];
          admitted[i] += r.admitted[i];
        }
      }
    }
    const BusStatisticsSnapshot s = bus.GetLaneStatistics(lane);
    SCOPED_TRACE("lane " + std::to_string(lane) + " of " + std::to_string(Bus::LaneCount()));
    ExpectPerPriorityCounts(s, attempted, admitted);
    sum.messages_published += s.messages_published;
    sum.messages_dropped += s.messages_dropped;
    sum.high_priority_published += s.high_priority_published;
    sum.high_priority_dropped += s.high_priority_dropped;
  }
  const BusStatisticsSnapshot total = bus.GetStatistics();
  EXPECT_EQ(sum.messages_published, total.messages_published) << "sum of the lanes";
  EXPECT_EQ(sum.messages_dropped, total.messages_dropped) << "sum of the lanes";
  EXPECT_EQ(sum.high_priority_published, total.high_priority_published) << "sum of the lanes";
  EXPECT_EQ(sum.high_priority_dropped, total.high_priority_dropped) << "sum of the lanes";
}

template <typename Bus>
void RunScenario(const Scenario& scenario) {
  auto bus = std::make_unique<Bus>();
  bus->SetPerformanceMode(scenario.mode);
  g_queue_full_reports.store(0U);
  g_other_error_reports.store(0U);
  bus->SetErrorCallback(&CountErrors);

  const uint32_t n = scenario.producers;
  DeliveryChecker checker(n, scenario.retry, kHighOvertakes<Bus>);
  if (!scenario.use_visitor) {
    const auto h0 = bus->template Subscribe<Wide>(
        [&checker](const Wide& m, const MessageHeader& h) { checker.Check(m, h, 0U); });
    const auto h1 = bus->template Subscribe<Narrow>(
        [&checker](const Narrow& m, const MessageHeader& h) { checker.Check(m, h, 1U); });
    // The envelope form of a subscriber, returning bool.
    const auto h2 = bus->template Subscribe<Tracked>([&checker](const typename Bus::Envelope& e) {
      checker.Check(*std::get_if<Tracked>(&e.payload), e.header, 2U);
      return true;
    });
    ASSERT_TRUE(h0.IsValid() && h1.IsValid() && h2.IsValid());
  }
  auto visitor = [&checker](const auto& m, const MessageHeader& h) {
    using M = std::decay_t<decltype(m)>;
    checker.Check(m, h, std::is_same_v<M, Wide> ? 0U : (std::is_same_v<M, Narrow> ? 1U : 2U));
  };

  const double seconds = StressSeconds();
  const bool timed = seconds > 0.0;
  const uint64_t base =
      Bus::kQueueDepth <= 64U ? kBaseMessagesPerCaseSmallRing : kBaseMessagesPerCase;
  const uint64_t quota = Scaled(base, 400U) / n;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(seconds));

  std::vector<ProducerRecord> records(n);
  RunProducersAndConsumer(
      *bus, n,
      [&](uint32_t p, const std::atomic<bool>& go) {
        RunProducer(*bus, p, quota, timed, deadline, scenario.retry, go, records[p]);
      },
      [&]() -> uint32_t {
        return scenario.use_visitor ? bus->ProcessBatchWith(visitor) : bus->ProcessBatch();
      });

  // ---- exactly once, in order, intact ----
  EXPECT_EQ(checker.failures(), 0U) << "first failure: " << checker.first_failure();
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
  uint64_t admitted_total = 0U;
  for (uint32_t p = 0U; p < n; ++p) {
    const ProducerRecord& r = records[p];
    const DeliveryChecker::PerProducer& d = checker.per_producer()[p];
    EXPECT_EQ(d.count, r.admitted_count) << "producer " << p << ": delivered != admitted";
    for (std::size_t cls = 0U; cls < kClasses; ++cls) {
      EXPECT_EQ(d.classes[cls].count, r.class_count[cls]) << "producer " << p << " class " << cls;
      EXPECT_EQ(d.classes[cls].hash, r.class_hash[cls])
          << "producer " << p << " class " << cls
          << ": the delivered sequences differ from the admitted ones";
    }
    EXPECT_EQ(r.moved_on_refusal, 0U) << "producer " << p << ": a refused message was moved from";
    if (scenario.retry) {
      EXPECT_EQ(d.count, r.sequences) << "producer " << p;
      if (r.sequences > 0U) {
        EXPECT_EQ(d.last_seq, r.sequences - 1U) << "producer " << p;
      }
    }
    for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
      attempted[i] += r.attempted[i];
      admitted[i] += r.admitted[i];
    }
    admitted_total += r.admitted_count;
  }
  EXPECT_EQ(checker.delivered(), admitted_total);
  EXPECT_GT(admitted_total, 0U);
  EXPECT_EQ(bus->QueueOccupancy(), 0U);

  // ---- statistics and error reports ----
  const BusStatisticsSnapshot s = bus->GetStatistics();
  uint64_t refused_total = 0U;
  for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
    refused_total += attempted[i] - admitted[i];
  }
  if (scenario.mode == PerformanceMode::kFullFeatured) {
    ExpectPerPriorityCounts(s, attempted, admitted);
    EXPECT_EQ(s.messages_published, admitted_total);
    EXPECT_EQ(s.messages_dropped, refused_total);
    EXPECT_EQ(s.messages_processed, checker.delivered());
    EXPECT_EQ(s.processing_errors, 0U);
  } else {
    EXPECT_EQ(s.messages_published, 0U) << "only kFullFeatured counts";
    EXPECT_EQ(s.messages_dropped, 0U);
    EXPECT_EQ(s.messages_processed, 0U);
  }
  ExpectLaneStatistics(*bus, records, scenario.mode == PerformanceMode::kFullFeatured);
  const uint64_t expected_reports =
      scenario.mode == PerformanceMode::kBareMetal ? 0U : refused_total;
  EXPECT_EQ(g_queue_full_reports.load(), expected_reports);
  EXPECT_EQ(g_other_error_reports.load(), 0U);
  uint32_t on_own_lane = 0U;
  for (const ProducerRecord& r : records) {
    on_own_lane += r.lane < Bus::LaneCount() ? 1U : 0U;
  }
  std::printf(
      "[ info     ] %s: %llu messages verified, %llu refused, %u of %u producers on a "
      "lane of their own\n",
      Describe(scenario).c_str(), static_cast<unsigned long long>(checker.delivered()),
      static_cast<unsigned long long>(refused_total), on_own_lane, n);
  RecordVerified(checker.delivered(), admitted_total + refused_total, refused_total, n);
}

// ----- a parked consumer is woken by every publish ---------------------------------------------

// The consumer empties the queue and parks in WaitForMessages with a long timeout; each producer
// publishes one message and waits until it was delivered before the next. So nearly every
// message is published while the consumer sleeps (or is about to), and a lost wake-up would hold
// that message for the whole timeout. Every wait must end long before the timeout.
template <typename Bus>
void RunWakeupPingPong(uint32_t producers) {
  constexpr uint32_t kParkTimeoutUs = 5000000U;  // 5 s
  constexpr auto kLostWakeupBound = std::chrono::milliseconds(2500);
  auto bus = std::make_unique<Bus>();
  const auto rounds = static_cast<uint32_t>(Scaled(3000U, 200U));
  std::vector<std::atomic<uint32_t>> delivered(producers);
  std::atomic<bool> stop{false};
  std::atomic<bool> lost_wakeup{false};  // set by the consumer; ends the run early
  std::chrono::steady_clock::duration longest_wait{};
  uint64_t waits = 0U;
  auto visitor = [&delivered](const auto& m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Narrow>) {
      delivered[m.producer].store(m.seq + 1U, std::memory_order_release);
    }  // a Wide is the stop sentinel
  };
  // A single-producer bus enables sleeping on the first wait; publishes racing with that first
  // call may be noticed only at the timeout (documented), so make that call before starting.
  static_cast<void>(bus->WaitForMessages(1U));
  std::thread consumer([&] {
    while (!stop.load(std::memory_order_acquire)) {
      const auto start = std::chrono::steady_clock::now();
      const bool ready = bus->WaitForMessages(kParkTimeoutUs);
      const auto waited = std::chrono::steady_clock::now() - start;
      ++waits;
      if (waited > longest_wait) {
        longest_wait = waited;
      }
      if (waited >= kLostWakeupBound) {
        lost_wakeup.store(true, std::memory_order_release);
      }
      if (ready) {
        while (bus->ProcessBatchWith(visitor) != 0U) {
        }
      }
    }
    while (bus->ProcessBatchWith(visitor) != 0U) {
    }
  });
  std::vector<std::thread> threads;
  for (uint32_t p = 0U; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (uint32_t seq = 0U; seq < rounds && !lost_wakeup.load(); ++seq) {
        while (!bus->PublishFast(Narrow(p, seq), p, 0U, MessagePriority::kHigh)) {
          std::this_thread::yield();
        }
        while (delivered[p].load(std::memory_order_acquire) != seq + 1U) {
          std::this_thread::yield();
        }
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  // Stop with a sentinel message rather than WakeConsumer: a publish always wakes the consumer
  // (WakeConsumer issued just before the consumer parks is lost, see test_lifecycle_races.cpp).
  stop.store(true, std::memory_order_release);
  // From a thread of its own: the test's main thread never publishes, so it holds no producer
  // identity that would take a producer lane from a later test case.
  std::thread stopper([&bus] {
    while (!bus->PublishFast(Wide(0U, 0U), 0U, 0U, MessagePriority::kHigh)) {
      std::this_thread::yield();
    }
  });
  stopper.join();
  consumer.join();
  for (uint32_t p = 0U; p < producers; ++p) {
    EXPECT_EQ(delivered[p].load(), rounds) << "producer " << p;
  }
  EXPECT_LT(longest_wait, kLostWakeupBound)
      << "a WaitForMessages call slept "
      << std::chrono::duration_cast<std::chrono::milliseconds>(longest_wait).count()
      << " ms: a publish did not wake the parked consumer";
  EXPECT_GT(waits, 0U);
}
}  // namespace mccc_stress

#endif  // MCCC_TESTS_STRESS_EXACTLY_ONCE_HARNESS_HPP_
