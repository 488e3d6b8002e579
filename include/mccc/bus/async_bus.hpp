// SPDX-License-Identifier: MIT
/// @file async_bus.hpp
/// @brief `mccc::AsyncBus`: many producers publish typed messages, one consumer dispatches them.
///
/// The bus composes the pieces that each live in their own header:
/// - ring/mpsc_ring.hpp: the lock-free bounded ring the envelopes live in;
/// - admission/priority_admission.hpp: which priority is admitted at which occupancy;
/// - statistics/bus_statistics.hpp: counters that cost no shared write per message;
/// - dispatch/subscription_table.hpp: subscriber callbacks, read by the consumer without a lock;
/// - dispatch/visit.hpp: compile-time visitor dispatch;
/// - wakeup/consumer_parking.hpp: an idle consumer may sleep and is woken by the next publish.
///
/// Thread-safety summary: Publish*, Subscribe, Unsubscribe, the queue snapshots, statistics,
/// SetPerformanceMode and SetErrorCallback are thread-safe (any thread, any time).
/// ProcessBatch, ProcessBatchWith and WaitForMessages belong to the one consumer thread.
#ifndef MCCC_BUS_ASYNC_BUS_HPP_
#define MCCC_BUS_ASYNC_BUS_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <variant>

#include "mccc/admission/priority_admission.hpp"
#include "mccc/clock/clock_stamp.hpp"
#include "mccc/config.hpp"
#include "mccc/detail/id_base.hpp"
#include "mccc/detail/scoped_flag.hpp"
#include "mccc/detail/variant_traits.hpp"
#include "mccc/dispatch/subscription_table.hpp"
#include "mccc/dispatch/visit.hpp"
#include "mccc/message.hpp"
#include "mccc/ring/mpsc_ring.hpp"
#include "mccc/statistics/bus_statistics.hpp"
#include "mccc/traits.hpp"
#include "mccc/wakeup/consumer_parking.hpp"

namespace mccc {

/// @brief The asynchronous message bus.
/// @tparam PayloadVariant `std::variant<Msg1, Msg2, ...>` of the message types.
/// @tparam Traits Per-bus configuration, derived from DefaultBusTraits.
template <typename PayloadVariant, typename Traits = DefaultBusTraits>
class AsyncBus {
  static_assert(detail::IsStdVariant<PayloadVariant>::value,
                "mccc: AsyncBus<Payload>: Payload must be a std::variant<...> of message types");
  static_assert(std::variant_size_v<PayloadVariant> <= Traits::kMaxMessageTypes,
                "mccc: the payload variant has more alternatives than kMaxMessageTypes; raise "
                "MCCC_MAX_MESSAGE_TYPES (or kMaxMessageTypes in your bus traits) or split the "
                "variant across buses");
  static_assert(Traits::kQueueDepth > 0U, "mccc: kQueueDepth (MCCC_QUEUE_DEPTH) must be > 0");
  static_assert((Traits::kQueueDepth & (Traits::kQueueDepth - 1U)) == 0U,
                "mccc: kQueueDepth (MCCC_QUEUE_DEPTH) must be a power of two, e.g. 1024");
  static_assert(Traits::kBatchSize > 0U, "mccc: kBatchSize (MCCC_BATCH_SIZE) must be > 0");
  static_assert(!Traits::kSingleCore || Traits::kSingleCoreUnsafeAcknowledged,
                "mccc: kSingleCore = true is only correct on a single-core CPU; also set "
                "kSingleCoreUnsafeAcknowledged = true (MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE=1)");
  static_assert(detail::AllNothrowMovable<PayloadVariant>::value,
                "mccc: every payload alternative must be nothrow move constructible (a claimed "
                "slot must always be completed); mark the move constructor noexcept");

 public:
  using Payload = PayloadVariant;                    ///< The payload variant.
  using Envelope = MessageEnvelope<PayloadVariant>;  ///< What a ring slot holds.
  using TraitsType = Traits;                         ///< The configuration.
  using Position = typename Traits::Position;        ///< Ring position type.
  using PerformanceMode = ::mccc::PerformanceMode;   ///< So `Bus::PerformanceMode::X` works.
  using Admission = PriorityAdmission<Traits::kQueueDepth>;  ///< The thresholds in use.

  /// Ring capacity in messages.
  static constexpr uint32_t kQueueDepth = Traits::kQueueDepth;
  /// Messages one ProcessBatch call dispatches at most.
  static constexpr uint32_t kBatchSize = Traits::kBatchSize;

  // The names of the original MCCC API, for code written against it (docs/migrating.md). Each
  // threshold is the occupancy at or above which a publish is refused (Admission::LimitFor) or a
  // backpressure level begins (Admission::LevelFor).
  using EnvelopeType = Envelope;
  static constexpr uint32_t MAX_QUEUE_DEPTH = kQueueDepth;
  static constexpr uint32_t BATCH_PROCESS_SIZE = kBatchSize;
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

  /// @brief A bus with an empty queue and no subscribers. Allocates nothing: the ring is a
  /// member, so give large buses static or heap storage (Instance(), std::make_unique).
  AsyncBus() noexcept
      : msg_id_offset_(1U), ring_(Position{0U}), next_msg_id_(1U), id_base_(1U, 0U) {
    Stamp::WarmUp();
  }

#if MCCC_ENABLE_TEST_HOOKS
  /// @brief Test hook: a bus whose ring (and msg_id sequence) starts at `initial_position`.
  explicit AsyncBus(Position initial_position, uint64_t first_msg_id) noexcept
      : msg_id_offset_(first_msg_id - static_cast<uint64_t>(initial_position)),
        ring_(initial_position),
        next_msg_id_(first_msg_id),
        id_base_(first_msg_id - static_cast<uint64_t>(initial_position),
                 static_cast<uint32_t>(initial_position)) {
    Stamp::WarmUp();
  }

  /// @brief Test hook: see MpscRing::SetAfterClaimHook.
  void SetAfterClaimHook(void (*hook)(void*, Position), void* context) noexcept {
    ring_.SetAfterClaimHook(hook, context);
  }

  /// @brief Test hook: see MpscRing::SetAfterAnnounceHook.
  void SetAfterAnnounceHook(void (*hook)(void*, Position), void* context) noexcept {
    ring_.SetAfterAnnounceHook(hook, context);
  }

  /// @brief Test hook: called by a refusing producer after it observed the tail and before it
  /// computes the id it reports (lets a test delay it while the consumer moves on).
  void SetBeforeRejectReportHook(void (*hook)(void*), void* context) noexcept {
    before_reject_report_hook_ = hook;
    before_reject_report_context_ = context;
  }
#endif

  AsyncBus(const AsyncBus&) = delete;
  AsyncBus& operator=(const AsyncBus&) = delete;
  AsyncBus(AsyncBus&&) = delete;
  AsyncBus& operator=(AsyncBus&&) = delete;

  /// @brief Destroys the messages still queued (undelivered) and all subscriptions.
  /// Requires that no thread is publishing or consuming.
  ~AsyncBus() = default;

  /// @brief The process-wide bus of this type (created on first use). Thread-safe.
  static AsyncBus& Instance() noexcept {
    static AsyncBus instance;
    return instance;
  }

  // -------------------------------------------------------------------------------------------
  // Subscriptions
  // -------------------------------------------------------------------------------------------

  /// @brief Registers `callback` for messages of type T. The callback may take
  /// `(const MessageEnvelope<Payload>&)`, `(const T&, const MessageHeader&)` or `(const T&)`,
  /// and may return void or bool (false counts as a processing error). It runs on the consumer
  /// thread. Returns an invalid handle (callback_id == size_t(-1)) when T already has
  /// kMaxCallbacksPerType subscribers. Thread-safe; may be called from inside a callback (the
  /// new subscriber may or may not see the message being dispatched, and sees all later ones).
  template <typename T, typename F>
  SubscriptionHandle Subscribe(F&& callback) noexcept {
    static_assert(detail::kIsAlternative<T, Payload>,
                  "mccc: Subscribe<T>: T is not an alternative of the bus payload variant; "
                  "subscribe to one of the std::variant's types or add T to it");
    constexpr std::size_t kIndex = detail::AlternativeIndex<T, Payload>::value;
    using Fn = std::decay_t<F>;
    if constexpr (std::is_invocable_v<Fn&, const Envelope&>) {
      return AddCallback<detail::EnvelopeCallbackAdapter<Envelope, Fn>>(kIndex,
                                                                        std::forward<F>(callback));
    } else {
      static_assert(detail::kHandlesType<Fn, T>,
                    "mccc: Subscribe<T>: the callback must be callable as f(const "
                    "MessageEnvelope<Payload>&), f(const T&, const MessageHeader&) or f(const T&)");
      return AddCallback<detail::TypedCallbackAdapter<kIndex, Envelope, Fn>>(
          kIndex, std::forward<F>(callback));
    }
  }

  /// @brief Removes a subscription. True the first time for a handle this bus returned; false
  /// (and nothing changes) for an invalid, foreign or already removed handle. Thread-safe; may be
  /// called from inside a callback, including the subscription's own.
  ///
  /// When can the callback still run after Unsubscribe returns true?
  /// - Called on the consumer thread (from a callback): never again, not even for the message
  ///   being dispatched.
  /// - Called on another thread: at most the one invocation the consumer had already started
  ///   (or had decided to start) for the message it was dispatching at that moment. No
  ///   invocation for a later message. The callable's captures are destroyed once that
  ///   invocation cannot be running any more: at the end of the consumer's current batch if
  ///   possible, else by the next Subscribe, Unsubscribe or dispatched batch.
  bool Unsubscribe(const SubscriptionHandle& handle) noexcept {
    return table_.Remove(handle);
  }

  /// @brief Live subscribers of T (snapshot). Thread-safe.
  template <typename T>
  std::size_t SubscriberCount() const noexcept {
    static_assert(detail::kIsAlternative<T, Payload>,
                  "mccc: SubscriberCount<T>: T is not an alternative of the bus payload variant");
    return table_.CountActive(detail::AlternativeIndex<T, Payload>::value);
  }

  // -------------------------------------------------------------------------------------------
  // Publishing: thread-safe, lock-free (wait-free with kSingleProducer), never allocates.
  // -------------------------------------------------------------------------------------------

  /// @brief Publishes `message` with MEDIUM priority, timestamped by the bus clock. Returns
  /// false when not admitted; `message` is then left untouched (not moved from).
  template <typename T>
  bool Publish(T&& message, uint32_t sender_id) noexcept {
    return PublishImpl(std::forward<T>(message), sender_id, MessagePriority::kMedium,
                       Stamp::Take());
  }

  /// @brief Publishes with an explicit priority (see Admission for the thresholds). Returns
  /// false when not admitted, or when `priority` is not a MessagePriority enumerator
  /// (INVALID_MESSAGE is then reported); `message` is then left untouched.
  template <typename T>
  bool PublishWithPriority(T&& message, uint32_t sender_id, MessagePriority priority) noexcept {
    return PublishImpl(std::forward<T>(message), sender_id, priority, Stamp::Take());
  }

  /// @brief Publishes with a caller-supplied timestamp: no clock read. Otherwise as
  /// PublishWithPriority (MEDIUM unless given).
  template <typename T>
  bool PublishFast(T&& message, uint32_t sender_id, uint64_t timestamp_us,
                   MessagePriority priority = MessagePriority::kMedium) noexcept {
    return PublishImpl(std::forward<T>(message), sender_id, priority,
                       detail::GivenStamp(timestamp_us));
  }

  /// @brief Constructs a T from `args` directly inside the slot (no temporary when T's
  /// constructor cannot throw). Returns false when not admitted (nothing is constructed).
  template <typename T, typename... Args>
  bool PublishEmplace(uint32_t sender_id, MessagePriority priority, Args&&... args) noexcept {
    static_assert(detail::kIsAlternative<T, Payload>,
                  "mccc: PublishEmplace<T>: T is not an alternative of the bus payload variant; "
                  "publish one of the std::variant's types or add T to it");
    static_assert(std::is_constructible_v<T, Args...>,
                  "mccc: PublishEmplace<T>: T has no constructor taking these arguments (an "
                  "aggregate cannot be built with parentheses in C++17: use Publish(T{...}))");
    if constexpr (std::is_nothrow_constructible_v<T, Args...>) {
      return PublishConstructed(
          sender_id, priority, Stamp::Take(), [&](void* storage, const MessageHeader& h) noexcept {
            ::new (storage)
                Envelope{h, Payload(std::in_place_type<T>, std::forward<Args>(args)...)};
          });
    } else {
      return PublishImpl(T(std::forward<Args>(args)...), sender_id, priority, Stamp::Take());
    }
  }

  /// @brief Publishes `messages[0, count)` in this order, with one clock reading and one claim
  /// of consecutive queue positions for all of them (their msg_ids are consecutive too, and no
  /// other producer's message lands between them). Admission is decided per message exactly as
  /// `count` single publishes of `priority` at that instant would decide it, so the admitted
  /// messages are a prefix: returns how many (0 to count). The messages are copied; the refused
  /// ones, `messages[returned, count)`, are left for the caller to retry. Each refused message
  /// counts as dropped (FULL_FEATURED), and the error callback gets one QUEUE_FULL per call that
  /// refused any, with the msg_id the first refused message would have received.
  /// Returns 0 and reports INVALID_MESSAGE when `priority` is not an enumerator or `messages` is
  /// null with count > 0. Thread-safe, lock-free, never allocates (as Publish).
  template <typename T>
  uint32_t PublishBatch(const T* messages, uint32_t count, uint32_t sender_id,
                        MessagePriority priority = MessagePriority::kMedium) noexcept {
    static_assert(detail::kIsAlternative<T, Payload>,
                  "mccc: PublishBatch<T>: T is not an alternative of the bus payload variant; "
                  "publish one of the std::variant's types or add T to it");
    static_assert(std::is_nothrow_copy_constructible_v<T>,
                  "mccc: PublishBatch copies each message into its slot, so T needs a noexcept "
                  "copy constructor; publish such messages one by one with Publish(std::move(m))");
    const auto priority_index = static_cast<std::size_t>(priority);
    const PerformanceMode mode = LoadMode();
    if (MCCC_UNLIKELY(priority_index >= kPriorityCount || (messages == nullptr && count != 0U))) {
      ReportError(mode, BusError::kInvalidMessage, 0U);
      return 0U;
    }
    if (count == 0U) {
      return 0U;
    }
    const Stamp stamp = Stamp::Take();
    const RingBatchClaim<Position> claim = ring_.TryPublishBatch(
        LimitFor(mode, priority_index), count, [&stamp]() noexcept { return stamp.ToUs(); },
        [&](void* storage, Position position, uint32_t index, uint64_t timestamp_us) noexcept {
          ::new (storage) Envelope{HeaderAt(position, timestamp_us, sender_id, priority),
                                   Payload(std::in_place_type<T>, messages[index])};
        });
    const auto admitted = static_cast<uint32_t>(claim.admitted);
    if (MCCC_LIKELY(admitted != 0U)) {
      OnAdmitted(mode, priority, admitted);
    }
    if (MCCC_UNLIKELY(admitted != count)) {
      OnRejected(mode, priority, static_cast<Position>(claim.position + claim.admitted),
                 count - admitted);
    }
    return admitted;
  }

  // -------------------------------------------------------------------------------------------
  // Consuming: the one consumer thread only.
  // -------------------------------------------------------------------------------------------

  /// @brief Dispatches up to kBatchSize queued messages to their subscribers, in queue order.
  /// Each payload is destroyed right after its callbacks ran. Returns the number dispatched.
  /// Consumer thread only (a debug build asserts on a second thread or on re-entry).
  uint32_t ProcessBatch() noexcept {
    if (MCCC_UNLIKELY(IsDispatching())) {
      return RefuseReentry();
    }
    ConsumerScope scope(*this);
    if (!table_.LightBatchMarks() && !ring_.HasReadyElement()) {
      // Nothing to do: skip the batch start's locked read-modify-write, but finish what an
      // earlier batch end could not (a removed callable whose reclaim found the table busy).
      table_.ReclaimIfPending();
      return 0U;
    }
    const bool opened = table_.BeginBatch();
    MCCC_ASSERT(opened,
                "ProcessBatch entered by two threads at once; a bus has exactly one consumer "
                "thread");
    static_cast<void>(opened);
    const PerformanceMode mode = LoadMode();
    uint32_t errors = 0U;
    PrepareIds();
    const uint32_t processed = ring_.ConsumeBatch(
        kBatchSize, [this, mode, &errors](Envelope& envelope, Position) noexcept {
          AssignMessageId(envelope.header, mode);
          errors += table_.Dispatch(envelope, [this, mode](uint64_t msg_id) noexcept {
            ReportError(mode, BusError::kProcessingError, msg_id);
          });
        });
    table_.EndBatch();
    FinishBatch(mode, processed, errors);
    return processed;
  }

  /// @brief Dispatches up to kBatchSize messages to `visitor`, which must have a handler for
  /// every alternative (`(const T&)` or `(const T&, const MessageHeader&)`, returning void or
  /// bool); use mccc::make_overloaded, with `[](const auto&) {}` to ignore the rest. No callback
  /// table and no indirect call: handlers can inline. Consumer thread only.
  template <typename Visitor>
  uint32_t ProcessBatchWith(Visitor&& visitor) noexcept {
    using V = std::remove_reference_t<Visitor>;
    static_assert(detail::VisitorCoversAll<V, Payload>::value,
                  "mccc: ProcessBatchWith: the visitor has no handler for at least one payload "
                  "alternative; add an overload taking (const T&) or (const T&, const "
                  "MessageHeader&), or a generic [](const auto&) {} that ignores the rest");
    if (MCCC_UNLIKELY(IsDispatching())) {
      return RefuseReentry();
    }
    ConsumerScope scope(*this);
    const PerformanceMode mode = LoadMode();
    uint32_t errors = 0U;
    PrepareIds();
    const uint32_t processed = ring_.ConsumeBatch(
        kBatchSize, [this, mode, &errors, &visitor](Envelope& envelope, Position) noexcept {
          AssignMessageId(envelope.header, mode);
          if (MCCC_UNLIKELY(!VisitGuarded(visitor, envelope))) {
            ++errors;
            ReportError(mode, BusError::kProcessingError, envelope.header.msg_id);
          }
        });
    FinishBatch(mode, processed, errors);
    return processed;
  }

  /// @brief Consumer thread: returns true at once if a message is ready; otherwise sleeps until
  /// a producer publishes or `timeout_us` passes (futex on Linux). Producers pay no system call
  /// while the consumer is awake. Returns whether a message is ready now.
  /// Single-producer buses: publishes that raced with the very first call may wake the
  /// consumer only at the timeout.
  bool WaitForMessages(uint32_t timeout_us) noexcept {
    if (ring_.HasReadyElement()) {
      return true;
    }
    if (!parking_.SleepEnabled()) {
      parking_.EnableSleep();
    }
    parking_.Park([this]() noexcept { return ring_.HasClaimedWork(); }, timeout_us);
    return ring_.HasReadyElement();
  }

  /// @brief Makes the consumer's current or next WaitForMessages return (e.g. to notice a stop
  /// request set before this call). A request made before the consumer parks is not lost.
  /// Thread-safe.
  void WakeConsumer() noexcept {
    parking_.RequestWake();
  }

  // -------------------------------------------------------------------------------------------
  // Introspection: thread-safe snapshots (stale as soon as they return).
  // -------------------------------------------------------------------------------------------

  /// @brief Messages published and not yet consumed (including ones still being written).
  uint32_t QueueDepth() const noexcept {
    return static_cast<uint32_t>(ring_.Occupancy());
  }

  /// @brief QueueDepth as a whole percentage of capacity (0..100, rounded down).
  uint32_t QueueUtilizationPercent() const noexcept {
    return Admission::UtilizationPercent(ring_.Occupancy());
  }

  /// @brief The level of the current occupancy (boundaries: Admission::kWarningPercent,
  /// Admission::kCriticalPercent, full).
  BackpressureLevel GetBackpressureLevel() const noexcept {
    return Admission::LevelFor(ring_.Occupancy());
  }

  /// @brief Ring capacity.
  static constexpr uint32_t Capacity() noexcept {
    return kQueueDepth;
  }

  /// @brief Switches features at runtime: FULL_FEATURED (default), NO_STATS (admission and
  /// error callback, no counters), BARE_METAL (reject only when full; no counters, no error
  /// callback). Thread-safe; publishes already under way finish in the mode they read.
  void SetPerformanceMode(PerformanceMode mode) noexcept {
    // relaxed: the mode selects checks; no data is published through it.
    mode_.store(mode, std::memory_order_relaxed);
  }

  /// @brief The current mode. Thread-safe.
  PerformanceMode GetPerformanceMode() const noexcept {
    return LoadMode();
  }

  /// @brief Counters since construction or the last ResetStatistics (FULL_FEATURED only counts).
  BusStatisticsSnapshot GetStatistics() const noexcept {
    return stats_.Snapshot();
  }

  /// @brief Zeroes the counters seen by later GetStatistics calls. Thread-safe.
  void ResetStatistics() noexcept {
    stats_.Reset();
  }

  /// @brief Installs the error callback (nullptr: none). It is called on producer threads for
  /// QUEUE_FULL / INVALID_MESSAGE and on the consumer thread for PROCESSING_ERROR /
  /// OVERFLOW_DETECTED, so it must be thread-safe and quick. Thread-safe.
  void SetErrorCallback(ErrorCallback callback) noexcept {
    // release: pairs with the acquire load in LoadErrorCallback; whatever the installing thread
    // set up for the callback (a logger, a buffer) is visible to the thread that calls it.
    error_callback_.store(callback, std::memory_order_release);
  }

  /// @brief The installed error callback (nullptr: none), so that a component attached to the
  /// bus (the bridge's exporter and importer) reports its own errors the same way. Thread-safe.
  ErrorCallback GetErrorCallback() const noexcept {
    return LoadErrorCallback();
  }

 private:
  using Ring = MpscRing<Envelope, Traits::kQueueDepth, Traits::kSingleProducer, Traits::kSingleCore,
                        Position, Traits::kCacheLineSize>;
  using Table = SubscriptionTable<Envelope, std::variant_size_v<Payload>,
                                  Traits::kMaxCallbacksPerType, Traits::kCallbackStorageBytes,
                                  Traits::kSingleCore, Traits::kAsymmetricFence>;
  // Every publish path reads the clock the same way: a stamp before the claim, microseconds
  // after it (clock/clock_stamp.hpp). A multi-producer claim is a locked CAS, so a clock that
  // splits its reading converts after it; the single-producer claim has nothing to protect.
  using Stamp = detail::ClockStamp<typename Traits::Clock, !Traits::kSingleProducer>;
  using Statistics = BusStatistics<Position, Traits::kStatisticsShards, Traits::kSingleProducer,
                                   Traits::kSingleCore, Traits::kCacheLineSize>;
  static constexpr bool kHasParking = MCCC_HOSTED != 0 && !Traits::kSingleCore;
  // With 64-bit positions, position + constant is already the unique 64-bit id.
  static constexpr bool kProducerAssignsIds = sizeof(Position) >= sizeof(uint64_t);
  // The widest member placed at a line boundary is the 64-bit msg_id counter.
  static constexpr unsigned kLine =
      detail::kLineAlign<Traits::kSingleCore, Traits::kCacheLineSize, uint64_t>;

  /// Marks the consumer's dispatch (re-entry from a callback is refused in every build) and,
  /// in debug builds, detects a second consumer thread.
  class ConsumerScope {
   public:
    explicit ConsumerScope(AsyncBus& bus) noexcept
        : bus_(bus)
#if MCCC_ENABLE_ASSERTS
          ,
          consuming_(bus.consumer_active_)
#endif
    {
      // relaxed (both stores): the flag is read back by the same thread (re-entry); a later
      // consumer thread is handed the role through the user's own synchronisation.
      bus_.dispatching_.store(true, std::memory_order_relaxed);
#if MCCC_ENABLE_ASSERTS && MCCC_HOSTED
      bus_.consumer_owner_.store(CurrentThreadMarker(), std::memory_order_relaxed);
#endif
#if MCCC_ENABLE_ASSERTS
      MCCC_ASSERT(!consuming_.WasSet(),
                  "ProcessBatch/ProcessBatchWith entered by two threads at once; a bus has "
                  "exactly one consumer thread");
#endif
    }
    ~ConsumerScope() {
      bus_.dispatching_.store(false, std::memory_order_relaxed);
    }
    ConsumerScope(const ConsumerScope&) = delete;
    ConsumerScope& operator=(const ConsumerScope&) = delete;
    ConsumerScope(ConsumerScope&&) = delete;
    ConsumerScope& operator=(ConsumerScope&&) = delete;

   private:
    AsyncBus& bus_;
#if MCCC_ENABLE_ASSERTS
    const detail::ScopedFlag<std::atomic<bool>> consuming_;
#endif
  };

  MCCC_ALWAYS_INLINE PerformanceMode LoadMode() const noexcept {
    // relaxed: see SetPerformanceMode.
    return mode_.load(std::memory_order_relaxed);
  }

  template <typename Adapter, typename F>
  SubscriptionHandle AddCallback(std::size_t index, F&& callback) noexcept {
    static_assert(sizeof(Adapter) <= Traits::kCallbackStorageBytes,
                  "mccc: the subscriber callable is larger than the bus's callback storage; "
                  "capture less (e.g. a pointer) or raise kCallbackStorageBytes "
                  "(MCCC_CALLBACK_STORAGE_BYTES) in the bus traits");
    return table_.Add(index, typename Table::Callback(Adapter{std::forward<F>(callback)}));
  }

  /// `stamp`: a Stamp taken before the claim, or PublishFast's GivenStamp (clock/clock_stamp.hpp);
  /// converted to microseconds only after a successful claim.
  template <typename T, typename Stamp>
  MCCC_ALWAYS_INLINE bool PublishImpl(T&& message, uint32_t sender_id, MessagePriority priority,
                                      const Stamp& stamp) noexcept {
    using Message = std::remove_cv_t<std::remove_reference_t<T>>;
    static_assert(detail::kIsAlternative<Message, Payload> || std::is_same_v<Message, Payload>,
                  "mccc: Publish: the message type is not an alternative of the bus payload "
                  "variant; publish one of the std::variant's types (exactly, no conversion) or "
                  "add the type to it");
    if constexpr (std::is_same_v<Message, Payload>) {
      static_assert(std::is_nothrow_constructible_v<Payload, T&&>,
                    "mccc: publishing a whole payload variant needs a nothrow copy/move; pass an "
                    "rvalue or publish the alternative itself");
      return PublishConstructed(
          sender_id, priority, stamp, [&](void* storage, const MessageHeader& header) noexcept {
            ::new (storage) Envelope{header, Payload(std::forward<T>(message))};
          });
    } else if constexpr (std::is_nothrow_constructible_v<Message, T&&>) {
      return PublishConstructed(
          sender_id, priority, stamp, [&](void* storage, const MessageHeader& header) noexcept {
            ::new (storage)
                Envelope{header, Payload(std::in_place_type<Message>, std::forward<T>(message))};
          });
    } else {
      // A copy that may throw is made before claiming a slot (a claimed slot must always be
      // completed); the move into the slot cannot throw (checked for every alternative).
      Message copy(message);
      return PublishImpl(std::move(copy), sender_id, priority, stamp);
    }
  }

  template <typename Stamp, typename Construct>
  MCCC_ALWAYS_INLINE bool PublishConstructed(uint32_t sender_id, MessagePriority priority,
                                             const Stamp& stamp, Construct&& construct) noexcept {
    const auto priority_index = static_cast<std::size_t>(priority);
    if (MCCC_UNLIKELY(priority_index >= kPriorityCount)) {
      ReportError(LoadMode(), BusError::kInvalidMessage, 0U);
      return false;
    }
    const PerformanceMode mode = LoadMode();
    const RingClaim<Position> claim = ring_.TryPublish(
        LimitFor(mode, priority_index), [&](void* storage, Position position) noexcept {
          construct(storage, HeaderAt(position, stamp.ToUs(), sender_id, priority));
        });
    if (MCCC_LIKELY(claim.admitted)) {
      OnAdmitted(mode, priority, 1U);
      return true;
    }
    OnRejected(mode, priority, claim.position);
    return false;
  }

  /// After `admitted` (>= 1) messages of `priority` were published: counts them (FULL_FEATURED)
  /// and wakes a sleeping consumer.
  MCCC_ALWAYS_INLINE void OnAdmitted(PerformanceMode mode, MessagePriority priority,
                                     uint32_t admitted) noexcept {
    if (mode == PerformanceMode::kFullFeatured) {
      stats_.CountPublished(priority, admitted);
    }
    NotifyConsumer();
  }

  MCCC_ALWAYS_INLINE void NotifyConsumer() noexcept {
    if constexpr (kHasParking) {
      if constexpr (Traits::kSingleProducer) {
        // The single producer's tail store is only a release; a sleeping consumer needs the
        // StoreLoad order the MPSC CAS gives for free (consumer_parking.hpp).
        if (MCCC_UNLIKELY(parking_.SleepEnabled())) {
          parking_.FullFence();
          parking_.NotifyAfterClaim();
        }
      } else {
        parking_.NotifyAfterClaim();
      }
    }
  }

  MCCC_NOINLINE void OnRejected(PerformanceMode mode, MessagePriority priority,
                                Position observed_tail, uint32_t refused = 1U) noexcept {
    if (mode == PerformanceMode::kBareMetal) {
      return;
    }
    if (mode == PerformanceMode::kFullFeatured) {
      stats_.CountDropped(priority, refused);
    }
#if MCCC_ENABLE_TEST_HOOKS
    if (before_reject_report_hook_ != nullptr) {
      before_reject_report_hook_(before_reject_report_context_);
    }
#endif
    const ErrorCallback callback = LoadErrorCallback();
    if (callback != nullptr) {
      // The id this message would have received (the next admitted message receives it).
      callback(BusError::kQueueFull, WouldBeMessageId(observed_tail));
    }
  }

  void ReportError(PerformanceMode mode, BusError error, uint64_t msg_id) noexcept {
    if (mode == PerformanceMode::kBareMetal) {
      return;
    }
    const ErrorCallback callback = LoadErrorCallback();
    if (callback != nullptr) {
      callback(error, msg_id);
    }
  }

  ErrorCallback LoadErrorCallback() const noexcept {
    // acquire: pairs with SetErrorCallback's release store (state set up before installing the
    // callback is visible here). Only on error paths.
    return error_callback_.load(std::memory_order_acquire);
  }

  MCCC_ALWAYS_INLINE bool IsDispatching() const noexcept {
    // relaxed: see ConsumerScope.
    return dispatching_.load(std::memory_order_relaxed);
  }

#if MCCC_ENABLE_ASSERTS && MCCC_HOSTED
  /// An address unique to the calling thread (debug builds: tells re-entry from a second thread).
  static const void* CurrentThreadMarker() noexcept {
    static thread_local const char marker = 0;
    return &marker;
  }
#endif

  /// ProcessBatch / ProcessBatchWith called from one of their own callbacks: nothing is
  /// dispatched (the outer call owns the batch), kReentrantCall names the message under way.
  MCCC_NOINLINE uint32_t RefuseReentry() noexcept {
#if MCCC_ENABLE_ASSERTS && MCCC_HOSTED
    // relaxed: compared with this thread's own marker; another thread's value never matches.
    MCCC_ASSERT(consumer_owner_.load(std::memory_order_relaxed) == CurrentThreadMarker(),
                "ProcessBatch/ProcessBatchWith entered by two threads at once; a bus has "
                "exactly one consumer thread");
#endif
    ReportError(LoadMode(), BusError::kReentrantCall, next_msg_id_ - 1U);
    return 0U;
  }

  /// Consumer, before a batch (32-bit positions): lets refusing producers widen positions the
  /// batch's head stores reach (detail/id_base.hpp).
  MCCC_ALWAYS_INLINE void PrepareIds() noexcept {
    if constexpr (!kProducerAssignsIds) {
      id_base_.PrepareBatch(next_msg_id_ - msg_id_offset_, kBatchSize);
    }
  }

  /// Admission limit of a publish of priority `priority_index` (< kPriorityCount) in `mode`:
  /// BARE_METAL admits up to the whole queue, the other modes the priority's threshold.
  static Position LimitFor(PerformanceMode mode, std::size_t priority_index) noexcept {
    return mode == PerformanceMode::kBareMetal ? static_cast<Position>(kQueueDepth)
                                               : kLimits[priority_index];
  }

  /// The header a producer writes for the message claimed at `position`. 64-bit positions: the
  /// id is the position (plus a constant), written by the producer so the consumer never writes
  /// to a slot line. 32-bit positions: 0 here, the consumer widens the position.
  MCCC_ALWAYS_INLINE MessageHeader HeaderAt(Position position, uint64_t timestamp_us,
                                            uint32_t sender_id,
                                            MessagePriority priority) const noexcept {
    const uint64_t msg_id = kProducerAssignsIds ? MessageIdAt(position) : 0U;
    return MessageHeader{msg_id, timestamp_us, sender_id, priority};
  }

  /// The msg_id of ring position `position` (64-bit positions; producer side).
  MCCC_ALWAYS_INLINE uint64_t MessageIdAt(Position position) const noexcept {
    return static_cast<uint64_t>(position) + msg_id_offset_;
  }

  /// The id a message refused at observed tail `tail` would have received (cold path). With
  /// 32-bit positions the position is widened against the consumer's head (detail/id_base.hpp),
  /// wait-free and across any number of 32-bit wraps.
  uint64_t WouldBeMessageId(Position tail) const noexcept {
    if constexpr (kProducerAssignsIds) {
      return MessageIdAt(tail);
    } else {
      return id_base_.IdOfPosition(static_cast<uint32_t>(tail),
                                   static_cast<uint32_t>(ring_.ConsumedPosition()));
    }
  }

  /// Consumer, after a batch: counts it (FULL_FEATURED only). An empty poll writes nothing (a
  /// polling consumer runs this in a loop).
  void FinishBatch(PerformanceMode mode, uint32_t processed, uint32_t errors) noexcept {
    if (processed == 0U) {
      return;
    }
    if (mode == PerformanceMode::kFullFeatured) {
      stats_.CountProcessed(processed, errors);
    }
  }

  /// Consumer: completes the header's id (32-bit positions) and reports the wrap of the 64-bit
  /// id sequence (OVERFLOW_DETECTED, once per 2^64 messages).
  MCCC_ALWAYS_INLINE void AssignMessageId(MessageHeader& header, PerformanceMode mode) noexcept {
    if constexpr (kProducerAssignsIds) {
      MCCC_ASSERT(header.msg_id == next_msg_id_, "msg_id out of sequence");
    } else {
      header.msg_id = next_msg_id_;
    }
    ++next_msg_id_;
    if (MCCC_UNLIKELY(header.msg_id == 0U)) {
      ReportError(mode, BusError::kOverflowDetected, 0U);  // the 64-bit id sequence wrapped
    }
  }

  template <typename Visitor>
  MCCC_ALWAYS_INLINE static bool VisitGuarded(Visitor& visitor, const Envelope& envelope) noexcept {
#if MCCC_HAS_EXCEPTIONS
    try {
      return detail::VisitAlternative(envelope.payload.index(), envelope.payload, envelope.header,
                                      visitor);
    } catch (...) {
      return false;
    }
#else
    return detail::VisitAlternative(envelope.payload.index(), envelope.payload, envelope.header,
                                    visitor);
#endif
  }

  static constexpr Position kLimits[kPriorityCount] = {
      static_cast<Position>(Admission::LimitFor(MessagePriority::kLow)),
      static_cast<Position>(Admission::LimitFor(MessagePriority::kMedium)),
      static_cast<Position>(Admission::LimitFor(MessagePriority::kHigh))};

  // Read-mostly settings on their own line: producers read them on every publish.
  alignas(kLine) std::atomic<PerformanceMode> mode_{PerformanceMode::kFullFeatured};
  std::atomic<ErrorCallback> error_callback_{nullptr};
  const uint64_t msg_id_offset_;  // msg_id = position + offset (read-only after construction)
  // Written only when the consumer goes to sleep; read by every publish.
  alignas(kLine) ConsumerParking parking_;
  Ring ring_;
  // Consumer-owned.
  alignas(kLine) uint64_t next_msg_id_;
  // Consumer-owned: true while ProcessBatch / ProcessBatchWith runs (re-entry is refused).
  std::atomic<bool> dispatching_{false};
#if MCCC_ENABLE_ASSERTS && MCCC_HOSTED
  std::atomic<const void*> consumer_owner_{nullptr};  // debug: the thread inside the batch
#endif
  // Consumer-written at most once per 2^31 messages, read by refused producers (32-bit
  // positions only).
  detail::IdBase<Traits::kSingleCore> id_base_;
#if MCCC_ENABLE_TEST_HOOKS
  void (*before_reject_report_hook_)(void*) = nullptr;
  void* before_reject_report_context_ = nullptr;
#endif
#if MCCC_ENABLE_ASSERTS
  std::atomic<bool> consumer_active_{false};
#endif
  Table table_;
  Statistics stats_;
};

}  // namespace mccc

#endif  // MCCC_BUS_ASYNC_BUS_HPP_
