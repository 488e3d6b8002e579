// SPDX-License-Identifier: MIT
// expect: mccc: Domain: the message type is not an alternative of the payload variant
// A domain routes by the variant's alternative index; a type outside it has none.
#include "fixture.hpp"
#include "mccc/fanout/domain.hpp"

int main() {
  static mccc::Domain<fixture::Payload, fixture::SmallTraits, fixture::SmallTraits> domain;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return domain.Publish(fixture::Unrelated{1}, 1U) ? 0 : 1;
#else
  return domain.Publish(fixture::Gps{}, 1U) ? 0 : 1;
#endif
}
