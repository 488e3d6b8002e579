// SPDX-License-Identifier: MIT
/// @file bus_statistics.hpp
/// @brief The bus counters, arranged so that counting costs (almost) nothing on the hot path.
///
/// - Published/dropped per priority are counted by the producers, each in its own shard (a cache
///   line only that thread writes): a plain load + store, no locked instruction, no sharing. A
///   single-producer bus uses one shard the same way; a single-core bus and threads beyond the
///   shard count use atomic increments (uncontended in practice).
/// - Processed and processing errors are counted by the consumer, once per batch.
/// - Reset never writes a counter another thread owns: it records baselines (one per shard) that
///   snapshots subtract. GetStatistics and ResetStatistics may run on any thread.
/// - A shard belongs to a producer identity (a thread, or a producer handle), the same index that
///   selects its producer lane (ring/producer_lane.hpp), so a lane's counters are its shard's.
#ifndef MCCC_STATISTICS_BUS_STATISTICS_HPP_
#define MCCC_STATISTICS_BUS_STATISTICS_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/control_lock.hpp"
#include "mccc/message.hpp"
#include "mccc/statistics/thread_shard.hpp"

namespace mccc {

namespace detail {

/// @brief Counters of one bus. See the file comment for who writes what. `CriticalSection`:
/// single-core builds count shared counters and serialise Reset inside it (never waits).
template <typename Counter, uint32_t kShards, bool kSingleProducer, bool kSingleCore,
          uint32_t kCacheLine, typename CriticalSection = NoCriticalSection>
class BusStatistics {
  static_assert(kShards >= 1U, "mccc: kStatisticsShards must be at least 1");
  static_assert(detail::kRmwAvailable<kSingleCore, CriticalSection, Counter>,
                "mccc: statistics counters need lock-free atomics on this target, or a "
                "single-core build with a critical section (kSingleCore and "
                "Traits::CriticalSection)");

 public:
  /// @brief Producer: `count` admitted messages of `priority`.
  MCCC_ALWAYS_INLINE void CountPublished(MessagePriority priority, uint32_t count = 1U) noexcept {
    if constexpr (!kSingleProducer && kPlainShards) {
      // The common case in one comparison: a thread whose index has a shard of its own (an
      // unassigned index is above every shard count, see thread_shard.hpp).
      const uint32_t index = detail::tls_thread_shard;
      if (MCCC_LIKELY(index < kShards)) {
        Bump(index, &Shard::published, priority, count);
        return;
      }
    }
    Bump(ProducerOfThisThread(), &Shard::published, priority, count);
  }

  /// @brief Producer: `count` refused messages of `priority`.
  void CountDropped(MessagePriority priority, uint32_t count = 1U) noexcept {
    Bump(ProducerOfThisThread(), &Shard::dropped, priority, count);
  }

  /// @brief As CountPublished, for the producer identity `producer_index` (a thread's index
  /// from detail::ThisThreadShard() or a producer handle's, detail::kNoThreadShard for none),
  /// which the caller owns exclusively.
  MCCC_ALWAYS_INLINE void CountPublishedBy(uint32_t producer_index, MessagePriority priority,
                                           uint32_t count) noexcept {
    Bump(producer_index, &Shard::published, priority, count);
  }

  /// @brief As CountDropped, for the producer identity `producer_index` (see CountPublishedBy).
  void CountDroppedBy(uint32_t producer_index, MessagePriority priority, uint32_t count) noexcept {
    Bump(producer_index, &Shard::dropped, priority, count);
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
    BusStatisticsSnapshot s = ShardRange(0U, kOverflowShard);
    // acquire (baselines): pairs with Reset()'s release stores, so the counters read next are
    // not older than the values a baseline was taken from (no negative differences). relaxed
    // (counters): consumer-owned monotonic counters.
    s.messages_processed = Since(processed_base_.load(std::memory_order_acquire),
                                 processed_.load(std::memory_order_relaxed));
    s.processing_errors = Since(errors_base_.load(std::memory_order_acquire),
                                processing_errors_.load(std::memory_order_relaxed));
    return s;
  }

  /// @brief Published and dropped counts, since the last Reset, of the shards
  /// [first, last] (shard kShards is the shared overflow shard). Thread-safe.
  BusStatisticsSnapshot ShardRange(uint32_t first, uint32_t last) const noexcept {
    BusStatisticsSnapshot s{};
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
    uint64_t published[kPriorityCount] = {};
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
    uint64_t dropped[kPriorityCount] = {};
    for (uint32_t i = first; i <= last && i <= kOverflowShard; ++i) {
      const Shard& shard = shards_[i];
      const Baseline& base = baselines_[i];
      for (std::size_t p = 0U; p < kPriorityCount; ++p) {
        // acquire (baselines), relaxed (counters): as in Snapshot.
        published[p] += Since(base.published[p].load(std::memory_order_acquire),
                              shard.published[p].load(std::memory_order_relaxed));
        dropped[p] += Since(base.dropped[p].load(std::memory_order_acquire),
                            shard.dropped[p].load(std::memory_order_relaxed));
      }
    }
    s.low_priority_published = published[0];
    s.medium_priority_published = published[1];
    s.high_priority_published = published[2];
    s.low_priority_dropped = dropped[0];
    s.medium_priority_dropped = dropped[1];
    s.high_priority_dropped = dropped[2];
    s.messages_published =
        s.low_priority_published + s.medium_priority_published + s.high_priority_published;
    s.messages_dropped =
        s.low_priority_dropped + s.medium_priority_dropped + s.high_priority_dropped;
    return s;
  }

  /// @brief The shard that counts for producer identity `producer_index`.
  static constexpr uint32_t ShardOf(uint32_t producer_index) noexcept {
    return producer_index < kShards ? producer_index : kOverflowShard;
  }

  /// @brief Makes the next snapshots count from now. Thread-safe (serialised by a lock).
  void Reset() noexcept {
    detail::ControlLockGuard<detail::ControlLock<kSingleCore, CriticalSection>> guard(reset_lock_);
    for (uint32_t i = 0U; i <= kOverflowShard; ++i) {
      for (std::size_t p = 0U; p < kPriorityCount; ++p) {
        // relaxed loads: independent monotonic counters. release stores: pair with the
        // snapshots' acquire loads (see Snapshot).
        baselines_[i].published[p].store(shards_[i].published[p].load(std::memory_order_relaxed),
                                         std::memory_order_release);
        baselines_[i].dropped[p].store(shards_[i].dropped[p].load(std::memory_order_relaxed),
                                       std::memory_order_release);
      }
    }
    // relaxed loads, release stores: as above.
    processed_base_.store(processed_.load(std::memory_order_relaxed), std::memory_order_release);
    errors_base_.store(processing_errors_.load(std::memory_order_relaxed),
                       std::memory_order_release);
  }

 private:
  static constexpr unsigned kLine =
      detail::kLineAlign<kSingleCore, kCacheLine, std::atomic<Counter>>;
  static constexpr bool kPlainShards = kSingleProducer || (!kSingleCore && kShards > 1U);

  struct alignas(kLine) Shard {
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
    std::atomic<Counter> published[kPriorityCount] = {};
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
    std::atomic<Counter> dropped[kPriorityCount] = {};
  };

  static constexpr uint32_t kOverflowShard = kShards;  // shared, atomic increments

  /// The producer identity that counts for the calling thread: its index where it has a shard
  /// of its own (kNoThreadShard where none is used).
  MCCC_ALWAYS_INLINE static uint32_t ProducerOfThisThread() noexcept {
    if constexpr (kSingleProducer || kSingleCore || kShards == 1U) {
      return kNoThreadShard;  // Bump does not read it
    } else {
      return detail::ThisThreadShard();
    }
  }

  /// The count between a baseline and a counter value, modulo the counter's range.
  static uint64_t Since(Counter base, Counter now) noexcept {
    return static_cast<uint64_t>(static_cast<Counter>(now - base));
  }

  /// Adds `count` to the `counters` entry of `priority` in producer identity
  /// `producer_index`'s shard (ShardOf): the identity is compared with the shard count once,
  /// and that comparison also picks the plain or the shared increment.
  MCCC_ALWAYS_INLINE void Bump(uint32_t producer_index,
                               // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
                               std::atomic<Counter> (Shard::*counters)[kPriorityCount],
                               MessagePriority priority, uint32_t count) noexcept {
    uint32_t shard = kOverflowShard;
    bool owned = false;
    if constexpr (kSingleProducer) {
      shard = 0U;
      owned = true;
    } else if constexpr (kPlainShards) {
      if (MCCC_LIKELY(producer_index < kShards)) {
        shard = producer_index;
        owned = true;
      }
    }
    std::atomic<Counter>& counter =
        (shards_[shard].*counters)[static_cast<std::size_t>(priority) % kPriorityCount];
    if (owned) {
      // relaxed (load and store): this thread owns the shard (thread_shard.hpp), so no update
      // can be lost; readers only need a torn-free value, which atomicity gives.
      counter.store(static_cast<Counter>(counter.load(std::memory_order_relaxed) + count),
                    std::memory_order_relaxed);
    } else {
      // relaxed: a shared counter; nothing is published through it, only its total matters.
      static_cast<void>(detail::FetchAddRelaxed<kSingleCore, CriticalSection>(
          counter, static_cast<Counter>(count)));
    }
  }

  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  Shard shards_[kShards + 1U];
  alignas(kLine) std::atomic<Counter> processed_{0U};
  std::atomic<Counter> processing_errors_{0U};
  // Written by Reset only: the counter values the snapshots count from.
  struct Baseline {
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
    std::atomic<Counter> published[kPriorityCount] = {};
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
    std::atomic<Counter> dropped[kPriorityCount] = {};
  };
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  alignas(kLine) Baseline baselines_[kShards + 1U];
  std::atomic<Counter> processed_base_{0U};
  std::atomic<Counter> errors_base_{0U};
  detail::ControlLock<kSingleCore, CriticalSection> reset_lock_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_STATISTICS_BUS_STATISTICS_HPP_
