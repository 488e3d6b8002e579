// SPDX-License-Identifier: MIT
/// @file async_bus.hpp
/// @brief `mccc::AsyncBus`: many producers publish typed messages, one consumer dispatches them.
///
/// The facade over the bus's parts, each in a header of its own under bus/:
/// - bus_config.hpp: the traits checked and resolved (every static_assert and derived type);
/// - ring_set.hpp: the shared ring, the HIGH ring and the producer lanes, and routing;
/// - drain_order.hpp: the order one batch takes messages in (HIGH first, lanes in turn);
/// - message_ids.hpp: who assigns msg_ids, and the id a refused publish reports;
/// - bus_core.hpp: the bus's state and layout, error reporting, counting, waking the consumer;
/// - publish_path.hpp and publish_api.hpp: the publish calls (for the bus and Producer);
/// - consume_path.hpp and consumer_scope.hpp: ProcessBatch, ProcessBatchWith, WaitForMessages.
/// The parts below them: ring/ (the rings), admission/ (thresholds, the priority table),
/// statistics/, dispatch/ (subscription table, visitor), wakeup/ (consumer parking), loans/.
///
/// Thread-safety summary: Publish*, MakeProducer, Subscribe, SubscribeScoped, Unsubscribe, the
/// queue snapshots (MarkClaimed and HasConsumed included), statistics, SetPerformanceMode and
/// SetErrorCallback are thread-safe (any thread, any time); a Producer handle is used by one thread
/// at a time. ProcessBatch, ProcessBatchWith and WaitForMessages belong to the one consumer thread.
#ifndef MCCC_BUS_ASYNC_BUS_HPP_
#define MCCC_BUS_ASYNC_BUS_HPP_

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "mccc/bus/bus_config.hpp"
#include "mccc/bus/bus_monitor.hpp"
#include "mccc/bus/publish_api.hpp"
#include "mccc/compat/bus_constants.hpp"
#include "mccc/config.hpp"
#include "mccc/detail/static_instance.hpp"
#include "mccc/detail/variant_traits.hpp"
#include "mccc/dispatch/scoped_subscription.hpp"
#include "mccc/dispatch/subscription_table.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"
#include "mccc/statistics/thread_shard.hpp"
#include "mccc/traits.hpp"

namespace mccc {
namespace detail {
struct DomainAccess;  // bus/domain_access.hpp: what a fan-out domain sets on its consumer buses
}  // namespace detail

/// @brief The asynchronous message bus.
/// @tparam PayloadVariant `std::variant<Msg1, Msg2, ...>` of the message types.
/// @tparam Traits Per-bus configuration, derived from DefaultBusTraits (traits.hpp).
template <typename PayloadVariant, typename Traits = DefaultBusTraits>
class AsyncBus : public detail::PublishApi<AsyncBus<PayloadVariant, Traits>,
                                           detail::BusConfig<PayloadVariant, Traits>>,
                 public compat::OriginalBusConstants<detail::BusConfig<PayloadVariant, Traits>>,
                 private detail::BusMonitor<detail::BusConfig<PayloadVariant, Traits>> {
  using Config = detail::BusConfig<PayloadVariant, Traits>;
  using Path = detail::BusMonitor<Config>;
  using Publisher = detail::PublishPath<Config>;
  friend class detail::PublishApi<AsyncBus, Config>;
  friend struct detail::DomainAccess;

 public:
  using Payload = PayloadVariant;                    ///< The payload variant.
  using Envelope = MessageEnvelope<PayloadVariant>;  ///< The full envelope.
  using EnvelopeType = Envelope;                     ///< The original MCCC's name.
  using TraitsType = Traits;                         ///< The configuration.
  using Position = typename Traits::Position;        ///< Ring position type.
  using PerformanceMode = ::mccc::PerformanceMode;   ///< So `Bus::PerformanceMode::X` works.
  using Admission = typename Config::Admission;      ///< The shared ring's thresholds.
  using CriticalSection = typename Config::CriticalSection;  ///< Single-core builds: the traits'.
  /// What a ring slot holds: Envelope, or (kCompactEnvelope) a CompactEnvelope.
  using StoredEnvelope = typename Config::StoredEnvelope;
  /// What subscribers and visitors are given: the slot's Envelope, or a DeliveredMessage that
  /// refers to the payload in its slot and carries a full header (bus/stored_envelope.hpp).
  using Delivered = typename Config::Delivered;

  static constexpr uint32_t kQueueDepth = Traits::kQueueDepth;  ///< Shared ring slots.
  /// LOW/MEDIUM messages one ProcessBatch call dispatches at most (and as many HIGH ones).
  static constexpr uint32_t kBatchSize = Traits::kBatchSize;
  /// Slots of the HIGH ring (0: HIGH messages travel with the others).
  static constexpr uint32_t kHighQueueDepth = Traits::kHighQueueDepth;
  /// true: slots hold a CompactEnvelope; subscribers get a DeliveredMessage.
  static constexpr bool kCompactEnvelope = Config::kCompactEnvelope;
  /// false: a compact bus with NullClock stores no timestamp (PublishFast's is refused).
  static constexpr bool kStoresTimestamp = Config::kStoresTimestamp;
  /// Producer lanes (0: every producer uses the shared ring), and the slots of each.
  static constexpr uint32_t kProducerLanes = Traits::kProducerLanes;
  static constexpr uint32_t kLaneDepth = Traits::kLaneDepth;

  /// @brief A bus with an empty queue and no subscribers. Allocates nothing: the rings are
  /// members, so give large buses static or heap storage (Instance(), std::make_unique).
  /// constexpr: where the clock and the platform allow it (NullClock or a clock with a constexpr
  /// reading; a single-core build, or no asymmetric fence), a bus in static storage is
  /// constant-initialised with no start-up code; a fresh bus is all zero bytes (ids are kept as
  /// "last delivered id" and "id minus one minus position" for that reason), so it lands in .bss.
  constexpr AsyncBus() noexcept : Path() { Config::Stamp::WarmUp(); }

#if MCCC_ENABLE_TEST_HOOKS
  /// @brief Test hook: a bus whose shared ring (and msg_id sequence) starts at
  /// `initial_position`.
  explicit AsyncBus(Position initial_position, uint64_t first_msg_id) noexcept
      : Path(initial_position, first_msg_id) {
    Config::Stamp::WarmUp();
  }
  /// @brief Test hook: see MpscRing::SetAfterClaimHook.
  void SetAfterClaimHook(void (*hook)(void*, Position), void* context) noexcept {
    this->rings_.Shared().SetAfterClaimHook(hook, context);
  }
  /// @brief Test hook: see MpscRing::SetAfterAnnounceHook.
  void SetAfterAnnounceHook(void (*hook)(void*, Position), void* context) noexcept {
    this->rings_.Shared().SetAfterAnnounceHook(hook, context);
  }
  /// @brief Test hook: called by a refusing producer after it observed the tail and before it
  /// computes the id it reports (lets a test delay it while the consumer moves on).
  void SetBeforeRejectReportHook(void (*hook)(void*), void* context) noexcept {
    this->before_reject_report_hook_ = hook;
    this->before_reject_report_context_ = context;
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
  /// call may come from several threads (or RTOS tasks) at once. Hosted: a function-local static.
  /// Bare metal: constructed in static storage on the first call and never destroyed (no guard
  /// variable, no destructor registration, no start-up code; detail::StaticInstance).
  static AsyncBus& Instance() noexcept {
#if MCCC_HOSTED
    static AsyncBus instance;
    return instance;
#else
    return detail::StaticInstance<AsyncBus, Traits::kSingleCore, CriticalSection>::Get();
#endif
  }

  /// @brief Bytes of one slot of the shared ring and of the HIGH ring: the stored envelope and
  /// a sequence word, rounded to their alignment (docs/porting.md, "Memory").
  static constexpr std::size_t SlotBytes() noexcept {
    return Config::Ring::SlotBytes();
  }

  // ---- Subscriptions -----------------------------------------------------------------------

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
    using Alternative = typename Config::template AlternativeFor<T>;
    static_assert(detail::kIsAlternative<Alternative, Payload>,
                  "mccc: Subscribe<T>: T is not an alternative of the bus payload variant; "
                  "subscribe to one of the std::variant's types or add T to it");
    constexpr std::size_t kIndex = detail::AlternativeIndex<Alternative, Payload>::value;
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
      static_assert(detail::kHandlesType<Fn, Alternative>,
                    "mccc: Subscribe<T>: the callback must be callable as f(const "
                    "MessageEnvelope<Payload>&), f(const T&, const MessageHeader&) or f(const T&)");
      return AddCallback<detail::TypedCallbackAdapter<kIndex, Delivered, Fn>>(
          kIndex, std::forward<F>(callback));
    }
  }

  /// @brief Removes a subscription. True the first time for a handle this bus returned; false
  /// (and nothing changes) for an invalid, foreign or already removed handle. Thread-safe; may be
  /// called from inside a callback, including the subscription's own. Called on the consumer
  /// thread, the callback never runs again; called on another thread, at most the one invocation
  /// the consumer had already started (or decided to start) for the message under way. The
  /// callable's captures are destroyed once that invocation cannot be running any more: at the
  /// end of the consumer's current batch if possible, else by the next Subscribe, Unsubscribe or
  /// dispatched batch.
  bool Unsubscribe(const SubscriptionHandle& handle) noexcept {
    return this->table_.Remove(handle);
  }

  /// @brief Live subscribers of T (snapshot). Thread-safe.
  template <typename T>
  std::size_t SubscriberCount() const noexcept {
    using Alternative = typename Config::template AlternativeFor<T>;
    static_assert(detail::kIsAlternative<Alternative, Payload>,
                  "mccc: SubscriberCount<T>: T is not an alternative of the bus payload variant");
    return this->table_.CountActive(detail::AlternativeIndex<Alternative, Payload>::value);
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

  // ---- Publishing: publish_api.hpp (Publish, PublishWithPriority, PublishFast, PublishEmplace,
  // PublishBatch). Large messages by loan: ---------------------------------------------------

  /// @brief The pool of loaned message type T (LoanPool: kCapacity, Admission, BlockBytes()).
  template <typename T>
  using LoanPoolOf = typename Config::PoolSet::template PoolType<T>;

  /// @brief Takes a block of T's pool and builds a T in it from `args` (no arguments:
  /// default-initialised, so a large buffer is not zeroed first). Fill it through the loan, then
  /// Publish(std::move(loan), sender_id). Pool admission is by `priority` (LoanAdmission; in
  /// kBareMetal mode up to the whole pool); Publish then admits the handle into a ring by its own
  /// priority, the loan's unless given. Returns an empty loan, counts the refusal and reports
  /// kLoanRefused (msg_id 0) when the pool refuses; an empty loan and kInvalidMessage when
  /// `priority` is not an enumerator. Thread-safe, lock-free, never allocates (docs/loans.md).
  template <typename T, typename... Args>
  MessageLoan<T> Loan(MessagePriority priority, Args&&... args) noexcept {
    static_assert(Config::template kTravelsByLoan<T>,
                  "mccc: Loan<T>: T does not travel by loan on this bus; list mccc::Loaned<T> in "
                  "the payload variant and mccc::PoolOf<T, N> in Traits::LoanPools, or publish T "
                  "inline with Publish");
    const PerformanceMode mode = this->LoadMode();
    if (MCCC_UNLIKELY(static_cast<std::size_t>(priority) >= kPriorityCount)) {
      this->ReportError(mode, BusError::kInvalidMessage, 0U);
      return MessageLoan<T>{};
    }
    using Pool = LoanPoolOf<T>;
    const uint32_t limit =
        mode == PerformanceMode::kBareMetal ? Pool::kCapacity : Pool::Admission::LimitFor(priority);
    auto& pool = this->template PoolFor<T>();
    // On a refusal, a callback loaning from a pool whose blocks its own batch released (a relay
    // forwarding what it receives) returns them and tries again. Only then: the check reads a
    // thread-local variable, which a loan that is granted need not pay for.
    MessageLoan<T> granted(pool.TryLoanOrElse(
        priority, limit, mode == PerformanceMode::kFullFeatured,
        [this, &pool]() noexcept {
          if (this->guard_.IsThisThreadInBatch() && pool.HasReleased()) {
            pool.ReturnReleased();
            return true;
          }
          return false;
        },
        std::forward<Args>(args)...));
    if (MCCC_UNLIKELY(!granted)) {
      this->ReportError(mode, BusError::kLoanRefused, 0U);
    }
    return granted;
  }

  /// @brief A reference-counted read-only handle to the loaned message `message` refers to, to
  /// keep it beyond the callback; its block returns to the pool when the last handle goes, on
  /// whichever thread. Empty when `message` is not a loaned message of this bus that is alive
  /// (e.g. a copy). Call it while your reference is valid. Thread-safe, lock-free.
  template <typename T>
  Retained<T> Retain(const T& message) noexcept {
    static_assert(Config::template kTravelsByLoan<T>,
                  "mccc: Retain(message): this message type does not travel by loan on this bus, "
                  "so its callbacks see a slot that is reused after them; copy the message to keep "
                  "it");
    return this->template PoolFor<T>().Retain(message);
  }

  /// @brief The counters of T's pool (capacity, in use, high-water mark, granted, refused per
  /// priority; the counters count in kFullFeatured only). Thread-safe.
  template <typename T>
  LoanPoolStatistics GetLoanStatistics() const noexcept {
    static_assert(Config::template kTravelsByLoan<T>,
                  "mccc: GetLoanStatistics<T>: T does not travel by loan on this bus");
    return this->template PoolFor<T>().Statistics();
  }

  // ---- Producer handles ----------------------------------------------------------------------

  /// @brief A producer identity owned by an object instead of a thread (a thread pool, a task
  /// that migrates between threads). It owns a statistics shard and, when the bus has producer
  /// lanes and one is free, a lane of its own, exactly as a publishing thread does; both return
  /// when the handle is destroyed. The publish calls are the bus's (publish_api.hpp). Use it
  /// from one thread at a time; hand it over through the user's own synchronisation. Move-only.
  /// A default-constructed or moved-from handle publishes nothing (its calls return false / 0).
  class Producer : public detail::PublishApi<Producer, Config> {
   public:
    Producer() noexcept = default;
    Producer(Producer&& other) noexcept
        : bus_(std::exchange(other.bus_, nullptr)),
          index_(std::exchange(other.index_, detail::kNoThreadShard)) {}
    Producer& operator=(Producer&& other) & noexcept {
      if (this != &other) {
        Release();
        bus_ = std::exchange(other.bus_, nullptr);
        index_ = std::exchange(other.index_, detail::kNoThreadShard);
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

   private:
    friend class AsyncBus;
    friend class detail::PublishApi<Producer, Config>;
    Producer(AsyncBus& bus, uint32_t index) noexcept : bus_(&bus), index_(index) {}

    MCCC_ALWAYS_INLINE detail::PublishTarget<Publisher> PublishTarget() const noexcept {
      return {bus_ == nullptr ? nullptr : static_cast<Publisher*>(bus_), index_};
    }

    void Release() noexcept {
      if (bus_ != nullptr) {
        // The handle stops using its identity before the identity returns to the registry
        // (detail::ReturnLeasedIndex says why).
        const uint32_t index = std::exchange(index_, detail::kNoThreadShard);
        bus_ = nullptr;
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

  // ---- Consuming: the one consumer thread (consume_path.hpp) --------------------------------
  using Path::ProcessBatch;
  using Path::ProcessBatchWith;
  using Path::WaitForMessages;
  using Path::WakeConsumer;

  // ---- Snapshots, statistics, settings: thread-safe (bus_monitor.hpp) -----------------------
  using Path::Capacity;
  using Path::GetBackpressureLevel;
  using Path::GetErrorCallback;
  using Path::GetLaneStatistics;
  using Path::GetPerformanceMode;
  using Path::GetStatistics;
  using Path::HasConsumed;
  using Path::HighQueueDepth;
  using Path::HighRingOccupancy;
  using Path::IsLaneIndex;
  using Path::LaneCount;
  using Path::LaneOccupancy;
  using Path::LaneQueueDepth;
  using Path::MarkClaimed;
  using Path::QueueDepth;
  using Path::QueueOccupancy;
  using Path::QueueUtilizationPercent;
  using Path::ResetStatistics;
  using Path::SetErrorCallback;
  using Path::SetPerformanceMode;
  using Path::TotalCapacity;
  using typename Path::ClaimMark;

 private:
  MCCC_ALWAYS_INLINE detail::PublishTarget<Publisher> PublishTarget() noexcept {
    return {static_cast<Publisher*>(this), Path::CurrentProducer()};
  }

  template <typename Adapter, typename F>
  SubscriptionHandle AddCallback(std::size_t index, F&& callback) noexcept {
    static_assert(sizeof(Adapter) <= Traits::kCallbackStorageBytes,
                  "mccc: the subscriber callable is larger than the bus's callback storage; "
                  "capture less (e.g. a pointer) or raise kCallbackStorageBytes "
                  "(MCCC_CALLBACK_STORAGE_BYTES) in the bus traits");
    return this->table_.Add(index,
                            typename Config::Table::Callback(Adapter{std::forward<F>(callback)}));
  }
};

}  // namespace mccc

#endif  // MCCC_BUS_ASYNC_BUS_HPP_
