// SPDX-License-Identifier: MIT
/// @file protocol.hpp
/// @brief The message vocabulary under the original MCCC's include line: FixedString,
/// FixedVector, make_overloaded, MessagePriority, MessageHeader and MessageEnvelope. New code
/// includes the headers below (or mccc.hpp) directly.
#ifndef MCCC_PROTOCOL_HPP_
#define MCCC_PROTOCOL_HPP_

#include "mccc/containers/fixed_string.hpp"  // IWYU pragma: export
#include "mccc/containers/fixed_vector.hpp"  // IWYU pragma: export
#include "mccc/dispatch/overloaded.hpp"      // IWYU pragma: export
#include "mccc/message.hpp"                  // IWYU pragma: export

#endif  // MCCC_PROTOCOL_HPP_
