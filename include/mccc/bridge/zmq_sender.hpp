// SPDX-License-Identifier: MIT
/// @file zmq_sender.hpp
/// @brief `ZmqSender` (ZmqTransport::Sender): the exporter's side of a ZeroMQ link, one DEALER
/// socket per channel. Sends never block (ZMQ_DONTWAIT): at the high-water mark, or while no
/// peer is connected to a binding exporter, the exporter keeps the frame in its own send queue,
/// where admission by priority happens. It reads back only the importer's end-of-stream
/// confirmations.
#ifndef MCCC_BRIDGE_ZMQ_SENDER_HPP_
#define MCCC_BRIDGE_ZMQ_SENDER_HPP_

#include <zmq.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "mccc/bridge/channel.hpp"
#include "mccc/bridge/zmq_context.hpp"
#include "mccc/bridge/zmq_link.hpp"
#include "mccc/bridge/zmq_message_io.hpp"

namespace mccc {
namespace bridge {

/// @brief Exporter side: one DEALER socket per channel.
class ZmqSender {
 public:
  /// @brief Opens both channels; check Ok().
  ZmqSender(ZmqContext& context, const ChannelEndpoints& endpoints, EndpointMode mode,
            const TransportOptions& options)
      : link_(context, endpoints, mode, options, ZMQ_DEALER) {}

  /// @brief True when both channels are open.
  bool Ok() const noexcept { return link_.Ok(); }
  /// @brief Why they are not.
  const std::string& Error() const noexcept { return link_.Error(); }

  /// @brief Hands one frame to `channel` without blocking.
  SendStatus TrySend(Channel channel, const uint8_t* data, std::size_t size) noexcept {
    const ByteSpan frame{data, size};
    return detail::SendGathered(link_.Socket(channel), &frame, 1U, ZMQ_DONTWAIT);
  }

  /// @brief Hands `count` frames to `channel` as one message, without blocking: all of them
  /// are taken or none. They are written once, straight into ZeroMQ's message.
  SendStatus TrySendParts(Channel channel, const ByteSpan* parts, std::size_t count) noexcept {
    return detail::SendGathered(link_.Socket(channel), parts, count, ZMQ_DONTWAIT);
  }

  /// @brief Sleeps until a wanted channel can take a frame, Wake() is called or `timeout_ms`.
  void Wait(bool high_writable, bool normal_writable, int timeout_ms) noexcept {
    link_.Poll(high_writable ? ZMQ_POLLOUT : 0, normal_writable ? ZMQ_POLLOUT : 0, timeout_ms);
  }

  /// @brief Takes one frame the importer sent back on `channel` (an end-of-stream
  /// confirmation) without blocking; it stays valid until the next call for that channel.
  bool TryReceiveReply(Channel channel, const uint8_t** data, std::size_t* size) noexcept {
    detail::HeldMessage& reply = replies_[IndexOf(channel)];
    void* socket = link_.Socket(channel);
    if (!reply.Receive(socket)) {
      return false;
    }
    const bool extra_parts = reply.More();
    bool more = extra_parts;
    while (more) {  // not a bridge frame: take the rest of it off the socket
      more = spare_.Receive(socket) && spare_.More();
    }
    *data = extra_parts ? nullptr : reply.Data();
    *size = extra_parts ? 0U : reply.Size();
    return true;
  }

  /// @brief Sleeps until a wanted channel has a reply, Wake() is called or `timeout_ms`.
  void WaitForReply(bool high, bool normal, int timeout_ms) noexcept {
    link_.Poll(high ? ZMQ_POLLIN : 0, normal ? ZMQ_POLLIN : 0, timeout_ms);
  }

  /// @brief Ends a Wait now or makes the next one return at once. Thread-safe.
  void Wake() noexcept { link_.Wake(); }

  /// @brief Clients refused by this link's allow-list of keys (LinkSecurity). Thread-safe.
  uint64_t RefusedPeers() const noexcept { return link_.RefusedPeers(); }

  /// @brief The address a bound channel got (resolves "tcp://host:*").
  std::string BoundEndpoint(Channel channel) const { return link_.BoundEndpoint(channel); }

 private:
  detail::ZmqLink link_;
  std::array<detail::HeldMessage, kChannelCount> replies_{};
  detail::HeldMessage spare_;
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_ZMQ_SENDER_HPP_
