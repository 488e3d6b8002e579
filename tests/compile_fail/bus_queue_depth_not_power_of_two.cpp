// SPDX-License-Identifier: MIT
// expect: mccc: kQueueDepth \(MCCC_QUEUE_DEPTH\) must be a power of two
// Slot indices are positions masked with depth - 1.
#include "fixture.hpp"

struct DepthTraits : mccc::DefaultBusTraits {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kQueueDepth = 100U;
#else
  static constexpr uint32_t kQueueDepth = 128U;
#endif
};

int main() {
  static mccc::AsyncBus<fixture::Payload, DepthTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
