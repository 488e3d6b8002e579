// SPDX-License-Identifier: MIT
/// @file mcu_check.hpp
/// @brief A minimal test harness for bare-metal programs (no GoogleTest, no heap, no stdio):
/// CHECK / CHECK_EQ print file:line of each failure through semihosting and count it; RunCase
/// names each case; Finish prints the totals and the final PASS or FAIL line, and returns the
/// exit status (the number of failures, at most 254: 255 is a fault).
#ifndef MCU_MCU_CHECK_HPP_
#define MCU_MCU_CHECK_HPP_

#include <cstdint>

namespace mcu_test {

/// Counts a check; prints "file:line: CHECK failed: expression" when `ok` is false.
bool Check(bool ok, const char* file, int line, const char* expression) noexcept;

/// Counts a check of `actual == expected`; prints both values when they differ.
bool CheckEqual(std::uint64_t actual, std::uint64_t expected, const char* file, int line,
                const char* actual_text, const char* expected_text) noexcept;

/// Runs one test case and prints "<group>: <name> ... ok" or "... FAILED (n)".
void RunCase(const char* group, const char* name, void (*body)()) noexcept;

/// Prints the totals and "PASS" or "FAIL" on the last line; returns the exit status.
int Finish() noexcept;

/// Failures so far (lets a loop stop after its first failing iteration).
std::uint32_t Failures() noexcept;

}  // namespace mcu_test

/// Checks a condition; evaluates to its truth value.
#define CHECK(condition) \
  ::mcu_test::Check(static_cast<bool>(condition), __FILE__, __LINE__, #condition)

/// Checks that two integer (or enumeration) values are equal; evaluates to the outcome.
#define CHECK_EQ(actual, expected)                                                                 \
  ::mcu_test::CheckEqual(static_cast<std::uint64_t>(actual), static_cast<std::uint64_t>(expected), \
                         __FILE__, __LINE__, #actual, #expected)

#endif  // MCU_MCU_CHECK_HPP_
