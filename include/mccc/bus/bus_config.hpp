// SPDX-License-Identifier: MIT
/// @file bus_config.hpp
/// @brief The one place where a bus's traits are checked and resolved: every `static_assert` on
/// the configuration, and every constant and type the bus's parts derive from it.
///
/// The other parts of the bus (ring_set.hpp, drain_order.hpp, message_ids.hpp, publish_path.hpp,
/// consume_path.hpp, async_bus.hpp) take a BusConfig and read the traits only through it, so a
/// reader finds what a traits setting changes by following its name from here.
#ifndef MCCC_BUS_BUS_CONFIG_HPP_
#define MCCC_BUS_BUS_CONFIG_HPP_

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "mccc/admission/priority_admission.hpp"
#include "mccc/admission/priority_table.hpp"
#include "mccc/bus/drain_order.hpp"
#include "mccc/bus/stored_envelope.hpp"
#include "mccc/clock/clock_stamp.hpp"
#include "mccc/clock/null_clock.hpp"
#include "mccc/config.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/variant_traits.hpp"
#include "mccc/dispatch/subscription_table.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/loans/loan_pools.hpp"
#include "mccc/loans/shared_loan_pools.hpp"
#include "mccc/message.hpp"
#include "mccc/platform/critical_section.hpp"
#include "mccc/ring/mpsc_ring.hpp"
#include "mccc/ring/producer_lane.hpp"
#include "mccc/statistics/bus_statistics.hpp"
#include "mccc/statistics/thread_shard.hpp"
#include "mccc/traits.hpp"
#include "mccc/wakeup/consumer_parking.hpp"

namespace mccc {
namespace detail {

/// @brief The configuration of `AsyncBus<PayloadVariant, Traits>`, checked and resolved.
template <typename PayloadVariant, typename Traits>
struct BusConfig {
  static_assert(IsStdVariant<PayloadVariant>::value,
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
                "mccc: kHighQueueDepth (MCCC_HIGH_QUEUE_DEPTH) must be 0 (no HIGH ring) or a "
                "power of two, e.g. 1024");
  static_assert(Traits::kProducerLanes == 0U ||
                    (!Traits::kSingleProducer && !Traits::kSingleCore && MCCC_HOSTED != 0),
                "mccc: producer lanes need a hosted, multi-core, multi-producer bus (threads own "
                "them); set kProducerLanes = 0 with kSingleProducer or kSingleCore");
  static_assert(Traits::kProducerLanes <= Traits::kStatisticsShards &&
                    Traits::kProducerLanes < kMaxThreadShards,
                "mccc: kProducerLanes must not exceed kStatisticsShards (a lane counts in the "
                "statistics shard of its producer) nor 255; raise kStatisticsShards");
  static_assert(Traits::kProducerLanes == 0U || Traits::kBatchSize > Traits::kProducerLanes,
                "mccc: kBatchSize must exceed kProducerLanes so that one batch can serve every "
                "lane and the shared ring; raise kBatchSize or use fewer lanes");
  static_assert(AllNothrowMovable<PayloadVariant>::value,
                "mccc: every payload alternative must be nothrow move constructible (a claimed "
                "slot must always be completed); mark the move constructor noexcept");
  static_assert(IsLoanPools<typename Traits::LoanPools>::value,
                "mccc: Traits::LoanPools must be mccc::LoanPools<mccc::PoolOf<T, N>...>");
  static_assert(
      LoanConfigurationChecks<PayloadVariant, typename Traits::LoanPools>::kEveryLoanedHasOnePool,
      "mccc: the payload variant lists mccc::Loaned<T> for a T that has no pool (or two): "
      "add exactly one mccc::PoolOf<T, N> to Traits::LoanPools");
  static_assert(
      LoanConfigurationChecks<PayloadVariant, typename Traits::LoanPools>::kEveryPoolIsUsed,
      "mccc: Traits::LoanPools has a PoolOf<T, N> whose mccc::Loaned<T> is not an "
      "alternative of the payload variant (its blocks would never be used): add "
      "mccc::Loaned<T> to the variant or remove the pool");
  static_assert(
      LoanConfigurationChecks<PayloadVariant, typename Traits::LoanPools>::kNoTypeBothWays,
      "mccc: the payload variant lists both T and mccc::Loaned<T>; a type travels either "
      "inline or by loan, so keep one of the two");

  using Payload = PayloadVariant;
  using Envelope = MessageEnvelope<PayloadVariant>;
  using Position = typename Traits::Position;
  using CriticalSection =
      std::conditional_t<Traits::kSingleCore, typename Traits::CriticalSection, NoCriticalSection>;

  // ---- Rings -------------------------------------------------------------------------------
  static constexpr uint32_t kQueueDepth = Traits::kQueueDepth;
  static constexpr uint32_t kBatchSize = Traits::kBatchSize;
  static constexpr uint32_t kHighQueueDepth = Traits::kHighQueueDepth;
  static constexpr uint32_t kProducerLanes = Traits::kProducerLanes;
  static constexpr uint32_t kLaneDepth = Traits::kLaneDepth;
  static constexpr bool kHasHighRing = kHighQueueDepth > 0U;
  static constexpr bool kHasLanes = kProducerLanes > 0U;
  static constexpr bool kSingleProducer = Traits::kSingleProducer;
  static constexpr bool kSingleCore = Traits::kSingleCore;

  // ---- What a slot holds -------------------------------------------------------------------
  static constexpr bool kCompactEnvelope = Traits::kCompactEnvelope;
  /// false: a compact bus with NullClock stores no timestamp.
  static constexpr bool kStoresTimestamp =
      !kCompactEnvelope || !std::is_same_v<typename Traits::Clock, NullClock>;
  using Layout = EnvelopeLayout<PayloadVariant, kCompactEnvelope, kStoresTimestamp>;
  using StoredEnvelope = typename Layout::Stored;
  using Delivered = typename Layout::Delivered;

  using Ring = MpscRing<StoredEnvelope, kQueueDepth, kSingleProducer, kSingleCore, Position,
                        Traits::kCacheLineSize, CriticalSection>;
  /// The HIGH ring: its own ring (one slot when there is none, never used).
  using HighRing = MpscRing<StoredEnvelope, (kHasHighRing ? kHighQueueDepth : 1U), kSingleProducer,
                            kSingleCore, Position, Traits::kCacheLineSize, CriticalSection>;
  using Lane = ProducerLane<StoredEnvelope, kLaneDepth, Position, Traits::kCacheLineSize>;

  // ---- Admission ---------------------------------------------------------------------------
  using Admission = PriorityAdmission<kQueueDepth>;
  using HighAdmission = PriorityAdmission<(kHasHighRing ? kHighQueueDepth : 1U)>;
  using LaneAdmission = PriorityAdmission<kLaneDepth>;

  // ---- The consumer ------------------------------------------------------------------------
  /// How one batch serves the rings, and the most messages it can deliver.
  using Drain = DrainOrder<kBatchSize, kHighQueueDepth, kProducerLanes, Position>;
  using Table = SubscriptionTable<Delivered, std::variant_size_v<Payload>,
                                  Traits::kMaxCallbacksPerType, Traits::kCallbackStorageBytes,
                                  kSingleCore, Traits::kAsymmetricFence, CriticalSection>;

  // ---- Clock, statistics, wake-up ----------------------------------------------------------
  // Every publish path reads the clock the same way: a stamp before the claim, microseconds
  // after it (clock/clock_stamp.hpp). A multi-producer claim is a locked CAS, so a clock that
  // splits its reading converts after it; the single-producer claim has nothing to protect, and
  // neither has a lane's plain store (LaneStamp converts at once: one call instead of two).
  using Stamp = ClockStamp<typename Traits::Clock, !kSingleProducer>;
  using LaneStamp = ClockStamp<typename Traits::Clock, false>;
  using Statistics = BusStatistics<Position, Traits::kStatisticsShards, kSingleProducer,
                                   kSingleCore, Traits::kCacheLineSize, CriticalSection>;
  static constexpr uint32_t kStatisticsShards = Traits::kStatisticsShards;
  using Parking = ConsumerParking<typename Traits::ConsumerWait, kSingleCore, CriticalSection>;
  /// Producers look for a sleeping consumer: the kernel wait on a multi-core hosted bus (a
  /// hosted single-core build keeps its timed waits), or any user wait hook.
  static constexpr bool kHasParking = kIsConsumerWaitHook<typename Traits::ConsumerWait> ||
                                      (Parking::kCanSleep && MCCC_HOSTED != 0 && !kSingleCore);
  /// Producers with a plain tail store (lanes, the single producer) skip the StoreLoad fence
  /// until the consumer first waits only where that cannot lose a wake-up: on one core (program
  /// order is memory order), or where the consumer's first wait repairs it with a process-wide
  /// barrier. Elsewhere they always fence before they look for a sleeper.
  static constexpr bool kSleepNeedsBarrier =
      !kSingleCore && Traits::kAsymmetricFence && MCCC_ASYMMETRIC_FENCE != 0;
  static constexpr bool kLazySleepFence = kHasParking && (kSingleCore || kSleepNeedsBarrier);

  // ---- Message ids (message_ids.hpp) -------------------------------------------------------
  /// More than one ring: ids are given by the consumer in delivery order, which only it knows.
  static constexpr bool kDeliveryOrderIds = kHasHighRing || kHasLanes;
  /// With 64-bit positions and one ring, position + constant is already the unique 64-bit id.
  /// (A compact slot has no msg_id field: the consumer always assigns it.)
  static constexpr bool kProducerAssignsIds =
      sizeof(Position) >= sizeof(uint64_t) && !kDeliveryOrderIds && !kCompactEnvelope;

  // ---- Loans -------------------------------------------------------------------------------
  /// The pools a bus holds, or (a fan-out domain's consumer: kSharesLoanPools) views of pools its
  /// owner holds (loans/shared_loan_pools.hpp).
  static constexpr bool kSharesLoanPools = SharesLoanPools<Traits>::value;
  using PoolSet = std::conditional_t<kSharesLoanPools,
                                     SharedLoanPoolSet<typename Traits::LoanPools, kSingleCore,
                                                       CriticalSection, Traits::kCacheLineSize>,
                                     LoanPoolSet<typename Traits::LoanPools, kSingleCore,
                                                 CriticalSection, Traits::kCacheLineSize>>;
  static constexpr bool kHasLoans =
      !std::is_same_v<typename Traits::LoanPools, ::mccc::LoanPools<>>;
  /// True when T is listed as Loaned<T> in the payload variant.
  template <typename T>
  static constexpr bool kTravelsByLoan = kIsAlternative<Loaned<T>, Payload>;
  /// The alternative that carries messages of type T: Loaned<T> when T travels by loan.
  template <typename T>
  using AlternativeFor = std::conditional_t<kTravelsByLoan<T>, Loaned<T>, T>;

  // ---- Layout ------------------------------------------------------------------------------
  /// The widest member placed at a line boundary is the 64-bit msg_id counter.
  static constexpr unsigned kLine = kLineAlign<kSingleCore, Traits::kCacheLineSize, uint64_t>;
  /// The producer identity "the calling thread, as the statistics find it" (no lanes to choose).
  static constexpr uint32_t kThisThread = ~uint32_t{0};
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_BUS_CONFIG_HPP_
