// SPDX-License-Identifier: MIT
// expect: mccc::bridge: this message type has a bool, enum or pointer member
// No padding, but a bool member: a received byte 02 would become an invalid bool. The default
// codec refuses the type (declare its fields: bools are then checked on arrival).
#include <cstdint>

#include "mccc/bridge/codec.hpp"

struct Flags {
  bool armed;
  uint8_t mode;
  uint8_t spare[2];
};

int main() {
  Flags flags{};
  const uint8_t bytes[4] = {2U, 7U, 0U, 0U};
  return mccc::bridge::Codec<Flags>::Decode(bytes, sizeof(bytes), flags) ? 1 : 0;
}
