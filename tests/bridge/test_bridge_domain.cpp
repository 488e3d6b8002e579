// SPDX-License-Identifier: MIT
// G-38: fan-out across processes (over inproc:// here; the transport is the bridge's own, tested
// elsewhere): on the sending side an exporter is one consumer of a domain, beside a local one; on
// the receiving side an importer publishes through a DomainPublisher into every subscribed
// consumer of another domain. Exact: every message reaches the local consumer and both remote
// consumers once, with its priority, sender and timestamp, in order within its channel; a lent
// 16 KB cloud is decoded once into one block of the receiving domain's pool, which both of its
// consumers see, and every block returns.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "bridge/bridge_test_support.hpp"
#include "bridge/bridge_test_types.hpp"
#include "mccc/bridge/bridge.hpp"
#include "mccc/fanout/domain.hpp"
#include "mccc/fanout/domain_publisher.hpp"

namespace {

using bridge_test::ConsumerThread;
using bridge_test::ExportTo;
using bridge_test::ImportFrom;
using bridge_test::UniqueEndpoints;
using bridge_test::WaitFor;
using mccc::MessagePriority;

using Domain = mccc::Domain<bridge_test::Payload, bridge_test::BusTraits, bridge_test::BusTraits>;

struct Arrival {
  uint64_t index;
  MessagePriority priority;
  uint32_t sender;
  uint64_t timestamp;
  bool valid;
};

/// Records the Telemetry and EmergencyStop messages one consumer bus dispatches.
class Recorder {
 public:
  template <typename Bus>
  explicit Recorder(Bus& bus) {
    bus.template Subscribe<bridge_test::Telemetry>(
        [this](const bridge_test::Telemetry& m, const mccc::MessageHeader& h) {
          Add(m.index, h, bridge_test::Valid(m));
        });
    bus.template Subscribe<bridge_test::EmergencyStop>(
        [this](const bridge_test::EmergencyStop& m, const mccc::MessageHeader& h) {
          Add(m.index, h, bridge_test::Valid(m));
        });
  }
  std::vector<Arrival> Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return arrivals_;
  }

 private:
  void Add(uint64_t index, const mccc::MessageHeader& h, bool valid) {
    std::lock_guard<std::mutex> lock(mutex_);
    arrivals_.push_back(Arrival{index, h.priority, h.sender_id, h.timestamp_us, valid});
  }
  std::mutex mutex_;
  std::vector<Arrival> arrivals_;
};

MessagePriority PriorityOf(uint64_t index) {
  return index % 4U == 3U ? MessagePriority::kHigh
                          : (index % 2U == 0U ? MessagePriority::kLow : MessagePriority::kMedium);
}

/// Every index of [0, count) once, valid, with the priority, sender and timestamp it was
/// published with, and increasing within each channel (HIGH, the others).
void ExpectAllOnceInChannelOrder(const std::vector<Arrival>& arrivals, uint64_t count) {
  ASSERT_EQ(arrivals.size(), count);
  std::vector<int> seen(count, 0);
  std::array<uint64_t, 2> last{{0U, 0U}};
  std::array<bool, 2> any{{false, false}};
  for (const Arrival& a : arrivals) {
    ASSERT_LT(a.index, count);
    ++seen[a.index];
    EXPECT_TRUE(a.valid);
    EXPECT_EQ(a.priority, PriorityOf(a.index));
    EXPECT_EQ(a.sender, 7U);
    EXPECT_EQ(a.timestamp, 1000000U + a.index);
    const std::size_t channel = a.priority == MessagePriority::kHigh ? 1U : 0U;
    if (any[channel]) {
      EXPECT_GT(a.index, last[channel]);
    }
    any[channel] = true;
    last[channel] = a.index;
  }
  for (uint64_t i = 0U; i < count; ++i) {
    EXPECT_EQ(seen[i], 1) << i;
  }
}

TEST(BridgeDomain, AnExporterIsOneConsumerAndAnImporterPublishesToAll) {
  mccc::bridge::ZmqContext context;
  const mccc::bridge::ChannelEndpoints endpoints = UniqueEndpoints("domain");
  auto source = std::make_unique<Domain>();
  auto target = std::make_unique<Domain>();

  // Receiving side: two consumers, each on its own thread; the importer publishes into both.
  Recorder perception(target->Consumer<0>());
  Recorder logger(target->Consumer<1>());
  ConsumerThread<Domain::ConsumerBus<0>> perception_thread(target->Consumer<0>());
  ConsumerThread<Domain::ConsumerBus<1>> logger_thread(target->Consumer<1>());
  mccc::DomainPublisher<Domain> into_target(*target);
  mccc::bridge::Importer<mccc::DomainPublisher<Domain>> importer(into_target, context,
                                                                 ImportFrom(endpoints));
  ASSERT_TRUE(importer.Start()) << importer.LastError();

  // Sending side: a local consumer, and the exporter subscribed as consumer 1.
  Recorder local(source->Consumer<0>());
  mccc::bridge::Exporter<Domain::ConsumerBus<1>> exporter(source->Consumer<1>(), context,
                                                          ExportTo(endpoints));
  ASSERT_TRUE(exporter.Start()) << exporter.LastError();
  EXPECT_EQ(source->SubscribersOf<bridge_test::Telemetry>(), 3U);
  ConsumerThread<Domain::ConsumerBus<0>> local_thread(source->Consumer<0>());
  ConsumerThread<Domain::ConsumerBus<1>> export_thread(source->Consumer<1>());

  constexpr uint64_t kCount = 400U;
  for (uint64_t i = 0U; i < kCount; ++i) {
    const MessagePriority priority = PriorityOf(i);
    const mccc::FanOutResult result =
        priority == MessagePriority::kHigh
            ? source->PublishFast(bridge_test::MakeStop(i), 7U, 1000000U + i, priority)
            : source->PublishFast(bridge_test::MakeTelemetry(i, 9U), 7U, 1000000U + i, priority);
    ASSERT_TRUE(result) << i;
    ASSERT_EQ(result.admitted, 3U);
  }
  ASSERT_TRUE(WaitFor(
      [&] {
        const auto delivered = importer.GetStatistics().delivered;
        return delivered[0] + delivered[1] + delivered[2] == kCount;
      },
      20000));
  exporter.Stop();
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().streams_ended == 2U; }, 20000));
  importer.Stop();
  perception_thread.Stop();
  logger_thread.Stop();
  local_thread.Stop();
  export_thread.Stop();

  ExpectAllOnceInChannelOrder(local.Take(), kCount);
  ExpectAllOnceInChannelOrder(perception.Take(), kCount);
  ExpectAllOnceInChannelOrder(logger.Take(), kCount);
  const auto received = importer.GetStatistics();
  EXPECT_EQ(received.refused_by_bus[0] + received.refused_by_bus[1] + received.refused_by_bus[2],
            0U);
  EXPECT_EQ(received.lost + received.corrupted + received.malformed, 0U);
  EXPECT_EQ(target->Consumer<0>().GetStatistics().messages_published, kCount);
  EXPECT_EQ(target->Consumer<1>().GetStatistics().messages_published, kCount);
}

using LoanDomain =
    mccc::Domain<bridge_test::LoanPayload, bridge_test::LoanBusTraits, bridge_test::LoanBusTraits>;

TEST(BridgeDomain, AnImportedLoanIsOneBlockForEveryConsumerOfTheDomain) {
  mccc::bridge::ZmqContext context;
  const mccc::bridge::ChannelEndpoints endpoints = UniqueEndpoints("domain-loans");
  auto source = std::make_unique<bridge_test::LoanBus>();
  auto target = std::make_unique<LoanDomain>();

  struct Seen {
    std::mutex mutex;
    std::vector<uint64_t> indices;
    std::vector<const bridge_test::Cloud*> blocks;
    uint32_t invalid = 0U;
  };
  std::array<Seen, 2> seen;
  const auto record = [](Seen& into) {
    return [&into](const bridge_test::Cloud& cloud) {
      std::lock_guard<std::mutex> lock(into.mutex);
      into.indices.push_back(cloud.index);
      into.blocks.push_back(&cloud);
      into.invalid += bridge_test::Valid(cloud) ? 0U : 1U;
    };
  };
  target->Consumer<0>().Subscribe<bridge_test::Cloud>(record(seen[0]));
  target->Consumer<1>().Subscribe<bridge_test::Cloud>(record(seen[1]));
  // Consumer 1 dispatches only once everything has arrived: until then each block is held by
  // its queue, so the two consumers cannot have seen one block reused for another cloud.
  ConsumerThread<LoanDomain::ConsumerBus<0>> first(target->Consumer<0>());
  mccc::DomainPublisher<LoanDomain> into_target(*target);
  mccc::bridge::Importer<mccc::DomainPublisher<LoanDomain>> importer(into_target, context,
                                                                     ImportFrom(endpoints));
  ASSERT_TRUE(importer.Start()) << importer.LastError();
  mccc::bridge::Exporter<bridge_test::LoanBus> exporter(*source, context, ExportTo(endpoints));
  ASSERT_TRUE(exporter.Start()) << exporter.LastError();
  ConsumerThread<bridge_test::LoanBus> source_consumer(*source);

  constexpr uint64_t kCount = 20U;  // below the pool's MEDIUM limit: nothing is refused
  for (uint64_t i = 0U; i < kCount; ++i) {
    mccc::MessageLoan<bridge_test::Cloud> loan =
        source->Loan<bridge_test::Cloud>(MessagePriority::kMedium);
    ASSERT_TRUE(loan);
    bridge_test::FillCloud(*loan, i);
    ASSERT_TRUE(source->Publish(std::move(loan), 7U));
  }
  ASSERT_TRUE(WaitFor(
      [&] {
        const auto delivered = importer.GetStatistics().delivered;
        return delivered[0] + delivered[1] + delivered[2] == kCount;
      },
      20000));
  EXPECT_EQ(target->GetLoanStatistics<bridge_test::Cloud>().loans_granted, kCount);  // one each
  ConsumerThread<LoanDomain::ConsumerBus<1>> second(target->Consumer<1>());
  exporter.Stop();
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().streams_ended == 2U; }, 20000));
  importer.Stop();
  first.Stop();
  second.Stop();
  source_consumer.Stop();

  for (Seen& s : seen) {
    std::vector<uint64_t> expected(kCount);
    for (uint64_t i = 0U; i < kCount; ++i) {
      expected[i] = i;
    }
    EXPECT_EQ(s.indices, expected);
    EXPECT_EQ(s.invalid, 0U);
  }
  EXPECT_EQ(seen[0].blocks, seen[1].blocks);  // the same block per cloud, in both consumers
  EXPECT_EQ(target->GetLoanStatistics<bridge_test::Cloud>().in_use, 0U);
}

}  // namespace
