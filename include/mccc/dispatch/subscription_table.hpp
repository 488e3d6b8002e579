// SPDX-License-Identifier: MIT
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
/// REMOVED, then load the epoch), a Dekker handshake. The same handshake makes sure that a
/// removal during a batch is reclaimed by that batch's end or by Remove itself: the consumer
/// stores the even epoch and then loads `pending_reclaims_`; Remove stores `pending_reclaims_`
/// and then loads the epoch, so at least one of them sees the other. Only when the consumer's
/// batch end finds the lock busy is the reclaim left to its next ProcessBatch (even an empty
/// poll) or to the next Add/Remove. Two ways to get the StoreLoad order:
/// - Asymmetric (Linux, detail/asymmetric_fence.hpp): the consumer's epoch store is a plain
///   release store followed by a compiler barrier; Remove pays a membarrier system call between
///   its store and its load. The consumer's batch start costs no locked instruction.
/// - Symmetric (elsewhere, under ThreadSanitizer, with MCCC_ASYMMETRIC_FENCE=0, or for a bus
///   whose traits set kAsymmetricFence = false): the batch start is a seq_cst read-modify-write,
///   the batch end a seq_cst store, Remove's stores and load are seq_cst; the single total order
///   puts the consumer's increment either before Remove's load (odd seen) or after Remove's
///   store (REMOVED seen).
/// If the membarrier call fails after start-up (a seccomp filter installed later), the table
/// switches to the symmetric handshake for good: Remove clears `light_batch_marks_` (release),
/// the consumer's next batch start reads it (acquire), takes the symmetric path and acknowledges
/// the switch. A callable removed without a working barrier is destroyed only after that
/// acknowledgement: every batch that could still call it began before the acknowledging batch,
/// and has therefore ended.
/// Add, Remove and reclaim take a spin lock among themselves; the consumer takes it only with
/// try_lock at a batch end, so a callback may subscribe or unsubscribe without deadlock. No
/// callable is destroyed and no system call is made while the lock is held, so a capture's
/// destructor may subscribe or unsubscribe too.
#ifndef MCCC_DISPATCH_SUBSCRIPTION_TABLE_HPP_
#define MCCC_DISPATCH_SUBSCRIPTION_TABLE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "mccc/config.hpp"
#include "mccc/containers/fixed_function.hpp"
#include "mccc/detail/asymmetric_fence.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/control_lock.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief A process-wide tag per table, so a handle from another bus is (practically) never
/// mistaken for one of ours: callback ids of different buses start far apart. The counter is
/// constant-initialised (no guard, no start-up code).
inline std::atomic<std::size_t>& SubscriptionInstanceCounter() noexcept {
  static std::atomic<std::size_t> next_instance{1U};
  return next_instance;
}

template <bool kSingleCore, typename CriticalSection>
std::size_t NextSubscriptionIdBase() noexcept {
  // relaxed: only uniqueness of the returned value matters.
  const std::size_t instance =
      FetchAddRelaxed<kSingleCore, CriticalSection>(SubscriptionInstanceCounter(), std::size_t{1U});
  constexpr std::size_t kHalfBits = sizeof(std::size_t) * 8U / 2U;
  return instance << kHalfBits;
}

/// @brief Told whenever a type of a table gains its first live subscription or loses its last
/// (a fan-out domain keeps its per-type set of subscribed consumers with it). Called under the
/// table's lock, so the calls for one table come one at a time and in the order of the changes;
/// it must not subscribe or unsubscribe on the same table.
struct SubscriptionWatch {
  void (*changed)(const SubscriptionWatch& watch, std::size_t type,
                  bool any_live) noexcept = nullptr;
};

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
/// @tparam CriticalSection Single-core builds: the hook that replaces the spin lock and the
/// read-modify-writes (platform/critical_section.hpp), so Add and Remove never wait.
template <typename Envelope, std::size_t kTypes, std::size_t kPerType, std::size_t kStorage,
          bool kSingleCore, bool kAllowAsymmetricFence = true,
          typename CriticalSection = NoCriticalSection>
class SubscriptionTable {
  static_assert(kPerType >= 1U, "mccc: kMaxCallbacksPerType must be at least 1");

 public:
  /// The stored callable: returns false to report a processing error.
  using Callback = FixedFunction<bool(const Envelope&), kStorage>;

  /// constexpr where the platform allows it (single-core builds, or no asymmetric fence): a
  /// bus can then be constant-initialised. The table's id base is drawn at the first Add.
  constexpr SubscriptionTable() noexcept
      : constructed_light_(AsymmetricFenceAvailable()), light_batch_marks_(constructed_light_) {}
  /// Destroys the callables still stored (live or removed but not yet reclaimed). Requires that
  /// no other thread uses the table.
  ~SubscriptionTable() {
    for (Row& row : rows_) {
      for (Entry& entry : row.entries) {
        // relaxed: no other thread runs any more.
        if (entry.state.load(std::memory_order_relaxed) != kFree) {
          entry.DestroyCallable();
        }
      }
    }
  }
  SubscriptionTable(const SubscriptionTable&) = delete;
  SubscriptionTable& operator=(const SubscriptionTable&) = delete;
  SubscriptionTable(SubscriptionTable&&) = delete;
  SubscriptionTable& operator=(SubscriptionTable&&) = delete;

  /// @brief Stores `callback` for payload alternative `type`. Returns an invalid handle when the
  /// row is full: kMaxCallbacksPerType live subscriptions, or (rarely) when the spare entries
  /// all hold subscriptions removed during the consumer's current batch. Thread-safe (spin lock),
  /// callable from inside a callback.
  SubscriptionHandle Add(std::size_t type, Callback&& callback) noexcept {
    ReclaimPending(/*may_wait=*/true);
    detail::ControlLockGuard<ControlLock> guard(lock_);
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
    entry.ConstructCallable(std::move(callback));
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
    if (live == 0U && watch_ != nullptr) {
      // After ACTIVE: whoever learns of the subscription through the watch (and synchronises
      // with it) also sees the entry active.
      watch_->changed(*watch_, type, true);
    }
    return SubscriptionHandle{type, entry.callback_id};
  }

  /// @brief Removes the subscription `handle` names. True once; false for an invalid, foreign
  /// or already removed handle (nothing changes then). Thread-safe, callable from a callback.
  bool Remove(const SubscriptionHandle& handle) noexcept {
    if (!handle.IsValid() || handle.type_index >= kTypes) {
      return false;
    }
    const std::size_t slot = handle.callback_id % kEntriesPerRow;
    Entry& entry = rows_[handle.type_index].entries[slot];
    {
      detail::ControlLockGuard<ControlLock> guard(lock_);
      // relaxed: ACTIVE is only entered and left under this lock.
      if (entry.state.load(std::memory_order_relaxed) != kActive ||
          entry.callback_id != handle.callback_id) {
        return false;
      }
      // The entry stays REMOVED and unreclaimable (kNotYet) until its epoch is known below, so
      // nobody frees or reuses it while the lock is released for the barrier.
      entry.reclaim_rule = ReclaimRule::kNotYet;
      // seq_cst stores then (below) a seq_cst load: the unsubscriber's half of the epoch
      // handshake (file comment); they pair with the consumer's epoch stores in BeginBatch /
      // EndBatch, its state loads in Dispatch and its load of pending_reclaims_ in EndBatch.
      StoreSeqCst(entry.state, kRemoved);
      StoreSeqCst(pending_reclaims_, pending_reclaims_.load(std::memory_order_relaxed) + 1U);
      if (watch_ != nullptr && LiveIn(rows_[handle.type_index]) == 0U) {
        watch_->changed(*watch_, handle.type_index, false);
      }
    }
    // With light batch marks the consumer has no StoreLoad barrier of its own: the heavy half
    // of the asymmetric fence stands between the stores above and the epoch load below. It is
    // a system call, made outside the lock. acquire: pairs with the release store of false in
    // SwitchToSymmetric (a switch seen here is complete).
    ReclaimRule rule = ReclaimRule::kAfterEpoch;
    if (light_batch_marks_.load(std::memory_order_acquire)) {
      // Heavy() is constant false only where the build has no asymmetric fence, and there
      // light marks are never on; hosted, the system call may fail.
      // cppcheck-suppress knownConditionTrueFalse ; false positive: see above
      if (!detail::AsymmetricFence::Heavy()) {
        SwitchToSymmetric();
        rule = ReclaimRule::kAfterAcknowledgement;
      }
    } else if (constructed_light_ && !SwitchAcknowledged()) {
      // The consumer may still run a batch with light marks.
      rule = ReclaimRule::kAfterAcknowledgement;
    } else {
      // Symmetric marks from the start, or the switch is acknowledged: the epoch rule holds.
    }
    const uint32_t epoch = LoadSeqCst(dispatch_epoch_);
    {
      detail::ControlLockGuard<ControlLock> guard(lock_);
      entry.removed_epoch = epoch;
      entry.reclaim_rule = rule;
    }
    ReclaimPending(/*may_wait=*/true);
    return true;
  }

  /// @brief Consumer: marks the start of a dispatch batch. Returns false if a batch was already
  /// open (a second consumer, or ProcessBatch re-entered from a callback).
  bool BeginBatch() noexcept {
    // acquire: pairs with SwitchToSymmetric's release store; a batch that reads false sees every
    // REMOVED stored before the switch.
    batch_light_ = light_batch_marks_.load(std::memory_order_acquire);
    if (batch_light_) {
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
    const bool was_even = (FetchAddSeqCst(dispatch_epoch_) & 1U) == 0U;
    if (MCCC_UNLIKELY(constructed_light_ && !switch_acknowledged_local_)) {
      switch_acknowledged_local_ = true;
      // release: pairs with the acquire load in SwitchAcknowledged(); every use the earlier
      // (light) batches made of a callable happens-before a reclaimer that reads true.
      detail::StoreRelease<kSingleCore>(switch_acknowledged_, true);
    }
    return was_even;
  }

  /// @brief True when BeginBatch/EndBatch are plain stores (asymmetric fence): cheap enough to
  /// run on every poll, even an empty one. False: BeginBatch is a locked read-modify-write.
  bool LightBatchMarks() const noexcept {
    // relaxed: a hint for skipping an empty poll; BeginBatch decides with an acquire load.
    return light_batch_marks_.load(std::memory_order_relaxed);
  }

  /// @brief Consumer, on a poll that opens no batch: reclaims what an earlier batch end left
  /// because the lock was busy (never waits for it).
  void ReclaimIfPending() noexcept { ReclaimPending(/*may_wait=*/false); }

  /// @brief Not 0 when removed callables may wait for their reclaim (a hint: one relaxed load,
  /// for an empty poll to skip ReclaimIfPending; the decision is re-made under the lock). A count
  /// rather than a bool, so that a caller can test it together with other flags.
  MCCC_ALWAYS_INLINE uint32_t PendingReclaimsHint() const noexcept {
    // relaxed: a hint, as in ReclaimPending.
    return pending_reclaims_.load(std::memory_order_relaxed);
  }

  /// @brief Consumer: marks the end of a dispatch batch and reclaims removed entries if the lock
  /// is free (never waits for it).
  /// Out of line: it runs once per batch, and inlined into ProcessBatch its reclaim path took
  /// registers from the per-message dispatch loop.
  MCCC_NOINLINE void EndBatch() noexcept {
    // No RMW: only the consumer writes the epoch (relaxed load: it reads its own last write).
    // The store is at least a release: pairs with the seq_cst (hence acquire) epoch loads of
    // Remove / TakeOneReclaimableLocked, so everything this batch did with a callable
    // happens-before a reclaimer that reads the new (even) value. It is also the consumer's
    // store half of the reclaim handshake with Remove (file comment): StoreLoad order towards
    // the load of pending_reclaims_ below comes from Light() here and Heavy() in Remove, or
    // from both sides being seq_cst.
    const uint32_t next = dispatch_epoch_.load(std::memory_order_relaxed) + 1U;
    if (batch_light_) {
      dispatch_epoch_.store(next, std::memory_order_release);
      detail::AsymmetricFence::Light();
    } else {
      StoreSeqCst(dispatch_epoch_, next);
    }
    // seq_cst: the load half of the reclaim handshake (pairs with Remove's seq_cst store).
    if (LoadSeqCst(pending_reclaims_) != 0U) {
      ReclaimPending(/*may_wait=*/false);  // the consumer never waits for the lock
    }
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
      if (!Invoke(entry.Callable(), envelope)) {
        ++errors;
        on_error(envelope.header.msg_id);
      }
    }
    return errors;
  }

  /// @brief Installs `watch` (nullptr: none) and tells it at once which types have live
  /// subscriptions now; from then on it is told of every change (SubscriptionWatch). `watch` must
  /// outlive the table or be replaced first. Thread-safe (under the table's lock).
  void SetWatch(const SubscriptionWatch* watch) noexcept {
    detail::ControlLockGuard<ControlLock> guard(lock_);
    watch_ = watch;
    if (watch != nullptr) {
      for (std::size_t type = 0U; type < kTypes; ++type) {
        watch->changed(*watch, type, LiveIn(rows_[type]) != 0U);
      }
    }
  }

  /// @brief Number of live (ACTIVE) subscriptions of `type`. Snapshot, thread-safe.
  std::size_t CountActive(std::size_t type) const noexcept {
    return type < kTypes ? LiveIn(rows_[type]) : 0U;
  }

 private:
  using ControlLock = detail::ControlLock<kSingleCore, CriticalSection>;
  static constexpr std::size_t kEntriesPerRow = 2U * kPerType;
  static constexpr uint8_t kFree = 0U;
  static constexpr uint8_t kActive = 1U;
  static constexpr uint8_t kRemoved = 2U;

  /// When a REMOVED entry may be destroyed.
  enum class ReclaimRule : uint8_t {
    kNotYet = 0U,                ///< Remove has not finished its handshake.
    kAfterEpoch = 1U,            ///< Once the consumer is past the batch it was in (removed_epoch).
    kAfterAcknowledgement = 2U,  ///< Once the consumer acknowledged the symmetric switch.
  };

  struct Entry {
    std::atomic<uint8_t> state{kFree};
    ReclaimRule reclaim_rule{ReclaimRule::kNotYet};  // under the lock
    uint32_t removed_epoch{0U};                      // under the lock
    std::size_t callback_id{0U};                     // under the lock
    // The callable, constructed in place while the entry is ACTIVE or REMOVED (written under the
    // lock while not ACTIVE). A FREE entry holds no callable: its bytes stay zero from
    // construction, which keeps a fresh table (and bus) all zero bytes, in .bss.
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
    alignas(Callback) unsigned char callable_storage[sizeof(Callback)]{};

    const Callback& Callable() const noexcept {
      // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
      return *std::launder(reinterpret_cast<const Callback*>(callable_storage));
    }
    Callback& Callable() noexcept {
      // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
      return *std::launder(reinterpret_cast<Callback*>(callable_storage));
    }
    void ConstructCallable(Callback&& callback) noexcept {
      ::new (static_cast<void*>(callable_storage)) Callback(std::move(callback));
    }
    void DestroyCallable() noexcept { Callable().~Callback(); }
  };
  struct Row {
    std::atomic<uint32_t> used{0U};  // entries [0, used) may be ACTIVE
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
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

  template <typename T>
  static void StoreSeqCst(std::atomic<T>& a, T value) noexcept {
    detail::StoreSeqCst<kSingleCore>(a, value);
  }

  template <typename T>
  static T LoadSeqCst(const std::atomic<T>& a) noexcept {
    return detail::LoadSeqCst<kSingleCore>(a);
  }

  static uint32_t FetchAddSeqCst(std::atomic<uint32_t>& a) noexcept {
    return detail::FetchIncrementSeqCst<kSingleCore, CriticalSection>(a);
  }

  /// Whether the consumer can use the asymmetric fence (a system call on Linux, hence evaluated
  /// at run time only where the fence can be used at all).
  static constexpr bool AsymmetricFenceAvailable() noexcept {
    if constexpr (kAllowAsymmetricFence && !kSingleCore) {
      return detail::AsymmetricFence::Available();
    } else {
      return false;
    }
  }

  /// Caller holds the lock.
  std::size_t NextCallbackId(std::size_t slot) noexcept {
    if (next_serial_ == 0U) {  // the first Add of this table: draw its id base
      next_serial_ = detail::NextSubscriptionIdBase<kSingleCore, CriticalSection>();
    }
    std::size_t id = next_serial_ * kEntriesPerRow + slot;
    ++next_serial_;
    if (id == SubscriptionHandle::kInvalidCallbackId) {  // skip the reserved value
      id = next_serial_ * kEntriesPerRow + slot;
      ++next_serial_;
    }
    return id;
  }

  /// Live (ACTIVE) subscriptions of `row`: exact for a caller that holds the lock (every change
  /// of ACTIVE is made under it), a snapshot otherwise.
  static std::size_t LiveIn(const Row& row) noexcept {
    std::size_t live = 0U;
    for (const Entry& entry : row.entries) {
      // relaxed: under the lock, ACTIVE cannot change; without it, the count is a snapshot.
      live += entry.state.load(std::memory_order_relaxed) == kActive ? 1U : 0U;
    }
    return live;
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
      } else {
        // try_lock succeeded: the lock is held, as after lock() above.
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
        if (IsReclaimable(entry, epoch_now)) {
          out = std::move(entry.Callable());
          entry.DestroyCallable();
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

  bool IsReclaimable(const Entry& entry, uint32_t epoch_now) const noexcept {
    switch (entry.reclaim_rule) {
      case ReclaimRule::kAfterEpoch: {
        const bool consumer_was_idle = (entry.removed_epoch & 1U) == 0U;
        return consumer_was_idle || epoch_now != entry.removed_epoch;
      }
      case ReclaimRule::kAfterAcknowledgement:
        return SwitchAcknowledged();
      default:
        return false;
    }
  }

  /// The membarrier call failed: from now on the consumer marks batches symmetrically.
  void SwitchToSymmetric() noexcept {
    // release: pairs with BeginBatch's acquire load; the REMOVED stores made before the switch
    // are visible to every batch that takes the symmetric path.
    light_batch_marks_.store(false, std::memory_order_release);
  }

  bool SwitchAcknowledged() const noexcept {
    // acquire: pairs with BeginBatch's release store of the acknowledgement.
    return detail::LoadAcquire<kSingleCore>(switch_acknowledged_);
  }

  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  Row rows_[kTypes];
  std::atomic<uint32_t> dispatch_epoch_{0U};
  std::atomic<uint32_t> pending_reclaims_{0U};
  std::size_t next_serial_ = 0U;  // under the lock; 0 until the first Add draws the id base
  ControlLock lock_;
  const bool constructed_light_;  // the asymmetric fence was available at construction
  // Asymmetric fence in use; goes from true to false once if the membarrier call fails.
  std::atomic<bool> light_batch_marks_;
  std::atomic<bool> switch_acknowledged_{false};  // the consumer took the symmetric path
  bool switch_acknowledged_local_ = false;        // consumer-owned copy of the above
  bool batch_light_ = false;                      // consumer-owned: this batch's marks
  const SubscriptionWatch* watch_ = nullptr;      // under the lock
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DISPATCH_SUBSCRIPTION_TABLE_HPP_
