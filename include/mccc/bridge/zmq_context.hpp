// SPDX-License-Identifier: MIT
/// @file zmq_context.hpp
/// @brief `ZmqContext`: the ZeroMQ context of a process (ZmqTransport::Context), shared by its
/// exporters and importers; it owns the ZAP handler of the links' allow-lists of client keys
/// (zmq_zap_handler.hpp).
#ifndef MCCC_BRIDGE_ZMQ_CONTEXT_HPP_
#define MCCC_BRIDGE_ZMQ_CONTEXT_HPP_

#include <zmq.h>

#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "mccc/bridge/zmq_zap_handler.hpp"

namespace mccc {
namespace bridge {

namespace detail {
class ZmqLink;
}  // namespace detail

/// @brief The transport context a process shares among its exporters and importers
/// (ZmqTransport::Context). A ZeroMQ context: create one per process and give it to every
/// exporter and importer (inproc:// endpoints only connect within one context). Destroy it after
/// them. It owns the ZAP handler that enforces the links' allow-lists of client keys
/// (LinkSecurity), started by the first link that has one.
class ZmqContext {
 public:
  /// @brief A context with `io_threads` I/O threads.
  explicit ZmqContext(int io_threads = 1) noexcept : context_(zmq_ctx_new()) {
    if (context_ != nullptr) {
      // A refused thread count (out of range) leaves libzmq's default of one I/O thread.
      static_cast<void>(zmq_ctx_set(context_, ZMQ_IO_THREADS, io_threads));
    }
  }
  ~ZmqContext() {
    zap_.reset();  // its socket must close before the context can terminate
    if (context_ != nullptr) {
      // Waits until every socket is closed and its linger time has passed.
      while (zmq_ctx_term(context_) != 0 && zmq_errno() == EINTR) {
      }
    }
  }
  ZmqContext(const ZmqContext&) = delete;
  ZmqContext& operator=(const ZmqContext&) = delete;
  ZmqContext(ZmqContext&&) = delete;
  ZmqContext& operator=(ZmqContext&&) = delete;

  /// @brief The libzmq context (void*).
  void* Native() const noexcept { return context_; }

 private:
  friend class detail::ZmqLink;

  /// The ZAP handler, started on first use; nullptr with `error` set if it cannot start.
  detail::ZapHandler* Zap(std::string& error) {
    const std::lock_guard<std::mutex> lock(zap_mutex_);
    if (!zap_) {
      auto handler = std::make_unique<detail::ZapHandler>(context_);
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
  std::unique_ptr<detail::ZapHandler> zap_;
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_ZMQ_CONTEXT_HPP_
