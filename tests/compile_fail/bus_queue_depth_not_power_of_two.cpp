// expect: mccc: kQueueDepth \(MCCC_QUEUE_DEPTH\) must be a power of two
// Compile-fail check: a bus whose kQueueDepth is not a power of two must be rejected (slot
// indices are positions masked with depth - 1).
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  int accel;
};
struct DepthTraits : mccc::DefaultBusTraits {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kQueueDepth = 100U;
#else
  static constexpr uint32_t kQueueDepth = 128U;
#endif
};
using Bus = mccc::AsyncBus<std::variant<Imu>, DepthTraits>;

int main() {
  static Bus bus;
  return bus.Publish(Imu{1}, 1U) ? 0 : 1;
}
