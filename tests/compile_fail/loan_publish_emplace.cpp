// SPDX-License-Identifier: MIT
// expect: mccc: PublishEmplace<T>: T travels by loan on this bus
//
// A loaned type is built in its pool block, never in a slot.
#include "loan_fixture.hpp"

int main() {
  static loan_fixture::LoanBus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.PublishEmplace<loan_fixture::PointCloud>(1U, mccc::MessagePriority::kHigh) ? 0 : 1;
#else
  auto loan = bus.Loan<loan_fixture::PointCloud>(mccc::MessagePriority::kHigh);
  return bus.Publish(std::move(loan), 1U) ? 0 : 1;
#endif
}
