// SPDX-License-Identifier: MIT
// expect: mccc::bridge: this message type has padding or floating-point members, so it cannot
// travel as its bytes A type with padding bytes would send whatever the stack held there: the
// default codec refuses it (declare its fields instead).
#include <cstdint>

#include "mccc/bridge/codec.hpp"

struct Padded {
  uint8_t a;
  uint64_t b;
};

int main() {
  uint8_t buffer[64] = {};
  mccc::bridge::Codec<Padded>::Encode(Padded{}, buffer);
  return 0;
}
