// SPDX-License-Identifier: MIT
// The memory bounds of the ZeroMQ transport against raw ZeroMQ peers over tcp://127.0.0.1 that
// do not play by the rules: a message part larger than allowed (to the importer, and back to an
// exporter), and a message of more parts than an exporter sends. Each case checks the counters
// and that this process's resident memory grew by less than a bound far below what the peer
// sent. A case waits for ZeroMQ to report that the connection was dropped (a socket monitor on
// the peer's side), within a generous time limit; it passes or fails on the counts and the
// memory, never on the time.
#include <gtest/gtest.h>

#include <unistd.h>
#include <zmq.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bridge/bridge_test_support.hpp"
#include "bridge/bridge_test_types.hpp"
#include "bridge/tsan_suppressions.hpp"
#include "mccc/bridge/bridge.hpp"

namespace {

using bridge_test::ConsumerThread;
using bridge_test::WaitFor;
using mccc::bridge::Channel;
using mccc::bridge::ChannelEndpoints;

constexpr std::size_t kMiB = std::size_t{1} << 20U;

/// Under ThreadSanitizer or AddressSanitizer the resident memory also holds the shadow of every
/// byte the transport touched (and ASan's quarantine): the memory bounds are checked in the
/// other builds only; the counts and the dropped connections everywhere.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr bool kResidentMemoryMeasurable = false;
#else
constexpr bool kResidentMemoryMeasurable = true;
#endif

/// This process's resident memory in bytes (/proc/self/statm, second field).
std::size_t ResidentBytes() {
  std::FILE* file = std::fopen("/proc/self/statm", "r");
  if (file == nullptr) {
    return 0U;
  }
  unsigned long size_pages = 0U;
  unsigned long resident_pages = 0U;
  const int read = std::fscanf(file, "%lu %lu", &size_pages, &resident_pages);
  static_cast<void>(std::fclose(file));
  return read == 2 ? static_cast<std::size_t>(resident_pages) *
                         static_cast<std::size_t>(sysconf(_SC_PAGESIZE))
                   : 0U;
}

/// A raw ZeroMQ socket of the test, closed with it, with a monitor that sees disconnections.
class RawPeer {
 public:
  RawPeer(void* context, int type, const std::string& name) : context_(context) {
    socket_ = zmq_socket(context, type);
    const int linger = 0;
    static_cast<void>(zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger)));
    const std::string monitor_endpoint = "inproc://bridge-limits-monitor-" + name;
    static_cast<void>(
        zmq_socket_monitor(socket_, monitor_endpoint.c_str(), ZMQ_EVENT_DISCONNECTED));
    monitor_ = zmq_socket(context, ZMQ_PAIR);
    static_cast<void>(zmq_setsockopt(monitor_, ZMQ_LINGER, &linger, sizeof(linger)));
    static_cast<void>(zmq_connect(monitor_, monitor_endpoint.c_str()));
  }
  ~RawPeer() {
    static_cast<void>(zmq_socket_monitor(socket_, nullptr, 0));
    static_cast<void>(zmq_close(monitor_));
    static_cast<void>(zmq_close(socket_));
  }
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;

  void* socket() const { return socket_; }

  /// Sends `parts` parts of `part_bytes` bytes each as one message (blocking). The bytes are
  /// left as allocated: the sender's own pages of a large part then stay out of the resident
  /// memory (never written), and what grows is what the receiving side keeps.
  bool SendParts(std::size_t parts, std::size_t part_bytes, int first_flags = 0) {
    for (std::size_t i = 0U; i < parts; ++i) {
      zmq_msg_t part;
      if (zmq_msg_init_size(&part, part_bytes) != 0) {
        return false;
      }
      const int more = i + 1U < parts ? ZMQ_SNDMORE : 0;
      if (zmq_msg_send(&part, socket_, (i == 0U ? first_flags : 0) | more) < 0) {
        static_cast<void>(zmq_msg_close(&part));
        return false;
      }
    }
    return true;
  }

  /// True once ZeroMQ reported a disconnection of this socket (waits at most `timeout_ms`).
  bool DisconnectSeen(int timeout_ms) {
    zmq_pollitem_t item{monitor_, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, timeout_ms) <= 0) {
      return false;
    }
    zmq_msg_t event;
    zmq_msg_init(&event);
    const bool got = zmq_msg_recv(&event, monitor_, 0) >= 0;
    static_cast<void>(zmq_msg_close(&event));
    while (got) {  // the address part of the event
      zmq_msg_t address;
      zmq_msg_init(&address);
      const int rc = zmq_msg_recv(&address, monitor_, ZMQ_DONTWAIT);
      const bool more = rc >= 0 && zmq_msg_more(&address) != 0;
      static_cast<void>(zmq_msg_close(&address));
      if (!more) {
        break;
      }
    }
    return got;
  }

 private:
  void* context_;
  void* socket_ = nullptr;
  void* monitor_ = nullptr;
};

TEST(BridgeLimits, AnExporterDropsAPeerThatSendsMoreThanAConfirmationBack) {
  mccc::bridge::ZmqContext context;
  RawPeer fake_importer(context.Native(), ZMQ_ROUTER, "fake-importer");
  ASSERT_EQ(zmq_bind(fake_importer.socket(), "tcp://127.0.0.1:*"), 0);
  std::array<char, 256> endpoint{};
  std::size_t endpoint_size = endpoint.size();
  ASSERT_EQ(
      zmq_getsockopt(fake_importer.socket(), ZMQ_LAST_ENDPOINT, endpoint.data(), &endpoint_size),
      0);

  auto bus = std::make_unique<bridge_test::Bus>();
  ConsumerThread<bridge_test::Bus> consumer(*bus);
  mccc::bridge::ExporterOptions options;
  options.endpoints = ChannelEndpoints{endpoint.data(), endpoint.data()};
  options.heartbeat_interval_ms = 10U;
  options.stop_flush_timeout_ms = 100U;
  options.stop_confirm_timeout_ms = 100U;
  mccc::bridge::Exporter<bridge_test::Bus> exporter(*bus, context, options);
  ASSERT_TRUE(exporter.Start());

  // The exporter's heartbeat gives the fake importer its routing id.
  zmq_msg_t identity;
  zmq_msg_init(&identity);
  ASSERT_GE(zmq_msg_recv(&identity, fake_importer.socket(), 0), 0);
  const std::string peer(static_cast<const char*>(zmq_msg_data(&identity)),
                         zmq_msg_size(&identity));
  static_cast<void>(zmq_msg_close(&identity));

  const std::size_t before = ResidentBytes();
  constexpr std::size_t kSent = 4U;
  for (std::size_t i = 0U; i < kSent; ++i) {  // 4 replies of 16 MB each
    ASSERT_GE(zmq_send(fake_importer.socket(), peer.data(), peer.size(), ZMQ_SNDMORE), 0);
    ASSERT_TRUE(fake_importer.SendParts(1U, 16U * kMiB));
  }
  const bool dropped = fake_importer.DisconnectSeen(30000);
  const std::size_t grown = ResidentBytes() - std::min(before, ResidentBytes());
  EXPECT_TRUE(dropped) << "the exporter kept the connection of a peer sending 16 MB replies";
  if (kResidentMemoryMeasurable) {
    EXPECT_LT(grown, 8U * kMiB) << "the exporter took the replies into its memory";
  }
  exporter.Stop();
  EXPECT_EQ(exporter.GetStatistics().ends_confirmed, 0U);
}

/// An importer bound to tcp://127.0.0.1 with small limits, and the endpoint of its normal channel.
class LimitedImporter {
 public:
  explicit LimitedImporter(mccc::bridge::ZmqContext& context)
      : bus_(std::make_unique<bridge_test::Bus>()), consumer_(*bus_) {
    mccc::bridge::ImporterOptions options;
    options.endpoints = ChannelEndpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"};
    options.transport.max_frame_bytes = 64 * 1024;
    options.transport.high_water_mark = 16;
    importer_ = std::make_unique<mccc::bridge::Importer<bridge_test::Bus>>(*bus_, context, options);
    started_ = importer_->Start();
  }
  bool started() const { return started_; }
  mccc::bridge::Importer<bridge_test::Bus>& importer() { return *importer_; }
  std::string Normal() const { return importer_->BoundEndpoint(Channel::kNormal); }

 private:
  std::unique_ptr<bridge_test::Bus> bus_;
  ConsumerThread<bridge_test::Bus> consumer_;
  std::unique_ptr<mccc::bridge::Importer<bridge_test::Bus>> importer_;
  bool started_ = false;
};

TEST(BridgeLimits, AnImporterDropsAPeerThatSendsAPartLargerThanMaxFrameBytes) {
  mccc::bridge::ZmqContext context;
  LimitedImporter limited(context);
  ASSERT_TRUE(limited.started());
  RawPeer peer(context.Native(), ZMQ_DEALER, "oversized");
  ASSERT_EQ(zmq_connect(peer.socket(), limited.Normal().c_str()), 0);
  const std::size_t before = ResidentBytes();
  ASSERT_TRUE(peer.SendParts(1U, 16U * kMiB));
  const bool dropped = peer.DisconnectSeen(30000);
  const std::size_t grown = ResidentBytes() - std::min(before, ResidentBytes());
  EXPECT_TRUE(dropped);
  if (kResidentMemoryMeasurable) {
    EXPECT_LT(grown, 8U * kMiB);
  }
  limited.importer().Stop();
  EXPECT_EQ(limited.importer().GetStatistics().messages_received, 0U);
}

/// Holds the importer's receiver thread inside the fault handler until released: what the peer
/// sends meanwhile can only queue in the transport.
struct HeldReceiver {
  std::atomic<bool> release{false};
  std::atomic<uint64_t> held{0U};
  static void Handler(const mccc::bridge::FaultReport& /*report*/, void* context) {
    auto* self = static_cast<HeldReceiver*>(context);
    self->held.fetch_add(1U);
    WaitFor([self] { return self->release.load(); }, 60000);
  }
};

TEST(BridgeLimits, WhatQueuesForAHeldImporterIsBoundedByItsHighWaterMark) {
  mccc::bridge::ZmqContext context;
  auto bus = std::make_unique<bridge_test::Bus>();
  ConsumerThread<bridge_test::Bus> consumer(*bus);
  HeldReceiver held;
  mccc::bridge::ImporterOptions options;
  options.endpoints = ChannelEndpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"};
  options.transport.max_frame_bytes = 64 * 1024;
  options.transport.high_water_mark = 16;
  options.fault_handler = &HeldReceiver::Handler;
  options.fault_context = &held;
  mccc::bridge::Importer<bridge_test::Bus> importer(*bus, context, options);
  ASSERT_TRUE(importer.Start());
  RawPeer peer(context.Native(), ZMQ_DEALER, "flood");
  const int send_hwm = 16;  // the peer's own queue is in this process too: keep it small
  ASSERT_EQ(zmq_setsockopt(peer.socket(), ZMQ_SNDHWM, &send_hwm, sizeof(send_hwm)), 0);
  ASSERT_EQ(zmq_connect(peer.socket(), importer.BoundEndpoint(Channel::kNormal).c_str()), 0);
  ASSERT_TRUE(peer.SendParts(1U, 8U));  // not a frame: the fault holds the receiver thread
  ASSERT_TRUE(WaitFor([&] { return held.held.load() == 1U; }, 60000));

  const std::size_t before = ResidentBytes();
  // 1,000 messages of 60 KiB (60 MiB) offered without blocking: the rest is refused at the
  // peer's high-water mark once both queues and the kernel's buffers are full.
  uint64_t taken = 0U;
  std::vector<uint8_t> part(60U * 1024U, 0x5AU);
  for (int i = 0; i < 1000; ++i) {
    if (zmq_send(peer.socket(), part.data(), part.size(), ZMQ_DONTWAIT) >= 0) {
      ++taken;
    }
  }
  const std::size_t grown = ResidentBytes() - std::min(before, ResidentBytes());
  // The importer's queue (16 x 64 KiB), the peer's (16 x 60 KiB), the kernel's socket buffers
  // (not in this process's resident memory) and allocator slack: far below the 60 MiB offered.
  if (kResidentMemoryMeasurable) {
    EXPECT_LT(grown, 16U * kMiB);
  }
  EXPECT_LT(taken, 1000U);
  held.release.store(true);
  ASSERT_TRUE(
      WaitFor([&] { return importer.GetStatistics().messages_received == taken + 1U; }, 60000));
  importer.Stop();
  EXPECT_EQ(importer.GetStatistics().corrupted, taken + 1U);  // 60 KiB of 0x5A: no frame
}

TEST(BridgeLimits, AMessageOfMorePartsThanAnExporterSendsIsDroppedAndCounted) {
  mccc::bridge::ZmqContext context;
  LimitedImporter limited(context);
  ASSERT_TRUE(limited.started());
  RawPeer peer(context.Native(), ZMQ_DEALER, "multipart");
  ASSERT_EQ(zmq_connect(peer.socket(), limited.Normal().c_str()), 0);
  constexpr uint64_t kMessages = 5U;
  for (uint64_t i = 0U; i < kMessages; ++i) {  // 300 parts each: the number is what is refused
    ASSERT_TRUE(peer.SendParts(300U, 64U));
  }
  ASSERT_TRUE(WaitFor(
      [&] { return limited.importer().GetStatistics().refused_messages == kMessages; }, 60000))
      << "messages " << limited.importer().GetStatistics().messages_received << ", refused "
      << limited.importer().GetStatistics().refused_messages << ", corrupted "
      << limited.importer().GetStatistics().corrupted;
  limited.importer().Stop();
  const auto in = limited.importer().GetStatistics();
  EXPECT_EQ(in.messages_received, kMessages);
  EXPECT_EQ(in.frames_received, 0U);
  EXPECT_EQ(in.corrupted, 0U);
}

}  // namespace
