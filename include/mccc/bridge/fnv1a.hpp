// SPDX-License-Identifier: MIT
/// @file fnv1a.hpp
/// @brief FNV-1a (64 bit) at compile time: the hash of the schema fingerprint (schema.hpp) and of
/// the declared field layouts it covers (fields.hpp).
#ifndef MCCC_BRIDGE_FNV1A_HPP_
#define MCCC_BRIDGE_FNV1A_HPP_

#include <cstdint>
#include <string_view>

namespace mccc {
namespace bridge {
namespace detail {

inline constexpr uint64_t kFnvOffset = 0xCBF29CE484222325ULL;
inline constexpr uint64_t kFnvPrime = 0x100000001B3ULL;

/// `hash` extended by the bytes of `bytes` (callers hash a length or a separator after text that
/// another text follows).
constexpr uint64_t HashBytes(uint64_t hash, std::string_view bytes) noexcept {
  for (const char c : bytes) {
    hash = (hash ^ static_cast<uint8_t>(c)) * kFnvPrime;
  }
  return hash;
}

/// `hash` extended by the 8 bytes of `value`, little-endian.
constexpr uint64_t HashNumber(uint64_t hash, uint64_t value) noexcept {
  for (int i = 0; i < 8; ++i) {
    hash = (hash ^ ((value >> (8 * i)) & 0xFFU)) * kFnvPrime;
  }
  return hash;
}

}  // namespace detail
}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_FNV1A_HPP_
