// SPDX-License-Identifier: MIT
/// @file default_clock.hpp
/// @brief DefaultClock: the clock DefaultBusTraits timestamps with.
#ifndef MCCC_CLOCK_DEFAULT_CLOCK_HPP_
#define MCCC_CLOCK_DEFAULT_CLOCK_HPP_

#include "mccc/clock/null_clock.hpp"
#include "mccc/clock/steady_clock.hpp"
#include "mccc/clock/tsc_clock.hpp"
#include "mccc/config.hpp"

namespace mccc {

/// @brief The clock DefaultBusTraits uses: TscClock on hosted x86-64 (steady_clock's time line
/// from the cycle counter; it falls back to steady_clock by itself where the counter is not
/// trustworthy), SteadyClock on other hosted systems, NullClock without an OS (an MCU supplies
/// its tick counter through its traits: `using Clock = MyTickClock;`).
/// MCCC_DEFAULT_CLOCK_STEADY=1 keeps SteadyClock everywhere.
#if MCCC_HAS_TSC_CLOCK && !MCCC_DEFAULT_CLOCK_STEADY
using DefaultClock = TscClock;
#elif MCCC_HOSTED
using DefaultClock = SteadyClock;
#else
using DefaultClock = NullClock;
#endif

}  // namespace mccc

#endif  // MCCC_CLOCK_DEFAULT_CLOCK_HPP_
