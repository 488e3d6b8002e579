// SPDX-License-Identifier: MIT
/// @file zmq_wake_signal.hpp
/// @brief `detail::WakeSignal`: the wake-up file descriptor of a ZeroMQ link (eventfd on Linux,
/// a pipe elsewhere). It sits in the same zmq_poll as the link's sockets, so that a sleeping
/// sender or receiver thread is woken at once by a new frame or by Stop.
#ifndef MCCC_BRIDGE_ZMQ_WAKE_SIGNAL_HPP_
#define MCCC_BRIDGE_ZMQ_WAKE_SIGNAL_HPP_

#include <array>
#include <cstddef>
#include <cstdint>

#include <fcntl.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/eventfd.h>
#endif

namespace mccc {
namespace bridge {
namespace detail {

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

}  // namespace detail
}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_ZMQ_WAKE_SIGNAL_HPP_
