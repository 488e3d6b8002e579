// SPDX-License-Identifier: MIT
#include "platform/semihosting.hpp"

#include <cstdint>

namespace mcu {
namespace semihosting {
namespace {

// Operation numbers and reason codes of the Arm semihosting specification.
constexpr std::uint32_t kSysWrite0 = 0x04U;
constexpr std::uint32_t kSysExit = 0x18U;
constexpr std::uint32_t kSysExitExtended = 0x20U;
constexpr std::uint32_t kApplicationExit = 0x20026U;      // ADP_Stopped_ApplicationExit
constexpr std::uint32_t kRunTimeErrorUnknown = 0x20023U;  // ADP_Stopped_RunTimeErrorUnknown

/// One semihosting call: operation in r0, argument in r1, `bkpt 0xAB` on M-profile cores; the
/// result comes back in r0. Plain moves so that it also assembles for Thumb-1 (Cortex-M0).
std::uint32_t Call(std::uint32_t operation, std::uintptr_t argument) noexcept {
  std::uint32_t result;
  asm volatile(
      "mov r0, %1\n"
      "mov r1, %2\n"
      "bkpt 0xAB\n"
      "mov %0, r0\n"
      : "=r"(result)
      : "r"(operation), "r"(argument)
      : "r0", "r1", "memory");
  return result;
}

}  // namespace

void WriteString(const char* text) noexcept {
  static_cast<void>(Call(kSysWrite0, reinterpret_cast<std::uintptr_t>(text)));
}

void Exit(int status) noexcept {
  // The parameter block of SYS_EXIT_EXTENDED: the reason, then the status for the host.
  const std::uint32_t block[2] = {kApplicationExit, static_cast<std::uint32_t>(status) & 0xFFU};
  static_cast<void>(Call(kSysExitExtended, reinterpret_cast<std::uintptr_t>(block)));
  // Only reached on a host without SYS_EXIT_EXTENDED: the 32-bit SYS_EXIT takes the reason
  // itself (no status), which the host maps to 0 for an application exit and 1 otherwise.
  static_cast<void>(Call(kSysExit, status == 0 ? kApplicationExit : kRunTimeErrorUnknown));
  for (;;) {
  }
}

}  // namespace semihosting
}  // namespace mcu
