// SPDX-License-Identifier: MIT
/// @file mcu_messages.hpp
/// @brief The small message types of the bare-metal programs (the suite and the timing probe),
/// sized like a sensor sample, a command and a status byte.
#ifndef MCU_MCU_MESSAGES_HPP_
#define MCU_MCU_MESSAGES_HPP_

#include <cstdint>
#include <variant>

namespace mcu_test {

/// One sample of a numbered stream (8 bytes).
struct Sample {
  std::uint16_t stream;  // which producer made it
  std::uint16_t spare;
  std::uint32_t sequence;  // per stream: 0, 1, 2, ...
};
/// A command (4 bytes).
struct Command {
  std::int32_t value;
};
/// A status byte.
struct Status {
  std::uint8_t code;
};
/// The payload variant of the programs' buses.
using Payload = std::variant<Sample, Command, Status>;

}  // namespace mcu_test

#endif  // MCU_MCU_MESSAGES_HPP_
