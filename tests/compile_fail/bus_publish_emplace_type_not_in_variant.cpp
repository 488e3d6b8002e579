// SPDX-License-Identifier: MIT
// expect: mccc: PublishEmplace<T>: T is not an alternative of the bus payload variant
#include "fixture.hpp"

int main() {
  static fixture::SmallBus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.PublishEmplace<fixture::Unrelated>(1U, mccc::MessagePriority::kHigh, 1) ? 0 : 1;
#else
  return bus.PublishEmplace<fixture::Imu>(1U, mccc::MessagePriority::kHigh, 1) ? 0 : 1;
#endif
}
