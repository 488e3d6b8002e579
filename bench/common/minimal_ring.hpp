// SPDX-License-Identifier: MIT
/// @file minimal_ring.hpp
/// @brief Minimal rings that keep the per-message promises that make mccc's `Publish` cost what
/// it costs, and do nothing else. The ideal handoff ring (adapters.hpp) is the hardware's limit;
/// these rings show what the promises cost by themselves:
///   - per-message publication: a message is visible to the consumer as soon as its publish
///     returns (no producer-side batching; the ideal ring publishes once per 64),
///   - optionally a shared claim: several producers and one exact bound, so the position is
///     taken with one atomic read-modify-write per message (mccc's MPSC admission),
///   - optionally a timestamp per message: one read of the cycle counter, stored raw (cheaper
///     than any conversion to a time unit); the unordered `rdtsc`, or the ordered read mccc's
///     TscClock takes (`rdtscp`, after every earlier load: mccc::detail::TscSource::Ticks).
/// No headers, no priorities, no statistics, no dispatch. `minimal ring / peer` is what the
/// promises cost against a peer that does not make them; `mccc / minimal ring` is roughly
/// mccc's own overhead. Roughly, not a strict bound: end to end, a consumer that is slower or
/// waits after an empty poll pulls the producer's line less often (see kIdleBackoffPauses).
#ifndef MCCC_BENCH_COMMON_MINIMAL_RING_HPP_
#define MCCC_BENCH_COMMON_MINIMAL_RING_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "common/adapters.hpp"
#include "common/harness.hpp"

namespace mccc_bench {

/// @brief Bounded ring, one 64-byte-aligned slot per message with its own sequence word (the
/// layout mccc uses), published per message.
/// @tparam kSharedClaim true: any number of producers claim with a CAS on one tail; false: one
///         producer, plain stores.
/// @tparam kStamp true: each message carries a raw cycle-counter reading taken by its publish.
/// @tparam kOrderedStamp with kStamp: the reading is the ordered one mccc's TscClock takes
///         (`rdtscp`), not the plain `rdtsc`.
/// @tparam kIdleBackoffPauses the consumer's `pause` instructions after an empty poll (0: it
///         polls again at once, as every contender's consumer does). A consumer that waits
///         stops pulling the line the producer is writing, which the producer's locked claim
///         then waits for; the one variant with a backoff shows what that buys in throughput
///         and costs in latency.
template <typename P, typename Sink, bool kSharedClaim, bool kStamp, int kIdleBackoffPauses,
          bool kOrderedStamp>
class MinimalPromiseRing {
 public:
  static constexpr int kMaxProducers = kSharedClaim ? mccc_bench::kMaxProducers : 1;
  static constexpr bool kSynchronous = false;

  MinimalPromiseRing(const Options& options, Sink& sink)
      : capacity_(RoundUpPow2(options.capacity)),
        mask_(capacity_ - 1U),
        slots_(new Slot[capacity_]),
        sink_(&sink) {
    for (uint64_t i = 0U; i < capacity_; ++i) {
      // relaxed: construction, before any thread is started.
      slots_[i].sequence.store(0U, std::memory_order_relaxed);
      std::memset(static_cast<void*>(&slots_[i].payload), 0, sizeof(P));
    }
  }

  /// Each producer keeps its own view of the consumer position (nothing shared that need not
  /// be).
  struct Producer {
    uint64_t cached_head = 0U;
    uint64_t local_tail = 0U;  // single-producer ring only
  };
  struct Consumer {};

  Producer MakeProducer(int) { return Producer{}; }

  MCCC_ALWAYS_INLINE bool TryPush(Producer& producer, const P& m) {
    uint64_t stamp = 0U;
    if constexpr (kStamp) {
#if MCCC_HAS_TSC_SOURCE
      stamp = kOrderedStamp ? mccc::detail::TscSource::Ticks() : Ticks::Read();
#else
      stamp = Ticks::Read();
#endif
    }
    uint64_t position = 0U;
    if constexpr (kSharedClaim) {
      // relaxed: a guess, validated by the CAS.
      position = tail_.value.load(std::memory_order_relaxed);
      for (;;) {
        if (MCCC_UNLIKELY(position - producer.cached_head >= capacity_)) {
          // acquire: pairs with the consumer's release store of head_ (slot consumed first).
          producer.cached_head = head_.value.load(std::memory_order_acquire);
          if (position - producer.cached_head >= capacity_) {
            return false;
          }
        }
        // relaxed: the claim orders nothing by itself; the slot's sequence store below is
        // what publishes (x86 executes a locked instruction either way).
        if (tail_.value.compare_exchange_weak(position, position + 1U, std::memory_order_relaxed)) {
          break;
        }
      }
    } else {
      position = producer.local_tail;
      if (MCCC_UNLIKELY(position - producer.cached_head == capacity_)) {
        // acquire: pairs with the consumer's release store of head_.
        producer.cached_head = head_.value.load(std::memory_order_acquire);
        if (position - producer.cached_head == capacity_) {
          return false;
        }
      }
      producer.local_tail = position + 1U;
    }
    // The slot kPrefetchDistance ahead is requested for writing now (when its previous lap is
    // consumed), so its miss overlaps this publish, as mccc does: without it the rings would
    // measure a cost mccc does not pay.
    if (position - producer.cached_head < capacity_ - kPrefetchDistance) {
      const auto* ahead =
          reinterpret_cast<const unsigned char*>(&slots_[(position + kPrefetchDistance) & mask_]);
      for (std::size_t offset = 0U; offset < sizeof(Slot); offset += 64U) {
        __builtin_prefetch(ahead + offset, 1, 3);  // every line of the slot, as mccc
      }
    }
    Slot& slot = slots_[position & mask_];
    CopyIntoSlot(slot.payload, m);  // as mccc copies it (word by word when small)
    slot.stamp = stamp;
    // release: pairs with the consumer's acquire load in Poll; the payload is visible first.
    slot.sequence.store(position + 1U, std::memory_order_release);
    return true;
  }

  void Flush(Producer&) {}

  Consumer MakeConsumer() {
    return Consumer{};
  }

  MCCC_ALWAYS_INLINE std::size_t Poll(Consumer&) {
    const uint64_t first = local_head_;
    uint64_t head = first;
    for (;;) {
      Slot& slot = slots_[head & mask_];
      // acquire: pairs with the producer's release store of the sequence.
      if (slot.sequence.load(std::memory_order_acquire) != head + 1U) {
        break;
      }
      (*sink_)(slot.payload);
      stamp_sum_ += slot.stamp;  // the stamp is read, as a dispatcher would
      ++head;
      if (head - first == kPollLimit) {
        break;
      }
    }
    if constexpr (kIdleBackoffPauses > 0) {
      if (head == first) {
        for (int i = 0; i < kIdleBackoffPauses; ++i) {
          CpuRelax();
        }
      }
    }
    if (head != first) {
      local_head_ = head;
      // release: pairs with the producers' acquire load of head_; the slots are read first.
      head_.value.store(head, std::memory_order_release);
    }
    return static_cast<std::size_t>(head - first);
  }

  /// Sum of the stamps seen (kept so that the consumer's read of them is not optimised away).
  uint64_t stamp_sum() const {
    return stamp_sum_;
  }

 private:
  /// Messages per Poll at most, as the peers' bulk dequeue (kBulk in peers.hpp).
  static constexpr uint64_t kPollLimit = 256U;
  static constexpr uint64_t kPrefetchDistance = 4U;

  struct alignas(64) Slot {
    std::atomic<uint64_t> sequence;
    uint64_t stamp;
    P payload;
  };

  const uint64_t capacity_;
  const uint64_t mask_;
  std::unique_ptr<Slot[]> slots_;
  Sink* sink_;
  LineCounter tail_;
  LineCounter head_;
  alignas(64) uint64_t local_head_ = 0U;  // consumer-owned
  uint64_t stamp_sum_ = 0U;
};

/// @brief Family wrapper for MinimalPromiseRing.
template <bool kSharedClaim, bool kStamp, int kIdleBackoffPauses = 0, bool kOrderedStamp = false>
struct MinimalRingFamily {
  template <typename P, typename S>
  using Type = MinimalPromiseRing<P, S, kSharedClaim, kStamp, kIdleBackoffPauses, kOrderedStamp>;
};

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_MINIMAL_RING_HPP_
