// SPDX-License-Identifier: MIT
/// @file consume_path.hpp
/// @brief The consumer side of a bus: one batch (drained in drain_order.hpp's order, each
/// message given its id by message_ids.hpp and handed to the subscription table or a visitor),
/// and the consumer's sleep.
#ifndef MCCC_BUS_CONSUME_PATH_HPP_
#define MCCC_BUS_CONSUME_PATH_HPP_

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "mccc/bus/publish_path.hpp"
#include "mccc/config.hpp"
#include "mccc/detail/timeout_micros.hpp"
#include "mccc/dispatch/visit.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief The consumer side of a bus, on top of its producer side.
template <typename Config>
class ConsumePath : public PublishPath<Config> {
  using Payload = typename Config::Payload;
  using StoredEnvelope = typename Config::StoredEnvelope;
  using Delivered = typename Config::Delivered;
  using Layout = typename Config::Layout;
  using Scope = typename BusCore<Config>::Guard::Scope;

 public:
  using PublishPath<Config>::PublishPath;

  /// @brief Dispatches up to kBatchSize LOW/MEDIUM messages (and as many HIGH ones) to their
  /// subscribers, in the drain order (drain_order.hpp). Each payload is destroyed right after
  /// its callbacks ran. Returns the number dispatched. Consumer thread only (a debug build
  /// asserts on a second thread; re-entry from a callback dispatches nothing and reports
  /// kReentrantCall).
  uint32_t ProcessBatch() noexcept {
    return Poll([this]() noexcept { return DispatchBatch(); });
  }

  /// @brief Dispatches up to kBatchSize messages to `visitor`, which must have a handler for
  /// every alternative (`(const T&)` or `(const T&, const MessageHeader&)`, returning void or
  /// bool); use mccc::make_overloaded, with `[](const auto&) {}` to ignore the rest. No callback
  /// table and no indirect call: handlers can inline. Consumer thread only.
  template <typename Visitor>
  uint32_t ProcessBatchWith(Visitor&& visitor) noexcept {
    using V = std::remove_reference_t<Visitor>;
    static_assert(VisitorCoversAll<V, Payload>::value,
                  "mccc: ProcessBatchWith: the visitor has no handler for at least one payload "
                  "alternative; add an overload taking (const T&) or (const T&, const "
                  "MessageHeader&), or a generic [](const auto&) {} that ignores the rest");
    return Poll([this, &visitor]() noexcept { return DispatchBatchTo(visitor); });
  }

 private:
  /// The poll of ProcessBatch and ProcessBatchWith; `dispatch()` runs the batch once a message
  /// is ready. Inline up to the readiness check, so that an empty poll (a consumer that spins
  /// on it) costs a few loads and no call; the batch itself is one call. Re-entry is refused on
  /// both branches: inside a callback the rings may look empty (a full ring's slots are reused
  /// while its batch goes on), and a re-entrant call is refused and reported anyway.
  template <typename Dispatch>
  MCCC_ALWAYS_INLINE uint32_t Poll(const Dispatch& dispatch) noexcept {
    if (!this->rings_.HasReadyElement()) {
      return FinishEmptyPoll();
    }
    if (MCCC_UNLIKELY(this->guard_.IsDispatching())) {
      return RefuseReentry();
    }
    return dispatch();
  }

  /// A poll that found no message ready: opens no batch, but refuses a re-entrant call and
  /// finishes what an earlier batch end could not (a removed callable whose reclaim found the
  /// table busy). Both in one test, since an empty poll is what a spinning consumer runs.
  MCCC_ALWAYS_INLINE uint32_t FinishEmptyPoll() noexcept {
    if (MCCC_UNLIKELY((this->guard_.DispatchingFlag() | this->table_.PendingReclaimsHint()) !=
                      0U)) {
      EmptyPollSlowPath();
    }
    return 0U;  // a refused re-entrant call dispatches nothing either
  }

  /// The reclaim runs inside the consumer's scope (a capture's destructor that calls
  /// ProcessBatch is refused).
  MCCC_NOINLINE void EmptyPollSlowPath() noexcept {
    if (this->guard_.IsDispatching()) {
      static_cast<void>(RefuseReentry());
      return;
    }
    Scope scope(this->guard_);
    this->table_.ReclaimIfPending();
  }

  /// ProcessBatch's batch, once a message was ready.
  uint32_t DispatchBatch() noexcept {
    Scope scope(this->guard_);
    const bool opened = this->table_.BeginBatch();
    MCCC_ASSERT(opened,
                "ProcessBatch entered by two threads at once; a bus has exactly one consumer "
                "thread");
    static_cast<void>(opened);
    const PerformanceMode mode = this->LoadMode();
    uint32_t errors = 0U;
    this->ids_.PrepareBatch();
    const uint32_t processed =
        this->drain_.Drain(this->rings_, [this, mode, &errors](StoredEnvelope& stored) noexcept {
          // A reference to the slot's envelope, or (compact) a temporary whose life is extended.
          const auto& message = Deliver(stored, mode);
          errors += this->table_.Dispatch(message, [this, mode](uint64_t msg_id) noexcept {
            ReportFromBatch(mode, BusError::kProcessingError, msg_id);
          });
          ReleaseLoaned(stored.payload);
        });
    ReturnReleasedBlocks();
    this->table_.EndBatch();
    FinishBatch(mode, processed, errors);
    return processed;
  }

  /// ProcessBatchWith's batch, once a message was ready.
  template <typename Visitor>
  uint32_t DispatchBatchTo(Visitor& visitor) noexcept {
    Scope scope(this->guard_);
    const PerformanceMode mode = this->LoadMode();
    uint32_t errors = 0U;
    this->ids_.PrepareBatch();
    const uint32_t processed = this->drain_.Drain(
        this->rings_, [this, mode, &errors, &visitor](StoredEnvelope& stored) noexcept {
          const auto& message = Deliver(stored, mode);  // as in ProcessBatch
          if (MCCC_UNLIKELY(!VisitGuarded(visitor, message))) {
            ++errors;
            ReportFromBatch(mode, BusError::kProcessingError, message.header.msg_id);
          }
          ReleaseLoaned(stored.payload);
        });
    ReturnReleasedBlocks();
    FinishBatch(mode, processed, errors);
    return processed;
  }

 public:
  /// @brief Consumer thread: returns true at once if a message is ready; otherwise sleeps until
  /// a producer publishes or `timeout_us` passes (Traits::ConsumerWait: a futex on Linux, a
  /// hook on an RTOS; at once with NoConsumerWait). Producers pay no system call or hook call
  /// while the consumer is awake. Returns whether a message is ready now.
  /// The first call enables sleeping for good; on a bus whose producers publish with a plain
  /// store (producer lanes, the single producer) it also passes a process-wide barrier
  /// (`membarrier`, detail/asymmetric_fence.hpp) so that a publish racing with it is seen.
  /// Where the kernel refuses that barrier the first call returns without sleeping.
  bool WaitForMessages(uint32_t timeout_us) noexcept {
    if (this->rings_.HasReadyElement()) {
      return true;
    }
    if (MCCC_UNLIKELY(!this->parking_.SleepEnabled()) && !this->EnableSleep()) {
      return this->rings_.HasReadyElement();
    }
    this->parking_.Park([this]() noexcept { return this->rings_.HasClaimedWork(); }, timeout_us);
    return this->rings_.HasReadyElement();
  }

#if MCCC_HOSTED
  /// @brief WaitForMessages with a std::chrono duration, e.g. `WaitForMessages(5ms)`: the same
  /// call with `timeout` in whole microseconds by one rule (detail/timeout_micros.hpp): rounded
  /// up (1 ns becomes 1 us, 1.5 us becomes 2 us: a timeout never shorter than asked), saturated
  /// at UINT32_MAX us (a little over 71 minutes), and zero or negative become 0, which is
  /// WaitForMessages(0U): whether a message is ready, without sleeping (the kernel waits return
  /// at once; a ConsumerWait hook is handed 0). Consumer thread only. Hosted builds only:
  /// bare-metal builds keep <chrono> out (config.hpp) and use the uint32_t form.
  template <class Rep, class Period>
  bool WaitForMessages(std::chrono::duration<Rep, Period> timeout) noexcept {
    return WaitForMessages(TimeoutMicros(timeout));
  }
#endif

  /// @brief Makes the consumer's current or next WaitForMessages return (e.g. to notice a stop
  /// request set before this call). A request made before the consumer parks is not lost.
  /// Thread-safe.
  void WakeConsumer() noexcept {
    this->parking_.RequestWake();
  }

 private:
  /// ProcessBatch / ProcessBatchWith called from one of their own callbacks: nothing is
  /// dispatched (the outer call owns the batch), kReentrantCall names the message under way.
  MCCC_NOINLINE uint32_t RefuseReentry() noexcept {
    this->guard_.AssertReentryIsFromConsumer();
    this->ReportError(this->LoadMode(), BusError::kReentrantCall, this->ids_.LastDelivered());
    return 0U;
  }

  /// Consumer: the message in `stored` as subscribers see it, with its msg_id assigned: the
  /// slot's own envelope (a reference), or (compact) a DeliveredMessage with a full header,
  /// returned by value for the caller to bind to a const reference.
  MCCC_ALWAYS_INLINE decltype(auto) Deliver(StoredEnvelope& stored, PerformanceMode mode) noexcept {
    if constexpr (Config::kCompactEnvelope) {
      Delivered message{stored.payload, Layout::ToDelivered(stored.header)};
      AssignMessageId(message.header, mode);
      return message;
    } else {
      AssignMessageId(stored.header, mode);
      return static_cast<const Delivered&>(stored);
    }
  }

  /// Consumer: completes the header's id and reports the wrap of the 64-bit id sequence
  /// (kOverflowDetected, once per 2^64 messages).
  MCCC_ALWAYS_INLINE void AssignMessageId(MessageHeader& header, PerformanceMode mode) noexcept {
    if (this->ids_.Assign(header)) {
      ReportFromBatch(mode, BusError::kOverflowDetected, 0U);
    }
  }

  /// Consumer: an error report from inside a batch's loop, kept out of line so that the loop
  /// holds only the call (its mode test and callback load would otherwise be inlined into every
  /// message's path, where they only cost registers).
  MCCC_NOINLINE void ReportFromBatch(PerformanceMode mode, BusError error,
                                     uint64_t msg_id) noexcept {
    this->ReportError(mode, error, msg_id);
  }

  /// Consumer, after a message's callbacks: a loaned payload drops its slot's reference here
  /// (instead of in the slot's destructor), so the block joins its pool's batch return.
  template <std::size_t I = 0U>
  MCCC_ALWAYS_INLINE void ReleaseLoaned(Payload& payload) noexcept {
    if constexpr (Config::kHasLoans && I < std::variant_size_v<Payload>) {
      using Alternative = std::variant_alternative_t<I, Payload>;
      if constexpr (LoanedTraits<Alternative>::kIsLoaned) {
        if (payload.index() == I) {
          LoanBlockHeader* block = LoanAccess::Detach(*std::get_if<I>(&payload));
          if (block != nullptr) {
            this->template PoolFor<typename LoanedTraits<Alternative>::Message>().DropFromConsumer(
                *block);
          }
          return;
        }
      }
      ReleaseLoaned<I + 1U>(payload);
    } else {
      static_cast<void>(payload);
    }
  }

  /// Consumer, end of a batch: the blocks the batch released go back to their pools.
  MCCC_ALWAYS_INLINE void ReturnReleasedBlocks() noexcept {
    if constexpr (Config::kHasLoans) {
      this->ReturnAllReleased();
    }
  }

  /// Consumer, after a batch: publishes how far delivery got and counts the batch
  /// (kFullFeatured only). An empty poll writes nothing (a polling consumer runs this in a loop).
  void FinishBatch(PerformanceMode mode, uint32_t processed, uint32_t errors) noexcept {
    if (processed == 0U) {
      return;
    }
    this->ids_.FinishBatch();
    if (mode == PerformanceMode::kFullFeatured) {
      this->stats_.CountProcessed(processed, errors);
    }
  }

  template <typename Visitor>
  MCCC_ALWAYS_INLINE static bool VisitGuarded(Visitor& visitor,
                                              const Delivered& envelope) noexcept {
#if MCCC_HAS_EXCEPTIONS
    try {
      return VisitAlternative(envelope.payload.index(), envelope.payload, envelope.header, visitor);
    } catch (...) {
      return false;
    }
#else
    return VisitAlternative(envelope.payload.index(), envelope.payload, envelope.header, visitor);
#endif
  }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_CONSUME_PATH_HPP_
