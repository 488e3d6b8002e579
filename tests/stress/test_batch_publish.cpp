// SPDX-License-Identifier: MIT
// PublishBatch under contention: several producers publish batches of 1..17 messages of mixed
// priority into an always-full 64-slot queue and a roomy 4096-slot one, while the consumer
// dispatches; each on a bus whose HIGH messages share the one ring and on one with a HIGH ring.
// Checked exactly, for every delivered message, per ordering class (the shared ring: one class;
// with a HIGH ring: HIGH, and LOW/MEDIUM, since a HIGH message overtakes queued LOW/MEDIUM ones):
// - per producer and class, the delivered sequences are exactly the admitted ones, in order,
//   each once (retrying producers: exactly 0..N-1 over both classes);
// - the admitted part of every call arrives contiguously (no other message of its class between
//   its elements) and starts with the call's first element (a prefix);
// - msg_id = 1, 2, 3, ... in delivery order; all elements of one call share one timestamp;
// - per priority, the statistics equal admitted and attempted - admitted, and the error callback
//   saw one kQueueFull per call that refused anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "mccc/bus/async_bus.hpp"
#include "mccc/message.hpp"
#include "mccc/traits.hpp"

#include "stress_support.hpp"

namespace {

using mccc::MessageHeader;
using mccc::MessagePriority;

struct Item {
  uint32_t producer;
  uint32_t seq;
  uint32_t index_in_call;  // position of this element in the array its PublishBatch call got
};
struct Other {
  uint64_t unused;
};
using Payload = std::variant<Other, Item>;

// No HIGH ring: one FIFO for every priority (contiguity and order span the priorities).
template <uint32_t kDepth, uint32_t kBatch, bool kOneProducer = false>
using SharedRingTraits =
    mccc_test::NoHighRing<mccc_stress::StressTraits<kDepth, kBatch, kOneProducer>>;
// A HIGH ring of `kHighDepth` slots (small: HIGH is refused too when that ring is full).
template <uint32_t kDepth, uint32_t kBatch, uint32_t kHighDepth, bool kOneProducer = false>
using HighRingTraits =
    mccc_test::WithHighRing<mccc_stress::StressTraits<kDepth, kBatch, kOneProducer>, kHighDepth>;

using FullQueueTraits = SharedRingTraits<64U, 16U>;
using RoomyTraits = SharedRingTraits<4096U, mccc::DefaultBusTraits::kBatchSize>;
using SingleProducerTraits = SharedRingTraits<64U, 16U, true>;
using FullQueueHighRingTraits = HighRingTraits<64U, 16U, 16U>;
using RoomyHighRingTraits = HighRingTraits<4096U, mccc::DefaultBusTraits::kBatchSize,
                                           mccc::DefaultBusTraits::kHighQueueDepth>;
using SingleProducerHighRingTraits = HighRingTraits<64U, 16U, 16U, true>;

// Ordering classes: FIFO per producer holds within one (0: LOW/MEDIUM, and HIGH without a HIGH
// ring).
constexpr std::size_t kClasses = 2U;
std::size_t ClassOf(MessagePriority priority, bool high_ring) {
  return high_ring && priority == MessagePriority::kHigh ? 1U : 0U;
}

using mccc_stress::CountErrors;
using mccc_stress::g_queue_full_reports;

struct ProducerRecord {
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
  std::array<std::vector<uint32_t>, kClasses> admitted_seqs;  // per ordering class
  uint64_t refusing_calls = 0U;
};

uint32_t CallSize(uint32_t producer, uint32_t call) {
  return 1U + (call * 7U + producer * 3U) % 17U;
}

template <typename Bus>
void RunProducer(Bus& bus, uint32_t producer, uint32_t quota, bool retry,
                 const std::atomic<bool>& go, ProducerRecord& record) {
  constexpr bool kHighRing = Bus::kHighQueueDepth > 0U;
  // acquire: pairs with RunProducersAndConsumer's release store of `go` (set-up is visible).
  while (!go.load(std::memory_order_acquire)) {
    std::this_thread::yield();
  }
  std::vector<Item> items;
  uint32_t seq = 0U;
  for (uint32_t call = 0U; seq < quota; ++call) {
    const uint32_t size = std::min(CallSize(producer, call), quota - seq);
    const auto priority = static_cast<MessagePriority>(call % mccc::kPriorityCount);
    const auto prio = static_cast<std::size_t>(priority);
    uint32_t done = 0U;  // elements of this batch admitted so far
    for (uint32_t attempt = 1U;; ++attempt) {
      items.clear();
      for (uint32_t i = done; i < size; ++i) {
        items.push_back(Item{producer, seq + i, i - done});
      }
      const uint32_t want = size - done;
      record.attempted[prio] += want;
      const uint32_t got = bus.PublishBatch(items.data(), want, producer + 1U, priority);
      record.admitted[prio] += got;
      for (uint32_t i = 0U; i < got; ++i) {
        record.admitted_seqs[ClassOf(priority, kHighRing)].push_back(seq + done + i);
      }
      done += got;
      if (got != want) {
        ++record.refusing_calls;
      }
      if (done == size || !retry) {
        break;
      }
      if ((attempt % 8U) == 0U) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      } else {
        std::this_thread::yield();
      }
    }
    seq += size;
  }
}

/// Consumer-side checks; the first failure is kept as text.
class Checker {
 public:
  Checker(uint32_t producers, bool high_ring) : delivered_(producers), high_ring_(high_ring) {}

  void OnItem(const Item& item, const MessageHeader& header) {
    ++count_;
    if (header.msg_id != count_) {
      Fail("msg_id " + std::to_string(header.msg_id) + " at delivery " + std::to_string(count_));
    }
    if (item.producer >= delivered_.size() || header.sender_id != item.producer + 1U) {
      Fail("unknown producer or wrong sender id");
      return;
    }
    const std::size_t cls = ClassOf(header.priority, high_ring_);
    std::vector<uint32_t>& seqs = delivered_[item.producer][cls];
    if (!seqs.empty() && item.seq <= seqs.back()) {
      Fail("producer " + std::to_string(item.producer) + ": seq " + std::to_string(item.seq) +
           " after " + std::to_string(seqs.back()));
    }
    Last& last = last_[cls];
    if (item.index_in_call != 0U) {
      // Not the first element of its call: the element before it in the same call must be the
      // message of this class delivered just before this one (contiguous, and a prefix was
      // admitted).
      if (!last.valid || last.item.producer != item.producer || last.item.seq + 1U != item.seq ||
          last.item.index_in_call + 1U != item.index_in_call ||
          last.timestamp != header.timestamp_us) {
        Fail("producer " + std::to_string(item.producer) + " seq " + std::to_string(item.seq) +
             ": a batch element not directly after its predecessor");
      }
    }
    seqs.push_back(item.seq);
    last = Last{item, header.timestamp_us, true};
  }

  const std::vector<uint32_t>& Delivered(uint32_t producer, std::size_t cls) const {
    return delivered_[producer][cls];
  }
  uint64_t Count() const { return count_; }
  const std::string& Failure() const { return failure_; }

 private:
  void Fail(const std::string& what) {
    if (failure_.empty()) {
      failure_ = what;
    }
  }

  struct Last {
    Item item{};
    uint64_t timestamp = 0U;
    bool valid = false;
  };
  std::vector<std::array<std::vector<uint32_t>, kClasses>> delivered_;
  bool high_ring_;
  uint64_t count_ = 0U;
  std::array<Last, kClasses> last_{};  // the last message delivered of each class
  std::string failure_;
};

template <typename Traits>
void RunCase(uint32_t producers, uint32_t base_quota, bool retry) {
  using Bus = mccc::AsyncBus<Payload, Traits>;
  const auto quota = static_cast<uint32_t>(
      std::max(200.0, static_cast<double>(base_quota) * mccc_stress::StressScale()));
  auto bus = std::make_unique<Bus>();
  g_queue_full_reports.store(0U);  // seq_cst (default): before any thread of this case starts
  bus->SetErrorCallback(&CountErrors);
  Checker checker(producers, Bus::kHighQueueDepth > 0U);
  bus->template Subscribe<Item>(
      [&checker](const Item& item, const MessageHeader& header) { checker.OnItem(item, header); });

  std::vector<ProducerRecord> records(producers);
  mccc_stress::RunProducersAndConsumer(
      *bus, producers,
      [&](uint32_t p, const std::atomic<bool>& go) {
        RunProducer(*bus, p, quota, retry, go, records[p]);
      },
      [&] { return bus->ProcessBatch(); });

  ASSERT_EQ(checker.Failure(), "");
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
  uint64_t total = 0U;
  uint64_t refusing_calls = 0U;
  for (uint32_t p = 0U; p < producers; ++p) {
    std::size_t admitted_of_p = 0U;
    for (std::size_t cls = 0U; cls < kClasses; ++cls) {
      EXPECT_EQ(checker.Delivered(p, cls), records[p].admitted_seqs[cls])
          << "producer " << p << " class " << cls;
      admitted_of_p += records[p].admitted_seqs[cls].size();
    }
    if (retry) {
      EXPECT_EQ(admitted_of_p, quota) << "retrying producer " << p;
    }
    for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
      attempted[i] += records[p].attempted[i];
      admitted[i] += records[p].admitted[i];
    }
    total += admitted_of_p;
    refusing_calls += records[p].refusing_calls;
  }
  EXPECT_EQ(checker.Count(), total);
  const mccc::BusStatisticsSnapshot s = bus->GetStatistics();
  mccc_stress::ExpectPerPriorityCounts(s, attempted, admitted);
  EXPECT_EQ(s.messages_processed, total);
  EXPECT_EQ(g_queue_full_reports.load(), refusing_calls);  // after the joins: every report counted
}

// G-8: every admitted batch message delivered once, in order, contiguously (all tests below)
TEST(BatchPublishStress, ThreeProducersRetryIntoAnAlwaysFullQueue) {
  RunCase<FullQueueTraits>(3U, 100000U, /*retry=*/true);
}

TEST(BatchPublishStress, ThreeProducersDropRefusedTailsInAnAlwaysFullQueue) {
  RunCase<FullQueueTraits>(3U, 100000U, /*retry=*/false);
}

TEST(BatchPublishStress, FourProducersRetryIntoARoomyQueue) {
  RunCase<RoomyTraits>(4U, 250000U, /*retry=*/true);
}

TEST(BatchPublishStress, SingleProducerBusRetriesAndDrops) {
  RunCase<SingleProducerTraits>(1U, 200000U, /*retry=*/true);
  RunCase<SingleProducerTraits>(1U, 200000U, /*retry=*/false);
}

TEST(BatchPublishStress, HighRingThreeProducersRetryIntoAnAlwaysFullQueue) {
  RunCase<FullQueueHighRingTraits>(3U, 100000U, /*retry=*/true);
}

TEST(BatchPublishStress, HighRingThreeProducersDropRefusedTailsInAnAlwaysFullQueue) {
  RunCase<FullQueueHighRingTraits>(3U, 100000U, /*retry=*/false);
}

TEST(BatchPublishStress, HighRingFourProducersRetryIntoARoomyQueue) {
  RunCase<RoomyHighRingTraits>(4U, 250000U, /*retry=*/true);
}

TEST(BatchPublishStress, HighRingSingleProducerBusRetriesAndDrops) {
  RunCase<SingleProducerHighRingTraits>(1U, 200000U, /*retry=*/true);
  RunCase<SingleProducerHighRingTraits>(1U, 200000U, /*retry=*/false);
}

}  // namespace
