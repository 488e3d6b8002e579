// SPDX-License-Identifier: MIT
#include "mcu_check.hpp"

#include <cstdint>

#include "platform/console.hpp"

namespace mcu_test {
namespace {

std::uint32_t g_checks = 0U;
std::uint32_t g_failures = 0U;
std::uint32_t g_cases = 0U;
std::uint32_t g_failed_cases = 0U;

void PrintLocation(const char* file, int line) noexcept {
  mcu::Print(file);
  mcu::Print(":");
  mcu::PrintSigned(line);
  mcu::Print(": ");
}

}  // namespace

bool Check(bool ok, const char* file, int line, const char* expression) noexcept {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    PrintLocation(file, line);
    mcu::Print("CHECK failed: ");
    mcu::Print(expression);
    mcu::Print("\n");
  }
  return ok;
}

bool CheckEqual(std::uint64_t actual, std::uint64_t expected, const char* file, int line,
                const char* actual_text, const char* expected_text) noexcept {
  ++g_checks;
  const bool ok = actual == expected;
  if (!ok) {
    ++g_failures;
    PrintLocation(file, line);
    mcu::Print("CHECK_EQ failed: ");
    mcu::Print(actual_text);
    mcu::Print(" == ");
    mcu::Print(expected_text);
    mcu::Print(" (");
    mcu::PrintUnsigned(actual);
    mcu::Print(" vs ");
    mcu::PrintUnsigned(expected);
    mcu::Print(")\n");
  }
  return ok;
}

void RunCase(const char* group, const char* name, void (*body)()) noexcept {
  const std::uint32_t failures_before = g_failures;
  ++g_cases;
  body();
  mcu::Print(group);
  mcu::Print(": ");
  mcu::Print(name);
  if (g_failures == failures_before) {
    mcu::Print(" ... ok\n");
  } else {
    ++g_failed_cases;
    mcu::Print(" ... FAILED (");
    mcu::PrintUnsigned(g_failures - failures_before);
    mcu::Print(")\n");
  }
}

int Finish() noexcept {
  mcu::PrintUnsigned(g_cases);
  mcu::Print(" cases, ");
  mcu::PrintUnsigned(g_checks);
  mcu::Print(" checks, ");
  mcu::PrintUnsigned(g_failures);
  mcu::Print(" failures in ");
  mcu::PrintUnsigned(g_failed_cases);
  mcu::Print(" cases\n");
  mcu::Print(g_failures == 0U ? "PASS\n" : "FAIL\n");
  return g_failures > 254U ? 254 : static_cast<int>(g_failures);
}

std::uint32_t Failures() noexcept {
  return g_failures;
}

}  // namespace mcu_test
