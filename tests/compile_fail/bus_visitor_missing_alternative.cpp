// SPDX-License-Identifier: MIT
// expect: mccc: ProcessBatchWith: the visitor has no handler for at least one payload alternative
// A message without a handler would be silently dropped.
#include "fixture.hpp"
#include "mccc/dispatch/overloaded.hpp"

int main() {
  static fixture::SmallBus bus;
  int sum = 0;
  auto on_imu = [&sum](const fixture::Imu& m) { sum += m.accel; };
#ifndef MCCC_COMPILE_FAIL_CONTROL
  auto visitor = mccc::make_overloaded(on_imu);  // no handler for Gps
#else
  auto visitor = mccc::make_overloaded(on_imu, [](const fixture::Gps&) {});
#endif
  return static_cast<int>(bus.ProcessBatchWith(visitor)) + sum;
}
