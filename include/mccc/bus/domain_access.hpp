// SPDX-License-Identifier: MIT
/// @file domain_access.hpp
/// @brief What a fan-out domain (fanout/domain.hpp) sets on the buses of its consumers, and
/// nothing else: a watch on the subscription table, so the domain knows which consumers
/// subscribe to each type; an error sink, so its error callback knows who reported; the
/// domain's loan pools, which the consumers share; and a publish as a given producer identity,
/// for the domain's Producer handles.
#ifndef MCCC_BUS_DOMAIN_ACCESS_HPP_
#define MCCC_BUS_DOMAIN_ACCESS_HPP_

#include <cstdint>
#include <utility>

#include "mccc/bus/bus_core.hpp"
#include "mccc/clock/clock_stamp.hpp"
#include "mccc/config.hpp"
#include "mccc/dispatch/subscription_table.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief A friend of AsyncBus, used by Domain only.
struct DomainAccess {
  /// See SubscriptionTable::SetWatch. Thread-safe.
  template <typename Bus>
  static void SetSubscriptionWatch(Bus& bus, const SubscriptionWatch* watch) noexcept {
    bus.table_.SetWatch(watch);
  }
  /// Points a consumer bus whose traits say kSharesLoanPools at the pools of `owner` (the
  /// domain's LoanPoolSet). Before the bus is used.
  template <typename Bus, typename Owner>
  static void AttachLoanPools(Bus& bus, Owner& owner) noexcept {
    bus.AttachTo(owner);
  }
  /// One publish on `bus` as producer identity `producer` (a domain's Producer handle: as the
  /// bus's own Producer publishes), with the given timestamp where the bus stores one.
  template <typename Bus, typename T>
  MCCC_ALWAYS_INLINE static bool PublishAs(Bus& bus, uint32_t producer, T&& message,
                                           uint32_t sender_id, MessagePriority priority,
                                           uint64_t timestamp_us) noexcept {
    auto& path = static_cast<typename Bus::Publisher&>(bus);
    if constexpr (Bus::kStoresTimestamp) {
      return path.PublishImpl(producer, std::forward<T>(message), sender_id, priority,
                              GivenStamp(timestamp_us));
    } else {
      return path.PublishTimestamped(producer, std::forward<T>(message), sender_id, priority);
    }
  }
  /// The calling thread's producer identity on a bus of type `Bus` (what its own publish calls
  /// publish as: its lane index with lanes, else "this thread").
  template <typename Bus>
  MCCC_ALWAYS_INLINE static uint32_t CallingProducer() noexcept {
    return Bus::Publisher::CurrentProducer();
  }
  /// PublishBatch on `bus` as producer identity `producer`.
  template <typename Bus, typename T>
  static uint32_t PublishBatchAs(Bus& bus, uint32_t producer, const T* messages, uint32_t count,
                                 uint32_t sender_id, MessagePriority priority) noexcept {
    return static_cast<typename Bus::Publisher&>(bus).PublishBatchBy(producer, messages, count,
                                                                     sender_id, priority);
  }

  /// See BusCore::StoreErrorSink. Thread-safe.
  template <typename Bus>
  static void SetErrorSink(Bus& bus, const ErrorSink* sink) noexcept {
    bus.StoreErrorSink(sink);
  }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_DOMAIN_ACCESS_HPP_
