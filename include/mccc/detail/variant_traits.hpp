// SPDX-License-Identifier: MIT
/// @file variant_traits.hpp
/// @brief Compile-time facts about the payload variant: where a type sits in it, how often.
#ifndef MCCC_DETAIL_VARIANT_TRAITS_HPP_
#define MCCC_DETAIL_VARIANT_TRAITS_HPP_

#include <cstddef>
#include <type_traits>
#include <variant>

namespace mccc {
namespace detail {

template <typename T, typename Variant>
struct AlternativeCount;

/// @brief How many alternatives of the variant are exactly T.
template <typename T, typename... Ts>
struct AlternativeCount<T, std::variant<Ts...>>
    : std::integral_constant<std::size_t, (0U + ... + (std::is_same_v<T, Ts> ? 1U : 0U))> {};

/// @brief True when T is exactly one alternative of the variant (no conversions considered).
template <typename T, typename Variant>
inline constexpr bool kIsAlternative = AlternativeCount<T, Variant>::value == 1U;

template <typename T, typename Variant>
struct AlternativeIndex;

/// @brief The index of T among the alternatives (the first match; use with kIsAlternative).
template <typename T, typename... Ts>
struct AlternativeIndex<T, std::variant<Ts...>> {
 private:
  static constexpr std::size_t Find() noexcept {
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
    constexpr bool kMatches[] = {std::is_same_v<T, Ts>..., false};
    std::size_t i = 0U;
    while (i < sizeof...(Ts) && !kMatches[i]) {
      ++i;
    }
    return i;
  }

 public:
  static constexpr std::size_t value = Find();
};

template <typename Variant>
struct IsStdVariant : std::false_type {};
template <typename... Ts>
struct IsStdVariant<std::variant<Ts...>> : std::true_type {};

template <typename Variant>
struct AllNothrowMovable;
/// @brief Every alternative can be moved without throwing (a claimed slot is always published).
template <typename... Ts>
struct AllNothrowMovable<std::variant<Ts...>>
    : std::bool_constant<(std::is_nothrow_move_constructible_v<Ts> && ...)> {};

}  // namespace detail

/// @brief `VariantIndex<T, std::variant<Ts...>>::value`: the index of T among the alternatives
/// (the first one if T occurs more than once), e.g. to compare with SubscriptionHandle::type_index
/// or `variant.index()`. A compile error when T is not an alternative. Compile time only.
template <typename T, typename Variant>
struct VariantIndex
    : std::integral_constant<std::size_t, detail::AlternativeIndex<T, Variant>::value> {
  static_assert(detail::AlternativeCount<T, Variant>::value != 0U,
                "mccc: VariantIndex<T, Variant>: T is not an alternative of the variant");
};

/// @brief `VariantIndex<T, Variant>::value` as a variable.
template <typename T, typename Variant>
inline constexpr std::size_t kVariantIndex = VariantIndex<T, Variant>::value;

}  // namespace mccc

#endif  // MCCC_DETAIL_VARIANT_TRAITS_HPP_
