/// @file thread_shard.hpp
/// @brief Gives each producer thread a small index it owns exclusively while it lives, so that
/// per-thread statistics can be plain increments on a cache line no other thread writes.
///
/// The index is process-wide (shared by every bus): thread k uses shard k of each bus. Indices are
/// handed out lowest-first from a bitmap and returned when the thread exits, so the first N live
/// threads always hold indices below N. A thread that finds no free index (more than
/// kMaxThreadShards live publishers), or that publishes from a thread_local destructor after its
/// lease ended, gets kNoThreadShard and its bus falls back to an atomic (RMW) overflow shard.
#ifndef MCCC_STATISTICS_THREAD_SHARD_HPP_
#define MCCC_STATISTICS_THREAD_SHARD_HPP_

#include <atomic>
#include <cstdint>

#include "mccc/config.hpp"

namespace mccc {
namespace detail {

/// Largest number of simultaneously owned thread indices.
inline constexpr uint32_t kMaxThreadShards = 256U;
/// Index meaning "no exclusive shard: use the shared overflow shard".
inline constexpr uint32_t kNoThreadShard = kMaxThreadShards;

/// @brief Process-wide bitmap of thread indices. Threadsafe, lock-free.
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
    words_[index / 32U].fetch_and(~(uint32_t{1} << (index % 32U)), std::memory_order_release);
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

  std::atomic<uint32_t> words_[kWords] = {};
};

/// 0: no index yet; otherwise index + 1. Trivial and constant-initialised, so reading it is a
/// single thread-pointer-relative load (no TLS wrapper call).
inline thread_local uint32_t tls_thread_shard_plus_one = 0U;

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
    ThreadShardRegistry::Global().Release(index);
    // Later publishes from this thread's remaining thread_local destructors use the overflow.
    tls_thread_shard_plus_one = kNoThreadShard + 1U;
  }
};

/// @brief Slow path: first publish of this thread.
MCCC_NOINLINE inline uint32_t AcquireThreadShardSlow() noexcept {
  thread_local ThreadShardLease lease{ThreadShardRegistry::Global().Acquire()};
  tls_thread_shard_plus_one = lease.index + 1U;
  return lease.index;
}

/// @brief This thread's index, or kNoThreadShard. Threadsafe, wait-free after the first call.
MCCC_ALWAYS_INLINE uint32_t ThisThreadShard() noexcept {
  const uint32_t plus_one = tls_thread_shard_plus_one;
  if (MCCC_LIKELY(plus_one != 0U)) {
    return plus_one - 1U;
  }
  return AcquireThreadShardSlow();
}

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_STATISTICS_THREAD_SHARD_HPP_
