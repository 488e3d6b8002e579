// SPDX-License-Identifier: MIT
/// @file control_lock.hpp
/// @brief The lock of the cold control paths (subscribe, unsubscribe, statistics reset,
/// component bookkeeping): a spin lock on multi-core targets, the critical section on a
/// single-core build that has one.
///
/// Why two: on one core, a caller that interrupted (or, under an RTOS, preempted) the holder of
/// a spin lock would spin forever, because the holder cannot run until the caller returns. A
/// critical section cannot be "held by someone else": entering it keeps every other holder out
/// for its (bounded) duration, so the control calls become safe in interrupt handlers. On
/// several cores the holder keeps running, so spinning is bounded by its short section.
#ifndef MCCC_DETAIL_CONTROL_LOCK_HPP_
#define MCCC_DETAIL_CONTROL_LOCK_HPP_

#include <atomic>
#include <type_traits>

#include "mccc/detail/spin_lock.hpp"
#include "mccc/platform/critical_section.hpp"

namespace mccc {
namespace detail {

/// @brief What a critical section's Enter returns (an empty type when none is used).
template <typename CriticalSection, bool kUsed>
struct SavedInterruptState {
  struct Type {};
};

template <typename CriticalSection>
struct SavedInterruptState<CriticalSection, true> {
  using Type = decltype(CriticalSection::Enter());
};

/// @brief lock() / try_lock() / unlock() over a SpinLock, or over `CriticalSection` when
/// `kSingleCore` and a critical section is given (try_lock then always succeeds).
template <bool kSingleCore, typename CriticalSection>
class ControlLock {
 public:
  /// True when the lock never waits (the critical-section form).
  static constexpr bool kNeverWaits = kSingleCore && kHasCriticalSection<CriticalSection>;

  void lock() noexcept {
    if constexpr (kNeverWaits) {
      state_.saved = CriticalSection::Enter();
      std::atomic_signal_fence(std::memory_order_seq_cst);  // keep the section's accesses inside
    } else {
      state_.spin.lock();
    }
  }

  bool try_lock() noexcept {
    if constexpr (kNeverWaits) {
      lock();
      return true;
    } else {
      return state_.spin.try_lock();
    }
  }

  void unlock() noexcept {
    if constexpr (kNeverWaits) {
      std::atomic_signal_fence(std::memory_order_seq_cst);
      CriticalSection::Exit(state_.saved);
    } else {
      state_.spin.unlock();
    }
  }

 private:
  // One member only, whichever form is in use (a few bytes less of scarce MCU RAM per lock):
  // the saved interrupt state of the current holder (written and read inside the section only:
  // nobody else can enter it meanwhile on this core), or the spin lock.
  struct SectionState {
    typename SavedInterruptState<CriticalSection, kNeverWaits>::Type saved{};
  };
  struct SpinState {
    SpinLock spin;
  };
  std::conditional_t<kNeverWaits, SectionState, SpinState> state_{};
};

/// @brief RAII holder for a ControlLock or a SpinLock (anything with lock() and unlock()).
template <typename Lock>
class ControlLockGuard {
 public:
  explicit ControlLockGuard(Lock& lock) noexcept : lock_(lock) { lock_.lock(); }
  ~ControlLockGuard() { lock_.unlock(); }
  ControlLockGuard(const ControlLockGuard&) = delete;
  ControlLockGuard& operator=(const ControlLockGuard&) = delete;
  ControlLockGuard(ControlLockGuard&&) = delete;
  ControlLockGuard& operator=(ControlLockGuard&&) = delete;

 private:
  Lock& lock_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_CONTROL_LOCK_HPP_
