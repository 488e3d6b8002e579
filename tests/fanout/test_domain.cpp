// SPDX-License-Identifier: MIT
// G-38: mccc::Domain, single-threaded and deterministic: a publish reaches exactly the consumers
// subscribed to its type, each consumer admits by its own limits and counts its own refusals,
// the domain's error callback names the consumer, each consumer's HIGH ring goes first, and
// DispatchHighestReady runs consumers by priority. Multi-threaded exactness: tests/stress.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

using mccc::BusError;
using mccc::ConsumerMask;
using mccc::MessageHeader;
using mccc::MessagePriority;

struct Scan {
  uint32_t seq;
};
struct Status {
  uint32_t code;
};
using Payload = std::variant<Scan, Status>;

// Consumer 0 (highest priority) and 2 are roomy; consumer 1 has a small ring so that it refuses.
struct Roomy : mccc_test::Ring<256U, 16U, 32U> {};
struct Small : mccc_test::Ring<16U, 4U, 4U> {};
struct Third : mccc_test::Ring<128U, 8U, 16U> {};
using Domain = mccc::Domain<Payload, Roomy, Small, Third>;

constexpr ConsumerMask kBit0 = 1U;
constexpr ConsumerMask kBit1 = 2U;
constexpr ConsumerMask kBit2 = 4U;

// The LOW/MEDIUM limits of the 16-slot ring of consumer 1.
constexpr uint32_t kSmallMediumLimit =
    mccc::PriorityAdmission<16U>::LimitFor(MessagePriority::kMedium);

/// What each consumer's Scan subscriber saw, in order.
struct Seen {
  std::vector<uint32_t> scans;
  std::vector<MessageHeader> headers;
};

template <std::size_t I>
void Record(Domain& domain, Seen& seen) {
  domain.Consumer<I>().template Subscribe<Scan>([&seen](const Scan& scan, const MessageHeader& h) {
    seen.scans.push_back(scan.seq);
    seen.headers.push_back(h);
  });
}

// ----- the domain's error callback (a plain function pointer, hence globals) ---------------------
struct ErrorRecord {
  uint32_t consumer;
  BusError error;
  uint64_t msg_id;
};
std::vector<ErrorRecord>& Errors() {
  static std::vector<ErrorRecord> errors;
  return errors;
}
void RecordError(uint32_t consumer, BusError error, uint64_t msg_id) {
  Errors().push_back({consumer, error, msg_id});
}

class DomainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Errors().clear();
    domain_->SetErrorCallback(&RecordError);
  }
  std::unique_ptr<Domain> domain_ = std::make_unique<Domain>();
};

TEST_F(DomainTest, APublishReachesExactlyTheConsumersSubscribedToItsType) {
  Seen seen0;
  Seen seen2;
  Record<0>(*domain_, seen0);
  Record<2>(*domain_, seen2);
  uint32_t statuses1 = 0U;
  domain_->Consumer<1>().Subscribe<Status>([&statuses1](const Status&) { ++statuses1; });

  EXPECT_EQ(domain_->SubscribersOf<Scan>(), kBit0 | kBit2);
  EXPECT_EQ(domain_->SubscribersOf<Status>(), kBit1);

  const mccc::FanOutResult scan = domain_->Publish(Scan{7U}, 3U);
  EXPECT_EQ(scan.subscribed, kBit0 | kBit2);
  EXPECT_EQ(scan.admitted, kBit0 | kBit2);
  EXPECT_TRUE(scan);
  EXPECT_EQ(scan.AdmittedCount(), 2U);
  const mccc::FanOutResult status = domain_->Publish(Status{1U}, 3U);
  EXPECT_EQ(status.admitted, kBit1);

  // Nothing was queued where nobody subscribed: consumer 1 got no Scan, 0 and 2 no Status.
  EXPECT_EQ(domain_->Consumer<0>().QueueOccupancy(), 1U);
  EXPECT_EQ(domain_->Consumer<1>().QueueOccupancy(), 1U);
  EXPECT_EQ(domain_->Consumer<2>().QueueOccupancy(), 1U);

  EXPECT_EQ(domain_->Consumer<0>().ProcessBatch(), 1U);
  EXPECT_EQ(domain_->Consumer<1>().ProcessBatch(), 1U);
  EXPECT_EQ(domain_->Consumer<2>().ProcessBatch(), 1U);
  EXPECT_EQ(seen0.scans, std::vector<uint32_t>{7U});
  EXPECT_EQ(seen2.scans, std::vector<uint32_t>{7U});
  EXPECT_EQ(statuses1, 1U);
  // One clock reading for all copies; each consumer's own header otherwise.
  EXPECT_EQ(seen0.headers[0].timestamp_us, seen2.headers[0].timestamp_us);
  EXPECT_EQ(seen0.headers[0].sender_id, 3U);
  EXPECT_EQ(seen2.headers[0].priority, MessagePriority::kMedium);
  EXPECT_TRUE(Errors().empty());
}

TEST_F(DomainTest, AMessageNobodySubscribesToIsPublishedToNobody) {
  const mccc::FanOutResult result = domain_->Publish(Scan{1U}, 0U);
  EXPECT_EQ(result.subscribed, 0U);
  EXPECT_EQ(result.admitted, 0U);
  EXPECT_TRUE(result);  // vacuously: no subscribed consumer refused it
  EXPECT_EQ(domain_->Consumer<0>().QueueOccupancy(), 0U);
  EXPECT_EQ(domain_->Consumer<0>().GetStatistics().messages_published, 0U);
}

TEST_F(DomainTest, SubscriptionsComeAndGoPerConsumerAndType) {
  const mccc::SubscriptionHandle first = domain_->Consumer<1>().Subscribe<Scan>([](const Scan&) {});
  const mccc::SubscriptionHandle second =
      domain_->Consumer<1>().Subscribe<Scan>([](const Scan&) {});
  EXPECT_EQ(domain_->SubscribersOf<Scan>(), kBit1);
  EXPECT_TRUE(domain_->Consumer<1>().Unsubscribe(first));
  EXPECT_EQ(domain_->SubscribersOf<Scan>(), kBit1);  // the second still lives
  EXPECT_TRUE(domain_->Consumer<1>().Unsubscribe(second));
  EXPECT_EQ(domain_->SubscribersOf<Scan>(), 0U);
  {
    mccc::ScopedSubscription scoped =
        domain_->Consumer<2>().SubscribeScoped<Scan>([](const Scan&) {});
    EXPECT_EQ(domain_->SubscribersOf<Scan>(), kBit2);
  }
  EXPECT_EQ(domain_->SubscribersOf<Scan>(), 0U);
  EXPECT_EQ(domain_->Publish(Scan{1U}, 0U).subscribed, 0U);
}

TEST_F(DomainTest, AConsumerThatRefusesLosesOnlyItsOwnCopyAndIsNamed) {
  Seen seen0;
  Seen seen1;
  Seen seen2;
  Record<0>(*domain_, seen0);
  Record<1>(*domain_, seen1);
  Record<2>(*domain_, seen2);
  constexpr uint32_t kPublished = 40U;
  uint32_t refused_by_1 = 0U;
  for (uint32_t seq = 0U; seq < kPublished; ++seq) {
    const mccc::FanOutResult result = domain_->Publish(Scan{seq}, 1U);
    EXPECT_EQ(result.subscribed, kBit0 | kBit1 | kBit2);
    EXPECT_TRUE(result.AdmittedBy(0U));
    EXPECT_TRUE(result.AdmittedBy(2U));
    EXPECT_EQ(result.AdmittedBy(1U), seq < kSmallMediumLimit) << seq;
    refused_by_1 += result.Refused() == kBit1 ? 1U : 0U;
    EXPECT_EQ(static_cast<bool>(result), seq < kSmallMediumLimit);
  }
  EXPECT_EQ(refused_by_1, kPublished - kSmallMediumLimit);

  // Consumer 1's refusals are its own: counted there, reported with its index.
  const auto stats1 = domain_->Consumer<1>().GetStatistics();
  EXPECT_EQ(stats1.messages_published, kSmallMediumLimit);
  EXPECT_EQ(stats1.medium_priority_dropped, kPublished - kSmallMediumLimit);
  EXPECT_EQ(domain_->Consumer<0>().GetStatistics().messages_dropped, 0U);
  EXPECT_EQ(domain_->Consumer<2>().GetStatistics().messages_dropped, 0U);
  ASSERT_EQ(Errors().size(), kPublished - kSmallMediumLimit);
  for (std::size_t i = 0U; i < Errors().size(); ++i) {
    EXPECT_EQ(Errors()[i].consumer, 1U);
    EXPECT_EQ(Errors()[i].error, BusError::kQueueFull);
  }

  while (domain_->Consumer<0>().ProcessBatch() != 0U) {
  }
  while (domain_->Consumer<1>().ProcessBatch() != 0U) {
  }
  while (domain_->Consumer<2>().ProcessBatch() != 0U) {
  }
  std::vector<uint32_t> all(kPublished);
  for (uint32_t seq = 0U; seq < kPublished; ++seq) {
    all[seq] = seq;
  }
  EXPECT_EQ(seen0.scans, all);
  EXPECT_EQ(seen2.scans, all);
  EXPECT_EQ(seen1.scans, std::vector<uint32_t>(all.begin(), all.begin() + kSmallMediumLimit));
}

TEST_F(DomainTest, AnInvalidPriorityReachesNobodyAndIsReportedOnce) {
  Seen seen0;
  Record<0>(*domain_, seen0);
  const mccc::FanOutResult result =
      domain_->PublishWithPriority(Scan{1U}, 0U, static_cast<MessagePriority>(9));
  EXPECT_EQ(result.subscribed, kBit0);
  EXPECT_EQ(result.admitted, 0U);
  EXPECT_FALSE(result);
  ASSERT_EQ(Errors().size(), 1U);
  EXPECT_EQ(Errors()[0].consumer, mccc::kNoConsumer);
  EXPECT_EQ(Errors()[0].error, BusError::kInvalidMessage);
  EXPECT_EQ(domain_->Consumer<0>().QueueOccupancy(), 0U);
}

TEST_F(DomainTest, PublishFastCarriesTheGivenTimeToEveryConsumer) {
  Seen seen0;
  Seen seen1;
  Record<0>(*domain_, seen0);
  Record<1>(*domain_, seen1);
  EXPECT_TRUE(domain_->PublishFast(Scan{5U}, 2U, 123456U, MessagePriority::kLow));
  domain_->Consumer<0>().ProcessBatch();
  domain_->Consumer<1>().ProcessBatch();
  ASSERT_EQ(seen0.headers.size(), 1U);
  ASSERT_EQ(seen1.headers.size(), 1U);
  EXPECT_EQ(seen0.headers[0].timestamp_us, 123456U);
  EXPECT_EQ(seen1.headers[0].timestamp_us, 123456U);
  EXPECT_EQ(seen1.headers[0].priority, MessagePriority::kLow);
}

TEST_F(DomainTest, PublishEmplaceBuildsOnceAndCopiesToEach) {
  Seen seen0;
  Seen seen2;
  Record<0>(*domain_, seen0);
  Record<2>(*domain_, seen2);
  EXPECT_EQ(domain_->PublishEmplace<Scan>(4U, MessagePriority::kHigh, Scan{11U}).admitted,
            kBit0 | kBit2);
  domain_->Consumer<0>().ProcessBatch();
  domain_->Consumer<2>().ProcessBatch();
  EXPECT_EQ(seen0.scans, std::vector<uint32_t>{11U});
  EXPECT_EQ(seen2.scans, std::vector<uint32_t>{11U});
  EXPECT_EQ(seen0.headers[0].priority, MessagePriority::kHigh);
}

TEST_F(DomainTest, PublishBatchAdmitsAPrefixPerConsumer) {
  Seen seen0;
  Seen seen1;
  Record<0>(*domain_, seen0);
  Record<1>(*domain_, seen1);
  std::vector<Scan> batch;
  for (uint32_t seq = 0U; seq < 20U; ++seq) {
    batch.push_back(Scan{seq});
  }
  const auto result = domain_->PublishBatch(batch.data(), 20U, 1U);
  EXPECT_EQ(result.subscribed, kBit0 | kBit1);
  EXPECT_EQ(result.admitted[0], 20U);
  EXPECT_EQ(result.admitted[1], kSmallMediumLimit);
  EXPECT_EQ(result.admitted[2], 0U);  // not subscribed
  EXPECT_EQ(result.Refused(), kBit1);
  EXPECT_FALSE(result);
  EXPECT_EQ(domain_->Consumer<1>().GetStatistics().messages_dropped, 20U - kSmallMediumLimit);
  ASSERT_EQ(Errors().size(), 1U);  // one kQueueFull per call that refused any, as on a bus
  EXPECT_EQ(Errors()[0].consumer, 1U);
  while (domain_->Consumer<0>().ProcessBatch() != 0U) {
  }
  while (domain_->Consumer<1>().ProcessBatch() != 0U) {
  }
  EXPECT_EQ(seen0.scans.size(), 20U);
  EXPECT_EQ(seen1.scans.size(), kSmallMediumLimit);
  EXPECT_EQ(seen1.scans.back(), kSmallMediumLimit - 1U);
}

TEST_F(DomainTest, EachConsumerDispatchesItsHighRingAheadOfItsBacklog) {
  Seen seen0;
  Seen seen2;
  Record<0>(*domain_, seen0);
  Record<2>(*domain_, seen2);
  for (uint32_t seq = 0U; seq < 3U; ++seq) {
    domain_->PublishWithPriority(Scan{seq}, 0U, MessagePriority::kLow);
  }
  domain_->PublishWithPriority(Scan{100U}, 0U, MessagePriority::kHigh);
  domain_->Consumer<0>().ProcessBatch();
  domain_->Consumer<2>().ProcessBatch();
  const std::vector<uint32_t> high_first{100U, 0U, 1U, 2U};
  EXPECT_EQ(seen0.scans, high_first);
  EXPECT_EQ(seen2.scans, high_first);
}

TEST_F(DomainTest, DispatchHighestReadyRunsTheFirstConsumerWithAMessage) {
  std::vector<uint32_t> order;
  domain_->Consumer<0>().Subscribe<Status>([&order](const Status&) { order.push_back(0U); });
  domain_->Consumer<1>().Subscribe<Scan>([&order](const Scan&) { order.push_back(1U); });
  domain_->Consumer<2>().Subscribe<Scan>([&order](const Scan&) { order.push_back(2U); });

  domain_->Publish(Scan{1U}, 0U);    // consumers 1 and 2
  domain_->Publish(Status{1U}, 0U);  // consumer 0
  mccc::DispatchOutcome outcome = domain_->DispatchHighestReady();
  EXPECT_EQ(outcome.consumer, 0U);
  EXPECT_EQ(outcome.dispatched, 1U);
  outcome = domain_->DispatchHighestReady();
  EXPECT_EQ(outcome.consumer, 1U);
  // Consumer 2 is left out of this call's set: nothing of the others is ready.
  outcome = domain_->DispatchHighestReady(kBit0 | kBit1);
  EXPECT_EQ(outcome.consumer, mccc::kNoConsumer);
  EXPECT_EQ(outcome.dispatched, 0U);
  outcome = domain_->DispatchHighestReady();
  EXPECT_EQ(outcome.consumer, 2U);
  EXPECT_EQ(domain_->DispatchHighestReady().consumer, mccc::kNoConsumer);
  EXPECT_EQ(order, (std::vector<uint32_t>{0U, 1U, 2U}));
}

TEST_F(DomainTest, EachConsumerKeepsItsOwnBusErrorCallbackToo) {
  static std::atomic<uint32_t> own_reports{0U};
  static std::atomic<uint64_t> own_id{0U};
  own_reports = 0U;
  domain_->Consumer<1>().Subscribe<Scan>([](const Scan&) {});
  domain_->Consumer<1>().SetErrorCallback([](BusError, uint64_t msg_id) {
    own_reports.fetch_add(1U, std::memory_order_relaxed);
    own_id.store(msg_id, std::memory_order_relaxed);
  });
  for (uint32_t seq = 0U; seq <= kSmallMediumLimit; ++seq) {
    domain_->Publish(Scan{seq}, 0U);
  }
  EXPECT_EQ(own_reports.load(), 1U);
  ASSERT_EQ(Errors().size(), 1U);
  EXPECT_EQ(Errors()[0].consumer, 1U);
  EXPECT_EQ(Errors()[0].msg_id, own_id.load());  // the same report, with the consumer named
}

// A Component works on a domain consumer as on any bus: it subscribes there, and the domain's
// publishes reach it.
class ScanCounter : public mccc::Component<Payload, Third> {
 public:
  explicit ScanCounter(Bus& bus) : Component(bus) {}
  void Start() {
    SubscribeSimple<Scan>([this](const Scan& scan) {
      last_ = scan.seq;
      ++count_;
    });
  }
  uint32_t count_ = 0U;
  uint32_t last_ = 0U;
};

TEST_F(DomainTest, AComponentSubscribesOnADomainConsumer) {
  auto counter = std::make_shared<ScanCounter>(domain_->Consumer<2>());
  counter->Start();
  EXPECT_EQ(domain_->SubscribersOf<Scan>(), kBit2);
  domain_->Publish(Scan{9U}, 0U);
  domain_->Consumer<2>().ProcessBatch();
  EXPECT_EQ(counter->count_, 1U);
  EXPECT_EQ(counter->last_, 9U);
  counter.reset();  // unsubscribes
  EXPECT_EQ(domain_->SubscribersOf<Scan>(), 0U);
}

// A StaticComponent dispatches with a visitor and subscribes to nothing: ReceiveAll routes every
// type to its consumer, and switching it off routes by subscriptions again.
class Tally : public mccc::StaticComponent<Tally, Payload> {
 public:
  void Handle(const Scan& scan) { scans_.push_back(scan.seq); }
  void Handle(const Status& status) { statuses_.push_back(status.code); }
  std::vector<uint32_t> scans_;
  std::vector<uint32_t> statuses_;
};

TEST_F(DomainTest, AVisitorConsumerReceivesEveryTypeOnceItReceivesAll) {
  Tally tally;
  EXPECT_EQ(domain_->SubscribersOf<Scan>(), 0U);
  domain_->ReceiveAll<2>();
  domain_->Consumer<0>().Subscribe<Scan>([](const Scan&) {});
  EXPECT_EQ(domain_->SubscribersOf<Scan>(), kBit0 | kBit2);
  EXPECT_EQ(domain_->SubscribersOf<Status>(), kBit2);
  EXPECT_EQ(domain_->Publish(Scan{4U}, 0U).admitted, kBit0 | kBit2);
  EXPECT_EQ(domain_->Publish(Status{8U}, 0U).admitted, kBit2);
  EXPECT_EQ(domain_->Consumer<2>().ProcessBatchWith(tally.MakeVisitor()), 2U);
  EXPECT_EQ(tally.scans_, std::vector<uint32_t>{4U});
  EXPECT_EQ(tally.statuses_, std::vector<uint32_t>{8U});

  domain_->ReceiveAll<2>(false);
  EXPECT_EQ(domain_->SubscribersOf<Scan>(), kBit0);  // consumer 0's subscription stays
  EXPECT_EQ(domain_->SubscribersOf<Status>(), 0U);
}

// A producer handle publishes as one process-wide identity on every consumer: on its own lane
// where the consumer has lanes and the identity is below their number.
struct LaneRing : mccc_test::WithLanes<mccc_test::Ring<64U, 16U, 16U>, 4U, 64U> {};
using LaneDomain = mccc::Domain<Payload, LaneRing, Roomy>;

TEST(DomainProducer, AHandlePublishesAsItsIdentityOnEveryConsumer) {
  auto domain = std::make_unique<LaneDomain>();
  std::vector<uint32_t> seen0;
  std::vector<uint32_t> seen1;
  domain->Consumer<0>().Subscribe<Scan>([&seen0](const Scan& s) { seen0.push_back(s.seq); });
  domain->Consumer<1>().Subscribe<Scan>([&seen1](const Scan& s) { seen1.push_back(s.seq); });
  LaneDomain::Producer handle = domain->MakeProducer();
  const uint32_t identity = handle.Identity();
  ASSERT_NE(identity, mccc::detail::kNoThreadShard);

  EXPECT_EQ(handle.Publish(Scan{1U}, 5U).admitted, kBit0 | kBit1);
  EXPECT_EQ(handle.PublishFast(Scan{2U}, 5U, 77U).admitted, kBit0 | kBit1);
  const std::array<Scan, 2> batch{{Scan{3U}, Scan{4U}}};
  const auto batched = handle.PublishBatch(batch.data(), 2U, 5U);
  EXPECT_EQ(batched.admitted[0], 2U);
  EXPECT_EQ(batched.admitted[1], 2U);
  if (domain->Consumer<0>().IsLaneIndex(identity)) {
    // The lane of this identity on consumer 0, not the shared ring.
    EXPECT_EQ(domain->Consumer<0>().LaneOccupancy(identity), 4U);
  }
  while (domain->DispatchHighestReady().consumer != mccc::kNoConsumer) {
  }
  EXPECT_EQ(seen0, (std::vector<uint32_t>{1U, 2U, 3U, 4U}));
  EXPECT_EQ(seen1, (std::vector<uint32_t>{1U, 2U, 3U, 4U}));

  // Moved from: publishes nothing.
  LaneDomain::Producer moved = std::move(handle);
  EXPECT_EQ(moved.Identity(), identity);
  // NOLINTNEXTLINE(bugprone-use-after-move,hicpp-invalid-access-moved): the moved-from state
  const mccc::FanOutResult nothing = handle.Publish(Scan{9U}, 5U);
  EXPECT_EQ(nothing.subscribed, 0U);
  EXPECT_EQ(nothing.admitted, 0U);
  EXPECT_EQ(domain->Consumer<1>().QueueOccupancy(), 0U);
}

}  // namespace
