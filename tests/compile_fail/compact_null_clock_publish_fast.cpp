// SPDX-License-Identifier: MIT
// expect: mccc: PublishFast: this bus stores no timestamp
// A compact NullClock slot has no timestamp field: a caller's timestamp would be lost.
// G-34: a lost PublishFast timestamp is a compile error
#include "fixture.hpp"

struct CompactTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  static constexpr bool kCompactEnvelope = true;
  using Clock = mccc::NullClock;
};
using CompactBus = mccc::AsyncBus<fixture::Payload, CompactTraits>;

int main() {
  CompactBus bus;
#if defined(MCCC_COMPILE_FAIL_CONTROL)
  return bus.Publish(fixture::Imu{}, 1U) ? 0 : 1;
#else
  return bus.PublishFast(fixture::Imu{}, 1U, 42U) ? 0 : 1;
#endif
}
