// SPDX-License-Identifier: MIT
// expect: mccc: SubscriberCount<T>: T is not an alternative of the bus payload variant
// It would always be 0.
#include "fixture.hpp"

int main() {
  static fixture::SmallBus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return static_cast<int>(bus.SubscriberCount<fixture::Unrelated>());
#else
  return static_cast<int>(bus.SubscriberCount<fixture::Gps>());
#endif
}
