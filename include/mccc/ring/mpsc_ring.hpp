// SPDX-License-Identifier: MIT
/// @file mpsc_ring.hpp
/// @brief The bounded multi-producer / single-consumer ring of preallocated slots.
///
/// Design (one paragraph per idea):
/// - Positions grow without bound (modulo 2^bits of `Position`); slot = position & (Capacity-1).
///   `tail_` is the next position to claim, `head_` the next position to consume.
/// - A producer claims a position with one CAS on `tail_` (or a plain store in single-producer
///   mode), but only after checking that occupancy (tail - head) is below the caller's admission
///   limit. Because the limit never exceeds Capacity, "occupancy < limit" also proves that the
///   consumer has finished with the slot's previous lap: the consumer publishes `head_` only after
///   destroying a slot's element.
/// - Producers read the consumer's `head_` rarely: they keep a cached copy next to `tail_`, and
///   refresh it only when the cached view says the limit is reached. A cached head is never ahead
///   of the real one, and it only ever moves forward (a producer holding an older reading cannot
///   store it back), so it can only make a producer look twice, never admit wrongly.
/// - Positions are at least 32 bits wide. A narrower type would let a stale position pass for a
///   fresh one after a single lap of the ring (ABA), and would wrap ids and counters.
/// - The tail is published before the claimed slots are announced, on both the multi-producer
///   path (the CAS) and the single-producer path (a release store), so the consumer's head can
///   never pass the tail: every occupancy snapshot is a value the ring really had, or the
///   capacity as a safe upper bound.
/// - No spurious "full": a producer whose tail guess is older than the head it read (the queue
///   moved on meanwhile) reloads the tail instead of reporting full; only an occupancy computed
///   from a fresh head and an equal-or-older tail (i.e. a lower bound of the true occupancy) at or
///   above the limit rejects.
/// - Each slot carries a sequence number: the producer stores position + 1 after constructing the
///   element (release), the consumer waits for exactly head + 1 (acquire). A slot claimed but not
///   yet written (a producer preempted mid-publish) therefore blocks the consumer at that position
///   without it ever reading a half-written element; later positions wait behind it (FIFO).
#ifndef MCCC_RING_MPSC_RING_HPP_
#define MCCC_RING_MPSC_RING_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "mccc/config.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/scoped_flag.hpp"
#include "mccc/detail/verdict.hpp"

namespace mccc {

namespace detail {

/// @brief Result of MpscRing::TryPublish.
template <typename Position>
struct RingClaim {
  bool admitted;       ///< True: the element was constructed and published.
  Position position;   ///< The position taken (admitted) or the tail observed (refused).
  Position occupancy;  ///< Occupancy observed when the decision was made.
};

/// @brief Result of MpscRing::TryPublishBatch.
template <typename Position>
struct RingBatchClaim {
  Position admitted;   ///< How many elements (a prefix of the request) were published.
  Position position;   ///< The first position taken (admitted > 0) or the tail observed (0).
  Position occupancy;  ///< Occupancy observed when the decision was made.
};

/// @brief Bounded MPSC (or SPSC) ring. Elements live inside the slots.
/// @tparam Element   Stored type; constructed by the producer's callable, destroyed by the
/// consumer.
/// @tparam kCapacity Slot count, a power of two.
/// @tparam kSingleProducer true: at most one thread publishes at a time (no CAS).
/// @tparam kSingleCore true: relaxed atomics plus compiler fences, no padding (one-core MCUs).
/// @tparam Position  Unsigned position type (wraps modulo its range).
/// @tparam kCacheLine Padding unit between producer-written and consumer-written data.
/// @tparam CriticalSection Single-core builds: makes the claim CAS a compare and a store inside
/// a critical section (platform/critical_section.hpp), for cores without atomic RMW.
template <typename Element, uint32_t kCapacity, bool kSingleProducer, bool kSingleCore,
          typename Position, uint32_t kCacheLine, typename CriticalSection = NoCriticalSection>
class MpscRing {
  static_assert(kCapacity > 0U, "mccc: queue depth must be greater than zero");
  static_assert((kCapacity & (kCapacity - 1U)) == 0U,
                "mccc: queue depth must be a power of two (e.g. 1024, 4096, 131072)");
  static_assert(std::is_unsigned_v<Position>, "mccc: Position must be an unsigned integer type");
  static_assert(sizeof(Position) >= sizeof(uint32_t),
                "mccc: Position must be at least 32 bits (uint32_t or uint64_t): a narrower "
                "position wraps within one preemption of a producer, so a stale position looks "
                "fresh (ABA) and message ids and statistics wrap; use uint32_t on targets "
                "without lock-free 64-bit atomics");
  static_assert(static_cast<uint64_t>(kCapacity) <=
                    (static_cast<uint64_t>(Position(~Position{0})) >> 1U),
                "mccc: queue depth must be at most half the Position range");
  // Loads and stores of a position must be single instructions: lock-free atomics, or (cores
  // without atomic RMW) a type no wider than a machine word, whose aligned loads and stores are
  // atomic anyway; the read-modify-writes are checked below.
  static_assert(std::atomic<Position>::is_always_lock_free || sizeof(Position) <= sizeof(void*),
                "mccc: ring positions must be lock-free atomics on this target; use a 32-bit "
                "Position");
  static_assert(detail::kRmwAvailable<kSingleCore, CriticalSection, Position>,
                "mccc: this core has no lock-free atomic read-modify-write (e.g. Cortex-M0/M0+): "
                "build the bus for one core (kSingleCore = true) and give its traits a "
                "CriticalSection with static Enter()/Exit(state) (platform/critical_section.hpp; "
                "mccc::PrimaskCriticalSection on Cortex-M)");
  static_assert(std::is_nothrow_destructible_v<Element>,
                "mccc: elements must not throw on destruction");
  static_assert(kCacheLine >= 8U && (kCacheLine & (kCacheLine - 1U)) == 0U,
                "mccc: kCacheLineSize (MCCC_CACHELINE_SIZE) must be a power of two, at least 8 "
                "(64 on x86-64 and most Arm cores, 128 on Apple M-series and POWER)");

 public:
  /// Number of slots.
  static constexpr Position kCapacityValue = static_cast<Position>(kCapacity);

  /// @brief Empty ring whose first position is 0. Every slot's sequence starts at 0, which no
  /// first-lap position announces (position p is announced by p + 1 >= 1, and 0 comes back only
  /// after 2^bits positions, long after every slot was written), so the ring is all zero bytes:
  /// constant-initialised, it lands in zero-initialised static memory (.bss) with no start-up
  /// code.
  constexpr MpscRing() noexcept = default;

  /// @brief Empty ring whose first position is `initial_position` (tests start near the wrap
  /// point to prove modular arithmetic).
  explicit MpscRing(Position initial_position) noexcept {
    for (uint32_t i = 0U; i < kCapacity; ++i) {
      // The first position that lands in slot i is the first p >= initial with p % cap == i.
      const Position first_use =
          static_cast<Position>(initial_position + ((static_cast<Position>(i) - initial_position) &
                                                    static_cast<Position>(kCapacity - 1U)));
      // "Previous lap" value: never equal to first_use + 1, so the consumer cannot mistake it.
      slots_[i].sequence.store(static_cast<Position>(first_use + 1U - kCapacityValue),
                               std::memory_order_relaxed);
    }
    producer_.tail.store(initial_position, std::memory_order_relaxed);
    producer_.cached_head.store(initial_position, std::memory_order_relaxed);
    consumer_.head.store(initial_position, std::memory_order_relaxed);
    consumer_.local_head = initial_position;
  }

  MpscRing(const MpscRing&) = delete;
  MpscRing& operator=(const MpscRing&) = delete;
  MpscRing(MpscRing&&) = delete;
  MpscRing& operator=(MpscRing&&) = delete;

  /// @brief Destroys the elements still queued. Requires: no producer or consumer is running.
  ~MpscRing() { DrainAndDestroy(); }

  /// @brief Bytes of one slot: the element plus the sequence word, rounded to their alignment
  /// (for memory budgets: a ring is kCapacity slots, kPrefetchPadding more on multi-core targets,
  /// and two position lines).
  static constexpr std::size_t SlotBytes() noexcept { return sizeof(Slot); }

  /// @brief Claims one slot if the observed occupancy is below `limit`, constructs the element
  /// with `construct(void* storage, Position position)` and publishes it.
  /// Thread-safe for any number of producers (one at a time if kSingleProducer); lock-free
  /// (wait-free if kSingleProducer). `construct` must not throw.
  template <typename Construct>
  MCCC_ALWAYS_INLINE RingClaim<Position> TryPublish(Position limit,
                                                    Construct&& construct) noexcept {
    static_assert(noexcept(construct(static_cast<void*>(nullptr), Position{})),
                  "mccc: element construction inside a claimed slot must be noexcept");
    const RingBatchClaim<Position> claim =
        kSingleProducer ? ClaimSingle(limit, Position{1U}) : ClaimMulti(limit, Position{1U});
    if (MCCC_UNLIKELY(claim.admitted == 0U)) {
      return RingClaim<Position>{false, claim.position, claim.occupancy};
    }
    PublishTail(claim);
    ConstructInSlot(claim.position, claim.occupancy, std::forward<Construct>(construct));
    AnnounceSlot(claim.position);
    AfterAnnounce(claim.position);
    return RingClaim<Position>{true, claim.position, claim.occupancy};
  }

  /// @brief Claims up to `count` consecutive slots with one claim and publishes an element in
  /// each, built by `construct(void* storage, Position position, uint32_t index)` for index
  /// 0, 1, ... The k-th element (from 0) is admitted exactly when the observed occupancy + k is
  /// below `limit`, the decision `count` single TryPublish calls at that instant would make, so
  /// the admitted elements are a prefix. Thread-safe as TryPublish; one claim (CAS) per call.
  /// Every element is constructed before the first is announced: the consumer, waiting at the
  /// first slot, then streams through finished lines instead of chasing the producer slot by
  /// slot and pulling each line across while it is being written. The elements of one call
  /// therefore become visible together, after the last is built.
  template <typename Construct>
  MCCC_ALWAYS_INLINE RingBatchClaim<Position> TryPublishBatch(Position limit, uint32_t count,
                                                              Construct&& construct) noexcept {
    return TryPublishBatch(
        limit, count, []() noexcept { return 0; },
        [&construct](void* storage, Position position, uint32_t index, int) noexcept {
          construct(storage, position, index);
        });
  }

  /// @brief As above, and `after_claim()` runs once, after a successful claim and before the
  /// first element is built; its result is passed to every
  /// `construct(storage, position, index, result)` (e.g. a timestamp converted only when
  /// something was admitted).
  template <typename AfterClaim, typename Construct>
  MCCC_ALWAYS_INLINE RingBatchClaim<Position> TryPublishBatch(Position limit, uint32_t count,
                                                              AfterClaim&& after_claim,
                                                              Construct&& construct) noexcept {
    static_assert(noexcept(after_claim()), "mccc: the after-claim step must be noexcept");
    static_assert(
        noexcept(construct(static_cast<void*>(nullptr), Position{}, uint32_t{}, after_claim())),
        "mccc: element construction inside a claimed slot must be noexcept");
    const Position wanted =
        count < kCapacity ? static_cast<Position>(count) : static_cast<Position>(kCapacity);
    if (wanted == 0U) {
      return RingBatchClaim<Position>{0U, ClaimedPosition(), Occupancy()};
    }
    const RingBatchClaim<Position> claim =
        kSingleProducer ? ClaimSingle(limit, wanted) : ClaimMulti(limit, wanted);
    if (claim.admitted == 0U) {
      return claim;
    }
    PublishTail(claim);
    const auto claimed = after_claim();
    for (Position i = 0U; i < claim.admitted; ++i) {
      ConstructInSlot(static_cast<Position>(claim.position + i),
                      static_cast<Position>(claim.occupancy + i),
                      [&construct, &claimed, i](void* storage, Position position) noexcept {
                        construct(storage, position, static_cast<uint32_t>(i), claimed);
                      });
    }
    for (Position i = 0U; i < claim.admitted; ++i) {
      AnnounceSlot(static_cast<Position>(claim.position + i));
    }
    AfterAnnounce(static_cast<Position>(claim.position + claim.admitted - 1U));
    return claim;
  }

  /// @brief Consumer: visits up to `max_count` published elements in position order, calling
  /// `visit(Element&, Position)` or `visit(Element&)` (the form a ProducerLane takes, so one
  /// visitor serves both ring kinds) and then destroying each. A visit that returns false ends the
  /// batch after its element. Returns how many were consumed.
  /// Single consumer only: not thread-safe against itself. `visit` must not throw.
  template <typename Visit>
  MCCC_ALWAYS_INLINE uint32_t ConsumeBatch(uint32_t max_count, Visit&& visit) noexcept {
    Position head = consumer_.local_head;
    uint32_t consumed = 0U;
    while (consumed < max_count) {
      Slot& slot = slots_[static_cast<uint32_t>(head) & kMask];
      // acquire: pairs with the producer's release store of position + 1 in TryPublish; a
      // different value means "not yet published" (empty, or a producer still writing).
      if (detail::LoadAcquire<kSingleCore>(slot.sequence) != static_cast<Position>(head + 1U)) {
        break;
      }
      // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
      Element* element = std::launder(reinterpret_cast<Element*>(slot.storage));
      bool go_on = true;
      if constexpr (std::is_invocable_v<Visit&, Element&, Position>) {
        go_on = detail::InvokeForVerdict(visit, *element, head);
      } else {
        go_on = detail::InvokeForVerdict(visit, *element);
      }
      element->~Element();
      ++head;
      ++consumed;
      // release: pairs with the producers' acquire load of head_ in RefreshHead(); the slot's
      // element is destroyed before any producer may reuse the slot.
      detail::StoreRelease<kSingleCore>(consumer_.head, head);
      if (!go_on) {
        break;
      }
    }
    consumer_.local_head = head;
    return consumed;
  }

  /// @brief Consumer: true when the next position holds a published element. Single consumer.
  bool HasReadyElement() const noexcept {
    // The head is read once, before the acquire load (after it, it would be loaded again).
    const Position head = consumer_.local_head;
    // acquire: pairs with the producer's release in TryPublish (same as ConsumeBatch).
    return detail::LoadAcquire<kSingleCore>(SlotAt(head).sequence) ==
           static_cast<Position>(head + 1U);
  }

  /// @brief What the consumer checks to know whether its next position is published: the slot's
  /// sequence word and the value that announces it. Valid until the consumer consumes from this
  /// ring; lets a consumer that polls this ring between the elements of another one keep the
  /// check in two registers.
  struct NextProbe {
    const std::atomic<Position>* sequence;
    Position announced;

    /// @brief True when the element is published. acquire: as HasReadyElement.
    MCCC_ALWAYS_INLINE bool Ready() const noexcept {
      return detail::LoadAcquire<kSingleCore>(*sequence) == announced;
    }
  };

  /// @brief Consumer: the probe of its next position (see NextProbe).
  NextProbe ProbeNext() const noexcept {
    const Position head = consumer_.local_head;
    return NextProbe{&slots_[static_cast<uint32_t>(head) & kMask].sequence,
                     static_cast<Position>(head + 1U)};
  }

  /// @brief Consumer: true when a producer has claimed a position the consumer has not consumed
  /// (published or still being written). seq_cst: the consumer's half of the sleep handshake;
  /// pairs with the producers' seq_cst claim (CAS, or fence in single-producer mode) followed by
  /// their seq_cst load of the sleep flag.
  bool HasClaimedWork() const noexcept {
    return detail::LoadSeqCst<kSingleCore>(producer_.tail) != consumer_.local_head;
  }

  /// @brief Snapshot of the number of claimed, not yet consumed positions, in [0, capacity].
  /// Thread-safe, wait-free; the value may be stale as soon as it is returned.
  Position Occupancy() const noexcept {
    // acquire on head first: the tail read after it cannot be older than this head.
    const Position head = detail::LoadAcquire<kSingleCore>(consumer_.head);
    const Position tail = detail::LoadAcquire<kSingleCore>(producer_.tail);
    const Position occupancy = static_cast<Position>(tail - head);
    return occupancy > kCapacityValue ? kCapacityValue : occupancy;
  }

  /// @brief Snapshot of the consumer position (the next position to consume).
  Position ConsumedPosition() const noexcept {
    // acquire: pairs with the consumer's release in ConsumeBatch (a monotonic snapshot).
    return detail::LoadAcquire<kSingleCore>(consumer_.head);
  }

  /// @brief Snapshot of the claim position.
  Position ClaimedPosition() const noexcept {
    // acquire: pairs with the tail CAS / single-producer release store (a monotonic snapshot).
    return detail::LoadAcquire<kSingleCore>(producer_.tail);
  }

#if MCCC_ENABLE_TEST_HOOKS
  /// @brief Test hook: called by a producer after it claimed `position` and before it writes
  /// the slot (lets a test suspend a producer mid-publish). Set before producers start.
  void SetAfterClaimHook(void (*hook)(void* context, Position position), void* context) noexcept {
    after_claim_hook_ = hook;
    after_claim_context_ = context;
  }

  /// @brief Test hook: the producers' shared copy of the consumer position.
  Position CachedHeadForTest() const noexcept {
    // acquire: pairs with RefreshHead's release CAS (a snapshot for a test's monotonicity check).
    return detail::LoadAcquire<kSingleCore>(producer_.cached_head);
  }

  /// @brief Test hook: called by a producer after it announced the slot at `position` (the
  /// last one of a batch), before the publish returns. Set before producers start.
  void SetAfterAnnounceHook(void (*hook)(void* context, Position position),
                            void* context) noexcept {
    after_announce_hook_ = hook;
    after_announce_context_ = context;
  }
#endif

 private:
  static constexpr uint32_t kMask = kCapacity - 1U;
  static constexpr unsigned kLine =
      detail::kLineAlign<kSingleCore, kCacheLine, std::atomic<Position>>;

  struct Slot {
    std::atomic<Position> sequence{0U};
    // Raw storage, written by placement new before use; zeroed only so that the ring can be
    // constant-initialised (C++17 requires every member of a constexpr constructor initialised).
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
    alignas(Element) unsigned char storage[sizeof(Element)]{};
  };

  // Written by producers: the claim position and their shared cache of the consumer position.
  struct alignas(kLine) ProducerLine {
    std::atomic<Position> tail{0U};
    std::atomic<Position> cached_head{0U};
  };
  // Written by the consumer only.
  struct alignas(kLine) ConsumerLine {
    std::atomic<Position> head{0U};
    Position local_head{0U};
  };

  /// The slot of `position`. With slots of a power-of-two size it is addressed by a byte offset
  /// (the position scaled, then masked), so that the compiler folds the array's place in the
  /// ring into the load's displacement instead of adding it to the index.
  MCCC_ALWAYS_INLINE const Slot& SlotAt(Position position) const noexcept {
    if constexpr ((sizeof(Slot) & (sizeof(Slot) - 1U)) == 0U) {
      const std::size_t offset = (static_cast<std::size_t>(position) * sizeof(Slot)) &
                                 (static_cast<std::size_t>(kMask) * sizeof(Slot));
      // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
      // NOLINTBEGIN(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-03
      const auto* first = reinterpret_cast<const unsigned char*>(&slots_[0]);
      return *reinterpret_cast<const Slot*>(first + offset);
      // NOLINTEND(cppcoreguidelines-pro-bounds-pointer-arithmetic)
      // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
    } else {
      return slots_[static_cast<uint32_t>(position) & kMask];
    }
  }

  /// Slots ahead of the claimed one whose lines the producer requests for writing now, so that
  /// their cache misses overlap with this publish instead of stalling a later one (the claim CAS
  /// drains the store buffer, which would otherwise expose every miss). Every line of the slot:
  /// a 128-byte payload spans three, and prefetching only the first leaves the other two to miss
  /// in turn. Skipped when the slot may still be in use by the consumer, and on single-core
  /// targets (no coherence traffic).
  static constexpr uint32_t kPrefetchDistance = kSingleCore ? 0U : 4U;
#if defined(__GNUC__) || defined(__clang__)
  static constexpr bool kPrefetches = kPrefetchDistance > 0U && kCapacity > 2U * kPrefetchDistance;
#else
  static constexpr bool kPrefetches = false;
#endif

 public:
  /// @brief Slots after the last one that only the prefetch touches, so that it addresses the
  /// slot kPrefetchDistance ahead of the one being built without wrapping the position (at the
  /// end of a lap it prefetches these instead of the first slots, which then miss once a lap).
  static constexpr uint32_t kPrefetchPadding = kPrefetches ? kPrefetchDistance : 0U;

 private:
  /// `slot`: the slot of `position`, being built; `occupancy`: the occupancy it was admitted at.
  MCCC_ALWAYS_INLINE void PrefetchAhead(const Slot& slot, Position occupancy) noexcept {
    if constexpr (kPrefetches) {
#if defined(__GNUC__) || defined(__clang__)
      // occupancy + distance < capacity: the slot's previous lap is consumed (cached view).
      if (MCCC_LIKELY(occupancy < kCapacityValue - kPrefetchDistance)) {
        // The slot's bytes, and its address as a number to find its first cache line. Inside
        // slots_: the padding covers the distance past the last slot.
        // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): deviations D-02, D-04
        // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-03
        const auto* ahead = reinterpret_cast<const unsigned char*>(&slot + kPrefetchDistance);
        // Every line the slot touches, whether or not it starts on a line boundary (slots_ is
        // line-aligned, so stepping back to the boundary stays inside the array). Slots of
        // whole lines all start on one, which the compiler cannot tell from the address.
        const std::size_t misalignment =
            sizeof(Slot) % kCacheLine == 0U
                ? 0U
                : reinterpret_cast<uintptr_t>(ahead) & (kCacheLine - 1U);
        // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
        for (std::size_t offset = 0U; offset < misalignment + sizeof(Slot); offset += kCacheLine) {
          // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-03
          __builtin_prefetch(ahead - misalignment + offset, 1, 3);
        }
      }
#endif
    } else {
      static_cast<void>(slot);
      static_cast<void>(occupancy);
    }
  }

  /// Builds the element of a claimed `position` (`occupancy`: the occupancy it was admitted
  /// at) with `construct(void* storage, Position position)`. The consumer cannot see it yet.
  template <typename Construct>
  MCCC_ALWAYS_INLINE void ConstructInSlot(Position position, Position occupancy,
                                          Construct&& construct) noexcept {
    Slot& slot = slots_[static_cast<uint32_t>(position) & kMask];
    PrefetchAhead(slot, occupancy);
#if MCCC_ENABLE_TEST_HOOKS
    if (after_claim_hook_ != nullptr) {
      after_claim_hook_(after_claim_context_, position);
    }
#endif
    construct(static_cast<void*>(slot.storage), position);
  }

  MCCC_ALWAYS_INLINE void AfterAnnounce(Position position) noexcept {
#if MCCC_ENABLE_TEST_HOOKS
    if (after_announce_hook_ != nullptr) {
      after_announce_hook_(after_announce_context_, position);
    }
#else
    static_cast<void>(position);
#endif
  }

  /// Hands the element built at `position` to the consumer.
  MCCC_ALWAYS_INLINE void AnnounceSlot(Position position) noexcept {
    // release: pairs with the consumer's acquire load in ConsumeBatch; the element's bytes are
    // visible before the consumer can see the sequence that announces them.
    detail::StoreRelease<kSingleCore>(slots_[static_cast<uint32_t>(position) & kMask].sequence,
                                      static_cast<Position>(position + 1U));
  }

  /// Right after a successful claim, before the slots are written: the single producer
  /// publishes its tail (the multi-producer CAS already moved it). Publishing it before the
  /// slots are announced keeps the consumer's head at or behind the tail at every instant: the
  /// consumer moves its head only past announced slots.
  MCCC_ALWAYS_INLINE void PublishTail(const RingBatchClaim<Position>& claim) noexcept {
    if constexpr (kSingleProducer) {
      // release: pairs with the acquire loads in Occupancy()/HasClaimedWork()/ClaimedPosition();
      // with AnnounceSlot's later release it makes the tail store happen-before the consumer's
      // head passes the slot, so head <= tail in every snapshot.
      detail::StoreRelease<kSingleCore>(producer_.tail,
                                        static_cast<Position>(claim.position + claim.admitted));
    } else {
      static_cast<void>(claim);
    }
  }

  /// True when `tail_guess` is older than `head` (the difference is "negative"): the guess is
  /// stale, which says nothing about fullness.
  static constexpr bool IsBehind(Position tail_guess, Position head) noexcept {
    return static_cast<Position>(tail_guess - head) > kCapacityValue;
  }

  /// Reads the consumer's head and shares it with the other producers (only when it moved, so a
  /// full queue does not make every rejected producer write the shared line).
  MCCC_ALWAYS_INLINE Position RefreshHead(Position cached) noexcept {
    // acquire: pairs with the consumer's release store in ConsumeBatch (slot destroyed first).
    const Position head = detail::LoadAcquire<kSingleCore>(consumer_.head);
    // Only forward: a producer that read an older head (it was preempted since) must not store
    // it over a newer one. Bounded: each failed CAS means another producer moved the cached
    // head forward, and it can only get as far as `head`.
    Position current = cached;
    while (IsAhead(head, current)) {
      // release on success: pairs with the acquire load of cached_head in ClaimMulti, extending
      // the consumer -> this producer happens-before edge to the producers that use the cached
      // value. relaxed on failure: `current` is only compared again.
      if (detail::CasWeakRelease<kSingleCore, CriticalSection>(producer_.cached_head, current,
                                                               head)) {
        break;
      }
    }
    return head;
  }

  /// True when position `a` is strictly ahead of `b` (modular: less than half the range ahead).
  static constexpr bool IsAhead(Position a, Position b) noexcept {
    const Position difference = static_cast<Position>(a - b);
    return difference != 0U && difference <= static_cast<Position>(~Position{0} >> 1U);
  }

  /// Room below `limit` at `occupancy` (0 when at or above it).
  static constexpr Position RoomBelow(Position limit, Position occupancy) noexcept {
    return occupancy < limit ? static_cast<Position>(limit - occupancy) : Position{0U};
  }

  /// Claims min(count, room) consecutive positions with one CAS; count >= 1.
  MCCC_ALWAYS_INLINE RingBatchClaim<Position> ClaimMulti(Position limit, Position count) noexcept {
    // relaxed: the tail is only a guess here; the CAS below validates it.
    Position tail = producer_.tail.load(std::memory_order_relaxed);
    // acquire: pairs with RefreshHead's release store (see there).
    Position head = detail::LoadAcquire<kSingleCore>(producer_.cached_head);
    for (;;) {
      const Position occupancy = static_cast<Position>(tail - head);
      Position take = count;
      if (MCCC_UNLIKELY(RoomBelow(limit, occupancy) < count)) {
        // Three cases: (a) the cached head is stale, (b) the tail guess is older than the head
        // (the queue moved on meanwhile), (c) the queue really is this full. Only (c) refuses
        // (all of the request at the limit, the part beyond the room otherwise).
        const Position fresh = RefreshHead(head);
        if (IsBehind(tail, fresh)) {
          // (b) relaxed: a fresher guess, validated by the CAS like the first one. Loaded after
          // the acquire load of head, so it is not older than `fresh`.
          tail = producer_.tail.load(std::memory_order_relaxed);
          head = fresh;
          continue;
        }
        if (fresh != head) {  // (a)
          head = fresh;
          continue;
        }
        // (c) head is fresh and tail is no newer than the real tail: the true occupancy was at
        // least this large when head was read (and can only have shrunk since, for a CAS that
        // succeeds on this tail).
        take = RoomBelow(limit, occupancy);
        if (take == 0U) {
          return RingBatchClaim<Position>{0U, tail, occupancy};
        }
      }
      // seq_cst on success: the claim is the producer's half of the consumer sleep handshake
      // (pairs with HasClaimedWork); it also orders the claim before the slot writes. On
      // failure `tail` is reloaded (relaxed: it is again only a guess).
      if (detail::CasWeakSeqCst<kSingleCore, CriticalSection>(producer_.tail, tail,
                                                              static_cast<Position>(tail + take))) {
        return RingBatchClaim<Position>{take, tail, occupancy};
      }
    }
  }

  /// Claims min(count, room) consecutive positions (single producer: no CAS); count >= 1.
  MCCC_ALWAYS_INLINE RingBatchClaim<Position> ClaimSingle(Position limit, Position count) noexcept {
#if MCCC_ENABLE_ASSERTS
    // Debug-only detector for a second concurrent producer on a single-producer bus (the
    // flag's acquire/release orders successive producers, see detail/scoped_flag.hpp).
    const detail::ScopedFlag<std::atomic<bool>> producing(single_producer_active_);
    MCCC_ASSERT(!producing.WasSet(),
                "two threads published concurrently on a kSingleProducer bus; use the default "
                "multi-producer traits or publish from one thread");
#endif
    // relaxed (both): only this producer writes tail and cached_head.
    const Position tail = producer_.tail.load(std::memory_order_relaxed);
    Position head = producer_.cached_head.load(std::memory_order_relaxed);
    Position occupancy = static_cast<Position>(tail - head);
    Position take = count;
    if (MCCC_UNLIKELY(RoomBelow(limit, occupancy) < count)) {
      // acquire: pairs with the consumer's release store of head in ConsumeBatch.
      head = detail::LoadAcquire<kSingleCore>(consumer_.head);
      producer_.cached_head.store(head, std::memory_order_relaxed);
      occupancy = static_cast<Position>(tail - head);
      const Position room = RoomBelow(limit, occupancy);
      take = room < count ? room : count;
    }
    return RingBatchClaim<Position>{take, tail, occupancy};
  }

  void DrainAndDestroy() noexcept {
    ConsumeBatch(kCapacity, [](Element&, Position) noexcept {});
  }

  alignas(kLine) ProducerLine producer_;
#if MCCC_ENABLE_ASSERTS
  std::atomic<bool> single_producer_active_{false};
#endif
  alignas(kLine) ConsumerLine consumer_;
#if MCCC_ENABLE_TEST_HOOKS
  void (*after_claim_hook_)(void*, Position) = nullptr;
  void* after_claim_context_ = nullptr;
  void (*after_announce_hook_)(void*, Position) = nullptr;
  void* after_announce_context_ = nullptr;
#endif
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
  alignas(kLine) Slot slots_[kCapacity + kPrefetchPadding]{};
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_RING_MPSC_RING_HPP_
