// SPDX-License-Identifier: MIT
/// @file bus_statistics.hpp
/// @brief The bus counters, arranged so that counting costs (almost) nothing on the hot path.
///
/// - Published/dropped per priority are counted by the producers, each in its own shard (a cache
///   line only that thread writes): a plain load + store, no locked instruction, no sharing. A
///   single-producer bus uses one shard the same way; a single-core bus and threads beyond the
///   shard count use atomic increments (uncontended in practice).
/// - Processed and processing errors are counted by the consumer, once per batch.
/// - Reset never writes a counter another thread owns: it records baselines that snapshots
///   subtract. GetStatistics and ResetStatistics may run on any thread.
#ifndef MCCC_STATISTICS_BUS_STATISTICS_HPP_
#define MCCC_STATISTICS_BUS_STATISTICS_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/spin_lock.hpp"
#include "mccc/message.hpp"
#include "mccc/statistics/thread_shard.hpp"

namespace mccc {

/// @brief Counters of one bus. See the file comment for who writes what.
template <typename Counter, uint32_t kShards, bool kSingleProducer, bool kSingleCore,
          uint32_t kCacheLine>
class BusStatistics {
  static_assert(kShards >= 1U, "mccc: kStatisticsShards must be at least 1");
  static_assert(std::atomic<Counter>::is_always_lock_free,
                "mccc: statistics counters must be lock-free atomics on this target");

 public:
  /// @brief Producer: `count` admitted messages of `priority`.
  MCCC_ALWAYS_INLINE void CountPublished(MessagePriority priority, uint32_t count = 1U) noexcept {
    Bump(ShardForThisThread(), &Shard::published, priority, count);
  }

  /// @brief Producer: `count` refused messages of `priority`.
  void CountDropped(MessagePriority priority, uint32_t count = 1U) noexcept {
    Bump(ShardForThisThread(), &Shard::dropped, priority, count);
  }

  /// @brief Consumer only: `processed` messages dispatched, `errors` of them failed.
  void CountProcessed(uint32_t processed, uint32_t errors) noexcept {
    // relaxed (load and store): only the consumer writes these; readers take a snapshot.
    processed_.store(static_cast<Counter>(processed_.load(std::memory_order_relaxed) + processed),
                     std::memory_order_relaxed);
    if (errors != 0U) {
      processing_errors_.store(
          static_cast<Counter>(processing_errors_.load(std::memory_order_relaxed) + errors),
          std::memory_order_relaxed);
    }
  }

  /// @brief Counters since the last Reset. Thread-safe; fields are read one after another.
  BusStatisticsSnapshot Snapshot() const noexcept {
    Totals base{};
    for (std::size_t i = 0U; i < kFieldCount; ++i) {
      // acquire: pairs with Reset()'s release store, so the totals read next are not older
      // than the values the baseline was taken from (no negative differences).
      base.field[i] = baseline_[i].load(std::memory_order_acquire);
    }
    const Totals now = ReadTotals();
    Totals diff{};
    for (std::size_t i = 0U; i < kFieldCount; ++i) {
      diff.field[i] = static_cast<uint64_t>(static_cast<Counter>(now.field[i] - base.field[i]));
    }
    BusStatisticsSnapshot s{};
    s.low_priority_published = diff.field[kPublished + 0U];
    s.medium_priority_published = diff.field[kPublished + 1U];
    s.high_priority_published = diff.field[kPublished + 2U];
    s.low_priority_dropped = diff.field[kDropped + 0U];
    s.medium_priority_dropped = diff.field[kDropped + 1U];
    s.high_priority_dropped = diff.field[kDropped + 2U];
    s.messages_published =
        s.low_priority_published + s.medium_priority_published + s.high_priority_published;
    s.messages_dropped =
        s.low_priority_dropped + s.medium_priority_dropped + s.high_priority_dropped;
    s.messages_processed = diff.field[kProcessed];
    s.processing_errors = diff.field[kErrors];
    return s;
  }

  /// @brief Makes the next snapshots count from now. Thread-safe (serialised by a lock).
  void Reset() noexcept {
    detail::SpinLockGuard guard(reset_lock_);
    const Totals now = ReadTotals();
    for (std::size_t i = 0U; i < kFieldCount; ++i) {
      // release: pairs with Snapshot()'s acquire (see there).
      baseline_[i].store(static_cast<Counter>(now.field[i]), std::memory_order_release);
    }
  }

 private:
  static constexpr unsigned kLine =
      detail::kLineAlign<kSingleCore, kCacheLine, std::atomic<Counter>>;
  static constexpr bool kPlainShards = kSingleProducer || (!kSingleCore && kShards > 1U);

  struct alignas(kLine) Shard {
    std::atomic<Counter> published[kPriorityCount] = {};
    std::atomic<Counter> dropped[kPriorityCount] = {};
  };

  static constexpr std::size_t kPublished = 0U;
  static constexpr std::size_t kDropped = kPriorityCount;
  static constexpr std::size_t kProcessed = 2U * kPriorityCount;
  static constexpr std::size_t kErrors = kProcessed + 1U;
  static constexpr std::size_t kFieldCount = kErrors + 1U;
  static constexpr uint32_t kOverflowShard = kShards;  // shared, atomic increments

  struct Totals {
    uint64_t field[kFieldCount];
  };

  MCCC_ALWAYS_INLINE static uint32_t ShardForThisThread() noexcept {
    if constexpr (kSingleProducer) {
      return 0U;
    } else if constexpr (kSingleCore || kShards == 1U) {
      return kOverflowShard;
    } else {
      const uint32_t index = detail::ThisThreadShard();
      return index < kShards ? index : kOverflowShard;
    }
  }

  MCCC_ALWAYS_INLINE void Bump(uint32_t shard,
                               std::atomic<Counter> (Shard::*counters)[kPriorityCount],
                               MessagePriority priority, uint32_t count) noexcept {
    std::atomic<Counter>& counter =
        (shards_[shard].*counters)[static_cast<std::size_t>(priority) % kPriorityCount];
    if (kPlainShards && shard != kOverflowShard) {
      // relaxed (load and store): this thread owns the shard (thread_shard.hpp), so no update
      // can be lost; readers only need a torn-free value, which atomicity gives.
      counter.store(static_cast<Counter>(counter.load(std::memory_order_relaxed) + count),
                    std::memory_order_relaxed);
    } else {
      // relaxed: a shared counter; nothing is published through it, only its total matters.
      counter.fetch_add(static_cast<Counter>(count), std::memory_order_relaxed);
    }
  }

  Totals ReadTotals() const noexcept {
    Totals t{};
    for (const Shard& shard : shards_) {
      for (std::size_t p = 0U; p < kPriorityCount; ++p) {
        // relaxed: independent monotonic counters; a snapshot needs no ordering among them.
        t.field[kPublished + p] += shard.published[p].load(std::memory_order_relaxed);
        t.field[kDropped + p] += shard.dropped[p].load(std::memory_order_relaxed);
      }
    }
    for (std::size_t i = 0U; i < kProcessed; ++i) {
      t.field[i] = static_cast<Counter>(t.field[i]);  // sums wrap like the counters themselves
    }
    // relaxed: consumer-owned monotonic counters.
    t.field[kProcessed] = processed_.load(std::memory_order_relaxed);
    t.field[kErrors] = processing_errors_.load(std::memory_order_relaxed);
    return t;
  }

  Shard shards_[kShards + 1U];
  alignas(kLine) std::atomic<Counter> processed_{0U};
  std::atomic<Counter> processing_errors_{0U};
  alignas(kLine) std::atomic<Counter> baseline_[kFieldCount] = {};
  detail::SpinLock reset_lock_;
};

}  // namespace mccc

#endif  // MCCC_STATISTICS_BUS_STATISTICS_HPP_
