// SPDX-License-Identifier: MIT
/// @file channel.hpp
/// @brief The two channels of a bridge link and the transport-neutral link settings.
///
/// HIGH messages travel on a channel of their own (their own socket pair with ZeroMQ), so that a
/// LOW/MEDIUM backlog in the transport's buffers cannot hold them back. Each channel is its own
/// stream with its own sequence counter.
#ifndef MCCC_BRIDGE_CHANNEL_HPP_
#define MCCC_BRIDGE_CHANNEL_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mccc/message.hpp"

namespace mccc {
namespace bridge {

/// @brief A bridge channel: HIGH messages use kHigh, LOW and MEDIUM share kNormal.
enum class Channel : uint8_t {
  kNormal = 0U,  ///< LOW and MEDIUM, in publish order.
  kHigh = 1U,    ///< HIGH only.
};

/// @brief Number of channels (for arrays indexed by Channel).
inline constexpr std::size_t kChannelCount = 2U;

/// @brief The channel a message of `priority` travels on.
constexpr Channel ChannelOf(MessagePriority priority) noexcept {
  return priority == MessagePriority::kHigh ? Channel::kHigh : Channel::kNormal;
}

/// @brief Index of a channel in per-channel arrays.
constexpr std::size_t IndexOf(Channel channel) noexcept {
  return static_cast<std::size_t>(channel);
}

/// @brief The transport addresses of the two channels, e.g. "ipc:///run/robot/telemetry.high"
/// and "ipc:///run/robot/telemetry.normal", or "tcp://127.0.0.1:7001" and "tcp://127.0.0.1:7002".
struct ChannelEndpoints {
  std::string high;    ///< Address of the HIGH channel.
  std::string normal;  ///< Address of the LOW/MEDIUM channel.

  /// @brief The address of `channel`.
  const std::string& Of(Channel channel) const noexcept {
    return channel == Channel::kHigh ? high : normal;
  }

  /// @brief Both addresses from one base: for "tcp://host:port" the HIGH channel is that port and
  /// the normal channel the next one ("tcp://host:*" binds both to free ports); for any other
  /// scheme (ipc://, inproc://) the suffixes ".high" and ".normal" are appended.
  static ChannelEndpoints FromBase(const std::string& base) {
    const std::string tcp = "tcp://";
    const std::size_t colon = base.rfind(':');
    if (base.compare(0U, tcp.size(), tcp) == 0 && colon != std::string::npos &&
        colon > tcp.size()) {
      const std::string host = base.substr(0U, colon + 1U);
      const std::string port = base.substr(colon + 1U);
      if (port == "*") {
        return ChannelEndpoints{base, base};
      }
      const unsigned long number = std::stoul(port);
      return ChannelEndpoints{host + std::to_string(number), host + std::to_string(number + 1U)};
    }
    return ChannelEndpoints{base + ".high", base + ".normal"};
  }
};

/// @brief Bytes someone else owns: one frame of a message handed to a transport in parts.
struct ByteSpan {
  const uint8_t* data = nullptr;  ///< First byte.
  std::size_t size = 0U;          ///< Number of bytes.
};

/// @brief Outcome of handing a frame to a transport.
enum class SendStatus : uint8_t {
  kSent = 0U,        ///< Taken (the transport now owns a copy).
  kWouldBlock = 1U,  ///< The channel is at its high-water mark (or has no peer yet): retry later.
  kFailed = 2U,      ///< Any other failure: the frame cannot be sent.
};

/// @brief Which side of a link binds (owns the address) and which connects. Usually the one
/// importer binds and any number of exporters connect (fan-in); an exporter may bind instead, for
/// one importer: an exporter with several importers hands each frame to one of them in turn.
enum class EndpointMode : uint8_t {
  kBind = 0U,     ///< Own the address; peers connect to it.
  kConnect = 1U,  ///< Connect to a peer's address; reconnects by itself after the peer restarts.
};

/// @brief Authentication and encryption of a link: ZeroMQ's CURVE (a transport without such
/// security refuses a link that asks for it). Keys are Z85 text of 40 characters, as
/// zmq_curve_keypair (ZmqTransport::NewCurveKeyPair) makes them. The binding side of a link is
/// the CURVE server, the connecting side the client; both encrypt every frame. See
/// docs/bridge.md ("Authenticated peers") for what it protects against and what not.
struct LinkSecurity {
  /// CURVE on (both sides of a link must agree; a peer without it fails the handshake).
  bool curve = false;
  /// This side's long-term key pair (a binding side: the server's; a connecting side: the
  /// client's, which the server's allow-list names).
  std::string public_key;
  /// The secret half (keep it secret: it proves this side's identity).
  std::string secret_key;
  /// Connecting side: the public key of the server it connects to; a server with another key is
  /// refused by the handshake.
  std::string server_public_key;
  /// Binding side: the client public keys allowed to connect; any other client is refused by
  /// the transport's ZAP handler and counted (peers_refused). Empty: any client with a key pair
  /// (the link is then encrypted but not authenticated).
  std::vector<std::string> allowed_client_keys;
};

/// @brief Transport settings shared by every transport (each maps them onto its own options).
struct TransportOptions {
  /// Messages the transport may buffer per channel and direction before a send would block (the
  /// high-water mark). The exporter's own send queue sits in front of it.
  int high_water_mark = 1000;
  /// How long closing a link may wait to hand over frames still buffered by the transport.
  int linger_ms = 1000;
  /// Delay between reconnection attempts after the peer went away.
  int reconnect_interval_ms = 20;
  /// Transport messages (one or more frames) larger than this are refused by the receiving
  /// transport (a bound on memory; ZeroMQ drops the connection that sent one). With ZeroMQ it
  /// bounds one part of a message: a message of more parts than an exporter sends is dropped
  /// part by part as it is read, and counted (ImporterStatistics::refused_messages).
  int64_t max_frame_bytes = int64_t{1} << 24U;
  /// Authentication and encryption (off by default).
  LinkSecurity security;
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_CHANNEL_HPP_
