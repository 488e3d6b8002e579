// SPDX-License-Identifier: MIT
// Zero-copy loans through the bus (AsyncBus::Loan, Publish(std::move(loan)), Retain): every
// subscriber and visitor of T gets the `const T&` in the pool block, the block returns after the
// last callback or the last Retained handle (on any thread), a refused publish leaves the loan
// with the caller untouched (so does one published on a bus that did not lend it), pool admission
// keeps HIGH's reserve under a LOW flood, the performance modes and ResetStatistics apply to the
// pools, and queued loans die with the bus.
// The delivery tests run on every bus configuration (HIGH ring, producer lanes, compact envelope,
// single producer, single core, NullClock, a variant mixing inline and loaned types).
// The last suite is the exactly-once run with loans under several producers (retries on pool and
// ring refusals, every 7th message retained and dropped on a third thread), meant for the
// ThreadSanitizer and AddressSanitizer builds; MCCC_STRESS_SCALE scales it
// (stress/stress_support.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "stress/stress_support.hpp"
#include "support/bus_configs.hpp"

namespace {

using mccc::BusError;
using mccc::LoanPoolStatistics;
using mccc::MessageHeader;
using mccc::MessageLoan;
using mccc::MessagePriority;
using mccc::PerformanceMode;
using mccc::Retained;

// ----- message types ----------------------------------------------------------------------------

/// A large message that cannot be copied or moved: it can only reach subscribers in its block.
struct Scan {
  Scan() noexcept = default;  // default-initialised: the producer fills it
  Scan(const Scan&) = delete;
  Scan& operator=(const Scan&) = delete;
  uint32_t sensor;
  uint32_t count;
  uint64_t seq;
  uint64_t points[256];
};

/// A loaned message that counts its live objects and records the thread that destroyed it last.
struct Frame {
  static inline std::atomic<int> live{0};
  static inline std::atomic<std::thread::id> destroyed_on{};
  explicit Frame(uint32_t v) noexcept : value(v) { live.fetch_add(1); }
  Frame() noexcept : Frame(0U) {}
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;
  ~Frame() {
    destroyed_on.store(std::this_thread::get_id());
    live.fetch_sub(1);
  }
  uint32_t value;
};

/// Small messages that travel inline.
struct Imu {
  uint32_t seq;
};
struct Status {
  uint8_t code;
};
/// A third loaned type, in the mixed variant only.
struct Image {
  uint32_t width;
  uint8_t pixels[2048];
};

void FillScan(Scan& scan, uint32_t sensor, uint64_t seq) {
  scan.sensor = sensor;
  scan.count = 256U;
  scan.seq = seq;
  for (uint32_t i = 0U; i < 256U; ++i) {
    scan.points[i] = mccc_stress::Mix(seq * 1000U + i);
  }
}

bool ScanIsIntact(const Scan& scan, uint32_t sensor, uint64_t seq) {
  if (scan.sensor != sensor || scan.count != 256U || scan.seq != seq) {
    return false;
  }
  for (uint32_t i = 0U; i < 256U; ++i) {
    if (scan.points[i] != mccc_stress::Mix(seq * 1000U + i)) {
      return false;
    }
  }
  return true;
}

// ----- error callback (a plain function pointer, hence globals) ---------------------------------

std::atomic<uint64_t> g_loan_refused{0U};
std::atomic<uint64_t> g_queue_full{0U};
std::atomic<uint64_t> g_invalid{0U};
std::atomic<uint64_t> g_foreign{0U};
std::atomic<uint64_t> g_nonzero_foreign_ids{0U};
std::atomic<uint64_t> g_other_errors{0U};
std::atomic<uint64_t> g_nonzero_loan_ids{0U};

void RecordError(BusError error, uint64_t msg_id) {
  switch (error) {
    case BusError::kLoanRefused:
      g_loan_refused.fetch_add(1U);
      if (msg_id != 0U) {
        g_nonzero_loan_ids.fetch_add(1U);
      }
      break;
    case BusError::kQueueFull:
      g_queue_full.fetch_add(1U);
      break;
    case BusError::kInvalidMessage:
      g_invalid.fetch_add(1U);
      break;
    case BusError::kForeignLoan:
      g_foreign.fetch_add(1U);
      if (msg_id != 0U) {
        g_nonzero_foreign_ids.fetch_add(1U);
      }
      break;
    default:
      g_other_errors.fetch_add(1U);
      break;
  }
}

void ResetErrors() {
  g_loan_refused.store(0U);
  g_queue_full.store(0U);
  g_invalid.store(0U);
  g_foreign.store(0U);
  g_nonzero_foreign_ids.store(0U);
  g_other_errors.store(0U);
  g_nonzero_loan_ids.store(0U);
}

// ----- bus configurations -----------------------------------------------------------------------

using LoanedPayload = std::variant<mccc::Loaned<Scan>, mccc::Loaned<Frame>>;

// Structs, not aliases: a typed test names its type parameter in its CTest name.
struct DefaultLoanTraits : mccc_test::WithLoans<mccc::DefaultBusTraits, mccc::PoolOf<Scan, 8U>,
                                                mccc::PoolOf<Frame, 4U>> {};
struct SharedRingTraits : mccc_test::WithLoans<mccc_test::SharedRing<64U, 16U>,
                                               mccc::PoolOf<Scan, 8U>, mccc::PoolOf<Frame, 4U>> {};
struct HighRingTraits : mccc_test::WithHighRing<SharedRingTraits, 16U> {};
struct ProducerLanesTraits : mccc_test::WithLanes<SharedRingTraits, 2U, 64U> {};
struct CompactTraits : mccc_test::Compact<SharedRingTraits> {};
struct SingleProducerTraits : mccc_test::SingleProducer<SharedRingTraits> {};
struct NullClockTraits : mccc_test::WithClock<SharedRingTraits, mccc::NullClock> {};
// One thread only in the tests of the single-core build.
struct SingleCoreTraits : mccc_test::SingleCore<HighRingTraits> {};
struct MixedTraits : mccc_test::WithLoans<HighRingTraits, mccc::PoolOf<Scan, 8U>,
                                          mccc::PoolOf<Frame, 4U>, mccc::PoolOf<Image, 2U>> {};
using MixedPayload =
    std::variant<Imu, mccc::Loaned<Scan>, Status, mccc::Loaned<Frame>, mccc::Loaned<Image>>;

template <typename PayloadT, typename TraitsT>
struct Config {
  using Payload = PayloadT;
  using Traits = TraitsT;
  using Bus = mccc::AsyncBus<Payload, Traits>;
};

using Configurations = ::testing::Types<
    Config<LoanedPayload, DefaultLoanTraits>, Config<LoanedPayload, SharedRingTraits>,
    Config<LoanedPayload, HighRingTraits>, Config<LoanedPayload, ProducerLanesTraits>,
    Config<LoanedPayload, CompactTraits>, Config<LoanedPayload, SingleProducerTraits>,
    Config<LoanedPayload, NullClockTraits>, Config<LoanedPayload, SingleCoreTraits>,
    Config<MixedPayload, MixedTraits>>;

class ConfigNames {
 public:
  template <typename C>
  static std::string GetName(int) {
    using T = typename C::Traits;
    if constexpr (std::is_same_v<T, DefaultLoanTraits>) return "Default";
    if constexpr (std::is_same_v<T, SharedRingTraits>) return "SharedRing";
    if constexpr (std::is_same_v<T, HighRingTraits>) return "HighRing";
    if constexpr (std::is_same_v<T, ProducerLanesTraits>) return "ProducerLanes";
    if constexpr (std::is_same_v<T, CompactTraits>) return "CompactEnvelope";
    if constexpr (std::is_same_v<T, SingleProducerTraits>) return "SingleProducer";
    if constexpr (std::is_same_v<T, NullClockTraits>) return "NullClock";
    if constexpr (std::is_same_v<T, SingleCoreTraits>) return "SingleCore";
    if constexpr (std::is_same_v<T, MixedTraits>) return "MixedVariant";
    return "Unnamed";
  }
};

// =================================================================================================
// Delivery on every configuration.
// =================================================================================================

template <typename C>
class LoanDelivery : public ::testing::Test {
 protected:
  using BusType = typename C::Bus;
  void SetUp() override {
    ResetErrors();
    bus_ = std::make_unique<BusType>();
    bus_->SetErrorCallback(&RecordError);
  }
  void TearDown() override { bus_.reset(); }

  /// A Scan loan of `lender` at `priority`, filled for sensor 5, seq 55 (empty if refused).
  template <typename Lender>
  static MessageLoan<Scan> LoanScanFrom(Lender& lender, MessagePriority priority) {
    MessageLoan<Scan> loan = lender.template Loan<Scan>(priority);
    if (loan) {
      FillScan(*loan, 5U, 55U);
    }
    return loan;
  }

  /// A filled Scan loan at `priority`; the test fails if the pool refuses.
  MessageLoan<Scan> LoanScan(MessagePriority priority, uint32_t sensor, uint64_t seq) {
    MessageLoan<Scan> loan = bus_->template Loan<Scan>(priority);
    EXPECT_TRUE(loan);
    if (loan) {
      FillScan(*loan, sensor, seq);
    }
    return loan;
  }

  std::unique_ptr<BusType> bus_;
};
TYPED_TEST_SUITE(LoanDelivery, Configurations, ConfigNames);

// G-11: every subscriber gets the block the producer filled, intact, on every configuration
TYPED_TEST(LoanDelivery, EverySubscriberGetsTheBlockItselfWithItsContentsAndHeader) {
  using Bus = typename TestFixture::BusType;
  Bus& bus = *this->bus_;
  struct Seen {
    const Scan* address = nullptr;
    bool intact = false;
    MessageHeader header{};
    uint32_t calls = 0U;
  };
  Seen with_header;
  Seen plain;
  Seen envelope;
  ASSERT_TRUE(bus.template Subscribe<Scan>([&](const Scan& scan, const MessageHeader& header) {
                   with_header.address = &scan;
                   with_header.intact = ScanIsIntact(scan, 3U, 77U);
                   with_header.header = header;
                   ++with_header.calls;
                 })
                  .IsValid());
  ASSERT_TRUE(bus.template Subscribe<Scan>([&](const Scan& scan) {
                   plain.address = &scan;
                   plain.intact = ScanIsIntact(scan, 3U, 77U);
                   ++plain.calls;
                 })
                  .IsValid());
  if constexpr (!Bus::kCompactEnvelope) {
    // The whole envelope: its payload is the Loaned<Scan> handle that refers to the block.
    ASSERT_TRUE(bus.template Subscribe<Scan>([&](const typename Bus::Envelope& e) {
                     const auto& handle = std::get<mccc::Loaned<Scan>>(e.payload);
                     envelope.address = handle.Get();
                     envelope.intact = ScanIsIntact(*handle, 3U, 77U);
                     envelope.header = e.header;
                     ++envelope.calls;
                   })
                    .IsValid());
  }
  EXPECT_EQ(bus.template SubscriberCount<Scan>(), Bus::kCompactEnvelope ? 2U : 3U);

  MessageLoan<Scan> loan = this->LoanScan(MessagePriority::kMedium, 3U, 77U);
  ASSERT_TRUE(loan);
  const Scan* const block = loan.Get();
  EXPECT_EQ(bus.template GetLoanStatistics<Scan>().in_use, 1U);
  ASSERT_TRUE(bus.Publish(std::move(loan), 21U));
  EXPECT_FALSE(loan) << "a published loan is handed over";  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(bus.template GetLoanStatistics<Scan>().in_use, 1U) << "queued: still in use";
  EXPECT_EQ(bus.QueueOccupancy(), 1U);

  EXPECT_EQ(bus.ProcessBatch(), 1U);
  for (const Seen* seen : {&with_header, &plain}) {
    EXPECT_EQ(seen->calls, 1U);
    EXPECT_EQ(seen->address, block) << "the subscriber reads the block itself, no copy";
    EXPECT_TRUE(seen->intact);
  }
  EXPECT_EQ(with_header.header.sender_id, 21U);
  EXPECT_EQ(with_header.header.priority, MessagePriority::kMedium);
  EXPECT_EQ(with_header.header.msg_id, 1U) << "the first message of a fresh bus";
  if constexpr (std::is_same_v<typename Bus::TraitsType::Clock, mccc::NullClock>) {
    EXPECT_EQ(with_header.header.timestamp_us, 0U);
  }
  if constexpr (!Bus::kCompactEnvelope) {
    EXPECT_EQ(envelope.calls, 1U);
    EXPECT_EQ(envelope.address, block);
    EXPECT_TRUE(envelope.intact);
    EXPECT_EQ(envelope.header.msg_id, 1U);
    EXPECT_EQ(envelope.header.sender_id, 21U);
  }
  EXPECT_EQ(bus.template GetLoanStatistics<Scan>().in_use, 0U)
      << "the block returns after the last callback";

  // A LOW loan published at HIGH: the pool admitted it as LOW, the header says HIGH.
  MessageLoan<Scan> low = this->LoanScan(MessagePriority::kLow, 3U, 77U);
  ASSERT_TRUE(low);
  EXPECT_EQ(low.Priority(), MessagePriority::kLow);
  ASSERT_TRUE(bus.PublishWithPriority(std::move(low), 22U, MessagePriority::kHigh));
  EXPECT_EQ(bus.ProcessBatch(), 1U);
  EXPECT_EQ(with_header.calls, 2U);
  EXPECT_EQ(with_header.header.priority, MessagePriority::kHigh);
  EXPECT_EQ(with_header.header.sender_id, 22U);
  EXPECT_EQ(with_header.header.msg_id, 2U);
  EXPECT_TRUE(with_header.intact);

  // Publish(std::move(loan)) publishes at the loan's own priority.
  MessageLoan<Scan> high = this->LoanScan(MessagePriority::kHigh, 3U, 77U);
  ASSERT_TRUE(bus.Publish(std::move(high), 23U));
  EXPECT_EQ(bus.ProcessBatch(), 1U);
  EXPECT_EQ(with_header.header.priority, MessagePriority::kHigh);

  const LoanPoolStatistics s = bus.template GetLoanStatistics<Scan>();
  EXPECT_EQ(s.in_use, 0U);
  EXPECT_EQ(s.loans_granted, 3U);
  EXPECT_EQ(s.high_water, 1U);
  EXPECT_EQ(bus.GetStatistics().messages_processed, 3U);
  EXPECT_EQ(g_other_errors.load() + g_loan_refused.load() + g_queue_full.load(), 0U);
}

// G-11: the visitor gets the block itself
TYPED_TEST(LoanDelivery, TheVisitorGetsTheBlockAsConstReference) {
  using Bus = typename TestFixture::BusType;
  Bus& bus = *this->bus_;
  MessageLoan<Scan> scan = this->LoanScan(MessagePriority::kLow, 5U, 9U);
  ASSERT_TRUE(scan);
  const Scan* const scan_block = scan.Get();
  MessageLoan<Frame> frame = bus.template Loan<Frame>(MessagePriority::kMedium, 31U);
  ASSERT_TRUE(frame);
  const Frame* const frame_block = frame.Get();
  ASSERT_TRUE(bus.Publish(std::move(scan), 1U));
  ASSERT_TRUE(bus.Publish(std::move(frame), 2U));
  EXPECT_EQ(Frame::live.load(), 1);

  std::vector<const void*> order;
  bool scan_intact = false;
  uint32_t frame_value = 0U;
  uint32_t others = 0U;
  const uint32_t processed = bus.ProcessBatchWith(mccc::make_overloaded(
      [&](const Scan& s, const MessageHeader& h) {
        order.push_back(&s);
        scan_intact =
            ScanIsIntact(s, 5U, 9U) && h.sender_id == 1U && h.priority == MessagePriority::kLow;
      },
      [&](const Frame& f) {
        order.push_back(&f);
        frame_value = f.value;
      },
      [&](const auto&) { ++others; }));
  EXPECT_EQ(processed, 2U);
  ASSERT_EQ(order.size(), 2U);
  EXPECT_EQ(order[0], scan_block);
  EXPECT_EQ(order[1], frame_block);
  EXPECT_TRUE(scan_intact);
  EXPECT_EQ(frame_value, 31U);
  EXPECT_EQ(others, 0U);
  EXPECT_EQ(bus.template GetLoanStatistics<Scan>().in_use, 0U);
  EXPECT_EQ(bus.template GetLoanStatistics<Frame>().in_use, 0U);
  EXPECT_EQ(Frame::live.load(), 0) << "destroyed right after the visitor ran";
}

// G-14: the block returns after the message's last callback, by the end of the batch
TYPED_TEST(LoanDelivery, EachMessageDiesAfterItsLastCallbackAndItsBlockIsBackWhenTheBatchEnds) {
  using Bus = typename TestFixture::BusType;
  Bus& bus = *this->bus_;
  // Frame's pool of 4: MEDIUM takes 3. Two subscribers; each records how many Frames are alive
  // when it runs: the earlier messages of the same batch must already be destroyed.
  std::vector<int> alive_at_first;
  std::vector<int> alive_at_second;
  ASSERT_TRUE(
      bus.template Subscribe<Frame>([&](const Frame&) { alive_at_first.push_back(Frame::live); })
          .IsValid());
  ASSERT_TRUE(
      bus.template Subscribe<Frame>([&](const Frame&) { alive_at_second.push_back(Frame::live); })
          .IsValid());
  for (uint32_t i = 0U; i < 3U; ++i) {
    ASSERT_TRUE(bus.Publish(bus.template Loan<Frame>(MessagePriority::kMedium, i), 1U));
  }
  EXPECT_EQ(bus.ProcessBatch(), 3U) << "one batch";
  EXPECT_EQ(alive_at_first, (std::vector<int>{3, 2, 1}));
  EXPECT_EQ(alive_at_second, (std::vector<int>{3, 2, 1})) << "not before its last callback";
  EXPECT_EQ(Frame::live.load(), 0);
  EXPECT_EQ(bus.template GetLoanStatistics<Frame>().in_use, 0U) << "every block back";

  // The visitor path: the same guarantees.
  for (uint32_t i = 0U; i < 3U; ++i) {
    ASSERT_TRUE(bus.Publish(bus.template Loan<Frame>(MessagePriority::kMedium, i), 1U));
  }
  std::vector<int> alive_in_visitor;
  EXPECT_EQ(
      bus.ProcessBatchWith(mccc::make_overloaded(
          [&](const Frame&) { alive_in_visitor.push_back(Frame::live); }, [](const auto&) {})),
      3U);
  EXPECT_EQ(alive_in_visitor, (std::vector<int>{3, 2, 1}));
  EXPECT_EQ(Frame::live.load(), 0);
  EXPECT_EQ(bus.template GetLoanStatistics<Frame>().in_use, 0U);
  const LoanPoolStatistics s = bus.template GetLoanStatistics<Frame>();
  EXPECT_EQ(s.loans_granted, 6U);
  EXPECT_EQ(s.high_water, 3U);
}

TYPED_TEST(LoanDelivery, AHighLoanOvertakesQueuedLowOnesExactlyWhenTheBusHasAHighRing) {
  using Bus = typename TestFixture::BusType;
  Bus& bus = *this->bus_;
  std::vector<uint64_t> order;
  ASSERT_TRUE(
      bus.template Subscribe<Scan>([&](const Scan& scan) { order.push_back(scan.seq); }).IsValid());
  for (uint64_t seq = 1U; seq <= 3U; ++seq) {
    ASSERT_TRUE(bus.Publish(this->LoanScan(MessagePriority::kLow, 1U, seq), 1U));
  }
  ASSERT_TRUE(bus.Publish(this->LoanScan(MessagePriority::kHigh, 1U, 100U), 1U));
  EXPECT_EQ(bus.template GetLoanStatistics<Scan>().in_use, 4U);
  EXPECT_EQ(bus.ProcessBatch(), 4U);
  const std::vector<uint64_t> expected = Bus::kHighQueueDepth > 0U
                                             ? std::vector<uint64_t>{100U, 1U, 2U, 3U}
                                             : std::vector<uint64_t>{1U, 2U, 3U, 100U};
  EXPECT_EQ(order, expected);
  EXPECT_EQ(bus.template GetLoanStatistics<Scan>().in_use, 0U);
}

// G-14: the block returns when the last Retained handle goes, on another thread
TYPED_TEST(LoanDelivery, ARetainedMessageOutlivesItsCallbackAndAnotherThreadReleasesIt) {
  using Bus = typename TestFixture::BusType;
  Bus& bus = *this->bus_;
  Retained<Frame> kept;
  const Frame* stale = nullptr;
  ASSERT_TRUE(bus.template Subscribe<Frame>([&](const Frame& frame) {
                   if (frame.value == 1U) {
                     kept = bus.Retain(frame);
                   } else {
                     stale = &frame;
                   }
                 })
                  .IsValid());
  MessageLoan<Frame> loan = bus.template Loan<Frame>(MessagePriority::kMedium, 1U);
  ASSERT_TRUE(loan);
  const Frame* const block = loan.Get();
  ASSERT_TRUE(bus.Publish(std::move(loan), 1U));
  ASSERT_TRUE(bus.Publish(bus.template Loan<Frame>(MessagePriority::kMedium, 2U), 1U));
  EXPECT_EQ(bus.ProcessBatch(), 2U);

  ASSERT_TRUE(kept);
  EXPECT_EQ(kept.Get(), block);
  EXPECT_EQ(kept->value, 1U);
  EXPECT_EQ(bus.template GetLoanStatistics<Frame>().in_use, 1U) << "kept beyond the callback";
  EXPECT_EQ(Frame::live.load(), 1) << "the unretained message is gone, the retained one not";
  ASSERT_NE(stale, nullptr);
  EXPECT_FALSE(bus.Retain(*stale)) << "a reference kept past its callback cannot be retained";
  const Frame outside(1U);
  EXPECT_FALSE(bus.Retain(outside)) << "an object outside the pool";

  // Copies count: the block stays until the last of them goes.
  Retained<Frame> copy = kept;
  Retained<Frame> another;
  another = copy;
  Retained<Frame> through_bus = bus.Retain(*copy);
  ASSERT_TRUE(through_bus);
  kept.Reset();
  copy.Reset();
  through_bus.Reset();
  EXPECT_EQ(bus.template GetLoanStatistics<Frame>().in_use, 1U);
  EXPECT_EQ(Frame::live.load(), 2) << "the retained message and `outside`";
  EXPECT_EQ(another->value, 1U);

  std::thread::id releaser_id;
  std::thread releaser([&releaser_id, handle = std::move(another)]() mutable {
    releaser_id = std::this_thread::get_id();
    handle.Reset();
  });
  releaser.join();
  EXPECT_EQ(bus.template GetLoanStatistics<Frame>().in_use, 0U);
  EXPECT_EQ(Frame::live.load(), 1) << "only `outside`";
  EXPECT_EQ(Frame::destroyed_on.load(), releaser_id) << "the last holder's thread destroys it";

  // Retained handles hold blocks of their own pool only: other messages flow meanwhile.
  Retained<Frame> pinned[4];
  uint32_t index = 0U;
  const auto pin_all = bus.template Subscribe<Frame>(
      [&](const Frame& frame) { pinned[index++ % 4U] = bus.Retain(frame); });
  for (uint32_t i = 0U; i < 4U; ++i) {
    ASSERT_TRUE(bus.Publish(bus.template Loan<Frame>(MessagePriority::kHigh, 10U + i), 1U));
  }
  EXPECT_EQ(bus.ProcessBatch(), 4U);
  EXPECT_EQ(bus.template GetLoanStatistics<Frame>().in_use, 4U);
  EXPECT_FALSE(bus.template Loan<Frame>(MessagePriority::kHigh, 0U)) << "Frame's pool is held";
  ASSERT_TRUE(bus.Publish(this->LoanScan(MessagePriority::kLow, 2U, 5U), 1U))
      << "another type's loans still flow";
  EXPECT_EQ(bus.ProcessBatch(), 1U);
  EXPECT_TRUE(bus.Unsubscribe(pin_all));
  for (Retained<Frame>& handle : pinned) {
    handle.Reset();
  }
  EXPECT_EQ(bus.template GetLoanStatistics<Frame>().in_use, 0U);
  EXPECT_EQ(Frame::live.load(), 1);
}

// G-14: loans still queued when the bus is destroyed return their blocks
TYPED_TEST(LoanDelivery, LoansStillQueuedWhenTheBusIsDestroyedReturnTheirBlocks) {
  using Bus = typename TestFixture::BusType;
  Bus& bus = *this->bus_;
  ASSERT_TRUE(bus.Publish(bus.template Loan<Frame>(MessagePriority::kLow, 1U), 1U));
  ASSERT_TRUE(bus.Publish(bus.template Loan<Frame>(MessagePriority::kMedium, 2U), 1U));
  ASSERT_TRUE(bus.Publish(bus.template Loan<Frame>(MessagePriority::kHigh, 3U), 1U));
  MessageLoan<Frame> unpublished = bus.template Loan<Frame>(MessagePriority::kHigh, 4U);
  ASSERT_TRUE(unpublished);
  unpublished.Reset();  // returns its block unpublished
  EXPECT_EQ(Frame::live.load(), 3);
  EXPECT_EQ(bus.GetStatistics().loan_blocks_in_use, 3U);
  this->bus_.reset();
  EXPECT_EQ(Frame::live.load(), 0) << "the bus destroyed every queued message (each ring)";
}

// G-12: a loan another bus lent is refused (FOREIGN_LOAN), stays with the caller, intact, and is
// delivered when published on its own bus; both pools stay exact, on every configuration
TYPED_TEST(LoanDelivery, ALoanOfAnotherBusIsRefusedAndStaysIntactForItsOwnBus) {
  using Bus = typename TestFixture::BusType;
  Bus& bus = *this->bus_;
  auto lender = std::make_unique<Bus>();
  lender->SetErrorCallback(&RecordError);
  uint32_t on_bus = 0U;
  std::vector<const Scan*> scans;
  std::vector<const Frame*> frames;
  bool intact = false;
  MessageHeader header{};
  ASSERT_TRUE(bus.template Subscribe<Scan>([&](const Scan&) { ++on_bus; }).IsValid());
  ASSERT_TRUE(bus.template Subscribe<Frame>([&](const Frame&) { ++on_bus; }).IsValid());
  ASSERT_TRUE(lender
                  ->template Subscribe<Scan>([&](const Scan& scan, const MessageHeader& h) {
                    scans.push_back(&scan);
                    intact = ScanIsIntact(scan, 5U, 55U);
                    header = h;
                  })
                  .IsValid());
  ASSERT_TRUE(
      lender->template Subscribe<Frame>([&](const Frame& frame) { frames.push_back(&frame); })
          .IsValid());

  MessageLoan<Scan> loan = this->template LoanScanFrom<Bus>(*lender, MessagePriority::kLow);
  ASSERT_TRUE(loan);
  const Scan* const block = loan.Get();
  const auto still_with_the_caller = [&]() {
    return loan && loan.Get() == block && ScanIsIntact(*loan, 5U, 55U) &&
           loan.Priority() == MessagePriority::kLow;
  };
  // A foreign loan accepted would be dropped into this bus's pool by its consumer: the test
  // stops there, and destroys this bus first, whose ring then returns the block to its lender.
  const auto refused = [this](bool published) {
    if (published) {
      this->bus_.reset();
    }
    return !published;
  };
  ASSERT_TRUE(refused(bus.Publish(std::move(loan), 1U)));
  ASSERT_TRUE(still_with_the_caller());
  ASSERT_TRUE(refused(bus.PublishWithPriority(std::move(loan), 1U, MessagePriority::kHigh)));
  ASSERT_TRUE(still_with_the_caller());
  if constexpr (Bus::kStoresTimestamp) {
    ASSERT_TRUE(refused(bus.PublishFast(std::move(loan), 1U, 1234U)));
    ASSERT_TRUE(still_with_the_caller());
  }
  const uint64_t loan_refusals = Bus::kStoresTimestamp ? 3U : 2U;

  // A Loaned handle built from another bus's loan: refused the same way.
  MessageLoan<Frame> frame_loan = lender->template Loan<Frame>(MessagePriority::kMedium, 31U);
  ASSERT_TRUE(frame_loan);
  const Frame* const frame_block = frame_loan.Get();
  mccc::Loaned<Frame> handle(std::move(frame_loan));
  ASSERT_TRUE(refused(bus.Publish(std::move(handle), 2U)));
  ASSERT_TRUE(handle);
  EXPECT_EQ(handle.Get(), frame_block);
  EXPECT_EQ(handle->value, 31U);

  EXPECT_EQ(g_foreign.load(), loan_refusals + 1U);
  EXPECT_EQ(g_nonzero_foreign_ids.load(), 0U) << "FOREIGN_LOAN carries msg_id 0";
  EXPECT_EQ(g_queue_full.load() + g_invalid.load() + g_other_errors.load(), 0U);
  EXPECT_EQ(bus.QueueOccupancy(), 0U) << "no slot was claimed";
  const mccc::BusStatisticsSnapshot counted = bus.GetStatistics();
  EXPECT_EQ(counted.messages_published + counted.messages_dropped, 0U);
  EXPECT_EQ(counted.loan_blocks_in_use, 0U);
  EXPECT_EQ(lender->GetStatistics().loan_blocks_in_use, 2U);
  EXPECT_EQ(bus.ProcessBatch(), 0U);

  // Published on the bus that lent them: delivered as the same blocks, intact, at the loan's
  // priority, and both pools come back whole.
  ASSERT_TRUE(lender->Publish(std::move(loan), 3U));
  ASSERT_TRUE(lender->Publish(std::move(handle), 4U));
  EXPECT_EQ(lender->ProcessBatch(), 2U);
  ASSERT_EQ(scans.size(), 1U);
  EXPECT_EQ(scans[0], block);
  EXPECT_TRUE(intact);
  EXPECT_EQ(header.priority, MessagePriority::kLow);
  EXPECT_EQ(header.sender_id, 3U);
  ASSERT_EQ(frames.size(), 1U);
  EXPECT_EQ(frames[0], frame_block);
  EXPECT_EQ(on_bus, 0U);
  EXPECT_EQ(lender->GetStatistics().loan_blocks_in_use, 0U);
  EXPECT_EQ(bus.GetStatistics().loan_blocks_in_use, 0U);
  std::vector<MessageLoan<Scan>> whole_pool;
  for (uint32_t i = 0U; i < Bus::template LoanPoolOf<Scan>::kCapacity; ++i) {
    whole_pool.push_back(bus.template Loan<Scan>(MessagePriority::kHigh));
    ASSERT_TRUE(whole_pool.back()) << "block " << i << " of this bus's pool";
    whole_pool.push_back(lender->template Loan<Scan>(MessagePriority::kHigh));
    ASSERT_TRUE(whole_pool.back()) << "block " << i << " of the lender's pool";
  }
  EXPECT_FALSE(bus.template Loan<Scan>(MessagePriority::kHigh));
  EXPECT_FALSE(lender->template Loan<Scan>(MessagePriority::kHigh));
  whole_pool.clear();
  lender.reset();
  EXPECT_EQ(Frame::live.load(), 0);
}

// =================================================================================================
// One small bus: refusals, errors, modes and counters.
// =================================================================================================

// Ring limits: LOW 5, MEDIUM 7, HIGH 8.
using SmallRingTraits = mccc_test::WithLoans<mccc_test::SharedRing<8U, 16U>,
                                             mccc::PoolOf<Scan, 10U>, mccc::PoolOf<Frame, 4U>>;
using SmallPayload = std::variant<Imu, mccc::Loaned<Scan>, mccc::Loaned<Frame>>;
using SmallBus = mccc::AsyncBus<SmallPayload, SmallRingTraits>;
static_assert(SmallBus::Admission::LimitFor(MessagePriority::kLow) == 5U, "");
static_assert(SmallBus::Admission::LimitFor(MessagePriority::kMedium) == 7U, "");

// Scan's pool of 10: LOW 6, MEDIUM 8, HIGH 10 (reserve 2). Frame's pool of 4: LOW 3, MEDIUM 3.
using ScanAdmission = SmallBus::LoanPoolOf<Scan>::Admission;
static_assert(SmallBus::LoanPoolOf<Scan>::kCapacity == 10U, "");
static_assert(ScanAdmission::kLowLimit == 6U && ScanAdmission::kMediumLimit == 8U &&
                  ScanAdmission::kHighLimit == 10U && ScanAdmission::kHighReserve == 2U,
              "");
static_assert(SmallBus::LoanPoolOf<Frame>::Admission::kLowLimit == 3U, "");
static_assert(SmallBus::LoanPoolOf<Scan>::BlockBytes() >= sizeof(Scan), "");

class LoanBus : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetErrors();
    bus_ = std::make_unique<SmallBus>();
    bus_->SetErrorCallback(&RecordError);
  }
  void TearDown() override { bus_.reset(); }

  std::unique_ptr<SmallBus> bus_;
};

// G-12: a refused publish leaves the loan with the caller, intact; published later, delivered
TEST_F(LoanBus, ARefusedPublishLeavesTheLoanIntactAndItCanBePublishedLater) {
  SmallBus& bus = *bus_;
  std::vector<const Scan*> delivered;
  bool intact = false;
  MessageHeader header{};
  ASSERT_TRUE(bus.Subscribe<Scan>([&](const Scan& scan, const MessageHeader& h) {
                   delivered.push_back(&scan);
                   intact = ScanIsIntact(scan, 8U, 4242U);
                   header = h;
                 })
                  .IsValid());
  for (uint32_t i = 0U; i < 5U; ++i) {  // the ring at its LOW limit
    ASSERT_TRUE(bus.PublishWithPriority(Imu{i}, 1U, MessagePriority::kLow));
  }
  MessageLoan<Scan> loan = bus.Loan<Scan>(MessagePriority::kLow);
  ASSERT_TRUE(loan);
  FillScan(*loan, 8U, 4242U);
  const Scan* const block = loan.Get();

  EXPECT_FALSE(bus.Publish(std::move(loan), 4U));
  ASSERT_TRUE(loan) << "a refused publish leaves the loan with the caller";
  EXPECT_EQ(loan.Get(), block);
  EXPECT_TRUE(ScanIsIntact(*loan, 8U, 4242U));
  EXPECT_EQ(loan.Priority(), MessagePriority::kLow);
  EXPECT_EQ(bus.GetLoanStatistics<Scan>().in_use, 1U);
  EXPECT_EQ(g_queue_full.load(), 1U);
  mccc::BusStatisticsSnapshot s = bus.GetStatistics();
  EXPECT_EQ(s.low_priority_dropped, 1U);
  EXPECT_EQ(s.messages_published, 5U);
  EXPECT_EQ(s.loans_granted, 1U) << "a refused publish does not take another block";

  // A priority that is not an enumerator: refused as invalid, the loan again untouched.
  EXPECT_FALSE(bus.PublishWithPriority(std::move(loan), 4U, static_cast<MessagePriority>(3)));
  ASSERT_TRUE(loan);
  EXPECT_EQ(loan.Get(), block);
  EXPECT_EQ(g_invalid.load(), 1U);

  EXPECT_EQ(bus.ProcessBatch(), 5U);
  EXPECT_TRUE(delivered.empty());
  ASSERT_TRUE(bus.Publish(std::move(loan), 4U)) << "the same loan, once the ring has room";
  EXPECT_FALSE(loan);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(bus.ProcessBatch(), 1U);
  ASSERT_EQ(delivered.size(), 1U);
  EXPECT_EQ(delivered[0], block);
  EXPECT_TRUE(intact);
  EXPECT_EQ(header.sender_id, 4U);
  EXPECT_EQ(header.priority, MessagePriority::kLow);
  EXPECT_EQ(header.msg_id, 6U);
  s = bus.GetStatistics();
  EXPECT_EQ(s.messages_published, 6U);
  EXPECT_EQ(s.messages_dropped, 1U);
  EXPECT_EQ(s.loans_granted, 1U);
  EXPECT_EQ(s.loan_blocks_in_use, 0U);
}

// G-12: a loan the ring refuses stays with the caller
TEST_F(LoanBus, RingAdmissionIsByThePublishPriorityAndPoolAdmissionByTheLoans) {
  SmallBus& bus = *bus_;
  for (uint32_t i = 0U; i < 7U; ++i) {  // the ring at its MEDIUM limit
    ASSERT_TRUE(bus.PublishWithPriority(Imu{i}, 1U, MessagePriority::kMedium));
  }
  MessageLoan<Scan> low = bus.Loan<Scan>(MessagePriority::kLow);
  ASSERT_TRUE(low);
  FillScan(*low, 1U, 1U);
  EXPECT_FALSE(bus.PublishWithPriority(std::move(low), 2U, MessagePriority::kMedium));
  ASSERT_TRUE(low);
  EXPECT_TRUE(bus.PublishWithPriority(std::move(low), 2U, MessagePriority::kHigh))
      << "a LOW loan published at HIGH takes the ring's last slot";
  MessageLoan<Scan> high = bus.Loan<Scan>(MessagePriority::kHigh);
  ASSERT_TRUE(high);
  EXPECT_FALSE(bus.Publish(std::move(high), 2U)) << "the ring is full for every priority";
  ASSERT_TRUE(high);
  const mccc::BusStatisticsSnapshot s = bus.GetStatistics();
  EXPECT_EQ(s.medium_priority_dropped, 1U);
  EXPECT_EQ(s.high_priority_dropped, 1U);
  EXPECT_EQ(s.high_priority_published, 1U);
  EXPECT_EQ(g_queue_full.load(), 2U);
  EXPECT_EQ(bus.ProcessBatch(), 8U);
  high.Reset();
  EXPECT_EQ(bus.GetLoanStatistics<Scan>().in_use, 0U);
}

TEST_F(LoanBus, AnEmptyLoanIsRefusedAsInvalidAndNothingIsQueued) {
  SmallBus& bus = *bus_;
  MessageLoan<Scan> empty;
  EXPECT_FALSE(empty);
  EXPECT_FALSE(bus.Publish(std::move(empty), 1U));
  EXPECT_EQ(g_invalid.load(), 1U);

  MessageLoan<Scan> loan = bus.Loan<Scan>(MessagePriority::kMedium);
  ASSERT_TRUE(loan);
  FillScan(*loan, 1U, 1U);
  ASSERT_TRUE(bus.Publish(std::move(loan), 1U));
  EXPECT_FALSE(bus.Publish(std::move(loan), 1U)) << "a moved-from loan";  // NOLINT
  EXPECT_EQ(g_invalid.load(), 2U);
  EXPECT_EQ(g_queue_full.load() + g_loan_refused.load() + g_other_errors.load(), 0U);

  const mccc::BusStatisticsSnapshot s = bus.GetStatistics();
  EXPECT_EQ(s.messages_published, 1U);
  EXPECT_EQ(s.messages_dropped, 0U) << "an invalid publish never reached the ring";
  EXPECT_EQ(bus.QueueOccupancy(), 1U);
  EXPECT_EQ(bus.ProcessBatch(), 1U);
}

// G-12: a foreign loan is refused through a Producer handle and PublishFast too, and Retain of
// another bus's message is empty and touches neither pool
TEST_F(LoanBus, AForeignLoanIsRefusedThroughAProducerHandleAndRetainOfItIsEmpty) {
  SmallBus& bus = *bus_;
  auto lender = std::make_unique<SmallBus>();
  MessageLoan<Scan> loan = lender->Loan<Scan>(MessagePriority::kHigh);
  ASSERT_TRUE(loan);
  FillScan(*loan, 6U, 66U);
  const Scan* const block = loan.Get();
  {
    // Accepted, the loan would be dropped into the wrong pool: stop, this bus destroyed first.
    const auto refused = [this](bool published) {
      if (published) {
        bus_.reset();
      }
      return !published;
    };
    SmallBus::Producer producer = bus.MakeProducer();
    ASSERT_TRUE(refused(producer.Publish(std::move(loan), 1U)));
    ASSERT_TRUE(refused(producer.PublishWithPriority(std::move(loan), 1U, MessagePriority::kLow)));
    ASSERT_TRUE(refused(producer.PublishFast(std::move(loan), 1U, 99U)));
    ASSERT_TRUE(refused(bus.PublishFast(std::move(loan), 1U, 99U, MessagePriority::kMedium)));
  }
  ASSERT_TRUE(loan);
  EXPECT_EQ(loan.Get(), block);
  EXPECT_EQ(loan.Priority(), MessagePriority::kHigh);
  EXPECT_TRUE(ScanIsIntact(*loan, 6U, 66U));
  EXPECT_EQ(g_foreign.load(), 4U);
  EXPECT_EQ(bus.QueueOccupancy(), 0U);

  EXPECT_FALSE(bus.Retain(*loan)) << "a message in another bus's pool";
  Retained<Scan> kept_in_callback;
  ASSERT_TRUE(
      lender->Subscribe<Scan>([&](const Scan& scan) { kept_in_callback = bus.Retain(scan); })
          .IsValid());
  ASSERT_TRUE(lender->Publish(std::move(loan), 1U));
  EXPECT_EQ(lender->ProcessBatch(), 1U);
  EXPECT_FALSE(kept_in_callback) << "Retain on the wrong bus, inside the lender's callback";
  EXPECT_EQ(bus.GetLoanStatistics<Scan>().in_use, 0U);
  EXPECT_EQ(lender->GetLoanStatistics<Scan>().in_use, 0U);

  // The same refusal in kBareMetal, which reports nothing.
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);
  MessageLoan<Scan> again = lender->Loan<Scan>(MessagePriority::kMedium);
  ASSERT_TRUE(again);
  EXPECT_FALSE(bus.Publish(std::move(again), 1U));
  EXPECT_TRUE(again);
  EXPECT_EQ(g_foreign.load(), 4U);
  again.Reset();
  EXPECT_EQ(lender->GetLoanStatistics<Scan>().in_use, 0U);
}

// G-14: an unpublished loan returns its block when reset or destroyed
TEST_F(LoanBus, AnUnpublishedLoanReturnsItsBlockWhenResetOrDestroyed) {
  SmallBus& bus = *bus_;
  MessageLoan<Frame> loan = bus.Loan<Frame>(MessagePriority::kLow, 5U);
  ASSERT_TRUE(loan);
  EXPECT_EQ(loan->value, 5U) << "built from the Loan arguments";
  EXPECT_EQ(Frame::live.load(), 1);
  EXPECT_EQ(bus.GetLoanStatistics<Frame>().in_use, 1U);
  loan.Reset();
  EXPECT_FALSE(loan);
  EXPECT_EQ(Frame::live.load(), 0);
  EXPECT_EQ(bus.GetLoanStatistics<Frame>().in_use, 0U);
  {
    MessageLoan<Frame> scoped = bus.Loan<Frame>(MessagePriority::kLow, 6U);
    ASSERT_TRUE(scoped);
    EXPECT_EQ(Frame::live.load(), 1);
  }
  EXPECT_EQ(Frame::live.load(), 0);
  EXPECT_EQ(bus.GetLoanStatistics<Frame>().in_use, 0U);
  EXPECT_EQ(bus.GetLoanStatistics<Frame>().loans_granted, 2U);
  EXPECT_EQ(bus.GetStatistics().messages_published, 0U);
}

// A relay: the consumer's callback loans from the pool whose blocks the same batch released.
// Frame's pool of 4 admits HIGH up to 4. Four queued Frames hold every block; while the fourth is
// dispatched, the first three are released (a pool this small returns them one by one), so the
// callback's HIGH loan gets one. The tests after it meet a group not yet returned.
// G-14: blocks released in a batch return to the consumer's own Loan at once
TEST_F(LoanBus, ACallbackRelayingWhatItReceivesGetsTheBlocksItsBatchReleased) {
  SmallBus& bus = *bus_;
  uint32_t relayed = 0U;
  uint32_t refused = 0U;
  std::vector<uint32_t> received;
  bus.Subscribe<Frame>([&](const Frame& frame) {
    received.push_back(frame.value);
    if (frame.value == 4U) {
      MessageLoan<Frame> forward = bus.Loan<Frame>(MessagePriority::kHigh, 40U);
      if (!forward) {
        ++refused;
        return;
      }
      relayed += bus.PublishWithPriority(std::move(forward), 9U, MessagePriority::kLow) ? 1U : 0U;
    }
  });
  for (uint32_t v = 1U; v <= 4U; ++v) {
    MessageLoan<Frame> loan = bus.Loan<Frame>(MessagePriority::kHigh, v);
    ASSERT_TRUE(loan) << v;
    ASSERT_TRUE(bus.PublishWithPriority(std::move(loan), 1U, MessagePriority::kLow)) << v;
  }
  EXPECT_EQ(bus.GetLoanStatistics<Frame>().in_use, 4U);
  EXPECT_EQ(bus.ProcessBatch(), 5U) << "the relayed Frame is dispatched in the same batch";
  EXPECT_EQ(refused, 0U);
  EXPECT_EQ(relayed, 1U);
  EXPECT_EQ(received, (std::vector<uint32_t>{1U, 2U, 3U, 4U, 40U}));
  EXPECT_EQ(bus.GetLoanStatistics<Frame>().in_use, 0U);
  EXPECT_EQ(Frame::live.load(), 0);
  EXPECT_EQ(g_loan_refused.load(), 0U);
}

// A relay whose pool returns blocks in groups: the consumer's group of released blocks is not
// yet counted back when its callback loans, at the limit of its priority, from the same pool.
// The refused loan returns the group and is granted, and nothing counts a refusal. Scan (1 KB or
// more, lowest free block) from SmallBus's pool of 10 (LOW 6, groups of 2); Frame (small, taken
// in turn) from a pool of 16 (LOW 10, groups of 4).
using RelayTraits = mccc_test::WithLoans<mccc_test::SharedRing<64U>, mccc::PoolOf<Scan, 10U>,
                                         mccc::PoolOf<Frame, 16U>>;
using RelayBus = mccc::AsyncBus<SmallPayload, RelayTraits>;

template <typename Bus, typename Message, typename Fill>
void RelayAtThePriorityLimit(Bus& bus, Fill fill) {
  using Pool = typename Bus::template LoanPoolOf<Message>;
  constexpr uint32_t kLowLimit = Pool::Admission::kLowLimit;
  static_assert(Pool::Admission::kLowLimit < Pool::kCapacity, "");
  ResetErrors();
  bus.SetErrorCallback(&RecordError);
  uint32_t received = 0U;
  uint32_t relayed = 0U;
  uint32_t refused = 0U;
  bus.template Subscribe<Message>([&](const Message&) {
    ++received;
    if (received == 2U) {  // the first message is released, its group not yet full
      EXPECT_EQ(bus.template GetLoanStatistics<Message>().in_use, kLowLimit)
          << "the released block still counts as in use";
      MessageLoan<Message> forward = bus.template Loan<Message>(MessagePriority::kLow);
      if (!forward) {
        ++refused;
        return;
      }
      fill(*forward);
      relayed += bus.PublishWithPriority(std::move(forward), 9U, MessagePriority::kHigh) ? 1U : 0U;
    }
  });
  for (uint32_t i = 0U; i < kLowLimit; ++i) {
    MessageLoan<Message> loan = bus.template Loan<Message>(MessagePriority::kLow);
    ASSERT_TRUE(loan) << i;
    fill(*loan);
    ASSERT_TRUE(bus.PublishWithPriority(std::move(loan), 1U, MessagePriority::kHigh)) << i;
  }
  EXPECT_FALSE(bus.template Loan<Message>(MessagePriority::kLow)) << "at the LOW limit";
  EXPECT_EQ(g_loan_refused.load(), 1U);
  EXPECT_EQ(bus.ProcessBatch(), kLowLimit + 1U) << "the relayed message in the same batch";
  EXPECT_EQ(refused, 0U);
  EXPECT_EQ(relayed, 1U);
  EXPECT_EQ(g_loan_refused.load(), 1U) << "the relay's first attempt is not a refusal";
  const LoanPoolStatistics stats = bus.template GetLoanStatistics<Message>();
  EXPECT_EQ(stats.low_priority_refused, 1U);
  EXPECT_EQ(stats.loans_granted, kLowLimit + 1U);
  EXPECT_EQ(stats.in_use, 0U) << "every block back when the batch ends";
}

// G-14: a relay at its priority's limit gets the blocks its batch released (both kinds of pool)
TEST_F(LoanBus, ARelayAtItsPriorityLimitGetsTheGroupItsBatchReleasedLowestFreePool) {
  static_assert(!SmallBus::LoanPoolOf<Scan>::kTakesInTurn, "");
  RelayAtThePriorityLimit<SmallBus, Scan>(*bus_, [](Scan& scan) { FillScan(scan, 1U, 7U); });
}

TEST(LoanRelay, ARelayAtItsPriorityLimitGetsTheGroupItsBatchReleasedInTurnPool) {
  static_assert(RelayBus::LoanPoolOf<Frame>::kTakesInTurn, "");
  auto bus = std::make_unique<RelayBus>();
  RelayAtThePriorityLimit<RelayBus, Frame>(*bus, [](Frame& frame) { frame.value = 5U; });
  bus.reset();
  EXPECT_EQ(Frame::live.load(), 0);
}

TEST_F(LoanBus, ALoanWithAPriorityThatIsNotAnEnumeratorIsEmptyAndInvalid) {
  SmallBus& bus = *bus_;
  MessageLoan<Scan> loan = bus.Loan<Scan>(static_cast<MessagePriority>(7));
  EXPECT_FALSE(loan);
  EXPECT_EQ(g_invalid.load(), 1U);
  EXPECT_EQ(g_loan_refused.load(), 0U);
  const LoanPoolStatistics s = bus.GetLoanStatistics<Scan>();
  EXPECT_EQ(s.loans_granted, 0U);
  EXPECT_EQ(s.low_priority_refused + s.medium_priority_refused + s.high_priority_refused, 0U);
  EXPECT_EQ(s.in_use, 0U);
}

// Scan's pool: LOW 6, MEDIUM 8, HIGH 10. Every granted loan is published (the loans sit in the
// ring, as a flood of large LOW messages would), so the pool fills with queued messages.
// The ring (64 slots) is never the limit here.
using FloodTraits = mccc_test::WithLoans<mccc_test::SharedRing<64U, 64U>, mccc::PoolOf<Scan, 10U>,
                                         mccc::PoolOf<Frame, 4U>>;
using FloodBus = mccc::AsyncBus<SmallPayload, FloodTraits>;

/// Loans `attempts` Scans at `priority` and publishes every granted one; returns the grants.
uint32_t LoanAndPublish(FloodBus& bus, MessagePriority priority, uint32_t attempts, uint64_t& seq) {
  uint32_t granted = 0U;
  for (uint32_t i = 0U; i < attempts; ++i) {
    MessageLoan<Scan> loan = bus.Loan<Scan>(priority);
    if (!loan) {
      continue;
    }
    FillScan(*loan, static_cast<uint32_t>(priority), ++seq);
    EXPECT_TRUE(bus.Publish(std::move(loan), 1U));
    ++granted;
  }
  return granted;
}

// G-13: a LOW flood never takes MEDIUM's blocks or HIGH's reserve
TEST(LoanAdmissionOnTheBus, ALowFloodNeverTakesTheBlocksOfMediumOrTheReserveOfHigh) {
  ResetErrors();
  auto bus = std::make_unique<FloodBus>();
  bus->SetErrorCallback(&RecordError);
  std::vector<uint64_t> delivered;
  ASSERT_TRUE(
      bus->Subscribe<Scan>([&](const Scan& scan) { delivered.push_back(scan.seq); }).IsValid());
  uint64_t seq = 0U;

  EXPECT_EQ(LoanAndPublish(*bus, MessagePriority::kLow, 50U, seq), 6U) << "LOW limit";
  EXPECT_EQ(g_loan_refused.load(), 44U);
  EXPECT_EQ(LoanAndPublish(*bus, MessagePriority::kMedium, 10U, seq), 2U) << "up to MEDIUM's";
  EXPECT_EQ(LoanAndPublish(*bus, MessagePriority::kLow, 5U, seq), 0U);
  EXPECT_EQ(LoanAndPublish(*bus, MessagePriority::kHigh, 1U, seq), 1U) << "the reserve";
  EXPECT_EQ(LoanAndPublish(*bus, MessagePriority::kMedium, 1U, seq), 0U)
      << "MEDIUM never takes the reserve";
  EXPECT_EQ(LoanAndPublish(*bus, MessagePriority::kHigh, 3U, seq), 1U)
      << "the rest of the reserve, then nothing";

  // Refused: LOW 44 + 5, MEDIUM 8 + 1, HIGH 2.
  const LoanPoolStatistics pool = bus->GetLoanStatistics<Scan>();
  EXPECT_EQ(pool.capacity, 10U);
  EXPECT_EQ(pool.in_use, 10U);
  EXPECT_EQ(pool.high_water, 10U);
  EXPECT_EQ(pool.loans_granted, 10U);
  EXPECT_EQ(pool.low_priority_refused, 49U);
  EXPECT_EQ(pool.medium_priority_refused, 9U);
  EXPECT_EQ(pool.high_priority_refused, 2U);
  EXPECT_EQ(g_loan_refused.load(), 49U + 9U + 2U) << "every refusal reaches the callback";
  EXPECT_EQ(g_nonzero_loan_ids.load(), 0U) << "LOAN_REFUSED carries msg_id 0";
  EXPECT_EQ(g_queue_full.load() + g_invalid.load() + g_other_errors.load(), 0U);

  // The bus statistics sum the pools (Frame's pool is untouched).
  MessageLoan<Frame> frame = bus->Loan<Frame>(MessagePriority::kLow, 1U);
  ASSERT_TRUE(frame);
  mccc::BusStatisticsSnapshot s = bus->GetStatistics();
  EXPECT_EQ(s.loans_granted, 11U);
  EXPECT_EQ(s.low_priority_loans_refused, 49U);
  EXPECT_EQ(s.medium_priority_loans_refused, 9U);
  EXPECT_EQ(s.high_priority_loans_refused, 2U);
  EXPECT_EQ(s.loan_blocks_in_use, 11U);
  EXPECT_EQ(s.messages_published, 10U);
  frame.Reset();

  EXPECT_EQ(bus->ProcessBatch(), 10U);
  std::vector<uint64_t> expected(10U);
  for (std::size_t i = 0U; i < expected.size(); ++i) {
    expected[i] = uint64_t{i} + 1U;
  }
  EXPECT_EQ(delivered, expected) << "every granted loan was delivered, in order";
  EXPECT_EQ(bus->GetStatistics().loan_blocks_in_use, 0U);

  // ResetStatistics zeroes the pool counters; the high-water mark restarts from what is in use.
  MessageLoan<Scan> held = bus->Loan<Scan>(MessagePriority::kLow);
  ASSERT_TRUE(held);
  bus->ResetStatistics();
  const LoanPoolStatistics after = bus->GetLoanStatistics<Scan>();
  EXPECT_EQ(after.in_use, 1U);
  EXPECT_EQ(after.high_water, 1U);
  EXPECT_EQ(after.loans_granted, 0U);
  EXPECT_EQ(
      after.low_priority_refused + after.medium_priority_refused + after.high_priority_refused, 0U);
  s = bus->GetStatistics();
  EXPECT_EQ(s.loans_granted, 0U);
  EXPECT_EQ(s.low_priority_loans_refused + s.medium_priority_loans_refused +
                s.high_priority_loans_refused,
            0U);
  EXPECT_EQ(s.loan_blocks_in_use, 1U);
  EXPECT_EQ(bus->GetLoanStatistics<Frame>().high_water, 0U);
}

// G-13: kBareMetal admits every priority up to the whole pool
TEST(LoanAdmissionOnTheBus, BareMetalAdmitsTheWholePoolAndCountsAndReportsNothing) {
  ResetErrors();
  auto bus = std::make_unique<FloodBus>();
  bus->SetErrorCallback(&RecordError);
  bus->SetPerformanceMode(PerformanceMode::kBareMetal);
  uint64_t seq = 0U;
  EXPECT_EQ(LoanAndPublish(*bus, MessagePriority::kLow, 12U, seq), 10U) << "the whole pool";
  EXPECT_EQ(g_loan_refused.load(), 0U) << "no error callback in kBareMetal";
  LoanPoolStatistics pool = bus->GetLoanStatistics<Scan>();
  EXPECT_EQ(pool.in_use, 10U) << "in_use is exact in every mode";
  EXPECT_EQ(pool.loans_granted, 0U);
  EXPECT_EQ(pool.low_priority_refused, 0U);
  EXPECT_EQ(bus->GetStatistics().loan_blocks_in_use, 10U);
  EXPECT_EQ(bus->ProcessBatch(), 10U);
  EXPECT_EQ(bus->GetLoanStatistics<Scan>().in_use, 0U);

  // kNoStats: the priority limits and the error callback, without counters.
  bus->SetPerformanceMode(PerformanceMode::kNoStats);
  EXPECT_EQ(LoanAndPublish(*bus, MessagePriority::kLow, 8U, seq), 6U);
  EXPECT_EQ(g_loan_refused.load(), 2U);
  pool = bus->GetLoanStatistics<Scan>();
  EXPECT_EQ(pool.loans_granted, 0U);
  EXPECT_EQ(pool.low_priority_refused, 0U);
  EXPECT_EQ(pool.in_use, 6U);
  EXPECT_EQ(bus->ProcessBatch(), 6U);
}

// =================================================================================================
// Mixed variant: inline and loaned messages side by side, three pools.
// =================================================================================================

TEST(LoanMixedVariant, InlineAndLoanedMessagesKeepTheirOrderAndEachPoolCountsItsOwn) {
  ResetErrors();
  using Bus = mccc::AsyncBus<MixedPayload, MixedTraits>;
  static_assert(Bus::LoanPoolOf<Image>::kCapacity == 2U, "");
  auto bus = std::make_unique<Bus>();
  std::vector<int> order;  // >= 100: inline Imu, 2xx: Status, 3xx: Scan, 4xx: Frame, 5xx: Image
  ASSERT_TRUE(
      bus->Subscribe<Imu>([&](const Imu& m) { order.push_back(100 + static_cast<int>(m.seq)); })
          .IsValid());
  ASSERT_TRUE(
      bus->Subscribe<Status>([&](const Status& m) { order.push_back(200 + m.code); }).IsValid());
  ASSERT_TRUE(
      bus->Subscribe<Scan>([&](const Scan& m) { order.push_back(300 + static_cast<int>(m.seq)); })
          .IsValid());
  ASSERT_TRUE(bus->Subscribe<Frame>(
                     [&](const Frame& m) { order.push_back(400 + static_cast<int>(m.value)); })
                  .IsValid());
  ASSERT_TRUE(bus->Subscribe<Image>(
                     [&](const Image& m) { order.push_back(500 + static_cast<int>(m.width)); })
                  .IsValid());

  ASSERT_TRUE(bus->Publish(Imu{1U}, 1U));
  MessageLoan<Scan> scan = bus->Loan<Scan>(MessagePriority::kMedium);
  ASSERT_TRUE(scan);
  FillScan(*scan, 1U, 2U);
  ASSERT_TRUE(bus->Publish(std::move(scan), 1U));
  ASSERT_TRUE(bus->Publish(Status{3U}, 1U));
  ASSERT_TRUE(bus->Publish(bus->Loan<Frame>(MessagePriority::kMedium, 4U), 1U));
  MessageLoan<Image> image = bus->Loan<Image>(MessagePriority::kMedium);
  ASSERT_TRUE(image);
  image->width = 5U;
  ASSERT_TRUE(bus->Publish(std::move(image), 1U));
  ASSERT_TRUE(bus->PublishEmplace<Imu>(1U, MessagePriority::kMedium, Imu{6U}));
  EXPECT_FALSE(bus->Loan<Image>(MessagePriority::kMedium))
      << "Image's pool of 2 keeps its one block for HIGH";

  mccc::BusStatisticsSnapshot s = bus->GetStatistics();
  EXPECT_EQ(s.loans_granted, 3U);
  EXPECT_EQ(s.loan_blocks_in_use, 3U);
  EXPECT_EQ(s.medium_priority_loans_refused, 1U);
  EXPECT_EQ(bus->GetLoanStatistics<Image>().medium_priority_refused, 1U);
  EXPECT_EQ(bus->GetLoanStatistics<Scan>().medium_priority_refused, 0U);
  EXPECT_EQ(s.messages_published, 6U);

  EXPECT_EQ(bus->ProcessBatch(), 6U);
  EXPECT_EQ(order, (std::vector<int>{101, 302, 203, 404, 505, 106}));
  s = bus->GetStatistics();
  EXPECT_EQ(s.loan_blocks_in_use, 0U);
  EXPECT_EQ(Frame::live.load(), 0);
}

// =================================================================================================
// Exactly once, under several producers, with retries and retained handles.
// =================================================================================================

/// A loaned message naming its producer and sequence number, and a body that proves it intact.
struct Cargo {
  uint32_t producer;
  uint32_t seq;
  MessagePriority priority;
  uint64_t body[16];
};

void FillCargo(Cargo& cargo, uint32_t producer, uint32_t seq, MessagePriority priority) {
  cargo.producer = producer;
  cargo.seq = seq;
  cargo.priority = priority;
  for (uint32_t i = 0U; i < 16U; ++i) {
    cargo.body[i] = mccc_stress::Mix((uint64_t{producer} << 40U) ^ (uint64_t{seq} << 4U) ^ i);
  }
}

bool CargoIsIntact(const Cargo& cargo) {
  for (uint32_t i = 0U; i < 16U; ++i) {
    if (cargo.body[i] !=
        mccc_stress::Mix((uint64_t{cargo.producer} << 40U) ^ (uint64_t{cargo.seq} << 4U) ^ i)) {
      return false;
    }
  }
  return true;
}

/// The priority of message `seq` of `producer`: a fixed pseudo-random mix of all three.
MessagePriority PriorityOf(uint32_t producer, uint32_t seq) {
  static constexpr std::array<MessagePriority, 3U> kAll{
      MessagePriority::kLow, MessagePriority::kMedium, MessagePriority::kHigh};
  return kAll[static_cast<std::size_t>(mccc_stress::Mix((uint64_t{producer} << 32U) | seq) % 3U)];
}

// A ring of 4 (LOW 3, MEDIUM 4, HIGH 4) and a pool of 8 (LOW 5, MEDIUM 7, HIGH 8): the ring
// refuses while blocks are free (the loan is kept and retried), and the pool refuses while loans
// wait for the ring or sit retained. With equal depths and percentages only the pool would refuse:
// a message in the ring always holds a block.
struct StressSharedRingTraits
    : mccc_test::WithLoans<mccc_test::SharedRing<4U, 4U>, mccc::PoolOf<Cargo, 8U>> {};
struct StressHighRingTraits : mccc_test::WithHighRing<StressSharedRingTraits, 4U> {};
// Two producers on lanes, the rest share the ring.
struct StressLanesTraits : mccc_test::WithLanes<StressSharedRingTraits, 2U, 4U> {};
struct StressSingleProducerTraits : mccc_test::SingleProducer<StressSharedRingTraits> {};

template <typename TraitsT, bool kVisitor>
struct StressConfig {
  using Traits = TraitsT;
  using Bus = mccc::AsyncBus<std::variant<mccc::Loaned<Cargo>>, Traits>;
  static constexpr bool kUseVisitor = kVisitor;
};
using StressConfigurations = ::testing::Types<
    StressConfig<StressSharedRingTraits, false>, StressConfig<StressHighRingTraits, true>,
    StressConfig<StressLanesTraits, false>, StressConfig<StressSingleProducerTraits, true>>;

class StressNames {
 public:
  template <typename C>
  static std::string GetName(int) {
    using T = typename C::Traits;
    if constexpr (std::is_same_v<T, StressSharedRingTraits>) return "SharedRing";
    if constexpr (std::is_same_v<T, StressHighRingTraits>) return "HighRing";
    if constexpr (std::is_same_v<T, StressLanesTraits>) return "ProducerLanes";
    if constexpr (std::is_same_v<T, StressSingleProducerTraits>) return "SingleProducer";
    return "Unnamed";
  }
};

/// Retained handles travel from the consumer to the releaser thread through this queue.
class Handoff {
 public:
  void Push(Retained<Cargo> handle) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(handle));
    }
    ready_.notify_one();
  }
  void Close() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_one();
  }
  /// The next handle, or an empty one once closed and drained.
  Retained<Cargo> Pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) {
      return Retained<Cargo>{};
    }
    Retained<Cargo> handle = std::move(queue_.front());
    queue_.pop_front();
    return handle;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Retained<Cargo>> queue_;
  bool closed_ = false;
};

template <typename C>
class LoanExactlyOnce : public ::testing::Test {};
TYPED_TEST_SUITE(LoanExactlyOnce, StressConfigurations, StressNames);

// G-11: every published loan delivered exactly once, in order per producer and class, intact
// G-12: every publish the ring refuses leaves the same loan, intact, with the producer
// G-14: every block comes back: the whole pool is loanable again at the end
TYPED_TEST(LoanExactlyOnce, EveryLoanIsDeliveredOnceInOrderAndEveryBlockComesBack) {
  using Bus = typename TypeParam::Bus;
  using Pool = typename Bus::template LoanPoolOf<Cargo>;
  constexpr bool kHighRingReorders = Bus::kHighQueueDepth > 0U;
  constexpr uint32_t kRetainEvery = 7U;
  const double scale = mccc_stress::StressScale();
  const uint32_t producers = Bus::TraitsType::kSingleProducer ? 1U : (scale < 1.0 ? 2U : 4U);
  const auto per_producer = static_cast<uint32_t>(25000.0 * scale) + 200U;
  const uint64_t total = uint64_t{producers} * per_producer;

  ResetErrors();
  auto bus = std::make_unique<Bus>();
  bus->SetErrorCallback(&RecordError);

  // Producer side: what each producer saw, per priority (written by its own thread only).
  struct ProducerLog {
    std::array<uint64_t, mccc::kPriorityCount> published{};
    std::array<uint64_t, mccc::kPriorityCount> pool_refused{};
    std::array<uint64_t, mccc::kPriorityCount> ring_refused{};
    uint64_t broken_loans = 0U;
    bool gave_up = false;  // refused kNoProgress times in a row: blocks or slots never came back
  };
  std::vector<ProducerLog> logs(producers);
  // A livelock guard, not a timing assertion: a regression that stops blocks or slots from
  // coming back fails the test with a message instead of spinning until the CTest timeout.
  constexpr uint64_t kNoProgress = 5000000U;

  // Consumer side (consumer thread only until it is joined).
  std::vector<std::vector<uint8_t>> seen(producers, std::vector<uint8_t>(per_producer, 0U));
  // Last seq seen per producer and ordering class (class 1: HIGH, when the HIGH ring reorders).
  std::vector<std::array<int64_t, 2U>> last_seq(producers, std::array<int64_t, 2U>{-1, -1});
  uint64_t delivered = 0U;
  uint64_t duplicates = 0U;
  uint64_t out_of_order = 0U;
  uint64_t corrupted = 0U;
  uint64_t wrong_header = 0U;
  uint64_t retain_failures = 0U;
  uint64_t retained = 0U;

  Handoff handoff;
  std::atomic<uint64_t> released{0U};
  std::atomic<uint64_t> released_corrupted{0U};
  std::thread releaser([&] {
    for (;;) {
      Retained<Cargo> handle = handoff.Pop();
      if (!handle) {
        return;
      }
      // The block was not reused while retained: still the message the consumer saw.
      if (!CargoIsIntact(*handle)) {
        released_corrupted.fetch_add(1U);
      }
      handle.Reset();
      released.fetch_add(1U);
    }
  });

  const auto on_cargo = [&](const Cargo& cargo, const MessageHeader& header) {
    ++delivered;
    if (cargo.producer >= producers || cargo.seq >= per_producer) {
      ++corrupted;
      return;
    }
    if (!CargoIsIntact(cargo)) {
      ++corrupted;
    }
    const MessagePriority expected = PriorityOf(cargo.producer, cargo.seq);
    if (cargo.priority != expected || header.priority != expected ||
        header.sender_id != cargo.producer) {
      ++wrong_header;
    }
    uint8_t& mark = seen[cargo.producer][cargo.seq];
    if (mark != 0U) {
      ++duplicates;
    }
    mark = 1U;
    const std::size_t order_class =
        (kHighRingReorders && expected == MessagePriority::kHigh) ? 1U : 0U;
    int64_t& last = last_seq[cargo.producer][order_class];
    if (static_cast<int64_t>(cargo.seq) <= last) {
      ++out_of_order;
    }
    last = cargo.seq;
    if (delivered % kRetainEvery == 0U) {
      Retained<Cargo> handle = bus->Retain(cargo);
      if (!handle || handle.Get() != &cargo) {
        ++retain_failures;
      } else {
        ++retained;
        handoff.Push(std::move(handle));
      }
    }
  };

  const auto produce = [&](uint32_t p, const std::atomic<bool>& go) {
    while (!go.load(std::memory_order_acquire)) {
    }
    ProducerLog& log = logs[p];
    for (uint32_t seq = 0U; seq < per_producer; ++seq) {
      const MessagePriority priority = PriorityOf(p, seq);
      const auto index = static_cast<std::size_t>(priority);
      uint64_t refused_in_a_row = 0U;
      MessageLoan<Cargo> loan = bus->template Loan<Cargo>(priority);
      while (!loan) {
        ++log.pool_refused[index];
        if (++refused_in_a_row == kNoProgress) {
          log.gave_up = true;
          return;
        }
        std::this_thread::yield();
        loan = bus->template Loan<Cargo>(priority);
      }
      FillCargo(*loan, p, seq, priority);
      const Cargo* const block = loan.Get();
      while (!bus->Publish(std::move(loan), p)) {
        ++log.ring_refused[index];
        if (!loan || loan.Get() != block || !CargoIsIntact(*loan) || loan->seq != seq) {
          ++log.broken_loans;
        }
        if (++refused_in_a_row == kNoProgress) {
          log.gave_up = true;
          return;
        }
        std::this_thread::yield();
      }
      if (loan) {  // NOLINT(bugprone-use-after-move): a published loan must be empty
        ++log.broken_loans;
      }
      ++log.published[index];
    }
  };

  if constexpr (TypeParam::kUseVisitor) {
    mccc_stress::RunProducersAndConsumer(*bus, producers, produce, [&] {
      return bus->ProcessBatchWith(mccc::make_overloaded(on_cargo));
    });
  } else {
    // One captured pointer: the checks' state does not fit the callback storage.
    ASSERT_TRUE(bus->template Subscribe<Cargo>(
                       [&on_cargo](const Cargo& c, const MessageHeader& h) { on_cargo(c, h); })
                    .IsValid());
    mccc_stress::RunProducersAndConsumer(*bus, producers, produce,
                                         [&] { return bus->ProcessBatch(); });
  }
  handoff.Close();
  releaser.join();

  // Delivery: every (producer, seq) exactly once, in order (per class with a HIGH ring), intact.
  EXPECT_EQ(delivered, total);
  EXPECT_EQ(duplicates, 0U);
  EXPECT_EQ(out_of_order, 0U);
  EXPECT_EQ(corrupted, 0U);
  EXPECT_EQ(wrong_header, 0U);
  uint64_t missing = 0U;
  for (const std::vector<uint8_t>& marks : seen) {
    missing += static_cast<uint64_t>(std::count(marks.begin(), marks.end(), uint8_t{0U}));
  }
  EXPECT_EQ(missing, 0U);
  for (uint32_t p = 0U; p < producers; ++p) {
    EXPECT_EQ(logs[p].broken_loans, 0U) << "producer " << p << ": a refused loan changed";
    EXPECT_FALSE(logs[p].gave_up) << "producer " << p << " was refused " << kNoProgress
                                  << " times in a row: blocks or ring slots stopped coming back";
  }
  EXPECT_EQ(retain_failures, 0U);
  EXPECT_EQ(retained, total / kRetainEvery);
  EXPECT_EQ(released.load(), retained);
  EXPECT_EQ(released_corrupted.load(), 0U) << "a retained block was reused while held";

  // Counters: loans are granted once per message (a refused publish keeps its loan), refusals
  // are counted where they happened, per priority.
  std::array<uint64_t, mccc::kPriorityCount> published{};
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> pool_refused{};
  for (const ProducerLog& log : logs) {
    for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
      published[i] += log.published[i];
      attempted[i] += log.published[i] + log.ring_refused[i];
      pool_refused[i] += log.pool_refused[i];
    }
  }
  const mccc::BusStatisticsSnapshot s = bus->GetStatistics();
  EXPECT_EQ(s.loans_granted, total);
  EXPECT_EQ(s.messages_published, total);
  EXPECT_EQ(s.messages_processed, total);
  mccc_stress::ExpectPerPriorityCounts(s, attempted, published);
  EXPECT_EQ(s.low_priority_loans_refused, pool_refused[0]);
  EXPECT_EQ(s.medium_priority_loans_refused, pool_refused[1]);
  EXPECT_EQ(s.high_priority_loans_refused, pool_refused[2]);
  EXPECT_EQ(g_loan_refused.load(), pool_refused[0] + pool_refused[1] + pool_refused[2]);
  EXPECT_EQ(g_queue_full.load(), s.messages_dropped);
  EXPECT_EQ(g_invalid.load() + g_other_errors.load() + g_nonzero_loan_ids.load(), 0U);
  EXPECT_EQ(s.loan_blocks_in_use, 0U);
  const LoanPoolStatistics pool = bus->template GetLoanStatistics<Cargo>();
  EXPECT_EQ(pool.in_use, 0U);
  EXPECT_EQ(pool.loans_granted, total);
  EXPECT_LE(pool.high_water, Pool::kCapacity);

  // The pool is whole again: every block can be loaned at HIGH, each once.
  std::vector<MessageLoan<Cargo>> all;
  for (uint32_t i = 0U; i < Pool::kCapacity; ++i) {
    all.push_back(bus->template Loan<Cargo>(MessagePriority::kHigh));
    ASSERT_TRUE(all.back()) << "block " << i << " did not come back";
  }
  EXPECT_FALSE(bus->template Loan<Cargo>(MessagePriority::kHigh));
  std::vector<const Cargo*> addresses;
  for (const MessageLoan<Cargo>& loan : all) {
    addresses.push_back(loan.Get());
  }
  std::sort(addresses.begin(), addresses.end());
  EXPECT_EQ(std::adjacent_find(addresses.begin(), addresses.end()), addresses.end());
  all.clear();
  EXPECT_EQ(bus->template GetLoanStatistics<Cargo>().in_use, 0U);

  std::printf(
      "[ info     ] %u producers x %u: ring refusals %llu, pool refusals %llu, retained %llu\n",
      producers, per_producer, static_cast<unsigned long long>(s.messages_dropped),
      static_cast<unsigned long long>(pool_refused[0] + pool_refused[1] + pool_refused[2]),
      static_cast<unsigned long long>(retained));
}

}  // namespace
