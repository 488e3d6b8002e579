// SPDX-License-Identifier: MIT
/// @file domain_access.hpp
/// @brief What a fan-out domain (fanout/domain.hpp) sets on the buses of its consumers, and
/// nothing else: a watch on the subscription table, so the domain knows which consumers
/// subscribe to each type; an error sink, so its error callback knows who reported; and the
/// domain's loan pools, which the consumers share.
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
  /// Points a consumer bus whose traits say kSharesLoanPools at the pools of `owner` (the
  /// domain's LoanPoolSet). Before the bus is used.
  template <typename Bus, typename Owner>
  static void AttachLoanPools(Bus& bus, Owner& owner) noexcept {
    bus.AttachTo(owner);
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
