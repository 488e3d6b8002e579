// expect: mccc: kQueueDepth \(MCCC_QUEUE_DEPTH\) must be > 0
// Compile-fail check: a bus with kQueueDepth = 0 must be rejected with a message saying so
// (0 & (0 - 1) == 0 would otherwise pass for a power of two).
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  int accel;
};
struct DepthTraits : mccc::DefaultBusTraits {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kQueueDepth = 0U;
#else
  static constexpr uint32_t kQueueDepth = 64U;
#endif
};
using Bus = mccc::AsyncBus<std::variant<Imu>, DepthTraits>;

int main() {
  static Bus bus;
  return bus.Publish(Imu{1}, 1U) ? 0 : 1;
}
