// SPDX-License-Identifier: MIT
// expect: mccc: Subscribe<T>: this bus stores compact envelopes
// A callback taking the whole MessageEnvelope needs the full envelope in the slot.
// G-34: the envelope callback on a compact bus is a compile error
#include "fixture.hpp"

struct CompactTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  static constexpr bool kCompactEnvelope = true;
};
using CompactBus = mccc::AsyncBus<fixture::Payload, CompactTraits>;

int main() {
  CompactBus bus;
#if defined(MCCC_COMPILE_FAIL_CONTROL)
  const auto handle = bus.Subscribe<fixture::Imu>([](const fixture::Imu&) {});
#else
  const auto handle = bus.Subscribe<fixture::Imu>([](const CompactBus::Envelope&) {});
#endif
  return handle.IsValid() ? 0 : 1;
}
