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
///   this lane must neither touch the slots the interrupted publish is writing nor overtake the
///   lane's earlier messages (one producer, one order). The owner marks its publish with the
///   number of elements it may add (a mark only its own thread reads: relaxed atomics plus
///   compiler fences). A publish that finds the mark set runs inside a handler: it builds its
///   elements in a small handler area of the lane instead and counts them as queued against
///   the lane's limit, together with everything the interrupted publish may still add. The
///   interrupted publish, when it ends, marks itself as ending, moves what it finds in the area
///   into the lane behind its own elements and clears its mark. A handler that runs after the
///   ending mark publishes on the lane itself, and first takes in what waits in the area.
///   So the lane stays the one queue of its producer, in publish order, and the handler's
///   publish returns at once, never waiting for the thread it interrupted.
///   A handler interrupted in turn by another handler while it writes the handler area leaves
///   that inner publish refused (a documented kQueueFull): nothing else can be both safe and
///   in order there.
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

namespace detail {

/// @brief What a lane publish did. Its admitted elements are visible to the consumer when it
/// returns, except those of a publish inside a signal handler that interrupted another publish
/// on the lane (they become visible when that one ends); `taken_in` more, left by such
/// handlers, became visible with them (the caller wakes the consumer for those too).
template <typename Position>
struct LaneClaim {
  Position admitted;   ///< How many elements (a prefix of the request) were admitted.
  Position position;   ///< The first position taken (admitted > 0) or the tail observed (0).
  Position occupancy;  ///< Occupancy observed when the decision was made.
  Position taken_in;   ///< Elements of handlers this call made visible.
};

/// @brief Single-producer / single-consumer ring with compact slots (no per-slot word).
/// @tparam Element   Stored type; constructed by the owner's callable, destroyed by the consumer.
/// @tparam kCapacity Slot count, a power of two.
/// @tparam Position  Unsigned position type (at least 32 bits; wraps modulo its range).
/// @tparam kCacheLine Padding unit between owner-written and consumer-written data.
/// @tparam kHandlerSlotCount Elements that signal handlers interrupting the owner's publish may
///         leave for it to take in (file comment, "Reentrancy").
template <typename Element, uint32_t kCapacity, typename Position, uint32_t kCacheLine,
          uint32_t kHandlerSlotCount = 4U>
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
  static_assert(std::is_nothrow_move_constructible_v<Element>,
                "mccc: lane elements must be nothrow move constructible (a handler's element is "
                "moved from the handler area into the lane)");
  static_assert(kHandlerSlotCount > 0U && kHandlerSlotCount <= 256U,
                "mccc: a lane keeps 1 to 256 handler slots");

 public:
  static constexpr Position kCapacityValue = static_cast<Position>(kCapacity);
  /// Elements signal handlers may leave for an interrupted publish (the handler area).
  static constexpr uint32_t kHandlerSlots = kHandlerSlotCount;

  /// Constant-initialised (every member has an initialiser), so a bus with lanes in static
  /// storage needs no start-up code either.
  constexpr ProducerLane() noexcept = default;
  ProducerLane(const ProducerLane&) = delete;
  ProducerLane& operator=(const ProducerLane&) = delete;
  ProducerLane(ProducerLane&&) = delete;
  ProducerLane& operator=(ProducerLane&&) = delete;

  /// @brief Destroys the elements still queued. Requires: no producer or consumer is running.
  ~ProducerLane() {
    // A publish always empties the handler area before it returns; a thread that died inside
    // one could leave elements there.
    // relaxed: no producer is running.
    for (uint32_t k = owner_.handled.load(std::memory_order_relaxed);
         k != owner_.stashed.load(std::memory_order_relaxed); ++k) {
      HandlerElementAt(k)->~Element();
    }
    // Until nothing is left, whatever tail the consumer saw last.
    while (ConsumeBatch(kCapacity, [](Element&) noexcept {}) != 0U) {
    }
  }

  /// @brief Owner (or a signal handler on its thread): publishes up to `count` (> 0) elements
  /// while the occupancy stays below `limit`, building the i-th with `construct(void* storage,
  /// uint32_t index, after_claim())`. The admitted elements are a prefix. Outside a handler
  /// they become visible together, with whatever handlers left for this publish after them;
  /// inside a handler that interrupted a publish on this lane they are built in the handler
  /// area, counted against `limit` with everything the interrupted publish may still add, and
  /// become visible when it ends. Wait-free.
  template <typename AfterClaim, typename Construct>
  MCCC_ALWAYS_INLINE LaneClaim<Position> Publish(Position limit, uint32_t count,
                                                 AfterClaim&& after_claim,
                                                 Construct&& construct) noexcept {
    static_assert(noexcept(after_claim()), "mccc: the after-claim step must be noexcept");
    static_assert(noexcept(construct(static_cast<void*>(nullptr), uint32_t{}, after_claim())),
                  "mccc: element construction inside a lane slot must be noexcept");
    const uint32_t wanted = count < kCapacity ? count : kCapacity;
    // relaxed (every access to publishing, stashed, handled and stashing): only the owning
    // thread and handlers running on it touch them; the signal fences keep the compiler from
    // moving slot writes across them, and a handler runs to its end before its thread resumes.
    const uint32_t mark = owner_.publishing.load(std::memory_order_relaxed);
    Position taken_in = 0U;
    if (MCCC_UNLIKELY(mark != 0U)) {
      if (mark != kEnding) {
        // A signal handler that interrupted a publish on this lane: the handler area.
        const HandlerSlots slots = ReserveHandlerSlots(limit, wanted);
        if (slots.take != 0U) {
          const auto claimed = after_claim();
          for (uint32_t i = 0U; i < slots.take; ++i) {
            construct(static_cast<void*>(HandlerSlotAt(slots.first + i)), i, claimed);
          }
        }
        ReleaseHandlerSlots(slots);
        return LaneClaim<Position>{static_cast<Position>(slots.take), owner_.tail_copy,
                                   slots.queued, 0U};
      }
      // A handler that interrupted the end of a publish before its last look at the area: it
      // publishes on the lane itself, after what waits there (published first).
      taken_in = TakeInAsOwner(wanted);
    } else {
      owner_.publishing.store(wanted, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);
    }
    const Position tail = owner_.tail_copy;
    Position occupancy = static_cast<Position>(tail - owner_.cached_head);
    const auto wanted_position = static_cast<Position>(wanted);
    if (MCCC_UNLIKELY(RoomBelow(limit, occupancy) < wanted_position)) {
      RefreshCachedHead();
      occupancy = static_cast<Position>(tail - owner_.cached_head);
    }
    const Position room = RoomBelow(limit, occupancy);
    const Position take = room < wanted_position ? room : wanted_position;
    if (take != 0U) {
      const auto claimed = after_claim();
      for (Position i = 0U; i < take; ++i) {
        construct(static_cast<void*>(SlotAt(static_cast<Position>(tail + i))),
                  static_cast<uint32_t>(i), claimed);
      }
      Announce(static_cast<Position>(tail + take));
    }
    taken_in += EndPublish();
    return LaneClaim<Position>{take, tail, occupancy, taken_in};
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
      // acquire: pairs with the owner's release store of the tail in Announce.
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
  // The mark of a publish that has finished its own elements and looks at the handler area
  // before it clears the mark (EndPublish); other marks are the most the publish may add.
  static constexpr uint32_t kEnding = ~uint32_t{0};

  static constexpr Position RoomBelow(Position limit, Position occupancy) noexcept {
    return occupancy < limit ? static_cast<Position>(limit - occupancy) : Position{0U};
  }

  unsigned char* SlotAt(Position position) noexcept {
    return storage_ +
           static_cast<std::size_t>(static_cast<uint32_t>(position) & kMask) * sizeof(Element);
  }

  /// The handler area's k-th element (k counts every element ever left there).
  unsigned char* HandlerSlotAt(uint32_t k) noexcept {
    return handler_area_ + static_cast<std::size_t>(k % kHandlerSlots) * sizeof(Element);
  }
  Element* HandlerElementAt(uint32_t k) noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
    return std::launder(reinterpret_cast<Element*>(HandlerSlotAt(k)));
  }

  MCCC_ALWAYS_INLINE bool HasHandlerElements() const noexcept {
    // relaxed: see Publish.
    return owner_.stashed.load(std::memory_order_relaxed) !=
           owner_.handled.load(std::memory_order_relaxed);
  }

  void RefreshCachedHead() noexcept {
    // acquire: pairs with the consumer's release store of head in ConsumeBatch (the slots
    // below it are destroyed before the owner reuses them).
    owner_.cached_head = consumer_.head.load(std::memory_order_acquire);
  }

  /// Makes every element below `tail` visible to the consumer.
  MCCC_ALWAYS_INLINE void Announce(Position tail) noexcept {
    owner_.tail_copy = tail;
    // release: pairs with the consumer's acquire load of the tail (ConsumeBatch,
    // HasReadyElement): the elements are complete before the tail that announces them.
    published_.tail.store(tail, std::memory_order_release);
  }

  /// Ends a publish: marks it as ending, looks at the handler area, takes in what it finds,
  /// then clears the mark. A handler that lands after the ending mark does not use the area: it
  /// publishes on the lane itself and takes in what waits there first (Publish). So whatever a
  /// handler left is taken in by this look or by that handler, and the next publish finds the
  /// area empty. Returns how many elements it took in.
  MCCC_ALWAYS_INLINE Position EndPublish() noexcept {
    // relaxed: see Publish.
    std::atomic_signal_fence(std::memory_order_seq_cst);
    owner_.publishing.store(kEnding, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    Position announced = 0U;
    if (MCCC_UNLIKELY(HasHandlerElements())) {
      announced = TakeInHandlerElementsAndEnd();
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);
    owner_.publishing.store(0U, std::memory_order_relaxed);
    return announced;
  }

  /// Publish inside a handler that found the ending mark: marks the lane as its own and takes
  /// in what handlers left, before its own elements.
  MCCC_NOINLINE Position TakeInAsOwner(uint32_t wanted) noexcept {
    // relaxed: see Publish.
    owner_.publishing.store(wanted, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return TakeInHandlerElements();
  }

  /// EndPublish when handlers left elements: marked again while it moves them (adding nothing
  /// of its own; 1 is the least mark, handlers count one more), then ending again, until the
  /// area is found empty after the ending mark.
  MCCC_NOINLINE Position TakeInHandlerElementsAndEnd() noexcept {
    Position announced = 0U;
    do {
      // relaxed: see Publish.
      owner_.publishing.store(1U, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      announced += TakeInHandlerElements();
      std::atomic_signal_fence(std::memory_order_seq_cst);
      owner_.publishing.store(kEnding, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);
    } while (HasHandlerElements());
    return announced;
  }

  /// Owner, marked: moves the handler area's elements, oldest first, to the lane's tail and
  /// announces them. A handler that interrupts it adds behind them (it re-reads the count).
  /// The room was reserved by each handler's admission (ReserveHandlerSlots).
  MCCC_NOINLINE Position TakeInHandlerElements() noexcept {
    Position moved = 0U;
    // relaxed (stashed, handled): see Publish.
    for (uint32_t k = owner_.handled.load(std::memory_order_relaxed);
         k != owner_.stashed.load(std::memory_order_relaxed); ++k) {
      const Position tail = owner_.tail_copy;
      if (static_cast<Position>(tail - owner_.cached_head) >= kCapacityValue) {
        RefreshCachedHead();
      }
      MCCC_ASSERT(static_cast<Position>(tail - owner_.cached_head) < kCapacityValue,
                  "a handler's element was admitted without room in the lane");
      Element* from = HandlerElementAt(k);
      // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): deviation D-01
      ::new (static_cast<void*>(SlotAt(tail))) Element(std::move(*from));
      from->~Element();
      // The tail copy first: a handler in between counts the element twice, never not at all.
      owner_.tail_copy = static_cast<Position>(tail + 1U);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      owner_.handled.store(k + 1U, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      ++moved;
    }
    if (moved != 0U) {
      Announce(owner_.tail_copy);
    }
    return moved;
  }

  /// What a publish inside a signal handler was given in the handler area.
  struct HandlerSlots {
    uint32_t first;   // the area's count of the first element to build
    uint32_t take;    // how many to build there (0: refused)
    Position queued;  // the occupancy it was admitted against (capped at the capacity)
    bool owns_area;   // it marked the area busy (ReleaseHandlerSlots unmarks it)
  };

  /// A publish inside a signal handler that interrupted a publish on this lane (the mark is
  /// set): reserves up to `wanted` elements of the handler area, for the caller to build in.
  /// Admitted while the lane's occupancy, plus everything the interrupted publish may still
  /// add, plus the elements already waiting in the area, stays below `limit`, and while the
  /// area has room; so the interrupted publish always finds room for them in the lane. Refused
  /// when it interrupted another handler writing the area. Out of line: only the construction
  /// loop stays at the call site (the callables it needs then never leave the caller).
  MCCC_NOINLINE HandlerSlots ReserveHandlerSlots(Position limit, uint32_t wanted) noexcept {
    // relaxed (stashing, stashed, handled, publishing): see Publish.
    if (owner_.stashing.load(std::memory_order_relaxed)) {
      return HandlerSlots{0U, 0U, kCapacityValue, false};
    }
    owner_.stashing.store(true, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const uint32_t first = owner_.stashed.load(std::memory_order_relaxed);
    const uint32_t waiting = first - owner_.handled.load(std::memory_order_relaxed);
    // relaxed: only a bound (a stale head overstates the occupancy); the slots are written
    // later by the take-in, which reads the head with acquire.
    const Position head = consumer_.head.load(std::memory_order_relaxed);
    const Position queued =
        static_cast<Position>(static_cast<Position>(owner_.tail_copy - head) +
                              owner_.publishing.load(std::memory_order_relaxed) + waiting);
    const Position lane_room = RoomBelow(limit, queued);
    const uint32_t area_room = kHandlerSlots - waiting;
    uint32_t take = wanted < area_room ? wanted : area_room;
    take = lane_room < static_cast<Position>(take) ? static_cast<uint32_t>(lane_room) : take;
    return HandlerSlots{first, take, queued < kCapacityValue ? queued : kCapacityValue, true};
  }

  /// Ends a handler's use of the area: counts the elements it built (after building them, so
  /// a handler interrupting this one never sees a count that covers a half-built element).
  MCCC_NOINLINE void ReleaseHandlerSlots(const HandlerSlots& slots) noexcept {
    if (!slots.owns_area) {
      return;
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);
    // relaxed: see Publish.
    owner_.stashed.store(slots.first + slots.take, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    owner_.stashing.store(false, std::memory_order_relaxed);
  }

  // The published tail: written by the owner, polled by the consumer. Alone on its line, so the
  // consumer's polling takes nothing else away from the owner: the owner's other stores never
  // wait for that line to come back.
  struct alignas(kCacheLine) TailLine {
    std::atomic<Position> tail{0U};
  };
  // Read and written by the owner only (and by signal handlers on its thread).
  struct alignas(kCacheLine) OwnerLine {
    Position tail_copy{0U};    // the owner's own tail: no atomic load on its hot path
    Position cached_head{0U};  // the consumer's head as last read by the owner
    // 0; or the most elements the publish under way may still add (a handler's bound); or
    // kEnding while it looks at the handler area for the last time.
    std::atomic<uint32_t> publishing{0U};
    // Elements ever left in the handler area, and ever taken from it into the lane: the area
    // holds [handled, stashed). Handlers write `stashed`, the marked owner `handled`.
    std::atomic<uint32_t> stashed{0U};
    std::atomic<uint32_t> handled{0U};
    std::atomic<bool> stashing{false};  // a handler is writing the area
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
  // Compact slots: sizeof(Element) bytes each, no padding between them. Zero-initialised, so
  // the constructor is constexpr (no byte is read before an element is built in it).
  alignas(kCacheLine > alignof(Element)
              ? kCacheLine
              // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
              : alignof(Element)) unsigned char storage_[static_cast<std::size_t>(kCapacity) *
                                                         sizeof(Element)] = {};
  // Elements left by signal handlers for the interrupted publish to take in (Publish).
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
  alignas(Element) unsigned char handler_area_[static_cast<std::size_t>(kHandlerSlots) *
                                               sizeof(Element)] = {};
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_RING_PRODUCER_LANE_HPP_
