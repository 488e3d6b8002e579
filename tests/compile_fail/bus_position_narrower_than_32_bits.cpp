// SPDX-License-Identifier: MIT
// expect: Position must be at least 32 bits
// A 16-bit position wraps within one preemption of a producer (ABA) and wraps ids and counters.
// G-25: positions narrower than 32 bits are a compile error
#include <cstdint>
#include <variant>

#include "mccc/mccc.hpp"

struct Msg {
  int value;
};
struct NarrowTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  using Position = uint16_t;
#else
  using Position = uint32_t;
#endif
};

int main() {
  mccc::AsyncBus<std::variant<Msg>, NarrowTraits> bus;
  return bus.Publish(Msg{1}, 1U) ? 0 : 1;
}
