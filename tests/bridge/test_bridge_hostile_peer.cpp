// SPDX-License-Identifier: MIT
// A peer that does not play by the rules, fed through the scripted transport (no ZeroMQ): crafted
// frames, a channel that never runs dry, replies that never confirm. Each case checks what the
// importer or exporter counted and delivered; none waits for time to pass except to bound a
// Stop that must return within its documented deadline.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>

#include "bridge/bridge_test_support.hpp"
#include "bridge/bridge_test_types.hpp"
#include "bridge/scripted_transport.hpp"
#include "mccc/bridge/bridge.hpp"

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

}  // namespace
