// SPDX-License-Identifier: MIT
/// @file subscribed_consumers.hpp
/// @brief Per message type, the set of a domain's consumers with a live subscription to it: the
/// one word a fan-out publish reads to know where its message goes.
///
/// Each consumer's bus tells the set, through a SubscriptionWatch, when a type gains its first
/// live subscription there or loses its last; the bus calls it under its subscription table's
/// lock, after the entry became ACTIVE (or REMOVED). So the changes of one consumer's bit come one
/// at a time and in order, and two consumers' changes to the same word are atomic
/// read-modify-writes of different bits.
///
/// Ordering. A subscriber's entry is ACTIVE before its bit is set (release). A publisher that
/// reads the bit (acquire) and then publishes into that consumer's ring (release, the ring's
/// protocol) hands the consumer a message whose dispatch happens after the entry became ACTIVE,
/// so a subscription made before a publish (Subscribe returned first, and the publisher
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

  /// @brief The consumers subscribed to alternative `type` now (type < kTypes).
  MCCC_ALWAYS_INLINE ConsumerMask Of(std::size_t type) const noexcept {
    // acquire: pairs with the release read-modify-writes in Changed (see the file comment).
    return LoadAcquire<kSingleCore>(masks_[type]);
  }

 private:
  static void Changed(const SubscriptionWatch& watch, std::size_t type, bool any_live) noexcept {
    const auto& mine = static_cast<const ConsumerWatch&>(watch);
    std::atomic<ConsumerMask>& mask = mine.set->masks_[type];
    // release (both): pairs with the acquire load in Of; the entry's ACTIVE (or REMOVED) state,
    // stored before this call, is visible to a publisher that reads the new bit.
    if (any_live) {
      static_cast<void>(FetchOrRelease<kSingleCore, CriticalSection>(mask, mine.bit));
    } else {
      static_cast<void>(FetchAndRelease<kSingleCore, CriticalSection>(
          mask, static_cast<ConsumerMask>(~mine.bit)));
    }
  }

  std::array<std::atomic<ConsumerMask>, kTypes> masks_{};
  std::array<ConsumerWatch, kConsumers> watches_{};
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_FANOUT_SUBSCRIBED_CONSUMERS_HPP_
