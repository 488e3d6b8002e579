// SPDX-License-Identifier: MIT
/// @file priority_table.hpp
/// @brief Every priority class in one table: the occupancy at which it is refused, and the ring
/// it travels on. A new priority is an enumerator (message.hpp) and a row here; the statistics
/// count it in the slot of its enumerator's value.
#ifndef MCCC_ADMISSION_PRIORITY_TABLE_HPP_
#define MCCC_ADMISSION_PRIORITY_TABLE_HPP_

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "mccc/message.hpp"

namespace mccc {

/// @brief Which ring a priority's messages travel on.
enum class PriorityRoute : uint8_t {
  kNormal = 0U,    ///< The producer's lane if it has one, else the shared ring.
  kHighRing = 1U,  ///< The HIGH ring, when the bus has one (kHighQueueDepth > 0); else kNormal.
};

/// @brief One priority class.
struct PriorityClass {
  /// Admitted while the ring's occupancy is below this percentage of its capacity
  /// (PriorityAdmission). Lower percentages are refused first under overload.
  uint32_t admission_percent;
  PriorityRoute route;
};

/// @brief The priority classes, indexed by the MessagePriority value (which is also the
/// statistics slot: BusStatisticsSnapshot's low/medium/high fields).
inline constexpr std::array<PriorityClass, kPriorityCount> kPriorityClasses{{
    {60U, PriorityRoute::kNormal},    // kLow: refused first
    {80U, PriorityRoute::kNormal},    // kMedium: the default
    {99U, PriorityRoute::kHighRing},  // kHigh: refused last, dispatched first
}};

namespace detail {

template <std::size_t... kIndex>
constexpr bool RoutesToHighRing(MessagePriority priority,
                                std::index_sequence<kIndex...> /*indices*/) noexcept {
  // Each class's route is a constant: the fold leaves one compare per HIGH-ring class.
  return ((kPriorityClasses[kIndex].route == PriorityRoute::kHighRing &&
           priority == static_cast<MessagePriority>(kIndex)) ||
          ...);
}

}  // namespace detail

/// @brief True when `priority` is routed to the HIGH ring (on a bus that has one).
constexpr bool RoutesToHighRing(MessagePriority priority) noexcept {
  return detail::RoutesToHighRing(priority, std::make_index_sequence<kPriorityCount>{});
}

}  // namespace mccc

#endif  // MCCC_ADMISSION_PRIORITY_TABLE_HPP_
