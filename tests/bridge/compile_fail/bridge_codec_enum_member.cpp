// SPDX-License-Identifier: MIT
// expect: mccc::bridge: this message type has a bool, enum or pointer member
// An enum member: a received value outside its enumerators would be taken as one. The default
// codec refuses the type (declare its fields and the enum's valid values).
#include <cstdint>

#include "mccc/bridge/codec.hpp"

enum class Mode : uint8_t { kIdle, kRun };

struct State {
  Mode mode;
  uint8_t level;
};

int main() {
  State state{};
  const uint8_t bytes[2] = {7U, 0U};
  return mccc::bridge::Codec<State>::Decode(bytes, sizeof(bytes), state) ? 1 : 0;
}
