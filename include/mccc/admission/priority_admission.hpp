// SPDX-License-Identifier: MIT
/// @file priority_admission.hpp
/// @brief Occupancy thresholds: which priority is admitted at which fill level, and the
/// backpressure level a fill level maps to. All integer arithmetic, computed at compile time.
#ifndef MCCC_ADMISSION_PRIORITY_ADMISSION_HPP_
#define MCCC_ADMISSION_PRIORITY_ADMISSION_HPP_

#include <cstdint>

#include "mccc/message.hpp"

namespace mccc {

/// @brief Admission and backpressure thresholds for a ring of `kCapacity` slots.
///
/// The one home of the admission and backpressure thresholds: the constants below. A message of
/// priority P is admitted while occupancy (published, not yet consumed) is below P's percentage
/// of capacity (kLowPercent, kMediumPercent, kHighPercent). "Below x%" is exact for every
/// capacity: occupancy * 100 < x * capacity, i.e. occupancy < ceil(x * capacity / 100). Every
/// limit is at most the capacity, so every mode refuses when the queue is full.
template <uint32_t kCapacity>
struct PriorityAdmission {
  /// Admission percentages, indexed by MessagePriority.
  static constexpr uint32_t kLowPercent = 60U;
  static constexpr uint32_t kMediumPercent = 80U;
  static constexpr uint32_t kHighPercent = 99U;

  /// Backpressure boundaries (percent of capacity).
  static constexpr uint32_t kWarningPercent = 75U;
  static constexpr uint32_t kCriticalPercent = 90U;

  /// @brief Smallest occupancy that is NOT "below `percent`% of capacity".
  static constexpr uint64_t LimitForPercent(uint32_t percent) noexcept {
    return (static_cast<uint64_t>(kCapacity) * percent + 99U) / 100U;
  }

  /// @brief Occupancy at or above which a message of `priority` is refused.
  static constexpr uint64_t LimitFor(MessagePriority priority) noexcept {
    switch (priority) {
      case MessagePriority::kLow:
        return LimitForPercent(kLowPercent);
      case MessagePriority::kMedium:
        return LimitForPercent(kMediumPercent);
      case MessagePriority::kHigh:
        return LimitForPercent(kHighPercent);
    }
    return LimitForPercent(kMediumPercent);  // unreachable for valid enumerators
  }

  /// @brief Backpressure level of an occupancy snapshot.
  static constexpr BackpressureLevel LevelFor(uint64_t occupancy) noexcept {
    if (occupancy >= kCapacity) {
      return BackpressureLevel::kFull;
    }
    if (occupancy >= LimitForPercent(kCriticalPercent)) {
      return BackpressureLevel::kCritical;
    }
    if (occupancy >= LimitForPercent(kWarningPercent)) {
      return BackpressureLevel::kWarning;
    }
    return BackpressureLevel::kNormal;
  }

  /// @brief Occupancy as a whole percentage of capacity, rounded down (100 only when full).
  static constexpr uint32_t UtilizationPercent(uint64_t occupancy) noexcept {
    return static_cast<uint32_t>(occupancy * 100U / kCapacity);
  }

  static_assert(LimitForPercent(kHighPercent) <= kCapacity, "admission limits exceed capacity");
  static_assert(LimitForPercent(kLowPercent) <= LimitForPercent(kMediumPercent) &&
                    LimitForPercent(kMediumPercent) <= LimitForPercent(kHighPercent),
                "admission limits must be ordered LOW <= MEDIUM <= HIGH");
};

}  // namespace mccc

#endif  // MCCC_ADMISSION_PRIORITY_ADMISSION_HPP_
