// SPDX-License-Identifier: MIT
/// @file plain_layout.hpp
/// @brief Which types the default codec may send as their bytes: a compile-time look at a type's
/// members without reflection.
///
/// A type travels as its bytes only when every byte is a value and every value the bytes can
/// hold is valid: no padding (whose bytes are whatever the stack held, sent to the peer), no
/// bool or enum (bytes 02 would become a bool of value 2, undefined behaviour to read), no
/// floating point (no unique representation: std::has_unique_object_representations refuses it;
/// declare the fields, fields.hpp, and they travel as IEEE bits), no pointer (meaningless in
/// another process). So a plain type is a non-bool integer, a std::array of plain types, or an
/// aggregate without padding whose members (and the elements of its arrays) are plain.
///
/// The members of an aggregate are found by aggregate initialization from objects that convert
/// to any type: the largest number of such initializers the type accepts is its number of
/// leaves (a member of class type takes one, an array member one per element); then one
/// initialization from objects that convert only to plain types tells whether every leaf is
/// plain. The count is looked for up to kMaxPlainLeaves; a type with more leaves (e.g. a long C
/// array member: use std::array, one leaf) is not plain. Unions are never plain (their members
/// cannot be told apart this way).
#ifndef MCCC_BRIDGE_PLAIN_LAYOUT_HPP_
#define MCCC_BRIDGE_PLAIN_LAYOUT_HPP_

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace mccc {
namespace bridge {
namespace detail {

/// Leaves of an aggregate looked for, at most.
inline constexpr std::size_t kMaxPlainLeaves = 256U;

/// Converts to anything (declared only: used in unevaluated operands).
struct AnyLeaf {
  template <typename U>
  constexpr operator U() const noexcept;  // NOLINT(hicpp-explicit-conversions): deviation D-24
};

template <typename T, typename Indices, typename Leaf, typename = void>
struct BraceInitializable : std::false_type {};
template <typename T, std::size_t... kI, typename Leaf>
struct BraceInitializable<T, std::index_sequence<kI...>, Leaf,
                          std::void_t<decltype(T{(static_cast<void>(kI), Leaf{})...})>>
    : std::true_type {};

/// The largest n in [kLow, kHigh] such that T{AnyLeaf x n} is valid (valid for every n up to
/// the number of leaves and for none above: a binary search).
template <typename T, std::size_t kLow, std::size_t kHigh>
struct LeafCountSearch {
  static constexpr std::size_t kMid = (kLow + kHigh + 1U) / 2U;
  static constexpr std::size_t value =
      BraceInitializable<T, std::make_index_sequence<kMid>, AnyLeaf>::value
          ? LeafCountSearch<T, kMid, kHigh>::value
          : LeafCountSearch<T, kLow, kMid - 1U>::value;
};
template <typename T, std::size_t kLow>
struct LeafCountSearch<T, kLow, kLow> {
  static constexpr std::size_t value = kLow;
};

template <typename T>
struct IsStdArray : std::false_type {};
template <typename E, std::size_t kN>
struct IsStdArray<std::array<E, kN>> : std::true_type {};

template <typename T, typename = void>
struct IsPlain;

/// Converts only to plain types.
struct PlainLeaf {
  template <typename U, std::enable_if_t<IsPlain<U>::value, int> = 0>
  constexpr operator U() const noexcept;  // NOLINT(hicpp-explicit-conversions): deviation D-24
};

template <typename T, bool kAggregate = std::is_aggregate_v<T>>
struct AggregateIsPlain : std::false_type {};
template <typename T>
struct AggregateIsPlain<T, true> {
  static constexpr std::size_t kLeaves = LeafCountSearch<T, 0U, kMaxPlainLeaves + 1U>::value;
  static constexpr bool value =
      kLeaves > 0U &&
      kLeaves <= kMaxPlainLeaves&&
                     BraceInitializable<T, std::make_index_sequence<kLeaves>, PlainLeaf>::value;
};

template <typename T>
constexpr bool IsPlainValue() noexcept {
  if constexpr (std::is_integral_v<T>) {
    return !std::is_same_v<T, bool>;
  } else if constexpr (IsStdArray<T>::value) {
    return IsPlain<typename T::value_type>::value;
  } else if constexpr (std::is_class_v<T>) {
    return std::has_unique_object_representations_v<T> && AggregateIsPlain<T>::value;
  } else {
    return false;  // bool, enum, floating point, pointer, union, array (as a whole)
  }
}

template <typename T, typename>
struct IsPlain : std::bool_constant<IsPlainValue<std::remove_cv_t<T>>()> {};

/// Leaves of a plain aggregate (1 for an integer or a std::array): a part of the schema
/// fingerprint, so that two layouts of the same size tell apart by their number of members.
template <typename T>
constexpr std::size_t PlainLeafCount() noexcept {
  if constexpr (std::is_class_v<T> && !IsStdArray<T>::value && std::is_aggregate_v<T>) {
    return AggregateIsPlain<T>::kLeaves;
  } else {
    return 1U;
  }
}

}  // namespace detail

/// @brief True when the default codec may send T as its bytes (file comment).
template <typename T>
inline constexpr bool kIsPlain = detail::IsPlain<T>::value;

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_PLAIN_LAYOUT_HPP_
