// SPDX-License-Identifier: MIT
// expect: kHighQueueDepth \(MCCC_HIGH_QUEUE_DEPTH\) must be 0 \(no HIGH (ring|lane)\) or a power
// The HIGH ring's slot indices are positions masked with depth - 1.
#include "fixture.hpp"

struct HighTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kHighQueueDepth = 100U;
#else
  static constexpr uint32_t kHighQueueDepth = 128U;
#endif
};

int main() {
  static mccc::AsyncBus<fixture::Payload, HighTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
