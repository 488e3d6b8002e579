// SPDX-License-Identifier: MIT
// expect: mccc: AsyncBus<Payload>: Payload must be a std::variant
// A single message type instead of a std::variant is a common mistake.
#include "fixture.hpp"

#ifndef MCCC_COMPILE_FAIL_CONTROL
using Bus = mccc::AsyncBus<fixture::Imu, fixture::SmallTraits>;
#else
using Bus = mccc::AsyncBus<std::variant<fixture::Imu>, fixture::SmallTraits>;
#endif

int main() {
  static Bus bus;
  return static_cast<int>(bus.QueueOccupancy());
}
