// SPDX-License-Identifier: MIT
// expect: mccc: producer lanes need a hosted, multi-core, multi-producer bus
// A lane belongs to one of several producer threads; a single-producer bus has nothing to split.
#include "fixture.hpp"

struct LaneTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  static constexpr uint32_t kLaneDepth = 64U;
  static constexpr uint32_t kProducerLanes = 2U;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr bool kSingleProducer = true;
#else
  static constexpr bool kSingleProducer = false;
#endif
};

int main() {
  static mccc::AsyncBus<fixture::Payload, LaneTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
