// SPDX-License-Identifier: MIT
/// @file fuzz_harness_observe.hpp
/// @brief Statistics (bus, pool, per ring) and introspection (occupancy, backpressure, capacities,
/// subscriber counts, pool limits) against the model.
#ifndef MCCC_TESTS_FUZZ_HARNESS_OBSERVE_HPP_
#define MCCC_TESTS_FUZZ_HARNESS_OBSERVE_HPP_

#include <algorithm>
#include <cstdint>

#include "fuzz_check.hpp"
#include "fuzz_harness.hpp"

namespace mccc_fuzz {

template <typename Bus>
void Harness<Bus>::CheckStatistics() {
  const mccc::BusStatisticsSnapshot s = bus_->GetStatistics();
  FUZZ_CHECK_EQ(s.low_priority_published, stats_.published[0], "low_priority_published");
  FUZZ_CHECK_EQ(s.medium_priority_published, stats_.published[1], "medium_priority_published");
  FUZZ_CHECK_EQ(s.high_priority_published, stats_.published[2], "high_priority_published");
  FUZZ_CHECK_EQ(s.low_priority_dropped, stats_.dropped[0], "low_priority_dropped");
  FUZZ_CHECK_EQ(s.medium_priority_dropped, stats_.dropped[1], "medium_priority_dropped");
  FUZZ_CHECK_EQ(s.high_priority_dropped, stats_.dropped[2], "high_priority_dropped");
  FUZZ_CHECK_EQ(s.messages_published,
                stats_.published[0] + stats_.published[1] + stats_.published[2],
                "messages_published");
  FUZZ_CHECK_EQ(s.messages_dropped, stats_.dropped[0] + stats_.dropped[1] + stats_.dropped[2],
                "messages_dropped");
  FUZZ_CHECK_EQ(s.messages_processed, stats_.processed, "messages_processed");
  FUZZ_CHECK_EQ(s.processing_errors, stats_.errors, "processing_errors");
  // The loan pool: the bus's sums (one pool) and the pool's own counters.
  const uint64_t blocks = BlocksInUse();
  FUZZ_CHECK_EQ(s.loans_granted, loan_stats_.granted, "loans_granted");
  FUZZ_CHECK_EQ(s.low_priority_loans_refused, loan_stats_.refused[0], "low_priority_loans_refused");
  FUZZ_CHECK_EQ(s.medium_priority_loans_refused, loan_stats_.refused[1],
                "medium_priority_loans_refused");
  FUZZ_CHECK_EQ(s.high_priority_loans_refused, loan_stats_.refused[2],
                "high_priority_loans_refused");
  FUZZ_CHECK_EQ(s.loan_blocks_in_use, blocks, "loan_blocks_in_use");
  const mccc::LoanPoolStatistics pool = bus_->template GetLoanStatistics<Cloud>();
  FUZZ_CHECK_EQ(pool.capacity, kPool, "pool capacity");
  FUZZ_CHECK_EQ(pool.in_use, blocks, "pool in_use");
  FUZZ_CHECK_EQ(pool.high_water, std::max(loan_stats_.high_water, blocks), "pool high_water");
  FUZZ_CHECK_EQ(pool.loans_granted, loan_stats_.granted, "pool loans_granted");
  FUZZ_CHECK_EQ(pool.low_priority_refused, loan_stats_.refused[0], "pool low_priority_refused");
  FUZZ_CHECK_EQ(pool.medium_priority_refused, loan_stats_.refused[1],
                "pool medium_priority_refused");
  FUZZ_CHECK_EQ(pool.high_priority_refused, loan_stats_.refused[2], "pool high_priority_refused");
  // One producer: its ring's statistics are the bus's (HIGH included), the others' are 0.
  for (uint32_t ring = 0U; ring <= Bus::LaneCount() + 1U; ++ring) {
    const mccc::BusStatisticsSnapshot lane = bus_->GetLaneStatistics(ring);
    const bool own = ring == own_ring_;
    FUZZ_CHECK_EQ(lane.low_priority_published, own ? s.low_priority_published : 0U,
                  "GetLaneStatistics low_priority_published");
    FUZZ_CHECK_EQ(lane.medium_priority_published, own ? s.medium_priority_published : 0U,
                  "GetLaneStatistics medium_priority_published");
    FUZZ_CHECK_EQ(lane.high_priority_published, own ? s.high_priority_published : 0U,
                  "GetLaneStatistics high_priority_published");
    FUZZ_CHECK_EQ(lane.messages_dropped, own ? s.messages_dropped : 0U,
                  "GetLaneStatistics messages_dropped");
    FUZZ_CHECK_EQ(lane.messages_processed, 0U, "GetLaneStatistics messages_processed");
  }
}

template <typename Bus>
BackpressureLevel Harness<Bus>::LevelOf(uint64_t occupancy, uint64_t capacity) {
  if (occupancy >= capacity) {
    return BackpressureLevel::kFull;
  }
  if (occupancy * 100U >= 90U * capacity) {
    return BackpressureLevel::kCritical;
  }
  if (occupancy * 100U >= 75U * capacity) {
    return BackpressureLevel::kWarning;
  }
  return BackpressureLevel::kNormal;
}

template <typename Bus>
void Harness<Bus>::CheckIntrospection() {
  FUZZ_CHECK_EQ(bus_->QueueOccupancy(), Queued(), "QueueDepth");
  FUZZ_CHECK_EQ(bus_->HighRingOccupancy(), high_.size(), "HighQueueDepth");
  for (uint32_t ring = 0U; ring <= Bus::LaneCount() + 1U; ++ring) {
    FUZZ_CHECK_EQ(bus_->LaneOccupancy(ring), ring == own_ring_ ? normal_.size() : 0U,
                  "LaneQueueDepth (this thread's ring holds its LOW/MEDIUM messages)");
  }
  // Each ring against its own capacity; the fuller one is reported (the others are empty).
  uint64_t percent = normal_.size() * 100U / normal_depth_;
  BackpressureLevel level = LevelOf(normal_.size(), normal_depth_);
  if constexpr (kHighRing) {
    percent = std::max<uint64_t>(percent, high_.size() * 100U / kHighDepth);
    const BackpressureLevel high_level = LevelOf(high_.size(), kHighDepth);
    level = static_cast<uint8_t>(high_level) > static_cast<uint8_t>(level) ? high_level : level;
  }
  FUZZ_CHECK_EQ(bus_->QueueUtilizationPercent(), percent, "QueueUtilizationPercent");
  FUZZ_CHECK_EQ(static_cast<uint8_t>(bus_->GetBackpressureLevel()), static_cast<uint8_t>(level),
                "GetBackpressureLevel");
  FUZZ_CHECK_EQ(Bus::Capacity(), kDepth, "Capacity");
  FUZZ_CHECK_EQ(Bus::TotalCapacity(),
                kDepth + kHighDepth + uint64_t{Bus::LaneCount()} * Bus::kLaneDepth,
                "TotalCapacity");
  FUZZ_CHECK(bus_->GetPerformanceMode() == mode_, "GetPerformanceMode");
  FUZZ_CHECK_EQ(bus_->template SubscriberCount<Small>(), live_[0], "SubscriberCount<Small>");
  FUZZ_CHECK_EQ(bus_->template SubscriberCount<Big>(), live_[1], "SubscriberCount<Big>");
  FUZZ_CHECK_EQ(bus_->template SubscriberCount<Text>(), live_[2], "SubscriberCount<Text>");
  FUZZ_CHECK_EQ(bus_->template SubscriberCount<Cloud>(), live_[3], "SubscriberCount<Cloud>");
  // The pool's size and limits are the ones the model derives.
  using Pool = typename Bus::template LoanPoolOf<Cloud>;
  FUZZ_CHECK_EQ(Pool::kCapacity, kPool, "LoanPoolOf<Cloud>::kCapacity");
  if (mode_ != PerformanceMode::kBareMetal) {
    FUZZ_CHECK_EQ(Pool::Admission::kLowLimit, LoanLimit(MessagePriority::kLow), "kLowLimit");
    FUZZ_CHECK_EQ(Pool::Admission::kMediumLimit, LoanLimit(MessagePriority::kMedium),
                  "kMediumLimit");
    FUZZ_CHECK_EQ(Pool::Admission::kHighLimit, LoanLimit(MessagePriority::kHigh), "kHighLimit");
    FUZZ_CHECK_EQ(Pool::Admission::kHighReserve, kPool - LoanLimit(MessagePriority::kMedium),
                  "kHighReserve");
  }
  FUZZ_CHECK_EQ(foreign_->template SubscriberCount<Small>(), foreign_live_by_type_[0],
                "foreign SubscriberCount");
}

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_HARNESS_OBSERVE_HPP_
