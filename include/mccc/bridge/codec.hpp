// SPDX-License-Identifier: MIT
/// @file codec.hpp
/// @brief How a message type becomes payload bytes and back: `mccc::bridge::Codec<T>`.
///
/// Three ways, chosen by the type:
/// - A plain type (non-bool integers, std::arrays of them, aggregates of those without padding:
///   plain_layout.hpp) needs nothing: it travels as its bytes, in the host's byte order (the
///   schema fingerprint carries the byte order, sizes, alignments and number of members, so a
///   peer that would read them differently refuses them).
/// - A type with bool, enum or floating-point members, or with padding, declares its fields
///   (MCCC_BRIDGE_FIELDS, fields.hpp): they travel packed, little-endian, and every bool and enum
///   is validated on arrival. Without the declaration such a type is a compile error that says
///   so: its bytes would send stale padding, or arrive as an invalid bool or enum.
/// - Any other type (variable length, pointers, private members) needs a specialization:
/// @code
/// template <>
/// struct mccc::bridge::Codec<Scan> {   // struct Scan { uint32_t id; std::vector<float> ranges; };
///   static std::size_t EncodedSize(const Scan& s) noexcept { return 8U + 4U * s.ranges.size(); }
///   static void Encode(const Scan& s, uint8_t* out) noexcept {
///     mccc::bridge::WireWriter w(out);
///     w.Put32(s.id);
///     w.Put32(static_cast<uint32_t>(s.ranges.size()));
///     for (float r : s.ranges) w.PutFloat(r);
///   }
///   static bool Decode(const uint8_t* in, std::size_t size, Scan& s) {
///     mccc::bridge::WireReader r(in, size);
///     uint32_t n = 0;
///     // Not `r.Remaining() == 4U * n`: that wraps on 32-bit targets (byte_io.hpp).
///     if (!r.Get32(s.id) || !r.GetCountOfRemaining(n, 4U)) return false;
///     s.ranges.resize(n);
///     for (float& x : s.ranges) r.GetFloat(x);
///     return r.Ok();
///   }
/// };
/// @endcode
/// Encode writes exactly EncodedSize bytes; Decode gets exactly what Encode wrote (the frame CRC
/// has been checked) and returns false for anything it cannot accept, which the importer counts
/// as a malformed frame and never publishes. Decode runs on the importer's receiver thread and may
/// allocate; Encode runs on the exporting bus's consumer thread.
#ifndef MCCC_BRIDGE_CODEC_HPP_
#define MCCC_BRIDGE_CODEC_HPP_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "mccc/bridge/byte_io.hpp"
#include "mccc/bridge/fields.hpp"
#include "mccc/bridge/plain_layout.hpp"

namespace mccc {
namespace bridge {

namespace detail {

/// The default codec of a type without declared fields: its bytes, for plain types only
/// (plain_layout.hpp). Each check below fires only when those before it passed, so that the
/// compiler names the one thing to change.
template <typename T>
struct PlainBytesCodec {
  static_assert(std::is_trivially_copyable_v<T>,
                "mccc::bridge: this message type is not trivially copyable, so it cannot travel "
                "as its bytes; specialize mccc::bridge::Codec<T> with static std::size_t "
                "EncodedSize(const T&) noexcept, static void Encode(const T&, uint8_t* out) "
                "noexcept and static bool Decode(const uint8_t* in, std::size_t size, T& out) "
                "(see mccc/bridge/codec.hpp)");
  static_assert(!std::is_trivially_copyable_v<T> || std::has_unique_object_representations_v<T>,
                "mccc::bridge: this message type has padding or floating-point members, so it "
                "cannot travel as its bytes (padding would send stale memory, and floats have no "
                "unique representation); declare its fields with MCCC_BRIDGE_FIELDS(Type, "
                "member, ...) (mccc/bridge/fields.hpp) or specialize mccc::bridge::Codec<T>");
  static_assert(!std::has_unique_object_representations_v<T> || kIsPlain<T>,
                "mccc::bridge: this message type has a bool, enum or pointer member (or is one, "
                "or has more than 256 members and array elements), which its bytes cannot carry "
                "safely (a received byte could make an invalid value); declare its fields with "
                "MCCC_BRIDGE_FIELDS(Type, member, ...) (mccc/bridge/fields.hpp) or specialize "
                "mccc::bridge::Codec<T>");

  static constexpr std::size_t EncodedSize(const T& /*value*/) noexcept { return sizeof(T); }

  static void Encode(const T& value, uint8_t* out) noexcept {
    static_cast<void>(std::memcpy(out, &value, sizeof(T)));
  }

  static bool Decode(const uint8_t* in, std::size_t size, T& out) noexcept {
    if (size != sizeof(T)) {
      return false;
    }
    static_cast<void>(std::memcpy(&out, in, sizeof(T)));
    return true;
  }
};

template <typename T, bool kDeclared = kHasDeclaredFields<T>>
struct DefaultCodec : DeclaredFieldsCodec<T> {};
template <typename T>
struct DefaultCodec<T, false> : PlainBytesCodec<T> {};

}  // namespace detail

/// @brief Customization point. The primary template packs the declared fields of a type that
/// has them (fields.hpp), and otherwise sends a plain type as its bytes (plain_layout.hpp),
/// refusing at compile time any other type, with a message that says what to do.
template <typename T, typename Enable = void>
struct Codec : detail::DefaultCodec<T> {};

namespace detail {

template <typename T, typename = void>
struct HasEncodedSize : std::false_type {};
template <typename T>
struct HasEncodedSize<T, std::void_t<decltype(static_cast<std::size_t>(
                             Codec<T>::EncodedSize(std::declval<const T&>())))>> : std::true_type {
};

template <typename T, typename = void>
struct HasEncode : std::false_type {};
template <typename T>
struct HasEncode<
    T, std::void_t<decltype(Codec<T>::Encode(std::declval<const T&>(), std::declval<uint8_t*>()))>>
    : std::true_type {};

template <typename T, typename = void>
struct HasDecode : std::false_type {};
template <typename T>
struct HasDecode<T, std::void_t<decltype(static_cast<bool>(Codec<T>::Decode(
                        std::declval<const uint8_t*>(), std::size_t{}, std::declval<T&>())))>>
    : std::true_type {};

/// Compile-time checks of a codec the exporter uses, each saying what to provide.
template <typename T>
constexpr bool CheckEncoder() noexcept {
  static_assert(HasEncodedSize<T>::value,
                "mccc::bridge: Codec<T> needs static std::size_t EncodedSize(const T&) noexcept");
  static_assert(HasEncode<T>::value,
                "mccc::bridge: Codec<T> needs static void Encode(const T&, uint8_t* out) noexcept "
                "that writes exactly EncodedSize(value) bytes");
  return true;
}

/// Compile-time checks of a codec the importer uses.
template <typename T>
constexpr bool CheckDecoder() noexcept {
  static_assert(HasDecode<T>::value,
                "mccc::bridge: Codec<T> needs static bool Decode(const uint8_t* in, std::size_t "
                "size, T& out) that returns false for bytes it cannot accept");
  static_assert(std::is_default_constructible_v<T>,
                "mccc::bridge: an imported message type must be default constructible (the "
                "importer decodes into a value-initialized T)");
  return true;
}

}  // namespace detail

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_CODEC_HPP_
