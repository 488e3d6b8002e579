// SPDX-License-Identifier: MIT
// What a bare-metal program prints when it faults or ends, for startup.c.
#include <cstdint>

#include "platform/console.hpp"
#include "platform/cortex_m.hpp"
#include "platform/platform_c.h"
#include "platform/semihosting.hpp"

namespace {
constexpr int kFaultExitStatus = 255;
}  // namespace

extern "C" void mcu_exit(int status) {
  mcu::semihosting::Exit(status);
}

extern "C" void mcu_report_hard_fault(const std::uint32_t* frame) {
  mcu::Print("\nHardFault: pc=");
  mcu::PrintHex(frame[6]);
  mcu::Print(" lr=");
  mcu::PrintHex(frame[5]);
  mcu::Print(" xpsr=");
  mcu::PrintHex(frame[7]);
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
  // The fault status registers exist from ARMv7-M on (not on a Cortex-M0).
  mcu::Print(" cfsr=");
  mcu::PrintHex(mcu::Register(mcu::kCfsr));
  mcu::Print(" hfsr=");
  mcu::PrintHex(mcu::Register(mcu::kHfsr));
#endif
  mcu::Print("\nFAIL\n");
  mcu::semihosting::Exit(kFaultExitStatus);
}

extern "C" void mcu_report_unexpected_exception(std::uint32_t exception) {
  mcu::Print("\nunexpected exception ");
  mcu::PrintUnsigned(exception);
  mcu::Print(" (no handler)\nFAIL\n");
  mcu::semihosting::Exit(kFaultExitStatus);
}
