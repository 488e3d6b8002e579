// SPDX-License-Identifier: MIT
/// @file async_bus.hpp
/// @brief `mccc::AsyncBus`: many producers publish typed messages, one consumer dispatches them.
///
/// The bus composes the pieces that each live in their own header:
/// - ring/mpsc_ring.hpp: the lock-free bounded ring the envelopes live in (the shared ring, and
///   the HIGH lane: a ring of its own for HIGH messages, dispatched before the others);
/// - ring/producer_lane.hpp: optional producer lanes, a ring per producer published without a
///   locked instruction, admission per lane;
/// - admission/priority_admission.hpp: which priority is admitted at which occupancy;
/// - statistics/bus_statistics.hpp: counters that cost no shared write per message;
/// - dispatch/subscription_table.hpp: subscriber callbacks, read by the consumer without a lock;
/// - dispatch/visit.hpp: compile-time visitor dispatch;
/// - wakeup/consumer_parking.hpp: an idle consumer may sleep and is woken by the next publish.
///
/// Thread-safety summary: Publish*, MakeProducer, Subscribe, Unsubscribe, the queue snapshots
/// (MarkClaimed and HasConsumed included), statistics, SetPerformanceMode and SetErrorCallback are
/// thread-safe (any thread, any time); a Producer handle is used by one thread at a time.
/// ProcessBatch, ProcessBatchWith and WaitForMessages belong to the one consumer thread.
#ifndef MCCC_BUS_ASYNC_BUS_HPP_
#define MCCC_BUS_ASYNC_BUS_HPP_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <variant>

#include "mccc/admission/priority_admission.hpp"
#include "mccc/bus/stored_envelope.hpp"
#include "mccc/clock/clock_stamp.hpp"
#include "mccc/config.hpp"
#include "mccc/detail/asymmetric_fence.hpp"
#include "mccc/detail/id_base.hpp"
#include "mccc/detail/scoped_flag.hpp"
#include "mccc/detail/static_instance.hpp"
#include "mccc/detail/timeout_micros.hpp"
#include "mccc/detail/variant_traits.hpp"
#include "mccc/detail/word_copy.hpp"
#include "mccc/dispatch/scoped_subscription.hpp"
#include "mccc/dispatch/subscription_table.hpp"
#include "mccc/dispatch/visit.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/loans/loan_pools.hpp"
#include "mccc/message.hpp"
#include "mccc/ring/mpsc_ring.hpp"
#include "mccc/ring/producer_lane.hpp"
#include "mccc/statistics/bus_statistics.hpp"
#include "mccc/statistics/thread_shard.hpp"
#include "mccc/traits.hpp"
#include "mccc/wakeup/consumer_parking.hpp"

namespace mccc {

/// @brief The asynchronous message bus.
/// @tparam PayloadVariant `std::variant<Msg1, Msg2, ...>` of the message types.
/// @tparam Traits Per-bus configuration, derived from DefaultBusTraits.
template <typename PayloadVariant, typename Traits = DefaultBusTraits>
class AsyncBus
    // The loan pools (Traits::LoanPools): an empty base, so no byte, for a bus without loans.
    : private detail::LoanPoolSet<
          typename Traits::LoanPools, Traits::kSingleCore,
          std::conditional_t<Traits::kSingleCore, typename Traits::CriticalSection,
                             NoCriticalSection>,
          Traits::kCacheLineSize> {
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
  static_assert((Traits::kHighQueueDepth & (Traits::kHighQueueDepth - 1U)) == 0U,
                "mccc: kHighQueueDepth (MCCC_HIGH_QUEUE_DEPTH) must be 0 (no HIGH lane) or a "
                "power of two, e.g. 1024");
  static_assert(Traits::kProducerLanes == 0U ||
                    (!Traits::kSingleProducer && !Traits::kSingleCore && MCCC_HOSTED != 0),
                "mccc: producer lanes need a hosted, multi-core, multi-producer bus (threads own "
                "them); set kProducerLanes = 0 with kSingleProducer or kSingleCore");
  static_assert(Traits::kProducerLanes <= Traits::kStatisticsShards &&
                    Traits::kProducerLanes < detail::kMaxThreadShards,
                "mccc: kProducerLanes must not exceed kStatisticsShards (a lane counts in the "
                "statistics shard of its producer) nor 255; raise kStatisticsShards");
  static_assert(Traits::kProducerLanes == 0U || Traits::kBatchSize > Traits::kProducerLanes,
                "mccc: kBatchSize must exceed kProducerLanes so that one batch can serve every "
                "lane and the shared ring; raise kBatchSize or use fewer lanes");
  static_assert(detail::AllNothrowMovable<PayloadVariant>::value,
                "mccc: every payload alternative must be nothrow move constructible (a claimed "
                "slot must always be completed); mark the move constructor noexcept");
  static_assert(detail::IsLoanPools<typename Traits::LoanPools>::value,
                "mccc: Traits::LoanPools must be mccc::LoanPools<mccc::PoolOf<T, N>...>");
  static_assert(
      detail::LoanConfigurationChecks<PayloadVariant,
                                      typename Traits::LoanPools>::kEveryLoanedHasOnePool,
      "mccc: the payload variant lists mccc::Loaned<T> for a T that has no pool (or two): "
      "add exactly one mccc::PoolOf<T, N> to Traits::LoanPools");
  static_assert(
      detail::LoanConfigurationChecks<PayloadVariant, typename Traits::LoanPools>::kEveryPoolIsUsed,
      "mccc: Traits::LoanPools has a PoolOf<T, N> whose mccc::Loaned<T> is not an "
      "alternative of the payload variant (its blocks would never be used): add "
      "mccc::Loaned<T> to the variant or remove the pool");
  static_assert(
      detail::LoanConfigurationChecks<PayloadVariant, typename Traits::LoanPools>::kNoTypeBothWays,
      "mccc: the payload variant lists both T and mccc::Loaned<T>; a type travels either "
      "inline or by loan, so keep one of the two");

 public:
  using Payload = PayloadVariant;  ///< The payload variant.
  /// The full envelope: what a slot holds unless the envelope is compact.
  using Envelope = MessageEnvelope<PayloadVariant>;
  using TraitsType = Traits;                        ///< The configuration.
  using Position = typename Traits::Position;       ///< Ring position type.
  using PerformanceMode = ::mccc::PerformanceMode;  ///< So `Bus::PerformanceMode::X` works.
  using Admission = PriorityAdmission<Traits::kQueueDepth>;  ///< The thresholds in use.
  /// The critical section the bus uses: Traits::CriticalSection in a single-core build,
  /// NoCriticalSection otherwise (platform/critical_section.hpp).
  using CriticalSection =
      std::conditional_t<Traits::kSingleCore, typename Traits::CriticalSection, NoCriticalSection>;

  /// Ring capacity in messages.
  static constexpr uint32_t kQueueDepth = Traits::kQueueDepth;
  /// LOW/MEDIUM messages one ProcessBatch call dispatches at most (and as many HIGH ones).
  static constexpr uint32_t kBatchSize = Traits::kBatchSize;
  /// Slots of the HIGH lane (0: HIGH shares the normal rings).
  static constexpr uint32_t kHighQueueDepth = Traits::kHighQueueDepth;
  /// true: slots hold a CompactEnvelope (sender, priority, the timestamp unless the clock is
  /// NullClock, and the payload), subscribers get a DeliveredMessage (bus/stored_envelope.hpp).
  static constexpr bool kCompactEnvelope = Traits::kCompactEnvelope;
  /// false: a compact bus with NullClock stores no timestamp (PublishFast's is refused).
  static constexpr bool kStoresTimestamp =
      !kCompactEnvelope || !std::is_same_v<typename Traits::Clock, NullClock>;
  /// What a ring slot holds: Envelope, or CompactEnvelope<Payload, kStoresTimestamp>.
  using StoredEnvelope =
      typename detail::EnvelopeLayout<PayloadVariant, kCompactEnvelope, kStoresTimestamp>::Stored;
  /// What subscribers and visitors are given: the slot's Envelope, or a DeliveredMessage that
  /// refers to the payload in its slot and carries a full header.
  using Delivered = typename detail::EnvelopeLayout<PayloadVariant, kCompactEnvelope,
                                                    kStoresTimestamp>::Delivered;
  /// Producer lanes (0: every producer uses the shared ring).
  static constexpr uint32_t kProducerLanes = Traits::kProducerLanes;
  /// Slots of each producer lane.
  static constexpr uint32_t kLaneDepth = Traits::kLaneDepth;

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
  /// constexpr: where the clock and the platform allow it (NullClock or a clock with a constexpr
  /// reading; a single-core build, or no asymmetric fence), a bus in static storage is
  /// constant-initialised with no start-up code; a fresh bus is all zero bytes (ids are kept as
  /// "last delivered id" and "id minus one minus position" for that reason), so it lands in .bss.
  constexpr AsyncBus() noexcept
      : PoolSet(), id_bias_(0U), last_msg_id_(0U), delivered_mark_(Position{0U}), id_base_(0U, 0U) {
    Stamp::WarmUp();
  }

#if MCCC_ENABLE_TEST_HOOKS
  /// @brief Test hook: a bus whose ring (and msg_id sequence) starts at `initial_position`.
  explicit AsyncBus(Position initial_position, uint64_t first_msg_id) noexcept
      : PoolSet(),
        id_bias_(first_msg_id - 1U - static_cast<uint64_t>(initial_position)),
        ring_(initial_position),
        last_msg_id_(first_msg_id - 1U),
        delivered_mark_(initial_position),
        id_base_(first_msg_id - 1U - static_cast<uint64_t>(initial_position),
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

  /// @brief The process-wide bus of this type (created on first use). Thread-safe: the first
  /// call may come from several threads (or RTOS tasks) at once.
  /// Hosted: a function-local static (the C++ runtime serialises its construction; it is
  /// destroyed at exit). Bare metal: constructed in static storage on the first call and never
  /// destroyed, so it needs no guard variable, no destructor registration (`__aeabi_atexit`,
  /// `__dso_handle`) and no start-up code; see detail::StaticInstance for how two first calls
  /// agree.
  static AsyncBus& Instance() noexcept {
#if MCCC_HOSTED
    static AsyncBus instance;
    return instance;
#else
    return detail::StaticInstance<AsyncBus, Traits::kSingleCore, CriticalSection>::Get();
#endif
  }

  /// @brief Bytes of one slot of the shared ring and of the HIGH lane: the stored envelope and
  /// a sequence word, rounded to their alignment (README, "Memory").
  static constexpr std::size_t SlotBytes() noexcept {
    return Ring::SlotBytes();
  }

  // -------------------------------------------------------------------------------------------
  // Subscriptions
  // -------------------------------------------------------------------------------------------

  /// @brief Registers `callback` for messages of type T. The callback may take
  /// `(const MessageEnvelope<Payload>&)`, `(const T&, const MessageHeader&)` or `(const T&)`,
  /// and may return void or bool (false counts as a processing error). It runs on the consumer
  /// thread. For a T that travels by loan (`Loaned<T>` in the variant) the callback gets the
  /// `const T&` in the pool block, shared by every subscriber; Retain(message) keeps it. Returns an
  /// invalid handle (callback_id == size_t(-1)) when T already has kMaxCallbacksPerType
  /// subscribers. Thread-safe; may be called from inside a callback (the new subscriber may or may
  /// not see the message being dispatched, and sees all later ones).
  template <typename T, typename F>
  SubscriptionHandle Subscribe(F&& callback) noexcept {
    static_assert(detail::kIsAlternative<AlternativeFor<T>, Payload>,
                  "mccc: Subscribe<T>: T is not an alternative of the bus payload variant; "
                  "subscribe to one of the std::variant's types or add T to it");
    constexpr std::size_t kIndex = detail::AlternativeIndex<AlternativeFor<T>, Payload>::value;
    using Fn = std::decay_t<F>;
    if constexpr (std::is_invocable_v<Fn&, const Envelope&>) {
      static_assert(!kCompactEnvelope,
                    "mccc: Subscribe<T>: this bus stores compact envelopes (kCompactEnvelope, the "
                    "bare-metal default), so there is no MessageEnvelope to hand over; take "
                    "(const T&, const MessageHeader&) or (const T&), or set kCompactEnvelope = "
                    "false in the bus traits");
      return AddCallback<detail::EnvelopeCallbackAdapter<Envelope, Fn>>(kIndex,
                                                                        std::forward<F>(callback));
    } else {
      static_assert(detail::kHandlesType<Fn, AlternativeFor<T>>,
                    "mccc: Subscribe<T>: the callback must be callable as f(const "
                    "MessageEnvelope<Payload>&), f(const T&, const MessageHeader&) or f(const T&)");
      return AddCallback<detail::TypedCallbackAdapter<kIndex, Delivered, Fn>>(
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
    static_assert(detail::kIsAlternative<AlternativeFor<T>, Payload>,
                  "mccc: SubscriberCount<T>: T is not an alternative of the bus payload variant");
    return table_.CountActive(detail::AlternativeIndex<AlternativeFor<T>, Payload>::value);
  }

  /// @brief Subscribe<T>, with the subscription owned by the returned ScopedSubscription: it ends
  /// when that object is destroyed or reset (dispatch/scoped_subscription.hpp), or outlives it
  /// through Release(). The callback is taken exactly as by Subscribe. Empty (IsActive() false,
  /// nothing to unsubscribe) when Subscribe would return an invalid handle. This bus must outlive
  /// the returned object. Thread-safe; may be called from inside a callback (as Subscribe), and
  /// the object may be destroyed there too, in its own callback included (as Unsubscribe).
  template <typename T, typename F>
  [[nodiscard]] ScopedSubscription SubscribeScoped(F&& callback) noexcept {
    return ScopedSubscription(*this, Subscribe<T>(std::forward<F>(callback)));
  }

  // -------------------------------------------------------------------------------------------
  // Publishing: thread-safe, lock-free (wait-free with kSingleProducer), never allocates.
  // -------------------------------------------------------------------------------------------

  /// @brief Publishes `message` with MEDIUM priority (a MessageLoan: the priority it was
  /// loaned at), timestamped by the bus clock. Returns false when not admitted; `message` is then
  /// left untouched (not moved from; a loan stays with the caller, to retry or drop). A loan (or
  /// Loaned handle) whose block another bus lent is never admitted: false, and kForeignLoan
  /// (msg_id 0) is reported; the same holds for every publish call and Producer handle.
  ///
  /// Exceptions: every publish call is noexcept. The message is moved into its slot, which
  /// cannot throw (required of every alternative). An lvalue whose copy may throw is copied
  /// first, before a slot is claimed, and so is a PublishEmplace argument list whose
  /// constructor may throw; an exception from that copy or constructor (std::bad_alloc from a
  /// std::string member, say) calls std::terminate. To keep such an exception on the caller's
  /// side, make the copy before the call and publish it with std::move, or use message types
  /// whose copy and constructors cannot throw (PublishEmplace then builds in the slot).
  // Publish, PublishWithPriority and PublishFast (here and in Producer) are forced inline like
  // every layer below them: otherwise they are the one call left on a publish loop once GCC's
  // limit on a translation unit's growth by inlining is reached, which other code decides.
  template <typename T>
  MCCC_ALWAYS_INLINE bool Publish(T&& message, uint32_t sender_id) noexcept {
    const MessagePriority priority = DefaultPriorityOf(message);
    return PublishTimestamped(CurrentProducer(), std::forward<T>(message), sender_id, priority);
  }

  /// @brief Publishes with an explicit priority (see Admission for the thresholds). Returns
  /// false when not admitted, or when `priority` is not a MessagePriority enumerator
  /// (INVALID_MESSAGE is then reported); `message` is then left untouched. A copy that throws
  /// calls std::terminate (see Publish).
  template <typename T>
  MCCC_ALWAYS_INLINE bool PublishWithPriority(T&& message, uint32_t sender_id,
                                              MessagePriority priority) noexcept {
    return PublishTimestamped(CurrentProducer(), std::forward<T>(message), sender_id, priority);
  }

  /// @brief Publishes with a caller-supplied timestamp: no clock read. Otherwise as
  /// PublishWithPriority (MEDIUM unless given; a loan's own priority for a loan), including
  /// std::terminate for a copy that throws (see Publish).
  template <typename T>
  MCCC_ALWAYS_INLINE bool PublishFast(
      T&& message, uint32_t sender_id, uint64_t timestamp_us,
      MessagePriority priority = MessagePriority::kMedium) noexcept {
    static_assert(kStoresTimestamp || sizeof(T) == 0U,
                  "mccc: PublishFast: this bus stores no timestamp (a compact envelope with "
                  "NullClock), so the given one would be lost; use Publish / "
                  "PublishWithPriority (NullClock reads nothing), or set kCompactEnvelope = "
                  "false or a real clock in the bus traits");
    return PublishImpl(CurrentProducer(), std::forward<T>(message), sender_id, priority,
                       detail::GivenStamp(timestamp_us));
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
  /// called (see Publish).
  template <typename T, typename... Args>
  bool PublishEmplace(uint32_t sender_id, MessagePriority priority, Args&&... args) noexcept {
    return PublishEmplaceBy<T>(CurrentProducer(), sender_id, priority, std::forward<Args>(args)...);
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
  /// the caller to retry. Each refused message counts as dropped (FULL_FEATURED), and the error
  /// callback gets one QUEUE_FULL per call that refused any (its msg_id: see QUEUE_FULL in the
  /// README). Returns 0 and reports INVALID_MESSAGE when `priority` is not an enumerator or
  /// `messages` is null with count > 0. Thread-safe, lock-free, never allocates (as Publish).
  template <typename T>
  uint32_t PublishBatch(const T* messages, uint32_t count, uint32_t sender_id,
                        MessagePriority priority = MessagePriority::kMedium) noexcept {
    return PublishBatchBy(CurrentProducer(), messages, count, sender_id, priority);
  }

  // -------------------------------------------------------------------------------------------
  // Loans: large messages built in a pool block; only a handle travels through the ring.
  // -------------------------------------------------------------------------------------------

  /// @brief The pool of loaned message type T (LoanPool: kCapacity, Admission, BlockBytes()).
  template <typename T>
  using LoanPoolOf =
      typename detail::LoanPoolSet<typename Traits::LoanPools, Traits::kSingleCore, CriticalSection,
                                   Traits::kCacheLineSize>::template PoolType<T>;

  /// @brief Takes a block of T's pool and builds a T in it from `args` (no arguments:
  /// default-initialised, so a large buffer is not zeroed first). Fill it through the loan, then
  /// Publish(std::move(loan), sender_id). Pool admission is by `priority` (LoanAdmission: LOW
  /// refused first, a reserve kept for HIGH; BARE_METAL admits up to the whole pool); Publish
  /// then admits the handle into the ring by its own priority, the loan's unless given. Returns an
  /// empty loan, counts the refusal and reports LOAN_REFUSED (msg_id 0) when the pool refuses;
  /// an empty loan and INVALID_MESSAGE when `priority` is not an enumerator. Thread-safe,
  /// lock-free, never allocates.
  template <typename T, typename... Args>
  MessageLoan<T> Loan(MessagePriority priority, Args&&... args) noexcept {
    static_assert(kTravelsByLoan<T>,
                  "mccc: Loan<T>: T does not travel by loan on this bus; list mccc::Loaned<T> in "
                  "the payload variant and mccc::PoolOf<T, N> in Traits::LoanPools, or publish T "
                  "inline with Publish");
    const auto priority_index = static_cast<std::size_t>(priority);
    const PerformanceMode mode = LoadMode();
    if (MCCC_UNLIKELY(priority_index >= kPriorityCount)) {
      ReportError(mode, BusError::kInvalidMessage, 0U);
      return MessageLoan<T>{};
    }
    using Pool = LoanPoolOf<T>;
    const uint32_t limit =
        mode == PerformanceMode::kBareMetal ? Pool::kCapacity : Pool::Admission::LimitFor(priority);
    auto& pool = this->template PoolFor<T>();
    const bool count = mode == PerformanceMode::kFullFeatured;
    // On a refusal, a callback loaning from a pool whose blocks its own batch released (a relay
    // forwarding what it receives) returns them and tries again. Only then: the marker is a
    // line the consumer writes, which a producer should not read on every loan.
    MessageLoan<T> granted(pool.TryLoanOrElse(
        priority, limit, count,
        [this, &pool]() noexcept {
          if (IsConsumerInBatch() && pool.HasReleased()) {
            pool.ReturnReleased();
            return true;
          }
          return false;
        },
        std::forward<Args>(args)...));
    if (MCCC_UNLIKELY(!granted)) {
      ReportError(mode, BusError::kLoanRefused, 0U);
    }
    return granted;
  }

  /// @brief A reference-counted read-only handle to the loaned message `message` refers to, to
  /// keep it beyond the callback (a map a planner keeps); its block returns to the pool when the
  /// last handle goes, on whichever thread. Empty when `message` is not a loaned message of this
  /// bus that is alive (e.g. a copy). Call it while your reference is valid: inside the callback,
  /// or through a Retained you hold. Thread-safe, lock-free.
  template <typename T>
  Retained<T> Retain(const T& message) noexcept {
    static_assert(kTravelsByLoan<T>,
                  "mccc: Retain(message): this message type does not travel by loan on this bus, "
                  "so its callbacks see a slot that is reused after them; copy the message to keep "
                  "it");
    return this->template PoolFor<T>().Retain(message);
  }

  /// @brief The counters of T's pool (capacity, in use, high-water mark, granted, refused per
  /// priority; the counters count in FULL_FEATURED only). Thread-safe.
  template <typename T>
  LoanPoolStatistics GetLoanStatistics() const noexcept {
    static_assert(kTravelsByLoan<T>,
                  "mccc: GetLoanStatistics<T>: T does not travel by loan on this bus");
    return this->template PoolFor<T>().Statistics();
  }

  // -------------------------------------------------------------------------------------------
  // Producer handles: a producer identity owned by an object instead of a thread.
  // -------------------------------------------------------------------------------------------

  /// @brief A producer identity for code that manages its own threads (a thread pool, a task
  /// that migrates between threads). It owns a statistics shard and, when the bus has producer
  /// lanes and one is free, a lane of its own, exactly as a publishing thread does; both return
  /// when the handle is destroyed. Use it from one thread at a time; hand it over through the
  /// user's own synchronisation. Move-only. A default-constructed or moved-from handle publishes
  /// nothing (its calls return false / 0).
  class Producer {
   public:
    Producer() noexcept = default;
    Producer(Producer&& other) noexcept : bus_(other.bus_), index_(other.index_) {
      other.bus_ = nullptr;
      other.index_ = detail::kNoThreadShard;
    }
    Producer& operator=(Producer&& other) & noexcept {
      if (this != &other) {
        Release();
        bus_ = other.bus_;
        index_ = other.index_;
        other.bus_ = nullptr;
        other.index_ = detail::kNoThreadShard;
      }
      return *this;
    }
    Producer(const Producer&) = delete;
    Producer& operator=(const Producer&) = delete;
    ~Producer() { Release(); }

    /// @brief True when this handle publishes on a producer lane of its own (false: the
    /// shared ring, like threads beyond kProducerLanes).
    bool HasOwnLane() const noexcept { return bus_ != nullptr && IsLaneIndex(index_); }

    /// @brief The lane this handle publishes on (LaneCount() when it is the shared ring).
    uint32_t Lane() const noexcept { return IsLaneIndex(index_) ? index_ : kProducerLanes; }

    /// @brief As AsyncBus::Publish.
    template <typename T>
    MCCC_ALWAYS_INLINE bool Publish(T&& message, uint32_t sender_id) noexcept {
      const MessagePriority priority = DefaultPriorityOf(message);
      return bus_ != nullptr &&
             bus_->PublishTimestamped(index_, std::forward<T>(message), sender_id, priority);
    }

    /// @brief As AsyncBus::PublishWithPriority.
    template <typename T>
    MCCC_ALWAYS_INLINE bool PublishWithPriority(T&& message, uint32_t sender_id,
                                                MessagePriority priority) noexcept {
      return bus_ != nullptr &&
             bus_->PublishTimestamped(index_, std::forward<T>(message), sender_id, priority);
    }

    /// @brief As AsyncBus::PublishFast.
    template <typename T>
    MCCC_ALWAYS_INLINE bool PublishFast(
        T&& message, uint32_t sender_id, uint64_t timestamp_us,
        MessagePriority priority = MessagePriority::kMedium) noexcept {
      static_assert(kStoresTimestamp || sizeof(T) == 0U,
                    "mccc: PublishFast: this bus stores no timestamp (see AsyncBus::PublishFast)");
      return bus_ != nullptr && bus_->PublishImpl(index_, std::forward<T>(message), sender_id,
                                                  priority, detail::GivenStamp(timestamp_us));
    }

    /// @brief As AsyncBus::PublishFast of a loan (the priority it was loaned at).
    template <typename T>
    bool PublishFast(MessageLoan<T>&& loan, uint32_t sender_id, uint64_t timestamp_us) noexcept {
      const MessagePriority priority = loan.Priority();
      return PublishFast(std::move(loan), sender_id, timestamp_us, priority);
    }

    /// @brief As AsyncBus::PublishEmplace.
    template <typename T, typename... Args>
    bool PublishEmplace(uint32_t sender_id, MessagePriority priority, Args&&... args) noexcept {
      return bus_ != nullptr && bus_->template PublishEmplaceBy<T>(index_, sender_id, priority,
                                                                   std::forward<Args>(args)...);
    }

    /// @brief As AsyncBus::PublishBatch.
    template <typename T>
    uint32_t PublishBatch(const T* messages, uint32_t count, uint32_t sender_id,
                          MessagePriority priority = MessagePriority::kMedium) noexcept {
      return bus_ == nullptr ? 0U
                             : bus_->PublishBatchBy(index_, messages, count, sender_id, priority);
    }

   private:
    friend class AsyncBus;
    Producer(AsyncBus& bus, uint32_t index) noexcept : bus_(&bus), index_(index) {}

    void Release() noexcept {
      if (bus_ != nullptr) {
        // The handle stops using its identity before the identity returns to the registry
        // (detail::ReturnLeasedIndex says why).
        const uint32_t index = index_;
        bus_ = nullptr;
        index_ = detail::kNoThreadShard;
        detail::ReturnLeasedIndex(index);
      }
    }

    AsyncBus* bus_ = nullptr;
    uint32_t index_ = detail::kNoThreadShard;
  };

  /// @brief A new producer handle (see Producer). Takes the lowest free producer identity of
  /// the process; when none is free, or its index is not below kProducerLanes, the handle uses
  /// the shared ring. Thread-safe, lock-free; allocates nothing.
  Producer MakeProducer() noexcept {
    return Producer(*this, detail::ThreadShardRegistry::Global().Acquire());
  }

  // -------------------------------------------------------------------------------------------
  // Implementation of the publish calls above, for a given producer identity.
  // -------------------------------------------------------------------------------------------
 private:
  template <typename T, typename... Args>
  bool PublishEmplaceBy(uint32_t producer, uint32_t sender_id, MessagePriority priority,
                        Args&&... args) noexcept {
    static_assert(!kTravelsByLoan<T> && !detail::LoanedTraits<T>::kIsLoaned,
                  "mccc: PublishEmplace<T>: T travels by loan on this bus; build it in a pool "
                  "block with bus.Loan<T>(priority, args...) and Publish(std::move(loan), sender)");
    static_assert(detail::kIsAlternative<T, Payload>,
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
    static_assert(!kTravelsByLoan<T> && !detail::LoanedTraits<T>::kIsLoaned &&
                      !detail::MessageLoanTraits<T>::kIsLoan,
                  "mccc: PublishBatch: loans are unique and are published one by one with "
                  "Publish(std::move(loan), sender); PublishBatch copies inline messages");
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
    RingBatchClaim<Position> claim{};
    bool claim_is_seq_cst = !Traits::kSingleProducer;
    // Elements signal handlers left on the lane, made visible by this call (ProducerLane).
    Position taken_in = 0U;
    if (IsForHighLane(priority)) {
      if constexpr (kHasHighLane) {
        claim = high_ring_.TryPublishBatch(HighLimit(), count, after_claim, build);
      }
    } else if (IsLaneIndex(producer)) {
      if constexpr (kHasLanes) {
        const LaneClaim<Position> lane_claim = lanes_[producer].Publish(
            LaneLimitFor(mode, priority_index), count, after_claim,
            [&build](void* storage, uint32_t index, uint64_t timestamp_us) noexcept {
              build(storage, Position{0U}, index, timestamp_us);
            });
        claim = RingBatchClaim<Position>{lane_claim.admitted, lane_claim.position,
                                         lane_claim.occupancy};
        taken_in = lane_claim.taken_in;
        claim_is_seq_cst = false;
      }
    } else {
      claim = ring_.TryPublishBatch(LimitFor(mode, priority_index), count, after_claim, build);
    }
    const auto admitted = static_cast<uint32_t>(claim.admitted);
    if (MCCC_LIKELY(admitted != 0U)) {
      CountAdmitted(producer, mode, priority, admitted);
    }
    if (MCCC_LIKELY(admitted != 0U || taken_in != 0U)) {
      NotifyConsumer(claim_is_seq_cst);
    }
    if (MCCC_UNLIKELY(admitted != count)) {
      OnRejected(producer, mode, priority, static_cast<Position>(claim.position + claim.admitted),
                 count - admitted);
    }
    return admitted;
  }

 public:
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
    if (!table_.LightBatchMarks() && !HasReadyMessage()) {
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
    const uint32_t processed = ConsumeRings([this, mode, &errors](StoredEnvelope& stored) noexcept {
      // A reference to the slot's envelope, or (compact) a temporary whose life is extended.
      const auto& message = Deliver(stored, mode);
      errors += table_.Dispatch(message, [this, mode](uint64_t msg_id) noexcept {
        ReportError(mode, BusError::kProcessingError, msg_id);
      });
      ReleaseLoaned(stored.payload);
    });
    ReturnReleasedBlocks();
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
    const uint32_t processed =
        ConsumeRings([this, mode, &errors, &visitor](StoredEnvelope& stored) noexcept {
          const auto& message = Deliver(stored, mode);  // as in ProcessBatch
          if (MCCC_UNLIKELY(!VisitGuarded(visitor, message))) {
            ++errors;
            ReportError(mode, BusError::kProcessingError, message.header.msg_id);
          }
          ReleaseLoaned(stored.payload);
        });
    ReturnReleasedBlocks();
    FinishBatch(mode, processed, errors);
    return processed;
  }

  /// @brief Consumer thread: returns true at once if a message is ready; otherwise sleeps until
  /// a producer publishes or `timeout_us` passes (Traits::ConsumerWait: a futex on Linux, a
  /// hook on an RTOS; at once with NoConsumerWait). Producers pay no system call or hook call
  /// while the consumer is awake. Returns whether a message is ready now.
  /// The first call enables sleeping for good; on a bus whose producers publish with a plain
  /// store (producer lanes, the single producer) it also passes a process-wide barrier
  /// (`membarrier`, detail/asymmetric_fence.hpp) so that a publish racing with it is seen.
  /// Where the kernel refuses that barrier the first call returns without sleeping.
  bool WaitForMessages(uint32_t timeout_us) noexcept {
    if (HasReadyMessage()) {
      return true;
    }
    if (MCCC_UNLIKELY(!parking_.SleepEnabled()) && !EnableSleep()) {
      return HasReadyMessage();
    }
    parking_.Park([this]() noexcept { return HasClaimedWork(); }, timeout_us);
    return HasReadyMessage();
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
    return WaitForMessages(detail::TimeoutMicros(timeout));
  }
#endif

  /// @brief Makes the consumer's current or next WaitForMessages return (e.g. to notice a stop
  /// request set before this call). A request made before the consumer parks is not lost.
  /// Thread-safe.
  void WakeConsumer() noexcept {
    parking_.RequestWake();
  }

  // -------------------------------------------------------------------------------------------
  // Introspection: thread-safe snapshots (stale as soon as they return).
  // -------------------------------------------------------------------------------------------

  /// @brief Messages published and not yet consumed (including ones still being written), in
  /// the whole bus: the shared ring, the HIGH lane and every producer lane (a sum of snapshots
  /// taken one after another).
  uint32_t QueueDepth() const noexcept {
    uint64_t depth = ring_.Occupancy();
    if constexpr (kHasHighLane) {
      depth += high_ring_.Occupancy();
    }
    if constexpr (kHasLanes) {
      for (const Lane& lane : lanes_) {
        depth += lane.Occupancy();
      }
    }
    return static_cast<uint32_t>(depth);
  }

  /// @brief The fullest ring's occupancy as a whole percentage of its capacity (0..100, rounded
  /// down): admission is decided per ring, so the fullest one is the one that refuses first.
  uint32_t QueueUtilizationPercent() const noexcept {
    uint32_t worst = Admission::UtilizationPercent(ring_.Occupancy());
    if constexpr (kHasHighLane) {
      worst = Worse(worst, HighAdmission::UtilizationPercent(high_ring_.Occupancy()));
    }
    if constexpr (kHasLanes) {
      for (const Lane& lane : lanes_) {
        worst = Worse(worst, LaneAdmission::UtilizationPercent(lane.Occupancy()));
      }
    }
    return worst;
  }

  /// @brief The highest backpressure level among the rings (each against its own capacity;
  /// boundaries: Admission::kWarningPercent, Admission::kCriticalPercent, full).
  BackpressureLevel GetBackpressureLevel() const noexcept {
    BackpressureLevel worst = Admission::LevelFor(ring_.Occupancy());
    if constexpr (kHasHighLane) {
      worst = Worse(worst, HighAdmission::LevelFor(high_ring_.Occupancy()));
    }
    if constexpr (kHasLanes) {
      for (const Lane& lane : lanes_) {
        worst = Worse(worst, LaneAdmission::LevelFor(lane.Occupancy()));
      }
    }
    return worst;
  }

  /// @brief Capacity of the shared ring (kQueueDepth).
  static constexpr uint32_t Capacity() noexcept {
    return kQueueDepth;
  }

  /// @brief Capacity of the whole bus: the shared ring, the HIGH lane and the producer lanes.
  static constexpr uint64_t TotalCapacity() noexcept {
    return static_cast<uint64_t>(kQueueDepth) + kHighQueueDepth +
           static_cast<uint64_t>(kProducerLanes) * kLaneDepth;
  }

  /// @brief True when `index` names a producer lane (below kProducerLanes).
  static constexpr bool IsLaneIndex(uint32_t index) noexcept {
    if constexpr (kHasLanes) {
      // cppcheck-suppress unsignedLessThanZero ; false positive: never instantiated with 0 lanes
      return index < kProducerLanes;
    } else {
      static_cast<void>(index);
      return false;
    }
  }

  /// @brief Producer lanes of this bus (kProducerLanes). Lane index LaneCount() names the
  /// shared ring, which producers without a lane of their own use.
  static constexpr uint32_t LaneCount() noexcept {
    return kProducerLanes;
  }

  /// @brief Messages queued in lane `lane` (LaneCount(): the shared ring; beyond: 0). Snapshot.
  uint32_t LaneQueueDepth(uint32_t lane) const noexcept {
    if constexpr (kHasLanes) {
      if (IsLaneIndex(lane)) {
        return static_cast<uint32_t>(lanes_[lane].Occupancy());
      }
    }
    return lane == kProducerLanes ? static_cast<uint32_t>(ring_.Occupancy()) : 0U;
  }

  /// @brief How far producers had claimed positions in every ring when it was taken (see
  /// MarkClaimed). With several rings a later message can be dispatched before an earlier one
  /// (HIGH first; lanes served in turn), so "as many messages as were queued" does not mean
  /// "the messages that were queued"; a mark does.
  struct ClaimMark {
    Position shared;
    Position high;
    std::array<Position, (kProducerLanes > 0U ? kProducerLanes : 1U)> lanes;
  };

  /// @brief Marks what has been claimed (published, or being written) in every ring. Any thread.
  ClaimMark MarkClaimed() const noexcept {
    ClaimMark mark{};
    mark.shared = ring_.ClaimedPosition();
    if constexpr (kHasHighLane) {
      mark.high = high_ring_.ClaimedPosition();
    }
    if constexpr (kHasLanes) {
      for (std::size_t i = 0U; i < mark.lanes.size(); ++i) {
        mark.lanes[i] = lanes_[i].ClaimedPosition();
      }
    }
    return mark;
  }

  /// @brief True when every message claimed before `mark` was taken has been consumed (e.g. a
  /// consumer that drains before stopping: every Publish that returned before the mark was
  /// taken is then delivered). Any thread; meant for the consumer.
  bool HasConsumed(const ClaimMark& mark) const noexcept {
    if (!IsAtOrPast(ring_.ConsumedPosition(), mark.shared)) {
      return false;
    }
    if constexpr (kHasHighLane) {
      if (!IsAtOrPast(high_ring_.ConsumedPosition(), mark.high)) {
        return false;
      }
    }
    if constexpr (kHasLanes) {
      for (std::size_t i = 0U; i < mark.lanes.size(); ++i) {
        if (!IsAtOrPast(lanes_[i].ConsumedPosition(), mark.lanes[i])) {
          return false;
        }
      }
    }
    return true;
  }

  /// @brief Messages queued in the HIGH lane (0 without one). Snapshot.
  uint32_t HighQueueDepth() const noexcept {
    if constexpr (kHasHighLane) {
      return static_cast<uint32_t>(high_ring_.Occupancy());
    }
    return 0U;
  }

  /// @brief What the producer of lane `lane` published and had refused since construction or
  /// the last ResetStatistics (FULL_FEATURED only counts), per priority; its HIGH messages
  /// included, whichever ring carried them. LaneCount(): every producer without a lane of its
  /// own. The processed and error fields are 0 (the consumer counts for the whole bus). The
  /// lanes' figures add up to GetStatistics()'s. Thread-safe.
  BusStatisticsSnapshot GetLaneStatistics(uint32_t lane) const noexcept {
    if (IsLaneIndex(lane)) {
      return stats_.ShardRange(Statistics::ShardOf(lane), Statistics::ShardOf(lane));
    }
    if (lane == kProducerLanes) {
      return stats_.ShardRange(kProducerLanes, Traits::kStatisticsShards);
    }
    return BusStatisticsSnapshot{};
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

  /// @brief Counters since construction or the last ResetStatistics (FULL_FEATURED only counts),
  /// the loan pools' included (summed over the pools; GetLoanStatistics<T> has each one's).
  BusStatisticsSnapshot GetStatistics() const noexcept {
    BusStatisticsSnapshot snapshot = stats_.Snapshot();
    LoanPoolStatistics loans{};
    PoolSet::Accumulate(loans);
    snapshot.loans_granted = loans.loans_granted;
    snapshot.high_priority_loans_refused = loans.high_priority_refused;
    snapshot.medium_priority_loans_refused = loans.medium_priority_refused;
    snapshot.low_priority_loans_refused = loans.low_priority_refused;
    snapshot.loan_blocks_in_use = loans.in_use;
    return snapshot;
  }

  /// @brief Zeroes the counters seen by later GetStatistics calls (the loan pools' too; their
  /// high-water marks restart from the blocks in use). Thread-safe.
  void ResetStatistics() noexcept {
    stats_.Reset();
    PoolSet::ResetAll();
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
  using PoolSet = detail::LoanPoolSet<typename Traits::LoanPools, Traits::kSingleCore,
                                      CriticalSection, Traits::kCacheLineSize>;
  /// True when T is listed as Loaned<T> in the payload variant.
  template <typename T>
  static constexpr bool kTravelsByLoan = detail::kIsAlternative<Loaned<T>, Payload>;
  /// The alternative that carries messages of type T: Loaned<T> when T travels by loan.
  template <typename T>
  using AlternativeFor = std::conditional_t<kTravelsByLoan<T>, Loaned<T>, T>;

  static constexpr bool kHasLoans =
      !std::is_same_v<typename Traits::LoanPools, ::mccc::LoanPools<>>;

  /// True on the consumer thread inside its batch (hosted; elsewhere the consumer's released
  /// blocks return at the batch end only).
  bool IsConsumerInBatch() const noexcept {
#if MCCC_HOSTED
    return BatchBusOfThisThread() == this;
#else
    return false;
#endif
  }

  /// Consumer, after a message's callbacks: a loaned payload drops its slot's reference here
  /// (instead of in the slot's destructor), so the block joins its pool's batch return.
  template <std::size_t I = 0U>
  MCCC_ALWAYS_INLINE void ReleaseLoaned(Payload& payload) noexcept {
    if constexpr (kHasLoans && I < std::variant_size_v<Payload>) {
      using Alternative = std::variant_alternative_t<I, Payload>;
      if constexpr (detail::LoanedTraits<Alternative>::kIsLoaned) {
        if (payload.index() == I) {
          detail::LoanBlockHeader* block = detail::LoanAccess::Detach(*std::get_if<I>(&payload));
          if (block != nullptr) {
            this->template PoolFor<typename detail::LoanedTraits<Alternative>::Message>()
                .DropFromConsumer(*block);
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
    if constexpr (kHasLoans) {
      PoolSet::ReturnAllReleased();
    }
  }

  /// Publish's priority when none is given: MEDIUM, or the priority a loan was admitted at.
  template <typename T>
  MCCC_ALWAYS_INLINE static MessagePriority DefaultPriorityOf(const T& message) noexcept {
    if constexpr (detail::MessageLoanTraits<std::remove_cv_t<T>>::kIsLoan) {
      return message.Priority();
    } else {
      static_cast<void>(message);
      return MessagePriority::kMedium;
    }
  }

  using Layout = detail::EnvelopeLayout<PayloadVariant, kCompactEnvelope, kStoresTimestamp>;
  using Ring = MpscRing<StoredEnvelope, Traits::kQueueDepth, Traits::kSingleProducer,
                        Traits::kSingleCore, Position, Traits::kCacheLineSize, CriticalSection>;
  using Table = SubscriptionTable<Delivered, std::variant_size_v<Payload>,
                                  Traits::kMaxCallbacksPerType, Traits::kCallbackStorageBytes,
                                  Traits::kSingleCore, Traits::kAsymmetricFence, CriticalSection>;
  // Every publish path reads the clock the same way: a stamp before the claim, microseconds
  // after it (clock/clock_stamp.hpp). A multi-producer claim is a locked CAS, so a clock that
  // splits its reading converts after it; the single-producer claim has nothing to protect.
  using Stamp = detail::ClockStamp<typename Traits::Clock, !Traits::kSingleProducer>;
  using LaneStamp = detail::ClockStamp<typename Traits::Clock, false>;
  using Statistics = BusStatistics<Position, Traits::kStatisticsShards, Traits::kSingleProducer,
                                   Traits::kSingleCore, Traits::kCacheLineSize, CriticalSection>;
  using Parking =
      ConsumerParking<typename Traits::ConsumerWait, Traits::kSingleCore, CriticalSection>;
  // Producers look for a sleeping consumer: the kernel wait on a multi-core hosted bus (a
  // hosted single-core build keeps its timed waits), or any user wait hook.
  static constexpr bool kHasParking =
      detail::kIsConsumerWaitHook<typename Traits::ConsumerWait> ||
      (Parking::kCanSleep && MCCC_HOSTED != 0 && !Traits::kSingleCore);
  // Producers with a plain tail store (lanes, the single producer) skip the StoreLoad fence
  // until the consumer first waits only where that cannot lose a wake-up: on one core (program
  // order is memory order), or where EnableSleep repairs it with a process-wide barrier.
  // Elsewhere they always fence before they look for a sleeper.
  static constexpr bool kSleepNeedsBarrier =
      !Traits::kSingleCore && Traits::kAsymmetricFence && MCCC_ASYMMETRIC_FENCE != 0;
  static constexpr bool kLazySleepFence =
      kHasParking && (Traits::kSingleCore || kSleepNeedsBarrier);
  static constexpr bool kHasHighLane = kHighQueueDepth > 0U;
  static constexpr bool kHasLanes = kProducerLanes > 0U;
  // The HIGH lane: its own ring (one slot when there is none, never used).
  using HighRing =
      MpscRing<StoredEnvelope, (kHasHighLane ? kHighQueueDepth : 1U), Traits::kSingleProducer,
               Traits::kSingleCore, Position, Traits::kCacheLineSize, CriticalSection>;
  using HighAdmission = PriorityAdmission<(kHasHighLane ? kHighQueueDepth : 1U)>;
  using Lane = ProducerLane<StoredEnvelope, kLaneDepth, Position, Traits::kCacheLineSize>;
  using LaneAdmission = PriorityAdmission<kLaneDepth>;
  struct NoHighRing {};
  struct NoLanes {};
  // More than one ring: ids are given by the consumer in delivery order, which only it knows.
  static constexpr bool kDeliveryOrderIds = kHasHighLane || kHasLanes;
  // With 64-bit positions and one ring, position + constant is already the unique 64-bit id.
  // (A compact slot has no msg_id field: the consumer always assigns it.)
  static constexpr bool kProducerAssignsIds =
      sizeof(Position) >= sizeof(uint64_t) && !kDeliveryOrderIds && !kCompactEnvelope;
  // 32-bit positions: a position or delivery count is widened to a 64-bit id (id_base.hpp).
  static constexpr bool kWidensIds = sizeof(Position) < sizeof(uint64_t);
  // Most messages one batch can deliver: kBatchSize LOW/MEDIUM, and as many HIGH.
  static constexpr uint32_t kMostPerBatch = kHasHighLane ? 2U * kBatchSize : kBatchSize;
  // The producer identity "the calling thread, as the statistics find it" (no lanes to choose).
  static constexpr uint32_t kThisThread = ~uint32_t{0};
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
#if MCCC_HOSTED
      if constexpr (kHasLoans) {
        // The batch's bus, in a variable of this thread (a callback may run another bus's
        // batch inside this one: the destructor restores the outer one).
        outer_batch_bus_ = std::exchange(BatchBusOfThisThread(), &bus_);
      }
#endif
#if MCCC_ENABLE_ASSERTS
      MCCC_ASSERT(!consuming_.WasSet(),
                  "ProcessBatch/ProcessBatchWith entered by two threads at once; a bus has "
                  "exactly one consumer thread");
#endif
    }
    ~ConsumerScope() {
      bus_.dispatching_.store(false, std::memory_order_relaxed);
#if MCCC_HOSTED
      if constexpr (kHasLoans) {
        BatchBusOfThisThread() = outer_batch_bus_;
      }
#endif
    }
    ConsumerScope(const ConsumerScope&) = delete;
    ConsumerScope& operator=(const ConsumerScope&) = delete;
    ConsumerScope(ConsumerScope&&) = delete;
    ConsumerScope& operator=(ConsumerScope&&) = delete;

   private:
    AsyncBus& bus_;
#if MCCC_HOSTED
    const AsyncBus* outer_batch_bus_ = nullptr;
#endif
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
  /// The calling thread's producer identity: its lane index with lanes (detail::ThisThreadShard:
  /// a TLS load after its first publish), else kThisThread (the statistics look it up).
  MCCC_ALWAYS_INLINE static uint32_t CurrentProducer() noexcept {
    if constexpr (kHasLanes) {
      return detail::ThisThreadShard();
    } else {
      return kThisThread;
    }
  }

  /// A publish timestamped by the bus clock. A lane has no locked claim to keep the clock's
  /// conversion out of, so its stamp converts at once (one call instead of two).
  template <typename T>
  MCCC_ALWAYS_INLINE bool PublishTimestamped(uint32_t producer, T&& message, uint32_t sender_id,
                                             MessagePriority priority) noexcept {
    if constexpr (kHasLanes) {
      if (IsLaneIndex(producer) && !IsForHighLane(priority)) {
        return PublishImpl(producer, std::forward<T>(message), sender_id, priority,
                           LaneStamp::Take());
      }
    }
    return PublishImpl(producer, std::forward<T>(message), sender_id, priority, Stamp::Take());
  }

  template <typename T, typename Stamp>
  MCCC_ALWAYS_INLINE bool PublishImpl(uint32_t producer, T&& message, uint32_t sender_id,
                                      MessagePriority priority, const Stamp& stamp) noexcept {
    using Message = std::remove_cv_t<std::remove_reference_t<T>>;
    static_assert(!kTravelsByLoan<Message>,
                  "mccc: Publish: this message type travels by loan on this bus (the variant "
                  "lists mccc::Loaned<T>); take a block with bus.Loan<T>(priority), fill it in "
                  "place and Publish(std::move(loan), sender)");
    if constexpr (detail::MessageLoanTraits<Message>::kIsLoan ||
                  detail::LoanedTraits<Message>::kIsLoaned) {
      return PublishLoan(producer, std::forward<T>(message), sender_id, priority, stamp);
    } else {
      return PublishInline(producer, std::forward<T>(message), sender_id, priority, stamp);
    }
  }

  /// A loan, or a Loaned handle, moved into a slot: only the handle travels.
  template <typename T, typename Stamp>
  MCCC_ALWAYS_INLINE bool PublishLoan(uint32_t producer, T&& message, uint32_t sender_id,
                                      MessagePriority priority, const Stamp& stamp) noexcept {
    using Handle = std::remove_cv_t<std::remove_reference_t<T>>;
    using Message = std::conditional_t<detail::MessageLoanTraits<Handle>::kIsLoan,
                                       typename detail::MessageLoanTraits<Handle>::Message,
                                       typename detail::LoanedTraits<Handle>::Message>;
    static_assert(std::is_rvalue_reference_v<T&&> && !std::is_const_v<std::remove_reference_t<T>>,
                  "mccc: a loan is unique and is published by moving it: "
                  "Publish(std::move(loan), sender); a refused publish leaves it with you");
    static_assert(detail::kIsAlternative<Loaned<Message>, Payload>,
                  "mccc: Publish: this loan's type does not travel by loan on this bus; list "
                  "mccc::Loaned<T> in the payload variant and mccc::PoolOf<T, N> in "
                  "Traits::LoanPools");
    if (MCCC_UNLIKELY(!message)) {
      ReportError(LoadMode(), BusError::kInvalidMessage, 0U);  // an empty or moved-from loan
      return false;
    }
    // Another bus's block would be dropped into this bus's pool by the consumer: refused before
    // a slot is claimed, so the loan stays with the caller (every publish of a loan comes here).
    if (MCCC_UNLIKELY(!this->template PoolFor<Message>().Owns(
            *detail::LoanAccess::BlockOf(static_cast<const Handle&>(message))))) {
      ReportError(LoadMode(), BusError::kForeignLoan, 0U);
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

  template <typename T, typename Stamp>
  MCCC_ALWAYS_INLINE bool PublishInline(uint32_t producer, T&& message, uint32_t sender_id,
                                        MessagePriority priority, const Stamp& stamp) noexcept {
    using Message = std::remove_cv_t<std::remove_reference_t<T>>;
    static_assert(detail::kIsAlternative<Message, Payload> || std::is_same_v<Message, Payload>,
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
    } else if constexpr (detail::kCopiesByWords<Message> &&
                         std::is_nothrow_constructible_v<Message, T&&>) {
      // Read word by word: the caller has usually just written the message (word_copy.hpp). The
      // message is value-initialised in its slot and then overwritten: those few extra stores go
      // to lines the copy writes anyway. Only where the ordinary copy or move is allowed: a type
      // whose copy constructor is deleted is refused below, never copied as bytes.
      return PublishConstructed(
          producer, sender_id, priority, stamp,
          [&](void* storage, const MessageHeader& header) noexcept {
            StoredEnvelope* stored = nullptr;
            // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): deviation D-01
            stored = ::new (storage)
                StoredEnvelope{Layout::ToStored(header), Payload(std::in_place_type<Message>)};
            detail::CopyByWords(*std::get_if<Message>(&stored->payload), message);
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

  /// True when a message of `priority` travels on the HIGH lane.
  MCCC_ALWAYS_INLINE static constexpr bool IsForHighLane(MessagePriority priority) noexcept {
    return kHasHighLane && priority == MessagePriority::kHigh;
  }

  template <typename Stamp, typename Construct>
  MCCC_ALWAYS_INLINE bool PublishConstructed(uint32_t producer, uint32_t sender_id,
                                             MessagePriority priority, const Stamp& stamp,
                                             Construct&& construct) noexcept {
    const auto priority_index = static_cast<std::size_t>(priority);
    if (MCCC_UNLIKELY(priority_index >= kPriorityCount)) {
      ReportError(LoadMode(), BusError::kInvalidMessage, 0U);
      return false;
    }
    const PerformanceMode mode = LoadMode();
    const auto build = [this, &construct, &stamp, sender_id, priority](void* storage,
                                                                       Position position) noexcept {
      construct(storage, HeaderAt(position, stamp.ToUs(), sender_id, priority));
    };
    bool admitted = false;
    Position observed_tail{0U};
    bool claim_is_seq_cst = !Traits::kSingleProducer;
    if (IsForHighLane(priority)) {
      if constexpr (kHasHighLane) {
        const RingClaim<Position> claim = high_ring_.TryPublish(HighLimit(), build);
        admitted = claim.admitted;
        observed_tail = claim.position;
      }
    } else if (IsLaneIndex(producer)) {
      if constexpr (kHasLanes) {
        const LaneClaim<Position> claim = lanes_[producer].Publish(
            LaneLimitFor(mode, priority_index), 1U, []() noexcept { return 0; },
            [&build](void* storage, uint32_t, int) noexcept { build(storage, Position{0U}); });
        admitted = claim.admitted != 0U;
        if (MCCC_UNLIKELY(!admitted && claim.taken_in != 0U)) {
          // Refused, but it made elements of signal handlers visible: wake the consumer.
          NotifyConsumer(false);
        }
        claim_is_seq_cst = false;
      }
    } else {
      const RingClaim<Position> claim = ring_.TryPublish(LimitFor(mode, priority_index), build);
      admitted = claim.admitted;
      observed_tail = claim.position;
    }
    if (MCCC_LIKELY(admitted)) {
      CountAdmitted(producer, mode, priority, 1U);
      NotifyConsumer(claim_is_seq_cst);
      return true;
    }
    OnRejected(producer, mode, priority, observed_tail);
    return false;
  }

  /// After `admitted` (>= 1) messages of `priority` were admitted for `producer`: counts them
  /// (FULL_FEATURED).
  MCCC_ALWAYS_INLINE void CountAdmitted(uint32_t producer, PerformanceMode mode,
                                        MessagePriority priority, uint32_t admitted) noexcept {
    if (mode == PerformanceMode::kFullFeatured) {
      if (producer == kThisThread) {
        stats_.CountPublished(priority, admitted);
      } else {
        stats_.CountPublishedBy(producer, priority, admitted);
      }
    }
  }

  /// After messages became visible to the consumer: wakes it if it sleeps. `claim_is_seq_cst`:
  /// the claim was a multi-producer CAS (else a release store: a lane, or the single producer).
  MCCC_ALWAYS_INLINE void NotifyConsumer(bool claim_is_seq_cst) noexcept {
    if constexpr (kHasParking) {
      if (!claim_is_seq_cst) {
        // A lane's or the single producer's tail store is only a release; a sleeping consumer
        // needs the StoreLoad order the MPSC CAS gives for free (consumer_parking.hpp). Until
        // the consumer first waits, the fence is skipped only where EnableSleep's process-wide
        // barrier repairs a stale "not enabled" read (store buffering: the consumer would
        // otherwise miss this tail and sleep with a message ready).
        if (!kLazySleepFence || MCCC_UNLIKELY(parking_.SleepEnabled())) {
          parking_.FullFence();
          parking_.NotifyAfterClaim();
        }
      } else {
        parking_.NotifyAfterClaim();
      }
    } else {
      static_cast<void>(claim_is_seq_cst);
    }
  }

  /// Consumer, first WaitForMessages: enables sleeping. Producers that publish with a plain
  /// tail store read "enabled" without a fence (a relaxed load after their store) while it is
  /// false; one of them may have read false and still hold its tail in its store buffer. The
  /// process-wide barrier (membarrier: every running thread of the process passes a full fence
  /// before it returns) drains such a store before the consumer looks for work: the fence they
  /// skipped, paid once here. Returns false when that barrier could not be had (the kernel
  /// refused it): the caller then does not sleep this time.
  MCCC_NOINLINE bool EnableSleep() noexcept {
    parking_.EnableSleep();
    if constexpr (kSleepNeedsBarrier) {
      return detail::AsymmetricFence::Available() && detail::AsymmetricFence::Heavy();
    } else {
      return true;
    }
  }

  MCCC_NOINLINE void OnRejected(uint32_t producer, PerformanceMode mode, MessagePriority priority,
                                Position observed_tail, uint32_t refused = 1U) noexcept {
    if (mode == PerformanceMode::kBareMetal) {
      return;
    }
    if (mode == PerformanceMode::kFullFeatured) {
      if (producer == kThisThread) {
        stats_.CountDropped(priority, refused);
      } else {
        stats_.CountDroppedBy(producer, priority, refused);
      }
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

#if MCCC_HOSTED
  /// An address unique to the calling thread (debug builds: tells re-entry from a second thread).
  static const void* CurrentThreadMarker() noexcept {
    static thread_local const char marker = 0;
    return &marker;
  }

  /// The bus whose batch the calling thread is running, or null (buses with loans: tells the
  /// consumer's own Loan calls inside its batch). A variable of the thread, not of the bus, so
  /// that a producer asking reads no line the consumer writes.
  static const AsyncBus*& BatchBusOfThisThread() noexcept {
    static thread_local const AsyncBus* bus = nullptr;
    return bus;
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
    ReportError(LoadMode(), BusError::kReentrantCall, last_msg_id_);
    return 0U;
  }

  /// Consumer: the widened position of the next message to deliver (its id minus one minus the
  /// bias), or the delivered count with several rings.
  MCCC_ALWAYS_INLINE uint64_t WidenedHead() const noexcept {
    return last_msg_id_ - id_bias_;
  }

  /// Consumer, before a batch (32-bit positions): lets refusing producers widen positions (or
  /// delivery counts) the batch's stores reach (detail/id_base.hpp).
  MCCC_ALWAYS_INLINE void PrepareIds() noexcept {
    if constexpr (kWidensIds) {
      id_base_.PrepareBatch(WidenedHead(), kMostPerBatch);
    }
  }

  /// Consumer, one batch: dispatches with `dispatch_one(StoredEnvelope&)` up to kBatchSize
  /// LOW/MEDIUM messages and up to kBatchSize HIGH ones, every HIGH message that is ready before
  /// the next LOW/MEDIUM one. Producer lanes and the shared ring are served in turn from a rotating
  /// start, each ready one at least once per batch. A HIGH flood that uses up the batch's HIGH
  /// share ends the batch before its next LOW/MEDIUM message, so the next batch starts with HIGH
  /// again; but not forever: once the HIGH lane's consumer has moved a whole lane
  /// (kHighQueueDepth) since the last batch that dispatched LOW/MEDIUM, every HIGH message
  /// published before that dispatch has been dispatched, and this batch dispatches one LOW/MEDIUM
  /// message before it ends (HighTurnIsOver). So LOW/MEDIUM get at least one message every
  /// ceil(kHighQueueDepth / kBatchSize) batches under any HIGH flood, and still no HIGH message
  /// waits for more than one LOW/MEDIUM dispatch.
  template <typename DispatchOne>
  MCCC_ALWAYS_INLINE uint32_t ConsumeRings(DispatchOne&& dispatch_one) noexcept {
    if constexpr (!kHasHighLane && !kHasLanes) {
      return ring_.ConsumeBatch(
          kBatchSize,
          [&dispatch_one](StoredEnvelope& envelope, Position) noexcept { dispatch_one(envelope); });
    } else {
      uint32_t high_taken = 0U;
      bool stop = false;
      // The HIGH lane's next slot, checked before every LOW/MEDIUM dispatch: two registers and
      // one load while nothing HIGH arrives.
      auto high_probe = HighProbe();
      const auto drain_high = [this, &high_probe, &high_taken, &stop, &dispatch_one]() noexcept {
        if constexpr (kHasHighLane) {
          if (MCCC_UNLIKELY(high_probe.Ready())) {
            if (high_taken != kBatchSize) {
              high_taken += high_ring_.ConsumeBatch(
                  kBatchSize - high_taken,
                  [&dispatch_one](StoredEnvelope& envelope, Position) noexcept {
                    dispatch_one(envelope);
                  });
              high_probe = high_ring_.ProbeNext();
            }
            // The HIGH share is used up and more is waiting: no further LOW/MEDIUM message in
            // this batch, so the next batch starts with HIGH.
            stop = high_taken == kBatchSize && high_probe.Ready();
          }
        } else {
          // Producer lanes without a HIGH lane: nothing to drain (the captures serve the branch
          // above).
          static_cast<void>(this);
          static_cast<void>(high_probe);
          static_cast<void>(high_taken);
          static_cast<void>(stop);
          static_cast<void>(dispatch_one);
        }
      };
      // The HIGH lane is checked before every LOW/MEDIUM message is taken (the batch's start, or
      // the end of the previous one, where its callbacks may have published HIGH): a message
      // taken off its ring is dispatched, so the decision to take the next one is made here.
      const auto normal = [&drain_high, &dispatch_one, &stop](StoredEnvelope& envelope) noexcept {
        dispatch_one(envelope);
        drain_high();
        return !stop;
      };
      drain_high();
      if (stop && !HighTurnIsOver()) {
        return high_taken;
      }
      // Either the HIGH share was not used up, or (stop) one LOW/MEDIUM message is due: the
      // first ring that has one dispatches it, and the drain after it keeps `stop`.
      uint32_t normal_taken = 0U;
      if constexpr (!kHasLanes) {
        normal_taken = ring_.ConsumeBatch(
            kBatchSize,
            [&normal](StoredEnvelope& envelope, Position) noexcept { return normal(envelope); });
      } else {
        normal_taken = ConsumeLanes(normal, stop);
      }
      if constexpr (kHasHighLane) {
        if (normal_taken != 0U) {
          // At or after the last LOW/MEDIUM dispatch's start: a later mark only delays the next
          // turn (HighTurnIsOver), never gives it early.
          high_consumed_at_normal_ = high_ring_.ConsumedPosition();
        }
      }
      return high_taken + normal_taken;
    }
  }

  /// Consumer, HIGH share used up with HIGH still ready: true when one LOW/MEDIUM message may
  /// still be dispatched without any HIGH message waiting for two. A HIGH message published
  /// before the last LOW/MEDIUM dispatch started was claimed less than kHighQueueDepth positions
  /// after the HIGH consumer position of that moment (the lane holds no more), which is at most
  /// the mark taken at the end of that batch; so once the consumer is kHighQueueDepth past the
  /// mark, every such message has been dispatched. (Modular: a difference that wrapped after
  /// 2^32 HIGH messages without a LOW/MEDIUM one only delays the turn by a lane.)
  bool HighTurnIsOver() const noexcept {
    if constexpr (kHasHighLane) {
      return static_cast<Position>(high_ring_.ConsumedPosition() - high_consumed_at_normal_) >=
             static_cast<Position>(kHighQueueDepth);
    } else {
      return true;  // never asked: without a HIGH lane nothing stops a batch
    }
  }

  /// The HIGH lane's probe (an always-empty one without a HIGH lane: never used).
  auto HighProbe() const noexcept {
    if constexpr (kHasHighLane) {
      return high_ring_.ProbeNext();
    } else {
      return 0;
    }
  }

  /// Consumer: up to kBatchSize messages from the producer lanes and the shared ring (index
  /// kProducerLanes), fairly: a first round gives each a share, a second the rest of the budget.
  template <typename Normal>
  MCCC_ALWAYS_INLINE uint32_t ConsumeLanes(Normal& normal, const bool& stop) noexcept {
    if constexpr (kHasLanes) {
      constexpr uint32_t kRings = kProducerLanes + 1U;
      constexpr uint32_t kShare = kBatchSize / kRings;  // >= 1: kBatchSize > kProducerLanes
      uint32_t left = kBatchSize;
      const uint32_t start = next_lane_;
      // `stop` (a HIGH flood) ends the batch, but only after its first LOW/MEDIUM message: it is
      // set before any only when that one message is due (ConsumeRings).
      for (uint32_t round = 0U; round < 2U && left != 0U && (!stop || left == kBatchSize);
           ++round) {
        bool any = false;
        for (uint32_t k = 0U; k < kRings && left != 0U && (!stop || left == kBatchSize); ++k) {
          uint32_t ring = start + k;
          ring = ring >= kRings ? ring - kRings : ring;
          const uint32_t want = round == 0U && kShare < left ? kShare : left;
          const uint32_t taken = ring != kProducerLanes
                                     ? lanes_[ring].ConsumeBatch(want, normal)
                                     : ring_.ConsumeBatch(want, [&normal](StoredEnvelope& envelope,
                                                                          Position) noexcept {
                                         return normal(envelope);
                                       });
          left -= taken;
          any = any || taken != 0U;
        }
        if (!any) {
          break;
        }
      }
      next_lane_ = start + 1U == kRings ? 0U : start + 1U;
      return kBatchSize - left;
    } else {
      static_cast<void>(normal);
      static_cast<void>(stop);
      return 0U;
    }
  }

  /// Consumer: true when a message is ready in any ring.
  bool HasReadyMessage() noexcept {
    if (ring_.HasReadyElement()) {
      return true;
    }
    if constexpr (kHasHighLane) {
      if (high_ring_.HasReadyElement()) {
        return true;
      }
    }
    if constexpr (kHasLanes) {
      for (Lane& lane : lanes_) {
        if (lane.HasReadyElement()) {
          return true;
        }
      }
    }
    return false;
  }

  /// Consumer: true when a producer has claimed work in any ring (the consumer's half of the
  /// sleep handshake; each ring's check is seq_cst, see there).
  bool HasClaimedWork() const noexcept {
    if (ring_.HasClaimedWork()) {
      return true;
    }
    if constexpr (kHasHighLane) {
      if (high_ring_.HasClaimedWork()) {
        return true;
      }
    }
    if constexpr (kHasLanes) {
      for (const Lane& lane : lanes_) {
        if (lane.HasClaimedWork()) {
          return true;
        }
      }
    }
    return false;
  }

  /// True when consumer position `consumed` is at or past claim position `claimed` (modular:
  /// the two are never more than a ring's capacity apart in the direction that matters).
  static constexpr bool IsAtOrPast(Position consumed, Position claimed) noexcept {
    return static_cast<Position>(consumed - claimed) <= static_cast<Position>(~Position{0} >> 1U);
  }

  static constexpr uint32_t Worse(uint32_t a, uint32_t b) noexcept {
    return a > b ? a : b;
  }

  static constexpr BackpressureLevel Worse(BackpressureLevel a, BackpressureLevel b) noexcept {
    return static_cast<uint32_t>(a) >= static_cast<uint32_t>(b) ? a : b;
  }

  /// Admission limit of a publish of priority `priority_index` (< kPriorityCount) in `mode`:
  /// BARE_METAL admits up to the whole queue, the other modes the priority's threshold.
  static Position LimitFor(PerformanceMode mode, std::size_t priority_index) noexcept {
    return mode == PerformanceMode::kBareMetal ? static_cast<Position>(kQueueDepth)
                                               : kLimits[priority_index];
  }

  /// The same for a producer lane: the thresholds as percentages of kLaneDepth.
  static Position LaneLimitFor(PerformanceMode mode, std::size_t priority_index) noexcept {
    return mode == PerformanceMode::kBareMetal ? static_cast<Position>(kLaneDepth)
                                               : kLaneLimits[priority_index];
  }

  /// The HIGH lane admits HIGH messages while it has room, in every mode.
  static constexpr Position HighLimit() noexcept {
    return static_cast<Position>(kHighQueueDepth);
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
    return static_cast<uint64_t>(position) + id_bias_ + 1U;
  }

  /// The id a message refused at observed tail `tail` would have received (cold path). With
  /// 32-bit positions the position is widened against the consumer's head (detail/id_base.hpp),
  /// wait-free and across any number of 32-bit wraps.
  uint64_t WouldBeMessageId(Position tail) const noexcept {
    if constexpr (kDeliveryOrderIds) {
      // Several rings: the id is decided at delivery. The report carries the id the consumer
      // gives next as of its last finished batch (ids below it were delivered before the
      // refusal was reported). acquire: pairs with FinishBatch's release store.
      static_cast<void>(tail);
      const Position mark = detail::LoadAcquire<Traits::kSingleCore>(delivered_mark_);
      if constexpr (kWidensIds) {
        return id_base_.IdOfPosition(static_cast<uint32_t>(mark), static_cast<uint32_t>(mark));
      } else {
        return static_cast<uint64_t>(mark) + id_bias_ + 1U;
      }
    } else if constexpr (kProducerAssignsIds) {
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
    if constexpr (kDeliveryOrderIds) {
      // release: pairs with WouldBeMessageId's acquire load; with 32-bit positions it also
      // carries PrepareIds' earlier store of the widening word to that reader.
      detail::StoreRelease<Traits::kSingleCore>(delivered_mark_,
                                                static_cast<Position>(WidenedHead()));
    }
    if (mode == PerformanceMode::kFullFeatured) {
      stats_.CountProcessed(processed, errors);
    }
  }

  /// Consumer: the message in `stored` as subscribers see it, with its msg_id assigned: the
  /// slot's own envelope (a reference), or (compact) a DeliveredMessage with a full header,
  /// returned by value for the caller to bind to a const reference.
  MCCC_ALWAYS_INLINE decltype(auto) Deliver(StoredEnvelope& stored, PerformanceMode mode) noexcept {
    if constexpr (kCompactEnvelope) {
      Delivered message{stored.payload, Layout::ToDelivered(stored.header)};
      AssignMessageId(message.header, mode);
      return message;
    } else {
      AssignMessageId(stored.header, mode);
      return static_cast<const Delivered&>(stored);
    }
  }

  /// Consumer: completes the header's id (32-bit positions) and reports the wrap of the 64-bit
  /// id sequence (OVERFLOW_DETECTED, once per 2^64 messages).
  MCCC_ALWAYS_INLINE void AssignMessageId(MessageHeader& header, PerformanceMode mode) noexcept {
    if constexpr (kProducerAssignsIds) {
      MCCC_ASSERT(header.msg_id == last_msg_id_ + 1U, "msg_id out of sequence");
    } else {
      header.msg_id = last_msg_id_ + 1U;
    }
    ++last_msg_id_;
    if (MCCC_UNLIKELY(header.msg_id == 0U)) {
      ReportError(mode, BusError::kOverflowDetected, 0U);  // the 64-bit id sequence wrapped
    }
  }

  template <typename Visitor>
  MCCC_ALWAYS_INLINE static bool VisitGuarded(Visitor& visitor,
                                              const Delivered& envelope) noexcept {
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

  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22 (admission limit table)
  static constexpr Position kLimits[kPriorityCount] = {
      static_cast<Position>(Admission::LimitFor(MessagePriority::kLow)),
      static_cast<Position>(Admission::LimitFor(MessagePriority::kMedium)),
      static_cast<Position>(Admission::LimitFor(MessagePriority::kHigh))};
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22 (admission limit table)
  static constexpr Position kLaneLimits[kPriorityCount] = {
      static_cast<Position>(LaneAdmission::LimitFor(MessagePriority::kLow)),
      static_cast<Position>(LaneAdmission::LimitFor(MessagePriority::kMedium)),
      static_cast<Position>(LaneAdmission::LimitFor(MessagePriority::kHigh))};

  // Read-mostly settings on their own line: producers read them on every publish.
  alignas(kLine) std::atomic<PerformanceMode> mode_{PerformanceMode::kFullFeatured};
  std::atomic<ErrorCallback> error_callback_{nullptr};
  // msg_id = position + 1 + id_bias_ (read-only after construction; 0 on a fresh bus).
  const uint64_t id_bias_;
  // Written only when the consumer goes to sleep; read by every publish.
  alignas(kLine) Parking parking_;
  Ring ring_;
  std::conditional_t<kHasHighLane, HighRing, NoHighRing> high_ring_;
  std::conditional_t<kHasLanes, std::array<Lane, (kHasLanes ? kProducerLanes : 1U)>, NoLanes>
      lanes_;
  // Consumer-owned.
  alignas(kLine) uint64_t last_msg_id_;  // the id of the last message delivered (0: none yet)
  uint32_t next_lane_ = 0U;              // the ring the next batch serves first (producer lanes)
  // The HIGH lane's consumer position at the end of the last batch that dispatched LOW/MEDIUM
  // (HighTurnIsOver).
  Position high_consumed_at_normal_ = 0U;
  // Consumer-written once per batch, read by refusing producers (several rings only): the
  // delivered count at the end of the last batch, which WouldBeMessageId turns into an id.
  std::atomic<Position> delivered_mark_;
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
