// SPDX-License-Identifier: MIT
/// @file fields.hpp
/// @brief Declared fields: how a message type with bool, enum or floating-point members (or
/// padding) travels. The codec packs the declared fields one after the other, little-endian,
/// without padding, validates every bool (0 or 1) and enum (its declared validity) on arrival,
/// and the schema fingerprint covers each field's name, kind, size and offset.
///
/// @code
/// enum class Mode : uint8_t { kIdle, kRun, kFault };
/// MCCC_BRIDGE_ENUM_RANGE(Mode, Mode::kIdle, Mode::kFault);  // values outside: malformed
///
/// struct Pose { float x; float y; Mode mode; bool valid; uint64_t stamp; };  // with padding
/// MCCC_BRIDGE_FIELDS(Pose, x, y, mode, valid, stamp);  // 4 + 4 + 1 + 1 + 8 = 18 bytes on the wire
/// @endcode
///
/// Both macros go at global namespace scope, after the type, with the type's qualified name. A
/// type's fields must all be listed (a compile error says so when it can count them), at most
/// 24; a field may be a non-bool integer, bool, an enum with a declared validity, float or
/// double (IEEE-754), a C array or std::array of those, a type with declared fields, or a plain
/// type (plain_layout.hpp: sent as its bytes). For an enum whose valid values are not a range,
/// specialize mccc::bridge::BridgeEnum<E> with `static constexpr bool kDeclared = true;` and
/// `static constexpr bool IsValid(std::underlying_type_t<E> raw) noexcept`.
///
/// The declared type must be standard-layout (its offsets are taken with offsetof). Exporter and
/// importer must declare the same fields in the same order: the fingerprint differs otherwise.
#ifndef MCCC_BRIDGE_FIELDS_HPP_
#define MCCC_BRIDGE_FIELDS_HPP_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "mccc/bridge/byte_io.hpp"
#include "mccc/bridge/fnv1a.hpp"
#include "mccc/bridge/plain_layout.hpp"

namespace mccc {
namespace bridge {

/// @brief Customization point: the declared fields of T (MCCC_BRIDGE_FIELDS specializes it with
/// `kDeclared = true` and `static constexpr auto List()` returning a tuple of FieldInfo).
template <typename T>
struct BridgeFields {
  /// No fields declared: T travels by the default codec (plain types only) or a Codec<T>.
  static constexpr bool kDeclared = false;
};

/// @brief Customization point: which values of enum E are valid on the wire
/// (MCCC_BRIDGE_ENUM_RANGE specializes it; see the file comment for other sets).
template <typename E>
struct BridgeEnum {
  /// No validity declared: E cannot be a declared field.
  static constexpr bool kDeclared = false;
};

/// @brief One declared field of T: its name, the member and its offset in T.
template <typename T, typename M>
struct FieldInfo {
  using Type = M;           ///< The member's type.
  std::string_view name;    ///< As written in MCCC_BRIDGE_FIELDS.
  M T::*member = nullptr;   ///< The member.
  std::size_t offset = 0U;  ///< offsetof(T, member).
};

/// @brief A FieldInfo (what MCCC_BRIDGE_FIELDS writes for each field).
template <typename T, typename M>
constexpr FieldInfo<T, M> MakeField(std::string_view name, M T::*member,
                                    std::size_t offset) noexcept {
  return FieldInfo<T, M>{name, member, offset};
}

/// @brief True when T's fields are declared.
template <typename T>
inline constexpr bool kHasDeclaredFields = BridgeFields<T>::kDeclared;

namespace detail {

/// lo <= raw <= hi (a function, so that a bound of 0 is no constant comparison to warn about).
template <typename U>
constexpr bool InClosedRange(U raw, U lo, U hi) noexcept {
  return lo <= raw && raw <= hi;
}

template <typename M>
constexpr std::size_t PackedBytes() noexcept;
template <typename M>
void PutField(const M& value, WireWriter& writer) noexcept;
template <typename M>
bool GetField(WireReader& reader, M& value) noexcept;
template <typename M>
constexpr uint64_t HashFieldKind(uint64_t hash) noexcept;

/// The leaves aggregate initialization sees for a member of type M (plain_layout.hpp).
template <typename M>
constexpr std::size_t InitializerLeaves() noexcept {
  if constexpr (std::is_array_v<M>) {
    return std::extent_v<M> * InitializerLeaves<std::remove_extent_t<M>>();
  } else {
    return 1U;
  }
}

template <typename T>
constexpr auto DeclaredList() noexcept {
  return BridgeFields<T>::List();
}

template <typename T, std::size_t... kI>
constexpr std::size_t SumPackedBytes(std::index_sequence<kI...> /*fields*/) noexcept {
  constexpr auto kList = DeclaredList<T>();
  return (std::size_t{0} + ... +
          PackedBytes<typename std::tuple_element_t<kI, decltype(kList)>::Type>());
}

template <typename T, std::size_t... kI>
constexpr std::size_t SumLeaves(std::index_sequence<kI...> /*fields*/) noexcept {
  constexpr auto kList = DeclaredList<T>();
  return (std::size_t{0} + ... +
          InitializerLeaves<typename std::tuple_element_t<kI, decltype(kList)>::Type>());
}

template <typename T>
constexpr std::size_t kFieldCount = std::tuple_size_v<decltype(DeclaredList<T>())>;

/// Bytes a declared type takes on the wire: its fields packed.
template <typename T>
constexpr std::size_t DeclaredBytes() noexcept {
  return SumPackedBytes<T>(std::make_index_sequence<kFieldCount<T>>{});
}

/// Compile-time checks of a declaration, each saying what to do.
template <typename T>
constexpr bool CheckDeclaredFields() noexcept {
  static_assert(std::is_standard_layout_v<T>,
                "mccc::bridge: a type with declared fields must be standard-layout (its field "
                "offsets are part of the schema fingerprint); write a Codec<T> instead");
  if constexpr (std::is_aggregate_v<T>) {
    constexpr std::size_t kLeaves = LeafCountSearch<T, 0U, kMaxPlainLeaves + 1U>::value;
    static_assert(kLeaves > kMaxPlainLeaves ||
                      kLeaves == SumLeaves<T>(std::make_index_sequence<kFieldCount<T>>{}),
                  "mccc::bridge: MCCC_BRIDGE_FIELDS(T, ...) must list every member of T once "
                  "(a member left out would not travel)");
  }
  return true;
}

template <typename T, std::size_t... kI>
void PutFields(const T& value, WireWriter& writer, std::index_sequence<kI...> /*fields*/) noexcept {
  constexpr auto kList = DeclaredList<T>();
  (PutField(value.*(std::get<kI>(kList).member), writer), ...);
}

template <typename T, std::size_t... kI>
bool GetFields(WireReader& reader, T& value, std::index_sequence<kI...> /*fields*/) noexcept {
  constexpr auto kList = DeclaredList<T>();
  return (GetField(reader, value.*(std::get<kI>(kList).member)) && ...);
}

template <typename T, std::size_t... kI>
constexpr uint64_t HashFields(uint64_t hash, std::index_sequence<kI...> /*fields*/) noexcept {
  constexpr auto kList = DeclaredList<T>();
  hash = HashNumber(hash, sizeof...(kI));
  ((hash = HashFieldKind<typename std::tuple_element_t<kI, decltype(kList)>::Type>(HashNumber(
        HashNumber(
            HashNumber(HashBytes(hash, std::get<kI>(kList).name), std::get<kI>(kList).name.size()),
            std::get<kI>(kList).offset),
        sizeof(typename std::tuple_element_t<kI, decltype(kList)>::Type)))),
   ...);
  return hash;
}

/// `hash` extended by T's declared layout: the number of fields, then each field's name, offset,
/// size and kind (recursively for nested declared types and arrays).
template <typename T>
constexpr uint64_t HashDeclaredLayout(uint64_t hash) noexcept {
  return HashFields<T>(hash, std::make_index_sequence<kFieldCount<T>>{});
}

template <typename M>
constexpr std::size_t PackedBytes() noexcept {
  if constexpr (std::is_same_v<M, bool>) {
    return 1U;
  } else if constexpr (std::is_integral_v<M> || std::is_enum_v<M>) {
    return sizeof(M);
  } else if constexpr (std::is_floating_point_v<M>) {
    return sizeof(M);
  } else if constexpr (std::is_array_v<M>) {
    return std::extent_v<M> * PackedBytes<std::remove_extent_t<M>>();
  } else if constexpr (IsStdArray<M>::value) {
    return std::tuple_size_v<M> * PackedBytes<typename M::value_type>();
  } else if constexpr (kHasDeclaredFields<M>) {
    return DeclaredBytes<M>();
  } else {
    return sizeof(M);  // plain: its bytes
  }
}

template <typename U>
void PutInteger(U value, WireWriter& writer) noexcept {
  using Unsigned = std::make_unsigned_t<U>;
  const auto bits = static_cast<uint64_t>(static_cast<Unsigned>(value));
  for (std::size_t i = 0U; i < sizeof(U); ++i) {
    writer.Put8(static_cast<uint8_t>(bits >> (8U * i)));
  }
}

template <typename U>
bool GetInteger(WireReader& reader, U& value) noexcept {
  using Unsigned = std::make_unsigned_t<U>;
  uint64_t bits = 0U;
  for (std::size_t i = 0U; i < sizeof(U); ++i) {
    uint8_t byte = 0U;
    if (!reader.Get8(byte)) {
      return false;
    }
    bits |= static_cast<uint64_t>(byte) << (8U * i);
  }
  value = static_cast<U>(static_cast<Unsigned>(bits));
  return true;
}

template <typename M>
void PutField(const M& value, WireWriter& writer) noexcept {
  if constexpr (std::is_same_v<M, bool>) {
    writer.Put8(value ? 1U : 0U);
  } else if constexpr (std::is_integral_v<M>) {
    PutInteger(value, writer);
  } else if constexpr (std::is_enum_v<M>) {
    PutInteger(static_cast<std::underlying_type_t<M>>(value), writer);
  } else if constexpr (std::is_floating_point_v<M>) {
    using Bits = std::conditional_t<sizeof(M) == 4U, uint32_t, uint64_t>;
    Bits bits = 0U;
    static_cast<void>(std::memcpy(&bits, &value, sizeof(bits)));
    PutInteger(bits, writer);
  } else if constexpr (std::is_array_v<M> || IsStdArray<M>::value) {
    for (const auto& element : value) {
      PutField(element, writer);
    }
  } else if constexpr (kHasDeclaredFields<M>) {
    PutFields(value, writer, std::make_index_sequence<kFieldCount<M>>{});
  } else {
    writer.PutBytes(&value, sizeof(M));
  }
}

template <typename M>
bool GetField(WireReader& reader, M& value) noexcept {
  if constexpr (std::is_same_v<M, bool>) {
    uint8_t byte = 0U;
    if (!reader.Get8(byte) || byte > 1U) {
      return false;  // any other byte is no bool: never built
    }
    value = byte == 1U;
    return true;
  } else if constexpr (std::is_integral_v<M>) {
    return GetInteger(reader, value);
  } else if constexpr (std::is_enum_v<M>) {
    std::underlying_type_t<M> raw{};
    if (!GetInteger(reader, raw) || !BridgeEnum<M>::IsValid(raw)) {
      return false;
    }
    value = static_cast<M>(raw);
    return true;
  } else if constexpr (std::is_floating_point_v<M>) {
    using Bits = std::conditional_t<sizeof(M) == 4U, uint32_t, uint64_t>;
    Bits bits = 0U;
    if (!GetInteger(reader, bits)) {
      return false;
    }
    static_cast<void>(std::memcpy(&value, &bits, sizeof(bits)));
    return true;
  } else if constexpr (std::is_array_v<M> || IsStdArray<M>::value) {
    for (auto& element : value) {
      if (!GetField(reader, element)) {
        return false;
      }
    }
    return true;
  } else if constexpr (kHasDeclaredFields<M>) {
    return GetFields(reader, value, std::make_index_sequence<kFieldCount<M>>{});
  } else {
    return reader.GetBytes(&value, sizeof(M));
  }
}

template <typename M>
constexpr uint64_t HashFieldKind(uint64_t hash) noexcept {
  if constexpr (std::is_same_v<M, bool>) {
    return HashBytes(hash, "bool;");
  } else if constexpr (std::is_integral_v<M>) {
    return HashNumber(HashBytes(hash, std::is_signed_v<M> ? "int;" : "uint;"), sizeof(M));
  } else if constexpr (std::is_enum_v<M>) {
    return HashNumber(HashBytes(hash, "enum;"), sizeof(M));
  } else if constexpr (std::is_floating_point_v<M>) {
    return HashNumber(HashBytes(hash, "float;"), sizeof(M));
  } else if constexpr (std::is_array_v<M>) {
    return HashFieldKind<std::remove_extent_t<M>>(
        HashNumber(HashBytes(hash, "array;"), std::extent_v<M>));
  } else if constexpr (IsStdArray<M>::value) {
    return HashFieldKind<typename M::value_type>(
        HashNumber(HashBytes(hash, "array;"), std::tuple_size_v<M>));
  } else if constexpr (kHasDeclaredFields<M>) {
    return HashDeclaredLayout<M>(HashBytes(hash, "fields;"));
  } else {
    return HashNumber(HashNumber(HashBytes(hash, "plain;"), sizeof(M)), PlainLeafCount<M>());
  }
}

/// Compile-time checks of one field type, each saying what to do.
template <typename M>
constexpr bool CheckFieldType() noexcept {
  if constexpr (std::is_array_v<M>) {
    return CheckFieldType<std::remove_extent_t<M>>();
  } else if constexpr (IsStdArray<M>::value) {
    return CheckFieldType<typename M::value_type>();
  } else if constexpr (std::is_enum_v<M>) {
    static_assert(BridgeEnum<M>::kDeclared,
                  "mccc::bridge: an enum field needs its valid values: "
                  "MCCC_BRIDGE_ENUM_RANGE(Enum, first, last) or a BridgeEnum<Enum> "
                  "specialization (see mccc/bridge/fields.hpp)");
    return true;
  } else if constexpr (std::is_floating_point_v<M>) {
    static_assert(std::numeric_limits<M>::is_iec559 && (sizeof(M) == 4U || sizeof(M) == 8U),
                  "mccc::bridge: floating-point fields travel as IEEE-754 float or double only");
    return true;
  } else {
    static_assert(std::is_integral_v<M> || kHasDeclaredFields<M> || kIsPlain<M>,
                  "mccc::bridge: this field's type cannot travel: declare its fields too "
                  "(MCCC_BRIDGE_FIELDS), or give the enclosing type a Codec<T>");
    return true;
  }
}

template <typename T, std::size_t... kI>
constexpr bool CheckFieldTypes(std::index_sequence<kI...> /*fields*/) noexcept {
  constexpr auto kList = DeclaredList<T>();
  return (CheckFieldType<typename std::tuple_element_t<kI, decltype(kList)>::Type>() && ...);
}

}  // namespace detail

/// @brief The codec of a type with declared fields (Codec<T> uses it): fixed size, packed,
/// little-endian, every bool and enum validated.
template <typename T>
struct DeclaredFieldsCodec {
  static_assert(detail::CheckDeclaredFields<T>(), "");
  static_assert(detail::CheckFieldTypes<T>(std::make_index_sequence<detail::kFieldCount<T>>{}), "");

  /// Bytes on the wire, the same for every value.
  static constexpr std::size_t kBytes = detail::DeclaredBytes<T>();

  /// @brief The payload length.
  static constexpr std::size_t EncodedSize(const T& /*value*/) noexcept { return kBytes; }

  /// @brief Writes the fields in declared order.
  static void Encode(const T& value, uint8_t* out) noexcept {
    WireWriter writer(out);
    detail::PutFields(value, writer, std::make_index_sequence<detail::kFieldCount<T>>{});
  }

  /// @brief Reads exactly kBytes; false for any other size, a bool byte other than 0 and 1, or
  /// an enum value its declaration refuses (`out` may then be partly written).
  static bool Decode(const uint8_t* in, std::size_t size, T& out) noexcept {
    if (size != kBytes) {
      return false;
    }
    WireReader reader(in, size);
    return detail::GetFields(reader, out, std::make_index_sequence<detail::kFieldCount<T>>{}) &&
           reader.Remaining() == 0U;
  }
};

}  // namespace bridge
}  // namespace mccc

// Macro plumbing: applies m(t, field) to each field, separated by commas (up to 24 fields).
#define MCCC_BRIDGE_DETAIL_EXPAND(x) x
#define MCCC_BRIDGE_DETAIL_FE_1(m, t, a) m(t, a)
#define MCCC_BRIDGE_DETAIL_FE_2(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_1(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_3(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_2(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_4(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_3(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_5(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_4(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_6(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_5(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_7(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_6(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_8(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_7(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_9(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_8(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_10(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_9(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_11(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_10(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_12(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_11(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_13(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_12(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_14(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_13(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_15(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_14(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_16(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_15(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_17(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_16(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_18(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_17(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_19(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_18(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_20(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_19(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_21(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_20(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_22(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_21(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_23(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_22(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FE_24(m, t, a, ...) \
  m(t, a), MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_FE_23(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_PICK_FE(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, \
                                   _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, name, ...) \
  name
#define MCCC_BRIDGE_DETAIL_FOR_EACH(m, t, ...)                                                   \
  MCCC_BRIDGE_DETAIL_EXPAND(MCCC_BRIDGE_DETAIL_PICK_FE(                                          \
      __VA_ARGS__, MCCC_BRIDGE_DETAIL_FE_24, MCCC_BRIDGE_DETAIL_FE_23, MCCC_BRIDGE_DETAIL_FE_22, \
      MCCC_BRIDGE_DETAIL_FE_21, MCCC_BRIDGE_DETAIL_FE_20, MCCC_BRIDGE_DETAIL_FE_19,              \
      MCCC_BRIDGE_DETAIL_FE_18, MCCC_BRIDGE_DETAIL_FE_17, MCCC_BRIDGE_DETAIL_FE_16,              \
      MCCC_BRIDGE_DETAIL_FE_15, MCCC_BRIDGE_DETAIL_FE_14, MCCC_BRIDGE_DETAIL_FE_13,              \
      MCCC_BRIDGE_DETAIL_FE_12, MCCC_BRIDGE_DETAIL_FE_11, MCCC_BRIDGE_DETAIL_FE_10,              \
      MCCC_BRIDGE_DETAIL_FE_9, MCCC_BRIDGE_DETAIL_FE_8, MCCC_BRIDGE_DETAIL_FE_7,                 \
      MCCC_BRIDGE_DETAIL_FE_6, MCCC_BRIDGE_DETAIL_FE_5, MCCC_BRIDGE_DETAIL_FE_4,                 \
      MCCC_BRIDGE_DETAIL_FE_3, MCCC_BRIDGE_DETAIL_FE_2, MCCC_BRIDGE_DETAIL_FE_1,                 \
      ~)(m, t, __VA_ARGS__))
#define MCCC_BRIDGE_DETAIL_FIELD(Type, field) \
  ::mccc::bridge::MakeField(#field, &Type::field, offsetof(Type, field))

/// @brief Declares the fields of `Type` (every member, at most 24), at global namespace scope:
/// `MCCC_BRIDGE_FIELDS(robot::Pose, x, y, mode, valid);` (fields.hpp).
#define MCCC_BRIDGE_FIELDS(Type, ...)                                                \
  template <>                                                                        \
  struct mccc::bridge::BridgeFields<Type> {                                          \
    static constexpr bool kDeclared = true;                                          \
    static constexpr auto List() noexcept {                                          \
      return std::make_tuple(                                                        \
          MCCC_BRIDGE_DETAIL_FOR_EACH(MCCC_BRIDGE_DETAIL_FIELD, Type, __VA_ARGS__)); \
    }                                                                                \
  }

/// @brief Declares the valid values of enum `Enum` as the range [first, last], at global
/// namespace scope: `MCCC_BRIDGE_ENUM_RANGE(robot::Mode, robot::Mode::kIdle,
/// robot::Mode::kFault);`.
#define MCCC_BRIDGE_ENUM_RANGE(Enum, first, last)                              \
  template <>                                                                  \
  struct mccc::bridge::BridgeEnum<Enum> {                                      \
    static constexpr bool kDeclared = true;                                    \
    static constexpr bool IsValid(std::underlying_type_t<Enum> raw) noexcept { \
      return ::mccc::bridge::detail::InClosedRange(                            \
          raw, static_cast<std::underlying_type_t<Enum>>(first),               \
          static_cast<std::underlying_type_t<Enum>>(last));                    \
    }                                                                          \
  }

#endif  // MCCC_BRIDGE_FIELDS_HPP_
