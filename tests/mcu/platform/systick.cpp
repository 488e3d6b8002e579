// SPDX-License-Identifier: MIT
#include "platform/systick.hpp"

#include <cstdint>

#include "platform/cortex_m.hpp"

#ifndef MCU_CORE_CLOCK_HZ
#error "MCU_CORE_CLOCK_HZ (the processor clock of the board, in Hz) must be defined by the build"
#endif

namespace mcu {
namespace systick {
namespace {

static_assert(MCU_CORE_CLOCK_HZ % 1000000U == 0U,
              "systick.cpp converts cycles to microseconds with a whole number of MHz");
constexpr std::uint32_t kCyclesPerMicrosecond = MCU_CORE_CLOCK_HZ / 1000000U;

// The time base in processor cycles, as two words: a 64-bit load or store is not one access on
// a 32-bit core. Written by the handler only (with interrupts masked, so no other handler sees
// half an update); readers retry when the high word changed under them. volatile: each read is
// a real load (the handler changes the words behind the reader's back).
volatile std::uint32_t g_cycles_low = 0U;
volatile std::uint32_t g_cycles_high = 0U;
volatile std::uint32_t g_wraps = 0U;
volatile std::uint32_t g_period_cycles = 0U;
volatile Hook g_hook = nullptr;

std::uint64_t Cycles() noexcept {
  for (;;) {
    const std::uint32_t high = g_cycles_high;
    const std::uint32_t low = g_cycles_low;
    if (high == g_cycles_high) {
      return (static_cast<std::uint64_t>(high) << 32U) | low;
    }
  }
}

}  // namespace

void Start(std::uint32_t period_cycles) noexcept {
  if (period_cycles < 2U) {
    period_cycles = 2U;
  } else if (period_cycles > kMaxPeriodCycles) {
    period_cycles = kMaxPeriodCycles;
  }
  Register(kSystCsr) = 0U;
  g_period_cycles = period_cycles;
  Register(kSystRvr) = period_cycles - 1U;
  Register(kSystCvr) = 0U;  // any write clears the counter and COUNTFLAG
  Register(kSystCsr) = kSystClkSourceCpu | kSystTickInt | kSystEnable;
}

void Stop() noexcept {
  Register(kSystCsr) = 0U;
}

void Pend() noexcept {
  Register(kIcsr) = kIcsrPendStSet;
  // The write must reach the System Control Block, and the pipeline be refetched, before the
  // caller's next instruction: the handler then runs "here", not a few instructions later.
  DataSynchronizationBarrier();
  InstructionSynchronizationBarrier();
}

void SetHook(Hook hook) noexcept {
  g_hook = hook;
}

std::uint64_t MicrosecondsSinceStart() noexcept {
  return Cycles() / kCyclesPerMicrosecond;
}

std::uint32_t Wraps() noexcept {
  return g_wraps;
}

}  // namespace systick
}  // namespace mcu

extern "C" void SysTick_Handler() {
  using namespace mcu;
  using namespace mcu::systick;
  // Reading CSR clears COUNTFLAG: set means the counter wrapped since the last read, clear means
  // this run was requested by software (Pend) and time did not move.
  if ((Register(kSystCsr) & kSystCountFlag) != 0U) {
    const std::uint32_t masked = Primask();
    DisableInterrupts();
    const std::uint32_t low = g_cycles_low;
    const std::uint32_t next_low = low + g_period_cycles;
    g_cycles_low = next_low;
    if (next_low < low) {
      g_cycles_high = g_cycles_high + 1U;
    }
    g_wraps = g_wraps + 1U;
    if (masked == 0U) {
      EnableInterrupts();
    }
  }
  const Hook hook = g_hook;
  if (hook != nullptr) {
    hook();
  }
}
