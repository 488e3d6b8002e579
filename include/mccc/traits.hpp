// SPDX-License-Identifier: MIT
/// @file traits.hpp
/// @brief Per-bus configuration. Derive from DefaultBusTraits and override what differs:
/// @code
/// struct SmallTraits : mccc::DefaultBusTraits {
///   static constexpr uint32_t kQueueDepth = 1024;   // power of two
///   static constexpr bool kSingleProducer = true;   // wait-free producer path, no CAS
/// };
/// using SmallBus = mccc::AsyncBus<Payload, SmallTraits>;
/// @endcode
/// The MCCC_* macros of config.hpp only set the defaults below.
#ifndef MCCC_TRAITS_HPP_
#define MCCC_TRAITS_HPP_

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "mccc/clock.hpp"
#include "mccc/config.hpp"
#include "mccc/loans/loan_pools.hpp"
#include "mccc/platform/critical_section.hpp"
#include "mccc/wakeup/consumer_parking.hpp"

namespace mccc {

/// @brief Ring position and hot-counter type: 64-bit where 64-bit atomics are lock-free (so
/// msg_id is the position itself and never needs widening), else 32-bit (Cortex-M).
using DefaultPosition =
    std::conditional_t<std::atomic<uint64_t>::is_always_lock_free, uint64_t, uint32_t>;

/// @brief Defaults for every bus; each member has a paragraph on why it exists.
struct DefaultBusTraits {
  /// Slots in the ring (power of two, > 0). The memory is inside the bus object: use
  /// `Instance()` or `std::make_unique` for large depths, not the stack.
  static constexpr uint32_t kQueueDepth = MCCC_QUEUE_DEPTH;

  /// true: only one thread publishes (at a time). Publishing becomes wait-free: no CAS, the
  /// producer owns the tail. A debug build asserts if two threads publish concurrently.
  static constexpr bool kSingleProducer = MCCC_SINGLE_PRODUCER != 0;

  /// true: single-core MCU. Atomics use relaxed order and compiler-only (signal) fences, and no
  /// cache-line padding is added. Incorrect on any multi-core CPU; must be acknowledged with
  /// kSingleCoreUnsafeAcknowledged (MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE).
  static constexpr bool kSingleCore = MCCC_SINGLE_CORE != 0;

  /// Must be true for kSingleCore to build: the user states it runs on one core.
  static constexpr bool kSingleCoreUnsafeAcknowledged = MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE != 0;

  /// Padding unit that keeps producer-written and consumer-written data apart.
  static constexpr uint32_t kCacheLineSize = MCCC_CACHELINE_SIZE;

  /// Largest payload variant this bus accepts (bounds the callback table).
  static constexpr uint32_t kMaxMessageTypes = MCCC_MAX_MESSAGE_TYPES;

  /// Subscribers per message type.
  static constexpr uint32_t kMaxCallbacksPerType = MCCC_MAX_CALLBACKS_PER_TYPE;

  /// Subscriptions one mccc::Component can own (one more is refused visibly).
  static constexpr uint32_t kMaxSubscriptionsPerComponent = MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT;

  /// Messages one ProcessBatch / ProcessBatchWith call dispatches at most; bounds the time a
  /// consumer spends before it can look at anything else (latency of subscription changes too).
  static constexpr uint32_t kBatchSize = MCCC_BATCH_SIZE;

  /// Inline bytes for one subscriber callable (captures + the adapter's own state).
  static constexpr uint32_t kCallbackStorageBytes = MCCC_CALLBACK_STORAGE_BYTES;

  /// Producer statistics shards. Each publishing thread owns one shard while it lives, so the
  /// per-priority counters are plain (non-RMW) increments on a line nobody else writes. Threads
  /// beyond this number share an overflow shard with atomic increments. 1 (bare metal, single
  /// core): one shared atomic counter set, no thread_local storage needed.
  static constexpr uint32_t kStatisticsShards = (MCCC_SINGLE_CORE || !MCCC_HOSTED) ? 1U : 64U;

  /// How Unsubscribe and the consumer's batch start agree that a removed callable is no longer
  /// running (dispatch/subscription_table.hpp). true (default on Linux, except under
  /// ThreadSanitizer): the consumer pays no locked instruction per batch, and each Unsubscribe
  /// calls membarrier, which interrupts every CPU running a thread of the process for about a
  /// microsecond; used only where the kernel offers it. false: the consumer pays one locked
  /// read-modify-write per batch and Unsubscribe no system call; for hard real-time programs
  /// that unsubscribe while other cores run time-critical threads.
  static constexpr bool kAsymmetricFence = MCCC_ASYMMETRIC_FENCE != 0;

  /// Slots of the HIGH ring (power of two; 0 = HIGH messages share the normal ring and only
  /// admission favours them). With a HIGH ring, a HIGH message is dispatched before every
  /// LOW/MEDIUM message still queued, and only a full HIGH ring refuses it. Costs
  /// kHighQueueDepth envelope slots.
  static constexpr uint32_t kHighQueueDepth = MCCC_HIGH_QUEUE_DEPTH;

  /// Producer lanes (0 = every producer shares one ring with exact global admission). N > 0: the
  /// first N producer identities of the process (threads, or handles from MakeProducer) each own
  /// a lane of kLaneDepth slots, published with plain stores, admitted against that lane only;
  /// other producers share the ring of kQueueDepth slots. Needs a hosted multi-core,
  /// multi-producer bus with at least N statistics shards.
  static constexpr uint32_t kProducerLanes = MCCC_PRODUCER_LANES;

  /// Slots of each producer lane (power of two). A lane's slot is exactly one envelope.
  static constexpr uint32_t kLaneDepth = MCCC_LANE_DEPTH;

  /// true: a slot holds a CompactEnvelope instead of the full MessageEnvelope: the sender id,
  /// the priority, the timestamp unless Clock is NullClock, and the payload (no msg_id: the
  /// consumer assigns it). Subscribers get the same `const MessageHeader&` (rebuilt by the
  /// consumer); a callback taking the whole `const MessageEnvelope&` is refused at compile time,
  /// and so is PublishFast's timestamp when none is stored. Default: true on bare metal
  /// (MCCC_COMPACT_ENVELOPE), false on hosted targets. See bus/stored_envelope.hpp.
  static constexpr bool kCompactEnvelope = MCCC_COMPACT_ENVELOPE != 0;

  /// Source of MessageHeader::timestamp_us (one read per publish; none for PublishFast).
  using Clock = DefaultClock;

  /// How an idle consumer waits in WaitForMessages (and ActiveObject): KernelConsumerWait
  /// (hosted default: futex / condition variable), NoConsumerWait (bare-metal default: returns
  /// at once), or a hook with `static void Wait(uint32_t timeout_us) noexcept` and
  /// `static void Notify() noexcept` (an RTOS semaphore take/give, WFE/SEV); Notify may be
  /// called from an interrupt handler and before Wait, so it must latch
  /// (wakeup/consumer_parking.hpp).
  using ConsumerWait = DefaultConsumerWait;

  /// Ring position / counter type (unsigned; wraps modulo its range).
  using Position = DefaultPosition;

  /// Single-core builds only (kSingleCore): how to keep interrupt handlers and other tasks out
  /// of a few instructions (static `Enter()` returning a state, `Exit(state)`; see
  /// platform/critical_section.hpp). With one, every atomic read-modify-write becomes a load and
  /// a store inside the section (Cortex-M0/M0+ have no RMW instructions), and Subscribe,
  /// Unsubscribe, ResetStatistics and the components' bookkeeping never wait, so they are safe
  /// in interrupt handlers. Default: PRIMASK on Cortex-M, none elsewhere
  /// (mccc::NoCriticalSection: atomics and a spin lock).
  using CriticalSection = DefaultCriticalSection;

  /// Messages that travel by loan (loans/loan_pools.hpp): one `PoolOf<T, kBlocks>` per type
  /// listed as `Loaned<T>` in the payload variant. A slot then carries a handle to a pool block
  /// instead of a copy of T, so one large type does not make every slot large. Default: none.
  using LoanPools = NoLoanPools;
};

}  // namespace mccc

#endif  // MCCC_TRAITS_HPP_
