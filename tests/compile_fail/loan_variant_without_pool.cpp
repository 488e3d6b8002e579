// SPDX-License-Identifier: MIT
// expect: mccc: the payload variant lists mccc::Loaned<T> for a T that has no pool
//
// Every Loaned<T> alternative needs the pool its blocks come from.
#include "loan_fixture.hpp"

struct NoPoolTraits : fixture::SmallTraits {
#ifdef MCCC_COMPILE_FAIL_CONTROL
  using LoanPools = mccc::LoanPools<mccc::PoolOf<loan_fixture::PointCloud, 2U>>;
#endif
};

int main() {
  static mccc::AsyncBus<loan_fixture::LoanPayload, NoPoolTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
