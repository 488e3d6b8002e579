// SPDX-License-Identifier: MIT
// A peer that does not play by the rules, fed through the scripted transport (no ZeroMQ): crafted
// frames, a channel that never runs dry, replies that never confirm. Each case checks what the
// importer or exporter counted and delivered; none waits for time to pass except to bound a
// Stop that must return within its documented deadline.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <variant>

#include "bridge/bridge_test_support.hpp"
#include "bridge/bridge_test_types.hpp"
#include "bridge/scripted_transport.hpp"
#include "mccc/bridge/bridge.hpp"

namespace hostile {

enum class Mode : uint8_t { kIdle = 0U, kRun = 1U };
/// No padding, but a bool and an enum: its fields are declared, so that both are checked.
struct Flags {
  bool armed;
  Mode mode;
  uint8_t spare[2];
};
using FlagsPayload = std::variant<bridge_test::Telemetry, Flags>;
using FlagsBus = mccc::AsyncBus<FlagsPayload, bridge_test::BusTraits>;

}  // namespace hostile

MCCC_BRIDGE_ENUM_RANGE(hostile::Mode, hostile::Mode::kIdle, hostile::Mode::kRun);
MCCC_BRIDGE_FIELDS(hostile::Flags, armed, mode, spare);

namespace {

using bridge_test::Bytes;
using bridge_test::ConsumerThread;
using bridge_test::MakeFrame;
using bridge_test::ScriptedBridgeTraits;
using bridge_test::ScriptedTransport;
using bridge_test::WaitFor;
using mccc::bridge::Channel;
using mccc::bridge::FrameHeader;
using Clock = std::chrono::steady_clock;

using Importer =
    mccc::bridge::BasicImporter<bridge_test::Bus, mccc::bridge::AllTypes, ScriptedBridgeTraits>;
using Exporter =
    mccc::bridge::BasicExporter<bridge_test::Bus, mccc::bridge::AllTypes, ScriptedBridgeTraits>;

constexpr uint64_t kSchema = Importer::kSchema;
/// Slack over a documented Stop deadline, in milliseconds: a sanitizer build on a loaded machine
/// is slow, but a Stop that waits for the peer waits far longer (the peer below gives up only
/// after kPeerGivesUpMs).
constexpr int64_t kSlackMs = 5000;
constexpr int kPeerGivesUpMs = 20000;

int64_t MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

/// A header of the test stream `stream` with the schema of the tests' payload.
FrameHeader HeaderOf(uint64_t stream, uint64_t sequence, uint16_t type, uint8_t priority) {
  FrameHeader header;
  header.priority = priority;
  header.type = type;
  header.schema = kSchema;
  header.stream_id = stream;
  header.sequence = sequence;
  return header;
}

/// A Telemetry data frame (variant index 0) of `stream` on the normal channel.
Bytes TelemetryFrame(uint64_t stream, uint64_t sequence, uint64_t index) {
  const bridge_test::Telemetry value = bridge_test::MakeTelemetry(index, 3U);
  Bytes payload(sizeof(value));
  std::memcpy(payload.data(), &value, sizeof(value));
  return MakeFrame(HeaderOf(stream, sequence, 0U, 1U), payload);
}

/// An EmergencyStop data frame (variant index 1, HIGH) of `stream`.
Bytes StopFrame(uint64_t stream, uint64_t sequence, uint64_t index) {
  const bridge_test::EmergencyStop value = bridge_test::MakeStop(index);
  Bytes payload(sizeof(value));
  std::memcpy(payload.data(), &value, sizeof(value));
  return MakeFrame(HeaderOf(stream, sequence, 1U, 2U), payload);
}

/// Ends `flood` once `done` is set, or after kPeerGivesUpMs: a peer that would hold a broken Stop
/// forever lets it return late, so the test fails instead of hanging.
class PatientPeer {
 public:
  template <typename EndFlood>
  explicit PatientPeer(EndFlood end_flood)
      : thread_([this, end_flood]() {
          WaitFor([this] { return done_.load(); }, kPeerGivesUpMs);
          end_flood();
        }) {}
  ~PatientPeer() {
    done_.store(true);
    thread_.join();
  }
  PatientPeer(const PatientPeer&) = delete;
  PatientPeer& operator=(const PatientPeer&) = delete;

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// ---- Stop whatever the peer does ----------------------------------------------------------------

TEST(BridgeHostileStop, ImporterStopReturnsWhileThePeerKeepsTheHighChannelBusy) {
  auto bus = std::make_unique<bridge_test::Bus>();
  ConsumerThread<bridge_test::Bus> consumer(*bus);
  ScriptedTransport::Context wire;
  Importer importer(*bus, wire, mccc::bridge::ImporterOptions{});
  ASSERT_TRUE(importer.Start());
  wire.Flood(Channel::kHigh, StopFrame(0x51U, 0U, 1U));  // the same HIGH frame, without end
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().messages_received > 1000U; }, 60000));

  PatientPeer peer([&wire] { wire.EndFlood(Channel::kHigh); });
  const Clock::time_point before = Clock::now();
  importer.Stop();
  EXPECT_LT(MillisecondsSince(before), kSlackMs) << "Stop waited for the peer to stop sending";
  const auto in = importer.GetStatistics();
  EXPECT_EQ(in.delivered[2], 1U);
  EXPECT_EQ(in.repeated, in.messages_received - 1U);
}

TEST(BridgeHostileStop, ExporterStopKeepsItsDeadlineWhileThePeerRepliesWithoutConfirming) {
  auto bus = std::make_unique<bridge_test::Bus>();
  ConsumerThread<bridge_test::Bus> consumer(*bus);
  ScriptedTransport::Context wire;
  mccc::bridge::ExporterOptions options;
  options.stop_flush_timeout_ms = 100U;
  options.stop_confirm_timeout_ms = 500U;
  Exporter exporter(*bus, wire, options);
  ASSERT_TRUE(exporter.Start());
  // Well-formed frames, but never the confirmation of this exporter's end of stream.
  wire.ReplyForever(MakeFrame(HeaderOf(0x52U, 0U, mccc::bridge::kHeartbeatType, 1U)));

  PatientPeer peer([&wire] { wire.EndReplies(); });
  const Clock::time_point before = Clock::now();
  exporter.Stop();
  EXPECT_LT(MillisecondsSince(before), 600 + kSlackMs)
      << "Stop waited for the peer to stop replying";
  const auto out = exporter.GetStatistics();
  EXPECT_EQ(out.ends_confirmed, 0U);
  EXPECT_EQ(out.ends_unconfirmed, 2U);
}

// ---- the receiver window against crafted sequence numbers and stream ids ------------------------

/// An importer on the scripted wire with a bus that counts the Telemetry it delivers by index.
class ImportRig {
 public:
  explicit ImportRig(mccc::bridge::SequenceLimits limits = {})
      : bus_(std::make_unique<bridge_test::Bus>()) {
    bus_->Subscribe<bridge_test::Telemetry>(
        [this](const bridge_test::Telemetry& t, const mccc::MessageHeader& /*header*/) {
          delivered_[static_cast<std::size_t>(t.index % kIndices)].fetch_add(1U);
        });
    consumer_ = std::make_unique<ConsumerThread<bridge_test::Bus>>(*bus_);
    mccc::bridge::ImporterOptions options;
    options.sequence = limits;
    importer_ = std::make_unique<Importer>(*bus_, wire_, options);
    started_ = importer_->Start();
  }
  ~ImportRig() {
    importer_->Stop();
    consumer_->Stop();
  }
  ImportRig(const ImportRig&) = delete;
  ImportRig& operator=(const ImportRig&) = delete;

  bool Started() const { return started_; }
  /// Stops the importer once it took everything pushed, and starts it again.
  bool Restart() {
    const bool taken = WaitFor(
        [this] { return importer_->GetStatistics().messages_received == wire_.Pushed(); }, 60000);
    importer_->Stop();
    started_ = importer_->Start();
    return taken && started_;
  }
  void Push(Bytes message) { wire_.Push(Channel::kNormal, std::move(message)); }
  /// Waits until the importer took everything pushed, then stops it and drains the bus: the
  /// counts are final.
  bool Finish() {
    const bool taken = WaitFor(
        [this] { return importer_->GetStatistics().messages_received == wire_.Pushed(); }, 60000);
    importer_->Stop();
    consumer_->Stop();
    return taken;
  }
  uint64_t DeliveredIndex(uint64_t index) const {
    return delivered_[static_cast<std::size_t>(index % kIndices)].load();
  }
  mccc::bridge::ImporterStatistics Statistics() const { return importer_->GetStatistics(); }
  ScriptedTransport::Context& wire() { return wire_; }

 private:
  static constexpr uint64_t kIndices = 4096U;

  ScriptedTransport::Context wire_;
  std::unique_ptr<bridge_test::Bus> bus_;
  std::array<std::atomic<uint64_t>, kIndices> delivered_{};
  std::unique_ptr<ConsumerThread<bridge_test::Bus>> consumer_;
  std::unique_ptr<Importer> importer_;
  bool started_ = false;
};

Bytes Heartbeat(uint64_t stream, uint64_t next) {
  return MakeFrame(HeaderOf(stream, next, mccc::bridge::kHeartbeatType, 1U));
}
Bytes EndOfStream(uint64_t stream, uint64_t next) {
  return MakeFrame(HeaderOf(stream, next, mccc::bridge::kEndOfStreamType, 1U));
}

TEST(BridgeHostileWindow, AFrameNumberedTheLastPossibleIsOutOfWindowAndAReplayStaysRepeated) {
  ImportRig rig;
  ASSERT_TRUE(rig.Started());
  for (uint64_t n = 0U; n < 10U; ++n) {
    rig.Push(TelemetryFrame(0xC0U, n, 100U + n));
  }
  rig.Push(TelemetryFrame(0xC0U, ~uint64_t{0}, 110U));
  rig.Push(TelemetryFrame(0xC0U, 5U, 105U));   // a replay of a delivered frame
  rig.Push(TelemetryFrame(0xC0U, 10U, 111U));  // the genuine next one
  ASSERT_TRUE(rig.Finish());
  EXPECT_EQ(rig.DeliveredIndex(105U), 1U);
  EXPECT_EQ(rig.DeliveredIndex(110U), 0U);
  EXPECT_EQ(rig.DeliveredIndex(111U), 1U);
  const auto in = rig.Statistics();
  EXPECT_EQ(in.out_of_window, 1U);
  EXPECT_EQ(in.repeated, 1U);
  EXPECT_EQ(in.lost, 0U);
  EXPECT_EQ(in.delivered[1], 11U);
}

TEST(BridgeHostileWindow, AHeartbeatAnnouncingAHugeNumberLeavesLaterGenuineFramesAccepted) {
  ImportRig rig;
  ASSERT_TRUE(rig.Started());
  for (uint64_t n = 0U; n < 3U; ++n) {
    rig.Push(TelemetryFrame(0xD0U, n, 200U + n));
  }
  rig.Push(Heartbeat(0xD0U, uint64_t{1} << 63U));
  for (uint64_t n = 3U; n < 13U; ++n) {
    rig.Push(TelemetryFrame(0xD0U, n, 200U + n));
  }
  ASSERT_TRUE(rig.Finish());
  const auto in = rig.Statistics();
  EXPECT_EQ(in.delivered[1], 13U);
  EXPECT_EQ(in.out_of_window, 1U);
  EXPECT_EQ(in.lost, 0U);
  EXPECT_EQ(in.reordered, 0U);
  EXPECT_EQ(in.markers_received, 0U);
}

TEST(BridgeHostileWindow, AJumpBeyondMaxDeltaIsResynchronisedOnlyAfterFramesInARowAndCounted) {
  mccc::bridge::SequenceLimits limits;
  limits.max_delta = 100U;
  limits.resync_frames = 3U;
  ImportRig rig(limits);
  ASSERT_TRUE(rig.Started());
  rig.Push(TelemetryFrame(0xE0U, 0U, 300U));
  rig.Push(TelemetryFrame(0xE0U, 1000U, 301U));  // a stray jump, then the stream goes on
  rig.Push(TelemetryFrame(0xE0U, 1U, 302U));
  for (uint64_t n = 5000U; n < 5004U; ++n) {  // a genuine loss larger than the window
    rig.Push(TelemetryFrame(0xE0U, n, 303U + (n - 5000U)));
  }
  ASSERT_TRUE(rig.Finish());
  const auto in = rig.Statistics();
  EXPECT_EQ(rig.DeliveredIndex(301U), 0U);
  EXPECT_EQ(rig.DeliveredIndex(303U) + rig.DeliveredIndex(304U), 0U);  // the run before resync
  EXPECT_EQ(rig.DeliveredIndex(305U) + rig.DeliveredIndex(306U), 2U);
  EXPECT_EQ(in.delivered[1], 4U);
  EXPECT_EQ(in.out_of_window, 3U);
  EXPECT_EQ(in.resynchronised, 1U);
  EXPECT_EQ(in.skipped_at_resync, 5002U - 2U);
  EXPECT_EQ(in.lost, 0U);
  // Next expected 5004 = accepted 4 + skipped 5000 (+ lost 0, missed at join 0).
  EXPECT_EQ(in.delivered[1] + in.lost + in.missed_at_join + in.skipped_at_resync, 5004U);
}

TEST(BridgeHostileWindow, ACopyArrivingAfterTheEndOfItsStreamIsRefused) {
  ImportRig rig;
  ASSERT_TRUE(rig.Started());
  for (uint64_t n = 0U; n < 3U; ++n) {
    rig.Push(TelemetryFrame(0xA0U, n, 400U + n));
  }
  rig.Push(EndOfStream(0xA0U, 3U));
  rig.Push(TelemetryFrame(0xA0U, 1U, 401U));  // e.g. from a proxy that repeats
  rig.Push(TelemetryFrame(0xA0U, 3U, 403U));  // or a broken peer that goes on
  ASSERT_TRUE(rig.Finish());
  EXPECT_EQ(rig.DeliveredIndex(401U), 1U);
  EXPECT_EQ(rig.DeliveredIndex(403U), 0U);
  const auto in = rig.Statistics();
  EXPECT_EQ(in.after_end, 2U);
  EXPECT_EQ(in.streams_ended, 1U);
  EXPECT_EQ(in.ends_confirmed, 1U);
}

TEST(BridgeHostileWindow, InventedStreamIdsInHeartbeatsCannotEvictALiveStream) {
  ImportRig rig;
  ASSERT_TRUE(rig.Started());
  for (uint64_t n = 0U; n < 6U; ++n) {
    rig.Push(TelemetryFrame(0xB0U, n, 500U + n));
  }
  for (uint64_t id = 0U; id < 1000U; ++id) {  // any peer can send these
    rig.Push(Heartbeat(0xB000U + id, 0U));
  }
  rig.Push(TelemetryFrame(0xB0U, 3U, 503U));  // a repeat
  rig.Push(TelemetryFrame(0xB0U, 9U, 509U));  // and a real gap of 6..8
  ASSERT_TRUE(rig.Finish());
  EXPECT_EQ(rig.DeliveredIndex(503U), 1U);
  const auto in = rig.Statistics();
  EXPECT_EQ(in.repeated, 1U);
  EXPECT_EQ(in.lost, 3U);
  EXPECT_EQ(in.streams_joined, 1U);
  EXPECT_EQ(in.streams_evicted, 0U);
}

TEST(BridgeHostileWindow, InventedStreamIdsInDataFramesChurnAmongThemselves) {
  ImportRig rig;
  ASSERT_TRUE(rig.Started());
  constexpr uint64_t kLive = 20U;  // more live streams than exporters x channels of old
  for (uint64_t n = 0U; n < 2U; ++n) {
    for (uint64_t s = 0U; s < kLive; ++s) {
      rig.Push(TelemetryFrame(0x100U + s, n, 600U + 2U * s + n));
    }
  }
  for (uint64_t id = 0U; id < 500U; ++id) {
    rig.Push(TelemetryFrame(0xF000U + id, 0U, 1000U + id));
  }
  for (uint64_t s = 0U; s < kLive; ++s) {
    rig.Push(TelemetryFrame(0x100U + s, 1U, 600U + 2U * s + 1U));  // a repeat of each
  }
  ASSERT_TRUE(rig.Finish());
  for (uint64_t s = 0U; s < kLive; ++s) {
    EXPECT_EQ(rig.DeliveredIndex(600U + 2U * s + 1U), 1U) << s;
  }
  const auto in = rig.Statistics();
  EXPECT_EQ(in.repeated, kLive);
  EXPECT_EQ(in.streams_restored, 0U);
}

TEST(BridgeHostileWindow, AnEvictedStreamStillRefusesRepeatsAndIsFollowedOnWhenItComesBack) {
  ImportRig rig;
  ASSERT_TRUE(rig.Started());
  const std::size_t streams = ScriptedBridgeTraits::kMaxStreams + 1U;
  for (uint64_t s = 0U; s < streams; ++s) {  // the first one is evicted by the last
    for (uint64_t n = 0U; n < 2U; ++n) {
      rig.Push(TelemetryFrame(0x200U + s, n, 700U + 2U * s + n));
    }
  }
  rig.Push(TelemetryFrame(0x200U, 1U, 701U));  // a repeat of the evicted stream
  rig.Push(TelemetryFrame(0x200U, 2U, 699U));  // and its next frame: the second goes
  ASSERT_TRUE(rig.Finish());
  EXPECT_EQ(rig.DeliveredIndex(701U), 1U);
  EXPECT_EQ(rig.DeliveredIndex(699U), 1U);
  const auto in = rig.Statistics();
  EXPECT_EQ(in.streams_evicted, 2U);
  EXPECT_EQ(in.streams_restored, 1U);
  EXPECT_EQ(in.repeated, 1U);
  EXPECT_EQ(in.lost + in.missed_at_join, 0U);
}

// ---- the two suspicions of the review, settled
// ---------------------------------------------------

TEST(BridgeHostileSuspicion, ARestartedImporterCountsTheGapAsLostNotTheWholeStreamAsMissed) {
  ImportRig rig;
  ASSERT_TRUE(rig.Started());
  for (uint64_t n = 0U; n < 10U; ++n) {
    rig.Push(TelemetryFrame(0x70U, n, 800U + n));
  }
  ASSERT_TRUE(rig.Restart());
  // Frames 10..14 were sent while the importer was stopped; 3 is a late copy.
  for (uint64_t n = 15U; n < 20U; ++n) {
    rig.Push(TelemetryFrame(0x70U, n, 800U + n));
  }
  rig.Push(TelemetryFrame(0x70U, 3U, 803U));
  ASSERT_TRUE(rig.Finish());
  const auto in = rig.Statistics();
  EXPECT_EQ(in.delivered[1], 15U);
  EXPECT_EQ(rig.DeliveredIndex(803U), 1U);
  EXPECT_EQ(in.lost, 5U);
  EXPECT_EQ(in.missed_at_join, 0U);
  EXPECT_EQ(in.repeated, 1U);
  EXPECT_EQ(in.streams_joined, 1U);
  // The per-stream identity across the restart: next expected 20 = accepted + lost + missed.
  EXPECT_EQ(in.delivered[1] + in.lost + in.missed_at_join, 20U);
}

TEST(BridgeHostileSuspicion, AMalformedLoanedPayloadIsMalformedEvenWhenThePoolRefuses) {
  using LoanImporter = mccc::bridge::BasicImporter<bridge_test::TinyPoolBus, mccc::bridge::AllTypes,
                                                   ScriptedBridgeTraits>;
  // No consumer: the blocks the importer takes stay taken, so the pool of 4 admits 3 MEDIUM.
  auto bus = std::make_unique<bridge_test::TinyPoolBus>();
  ScriptedTransport::Context wire;
  LoanImporter importer(*bus, wire, mccc::bridge::ImporterOptions{});
  ASSERT_TRUE(importer.Start());
  auto cloud = std::make_unique<bridge_test::Cloud>();
  Bytes payload(mccc::bridge::Codec<bridge_test::Cloud>::EncodedSize(*cloud));
  auto frame_of = [&](uint64_t sequence, const Bytes& bytes) {
    FrameHeader header = HeaderOf(0x71U, sequence, 1U, 1U);  // Loaned<Cloud>, MEDIUM
    header.schema = LoanImporter::kSchema;
    return MakeFrame(header, bytes);
  };
  for (uint64_t n = 0U; n < 4U; ++n) {
    bridge_test::FillCloud(*cloud, n);
    mccc::bridge::Codec<bridge_test::Cloud>::Encode(*cloud, payload.data());
    if (n == 3U) {
      wire.Push(Channel::kNormal, frame_of(n, Bytes(payload.begin(), payload.begin() + 10)));
    }
    wire.Push(Channel::kNormal, frame_of(n, payload));
  }
  ASSERT_TRUE(
      WaitFor([&] { return importer.GetStatistics().messages_received == wire.Pushed(); }, 60000));
  importer.Stop();
  const auto in = importer.GetStatistics();
  EXPECT_EQ(in.delivered[1], 3U);
  EXPECT_EQ(in.malformed, 1U);          // the truncated copy of frame 3
  EXPECT_EQ(in.refused_by_bus[1], 1U);  // the genuine frame 3, refused by the pool
  EXPECT_EQ(in.repeated, 0U);           // not shadowed by the truncated copy
  EXPECT_EQ(in.lost + in.missed_at_join, 0U);
}

// ---- no invalid object built from wire bytes
// -------------------------------------------------------

TEST(BridgeHostileCodec, ABoolByteOtherThan0Or1AndAnUnknownEnumValueAreMalformed) {
  using FlagsImporter =
      mccc::bridge::BasicImporter<hostile::FlagsBus, mccc::bridge::AllTypes, ScriptedBridgeTraits>;
  auto bus = std::make_unique<hostile::FlagsBus>();
  std::atomic<uint64_t> seen{0U};
  std::atomic<uint64_t> armed{0U};
  bus->Subscribe<hostile::Flags>([&](const hostile::Flags& flags, const mccc::MessageHeader&) {
    seen.fetch_add(1U);
    if (flags.armed) {  // a subscriber branches on its fields, as any would
      armed.fetch_add(1U);
    }
  });
  ConsumerThread<hostile::FlagsBus> consumer(*bus);
  ScriptedTransport::Context wire;
  FlagsImporter importer(*bus, wire, mccc::bridge::ImporterOptions{});
  ASSERT_TRUE(importer.Start());
  FrameHeader header = HeaderOf(0x60U, 0U, 1U, 1U);
  header.schema = FlagsImporter::kSchema;
  wire.Push(Channel::kNormal, MakeFrame(header, Bytes{0x02U, 0x01U, 0x00U, 0x00U}));  // bool 2
  header.sequence = 1U;
  wire.Push(Channel::kNormal, MakeFrame(header, Bytes{0x01U, 0x07U, 0x00U, 0x00U}));  // mode 7
  header.sequence = 2U;
  wire.Push(Channel::kNormal, MakeFrame(header, Bytes{0x01U, 0x01U, 0x00U, 0x00U}));  // valid
  ASSERT_TRUE(
      WaitFor([&] { return importer.GetStatistics().messages_received == wire.Pushed(); }, 60000));
  importer.Stop();
  consumer.Stop();
  const auto in = importer.GetStatistics();
  EXPECT_EQ(in.malformed, 2U);
  EXPECT_EQ(in.delivered[1], 1U);
  EXPECT_EQ(seen.load(), 1U);
  EXPECT_EQ(armed.load(), 1U);
}

}  // namespace
