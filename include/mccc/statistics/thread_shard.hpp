// SPDX-License-Identifier: MIT
/// @file thread_shard.hpp
/// @brief Gives each producer thread a small index it owns exclusively while it lives, so that
/// per-thread statistics can be plain increments on a cache line no other thread writes.
///
/// The index is process-wide (shared by every bus): thread k uses shard k of each bus. Indices are
/// handed out lowest-first from a bitmap and returned when the thread exits, so the first N live
/// threads always hold indices below N. A thread that finds no free index (more than
/// kMaxThreadShards live publishers), or that publishes after its index was returned at thread
/// exit, gets kNoThreadShard and its bus falls back to an atomic (RMW) overflow shard.
///
/// Returning the index at thread exit must not allocate, because the first publish of a thread
/// arranges it. A `thread_local` object with a destructor would: glibc's
/// __cxa_thread_atexit_impl allocates a list node for every such object in every thread. On POSIX
/// systems the index is therefore returned by the destructor of one pthread key (created once per
/// process, on the first publish of the first thread); pthread_setspecific needs no memory for the
/// first keys of a process (glibc: the first 32, kept inside the thread descriptor). Elsewhere a
/// `thread_local` lease object does it.
#ifndef MCCC_STATISTICS_THREAD_SHARD_HPP_
#define MCCC_STATISTICS_THREAD_SHARD_HPP_

#include <atomic>
#include <cstdint>

#include "mccc/config.hpp"

// 1: a thread's index is returned by a pthread key's destructor (POSIX); 0: by a thread_local
// object's destructor. Detected; predefine it only to test the other way.
#ifndef MCCC_THREAD_SHARD_USES_PTHREAD_KEY
#if MCCC_HOSTED && (defined(__unix__) || defined(__APPLE__)) && defined(__has_include)
#if __has_include(<pthread.h>)
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06
#define MCCC_THREAD_SHARD_USES_PTHREAD_KEY 1
#endif
#endif
#endif
#ifndef MCCC_THREAD_SHARD_USES_PTHREAD_KEY
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06
#define MCCC_THREAD_SHARD_USES_PTHREAD_KEY 0
#endif
#if MCCC_THREAD_SHARD_USES_PTHREAD_KEY
#include <pthread.h>
#endif

namespace mccc {
namespace detail {

/// Largest number of simultaneously owned thread indices.
inline constexpr uint32_t kMaxThreadShards = 256U;
/// Index meaning "no exclusive shard: use the shared overflow shard".
inline constexpr uint32_t kNoThreadShard = kMaxThreadShards;

/// @brief Process-wide bitmap of thread indices. Thread-safe, lock-free.
class ThreadShardRegistry {
 public:
  constexpr ThreadShardRegistry() noexcept = default;

  /// @brief Takes the lowest free index, or kNoThreadShard when all are owned.
  uint32_t Acquire() noexcept {
    for (uint32_t word = 0U; word < kWords; ++word) {
      // relaxed: only a guess, the CAS decides.
      uint32_t bits = words_[word].load(std::memory_order_relaxed);
      while (bits != ~uint32_t{0}) {
        const uint32_t bit = LowestZeroBit(bits);
        // acquire on success: pairs with Release()'s release, so the previous owner's last
        // counter writes happen-before this thread's plain read-increment-store of them.
        if (words_[word].compare_exchange_weak(bits, bits | (uint32_t{1} << bit),
                                               std::memory_order_acquire,
                                               std::memory_order_relaxed)) {
          return word * 32U + bit;
        }
      }
    }
    return kNoThreadShard;
  }

  /// @brief Returns an index taken by Acquire().
  void Release(uint32_t index) noexcept {
    if (index >= kMaxThreadShards) {
      return;
    }
    // release: pairs with Acquire()'s acquire (see there).
    static_cast<void>(
        words_[index / 32U].fetch_and(~(uint32_t{1} << (index % 32U)), std::memory_order_release));
  }

  /// @brief The registry shared by all buses of the process.
  static ThreadShardRegistry& Global() noexcept {
    static ThreadShardRegistry registry;  // constant-initialised: no guard, no heap
    return registry;
  }

 private:
  // 32-bit words: lock-free on every target, including Cortex-M.
  static constexpr uint32_t kWords = kMaxThreadShards / 32U;

  static uint32_t LowestZeroBit(uint32_t bits) noexcept {
    uint32_t bit = 0U;
    while ((bits & (uint32_t{1} << bit)) != 0U) {
      ++bit;
    }
    return bit;
  }

  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  std::atomic<uint32_t> words_[kWords] = {};
};

#if MCCC_ENABLE_TEST_HOOKS
/// @brief Test hook: called on the thread that ends a lease (thread exit, a producer handle's
/// release) between its two steps, after the holder stopped using the index and before the
/// index returns to the registry: where a signal handler could land.
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): deviation D-23
inline void (*lease_end_hook)(uint32_t index, void* context) = nullptr;
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): deviation D-23
inline void* lease_end_hook_context = nullptr;
#endif

/// @brief Ends a lease of `index` whose holder has already stopped using it: returns the index
/// to the registry. The holder's own record must be cleared first (and a signal fence keep the
/// compiler from sinking that store): a signal handler that publishes between the two steps
/// then uses no index, never one the registry may already have lent to another thread or
/// handle (two producers on one lane).
inline void ReturnLeasedIndex(uint32_t index) noexcept {
  std::atomic_signal_fence(std::memory_order_seq_cst);
#if MCCC_ENABLE_TEST_HOOKS
  if (lease_end_hook != nullptr) {
    lease_end_hook(index, lease_end_hook_context);
  }
#endif
  ThreadShardRegistry::Global().Release(index);
}

/// The value of tls_thread_shard before the thread's first publish: above every index and
/// kNoThreadShard, so that one comparison with a shard count also catches it.
inline constexpr uint32_t kUnassignedThreadShard = ~uint32_t{0};

/// This thread's index, kNoThreadShard, or kUnassignedThreadShard before its first publish.
/// Trivial and constant-initialised, so reading it is a single thread-pointer-relative load (no
/// TLS wrapper call).
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): deviation D-23
inline thread_local uint32_t tls_thread_shard = kUnassignedThreadShard;

#if MCCC_THREAD_SHARD_USES_PTHREAD_KEY
/// @brief The pthread key whose destructor returns a thread's index when the thread exits. Its
/// value in a thread is the address of kTokens[index]: never null, so the destructor
/// runs, and a pointer without an integer-to-pointer cast.
class ThreadExitKey {
 public:
  /// @brief Arranges for `index` to be returned when this thread exits; false if that is not
  /// possible (no key could be created, or pthread_setspecific failed).
  static bool ReturnAtThreadExit(uint32_t index) noexcept {
    const Created& created = Get();
    if (!created.ok) {
      return false;
    }
    return pthread_setspecific(created.key, &kTokens[index]) == 0;
  }

 private:
  struct Created {
    pthread_key_t key;
    bool ok;
  };

  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  static constexpr char kTokens[kMaxThreadShards] = {};

  static void OnThreadExit(void* value) noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-array-to-pointer-decay): deviation D-22
    const auto index = static_cast<uint32_t>(static_cast<const char*>(value) - kTokens);
    // This thread stops using the index before it returns (see ReturnLeasedIndex). Publishes
    // from destructors that run after this one (other keys) use the overflow shard.
    tls_thread_shard = kNoThreadShard;
    ReturnLeasedIndex(index);
  }

  static Created Create() noexcept {
    Created created{};
    created.ok = pthread_key_create(&created.key, &OnThreadExit) == 0;
    return created;
  }

  // Trivially destructible, so no exit handler is registered on the first publish; the key is
  // deleted by ThreadExitKeyDeleter (below) when the program or the shared object holding it
  // unloads.
  static const Created& Get() noexcept {
    static const Created created = Create();
    return created;
  }

  friend struct ThreadExitKeyDeleter;
};

/// @brief Deletes the key when this image unloads (exit, or dlclose of a shared object that
/// contains mccc), so that no thread exiting later calls a destructor that is gone. Threads still
/// holding an index then keep it: the registry unloads with them.
struct ThreadExitKeyDeleter {
  ThreadExitKeyDeleter() noexcept = default;
  ThreadExitKeyDeleter(const ThreadExitKeyDeleter&) = delete;
  ThreadExitKeyDeleter& operator=(const ThreadExitKeyDeleter&) = delete;
  ThreadExitKeyDeleter(ThreadExitKeyDeleter&&) = delete;
  ThreadExitKeyDeleter& operator=(ThreadExitKeyDeleter&&) = delete;
  ~ThreadExitKeyDeleter() {
    const ThreadExitKey::Created& created = ThreadExitKey::Get();
    if (created.ok) {
      static_cast<void>(pthread_key_delete(created.key));
    }
  }
};
// Constructed at load time (its exit handler is registered then, not on a publish).
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): deviation D-23
inline ThreadExitKeyDeleter thread_exit_key_deleter;

/// @brief Slow path: first publish of this thread. Allocates nothing (see the file comment).
MCCC_NOINLINE inline uint32_t AcquireThreadShardSlow() noexcept {
  uint32_t index = ThreadShardRegistry::Global().Acquire();
  if (index != kNoThreadShard && !ThreadExitKey::ReturnAtThreadExit(index)) {
    // Nobody would give it back: return it now and use the overflow shard.
    ThreadShardRegistry::Global().Release(index);
    index = kNoThreadShard;
  }
  tls_thread_shard = index;
  return index;
}
#else
/// @brief Owns this thread's index and gives it back when the thread exits. Not copyable or
/// movable: a copy would give the index back twice.
struct ThreadShardLease {
  explicit ThreadShardLease(uint32_t leased_index) noexcept : index(leased_index) {}
  ThreadShardLease(const ThreadShardLease&) = delete;
  ThreadShardLease& operator=(const ThreadShardLease&) = delete;
  ThreadShardLease(ThreadShardLease&&) = delete;
  ThreadShardLease& operator=(ThreadShardLease&&) = delete;

  uint32_t index;
  ~ThreadShardLease() {
    // This thread stops using the index before it returns (see ReturnLeasedIndex). Later
    // publishes from its remaining thread_local destructors use the overflow shard.
    tls_thread_shard = kNoThreadShard;
    ReturnLeasedIndex(index);
  }
};

/// @brief Slow path: first publish of this thread. The C++ runtime may allocate to register the
/// lease's destructor (see the file comment).
MCCC_NOINLINE inline uint32_t AcquireThreadShardSlow() noexcept {
  thread_local ThreadShardLease lease{ThreadShardRegistry::Global().Acquire()};
  tls_thread_shard = lease.index;
  return lease.index;
}
#endif

/// @brief This thread's index, or kNoThreadShard. Thread-safe, wait-free after the first call.
MCCC_ALWAYS_INLINE uint32_t ThisThreadShard() noexcept {
  const uint32_t index = tls_thread_shard;
  if (MCCC_LIKELY(index != kUnassignedThreadShard)) {
    return index;
  }
  return AcquireThreadShardSlow();
}

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_STATISTICS_THREAD_SHARD_HPP_
