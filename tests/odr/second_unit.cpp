// SPDX-License-Identifier: MIT
// The other half of first_unit.cpp: publishes through it, consumes here.
#include <cstdio>

#include "odr_bus.hpp"

bool PublishFromFirstUnit(uint32_t value);
uint32_t CapacitySeenByFirstUnit();

int main() {
  uint32_t admitted = 0U;
  for (uint32_t i = 0U; i < 100U; ++i) {
    admitted += PublishFromFirstUnit(i) ? 1U : 0U;
  }
  const uint32_t processed = OdrBus::Instance().ProcessBatch();
  const bool same =
      admitted == 100U && processed == 100U && CapacitySeenByFirstUnit() == OdrBus::Capacity();
  std::printf("odr: admitted %u, processed %u, capacity %u/%u: %s\n", admitted, processed,
              CapacitySeenByFirstUnit(), OdrBus::Capacity(), same ? "one bus" : "MISMATCH");
  return same ? 0 : 1;
}
