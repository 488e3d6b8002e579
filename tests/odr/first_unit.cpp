// SPDX-License-Identifier: MIT
// One configuration per program: this unit and second_unit.cpp share one bus type. Built with
// the same MCCC_* values they link and share one Instance(); with different values the link
// must fail (include/mccc/config.hpp), as tests/CMakeLists.txt checks.
// G-31: different MCCC_* values in two units are a link error (tests/CMakeLists.txt, odr)
#include "odr_bus.hpp"

bool PublishFromFirstUnit(uint32_t value) {
  return OdrBus::Instance().Publish(OdrMsg{value}, 1U);
}

uint32_t CapacitySeenByFirstUnit() {
  return OdrBus::Capacity();
}
