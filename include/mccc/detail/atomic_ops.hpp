// SPDX-License-Identifier: MIT
/// @file atomic_ops.hpp
/// @brief Acquire/release helpers that become relaxed operations plus compiler-only fences in a
/// single-core build (kSingleCore): on one core every thread observes memory in program order,
/// so only the compiler must be kept from reordering; interrupt handlers see the same core.
#ifndef MCCC_DETAIL_ATOMIC_OPS_HPP_
#define MCCC_DETAIL_ATOMIC_OPS_HPP_

#include <atomic>

#include "mccc/config.hpp"

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

/// @brief `a.fetch_add(1, seq_cst)`, or a relaxed increment between compiler fences on one core
/// (still one atomic read-modify-write against interrupt handlers).
template <bool kSingleCore, typename T>
MCCC_ALWAYS_INLINE T FetchIncrementSeqCst(std::atomic<T>& a) noexcept {
  if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const T old = a.fetch_add(T{1}, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return old;
  } else {
    return a.fetch_add(T{1}, std::memory_order_seq_cst);
  }
}

/// @brief Weak CAS whose success order is seq_cst (relaxed + compiler fences on one core: the
/// exclusive-monitor instructions still make it atomic against interrupt handlers).
template <bool kSingleCore, typename T>
MCCC_ALWAYS_INLINE bool CasWeakSeqCst(std::atomic<T>& a, T& expected, T desired) noexcept {
  if constexpr (kSingleCore) {
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
/// relaxed CAS on one core.
template <bool kSingleCore, typename T>
MCCC_ALWAYS_INLINE bool CasWeakRelease(std::atomic<T>& a, T& expected, T desired) noexcept {
  if constexpr (kSingleCore) {
    std::atomic_signal_fence(std::memory_order_release);
    return a.compare_exchange_weak(expected, desired, std::memory_order_relaxed,
                                   std::memory_order_relaxed);
  } else {
    return a.compare_exchange_weak(expected, desired, std::memory_order_release,
                                   std::memory_order_relaxed);
  }
}

/// @brief A value-sized alignment: the cache line on multi-core, natural alignment on one core
/// (padding buys nothing without other cores and costs scarce MCU RAM).
template <bool kSingleCore, unsigned kCacheLine, typename T>
inline constexpr unsigned kLineAlign = kSingleCore ? static_cast<unsigned>(alignof(T)) : kCacheLine;

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_ATOMIC_OPS_HPP_
