// SPDX-License-Identifier: MIT
/// @file bus_constants.hpp
/// @brief The original MCCC's upper-case bus constants (`Bus::MAX_QUEUE_DEPTH` & co.), for code
/// written against it (docs/migrating.md). New code reads kQueueDepth, kBatchSize and the
/// admission thresholds (Bus::Admission, admission/priority_table.hpp).
#ifndef MCCC_COMPAT_BUS_CONSTANTS_HPP_
#define MCCC_COMPAT_BUS_CONSTANTS_HPP_

#include <cstdint>

#include "mccc/message.hpp"

namespace mccc {
namespace compat {

/// @brief An empty base of AsyncBus that carries the original's constants. Each threshold is
/// the occupancy at or above which a publish is refused (Admission::LimitFor) or a
/// backpressure level begins (Admission::LevelFor).
template <typename Config>
struct OriginalBusConstants {
  using Admission = typename Config::Admission;
  static constexpr uint32_t MAX_QUEUE_DEPTH = Config::kQueueDepth;
  static constexpr uint32_t BATCH_PROCESS_SIZE = Config::kBatchSize;
  static constexpr uint32_t LOW_PRIORITY_THRESHOLD =
      static_cast<uint32_t>(Admission::LimitFor(MessagePriority::kLow));
  static constexpr uint32_t MEDIUM_PRIORITY_THRESHOLD =
      static_cast<uint32_t>(Admission::LimitFor(MessagePriority::kMedium));
  static constexpr uint32_t HIGH_PRIORITY_THRESHOLD =
      static_cast<uint32_t>(Admission::LimitFor(MessagePriority::kHigh));
  static constexpr uint32_t BACKPRESSURE_WARNING_THRESHOLD =
      static_cast<uint32_t>(Admission::LimitForPercent(Admission::kWarningPercent));
  static constexpr uint32_t BACKPRESSURE_CRITICAL_THRESHOLD =
      static_cast<uint32_t>(Admission::LimitForPercent(Admission::kCriticalPercent));
};

}  // namespace compat
}  // namespace mccc

#endif  // MCCC_COMPAT_BUS_CONSTANTS_HPP_
