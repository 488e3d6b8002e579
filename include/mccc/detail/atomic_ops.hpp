// SPDX-License-Identifier: MIT
/// @file atomic_ops.hpp
/// @brief Acquire/release helpers that become relaxed operations plus compiler-only fences in a
/// single-core build (kSingleCore): on one core every thread observes memory in program order,
/// so only the compiler must be kept from reordering; interrupt handlers see the same core.
/// A single-core build with a critical section (platform/critical_section.hpp) also turns every
/// read-modify-write into a relaxed load and store inside that section: the operation is then
/// atomic against interrupt handlers and tasks on that core without any RMW instruction.
#ifndef MCCC_DETAIL_ATOMIC_OPS_HPP_
#define MCCC_DETAIL_ATOMIC_OPS_HPP_

#include <atomic>

#include "mccc/config.hpp"
#include "mccc/platform/critical_section.hpp"

namespace mccc {
namespace detail {

/// @brief `a.load(acquire)`, or a relaxed load followed by a compiler fence on one core.
template <bool kSingleCore, typename T>
MCCC_ALWAYS_INLINE T LoadAcquire(const std::atomic<T>& a) noexcept {
  if constexpr (kSingleCore) {
    const T value = a.load(std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_acquire);
    return value;
  } else {
    return a.load(std::memory_order_acquire);
  }
}

/// @brief `a.store(v, release)`, or a compiler fence followed by a relaxed store on one core.
template <bool kSingleCore, typename T>
MCCC_ALWAYS_INLINE void StoreRelease(std::atomic<T>& a, T value) noexcept {
  if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_release);
    a.store(value, std::memory_order_relaxed);
  } else {
    a.store(value, std::memory_order_release);
  }
}

/// @brief A sequentially consistent load (Dekker-style handshakes), compiler-only on one core.
template <bool kSingleCore, typename T>
MCCC_ALWAYS_INLINE T LoadSeqCst(const std::atomic<T>& a) noexcept {
  if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const T value = a.load(std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return value;
  } else {
    return a.load(std::memory_order_seq_cst);
  }
}

/// @brief A sequentially consistent store (Dekker-style handshakes), compiler-only on one core.
template <bool kSingleCore, typename T>
MCCC_ALWAYS_INLINE void StoreSeqCst(std::atomic<T>& a, T value) noexcept {
  if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    a.store(value, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
  } else {
    a.store(value, std::memory_order_seq_cst);
  }
}

/// @brief A compare-and-store made atomic by a critical section (single core). The section's
/// compiler barriers order it like a seq_cst operation on one core.
template <typename CriticalSection, typename T>
MCCC_ALWAYS_INLINE bool CasInCriticalSection(std::atomic<T>& a, T& expected, T desired) noexcept {
  const CriticalSectionGuard<CriticalSection> section;
  // relaxed (both): nothing else runs on this core inside the section.
  const T current = a.load(std::memory_order_relaxed);
  if (current != expected) {
    expected = current;
    return false;
  }
  a.store(desired, std::memory_order_relaxed);
  return true;
}

/// @brief True when read-modify-writes of a single-core build go through `CriticalSection`.
template <bool kSingleCore, typename CriticalSection>
inline constexpr bool kRmwInCriticalSection = kSingleCore&& kHasCriticalSection<CriticalSection>;

/// @brief True when `T`'s read-modify-writes are available on this target: lock-free atomic
/// instructions, or a single-core build's critical section.
template <bool kSingleCore, typename CriticalSection, typename T>
inline constexpr bool kRmwAvailable =
    std::atomic<T>::is_always_lock_free || kRmwInCriticalSection<kSingleCore, CriticalSection>;

/// @brief `a.fetch_add(1, seq_cst)`, or a relaxed increment between compiler fences on one core
/// (still one atomic read-modify-write against interrupt handlers, or a load and a store inside
/// the critical section).
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE T FetchIncrementSeqCst(std::atomic<T>& a) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    const CriticalSectionGuard<CriticalSection> section;
    // relaxed (both): inside the section nothing else on this core runs; the section's compiler
    // barriers keep the surrounding accesses in program order.
    const T old = a.load(std::memory_order_relaxed);
    a.store(static_cast<T>(old + T{1}), std::memory_order_relaxed);
    return old;
  } else if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const T old = a.fetch_add(T{1}, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return old;
  } else {
    return a.fetch_add(T{1}, std::memory_order_seq_cst);
  }
}

/// @brief `a.fetch_add(n, relaxed)`: a shared counter that orders nothing (statistics, serials).
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE T FetchAddRelaxed(std::atomic<T>& a, T n) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    const CriticalSectionGuard<CriticalSection> section;
    // relaxed (both): the section makes the pair atomic; nothing is ordered through it.
    const T old = a.load(std::memory_order_relaxed);
    a.store(static_cast<T>(old + n), std::memory_order_relaxed);
    return old;
  } else {
    return a.fetch_add(n, std::memory_order_relaxed);
  }
}

/// @brief `a.exchange(v, acquire)`, or a load and a store inside the critical section.
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE T ExchangeAcquire(std::atomic<T>& a, T value) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    T old;
    {
      const CriticalSectionGuard<CriticalSection> section;
      // relaxed (both): the section makes the pair atomic on this core.
      old = a.load(std::memory_order_relaxed);
      a.store(value, std::memory_order_relaxed);
    }
    std::atomic_signal_fence(std::memory_order_acquire);
    return old;
  } else {
    return a.exchange(value, std::memory_order_acquire);
  }
}

/// @brief `a.exchange(v, seq_cst)` (Dekker-style handshakes); a load and a store inside the
/// critical section, or a relaxed exchange between compiler fences, on one core.
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE T ExchangeSeqCst(std::atomic<T>& a, T value) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    const CriticalSectionGuard<CriticalSection> section;
    // relaxed (both): the section makes the pair atomic and keeps program order on this core.
    const T old = a.load(std::memory_order_relaxed);
    a.store(value, std::memory_order_relaxed);
    return old;
  } else if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const T old = a.exchange(value, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return old;
  } else {
    return a.exchange(value, std::memory_order_seq_cst);
  }
}

/// @brief Weak CAS whose success order is seq_cst (relaxed + compiler fences on one core: the
/// exclusive-monitor instructions still make it atomic against interrupt handlers). With a
/// critical section: a compare and a store inside it, which never fails spuriously.
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE bool CasWeakSeqCst(std::atomic<T>& a, T& expected, T desired) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    return CasInCriticalSection<CriticalSection>(a, expected, desired);
  } else if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const bool ok = a.compare_exchange_weak(expected, desired, std::memory_order_relaxed,
                                            std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return ok;
  } else {
    return a.compare_exchange_weak(expected, desired, std::memory_order_seq_cst,
                                   std::memory_order_relaxed);
  }
}

/// @brief Weak CAS whose success order is release (relaxed on failure); compiler fences plus a
/// relaxed CAS on one core, or a compare and a store inside the critical section.
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE bool CasWeakRelease(std::atomic<T>& a, T& expected, T desired) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    return CasInCriticalSection<CriticalSection>(a, expected, desired);
  } else if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_release);
    return a.compare_exchange_weak(expected, desired, std::memory_order_relaxed,
                                   std::memory_order_relaxed);
  } else {
    return a.compare_exchange_weak(expected, desired, std::memory_order_release,
                                   std::memory_order_relaxed);
  }
}

/// @brief Weak CAS that orders nothing (statistics); a compare and a store inside the critical
/// section when the single-core build has one.
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE bool CasWeakRelaxed(std::atomic<T>& a, T& expected, T desired) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    return CasInCriticalSection<CriticalSection>(a, expected, desired);
  } else {
    return a.compare_exchange_weak(expected, desired, std::memory_order_relaxed,
                                   std::memory_order_relaxed);
  }
}

/// @brief Weak CAS whose success order is acquire (relaxed on failure); compiler fences plus a
/// relaxed CAS on one core, or a compare and a store inside the critical section.
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE bool CasWeakAcquire(std::atomic<T>& a, T& expected, T desired) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    return CasInCriticalSection<CriticalSection>(a, expected, desired);
  } else if constexpr (kSingleCore) {
    const bool ok = a.compare_exchange_weak(expected, desired, std::memory_order_relaxed,
                                            std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_acquire);
    return ok;
  } else {
    return a.compare_exchange_weak(expected, desired, std::memory_order_acquire,
                                   std::memory_order_relaxed);
  }
}

/// @brief Weak CAS whose success order is acq_rel and failure order acquire (a reference count
/// whose reader may become the last holder either way); compiler fences plus a relaxed CAS on
/// one core, or a compare and a store inside the critical section.
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE bool CasWeakAcqRel(std::atomic<T>& a, T& expected, T desired) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    return CasInCriticalSection<CriticalSection>(a, expected, desired);
  } else if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_release);
    const bool ok = a.compare_exchange_weak(expected, desired, std::memory_order_relaxed,
                                            std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_acquire);
    return ok;
  } else {
    return a.compare_exchange_weak(expected, desired, std::memory_order_acq_rel,
                                   std::memory_order_acquire);
  }
}

/// @brief `a.fetch_sub(n, order)` for a release or acq_rel order: a relaxed RMW between compiler
/// fences on one core, or a load and a store inside the critical section.
template <bool kSingleCore, typename CriticalSection, std::memory_order kOrder, typename T>
MCCC_ALWAYS_INLINE T FetchSub(std::atomic<T>& a, T n) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    const CriticalSectionGuard<CriticalSection> section;
    // relaxed (both): the section makes the pair atomic and keeps program order on this core.
    const T old = a.load(std::memory_order_relaxed);
    a.store(static_cast<T>(old - n), std::memory_order_relaxed);
    return old;
  } else if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const T old = a.fetch_sub(n, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return old;
  } else {
    return a.fetch_sub(n, kOrder);
  }
}

/// @brief `a.fetch_add(n, release)`: as FetchSub.
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE T FetchAddRelease(std::atomic<T>& a, T n) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    const CriticalSectionGuard<CriticalSection> section;
    // relaxed (both): the section makes the pair atomic and keeps program order on this core.
    const T old = a.load(std::memory_order_relaxed);
    a.store(static_cast<T>(old + n), std::memory_order_relaxed);
    return old;
  } else if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_release);
    return a.fetch_add(n, std::memory_order_relaxed);
  } else {
    return a.fetch_add(n, std::memory_order_release);
  }
}

/// @brief `a.fetch_and(mask, release)`: as FetchSub.
template <bool kSingleCore, typename CriticalSection = NoCriticalSection, typename T>
MCCC_ALWAYS_INLINE T FetchAndRelease(std::atomic<T>& a, T mask) noexcept {
  if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
    const CriticalSectionGuard<CriticalSection> section;
    // relaxed (both): the section makes the pair atomic and keeps program order on this core.
    const T old = a.load(std::memory_order_relaxed);
    a.store(static_cast<T>(old & mask), std::memory_order_relaxed);
    return old;
  } else if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_release);
    return a.fetch_and(mask, std::memory_order_relaxed);
  } else {
    return a.fetch_and(mask, std::memory_order_release);
  }
}

/// @brief A value-sized alignment: the cache line on multi-core, natural alignment on one core
/// (padding buys nothing without other cores and costs scarce MCU RAM).
template <bool kSingleCore, unsigned kCacheLine, typename T>
inline constexpr unsigned kLineAlign = kSingleCore ? unsigned{alignof(T)} : kCacheLine;

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_ATOMIC_OPS_HPP_
