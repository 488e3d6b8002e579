// SPDX-License-Identifier: MIT
/// @file scoped_flag.hpp
/// @brief A flag that is set for the lifetime of a scope: the one RAII guard behind the
/// re-entry and misuse detectors (state machine dispatch, debug checks of the single producer
/// and the single consumer).
#ifndef MCCC_DETAIL_SCOPED_FLAG_HPP_
#define MCCC_DETAIL_SCOPED_FLAG_HPP_

#include <atomic>
#include <type_traits>

namespace mccc {
namespace detail {

/// @brief Sets `flag` on construction, clears it on destruction; `WasSet()` tells whether it was
/// already set (re-entry, or a second thread). `Flag` is `bool` (one thread) or
/// `std::atomic<bool>` (detects a concurrent second holder; acquire on entry, release on exit,
/// so successive holders on different threads are ordered).
template <typename Flag>
class ScopedFlag {
  static_assert(std::is_same_v<Flag, bool> || std::is_same_v<Flag, std::atomic<bool>>,
                "mccc: ScopedFlag guards a bool or a std::atomic<bool>");

 public:
  explicit ScopedFlag(Flag& flag) noexcept : flag_(flag), was_set_(Enter(flag)) {}
  ~ScopedFlag() { Leave(flag_); }
  ScopedFlag(const ScopedFlag&) = delete;
  ScopedFlag& operator=(const ScopedFlag&) = delete;
  ScopedFlag(ScopedFlag&&) = delete;
  ScopedFlag& operator=(ScopedFlag&&) = delete;

  /// @brief True when the flag was already set on entry.
  bool WasSet() const noexcept { return was_set_; }

 private:
  static bool Enter(bool& flag) noexcept {
    const bool was_set = flag;
    flag = true;
    return was_set;
  }
  static bool Enter(std::atomic<bool>& flag) noexcept {
    if constexpr (std::atomic<bool>::is_always_lock_free) {
      // acquire: pairs with the release store of the previous holder's Leave.
      return flag.exchange(true, std::memory_order_acquire);
    } else {
      // A core without atomic exchange (Cortex-M0): a load and a store. Only the debug
      // detectors use an atomic flag; an interrupt landing between the two goes unnoticed.
      // acquire: pairs with Leave's release store (as above).
      const bool was_set = flag.load(std::memory_order_acquire);
      flag.store(true, std::memory_order_relaxed);  // relaxed: read back by this holder only
      return was_set;
    }
  }
  static void Leave(bool& flag) noexcept { flag = false; }
  static void Leave(std::atomic<bool>& flag) noexcept {
    // release: pairs with the next holder's acquire exchange in Enter.
    flag.store(false, std::memory_order_release);
  }

  Flag& flag_;
  const bool was_set_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_SCOPED_FLAG_HPP_
