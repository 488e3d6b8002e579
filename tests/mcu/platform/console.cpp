// SPDX-License-Identifier: MIT
#include "platform/console.hpp"

#include <cstdint>

#include "platform/semihosting.hpp"

namespace mcu {

void Print(const char* text) noexcept {
  semihosting::WriteString(text);
}

void PrintUnsigned(std::uint64_t value) noexcept {
  char digits[21];  // 2^64 - 1 has 20 decimal digits
  std::uint32_t at = sizeof(digits) - 1U;
  digits[at] = '\0';
  do {
    --at;
    digits[at] = static_cast<char>('0' + static_cast<int>(value % 10U));
    value /= 10U;
  } while (value != 0U);
  Print(&digits[at]);
}

void PrintSigned(std::int64_t value) noexcept {
  if (value < 0) {
    Print("-");
    // Negate in unsigned arithmetic: also correct for the most negative value.
    PrintUnsigned(~static_cast<std::uint64_t>(value) + 1U);
  } else {
    PrintUnsigned(static_cast<std::uint64_t>(value));
  }
}

void PrintHex(std::uint32_t value) noexcept {
  static const char kDigits[] = "0123456789abcdef";
  char text[11] = {'0', 'x'};
  for (std::uint32_t i = 0U; i < 8U; ++i) {
    text[2U + i] = kDigits[(value >> (28U - 4U * i)) & 0xFU];
  }
  text[10] = '\0';
  Print(text);
}

}  // namespace mcu
