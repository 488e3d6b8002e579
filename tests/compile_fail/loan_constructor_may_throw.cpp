// SPDX-License-Identifier: MIT
// expect: mccc: Loan<T>\(args\.\.\.\): T must be nothrow constructible
//
// Loan is noexcept: a constructor that throws there would terminate the program.
#include "loan_fixture.hpp"

struct Scan {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  explicit Scan(uint32_t n) : points(n) {}  // may throw (not noexcept)
#else
  explicit Scan(uint32_t n) noexcept : points(n) {}
#endif
  uint32_t points;
  float ranges[256];
};

struct ScanTraits : fixture::SmallTraits {
  using LoanPools = mccc::LoanPools<mccc::PoolOf<Scan, 2U>>;
};

int main() {
  static mccc::AsyncBus<std::variant<fixture::Imu, mccc::Loaned<Scan>>, ScanTraits> bus;
  auto loan = bus.Loan<Scan>(mccc::MessagePriority::kMedium, 360U);
  return loan ? 0 : 1;
}
