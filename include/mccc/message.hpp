// SPDX-License-Identifier: MIT
/// @file message.hpp
/// @brief The vocabulary types of the bus: priorities, levels, errors, the header and the envelope.
#ifndef MCCC_MESSAGE_HPP_
#define MCCC_MESSAGE_HPP_

#include <cstddef>
#include <cstdint>

#include "mccc/compat/enumerator_aliases.hpp"

namespace mccc {

/// @brief Admission class of a message. Under overload LOW is refused first, then MEDIUM, HIGH
/// last. Each is admitted while the occupancy is below its share of the capacity; the shares are
/// defined once, in kPriorityClasses (admission/priority_table.hpp).
///
/// Naming: every mccc enumerator is kCamelCase. The original MCCC's upper-case names of this
/// file's enums (MessagePriority::HIGH, BusError::QUEUE_FULL, ...) are aliases of the same
/// values, declared by compat/enumerator_aliases.hpp for code written against it.
enum class MessagePriority : uint8_t {
  kLow = 0U,     ///< Refused first (PriorityAdmission::kLowPercent).
  kMedium = 1U,  ///< The default (PriorityAdmission::kMediumPercent).
  kHigh = 2U,    ///< Refused last (PriorityAdmission::kHighPercent).
  MCCC_COMPAT_MESSAGE_PRIORITY_NAMES
};

/// @brief Number of priority classes (for arrays indexed by priority).
inline constexpr std::size_t kPriorityCount = 3U;

/// @brief Coarse fill level of the queue, derived from a snapshot of its occupancy. The
/// boundaries are defined once, in kPriorityClasses (admission/priority_table.hpp).
enum class BackpressureLevel : uint8_t {
  kNormal = 0U,    ///< Below PriorityAdmission::kWarningPercent.
  kWarning = 1U,   ///< From kWarningPercent to below kCriticalPercent.
  kCritical = 2U,  ///< From kCriticalPercent until the queue is full.
  kFull = 3U,      ///< Every slot is taken.
  MCCC_COMPAT_BACKPRESSURE_LEVEL_NAMES
};

/// @brief What the error callback reports.
enum class BusError : uint8_t {
  kQueueFull = 0U,         ///< A publish was refused by admission (at or above its threshold).
  kInvalidMessage = 1U,    ///< A message could not be delivered as published (bad priority...).
  kProcessingError = 2U,   ///< A callback returned false or threw.
  kOverflowDetected = 3U,  ///< The 64-bit msg_id sequence wrapped around to zero.
  /// ProcessBatch / ProcessBatchWith was called from inside one of its own callbacks; the inner
  /// call dispatched nothing and returned 0 (msg_id: the message being dispatched).
  kReentrantCall = 4U,
  /// A bridge exporter refused a message: its send queue was at the priority's admission limit
  /// in front of the transport's high-water mark (msg_id: the refused message's local id).
  kBridgeSendRefused = 5U,
  /// A bridge importer discarded a received frame that failed a check (corrupted, repeated,
  /// reordered, malformed) or found sequence numbers missing (msg_id: the frame's sequence).
  kBridgeReceiveFault = 6U,
  /// A bridge importer refused a frame whose schema fingerprint differs from its own payload
  /// variant (alternative names, sizes, order or byte order; msg_id: the frame's sequence).
  kBridgeSchemaMismatch = 7U,
  /// AsyncBus::Loan found its pool at the priority's limit and returned an empty loan (msg_id:
  /// 0, no message exists yet).
  kLoanRefused = 8U,
  /// A loan (MessageLoan or Loaned handle) was published on a bus whose pool did not lend its
  /// block; the publish returned false and left the loan with the caller, intact, to publish on
  /// the bus that lent it or to drop (msg_id: 0, no message was queued).
  kForeignLoan = 9U,
  MCCC_COMPAT_BUS_ERROR_NAMES
};

/// @brief Runtime feature level of a bus (see AsyncBus::SetPerformanceMode).
enum class PerformanceMode : uint8_t {
  kFullFeatured = 0U,  ///< Priority admission, statistics, error callback.
  kBareMetal = 1U,     ///< Rejects only when full; no statistics, no error callback.
  kNoStats = 2U,       ///< Priority admission and error callback, no statistics.
  MCCC_COMPAT_PERFORMANCE_MODE_NAMES
};

/// The number of performance modes (kNoStats is the last).
inline constexpr std::size_t kPerformanceModeCount = 3U;

/// @brief Metadata of one message, filled in by the bus. An aggregate; a header declared without
/// initializer (e.g. to call a handler in a test) is all zero with MEDIUM priority.
struct MessageHeader {
  /// Unique per bus, assigned in delivery order (1, 2, 3, ... from a fresh bus).
  uint64_t msg_id = 0U;
  /// Publish time in microseconds from the bus clock (or the caller's value for PublishFast).
  uint64_t timestamp_us = 0U;
  /// The sender id given to Publish.
  uint32_t sender_id = 0U;
  /// The admission class the message was published with.
  MessagePriority priority = MessagePriority::kMedium;
};

/// @brief A message as it sits inside a ring slot: header plus the payload variant.
template <typename PayloadVariant>
struct MessageEnvelope {
  MessageHeader header;    ///< Metadata.
  PayloadVariant payload;  ///< The message itself, one alternative of the bus variant.
};

/// @brief Identifies one subscription; returned by Subscribe, given to Unsubscribe.
struct SubscriptionHandle {
  /// The variant index of the subscribed type.
  std::size_t type_index;
  /// Unique per bus instance; `kInvalidCallbackId` marks a refused subscription.
  std::size_t callback_id;

  /// The callback_id of an invalid handle.
  static constexpr std::size_t kInvalidCallbackId = static_cast<std::size_t>(-1);

  /// @brief True unless the subscription was refused.
  constexpr bool IsValid() const noexcept { return callback_id != kInvalidCallbackId; }
};

/// @brief A handle that names no subscription.
inline constexpr SubscriptionHandle kInvalidSubscription{0U,
                                                         SubscriptionHandle::kInvalidCallbackId};

/// @brief A copy of the bus counters. Every field is exact (no sampling); fields are read one by
/// one, so a snapshot taken while producers run is not atomic across fields.
struct BusStatisticsSnapshot {
  uint64_t messages_published;             ///< Admitted publishes.
  uint64_t messages_dropped;               ///< Refused publishes.
  uint64_t messages_processed;             ///< Messages taken off the queue and dispatched.
  uint64_t processing_errors;              ///< Callbacks that returned false or threw.
  uint64_t high_priority_published;        ///< Admitted HIGH.
  uint64_t medium_priority_published;      ///< Admitted MEDIUM.
  uint64_t low_priority_published;         ///< Admitted LOW.
  uint64_t high_priority_dropped;          ///< Refused HIGH.
  uint64_t medium_priority_dropped;        ///< Refused MEDIUM.
  uint64_t low_priority_dropped;           ///< Refused LOW.
  uint64_t loans_granted;                  ///< Loans handed out by the bus's pools (all pools).
  uint64_t high_priority_loans_refused;    ///< HIGH loans refused (the pool was full).
  uint64_t medium_priority_loans_refused;  ///< MEDIUM loans refused (at the MEDIUM limit).
  uint64_t low_priority_loans_refused;     ///< LOW loans refused (at the LOW limit).
  uint32_t loan_blocks_in_use;  ///< Pool blocks loaned, queued or retained now (all pools).
};

/// @brief The error callback: a plain function pointer, callable from producer threads
/// (kQueueFull) and from the consumer thread (kProcessingError, kOverflowDetected).
using ErrorCallback = void (*)(BusError error, uint64_t msg_id);

}  // namespace mccc

#endif  // MCCC_MESSAGE_HPP_
