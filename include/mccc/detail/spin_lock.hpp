// SPDX-License-Identifier: MIT
/// @file spin_lock.hpp
/// @brief A tiny test-and-set lock for the cold paths (subscribe, unsubscribe, reset): works
/// without an OS, and is never taken by the consumer's dispatch loop.
#ifndef MCCC_DETAIL_SPIN_LOCK_HPP_
#define MCCC_DETAIL_SPIN_LOCK_HPP_

#include <atomic>

#include "mccc/config.hpp"
#include "mccc/detail/cpu_relax.hpp"

#if MCCC_HOSTED
#include <thread>
#endif

namespace mccc {
namespace detail {

/// @brief Mutual exclusion for short, non-blocking critical sections. Not recursive. Do not take
/// it from an interrupt handler that may preempt a holder on the same core.
class SpinLock {
 public:
  /// @brief Blocks (spinning, yielding on hosted platforms) until the lock is held.
  void lock() noexcept {
    // acquire: pairs with the release in unlock(), so the previous holder's writes are visible.
    while (flag_.test_and_set(std::memory_order_acquire)) {
      CpuRelax();
#if MCCC_HOSTED
      std::this_thread::yield();
#endif
    }
  }
  /// @brief Takes the lock if it is free; never waits. True when taken.
  bool try_lock() noexcept {
    // acquire: pairs with the release in unlock() (as in lock()).
    return !flag_.test_and_set(std::memory_order_acquire);
  }
  /// @brief Releases the lock.
  void unlock() noexcept {
    // release: publishes this holder's writes to the next lock() (its acquire).
    flag_.clear(std::memory_order_release);
  }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_SPIN_LOCK_HPP_
