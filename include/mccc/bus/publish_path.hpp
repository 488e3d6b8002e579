// SPDX-License-Identifier: MIT
/// @file publish_path.hpp
/// @brief How a publish call becomes a message in a ring, for a given producer identity: the
/// clock read, the loan checks, how the message is copied into its slot, the claim (routed by
/// ring_set.hpp), the count and the consumer's wake-up. The public calls that lead here are
/// publish_api.hpp's.
#ifndef MCCC_BUS_PUBLISH_PATH_HPP_
#define MCCC_BUS_PUBLISH_PATH_HPP_

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <variant>

#include "mccc/bus/bus_core.hpp"
#include "mccc/clock/clock_stamp.hpp"
#include "mccc/config.hpp"
#include "mccc/detail/variant_traits.hpp"
#include "mccc/detail/word_copy.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"
#include "mccc/statistics/thread_shard.hpp"

namespace mccc {
namespace detail {

/// @brief The producer side of a bus. Every member is thread-safe, lock-free and allocates
/// nothing; `producer` is the calling thread's identity (CurrentProducer) or a handle's.
template <typename Config>
class PublishPath : protected BusCore<Config> {
  using Core = BusCore<Config>;
  using Payload = typename Config::Payload;
  using Position = typename Config::Position;
  using StoredEnvelope = typename Config::StoredEnvelope;
  using Layout = typename Config::Layout;
  using Stamp = typename Config::Stamp;
  using LaneStamp = typename Config::LaneStamp;
  template <typename T>
  static constexpr bool kTravelsByLoan = Config::template kTravelsByLoan<T>;

 public:
  using Core::Core;

  /// The calling thread's producer identity: its lane index with lanes (ThisThreadShard: a TLS
  /// load after its first publish), else kThisThread (the statistics look it up).
  MCCC_ALWAYS_INLINE static uint32_t CurrentProducer() noexcept {
    if constexpr (Config::kHasLanes) {
      return ThisThreadShard();
    } else {
      return Config::kThisThread;
    }
  }

  /// A publish timestamped by the bus clock. A lane has no locked claim to keep the clock's
  /// conversion out of, so its stamp converts at once (one call instead of two).
  template <typename T>
  MCCC_ALWAYS_INLINE bool PublishTimestamped(uint32_t producer, T&& message, uint32_t sender_id,
                                             MessagePriority priority) noexcept {
    if constexpr (Config::kHasLanes) {
      if (this->rings_.RouteOf(producer, priority) == RingRoute::kLane) {
        return PublishImpl(producer, std::forward<T>(message), sender_id, priority,
                           LaneStamp::Take());
      }
    }
    return PublishImpl(producer, std::forward<T>(message), sender_id, priority, Stamp::Take());
  }

  /// `stamp`: a Stamp taken before the claim, or PublishFast's GivenStamp (clock_stamp.hpp);
  /// converted to microseconds only after a successful claim.
  template <typename T, typename AnyStamp>
  MCCC_ALWAYS_INLINE bool PublishImpl(uint32_t producer, T&& message, uint32_t sender_id,
                                      MessagePriority priority, const AnyStamp& stamp) noexcept {
    using Message = std::remove_cv_t<std::remove_reference_t<T>>;
    static_assert(!kTravelsByLoan<Message>,
                  "mccc: Publish: this message type travels by loan on this bus (the variant "
                  "lists mccc::Loaned<T>); take a block with bus.Loan<T>(priority), fill it in "
                  "place and Publish(std::move(loan), sender)");
    if constexpr (MessageLoanTraits<Message>::kIsLoan || LoanedTraits<Message>::kIsLoaned) {
      return PublishLoan(producer, std::forward<T>(message), sender_id, priority, stamp);
    } else {
      return PublishInline(producer, std::forward<T>(message), sender_id, priority, stamp);
    }
  }

  template <typename T, typename... Args>
  bool PublishEmplaceBy(uint32_t producer, uint32_t sender_id, MessagePriority priority,
                        Args&&... args) noexcept {
    static_assert(!kTravelsByLoan<T> && !LoanedTraits<T>::kIsLoaned,
                  "mccc: PublishEmplace<T>: T travels by loan on this bus; build it in a pool "
                  "block with bus.Loan<T>(priority, args...) and Publish(std::move(loan), sender)");
    static_assert(kIsAlternative<T, Payload>,
                  "mccc: PublishEmplace<T>: T is not an alternative of the bus payload variant; "
                  "publish one of the std::variant's types or add T to it");
    static_assert(std::is_constructible_v<T, Args...>,
                  "mccc: PublishEmplace<T>: T has no constructor taking these arguments (an "
                  "aggregate cannot be built with parentheses in C++17: use Publish(T{...}))");
    if constexpr (std::is_nothrow_constructible_v<T, Args...>) {
      return PublishConstructed(producer, sender_id, priority, Stamp::Take(),
                                [&](void* storage, const MessageHeader& h) noexcept {
                                  ::new (storage) StoredEnvelope{
                                      Layout::ToStored(h),
                                      Payload(std::in_place_type<T>, std::forward<Args>(args)...)};
                                });
    } else {
      return PublishImpl(producer, T(std::forward<Args>(args)...), sender_id, priority,
                         Stamp::Take());
    }
  }

  template <typename T>
  uint32_t PublishBatchBy(uint32_t producer, const T* messages, uint32_t count, uint32_t sender_id,
                          MessagePriority priority) noexcept {
    static_assert(
        !kTravelsByLoan<T> && !LoanedTraits<T>::kIsLoaned && !MessageLoanTraits<T>::kIsLoan,
        "mccc: PublishBatch: loans are unique and are published one by one with "
        "Publish(std::move(loan), sender); PublishBatch copies inline messages");
    static_assert(kIsAlternative<T, Payload>,
                  "mccc: PublishBatch<T>: T is not an alternative of the bus payload variant; "
                  "publish one of the std::variant's types or add T to it");
    static_assert(std::is_nothrow_copy_constructible_v<T>,
                  "mccc: PublishBatch copies each message into its slot, so T needs a noexcept "
                  "copy constructor; publish such messages one by one with Publish(std::move(m))");
    const auto priority_index = static_cast<std::size_t>(priority);
    const PerformanceMode mode = this->LoadMode();
    if (MCCC_UNLIKELY(priority_index >= kPriorityCount || (messages == nullptr && count != 0U))) {
      this->ReportError(mode, BusError::kInvalidMessage, 0U);
      return 0U;
    }
    if (count == 0U) {
      return 0U;
    }
    const Stamp stamp = Stamp::Take();
    const auto after_claim = [&stamp]() noexcept { return stamp.ToUs(); };
    // messages[index]: the caller's array, index < its count.
    // NOLINTBEGIN(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-22
    const auto build = [this, messages, sender_id, priority](void* storage, Position position,
                                                             uint32_t index,
                                                             uint64_t timestamp_us) noexcept {
      // The ordinary copy: a batch's array is usually filled before the call, so its later
      // entries no longer sit in the store buffer and word loads would only add instructions
      // (word_copy.hpp covers single publishes).
      ::new (storage)
          StoredEnvelope{Layout::ToStored(HeaderAt(position, timestamp_us, sender_id, priority)),
                         Payload(std::in_place_type<T>, messages[index])};
    };
    // NOLINTEND(cppcoreguidelines-pro-bounds-pointer-arithmetic)
    // Elements signal handlers left on a lane, made visible by this call (ProducerLane).
    Position taken_in = 0U;
    const auto claim =
        this->rings_.PublishMany(producer, priority, mode, count, after_claim, build, taken_in);
    const auto admitted = static_cast<uint32_t>(claim.admitted);
    if (MCCC_LIKELY(admitted != 0U)) {
      this->CountAdmitted(producer, mode, priority, admitted);
    }
    if (MCCC_LIKELY(admitted != 0U || taken_in != 0U)) {
      this->NotifyConsumer(this->rings_.ClaimIsSeqCst(producer, priority));
    }
    if (MCCC_UNLIKELY(admitted != count)) {
      this->OnRejected(producer, mode, priority,
                       static_cast<Position>(claim.position + claim.admitted), count - admitted);
    }
    return admitted;
  }

 private:
  /// A loan, or a Loaned handle, moved into a slot: only the handle travels.
  template <typename T, typename AnyStamp>
  MCCC_ALWAYS_INLINE bool PublishLoan(uint32_t producer, T&& message, uint32_t sender_id,
                                      MessagePriority priority, const AnyStamp& stamp) noexcept {
    using Handle = std::remove_cv_t<std::remove_reference_t<T>>;
    using Message = std::conditional_t<MessageLoanTraits<Handle>::kIsLoan,
                                       typename MessageLoanTraits<Handle>::Message,
                                       typename LoanedTraits<Handle>::Message>;
    static_assert(std::is_rvalue_reference_v<T&&> && !std::is_const_v<std::remove_reference_t<T>>,
                  "mccc: a loan is unique and is published by moving it: "
                  "Publish(std::move(loan), sender); a refused publish leaves it with you");
    static_assert(kIsAlternative<Loaned<Message>, Payload>,
                  "mccc: Publish: this loan's type does not travel by loan on this bus; list "
                  "mccc::Loaned<T> in the payload variant and mccc::PoolOf<T, N> in "
                  "Traits::LoanPools");
    if (MCCC_UNLIKELY(!message)) {
      // An empty or moved-from loan.
      this->ReportError(this->LoadMode(), BusError::kInvalidMessage, 0U);
      return false;
    }
    // Another bus's block would be dropped into this bus's pool by the consumer: refused before
    // a slot is claimed, so the loan stays with the caller (every publish of a loan comes here).
    if (MCCC_UNLIKELY(!this->template PoolFor<Message>().Owns(
            *LoanAccess::BlockOf(static_cast<const Handle&>(message))))) {
      this->ReportError(this->LoadMode(), BusError::kForeignLoan, 0U);
      return false;
    }
    return PublishConstructed(
        producer, sender_id, priority, stamp,
        [&](void* storage, const MessageHeader& header) noexcept {
          ::new (storage) StoredEnvelope{
              Layout::ToStored(header),
              Payload(std::in_place_type<Loaned<Message>>, std::forward<T>(message))};
        });
  }

  template <typename T, typename AnyStamp>
  MCCC_ALWAYS_INLINE bool PublishInline(uint32_t producer, T&& message, uint32_t sender_id,
                                        MessagePriority priority, const AnyStamp& stamp) noexcept {
    using Message = std::remove_cv_t<std::remove_reference_t<T>>;
    static_assert(kIsAlternative<Message, Payload> || std::is_same_v<Message, Payload>,
                  "mccc: Publish: the message type is not an alternative of the bus payload "
                  "variant; publish one of the std::variant's types (exactly, no conversion) or "
                  "add the type to it");
    if constexpr (std::is_same_v<Message, Payload>) {
      static_assert(std::is_nothrow_constructible_v<Payload, T&&>,
                    "mccc: publishing a whole payload variant needs a nothrow copy/move; pass an "
                    "rvalue or publish the alternative itself");
      return PublishConstructed(producer, sender_id, priority, stamp,
                                [&](void* storage, const MessageHeader& header) noexcept {
                                  ::new (storage) StoredEnvelope{Layout::ToStored(header),
                                                                 Payload(std::forward<T>(message))};
                                });
    } else if constexpr (kCopiesByWords<Message> && std::is_nothrow_constructible_v<Message, T&&>) {
      // Read word by word: the caller has usually just written the message (word_copy.hpp). The
      // message is value-initialised in its slot and then overwritten: those few extra stores go
      // to lines the copy writes anyway. Only where the ordinary copy or move is allowed: a type
      // whose copy constructor is deleted is refused below, never copied as bytes.
      return PublishConstructed(producer, sender_id, priority, stamp,
                                [&](void* storage, const MessageHeader& header) noexcept {
                                  StoredEnvelope* stored = nullptr;
                                  // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): deviation D-01
                                  stored = ::new (storage)
                                      StoredEnvelope{Layout::ToStored(header),
                                                     Payload(std::in_place_type<Message>)};
                                  CopyByWords(*std::get_if<Message>(&stored->payload), message);
                                });
    } else if constexpr (std::is_nothrow_constructible_v<Message, T&&>) {
      return PublishConstructed(producer, sender_id, priority, stamp,
                                [&](void* storage, const MessageHeader& header) noexcept {
                                  ::new (storage) StoredEnvelope{
                                      Layout::ToStored(header), Payload(std::in_place_type<Message>,
                                                                        std::forward<T>(message))};
                                });
    } else {
      static_assert(std::is_constructible_v<Message, T&&>,
                    "mccc: Publish: this message cannot be copied (its copy constructor is "
                    "deleted); publish it by moving it: Publish(std::move(message), sender)");
      // A copy that may throw is made before claiming a slot (a claimed slot must always be
      // completed); the move into the slot cannot throw (checked for every alternative).
      Message copy(message);
      return PublishInline(producer, std::move(copy), sender_id, priority, stamp);
    }
  }

  /// One message, built by `construct(void* storage, const MessageHeader&)` in the slot its
  /// ring (RingSet::PublishOne) claimed for it.
  template <typename AnyStamp, typename Construct>
  MCCC_ALWAYS_INLINE bool PublishConstructed(uint32_t producer, uint32_t sender_id,
                                             MessagePriority priority, const AnyStamp& stamp,
                                             Construct&& construct) noexcept {
    const auto priority_index = static_cast<std::size_t>(priority);
    if (MCCC_UNLIKELY(priority_index >= kPriorityCount)) {
      this->ReportError(this->LoadMode(), BusError::kInvalidMessage, 0U);
      return false;
    }
    const PerformanceMode mode = this->LoadMode();
    const auto build = [this, &construct, &stamp, sender_id, priority](void* storage,
                                                                       Position position) noexcept {
      construct(storage, HeaderAt(position, stamp.ToUs(), sender_id, priority));
    };
    const auto claim = this->rings_.PublishOne(producer, priority, mode, build);
    if (MCCC_LIKELY(claim.admitted != 0U)) {
      this->CountAdmitted(producer, mode, priority, 1U);
      this->NotifyConsumer(this->rings_.ClaimIsSeqCst(producer, priority));
      return true;
    }
    if (MCCC_UNLIKELY(claim.taken_in != 0U)) {
      // Refused, but it made elements of signal handlers visible: wake the consumer.
      this->NotifyConsumer(this->rings_.ClaimIsSeqCst(producer, priority));
    }
    this->OnRejected(producer, mode, priority, claim.position);
    return false;
  }

  /// The header a producer writes for the message claimed at `position` (its id: see
  /// message_ids.hpp).
  MCCC_ALWAYS_INLINE MessageHeader HeaderAt(Position position, uint64_t timestamp_us,
                                            uint32_t sender_id,
                                            MessagePriority priority) const noexcept {
    return MessageHeader{this->ids_.IdForHeader(position), timestamp_us, sender_id, priority};
  }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_PUBLISH_PATH_HPP_
