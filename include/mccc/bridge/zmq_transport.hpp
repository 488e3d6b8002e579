// SPDX-License-Identifier: MIT
/// @file zmq_transport.hpp
/// @brief The ZeroMQ transport of the bridge: everything that knows about ZeroMQ is here, so that
/// another engine (DDS, iceoryx, a shared-memory ring) can replace it behind the same exporter
/// and importer by providing the same four classes (see exporter.hpp and importer.hpp).
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
/// priority happens. A wake-up file descriptor (eventfd on Linux, a pipe elsewhere) sits in the
/// same zmq_poll as the sockets, so that a sleeping sender or receiver thread is woken at once by
/// a new frame or by Stop. zmq_poll reads each socket's ZMQ_EVENTS before it sleeps, so a socket
/// that is already readable or writable ends the wait at once (the edge-triggered ZMQ_FD is
/// never used directly).
///
/// Every part this file sends is written into a ZeroMQ message of its own (zmq_msg_init_size),
/// not copied by zmq_send: over inproc:// libzmq hands that very buffer to the receiving thread
/// through its own lock-free pipes, which a ThreadSanitizer build cannot see (libzmq is not
/// built with it). Such a build marks the hand-over where it happens, a release on the bytes
/// before the send and an acquire on them after the receive, so that it checks every access of
/// the bridge's own threads without a suppression that would depend on TSan still holding the
/// stack of libzmq's copy.
#ifndef MCCC_BRIDGE_ZMQ_TRANSPORT_HPP_
#define MCCC_BRIDGE_ZMQ_TRANSPORT_HPP_

#include <zmq.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/eventfd.h>
#endif

#include "mccc/bridge/channel.hpp"
#include "mccc/bridge/wire_format.hpp"
#include "mccc/config.hpp"

#if MCCC_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace mccc {
namespace bridge {

/// @brief The ZeroMQ transport (libzmq C API, version 4.x).
class ZmqTransport {
 public:
  /// @brief Messages an exporter's socket queues from each peer (end-of-stream confirmations).
  static constexpr int kReplyHighWaterMark = 16;
  /// @brief The largest message an exporter's socket takes: a frame header (a confirmation).
  static constexpr int64_t kReplyBytes = static_cast<int64_t>(kFrameHeaderBytes);

 private:
  /// A non-blocking wake-up descriptor that zmq_poll can wait on.
  class WakeSignal {
   public:
    WakeSignal() noexcept {
#if defined(__linux__)
      read_fd_ = eventfd(0U, EFD_NONBLOCK | EFD_CLOEXEC);
      write_fd_ = read_fd_;
#else
      int fds[2] = {-1, -1};
      if (pipe(fds) == 0) {
        read_fd_ = fds[0];
        write_fd_ = fds[1];
        static_cast<void>(fcntl(read_fd_, F_SETFL, fcntl(read_fd_, F_GETFL) | O_NONBLOCK));
        static_cast<void>(fcntl(write_fd_, F_SETFL, fcntl(write_fd_, F_GETFL) | O_NONBLOCK));
      }
#endif
    }
    ~WakeSignal() {
      // close errors are not actionable in a destructor: the descriptor is released either way.
      if (read_fd_ >= 0) {
        static_cast<void>(close(read_fd_));
      }
      if (write_fd_ >= 0 && write_fd_ != read_fd_) {
        static_cast<void>(close(write_fd_));
      }
    }
    WakeSignal(const WakeSignal&) = delete;
    WakeSignal& operator=(const WakeSignal&) = delete;
    WakeSignal(WakeSignal&&) = delete;
    WakeSignal& operator=(WakeSignal&&) = delete;

    bool Ok() const noexcept {
      return read_fd_ >= 0;
    }
    int Fd() const noexcept {
      return read_fd_;
    }

    void Signal() noexcept {
      const uint64_t one = 1U;
      // A full pipe or a saturated eventfd already wakes the reader: the result is not needed.
      const ssize_t written = write(write_fd_, &one, WriteSize());
      static_cast<void>(written);
    }

    void Drain() noexcept {
      std::array<uint8_t, 64> sink{};
      while (read(read_fd_, sink.data(), WriteSize()) > 0) {
      }
    }

   private:
    static constexpr std::size_t WriteSize() noexcept {
#if defined(__linux__)
      return sizeof(uint64_t);  // eventfd reads and writes 8-byte counters
#else
      return 1U;
#endif
    }

    int read_fd_ = -1;
    int write_fd_ = -1;
  };

  /// The two sockets of one side of a link (one per channel), plus its wake-up descriptor.
  class Link {
   public:
    Link(void* context, const ChannelEndpoints& endpoints, EndpointMode mode,
         const TransportOptions& options, int socket_type) {
      if (context == nullptr) {
        error_ = "zmq_ctx_new failed";
        return;
      }
      if (!wake_.Ok()) {
        error_ = "could not create the wake-up descriptor";
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
        if (!Configure(socket, options, socket_type)) {
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

    ~Link() {
      for (void* socket : sockets_) {
        if (socket != nullptr) {
          static_cast<void>(zmq_close(socket));  // fails only for an invalid socket
        }
      }
    }
    Link(const Link&) = delete;
    Link& operator=(const Link&) = delete;
    Link(Link&&) = delete;
    Link& operator=(Link&&) = delete;

    bool Ok() const noexcept { return ok_; }
    const std::string& Error() const noexcept { return error_; }
    void* Socket(Channel channel) const noexcept {
      void* const socket = sockets_[IndexOf(channel)];
      return socket;
    }
    void Wake() noexcept { wake_.Signal(); }

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

    void Fail(const char* what, const std::string& endpoint) {
      error_ = std::string(what) + "(" + endpoint + "): " + zmq_strerror(zmq_errno());
    }

    std::array<void*, kChannelCount> sockets_{};
    WakeSignal wake_;
    std::string error_;
    bool ok_ = false;
  };

  /// A ZeroMQ message kept between two calls (the received bytes stay valid until the next one).
  class HeldMessage {
   public:
    // zmq_msg_init and zmq_msg_close of an initialised message cannot fail (libzmq documents
    // no error for init; close fails only for an invalid message).
    HeldMessage() noexcept { static_cast<void>(zmq_msg_init(&message_)); }
    ~HeldMessage() { static_cast<void>(zmq_msg_close(&message_)); }
    HeldMessage(const HeldMessage&) = delete;
    HeldMessage& operator=(const HeldMessage&) = delete;
    HeldMessage(HeldMessage&&) = delete;
    HeldMessage& operator=(HeldMessage&&) = delete;

    /// Receives the next part from `socket` without blocking.
    bool Receive(void* socket) noexcept {
      if (zmq_msg_recv(&message_, socket, ZMQ_DONTWAIT) < 0) {
        return false;
      }
      MarkReceived(zmq_msg_data(&message_));
      return true;
    }
    /// True when another part of the same message follows.
    bool More() noexcept { return zmq_msg_more(&message_) != 0; }
    const uint8_t* Data() noexcept { return static_cast<const uint8_t*>(zmq_msg_data(&message_)); }
    std::size_t Size() const noexcept { return zmq_msg_size(&message_); }

   private:
    zmq_msg_t message_{};
  };

  static SendStatus StatusOfFailedSend() noexcept {
    return zmq_errno() == EAGAIN || zmq_errno() == EINTR ? SendStatus::kWouldBlock
                                                         : SendStatus::kFailed;
  }

  /// ThreadSanitizer builds: the sending half of a message's hand-over (file comment), after the
  /// last write to its bytes; pairs with MarkReceived on the same bytes. Nothing elsewhere.
  static void ReleaseForTsan(void* bytes) noexcept {
#if MCCC_TSAN
    __tsan_release(bytes);
#else
    static_cast<void>(bytes);
#endif
  }

 public:
  /// @brief ThreadSanitizer builds: the receiving half of a message's hand-over (file comment;
  /// pairs with the release in SendGathered on the same bytes), called with the bytes of every
  /// part received (HeldMessage does it for the bridge's own receives; a tool that relays bridge
  /// messages with the raw ZeroMQ API calls it too). Nothing in other builds. Thread-safe.
  static void MarkReceived(void* bytes) noexcept {
#if MCCC_TSAN
    __tsan_acquire(bytes);
#else
    static_cast<void>(bytes);
#endif
  }

  /// @brief Sends `parts` back to back as one ZeroMQ message part on `socket` (`flags`:
  /// ZMQ_DONTWAIT to never block, ZMQ_SNDMORE when another part of the same message follows).
  /// The bytes are written into a message of ZeroMQ's own, which then owns them (file comment).
  /// kWouldBlock: not taken (high-water mark, or EINTR); kFailed: an error. Thread-safe as
  /// ZeroMQ's socket allows (one thread per socket).
  static SendStatus SendGathered(void* socket, const ByteSpan* parts, std::size_t count,
                                 int flags) noexcept {
    std::size_t total = 0U;
    for (std::size_t i = 0U; i < count; ++i) {
      total += parts[i].size;
    }
    zmq_msg_t message{};
    if (zmq_msg_init_size(&message, total) != 0) {
      return SendStatus::kFailed;  // ENOMEM: libzmq could not allocate the message
    }
    auto* bytes = static_cast<uint8_t*>(zmq_msg_data(&message));
    std::size_t offset = 0U;
    for (std::size_t i = 0U; i < count; ++i) {
      if (parts[i].size != 0U) {
        static_cast<void>(std::memcpy(bytes + offset, parts[i].data, parts[i].size));
      }
      offset += parts[i].size;
    }
    ReleaseForTsan(bytes);
    if (zmq_msg_send(&message, socket, flags) >= 0) {
      return SendStatus::kSent;  // the message is ZeroMQ's now
    }
    const SendStatus status = StatusOfFailedSend();  // before close, which may set errno
    static_cast<void>(zmq_msg_close(&message));      // still ours after a failed send
    return status;
  }

  /// @brief A ZeroMQ context: create one per process and give it to every exporter and importer
  /// (inproc:// endpoints only connect within one context). Destroy it after them.
  class Context {
   public:
    /// @brief A context with `io_threads` I/O threads.
    explicit Context(int io_threads = 1) noexcept : context_(zmq_ctx_new()) {
      if (context_ != nullptr) {
        // A refused thread count (out of range) leaves libzmq's default of one I/O thread.
        static_cast<void>(zmq_ctx_set(context_, ZMQ_IO_THREADS, io_threads));
      }
    }
    ~Context() {
      if (context_ != nullptr) {
        // Waits until every socket is closed and its linger time has passed.
        while (zmq_ctx_term(context_) != 0 && zmq_errno() == EINTR) {
        }
      }
    }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    Context(Context&&) = delete;
    Context& operator=(Context&&) = delete;

    /// @brief The libzmq context (void*).
    void* Native() const noexcept { return context_; }

   private:
    void* context_;
  };

  /// @brief Exporter side: one DEALER socket per channel.
  class Sender {
   public:
    /// @brief Opens both channels; check Ok().
    Sender(Context& context, const ChannelEndpoints& endpoints, EndpointMode mode,
           const TransportOptions& options)
        : link_(context.Native(), endpoints, mode, options, ZMQ_DEALER) {}

    /// @brief True when both channels are open.
    bool Ok() const noexcept { return link_.Ok(); }
    /// @brief Why they are not.
    const std::string& Error() const noexcept { return link_.Error(); }

    /// @brief Hands one frame to `channel` without blocking.
    SendStatus TrySend(Channel channel, const uint8_t* data, std::size_t size) noexcept {
      const ByteSpan frame{data, size};
      return SendGathered(link_.Socket(channel), &frame, 1U, ZMQ_DONTWAIT);
    }

    /// @brief Hands `count` frames to `channel` as one message, without blocking: all of them
    /// are taken or none. They are written once, straight into ZeroMQ's message.
    SendStatus TrySendParts(Channel channel, const ByteSpan* parts, std::size_t count) noexcept {
      return SendGathered(link_.Socket(channel), parts, count, ZMQ_DONTWAIT);
    }

    /// @brief Sleeps until a wanted channel can take a frame, Wake() is called or `timeout_ms`.
    void Wait(bool high_writable, bool normal_writable, int timeout_ms) noexcept {
      link_.Poll(high_writable ? ZMQ_POLLOUT : 0, normal_writable ? ZMQ_POLLOUT : 0, timeout_ms);
    }

    /// @brief Takes one frame the importer sent back on `channel` (an end-of-stream
    /// confirmation) without blocking; it stays valid until the next call for that channel.
    bool TryReceiveReply(Channel channel, const uint8_t** data, std::size_t* size) noexcept {
      HeldMessage& reply = replies_[IndexOf(channel)];
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

    /// @brief The address a bound channel got (resolves "tcp://host:*").
    std::string BoundEndpoint(Channel channel) const { return link_.BoundEndpoint(channel); }

   private:
    Link link_;
    std::array<HeldMessage, kChannelCount> replies_{};
    HeldMessage spare_;
  };

  /// @brief Importer side: one ROUTER socket per channel (it knows which exporter sent a frame).
  class Receiver {
   public:
    /// @brief Opens both channels; check Ok().
    Receiver(Context& context, const ChannelEndpoints& endpoints, EndpointMode mode,
             const TransportOptions& options)
        : link_(context.Native(), endpoints, mode, options, ZMQ_ROUTER) {}

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
        return StatusOfFailedSend();
      }
      // Once the routing id was accepted, the last part is taken (ZeroMQ sends messages whole).
      const ByteSpan reply{data, size};
      return SendGathered(socket, &reply, 1U, ZMQ_DONTWAIT) == SendStatus::kSent
                 ? SendStatus::kSent
                 : SendStatus::kFailed;
    }

    /// @brief Sleeps until a frame may be there, Wake() is called or `timeout_ms` passed.
    void Wait(int timeout_ms) noexcept { link_.Poll(ZMQ_POLLIN, ZMQ_POLLIN, timeout_ms); }

    /// @brief Ends a Wait now or makes the next one return at once. Thread-safe.
    void Wake() noexcept { link_.Wake(); }

    /// @brief The address a bound channel got (resolves "tcp://host:*").
    std::string BoundEndpoint(Channel channel) const { return link_.BoundEndpoint(channel); }

   private:
    struct Incoming {
      HeldMessage peer;   // routing id of the exporter that sent `frame`
      HeldMessage frame;  // the last frame taken from the channel
    };

    Link link_;
    std::array<Incoming, kChannelCount> incoming_{};
    HeldMessage spare_;
  };
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_ZMQ_TRANSPORT_HPP_
