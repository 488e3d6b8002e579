// SPDX-License-Identifier: MIT
// expect: mccc: kSingleCore = true is only correct on a single-core CPU
// Traits that select the single-core memory model (compiler fences only) need
// kSingleCoreUnsafeAcknowledged = true.
#include "fixture.hpp"

struct McuTraits : fixture::SmallTraits {
  static constexpr bool kSingleCore = true;
#ifdef MCCC_COMPILE_FAIL_CONTROL
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;
#endif
};

int main() {
  static mccc::AsyncBus<fixture::Payload, McuTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
