// SPDX-License-Identifier: MIT
// expect: mccc: kBatchSize must exceed kProducerLanes
// One batch serves every ready lane and the shared ring at least once, so it needs that many.
#include "fixture.hpp"

struct LaneTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  static constexpr uint32_t kLaneDepth = 64U;
  static constexpr uint32_t kProducerLanes = 8U;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kBatchSize = 8U;
#else
  static constexpr uint32_t kBatchSize = 9U;
#endif
};

int main() {
  static mccc::AsyncBus<fixture::Payload, LaneTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
