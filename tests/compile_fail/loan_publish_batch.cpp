// SPDX-License-Identifier: MIT
// expect: mccc: PublishBatch: loans are unique and are published one by one
//
// PublishBatch copies its array into the slots; a loan cannot be copied.
#include "loan_fixture.hpp"

int main() {
  static loan_fixture::LoanBus bus;
  mccc::MessageLoan<loan_fixture::PointCloud> loans[2] = {
      bus.Loan<loan_fixture::PointCloud>(mccc::MessagePriority::kLow),
      bus.Loan<loan_fixture::PointCloud>(mccc::MessagePriority::kLow)};
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.PublishBatch(loans, 2U, 1U) == 2U ? 0 : 1;
#else
  uint32_t published = 0U;
  for (auto& loan : loans) {
    published += bus.Publish(std::move(loan), 1U) ? 1U : 0U;
  }
  return published == 2U ? 0 : 1;
#endif
}
