// SPDX-License-Identifier: MIT
// Producer lanes (Traits::kProducerLanes, kLaneDepth): the first N producer identities of the
// process (threads, or handles from MakeProducer) each publish on a lane of their own, admitted
// against that lane only; other producers share the ring of kQueueDepth slots.
//
// Producer identities are process-wide (statistics/thread_shard.hpp): the lowest free index is
// taken by a thread's first publish, or by MakeProducer, and returned when the thread ends or the
// handle is destroyed. This binary's main thread holds at most one index for its whole life
// (from its first publish on), so the tests find the lanes they use through the public API
// (LaneQueueDepth, Producer::Lane) or the calling thread's index, never assume a fixed number.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

using mccc::BackpressureLevel;
using mccc::BusError;
using mccc::BusStatisticsSnapshot;
using mccc::MessageHeader;
using mccc::MessagePriority;
using mccc::PerformanceMode;

struct Item {
  uint32_t producer;
  uint32_t seq;
};

/// Raises g_raise_signal (SIGUSR1 unless set) from its constructor while g_raise_in_constructor
/// is set. PublishEmplace
/// builds it inside the claimed lane slot, so the signal interrupts a publish in progress.
std::atomic<bool> g_raise_in_constructor{false};
std::atomic<int> g_raise_signal{SIGUSR1};
struct Raiser {
  explicit Raiser(uint32_t s) noexcept : seq(s) {
    if (g_raise_in_constructor.load()) {
      static_cast<void>(std::raise(g_raise_signal.load()));
    }
  }
  uint32_t seq;
};

/// Counts its live instances, so a message the bus never destroys shows up.
std::atomic<int> g_live_counted{0};
struct Counted {
  Counted(uint32_t p, uint32_t s) noexcept : producer(p), seq(s) { g_live_counted.fetch_add(1); }
  Counted(const Counted& other) noexcept : producer(other.producer), seq(other.seq) {
    g_live_counted.fetch_add(1);
  }
  Counted(Counted&& other) noexcept : producer(other.producer), seq(other.seq) {
    g_live_counted.fetch_add(1);
  }
  Counted& operator=(const Counted&) noexcept = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { g_live_counted.fetch_sub(1); }
  uint32_t producer;
  uint32_t seq;
};

using Payload = std::variant<Item, Raiser, Counted>;

/// 4 lanes of 128 slots, a 64-slot shared ring, a 16-slot HIGH ring, batches of 16.
using LanesTraits = mccc_test::WithLanes<mccc_test::Ring<64U, 16U, 16U>, 4U, 128U>;
/// The same without a HIGH ring: HIGH messages travel on the producer's lane.
using LanesNoHighTraits = mccc_test::NoHighRing<LanesTraits>;
using LanesBus = mccc::AsyncBus<Payload, LanesTraits>;
using LanesNoHighBus = mccc::AsyncBus<Payload, LanesNoHighTraits>;
/// Four lanes and batches of 10: each ring's share of a consumer batch is 2.
using SmallShareTraits = mccc_test::WithBatch<LanesNoHighTraits, 10U>;
using SmallShareBus = mccc::AsyncBus<Payload, SmallShareTraits>;

// The thresholds of a 128-slot lane: 60 %, 80 % and 99 % of 128, rounded up.
constexpr uint32_t kLaneLow = 77U;
constexpr uint32_t kLaneMedium = 103U;
constexpr uint32_t kLaneHigh = 127U;
static_assert(mccc::PriorityAdmission<128U>::LimitFor(MessagePriority::kLow) == kLaneLow, "");
static_assert(mccc::PriorityAdmission<128U>::LimitFor(MessagePriority::kMedium) == kLaneMedium, "");
static_assert(mccc::PriorityAdmission<128U>::LimitFor(MessagePriority::kHigh) == kLaneHigh, "");

std::atomic<uint64_t> g_queue_full{0U};
std::atomic<uint64_t> g_other_errors{0U};

void CountErrors(BusError error, uint64_t /*msg_id*/) {
  if (error == BusError::kQueueFull) {
    g_queue_full.fetch_add(1U);
  } else {
    g_other_errors.fetch_add(1U);
  }
}

/// The lane the calling thread publishes on (LaneCount(): the shared ring).
template <typename Bus>
uint32_t LaneOfThisThread() {
  const uint32_t index = mccc::detail::ThisThreadShard();
  return index < Bus::LaneCount() ? index : Bus::LaneCount();
}

/// A publisher for every ring of a bus: lane k is published on by the calling thread when it
/// owns lane k, else by a producer handle that owns it; the shared ring (index LaneCount()) by
/// a handle without a lane (or the calling thread when it has none).
template <typename Bus>
class LaneOwners {
 public:
  explicit LaneOwners(Bus& bus) : bus_(bus), handles_(Bus::LaneCount() + 1U) {
    this_thread_lane_ = LaneOfThisThread<Bus>();
    uint32_t missing = Bus::LaneCount() - (this_thread_lane_ < Bus::LaneCount() ? 1U : 0U);
    // Only this thread holds an identity, so handles take the remaining lanes lowest first.
    while (missing != 0U) {
      typename Bus::Producer handle = bus.MakeProducer();
      EXPECT_TRUE(handle.HasOwnLane()) << "a lane below LaneCount() is held by someone else";
      if (!handle.HasOwnLane()) {
        return;
      }
      const uint32_t lane = handle.Lane();
      handles_[lane] = std::move(handle);
      --missing;
    }
    if (this_thread_lane_ < Bus::LaneCount()) {
      handles_[Bus::LaneCount()] = bus.MakeProducer();
      EXPECT_FALSE(handles_[Bus::LaneCount()].HasOwnLane());
      EXPECT_EQ(handles_[Bus::LaneCount()].Lane(), Bus::LaneCount());
    }
  }

  /// Publishes `item` with `priority` through the publisher of ring `ring`.
  bool Publish(uint32_t ring, const Item& item, MessagePriority priority) {
    if (ring == this_thread_lane_) {
      return bus_.PublishWithPriority(item, 100U + ring, priority);
    }
    return handles_[ring].PublishWithPriority(item, 100U + ring, priority);
  }

  uint32_t this_thread_lane() const { return this_thread_lane_; }

 private:
  Bus& bus_;
  std::vector<typename Bus::Producer> handles_;
  uint32_t this_thread_lane_ = 0U;
};

BusStatisticsSnapshot Sum(const BusStatisticsSnapshot& a, const BusStatisticsSnapshot& b) {
  BusStatisticsSnapshot s = a;
  s.low_priority_published += b.low_priority_published;
  s.medium_priority_published += b.medium_priority_published;
  s.high_priority_published += b.high_priority_published;
  s.low_priority_dropped += b.low_priority_dropped;
  s.medium_priority_dropped += b.medium_priority_dropped;
  s.high_priority_dropped += b.high_priority_dropped;
  s.messages_published += b.messages_published;
  s.messages_dropped += b.messages_dropped;
  return s;
}

void ExpectPublishedDropped(const BusStatisticsSnapshot& actual,
                            const BusStatisticsSnapshot& expected, const char* what) {
  EXPECT_EQ(actual.low_priority_published, expected.low_priority_published) << what;
  EXPECT_EQ(actual.medium_priority_published, expected.medium_priority_published) << what;
  EXPECT_EQ(actual.high_priority_published, expected.high_priority_published) << what;
  EXPECT_EQ(actual.low_priority_dropped, expected.low_priority_dropped) << what;
  EXPECT_EQ(actual.medium_priority_dropped, expected.medium_priority_dropped) << what;
  EXPECT_EQ(actual.high_priority_dropped, expected.high_priority_dropped) << what;
  EXPECT_EQ(actual.messages_published, expected.messages_published) << what;
  EXPECT_EQ(actual.messages_dropped, expected.messages_dropped) << what;
}

/// Counts a publish of `priority` into `s` (admitted or refused).
void Count(BusStatisticsSnapshot& s, MessagePriority priority, bool admitted) {
  uint64_t* field = nullptr;
  switch (priority) {
    case MessagePriority::kLow:
      field = admitted ? &s.low_priority_published : &s.low_priority_dropped;
      break;
    case MessagePriority::kMedium:
      field = admitted ? &s.medium_priority_published : &s.medium_priority_dropped;
      break;
    default:
      field = admitted ? &s.high_priority_published : &s.high_priority_dropped;
      break;
  }
  ++*field;
  ++(admitted ? s.messages_published : s.messages_dropped);
}

// ----- identities: threads and handles
// ------------------------------------------------------------

TEST(ProducerLanes, AThreadPublishesOnItsOwnLane) {
  auto bus = std::make_unique<LanesBus>();
  uint32_t lane = ~0U;
  std::array<uint32_t, LanesBus::LaneCount() + 1U> depths{};
  std::thread producer([&] {
    ASSERT_TRUE(bus->Publish(Item{0U, 0U}, 1U));
    lane = LaneOfThisThread<LanesBus>();
    for (uint32_t ring = 0U; ring <= LanesBus::LaneCount(); ++ring) {
      depths[ring] = bus->LaneOccupancy(ring);
    }
  });
  producer.join();
  ASSERT_LT(lane, LanesBus::LaneCount()) << "only the main thread may hold another identity";
  for (uint32_t ring = 0U; ring <= LanesBus::LaneCount(); ++ring) {
    EXPECT_EQ(depths[ring], ring == lane ? 1U : 0U) << "ring " << ring;
  }
  EXPECT_EQ(bus->LaneOccupancy(LanesBus::LaneCount() + 1U), 0U) << "beyond the rings: 0";
  EXPECT_EQ(bus->QueueOccupancy(), 1U);
  EXPECT_EQ(LanesBus::TotalCapacity(), 64U + 16U + 4U * 128U);
}

TEST(ProducerLanes, AHandleOwnsALaneAndAMovedFromHandlePublishesNothing) {
  auto bus = std::make_unique<LanesBus>();
  LanesBus::Producer handle = bus->MakeProducer();
  ASSERT_TRUE(handle.HasOwnLane());
  const uint32_t lane = handle.Lane();
  ASSERT_LT(lane, LanesBus::LaneCount());
  EXPECT_TRUE(handle.Publish(Item{0U, 0U}, 1U));
  EXPECT_TRUE(handle.PublishFast(Item{0U, 1U}, 1U, 42U, MessagePriority::kLow));
  EXPECT_TRUE(handle.PublishEmplace<Item>(1U, MessagePriority::kMedium, Item{0U, 2U}));
  const std::array<Item, 2> batch = {Item{0U, 3U}, Item{0U, 4U}};
  EXPECT_EQ(handle.PublishBatch(batch.data(), 2U, 1U), 2U);
  EXPECT_EQ(bus->LaneOccupancy(lane), 5U);
  EXPECT_TRUE(handle.PublishWithPriority(Item{0U, 5U}, 1U, MessagePriority::kHigh));
  EXPECT_EQ(bus->LaneOccupancy(lane), 5U) << "HIGH travels on the HIGH ring";
  EXPECT_EQ(bus->HighRingOccupancy(), 1U);

  LanesBus::Producer moved = std::move(handle);
  EXPECT_FALSE(handle.HasOwnLane());  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_FALSE(handle.Publish(Item{0U, 6U}, 1U));
  EXPECT_FALSE(handle.PublishWithPriority(Item{0U, 6U}, 1U, MessagePriority::kHigh));
  EXPECT_FALSE(handle.PublishFast(Item{0U, 6U}, 1U, 0U));
  EXPECT_FALSE(handle.PublishEmplace<Item>(1U, MessagePriority::kMedium, Item{0U, 6U}));
  EXPECT_EQ(handle.PublishBatch(batch.data(), 2U, 1U), 0U);
  LanesBus::Producer empty;
  EXPECT_FALSE(empty.HasOwnLane());
  EXPECT_FALSE(empty.Publish(Item{0U, 6U}, 1U));
  EXPECT_EQ(bus->QueueOccupancy(), 6U) << "the moved-from and the empty handle published nothing";

  ASSERT_TRUE(moved.HasOwnLane());
  EXPECT_EQ(moved.Lane(), lane);
  EXPECT_TRUE(moved.Publish(Item{0U, 6U}, 1U));
  EXPECT_EQ(bus->LaneOccupancy(lane), 6U);
  // Per-producer order within a priority class: the lane's 6 LOW/MEDIUM in order, the HIGH first.
  std::vector<uint32_t> seqs;
  while (bus->ProcessBatchWith([&seqs](const auto& m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Item>) {
      seqs.push_back(m.seq);
    }
  }) != 0U) {
  }
  EXPECT_EQ(seqs, (std::vector<uint32_t>{5U, 0U, 1U, 2U, 3U, 4U, 6U}));
}

TEST(ProducerLanes, HandlesBeyondTheLanesUseTheSharedRing) {
  auto bus = std::make_unique<LanesBus>();
  std::vector<LanesBus::Producer> handles;
  // At most one identity is held by another (this thread), so within LaneCount() + 1 handles
  // one finds no lane.
  while (handles.size() <= LanesBus::LaneCount() &&
         (handles.empty() || handles.back().HasOwnLane())) {
    handles.push_back(bus->MakeProducer());
  }
  ASSERT_FALSE(handles.back().HasOwnLane());
  EXPECT_EQ(handles.back().Lane(), LanesBus::LaneCount());
  EXPECT_GE(handles.size(), LanesBus::LaneCount());
  for (std::size_t i = 0U; i + 1U < handles.size(); ++i) {
    EXPECT_TRUE(handles[i].HasOwnLane()) << i;
    for (std::size_t j = 0U; j < i; ++j) {
      EXPECT_NE(handles[i].Lane(), handles[j].Lane()) << "two handles own one lane";
    }
  }
  EXPECT_TRUE(handles.back().Publish(Item{0U, 0U}, 1U));
  EXPECT_EQ(bus->LaneOccupancy(LanesBus::LaneCount()), 1U);
  for (uint32_t lane = 0U; lane < LanesBus::LaneCount(); ++lane) {
    EXPECT_EQ(bus->LaneOccupancy(lane), 0U);
  }
  const uint32_t first_lane = handles.front().Lane();
  handles.clear();  // every identity returned
  LanesBus::Producer again = bus->MakeProducer();
  EXPECT_TRUE(again.HasOwnLane());
  EXPECT_EQ(again.Lane(), first_lane) << "the lowest free identity is taken first";
}

// G-3: a lane left by an exited thread is reused, its messages first
TEST(ProducerLanes, ALaneLeasedByAThreadThatExitsIsReusedAndItsMessagesComeFirst) {
  auto bus = std::make_unique<LanesBus>();
  uint32_t first_lane = ~0U;
  uint32_t second_lane = ~0U;
  std::thread first([&] {
    for (uint32_t seq = 0U; seq < 3U; ++seq) {
      EXPECT_TRUE(bus->Publish(Item{1U, seq}, 1U));
    }
    EXPECT_TRUE(bus->PublishWithPriority(Item{1U, 3U}, 1U, MessagePriority::kHigh));
    first_lane = LaneOfThisThread<LanesBus>();
  });
  first.join();  // its identity, and with it the lane, is returned at thread exit
  ASSERT_LT(first_lane, LanesBus::LaneCount());
  EXPECT_EQ(bus->LaneOccupancy(first_lane), 3U);
  std::thread second([&] {
    for (uint32_t seq = 0U; seq < 3U; ++seq) {
      EXPECT_TRUE(bus->PublishWithPriority(Item{2U, seq}, 2U, MessagePriority::kLow));
    }
    second_lane = LaneOfThisThread<LanesBus>();
  });
  second.join();
  EXPECT_EQ(second_lane, first_lane) << "the returned lane is the lowest free one";
  EXPECT_EQ(bus->LaneOccupancy(first_lane), 6U);
  const BusStatisticsSnapshot s = bus->GetLaneStatistics(first_lane);
  EXPECT_EQ(s.medium_priority_published, 3U);
  EXPECT_EQ(s.low_priority_published, 3U);
  EXPECT_EQ(s.high_priority_published, 1U) << "HIGH counts for its producer's lane";

  std::vector<std::pair<uint32_t, uint32_t>> delivered;
  while (bus->ProcessBatchWith([&delivered](const auto& m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Item>) {
      delivered.emplace_back(m.producer, m.seq);
    }
  }) != 0U) {
  }
  const std::vector<std::pair<uint32_t, uint32_t>> expected = {
      {1U, 3U}, {1U, 0U}, {1U, 1U}, {1U, 2U}, {2U, 0U}, {2U, 1U}, {2U, 2U}};
  EXPECT_EQ(delivered, expected);
}

TEST(ProducerLanes, ABatchTakesEveryMessagePublishedBeforeItStarted) {
  auto bus = std::make_unique<LanesBus>();
  LanesBus::Producer handle = bus->MakeProducer();
  ASSERT_TRUE(handle.HasOwnLane());
  for (uint32_t seq = 0U; seq < 20U; ++seq) {
    ASSERT_TRUE(handle.Publish(Item{1U, seq}, 1U));
  }
  ASSERT_EQ(bus->ProcessBatch(), LanesBus::kBatchSize);  // saw 20, took 16
  for (uint32_t seq = 20U; seq < 25U; ++seq) {
    ASSERT_TRUE(handle.Publish(Item{1U, seq}, 1U));
  }
  EXPECT_EQ(bus->LaneOccupancy(handle.Lane()), 9U);
  // The 4 the consumer saw before and the 5 published since: all queued when the batch starts.
  EXPECT_EQ(bus->ProcessBatch(), 9U);
  EXPECT_EQ(bus->QueueOccupancy(), 0U);
}

// G-10: the destructor destroys what is queued in the lanes
TEST(ProducerLanes, DestroyingTheBusDestroysEveryMessageLeftInALane) {
  g_live_counted.store(0);
  {
    auto bus = std::make_unique<LanesBus>();
    LanesBus::Producer handle = bus->MakeProducer();
    ASSERT_TRUE(handle.HasOwnLane());
    for (uint32_t seq = 0U; seq < 40U; ++seq) {
      ASSERT_TRUE(handle.Publish(Counted{1U, seq}, 1U));
    }
    // The consumer takes one batch: it has seen the lane's tail at 40 and consumed 16.
    EXPECT_EQ(bus->ProcessBatch(), LanesBus::kBatchSize);
    // Published after the consumer's last look at the tail.
    for (uint32_t seq = 40U; seq < 50U; ++seq) {
      ASSERT_TRUE(handle.Publish(Counted{1U, seq}, 1U));
    }
    EXPECT_EQ(g_live_counted.load(), 50 - static_cast<int>(LanesBus::kBatchSize));
    EXPECT_EQ(bus->LaneOccupancy(handle.Lane()), 50U - LanesBus::kBatchSize);
  }
  EXPECT_EQ(g_live_counted.load(), 0) << "messages left in a lane were not destroyed with the bus";
}

// ----- admission per lane ---------------------------------------------------------------------

template <typename Bus>
uint32_t PublishUntilRefused(typename Bus::Producer& handle, MessagePriority priority,
                             uint32_t& seq) {
  uint32_t admitted = 0U;
  while (handle.PublishWithPriority(Item{0U, seq}, 1U, priority)) {
    ++admitted;
    ++seq;
  }
  return admitted;
}

// G-3: admission per lane, at every threshold
// G-7: LOW < 60 %, MEDIUM < 80 %, HIGH < 99 % of the lane
TEST(ProducerLanes, AdmissionThresholdsArePercentagesOfTheLaneDepth) {
  g_queue_full.store(0U);
  auto bus = std::make_unique<LanesNoHighBus>();
  bus->SetErrorCallback(&CountErrors);
  LanesNoHighBus::Producer owner = bus->MakeProducer();
  LanesNoHighBus::Producer neighbour = bus->MakeProducer();
  ASSERT_TRUE(owner.HasOwnLane());
  ASSERT_TRUE(neighbour.HasOwnLane());
  const uint32_t lane = owner.Lane();
  uint32_t seq = 0U;

  EXPECT_EQ(PublishUntilRefused<LanesNoHighBus>(owner, MessagePriority::kLow, seq), kLaneLow);
  EXPECT_EQ(bus->LaneOccupancy(lane), kLaneLow);
  EXPECT_EQ(bus->GetBackpressureLevel(), BackpressureLevel::kNormal);  // 60 %
  EXPECT_EQ(PublishUntilRefused<LanesNoHighBus>(owner, MessagePriority::kMedium, seq),
            kLaneMedium - kLaneLow);
  EXPECT_EQ(bus->GetBackpressureLevel(), BackpressureLevel::kWarning);  // 80 %
  EXPECT_EQ(PublishUntilRefused<LanesNoHighBus>(owner, MessagePriority::kHigh, seq),
            kLaneHigh - kLaneMedium);
  EXPECT_EQ(bus->LaneOccupancy(lane), kLaneHigh);
  EXPECT_EQ(bus->GetBackpressureLevel(), BackpressureLevel::kCritical);  // 99 %
  EXPECT_EQ(bus->QueueUtilizationPercent(), 99U);
  EXPECT_EQ(g_queue_full.load(), 3U);

  // The full lane refuses only its owner: the neighbour's lane and the shared ring are empty.
  EXPECT_TRUE(neighbour.PublishWithPriority(Item{1U, 0U}, 2U, MessagePriority::kLow));
  EXPECT_EQ(bus->LaneOccupancy(neighbour.Lane()), 1U);

  // kBareMetal admits up to the whole lane.
  bus->SetPerformanceMode(PerformanceMode::kBareMetal);
  EXPECT_EQ(PublishUntilRefused<LanesNoHighBus>(owner, MessagePriority::kLow, seq),
            LanesNoHighBus::kLaneDepth - kLaneHigh);
  EXPECT_EQ(bus->LaneOccupancy(lane), LanesNoHighBus::kLaneDepth);
  EXPECT_EQ(bus->GetBackpressureLevel(), BackpressureLevel::kFull);
  EXPECT_EQ(bus->QueueUtilizationPercent(), 100U);
  EXPECT_EQ(bus->QueueOccupancy(), LanesNoHighBus::kLaneDepth + 1U);
  EXPECT_EQ(g_queue_full.load(), 3U) << "kBareMetal reports nothing";

  bus->SetPerformanceMode(PerformanceMode::kFullFeatured);
  const BusStatisticsSnapshot s = bus->GetLaneStatistics(lane);
  EXPECT_EQ(s.low_priority_published, kLaneLow);
  EXPECT_EQ(s.medium_priority_published, kLaneMedium - kLaneLow);
  EXPECT_EQ(s.high_priority_published, kLaneHigh - kLaneMedium);
  EXPECT_EQ(s.messages_dropped, 3U);
  EXPECT_EQ(bus->GetLaneStatistics(neighbour.Lane()).low_priority_published, 1U);
}

TEST(ProducerLanes, WithAHighRingHighIsAdmittedWhateverTheFillOfTheLane) {
  auto bus = std::make_unique<LanesBus>();
  LanesBus::Producer owner = bus->MakeProducer();
  ASSERT_TRUE(owner.HasOwnLane());
  uint32_t seq = 0U;
  bus->SetPerformanceMode(PerformanceMode::kBareMetal);
  EXPECT_EQ(PublishUntilRefused<LanesBus>(owner, MessagePriority::kMedium, seq),
            LanesBus::kLaneDepth);
  bus->SetPerformanceMode(PerformanceMode::kFullFeatured);
  EXPECT_EQ(PublishUntilRefused<LanesBus>(owner, MessagePriority::kHigh, seq),
            LanesBus::kHighQueueDepth);
  EXPECT_EQ(bus->LaneOccupancy(owner.Lane()), LanesBus::kLaneDepth);
  EXPECT_EQ(bus->HighRingOccupancy(), LanesBus::kHighQueueDepth);
  EXPECT_EQ(bus->QueueOccupancy(), LanesBus::kLaneDepth + LanesBus::kHighQueueDepth);
}

// ----- fairness ----------------------------------------------------------------------------------

// G-3: every ready lane is served in each batch
TEST(ProducerLanes, OneBatchServesEveryFullLaneAndTheSharedRing) {
  auto bus = std::make_unique<LanesBus>();
  LaneOwners<LanesBus> owners(*bus);
  constexpr uint32_t kRings = LanesBus::LaneCount() + 1U;
  bus->SetPerformanceMode(PerformanceMode::kBareMetal);
  std::array<uint32_t, kRings> published{};
  for (uint32_t ring = 0U; ring < kRings; ++ring) {
    while (owners.Publish(ring, Item{ring, published[ring]}, MessagePriority::kMedium)) {
      ++published[ring];
    }
    EXPECT_EQ(published[ring], ring < LanesBus::LaneCount() ? 128U : 64U) << "ring " << ring;
    EXPECT_EQ(bus->LaneOccupancy(ring), published[ring]);
  }
  std::array<uint32_t, kRings> next{};  // per ring: the next seq expected (FIFO per producer)
  std::array<uint32_t, kRings> in_batch{};
  bool in_order = true;
  auto visitor = [&](const auto& m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Item>) {
      in_order = in_order && m.seq == next[m.producer];
      ++next[m.producer];
      ++in_batch[m.producer];
    }
  };
  // While every ring still holds messages, each batch serves every one of them.
  const uint32_t batches_while_all_full = 64U / LanesBus::kBatchSize;
  for (uint32_t batch = 0U; batch < batches_while_all_full; ++batch) {
    in_batch = {};
    ASSERT_EQ(bus->ProcessBatchWith(visitor), LanesBus::kBatchSize);
    for (uint32_t ring = 0U; ring < kRings; ++ring) {
      EXPECT_GE(in_batch[ring], 1U) << "batch " << batch << ": ring " << ring << " not served";
    }
  }
  while (bus->ProcessBatchWith(visitor) != 0U) {
  }
  EXPECT_TRUE(in_order);
  EXPECT_EQ(next, published) << "every message delivered once";
}

// ----- statistics per lane
// ------------------------------------------------------------------------

// G-3: a producer's refusals are counted exactly per lane; the lanes add up to the bus
// G-5: statistics exact per lane and in total
TEST(ProducerLanes, PerLaneStatisticsAreExactAndAddUpToTheBusStatistics) {
  g_queue_full.store(0U);
  auto bus = std::make_unique<LanesBus>();
  bus->SetErrorCallback(&CountErrors);
  LaneOwners<LanesBus> owners(*bus);
  constexpr uint32_t kRings = LanesBus::LaneCount() + 1U;
  std::array<BusStatisticsSnapshot, kRings> expected{};
  const auto publish = [&](uint32_t ring, MessagePriority priority, uint32_t seq) {
    Count(expected[ring], priority, owners.Publish(ring, Item{ring, seq}, priority));
  };
  // A different mix per ring; ring 1 is driven past its LOW threshold and the HIGH ring past
  // full, so the refusals are per lane too.
  for (uint32_t ring = 0U; ring < kRings; ++ring) {
    for (uint32_t i = 0U; i < ring + 1U; ++i) {
      publish(ring, MessagePriority::kLow, i);
    }
    for (uint32_t i = 0U; i < 2U * ring; ++i) {
      publish(ring, MessagePriority::kMedium, 100U + i);
    }
    publish(ring, MessagePriority::kHigh, 200U);
  }
  for (uint32_t i = 0U; i < kLaneLow + 5U; ++i) {
    publish(1U, MessagePriority::kLow, 300U + i);
  }
  for (uint32_t i = 0U; i < LanesBus::kHighQueueDepth; ++i) {
    publish(3U, MessagePriority::kHigh, 400U + i);
  }
  EXPECT_GT(expected[1].low_priority_dropped, 0U);
  EXPECT_GT(expected[3].high_priority_dropped, 0U);

  BusStatisticsSnapshot sum{};
  BusStatisticsSnapshot sum_expected{};
  for (uint32_t ring = 0U; ring < kRings; ++ring) {
    const BusStatisticsSnapshot lane = bus->GetLaneStatistics(ring);
    ExpectPublishedDropped(lane, expected[ring], ring < LanesBus::LaneCount() ? "lane" : "shared");
    EXPECT_EQ(lane.messages_processed, 0U) << "the consumer counts for the whole bus only";
    sum = Sum(sum, lane);
    sum_expected = Sum(sum_expected, expected[ring]);
  }
  ExpectPublishedDropped(bus->GetStatistics(), sum, "bus total = sum of the lanes");
  ExpectPublishedDropped(sum, sum_expected, "sum of the lanes");
  EXPECT_EQ(g_queue_full.load(), sum_expected.messages_dropped);
  ExpectPublishedDropped(bus->GetLaneStatistics(kRings), BusStatisticsSnapshot{}, "beyond");

  // Everything published is delivered; the consumer counts it for the whole bus.
  while (bus->ProcessBatch() != 0U) {
  }
  EXPECT_EQ(bus->GetStatistics().messages_processed, sum_expected.messages_published);

  bus->ResetStatistics();
  for (uint32_t ring = 0U; ring < kRings; ++ring) {
    ExpectPublishedDropped(bus->GetLaneStatistics(ring), BusStatisticsSnapshot{}, "after reset");
  }
  EXPECT_EQ(bus->GetStatistics().messages_processed, 0U);
  for (uint32_t ring = 0U; ring < kRings; ++ring) {
    EXPECT_TRUE(owners.Publish(ring, Item{ring, 999U}, MessagePriority::kMedium));
  }
  for (uint32_t ring = 0U; ring < kRings; ++ring) {
    const BusStatisticsSnapshot lane = bus->GetLaneStatistics(ring);
    EXPECT_EQ(lane.medium_priority_published, 1U) << "ring " << ring;
    EXPECT_EQ(lane.messages_published, 1U) << "ring " << ring;
    EXPECT_EQ(lane.messages_dropped, 0U) << "ring " << ring;
  }
  EXPECT_EQ(bus->GetStatistics().messages_published, kRings);
}

// ----- isolation: a flooding producer takes nobody else's capacity
// --------------------------------

/// 12 lanes of 256 slots (MEDIUM limit 205), a 1024-slot HIGH ring, batches of 64.
using IsolationTraits = mccc_test::WithLanes<mccc_test::Ring<256U, 64U, 1024U>, 12U, 256U>;
using IsolationBus = mccc::AsyncBus<Payload, IsolationTraits>;

// G-3: a flooding producer never causes another producer's refusal
TEST(ProducerLanes, AFloodingProducerNeverCausesAnotherProducersRefusal) {
  constexpr uint32_t kOthers = 7U;
  constexpr uint32_t kProducers = kOthers + 1U;  // producer 0 floods
  // Each other producer publishes this many MEDIUM and as many HIGH: its lane never holds more
  // than its own 100 (below the MEDIUM limit of 205), and all HIGH fit the HIGH ring (700 of
  // 1024), so with isolation not one may be refused, however slow the consumer.
  constexpr uint32_t kPerPriority = 100U;
  static_assert(kPerPriority < mccc::PriorityAdmission<256U>::LimitFor(MessagePriority::kMedium),
                "");
  static_assert(kOthers * kPerPriority < IsolationTraits::kHighQueueDepth, "");
  g_queue_full.store(0U);
  g_other_errors.store(0U);
  auto bus = std::make_unique<IsolationBus>();
  bus->SetErrorCallback(&CountErrors);

  // Flooder's record.
  std::array<uint64_t, mccc::kPriorityCount> flood_admitted{};
  std::array<uint64_t, mccc::kPriorityCount> flood_refused{};
  std::array<uint32_t, kProducers> lane_of{};
  std::array<uint64_t, kProducers> refused_by{};
  std::atomic<bool> flooded{false};  // the flooder's lane reached its limit once
  std::atomic<uint32_t> others_done{0U};
  std::atomic<bool> producers_done{false};

  // Consumer side: per producer and priority class (LOW/MEDIUM, HIGH), the next sequence.
  std::array<std::array<uint64_t, 2>, kProducers> delivered{};
  std::array<std::array<int64_t, 2>, kProducers> last_seq{};
  for (auto& row : last_seq) {
    row = {-1, -1};
  }
  uint64_t order_violations = 0U;
  auto visitor = [&](const auto& m, const MessageHeader& h) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Item>) {
      const std::size_t cls = h.priority == MessagePriority::kHigh ? 1U : 0U;
      if (static_cast<int64_t>(m.seq) <= last_seq[m.producer][cls]) {
        ++order_violations;
      }
      last_seq[m.producer][cls] = m.seq;
      ++delivered[m.producer][cls];
    }
  };

  std::thread flooder([&] {
    lane_of[0] = LaneOfThisThread<IsolationBus>();
    uint32_t seq = 0U;
    const auto flood_once = [&] {
      const MessagePriority priority =
          (seq % 3U) == 0U ? MessagePriority::kLow : MessagePriority::kMedium;
      const bool ok = bus->PublishWithPriority(Item{0U, seq}, 1U, priority);
      ++(ok ? flood_admitted : flood_refused)[static_cast<std::size_t>(priority)];
      ++seq;
      return ok;
    };
    // Before anyone else starts: fill the lane up to its first refusal.
    while (flood_once()) {
    }
    flooded.store(true);
    // Then without pause while the others publish (a yield now and then lets them run on a
    // machine with fewer cores than threads).
    while (others_done.load(std::memory_order_relaxed) < kOthers) {
      for (uint32_t i = 0U; i < 1024U; ++i) {
        static_cast<void>(flood_once());
      }
      std::this_thread::yield();
    }
  });
  while (!flooded.load()) {
    std::this_thread::yield();
  }
  std::thread consumer([&] {
    for (;;) {
      if (bus->ProcessBatchWith(visitor) != 0U) {
        continue;
      }
      if (producers_done.load()) {
        while (bus->ProcessBatchWith(visitor) != 0U) {
        }
        return;
      }
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> others;
  // Every producer holds its identity (and so its lane) from before the first publish of any
  // of them until all are done: a thread that finished early would return its lane at exit,
  // and a slow-starting one (thread creation under an emulator) would inherit it.
  std::atomic<uint32_t> leased{0U};
  for (uint32_t p = 1U; p < kProducers; ++p) {
    others.emplace_back([&, p] {
      lane_of[p] = LaneOfThisThread<IsolationBus>();
      leased.fetch_add(1U);
      while (leased.load() < kOthers) {
        std::this_thread::yield();
      }
      for (uint32_t i = 0U; i < 2U * kPerPriority; ++i) {
        const MessagePriority priority =
            (i % 2U) == 0U ? MessagePriority::kMedium : MessagePriority::kHigh;
        if (!bus->PublishWithPriority(Item{p, i}, 1U + p, priority)) {
          ++refused_by[p];
        }
        std::this_thread::sleep_for(std::chrono::microseconds(20));  // a modest rate
      }
      others_done.fetch_add(1U);
      while (others_done.load() < kOthers) {  // keep the lane until every producer is done
        std::this_thread::yield();
      }
    });
  }
  for (std::thread& t : others) {
    t.join();
  }
  flooder.join();
  producers_done.store(true);
  consumer.join();

  for (uint32_t p = 0U; p < kProducers; ++p) {
    ASSERT_LT(lane_of[p], IsolationBus::LaneCount()) << "producer " << p << " has no lane";
    for (uint32_t q = 0U; q < p; ++q) {
      EXPECT_NE(lane_of[p], lane_of[q]);
    }
  }
  uint64_t flood_admitted_total = 0U;
  uint64_t flood_refused_total = 0U;
  for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
    flood_admitted_total += flood_admitted[i];
    flood_refused_total += flood_refused[i];
  }
  EXPECT_GT(flood_refused_total, 0U);
  EXPECT_EQ(order_violations, 0U) << "per-producer order within a priority class";
  EXPECT_EQ(delivered[0][0], flood_admitted_total) << "every admitted flood message, once";
  EXPECT_EQ(delivered[0][1], 0U);
  for (uint32_t p = 1U; p < kProducers; ++p) {
    EXPECT_EQ(refused_by[p], 0U) << "producer " << p << " was refused";
    EXPECT_EQ(delivered[p][0], kPerPriority) << "producer " << p;
    EXPECT_EQ(delivered[p][1], kPerPriority) << "producer " << p;
    const BusStatisticsSnapshot s = bus->GetLaneStatistics(lane_of[p]);
    EXPECT_EQ(s.medium_priority_published, kPerPriority) << "producer " << p;
    EXPECT_EQ(s.high_priority_published, kPerPriority) << "producer " << p;
    EXPECT_EQ(s.messages_dropped, 0U) << "producer " << p;
  }
  const BusStatisticsSnapshot flood = bus->GetLaneStatistics(lane_of[0]);
  EXPECT_EQ(flood.low_priority_published, flood_admitted[0]);
  EXPECT_EQ(flood.medium_priority_published, flood_admitted[1]);
  EXPECT_EQ(flood.low_priority_dropped, flood_refused[0]);
  EXPECT_EQ(flood.medium_priority_dropped, flood_refused[1]);
  EXPECT_EQ(flood.high_priority_published + flood.high_priority_dropped, 0U);
  const BusStatisticsSnapshot total = bus->GetStatistics();
  EXPECT_EQ(total.messages_dropped, flood_refused_total);
  EXPECT_EQ(total.messages_published, flood_admitted_total + 2U * kOthers * kPerPriority);
  EXPECT_EQ(total.messages_processed, total.messages_published);
  EXPECT_EQ(g_queue_full.load(), flood_refused_total);
  EXPECT_EQ(g_other_errors.load(), 0U);
  EXPECT_EQ(bus->QueueOccupancy(), 0U);
}

// G-8 with producer lanes: a PublishBatch is delivered in order, with one timestamp and
// increasing ids, but the consumer serves the rings in turn, so another ring's message may come
// between its messages (on a bus without lanes it is contiguous: bus/test_async_bus.cpp).
TEST(ProducerLanes, ABatchArrivesInOrderWithOneTimestampAndOtherRingsMayComeBetween) {
  struct Seen {
    uint32_t producer;
    uint32_t seq;
    uint64_t msg_id;
    uint64_t timestamp_us;
  };
  // Both ways: the batch on a lane with a message on the shared ring, and the other way round.
  for (const bool batch_on_lane : {true, false}) {
    auto bus = std::make_unique<SmallShareBus>();  // fresh: the consumer starts with lane 0
    // A handle with a lane, and one without (the others hold the remaining lanes meanwhile).
    std::vector<SmallShareBus::Producer> handles;
    SmallShareBus::Producer lane;
    SmallShareBus::Producer shared;
    while (!shared.HasOwnLane() && handles.size() < SmallShareBus::LaneCount() + 2U) {
      SmallShareBus::Producer handle = bus->MakeProducer();
      if (handle.HasOwnLane() && !lane.HasOwnLane()) {
        lane = std::move(handle);
      } else if (!handle.HasOwnLane()) {
        shared = std::move(handle);
        break;
      } else {
        handles.push_back(std::move(handle));
      }
    }
    ASSERT_TRUE(lane.HasOwnLane());
    ASSERT_EQ(shared.Lane(), SmallShareBus::LaneCount());
    std::vector<Seen> seen;
    const auto handle = bus->Subscribe<Item>([&](const Item& item, const MessageHeader& header) {
      seen.push_back(Seen{item.producer, item.seq, header.msg_id, header.timestamp_us});
    });
    const std::array<Item, 4> batch{Item{1U, 0U}, Item{1U, 1U}, Item{1U, 2U}, Item{1U, 3U}};
    SmallShareBus::Producer& batch_producer = batch_on_lane ? lane : shared;
    SmallShareBus::Producer& other_producer = batch_on_lane ? shared : lane;
    ASSERT_EQ(batch_producer.PublishBatch(batch.data(), 4U, 1U), 4U);
    ASSERT_TRUE(other_producer.Publish(Item{2U, 0U}, 2U));
    while (bus->ProcessBatch() != 0U) {
    }
    ASSERT_EQ(seen.size(), 5U);
    std::vector<uint32_t> batch_seqs;
    std::vector<uint64_t> batch_stamps;
    std::size_t other_at = seen.size();
    for (std::size_t i = 0U; i < seen.size(); ++i) {
      EXPECT_EQ(seen[i].msg_id, i + 1U) << "ids follow delivery order";
      if (seen[i].producer == 1U) {
        batch_seqs.push_back(seen[i].seq);
        batch_stamps.push_back(seen[i].timestamp_us);
      } else {
        other_at = i;
      }
    }
    EXPECT_EQ(batch_seqs, (std::vector<uint32_t>{0U, 1U, 2U, 3U})) << "in publish order";
    EXPECT_EQ(batch_stamps, std::vector<uint64_t>(4U, batch_stamps.front())) << "one timestamp";
    if (batch_on_lane) {
      // The lane comes before the shared ring in the first round; its share is 2, so the
      // shared ring's message is dispatched between the batch's second and third message.
      EXPECT_EQ(other_at, 2U) << "another ring's message between the batch's messages";
    }
    EXPECT_TRUE(bus->Unsubscribe(handle));
  }
}

// ----- signal handlers that publish while their thread is inside a lane publish
// -----------------

LanesBus* g_signal_bus = nullptr;
// What the handlers do: SIGUSR1 publishes one Item (or, with g_handler_raises set, a Raiser that
// raises SIGUSR2 while it is built); SIGUSR2 publishes one Item. Each records the result.
volatile std::sig_atomic_t g_handler_raises = 0;
volatile std::sig_atomic_t g_handler_runs = 0;
volatile std::sig_atomic_t g_handler_admitted = 0;
volatile std::sig_atomic_t g_inner_runs = 0;
volatile std::sig_atomic_t g_inner_admitted = 0;

extern "C" void PublishFromHandler(int /*signal*/) {
  const auto seq = static_cast<uint32_t>(g_handler_runs);
  g_handler_runs = g_handler_runs + 1;
  bool admitted = false;
  if (g_handler_raises != 0) {
    g_raise_signal.store(SIGUSR2);
    admitted = g_signal_bus->PublishEmplace<Raiser>(9U, MessagePriority::kMedium, 100U + seq);
    g_raise_in_constructor.store(false);
  } else {
    admitted = g_signal_bus->PublishWithPriority(Item{9U, seq}, 9U, MessagePriority::kMedium);
  }
  g_handler_admitted = g_handler_admitted + (admitted ? 1 : 0);
}

extern "C" void PublishFromInnerHandler(int /*signal*/) {
  g_inner_runs = g_inner_runs + 1;
  const bool admitted =
      g_signal_bus->PublishWithPriority(Item{8U, 0U}, 8U, MessagePriority::kMedium);
  g_inner_admitted = g_inner_admitted + (admitted ? 1 : 0);
}

/// Installs both handlers for a test and restores the previous ones.
class SignalHandlers {
 public:
  explicit SignalHandlers(LanesBus& bus) {
    g_signal_bus = &bus;
    g_handler_raises = 0;
    g_handler_runs = 0;
    g_handler_admitted = 0;
    g_inner_runs = 0;
    g_inner_admitted = 0;
    g_raise_signal.store(SIGUSR1);
    struct sigaction action {};
    action.sa_handler = &PublishFromHandler;
    sigemptyset(&action.sa_mask);
    EXPECT_EQ(sigaction(SIGUSR1, &action, &previous_usr1_), 0);
    action.sa_handler = &PublishFromInnerHandler;
    EXPECT_EQ(sigaction(SIGUSR2, &action, &previous_usr2_), 0);
  }
  ~SignalHandlers() {
    EXPECT_EQ(sigaction(SIGUSR1, &previous_usr1_, nullptr), 0);
    EXPECT_EQ(sigaction(SIGUSR2, &previous_usr2_, nullptr), 0);
    g_raise_in_constructor.store(false);
    g_signal_bus = nullptr;
  }
  SignalHandlers(const SignalHandlers&) = delete;
  SignalHandlers& operator=(const SignalHandlers&) = delete;

 private:
  struct sigaction previous_usr1_ {};
  struct sigaction previous_usr2_ {};
};

/// Every message of `bus` in delivery order, as "producer:seq" (a Raiser as "R:seq").
std::vector<std::string> DrainInOrder(LanesBus& bus) {
  std::vector<std::string> order;
  while (bus.ProcessBatchWith([&](const auto& m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Raiser>) {
      order.push_back("R:" + std::to_string(m.seq));
    } else {
      order.push_back(std::to_string(m.producer) + ":" + std::to_string(m.seq));
    }
  }) != 0U) {
  }
  return order;
}

// G-1, G-3: a handler that interrupts its thread's lane publish leaves its message in the
// lane's handler area; the interrupted publish takes it in behind its own, so the thread's
// messages, the handler's included, arrive in publish order, and nothing uses the shared ring.
TEST(ProducerLanes, ASignalHandlerInterruptingALanePublishKeepsItsThreadsOrder) {
  auto bus = std::make_unique<LanesBus>();
  SignalHandlers handlers(*bus);
  uint32_t lane = ~0U;
  std::array<uint32_t, LanesBus::LaneCount() + 1U> depth_after_raise{};
  std::array<bool, 5> admitted{};
  std::thread producer([&] {
    lane = LaneOfThisThread<LanesBus>();
    admitted[0] = bus->Publish(Item{1U, 0U}, 1U);
    // Raiser is built inside this thread's lane slot; its constructor raises the signal, so
    // the handler (message 9:0) runs while the lane publish is under way.
    g_raise_in_constructor.store(true);
    admitted[1] = bus->PublishEmplace<Raiser>(1U, MessagePriority::kMedium, 7U);
    g_raise_in_constructor.store(false);
    for (uint32_t ring = 0U; ring <= LanesBus::LaneCount(); ++ring) {
      depth_after_raise[ring] = bus->LaneOccupancy(ring);
    }
    // A handler that interrupts no publish (message 9:1) publishes on the lane directly.
    admitted[2] = std::raise(SIGUSR1) == 0;
    admitted[3] = bus->Publish(Item{1U, 1U}, 1U);
    admitted[4] = bus->Publish(Item{1U, 2U}, 1U);
  });
  producer.join();
  ASSERT_LT(lane, LanesBus::LaneCount());
  EXPECT_EQ(admitted, (std::array<bool, 5>{true, true, true, true, true}));
  EXPECT_EQ(g_handler_runs, 2);
  EXPECT_EQ(g_handler_admitted, 2);
  for (uint32_t ring = 0U; ring <= LanesBus::LaneCount(); ++ring) {
    EXPECT_EQ(depth_after_raise[ring], ring == lane ? 3U : 0U)
        << "ring " << ring << ": the handler's message belongs in its thread's lane";
  }
  EXPECT_EQ(bus->LaneOccupancy(lane), 6U);
  EXPECT_EQ(bus->GetLaneStatistics(lane).medium_priority_published, 6U);
  EXPECT_EQ(bus->GetLaneStatistics(LanesBus::LaneCount()).messages_published, 0U);
  EXPECT_EQ(DrainInOrder(*bus),
            (std::vector<std::string>{"1:0", "R:7", "9:0", "9:1", "1:1", "1:2"}))
      << "one producer, one order: the handler's messages between the thread's neighbours";
}

// The handler's admission counts what the interrupted publish may still add and what already
// waits in the handler area, so the lane always has room for it; a batch published by a handler
// inside a lane publish takes at most the area's kHandlerSlots.
TEST(ProducerLanes, AHandlerBatchInsideALanePublishIsBoundedByTheHandlerArea) {
  using Lane = mccc::detail::ProducerLane<int, 8U, uint32_t, 64U, 2U>;
  static_assert(Lane::kHandlerSlots == 2U, "");
  auto lane = std::make_unique<Lane>();
  const auto no_claim = []() noexcept { return 0; };
  const auto publish = [&](uint32_t limit, uint32_t count, const auto& construct) {
    return lane->Publish(limit, count, no_claim, construct);
  };
  const auto build = [](int value) {
    return [value](void* storage, uint32_t index, int) noexcept {
      ::new (storage) int(value + static_cast<int>(index));
    };
  };
  mccc::detail::LaneClaim<uint32_t> inner{};
  mccc::detail::LaneClaim<uint32_t> inner_full{};
  mccc::detail::LaneClaim<uint32_t> innermost{};
  // The outer publish of 3 elements (10, 11, 12); while it builds its first, a "handler"
  // publishes a batch of 3 (20..22), and while that one builds its first element a handler of
  // the handler publishes one (50): refused, the area is being written. Then the first handler
  // publishes one more (30): the area holds 2, so the batch got 2 and this one is refused.
  const mccc::detail::LaneClaim<uint32_t> outer =
      publish(8U, 3U, [&](void* storage, uint32_t index, int) noexcept {
        if (index == 0U) {
          inner = publish(8U, 3U, [&](void* inner_storage, uint32_t inner_index, int) noexcept {
            if (inner_index == 0U) {
              innermost = publish(8U, 1U, build(50));
            }
            ::new (inner_storage) int(20 + static_cast<int>(inner_index));
          });
          inner_full = publish(8U, 1U, build(30));
        }
        ::new (storage) int(10 + static_cast<int>(index));
      });
  EXPECT_EQ(outer.admitted, 3U);
  EXPECT_EQ(outer.taken_in, 2U) << "the 2 the handler left, made visible with its own 3";
  EXPECT_EQ(inner.admitted, 2U);
  EXPECT_EQ(inner.taken_in, 0U);
  EXPECT_EQ(innermost.admitted, 0U) << "two handlers at once in the handler area: refused";
  EXPECT_EQ(inner_full.admitted, 0U);
  EXPECT_EQ(lane->Occupancy(), 5U);
  // A second outer publish of 1 while the lane holds 5 of 8 with a limit of 7: a handler
  // inside it counts 5 + 1 (the outer's) and is admitted for exactly 1 of its 3.
  const mccc::detail::LaneClaim<uint32_t> second =
      publish(7U, 1U, [&](void* storage, uint32_t, int) noexcept {
        inner = publish(7U, 3U, build(40));
        EXPECT_EQ(lane->Occupancy(), 5U)
            << "a handler's elements wait for the publish it interrupted";
        ::new (storage) int(13);
      });
  EXPECT_EQ(second.admitted, 1U);
  EXPECT_EQ(second.taken_in, 1U);
  EXPECT_EQ(inner.admitted, 1U);
  EXPECT_EQ(lane->Occupancy(), 7U);
  std::vector<int> order;
  while (lane->ConsumeBatch(8U, [&](int& value) noexcept { order.push_back(value); }) != 0U) {
  }
  EXPECT_EQ(order, (std::vector<int>{10, 11, 12, 20, 21, 13, 40}));
}

// A handler interrupted in turn by another handler while it writes the handler area: the inner
// publish is refused (kQueueFull, counted); everything else arrives once, in order.
TEST(ProducerLanes, AHandlerInterruptedWhileWritingTheHandlerAreaRefusesTheInnerPublish) {
#if MCCC_TSAN
  GTEST_SKIP() << "ThreadSanitizer delivers a signal raised inside a handler only after that "
                  "handler returns; the lane's own test of the nesting runs everywhere "
                  "(AHandlerBatchInsideALanePublishIsBoundedByTheHandlerArea)";
#endif
  auto bus = std::make_unique<LanesBus>();
  SignalHandlers handlers(*bus);
  bus->SetErrorCallback(&CountErrors);
  g_queue_full.store(0U);
  g_other_errors.store(0U);
  g_handler_raises = 1;
  uint32_t lane = ~0U;
  bool admitted = false;
  std::thread producer([&] {
    lane = LaneOfThisThread<LanesBus>();
    g_raise_in_constructor.store(true);
    admitted = bus->PublishEmplace<Raiser>(1U, MessagePriority::kMedium, 7U);
    g_raise_in_constructor.store(false);
  });
  producer.join();
  ASSERT_LT(lane, LanesBus::LaneCount());
  EXPECT_TRUE(admitted);
  EXPECT_EQ(g_handler_runs, 1);
  EXPECT_EQ(g_handler_admitted, 1);
  EXPECT_EQ(g_inner_runs, 1);
  EXPECT_EQ(g_inner_admitted, 0) << "two handlers at once in the handler area: refused";
  EXPECT_EQ(g_queue_full.load(), 1U);
  EXPECT_EQ(g_other_errors.load(), 0U);
  const BusStatisticsSnapshot stats = bus->GetLaneStatistics(lane);
  EXPECT_EQ(stats.medium_priority_published, 2U);
  EXPECT_EQ(stats.medium_priority_dropped, 1U);
  EXPECT_EQ(DrainInOrder(*bus), (std::vector<std::string>{"R:7", "R:100"}));
}

}  // namespace

// The memory formula for a lane (docs/priorities-and-lanes.md): kLaneDepth envelopes back to back
// (no per-slot word, no padding between them) and the handler area's kHandlerSlots envelopes,
// rounded up to a line, plus three lines (the owner's, the published tail's, the consumer's).
TEST(ProducerLanes, ALaneTakesItsEnvelopesBackToBackPlusThreeLines) {
  using Envelope = mccc::MessageEnvelope<Payload>;
  constexpr std::size_t kLine = 64U;
  constexpr std::size_t kDepth = 128U;
  using Lane = mccc::detail::ProducerLane<Envelope, kDepth, uint64_t, kLine>;
  const std::size_t slots = (kDepth + Lane::kHandlerSlots) * sizeof(Envelope);
  EXPECT_EQ(sizeof(Lane), 3U * kLine + (slots + kLine - 1U) / kLine * kLine);
}
