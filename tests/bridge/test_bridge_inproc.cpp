// SPDX-License-Identifier: MIT
// Exporter and importer in one process over inproc:// (also run under TSan and ASan+UBSan):
// round trip of every field, HIGH exactly once under a LOW flood with exact refusal counts on both
// sides, the fault proxy over packed messages, a damaged frame inside a packed message, schema
// mismatch, restart as a new stream, the count of frames left at Stop and of ends nobody confirmed,
// the export filter and types an importer does not take.
#include <gtest/gtest.h>
#include <zmq.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bridge/bridge_test_support.hpp"
#include "bridge/bridge_test_types.hpp"
#include "bridge/fault_proxy.hpp"
#include "bridge/tsan_suppressions.hpp"
#include "mccc/bridge/bridge.hpp"

namespace {

using bridge_test::Bus;
using bridge_test::ConsumerThread;
using bridge_test::ExportTo;
using bridge_test::ImportFrom;
using bridge_test::UniqueEndpoints;
using bridge_test::WaitFor;
using mccc::BusError;
using mccc::MessagePriority;
using mccc::bridge::Channel;
using mccc::bridge::ChannelEndpoints;
using ExporterErrors = bridge_test::ErrorCounts<1>;
using ImporterErrors = bridge_test::ErrorCounts<2>;

constexpr std::size_t kLow = 0U;
constexpr std::size_t kMedium = 1U;
constexpr std::size_t kHigh = 2U;

struct Received {
  std::size_t type;
  uint64_t index;
  MessagePriority priority;
  uint32_t sender;
  uint64_t timestamp;
  bool valid;
};

/// Subscribes to every type of `bus` and records what arrives (consumer thread only).
template <typename BusType>
class Recorder {
 public:
  explicit Recorder(BusType& bus) {
    bus.template Subscribe<bridge_test::Telemetry>(
        [this](const bridge_test::Telemetry& m, const mccc::MessageHeader& h) {
          Add(0U, m.index, h, bridge_test::Valid(m));
        });
    bus.template Subscribe<bridge_test::EmergencyStop>(
        [this](const bridge_test::EmergencyStop& m, const mccc::MessageHeader& h) {
          Add(1U, m.index, h, bridge_test::Valid(m));
        });
    bus.template Subscribe<bridge_test::Scan>(
        [this](const bridge_test::Scan& m, const mccc::MessageHeader& h) {
          Add(2U, m.index, h, bridge_test::Valid(m));
        });
  }
  std::vector<Received> Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
  }

 private:
  void Add(std::size_t type, uint64_t index, const mccc::MessageHeader& h, bool valid) {
    std::lock_guard<std::mutex> lock(mutex_);
    received_.push_back(Received{type, index, h.priority, h.sender_id, h.timestamp_us, valid});
  }
  std::mutex mutex_;
  std::vector<Received> received_;
};

uint64_t Total(const std::array<uint64_t, 3>& values) {
  return values[0] + values[1] + values[2];
}

TEST(BridgeInproc, RoundTripKeepsPrioritySenderTimestampOrderAndPayload) {
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints endpoints = UniqueEndpoints("roundtrip");
  auto source = std::make_unique<Bus>();
  auto target = std::make_unique<Bus>();
  Recorder<Bus> recorder(*target);
  ConsumerThread<Bus> target_consumer(*target);
  mccc::bridge::Importer<Bus> importer(*target, context, ImportFrom(endpoints));
  ASSERT_TRUE(importer.Start()) << importer.LastError();
  mccc::bridge::Exporter<Bus> exporter(*source, context, ExportTo(endpoints));
  ASSERT_TRUE(exporter.Start()) << exporter.LastError();
  ConsumerThread<Bus> source_consumer(*source);

  constexpr uint64_t kCount = 300U;
  for (uint64_t i = 0U; i < kCount; ++i) {
    const auto sender = static_cast<uint32_t>(100U + i % 3U);
    const uint64_t timestamp = 5000000U + i;
    bool published = false;
    if (i % 3U == 0U) {
      published =
          source->PublishFast(bridge_test::MakeTelemetry(i, 9U), sender, timestamp,
                              i % 2U == 0U ? MessagePriority::kLow : MessagePriority::kMedium);
    } else if (i % 3U == 1U) {
      published =
          source->PublishFast(bridge_test::MakeStop(i), sender, timestamp, MessagePriority::kHigh);
    } else {
      published = source->PublishFast(bridge_test::MakeScan(i), sender, timestamp,
                                      MessagePriority::kMedium);
    }
    ASSERT_TRUE(published);
  }
  ASSERT_TRUE(WaitFor([&] { return Total(importer.GetStatistics().delivered) == kCount; }, 20000));
  exporter.Stop();
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().streams_ended == 2U; }, 20000));
  importer.Stop();
  target_consumer.Stop();

  const std::vector<Received> received = recorder.Take();
  ASSERT_EQ(received.size(), kCount);
  std::array<uint64_t, 2> last_index_per_channel{{0U, 0U}};
  std::array<bool, 2> seen_per_channel{{false, false}};
  std::vector<int> seen(kCount, 0);
  for (const Received& r : received) {
    ASSERT_LT(r.index, kCount);
    ++seen[r.index];
    EXPECT_TRUE(r.valid) << r.index;
    EXPECT_EQ(r.type, r.index % 3U);
    EXPECT_EQ(r.sender, 100U + r.index % 3U);
    EXPECT_EQ(r.timestamp, 5000000U + r.index);
    const MessagePriority expected =
        r.index % 3U == 1U ? MessagePriority::kHigh
        : r.index % 3U == 2U
            ? MessagePriority::kMedium
            : (r.index % 2U == 0U ? MessagePriority::kLow : MessagePriority::kMedium);
    EXPECT_EQ(r.priority, expected);
    const std::size_t channel = r.priority == MessagePriority::kHigh ? 1U : 0U;
    if (seen_per_channel[channel]) {
      EXPECT_GT(r.index, last_index_per_channel[channel]) << "order within a channel";
    }
    seen_per_channel[channel] = true;
    last_index_per_channel[channel] = r.index;
  }
  for (uint64_t i = 0U; i < kCount; ++i) {
    EXPECT_EQ(seen[i], 1) << i;
  }
  const auto stats = importer.GetStatistics();
  EXPECT_EQ(stats.lost + stats.missed_at_join + stats.repeated + stats.reordered + stats.corrupted +
                stats.malformed + stats.wrong_schema,
            0U);
  const auto sent = exporter.GetStatistics();
  EXPECT_EQ(Total(sent.sent), kCount);
  EXPECT_EQ(Total(sent.refused), 0U);
  EXPECT_EQ(sent.transmitted[0] + sent.transmitted[1], kCount);
}

/// Publishes messages [first, last) of the flood pattern (one HIGH per 200, one MEDIUM per 10,
/// the rest LOW; only LOW when `low_only`) from one producer, in bursts of 200 a millisecond apart
/// when `paced`.
void PublishFlood(Bus& bus, uint64_t first, uint64_t last, bool paced, bool low_only,
                  std::vector<MessagePriority>& admitted_priority,
                  std::array<uint64_t, 3>& published, uint64_t& high_index) {
  for (uint64_t i = first; i < last; ++i) {
    MessagePriority priority = MessagePriority::kLow;
    bool ok = false;
    if (i % 200U == 100U && !low_only) {
      priority = MessagePriority::kHigh;
      ok = bus.PublishWithPriority(bridge_test::MakeStop(high_index), 1U, priority);
      high_index += ok ? 1U : 0U;
    } else {
      priority = i % 10U == 5U && !low_only ? MessagePriority::kMedium : MessagePriority::kLow;
      ok = bus.PublishWithPriority(bridge_test::MakeTelemetry(i, 1U), 1U, priority);
    }
    if (ok) {
      admitted_priority.push_back(priority);
      ++published[static_cast<std::size_t>(priority)];
    }
    if (paced && (i + 1U) % 200U == 0U) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

TEST(BridgeInproc, HighExactlyOnceUnderLowFloodAndRefusalsCountedExactlyOnBothSides) {
  ExporterErrors::Reset();
  ImporterErrors::Reset();
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints endpoints = UniqueEndpoints("flood");
  auto source = std::make_unique<Bus>();
  auto target = std::make_unique<Bus>();
  source->SetErrorCallback(&ExporterErrors::Callback);
  target->SetErrorCallback(&ImporterErrors::Callback);
  // The exporter reports a refusal with the message's msg_id: which priority that id had.
  bridge_test::DeliveredPriorities<Bus, bridge_test::Telemetry, bridge_test::EmergencyStop>
      source_priorities(*source);

  // The controller blocks in its first LOW callback until its bus refused a LOW message, so the
  // importer's bus refuses whatever the speed of the machine. The bus keeps room for every HIGH
  // message: HIGH travels in a lane of its own (1024 slots), which LOW and MEDIUM never fill, and
  // the 300 HIGH messages fit in it.
  std::array<std::atomic<uint64_t>, 3> callbacks{};
  std::vector<std::atomic<int>> high_seen(400U);
  std::atomic<uint64_t> invalid{0U};
  std::atomic<bool> held{false};
  std::atomic<bool> held_until_refusal{false};
  Bus* const target_bus = target.get();
  target->Subscribe<bridge_test::Telemetry>(
      [&](const bridge_test::Telemetry& m, const mccc::MessageHeader& h) {
        invalid.fetch_add(bridge_test::Valid(m) ? 0U : 1U);
        callbacks[static_cast<std::size_t>(h.priority)].fetch_add(1U);
        if (h.priority == MessagePriority::kLow && !held.exchange(true)) {
          held_until_refusal.store(WaitFor(
              [&] { return target_bus->GetStatistics().low_priority_dropped != 0U; }, 60000));
        }
      });
  target->Subscribe<bridge_test::EmergencyStop>(
      [&](const bridge_test::EmergencyStop& m, const mccc::MessageHeader& h) {
        invalid.fetch_add(bridge_test::Valid(m) ? 0U : 1U);
        callbacks[static_cast<std::size_t>(h.priority)].fetch_add(1U);
        high_seen[static_cast<std::size_t>(m.index)].fetch_add(1);
      });
  ConsumerThread<Bus> target_consumer(*target);
  // The exporter binds, and the first 20000 messages are published before any importer is
  // there: its send queues fill and refuse LOW, then MEDIUM, while the HIGH queue (its own
  // channel) keeps its 100 messages.
  mccc::bridge::ExporterOptions export_options = ExportTo(endpoints);
  export_options.mode = mccc::bridge::EndpointMode::kBind;
  export_options.transport.high_water_mark = 64;
  mccc::bridge::Exporter<Bus, mccc::bridge::AllTypes, bridge_test::SmallQueueBridge> exporter(
      *source, context, export_options);
  ASSERT_TRUE(exporter.Start());
  ConsumerThread<Bus> source_consumer(*source);

  std::vector<MessagePriority> admitted_priority;
  std::array<uint64_t, 3> published{};
  uint64_t high_index = 0U;
  PublishFlood(*source, 0U, 20000U, false, false, admitted_priority, published, high_index);
  ASSERT_TRUE(WaitFor([&] { return source->QueueOccupancy() == 0U; }, 60000));
  mccc::bridge::ImporterOptions import_options = ImportFrom(endpoints);
  import_options.mode = mccc::bridge::EndpointMode::kConnect;
  import_options.transport.high_water_mark = 64;
  mccc::bridge::Importer<Bus> importer(*target, context, import_options);
  ASSERT_TRUE(importer.Start());
  ASSERT_TRUE(WaitFor(
      [&] {
        return exporter.QueuedFrames(Channel::kHigh) == 0U &&
               exporter.QueuedFrames(Channel::kNormal) == 0U;
      },
      60000))
      << "the importer takes the backlog";
  // The rest of the flood, 40000 messages in bursts of 200 a millisecond apart, then LOW only
  // until the held controller's bus has refused some, however slow the machine.
  PublishFlood(*source, 20000U, 60000U, true, false, admitted_priority, published, high_index);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (uint64_t first = 60000U; target->GetStatistics().low_priority_dropped == 0U &&
                                std::chrono::steady_clock::now() < deadline;
       first += 200U) {
    PublishFlood(*source, first, first + 200U, true, true, admitted_priority, published,
                 high_index);
  }
  ASSERT_EQ(published[kHigh], 300U);
  source_consumer.Stop();  // every admitted message went through the exporter's subscription
  exporter.Stop();         // returns once both ends of stream were read and confirmed
  const auto out = exporter.GetStatistics();
  EXPECT_EQ(out.ends_confirmed, 2U);
  EXPECT_EQ(out.ends_unconfirmed, 0U);
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().streams_ended == 2U; }, 30000));
  importer.Stop();
  target_consumer.Stop();

  const auto in = importer.GetStatistics();
  EXPECT_TRUE(held_until_refusal.load());
  // Every admitted message reached the source's subscribers once, with ids 1, 2, 3, ...
  ASSERT_TRUE(source_priorities.Consecutive());
  ASSERT_EQ(source_priorities.Count(), admitted_priority.size());
  std::array<uint64_t, 3> refused_by_id{};
  for (std::size_t id = 1U; id <= source_priorities.Count(); ++id) {
    const uint8_t times = ExporterErrors::RefusedIds()[id].load();
    ASSERT_LE(times, 1U);
    refused_by_id[static_cast<std::size_t>(source_priorities.Of(id))] += times;
  }
  for (std::size_t p = 0U; p < 3U; ++p) {
    SCOPED_TRACE(p);
    EXPECT_EQ(published[p], out.sent[p] + out.refused[p]);
    EXPECT_EQ(refused_by_id[p], out.refused[p]);
    EXPECT_EQ(out.sent[p], in.delivered[p] + in.refused_by_bus[p]);
    EXPECT_EQ(callbacks[p].load(), in.delivered[p]);
  }
  EXPECT_EQ(ExporterErrors::Of(BusError::kBridgeSendRefused), Total(out.refused));
  EXPECT_GT(out.refused[kLow], 0U) << "LOW is refused while no importer is there";
  EXPECT_GT(out.refused[kMedium], 0U) << "and MEDIUM too";
  EXPECT_GT(in.refused_by_bus[kLow], 0U) << "the held controller's bus refuses";
  EXPECT_EQ(ImporterErrors::Of(BusError::kQueueFull), Total(in.refused_by_bus));
  const auto target_stats = target->GetStatistics();
  EXPECT_EQ(target_stats.low_priority_dropped, in.refused_by_bus[kLow]);
  EXPECT_EQ(target_stats.medium_priority_dropped, in.refused_by_bus[kMedium]);
  // HIGH: never refused, every one delivered exactly once.
  EXPECT_EQ(out.refused[kHigh], 0U);
  EXPECT_EQ(in.delivered[kHigh], 300U);
  EXPECT_EQ(in.refused_by_bus[kHigh], 0U);
  for (std::size_t i = 0U; i < 300U; ++i) {
    EXPECT_EQ(high_seen[i].load(), 1) << i;
  }
  EXPECT_EQ(invalid.load(), 0U);
  EXPECT_EQ(in.lost + in.missed_at_join + in.repeated + in.reordered + in.corrupted + in.malformed,
            0U);
  EXPECT_EQ(out.dropped_at_stop, 0U);
  EXPECT_EQ(in.ends_confirmed, 2U);
}

TEST(BridgeInproc, FaultProxyEveryFaultDetectedAndCountedNoBadMessageDelivered) {
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints to_proxy = UniqueEndpoints("proxy-in");
  const ChannelEndpoints to_importer = UniqueEndpoints("proxy-out");
  auto source = std::make_unique<Bus>();
  auto target = std::make_unique<Bus>();
  Recorder<Bus> recorder(*target);
  ConsumerThread<Bus> target_consumer(*target);
  mccc::bridge::Importer<Bus> importer(*target, context, ImportFrom(to_importer));
  ASSERT_TRUE(importer.Start());
  // Small high-water marks: while the proxy does not read yet, ZeroMQ holds a few messages of a
  // channel (this side's mark plus the proxy's, at most 64 frames each) and the rest of the 2,000
  // LOW/MEDIUM frames wait in the exporter's send queue, so that they leave packed.
  bridge_test::FaultProxy proxy(context.Native(), to_proxy, to_importer, 1);
  ASSERT_TRUE(proxy.Ok());
  mccc::bridge::ExporterOptions export_options = ExportTo(to_proxy);
  export_options.transport.high_water_mark = 1;
  mccc::bridge::Exporter<Bus> exporter(*source, context, export_options);
  ASSERT_TRUE(exporter.Start());
  auto source_consumer = std::make_unique<ConsumerThread<Bus>>(*source);

  constexpr uint64_t kNormal = 2000U;
  constexpr uint64_t kHighCount = 200U;
  for (uint64_t i = 0U; i < kNormal; ++i) {
    ASSERT_TRUE(i % 4U == 0U ? source->PublishWithPriority(bridge_test::MakeScan(i), 2U,
                                                           MessagePriority::kMedium)
                             : source->PublishWithPriority(bridge_test::MakeTelemetry(i, 2U), 2U,
                                                           MessagePriority::kLow));
    if (i % 10U == 0U) {
      ASSERT_TRUE(
          source->PublishWithPriority(bridge_test::MakeStop(i / 10U), 2U, MessagePriority::kHigh));
    }
  }
  source_consumer->Stop();  // every message is in the exporter's send queues or in ZeroMQ
  ASSERT_EQ(Total(exporter.GetStatistics().sent), kNormal + kHighCount);
  ASSERT_GT(exporter.QueuedFrames(Channel::kNormal), 0U);
  std::atomic<bool> stop_proxy{false};
  std::thread proxy_thread([&] { proxy.Run(stop_proxy, 30000); });
  exporter.Stop();
  proxy_thread.join();
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().streams_ended == 2U; }, 30000));
  importer.Stop();
  target_consumer.Stop();

  const bridge_test::ProxyCounts& faults = proxy.Counts();
  const auto in = importer.GetStatistics();
  const auto out = exporter.GetStatistics();
  const uint64_t blocks = (kNormal + kHighCount) / 10U;
  ASSERT_EQ(faults.data_frames, kNormal + kHighCount);
  // The waiting frames left packed, and the importer read every message the proxy sent.
  EXPECT_LT(out.messages[0], out.transmitted[0]);
  EXPECT_GT(faults.packed, 0U);
  EXPECT_EQ(in.messages_received, faults.messages + faults.markers);
  EXPECT_EQ(faults.dropped, blocks);
  EXPECT_EQ(faults.repeated, blocks);
  EXPECT_EQ(faults.reordered, blocks);
  EXPECT_EQ(faults.flipped, blocks);
  EXPECT_EQ(in.frames_received, faults.forwarded);
  EXPECT_EQ(in.corrupted, faults.flipped);
  EXPECT_EQ(in.repeated, faults.repeated);
  EXPECT_EQ(in.reordered, faults.reordered);
  // A dropped frame, a late one and a corrupted one each leave their number missing.
  EXPECT_EQ(in.lost, faults.dropped + faults.reordered + faults.flipped);
  EXPECT_EQ(in.missed_at_join, 0U);
  EXPECT_EQ(in.malformed + in.wrong_schema + in.unsupported_version, 0U);
  const uint64_t good = kNormal + kHighCount - faults.dropped - faults.reordered - faults.flipped;
  EXPECT_EQ(Total(in.delivered), good);
  const std::vector<Received> received = recorder.Take();
  EXPECT_EQ(received.size(), good);
  for (const Received& r : received) {
    EXPECT_TRUE(r.valid) << r.index;
    EXPECT_EQ(r.sender, 2U);
  }
}

/// A data frame of bridge_test::Payload's Telemetry as an exporter writes it.
std::vector<uint8_t> TelemetryFrame(uint64_t stream, uint64_t sequence) {
  using mccc::bridge::Codec;
  const bridge_test::Telemetry message = bridge_test::MakeTelemetry(sequence, 6U);
  mccc::bridge::FrameHeader header;
  header.priority = static_cast<uint8_t>(MessagePriority::kMedium);
  header.type = 0U;  // Telemetry is alternative 0
  header.payload_bytes = static_cast<uint32_t>(Codec<bridge_test::Telemetry>::EncodedSize(message));
  header.sender_id = 6U;
  header.schema = mccc::bridge::kSchemaFingerprint<bridge_test::Payload>;
  header.stream_id = stream;
  header.sequence = sequence;
  std::vector<uint8_t> frame(mccc::bridge::kFrameHeaderBytes + header.payload_bytes);
  mccc::bridge::EncodeHeader(header, frame.data());
  Codec<bridge_test::Telemetry>::Encode(message, frame.data() + mccc::bridge::kFrameHeaderBytes);
  mccc::bridge::SealFrame(frame.data(), frame.size());
  return frame;
}

TEST(BridgeInproc, NothingAfterACorruptedFrameInItsMessageIsReadAndTheGapIsCountedLost) {
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints endpoints = UniqueEndpoints("packed-damage");
  auto target = std::make_unique<Bus>();
  Recorder<Bus> recorder(*target);
  ConsumerThread<Bus> target_consumer(*target);
  mccc::bridge::Importer<Bus> importer(*target, context, ImportFrom(endpoints));
  ASSERT_TRUE(importer.Start());
  // A hand-made exporter: one DEALER on the normal channel.
  void* socket = zmq_socket(context.Native(), ZMQ_DEALER);
  ASSERT_EQ(zmq_connect(socket, endpoints.normal.c_str()), 0);
  constexpr uint64_t kStream = 77U;
  // Message 1: frames 0, 1 (one bit of its payload flipped), 2. Message 2: frame 3.
  std::vector<uint8_t> first = TelemetryFrame(kStream, 0U);
  std::vector<uint8_t> damaged = TelemetryFrame(kStream, 1U);
  damaged.back() = static_cast<uint8_t>(damaged.back() ^ 0x10U);
  const std::vector<uint8_t> skipped = TelemetryFrame(kStream, 2U);
  first.insert(first.end(), damaged.begin(), damaged.end());
  first.insert(first.end(), skipped.begin(), skipped.end());
  const std::vector<uint8_t> second = TelemetryFrame(kStream, 3U);
  ASSERT_EQ(zmq_send(socket, first.data(), first.size(), 0), static_cast<int>(first.size()));
  ASSERT_EQ(zmq_send(socket, second.data(), second.size(), 0), static_cast<int>(second.size()));
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().messages_received == 2U; }, 20000));
  ASSERT_TRUE(WaitFor([&] { return recorder.Take().size() == 2U; }, 20000));
  importer.Stop();
  zmq_close(socket);
  target_consumer.Stop();

  const auto in = importer.GetStatistics();
  EXPECT_EQ(in.frames_received, 3U);  // 0, 1 (corrupted) and 3: frame 2 could not be read
  EXPECT_EQ(in.corrupted, 1U);
  EXPECT_EQ(in.lost, 2U);  // 1 and 2, found missing when 3 arrived
  EXPECT_EQ(in.delivered[kMedium], 2U);
  EXPECT_EQ(in.repeated + in.reordered + in.malformed + in.missed_at_join, 0U);
  const std::vector<Received> received = recorder.Take();
  ASSERT_EQ(received.size(), 2U);
  EXPECT_EQ(received[0].index, 0U);
  EXPECT_EQ(received[1].index, 3U);
  EXPECT_TRUE(received[0].valid);
  EXPECT_TRUE(received[1].valid);
}

void RecordFault(const mccc::bridge::FaultReport& report, void* context) {
  static_cast<std::vector<mccc::bridge::FaultReport>*>(context)->push_back(report);
}

TEST(BridgeInproc, SchemaMismatchIsRefusedAtTheFirstFrameWithItsError) {
  ImporterErrors::Reset();
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints endpoints = UniqueEndpoints("schema");
  auto source = std::make_unique<Bus>();
  auto target = std::make_unique<bridge_test::OtherBus>();
  target->SetErrorCallback(&ImporterErrors::Callback);
  std::atomic<uint64_t> delivered{0U};
  target->Subscribe<bridge_test::Telemetry>([&](const bridge_test::Telemetry&) { ++delivered; });
  ConsumerThread<bridge_test::OtherBus> target_consumer(*target);
  std::vector<mccc::bridge::FaultReport> faults;  // receiver thread only, read after Stop
  mccc::bridge::ImporterOptions options = ImportFrom(endpoints);
  options.fault_handler = &RecordFault;
  options.fault_context = &faults;
  mccc::bridge::Importer<bridge_test::OtherBus> importer(*target, context, options);
  ASSERT_TRUE(importer.Start());
  mccc::bridge::Exporter<Bus> exporter(*source, context, ExportTo(endpoints));
  ASSERT_TRUE(exporter.Start());
  ConsumerThread<Bus> source_consumer(*source);
  for (uint64_t i = 0U; i < 10U; ++i) {
    ASSERT_TRUE(source->Publish(bridge_test::MakeTelemetry(i, 3U), 3U));
  }
  source_consumer.Stop();
  exporter.Stop();
  // Refused, but read: both ends of stream confirmed, so every frame sent was received.
  const auto out = exporter.GetStatistics();
  EXPECT_EQ(out.ends_confirmed, 2U);
  importer.Stop();
  target_consumer.Stop();
  const auto in = importer.GetStatistics();
  // 10 data frames, the heartbeats and the 2 ends of stream.
  EXPECT_EQ(in.frames_received, out.transmitted[0] + out.transmitted[1] + out.markers_sent);
  EXPECT_GE(in.frames_received, 12U);
  EXPECT_EQ(in.wrong_schema, in.frames_received);
  EXPECT_EQ(Total(in.delivered) + Total(in.refused_by_bus), 0U);
  EXPECT_EQ(delivered.load(), 0U);
  EXPECT_EQ(ImporterErrors::Of(BusError::kBridgeSchemaMismatch), in.wrong_schema);
  ASSERT_FALSE(faults.empty());
  EXPECT_EQ(faults.front().fault, mccc::bridge::ImportFault::kWrongSchema);
  EXPECT_EQ(faults.front().expected_schema,
            mccc::bridge::kSchemaFingerprint<bridge_test::OtherPayload>);
  EXPECT_EQ(faults.front().received_schema, mccc::bridge::kSchemaFingerprint<bridge_test::Payload>);
  EXPECT_NE(std::string(mccc::bridge::Describe(faults.front().fault)).find("schema mismatch"),
            std::string::npos);
}

TEST(BridgeInproc, ARestartedExporterIsANewStreamWithNothingLost) {
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints endpoints = UniqueEndpoints("restart");
  auto source = std::make_unique<Bus>();
  auto target = std::make_unique<Bus>();
  ConsumerThread<Bus> target_consumer(*target);
  mccc::bridge::Importer<Bus> importer(*target, context, ImportFrom(endpoints));
  ASSERT_TRUE(importer.Start());
  mccc::bridge::Exporter<Bus> exporter(*source, context, ExportTo(endpoints));
  ConsumerThread<Bus> source_consumer(*source);
  std::vector<uint64_t> streams;
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(exporter.Start());
    streams.push_back(exporter.StreamId());
    for (uint64_t i = 0U; i < 100U; ++i) {
      ASSERT_TRUE(source->Publish(bridge_test::MakeTelemetry(i, 4U), 4U));
    }
    ASSERT_TRUE(WaitFor(
        [&] {
          return Total(exporter.GetStatistics().sent) == 100U * static_cast<uint64_t>(run + 1);
        },
        20000));
    exporter.Stop();
  }
  EXPECT_NE(streams[0], streams[1]);
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().streams_ended == 4U; }, 20000));
  importer.Stop();
  const auto in = importer.GetStatistics();
  EXPECT_EQ(in.delivered[kMedium], 200U);
  // A stream is joined at its first data frame: the HIGH channels carried none (their ends of
  // stream are confirmed all the same).
  EXPECT_EQ(in.streams_joined, 2U);
  EXPECT_EQ(in.streams_ended, 4U);
  EXPECT_EQ(in.lost + in.missed_at_join + in.repeated + in.reordered, 0U);
}

TEST(BridgeInproc, WhatStopCannotSendIsCountedAsDroppedAtStop) {
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints nobody = UniqueEndpoints("nobody");  // no importer ever binds
  auto source = std::make_unique<Bus>();
  // ZeroMQ keeps a message or two (of up to 64 frames each) for a peer that never comes.
  mccc::bridge::ExporterOptions options = ExportTo(nobody);
  options.transport.high_water_mark = 1;
  options.transport.linger_ms = 0;
  options.stop_flush_timeout_ms = 50U;
  options.stop_confirm_timeout_ms = 50U;
  mccc::bridge::Exporter<Bus> exporter(*source, context, options);
  ASSERT_TRUE(exporter.Start());
  ConsumerThread<Bus> source_consumer(*source);
  for (uint64_t i = 0U; i < 500U; ++i) {
    ASSERT_TRUE(source->Publish(bridge_test::MakeTelemetry(i, 5U), 5U));
  }
  source_consumer.Stop();
  exporter.Stop();
  const auto out = exporter.GetStatistics();
  EXPECT_EQ(out.sent[kMedium] + out.refused[kMedium], 500U);
  EXPECT_GT(out.dropped_at_stop, 0U);
  EXPECT_EQ(out.ends_confirmed, 0U);
  EXPECT_EQ(out.ends_unconfirmed, 2U);  // nobody could confirm: the exporter says so
  EXPECT_EQ(Total(out.sent),
            out.transmitted[0] + out.transmitted[1] + out.dropped_at_stop + out.transport_errors);
}

bool NotFromSenderNine(const mccc::MessageHeader& header) {
  return header.sender_id != 9U;
}

TEST(BridgeInproc, FilterAndUnimportedTypesAreCountedNotLost) {
  mccc::bridge::ZmqContext context;
  const ChannelEndpoints endpoints = UniqueEndpoints("filter");
  auto source = std::make_unique<Bus>();
  auto target = std::make_unique<Bus>();
  ConsumerThread<Bus> target_consumer(*target);
  mccc::bridge::Importer<Bus, mccc::bridge::Types<bridge_test::Telemetry>> importer(
      *target, context, ImportFrom(endpoints));
  ASSERT_TRUE(importer.Start());
  mccc::bridge::ExporterOptions options = ExportTo(endpoints);
  options.filter = &NotFromSenderNine;
  mccc::bridge::Exporter<Bus, mccc::bridge::Types<bridge_test::Telemetry, bridge_test::Scan>>
      exporter(*source, context, options);
  ASSERT_TRUE(exporter.Start());
  ConsumerThread<Bus> source_consumer(*source);
  for (uint64_t i = 0U; i < 90U; ++i) {
    ASSERT_TRUE(source->Publish(bridge_test::MakeTelemetry(i, 6U), i % 3U == 0U ? 9U : 6U));
    ASSERT_TRUE(source->Publish(bridge_test::MakeScan(i), 6U));
    ASSERT_TRUE(source->Publish(bridge_test::MakeStop(i), 6U));  // not exported
  }
  source_consumer.Stop();
  exporter.Stop();
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().streams_ended == 2U; }, 20000));
  importer.Stop();
  const auto out = exporter.GetStatistics();
  const auto in = importer.GetStatistics();
  EXPECT_EQ(out.filtered, 30U);
  EXPECT_EQ(out.sent[kMedium], 60U + 90U);
  EXPECT_EQ(in.delivered[kMedium], 60U);
  EXPECT_EQ(in.not_imported, 90U);
  EXPECT_EQ(in.lost + in.missed_at_join, 0U);
}

}  // namespace
