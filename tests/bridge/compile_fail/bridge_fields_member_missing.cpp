// SPDX-License-Identifier: MIT
// expect: mccc::bridge: MCCC_BRIDGE_FIELDS\(T, \.\.\.\) must list every member of T once
// A member left out of the declaration would silently not travel.
#include <cstdint>

#include "mccc/bridge/codec.hpp"

struct Pose {
  float x;
  float y;
  uint32_t stamp;
};

MCCC_BRIDGE_FIELDS(Pose, x, y);

int main() {
  uint8_t buffer[64] = {};
  mccc::bridge::Codec<Pose>::Encode(Pose{}, buffer);
  return 0;
}
