// SPDX-License-Identifier: MIT
// expect: mccc: a loan is unique and is published by moving it
//
// Publishing a loan by lvalue would leave the caller a handle to a block the consumer owns.
#include "loan_fixture.hpp"

int main() {
  static loan_fixture::LoanBus bus;
  mccc::MessageLoan<loan_fixture::PointCloud> loan =
      bus.Loan<loan_fixture::PointCloud>(mccc::MessagePriority::kMedium);
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.Publish(loan, 1U) ? 0 : 1;
#else
  return bus.Publish(std::move(loan), 1U) ? 0 : 1;
#endif
}
