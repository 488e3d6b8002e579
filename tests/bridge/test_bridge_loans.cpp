// SPDX-License-Identifier: MIT
// Loaned alternatives (mccc::Loaned<T>) across the bridge, exporter and importer in one process
// over inproc:// (also run under TSan and ASan+UBSan): the exporter encodes the T in the block,
// the importer decodes straight into a block of its own bus's pool; a pool that refuses counts
// the frame as refused by the bus, never as lost; a lending process and a copying one share one
// schema.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bridge/bridge_test_support.hpp"
#include "bridge/bridge_test_types.hpp"
#include "bridge/tsan_suppressions.hpp"
#include "mccc/bridge/bridge.hpp"

namespace {

using bridge_test::Cloud;
using bridge_test::ConsumerThread;
using bridge_test::ExportTo;
using bridge_test::ImportFrom;
using bridge_test::UniqueEndpoints;
using bridge_test::WaitFor;
using mccc::MessagePriority;
using mccc::bridge::ChannelEndpoints;

constexpr std::size_t kMedium = 1U;

static_assert(mccc::bridge::kSchemaFingerprint<bridge_test::LoanPayload> ==
                  mccc::bridge::kSchemaFingerprint<bridge_test::InlineCloudPayload>,
              "a lent T and a copied T are the same message on the wire");

/// Records the index, validity and sender of every cloud a bus delivers (consumer thread).
class CloudLog {
 public:
  template <typename BusType>
  explicit CloudLog(BusType& bus) {
    bus.template Subscribe<Cloud>([this](const Cloud& cloud, const mccc::MessageHeader& header) {
      std::lock_guard<std::mutex> lock(mutex_);
      indices_.push_back(cloud.index);
      invalid_ += bridge_test::Valid(cloud) ? 0U : 1U;
      wrong_sender_ += header.sender_id == 12U ? 0U : 1U;
    });
  }
  std::vector<uint64_t> Indices() {
    std::lock_guard<std::mutex> lock(mutex_);
    return indices_;
  }
  uint64_t Invalid() {
    std::lock_guard<std::mutex> lock(mutex_);
    return invalid_;
  }
  uint64_t WrongSender() {
    std::lock_guard<std::mutex> lock(mutex_);
    return wrong_sender_;
  }

 private:
  std::mutex mutex_;
  std::vector<uint64_t> indices_;
  uint64_t invalid_ = 0U;
  uint64_t wrong_sender_ = 0U;
};

/// Publishes cloud `index` by loan, retrying while the pool has no block for it (the exporting
/// bus's consumer returns each block once the exporter has encoded the cloud).
template <typename BusType>
void PublishCloudByLoan(BusType& bus, uint64_t index) {
  for (;;) {
    mccc::MessageLoan<Cloud> loan = bus.template Loan<Cloud>(MessagePriority::kMedium);
    if (loan) {
      bridge_test::FillCloud(*loan, index);
      ASSERT_TRUE(bus.Publish(std::move(loan), 12U));
      return;
    }
    std::this_thread::yield();
  }
}

/// Publishes cloud `index` by copy.
void PublishCloudByCopy(bridge_test::InlineCloudBus& bus, uint64_t index) {
  auto cloud = std::make_unique<Cloud>();
  bridge_test::FillCloud(*cloud, index);
  while (!bus.PublishWithPriority(*cloud, 12U, MessagePriority::kMedium)) {
    std::this_thread::yield();
  }
}

/// Sends `count` clouds from a `Source` bus to a `Target` bus and checks that every admitted one
/// arrived once, whole and in order, and that the rest were refused by the target's pool.
template <typename Source, typename Target, typename Publish>
void RoundTrip(const char* name, uint64_t count, Publish publish) {
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints endpoints = UniqueEndpoints(name);
  auto source = std::make_unique<Source>();
  auto target = std::make_unique<Target>();
  CloudLog log(*target);
  ConsumerThread<Target> target_consumer(*target);
  mccc::bridge::Importer<Target> importer(*target, context, ImportFrom(endpoints));
  ASSERT_TRUE(importer.Start()) << importer.LastError();
  mccc::bridge::Exporter<Source> exporter(*source, context, ExportTo(endpoints));
  ASSERT_TRUE(exporter.Start()) << exporter.LastError();
  ConsumerThread<Source> source_consumer(*source);
  for (uint64_t i = 0U; i < count; ++i) {
    // The send queue's 4 MB hold about 250 clouds: keep its backlog (at most 100 queued plus
    // what the source bus still holds, 32 blocks or 64 slots) below that, so that the exporter
    // never has to refuse one.
    while (exporter.QueuedFrames(mccc::bridge::Channel::kNormal) >= 100U) {
      std::this_thread::yield();
    }
    publish(*source, i);
  }
  source_consumer.Stop();
  exporter.Stop();
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().streams_ended == 2U; }, 30000));
  importer.Stop();
  target_consumer.Stop();

  const auto out = exporter.GetStatistics();
  const auto in = importer.GetStatistics();
  EXPECT_EQ(out.sent[kMedium], count);
  EXPECT_EQ(out.refused[kMedium], 0U);
  // Every frame is accounted for: delivered, or refused by the target (its pool, or its ring).
  EXPECT_EQ(in.delivered[kMedium] + in.refused_by_bus[kMedium], count);
  EXPECT_EQ(in.lost + in.missed_at_join + in.repeated + in.reordered + in.corrupted + in.malformed +
                in.wrong_schema,
            0U);
  EXPECT_GT(in.delivered[kMedium], 0U);
  const std::vector<uint64_t> indices = log.Indices();
  ASSERT_EQ(indices.size(), in.delivered[kMedium]);
  for (std::size_t i = 1U; i < indices.size(); ++i) {
    EXPECT_LT(indices[i - 1U], indices[i]) << "order within the channel";
  }
  EXPECT_EQ(log.Invalid(), 0U);
  EXPECT_EQ(log.WrongSender(), 0U);
  // A refusal by a lending target is its pool's: the bus counted each one.
  const auto target_stats = target->GetStatistics();
  EXPECT_EQ(in.refused_by_bus[kMedium],
            target_stats.medium_priority_loans_refused + target_stats.medium_priority_dropped);
}

TEST(BridgeLoans, LentCloudsArriveWholeInOrderInLentBlocks) {
  RoundTrip<bridge_test::LoanBus, bridge_test::LoanBus>(
      "lend-lend", 300U, [](bridge_test::LoanBus& bus, uint64_t i) { PublishCloudByLoan(bus, i); });
}

TEST(BridgeLoans, ACopyingProcessAndALendingOneUnderstandEachOther) {
  RoundTrip<bridge_test::InlineCloudBus, bridge_test::LoanBus>(
      "copy-lend", 150U,
      [](bridge_test::InlineCloudBus& bus, uint64_t i) { PublishCloudByCopy(bus, i); });
  RoundTrip<bridge_test::LoanBus, bridge_test::InlineCloudBus>(
      "lend-copy", 150U, [](bridge_test::LoanBus& bus, uint64_t i) { PublishCloudByLoan(bus, i); });
}

TEST(BridgeLoans, APoolThatRefusesCountsTheFrameRefusedByTheBusNotLost) {
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints endpoints = UniqueEndpoints("tiny-pool");
  auto source = std::make_unique<bridge_test::LoanBus>();
  auto target = std::make_unique<bridge_test::TinyPoolBus>();
  CloudLog log(*target);
  // No consumer on the target yet: the blocks the importer takes stay taken, so its pool of 4
  // admits exactly 3 MEDIUM clouds (LoanAdmission keeps the last block for HIGH).
  mccc::bridge::Importer<bridge_test::TinyPoolBus> importer(*target, context,
                                                            ImportFrom(endpoints));
  ASSERT_TRUE(importer.Start());
  mccc::bridge::Exporter<bridge_test::LoanBus> exporter(*source, context, ExportTo(endpoints));
  ASSERT_TRUE(exporter.Start());
  ConsumerThread<bridge_test::LoanBus> source_consumer(*source);
  constexpr uint64_t kCount = 10U;
  for (uint64_t i = 0U; i < kCount; ++i) {
    PublishCloudByLoan(*source, i);
  }
  source_consumer.Stop();
  exporter.Stop();
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().streams_ended == 2U; }, 30000));
  importer.Stop();

  const auto in = importer.GetStatistics();
  EXPECT_EQ(in.delivered[kMedium], 3U);
  EXPECT_EQ(in.refused_by_bus[kMedium], kCount - 3U);
  EXPECT_EQ(in.lost + in.missed_at_join + in.malformed, 0U);
  EXPECT_EQ(target->GetStatistics().medium_priority_loans_refused, kCount - 3U);
  // The three admitted clouds are the first three, whole.
  ConsumerThread<bridge_test::TinyPoolBus> target_consumer(*target);
  target_consumer.Stop();
  EXPECT_EQ(log.Indices(), (std::vector<uint64_t>{0U, 1U, 2U}));
  EXPECT_EQ(log.Invalid(), 0U);
}

}  // namespace
