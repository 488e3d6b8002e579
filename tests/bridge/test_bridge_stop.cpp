// SPDX-License-Identifier: MIT
// Stop against an importer that lags behind, over inproc://, ipc:// and tcp://127.0.0.1 in one
// process. The importer's receiver thread is held (inside its bus's error callback) while the
// exporter hands the last frames and its ends of stream to ZeroMQ and stops. ZeroMQ discards
// what is still in an ipc:// connection when its sender closes it while the receiving queue is
// full, so the exporter must not close before the importer confirmed the ends of stream:
//   - released while Stop waits, the importer gets every frame and confirms both ends;
//   - never released in time, Stop gives up after stop_confirm_timeout_ms and counts both ends
//     as unconfirmed (the possible loss is reported on the exporter's side).
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "bridge/bridge_test_support.hpp"
#include "bridge/bridge_test_types.hpp"
#include "bridge/tsan_suppressions.hpp"
#include "mccc/bridge/bridge.hpp"

namespace {

using bridge_test::ConsumerThread;
using bridge_test::WaitFor;
using mccc::BusError;
using mccc::MessagePriority;
using mccc::bridge::Channel;
using mccc::bridge::ChannelEndpoints;

constexpr uint64_t kFrames = 1000U;

/// The importing bus's error callback: holds the importer's receiver thread (which publishes,
/// hence reports the bus's refusals) while the gate is closed.
struct Gate {
  static std::atomic<bool>& Open() {
    static std::atomic<bool> open{false};
    return open;
  }
  static std::atomic<uint64_t>& Held() {
    static std::atomic<uint64_t> held{0U};
    return held;
  }
  static void Callback(BusError error, uint64_t /*msg_id*/) {
    if (error == BusError::kQueueFull && !Open().load()) {
      Held().fetch_add(1U);
      WaitFor([] { return Open().load(); }, 60000);
    }
  }
};

class BridgeStop : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    Gate::Open().store(false);
    Gate::Held().store(0U);
  }

  /// Where the importer binds: a unique inproc:// or abstract ipc:// name, or free tcp ports.
  static ChannelEndpoints ImporterEndpoints(const char* name) {
    static std::atomic<int> counter{0};
    const std::string transport = GetParam();
    if (transport == "tcp") {
      return ChannelEndpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"};
    }
    const std::string base = (transport == "ipc" ? "ipc://@" : "inproc://") +
                             std::string("mccc-bridge-stop-") + std::to_string(getpid()) + "-" +
                             name + "-" + std::to_string(counter.fetch_add(1));
    return ChannelEndpoints::FromBase(base);
  }
};

/// An importer whose receiver thread is held once its bus (no consumer: 256 slots, LOW refused
/// from 154 on) refuses a frame, and an exporter connected to it that has handed `kFrames` LOW
/// frames to ZeroMQ (more than the importer can take while held).
class LaggingLink {
 public:
  LaggingLink(const ChannelEndpoints& endpoints, uint32_t confirm_timeout_ms)
      : source_(std::make_unique<bridge_test::Bus>()),
        target_(std::make_unique<bridge_test::SmallBus>()) {
    target_->SetErrorCallback(&Gate::Callback);
    mccc::bridge::ImporterOptions import_options;
    import_options.endpoints = endpoints;
    import_options.transport.high_water_mark = 16;
    importer_ = std::make_unique<Importer>(*target_, context_, import_options);
    started_ = importer_->Start();
    mccc::bridge::ExporterOptions export_options;
    export_options.endpoints = ChannelEndpoints{importer_->BoundEndpoint(Channel::kHigh),
                                                importer_->BoundEndpoint(Channel::kNormal)};
    export_options.transport.high_water_mark = 2000;
    export_options.heartbeat_interval_ms = 0U;  // markers_sent then counts the ends of stream
    export_options.stop_flush_timeout_ms = 30000U;
    export_options.stop_confirm_timeout_ms = confirm_timeout_ms;
    exporter_ = std::make_unique<Exporter>(*source_, context_, export_options);
    started_ = started_ && exporter_->Start();
    source_consumer_ = std::make_unique<ConsumerThread<bridge_test::Bus>>(*source_);
  }
  ~LaggingLink() {
    Gate::Open().store(true);
    source_consumer_.reset();
    exporter_->Stop();
    importer_->Stop();
  }
  LaggingLink(const LaggingLink&) = delete;
  LaggingLink& operator=(const LaggingLink&) = delete;

  /// Publishes kFrames LOW messages; true once all were handed to ZeroMQ and the importer is
  /// held.
  bool FillWhileHeld() {
    if (!started_) {
      return false;
    }
    for (uint64_t i = 0U; i < kFrames; ++i) {
      if (!source_->PublishWithPriority(bridge_test::MakeTelemetry(i, 8U), 8U,
                                        MessagePriority::kLow)) {
        return false;
      }
    }
    return WaitFor(
        [&] {
          return exporter_->GetStatistics().transmitted[0] == kFrames && Gate::Held().load() != 0U;
        },
        60000);
  }

  mccc::bridge::Exporter<bridge_test::Bus>& exporter() { return *exporter_; }
  mccc::bridge::Importer<bridge_test::SmallBus>& importer() { return *importer_; }

 private:
  using Exporter = mccc::bridge::Exporter<bridge_test::Bus>;
  using Importer = mccc::bridge::Importer<bridge_test::SmallBus>;

  mccc::bridge::ZmqContext context_;
  std::unique_ptr<bridge_test::Bus> source_;
  std::unique_ptr<bridge_test::SmallBus> target_;
  std::unique_ptr<Importer> importer_;
  std::unique_ptr<Exporter> exporter_;
  std::unique_ptr<ConsumerThread<bridge_test::Bus>> source_consumer_;
  bool started_ = false;
};

TEST_P(BridgeStop, StopWaitsForTheLaggingImporterAndNothingIsLost) {
  LaggingLink link(ImporterEndpoints("lagging"), 60000U);
  ASSERT_TRUE(link.FillWhileHeld());
  EXPECT_EQ(link.exporter().GetStatistics().markers_sent, 0U);
  // Released only once Stop has handed both ends of stream to ZeroMQ: from then on, a Stop that
  // closed the link at once would race the importer.
  std::thread releaser([&] {
    WaitFor([&] { return link.exporter().GetStatistics().markers_sent == 2U; }, 60000);
    Gate::Open().store(true);
  });
  link.exporter().Stop();
  releaser.join();

  const auto out = link.exporter().GetStatistics();
  EXPECT_EQ(out.sent[0], kFrames);
  EXPECT_EQ(out.transmitted[0], kFrames);
  EXPECT_EQ(out.dropped_at_stop, 0U);
  EXPECT_EQ(out.ends_confirmed, 2U);
  EXPECT_EQ(out.ends_unconfirmed, 0U);
  // The confirmations were sent after every frame was read: once its receiver thread has
  // ended, the importer's counts say where each frame went.
  link.importer().Stop();
  const auto in = link.importer().GetStatistics();
  EXPECT_EQ(in.streams_ended, 2U);
  EXPECT_EQ(in.ends_confirmed, 2U);
  EXPECT_EQ(in.delivered[0] + in.refused_by_bus[0], kFrames);
  EXPECT_GT(in.refused_by_bus[0], 0U);
  EXPECT_EQ(in.lost + in.missed_at_join + in.corrupted + in.repeated + in.reordered, 0U);
}

TEST_P(BridgeStop, AnEndNotConfirmedInTimeIsCountedByTheExporter) {
  LaggingLink link(ImporterEndpoints("unconfirmed"), 200U);
  ASSERT_TRUE(link.FillWhileHeld());
  const auto before = std::chrono::steady_clock::now();
  link.exporter().Stop();  // the importer stays held: nobody confirms
  const auto waited = std::chrono::steady_clock::now() - before;
  Gate::Open().store(true);

  const auto out = link.exporter().GetStatistics();
  EXPECT_EQ(out.transmitted[0], kFrames);
  EXPECT_EQ(out.markers_sent, 2U);
  EXPECT_EQ(out.ends_confirmed, 0U);
  EXPECT_EQ(out.ends_unconfirmed, 2U);
  EXPECT_GE(waited, std::chrono::milliseconds(200));
}

INSTANTIATE_TEST_SUITE_P(Transports, BridgeStop, ::testing::Values("inproc", "ipc", "tcp"),
                         [](const ::testing::TestParamInfo<const char*>& param_info) {
                           return std::string(param_info.param);
                         });

}  // namespace
