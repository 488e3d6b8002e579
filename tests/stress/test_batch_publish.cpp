// SPDX-License-Identifier: MIT
// PublishBatch under contention: several producers publish batches of 1..17 messages of mixed
// priority into an always-full 64-slot queue and a roomy 4096-slot one, while the consumer
// dispatches. Checked exactly, for every delivered message:
// - per producer, the delivered sequences are exactly the admitted ones, in order, each once
//   (retrying producers: exactly 0..N-1);
// - the admitted part of every call arrives contiguously (no other message between its
//   elements) and starts with the call's first element (a prefix);
// - msg_id = 1, 2, 3, ... in delivery order; all elements of one call share one timestamp;
// - per priority, the statistics equal admitted and attempted - admitted, and the error callback
//   saw one QUEUE_FULL per call that refused anything.
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

using FullQueueTraits = mccc_stress::StressTraits<64U, 16U>;
using RoomyTraits = mccc_stress::StressTraits<4096U, mccc::DefaultBusTraits::kBatchSize>;
using SingleProducerTraits = mccc_stress::StressTraits<64U, 16U, true>;

using mccc_stress::CountErrors;
using mccc_stress::g_queue_full_reports;

struct ProducerRecord {
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
  std::vector<uint32_t> admitted_seqs;
  uint64_t refusing_calls = 0U;
};

uint32_t CallSize(uint32_t producer, uint32_t call) {
  return 1U + (call * 7U + producer * 3U) % 17U;
}

template <typename Bus>
void RunProducer(Bus& bus, uint32_t producer, uint32_t quota, bool retry,
                 const std::atomic<bool>& go, ProducerRecord& record) {
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
        record.admitted_seqs.push_back(seq + done + i);
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
  explicit Checker(uint32_t producers) : delivered_(producers) {}

  void OnItem(const Item& item, const MessageHeader& header) {
    ++count_;
    if (header.msg_id != count_) {
      Fail("msg_id " + std::to_string(header.msg_id) + " at delivery " + std::to_string(count_));
    }
    if (item.producer >= delivered_.size() || header.sender_id != item.producer + 1U) {
      Fail("unknown producer or wrong sender id");
      return;
    }
    std::vector<uint32_t>& seqs = delivered_[item.producer];
    if (!seqs.empty() && item.seq <= seqs.back()) {
      Fail("producer " + std::to_string(item.producer) + ": seq " + std::to_string(item.seq) +
           " after " + std::to_string(seqs.back()));
    }
    if (item.index_in_call != 0U) {
      // Not the first element of its call: the element before it in the same call must be the
      // message delivered just before this one (contiguous, and a prefix was admitted).
      if (!has_last_ || last_.producer != item.producer || last_.seq + 1U != item.seq ||
          last_.index_in_call + 1U != item.index_in_call ||
          last_timestamp_ != header.timestamp_us) {
        Fail("producer " + std::to_string(item.producer) + " seq " + std::to_string(item.seq) +
             ": a batch element not directly after its predecessor");
      }
    }
    seqs.push_back(item.seq);
    last_ = item;
    last_timestamp_ = header.timestamp_us;
    has_last_ = true;
  }

  const std::vector<uint32_t>& Delivered(uint32_t producer) const { return delivered_[producer]; }
  uint64_t Count() const { return count_; }
  const std::string& Failure() const { return failure_; }

 private:
  void Fail(const std::string& what) {
    if (failure_.empty()) {
      failure_ = what;
    }
  }

  std::vector<std::vector<uint32_t>> delivered_;
  uint64_t count_ = 0U;
  Item last_{};
  uint64_t last_timestamp_ = 0U;
  bool has_last_ = false;
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
  Checker checker(producers);
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
    EXPECT_EQ(checker.Delivered(p), records[p].admitted_seqs) << "producer " << p;
    if (retry) {
      EXPECT_EQ(records[p].admitted_seqs.size(), quota) << "retrying producer " << p;
    }
    for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
      attempted[i] += records[p].attempted[i];
      admitted[i] += records[p].admitted[i];
    }
    total += records[p].admitted_seqs.size();
    refusing_calls += records[p].refusing_calls;
  }
  EXPECT_EQ(checker.Count(), total);
  const mccc::BusStatisticsSnapshot s = bus->GetStatistics();
  mccc_stress::ExpectPerPriorityCounts(s, attempted, admitted);
  EXPECT_EQ(s.messages_processed, total);
  EXPECT_EQ(g_queue_full_reports.load(), refusing_calls);  // after the joins: every report counted
}

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

}  // namespace
