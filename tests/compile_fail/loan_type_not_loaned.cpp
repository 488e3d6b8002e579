// SPDX-License-Identifier: MIT
// expect: mccc: Loan<T>: T does not travel by loan on this bus
//
// Imu is an inline alternative: it has no pool to take a block from.
#include "loan_fixture.hpp"

int main() {
  static loan_fixture::LoanBus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  auto loan = bus.Loan<fixture::Imu>(mccc::MessagePriority::kLow);
#else
  auto loan = bus.Loan<loan_fixture::PointCloud>(mccc::MessagePriority::kLow);
#endif
  return loan ? 0 : 1;
}
