// SPDX-License-Identifier: MIT
// expect: mccc: Domain: every consumer's traits must name the same Clock
// A fan-out publish reads the clock once and gives that reading to every consumer's copy.
#include "fixture.hpp"
#include "mccc/fanout/domain.hpp"

struct NullClockTraits : fixture::SmallTraits {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  using Clock = mccc::NullClock;  // never the hosted default clock
#endif
};

int main() {
  static mccc::Domain<fixture::Payload, fixture::SmallTraits, NullClockTraits> domain;
  return domain.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
