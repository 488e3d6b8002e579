// SPDX-License-Identifier: MIT
/// @file zmq_zap_handler.hpp
/// @brief `detail::ZapHandler`: the ZAP handler of a ZeroMQ context, which enforces the
/// allow-lists of client keys of the binding links that have one (LinkSecurity).
///
/// Security (LinkSecurity, off by default): CURVE on both sockets of a link, the binding side the
/// server (zmq_link.hpp); a binding side's allow-list of client keys is enforced by the context's
/// ZAP handler thread (ZapHandler below), which counts the clients it refuses.
#ifndef MCCC_BRIDGE_ZMQ_ZAP_HANDLER_HPP_
#define MCCC_BRIDGE_ZMQ_ZAP_HANDLER_HPP_

#include <zmq.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mccc {
namespace bridge {
namespace detail {

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
    ok_ = socket_ != nullptr && zmq_setsockopt(socket_, ZMQ_LINGER, &linger, sizeof(linger)) == 0 &&
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

}  // namespace detail
}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_ZMQ_ZAP_HANDLER_HPP_
