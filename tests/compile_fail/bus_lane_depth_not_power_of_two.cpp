// SPDX-License-Identifier: MIT
// expect: mccc: kLaneDepth must be a power of two
// A lane is a ring: its slot indices are positions masked with depth - 1.
#include "fixture.hpp"

struct LaneTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  static constexpr uint32_t kProducerLanes = 2U;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kLaneDepth = 1000U;
#else
  static constexpr uint32_t kLaneDepth = 1024U;
#endif
};

int main() {
  static mccc::AsyncBus<fixture::Payload, LaneTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
