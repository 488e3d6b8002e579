// SPDX-License-Identifier: MIT
// expect: mccc: a loan is unique and is published by moving it
//
// A loan reached through a const reference cannot be given away, even with std::move (it would be a
// const rvalue, copied from, not moved).
#include "loan_fixture.hpp"

using Loan = mccc::MessageLoan<loan_fixture::PointCloud>;

#ifndef MCCC_COMPILE_FAIL_CONTROL
bool Send(loan_fixture::LoanBus& bus, const Loan& loan) {
  return bus.Publish(std::move(loan), 1U);
}
#else
bool Send(loan_fixture::LoanBus& bus, Loan& loan) {
  return bus.Publish(std::move(loan), 1U);
}
#endif

int main() {
  static loan_fixture::LoanBus bus;
  Loan loan = bus.Loan<loan_fixture::PointCloud>(mccc::MessagePriority::kHigh);
  return Send(bus, loan) ? 0 : 1;
}
