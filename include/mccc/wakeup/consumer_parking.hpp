// SPDX-License-Identifier: MIT
/// @file consumer_parking.hpp
/// @brief Lets an idle consumer sleep in the kernel and be woken by the next publish, while a
/// producer pays one plain load (no system call) whenever the consumer is awake.
///
/// Handshake (Dekker style, everything seq_cst):
///   consumer: sleeping_ = 1; if (ring has a claimed position) { sleeping_ = 0; } else wait.
///   producer: claim a position (seq_cst CAS, or a seq_cst fence in single-producer mode);
///             if (sleeping_ == 1) wake.
/// In the single total order either the claim comes first (the consumer sees it and does not
/// sleep) or the consumer's store comes first (the producer sees 1 and wakes it): no lost wakeup.
/// The consumer also bounds every sleep with a timeout, so even a misuse costs latency, not a hang.
///
/// How the consumer sleeps is the bus traits' ConsumerWait:
/// - KernelConsumerWait (hosted default): a futex on `sleeping_` itself on Linux; a mutex and a
///   condition variable elsewhere (taken only on the sleep/wake slow paths).
/// - NoConsumerWait (bare-metal default): Park returns at once.
/// - A hook of the user's: `static void Wait(uint32_t timeout_us) noexcept` blocks until Notify
///   (or the timeout, or spuriously), `static void Notify() noexcept` is called by the producer
///   that finds the consumer asleep, from a task or an interrupt handler. The same handshake
///   applies, so Notify can come after the consumer announced its sleep but before it called
///   Wait: the hook must remember it (a binary semaphore given, a task notification, an event
///   flag, SEV before WFE on Cortex-M), never rely on the consumer already waiting (plain WFI
///   would lose it). examples/rtos_wait_hook.cpp shows a FreeRTOS-shaped hook.
#ifndef MCCC_WAKEUP_CONSUMER_PARKING_HPP_
#define MCCC_WAKEUP_CONSUMER_PARKING_HPP_

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "mccc/config.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/platform/critical_section.hpp"

#if MCCC_HOSTED && defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06 (platform selection)
#define MCCC_PARKING_FUTEX 1
#elif MCCC_HOSTED
#include <chrono>
#include <condition_variable>
#include <mutex>
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06 (platform selection)
#define MCCC_PARKING_FUTEX 0
#else
// Bare metal: no operating system to sleep in (a consumer wait hook, or spinning).
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06 (platform selection)
#define MCCC_PARKING_FUTEX 0
#endif

namespace mccc {

/// @brief ConsumerWait: sleep in the kernel (futex, or a condition variable). Hosted only.
struct KernelConsumerWait {};

/// @brief ConsumerWait: never sleep (WaitForMessages returns at once).
struct NoConsumerWait {};

#if MCCC_HOSTED
/// @brief The ConsumerWait of DefaultBusTraits.
using DefaultConsumerWait = KernelConsumerWait;
#else
/// @brief The ConsumerWait of DefaultBusTraits (supply a hook for an RTOS or WFE).
using DefaultConsumerWait = NoConsumerWait;
#endif

namespace detail {

/// @brief True when `Wait` is a user hook (static Wait(uint32_t) and Notify()).
template <typename Wait>
inline constexpr bool kIsConsumerWaitHook =
    !std::is_same_v<Wait, KernelConsumerWait> && !std::is_same_v<Wait, NoConsumerWait>;

template <typename Wait, typename = void>
struct IsConsumerWaitHookShape : std::false_type {};

template <typename Wait>
struct IsConsumerWaitHookShape<
    Wait, std::void_t<decltype(Wait::Wait(uint32_t{0})), decltype(Wait::Notify())>>
    : std::bool_constant<noexcept(Wait::Wait(uint32_t{0}))&& noexcept(Wait::Notify())> {};

/// @brief The sleep/wake rendezvous of one bus's consumer.
/// @tparam Wait KernelConsumerWait, NoConsumerWait or a user hook (file comment).
/// @tparam kSingleCore, CriticalSection As for the bus (a hook's handshake uses the bus's
/// atomics helpers, so it works on cores without atomic read-modify-write).
template <typename Wait = DefaultConsumerWait, bool kSingleCore = false,
          typename CriticalSection = NoCriticalSection>
class ConsumerParking {
  static_assert(!std::is_same_v<Wait, KernelConsumerWait> || MCCC_HOSTED,
                "mccc: KernelConsumerWait needs a hosted platform; use NoConsumerWait or a hook "
                "with static Wait(uint32_t) and Notify() on bare metal");
  static_assert(!detail::kIsConsumerWaitHook<Wait> || detail::IsConsumerWaitHookShape<Wait>::value,
                "mccc: a ConsumerWait hook needs `static void Wait(uint32_t timeout_us) noexcept` "
                "and `static void Notify() noexcept`");

 public:
  /// True when a consumer can sleep at all (producers then check for a sleeper).
  static constexpr bool kCanSleep = !std::is_same_v<Wait, NoConsumerWait>;

  constexpr ConsumerParking() noexcept = default;
  ~ConsumerParking() = default;
  ConsumerParking(const ConsumerParking&) = delete;
  ConsumerParking& operator=(const ConsumerParking&) = delete;
  ConsumerParking(ConsumerParking&&) = delete;
  ConsumerParking& operator=(ConsumerParking&&) = delete;

  /// @brief Producer, after its seq_cst claim: wakes a sleeping consumer. One load when awake.
  /// Thread-safe, lock-free unless the consumer sleeps (then one system call by one producer).
  MCCC_ALWAYS_INLINE void NotifyAfterClaim() noexcept {
    // seq_cst: the producer's half of the handshake (file comment); pairs with Park's store.
    if (MCCC_UNLIKELY(detail::LoadSeqCst<kSingleCore>(sleeping_) != 0U)) {
      WakeSlow();
    }
  }

  /// @brief A full (StoreLoad) fence for producers whose claim was not itself a seq_cst RMW
  /// (single-producer mode) and for WakeConsumer. Under ThreadSanitizer, which does not model
  /// fences, the same order comes from a seq_cst RMW on a word nobody else reads.
  MCCC_ALWAYS_INLINE void FullFence() noexcept {
    if constexpr (kSingleCore) {
      // One core: program order is all, the compiler must only keep it.
      std::atomic_signal_fence(std::memory_order_seq_cst);
      return;
    }
#if MCCC_TSAN
    static_cast<void>(fence_word_.fetch_add(0U, std::memory_order_seq_cst));
#else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  }

  /// @brief Whether any consumer may sleep (then producers whose claim is a plain store add the
  /// seq_cst fence it lacks). Set once by the consumer before it first parks.
  bool SleepEnabled() const noexcept {
    // relaxed: a stale false is safe only where the consumer follows EnableSleep with a
    // process-wide barrier or runs on the producers' one core (AsyncBus::EnableSleep); the bus
    // does not rely on this read elsewhere.
    return sleep_enabled_.load(std::memory_order_relaxed);
  }

  /// @brief Consumer: announces that it may sleep from now on (see SleepEnabled).
  void EnableSleep() noexcept {
    // seq_cst: ordered before the first Park's handshake store.
    sleep_enabled_.store(true, std::memory_order_seq_cst);
  }

  /// @brief Consumer only: sleeps up to `timeout_us` unless `has_claimed_work()` is true after
  /// announcing the sleep. Returns when woken, on timeout, or at once if there is work.
  template <typename HasWork>
  void Park(HasWork&& has_claimed_work, uint32_t timeout_us) noexcept {
    if constexpr (detail::kIsConsumerWaitHook<Wait>) {
      // seq_cst: the consumer's half of the handshake (pairs with NotifyAfterClaim's load).
      detail::StoreSeqCst<kSingleCore>(sleeping_, 1U);
      // seq_cst exchange: pairs with RequestWake's seq_cst store (as in the kernel path).
      if (has_claimed_work() ||
          detail::ExchangeSeqCst<kSingleCore, CriticalSection>(wake_requested_, false)) {
        // seq_cst (stronger than the kernel path's relaxed): cancelling; pairs with nothing, a
        // producer that still reads 1 only makes one harmless Notify.
        detail::StoreSeqCst<kSingleCore>(sleeping_, 0U);
        return;
      }
      Wait::Wait(timeout_us);  // returns at once if Notify came since the store above
      // seq_cst: back awake; as above, a late Notify is harmless (a spurious wake-up later).
      detail::StoreSeqCst<kSingleCore>(sleeping_, 0U);
      return;
    } else if constexpr (!kCanSleep) {
      static_cast<void>(has_claimed_work);
      static_cast<void>(timeout_us);  // NoConsumerWait: never sleeps
    } else {
      ParkInKernel(std::forward<HasWork>(has_claimed_work), timeout_us);
    }
  }

  /// @brief Any thread: makes the consumer's current or next Park return at once (a stop
  /// request, for example). Not lost if the consumer has not parked yet. Thread-safe.
  void RequestWake() noexcept {
    // seq_cst: the waker's half of the handshake; pairs with Park's exchange after its store.
    detail::StoreSeqCst<kSingleCore>(wake_requested_, true);
    NotifyAfterClaim();
  }

  /// @brief Snapshot: true while the consumer is (about to be) asleep. Thread-safe.
  bool IsConsumerSleeping() const noexcept {
    // relaxed: a diagnostic snapshot.
    return sleeping_.load(std::memory_order_relaxed) != 0U;
  }

 private:
  template <typename HasWork>
  void ParkInKernel(HasWork&& has_claimed_work, uint32_t timeout_us) noexcept {
#if MCCC_HOSTED
    // seq_cst: the consumer's half of the handshake (pairs with NotifyAfterClaim's load).
    sleeping_.store(1U, std::memory_order_seq_cst);
    // seq_cst exchange: pairs with RequestWake's seq_cst store (same Dekker argument): a wake
    // requested before this point is seen here, one requested after sees sleeping_ == 1.
    if (has_claimed_work() || wake_requested_.exchange(false, std::memory_order_seq_cst)) {
      // relaxed: cancelling; a producer that still reads 1 only makes one harmless wake call.
      sleeping_.store(0U, std::memory_order_relaxed);
      return;
    }
#if MCCC_PARKING_FUTEX
    std::timespec timeout{};
    timeout.tv_sec = static_cast<std::time_t>(timeout_us / 1000000U);
    timeout.tv_nsec = static_cast<long>((timeout_us % 1000000U) * 1000U);
    // Sleeps only while sleeping_ still reads 1 (the kernel re-checks atomically). The result is
    // not needed: a timeout, a signal or a changed word (EAGAIN) all lead to the same re-check.
    static_cast<void>(
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg): deviation D-05 (futex system call)
        syscall(SYS_futex, FutexWord(), FUTEX_WAIT_PRIVATE, 1U, &timeout, nullptr, 0));
#else
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait_for(lock, std::chrono::microseconds(timeout_us),
                   [this] { return sleeping_.load(std::memory_order_seq_cst) == 0U; });
    }
#endif
    // relaxed: back awake; see the cancel case above.
    sleeping_.store(0U, std::memory_order_relaxed);
#else
    static_cast<void>(has_claimed_work);
    static_cast<void>(timeout_us);
#endif
  }

  MCCC_NOINLINE void WakeSlow() noexcept {
    if constexpr (detail::kIsConsumerWaitHook<Wait>) {
      // seq_cst exchange: only the producer that flips 1 -> 0 notifies; the hook's own
      // synchronisation (semaphore, event) carries the wake-up to the consumer.
      if (detail::ExchangeSeqCst<kSingleCore, CriticalSection>(sleeping_, 0U) == 1U) {
        Wait::Notify();
      }
      return;
    }
#if MCCC_HOSTED
    // seq_cst exchange: only the producer that flips 1 -> 0 makes the system call.
    if (sleeping_.exchange(0U, std::memory_order_seq_cst) == 1U) {
#if MCCC_PARKING_FUTEX
      // The number of woken waiters is not needed: none means the consumer was not asleep yet
      // and sees sleeping_ == 0 when it re-checks.
      static_cast<void>(
          // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg): deviation D-05 (futex system call)
          syscall(SYS_futex, FutexWord(), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0));
#else
      { std::lock_guard<std::mutex> lock(mutex_); }  // the sleeper is waiting or has not checked
      cv_.notify_one();
#endif
    }
#endif
  }

#if MCCC_PARKING_FUTEX
  // std::atomic<uint32_t> is a plain 32-bit word on Linux targets (checked below), which is
  // what the futex system call operates on.
  uint32_t* FutexWord() noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviations D-02, D-05
    return reinterpret_cast<uint32_t*>(&sleeping_);
  }
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t),
                "futex parking needs std::atomic<uint32_t> to be a plain 32-bit word");
#endif

  std::atomic<uint32_t> sleeping_{0U};
  std::atomic<bool> sleep_enabled_{false};
  std::atomic<bool> wake_requested_{false};
#if MCCC_TSAN
  std::atomic<uint32_t> fence_word_{0U};
#endif
#if MCCC_HOSTED && !MCCC_PARKING_FUTEX
  std::mutex mutex_;
  std::condition_variable cv_;
#endif
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_WAKEUP_CONSUMER_PARKING_HPP_
