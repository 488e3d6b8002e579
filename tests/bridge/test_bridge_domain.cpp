// SPDX-License-Identifier: MIT
// G-38: fan-out across processes (over inproc:// here; the transport is the bridge's own, tested
// elsewhere): on the sending side an exporter is one consumer of a domain, beside a local one; on
// the receiving side an importer publishes through a DomainPublisher into every subscribed
// consumer of another domain. Exact: every message reaches the local consumer and both remote
// consumers once, with its priority, sender and timestamp, in order within its channel.
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

}  // namespace
