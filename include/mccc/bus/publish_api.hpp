// SPDX-License-Identifier: MIT
/// @file publish_api.hpp
/// @brief The publish calls, written once for the bus (the calling thread's producer identity)
/// and for a Producer handle (the handle's identity).
///
/// `Derived` (CRTP) provides `PublishTarget()`: the bus's producer side (publish_path.hpp), or
/// null for an empty handle, and the producer identity to publish as. All calls are
/// thread-safe, lock-free (wait-free with kSingleProducer) and never allocate; a Producer
/// handle is used by one thread at a time.
///
/// Exceptions: every publish call is noexcept. The message is moved into its slot, which
/// cannot throw (required of every alternative). An lvalue whose copy may throw is copied
/// first, before a slot is claimed, and so is a PublishEmplace argument list whose constructor
/// may throw; an exception from that copy or constructor (std::bad_alloc from a std::string
/// member, say) calls std::terminate. To keep such an exception on the caller's side, make the
/// copy before the call and publish it with std::move, or use message types whose copy and
/// constructors cannot throw (PublishEmplace then builds in the slot).
#ifndef MCCC_BUS_PUBLISH_API_HPP_
#define MCCC_BUS_PUBLISH_API_HPP_

#include <cstdint>
#include <type_traits>
#include <utility>

#include "mccc/clock/clock_stamp.hpp"
#include "mccc/config.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief Where a publish call goes: a bus's producer side (null: nowhere) and the identity.
template <typename Path>
struct PublishTarget {
  Path* path;
  uint32_t producer;
};

/// @brief Publish's priority when none is given: MEDIUM, or the priority a loan was admitted at.
template <typename T>
MCCC_ALWAYS_INLINE constexpr MessagePriority DefaultPriorityOf(const T& message) noexcept {
  if constexpr (MessageLoanTraits<std::remove_cv_t<T>>::kIsLoan) {
    return message.Priority();
  } else {
    static_cast<void>(message);
    return MessagePriority::kMedium;
  }
}

/// @brief The publish calls of `Derived`, for a bus configured by `Config`.
// Publish, PublishWithPriority and PublishFast are forced inline like every layer below them:
// otherwise they are the one call left on a publish loop once GCC's limit on a translation
// unit's growth by inlining is reached, which other code decides.
template <typename Derived, typename Config>
class PublishApi {
 public:
  /// @brief Publishes `message` with MEDIUM priority (a MessageLoan: the priority it was
  /// loaned at), timestamped by the bus clock. Returns false when not admitted; `message` is then
  /// left untouched (not moved from; a loan stays with the caller, to retry or drop). A loan (or
  /// Loaned handle) whose block another bus lent is never admitted: false, and kForeignLoan
  /// (msg_id 0) is reported. A copy that throws calls std::terminate (see the file comment).
  template <typename T>
  MCCC_ALWAYS_INLINE bool Publish(T&& message, uint32_t sender_id) noexcept {
    const auto target = Self().PublishTarget();
    const MessagePriority priority = DefaultPriorityOf(message);
    return target.path != nullptr &&
           target.path->PublishTimestamped(target.producer, std::forward<T>(message), sender_id,
                                           priority);
  }

  /// @brief Publishes with an explicit priority (priority_table.hpp for the thresholds).
  /// Returns false when not admitted, or when `priority` is not a MessagePriority enumerator
  /// (kInvalidMessage is then reported); `message` is then left untouched.
  template <typename T>
  MCCC_ALWAYS_INLINE bool PublishWithPriority(T&& message, uint32_t sender_id,
                                              MessagePriority priority) noexcept {
    const auto target = Self().PublishTarget();
    return target.path != nullptr &&
           target.path->PublishTimestamped(target.producer, std::forward<T>(message), sender_id,
                                           priority);
  }

  /// @brief Publishes with a caller-supplied timestamp: no clock read. Otherwise as
  /// PublishWithPriority (MEDIUM unless given; a loan's own priority for a loan).
  template <typename T>
  MCCC_ALWAYS_INLINE bool PublishFast(
      T&& message, uint32_t sender_id, uint64_t timestamp_us,
      MessagePriority priority = MessagePriority::kMedium) noexcept {
    static_assert(Config::kStoresTimestamp || sizeof(T) == 0U,
                  "mccc: PublishFast: this bus stores no timestamp (a compact envelope with "
                  "NullClock), so the given one would be lost; use Publish / "
                  "PublishWithPriority (NullClock reads nothing), or set kCompactEnvelope = "
                  "false or a real clock in the bus traits");
    const auto target = Self().PublishTarget();
    return target.path != nullptr &&
           target.path->PublishImpl(target.producer, std::forward<T>(message), sender_id, priority,
                                    GivenStamp(timestamp_us));
  }

  /// @brief PublishFast of a loan without a priority: the priority it was loaned at.
  template <typename T>
  bool PublishFast(MessageLoan<T>&& loan, uint32_t sender_id, uint64_t timestamp_us) noexcept {
    const MessagePriority priority = loan.Priority();
    return PublishFast(std::move(loan), sender_id, timestamp_us, priority);
  }

  /// @brief Constructs a T from `args` directly inside the slot (no temporary when T's
  /// constructor cannot throw). Returns false when not admitted (nothing is constructed).
  /// A constructor that may throw builds a temporary first; if it throws, std::terminate is
  /// called.
  template <typename T, typename... Args>
  bool PublishEmplace(uint32_t sender_id, MessagePriority priority, Args&&... args) noexcept {
    const auto target = Self().PublishTarget();
    return target.path != nullptr &&
           target.path->template PublishEmplaceBy<T>(target.producer, sender_id, priority,
                                                     std::forward<Args>(args)...);
  }

  /// @brief Publishes `messages[0, count)` in this order, with one clock reading and one claim
  /// of consecutive positions in one ring for all of them. They are delivered in order with
  /// increasing msg_ids. Where LOW/MEDIUM messages share one ring (no producer lanes) no other
  /// producer's message lands between them, and their ids are consecutive unless HIGH messages
  /// are dispatched in between; with producer lanes the consumer serves the rings in turn, so
  /// messages of other rings may be dispatched between them.
  /// Admission is decided per message exactly as `count` single publishes of `priority` at that
  /// instant would decide it, so the admitted messages are a prefix: returns how many (0 to
  /// count). The messages are copied; the refused ones, `messages[returned, count)`, are left for
  /// the caller to retry. Each refused message counts as dropped (kFullFeatured), and the error
  /// callback gets one kQueueFull per call that refused any (its msg_id: the id the first
  /// refused message would have received). Returns 0 and reports kInvalidMessage when
  /// `priority` is not an enumerator or `messages` is null with count > 0.
  template <typename T>
  uint32_t PublishBatch(const T* messages, uint32_t count, uint32_t sender_id,
                        MessagePriority priority = MessagePriority::kMedium) noexcept {
    const auto target = Self().PublishTarget();
    return target.path == nullptr
               ? 0U
               : target.path->PublishBatchBy(target.producer, messages, count, sender_id, priority);
  }

 private:
  MCCC_ALWAYS_INLINE Derived& Self() noexcept { return static_cast<Derived&>(*this); }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_PUBLISH_API_HPP_
