// SPDX-License-Identifier: MIT
/// @file subscribed_consumers.hpp
/// @brief Per message type, the set of a domain's consumers that receive it (a live subscription,
/// or ReceiveAll): the one word a fan-out publish reads to know where its message goes.
///
/// Each consumer's bus tells the set, through a SubscriptionWatch, when a type gains its first
/// live subscription there or loses its last; the bus calls it under its subscription table's
/// lock, after the entry became ACTIVE (or REMOVED), so one consumer's changes come one at a time
/// and in order. A consumer may also be set to receive every type whatever its subscriptions
/// (ReceiveAll: one that dispatches with a visitor, which subscribes to nothing). A consumer's bit
/// in a type's word is "a live subscription, or receives all"; the set recomputes the words under
/// a lock of its own (taken inside a table's lock, never the other way round), and publishes each
/// with one release store.
///
/// Ordering. A subscriber's entry is ACTIVE before the word with its bit is stored (release). A
/// publisher that reads the word (acquire) and then publishes into that consumer's ring (release,
/// the ring's protocol) hands the consumer a message whose dispatch happens after the entry became
/// ACTIVE, so a subscription made before a publish (Subscribe returned first, and the publisher
/// synchronised with that) always gets the message. A publish concurrent with Subscribe or
/// Unsubscribe may or may not reach that consumer, exactly as a bus's dispatch concurrent with
/// them may or may not call the callback; a message that reaches a consumer with no live
/// subscriber any more is dispatched to nobody there.
#ifndef MCCC_FANOUT_SUBSCRIBED_CONSUMERS_HPP_
#define MCCC_FANOUT_SUBSCRIBED_CONSUMERS_HPP_

#include <array>
#include <atomic>
#include <cstddef>

#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/control_lock.hpp"
#include "mccc/dispatch/subscription_table.hpp"
#include "mccc/fanout/fan_out_result.hpp"

namespace mccc {
namespace detail {

/// @brief The subscribed consumers of each of `kTypes` types, for `kConsumers` consumers.
template <std::size_t kTypes, std::size_t kConsumers, bool kSingleCore, typename CriticalSection>
class SubscribedConsumers {
  static_assert(kConsumers >= 1U && kConsumers <= kMaxDomainConsumers,
                "mccc: a Domain has 1 to 32 consumers (one bit each in a ConsumerMask)");

 public:
  /// The watch one consumer's bus calls (SubscriptionWatch): it knows its set and its bit.
  struct ConsumerWatch : SubscriptionWatch {
    SubscribedConsumers* set = nullptr;
    ConsumerMask bit = 0U;
  };

  SubscribedConsumers() noexcept {
    for (std::size_t i = 0U; i < kConsumers; ++i) {
      watches_[i].changed = &Changed;
      watches_[i].set = this;
      watches_[i].bit = ConsumerMask{1} << i;
    }
  }
  ~SubscribedConsumers() = default;
  // The watches point at this object: it stays where it was built.
  SubscribedConsumers(const SubscribedConsumers&) = delete;
  SubscribedConsumers& operator=(const SubscribedConsumers&) = delete;
  SubscribedConsumers(SubscribedConsumers&&) = delete;
  SubscribedConsumers& operator=(SubscribedConsumers&&) = delete;

  /// @brief The watch to install on consumer `consumer`'s bus.
  const SubscriptionWatch* WatchOf(std::size_t consumer) const noexcept {
    return &watches_[consumer];
  }

  /// @brief The consumers a message of alternative `type` goes to now (type < kTypes).
  MCCC_ALWAYS_INLINE ConsumerMask Of(std::size_t type) const noexcept {
    // acquire: pairs with the release store in Update (see the file comment).
    return LoadAcquire<kSingleCore>(masks_[type]);
  }

  /// @brief Consumer `consumer` receives every type (true), or only what it subscribes to.
  /// Thread-safe.
  void ReceiveAll(std::size_t consumer, bool on) noexcept {
    ControlLockGuard<Lock> guard(lock_);
    receives_all_ = on ? (receives_all_ | watches_[consumer].bit)
                       : (receives_all_ & static_cast<ConsumerMask>(~watches_[consumer].bit));
    for (std::size_t type = 0U; type < kTypes; ++type) {
      Update(type);
    }
  }

 private:
  using Lock = ControlLock<kSingleCore, CriticalSection>;

  static void Changed(const SubscriptionWatch& watch, std::size_t type, bool any_live) noexcept {
    const auto& mine = static_cast<const ConsumerWatch&>(watch);
    SubscribedConsumers& set = *mine.set;
    ControlLockGuard<Lock> guard(set.lock_);
    set.live_[type] = any_live ? (set.live_[type] | mine.bit)
                               : (set.live_[type] & static_cast<ConsumerMask>(~mine.bit));
    set.Update(type);
  }

  /// Caller holds lock_.
  void Update(std::size_t type) noexcept {
    // release: pairs with the acquire load in Of; the entry's ACTIVE (or REMOVED) state, stored
    // before the watch was called, is visible to a publisher that reads the new word.
    StoreRelease<kSingleCore>(masks_[type], static_cast<ConsumerMask>(live_[type] | receives_all_));
  }

  std::array<std::atomic<ConsumerMask>, kTypes> masks_{};
  std::array<ConsumerWatch, kConsumers> watches_{};
  Lock lock_;
  // Under lock_: per type, the consumers with a live subscription; the consumers that take all.
  std::array<ConsumerMask, kTypes> live_{};
  ConsumerMask receives_all_ = 0U;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_FANOUT_SUBSCRIBED_CONSUMERS_HPP_
