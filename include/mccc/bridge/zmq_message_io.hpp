// SPDX-License-Identifier: MIT
/// @file zmq_message_io.hpp
/// @brief How the bridge's bytes go into ZeroMQ messages and come out of them: `SendGathered`
/// (parts written into one message of ZeroMQ's own), `HeldMessage` (a received message kept
/// until the next receive) and the hand-over marks for ThreadSanitizer.
///
/// Every part the transport sends is written into a ZeroMQ message of its own (zmq_msg_init_size),
/// not copied by zmq_send: over inproc:// libzmq hands that very buffer to the receiving thread
/// through its own lock-free pipes, which a ThreadSanitizer build cannot see (libzmq is not
/// built with it). Such a build marks the hand-over where it happens, a release on the bytes
/// before the send and an acquire on them after the receive, so that it checks every access of
/// the bridge's own threads without a suppression that would depend on TSan still holding the
/// stack of libzmq's copy.
#ifndef MCCC_BRIDGE_ZMQ_MESSAGE_IO_HPP_
#define MCCC_BRIDGE_ZMQ_MESSAGE_IO_HPP_

#include <zmq.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "mccc/bridge/channel.hpp"
#include "mccc/config.hpp"

#if MCCC_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace mccc {
namespace bridge {
namespace detail {

inline SendStatus StatusOfFailedSend() noexcept {
  return zmq_errno() == EAGAIN || zmq_errno() == EINTR ? SendStatus::kWouldBlock
                                                       : SendStatus::kFailed;
}

/// ThreadSanitizer builds: the sending half of a message's hand-over (file comment), after the
/// last write to its bytes; pairs with MarkReceived on the same bytes. Nothing elsewhere.
inline void ReleaseForTsan(void* bytes) noexcept {
#if MCCC_TSAN
  __tsan_release(bytes);
#else
  static_cast<void>(bytes);
#endif
}

/// @brief ThreadSanitizer builds: the receiving half of a message's hand-over (file comment;
/// pairs with the release in SendGathered on the same bytes), called with the bytes of every
/// part received (HeldMessage does it for the bridge's own receives; a tool that relays bridge
/// messages with the raw ZeroMQ API calls it too). Nothing in other builds. Thread-safe.
inline void MarkReceived(void* bytes) noexcept {
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
inline SendStatus SendGathered(void* socket, const ByteSpan* parts, std::size_t count,
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

}  // namespace detail
}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_ZMQ_MESSAGE_IO_HPP_
