// SPDX-License-Identifier: MIT
// expect: mccc: Subscribe<T>: the callback must be callable as
// A subscriber that cannot be called with (const T&), (const T&, const MessageHeader&) or
// (const MessageEnvelope<Payload>&) is rejected with the accepted forms; here it takes the
// message by non-const reference (the bus only hands out const messages).
#include "fixture.hpp"

int main() {
  static fixture::SmallBus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.Subscribe<fixture::Imu>([](fixture::Imu& m) { m.accel = 0; }).IsValid() ? 0 : 1;
#else
  return bus.Subscribe<fixture::Imu>([](const fixture::Imu& m) { (void)m.accel; }).IsValid() ? 0
                                                                                             : 1;
#endif
}
