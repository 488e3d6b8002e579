// SPDX-License-Identifier: MIT
/// @file bus_monitor.hpp
/// @brief What a bus lets anyone observe and set while it runs: queue snapshots, statistics,
/// the performance mode and the error callback. Every member is thread-safe; snapshots are
/// stale as soon as they return.
#ifndef MCCC_BUS_BUS_MONITOR_HPP_
#define MCCC_BUS_BUS_MONITOR_HPP_

#include <cstdint>

#include "mccc/bus/consume_path.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"
#include "mccc/statistics/bus_statistics.hpp"

namespace mccc {
namespace detail {

/// @brief The observable side of a bus, on top of its consumer side.
template <typename Config>
class BusMonitor : public ConsumePath<Config> {
  using Rings = RingSet<Config>;
  static constexpr uint32_t kLanes = Config::kProducerLanes;

 public:
  using ConsumePath<Config>::ConsumePath;

  /// @brief How far producers had claimed positions in every ring when it was taken (see
  /// MarkClaimed). With several rings a later message can be dispatched before an earlier one
  /// (HIGH first; lanes served in turn), so "as many messages as were queued" does not mean
  /// "the messages that were queued"; a mark does.
  using ClaimMark = typename Rings::ClaimMark;

  /// @brief Messages published and not yet consumed (including ones still being written) in
  /// the whole bus: the shared ring, the HIGH ring and every producer lane (a sum of snapshots
  /// taken one after another).
  uint32_t QueueOccupancy() const noexcept { return this->rings_.Occupancy(); }

  /// @brief The fullest ring's occupancy as a whole percentage of its capacity (0..100, rounded
  /// down): admission is decided per ring, so the fullest one is the one that refuses first.
  uint32_t QueueUtilizationPercent() const noexcept { return this->rings_.UtilizationPercent(); }

  /// @brief The highest backpressure level among the rings (each against its own capacity;
  /// boundaries: Admission::kWarningPercent, Admission::kCriticalPercent, full).
  BackpressureLevel GetBackpressureLevel() const noexcept { return this->rings_.Backpressure(); }

  /// @brief Capacity of the shared ring (kQueueDepth).
  static constexpr uint32_t Capacity() noexcept { return Config::kQueueDepth; }

  /// @brief Capacity of the whole bus: the shared ring, the HIGH ring and the producer lanes.
  static constexpr uint64_t TotalCapacity() noexcept {
    return static_cast<uint64_t>(Config::kQueueDepth) + Config::kHighQueueDepth +
           static_cast<uint64_t>(kLanes) * Config::kLaneDepth;
  }

  /// @brief True when `index` names a producer lane (below kProducerLanes).
  static constexpr bool IsLaneIndex(uint32_t index) noexcept { return Rings::IsLaneIndex(index); }

  /// @brief Producer lanes of this bus (kProducerLanes). Lane index LaneCount() names the
  /// shared ring, which producers without a lane of their own use.
  static constexpr uint32_t LaneCount() noexcept { return kLanes; }

  /// @brief Messages queued in lane `lane` (LaneCount(): the shared ring; beyond: 0). Snapshot.
  uint32_t LaneOccupancy(uint32_t lane) const noexcept { return this->rings_.LaneOccupancy(lane); }

  /// @brief Messages queued in the HIGH ring (0 without one). Snapshot.
  uint32_t HighRingOccupancy() const noexcept { return this->rings_.HighRingOccupancy(); }

  /// @brief Deprecated name of QueueOccupancy ("depth" names a capacity: kQueueDepth).
  [[deprecated("use QueueOccupancy()")]] uint32_t QueueDepth() const noexcept {
    return QueueOccupancy();
  }
  /// @brief Deprecated name of LaneOccupancy.
  [[deprecated("use LaneOccupancy(lane)")]] uint32_t LaneQueueDepth(uint32_t lane) const noexcept {
    return LaneOccupancy(lane);
  }
  /// @brief Deprecated name of HighRingOccupancy.
  [[deprecated("use HighRingOccupancy()")]] uint32_t HighQueueDepth() const noexcept {
    return HighRingOccupancy();
  }

  /// @brief Marks what has been claimed (published, or being written) in every ring. Any thread.
  ClaimMark MarkClaimed() const noexcept { return this->rings_.MarkClaimed(); }

  /// @brief True when every message claimed before `mark` was taken has been consumed (e.g. a
  /// consumer that drains before stopping: every Publish that returned before the mark was
  /// taken is then delivered). Any thread; meant for the consumer.
  bool HasConsumed(const ClaimMark& mark) const noexcept { return this->rings_.HasConsumed(mark); }

  /// @brief What the producer of lane `lane` published and had refused since construction or
  /// the last ResetStatistics (kFullFeatured only counts), per priority; its HIGH messages
  /// included, whichever ring carried them. LaneCount(): every producer without a lane of its
  /// own. The processed and error fields are 0 (the consumer counts for the whole bus). The
  /// lanes' figures add up to GetStatistics()'s.
  BusStatisticsSnapshot GetLaneStatistics(uint32_t lane) const noexcept {
    using Statistics = typename Config::Statistics;
    if (IsLaneIndex(lane)) {
      return this->stats_.ShardRange(Statistics::ShardOf(lane), Statistics::ShardOf(lane));
    }
    if (lane == kLanes) {
      return this->stats_.ShardRange(kLanes, Config::kStatisticsShards);
    }
    return BusStatisticsSnapshot{};
  }

  /// @brief Counters since construction or the last ResetStatistics (kFullFeatured only counts),
  /// the loan pools' included (summed over the pools; GetLoanStatistics<T> has each one's).
  BusStatisticsSnapshot GetStatistics() const noexcept {
    BusStatisticsSnapshot snapshot = this->stats_.Snapshot();
    LoanPoolStatistics loans{};
    this->Accumulate(loans);
    snapshot.loans_granted = loans.loans_granted;
    snapshot.high_priority_loans_refused = loans.high_priority_refused;
    snapshot.medium_priority_loans_refused = loans.medium_priority_refused;
    snapshot.low_priority_loans_refused = loans.low_priority_refused;
    snapshot.loan_blocks_in_use = loans.in_use;
    return snapshot;
  }

  /// @brief Zeroes the counters seen by later GetStatistics calls (the loan pools' too; their
  /// high-water marks restart from the blocks in use).
  void ResetStatistics() noexcept {
    this->stats_.Reset();
    this->ResetAll();
  }

  /// @brief Switches features at runtime: kFullFeatured (default), kNoStats (admission and
  /// error callback, no counters), kBareMetal (reject only when full; no counters, no error
  /// callback). Publishes already under way finish in the mode they read.
  void SetPerformanceMode(PerformanceMode mode) noexcept { this->StoreMode(mode); }

  /// @brief The current mode.
  PerformanceMode GetPerformanceMode() const noexcept { return this->LoadMode(); }

  /// @brief Installs the error callback (nullptr: none). It is called on producer threads for
  /// kQueueFull / kInvalidMessage / kLoanRefused / kForeignLoan and on the consumer thread for
  /// kProcessingError / kOverflowDetected / kReentrantCall, so it must be thread-safe and quick.
  void SetErrorCallback(ErrorCallback callback) noexcept { this->StoreErrorCallback(callback); }

  /// @brief The installed error callback (nullptr: none), so that a component attached to the
  /// bus (the bridge's exporter and importer) reports its own errors the same way.
  ErrorCallback GetErrorCallback() const noexcept { return this->LoadErrorCallback(); }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_BUS_MONITOR_HPP_
