// SPDX-License-Identifier: MIT
// expect: mccc::bridge: this message type is not trivially copyable, so it cannot travel as its
// bytes; specialize mccc::bridge::Codec<T> A message type with a std::string member and no Codec
// specialization cannot be exported.
#include <cstdint>
#include <string>

#include "mccc/bridge/codec.hpp"

struct Note {
  std::string text;
};

int main() {
  uint8_t buffer[64] = {};
  mccc::bridge::Codec<Note>::Encode(Note{}, buffer);
  return 0;
}
