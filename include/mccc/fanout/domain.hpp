// SPDX-License-Identifier: MIT
/// @file domain.hpp
/// @brief `mccc::Domain`: fan-out. One publish reaches every consumer subscribed to the message's
/// type; each consumer has a queue of its own and runs on its own thread (or in its turn in a
/// cooperative loop), so none delays, starves or refuses for another.
///
/// @code
/// struct SafetyTraits : mccc::DefaultBusTraits { static constexpr uint32_t kQueueDepth = 256; };
/// struct LoggerTraits : mccc::DefaultBusTraits { static constexpr uint32_t kQueueDepth = 4096; };
/// using Lidar = mccc::Domain<Payload, SafetyTraits, LoggerTraits>;   // consumer 0, consumer 1
/// auto lidar = std::make_unique<Lidar>();
/// lidar->Consumer<0>().Subscribe<Scan>([](const Scan& s) { CheckClearance(s); });
/// lidar->Consumer<1>().Subscribe<Scan>([](const Scan& s) { Log(s); });
/// mccc::ActiveObject<Lidar::ConsumerBus<0>> safety(lidar->Consumer<0>());   // its own thread
/// mccc::ActiveObject<Lidar::ConsumerBus<1>> logger(lidar->Consumer<1>());
/// lidar->Publish(scan, kLidarId);   // both receive it; a slow logger delays only itself
/// @endcode
///
/// ## What a consumer is
/// Consumer I is an `AsyncBus<Payload, ConsumerTraits_I>` owned by the domain (with loaned types,
/// traits derived from ConsumerTraits_I that share the domain's pools: ConsumerTraitsOf<I>): its
/// own depth, HIGH ring, producer lanes, admission limits, statistics and error callback,
/// everything a bus has. It is used as a bus: Subscribe (or a Component / StaticComponent on it),
/// ProcessBatch, ProcessBatchWith, WaitForMessages, an ActiveObject, GetStatistics. Its HIGH ring
/// is dispatched ahead of its own backlog exactly as a bus's (G-2, per consumer). Publishing on the
/// consumer's bus directly reaches that consumer only.
///
/// A consumer that dispatches with a visitor (ProcessBatchWith, a StaticComponent) subscribes to
/// nothing: ReceiveAll<I>() routes every type to it.
///
/// ## Publishing once
/// Publish, PublishWithPriority, PublishFast, PublishEmplace and PublishBatch read the set of
/// consumers subscribed to the type (one atomic load: subscribed_consumers.hpp), read the clock
/// once, and copy the message into the queue of each of them, in consumer order, by that
/// consumer's own publish (its admission, counting, error reporting and wake-up). Lock-free, no
/// heap; the cost grows with the consumers subscribed to the type, not with all of them. The
/// subscriptions may change at any time, on any thread, as on a bus.
///
/// Admission is per consumer: a consumer whose queue refuses (full, or its LOW / MEDIUM limit)
/// loses its own copy only. It counts the refusal in its statistics and reports kQueueFull to its
/// own error callback and to the domain's, which is told the consumer's index. The result
/// (FanOutResult) names the consumers that admitted the message and those that refused it.
///
/// Loans: a type listed as `Loaned<T>` is loaned from the domain's pool (`Loan<T>`, the pools
/// that every consumer's traits name, held once by the domain) and published to all subscribed
/// consumers as one block: each consumer's queue holds a 16-byte reference, and the block
/// returns when the last consumer's last callback has run (or the last Retained handle goes).
///
/// Order: the messages one producer publishes at one priority reach each consumer in the order
/// of the calls (each consumer's ring keeps it, as on a bus); across consumers there is no order.
///
/// ## Freedom from interference
/// Consumers share nothing on the publish path but the read-only subscription word: a consumer
/// blocked inside a callback, or never polled, fills only its own queue; the others' admissions
/// and dispatch are unchanged. The producer pays one claim per subscribed consumer.
///
/// ## Cooperative scheduling (bare metal)
/// DispatchHighestReady() dispatches one batch of the highest-priority consumer that has a
/// message ready (consumer 0 is the highest), like QP's QV kernel: a main loop that calls it
/// runs its consumers by priority, while interrupts publish.
///
/// Thread-safety: every publish call, Loan, Retain, MakeProducer, ReceiveAll, Subscribe and
/// Unsubscribe on a consumer, statistics and the error callback setting: any thread, any time. A
/// Producer handle: one thread at a time. A consumer's ProcessBatch (and DispatchHighestReady for
/// the consumers it runs): that consumer's one consumer thread.
#ifndef MCCC_FANOUT_DOMAIN_HPP_
#define MCCC_FANOUT_DOMAIN_HPP_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "mccc/bus/async_bus.hpp"
#include "mccc/bus/domain_access.hpp"
#include "mccc/config.hpp"
#include "mccc/detail/variant_traits.hpp"
#include "mccc/fanout/domain_producer.hpp"
#include "mccc/fanout/fan_out_result.hpp"
#include "mccc/fanout/subscribed_consumers.hpp"
#include "mccc/message.hpp"
#include "mccc/statistics/thread_shard.hpp"

namespace mccc {

/// @brief The domain's error callback: the consumer that reported (its index; kNoConsumer for an
/// error of the call itself, such as a priority that is not an enumerator), the error and the
/// msg_id as the consumer's bus reports it. Called on the thread that met the error.
using DomainErrorCallback = void (*)(uint32_t consumer, BusError error, uint64_t msg_id);

/// @brief What DispatchHighestReady did: the consumer it ran (kNoConsumer: none had a message)
/// and how many messages that batch dispatched.
struct DispatchOutcome {
  uint32_t consumer;
  uint32_t dispatched;
};

/// @brief "No consumer" in DispatchOutcome and DomainErrorCallback.
inline constexpr uint32_t kNoConsumer = ~uint32_t{0};

namespace detail {

/// @brief A domain consumer's bus traits: the user's, with the loan pools shared (the domain
/// owns them, loans/shared_loan_pools.hpp) when the payload has loaned alternatives.
template <typename Traits>
struct DomainConsumerTraits : Traits {
  static constexpr bool kSharesLoanPools = true;
};
template <typename Traits>
using DomainConsumerTraitsOf =
    std::conditional_t<std::is_same_v<typename Traits::LoanPools, LoanPools<>>, Traits,
                       DomainConsumerTraits<Traits>>;

}  // namespace detail

/// @brief A fan-out domain of consumers (see the file comment).
/// @tparam PayloadVariant The message types, shared by every consumer.
/// @tparam ConsumerTraits One bus traits class per consumer, highest priority first.
template <typename PayloadVariant, typename... ConsumerTraits>
class Domain {
  using Buses =
      std::tuple<AsyncBus<PayloadVariant, detail::DomainConsumerTraitsOf<ConsumerTraits>>...>;
  // DefaultBusTraits only stands in when none is given, so that the static_assert below speaks.
  using FirstTraits = std::tuple_element_t<0U, std::tuple<ConsumerTraits..., DefaultBusTraits>>;
  using FirstConfig = detail::BusConfig<PayloadVariant, FirstTraits>;
  using Clock = typename FirstTraits::Clock;
  using Pools =
      detail::LoanPoolSet<typename FirstTraits::LoanPools, FirstTraits::kSingleCore,
                          typename FirstConfig::CriticalSection, FirstTraits::kCacheLineSize>;
  static constexpr std::size_t kTypes = std::variant_size_v<PayloadVariant>;
  static constexpr bool kHasLoans = FirstConfig::kHasLoans;

  static_assert(sizeof...(ConsumerTraits) >= 1U && sizeof...(ConsumerTraits) <= kMaxDomainConsumers,
                "mccc: Domain<Payload, ConsumerTraits...>: give 1 to 32 consumer traits (one bus "
                "per consumer)");
  static_assert((std::is_same_v<typename ConsumerTraits::Clock, Clock> && ...),
                "mccc: Domain: every consumer's traits must name the same Clock, since a fan-out "
                "publish reads the clock once for all its copies");
  static_assert(((ConsumerTraits::kSingleCore == FirstTraits::kSingleCore) && ...),
                "mccc: Domain: the consumers' traits must agree on kSingleCore (the domain's "
                "subscription words are shared by all of them)");
  static_assert(
      (std::is_same_v<typename ConsumerTraits::LoanPools, typename FirstTraits::LoanPools> && ...),
      "mccc: Domain: every consumer's traits must name the same LoanPools: the domain "
      "holds those pools once and its consumers share them (one block per loaned "
      "message, whatever the fan-out)");

 public:
  using Payload = PayloadVariant;  ///< The payload variant.
  /// A producer identity owned by an object (MakeProducer; fanout/domain_producer.hpp).
  using Producer = DomainProducer<Domain>;
  /// Consumers in the domain.
  static constexpr std::size_t kConsumerCount = sizeof...(ConsumerTraits);
  /// Every consumer (the default set of DispatchHighestReady).
  static constexpr ConsumerMask kAllConsumers = kConsumerCount == kMaxDomainConsumers
                                                    ? ~ConsumerMask{0}
                                                    : (ConsumerMask{1} << kConsumerCount) - 1U;
  /// The bus type of consumer I.
  template <std::size_t I>
  using ConsumerBus = std::tuple_element_t<I, Buses>;
  /// The traits of consumer I's bus: ConsumerTraits_I, or (a payload with loaned alternatives)
  /// a class derived from it that shares the domain's loan pools. Name it for a Component on
  /// that consumer: `Component<Payload, Domain::ConsumerTraitsOf<I>>`.
  template <std::size_t I>
  using ConsumerTraitsOf = typename ConsumerBus<I>::TraitsType;
  /// The pool of loaned message type T (LoanPool: kCapacity, Admission, BlockBytes()).
  template <typename T>
  using LoanPoolOf = typename Pools::template PoolType<T>;

  /// @brief A domain whose consumers have empty queues and no subscribers. Allocates nothing:
  /// every consumer's rings are members, so give a large domain static or heap storage.
  Domain() noexcept { Attach(std::make_index_sequence<kConsumerCount>{}); }
  /// @brief Requires that no thread publishes or consumes any more. Destroys what is still
  /// queued, undelivered.
  ~Domain() { Detach(std::make_index_sequence<kConsumerCount>{}); }
  Domain(const Domain&) = delete;
  Domain& operator=(const Domain&) = delete;
  Domain(Domain&&) = delete;
  Domain& operator=(Domain&&) = delete;

  /// @brief Consumer I: a bus of its own (see the file comment).
  template <std::size_t I>
  ConsumerBus<I>& Consumer() noexcept {
    static_assert(I < kConsumerCount, "mccc: Domain::Consumer<I>: I is not below kConsumerCount");
    return std::get<I>(buses_);
  }
  template <std::size_t I>
  const ConsumerBus<I>& Consumer() const noexcept {
    static_assert(I < kConsumerCount, "mccc: Domain::Consumer<I>: I is not below kConsumerCount");
    return std::get<I>(buses_);
  }

  /// @brief The consumers a T goes to now: those subscribed to it, and those that receive all
  /// (snapshot). Thread-safe.
  template <typename T>
  ConsumerMask SubscribersOf() const noexcept {
    if constexpr (detail::kIsAlternative<Loaned<T>, Payload>) {
      return subscribed_.Of(LoanedIndexOf<T>());
    } else {
      return subscribed_.Of(IndexOf<T>());
    }
  }

  /// @brief Consumer I receives every message published to the domain (`on`), subscribed or
  /// not, or (false) only the types it subscribes to. For a consumer that dispatches with a
  /// visitor (ProcessBatchWith, a StaticComponent): it has no subscriptions to route by.
  /// Thread-safe.
  template <std::size_t I>
  void ReceiveAll(bool on = true) noexcept {
    static_assert(I < kConsumerCount, "mccc: Domain::ReceiveAll<I>: I is not below kConsumerCount");
    subscribed_.ReceiveAll(I, on);
  }

  // ---- Publishing -----------------------------------------------------------------------------

  /// @brief Publishes `message` with MEDIUM priority to every consumer subscribed to its type,
  /// timestamped by one clock reading. See FanOutResult for what is returned. Each consumer's
  /// copy is published as the calling thread (its producer lane there, if it has one).
  template <typename T>
  FanOutResult Publish(const T& message, uint32_t sender_id) noexcept {
    return CopyAs(kCallingThread, message, sender_id, MessagePriority::kMedium, true, 0U);
  }

  /// @brief As Publish, with an explicit priority, admitted by each consumer's own limits. A
  /// priority that is not an enumerator reaches nobody: kInvalidMessage is reported (consumer
  /// kNoConsumer) and every subscribed consumer is named refused.
  template <typename T>
  FanOutResult PublishWithPriority(const T& message, uint32_t sender_id,
                                   MessagePriority priority) noexcept {
    return CopyAs(kCallingThread, message, sender_id, priority, true, 0U);
  }

  /// @brief As PublishWithPriority with a caller-supplied timestamp: no clock read.
  template <typename T>
  FanOutResult PublishFast(const T& message, uint32_t sender_id, uint64_t timestamp_us,
                           MessagePriority priority = MessagePriority::kMedium) noexcept {
    return CopyAs(kCallingThread, message, sender_id, priority, false, timestamp_us);
  }

  /// @brief Builds a T from `args` once, then publishes it as PublishWithPriority.
  template <typename T, typename... Args>
  FanOutResult PublishEmplace(uint32_t sender_id, MessagePriority priority,
                              Args&&... args) noexcept {
    return EmplaceAs<T>(kCallingThread, sender_id, priority, std::forward<Args>(args)...);
  }

  /// @brief Publishes `messages[0, count)` to every consumer subscribed to T: each consumer runs
  /// the bus's PublishBatch (one claim, a prefix admitted, refusals counted and reported there).
  template <typename T>
  FanOutBatchResult<kConsumerCount> PublishBatch(
      const T* messages, uint32_t count, uint32_t sender_id,
      MessagePriority priority = MessagePriority::kMedium) noexcept {
    return BatchAs(kCallingThread, messages, count, sender_id, priority);
  }

  /// @brief A producer identity owned by an object instead of a thread (a thread pool, a task
  /// that migrates), as AsyncBus::MakeProducer: one process-wide identity, used on every
  /// consumer's bus (its own lane there when the consumer has lanes and the index is below their
  /// number; its statistics shard). The same publish calls as the domain's. Thread-safe.
  Producer MakeProducer() noexcept {
    return Producer(*this, detail::ThreadShardRegistry::Global().Acquire());
  }

  // ---- Loans: one block for every consumer --------------------------------------------------

  /// @brief Takes a block of T's pool (the domain's, shared by every consumer) and builds a T in
  /// it from `args`, exactly as AsyncBus::Loan: pool admission by `priority` (LoanAdmission). An
  /// empty loan when refused (kLoanRefused, or kInvalidMessage for a priority that is not an
  /// enumerator, reported with consumer kNoConsumer). Thread-safe, lock-free, no heap.
  template <typename T, typename... Args>
  MessageLoan<T> Loan(MessagePriority priority, Args&&... args) noexcept {
    static_assert(detail::kIsAlternative<Loaned<T>, Payload>,
                  "mccc: Domain::Loan<T>: T does not travel by loan here; list mccc::Loaned<T> in "
                  "the payload variant and mccc::PoolOf<T, N> in the consumers' LoanPools");
    if (!CheckPriority(priority)) {
      return MessageLoan<T>{};
    }
    MessageLoan<T> granted = pools_.template PoolFor<T>().TryLoan(
        priority, LoanPoolOf<T>::Admission::LimitFor(priority), true, std::forward<Args>(args)...);
    if (MCCC_UNLIKELY(!granted)) {
      Report(kNoConsumer, BusError::kLoanRefused, 0U);
    }
    return granted;
  }

  /// @brief Publishes a loan to every consumer subscribed to T: each gets a reference to the one
  /// block (16 bytes in its queue), admitted by its own ring; the block returns when the last
  /// consumer's last callback has run (or the last Retained handle goes). The loan is taken from
  /// the caller when at least one consumer admitted it (or none is subscribed: the block returns
  /// at once); when every subscribed consumer refused, it stays with the caller, intact. A
  /// refusing consumer keeps no reference. An empty loan, or one of another pool, reaches nobody
  /// (kInvalidMessage, kForeignLoan). Priority: the loan's.
  template <typename T>
  FanOutResult Publish(MessageLoan<T>&& loan, uint32_t sender_id) noexcept {
    const MessagePriority priority = loan.Priority();
    return PublishLoan(kCallingThread, std::move(loan), sender_id, priority, Clock::NowUs());
  }
  /// @brief Publish of a loan with an explicit priority (its ring admission; the pool admitted
  /// it at the loan's).
  template <typename T>
  FanOutResult PublishWithPriority(MessageLoan<T>&& loan, uint32_t sender_id,
                                   MessagePriority priority) noexcept {
    return PublishLoan(kCallingThread, std::move(loan), sender_id, priority, Clock::NowUs());
  }
  /// @brief Publish of a loan with a caller-supplied timestamp.
  template <typename T>
  FanOutResult PublishFast(MessageLoan<T>&& loan, uint32_t sender_id,
                           uint64_t timestamp_us) noexcept {
    const MessagePriority priority = loan.Priority();
    return PublishLoan(kCallingThread, std::move(loan), sender_id, priority, timestamp_us);
  }
  template <typename T>
  FanOutResult PublishFast(MessageLoan<T>&& loan, uint32_t sender_id, uint64_t timestamp_us,
                           MessagePriority priority) noexcept {
    return PublishLoan(kCallingThread, std::move(loan), sender_id, priority, timestamp_us);
  }

  /// @brief A reference-counted handle to the loaned message `message` refers to (inside any
  /// consumer's callback), as AsyncBus::Retain. Thread-safe.
  template <typename T>
  Retained<T> Retain(const T& message) noexcept {
    static_assert(detail::kIsAlternative<Loaned<T>, Payload>,
                  "mccc: Domain::Retain(message): this type does not travel by loan here");
    return pools_.template PoolFor<T>().Retain(message);
  }

  /// @brief The counters of T's pool (shared by the consumers). Thread-safe.
  template <typename T>
  LoanPoolStatistics GetLoanStatistics() const noexcept {
    static_assert(detail::kIsAlternative<Loaned<T>, Payload>,
                  "mccc: Domain::GetLoanStatistics<T>: T does not travel by loan here");
    return pools_.template PoolFor<T>().Statistics();
  }

  /// @brief Zeroes the counters of every pool (a consumer's ResetStatistics leaves the shared
  /// pools' counters alone). Thread-safe.
  void ResetLoanStatistics() noexcept { pools_.ResetAll(); }

  // ---- Scheduling -----------------------------------------------------------------------------

  /// @brief One ProcessBatch of the highest-priority consumer in `among` (lowest index first)
  /// that has a message ready; the consumers before it are polled and found empty. Returns that
  /// consumer and the messages dispatched, or kNoConsumer when none in `among` had any. Call it
  /// from the one thread that consumes every consumer in `among` (a main loop, an RTOS task).
  DispatchOutcome DispatchHighestReady(ConsumerMask among = kAllConsumers) noexcept {
    return DispatchFirst(among, std::make_index_sequence<kConsumerCount>{});
  }

  // ---- Errors ---------------------------------------------------------------------------------

  /// @brief Installs the domain's error callback (nullptr: none), told of every error of every
  /// consumer with its index, besides that consumer's own callback. Thread-safe.
  void SetErrorCallback(DomainErrorCallback callback) noexcept {
    // release: pairs with the acquire load in Report (as AsyncBus::SetErrorCallback).
    error_callback_.store(callback, std::memory_order_release);
  }
  /// @brief The domain's error callback. Thread-safe.
  DomainErrorCallback GetErrorCallback() const noexcept {
    // acquire: pairs with SetErrorCallback's release store.
    return error_callback_.load(std::memory_order_acquire);
  }

 private:
  friend class DomainProducer<Domain>;

  /// The producer identity of the domain's own publish calls: each consumer's copy goes as the
  /// calling thread (its lane on that consumer, or its statistics shard).
  static constexpr uint32_t kCallingThread = ~uint32_t{0};
  /// The domain's clock now (a handle's loan publish reads it here).
  static uint64_t ReadClock() noexcept { return Clock::NowUs(); }

  /// One consumer's error sink: knows its domain and its index.
  struct ConsumerSink : detail::ErrorSink {
    Domain* domain = nullptr;
    uint32_t consumer = 0U;
  };

  /// The alternative index of an inline message type T (what the public calls copy).
  template <typename T>
  static constexpr std::size_t IndexOf() noexcept {
    static_assert(!detail::MessageLoanTraits<T>::kIsLoan,
                  "mccc: Domain: a loan is unique and is published by moving it: "
                  "Publish(std::move(loan), sender)");
    static_assert(!detail::kIsAlternative<Loaned<T>, Payload>,
                  "mccc: Domain: this message type travels by loan here (the variant lists "
                  "mccc::Loaned<T>); take a block with domain.Loan<T>(priority), fill it and "
                  "Publish(std::move(loan), sender)");
    static_assert(detail::kIsAlternative<T, Payload>,
                  "mccc: Domain: the message type is not an alternative of the payload variant; "
                  "publish one of the std::variant's types (exactly, no conversion) or add it");
    return detail::AlternativeIndex<T, Payload>::value;
  }
  /// The alternative index of loaned message type T (Loaned<T>).
  template <typename T>
  static constexpr std::size_t LoanedIndexOf() noexcept {
    return detail::AlternativeIndex<Loaned<T>, Payload>::value;
  }

  bool CheckPriority(MessagePriority priority) const noexcept {
    if (MCCC_UNLIKELY(static_cast<std::size_t>(priority) >= kPriorityCount)) {
      Report(kNoConsumer, BusError::kInvalidMessage, 0U);
      return false;
    }
    return true;
  }

  // ---- The publish calls, for a producer identity: kCallingThread (the domain's own calls) or a
  // Producer handle's index. ---------------------------------------------------------------

  /// `read_clock`: one clock reading for every copy; false: the caller's `timestamp_us`.
  template <typename T>
  FanOutResult CopyAs(uint32_t producer, const T& message, uint32_t sender_id,
                      MessagePriority priority, bool read_clock, uint64_t timestamp_us) noexcept {
    const ConsumerMask subscribed = subscribed_.Of(IndexOf<T>());
    if (subscribed == 0U || !CheckPriority(priority)) {
      return FanOutResult{subscribed, 0U};
    }
    const uint64_t stamp = read_clock ? Clock::NowUs() : timestamp_us;
    return FanOutResult{subscribed, CopyEach(producer, subscribed, message, sender_id, priority,
                                             stamp, std::make_index_sequence<kConsumerCount>{})};
  }

  template <typename T, typename... Args>
  FanOutResult EmplaceAs(uint32_t producer, uint32_t sender_id, MessagePriority priority,
                         Args&&... args) noexcept {
    static_assert(std::is_nothrow_constructible_v<T, Args...>,
                  "mccc: Domain::PublishEmplace<T>: T must be nothrow-constructible from these "
                  "arguments (it is built once, then copied to each consumer)");
    const T message(std::forward<Args>(args)...);
    return CopyAs(producer, message, sender_id, priority, true, 0U);
  }

  template <typename T>
  FanOutBatchResult<kConsumerCount> BatchAs(uint32_t producer, const T* messages, uint32_t count,
                                            uint32_t sender_id, MessagePriority priority) noexcept {
    FanOutBatchResult<kConsumerCount> result{};
    result.count = count;
    result.subscribed = subscribed_.Of(IndexOf<T>());
    if (result.subscribed == 0U || count == 0U) {
      return result;
    }
    if (!CheckPriority(priority) || messages == nullptr) {
      Report(kNoConsumer, BusError::kInvalidMessage, 0U);
      return result;
    }
    BatchEach(producer, result, messages, sender_id, priority,
              std::make_index_sequence<kConsumerCount>{});
    return result;
  }

  template <typename T, std::size_t... I>
  ConsumerMask CopyEach(uint32_t producer, ConsumerMask subscribed, const T& message,
                        uint32_t sender_id, MessagePriority priority, uint64_t timestamp_us,
                        std::index_sequence<I...> /*consumers*/) noexcept {
    ConsumerMask admitted = 0U;
    // Every subscribed consumer in turn (a comma fold: one consumer's refusal stops nothing).
    static_cast<void>(
        (((((subscribed >> I) & 1U) != 0U &&
           PublishTo(std::get<I>(buses_), producer, message, sender_id, priority, timestamp_us))
              ? (admitted |= ConsumerMask{1} << I)
              : 0U),
         ...));
    return admitted;
  }

  /// One consumer's copy, by that consumer's own publish: as the calling thread (the bus's
  /// public call), or as a handle's identity (bus/domain_access.hpp).
  template <typename Bus, typename T>
  MCCC_ALWAYS_INLINE static bool PublishTo(Bus& bus, uint32_t producer, T&& message,
                                           uint32_t sender_id, MessagePriority priority,
                                           uint64_t timestamp_us) noexcept {
    return detail::DomainAccess::PublishAs(bus, IdentityOn<Bus>(producer), std::forward<T>(message),
                                           sender_id, priority, timestamp_us);
  }

  /// The identity a copy is published as on `Bus`: a handle's, or for the domain's own calls the
  /// calling thread's there (what the bus's own publish calls use). Selecting the identity, not
  /// the call, keeps one publish body per consumer.
  template <typename Bus>
  MCCC_ALWAYS_INLINE static uint32_t IdentityOn(uint32_t producer) noexcept {
    return producer == kCallingThread ? detail::DomainAccess::CallingProducer<Bus>() : producer;
  }

  template <typename T, std::size_t... I>
  void BatchEach(uint32_t producer, FanOutBatchResult<kConsumerCount>& result, const T* messages,
                 uint32_t sender_id, MessagePriority priority,
                 std::index_sequence<I...> /*consumers*/) noexcept {
    const auto batch_to = [&](auto& bus) noexcept {
      return detail::DomainAccess::PublishBatchAs(
          bus, IdentityOn<std::remove_reference_t<decltype(bus)>>(producer), messages, result.count,
          sender_id, priority);
    };
    static_cast<void>(((((result.subscribed >> I) & 1U) != 0U
                            ? (result.admitted[I] = batch_to(std::get<I>(buses_)))
                            : 0U),
                       ...));
  }

  template <typename T>
  FanOutResult PublishLoan(uint32_t producer, MessageLoan<T>&& loan, uint32_t sender_id,
                           MessagePriority priority, uint64_t timestamp_us) noexcept {
    const ConsumerMask subscribed = subscribed_.Of(LoanedIndexOf<T>());
    if (MCCC_UNLIKELY(!loan)) {
      Report(kNoConsumer, BusError::kInvalidMessage, 0U);
      return FanOutResult{subscribed, 0U};
    }
    if (MCCC_UNLIKELY(!pools_.template PoolFor<T>().Owns(*detail::LoanAccess::BlockOf(loan)))) {
      Report(kNoConsumer, BusError::kForeignLoan, 0U);
      return FanOutResult{subscribed, 0U};
    }
    if (!CheckPriority(priority)) {
      return FanOutResult{subscribed, 0U};
    }
    if (subscribed == 0U) {
      loan.Reset();  // published to nobody: the block returns now
      return FanOutResult{0U, 0U};
    }
    const ConsumerMask admitted =
        LoanEach(producer, subscribed, loan, sender_id, priority, timestamp_us,
                 std::make_index_sequence<kConsumerCount>{});
    if (admitted != 0U) {
      // The queued references keep the block; the caller's is dropped (it may be the last one
      // already, when every consumer has dispatched its copy: the block returns then).
      loan.Reset();
    }
    return FanOutResult{subscribed, admitted};
  }

  /// Every subscribed consumer gets a reference of its own (LoanAccess::Share); a refused one is
  /// dropped at once, so a refusing consumer keeps nothing. The caller's own reference stays in
  /// `loan` until all are done.
  template <typename T, std::size_t... I>
  ConsumerMask LoanEach(uint32_t producer, ConsumerMask subscribed, const MessageLoan<T>& loan,
                        uint32_t sender_id, MessagePriority priority, uint64_t timestamp_us,
                        std::index_sequence<I...> /*consumers*/) noexcept {
    ConsumerMask admitted = 0U;
    const auto publish_to = [&](auto& bus, ConsumerMask bit) noexcept {
      MessageLoan<T> share = detail::LoanAccess::Share(loan);
      if (PublishTo(bus, producer, std::move(share), sender_id, priority, timestamp_us)) {
        admitted |= bit;
      }
      // A refused share is still in `share`: its destructor drops the reference (never the
      // last: the caller's loan holds one).
    };
    static_cast<void>((
        (((subscribed >> I) & 1U) != 0U ? (publish_to(std::get<I>(buses_), ConsumerMask{1} << I), 0)
                                        : 0),
        ...));
    return admitted;
  }

  template <std::size_t... I>
  DispatchOutcome DispatchFirst(ConsumerMask among,
                                std::index_sequence<I...> /*consumers*/) noexcept {
    DispatchOutcome outcome{kNoConsumer, 0U};
    // Stops at the first consumer whose batch dispatched something.
    static_cast<void>(((((among >> I) & 1U) != 0U &&
                        (outcome.dispatched = std::get<I>(buses_).ProcessBatch()) != 0U &&
                        ((outcome.consumer = static_cast<uint32_t>(I)), true)) ||
                       ...));
    return outcome;
  }

  template <std::size_t... I>
  void Attach(std::index_sequence<I...> /*consumers*/) noexcept {
    if constexpr (kHasLoans) {
      (detail::DomainAccess::AttachLoanPools(std::get<I>(buses_), pools_), ...);
    }
    ((sinks_[I].report = &ReportFromSink, sinks_[I].domain = this,
      sinks_[I].consumer = static_cast<uint32_t>(I),
      detail::DomainAccess::SetErrorSink(std::get<I>(buses_), &sinks_[I]),
      detail::DomainAccess::SetSubscriptionWatch(std::get<I>(buses_), subscribed_.WatchOf(I))),
     ...);
  }

  template <std::size_t... I>
  void Detach(std::index_sequence<I...> /*consumers*/) noexcept {
    // The buses outlive this call (members destroyed after the body) and may still destroy
    // subscriptions: they must no longer tell the domain's parts.
    ((detail::DomainAccess::SetSubscriptionWatch(std::get<I>(buses_), nullptr),
      detail::DomainAccess::SetErrorSink(std::get<I>(buses_), nullptr)),
     ...);
  }

  static void ReportFromSink(const detail::ErrorSink& sink, BusError error,
                             uint64_t msg_id) noexcept {
    const auto& mine = static_cast<const ConsumerSink&>(sink);
    mine.domain->Report(mine.consumer, error, msg_id);
  }

  void Report(uint32_t consumer, BusError error, uint64_t msg_id) const noexcept {
    const DomainErrorCallback callback = GetErrorCallback();
    if (callback != nullptr) {
      callback(consumer, error, msg_id);
    }
  }

  // The set read by every publish first, on a line of its own (it is written only when a
  // consumer gains or loses its first subscriber of a type).
  alignas(FirstConfig::kLine)
      detail::SubscribedConsumers<kTypes, kConsumerCount, FirstTraits::kSingleCore,
                                  typename FirstConfig::CriticalSection> subscribed_;
  std::atomic<DomainErrorCallback> error_callback_{nullptr};
  std::array<ConsumerSink, kConsumerCount> sinks_{};
  // Before the buses: destroyed after them, so the references their queued messages hold
  // return to live pools.
  Pools pools_;
  Buses buses_;
};

}  // namespace mccc

#endif  // MCCC_FANOUT_DOMAIN_HPP_
