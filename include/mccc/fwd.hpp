// SPDX-License-Identifier: MIT
/// @file fwd.hpp
/// @brief Forward declarations of the public class templates, for headers that only name them.
#ifndef MCCC_FWD_HPP_
#define MCCC_FWD_HPP_

#include <cstddef>

namespace mccc {

struct NullClock;
struct SteadyClock;
template <typename CounterSource>
class BasicTscClock;
struct DefaultBusTraits;
struct MessageHeader;
struct SubscriptionHandle;
struct BusStatisticsSnapshot;
template <typename PayloadVariant>
struct MessageEnvelope;
template <typename PayloadVariant, typename Traits>
class AsyncBus;
template <std::size_t Capacity>
class FixedString;
template <typename T, std::size_t Capacity>
class FixedVector;

}  // namespace mccc

#endif  // MCCC_FWD_HPP_
