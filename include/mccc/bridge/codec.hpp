// SPDX-License-Identifier: MIT
/// @file codec.hpp
/// @brief How a message type becomes payload bytes and back: `mccc::bridge::Codec<T>`.
///
/// Trivially copyable types need nothing: they travel as their bytes, in the host's byte order
/// and layout (the schema fingerprint carries the byte order, sizes and alignments, so a peer
/// that would read them differently refuses them). Pointers inside such a type are sent as
/// numbers and mean nothing on the other side: give such a type a codec.
///
/// Any other type needs a specialization (a missing one is a compile error that says so):
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
///     if (!r.Get32(s.id) || !r.Get32(n) || r.Remaining() != 4U * std::size_t{n}) return false;
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

namespace mccc {
namespace bridge {

/// @brief Customization point; the primary template sends trivially copyable types as bytes.
template <typename T, typename Enable = void>
struct Codec {
  static_assert(std::is_trivially_copyable_v<T>,
                "mccc::bridge: this message type is not trivially copyable, so it cannot travel "
                "as its bytes; specialize mccc::bridge::Codec<T> with static std::size_t "
                "EncodedSize(const T&) noexcept, static void Encode(const T&, uint8_t* out) "
                "noexcept and static bool Decode(const uint8_t* in, std::size_t size, T& out) "
                "(see mccc/bridge/codec.hpp)");

  /// The payload length: the object's size.
  static constexpr std::size_t EncodedSize(const T& /*value*/) noexcept { return sizeof(T); }

  /// The object's bytes.
  static void Encode(const T& value, uint8_t* out) noexcept {
    static_cast<void>(std::memcpy(out, &value, sizeof(T)));
  }

  /// Accepts exactly sizeof(T) bytes.
  static bool Decode(const uint8_t* in, std::size_t size, T& out) noexcept {
    if (size != sizeof(T)) {
      return false;
    }
    static_cast<void>(std::memcpy(&out, in, sizeof(T)));
    return true;
  }
};

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

/// @brief Writes little-endian numbers and raw bytes into a codec's output (no bounds check: the
/// codec's EncodedSize promised the room).
class WireWriter {
 public:
  /// @brief Writes from `out` on.
  explicit WireWriter(uint8_t* out) noexcept : out_(out) {}

  /// @brief One byte.
  void Put8(uint8_t value) noexcept { *out_++ = value; }
  /// @brief Two bytes, little-endian.
  void Put16(uint16_t value) noexcept { PutLittle(value, 2U); }
  /// @brief Four bytes, little-endian.
  void Put32(uint32_t value) noexcept { PutLittle(value, 4U); }
  /// @brief Eight bytes, little-endian.
  void Put64(uint64_t value) noexcept { PutLittle(value, 8U); }
  /// @brief An IEEE-754 float's bits, little-endian.
  void PutFloat(float value) noexcept {
    uint32_t bits = 0U;
    static_assert(sizeof(bits) == sizeof(value), "float must be 32 bits");
    static_cast<void>(std::memcpy(&bits, &value, sizeof(bits)));
    Put32(bits);
  }
  /// @brief `size` raw bytes.
  void PutBytes(const void* data, std::size_t size) noexcept {
    if (size != 0U) {
      static_cast<void>(std::memcpy(out_, data, size));
      out_ += size;
    }
  }
  /// @brief Where the next byte goes.
  uint8_t* Position() const noexcept { return out_; }

 private:
  void PutLittle(uint64_t value, std::size_t bytes) noexcept {
    for (std::size_t i = 0U; i < bytes; ++i) {
      *out_++ = static_cast<uint8_t>(value >> (8U * i));
    }
  }

  uint8_t* out_;
};

/// @brief Reads what WireWriter wrote, bounds-checked: a read past the end fails, leaves its
/// output unchanged and makes Ok() false for good.
class WireReader {
 public:
  /// @brief Reads `size` bytes from `in`.
  WireReader(const uint8_t* in, std::size_t size) noexcept : in_(in), remaining_(size) {}

  /// @brief One byte.
  bool Get8(uint8_t& value) noexcept {
    uint64_t v = 0U;
    const bool ok = GetLittle(v, 1U);
    value = ok ? static_cast<uint8_t>(v) : value;
    return ok;
  }
  /// @brief Two bytes, little-endian.
  bool Get16(uint16_t& value) noexcept {
    uint64_t v = 0U;
    const bool ok = GetLittle(v, 2U);
    value = ok ? static_cast<uint16_t>(v) : value;
    return ok;
  }
  /// @brief Four bytes, little-endian.
  bool Get32(uint32_t& value) noexcept {
    uint64_t v = 0U;
    const bool ok = GetLittle(v, 4U);
    value = ok ? static_cast<uint32_t>(v) : value;
    return ok;
  }
  /// @brief Eight bytes, little-endian.
  bool Get64(uint64_t& value) noexcept { return GetLittle(value, 8U); }
  /// @brief An IEEE-754 float.
  bool GetFloat(float& value) noexcept {
    uint32_t bits = 0U;
    if (!Get32(bits)) {
      return false;
    }
    static_cast<void>(std::memcpy(&value, &bits, sizeof(value)));
    return true;
  }
  /// @brief `size` raw bytes.
  bool GetBytes(void* data, std::size_t size) noexcept {
    if (!ok_ || size > remaining_) {
      ok_ = false;
      return false;
    }
    if (size != 0U) {
      static_cast<void>(std::memcpy(data, in_, size));
      in_ += size;
      remaining_ -= size;
    }
    return true;
  }
  /// @brief Bytes not read yet.
  std::size_t Remaining() const noexcept { return remaining_; }
  /// @brief True while no read has failed.
  bool Ok() const noexcept { return ok_; }

 private:
  bool GetLittle(uint64_t& value, std::size_t bytes) noexcept {
    if (!ok_ || bytes > remaining_) {
      ok_ = false;
      return false;
    }
    uint64_t v = 0U;
    for (std::size_t i = 0U; i < bytes; ++i) {
      v |= static_cast<uint64_t>(in_[i]) << (8U * i);
    }
    in_ += bytes;
    remaining_ -= bytes;
    value = v;
    return true;
  }

  const uint8_t* in_;
  std::size_t remaining_;
  bool ok_ = true;
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_CODEC_HPP_
