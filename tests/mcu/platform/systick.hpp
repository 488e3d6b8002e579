// SPDX-License-Identifier: MIT
/// @file systick.hpp
/// @brief The SysTick timer as a periodic interrupt, a time base and an mccc Clock.
///
/// SysTick counts processor clocks (MCU_CORE_CLOCK_HZ, set per board by the build) down from
/// its reload value and raises its exception at each wrap. The handler
/// - advances the time base by one period, but only when the counter really wrapped (COUNTFLAG),
///   so a software request (Pend) runs the handler without moving time;
/// - then calls the program's hook, if one is set (e.g. an interrupt-driven producer).
///
/// Time has the resolution of one period: reading the counter in between cannot be made
/// consistent with a wrap whose interrupt is held back (masked, or a higher-priority handler
/// running), and a clock must never step back.
#ifndef MCU_PLATFORM_SYSTICK_HPP_
#define MCU_PLATFORM_SYSTICK_HPP_

#include <cstdint>

namespace mcu {
namespace systick {

/// Work done in the SysTick handler after the time base moved.
using Hook = void (*)();

/// Largest period: the counter is 24 bits wide.
inline constexpr std::uint32_t kMaxPeriodCycles = 1U << 24U;

/// Starts (or restarts) the timer with an interrupt every `period_cycles` processor clocks
/// (2 .. kMaxPeriodCycles). The time base keeps its value across restarts.
void Start(std::uint32_t period_cycles) noexcept;

/// Stops the timer (the time base stands still); a pending interrupt stays pending.
void Stop() noexcept;

/// Pends the SysTick exception by software (ICSR.PENDSTSET): the handler runs as soon as the
/// priority allows (at once from thread mode with interrupts enabled, after a barrier), calls
/// the hook and leaves time unchanged.
void Pend() noexcept;

/// Sets the hook the handler calls (nullptr: none).
void SetHook(Hook hook) noexcept;

/// Microseconds of timer periods completed since reset (never decreases).
std::uint64_t MicrosecondsSinceStart() noexcept;

/// Wraps of the counter seen by the handler since reset.
std::uint32_t Wraps() noexcept;

}  // namespace systick

/// @brief An mccc Clock (include/mccc/clock/clock_concept.hpp) backed by SysTick:
/// `using Clock = mcu::SysTickClock;` in the bus traits. Resolution: one SysTick period.
/// Callable from thread mode and from any handler.
struct SysTickClock {
  static std::uint64_t NowUs() noexcept { return systick::MicrosecondsSinceStart(); }
};

}  // namespace mcu

#endif  // MCU_PLATFORM_SYSTICK_HPP_
