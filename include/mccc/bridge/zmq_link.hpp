// SPDX-License-Identifier: MIT
/// @file zmq_link.hpp
/// @brief `detail::ZmqLink`: the two sockets of one side of a ZeroMQ link (one per channel) and
/// its wake-up descriptor: the socket options, the CURVE setup, the poll that sleeps on both.
///
/// Each channel is a DEALER (exporter) / ROUTER (importer) socket pair (zmq_transport.hpp says
/// why). A wake-up file descriptor (zmq_wake_signal.hpp) sits in the same zmq_poll as the
/// sockets, so that a sleeping sender or receiver thread is woken at once by a new frame or by
/// Stop. zmq_poll reads each socket's ZMQ_EVENTS before it sleeps, so a socket that is already
/// readable or writable ends the wait at once (the edge-triggered ZMQ_FD is never used directly).
///
/// Security (LinkSecurity, off by default): CURVE on both sockets of a link, the binding side the
/// server; a binding side's allow-list of client keys is enforced by the context's ZAP handler
/// thread (zmq_zap_handler.hpp), which counts the clients it refuses.
#ifndef MCCC_BRIDGE_ZMQ_LINK_HPP_
#define MCCC_BRIDGE_ZMQ_LINK_HPP_

#include <zmq.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "mccc/bridge/channel.hpp"
#include "mccc/bridge/zmq_context.hpp"
#include "mccc/bridge/zmq_wake_signal.hpp"
#include "mccc/bridge/zmq_zap_handler.hpp"

namespace mccc {
namespace bridge {
namespace detail {

/// The two sockets of one side of a link (one per channel), plus its wake-up descriptor.
class ZmqLink {
 public:
  /// @brief Messages an exporter's socket queues from each peer (end-of-stream confirmations).
  static constexpr int kReplyHighWaterMark = 16;
  /// @brief The largest message an exporter's socket takes: a confirmation is one frame header,
  /// but ZeroMQ applies the limit to the encrypted message and to CURVE's handshake commands as
  /// well (its WELCOME is 168 bytes), so the bound leaves them room.
  static constexpr int64_t kReplyBytes = 1024;

  ZmqLink(ZmqContext& owner, const ChannelEndpoints& endpoints, EndpointMode mode,
          const TransportOptions& options, int socket_type) {
    void* const context = owner.Native();
    if (context == nullptr) {
      error_ = "zmq_ctx_new failed";
      return;
    }
    if (!wake_.Ok()) {
      error_ = "could not create the wake-up descriptor";
      return;
    }
    if (!PrepareSecurity(owner, options.security, mode)) {
      return;
    }
    for (std::size_t c = 0U; c < kChannelCount; ++c) {
      const auto channel = static_cast<Channel>(c);
      void* socket = zmq_socket(context, socket_type);
      if (socket == nullptr) {
        Fail("zmq_socket", endpoints.Of(channel));
        return;
      }
      sockets_[c] = socket;
      if (!Configure(socket, options, socket_type) ||
          !ConfigureSecurity(socket, options.security, mode)) {
        Fail("zmq_setsockopt", endpoints.Of(channel));
        return;
      }
      const std::string& endpoint = endpoints.Of(channel);
      const int rc = mode == EndpointMode::kBind ? zmq_bind(socket, endpoint.c_str())
                                                 : zmq_connect(socket, endpoint.c_str());
      if (rc != 0) {
        Fail(mode == EndpointMode::kBind ? "zmq_bind" : "zmq_connect", endpoint);
        return;
      }
    }
    ok_ = true;
  }

  ~ZmqLink() {
    for (void* socket : sockets_) {
      if (socket != nullptr) {
        static_cast<void>(zmq_close(socket));  // fails only for an invalid socket
      }
    }
    if (zap_ != nullptr && domain_) {
      zap_->Unregister(domain_);
    }
  }
  ZmqLink(const ZmqLink&) = delete;
  ZmqLink& operator=(const ZmqLink&) = delete;
  ZmqLink(ZmqLink&&) = delete;
  ZmqLink& operator=(ZmqLink&&) = delete;

  bool Ok() const noexcept { return ok_; }
  const std::string& Error() const noexcept { return error_; }
  void* Socket(Channel channel) const noexcept {
    void* const socket = sockets_[IndexOf(channel)];
    return socket;
  }
  void Wake() noexcept { wake_.Signal(); }

  /// Clients refused by this link's allow-list so far (0 without one). Thread-safe.
  uint64_t RefusedPeers() const noexcept {
    // relaxed: a statistic; nothing else is read on its strength.
    return domain_ ? domain_->refused.load(std::memory_order_relaxed) : 0U;
  }

  /// Sleeps until a socket has one of the events asked for it (0: not watched), the wake-up
  /// descriptor is signalled, or `timeout_ms` passed.
  void Poll(short high_events, short normal_events, int timeout_ms) noexcept {
    std::array<zmq_pollitem_t, 3> items{};
    std::size_t count = 0U;
    items[count++] = zmq_pollitem_t{nullptr, wake_.Fd(), ZMQ_POLLIN, 0};
    if (high_events != 0) {
      items[count++] = zmq_pollitem_t{Socket(Channel::kHigh), 0, high_events, 0};
    }
    if (normal_events != 0) {
      items[count++] = zmq_pollitem_t{Socket(Channel::kNormal), 0, normal_events, 0};
    }
    if (zmq_poll(items.data(), static_cast<int>(count), timeout_ms) > 0 &&
        (items[0].revents & ZMQ_POLLIN) != 0) {
      wake_.Drain();
    }
  }

  std::string BoundEndpoint(Channel channel) const {
    std::array<char, 256> buffer{};
    std::size_t size = buffer.size();
    if (Socket(channel) == nullptr ||
        zmq_getsockopt(Socket(channel), ZMQ_LAST_ENDPOINT, buffer.data(), &size) != 0) {
      return std::string();
    }
    return std::string(buffer.data());
  }

 private:
  static bool Configure(void* socket, const TransportOptions& options, int socket_type) {
    const int hwm = options.high_water_mark;
    const int linger = options.linger_ms;
    const int reconnect = options.reconnect_interval_ms;
    const int64_t max_size = options.max_frame_bytes;
    // A confirmation for a peer that has gone fails visibly instead of vanishing.
    const int mandatory = 1;
    const bool common =
        zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof(linger)) == 0 &&
        zmq_setsockopt(socket, ZMQ_RECONNECT_IVL, &reconnect, sizeof(reconnect)) == 0;
    if (socket_type == ZMQ_DEALER) {
      // The exporter reads only end-of-stream confirmations, one frame header each, and only
      // at Stop: a peer that sends more or larger gets its connection dropped by ZeroMQ
      // instead of filling this process (at most kReplyHighWaterMark headers per connection).
      const int reply_hwm = kReplyHighWaterMark;
      const int64_t reply_size = kReplyBytes;
      return common && zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof(hwm)) == 0 &&
             zmq_setsockopt(socket, ZMQ_RCVHWM, &reply_hwm, sizeof(reply_hwm)) == 0 &&
             zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &reply_size, sizeof(reply_size)) == 0;
    }
    return common && zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, sizeof(hwm)) == 0 &&
           zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof(max_size)) == 0 &&
           zmq_setsockopt(socket, ZMQ_ROUTER_MANDATORY, &mandatory, sizeof(mandatory)) == 0;
  }

  /// Checks the keys and, on a binding side with an allow-list, registers it with the
  /// context's ZAP handler (started then). False, with the error set, when CURVE cannot be
  /// used as asked.
  bool PrepareSecurity(ZmqContext& owner, const LinkSecurity& security, EndpointMode mode) {
    if (!security.curve) {
      return true;
    }
    if (zmq_has("curve") == 0) {
      error_ = "CURVE: this libzmq was built without it";
      return false;
    }
    const bool server = mode == EndpointMode::kBind;
    if (security.secret_key.size() != 40U || security.public_key.size() != 40U ||
        (!server && security.server_public_key.size() != 40U)) {
      error_ = "CURVE: keys must be 40 characters of Z85 (a client also needs the server's)";
      return false;
    }
    if (server && !security.allowed_client_keys.empty()) {
      zap_ = owner.Zap(error_);
      if (zap_ == nullptr) {
        return false;
      }
      domain_ = zap_->Register(security.allowed_client_keys, error_);
      return domain_ != nullptr;
    }
    return true;
  }

  /// The CURVE options of one socket (nothing without CURVE). Z85 keys go with their
  /// terminating NUL (41 bytes), as libzmq reads them.
  bool ConfigureSecurity(void* socket, const LinkSecurity& security, EndpointMode mode) const {
    if (!security.curve) {
      return true;
    }
    constexpr std::size_t kZ85 = 41U;
    if (mode == EndpointMode::kBind) {
      const int server = 1;
      const bool keyed =
          zmq_setsockopt(socket, ZMQ_CURVE_SERVER, &server, sizeof(server)) == 0 &&
          zmq_setsockopt(socket, ZMQ_CURVE_SECRETKEY, security.secret_key.c_str(), kZ85) == 0;
      return keyed && (!domain_ || zmq_setsockopt(socket, ZMQ_ZAP_DOMAIN, domain_->name.data(),
                                                  domain_->name.size()) == 0);
    }
    return zmq_setsockopt(socket, ZMQ_CURVE_SERVERKEY, security.server_public_key.c_str(), kZ85) ==
               0 &&
           zmq_setsockopt(socket, ZMQ_CURVE_PUBLICKEY, security.public_key.c_str(), kZ85) == 0 &&
           zmq_setsockopt(socket, ZMQ_CURVE_SECRETKEY, security.secret_key.c_str(), kZ85) == 0;
  }

  void Fail(const char* what, const std::string& endpoint) {
    error_ = std::string(what) + "(" + endpoint + "): " + zmq_strerror(zmq_errno());
  }

  std::array<void*, kChannelCount> sockets_{};
  WakeSignal wake_;
  ZapHandler* zap_ = nullptr;          // the context's, when this link has an allow-list
  std::shared_ptr<ZapDomain> domain_;  // this link's allow-list there
  std::string error_;
  bool ok_ = false;
};

}  // namespace detail
}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_ZMQ_LINK_HPP_
