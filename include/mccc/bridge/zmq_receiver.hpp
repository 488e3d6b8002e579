// SPDX-License-Identifier: MIT
/// @file zmq_receiver.hpp
/// @brief `ZmqReceiver` (ZmqTransport::Receiver): the importer's side of a ZeroMQ link, one
/// ROUTER socket per channel, which knows which exporter sent a frame and so can send that
/// exporter the confirmation of its end-of-stream frame.
#ifndef MCCC_BRIDGE_ZMQ_RECEIVER_HPP_
#define MCCC_BRIDGE_ZMQ_RECEIVER_HPP_

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

/// @brief Importer side: one ROUTER socket per channel (it knows which exporter sent a frame).
class ZmqReceiver {
 public:
  /// @brief Opens both channels; check Ok().
  ZmqReceiver(ZmqContext& context, const ChannelEndpoints& endpoints, EndpointMode mode,
              const TransportOptions& options)
      : link_(context, endpoints, mode, options, ZMQ_ROUTER) {}

  /// @brief True when both channels are open.
  bool Ok() const noexcept { return link_.Ok(); }
  /// @brief Why they are not.
  const std::string& Error() const noexcept { return link_.Error(); }

  /// @brief Takes one message (one or more frames) of `channel` without blocking; it stays
  /// valid until the next TryReceive of the same channel. A message of more than one ZeroMQ
  /// part (not from an exporter) gives size 0.
  bool TryReceive(Channel channel, const uint8_t** data, std::size_t* size) noexcept {
    Incoming& in = incoming_[IndexOf(channel)];
    void* socket = link_.Socket(channel);
    // A ROUTER hands over [routing id of the sending peer][frame]; the parts of a message
    // arrive together, so the second receive cannot find the socket empty.
    if (!in.peer.Receive(socket)) {
      return false;
    }
    const bool has_frame = in.peer.More() && in.frame.Receive(socket);
    bool extra_parts = false;
    bool more = has_frame && in.frame.More();
    while (more) {  // not a bridge frame: take the rest of it off the socket
      extra_parts = true;
      more = spare_.Receive(socket) && spare_.More();
    }
    const bool valid = has_frame && !extra_parts;
    *data = valid ? in.frame.Data() : nullptr;
    *size = valid ? in.frame.Size() : 0U;
    return true;
  }

  /// @brief Sends `data` back to the peer that sent the last frame taken from `channel`,
  /// without blocking.
  SendStatus Reply(Channel channel, const uint8_t* data, std::size_t size) noexcept {
    Incoming& in = incoming_[IndexOf(channel)];
    void* socket = link_.Socket(channel);
    if (in.peer.Size() == 0U) {
      return SendStatus::kFailed;
    }
    if (zmq_send(socket, in.peer.Data(), in.peer.Size(), ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) {
      return detail::StatusOfFailedSend();
    }
    // Once the routing id was accepted, the last part is taken (ZeroMQ sends messages whole).
    const ByteSpan reply{data, size};
    return detail::SendGathered(socket, &reply, 1U, ZMQ_DONTWAIT) == SendStatus::kSent
               ? SendStatus::kSent
               : SendStatus::kFailed;
  }

  /// @brief Sleeps until a frame may be there, Wake() is called or `timeout_ms` passed.
  void Wait(int timeout_ms) noexcept { link_.Poll(ZMQ_POLLIN, ZMQ_POLLIN, timeout_ms); }

  /// @brief Ends a Wait now or makes the next one return at once. Thread-safe.
  void Wake() noexcept { link_.Wake(); }

  /// @brief Clients refused by this link's allow-list of keys (LinkSecurity). Thread-safe.
  uint64_t RefusedPeers() const noexcept { return link_.RefusedPeers(); }

  /// @brief The address a bound channel got (resolves "tcp://host:*").
  std::string BoundEndpoint(Channel channel) const { return link_.BoundEndpoint(channel); }

 private:
  struct Incoming {
    detail::HeldMessage peer;   // routing id of the exporter that sent `frame`
    detail::HeldMessage frame;  // the last frame taken from the channel
  };

  detail::ZmqLink link_;
  std::array<Incoming, kChannelCount> incoming_{};
  detail::HeldMessage spare_;
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_ZMQ_RECEIVER_HPP_
