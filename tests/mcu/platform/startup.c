/* SPDX-License-Identifier: MIT */
/*
 * Start-up code shared by every bare-metal program of tests/mcu and examples/bare_metal.
 *
 * - The vector table (section .vectors, placed at the start of flash by the linker script):
 *   the initial stack pointer, the 15 system exceptions and 32 interrupt lines.
 * - Reset_Handler: enables the FPU when the code is compiled to use it, copies .data from flash
 *   to RAM, zeroes .bss, runs the static constructors (.preinit_array, .init_array), calls
 *   main() and ends the program through semihosting with main's return value as exit status.
 * - HardFault_Handler reports the faulting frame and exits non-zero; every other exception that
 *   has no handler of its own reports its number and exits non-zero.
 *
 * Written in C: C++ forbids calling main() from within the program.
 */
#include <stdint.h>

#include "platform/platform_c.h"

/* Linker-script symbols (see sections.ld). Only their addresses mean something. */
extern uint32_t __data_load[];
extern uint32_t __data_start[];
extern uint32_t __data_end[];
extern uint32_t __bss_start[];
extern uint32_t __bss_end[];
extern uint32_t __stack_top[];
extern void (*__preinit_array_start[])(void);
extern void (*__preinit_array_end[])(void);
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);

int main(void);

void Reset_Handler(void) __attribute__((noreturn));
void HardFault_Handler(void) __attribute__((naked));
void DefaultHandler(void);

/* Exceptions a program may handle by defining a function of the same name; without one they
 * land in DefaultHandler. */
void NMI_Handler(void) __attribute__((weak, alias("DefaultHandler")));
void MemManage_Handler(void) __attribute__((weak, alias("DefaultHandler")));
void BusFault_Handler(void) __attribute__((weak, alias("DefaultHandler")));
void UsageFault_Handler(void) __attribute__((weak, alias("DefaultHandler")));
void SVC_Handler(void) __attribute__((weak, alias("DefaultHandler")));
void DebugMon_Handler(void) __attribute__((weak, alias("DefaultHandler")));
void PendSV_Handler(void) __attribute__((weak, alias("DefaultHandler")));
void SysTick_Handler(void) __attribute__((weak, alias("DefaultHandler")));

enum { kInterruptLines = 32 };

struct VectorTable {
  uint32_t* initial_stack_pointer;
  void (*system[15])(void);
  void (*interrupts[kInterruptLines])(void);
};

__attribute__((section(".vectors"), used)) const struct VectorTable mcu_vector_table = {
    __stack_top,
    {
        Reset_Handler,      /*  1 Reset */
        NMI_Handler,        /*  2 NMI */
        HardFault_Handler,  /*  3 HardFault */
        MemManage_Handler,  /*  4 MemManage (v7-M) */
        BusFault_Handler,   /*  5 BusFault (v7-M) */
        UsageFault_Handler, /*  6 UsageFault (v7-M) */
        0, 0, 0, 0,         /*  7-10 reserved */
        SVC_Handler,        /* 11 SVCall */
        DebugMon_Handler,   /* 12 DebugMonitor (v7-M) */
        0,                  /* 13 reserved */
        PendSV_Handler,     /* 14 PendSV */
        SysTick_Handler,    /* 15 SysTick */
    },
    {
        DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler,
        DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler,
        DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler,
        DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler,
        DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler,
        DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler, DefaultHandler,
        DefaultHandler, DefaultHandler,
    },
};

void Reset_Handler(void) {
#if defined(__ARM_FP)
  /* The code uses the FPU: grant full access to CP10 and CP11 before the first floating-point
   * instruction, then make sure the next instruction sees it. */
  *(volatile uint32_t*)0xE000ED88U |= 0xFU << 20U; /* CPACR */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  /* volatile: keeps the compiler from turning the loops into memcpy/memset calls, which are
   * ordinary library code and should not run before .data and .bss exist. */
  for (volatile uint32_t *from = __data_load, *to = __data_start; to < __data_end;) {
    *to++ = *from++;
  }
  for (volatile uint32_t* to = __bss_start; to < __bss_end;) {
    *to++ = 0U;
  }
  for (void (**init)(void) = __preinit_array_start; init < __preinit_array_end; ++init) {
    (*init)();
  }
  for (void (**init)(void) = __init_array_start; init < __init_array_end; ++init) {
    (*init)();
  }
  mcu_exit(main());
}

/* Finds the stack the fault frame was pushed on (bit 2 of EXC_RETURN: 0 = main, 1 = process)
 * and hands it to the reporter. Thumb-1 instructions only, so it also runs on a Cortex-M0. */
void HardFault_Handler(void) {
  __asm__ volatile(
      "movs r0, #4\n\t"
      "mov r1, lr\n\t"
      "tst r0, r1\n\t"
      "beq 1f\n\t"
      "mrs r0, psp\n\t"
      "b 2f\n"
      "1:\n\t"
      "mrs r0, msp\n"
      "2:\n\t"
      "bl mcu_report_hard_fault\n");
}

void DefaultHandler(void) {
  uint32_t exception;
  __asm__ volatile("mrs %0, ipsr" : "=r"(exception));
  mcu_report_unexpected_exception(exception & 0x1FFU);
}

/* Destructors of static objects never run: a bare-metal program does not return to a C
 * runtime, it stops through semihosting (or runs until reset). Registering them would only
 * fill libc's exit list, so the registration hook of the Arm C++ ABI accepts and forgets them,
 * and __dso_handle (normally from crtbegin.o, not linked here) names this one image. */
void* __dso_handle = 0;
int __aeabi_atexit(void* object, void (*destroy)(void*), void* dso_handle);
int __aeabi_atexit(void* object, void (*destroy)(void*), void* dso_handle) {
  (void)object;
  (void)destroy;
  (void)dso_handle;
  return 0;
}

/* newlib's abort() ends here. */
void _exit(int status) __attribute__((noreturn));
void _exit(int status) {
  mcu_exit(status);
}
