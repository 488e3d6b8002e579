// SPDX-License-Identifier: MIT
/// @file bus_core.hpp
/// @brief The state of one bus, laid out by who writes it, and the steps every publish and
/// every batch share: the mode, error reporting, counting and waking the consumer.
///
/// Layout (each group on lines of its own, so that no producer write lands on a line the
/// consumer writes, and the reverse): the settings producers read on every publish (mode, error
/// callback); the id bias; the consumer's parking word and the rings (ring_set.hpp: each ring
/// keeps its producer and consumer words apart); the consumer's own state (ids, drain order,
/// dispatch marks); the subscription table; the statistics (per-producer shards).
#ifndef MCCC_BUS_BUS_CORE_HPP_
#define MCCC_BUS_BUS_CORE_HPP_

#include <atomic>
#include <cstdint>

#include "mccc/bus/bus_config.hpp"
#include "mccc/bus/consumer_scope.hpp"
#include "mccc/bus/message_ids.hpp"
#include "mccc/bus/ring_set.hpp"
#include "mccc/config.hpp"
#include "mccc/detail/asymmetric_fence.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief A second receiver of a bus's errors, one that knows whose they are: a fan-out domain
/// installs one per consumer bus, so that its error callback learns which consumer reported
/// (fanout/domain.hpp). Called wherever the bus calls its error callback, after it.
struct ErrorSink {
  void (*report)(const ErrorSink& sink, BusError error, uint64_t msg_id) noexcept = nullptr;
};

/// @brief The bus's state and shared steps. `Config`: a BusConfig. Every member is public: this
/// is the state the layers above share (publish_path.hpp inherits it protected, and AsyncBus
/// inherits the layers privately, so users never reach it).
template <typename Config>
class BusCore : protected Config::PoolSet {
 public:
  using PoolSet = typename Config::PoolSet;
  using Position = typename Config::Position;
  using Ids = MessageIds<Position, Config::kSingleCore, Config::kLine, Config::kProducerAssignsIds,
                         Config::kDeliveryOrderIds, typename Config::Drain>;
  using Guard = ConsumerGuard<Config::kHasLoans>;
  static constexpr uint32_t kThisThread = Config::kThisThread;

  constexpr BusCore() noexcept : PoolSet() {}
  BusCore(Position initial_position, uint64_t first_msg_id) noexcept
      : PoolSet(), ids_(initial_position, first_msg_id), rings_(initial_position) {}

  MCCC_ALWAYS_INLINE PerformanceMode LoadMode() const noexcept {
    // relaxed: see StoreMode.
    return mode_.load(std::memory_order_relaxed);
  }

  /// A value outside the enumeration is stored as kNoStats, which it acted as everywhere (not
  /// bare metal, not counted), so that the mode can index the admission tables.
  void StoreMode(PerformanceMode mode) noexcept {
    const bool valid = static_cast<std::size_t>(mode) < kPerformanceModeCount;
    // relaxed: the mode selects checks; no data is published through it.
    mode_.store(valid ? mode : PerformanceMode::kNoStats, std::memory_order_relaxed);
  }

  void StoreErrorCallback(ErrorCallback callback) noexcept {
    // release: pairs with the acquire load in LoadErrorCallback; whatever the installing thread
    // set up for the callback (a logger, a buffer) is visible to the thread that calls it.
    error_callback_.store(callback, std::memory_order_release);
  }

  ErrorCallback LoadErrorCallback() const noexcept {
    // acquire: pairs with StoreErrorCallback's release store (state set up before installing
    // the callback is visible here). Only on error paths.
    return error_callback_.load(std::memory_order_acquire);
  }

  void ReportError(PerformanceMode mode, BusError error, uint64_t msg_id) noexcept {
    if (mode == PerformanceMode::kBareMetal) {
      return;
    }
    const ErrorCallback callback = LoadErrorCallback();
    if (callback != nullptr) {
      callback(error, msg_id);
    }
    ReportToSink(LoadErrorSink(), error, msg_id);
  }

  void StoreErrorSink(const ErrorSink* sink) noexcept {
    // release: pairs with the acquire load in ReportToSink (as StoreErrorCallback).
    error_sink_.store(sink, std::memory_order_release);
  }

  const ErrorSink* LoadErrorSink() const noexcept {
    // acquire: pairs with StoreErrorSink's release store (as LoadErrorCallback). Only on error
    // paths.
    return error_sink_.load(std::memory_order_acquire);
  }

  static void ReportToSink(const ErrorSink* sink, BusError error, uint64_t msg_id) noexcept {
    if (sink != nullptr) {
      sink->report(*sink, error, msg_id);
    }
  }

  /// After `admitted` (>= 1) messages of `priority` were admitted for `producer`: counts them
  /// (kFullFeatured).
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
    if constexpr (Config::kHasParking) {
      if (!claim_is_seq_cst) {
        // A lane's or the single producer's tail store is only a release; a sleeping consumer
        // needs the StoreLoad order the MPSC CAS gives for free (consumer_parking.hpp). Until
        // the consumer first waits, the fence is skipped only where EnableSleep's process-wide
        // barrier repairs a stale "not enabled" read (store buffering: the consumer would
        // otherwise miss this tail and sleep with a message ready).
        if (!Config::kLazySleepFence || MCCC_UNLIKELY(parking_.SleepEnabled())) {
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
    if constexpr (Config::kSleepNeedsBarrier) {
      return AsymmetricFence::Available() && AsymmetricFence::Heavy();
    } else {
      return true;
    }
  }

  /// A publish of `refused` messages of `priority` was refused at observed tail
  /// `observed_tail`: counts them (kFullFeatured) and reports kQueueFull with the id the first
  /// of them would have received (not in kBareMetal).
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
    const ErrorSink* sink = LoadErrorSink();
    if (callback != nullptr || sink != nullptr) {
      // The id this message would have received (the next admitted message receives it).
      const uint64_t would_be_id = ids_.WouldBeId(
          observed_tail, [this]() noexcept { return rings_.Shared().ConsumedPosition(); });
      if (callback != nullptr) {
        callback(BusError::kQueueFull, would_be_id);
      }
      ReportToSink(sink, BusError::kQueueFull, would_be_id);
    }
  }

  // Read-mostly settings on their own line: producers read them on every publish.
  alignas(Config::kLine) std::atomic<PerformanceMode> mode_{PerformanceMode::kFullFeatured};
  std::atomic<ErrorCallback> error_callback_{nullptr};
  std::atomic<const ErrorSink*> error_sink_{nullptr};
  // The id bias (read by producers that assign ids), then the consumer's id words.
  Ids ids_;
  // Written only when the consumer goes to sleep; read by every publish.
  alignas(Config::kLine) typename Config::Parking parking_;
  RingSet<Config> rings_;
  // Consumer-owned.
  typename Config::Drain drain_;
  Guard guard_;
#if MCCC_ENABLE_TEST_HOOKS
  void (*before_reject_report_hook_)(void*) = nullptr;
  void* before_reject_report_context_ = nullptr;
#endif
  typename Config::Table table_;
  typename Config::Statistics stats_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_BUS_CORE_HPP_
