// SPDX-License-Identifier: MIT
/// @file traits.hpp
/// @brief Compile-time settings of a bridge and the selection of the message types it carries.
#ifndef MCCC_BRIDGE_TRAITS_HPP_
#define MCCC_BRIDGE_TRAITS_HPP_

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "mccc/detail/variant_traits.hpp"

namespace mccc {
namespace bridge {

/// @brief Defaults of every bridge setting except the transport. Derive and override:
/// @code
/// struct SmallBridge : mccc::bridge::DefaultBridgeTraits {
///   static constexpr uint32_t kSendQueueDepth = 256;
/// };
/// @endcode
struct BridgeTraitsBase {
  /// Frames one exporter channel may queue in front of the transport. The bus's admission
  /// percentages (PriorityAdmission) apply to it: LOW is refused first, then MEDIUM, HIGH last.
  static constexpr uint32_t kSendQueueDepth = 4096U;
  /// Bytes of that queue (power of two); one frame may take at most half.
  static constexpr uint32_t kSendQueueBytes = uint32_t{1} << 22U;
  /// Streams (exporter starts x channels) one importer follows at once. When a new stream's
  /// first data frame finds the table full, a newcomer (fewer than two frames accepted) goes
  /// first, then the stream least recently accepted from (sequence_check.hpp).
  static constexpr std::size_t kMaxStreams = 32U;
  /// Streams one importer remembers after they ended or were evicted, so that their repeats and
  /// replays are still refused and an evicted stream is followed on where it was (a ring: the
  /// oldest record goes first).
  static constexpr std::size_t kRetiredStreams = 64U;
  /// Frames the exporter packs into one transport message, at most: the frames waiting in a
  /// channel's send queue leave together (none waits for others to come), so that the
  /// transport's cost per message is shared when the link is busy. The HIGH channel is looked at
  /// again after each LOW/MEDIUM message (sender and receiver threads), so this also bounds how
  /// many LOW/MEDIUM frames a HIGH frame can wait behind. 1: one frame per message.
  static constexpr uint32_t kNormalBurst = 64U;
  /// Bytes of frames one transport message carries, at most (a frame larger than this goes
  /// alone): bounds the time a receiver spends on one message before it looks at HIGH again.
  static constexpr uint32_t kMaxMessageBytes = 32768U;
};

/// @brief Selects message types: `Types<Pose, Scan>`.
template <typename... Ts>
struct Types {};

/// @brief Selects every alternative of the payload variant.
struct AllTypes {};

namespace detail {

template <typename Selection, typename Payload>
struct ResolveSelection;

template <typename... Ts, typename Payload>
struct ResolveSelection<Types<Ts...>, Payload> {
  static_assert(sizeof...(Ts) > 0U, "mccc::bridge: select at least one message type");
  static_assert((mccc::detail::kIsAlternative<Ts, Payload> && ...),
                "mccc::bridge: a selected type is not an alternative of the bus payload variant "
                "(or appears in it twice); select types of the std::variant");
  using type = Types<Ts...>;
};

template <typename... Alternatives>
struct ResolveSelection<AllTypes, std::variant<Alternatives...>> {
  using type = Types<Alternatives...>;
};

template <typename Selection, typename Payload>
using SelectedTypes = typename ResolveSelection<Selection, Payload>::type;

template <typename T, typename Selected>
struct IsSelected;
template <typename T, typename... Ts>
struct IsSelected<T, Types<Ts...>> : std::bool_constant<(std::is_same_v<T, Ts> || ...)> {};

template <typename Selected>
struct SelectionSize;
template <typename... Ts>
struct SelectionSize<Types<Ts...>> : std::integral_constant<std::size_t, sizeof...(Ts)> {};

}  // namespace detail
}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_TRAITS_HPP_
