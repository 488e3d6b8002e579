// SPDX-License-Identifier: MIT
// Unit tests of mccc::AsyncBus (single-threaded behaviour; concurrency lives in tests/stress/).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

struct SensorData {
  float temperature;
};
struct MotorCmd {
  int32_t speed;
};
// Tracks live instances so a leak or a double destroy fails a test.
struct Tracked {
  static inline int live = 0;
  int value = 0;
  explicit Tracked(int v) noexcept : value(v) { ++live; }
  Tracked(const Tracked& other) noexcept : value(other.value) { ++live; }
  Tracked(Tracked&& other) noexcept : value(other.value) {
    other.value = -1;  // moved-from marker
    ++live;
  }
  Tracked& operator=(const Tracked&) = default;
  Tracked& operator=(Tracked&&) = default;
  ~Tracked() { --live; }
};

using Payload = std::variant<SensorData, MotorCmd, Tracked, std::string>;
using Envelope = mccc::MessageEnvelope<Payload>;

using SmallTraits = mccc_test::WithCallbacks<mccc_test::SmallRing, 4U>;
using Bus = mccc::AsyncBus<Payload, SmallTraits>;

using TinyBatchTraits = mccc_test::WithBatch<SmallTraits, 3U>;

// No HIGH ring: one ring, msg_id = ring position, so kQueueFull reports the exact would-be id.
using SharedRingTraits = mccc_test::NoHighRing<SmallTraits>;
using SharedRingBus = mccc::AsyncBus<Payload, SharedRingTraits>;

// Error callback sink (plain function pointer API).
struct ErrorLog {
  static inline std::vector<std::pair<mccc::BusError, uint64_t>> entries;
  static void Record(mccc::BusError e, uint64_t id) { entries.emplace_back(e, id); }
};

class AsyncBusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ErrorLog::entries.clear();
    Tracked::live = 0;
  }
  std::unique_ptr<Bus> bus_ = std::make_unique<Bus>();
};

TEST_F(AsyncBusTest, EnvelopeCallbackReceivesHeaderAndPayload) {
  std::vector<Envelope> seen;
  const auto handle =
      bus_->Subscribe<SensorData>([&](const Envelope& env) { seen.push_back(env); });
  ASSERT_TRUE(handle.IsValid());
  EXPECT_TRUE(bus_->Publish(SensorData{36.5F}, 7U));
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0].header.msg_id, 1U);
  EXPECT_EQ(seen[0].header.sender_id, 7U);
  EXPECT_EQ(seen[0].header.priority, mccc::MessagePriority::kMedium);
  EXPECT_FLOAT_EQ(std::get<SensorData>(seen[0].payload).temperature, 36.5F);
}

TEST_F(AsyncBusTest, TypedCallbackFormsAndOnlyMatchingType) {
  int with_header = 0;
  int without_header = 0;
  bus_->Subscribe<MotorCmd>([&](const MotorCmd& m, const mccc::MessageHeader& h) {
    with_header += m.speed;
    EXPECT_EQ(h.priority, mccc::MessagePriority::kHigh);
  });
  bus_->Subscribe<MotorCmd>([&](const MotorCmd& m) { without_header += m.speed; });
  EXPECT_TRUE(bus_->PublishWithPriority(MotorCmd{5}, 2U, mccc::MessagePriority::kHigh));
  EXPECT_TRUE(
      bus_->Publish(SensorData{1.0F}, 2U));  // no subscriber for SensorData: consumed anyway
  EXPECT_EQ(bus_->ProcessBatch(), 2U);
  EXPECT_EQ(with_header, 5);
  EXPECT_EQ(without_header, 5);
}

TEST_F(AsyncBusTest, PublishFastUsesCallerTimestamp) {
  uint64_t ts = 0U;
  bus_->Subscribe<SensorData>(
      [&](const SensorData&, const mccc::MessageHeader& h) { ts = h.timestamp_us; });
  EXPECT_TRUE(bus_->PublishFast(SensorData{1.0F}, 3U, 12345U));
  bus_->ProcessBatch();
  EXPECT_EQ(ts, 12345U);
}

TEST_F(AsyncBusTest, TimestampsComeFromMonotonicClock) {
  std::vector<uint64_t> stamps;
  bus_->Subscribe<SensorData>(
      [&](const SensorData&, const mccc::MessageHeader& h) { stamps.push_back(h.timestamp_us); });
  // The bus's own clock (TscClock on x86, SteadyClock elsewhere): monotonic per thread.
  const uint64_t before = SmallTraits::Clock::NowUs();
  bus_->Publish(SensorData{1.0F}, 1U);
  bus_->Publish(SensorData{2.0F}, 1U);
  const uint64_t after = SmallTraits::Clock::NowUs();
  bus_->ProcessBatch();
  ASSERT_EQ(stamps.size(), 2U);
  EXPECT_GE(stamps[0], before);
  EXPECT_LE(stamps[0], stamps[1]);
  EXPECT_LE(stamps[1], after);
}

// A clock that splits its reading (clock.hpp): Sample() returns a ticket, ToUs() its time.
// Counts both, so a test sees where a publish reads and where it converts.
struct SplitClock {
  struct Reading {
    uint64_t ticket;
  };
  static inline uint64_t samples = 0U;
  static inline uint64_t conversions = 0U;
  static inline uint64_t whole_readings = 0U;
  static Reading Sample() noexcept { return Reading{++samples}; }
  static uint64_t ToUs(const Reading& reading) noexcept {
    ++conversions;
    return 1000U + reading.ticket;
  }
  static uint64_t NowUs() noexcept {
    ++whole_readings;
    return ToUs(Sample());
  }
  static void Reset() noexcept { samples = conversions = whole_readings = 0U; }
};
using SplitClockTraits = mccc_test::WithClock<mccc_test::SmallRing, SplitClock>;
using SplitClockSpscTraits = mccc_test::SingleProducer<SplitClockTraits>;

TEST(AsyncBusClock, MultiProducerBusSamplesBeforeTheClaimAndConvertsOnlyWhatItAdmits) {
  static_assert(mccc::detail::ClockSplitsReading<SplitClock>::value, "the test clock splits");
  SplitClock::Reset();
  auto bus = std::make_unique<mccc::AsyncBus<Payload, SplitClockTraits>>();
  SplitClock::Reset();  // the constructor's warm-up reading
  std::vector<uint64_t> stamps;
  bus->Subscribe<SensorData>(
      [&](const SensorData&, const mccc::MessageHeader& h) { stamps.push_back(h.timestamp_us); });
  uint64_t admitted = 0U;
  // MEDIUM is admitted below 80 % of the 64 slots (52 messages); publish past it so that some
  // are refused.
  for (int i = 0; i < 80; ++i) {
    admitted += bus->Publish(SensorData{1.0F}, 1U) ? 1U : 0U;
  }
  EXPECT_EQ(admitted, 52U);
  EXPECT_EQ(SplitClock::samples, 80U) << "one reading per publish, refused or not";
  EXPECT_EQ(SplitClock::conversions, 52U) << "a refused publish converts nothing";
  EXPECT_EQ(SplitClock::whole_readings, 0U) << "NowUs is not used";
  EXPECT_EQ(bus->ProcessBatch(), 52U);
  ASSERT_EQ(stamps.size(), 52U);
  for (std::size_t i = 0U; i < stamps.size(); ++i) {
    EXPECT_EQ(stamps[i], 1001U + i) << "the header carries the publish's own reading";
  }
}

// A split clock whose Reading is an integer (raw ticks): still converted, never taken for
// microseconds.
struct RawTicksClock {
  static uint64_t Sample() noexcept { return 7U; }
  static uint64_t ToUs(uint64_t ticks) noexcept { return ticks * 1000U; }
  static uint64_t NowUs() noexcept { return ToUs(Sample()); }
};
using RawTicksClockTraits = mccc_test::WithClock<mccc_test::SmallRing, RawTicksClock>;

TEST(AsyncBusClock, IntegerReadingIsConvertedNotTakenForMicroseconds) {
  static_assert(mccc::detail::ClockSplitsReading<RawTicksClock>::value, "the test clock splits");
  auto bus = std::make_unique<mccc::AsyncBus<Payload, RawTicksClockTraits>>();
  uint64_t stamp = 0U;
  bus->Subscribe<SensorData>(
      [&](const SensorData&, const mccc::MessageHeader& h) { stamp = h.timestamp_us; });
  EXPECT_TRUE(bus->Publish(SensorData{1.0F}, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(stamp, 7000U);
}

TEST(AsyncBusClock, SingleProducerBusReadsTheClockInOnePiece) {
  SplitClock::Reset();
  auto bus = std::make_unique<mccc::AsyncBus<Payload, SplitClockSpscTraits>>();
  SplitClock::Reset();
  uint64_t stamp = 0U;
  bus->Subscribe<SensorData>(
      [&](const SensorData&, const mccc::MessageHeader& h) { stamp = h.timestamp_us; });
  EXPECT_TRUE(bus->Publish(SensorData{1.0F}, 1U));
  EXPECT_EQ(SplitClock::whole_readings, 1U);
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(stamp, 1001U);
}

TEST_F(AsyncBusTest, MessageIdsIncreaseInDeliveryOrder) {
  std::vector<uint64_t> ids;
  bus_->Subscribe<MotorCmd>(
      [&](const MotorCmd&, const mccc::MessageHeader& h) { ids.push_back(h.msg_id); });
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(bus_->Publish(MotorCmd{i}, 1U));
  }
  EXPECT_EQ(bus_->ProcessBatch(), 10U);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(bus_->Publish(MotorCmd{i}, 1U));
  }
  EXPECT_EQ(bus_->ProcessBatch(), 5U);
  ASSERT_EQ(ids.size(), 15U);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], i + 1U);
  }
}

TEST_F(AsyncBusTest, BatchSizeBoundsOneCall) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, TinyBatchTraits>>();
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(bus->Publish(MotorCmd{i}, 1U));
  }
  EXPECT_EQ(bus->ProcessBatch(), 3U);
  EXPECT_EQ(bus->ProcessBatch(), 3U);
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(bus->ProcessBatch(), 0U);
}

TEST_F(AsyncBusTest, VisitorDispatchCallsTheMatchingHandler) {
  int motor = 0;
  float sensor = 0.0F;
  int other = 0;
  bus_->Publish(MotorCmd{4}, 1U);
  bus_->Publish(SensorData{2.5F}, 1U);
  bus_->Publish(std::string("x"), 1U);
  const uint32_t n = bus_->ProcessBatchWith(
      mccc::make_overloaded([&](const MotorCmd& m) { motor += m.speed; },
                            [&](const SensorData& s, const mccc::MessageHeader& h) {
                              sensor += s.temperature;
                              EXPECT_EQ(h.msg_id, 2U);
                            },
                            [&](const auto&) { ++other; }));
  EXPECT_EQ(n, 3U);
  EXPECT_EQ(motor, 4);
  EXPECT_FLOAT_EQ(sensor, 2.5F);
  EXPECT_EQ(other, 1);
  EXPECT_EQ(bus_->GetStatistics().messages_processed, 3U);
}

TEST_F(AsyncBusTest, UnsubscribeIsTrueOnceThenFalse) {
  int calls = 0;
  const auto handle = bus_->Subscribe<MotorCmd>([&](const MotorCmd&) { ++calls; });
  EXPECT_EQ(bus_->SubscriberCount<MotorCmd>(), 1U);
  EXPECT_TRUE(bus_->Unsubscribe(handle));
  EXPECT_FALSE(bus_->Unsubscribe(handle));
  EXPECT_EQ(bus_->SubscriberCount<MotorCmd>(), 0U);
  bus_->Publish(MotorCmd{1}, 1U);
  bus_->ProcessBatch();
  EXPECT_EQ(calls, 0);
}

TEST_F(AsyncBusTest, InvalidForeignAndStaleHandlesAreRefused) {
  int calls = 0;
  const auto handle = bus_->Subscribe<MotorCmd>([&](const MotorCmd&) { ++calls; });
  EXPECT_FALSE(bus_->Unsubscribe(mccc::kInvalidSubscription));
  EXPECT_FALSE(bus_->Unsubscribe(mccc::SubscriptionHandle{99U, handle.callback_id}));
  // A handle from another bus of the same type names the same slot but not the same id.
  Bus other;
  const auto foreign = other.Subscribe<MotorCmd>([](const MotorCmd&) {});
  EXPECT_NE(foreign.callback_id, handle.callback_id);
  EXPECT_FALSE(bus_->Unsubscribe(foreign));
  // A removed handle whose slot was reused by a new subscription stays dead.
  EXPECT_TRUE(bus_->Unsubscribe(handle));
  const auto reuse = bus_->Subscribe<MotorCmd>([&](const MotorCmd&) { ++calls; });
  EXPECT_FALSE(bus_->Unsubscribe(handle));
  bus_->Publish(MotorCmd{1}, 1U);
  bus_->ProcessBatch();
  EXPECT_EQ(calls, 1);  // the new subscription is untouched
  EXPECT_TRUE(bus_->Unsubscribe(reuse));
  EXPECT_TRUE(other.Unsubscribe(foreign));
}

TEST_F(AsyncBusTest, TooManySubscribersGivesInvalidHandleAndChangesNothing) {
  int calls = 0;
  std::vector<mccc::SubscriptionHandle> handles;
  for (uint32_t i = 0; i < SmallTraits::kMaxCallbacksPerType; ++i) {
    handles.push_back(bus_->Subscribe<MotorCmd>([&](const MotorCmd&) { ++calls; }));
    ASSERT_TRUE(handles.back().IsValid());
  }
  const auto refused = bus_->Subscribe<MotorCmd>([&](const MotorCmd&) { calls += 1000; });
  EXPECT_FALSE(refused.IsValid());
  EXPECT_EQ(refused.callback_id, static_cast<std::size_t>(-1));
  EXPECT_EQ(bus_->SubscriberCount<MotorCmd>(), SmallTraits::kMaxCallbacksPerType);
  bus_->Publish(MotorCmd{1}, 1U);
  bus_->ProcessBatch();
  EXPECT_EQ(calls, static_cast<int>(SmallTraits::kMaxCallbacksPerType));
  // After one unsubscribe, there is room again.
  EXPECT_TRUE(bus_->Unsubscribe(handles[0]));
  EXPECT_TRUE(bus_->Subscribe<MotorCmd>([](const MotorCmd&) {}).IsValid());
}

// G-9: a rejected publish leaves its argument untouched
TEST_F(AsyncBusTest, RejectedPublishLeavesArgumentUntouched) {
  // Refused by the admission of the normal ring (MEDIUM at 80 %)...
  const auto medium_limit =
      static_cast<uint32_t>(Bus::Admission::LimitFor(mccc::MessagePriority::kMedium));
  for (uint32_t i = 0; i < medium_limit; ++i) {
    ASSERT_TRUE(bus_->Publish(std::string("m"), 1U));
  }
  std::string big(100, 'x');
  EXPECT_FALSE(bus_->Publish(std::move(big), 1U));
  EXPECT_EQ(big.size(), 100U);  // NOLINT(bugprone-use-after-move): the contract under test
  Tracked t(42);
  EXPECT_FALSE(bus_->PublishWithPriority(std::move(t), 1U, mccc::MessagePriority::kMedium));
  EXPECT_EQ(t.value, 42);  // NOLINT(bugprone-use-after-move)
  // ...and by a full HIGH ring.
  for (uint32_t i = 0; i < Bus::kHighQueueDepth; ++i) {
    ASSERT_TRUE(bus_->PublishWithPriority(std::string("h"), 1U, mccc::MessagePriority::kHigh));
  }
  EXPECT_FALSE(bus_->PublishWithPriority(std::move(big), 1U, mccc::MessagePriority::kHigh));
  EXPECT_EQ(big.size(), 100U);  // NOLINT(bugprone-use-after-move)
  EXPECT_FALSE(bus_->PublishWithPriority(std::move(t), 1U, mccc::MessagePriority::kHigh));
  EXPECT_EQ(t.value, 42);  // NOLINT(bugprone-use-after-move)
}

// G-10: a payload is destroyed right after dispatch; the destructor destroys what is queued
// (this test and the next)
TEST_F(AsyncBusTest, PayloadIsDestroyedRightAfterDispatch) {
  int live_during_callback = -1;
  bus_->Subscribe<Tracked>([&](const Tracked& t) {
    EXPECT_EQ(t.value, 5);
    live_during_callback = Tracked::live;
  });
  {
    Tracked source(5);
    ASSERT_TRUE(bus_->Publish(source, 1U));  // copied in: source stays
    EXPECT_EQ(source.value, 5);
  }
  EXPECT_EQ(Tracked::live, 1);  // the queued copy
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  EXPECT_EQ(live_during_callback, 1);
  EXPECT_EQ(Tracked::live, 0);  // destroyed as soon as it was dispatched
}

TEST_F(AsyncBusTest, DestructorDestroysQueuedMessages) {
  {
    auto bus = std::make_unique<Bus>();
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(bus->Publish(Tracked(i), 1U));
    }
    EXPECT_EQ(Tracked::live, 10);
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST_F(AsyncBusTest, PublishEmplaceAndWholeVariant) {
  std::vector<std::string> got;
  bus_->Subscribe<std::string>([&](const std::string& s) { got.push_back(s); });
  EXPECT_TRUE(bus_->PublishEmplace<std::string>(1U, mccc::MessagePriority::kLow, 3U, 'a'));
  Payload whole{std::string("variant")};
  EXPECT_TRUE(bus_->Publish(std::move(whole), 1U));
  bus_->ProcessBatch();
  ASSERT_EQ(got.size(), 2U);
  EXPECT_EQ(got[0], "aaa");
  EXPECT_EQ(got[1], "variant");
}

TEST_F(AsyncBusTest, InvalidPriorityIsRefusedAndReported) {
  bus_->SetErrorCallback(&ErrorLog::Record);
  const auto bogus = static_cast<mccc::MessagePriority>(7);
  EXPECT_FALSE(bus_->PublishWithPriority(MotorCmd{1}, 1U, bogus));
  ASSERT_EQ(ErrorLog::entries.size(), 1U);
  EXPECT_EQ(ErrorLog::entries[0].first, mccc::BusError::kInvalidMessage);
  EXPECT_EQ(bus_->QueueOccupancy(), 0U);
}

TEST_F(AsyncBusTest, QueueFullReportsWouldBeIdAndCountsDrop) {
  auto bus = std::make_unique<SharedRingBus>();
  bus->SetErrorCallback(&ErrorLog::Record);
  const uint32_t low_limit = 39U;  // 60% of 64 = 38.4: LOW admitted while occupancy <= 38
  for (uint32_t i = 0; i < low_limit; ++i) {
    ASSERT_TRUE(bus->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow)) << i;
  }
  EXPECT_FALSE(bus->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow));
  ASSERT_EQ(ErrorLog::entries.size(), 1U);
  EXPECT_EQ(ErrorLog::entries[0].first, mccc::BusError::kQueueFull);
  EXPECT_EQ(ErrorLog::entries[0].second, low_limit + 1U);  // the id the next admitted message gets
  const auto s = bus->GetStatistics();
  EXPECT_EQ(s.low_priority_published, low_limit);
  EXPECT_EQ(s.low_priority_dropped, 1U);
  EXPECT_EQ(s.messages_dropped, 1U);
}

// With the HIGH ring, ids are given in delivery order: kQueueFull carries the id the consumer
// gives next as of its last finished batch, whichever ring refused.
TEST_F(AsyncBusTest, QueueFullWithHighRingReportsTheIdTheConsumerGivesNext) {
  bus_->SetErrorCallback(&ErrorLog::Record);
  const uint32_t low_limit = 39U;
  const auto fill_low = [&] {
    for (uint32_t i = 0; i < low_limit; ++i) {
      ASSERT_TRUE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow)) << i;
    }
  };
  fill_low();
  EXPECT_FALSE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow));
  EXPECT_EQ(bus_->ProcessBatch(), low_limit);  // ids 1..39
  ASSERT_TRUE(bus_->PublishWithPriority(MotorCmd{2}, 1U, mccc::MessagePriority::kHigh));
  ASSERT_TRUE(bus_->PublishWithPriority(MotorCmd{2}, 1U, mccc::MessagePriority::kHigh));
  EXPECT_EQ(bus_->ProcessBatch(), 2U);  // ids 40, 41
  fill_low();
  ASSERT_TRUE(bus_->PublishWithPriority(MotorCmd{2}, 1U, mccc::MessagePriority::kHigh));
  EXPECT_FALSE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow));
  const MotorCmd batch[3] = {{3}, {3}, {3}};
  EXPECT_EQ(bus_->PublishBatch(batch, 3U, 1U, mccc::MessagePriority::kLow), 0U);
  ASSERT_EQ(ErrorLog::entries.size(), 3U);
  for (const auto& entry : ErrorLog::entries) {
    EXPECT_EQ(entry.first, mccc::BusError::kQueueFull);
  }
  EXPECT_EQ(ErrorLog::entries[0].second, 1U) << "nothing delivered yet";
  EXPECT_EQ(ErrorLog::entries[1].second, 42U) << "41 delivered; queued messages not counted";
  EXPECT_EQ(ErrorLog::entries[2].second, 42U) << "one report per refusing batch, the same id";
  EXPECT_EQ(bus_->GetStatistics().low_priority_dropped, 5U);
}

// G-17: a callback returning false or throwing is one processing error; the others still run
// (this test and the next two)
TEST_F(AsyncBusTest, CallbackReportingFalseIsProcessingError) {
  bus_->SetErrorCallback(&ErrorLog::Record);
  int second = 0;
  bus_->Subscribe<MotorCmd>([](const MotorCmd& m) { return m.speed >= 0; });
  bus_->Subscribe<MotorCmd>([&](const MotorCmd&) { ++second; });
  bus_->Publish(MotorCmd{-1}, 1U);
  bus_->Publish(MotorCmd{1}, 1U);
  EXPECT_EQ(bus_->ProcessBatch(), 2U);
  EXPECT_EQ(second, 2);  // the other callback still ran for both
  EXPECT_EQ(bus_->GetStatistics().processing_errors, 1U);
  ASSERT_EQ(ErrorLog::entries.size(), 1U);
  EXPECT_EQ(ErrorLog::entries[0].first, mccc::BusError::kProcessingError);
  EXPECT_EQ(ErrorLog::entries[0].second, 1U);
}

#if MCCC_HAS_EXCEPTIONS
TEST_F(AsyncBusTest, ThrowingCallbackIsCaughtCountedAndOthersStillRun) {
  bus_->SetErrorCallback(&ErrorLog::Record);
  std::vector<int> delivered;
  bus_->Subscribe<MotorCmd>([](const MotorCmd& m) {
    if (m.speed == 2) {
      throw std::runtime_error("boom");
    }
  });
  bus_->Subscribe<MotorCmd>([&](const MotorCmd& m) { delivered.push_back(m.speed); });
  for (int i = 1; i <= 3; ++i) {
    bus_->Publish(MotorCmd{i}, 1U);
  }
  EXPECT_EQ(bus_->ProcessBatch(), 3U);
  EXPECT_EQ(delivered, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(bus_->GetStatistics().processing_errors, 1U);
  ASSERT_EQ(ErrorLog::entries.size(), 1U);
  EXPECT_EQ(ErrorLog::entries[0].first, mccc::BusError::kProcessingError);
  EXPECT_EQ(ErrorLog::entries[0].second, 2U);
}

TEST_F(AsyncBusTest, ThrowingVisitorIsCaughtAndLaterMessagesDelivered) {
  int ok = 0;
  for (int i = 1; i <= 3; ++i) {
    bus_->Publish(MotorCmd{i}, 1U);
  }
  const uint32_t n = bus_->ProcessBatchWith(mccc::make_overloaded(
      [&](const MotorCmd& m) {
        if (m.speed == 1) {
          throw 1;
        }
        ++ok;
      },
      [](const auto&) {}));
  EXPECT_EQ(n, 3U);
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(bus_->GetStatistics().processing_errors, 1U);
}
#endif

TEST_F(AsyncBusTest, PerformanceModesChangeAdmissionAndCounting) {
  bus_->SetErrorCallback(&ErrorLog::Record);
  EXPECT_EQ(bus_->GetPerformanceMode(), Bus::PerformanceMode::kFullFeatured);

  bus_->SetPerformanceMode(Bus::PerformanceMode::kBareMetal);
  for (uint32_t i = 0; i < Bus::kQueueDepth; ++i) {  // LOW fills the whole queue: no priorities
    ASSERT_TRUE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow));
  }
  EXPECT_FALSE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kMedium));  // full
  // HIGH travels on the HIGH ring: a full normal ring does not refuse it.
  EXPECT_TRUE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kHigh));
  EXPECT_TRUE(ErrorLog::entries.empty());  // no error callback in kBareMetal
  auto s = bus_->GetStatistics();
  EXPECT_EQ(s.messages_published, 0U);
  EXPECT_EQ(s.messages_dropped, 0U);
  EXPECT_EQ(bus_->ProcessBatch(), Bus::kQueueDepth + 1U);
  EXPECT_EQ(bus_->GetStatistics().messages_processed, 0U);

  bus_->SetPerformanceMode(Bus::PerformanceMode::kNoStats);
  for (uint32_t i = 0; i < 39U; ++i) {
    ASSERT_TRUE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow));
  }
  EXPECT_FALSE(
      bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow));  // admission
  EXPECT_EQ(ErrorLog::entries.size(), 1U);  // error callback kept
  s = bus_->GetStatistics();
  EXPECT_EQ(s.messages_published + s.messages_dropped, 0U);  // counters skipped

  bus_->SetPerformanceMode(Bus::PerformanceMode::kFullFeatured);
  EXPECT_TRUE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kMedium));
  EXPECT_EQ(bus_->GetStatistics().medium_priority_published, 1U);
}

// A value outside the enumeration (a cast from a corrupted or newer configuration) indexes no
// admission table: it is kept as kNoStats, which it always acted as.
TEST_F(AsyncBusTest, AModeOutsideTheEnumerationIsKeptAsNoStatsAndAdmitsAsIt) {
  bus_->SetErrorCallback(&ErrorLog::Record);
  bus_->SetPerformanceMode(static_cast<Bus::PerformanceMode>(7));
  EXPECT_EQ(bus_->GetPerformanceMode(), Bus::PerformanceMode::kNoStats);
  for (uint32_t i = 0; i < 39U; ++i) {
    ASSERT_TRUE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow));
  }
  EXPECT_FALSE(bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow));
  EXPECT_EQ(ErrorLog::entries.size(), 1U);
  const auto s = bus_->GetStatistics();
  EXPECT_EQ(s.messages_published + s.messages_dropped, 0U);
  bus_->SetPerformanceMode(static_cast<Bus::PerformanceMode>(255));
  EXPECT_EQ(bus_->GetPerformanceMode(), Bus::PerformanceMode::kNoStats);
}

TEST_F(AsyncBusTest, StatisticsResetCountsFromZero) {
  bus_->Publish(MotorCmd{1}, 1U);
  bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kHigh);
  bus_->ProcessBatch();
  auto s = bus_->GetStatistics();
  EXPECT_EQ(s.messages_published, 2U);
  EXPECT_EQ(s.high_priority_published, 1U);
  EXPECT_EQ(s.medium_priority_published, 1U);
  EXPECT_EQ(s.messages_processed, 2U);
  bus_->ResetStatistics();
  s = bus_->GetStatistics();
  EXPECT_EQ(s.messages_published, 0U);
  EXPECT_EQ(s.messages_processed, 0U);
  bus_->PublishWithPriority(MotorCmd{1}, 1U, mccc::MessagePriority::kLow);
  EXPECT_EQ(bus_->GetStatistics().low_priority_published, 1U);
  EXPECT_EQ(bus_->GetStatistics().messages_published, 1U);
}

TEST_F(AsyncBusTest, QueueDepthUtilizationAndBackpressure) {
  EXPECT_EQ(bus_->QueueOccupancy(), 0U);
  EXPECT_EQ(bus_->GetBackpressureLevel(), mccc::BackpressureLevel::kNormal);
  // The normal ring (kBareMetal admits MEDIUM up to the last slot).
  bus_->SetPerformanceMode(Bus::PerformanceMode::kBareMetal);
  auto fill_to = [&](uint32_t n, mccc::MessagePriority priority) {
    while (bus_->QueueOccupancy() < n) {
      ASSERT_TRUE(bus_->PublishWithPriority(MotorCmd{1}, 1U, priority));
    }
  };
  constexpr auto kMedium = mccc::MessagePriority::kMedium;
  constexpr auto kHigh = mccc::MessagePriority::kHigh;
  fill_to(47U, kMedium);  // 73.4%
  EXPECT_EQ(bus_->GetBackpressureLevel(), mccc::BackpressureLevel::kNormal);
  EXPECT_EQ(bus_->QueueUtilizationPercent(), 73U);
  fill_to(48U, kMedium);  // 75%
  EXPECT_EQ(bus_->GetBackpressureLevel(), mccc::BackpressureLevel::kWarning);
  fill_to(58U, kMedium);  // 90.6%
  EXPECT_EQ(bus_->GetBackpressureLevel(), mccc::BackpressureLevel::kCritical);
  fill_to(64U, kMedium);
  EXPECT_EQ(bus_->GetBackpressureLevel(), mccc::BackpressureLevel::kFull);
  EXPECT_EQ(bus_->QueueUtilizationPercent(), 100U);
  EXPECT_EQ(bus_->QueueOccupancy(), 64U);
  // QueueDepth sums the rings; the level and the percentage are the fullest ring's.
  fill_to(65U, kHigh);
  EXPECT_EQ(bus_->QueueOccupancy(), 65U);
  EXPECT_EQ(bus_->HighRingOccupancy(), 1U);
  EXPECT_EQ(bus_->GetBackpressureLevel(), mccc::BackpressureLevel::kFull);
  EXPECT_EQ(bus_->QueueUtilizationPercent(), 100U);
  while (bus_->ProcessBatch() != 0U) {
  }
  EXPECT_EQ(bus_->QueueOccupancy(), 0U);
  // Now the HIGH ring (1024 slots) is the fuller one: 767 of 1024 = 74.9 %, then 75 %.
  ASSERT_EQ(Bus::kHighQueueDepth, 1024U);
  fill_to(1U, kMedium);
  fill_to(768U, kHigh);
  EXPECT_EQ(bus_->HighRingOccupancy(), 767U);
  EXPECT_EQ(bus_->GetBackpressureLevel(), mccc::BackpressureLevel::kNormal);
  EXPECT_EQ(bus_->QueueUtilizationPercent(), 74U);
  fill_to(769U, kHigh);
  EXPECT_EQ(bus_->GetBackpressureLevel(), mccc::BackpressureLevel::kWarning);
  EXPECT_EQ(bus_->QueueUtilizationPercent(), 75U);
}

// G-16: Subscribe/Unsubscribe from a callback without deadlock; captures released (next test)
TEST_F(AsyncBusTest, CallbackMaySubscribeAndUnsubscribeWithoutDeadlock) {
  int first_calls = 0;
  int late_calls = 0;
  mccc::SubscriptionHandle self{};
  self = bus_->Subscribe<MotorCmd>([&](const MotorCmd&) {
    ++first_calls;
    EXPECT_TRUE(bus_->Unsubscribe(self));  // unsubscribing itself from inside its own call
    EXPECT_TRUE(bus_->Subscribe<MotorCmd>([&](const MotorCmd&) { ++late_calls; }).IsValid());
    EXPECT_TRUE(bus_->Publish(MotorCmd{2}, 1U));  // publishing from a callback is fine too
  });
  bus_->Publish(MotorCmd{1}, 1U);
  bus_->ProcessBatch();  // delivers 1 (and the re-published 2 within the same batch)
  bus_->ProcessBatch();
  EXPECT_EQ(first_calls, 1);
  EXPECT_GE(late_calls, 1);
  EXPECT_EQ(bus_->SubscriberCount<MotorCmd>(), 1U);
}

TEST_F(AsyncBusTest, UnsubscribeReleasesCapturedResources) {
  auto resource = std::make_shared<int>(1);
  const auto handle = bus_->Subscribe<MotorCmd>([resource](const MotorCmd&) {});
  EXPECT_EQ(resource.use_count(), 2);
  EXPECT_TRUE(bus_->Unsubscribe(handle));  // consumer idle: destroyed at once
  EXPECT_EQ(resource.use_count(), 1);

  // Unsubscribed from inside a dispatch: destroyed at the end of that batch.
  mccc::SubscriptionHandle inner{};
  inner = bus_->Subscribe<MotorCmd>(
      [resource, &inner, this](const MotorCmd&) { bus_->Unsubscribe(inner); });
  EXPECT_EQ(resource.use_count(), 2);
  bus_->Publish(MotorCmd{1}, 1U);
  bus_->ProcessBatch();
  EXPECT_EQ(resource.use_count(), 1);
}

// A capture whose destructor itself subscribes (e.g. the last owner of a component that
// unsubscribes in its destructor): callables are destroyed outside the table's lock.
TEST_F(AsyncBusTest, CaptureDestructorMaySubscribeWithoutDeadlock) {
  struct SubscribesOnDestruction {
    Bus* bus;
    int* subscribed;
    SubscribesOnDestruction(Bus* b, int* s) noexcept : bus(b), subscribed(s) {}
    SubscribesOnDestruction(SubscribesOnDestruction&& other) noexcept
        : bus(std::exchange(other.bus, nullptr)), subscribed(other.subscribed) {}
    SubscribesOnDestruction(const SubscribesOnDestruction&) = delete;
    SubscribesOnDestruction& operator=(const SubscribesOnDestruction&) = delete;
    SubscribesOnDestruction& operator=(SubscribesOnDestruction&&) = delete;
    ~SubscribesOnDestruction() {
      if (bus != nullptr && bus->Subscribe<SensorData>([](const SensorData&) {}).IsValid()) {
        ++*subscribed;
      }
    }
    void operator()(const MotorCmd&) const {}
  };
  int subscribed = 0;
  const auto handle = bus_->Subscribe<MotorCmd>(SubscribesOnDestruction(bus_.get(), &subscribed));
  EXPECT_TRUE(bus_->Unsubscribe(handle));  // destroys the capture, which subscribes
  EXPECT_EQ(subscribed, 1);
  EXPECT_EQ(bus_->SubscriberCount<SensorData>(), 1U);
}

TEST_F(AsyncBusTest, InstanceIsOnePerBusType) {
  auto& a = mccc::AsyncBus<Payload, SmallTraits>::Instance();
  auto& b = mccc::AsyncBus<Payload, SmallTraits>::Instance();
  auto& c = mccc::AsyncBus<Payload, TinyBatchTraits>::Instance();
  EXPECT_EQ(&a, &b);
  EXPECT_NE(static_cast<void*>(&a), static_cast<void*>(&c));
}

TEST_F(AsyncBusTest, DefaultTraitsMatchDocumentedDefaults) {
  using DefaultBus = mccc::AsyncBus<Payload>;
  EXPECT_EQ(DefaultBus::kQueueDepth, 131072U);
  EXPECT_EQ(DefaultBus::kBatchSize, 1024U);
  auto bus = std::make_unique<DefaultBus>();
  EXPECT_TRUE(bus->Publish(MotorCmd{1}, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
}

using SingleProducerTraits = mccc_test::SingleProducer<SmallTraits>;

TEST_F(AsyncBusTest, SingleProducerBusHasSameSemantics) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, SingleProducerTraits>>();
  std::vector<int> got;
  bus->Subscribe<MotorCmd>([&](const MotorCmd& m) { got.push_back(m.speed); });
  for (int i = 0; i < 39; ++i) {
    ASSERT_TRUE(bus->PublishWithPriority(MotorCmd{i}, 1U, mccc::MessagePriority::kLow));
  }
  EXPECT_FALSE(bus->PublishWithPriority(MotorCmd{99}, 1U, mccc::MessagePriority::kLow));
  EXPECT_TRUE(bus->PublishWithPriority(MotorCmd{39}, 1U, mccc::MessagePriority::kMedium));
  EXPECT_EQ(bus->ProcessBatch(), 40U);
  ASSERT_EQ(got.size(), 40U);
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(got[static_cast<std::size_t>(i)], i);
  }
  const auto s = bus->GetStatistics();
  EXPECT_EQ(s.low_priority_published, 39U);
  EXPECT_EQ(s.low_priority_dropped, 1U);
  EXPECT_EQ(s.medium_priority_published, 1U);
}

// ----- PublishBatch ---------------------------------------------------------------------------

// G-8: a batch is delivered once, in order, contiguously, consecutive ids, one timestamp
TEST_F(AsyncBusTest, PublishBatchDeliversInOrderWithConsecutiveIdsAndOneTimestamp) {
  std::vector<Envelope> seen;
  bus_->Subscribe<MotorCmd>([&](const Envelope& env) { seen.push_back(env); });
  ASSERT_TRUE(bus_->Publish(MotorCmd{-1}, 3U));  // MEDIUM, published first
  const MotorCmd batch[5] = {{10}, {11}, {12}, {13}, {14}};
  EXPECT_EQ(bus_->PublishBatch(batch, 5U, 9U, mccc::MessagePriority::kHigh), 5U);
  EXPECT_EQ(bus_->ProcessBatch(), 6U);
  ASSERT_EQ(seen.size(), 6U);
  // The HIGH batch is dispatched before the queued MEDIUM message; ids follow delivery order.
  for (std::size_t i = 0U; i < 5U; ++i) {
    EXPECT_EQ(std::get<MotorCmd>(seen[i].payload).speed, static_cast<int32_t>(10U + i));
    EXPECT_EQ(seen[i].header.msg_id, i + 1U);
    EXPECT_EQ(seen[i].header.sender_id, 9U);
    EXPECT_EQ(seen[i].header.priority, mccc::MessagePriority::kHigh);
    EXPECT_EQ(seen[i].header.timestamp_us, seen[0].header.timestamp_us) << "one clock reading";
  }
  EXPECT_EQ(std::get<MotorCmd>(seen[5].payload).speed, -1);
  EXPECT_EQ(seen[5].header.msg_id, 6U);
  EXPECT_EQ(seen[5].header.priority, mccc::MessagePriority::kMedium);
  EXPECT_GE(seen[0].header.timestamp_us, seen[5].header.timestamp_us);
  EXPECT_EQ(bus_->GetStatistics().high_priority_published, 5U);
}

// The admitted part of a batch is exactly what the same number of single publishes would admit,
// for every priority and every starting occupancy of a 64-slot queue.
template <typename BusType>
void ExpectBatchAdmitsWhatSinglePublishesAdmit() {
  for (uint32_t start = 0U; start <= 64U; start += 3U) {
    for (const auto priority : {mccc::MessagePriority::kLow, mccc::MessagePriority::kMedium,
                                mccc::MessagePriority::kHigh}) {
      auto batch_bus = std::make_unique<BusType>();
      auto single_bus = std::make_unique<BusType>();
      uint32_t filled = 0U;
      while (filled < start &&
             batch_bus->PublishWithPriority(MotorCmd{0}, 1U, mccc::MessagePriority::kHigh)) {
        ASSERT_TRUE(single_bus->PublishWithPriority(MotorCmd{0}, 1U, mccc::MessagePriority::kHigh));
        ++filled;
      }
      std::vector<MotorCmd> batch(40U);
      for (std::size_t i = 0U; i < batch.size(); ++i) {
        batch[i].speed = static_cast<int32_t>(i);
      }
      const uint32_t admitted =
          batch_bus->PublishBatch(batch.data(), static_cast<uint32_t>(batch.size()), 2U, priority);
      uint32_t single_admitted = 0U;
      for (const MotorCmd& m : batch) {
        if (!single_bus->PublishWithPriority(m, 2U, priority)) {
          break;
        }
        ++single_admitted;
      }
      EXPECT_EQ(admitted, single_admitted)
          << "occupancy " << filled << " priority " << static_cast<int>(priority);
      EXPECT_EQ(batch_bus->QueueOccupancy(), filled + admitted);
      const auto s = batch_bus->GetStatistics();
      EXPECT_EQ(s.messages_published, filled + admitted);
      EXPECT_EQ(s.messages_dropped, batch.size() - admitted) << "each refused message counted";
      std::vector<int32_t> speeds;
      batch_bus->template Subscribe<MotorCmd>(
          [&speeds](const MotorCmd& m) { speeds.push_back(m.speed); });
      while (batch_bus->ProcessBatch() != 0U) {
      }
      ASSERT_EQ(speeds.size(), filled + admitted);
      for (uint32_t i = 0U; i < admitted; ++i) {
        EXPECT_EQ(speeds[filled + i], static_cast<int32_t>(i)) << "the admitted part is a prefix";
      }
    }
  }
}

// G-8: PublishBatch admits exactly the prefix single publishes would (every priority and fill)
TEST_F(AsyncBusTest, PublishBatchAdmitsExactlyWhatSinglePublishesWould) {
  ExpectBatchAdmitsWhatSinglePublishesAdmit<Bus>();
}

TEST_F(AsyncBusTest, PublishBatchRefusalReportsOnceWithFirstRefusedId) {
  auto bus = std::make_unique<SharedRingBus>();  // the exact would-be id needs the one ring
  bus->SetErrorCallback(&ErrorLog::Record);
  const uint32_t low_limit = 39U;  // LOW admitted while occupancy <= 38 (60% of 64)
  std::vector<MotorCmd> batch(50U, MotorCmd{7});
  EXPECT_EQ(bus->PublishBatch(batch.data(), 50U, 1U, mccc::MessagePriority::kLow), low_limit);
  ASSERT_EQ(ErrorLog::entries.size(), 1U);
  EXPECT_EQ(ErrorLog::entries[0].first, mccc::BusError::kQueueFull);
  EXPECT_EQ(ErrorLog::entries[0].second, low_limit + 1U);
  EXPECT_EQ(bus->GetStatistics().low_priority_dropped, 50U - low_limit);
  // The refused tail is the caller's to retry; here nothing more is admitted at LOW.
  EXPECT_EQ(
      bus->PublishBatch(batch.data() + low_limit, 50U - low_limit, 1U, mccc::MessagePriority::kLow),
      0U);
  EXPECT_EQ(ErrorLog::entries.size(), 2U);
}

TEST_F(AsyncBusTest, PublishBatchRefusesBadArgumentsClearly) {
  bus_->SetErrorCallback(&ErrorLog::Record);
  const MotorCmd one[1] = {{1}};
  EXPECT_EQ(bus_->PublishBatch(one, 0U, 1U), 0U);
  EXPECT_TRUE(ErrorLog::entries.empty()) << "an empty batch is not an error";
  EXPECT_EQ(bus_->PublishBatch(static_cast<const MotorCmd*>(nullptr), 3U, 1U), 0U);
  EXPECT_EQ(bus_->PublishBatch(one, 1U, 1U, static_cast<mccc::MessagePriority>(7)), 0U);
  ASSERT_EQ(ErrorLog::entries.size(), 2U);
  EXPECT_EQ(ErrorLog::entries[0].first, mccc::BusError::kInvalidMessage);
  EXPECT_EQ(ErrorLog::entries[1].first, mccc::BusError::kInvalidMessage);
  EXPECT_EQ(bus_->QueueOccupancy(), 0U);
  EXPECT_EQ(bus_->GetStatistics().messages_dropped, 0U);
}

TEST_F(AsyncBusTest, PublishBatchCopiesAndDestroysEveryElementOnce) {
  {
    const std::vector<Tracked> batch = {Tracked{1}, Tracked{2}, Tracked{3}};
    std::vector<int> got;
    bus_->Subscribe<Tracked>([&got](const Tracked& t) { got.push_back(t.value); });
    EXPECT_EQ(bus_->PublishBatch(batch.data(), 3U, 1U), 3U);
    EXPECT_EQ(Tracked::live, 6) << "three originals and three copies in the queue";
    EXPECT_EQ(bus_->ProcessBatch(), 3U);
    EXPECT_EQ(Tracked::live, 3) << "each copy destroyed right after dispatch";
    EXPECT_EQ(got, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(batch[0].value, 1) << "the caller's messages are copied, not moved from";
  }
  EXPECT_EQ(Tracked::live, 0);
}

TEST_F(AsyncBusTest, PublishBatchInBareMetalFillsToCapacityWithoutCounting) {
  bus_->SetErrorCallback(&ErrorLog::Record);
  bus_->SetPerformanceMode(Bus::PerformanceMode::kBareMetal);
  std::vector<MotorCmd> batch(100U, MotorCmd{1});
  EXPECT_EQ(bus_->PublishBatch(batch.data(), 100U, 1U, mccc::MessagePriority::kLow), 64U);
  EXPECT_TRUE(ErrorLog::entries.empty());
  EXPECT_EQ(bus_->GetStatistics().messages_published, 0U);
  EXPECT_EQ(bus_->ProcessBatch(), 64U);
}

// G-8: the same on a single-producer bus
TEST_F(AsyncBusTest, SingleProducerPublishBatchAdmitsExactlyWhatSinglePublishesWould) {
  ExpectBatchAdmitsWhatSinglePublishesAdmit<mccc::AsyncBus<Payload, SingleProducerTraits>>();
}

// G-19: a sleeping consumer is woken by a publish
TEST_F(AsyncBusTest, SleepingConsumerIsWokenByPublish) {
  std::atomic<bool> woke{false};
  std::thread consumer([&] {
    // Generous timeout: the test asserts the wake-up happened, not how fast.
    while (!bus_->WaitForMessages(5000000U)) {
    }
    woke.store(true);
    EXPECT_EQ(bus_->ProcessBatch(), 1U);
  });
  bus_->Publish(MotorCmd{1}, 1U);
  consumer.join();
  EXPECT_TRUE(woke.load());
}

#if MCCC_ENABLE_ASSERTS && GTEST_HAS_DEATH_TEST
TEST(AsyncBusDeathTest, TwoConsumerThreadsAssert) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto bus = std::make_unique<Bus>();
        std::atomic<bool> inside{false};
        std::atomic<bool> release{false};
        bus->Subscribe<MotorCmd>([&](const MotorCmd&) {
          inside.store(true);
          while (!release.load()) {
            std::this_thread::yield();
          }
        });
        bus->Publish(MotorCmd{1}, 1U);
        bus->Publish(MotorCmd{2}, 1U);
        std::thread first([&] { bus->ProcessBatch(); });
        while (!inside.load()) {
          std::this_thread::yield();
        }
        bus->ProcessBatchWith(mccc::make_overloaded([](const auto&) {}));  // second consumer
        release.store(true);
        first.join();
      },
      "entered by two threads at once");
}
#endif

}  // namespace
