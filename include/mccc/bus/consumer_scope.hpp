// SPDX-License-Identifier: MIT
/// @file consumer_scope.hpp
/// @brief Who is inside a bus's batch: re-entry from a callback is refused in every build, a
/// second consumer thread is caught in debug builds, and a thread can ask whether it is the
/// consumer inside its batch (a callback that loans from a pool its own batch released).
#ifndef MCCC_BUS_CONSUMER_SCOPE_HPP_
#define MCCC_BUS_CONSUMER_SCOPE_HPP_

#include <atomic>
#include <cstdint>
#include <utility>

#include "mccc/config.hpp"
#include "mccc/detail/scoped_flag.hpp"

namespace mccc {
namespace detail {

/// @brief The consumer's marks of one bus. `kTracksBatch`: remember, per thread, which bus's
/// batch runs (buses with loans).
template <bool kTracksBatch>
class ConsumerGuard {
 public:
  /// @brief Marks the consumer's dispatch for as long as it lives. Consumer thread only.
  class Scope {
   public:
    explicit Scope(ConsumerGuard& guard) noexcept
        : guard_(guard)
#if MCCC_ENABLE_ASSERTS
          ,
          consuming_(guard.consumer_active_)
#endif
    {
      // relaxed (both stores): the flag is read back by the same thread (re-entry); a later
      // consumer thread is handed the role through the user's own synchronisation.
      guard_.dispatching_.store(1U, std::memory_order_relaxed);
#if MCCC_ENABLE_ASSERTS && MCCC_HOSTED
      guard_.consumer_owner_.store(CurrentThreadMarker(), std::memory_order_relaxed);
#endif
#if MCCC_HOSTED
      if constexpr (kTracksBatch) {
        // The batch's bus, in a variable of this thread (a callback may run another bus's
        // batch inside this one: the destructor restores the outer one).
        outer_ = std::exchange(BatchOfThisThread(), &guard_);
      }
#endif
#if MCCC_ENABLE_ASSERTS
      MCCC_ASSERT(!consuming_.WasSet(),
                  "ProcessBatch/ProcessBatchWith entered by two threads at once; a bus has "
                  "exactly one consumer thread");
#endif
    }
    ~Scope() {
      guard_.dispatching_.store(0U, std::memory_order_relaxed);
#if MCCC_HOSTED
      if constexpr (kTracksBatch) {
        BatchOfThisThread() = outer_;
      }
#endif
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope(Scope&&) = delete;
    Scope& operator=(Scope&&) = delete;

   private:
    ConsumerGuard& guard_;
#if MCCC_HOSTED
    const ConsumerGuard* outer_ = nullptr;
#endif
#if MCCC_ENABLE_ASSERTS
    const ScopedFlag<std::atomic<bool>> consuming_;
#endif
  };

  /// @brief True while a batch of this bus runs (on the consumer thread: re-entry).
  MCCC_ALWAYS_INLINE bool IsDispatching() const noexcept {
    return DispatchingFlag() != 0U;
  }

  /// @brief IsDispatching as 1 or 0, for a caller that tests it together with other words.
  MCCC_ALWAYS_INLINE uint32_t DispatchingFlag() const noexcept {
    // relaxed: see Scope.
    return dispatching_.load(std::memory_order_relaxed);
  }

  /// @brief True on the consumer thread inside its batch (hosted, kTracksBatch; elsewhere
  /// false, and the consumer's released loan blocks return at the batch end only).
  bool IsThisThreadInBatch() const noexcept {
#if MCCC_HOSTED
    if constexpr (kTracksBatch) {
      return BatchOfThisThread() == this;
    }
#endif
    return false;
  }

  /// @brief Debug builds: asserts that a refused re-entry comes from the consumer thread itself
  /// (a second thread entering is a usage error, not a re-entry).
  void AssertReentryIsFromConsumer() const noexcept {
#if MCCC_ENABLE_ASSERTS && MCCC_HOSTED
    // relaxed: compared with this thread's own marker; another thread's value never matches.
    MCCC_ASSERT(consumer_owner_.load(std::memory_order_relaxed) == CurrentThreadMarker(),
                "ProcessBatch/ProcessBatchWith entered by two threads at once; a bus has "
                "exactly one consumer thread");
#endif
  }

 private:
#if MCCC_HOSTED
  /// An address unique to the calling thread (debug builds: tells re-entry from a second thread).
  static const void* CurrentThreadMarker() noexcept {
    static thread_local const char marker = 0;
    return &marker;
  }

  /// The guard whose batch the calling thread is running, or null. A variable of the thread,
  /// not of the bus, so that a producer asking reads no line the consumer writes.
  static const ConsumerGuard*& BatchOfThisThread() noexcept {
    static thread_local const ConsumerGuard* guard = nullptr;
    return guard;
  }
#endif

  // Consumer-owned: 1 while ProcessBatch / ProcessBatchWith runs (re-entry is refused). A byte,
  // not a bool: an empty poll ORs it with another word, and a loaded bool is normalised first.
  std::atomic<uint8_t> dispatching_{0U};
#if MCCC_ENABLE_ASSERTS && MCCC_HOSTED
  std::atomic<const void*> consumer_owner_{nullptr};  // debug: the thread inside the batch
#endif
#if MCCC_ENABLE_ASSERTS
  std::atomic<bool> consumer_active_{false};
#endif
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_CONSUMER_SCOPE_HPP_
