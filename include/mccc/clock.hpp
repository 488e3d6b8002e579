// SPDX-License-Identifier: MIT
/// @file clock.hpp
/// @brief Timestamp sources for message headers (the headers of include/mccc/clock/):
/// NullClock, SteadyClock, TscClock (BasicTscClock over the x86 cycle counter), DefaultClock,
/// and what any other Clock must provide (clock/clock_concept.hpp). The bus reads
/// `Traits::Clock` once per publish call, never for PublishFast (clock/clock_stamp.hpp).
#ifndef MCCC_CLOCK_HPP_
#define MCCC_CLOCK_HPP_

#include "mccc/clock/clock_concept.hpp"
#include "mccc/clock/clock_stamp.hpp"
#include "mccc/clock/default_clock.hpp"
#include "mccc/clock/null_clock.hpp"
#include "mccc/clock/steady_clock.hpp"
#include "mccc/clock/tsc_clock.hpp"

#endif  // MCCC_CLOCK_HPP_
