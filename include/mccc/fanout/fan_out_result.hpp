// SPDX-License-Identifier: MIT
/// @file fan_out_result.hpp
/// @brief What a fan-out publish tells its caller: which consumers the message was for, and
/// which of them admitted it.
#ifndef MCCC_FANOUT_FAN_OUT_RESULT_HPP_
#define MCCC_FANOUT_FAN_OUT_RESULT_HPP_

#include <array>
#include <cstddef>
#include <cstdint>

namespace mccc {

/// @brief A set of a domain's consumers: bit i is consumer i.
using ConsumerMask = uint32_t;

/// @brief The most consumers a domain has (the bits of a ConsumerMask).
inline constexpr std::size_t kMaxDomainConsumers = 32U;

namespace detail {
constexpr uint32_t CountBits(ConsumerMask mask) noexcept {
  uint32_t n = 0U;
  for (; mask != 0U; mask &= mask - 1U) {
    ++n;
  }
  return n;
}
}  // namespace detail

/// @brief The outcome of one fan-out publish (Domain::Publish and its siblings).
///
/// The rule for "published": the message reached every consumer that was subscribed to its type
/// when the call read the subscriptions; a consumer that refused it (its queue full, or its LOW /
/// MEDIUM limit reached) lost only its own copy, and the others still received theirs. A message
/// nobody subscribes to is vacuously published (nothing is queued; as a bus delivers it to no
/// callback). `Refused()` names the consumers that lost it.
struct FanOutResult {
  ConsumerMask subscribed = 0U;  ///< The consumers the message was for.
  ConsumerMask admitted = 0U;    ///< Those whose queue admitted it (a subset of `subscribed`).

  /// @brief Subscribed consumers that refused the message.
  constexpr ConsumerMask Refused() const noexcept { return subscribed & ~admitted; }
  /// @brief True when `consumer` admitted it.
  constexpr bool AdmittedBy(std::size_t consumer) const noexcept {
    return consumer < kMaxDomainConsumers && ((admitted >> consumer) & 1U) != 0U;
  }
  /// @brief How many consumers admitted it.
  constexpr uint32_t AdmittedCount() const noexcept { return detail::CountBits(admitted); }
  /// @brief How many subscribed consumers refused it.
  constexpr uint32_t RefusedCount() const noexcept { return detail::CountBits(Refused()); }
  /// @brief Published: no subscribed consumer refused it (see the struct comment).
  constexpr bool AllAdmitted() const noexcept { return Refused() == 0U; }
  constexpr explicit operator bool() const noexcept { return AllAdmitted(); }
};

/// @brief The outcome of one fan-out PublishBatch: each consumer admits a prefix of the batch,
/// exactly as the bus's PublishBatch does (refusals count and report per consumer).
template <std::size_t kConsumers>
struct FanOutBatchResult {
  uint32_t count = 0U;           ///< Messages in the batch.
  ConsumerMask subscribed = 0U;  ///< The consumers the batch was for.
  /// Per consumer: how many messages (a prefix) it admitted; 0 for one not subscribed.
  std::array<uint32_t, kConsumers> admitted{};

  /// @brief Subscribed consumers that refused at least one message of the batch.
  constexpr ConsumerMask Refused() const noexcept {
    ConsumerMask refused = 0U;
    for (std::size_t i = 0U; i < kConsumers; ++i) {
      if (((subscribed >> i) & 1U) != 0U && admitted[i] != count) {
        refused |= ConsumerMask{1} << i;
      }
    }
    return refused;
  }
  /// @brief Every subscribed consumer admitted every message.
  constexpr bool AllAdmitted() const noexcept { return Refused() == 0U; }
  constexpr explicit operator bool() const noexcept { return AllAdmitted(); }
};

}  // namespace mccc

#endif  // MCCC_FANOUT_FAN_OUT_RESULT_HPP_
