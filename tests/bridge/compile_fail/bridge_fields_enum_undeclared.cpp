// SPDX-License-Identifier: MIT
// expect: mccc::bridge: an enum field needs its valid values
// Declared fields validate every enum on arrival, so the enum's valid values must be declared.
#include <cstdint>

#include "mccc/bridge/codec.hpp"

enum class Mode : uint8_t { kIdle, kRun };

struct State {
  float level;
  Mode mode;
};

MCCC_BRIDGE_FIELDS(State, level, mode);

int main() {
  uint8_t buffer[64] = {};
  mccc::bridge::Codec<State>::Encode(State{}, buffer);
  return 0;
}
