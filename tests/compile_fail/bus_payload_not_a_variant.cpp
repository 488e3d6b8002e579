// expect: mccc: AsyncBus<Payload>: Payload must be a std::variant
// Compile-fail check: the bus payload must be a std::variant; a single message type is a common
// mistake and must be rejected with a message that says so.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  int accel;
};
struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
};
#ifndef MCCC_COMPILE_FAIL_CONTROL
using Bus = mccc::AsyncBus<Imu, SmallTraits>;
#else
using Bus = mccc::AsyncBus<std::variant<Imu>, SmallTraits>;
#endif

int main() {
  static Bus bus;
  return static_cast<int>(bus.QueueDepth());
}
