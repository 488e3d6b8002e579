// SPDX-License-Identifier: MIT
/// @file console.hpp
/// @brief Text output for the bare-metal programs: strings and integers, no printf (which would
/// pull in most of newlib's stdio and a heap).
#ifndef MCU_PLATFORM_CONSOLE_HPP_
#define MCU_PLATFORM_CONSOLE_HPP_

#include <cstdint>

namespace mcu {

/// Writes `text` as is.
void Print(const char* text) noexcept;

/// Writes `value` in decimal.
void PrintUnsigned(std::uint64_t value) noexcept;

/// Writes `value` in decimal, with a '-' when negative.
void PrintSigned(std::int64_t value) noexcept;

/// Writes `value` as 0x followed by eight hexadecimal digits.
void PrintHex(std::uint32_t value) noexcept;

}  // namespace mcu

#endif  // MCU_PLATFORM_CONSOLE_HPP_
