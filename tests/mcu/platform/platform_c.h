/* SPDX-License-Identifier: MIT */
/* The C++ services start-up code (startup.c) calls: program exit and fault reports. */
#ifndef MCU_PLATFORM_PLATFORM_C_H_
#define MCU_PLATFORM_PLATFORM_C_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Ends the program with `status` as the emulator's exit status (semihosting). */
void mcu_exit(int status) __attribute__((noreturn));

/** Reports a HardFault from its exception frame (r0-r3, r12, lr, pc, xPSR) and exits 255. */
void mcu_report_hard_fault(const uint32_t* frame) __attribute__((noreturn));

/** Reports an exception nobody handles (its number, as IPSR gives it) and exits 255. */
void mcu_report_unexpected_exception(uint32_t exception) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif /* MCU_PLATFORM_PLATFORM_C_H_ */
