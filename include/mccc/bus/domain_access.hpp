// SPDX-License-Identifier: MIT
/// @file domain_access.hpp
/// @brief What a fan-out domain (fanout/domain.hpp) sets on the buses of its consumers, and
/// nothing else: a watch on the subscription table, so the domain knows which consumers
/// subscribe to each type, and an error sink, so its error callback knows who reported.
#ifndef MCCC_BUS_DOMAIN_ACCESS_HPP_
#define MCCC_BUS_DOMAIN_ACCESS_HPP_

#include "mccc/bus/bus_core.hpp"
#include "mccc/dispatch/subscription_table.hpp"

namespace mccc {
namespace detail {

/// @brief A friend of AsyncBus, used by Domain only.
struct DomainAccess {
  /// See SubscriptionTable::SetWatch. Thread-safe.
  template <typename Bus>
  static void SetSubscriptionWatch(Bus& bus, const SubscriptionWatch* watch) noexcept {
    bus.table_.SetWatch(watch);
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
