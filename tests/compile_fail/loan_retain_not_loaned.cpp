// SPDX-License-Identifier: MIT
// expect: mccc: Retain\(message\): this message type does not travel by loan
//
// An inline message lives in a ring slot that is reused after its callbacks: nothing to retain.
#include "loan_fixture.hpp"

int main() {
  static loan_fixture::LoanBus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static_cast<void>(bus.Subscribe<fixture::Imu>([](const fixture::Imu& imu) {
    auto kept = bus.Retain(imu);
    static_cast<void>(kept);
  }));
#else
  static_cast<void>(bus.Subscribe<loan_fixture::PointCloud>([](const loan_fixture::PointCloud& c) {
    auto kept = bus.Retain(c);
    static_cast<void>(kept);
  }));
#endif
  return static_cast<int>(bus.ProcessBatch());
}
