// SPDX-License-Identifier: MIT
// expect: mccc: Traits::LoanPools has a PoolOf<T, N> whose mccc::Loaned<T> is not
//
// A pool whose type the bus never carries would only take RAM.
#include "loan_fixture.hpp"

#ifndef MCCC_COMPILE_FAIL_CONTROL
using Payload = std::variant<fixture::Imu, fixture::Gps>;
#else
using Payload = std::variant<fixture::Imu, fixture::Gps, mccc::Loaned<loan_fixture::PointCloud> >;
#endif

int main() {
  static mccc::AsyncBus<Payload, loan_fixture::LoanTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
