// SPDX-License-Identifier: MIT
/// @file ring_set.hpp
/// @brief The rings of one bus (the shared ring, the HIGH ring, the producer lanes) and the one
/// place that decides which ring a publish goes to.
///
/// Routing (RouteOf): a priority whose class routes to the HIGH ring (priority_table.hpp) goes
/// there when the bus has one; any other goes to the producer's lane when it has one, else to
/// the shared ring. Each ring admits against its own capacity. The consumer side is reached by
/// the drain order (drain_order.hpp) through Shared(), High() and LaneAt(i), which share one
/// consumer interface: `ConsumeBatch(max, visit(StoredEnvelope&))`.
#ifndef MCCC_BUS_RING_SET_HPP_
#define MCCC_BUS_RING_SET_HPP_

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "mccc/admission/priority_table.hpp"
#include "mccc/config.hpp"
#include "mccc/message.hpp"
#include "mccc/ring/mpsc_ring.hpp"

namespace mccc {
namespace detail {

/// @brief Which ring a publish goes to.
enum class RingRoute : uint8_t { kShared, kHigh, kLane };

/// @brief What a publish call's claim did, whichever ring it went to.
template <typename Position>
struct RingSetClaim {
  Position admitted;  ///< Messages admitted (a prefix of the call's).
  /// One message: the tail its refusal was decided at (shared and HIGH ring). Several: the
  /// position of the first admitted one; the first refused one's is `position + admitted`.
  Position position;
  Position taken_in;  ///< Elements of signal handlers the call made visible (lanes).
};

/// @brief The rings of a bus configured by `Config` (bus_config.hpp). Thread-safety as each
/// member says: producers publish from any thread, the rest of the consumer side is the
/// consumer's, and snapshots are thread-safe.
template <typename Config>
class RingSet {
  using Position = typename Config::Position;
  using StoredEnvelope = typename Config::StoredEnvelope;
  using Ring = typename Config::Ring;
  using HighRing = typename Config::HighRing;
  using Lane = typename Config::Lane;
  using Admission = typename Config::Admission;
  using HighAdmission = typename Config::HighAdmission;
  using LaneAdmission = typename Config::LaneAdmission;
  static constexpr bool kHasHighRing = Config::kHasHighRing;
  static constexpr bool kHasLanes = Config::kHasLanes;
  static constexpr uint32_t kLanes = Config::kProducerLanes;
  struct NoHighRing {};
  struct NoLanes {};

 public:
  constexpr RingSet() noexcept = default;
  /// @brief Test hook: rings whose shared ring starts at `initial_position`.
  explicit RingSet(Position initial_position) noexcept : ring_(initial_position) {}

  // ---- Routing and publishing (producers) --------------------------------------------------

  /// @brief True when `index` names a producer lane (below kProducerLanes).
  static constexpr bool IsLaneIndex(uint32_t index) noexcept {
    if constexpr (kHasLanes) {
      // cppcheck-suppress unsignedLessThanZero ; false positive: never instantiated with 0 lanes
      return index < kLanes;
    } else {
      static_cast<void>(index);
      return false;
    }
  }

  /// @brief True when a publish of `priority` by `producer` claims with a multi-producer CAS
  /// (seq_cst); false: a release store (a lane, or the single producer).
  MCCC_ALWAYS_INLINE static constexpr bool ClaimIsSeqCst(uint32_t producer,
                                                         MessagePriority priority) noexcept {
    return !Config::kSingleProducer && RouteOf(producer, priority) != RingRoute::kLane;
  }

  /// @brief The ring a message of `priority` from `producer` goes to.
  MCCC_ALWAYS_INLINE static constexpr RingRoute RouteOf(uint32_t producer,
                                                        MessagePriority priority) noexcept {
    if (kHasHighRing && RoutesToHighRing(priority)) {
      return RingRoute::kHigh;
    }
    return IsLaneIndex(producer) ? RingRoute::kLane : RingRoute::kShared;
  }

  /// @brief Publishes one message: `build(void* storage, Position position)` constructs it in
  /// the slot claimed for it. `priority` < kPriorityCount; `mode` a valid PerformanceMode
  /// (kBareMetal admits up to the whole ring).
  template <typename Build>
  MCCC_ALWAYS_INLINE RingSetClaim<Position> PublishOne(uint32_t producer, MessagePriority priority,
                                                       PerformanceMode mode,
                                                       Build&& build) noexcept {
    const auto priority_index = static_cast<std::size_t>(priority);
    const RingRoute route = RouteOf(producer, priority);
    if (route == RingRoute::kHigh) {
      if constexpr (kHasHighRing) {
        const auto claim = high_ring_.TryPublish(HighLimit(), build);
        return {Position{claim.admitted ? 1U : 0U}, claim.position, Position{0U}};
      }
    } else if (route == RingRoute::kLane) {
      if constexpr (kHasLanes) {
        const auto claim = lanes_[producer].Publish(
            LaneLimitFor(mode, priority_index), 1U, []() noexcept { return 0; },
            [&build](void* storage, uint32_t, int) noexcept { build(storage, Position{0U}); });
        return {Position{claim.admitted != 0U ? 1U : 0U}, Position{0U}, claim.taken_in};
      }
    }
    const auto claim = ring_.TryPublish(LimitFor(mode, priority_index), build);
    return {Position{claim.admitted ? 1U : 0U}, claim.position, Position{0U}};
  }

  /// @brief Publishes `count` messages in one claim of consecutive positions of one ring:
  /// `after_claim()` returns the timestamp once something is admitted, and
  /// `build(void* storage, Position position, uint32_t index, uint64_t timestamp_us)` constructs
  /// message `index`. Admits a prefix: returns how many, and the position of the first (the
  /// first refused one's is `position + admitted`). `taken_in`: set to the elements of signal
  /// handlers the call made visible (lanes).
  template <typename AfterClaim, typename Build>
  MCCC_ALWAYS_INLINE RingBatchClaim<Position> PublishMany(
      uint32_t producer, MessagePriority priority, PerformanceMode mode, uint32_t count,
      const AfterClaim& after_claim, const Build& build, Position& taken_in) noexcept {
    const auto priority_index = static_cast<std::size_t>(priority);
    // One claim variable assigned on each route and returned once: a return per route would
    // make GCC merge the results in memory.
    RingBatchClaim<Position> claim{};
    const RingRoute route = RouteOf(producer, priority);
    if (route == RingRoute::kHigh) {
      if constexpr (kHasHighRing) {
        claim = high_ring_.TryPublishBatch(HighLimit(), count, after_claim, build);
      }
    } else if (route == RingRoute::kLane) {
      if constexpr (kHasLanes) {
        const auto lane_claim = lanes_[producer].Publish(
            LaneLimitFor(mode, priority_index), count, after_claim,
            [&build](void* storage, uint32_t index, uint64_t timestamp_us) noexcept {
              build(storage, Position{0U}, index, timestamp_us);
            });
        claim = RingBatchClaim<Position>{lane_claim.admitted, lane_claim.position,
                                         lane_claim.occupancy};
        taken_in = lane_claim.taken_in;
      }
    } else {
      claim = ring_.TryPublishBatch(LimitFor(mode, priority_index), count, after_claim, build);
    }
    return claim;
  }

  // ---- The consumer's view (drain_order.hpp) -----------------------------------------------

  Ring& Shared() noexcept { return ring_; }
  const Ring& Shared() const noexcept { return ring_; }
  HighRing& High() noexcept {
    static_assert(kHasHighRing || sizeof(Position) == 0U, "mccc: this bus has no HIGH ring");
    return high_ring_;
  }
  // cppcheck-suppress functionStatic ; false positive: reads lanes_, called only with lanes
  Lane& LaneAt(uint32_t index) noexcept { return lanes_[index]; }

  /// @brief Consumer: true when a message is ready in any ring.
  bool HasReadyElement() noexcept {
    return AnyRing(*this, [](auto& ring) noexcept { return ring.HasReadyElement(); });
  }

  /// @brief Consumer: true when a producer has claimed work in any ring (the consumer's half of
  /// the sleep handshake; each ring's check is seq_cst, see there).
  bool HasClaimedWork() const noexcept {
    return AnyRing(*this, [](const auto& ring) noexcept { return ring.HasClaimedWork(); });
  }

  // ---- Snapshots (any thread; stale as soon as they return) --------------------------------

  /// @brief Messages claimed and not yet consumed in every ring (a sum of snapshots).
  uint32_t Occupancy() const noexcept {
    uint64_t occupancy = 0U;
    ForEachRing([&occupancy](const auto& ring, auto) noexcept { occupancy += ring.Occupancy(); });
    return static_cast<uint32_t>(occupancy);
  }

  /// @brief Lane `lane`'s occupancy (kProducerLanes: the shared ring; beyond: 0).
  uint32_t LaneOccupancy(uint32_t lane) const noexcept {
    if constexpr (kHasLanes) {
      if (IsLaneIndex(lane)) {
        return static_cast<uint32_t>(lanes_[lane].Occupancy());
      }
    }
    return lane == kLanes ? static_cast<uint32_t>(ring_.Occupancy()) : 0U;
  }

  /// @brief The HIGH ring's occupancy (0 without one).
  uint32_t HighRingOccupancy() const noexcept {
    if constexpr (kHasHighRing) {
      return static_cast<uint32_t>(high_ring_.Occupancy());
    }
    return 0U;
  }

  /// @brief The fullest ring's whole percentage of its own capacity.
  uint32_t UtilizationPercent() const noexcept {
    uint32_t worst = 0U;
    ForEachRing([&worst](const auto& ring, auto admission) noexcept {
      worst = Worse(worst, decltype(admission)::UtilizationPercent(ring.Occupancy()));
    });
    return worst;
  }

  /// @brief The highest backpressure level among the rings, each against its own capacity.
  BackpressureLevel Backpressure() const noexcept {
    BackpressureLevel worst = BackpressureLevel::kNormal;
    ForEachRing([&worst](const auto& ring, auto admission) noexcept {
      worst = Worse(worst, decltype(admission)::LevelFor(ring.Occupancy()));
    });
    return worst;
  }

  /// @brief How far producers had claimed positions in every ring when it was taken.
  struct ClaimMark {
    Position shared;
    Position high;
    std::array<Position, (kLanes > 0U ? kLanes : 1U)> lanes;
  };

  /// @brief Marks what has been claimed (published, or being written) in every ring.
  ClaimMark MarkClaimed() const noexcept {
    ClaimMark mark{};
    mark.shared = ring_.ClaimedPosition();
    if constexpr (kHasHighRing) {
      mark.high = high_ring_.ClaimedPosition();
    }
    if constexpr (kHasLanes) {
      for (std::size_t i = 0U; i < mark.lanes.size(); ++i) {
        mark.lanes[i] = lanes_[i].ClaimedPosition();
      }
    }
    return mark;
  }

  /// @brief True when every position claimed before `mark` was taken has been consumed.
  bool HasConsumed(const ClaimMark& mark) const noexcept {
    if (!IsAtOrPast(ring_.ConsumedPosition(), mark.shared)) {
      return false;
    }
    if constexpr (kHasHighRing) {
      if (!IsAtOrPast(high_ring_.ConsumedPosition(), mark.high)) {
        return false;
      }
    }
    if constexpr (kHasLanes) {
      for (std::size_t i = 0U; i < mark.lanes.size(); ++i) {
        if (!IsAtOrPast(lanes_[i].ConsumedPosition(), mark.lanes[i])) {
          return false;
        }
      }
    }
    return true;
  }

 private:
  /// Calls `visit(ring, admission)` for every ring: the shared ring, the HIGH ring, the lanes;
  /// `admission` is a value of that ring's PriorityAdmission (its functions are static).
  template <typename Visit>
  void ForEachRing(Visit&& visit) const noexcept {
    visit(ring_, Admission{});
    if constexpr (kHasHighRing) {
      visit(high_ring_, HighAdmission{});
    }
    if constexpr (kHasLanes) {
      for (const auto& lane : lanes_) {
        visit(lane, LaneAdmission{});
      }
    }
  }

  /// True when `test(ring)` holds for a ring, asked in ForEachRing's order up to the first that
  /// does. `self`: this set, const or not (a lane's readiness check updates what it saw).
  template <typename Self, typename Test>
  static bool AnyRing(Self& self, Test&& test) noexcept {
    if (test(self.ring_)) {
      return true;
    }
    if constexpr (kHasHighRing) {
      if (test(self.high_ring_)) {
        return true;
      }
    }
    if constexpr (kHasLanes) {
      for (auto& lane : self.lanes_) {
        if (test(lane)) {
          return true;
        }
      }
    }
    return false;
  }

  /// True when consumer position `consumed` is at or past claim position `claimed` (modular:
  /// the two are never more than a ring's capacity apart in the direction that matters).
  static constexpr bool IsAtOrPast(Position consumed, Position claimed) noexcept {
    return static_cast<Position>(consumed - claimed) <= static_cast<Position>(~Position{0} >> 1U);
  }

  static constexpr uint32_t Worse(uint32_t a, uint32_t b) noexcept { return a > b ? a : b; }

  static constexpr BackpressureLevel Worse(BackpressureLevel a, BackpressureLevel b) noexcept {
    return static_cast<uint32_t>(a) >= static_cast<uint32_t>(b) ? a : b;
  }

  /// Admission limit of a publish of priority `priority_index` (< kPriorityCount) in `mode`
  /// (valid: BusCore stores no other): in kBareMetal mode the whole ring, otherwise the
  /// priority's threshold. One load from a table by mode, not a branch on it.
  /// Rows by priority, so that a publish whose priority is a constant loads its limit with the
  /// mode as the only index.
  static Position LimitFor(PerformanceMode mode, std::size_t priority_index) noexcept {
    return kLimits[priority_index][static_cast<std::size_t>(mode)];
  }

  /// The same for a producer lane: the thresholds as percentages of kLaneDepth.
  static Position LaneLimitFor(PerformanceMode mode, std::size_t priority_index) noexcept {
    return kLaneLimits[priority_index][static_cast<std::size_t>(mode)];
  }

  using LimitTable = std::array<std::array<Position, kPerformanceModeCount>, kPriorityCount>;

  /// Limits by priority and mode of a ring of `depth` admitted by `AnyAdmission`.
  template <typename AnyAdmission>
  static constexpr LimitTable LimitsByMode(uint32_t depth) noexcept {
    LimitTable table{};
    for (std::size_t priority = 0U; priority < kPriorityCount; ++priority) {
      for (std::size_t mode = 0U; mode < kPerformanceModeCount; ++mode) {
        table[priority][mode] = mode == static_cast<std::size_t>(PerformanceMode::kBareMetal)
                                    ? static_cast<Position>(depth)
                                    : AnyAdmission::template Limits<Position>()[priority];
      }
    }
    return table;
  }

  /// The HIGH ring admits HIGH messages while it has room, in every mode.
  static constexpr Position HighLimit() noexcept {
    return static_cast<Position>(Config::kHighQueueDepth);
  }

  static constexpr LimitTable kLimits = LimitsByMode<Admission>(Config::kQueueDepth);
  static constexpr LimitTable kLaneLimits = LimitsByMode<LaneAdmission>(Config::kLaneDepth);

  Ring ring_;
  std::conditional_t<kHasHighRing, HighRing, NoHighRing> high_ring_;
  std::conditional_t<kHasLanes, std::array<Lane, (kHasLanes ? kLanes : 1U)>, NoLanes> lanes_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_RING_SET_HPP_
