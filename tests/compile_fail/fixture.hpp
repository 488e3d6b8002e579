// SPDX-License-Identifier: MIT
// Shared by the compile-fail sources of the bus: message types and small traits, so that each
// source holds only its rule: the line the library must reject, and, under
// -DMCCC_COMPILE_FAIL_CONTROL, the line it accepts instead (tests/CMakeLists.txt builds both).
#ifndef MCCC_TESTS_COMPILE_FAIL_FIXTURE_HPP_
#define MCCC_TESTS_COMPILE_FAIL_FIXTURE_HPP_

#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

namespace fixture {

struct Imu {
  Imu() noexcept = default;
  explicit Imu(int a) noexcept : accel(a) {}
  int accel = 0;
};
struct Gps {
  double latitude = 0.0;
};
struct Baro {
  float pressure = 0.0F;
};
/// Not an alternative of any payload below.
struct Unrelated {
  explicit Unrelated(int v) noexcept : value(v) {}
  int value;
};

struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
};
using Payload = std::variant<Imu, Gps>;
using SmallBus = mccc::AsyncBus<Payload, SmallTraits>;

}  // namespace fixture

#endif  // MCCC_TESTS_COMPILE_FAIL_FIXTURE_HPP_
