// SPDX-License-Identifier: MIT
/// @file cortex_m.hpp
/// @brief The few Cortex-M core registers and instructions the bare-metal programs use. Every
/// address here is architectural (System Control Space, identical on every Cortex-M), not a
/// board fact.
#ifndef MCU_PLATFORM_CORTEX_M_HPP_
#define MCU_PLATFORM_CORTEX_M_HPP_

#include <cstdint>

namespace mcu {

/// A memory-mapped 32-bit register of the System Control Space.
inline volatile std::uint32_t& Register(std::uintptr_t address) noexcept {
  return *reinterpret_cast<volatile std::uint32_t*>(address);
}

// System Control Block.
inline constexpr std::uintptr_t kIcsr = 0xE000ED04U;        ///< Interrupt Control and State.
inline constexpr std::uintptr_t kShpr3 = 0xE000ED20U;       ///< Priorities of PendSV and SysTick.
inline constexpr std::uintptr_t kCfsr = 0xE000ED28U;        ///< Configurable Fault Status (v7-M).
inline constexpr std::uintptr_t kHfsr = 0xE000ED2CU;        ///< HardFault Status (v7-M).
inline constexpr std::uintptr_t kCpacr = 0xE000ED88U;       ///< Coprocessor Access Control (FPU).
inline constexpr std::uint32_t kIcsrPendStSet = 1U << 26U;  ///< ICSR: pend SysTick.

// SysTick.
inline constexpr std::uintptr_t kSystCsr = 0xE000E010U;  ///< Control and Status.
inline constexpr std::uintptr_t kSystRvr = 0xE000E014U;  ///< Reload Value.
inline constexpr std::uintptr_t kSystCvr = 0xE000E018U;  ///< Current Value.
inline constexpr std::uint32_t kSystEnable = 1U << 0U;
inline constexpr std::uint32_t kSystTickInt = 1U << 1U;
inline constexpr std::uint32_t kSystClkSourceCpu = 1U << 2U;
inline constexpr std::uint32_t kSystCountFlag = 1U << 16U;  ///< Wrapped since CSR was last read.

/// Masks every configurable-priority exception (PRIMASK = 1).
inline void DisableInterrupts() noexcept {
  asm volatile("cpsid i" ::: "memory");
}

/// Unmasks them again (PRIMASK = 0).
inline void EnableInterrupts() noexcept {
  asm volatile("cpsie i" ::: "memory");
}

/// Current PRIMASK (1: interrupts masked).
inline std::uint32_t Primask() noexcept {
  std::uint32_t value;
  asm volatile("mrs %0, primask" : "=r"(value)::"memory");
  return value;
}

/// Number of the exception being handled (0 in thread mode).
inline std::uint32_t ActiveException() noexcept {
  std::uint32_t value;
  asm volatile("mrs %0, ipsr" : "=r"(value)::"memory");
  return value;
}

/// Completes every memory access before the next instruction (e.g. a write that pends an
/// exception) ...
inline void DataSynchronizationBarrier() noexcept {
  asm volatile("dsb" ::: "memory");
}

/// ... and refetches the pipeline, so a just-pended exception is taken before the next
/// instruction.
inline void InstructionSynchronizationBarrier() noexcept {
  asm volatile("isb" ::: "memory");
}

/// Sleeps until an interrupt arrives.
inline void WaitForInterrupt() noexcept {
  asm volatile("wfi" ::: "memory");
}

}  // namespace mcu

#endif  // MCU_PLATFORM_CORTEX_M_HPP_
