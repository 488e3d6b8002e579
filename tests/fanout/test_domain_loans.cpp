// SPDX-License-Identifier: MIT
// G-38: loaned messages through a mccc::Domain, single-threaded and deterministic: one block per
// message whatever the fan-out, returned when the last consumer's last callback has run (or the
// last Retained handle goes); a refusing consumer keeps no reference; a loan every consumer
// refused stays with the caller, intact. Concurrent loans: tests/stress.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

using mccc::BusError;
using mccc::ConsumerMask;
using mccc::MessagePriority;

/// 64 KB: a point cloud that must not be copied once per consumer.
/// Counts the clouds alive, so a test sees when the last reference destroyed one.
struct Cloud {
  Cloud() noexcept { ++alive; }  // the points are left uninitialised, as a loan's are
  Cloud(const Cloud&) = delete;
  Cloud& operator=(const Cloud&) = delete;
  Cloud(Cloud&&) = delete;
  Cloud& operator=(Cloud&&) = delete;
  ~Cloud() { --alive; }
  static inline int alive = 0;
  uint32_t seq = 0U;
  std::array<uint8_t, 65536U - 8U> points;
};
struct Note {
  uint32_t code;
};
using Payload = std::variant<Note, mccc::Loaned<Cloud>>;

// Consumers 0, 2 and 3 are roomy; consumer 1 has a 16-slot ring so that it can be filled.
struct Roomy : mccc_test::WithLoans<mccc_test::Ring<64U, 16U, 16U>, mccc::PoolOf<Cloud, 4U>> {};
struct Small : mccc_test::WithLoans<mccc_test::Ring<16U, 16U, 4U>, mccc::PoolOf<Cloud, 4U>> {};
using Domain = mccc::Domain<Payload, Roomy, Small, Roomy, Roomy>;

constexpr ConsumerMask kAll = 0xFU;
constexpr uint32_t kSmallMediumLimit =
    mccc::PriorityAdmission<16U>::LimitFor(MessagePriority::kMedium);

struct ErrorRecord {
  uint32_t consumer;
  BusError error;
};
std::vector<ErrorRecord>& Errors() {
  static std::vector<ErrorRecord> errors;
  return errors;
}
void RecordError(uint32_t consumer, BusError error, uint64_t /*msg_id*/) {
  Errors().push_back({consumer, error});
}

/// Where each consumer saw each cloud (the block's address) and its seq.
struct Sighting {
  const Cloud* where;
  uint32_t seq;
};

class DomainLoans : public ::testing::Test {
 protected:
  void SetUp() override {
    Errors().clear();
    domain_->SetErrorCallback(&RecordError);
  }
  template <std::size_t I>
  void Watch() {
    domain_->Consumer<I>().template Subscribe<Cloud>([this](const Cloud& cloud) {
      seen_[I].push_back(Sighting{&cloud, cloud.seq});
    });
  }
  void WatchAll() {
    Watch<0>();
    Watch<1>();
    Watch<2>();
    Watch<3>();
  }
  uint32_t InUse() const { return domain_->GetLoanStatistics<Cloud>().in_use; }
  mccc::MessageLoan<Cloud> LoanCloud(uint32_t seq,
                                     MessagePriority priority = MessagePriority::kMedium) {
    mccc::MessageLoan<Cloud> loan = domain_->Loan<Cloud>(priority);
    if (loan) {
      loan->seq = seq;
      loan->points[0] = static_cast<uint8_t>(seq);
    }
    return loan;
  }

  std::unique_ptr<Domain> domain_ = std::make_unique<Domain>();
  std::array<std::vector<Sighting>, 4> seen_;
};

TEST_F(DomainLoans, A64KbMessageToFourConsumersTakesOneBlock) {
  WatchAll();
  mccc::MessageLoan<Cloud> loan = LoanCloud(7U);
  ASSERT_TRUE(loan);
  const Cloud* block = loan.Get();
  const mccc::FanOutResult result = domain_->Publish(std::move(loan), 1U);
  EXPECT_EQ(result.admitted, kAll);
  EXPECT_FALSE(loan);  // taken: the consumers hold the block now
  EXPECT_EQ(InUse(), 1U);
  EXPECT_EQ(domain_->GetLoanStatistics<Cloud>().loans_granted, 1U);
  // Each queue holds a small handle, not the message: a slot is far below 64 KB.
  EXPECT_LT(Domain::ConsumerBus<0>::SlotBytes(), sizeof(Cloud) / 100U);

  // The block returns only after the last consumer's callback.
  for (uint32_t c = 0U; c < 3U; ++c) {
    domain_->DispatchHighestReady();
    EXPECT_EQ(InUse(), 1U) << "after consumer " << c;
  }
  EXPECT_EQ(Cloud::alive, 1);
  EXPECT_EQ(domain_->DispatchHighestReady().consumer, 3U);
  EXPECT_EQ(InUse(), 0U);
  EXPECT_EQ(Cloud::alive, 0);
  for (const auto& seen : seen_) {
    ASSERT_EQ(seen.size(), 1U);
    EXPECT_EQ(seen[0].where, block);  // the same block, no copy
    EXPECT_EQ(seen[0].seq, 7U);
  }
  EXPECT_TRUE(Errors().empty());
}

TEST_F(DomainLoans, ARetainedHandleKeepsTheBlockAfterEveryConsumer) {
  mccc::Retained<Cloud> kept;
  domain_->Consumer<2>().Subscribe<Cloud>(
      [this, &kept](const Cloud& cloud) { kept = domain_->Retain(cloud); });
  Watch<0>();
  EXPECT_TRUE(domain_->Publish(LoanCloud(3U), 1U));
  while (domain_->DispatchHighestReady().consumer != mccc::kNoConsumer) {
  }
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->seq, 3U);
  EXPECT_EQ(InUse(), 1U);
  kept.Reset();
  EXPECT_EQ(InUse(), 0U);
}

TEST_F(DomainLoans, ARefusingConsumerKeepsNoReference) {
  WatchAll();
  domain_->Consumer<1>().Subscribe<Note>([](const Note&) {});
  for (uint32_t i = 0U; i < kSmallMediumLimit; ++i) {  // consumer 1's ring at its MEDIUM limit
    ASSERT_TRUE(domain_->Publish(Note{i}, 0U));
  }
  const mccc::FanOutResult result = domain_->Publish(LoanCloud(1U), 1U);
  EXPECT_EQ(result.subscribed, kAll);
  EXPECT_EQ(result.Refused(), ConsumerMask{2});
  EXPECT_EQ(domain_->Consumer<1>().GetStatistics().medium_priority_dropped, 1U);
  ASSERT_EQ(Errors().size(), 1U);
  EXPECT_EQ(Errors()[0].consumer, 1U);
  EXPECT_EQ(Errors()[0].error, BusError::kQueueFull);
  while (domain_->DispatchHighestReady().consumer != mccc::kNoConsumer) {
  }
  EXPECT_EQ(InUse(), 0U);  // three references dropped after dispatch, none leaked for consumer 1
  EXPECT_EQ(seen_[0].size(), 1U);
  EXPECT_EQ(seen_[1].size(), 0U);
  EXPECT_EQ(seen_[3].size(), 1U);
}

TEST_F(DomainLoans, ALoanEveryConsumerRefusedStaysWithTheCallerIntact) {
  Watch<1>();
  domain_->Consumer<1>().Subscribe<Note>([](const Note&) {});
  for (uint32_t i = 0U; i < kSmallMediumLimit; ++i) {
    ASSERT_TRUE(domain_->Publish(Note{i}, 0U));
  }
  mccc::MessageLoan<Cloud> loan = LoanCloud(9U);
  const mccc::FanOutResult result = domain_->Publish(std::move(loan), 1U);
  EXPECT_EQ(result.subscribed, ConsumerMask{2});
  EXPECT_EQ(result.admitted, 0U);
  ASSERT_TRUE(loan);  // NOLINT(bugprone-use-after-move,hicpp-invalid-access-moved): refused
  EXPECT_EQ(loan->seq, 9U);
  EXPECT_EQ(loan->points[0], 9U);
  EXPECT_EQ(InUse(), 1U);
  loan.Reset();
  EXPECT_EQ(InUse(), 0U);
}

TEST_F(DomainLoans, ALoanNobodySubscribesToReturnsAtOnce) {
  mccc::MessageLoan<Cloud> loan = LoanCloud(1U);
  const mccc::FanOutResult result = domain_->Publish(std::move(loan), 1U);
  EXPECT_EQ(result.subscribed, 0U);
  EXPECT_TRUE(result);
  EXPECT_FALSE(loan);  // NOLINT(bugprone-use-after-move,hicpp-invalid-access-moved): taken
  EXPECT_EQ(InUse(), 0U);
}

TEST_F(DomainLoans, EmptyAndForeignLoansReachNobody) {
  WatchAll();
  auto other = std::make_unique<Domain>();
  mccc::MessageLoan<Cloud> foreign = other->Loan<Cloud>(MessagePriority::kHigh);
  ASSERT_TRUE(foreign);
  const mccc::FanOutResult refused = domain_->Publish(std::move(foreign), 1U);
  EXPECT_EQ(refused.admitted, 0U);
  EXPECT_TRUE(foreign);  // NOLINT(bugprone-use-after-move,hicpp-invalid-access-moved): refused
  mccc::MessageLoan<Cloud> empty;
  EXPECT_EQ(domain_->Publish(std::move(empty), 1U).admitted, 0U);
  ASSERT_EQ(Errors().size(), 2U);
  EXPECT_EQ(Errors()[0].error, BusError::kForeignLoan);
  EXPECT_EQ(Errors()[1].error, BusError::kInvalidMessage);
  EXPECT_EQ(Errors()[0].consumer, mccc::kNoConsumer);
  EXPECT_EQ(domain_->Consumer<0>().QueueOccupancy(), 0U);
  foreign.Reset();
}

TEST_F(DomainLoans, PoolAdmissionByPriorityIsTheDomainsAndReportedOnce) {
  // A pool of 4: MEDIUM may take 3 (one block is HIGH's), HIGH all 4.
  std::vector<mccc::MessageLoan<Cloud>> held;
  for (uint32_t i = 0U; i < 3U; ++i) {
    held.push_back(LoanCloud(i, MessagePriority::kMedium));
    ASSERT_TRUE(held.back());
  }
  EXPECT_FALSE(LoanCloud(3U, MessagePriority::kMedium));
  ASSERT_EQ(Errors().size(), 1U);
  EXPECT_EQ(Errors()[0].error, BusError::kLoanRefused);
  EXPECT_EQ(Errors()[0].consumer, mccc::kNoConsumer);
  held.push_back(LoanCloud(3U, MessagePriority::kHigh));
  EXPECT_TRUE(held.back());
  EXPECT_EQ(domain_->GetLoanStatistics<Cloud>().medium_priority_refused, 1U);
  // The consumers' statistics show the one shared pool.
  EXPECT_EQ(domain_->Consumer<2>().GetStatistics().loan_blocks_in_use, 4U);
  held.clear();
  EXPECT_EQ(InUse(), 0U);
}

TEST_F(DomainLoans, AConsumersOwnLoanUsesTheSharedPoolAndReachesOnlyIt) {
  WatchAll();
  mccc::MessageLoan<Cloud> direct = domain_->Consumer<3>().Loan<Cloud>(MessagePriority::kMedium);
  ASSERT_TRUE(direct);
  direct->seq = 5U;
  EXPECT_EQ(InUse(), 1U);  // the domain's pool
  EXPECT_TRUE(domain_->Consumer<3>().Publish(std::move(direct), 1U));
  while (domain_->DispatchHighestReady().consumer != mccc::kNoConsumer) {
  }
  EXPECT_EQ(seen_[3].size(), 1U);
  EXPECT_EQ(seen_[0].size(), 0U);
  EXPECT_EQ(InUse(), 0U);
}

TEST_F(DomainLoans, AProducerHandlePublishesALoanToEveryConsumer) {
  WatchAll();
  Domain::Producer handle = domain_->MakeProducer();
  const mccc::FanOutResult result = handle.Publish(LoanCloud(6U), 2U);
  EXPECT_EQ(result.admitted, kAll);
  EXPECT_EQ(InUse(), 1U);
  while (domain_->DispatchHighestReady().consumer != mccc::kNoConsumer) {
  }
  for (const auto& seen : seen_) {
    ASSERT_EQ(seen.size(), 1U);
    EXPECT_EQ(seen[0].seq, 6U);
  }
  EXPECT_EQ(InUse(), 0U);
}

TEST_F(DomainLoans, QueuedLoansReturnWhenTheDomainIsDestroyed) {
  WatchAll();
  EXPECT_TRUE(domain_->Publish(LoanCloud(1U), 1U));
  EXPECT_TRUE(domain_->Publish(LoanCloud(2U), 1U));
  EXPECT_EQ(InUse(), 2U);
  EXPECT_EQ(Cloud::alive, 2);
  // The consumers' queues are destroyed before the pools: every queued reference is dropped and
  // the last one destroys its cloud (a pool destroyed first would be a use after free).
  domain_.reset();
  EXPECT_EQ(Cloud::alive, 0);
}

}  // namespace
