// SPDX-License-Identifier: MIT
// expect: mccc: Publish: the message type is not an alternative of the bus payload variant
// No implicit conversion to one of the alternatives either.
#include "fixture.hpp"

int main() {
  static fixture::SmallBus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.Publish(fixture::Unrelated{1}, 1U) ? 0 : 1;
#else
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
#endif
}
