// SPDX-License-Identifier: MIT
// expect: mccc: kProducerLanes must not exceed kStatisticsShards
// A lane counts in the statistics shard of its producer, so each lane needs a shard of its own.
#include "fixture.hpp"

struct LaneTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  static constexpr uint32_t kLaneDepth = 64U;
  static constexpr uint32_t kStatisticsShards = 4U;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kProducerLanes = 8U;
#else
  static constexpr uint32_t kProducerLanes = 4U;
#endif
};

int main() {
  static mccc::AsyncBus<fixture::Payload, LaneTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
