// SPDX-License-Identifier: MIT
/// @file semihosting.hpp
/// @brief Output and exit through Arm semihosting: the debugger (here QEMU, run with
/// `-semihosting-config enable=on,target=native`) performs the call on the host. A program
/// that uses it stops at the first call when no debugger listens, so it is for tests and
/// examples under an emulator or a debug probe, not for a product image.
#ifndef MCU_PLATFORM_SEMIHOSTING_HPP_
#define MCU_PLATFORM_SEMIHOSTING_HPP_

#include <cstdint>

namespace mcu {
namespace semihosting {

/// Writes a NUL-terminated string to the host's console (SYS_WRITE0).
void WriteString(const char* text) noexcept;

/// Ends the program; the host (QEMU) exits with `status` (0..255). SYS_EXIT_EXTENDED carries
/// the status; a host without it still tells success (0) from failure (1) through SYS_EXIT.
[[noreturn]] void Exit(int status) noexcept;

}  // namespace semihosting
}  // namespace mcu

#endif  // MCU_PLATFORM_SEMIHOSTING_HPP_
