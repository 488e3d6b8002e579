// SPDX-License-Identifier: MIT
// expect: mccc: Subscribe<T>: T is not an alternative of the bus payload variant
// Such a subscriber could never be called.
#include "fixture.hpp"

int main() {
  static fixture::SmallBus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.Subscribe<fixture::Unrelated>([](const fixture::Unrelated&) {}).IsValid() ? 0 : 1;
#else
  return bus.Subscribe<fixture::Imu>([](const fixture::Imu&) {}).IsValid() ? 0 : 1;
#endif
}
