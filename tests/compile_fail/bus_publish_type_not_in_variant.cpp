// expect: mccc: Publish: the message type is not an alternative of the bus payload variant
// Compile-fail check: AsyncBus::Publish of a type that is not one of the payload variant's
// alternatives must be rejected with a message naming the rule (no implicit conversion).
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  int accel;
};
struct Gps {
  double latitude;
};
struct Unrelated {
  int value;
};
struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
};
using Bus = mccc::AsyncBus<std::variant<Imu, Gps>, SmallTraits>;

int main() {
  static Bus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.Publish(Unrelated{1}, 1U) ? 0 : 1;
#else
  return bus.Publish(Imu{1}, 1U) ? 0 : 1;
#endif
}
