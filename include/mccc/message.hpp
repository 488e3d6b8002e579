/// @file message.hpp
/// @brief The vocabulary types of the bus: priorities, levels, errors, the header and the envelope.
#ifndef MCCC_MESSAGE_HPP_
#define MCCC_MESSAGE_HPP_

#include <cstddef>
#include <cstdint>

namespace mccc {

/// @brief Admission class of a message. Under overload LOW is refused first, then MEDIUM.
enum class MessagePriority : uint8_t {
  LOW = 0U,     ///< Admitted while occupancy is below 60% of capacity.
  MEDIUM = 1U,  ///< Admitted while occupancy is below 80% of capacity (the default).
  HIGH = 2U,    ///< Admitted while occupancy is below 99% of capacity.
};

/// @brief Number of priority classes (for arrays indexed by priority).
inline constexpr std::size_t kPriorityCount = 3U;

/// @brief Coarse fill level of the queue, derived from a snapshot of its occupancy.
enum class BackpressureLevel : uint8_t {
  NORMAL = 0U,    ///< Occupancy below 75%.
  WARNING = 1U,   ///< 75% to below 90%.
  CRITICAL = 2U,  ///< 90% to below 100%.
  FULL = 3U,      ///< Every slot is taken.
};

/// @brief What the error callback reports.
enum class BusError : uint8_t {
  QUEUE_FULL = 0U,        ///< A publish was refused by admission (queue at or above its threshold).
  INVALID_MESSAGE = 1U,   ///< A message could not be delivered as published (reserved for checks).
  PROCESSING_ERROR = 2U,  ///< A callback returned false or threw.
  OVERFLOW_DETECTED = 3U,  ///< The 64-bit msg_id sequence wrapped around to zero.
};

/// @brief Runtime feature level of a bus (see AsyncBus::SetPerformanceMode).
enum class PerformanceMode : uint8_t {
  FULL_FEATURED = 0U,  ///< Priority admission, statistics, error callback.
  BARE_METAL = 1U,     ///< Rejects only when full; no statistics, no error callback.
  NO_STATS = 2U,       ///< Priority admission and error callback, no statistics.
};

/// @brief Metadata of one message, filled in by the bus.
struct MessageHeader {
  /// Unique per bus, assigned in delivery order (1, 2, 3, ... from a fresh bus).
  uint64_t msg_id;
  /// Publish time in microseconds from the bus clock (or the caller's value for PublishFast).
  uint64_t timestamp_us;
  /// The sender id given to Publish.
  uint32_t sender_id;
  /// The admission class the message was published with.
  MessagePriority priority;
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
  uint64_t messages_published;         ///< Admitted publishes.
  uint64_t messages_dropped;           ///< Refused publishes.
  uint64_t messages_processed;         ///< Messages taken off the queue and dispatched.
  uint64_t processing_errors;          ///< Callbacks that returned false or threw.
  uint64_t high_priority_published;    ///< Admitted HIGH.
  uint64_t medium_priority_published;  ///< Admitted MEDIUM.
  uint64_t low_priority_published;     ///< Admitted LOW.
  uint64_t high_priority_dropped;      ///< Refused HIGH.
  uint64_t medium_priority_dropped;    ///< Refused MEDIUM.
  uint64_t low_priority_dropped;       ///< Refused LOW.
};

/// @brief The error callback: a plain function pointer, callable from producer threads
/// (QUEUE_FULL) and from the consumer thread (PROCESSING_ERROR, OVERFLOW_DETECTED).
using ErrorCallback = void (*)(BusError error, uint64_t msg_id);

}  // namespace mccc

#endif  // MCCC_MESSAGE_HPP_
