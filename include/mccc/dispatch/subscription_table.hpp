/// @file subscription_table.hpp
/// @brief Callback slots per message type, read by the consumer without any lock.
///
/// Each entry moves FREE -> ACTIVE (Add) -> REMOVED (Remove) -> FREE (reclaim). The consumer only
/// ever touches an entry's callable after reading ACTIVE, and a REMOVED entry is destroyed only
/// once the consumer cannot still be inside a call to it. To know that, the consumer bumps
/// `dispatch_epoch_` when it starts and when it ends a dispatch batch (odd = inside a batch):
/// - Remove stores REMOVED and then reads the epoch. If the epoch was even, every state load of
///   the consumer's next batch sees REMOVED: the entry may be destroyed at once.
/// - If the epoch was odd, the consumer may be running the callable right now; the entry is
///   destroyed once the epoch has moved on (by the consumer at the end of its batch, or by the
///   next Add/Remove), never while the consumer can be inside it.
/// Both cases need StoreLoad order on both sides (store the epoch, then load states; store
/// REMOVED, then load the epoch), a Dekker handshake. Two ways to get it, chosen once per table:
/// - Asymmetric (Linux, detail/asymmetric_fence.hpp): the consumer's epoch store is a plain
///   release store followed by a compiler barrier; Remove pays a membarrier system call between
///   its store and its load. The consumer's batch start costs no locked instruction.
/// - Symmetric (elsewhere, under ThreadSanitizer, with MCCC_ASYMMETRIC_FENCE=0, or for a bus
///   whose traits set kAsymmetricFence = false): the batch start is a seq_cst read-modify-write,
///   Remove's store and load are seq_cst; the single total order puts the consumer's increment
///   either before Remove's load (odd seen) or after Remove's store (REMOVED seen).
/// Add, Remove and reclaim take a spin lock among themselves; the consumer takes it only with
/// try_lock at a batch end, so a callback may subscribe or unsubscribe without deadlock. No
/// callable is destroyed while the lock is held, so a capture's destructor may do so too.
#ifndef MCCC_DISPATCH_SUBSCRIPTION_TABLE_HPP_
#define MCCC_DISPATCH_SUBSCRIPTION_TABLE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "mccc/config.hpp"
#include "mccc/containers/fixed_function.hpp"
#include "mccc/detail/asymmetric_fence.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/spin_lock.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief A process-wide tag per table, so a handle from another bus is (practically) never
/// mistaken for one of ours: callback ids of different buses start far apart.
inline std::size_t NextSubscriptionIdBase() noexcept {
  static std::atomic<std::size_t> next_instance{1U};
  // relaxed: only uniqueness of the returned value matters.
  const std::size_t instance = next_instance.fetch_add(1U, std::memory_order_relaxed);
  constexpr unsigned kHalfBits = static_cast<unsigned>(sizeof(std::size_t) * 8U / 2U);
  return instance << kHalfBits;
}

}  // namespace detail

/// @brief The subscriber table of one bus.
/// @tparam Envelope  MessageEnvelope<Payload>.
/// @tparam kTypes    Number of payload alternatives (rows).
/// @tparam kPerType  Live subscriptions per row. Each row has twice as many entries: the spare
///                   half holds subscriptions removed during the consumer's current batch
///                   (they cannot be reused until it ends), so such removals do not eat into
///                   the live capacity.
/// @tparam kStorage  Inline bytes per callable.
/// @tparam kAllowAsymmetricFence Use the asymmetric fence where the platform offers it
/// (BusTraits::kAsymmetricFence); false: always the symmetric handshake.
template <typename Envelope, std::size_t kTypes, std::size_t kPerType, std::size_t kStorage,
          bool kSingleCore, bool kAllowAsymmetricFence = true>
class SubscriptionTable {
  static_assert(kPerType >= 1U, "mccc: kMaxCallbacksPerType must be at least 1");

 public:
  /// The stored callable: returns false to report a processing error.
  using Callback = FixedFunction<bool(const Envelope&), kStorage>;

  SubscriptionTable() noexcept
      : next_serial_(detail::NextSubscriptionIdBase()),
        light_batch_marks_(kAllowAsymmetricFence && !kSingleCore &&
                           detail::AsymmetricFence::Available()) {}
  ~SubscriptionTable() = default;
  SubscriptionTable(const SubscriptionTable&) = delete;
  SubscriptionTable& operator=(const SubscriptionTable&) = delete;
  SubscriptionTable(SubscriptionTable&&) = delete;
  SubscriptionTable& operator=(SubscriptionTable&&) = delete;

  /// @brief Stores `callback` for payload alternative `type`. Returns an invalid handle when the
  /// row is full: kMaxCallbacksPerType live subscriptions, or (rarely) when the spare entries
  /// all hold subscriptions removed during the consumer's current batch. Threadsafe (spin lock),
  /// callable from inside a callback.
  SubscriptionHandle Add(std::size_t type, Callback&& callback) noexcept {
    ReclaimPending(/*may_wait=*/true);
    detail::SpinLockGuard guard(lock_);
    Row& row = rows_[type];
    std::size_t live = 0U;
    std::size_t slot = kEntriesPerRow;
    for (std::size_t i = 0U; i < kEntriesPerRow; ++i) {
      // relaxed: every state change except the consumer's reads happens under this lock.
      const uint8_t state = row.entries[i].state.load(std::memory_order_relaxed);
      live += state == kActive ? 1U : 0U;
      if (state == kFree && slot == kEntriesPerRow) {
        slot = i;
      }
    }
    if (live >= kPerType || slot == kEntriesPerRow) {
      // Full: kPerType live subscriptions, or every spare entry still holds a subscription
      // removed during the consumer's current batch (freed when that batch ends).
      return kInvalidSubscription;
    }
    Entry& entry = row.entries[slot];
    entry.callback = std::move(callback);
    entry.callback_id = NextCallbackId(slot);
    // release: pairs with the consumer's load of the state in Dispatch; the callable is fully
    // constructed before the consumer can see ACTIVE.
    detail::StoreRelease<kSingleCore>(entry.state, kActive);
    const uint32_t used = static_cast<uint32_t>(slot + 1U);
    if (row.used.load(std::memory_order_relaxed) < used) {  // relaxed: written under the lock
      // release: pairs with the consumer's acquire load of `used` in Dispatch (the new entry's
      // ACTIVE state precedes it in this thread).
      detail::StoreRelease<kSingleCore>(row.used, used);
    }
    return SubscriptionHandle{type, entry.callback_id};
  }

  /// @brief Removes the subscription `handle` names. True once; false for an invalid, foreign
  /// or already removed handle (nothing changes then). Threadsafe, callable from a callback.
  bool Remove(const SubscriptionHandle& handle) noexcept {
    if (!handle.IsValid() || handle.type_index >= kTypes) {
      return false;
    }
    const std::size_t slot = handle.callback_id % kEntriesPerRow;
    {
      detail::SpinLockGuard guard(lock_);
      Entry& entry = rows_[handle.type_index].entries[slot];
      // relaxed: ACTIVE is only entered and left under this lock.
      if (entry.state.load(std::memory_order_relaxed) != kActive ||
          entry.callback_id != handle.callback_id) {
        return false;
      }
      // seq_cst store then seq_cst load: the unsubscriber's half of the epoch handshake (file
      // comment); pairs with the consumer's epoch store in BeginBatch and its state loads in
      // Dispatch. With light batch marks the consumer has no StoreLoad barrier of its own, so
      // the heavy half of the asymmetric fence stands between this store and load.
      StoreSeqCst(entry.state, kRemoved);
      if (light_batch_marks_) {
        detail::AsymmetricFence::Heavy();
      }
      entry.removed_epoch = LoadSeqCst(dispatch_epoch_);
      // relaxed: a hint (read without the lock only to skip work); written under the lock.
      pending_reclaims_.store(pending_reclaims_.load(std::memory_order_relaxed) + 1U,
                              std::memory_order_relaxed);
    }
    ReclaimPending(/*may_wait=*/true);
    return true;
  }

  /// @brief Consumer: marks the start of a dispatch batch. Returns false if a batch was already
  /// open (a second consumer, or ProcessBatch re-entered from a callback).
  bool BeginBatch() noexcept {
    if (light_batch_marks_) {
      // relaxed: only the consumer writes the epoch; it reads its own last value.
      const uint32_t before = dispatch_epoch_.load(std::memory_order_relaxed);
      // release: pairs with the seq_cst (hence acquire) epoch loads of Remove and
      // TakeOneReclaimableLocked, so a reclaimer that reads this value also sees every use the
      // earlier batches made of a callable. The StoreLoad order towards Dispatch's state loads
      // comes from Light() here and Heavy() in Remove (file comment).
      dispatch_epoch_.store(before + 1U, std::memory_order_release);
      detail::AsymmetricFence::Light();
      return (before & 1U) == 0U;
    }
    // seq_cst: the consumer's half of the epoch handshake (pairs with Remove's seq_cst load).
    return (FetchAddSeqCst(dispatch_epoch_) & 1U) == 0U;
  }

  /// @brief True when BeginBatch/EndBatch are plain stores (asymmetric fence): cheap enough to
  /// run on every poll, even an empty one. False: BeginBatch is a locked read-modify-write.
  bool LightBatchMarks() const noexcept { return light_batch_marks_; }

  /// @brief Consumer: marks the end of a dispatch batch and reclaims removed entries if the lock
  /// is free (never waits for it).
  void EndBatch() noexcept {
    // release, and no RMW: only the consumer writes the epoch. Pairs with the seq_cst (hence
    // acquire) epoch loads of Remove / TakeOneReclaimableLocked: everything this batch did with a
    // callable happens-before a reclaimer that reads the new (even) value. The Dekker half lives
    // in BeginBatch (its seq_cst RMW, or the asymmetric fence): a Remove that reads this even
    // value is ordered before the next batch's state loads, which is what its even-epoch case
    // relies on.
    // relaxed load: the consumer reads its own last write.
    detail::StoreRelease<kSingleCore>(
        dispatch_epoch_,
        static_cast<uint32_t>(dispatch_epoch_.load(std::memory_order_relaxed) + 1U));
    ReclaimPending(/*may_wait=*/false);  // the consumer never waits for the lock
  }

  /// @brief Consumer: calls every ACTIVE callback of the envelope's type. Returns how many
  /// reported an error (returned false or threw); `on_error(msg_id)` is called for each.
  template <typename OnError>
  MCCC_ALWAYS_INLINE uint32_t Dispatch(const Envelope& envelope, OnError&& on_error) noexcept {
    const std::size_t type = envelope.payload.index();
    if (MCCC_UNLIKELY(type >= kTypes)) {
      return 0U;  // valueless variant: cannot happen with nothrow-movable alternatives
    }
    const Row& row = rows_[type];
    // acquire: pairs with Add's release store of `used`.
    const uint32_t used = detail::LoadAcquire<kSingleCore>(row.used);
    uint32_t errors = 0U;
    for (uint32_t i = 0U; i < used; ++i) {
      const Entry& entry = row.entries[i];
      // seq_cst: pairs with Remove's seq_cst store (no call starts after a Remove that saw an
      // even epoch) and, as an acquire, with Add's release store of ACTIVE.
      if (LoadSeqCst(entry.state) != kActive) {
        continue;
      }
      if (!Invoke(entry.callback, envelope)) {
        ++errors;
        on_error(envelope.header.msg_id);
      }
    }
    return errors;
  }

  /// @brief Number of live (ACTIVE) subscriptions of `type`. Snapshot, threadsafe.
  std::size_t CountActive(std::size_t type) const noexcept {
    std::size_t n = 0U;
    if (type < kTypes) {
      for (const Entry& entry : rows_[type].entries) {
        // relaxed: a snapshot count.
        n += entry.state.load(std::memory_order_relaxed) == kActive ? 1U : 0U;
      }
    }
    return n;
  }

 private:
  static constexpr std::size_t kEntriesPerRow = 2U * kPerType;
  static constexpr uint8_t kFree = 0U;
  static constexpr uint8_t kActive = 1U;
  static constexpr uint8_t kRemoved = 2U;

  struct Entry {
    std::atomic<uint8_t> state{kFree};
    uint32_t removed_epoch{0U};   // under the lock
    std::size_t callback_id{0U};  // under the lock
    Callback callback;            // written under the lock while not ACTIVE
  };
  struct Row {
    std::atomic<uint32_t> used{0U};  // entries [0, used) may be ACTIVE
    Entry entries[kEntriesPerRow];
  };

  static bool Invoke(const Callback& callback, const Envelope& envelope) noexcept {
#if MCCC_HAS_EXCEPTIONS
    try {
      return callback(envelope);
    } catch (...) {
      return false;  // a throwing callback is a processing error; the others still run
    }
#else
    return callback(envelope);
#endif
  }

  static void StoreSeqCst(std::atomic<uint8_t>& a, uint8_t value) noexcept {
    if constexpr (kSingleCore) {
      std::atomic_signal_fence(std::memory_order_seq_cst);
      a.store(value, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);
    } else {
      a.store(value, std::memory_order_seq_cst);
    }
  }

  template <typename T>
  static T LoadSeqCst(const std::atomic<T>& a) noexcept {
    return detail::LoadSeqCst<kSingleCore>(a);
  }

  static uint32_t FetchAddSeqCst(std::atomic<uint32_t>& a) noexcept {
    if constexpr (kSingleCore) {
      std::atomic_signal_fence(std::memory_order_seq_cst);
      const uint32_t old = a.load(std::memory_order_relaxed);
      a.store(old + 1U, std::memory_order_relaxed);  // only the consumer writes the epoch
      std::atomic_signal_fence(std::memory_order_seq_cst);
      return old;
    } else {
      return a.fetch_add(1U, std::memory_order_seq_cst);
    }
  }

  std::size_t NextCallbackId(std::size_t slot) noexcept {
    std::size_t id = next_serial_ * kEntriesPerRow + slot;
    ++next_serial_;
    if (id == SubscriptionHandle::kInvalidCallbackId) {  // skip the reserved value
      id = next_serial_ * kEntriesPerRow + slot;
      ++next_serial_;
    }
    return id;
  }

  /// Destroys the REMOVED entries the consumer can no longer be inside, one at a time: each
  /// callable is moved out under the lock and destroyed after it is released, so a capture whose
  /// destructor subscribes or unsubscribes (e.g. the last owner of a component) cannot deadlock.
  /// `may_wait` false: give up when the lock is busy (the consumer's batch end).
  void ReclaimPending(bool may_wait) noexcept {
    // relaxed: a hint; the decision is re-made under the lock.
    while (pending_reclaims_.load(std::memory_order_relaxed) != 0U) {
      Callback doomed;
      if (may_wait) {
        lock_.lock();
      } else if (!lock_.try_lock()) {
        return;
      }
      const bool taken = TakeOneReclaimableLocked(doomed);
      lock_.unlock();
      if (!taken) {
        return;  // the rest are still possibly in use by the consumer's current batch
      }
    }  // `doomed` (the callable and its captures) is destroyed here, outside the lock
  }

  /// Moves one reclaimable callable into `out` and frees its entry. Caller holds the lock.
  bool TakeOneReclaimableLocked(Callback& out) noexcept {
    // seq_cst: pairs with the consumer's seq_cst epoch increments (see file comment).
    const uint32_t epoch_now = LoadSeqCst(dispatch_epoch_);
    for (Row& row : rows_) {
      for (Entry& entry : row.entries) {
        if (entry.state.load(std::memory_order_relaxed) != kRemoved) {  // relaxed: lock held
          continue;
        }
        const bool consumer_was_idle = (entry.removed_epoch & 1U) == 0U;
        if (consumer_was_idle || epoch_now != entry.removed_epoch) {
          out = std::move(entry.callback);
          entry.state.store(kFree, std::memory_order_relaxed);  // relaxed: consumer ignores FREE
          // relaxed: written under the lock we hold.
          pending_reclaims_.store(pending_reclaims_.load(std::memory_order_relaxed) - 1U,
                                  std::memory_order_relaxed);
          return true;
        }
      }
    }
    return false;
  }

  Row rows_[kTypes];
  std::atomic<uint32_t> dispatch_epoch_{0U};
  std::atomic<uint32_t> pending_reclaims_{0U};
  std::size_t next_serial_;
  detail::SpinLock lock_;
  const bool light_batch_marks_;  // asymmetric fence in use (decided at construction)
};

}  // namespace mccc

#endif  // MCCC_DISPATCH_SUBSCRIPTION_TABLE_HPP_
