// SPDX-License-Identifier: MIT
/// @file producer_lane.hpp
/// @brief A producer lane: a bounded ring with exactly one producer (the thread or handle that
/// leased it) and the bus's one consumer, published with plain stores and compact slots.
///
/// Design (one paragraph per idea):
/// - One owner publishes, so claiming a position needs no read-modify-write: the owner keeps its
///   tail, builds the element in place and then publishes the new tail with a release store.
///   The consumer learns what is ready from the tail alone, so a slot carries no sequence word:
///   slots are the elements themselves, packed back to back (several small messages share a
///   cache line instead of one line each).
/// - The consumer publishes its head with a release store after destroying each element; the
///   owner reads it only when its cached copy says the admission limit is reached.
/// - The tail moves only after the element is complete, so a publish interrupted half-way (its
///   thread suspended) holds back nothing: the consumer simply does not see that message yet,
///   and every other lane flows. The head can never pass the tail, so an occupancy snapshot is
///   a value the lane really had.
/// - Reentrancy: a signal handler that publishes while its own thread is inside a publish on
///   this lane would be a second producer. The owner marks its publish (a flag only its own
///   thread reads, so relaxed atomics plus a compiler fence suffice); the bus sends a publish
///   that finds the mark set through its shared multi-producer ring instead.
/// - Ownership of a lane moves between threads only through the lease registry
///   (statistics/thread_shard.hpp), whose release/acquire pair orders the old owner's last
///   publish before the new owner's first: the owner's plain fields need no atomics.
#ifndef MCCC_RING_PRODUCER_LANE_HPP_
#define MCCC_RING_PRODUCER_LANE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

#include "mccc/config.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/verdict.hpp"
#include "mccc/ring/mpsc_ring.hpp"

namespace mccc {

/// @brief Single-producer / single-consumer ring with compact slots (no per-slot word).
/// @tparam Element   Stored type; constructed by the owner's callable, destroyed by the consumer.
/// @tparam kCapacity Slot count, a power of two.
/// @tparam Position  Unsigned position type (at least 32 bits; wraps modulo its range).
/// @tparam kCacheLine Padding unit between owner-written and consumer-written data.
template <typename Element, uint32_t kCapacity, typename Position, uint32_t kCacheLine>
class ProducerLane {
  static_assert(kCapacity > 0U && (kCapacity & (kCapacity - 1U)) == 0U,
                "mccc: kLaneDepth must be a power of two greater than zero (e.g. 1024, 4096)");
  static_assert(std::is_unsigned_v<Position> && sizeof(Position) >= sizeof(uint32_t),
                "mccc: lane positions must be unsigned and at least 32 bits");
  static_assert(static_cast<uint64_t>(kCapacity) <=
                    (static_cast<uint64_t>(Position(~Position{0})) >> 1U),
                "mccc: kLaneDepth must be at most half the Position range");
  static_assert(std::atomic<Position>::is_always_lock_free,
                "mccc: lane positions must be lock-free atomics on this target");
  static_assert(std::is_nothrow_destructible_v<Element>,
                "mccc: elements must not throw on destruction");

 public:
  static constexpr Position kCapacityValue = static_cast<Position>(kCapacity);

  // cppcheck-suppress uninitMemberVar ; deviation D-01: slot storage is written by placement new
  ProducerLane() noexcept = default;
  ProducerLane(const ProducerLane&) = delete;
  ProducerLane& operator=(const ProducerLane&) = delete;
  ProducerLane(ProducerLane&&) = delete;
  ProducerLane& operator=(ProducerLane&&) = delete;

  /// @brief Destroys the elements still queued. Requires: no producer or consumer is running.
  ~ProducerLane() {
    // Until nothing is left, whatever tail the consumer saw last.
    while (ConsumeBatch(kCapacity, [](Element&) noexcept {}) != 0U) {
    }
  }

  /// @brief Owner: true when this lane is free to publish on (not inside a publish of its own,
  /// e.g. one a signal handler interrupted), and marks it busy. Pair with EndPublish().
  MCCC_ALWAYS_INLINE bool BeginPublish() noexcept {
    // relaxed: only the owning thread (and handlers running on it) reads or writes the mark;
    // the signal fence keeps the compiler from moving the slot writes above it.
    if (MCCC_UNLIKELY(owner_.publishing.load(std::memory_order_relaxed))) {
      return false;
    }
    owner_.publishing.store(true, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return true;
  }

  /// @brief Owner: ends the publish begun by a successful BeginPublish().
  MCCC_ALWAYS_INLINE void EndPublish() noexcept {
    // relaxed after a compiler fence: as BeginPublish, a same-thread flag.
    std::atomic_signal_fence(std::memory_order_seq_cst);
    owner_.publishing.store(false, std::memory_order_relaxed);
  }

  /// @brief Owner: publishes up to `count` elements while the occupancy stays below `limit`,
  /// building the i-th with `construct(void* storage, uint32_t index, after_claim())`. The
  /// admitted elements are a prefix; all of them become visible together. Wait-free.
  template <typename AfterClaim, typename Construct>
  MCCC_ALWAYS_INLINE RingBatchClaim<Position> TryPublishBatch(Position limit, uint32_t count,
                                                              AfterClaim&& after_claim,
                                                              Construct&& construct) noexcept {
    static_assert(noexcept(after_claim()), "mccc: the after-claim step must be noexcept");
    static_assert(noexcept(construct(static_cast<void*>(nullptr), uint32_t{}, after_claim())),
                  "mccc: element construction inside a lane slot must be noexcept");
    const Position tail = owner_.tail_copy;
    Position occupancy = static_cast<Position>(tail - owner_.cached_head);
    const Position wanted =
        count < kCapacity ? static_cast<Position>(count) : static_cast<Position>(kCapacity);
    if (MCCC_UNLIKELY(RoomBelow(limit, occupancy) < wanted)) {
      // acquire: pairs with the consumer's release store of head in ConsumeBatch (the slots
      // below it are destroyed before the owner reuses them).
      owner_.cached_head = consumer_.head.load(std::memory_order_acquire);
      occupancy = static_cast<Position>(tail - owner_.cached_head);
    }
    const Position room = RoomBelow(limit, occupancy);
    const Position take = room < wanted ? room : wanted;
    if (take == 0U) {
      return RingBatchClaim<Position>{0U, tail, occupancy};
    }
    const auto claimed = after_claim();
    for (Position i = 0U; i < take; ++i) {
      construct(static_cast<void*>(SlotAt(static_cast<Position>(tail + i))),
                static_cast<uint32_t>(i), claimed);
    }
    owner_.tail_copy = static_cast<Position>(tail + take);
    // release: pairs with the consumer's acquire load of the tail (ConsumeBatch,
    // HasReadyElement): the elements are complete before the tail that announces them.
    published_.tail.store(owner_.tail_copy, std::memory_order_release);
    return RingBatchClaim<Position>{take, tail, occupancy};
  }

  /// @brief Consumer: visits up to `max_count` published elements in order, calling
  /// `visit(Element&)` and destroying each. A visit that returns false ends the batch after
  /// its element. Returns how many were consumed.
  template <typename Visit>
  MCCC_ALWAYS_INLINE uint32_t ConsumeBatch(uint32_t max_count, Visit&& visit) noexcept {
    Position head = consumer_.local_head;
    // Fewer seen than wanted: look again, so that a batch takes every element published before
    // it started (not only those the consumer saw last time).
    if (static_cast<Position>(consumer_.seen_tail - head) < max_count) {
      // acquire: pairs with the owner's release store of the tail in TryPublishBatch.
      consumer_.seen_tail = published_.tail.load(std::memory_order_acquire);
    }
    const Position ready = static_cast<Position>(consumer_.seen_tail - head);
    const uint32_t count = ready < max_count ? static_cast<uint32_t>(ready) : max_count;
    uint32_t consumed = 0U;
    while (consumed < count) {
      // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
      Element* element = std::launder(reinterpret_cast<Element*>(SlotAt(head)));
      const bool go_on = detail::InvokeForVerdict(visit, *element);
      element->~Element();
      ++head;
      ++consumed;
      // release: pairs with the owner's acquire load of the head; the element is destroyed
      // before the owner may build a new one in its slot.
      consumer_.head.store(head, std::memory_order_release);
      if (!go_on) {
        break;
      }
    }
    consumer_.local_head = head;
    return consumed;
  }

  /// @brief Consumer: true when an element is ready.
  bool HasReadyElement() noexcept {
    if (consumer_.seen_tail != consumer_.local_head) {
      return true;
    }
    // acquire: pairs with the owner's release store of the tail.
    consumer_.seen_tail = published_.tail.load(std::memory_order_acquire);
    return consumer_.seen_tail != consumer_.local_head;
  }

  /// @brief Consumer: true when the owner has published something not yet consumed. seq_cst:
  /// the consumer's half of the sleep handshake; pairs with the owner's full fence after its
  /// tail store, followed by its load of the sleep flag (wakeup/consumer_parking.hpp).
  bool HasClaimedWork() const noexcept {
    return published_.tail.load(std::memory_order_seq_cst) != consumer_.local_head;
  }

  /// @brief Snapshot of the owner's published tail (the position after its last message).
  Position ClaimedPosition() const noexcept {
    // acquire: pairs with the owner's release store (a monotonic snapshot).
    return published_.tail.load(std::memory_order_acquire);
  }

  /// @brief Snapshot of the consumer position (the next position to consume).
  Position ConsumedPosition() const noexcept {
    // acquire: pairs with the consumer's release store of the head (a monotonic snapshot).
    return consumer_.head.load(std::memory_order_acquire);
  }

  /// @brief Snapshot of the published, not yet consumed elements, in [0, capacity]. Any thread.
  Position Occupancy() const noexcept {
    // acquire on head first: the tail read after it cannot be older than this head.
    const Position head = consumer_.head.load(std::memory_order_acquire);
    // acquire: pairs with the owner's release store (a value the lane really had).
    const Position tail = published_.tail.load(std::memory_order_acquire);
    const Position occupancy = static_cast<Position>(tail - head);
    return occupancy > kCapacityValue ? kCapacityValue : occupancy;
  }

 private:
  static constexpr uint32_t kMask = kCapacity - 1U;

  static constexpr Position RoomBelow(Position limit, Position occupancy) noexcept {
    return occupancy < limit ? static_cast<Position>(limit - occupancy) : Position{0U};
  }

  unsigned char* SlotAt(Position position) noexcept {
    return storage_ +
           static_cast<std::size_t>(static_cast<uint32_t>(position) & kMask) * sizeof(Element);
  }

  // The published tail: written by the owner, polled by the consumer. Alone on its line, so the
  // consumer's polling takes nothing else away from the owner: the owner's other stores never
  // wait for that line to come back.
  struct alignas(kCacheLine) TailLine {
    std::atomic<Position> tail{0U};
  };
  // Read and written by the owner only.
  struct alignas(kCacheLine) OwnerLine {
    Position tail_copy{0U};    // the owner's own tail: no atomic load on its hot path
    Position cached_head{0U};  // the consumer's head as last read by the owner
    std::atomic<bool> publishing{false};
  };
  // Written by the consumer only (the head also read by the owner and by snapshots).
  struct alignas(kCacheLine) ConsumerLine {
    std::atomic<Position> head{0U};
    Position local_head{0U};
    Position seen_tail{0U};  // the tail as last read: elements below it need no load
  };

  OwnerLine owner_;
  TailLine published_;
  ConsumerLine consumer_;
  // Compact slots: sizeof(Element) bytes each, no padding between them.
  alignas(kCacheLine > alignof(Element)
              ? kCacheLine
              // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
              : alignof(Element)) unsigned char storage_[static_cast<std::size_t>(kCapacity) *
                                                         sizeof(Element)];
};

}  // namespace mccc

#endif  // MCCC_RING_PRODUCER_LANE_HPP_
