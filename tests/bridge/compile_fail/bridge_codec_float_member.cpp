// SPDX-License-Identifier: MIT
// expect: mccc::bridge: this message type has padding or floating-point members, so it cannot
// travel as its bytes Floats have no unique representation, and their layout cannot be told from an
// integer's of the same size: the default codec refuses them (declare the fields: they travel as
// IEEE bits and the schema fingerprint sees them).
#include <cstdint>

#include "mccc/bridge/codec.hpp"

struct Point {
  float x;
  float y;
};

int main() {
  uint8_t buffer[64] = {};
  mccc::bridge::Codec<Point>::Encode(Point{}, buffer);
  return 0;
}
