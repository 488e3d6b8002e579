// SPDX-License-Identifier: MIT
// expect: mccc: kQueueDepth \(MCCC_QUEUE_DEPTH\) must be > 0
// 0 & (0 - 1) == 0 would otherwise pass for a power of two.
#include "fixture.hpp"

struct DepthTraits : mccc::DefaultBusTraits {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kQueueDepth = 0U;
#else
  static constexpr uint32_t kQueueDepth = 64U;
#endif
};

int main() {
  static mccc::AsyncBus<fixture::Payload, DepthTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
