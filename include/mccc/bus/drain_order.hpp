// SPDX-License-Identifier: MIT
/// @file drain_order.hpp
/// @brief In which order one consumer batch takes messages from the bus's rings: HIGH first,
/// then the producer lanes and the shared ring in turn from a rotating start.
///
/// Rules (guarantees G-2, G-3, G-4 in docs/guarantees.md; docs/priorities-and-lanes.md):
/// - a batch dispatches up to kBatchSize LOW/MEDIUM messages and up to kBatchSize HIGH ones;
/// - the HIGH ring is checked before every LOW/MEDIUM message is taken, and every HIGH message
///   ready then is dispatched first (up to the batch's HIGH share);
/// - producer lanes and the shared ring are served in turn from a start that rotates by one per
///   batch: a first round gives each ring a share (kBatchSize / rings), a second the rest;
/// - a HIGH flood that uses up the batch's HIGH share ends the batch before its next LOW/MEDIUM
///   message, so the next batch starts with HIGH again; but not forever: once the HIGH ring's
///   consumer has moved a whole ring (kHighQueueDepth) since the last batch that dispatched
///   LOW/MEDIUM, every HIGH message published before that dispatch has been dispatched, and the
///   batch dispatches one LOW/MEDIUM message before it ends (HighTurnIsOver). So LOW/MEDIUM get
///   at least one message every ceil(kHighQueueDepth / kBatchSize) batches under any HIGH
///   flood, and no HIGH message waits for more than one LOW/MEDIUM dispatch.
///
/// The rings are reached through an interface that real rings and test doubles share
/// (tests/bus/test_drain_order.cpp): `rings.Shared()`, `rings.High()`, `rings.LaneAt(i)`, each
/// with `ConsumeBatch(max, visit(Element&) -> bool or void)`; the HIGH ring also with
/// `ProbeNext()` (a probe whose `Ready()` says whether its next element is published) and
/// `ConsumedPosition()`.
#ifndef MCCC_BUS_DRAIN_ORDER_HPP_
#define MCCC_BUS_DRAIN_ORDER_HPP_

#include <cstdint>

#include "mccc/config.hpp"

namespace mccc {
namespace detail {

/// @brief The drain order of a bus with a HIGH ring of `kHighDepth` slots (0: none) and
/// `kLanes` producer lanes. Holds the consumer's state between batches (the rotating start, the
/// HIGH turn's mark). Consumer thread only.
template <uint32_t kBatchSize, uint32_t kHighDepth, uint32_t kLanes, typename Position>
class DrainOrder {
 public:
  static constexpr bool kHasHighRing = kHighDepth > 0U;
  static constexpr bool kHasLanes = kLanes > 0U;
  /// The most messages one batch can deliver: kBatchSize LOW/MEDIUM, and as many HIGH. Message
  /// ids depend on it (message_ids.hpp: 32-bit ids are widened ahead by this much).
  static constexpr uint32_t kMostPerBatch = kHasHighRing ? 2U * kBatchSize : kBatchSize;

  /// @brief One batch: dispatches messages with `dispatch_one(Element&)` in the drain order and
  /// returns how many.
  template <typename Rings, typename DispatchOne>
  MCCC_ALWAYS_INLINE uint32_t Drain(Rings& rings, DispatchOne&& dispatch_one) noexcept {
    if constexpr (!kHasHighRing && !kHasLanes) {
      return rings.Shared().ConsumeBatch(kBatchSize, dispatch_one);
    } else {
      uint32_t high_taken = 0U;
      bool stop = false;
      // The HIGH ring's next slot, checked before every LOW/MEDIUM dispatch: two registers and
      // one load while nothing HIGH arrives.
      auto high_probe = HighProbe(rings);
      const auto drain_high = [&rings, &high_probe, &high_taken, &stop, &dispatch_one]() noexcept {
        if constexpr (kHasHighRing) {
          if (MCCC_UNLIKELY(high_probe.Ready())) {
            if (high_taken != kBatchSize) {
              high_taken += rings.High().ConsumeBatch(kBatchSize - high_taken, dispatch_one);
              high_probe = rings.High().ProbeNext();
            }
            // The HIGH share is used up and more is waiting: no further LOW/MEDIUM message in
            // this batch, so the next batch starts with HIGH.
            stop = high_taken == kBatchSize && high_probe.Ready();
          }
        } else {
          // Producer lanes without a HIGH ring: nothing to drain (the captures serve the branch
          // above).
          static_cast<void>(rings);
          static_cast<void>(high_probe);
          static_cast<void>(high_taken);
          static_cast<void>(stop);
          static_cast<void>(dispatch_one);
        }
      };
      // The HIGH ring is checked before every LOW/MEDIUM message is taken (the batch's start, or
      // the end of the previous one, where its callbacks may have published HIGH): a message
      // taken off its ring is dispatched, so the decision to take the next one is made here.
      const auto normal = [&drain_high, &dispatch_one, &stop](auto& element) noexcept {
        dispatch_one(element);
        drain_high();
        return !stop;
      };
      drain_high();
      if (stop && !HighTurnIsOver(rings)) {
        return high_taken;
      }
      // Either the HIGH share was not used up, or (stop) one LOW/MEDIUM message is due: the
      // first ring that has one dispatches it, and the drain after it keeps `stop`.
      uint32_t normal_taken = 0U;
      if constexpr (!kHasLanes) {
        normal_taken = rings.Shared().ConsumeBatch(kBatchSize, normal);
      } else {
        normal_taken = ConsumeLanes(rings, normal, stop);
      }
      if constexpr (kHasHighRing) {
        if (normal_taken != 0U) {
          // At or after the last LOW/MEDIUM dispatch's start: a later mark only delays the next
          // turn (HighTurnIsOver), never gives it early.
          high_consumed_at_normal_ = rings.High().ConsumedPosition();
        }
      }
      return high_taken + normal_taken;
    }
  }

 private:
  /// HIGH share used up with HIGH still ready: true when one LOW/MEDIUM message may still be
  /// dispatched without any HIGH message waiting for two. A HIGH message published before the
  /// last LOW/MEDIUM dispatch started was claimed less than kHighDepth positions after the HIGH
  /// consumer position of that moment (the ring holds no more), which is at most the mark taken
  /// at the end of that batch; so once the consumer is kHighDepth past the mark, every such
  /// message has been dispatched. (Modular: a difference that wrapped after 2^32 HIGH messages
  /// without a LOW/MEDIUM one only delays the turn by a ring.)
  template <typename Rings>
  bool HighTurnIsOver(Rings& rings) const noexcept {
    if constexpr (kHasHighRing) {
      return static_cast<Position>(rings.High().ConsumedPosition() - high_consumed_at_normal_) >=
             static_cast<Position>(kHighDepth);
    } else {
      static_cast<void>(rings);
      return true;  // never asked: without a HIGH ring nothing stops a batch
    }
  }

  /// The HIGH ring's probe (an always-empty one without a HIGH ring: never used).
  template <typename Rings>
  static auto HighProbe(Rings& rings) noexcept {
    if constexpr (kHasHighRing) {
      return rings.High().ProbeNext();
    } else {
      static_cast<void>(rings);
      return 0;
    }
  }

  /// Up to kBatchSize messages from the producer lanes and the shared ring (index kLanes),
  /// fairly: a first round gives each a share, a second the rest of the budget.
  template <typename Rings, typename Normal>
  MCCC_ALWAYS_INLINE uint32_t ConsumeLanes(Rings& rings, Normal& normal,
                                           const bool& stop) noexcept {
    constexpr uint32_t kRings = kLanes + 1U;
    constexpr uint32_t kShare = kBatchSize / kRings;  // >= 1: kBatchSize > kLanes (bus_config)
    static_assert(kShare >= 1U, "mccc: kBatchSize must exceed the number of producer lanes");
    uint32_t left = kBatchSize;
    const uint32_t start = next_ring_;
    // `stop` (a HIGH flood) ends the batch, but only after its first LOW/MEDIUM message: it is
    // set before any only when that one message is due (Drain).
    for (uint32_t round = 0U; round < 2U && left != 0U && (!stop || left == kBatchSize); ++round) {
      bool any = false;
      for (uint32_t k = 0U; k < kRings && left != 0U && (!stop || left == kBatchSize); ++k) {
        uint32_t ring = start + k;
        ring = ring >= kRings ? ring - kRings : ring;
        const uint32_t want = round == 0U && kShare < left ? kShare : left;
        const uint32_t taken = ring != kLanes ? rings.LaneAt(ring).ConsumeBatch(want, normal)
                                              : rings.Shared().ConsumeBatch(want, normal);
        left -= taken;
        any = any || taken != 0U;
      }
      if (!any) {
        break;
      }
    }
    next_ring_ = start + 1U == kRings ? 0U : start + 1U;
    return kBatchSize - left;
  }

  uint32_t next_ring_ = 0U;  // the ring the next batch serves first (producer lanes)
  // The HIGH ring's consumer position at the end of the last batch that dispatched LOW/MEDIUM
  // (HighTurnIsOver).
  Position high_consumed_at_normal_ = 0U;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_DRAIN_ORDER_HPP_
