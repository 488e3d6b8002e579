// SPDX-License-Identifier: MIT
// The HIGH ring (Traits::kHighQueueDepth): HIGH messages travel on a ring of their own and the
// consumer dispatches every ready HIGH message before the next LOW/MEDIUM one, in ProcessBatch
// and ProcessBatchWith alike. Deterministic: threads are joined before the consumer runs (or
// inside a callback), so every expected order and count is exact.
//
// Each behaviour runs on a bus whose LOW/MEDIUM messages share one ring (kProducerLanes = 0) and
// on a bus with producer lanes (the publishing thread's lane, or the shared ring when it has none:
// both are 64 slots deep, so the thresholds are the same numbers either way).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

using mccc::BackpressureLevel;
using mccc::BusError;
using mccc::MessageHeader;
using mccc::MessagePriority;
using mccc::PerformanceMode;

struct Note {
  uint32_t seq;
};
using Payload = std::variant<Note>;

/// HIGH messages carry seq >= kHighSeq so a log shows which is which without the header.
constexpr uint32_t kHighSeq = 1000U;

// Structs, not aliases: a typed test names its type parameter in its CTest name.
struct RingTraits : mccc_test::Ring<64U, 8U, 16U> {};
struct LaneTraits : mccc_test::WithLanes<RingTraits, 2U, 64U> {};
using NoHighRingTraits = mccc_test::NoHighRing<RingTraits>;

using RingBus = mccc::AsyncBus<Payload, RingTraits>;
using LaneBus = mccc::AsyncBus<Payload, LaneTraits>;
using NoHighRingBus = mccc::AsyncBus<Payload, NoHighRingTraits>;

// The LOW/MEDIUM limits of a 64-slot ring or lane (60 % and 80 % of 64, rounded up).
constexpr uint32_t kLowLimit = 39U;
constexpr uint32_t kMediumLimit = 52U;
static_assert(mccc::PriorityAdmission<64U>::LimitFor(MessagePriority::kLow) == kLowLimit, "");
static_assert(mccc::PriorityAdmission<64U>::LimitFor(MessagePriority::kMedium) == kMediumLimit, "");

// ----- error callback (a plain function pointer, hence globals) ----------------------------------

std::atomic<uint32_t> g_queue_full{0U};
std::atomic<uint32_t> g_other_errors{0U};
std::atomic<uint64_t> g_last_full_id{0U};

void RecordError(BusError error, uint64_t msg_id) {
  if (error == BusError::kQueueFull) {
    g_queue_full.fetch_add(1U);
    g_last_full_id.store(msg_id);
  } else {
    g_other_errors.fetch_add(1U);
  }
}

void ResetErrors() {
  g_queue_full.store(0U);
  g_other_errors.store(0U);
  g_last_full_id.store(0U);
}

// ----- consumer side ------------------------------------------------------------------------

struct Dispatched {
  uint64_t msg_id;
  MessagePriority priority;
  uint32_t seq;
};

/// What a LOW/MEDIUM dispatch does besides being logged.
enum class OnLowMedium {
  kNothing,
  kPublishHighHere,          // the consumer thread publishes HIGH (kHighSeq + seq)
  kPublishHighFromThread,    // a thread publishes it; the callback joins that thread
  kPublishLowAtThirdOfBatch  // the third dispatch of a batch (any priority) publishes a LOW
};

template <typename Bus>
struct Consumer {
  explicit Consumer(Bus& b) : bus(b) {}

  void OnMessage(const Note& note, const MessageHeader& header) {
    log.push_back(Dispatched{header.msg_id, header.priority, note.seq});
    ++in_batch;
    if (action == OnLowMedium::kPublishLowAtThirdOfBatch && in_batch == 3U) {
      low_admitted_in_callback = bus.PublishWithPriority(Note{500U}, 9U, MessagePriority::kLow);
      full_id_seen_in_callback = g_last_full_id.load();
    }
    if (header.priority == MessagePriority::kHigh) {
      return;
    }
    const Note high{kHighSeq + note.seq};
    switch (action) {
      case OnLowMedium::kPublishHighHere:
        EXPECT_TRUE(bus.PublishWithPriority(high, 7U, MessagePriority::kHigh));
        break;
      case OnLowMedium::kPublishHighFromThread: {
        std::thread publisher([this, high] {
          EXPECT_TRUE(bus.PublishWithPriority(high, 8U, MessagePriority::kHigh));
        });
        publisher.join();
        break;
      }
      case OnLowMedium::kPublishLowAtThirdOfBatch:
      case OnLowMedium::kNothing:
        break;
    }
  }

  /// One ProcessBatch (subscribers) or ProcessBatchWith (visitor) call.
  uint32_t Process() {
    in_batch = 0U;
    if (use_visitor) {
      return bus.ProcessBatchWith(
          [this](const Note& note, const MessageHeader& header) { OnMessage(note, header); });
    }
    if (!subscribed) {
      subscribed = true;
      EXPECT_TRUE(bus.template Subscribe<Note>(
                         [this](const Note& note, const MessageHeader& h) { OnMessage(note, h); })
                      .IsValid());
    }
    return bus.ProcessBatch();
  }

  uint32_t Drain() {
    uint32_t total = 0U;
    for (uint32_t n = Process(); n != 0U; n = Process()) {
      total += n;
    }
    return total;
  }

  Bus& bus;
  bool use_visitor = false;
  bool subscribed = false;
  OnLowMedium action = OnLowMedium::kNothing;
  uint32_t in_batch = 0U;
  bool low_admitted_in_callback = true;
  uint64_t full_id_seen_in_callback = 0U;
  std::vector<Dispatched> log;
};

/// Publishes MEDIUM messages seq first, first + 1, ... until one is refused; returns how many
/// were admitted.
template <typename Bus>
uint32_t FillWithMedium(Bus& bus, uint32_t first = 0U) {
  uint32_t admitted = 0U;
  while (bus.PublishWithPriority(Note{first + admitted}, 1U, MessagePriority::kMedium)) {
    ++admitted;
  }
  return admitted;
}

/// Publishes one HIGH message from a thread of its own (joined before returning).
template <typename Bus>
bool PublishHighFromOtherThread(Bus& bus, uint32_t seq) {
  bool admitted = false;
  std::thread publisher(
      [&] { admitted = bus.PublishWithPriority(Note{seq}, 2U, MessagePriority::kHigh); });
  publisher.join();
  return admitted;
}

template <typename Bus>
class HighRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetErrors();
    bus_ = std::make_unique<Bus>();
    bus_->SetErrorCallback(&RecordError);
  }
  Bus& bus() { return *bus_; }

 private:
  std::unique_ptr<Bus> bus_;
};

using BusTypes = ::testing::Types<RingBus, LaneBus>;
TYPED_TEST_SUITE(HighRingTest, BusTypes);

// ----- HIGH first ----------------------------------------------------------------------------

template <typename Bus>
void ExpectHighDispatchedFirst(Bus& bus, bool use_visitor) {
  ASSERT_EQ(FillWithMedium(bus), kMediumLimit);
  EXPECT_FALSE(bus.PublishWithPriority(Note{900U}, 1U, MessagePriority::kLow));
  ASSERT_TRUE(PublishHighFromOtherThread(bus, kHighSeq));
  EXPECT_EQ(bus.HighRingOccupancy(), 1U);
  EXPECT_EQ(bus.QueueOccupancy(), kMediumLimit + 1U);

  Consumer<Bus> consumer(bus);
  consumer.use_visitor = use_visitor;
  // One batch: the HIGH message, then kBatchSize MEDIUM ones in their order.
  ASSERT_EQ(consumer.Process(), 1U + Bus::kBatchSize);
  ASSERT_EQ(consumer.log.size(), 1U + Bus::kBatchSize);
  EXPECT_EQ(consumer.log[0].priority, MessagePriority::kHigh);
  EXPECT_EQ(consumer.log[0].seq, kHighSeq);
  for (uint32_t i = 0U; i < consumer.log.size(); ++i) {
    EXPECT_EQ(consumer.log[i].msg_id, i + 1U) << "msg_id in delivery order";
    if (i > 0U) {
      EXPECT_EQ(consumer.log[i].priority, MessagePriority::kMedium);
      EXPECT_EQ(consumer.log[i].seq, i - 1U);
    }
  }
  EXPECT_EQ(consumer.Drain(), kMediumLimit - Bus::kBatchSize);
  EXPECT_EQ(bus.QueueOccupancy(), 0U);
}

// G-2: at most one LOW/MEDIUM dispatch between a HIGH publish and its dispatch (tests below)
TYPED_TEST(HighRingTest, HighIsDispatchedBeforeAFullRingProcessBatch) {
  ExpectHighDispatchedFirst(this->bus(), /*use_visitor=*/false);
}

TYPED_TEST(HighRingTest, HighIsDispatchedBeforeAFullRingProcessBatchWith) {
  ExpectHighDispatchedFirst(this->bus(), /*use_visitor=*/true);
}

TYPED_TEST(HighRingTest, HighIsDispatchedFirstWhenTheRingIsCompletelyFull) {
  auto& bus = this->bus();
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);
  ASSERT_EQ(FillWithMedium(bus), 64U);
  ASSERT_TRUE(PublishHighFromOtherThread(bus, kHighSeq));
  Consumer<TypeParam> consumer(bus);
  consumer.use_visitor = true;
  ASSERT_EQ(consumer.Process(), 1U + TypeParam::kBatchSize);
  EXPECT_EQ(consumer.log[0].seq, kHighSeq);
  EXPECT_EQ(consumer.log[1].seq, 0U);
}

// ----- at most one LOW/MEDIUM dispatch between a HIGH's publication and its dispatch ------------

template <typename Bus>
void ExpectHighRightAfterTheCallbackThatPublishedIt(Bus& bus, OnLowMedium action,
                                                    bool use_visitor) {
  constexpr uint32_t kLows = 20U;  // more than two batches, below the LOW limit
  for (uint32_t i = 0U; i < kLows; ++i) {
    ASSERT_TRUE(bus.PublishWithPriority(Note{i}, 1U, MessagePriority::kLow));
  }
  Consumer<Bus> consumer(bus);
  consumer.use_visitor = use_visitor;
  consumer.action = action;
  EXPECT_EQ(consumer.Drain(), 2U * kLows);
  // L0 H0 L1 H1 ...: each HIGH is the very next dispatch after the callback that published it,
  // also when that callback was the last LOW of a batch.
  ASSERT_EQ(consumer.log.size(), 2U * kLows);
  for (uint32_t i = 0U; i < kLows; ++i) {
    const Dispatched& low = consumer.log[2U * i];
    const Dispatched& high = consumer.log[2U * i + 1U];
    EXPECT_EQ(low.priority, MessagePriority::kLow) << "position " << 2U * i;
    EXPECT_EQ(low.seq, i);
    EXPECT_EQ(high.priority, MessagePriority::kHigh) << "position " << 2U * i + 1U;
    EXPECT_EQ(high.seq, kHighSeq + i);
    EXPECT_EQ(low.msg_id, 2U * i + 1U);
    EXPECT_EQ(high.msg_id, 2U * i + 2U);
  }
  EXPECT_EQ(bus.QueueOccupancy(), 0U);
}

TYPED_TEST(HighRingTest, HighPublishedInACallbackIsTheNextDispatch) {
  ExpectHighRightAfterTheCallbackThatPublishedIt(this->bus(), OnLowMedium::kPublishHighHere,
                                                 /*use_visitor=*/false);
}

TYPED_TEST(HighRingTest, HighPublishedInAVisitorIsTheNextDispatch) {
  ExpectHighRightAfterTheCallbackThatPublishedIt(this->bus(), OnLowMedium::kPublishHighHere,
                                                 /*use_visitor=*/true);
}

TYPED_TEST(HighRingTest, HighPublishedByAnotherThreadDuringACallbackIsTheNextDispatch) {
  ExpectHighRightAfterTheCallbackThatPublishedIt(this->bus(), OnLowMedium::kPublishHighFromThread,
                                                 /*use_visitor=*/false);
}

TYPED_TEST(HighRingTest, HighPublishedByAnotherThreadDuringAVisitorIsTheNextDispatch) {
  ExpectHighRightAfterTheCallbackThatPublishedIt(this->bus(), OnLowMedium::kPublishHighFromThread,
                                                 /*use_visitor=*/true);
}

template <typename Bus>
void ExpectHighOfTheLastCallbackInTheSameBatch(Bus& bus, uint32_t lows, bool use_visitor) {
  for (uint32_t i = 0U; i < lows; ++i) {
    ASSERT_TRUE(bus.PublishWithPriority(Note{i}, 1U, MessagePriority::kLow));
  }
  Consumer<Bus> consumer(bus);
  consumer.use_visitor = use_visitor;
  consumer.action = OnLowMedium::kPublishHighHere;
  // Every LOW publishes a HIGH, the batch's last one too: the batch does not return before
  // dispatching it (the caller may do other work before its next ProcessBatch).
  EXPECT_EQ(consumer.Process(), 2U * lows);
  EXPECT_EQ(bus.HighRingOccupancy(), 0U);
  EXPECT_EQ(bus.QueueOccupancy(), 0U);
}

TYPED_TEST(HighRingTest, HighPublishedInTheLastCallbackOfABatchIsDispatchedInThatBatch) {
  ExpectHighOfTheLastCallbackInTheSameBatch(this->bus(), TypeParam::kBatchSize,
                                            /*use_visitor=*/false);
}

TYPED_TEST(HighRingTest, HighPublishedInTheOnlyVisitOfABatchIsDispatchedInThatBatch) {
  ExpectHighOfTheLastCallbackInTheSameBatch(this->bus(), 1U, /*use_visitor=*/true);
}

// ----- a LOW/MEDIUM flood never refuses HIGH ---------------------------------------------------

// G-2: a LOW/MEDIUM flood never refuses HIGH; only a full HIGH ring does
TYPED_TEST(HighRingTest, FloodNeverRefusesHighOnlyAFullHighRingDoes) {
  auto& bus = this->bus();
  ASSERT_EQ(FillWithMedium(bus), kMediumLimit);  // the 53rd MEDIUM was refused
  for (uint32_t i = 0U; i < 3U; ++i) {
    EXPECT_FALSE(bus.PublishWithPriority(Note{900U + i}, 1U, MessagePriority::kLow));
  }
  EXPECT_EQ(g_queue_full.load(), 4U);
  for (uint32_t i = 0U; i < TypeParam::kHighQueueDepth; ++i) {
    EXPECT_TRUE(bus.PublishWithPriority(Note{kHighSeq + i}, 2U, MessagePriority::kHigh)) << i;
  }
  EXPECT_EQ(g_queue_full.load(), 4U) << "no HIGH refused while the HIGH ring has room";
  EXPECT_FALSE(bus.PublishWithPriority(Note{kHighSeq + 99U}, 2U, MessagePriority::kHigh));
  EXPECT_EQ(g_queue_full.load(), 5U);
  EXPECT_EQ(g_other_errors.load(), 0U);

  const mccc::BusStatisticsSnapshot s = bus.GetStatistics();
  EXPECT_EQ(s.medium_priority_published, kMediumLimit);
  EXPECT_EQ(s.medium_priority_dropped, 1U);
  EXPECT_EQ(s.low_priority_published, 0U);
  EXPECT_EQ(s.low_priority_dropped, 3U);
  EXPECT_EQ(s.high_priority_published, TypeParam::kHighQueueDepth);
  EXPECT_EQ(s.high_priority_dropped, 1U);
  EXPECT_EQ(s.messages_published, kMediumLimit + TypeParam::kHighQueueDepth);
  EXPECT_EQ(s.messages_dropped, 5U);

  // One batch frees kBatchSize HIGH slots (a HIGH flood ends the batch early): exactly that many
  // HIGH messages are admitted again.
  Consumer<TypeParam> consumer(bus);
  EXPECT_EQ(consumer.Process(), TypeParam::kBatchSize);
  for (uint32_t i = 0U; i < TypeParam::kBatchSize; ++i) {
    EXPECT_TRUE(bus.PublishWithPriority(Note{kHighSeq + 100U + i}, 2U, MessagePriority::kHigh));
  }
  EXPECT_FALSE(bus.PublishWithPriority(Note{kHighSeq + 199U}, 2U, MessagePriority::kHigh));
  EXPECT_EQ(bus.GetStatistics().high_priority_dropped, 2U);
  EXPECT_EQ(g_queue_full.load(), 6U);
}

TYPED_TEST(HighRingTest, BareMetalFullRingStillAdmitsHighUntilTheHighRingIsFull) {
  auto& bus = this->bus();
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);
  ASSERT_EQ(FillWithMedium(bus), 64U);
  for (uint32_t i = 0U; i < TypeParam::kHighQueueDepth; ++i) {
    EXPECT_TRUE(bus.PublishWithPriority(Note{kHighSeq + i}, 2U, MessagePriority::kHigh)) << i;
  }
  EXPECT_FALSE(bus.PublishWithPriority(Note{kHighSeq + 99U}, 2U, MessagePriority::kHigh));
  EXPECT_EQ(g_queue_full.load(), 0U) << "kBareMetal reports nothing";
  EXPECT_EQ(bus.GetStatistics().messages_published, 0U) << "kBareMetal counts nothing";
  EXPECT_EQ(bus.GetStatistics().messages_dropped, 0U);
  EXPECT_EQ(bus.QueueOccupancy(), 64U + TypeParam::kHighQueueDepth);
}

// ----- msg_id and kQueueFull --------------------------------------------------------------------

TYPED_TEST(HighRingTest, QueueFullReportsTheNextIdAsOfTheLastFinishedBatch) {
  auto& bus = this->bus();
  ASSERT_EQ(FillWithMedium(bus), kMediumLimit);
  EXPECT_EQ(g_last_full_id.load(), 1U) << "nothing delivered yet: the next id is 1";
  for (uint32_t i = 0U; i < TypeParam::kHighQueueDepth; ++i) {
    ASSERT_TRUE(bus.PublishWithPriority(Note{kHighSeq + i}, 2U, MessagePriority::kHigh));
  }
  g_last_full_id.store(0U);
  EXPECT_FALSE(bus.PublishWithPriority(Note{kHighSeq + 99U}, 2U, MessagePriority::kHigh));
  EXPECT_EQ(g_last_full_id.load(), 1U);

  Consumer<TypeParam> consumer(bus);
  ASSERT_EQ(consumer.Process(), TypeParam::kBatchSize);  // HIGH 1..8 (ids 1..8)
  g_last_full_id.store(0U);
  EXPECT_FALSE(bus.PublishWithPriority(Note{901U}, 1U, MessagePriority::kMedium));
  EXPECT_EQ(g_last_full_id.load(), TypeParam::kBatchSize + 1U);

  // During a batch the report still names the next id as of the last finished batch: the
  // third dispatch of this batch (id 11) publishes a LOW that the full ring refuses.
  consumer.action = OnLowMedium::kPublishLowAtThirdOfBatch;
  const uint32_t second = consumer.Process();
  EXPECT_EQ(second, TypeParam::kBatchSize + TypeParam::kBatchSize);  // 8 HIGH, 8 MEDIUM
  EXPECT_FALSE(consumer.low_admitted_in_callback);
  EXPECT_EQ(consumer.full_id_seen_in_callback, TypeParam::kBatchSize + 1U);
  ASSERT_EQ(consumer.log.size(), 3U * TypeParam::kBatchSize);
  for (uint32_t i = 0U; i < consumer.log.size(); ++i) {
    EXPECT_EQ(consumer.log[i].msg_id, i + 1U);
    EXPECT_EQ(consumer.log[i].priority,
              i < 2U * TypeParam::kBatchSize ? MessagePriority::kHigh : MessagePriority::kMedium)
        << i;
  }
  // After that batch, a refusal reports the id the next delivered message receives.
  g_last_full_id.store(0U);
  consumer.action = OnLowMedium::kNothing;
  // The ring holds 44 MEDIUM now: above the LOW limit.
  EXPECT_FALSE(bus.PublishWithPriority(Note{902U}, 1U, MessagePriority::kLow));
  const uint64_t reported = g_last_full_id.load();
  EXPECT_EQ(reported, 3U * TypeParam::kBatchSize + 1U);
  ASSERT_EQ(consumer.Process(), TypeParam::kBatchSize);
  EXPECT_EQ(consumer.log[3U * TypeParam::kBatchSize].msg_id, reported);
}

// ----- a HIGH flood beyond kBatchSize ends a batch early
// ------------------------------------------

// G-2: a batch dispatches at most kBatchSize messages of each class
TYPED_TEST(HighRingTest, HighFloodBeyondTheBatchEndsTheBatchEarly) {
  auto& bus = this->bus();
  for (uint32_t i = 0U; i < 3U; ++i) {
    ASSERT_TRUE(bus.PublishWithPriority(Note{i}, 1U, MessagePriority::kLow));
  }
  constexpr uint32_t kHighs = 12U;  // kBatchSize + 4
  for (uint32_t i = 0U; i < kHighs; ++i) {
    ASSERT_TRUE(bus.PublishWithPriority(Note{kHighSeq + i}, 2U, MessagePriority::kHigh));
  }
  Consumer<TypeParam> consumer(bus);
  consumer.use_visitor = true;
  // First batch: kBatchSize HIGH and nothing else (HIGH is still ready).
  EXPECT_EQ(consumer.Process(), TypeParam::kBatchSize);
  // Second batch starts with the remaining HIGH, then the LOW ones.
  EXPECT_EQ(consumer.Process(), (kHighs - TypeParam::kBatchSize) + 3U);
  EXPECT_EQ(consumer.Process(), 0U);
  ASSERT_EQ(consumer.log.size(), kHighs + 3U);
  for (uint32_t i = 0U; i < kHighs; ++i) {
    EXPECT_EQ(consumer.log[i].seq, kHighSeq + i);
  }
  for (uint32_t i = 0U; i < 3U; ++i) {
    EXPECT_EQ(consumer.log[kHighs + i].seq, i);
  }
}

// G-2: a HIGH flood that never pauses (the HIGH ring full at every batch start) still leaves
// LOW/MEDIUM one message per lane of HIGH messages (kHighQueueDepth / kBatchSize = 2 batches
// here), and no HIGH message waits for more than one LOW/MEDIUM dispatch
TYPED_TEST(HighRingTest, AHighFloodLeavesLowMediumOneMessagePerLaneOfHighAndNoHighWaitsForTwo) {
  auto& bus = this->bus();
  constexpr uint32_t kBatch = TypeParam::kBatchSize;
  static_assert(TypeParam::kHighQueueDepth == 2U * kBatch,
                "two batches of HIGH fill the HIGH ring");
  for (uint32_t i = 0U; i < 3U; ++i) {
    ASSERT_TRUE(bus.PublishWithPriority(Note{i}, 1U, MessagePriority::kMedium));
  }
  uint32_t normals = 0U;                     // LOW/MEDIUM dispatches so far
  std::vector<uint32_t> normals_at_publish;  // per HIGH message (seq - kHighSeq)
  uint32_t longest_wait = 0U;  // LOW/MEDIUM dispatches between a HIGH publish and its dispatch
  std::vector<uint32_t> medium_seqs;
  uint32_t in_batch = 0U;
  std::vector<uint32_t> medium_batches;
  uint32_t batch = 0U;
  ASSERT_TRUE(bus.template Subscribe<Note>([&](const Note& note, const MessageHeader& header) {
                   ++in_batch;
                   if (header.priority == MessagePriority::kHigh) {
                     const uint32_t waited = normals - normals_at_publish.at(note.seq - kHighSeq);
                     longest_wait = waited > longest_wait ? waited : longest_wait;
                   } else {
                     ++normals;
                     medium_seqs.push_back(note.seq);
                     medium_batches.push_back(batch);
                   }
                 })
                  .IsValid());
  const auto top_up_high = [&] {
    while (
        bus.PublishWithPriority(Note{kHighSeq + static_cast<uint32_t>(normals_at_publish.size())},
                                2U, MessagePriority::kHigh)) {
      normals_at_publish.push_back(normals);
    }
  };
  for (batch = 0U; batch < 8U; ++batch) {
    top_up_high();
    ASSERT_EQ(bus.HighRingOccupancy(), TypeParam::kHighQueueDepth);
    in_batch = 0U;
    const uint32_t n = bus.ProcessBatch();
    EXPECT_EQ(n, in_batch);
    // HIGH consumed reaches 16, 32, 48 (a whole lane since the last MEDIUM) in batches 1, 3, 5.
    const bool medium_due = batch == 1U || batch == 3U || batch == 5U;
    EXPECT_EQ(n, kBatch + (medium_due ? 1U : 0U)) << "batch " << batch;
  }
  EXPECT_EQ(medium_seqs, (std::vector<uint32_t>{0U, 1U, 2U})) << "in their order, one a turn";
  EXPECT_EQ(medium_batches, (std::vector<uint32_t>{1U, 3U, 5U}));
  EXPECT_EQ(longest_wait, 1U) << "G-2: at most one LOW/MEDIUM dispatch before a waiting HIGH";
}

TYPED_TEST(HighRingTest, ExactlyABatchOfHighLeavesTheLowMediumShareOfTheBatch) {
  auto& bus = this->bus();
  for (uint32_t i = 0U; i < 5U; ++i) {
    ASSERT_TRUE(bus.PublishWithPriority(Note{i}, 1U, MessagePriority::kMedium));
  }
  for (uint32_t i = 0U; i < TypeParam::kBatchSize; ++i) {
    ASSERT_TRUE(bus.PublishWithPriority(Note{kHighSeq + i}, 2U, MessagePriority::kHigh));
  }
  Consumer<TypeParam> consumer(bus);
  // kBatchSize HIGH use up the HIGH share; none is left, so the LOW/MEDIUM share follows.
  EXPECT_EQ(consumer.Process(), TypeParam::kBatchSize + 5U);
}

// ----- introspection covers both rings ----------------------------------------------------------

// G-2: QueueDepth and the backpressure level cover the HIGH ring
TYPED_TEST(HighRingTest, QueueDepthAndBackpressureCoverTheHighRing) {
  auto& bus = this->bus();
  EXPECT_EQ(bus.HighRingOccupancy(), 0U);
  EXPECT_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kNormal);
  EXPECT_EQ(TypeParam::TotalCapacity(),
            64U + 16U + uint64_t{TypeParam::LaneCount()} * TypeParam::kLaneDepth);

  // 15 of 16 HIGH slots: 93 % of the HIGH ring, kCritical, while the normal ring is empty.
  for (uint32_t i = 0U; i < 15U; ++i) {
    ASSERT_TRUE(bus.PublishWithPriority(Note{kHighSeq + i}, 2U, MessagePriority::kHigh));
  }
  EXPECT_EQ(bus.HighRingOccupancy(), 15U);
  EXPECT_EQ(bus.QueueOccupancy(), 15U);
  EXPECT_EQ(bus.QueueUtilizationPercent(), 93U);
  EXPECT_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kCritical);
  ASSERT_TRUE(bus.PublishWithPriority(Note{kHighSeq + 15U}, 2U, MessagePriority::kHigh));
  EXPECT_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kFull);
  EXPECT_EQ(bus.QueueUtilizationPercent(), 100U);

  // 52 of 64 normal slots (81 %, kWarning) do not hide the full HIGH ring; the depth is the sum.
  ASSERT_EQ(FillWithMedium(bus), kMediumLimit);
  EXPECT_EQ(bus.QueueOccupancy(), kMediumLimit + 16U);
  EXPECT_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kFull);

  // Once the HIGH ring is empty the normal ring decides.
  Consumer<TypeParam> consumer(bus);
  ASSERT_EQ(consumer.Process(), TypeParam::kBatchSize);
  ASSERT_EQ(consumer.Process(), TypeParam::kBatchSize + TypeParam::kBatchSize);
  EXPECT_EQ(bus.HighRingOccupancy(), 0U);
  EXPECT_EQ(bus.QueueOccupancy(), kMediumLimit - TypeParam::kBatchSize);  // 44 of 64: 68 %
  EXPECT_EQ(bus.QueueUtilizationPercent(), 68U);
  EXPECT_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kNormal);
  uint32_t lanes_total = 0U;
  for (uint32_t lane = 0U; lane <= TypeParam::LaneCount(); ++lane) {
    lanes_total += bus.LaneOccupancy(lane);
  }
  EXPECT_EQ(lanes_total, kMediumLimit - TypeParam::kBatchSize)
      << "the lanes and the shared ring hold every LOW/MEDIUM message; HIGH is not in them";
}

// ----- kHighQueueDepth = 0: HIGH shares the ring (the behaviour without a HIGH ring) -------------

TEST(NoHighRing, HighSharesTheRingInFifoOrder) {
  ResetErrors();
  auto bus = std::make_unique<NoHighRingBus>();
  bus->SetErrorCallback(&RecordError);
  EXPECT_EQ(NoHighRingBus::kHighQueueDepth, 0U);
  EXPECT_EQ(NoHighRingBus::TotalCapacity(), 64U);
  const MessagePriority order[] = {MessagePriority::kLow, MessagePriority::kHigh,
                                   MessagePriority::kMedium, MessagePriority::kHigh,
                                   MessagePriority::kLow};
  for (uint32_t i = 0U; i < 5U; ++i) {
    ASSERT_TRUE(bus->PublishWithPriority(Note{i}, 1U, order[i]));
  }
  EXPECT_EQ(bus->HighRingOccupancy(), 0U);
  EXPECT_EQ(bus->QueueOccupancy(), 5U);
  EXPECT_EQ(bus->LaneOccupancy(NoHighRingBus::LaneCount()), 5U);
  Consumer<NoHighRingBus> consumer(*bus);
  EXPECT_EQ(consumer.Process(), 5U);
  ASSERT_EQ(consumer.log.size(), 5U);
  for (uint32_t i = 0U; i < 5U; ++i) {
    EXPECT_EQ(consumer.log[i].seq, i) << "FIFO across priorities";
    EXPECT_EQ(consumer.log[i].priority, order[i]);
    EXPECT_EQ(consumer.log[i].msg_id, i + 1U);
  }
}

TEST(NoHighRing, HighIsAdmittedUpToNinetyNinePercentOfTheSharedRingAndWaitsItsTurn) {
  ResetErrors();
  auto bus = std::make_unique<NoHighRingBus>();
  bus->SetErrorCallback(&RecordError);
  ASSERT_EQ(FillWithMedium(*bus), kMediumLimit);
  uint32_t highs = 0U;
  while (bus->PublishWithPriority(Note{kHighSeq + highs}, 2U, MessagePriority::kHigh)) {
    ++highs;
  }
  EXPECT_EQ(highs, 64U - kMediumLimit);  // 99 % of 64 slots: every slot
  // One ring, position-derived ids: the refused HIGH reports the id after the 64 queued ones.
  EXPECT_EQ(g_last_full_id.load(), 65U);
  EXPECT_EQ(bus->GetStatistics().high_priority_dropped, 1U);
  Consumer<NoHighRingBus> consumer(*bus);
  EXPECT_EQ(consumer.Drain(), 64U);
  ASSERT_EQ(consumer.log.size(), 64U);
  for (uint32_t i = 0U; i < 64U; ++i) {
    EXPECT_EQ(consumer.log[i].msg_id, i + 1U);
    EXPECT_EQ(consumer.log[i].priority,
              i < kMediumLimit ? MessagePriority::kMedium : MessagePriority::kHigh)
        << "HIGH waits behind every older message";
  }
}

TEST(NoHighRing, HighPublishedInACallbackWaitsBehindTheQueuedMessages) {
  auto bus = std::make_unique<NoHighRingBus>();
  for (uint32_t i = 0U; i < 3U; ++i) {
    ASSERT_TRUE(bus->PublishWithPriority(Note{i}, 1U, MessagePriority::kLow));
  }
  Consumer<NoHighRingBus> consumer(*bus);
  consumer.action = OnLowMedium::kPublishHighHere;
  EXPECT_EQ(consumer.Drain(), 6U);
  ASSERT_EQ(consumer.log.size(), 6U);
  const uint32_t expected[] = {0U, 1U, 2U, kHighSeq, kHighSeq + 1U, kHighSeq + 2U};
  for (uint32_t i = 0U; i < 6U; ++i) {
    EXPECT_EQ(consumer.log[i].seq, expected[i]) << i;
  }
}

// ----- G-2's exception: a HIGH publisher suspended in its claimed slot
// ----------------------------

/// Spins in its constructor while g_stall is set, so PublishEmplace stays inside the claimed
/// slot of the HIGH ring: a publisher suspended between its claim and its publication.
std::atomic<bool> g_stall{false};
std::atomic<bool> g_stalled{false};
struct Stall {
  explicit Stall(uint32_t s) noexcept : seq(s) {
    if (g_stall.load()) {
      g_stalled.store(true);
      while (g_stall.load()) {
        mccc::CpuRelax();
      }
    }
  }
  uint32_t seq;
};
using StallPayload = std::variant<Stall, Note>;

// The HIGH ring is one FIFO: a HIGH message claimed after a suspended HIGH publisher waits for
// it while LOW/MEDIUM messages flow; once the publisher resumes, HIGH comes first again.
template <typename Traits>
void ExpectHighWaitsOnlyForASuspendedHighPublisher() {
  using Bus = mccc::AsyncBus<StallPayload, Traits>;
  auto bus = std::make_unique<Bus>();
  std::vector<uint32_t> log;
  const auto visit = mccc::make_overloaded([&](const Stall& m) { log.push_back(m.seq); },
                                           [&](const Note& m) { log.push_back(m.seq); });
  for (uint32_t i = 0U; i < 20U; ++i) {
    ASSERT_TRUE(bus->Publish(Note{i}, 1U));
  }
  g_stall.store(true);
  g_stalled.store(false);
  std::thread suspended([&] {
    EXPECT_TRUE(bus->template PublishEmplace<Stall>(2U, MessagePriority::kHigh, kHighSeq));
  });
  while (!g_stalled.load()) {
    mccc::CpuRelax();
  }
  ASSERT_TRUE(bus->PublishWithPriority(Note{kHighSeq + 1U}, 3U, MessagePriority::kHigh));
  // The later HIGH message is published, but waits behind the suspended claim.
  EXPECT_EQ(bus->ProcessBatchWith(visit), 8U);
  EXPECT_EQ(bus->ProcessBatchWith(visit), 8U);
  EXPECT_EQ(log, (std::vector<uint32_t>{0U, 1U, 2U, 3U, 4U, 5U, 6U, 7U, 8U, 9U, 10U, 11U, 12U, 13U,
                                        14U, 15U}))
      << "LOW/MEDIUM flow while the HIGH ring waits for its suspended publisher";
  g_stall.store(false);
  suspended.join();
  log.clear();
  EXPECT_EQ(bus->ProcessBatchWith(visit), 6U);
  EXPECT_EQ(log, (std::vector<uint32_t>{kHighSeq, kHighSeq + 1U, 16U, 17U, 18U, 19U}))
      << "resumed: both HIGH messages before the next LOW/MEDIUM one";
}

TEST(HighRing, AHighMessageWaitsOnlyForASuspendedHighPublisherBeforeIt) {
  ExpectHighWaitsOnlyForASuspendedHighPublisher<RingTraits>();
  ExpectHighWaitsOnlyForASuspendedHighPublisher<LaneTraits>();
}

}  // namespace
