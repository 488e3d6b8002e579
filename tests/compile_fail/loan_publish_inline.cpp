// SPDX-License-Identifier: MIT
// expect: mccc: Publish: this message type travels by loan on this bus .*bus\.Loan<T>
//
// A type listed as mccc::Loaned<T> is never copied into a slot: it is built in a pool block.
#include "loan_fixture.hpp"

int main() {
  static loan_fixture::LoanBus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.Publish(loan_fixture::PointCloud{}, 1U) ? 0 : 1;
#else
  mccc::MessageLoan<loan_fixture::PointCloud> loan =
      bus.Loan<loan_fixture::PointCloud>(mccc::MessagePriority::kLow);
  return bus.Publish(std::move(loan), 1U) ? 0 : 1;
#endif
}
