// SPDX-License-Identifier: MIT
/// @file message_bus.hpp
/// @brief The bus under the original MCCC's include line: everything protocol.hpp offers, plus
/// AsyncBus with its configuration, statistics and errors, and VariantIndex. New code includes
/// mccc/bus/async_bus.hpp (or mccc.hpp) directly.
#ifndef MCCC_MESSAGE_BUS_HPP_
#define MCCC_MESSAGE_BUS_HPP_

#include "mccc/bus/async_bus.hpp"          // IWYU pragma: export
#include "mccc/detail/variant_traits.hpp"  // IWYU pragma: export
#include "mccc/protocol.hpp"               // IWYU pragma: export

#endif  // MCCC_MESSAGE_BUS_HPP_
