// SPDX-License-Identifier: MIT
/// @file byte_io.hpp
/// @brief The byte-level tools of a codec: WireWriter and WireReader (little-endian numbers and
/// raw bytes, the reader bounds-checked) and size arithmetic that cannot overflow.
///
/// A hand-written codec computes sizes from counts the peer sent. On a 32-bit target std::size_t
/// has 32 bits, so `4U * std::size_t{count}` wraps for count 0x40000001 (to 4): a check of the
/// form `remaining == 4U * count` then accepts a frame announcing a billion elements, and the
/// resize that follows fails (or terminates the process without exceptions). Use the helpers
/// below instead: they compare by division, or report the overflow.
#ifndef MCCC_BRIDGE_BYTE_IO_HPP_
#define MCCC_BRIDGE_BYTE_IO_HPP_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace mccc {
namespace bridge {

/// @brief `a * b` in `product`, or false (product untouched) when it would not fit std::size_t.
constexpr bool CheckedMultiply(std::size_t a, std::size_t b, std::size_t& product) noexcept {
  if (a != 0U && b > std::numeric_limits<std::size_t>::max() / a) {
    return false;
  }
  product = a * b;
  return true;
}

/// @brief `a + b` in `sum`, or false (sum untouched) when it would not fit std::size_t.
constexpr bool CheckedAdd(std::size_t a, std::size_t b, std::size_t& sum) noexcept {
  if (b > std::numeric_limits<std::size_t>::max() - a) {
    return false;
  }
  sum = a + b;
  return true;
}

/// @brief True when `count` elements of `element_bytes` each take exactly `bytes` bytes; never
/// overflows (compares by division). An element size of 0 fills only 0 bytes, with no elements.
constexpr bool ElementsFill(uint64_t count, std::size_t element_bytes, std::size_t bytes) noexcept {
  if (element_bytes == 0U) {
    return count == 0U && bytes == 0U;
  }
  return bytes % element_bytes == 0U && count == bytes / element_bytes;
}

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
  /// @brief Reads a 32-bit element count and checks that exactly `count` elements of
  /// `element_bytes` bytes each are left to read, without forming `count * element_bytes` (which
  /// overflows std::size_t on 32-bit targets for counts a peer may send). False, and Ok() false
  /// for good, when the count cannot be read or does not match; `count` is set only on success.
  bool GetCountOfRemaining(uint32_t& count, std::size_t element_bytes) noexcept {
    uint32_t value = 0U;
    if (!Get32(value)) {
      return false;
    }
    if (!ElementsFill(value, element_bytes, remaining_)) {
      ok_ = false;
      return false;
    }
    count = value;
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

#endif  // MCCC_BRIDGE_BYTE_IO_HPP_
