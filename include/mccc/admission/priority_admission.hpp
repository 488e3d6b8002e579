// SPDX-License-Identifier: MIT
/// @file priority_admission.hpp
/// @brief Occupancy thresholds: which priority is admitted at which fill level, and the
/// backpressure level a fill level maps to. All integer arithmetic, computed at compile time.
#ifndef MCCC_ADMISSION_PRIORITY_ADMISSION_HPP_
#define MCCC_ADMISSION_PRIORITY_ADMISSION_HPP_

#include <array>
#include <cstddef>
#include <cstdint>

#include "mccc/admission/priority_table.hpp"
#include "mccc/message.hpp"

namespace mccc {

/// @brief Admission and backpressure thresholds for a ring of `kCapacity` slots.
///
/// A message of priority P is admitted while occupancy (published, not yet consumed) is below
/// P's percentage of capacity (kPriorityClasses, priority_table.hpp). "Below x%" is exact for every
/// capacity: occupancy * 100 < x * capacity, i.e. occupancy < ceil(x * capacity / 100). Every
/// limit is at most the capacity, so every mode refuses when the queue is full.
template <uint32_t kCapacity>
struct PriorityAdmission {
  /// Admission percentages of the three classes (kPriorityClasses' rows, named).
  static constexpr uint32_t kLowPercent =
      kPriorityClasses[static_cast<std::size_t>(MessagePriority::kLow)].admission_percent;
  static constexpr uint32_t kMediumPercent =
      kPriorityClasses[static_cast<std::size_t>(MessagePriority::kMedium)].admission_percent;
  static constexpr uint32_t kHighPercent =
      kPriorityClasses[static_cast<std::size_t>(MessagePriority::kHigh)].admission_percent;

  /// Backpressure boundaries (percent of capacity).
  static constexpr uint32_t kWarningPercent = 75U;
  static constexpr uint32_t kCriticalPercent = 90U;

  /// @brief Smallest occupancy that is NOT "below `percent`% of capacity".
  static constexpr uint64_t LimitForPercent(uint32_t percent) noexcept {
    return (static_cast<uint64_t>(kCapacity) * percent + 99U) / 100U;
  }

  /// @brief Occupancy at or above which a message of `priority` is refused (a value that is no
  /// enumerator: MEDIUM's, though every bus refuses such a priority before asking).
  static constexpr uint64_t LimitFor(MessagePriority priority) noexcept {
    const auto index = static_cast<std::size_t>(priority);
    return LimitForPercent(index < kPriorityCount ? kPriorityClasses[index].admission_percent
                                                  : kMediumPercent);
  }

  /// @brief LimitFor of every priority, indexed by its value, as a `Position` (the bus's
  /// lookup table).
  template <typename Position>
  static constexpr std::array<Position, kPriorityCount> Limits() noexcept {
    std::array<Position, kPriorityCount> limits{};
    for (std::size_t index = 0U; index < kPriorityCount; ++index) {
      limits[index] =
          static_cast<Position>(LimitForPercent(kPriorityClasses[index].admission_percent));
    }
    return limits;
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
  static_assert(
      [] {
        for (const PriorityClass& row : kPriorityClasses) {
          if (row.admission_percent > 100U) {
            return false;
          }
        }
        return true;
      }(),
      "mccc: an admission percentage of kPriorityClasses exceeds 100");
};

}  // namespace mccc

#endif  // MCCC_ADMISSION_PRIORITY_ADMISSION_HPP_
