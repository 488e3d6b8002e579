// SPDX-License-Identifier: MIT
/// @file zmq_transport.hpp
/// @brief The ZeroMQ transport of the bridge: everything that knows about ZeroMQ is here and in
/// the parts this file includes, so that another engine (DDS, iceoryx, a shared-memory ring) can
/// replace it behind the same exporter and importer by providing the same four classes (see
/// exporter.hpp and importer.hpp). Include this file; its parts are
/// - zmq_context.hpp: `ZmqContext`, the context a process shares (ZmqTransport::Context);
/// - zmq_sender.hpp / zmq_receiver.hpp: the exporter's and the importer's side of a link
///   (ZmqTransport::Sender / Receiver);
/// - zmq_link.hpp: the sockets of one side of a link, their options and CURVE setup, the poll;
/// - zmq_zap_handler.hpp: the ZAP handler that enforces a link's allow-list of client keys;
/// - zmq_wake_signal.hpp: the wake-up descriptor that ends a poll;
/// - zmq_message_io.hpp: how bytes go into ZeroMQ messages and out of them.
///
/// Each channel is a DEALER (exporter) / ROUTER (importer) socket pair. Data frames flow from
/// the exporter to the importer only, one or more frames per ZeroMQ message (wire_format.hpp), in
/// order; ZeroMQ reconnects by itself and, on the connecting side, keeps queueing while the peer is
/// away (up to the high-water mark). The one frame that flows back is the importer's confirmation
/// of an end-of-stream frame, which the ROUTER addresses to the exporter that sent it (several
/// exporters may connect to one importer). That confirmation is why the pair is not PUSH/PULL:
/// libzmq discards the bytes still in a connection when the sending side closes it while the
/// receiving side's queue is at its high-water mark (its engine has stopped reading, sees the
/// hang-up, and drops the connection once the application makes room; over ipc:// the hang-up
/// comes at once). No linger time helps, since linger ends when the bytes are in the kernel. So
/// the exporter closes a link only after the importer confirmed that it has read the end of
/// the stream, i.e. every frame before it (exporter.hpp).
///
/// Sends never block (ZMQ_DONTWAIT): at the high-water mark, or while no peer is connected to a
/// binding exporter, the exporter keeps the frame in its own send queue, where admission by
/// priority happens. A sleeping sender or receiver thread waits in one zmq_poll on its sockets
/// and a wake-up file descriptor, so that a new frame or Stop wakes it at once (zmq_link.hpp).
///
/// Security (LinkSecurity, off by default): CURVE on both sockets of a link, the binding side the
/// server; a binding side's allow-list of client keys is enforced by the context's ZAP handler
/// thread (zmq_zap_handler.hpp), which counts the clients it refuses.
///
/// Every part the transport sends is written into a ZeroMQ message of its own, which over
/// inproc:// libzmq hands to the receiving thread as it is; a ThreadSanitizer build marks that
/// hand-over (zmq_message_io.hpp).
#ifndef MCCC_BRIDGE_ZMQ_TRANSPORT_HPP_
#define MCCC_BRIDGE_ZMQ_TRANSPORT_HPP_

#include <zmq.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "mccc/bridge/channel.hpp"
#include "mccc/bridge/wire_format.hpp"
#include "mccc/bridge/zmq_context.hpp"
#include "mccc/bridge/zmq_link.hpp"
#include "mccc/bridge/zmq_message_io.hpp"
#include "mccc/bridge/zmq_receiver.hpp"
#include "mccc/bridge/zmq_sender.hpp"

namespace mccc {
namespace bridge {

/// @brief The ZeroMQ transport (libzmq C API, version 4.x).
class ZmqTransport {
 public:
  /// @brief Messages an exporter's socket queues from each peer (end-of-stream confirmations;
  /// set with the other socket options by detail::ZmqLink, zmq_link.hpp).
  static constexpr int kReplyHighWaterMark = detail::ZmqLink::kReplyHighWaterMark;
  /// @brief The largest message an exporter's socket takes (detail::ZmqLink::kReplyBytes).
  static constexpr int64_t kReplyBytes = detail::ZmqLink::kReplyBytes;

  /// @brief The context a process shares among its exporters and importers (zmq_context.hpp).
  using Context = ZmqContext;
  /// @brief Exporter side: one DEALER socket per channel (zmq_sender.hpp).
  using Sender = ZmqSender;
  /// @brief Importer side: one ROUTER socket per channel (zmq_receiver.hpp).
  using Receiver = ZmqReceiver;

  /// @brief A new CURVE key pair (Z85 text, 40 characters each) for LinkSecurity; false when
  /// this libzmq has no CURVE.
  static bool NewCurveKeyPair(std::string& public_key, std::string& secret_key) {
    std::array<char, 41> public_text{};
    std::array<char, 41> secret_text{};
    if (zmq_curve_keypair(public_text.data(), secret_text.data()) != 0) {
      return false;
    }
    public_key.assign(public_text.data(), 40U);
    secret_key.assign(secret_text.data(), 40U);
    return true;
  }

  /// @brief ThreadSanitizer builds: the receiving half of a message's hand-over, called with the
  /// bytes of every part received; a tool that relays bridge messages with the raw ZeroMQ API
  /// calls it too (detail::MarkReceived, zmq_message_io.hpp). Nothing in other builds.
  /// Thread-safe.
  static void MarkReceived(void* bytes) noexcept { detail::MarkReceived(bytes); }

  /// @brief Sends `parts` back to back as one ZeroMQ message part on `socket`, written into a
  /// message of ZeroMQ's own (detail::SendGathered, zmq_message_io.hpp, says how; `flags`:
  /// ZMQ_DONTWAIT, ZMQ_SNDMORE). Thread-safe as ZeroMQ's socket allows (one thread per socket).
  static SendStatus SendGathered(void* socket, const ByteSpan* parts, std::size_t count,
                                 int flags) noexcept {
    return detail::SendGathered(socket, parts, count, flags);
  }
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_ZMQ_TRANSPORT_HPP_
