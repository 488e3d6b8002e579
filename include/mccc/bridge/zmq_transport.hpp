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
/// Security (LinkSecurity, off by default): CURVE on both sockets of a link, the binding side the
/// server; a binding side's allow-list of client keys is enforced by the context's ZAP handler
/// thread (ZapHandler below), which counts the clients it refuses.
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
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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
  /// @brief The largest message an exporter's socket takes: a confirmation is one frame header,
  /// but ZeroMQ applies the limit to the encrypted message and to CURVE's handshake commands as
  /// well (its WELCOME is 168 bytes), so the bound leaves them room.
  static constexpr int64_t kReplyBytes = 1024;

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

  /// The allow-list of one binding link, as the ZAP handler sees it: ZeroMQ names it by the
  /// link's ZAP domain.
  struct ZapDomain {
    std::string name;                              // ZMQ_ZAP_DOMAIN of the link's sockets
    std::vector<std::array<uint8_t, 32>> allowed;  // client public keys, binary
    std::atomic<uint64_t> refused{0U};             // written by the ZAP thread only
  };

  /// The ZAP handler of a context (RFC 27: ZeroMQ asks it, over inproc://zeromq.zap.01, whether
  /// a client that completed the CURVE handshake may connect). One per context, on a thread of
  /// its own, started by the first link with an allow-list and stopped by the context before
  /// it terminates. A client whose public key is not in its link's allow-list is refused
  /// (status 400) and counted; a CURVE server without an allow-list (domain "") accepts any
  /// client that holds a key pair; any other domain is refused.
  class ZapHandler {
   public:
    explicit ZapHandler(void* context) {
      socket_ = zmq_socket(context, ZMQ_REP);
      const int linger = 0;
      ok_ = socket_ != nullptr &&
            zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger)) == 0 &&
            zmq_bind(socket_, "inproc://zeromq.zap.01") == 0;
      if (!ok_) {
        error_ = std::string("ZAP handler: ") + zmq_strerror(zmq_errno());
        return;
      }
      thread_ = std::thread([this]() noexcept { Run(); });
    }
    ~ZapHandler() {
      // release: pairs with the acquire load in Run, which then ends within one poll.
      stop_.store(true, std::memory_order_release);
      if (thread_.joinable()) {
        thread_.join();
      }
      if (socket_ != nullptr) {
        static_cast<void>(zmq_close(socket_));  // fails only for an invalid socket
      }
    }
    ZapHandler(const ZapHandler&) = delete;
    ZapHandler& operator=(const ZapHandler&) = delete;
    ZapHandler(ZapHandler&&) = delete;
    ZapHandler& operator=(ZapHandler&&) = delete;

    bool Ok() const noexcept { return ok_; }
    const std::string& Error() const noexcept { return error_; }

    /// A new domain allowing `keys` (Z85); nullptr with `error` set when a key is not Z85.
    std::shared_ptr<ZapDomain> Register(const std::vector<std::string>& keys, std::string& error) {
      auto domain = std::make_shared<ZapDomain>();
      for (const std::string& key : keys) {
        std::array<uint8_t, 32> binary{};
        if (key.size() != 40U || zmq_z85_decode(binary.data(), key.c_str()) == nullptr) {
          error = "CURVE: an allowed client key is not 40 characters of Z85";
          return nullptr;
        }
        domain->allowed.push_back(binary);
      }
      const std::lock_guard<std::mutex> lock(mutex_);
      domain->name = "mccc-bridge-" + std::to_string(next_domain_++);
      domains_.push_back(domain);
      return domain;
    }

    /// Forgets `domain` (its link is closing).
    void Unregister(const std::shared_ptr<ZapDomain>& domain) {
      const std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = domains_.begin(); it != domains_.end(); ++it) {
        if (*it == domain) {
          static_cast<void>(domains_.erase(it));
          return;
        }
      }
    }

   private:
    static constexpr std::size_t kRequestParts = 7U;  // RFC 27, before the mechanism's credentials

    void Run() noexcept {
      // acquire: pairs with the destructor's release store.
      while (!stop_.load(std::memory_order_acquire)) {
        zmq_pollitem_t item{socket_, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 50) > 0) {
          Answer();
        }
      }
    }

    /// Reads one request (all its parts) and sends its reply.
    void Answer() noexcept {
      std::array<std::string, kRequestParts> parts{};
      std::size_t count = 0U;
      bool more = true;
      while (more) {
        zmq_msg_t part;
        static_cast<void>(zmq_msg_init(&part));
        if (zmq_msg_recv(&part, socket_, ZMQ_DONTWAIT) < 0) {
          static_cast<void>(zmq_msg_close(&part));
          return;  // a REP socket hands requests over whole: not reached
        }
        if (count < kRequestParts) {
          parts[count].assign(static_cast<const char*>(zmq_msg_data(&part)), zmq_msg_size(&part));
        }
        ++count;
        more = zmq_msg_more(&part) != 0;
        static_cast<void>(zmq_msg_close(&part));
      }
      // Parts: version, request id, domain, address, identity, mechanism, credentials.
      const bool allowed =
          count == kRequestParts && parts[0] == "1.0" && Allows(parts[2], parts[5], parts[6]);
      const std::array<std::string, 6> reply = {
          std::string("1.0"),
          parts[1],
          std::string(allowed ? "200" : "400"),
          std::string(allowed ? "OK" : "client key not allowed"),
          std::string(),
          std::string()};
      for (std::size_t i = 0U; i < reply.size(); ++i) {
        const int flags = i + 1U < reply.size() ? ZMQ_SNDMORE : 0;
        if (zmq_send(socket_, reply[i].data(), reply[i].size(), flags) < 0) {
          return;  // the context is terminating
        }
      }
    }

    bool Allows(const std::string& domain_name, const std::string& mechanism,
                const std::string& credentials) noexcept {
      if (domain_name.empty()) {
        return true;  // a link without an allow-list: CURVE's handshake was enough
      }
      const std::lock_guard<std::mutex> lock(mutex_);
      for (const std::shared_ptr<ZapDomain>& domain : domains_) {
        if (domain->name != domain_name) {
          continue;
        }
        if (mechanism == "CURVE" && credentials.size() == 32U) {
          for (const std::array<uint8_t, 32>& key : domain->allowed) {
            if (std::memcmp(key.data(), credentials.data(), key.size()) == 0) {
              return true;
            }
          }
        }
        // relaxed: a statistic, written by this thread only (load + store, no RMW needed).
        domain->refused.store(domain->refused.load(std::memory_order_relaxed) + 1U,
                              std::memory_order_relaxed);
        return false;
      }
      return false;  // a domain no link registered
    }

    void* socket_ = nullptr;
    std::thread thread_;
    std::mutex mutex_;  // domains_: the control thread registers, the ZAP thread reads
    std::vector<std::shared_ptr<ZapDomain>> domains_;
    uint64_t next_domain_ = 0U;
    std::atomic<bool> stop_{false};
    std::string error_;
    bool ok_ = false;
  };

 public:
  /// @brief A ZeroMQ context: create one per process and give it to every exporter and importer
  /// (inproc:// endpoints only connect within one context). Destroy it after them. It owns the
  /// ZAP handler that enforces the links' allow-lists of client keys (LinkSecurity), started by
  /// the first link that has one.
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
      zap_.reset();  // its socket must close before the context can terminate
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
    friend class ZmqTransport;

    /// The ZAP handler, started on first use; nullptr with `error` set if it cannot start.
    ZapHandler* Zap(std::string& error) {
      const std::lock_guard<std::mutex> lock(zap_mutex_);
      if (!zap_) {
        auto handler = std::make_unique<ZapHandler>(context_);
        if (!handler->Ok()) {
          error = handler->Error();
          return nullptr;
        }
        zap_ = std::move(handler);
      }
      return zap_.get();
    }

    void* context_;
    std::mutex zap_mutex_;  // links of several controlling threads may open at once
    std::unique_ptr<ZapHandler> zap_;
  };

 private:
  /// The two sockets of one side of a link (one per channel), plus its wake-up descriptor.
  class Link {
   public:
    Link(Context& owner, const ChannelEndpoints& endpoints, EndpointMode mode,
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

    ~Link() {
      for (void* socket : sockets_) {
        if (socket != nullptr) {
          static_cast<void>(zmq_close(socket));  // fails only for an invalid socket
        }
      }
      if (zap_ != nullptr && domain_) {
        zap_->Unregister(domain_);
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
    bool PrepareSecurity(Context& owner, const LinkSecurity& security, EndpointMode mode) {
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
      return zmq_setsockopt(socket, ZMQ_CURVE_SERVERKEY, security.server_public_key.c_str(),
                            kZ85) == 0 &&
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

  /// @brief Exporter side: one DEALER socket per channel.
  class Sender {
   public:
    /// @brief Opens both channels; check Ok().
    Sender(Context& context, const ChannelEndpoints& endpoints, EndpointMode mode,
           const TransportOptions& options)
        : link_(context, endpoints, mode, options, ZMQ_DEALER) {}

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

    /// @brief Clients refused by this link's allow-list of keys (LinkSecurity). Thread-safe.
    uint64_t RefusedPeers() const noexcept { return link_.RefusedPeers(); }

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

    /// @brief Clients refused by this link's allow-list of keys (LinkSecurity). Thread-safe.
    uint64_t RefusedPeers() const noexcept { return link_.RefusedPeers(); }

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
