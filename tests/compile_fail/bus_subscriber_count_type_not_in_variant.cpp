// expect: mccc: SubscriberCount<T>: T is not an alternative of the bus payload variant
// Compile-fail check: AsyncBus::SubscriberCount<T> with a T that is not one of the payload
// variant's alternatives must be rejected (it would always be 0).
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
  return static_cast<int>(bus.SubscriberCount<Unrelated>());
#else
  return static_cast<int>(bus.SubscriberCount<Gps>());
#endif
}
