// SPDX-License-Identifier: MIT
// CURVE over tcp://127.0.0.1: an importer that allows one client key takes the messages of the
// exporter that holds it, and refuses (and counts) an exporter with another key and one without
// CURVE. Each case waits for counts to be reached within a generous limit; none depends on time.
#include <gtest/gtest.h>

#include <zmq.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "bridge/bridge_test_support.hpp"
#include "bridge/bridge_test_types.hpp"
#include "bridge/tsan_suppressions.hpp"
#include "mccc/bridge/bridge.hpp"

namespace {

using bridge_test::ConsumerThread;
using bridge_test::WaitFor;
using mccc::bridge::Channel;
using mccc::bridge::ChannelEndpoints;
using mccc::bridge::LinkSecurity;
using mccc::bridge::ZmqTransport;

constexpr uint64_t kMessages = 100U;
constexpr uint32_t kAllowedSource = 1U;
constexpr uint32_t kIntruderSource = 2U;
constexpr uint32_t kPlainSource = 3U;

struct KeyPair {
  std::string public_key;
  std::string secret_key;
};

KeyPair NewKeys() {
  KeyPair keys;
  EXPECT_TRUE(ZmqTransport::NewCurveKeyPair(keys.public_key, keys.secret_key));
  return keys;
}

/// Counts the Telemetry an importing bus delivers, per source.
struct Received {
  std::array<std::atomic<uint64_t>, 4> by_source{};
};

/// A bus publishing `kMessages` Telemetry of `source` through an exporter towards `endpoints`.
class Sender {
 public:
  Sender(mccc::bridge::ZmqContext& context, const ChannelEndpoints& endpoints,
         const LinkSecurity& security)
      : bus_(std::make_unique<bridge_test::Bus>()), consumer_(*bus_) {
    mccc::bridge::ExporterOptions options;
    options.endpoints = endpoints;
    options.transport.security = security;
    options.stop_flush_timeout_ms = 200U;
    options.stop_confirm_timeout_ms = 200U;
    exporter_ = std::make_unique<mccc::bridge::Exporter<bridge_test::Bus>>(*bus_, context, options);
  }
  bool Start() { return exporter_->Start(); }
  bool Publish(uint32_t source) {
    for (uint64_t i = 0U; i < kMessages; ++i) {
      if (!bus_->Publish(bridge_test::MakeTelemetry(i, source), source)) {
        return false;
      }
    }
    return true;
  }
  mccc::bridge::Exporter<bridge_test::Bus>& exporter() { return *exporter_; }
  void Stop() { exporter_->Stop(); }

 private:
  std::unique_ptr<bridge_test::Bus> bus_;
  ConsumerThread<bridge_test::Bus> consumer_;
  std::unique_ptr<mccc::bridge::Exporter<bridge_test::Bus>> exporter_;
};

TEST(BridgeSecurity, OnlyAnAllowedClientKeyGetsMessagesInAndEveryOtherIsRefused) {
  ASSERT_NE(zmq_has("curve"), 0) << "this libzmq has no CURVE";
  const KeyPair server = NewKeys();
  const KeyPair allowed = NewKeys();
  const KeyPair intruder = NewKeys();

  mccc::bridge::ZmqContext context;
  auto target = std::make_unique<bridge_test::Bus>();
  Received received;
  target->Subscribe<bridge_test::Telemetry>(
      [&received](const bridge_test::Telemetry& t, const mccc::MessageHeader& /*header*/) {
        received.by_source[t.source % 4U].fetch_add(1U);
      });
  ConsumerThread<bridge_test::Bus> target_consumer(*target);
  mccc::bridge::ImporterOptions import_options;
  import_options.endpoints = ChannelEndpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"};
  import_options.transport.security.curve = true;
  import_options.transport.security.public_key = server.public_key;
  import_options.transport.security.secret_key = server.secret_key;
  import_options.transport.security.allowed_client_keys = {allowed.public_key};
  mccc::bridge::Importer<bridge_test::Bus> importer(*target, context, import_options);
  ASSERT_TRUE(importer.Start()) << importer.LastError();
  const ChannelEndpoints endpoints{importer.BoundEndpoint(Channel::kHigh),
                                   importer.BoundEndpoint(Channel::kNormal)};

  LinkSecurity client;
  client.curve = true;
  client.server_public_key = server.public_key;

  // Another key: refused by the allow-list, counted; none of its messages gets in.
  LinkSecurity intruder_security = client;
  intruder_security.public_key = intruder.public_key;
  intruder_security.secret_key = intruder.secret_key;
  Sender intruding(context, endpoints, intruder_security);
  ASSERT_TRUE(intruding.Start());
  ASSERT_TRUE(intruding.Publish(kIntruderSource));
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().peers_refused >= 2U; }, 60000))
      << "both channels of the intruder are refused";

  // No CURVE at all: the handshake fails (a mechanism mismatch, before any key is looked at).
  Sender plain(context, endpoints, LinkSecurity{});
  ASSERT_TRUE(plain.Start());
  ASSERT_TRUE(plain.Publish(kPlainSource));

  // The allowed key: every message delivered.
  LinkSecurity allowed_security = client;
  allowed_security.public_key = allowed.public_key;
  allowed_security.secret_key = allowed.secret_key;
  Sender trusted(context, endpoints, allowed_security);
  ASSERT_TRUE(trusted.Start());
  ASSERT_TRUE(trusted.Publish(kAllowedSource));
  ASSERT_TRUE(
      WaitFor([&] { return received.by_source[kAllowedSource].load() == kMessages; }, 60000));

  trusted.Stop();
  intruding.Stop();
  plain.Stop();
  importer.Stop();
  target_consumer.Stop();
  EXPECT_EQ(received.by_source[kIntruderSource].load(), 0U);
  EXPECT_EQ(received.by_source[kPlainSource].load(), 0U);
  EXPECT_EQ(trusted.exporter().GetStatistics().ends_confirmed, 2U);
  EXPECT_EQ(intruding.exporter().GetStatistics().ends_confirmed, 0U);
  const auto in = importer.GetStatistics();
  EXPECT_EQ(in.delivered[1], kMessages);
  EXPECT_GE(in.peers_refused, 2U);
  EXPECT_EQ(in.corrupted + in.malformed + in.wrong_schema, 0U);
}

TEST(BridgeSecurity, WithoutAnAllowListAnyClientKeyIsAcceptedAndTheLinkStillEncrypted) {
  ASSERT_NE(zmq_has("curve"), 0) << "this libzmq has no CURVE";
  const KeyPair server = NewKeys();
  const KeyPair anyone = NewKeys();
  mccc::bridge::ZmqContext context;
  auto target = std::make_unique<bridge_test::Bus>();
  ConsumerThread<bridge_test::Bus> target_consumer(*target);
  mccc::bridge::ImporterOptions import_options;
  import_options.endpoints = ChannelEndpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"};
  import_options.transport.security.curve = true;
  import_options.transport.security.public_key = server.public_key;
  import_options.transport.security.secret_key = server.secret_key;
  mccc::bridge::Importer<bridge_test::Bus> importer(*target, context, import_options);
  ASSERT_TRUE(importer.Start()) << importer.LastError();
  LinkSecurity client;
  client.curve = true;
  client.server_public_key = server.public_key;
  client.public_key = anyone.public_key;
  client.secret_key = anyone.secret_key;
  Sender sender(context,
                ChannelEndpoints{importer.BoundEndpoint(Channel::kHigh),
                                 importer.BoundEndpoint(Channel::kNormal)},
                client);
  ASSERT_TRUE(sender.Start());
  ASSERT_TRUE(sender.Publish(kAllowedSource));
  ASSERT_TRUE(WaitFor([&] { return importer.GetStatistics().delivered[1] == kMessages; }, 60000));
  sender.Stop();
  importer.Stop();
  EXPECT_EQ(importer.GetStatistics().peers_refused, 0U);
}

TEST(BridgeSecurity, KeysThatAreNotZ85AreRefusedAtStart) {
  mccc::bridge::ZmqContext context;
  auto target = std::make_unique<bridge_test::Bus>();
  mccc::bridge::ImporterOptions import_options;
  import_options.endpoints = ChannelEndpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"};
  import_options.transport.security.curve = true;
  import_options.transport.security.public_key = "short";
  import_options.transport.security.secret_key = "short";
  mccc::bridge::Importer<bridge_test::Bus> importer(*target, context, import_options);
  EXPECT_FALSE(importer.Start());
  EXPECT_NE(importer.LastError().find("CURVE"), std::string::npos);
}

}  // namespace
