// SPDX-License-Identifier: MIT
// expect: mccc: the payload variant has more alternatives than kMaxMessageTypes
// kMaxMessageTypes bounds the callback table.
#include "fixture.hpp"

struct TypesTraits : fixture::SmallTraits {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kMaxMessageTypes = 2U;
#else
  static constexpr uint32_t kMaxMessageTypes = 3U;
#endif
};

int main() {
  static mccc::AsyncBus<std::variant<fixture::Imu, fixture::Gps, fixture::Baro>, TypesTraits> bus;
  return bus.Publish(fixture::Baro{1.0F}, 1U) ? 0 : 1;
}
