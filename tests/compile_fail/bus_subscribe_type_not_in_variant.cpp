// expect: mccc: Subscribe<T>: T is not an alternative of the bus payload variant
// Compile-fail check: AsyncBus::Subscribe<T> with a T that is not one of the payload variant's
// alternatives must be rejected (such a subscriber could never be called).
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
  const mccc::SubscriptionHandle h = bus.Subscribe<Unrelated>([](const Unrelated&) {});
#else
  const mccc::SubscriptionHandle h = bus.Subscribe<Imu>([](const Imu&) {});
#endif
  return h.IsValid() ? 0 : 1;
}
