// SPDX-License-Identifier: MIT
/// @file loan_admission.hpp
/// @brief Who may take a block of a loan pool (loans/loan_pool.hpp): `LoanAdmission`, the
/// number of blocks in use at which a loan of each priority is refused, and
/// `LoanPoolStatistics`, the pool's counters of what that admission granted and refused.
#ifndef MCCC_LOANS_LOAN_ADMISSION_HPP_
#define MCCC_LOANS_LOAN_ADMISSION_HPP_

#include <algorithm>
#include <cstdint>

#include "mccc/admission/priority_admission.hpp"
#include "mccc/message.hpp"

namespace mccc {

/// @brief Counters of one loan pool (AsyncBus::GetLoanStatistics). The counters count in
/// kFullFeatured mode only, like the bus's; capacity and in_use are always exact snapshots.
struct LoanPoolStatistics {
  uint32_t capacity;                 ///< Blocks in the pool.
  uint32_t in_use;                   ///< Blocks loaned, queued or retained now.
  uint32_t high_water;               ///< Most blocks in use at once since the last reset.
  uint64_t loans_granted;            ///< Loans handed out.
  uint64_t high_priority_refused;    ///< HIGH loans refused (the pool was full).
  uint64_t medium_priority_refused;  ///< MEDIUM loans refused (at or above the MEDIUM limit).
  uint64_t low_priority_refused;     ///< LOW loans refused (at or above the LOW limit).
};

/// @brief Admission of a pool of `kBlocks` blocks: a loan of priority P is granted while fewer
/// blocks than P's limit are in use. LOW and MEDIUM use the ring's percentages
/// (PriorityAdmission), but MEDIUM always leaves at least one block that only HIGH may take, so a
/// flood of LOW or MEDIUM loans can never leave a HIGH message without a block. HIGH may take the
/// whole pool. A pool of one block is HIGH-only.
template <uint32_t kBlocks>
struct LoanAdmission {
  static_assert(kBlocks > 0U, "mccc: a loan pool needs at least one block");
  using Percentages = PriorityAdmission<kBlocks>;
  static constexpr uint32_t kHighLimit = kBlocks;
  static constexpr uint32_t kMediumLimit = static_cast<uint32_t>(
      std::min<uint64_t>(Percentages::LimitForPercent(Percentages::kMediumPercent), kBlocks - 1U));
  static constexpr uint32_t kLowLimit = static_cast<uint32_t>(
      std::min<uint64_t>(Percentages::LimitForPercent(Percentages::kLowPercent), kMediumLimit));
  /// Blocks only HIGH loans may take.
  static constexpr uint32_t kHighReserve = kHighLimit - kMediumLimit;

  /// @brief Blocks in use at or above which a loan of `priority` is refused.
  static constexpr uint32_t LimitFor(MessagePriority priority) noexcept {
    switch (priority) {
      case MessagePriority::kLow:
        return kLowLimit;
      case MessagePriority::kMedium:
        return kMediumLimit;
      case MessagePriority::kHigh:
        return kHighLimit;
    }
    return kMediumLimit;  // unreachable for valid enumerators
  }
};

}  // namespace mccc

#endif  // MCCC_LOANS_LOAN_ADMISSION_HPP_
