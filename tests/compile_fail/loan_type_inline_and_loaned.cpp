// SPDX-License-Identifier: MIT
// expect: mccc: the payload variant lists both T and mccc::Loaned<T>
//
// Subscribers of T could not tell which of the two alternatives they are given.
#include "loan_fixture.hpp"

#ifndef MCCC_COMPILE_FAIL_CONTROL
using Payload =
    std::variant<fixture::Imu, loan_fixture::PointCloud, mccc::Loaned<loan_fixture::PointCloud>>;
#else
using Payload = std::variant<fixture::Imu, mccc::Loaned<loan_fixture::PointCloud>>;
#endif

int main() {
  static mccc::AsyncBus<Payload, loan_fixture::LoanTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
