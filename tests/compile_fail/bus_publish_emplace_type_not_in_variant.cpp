// expect: mccc: PublishEmplace<T>: T is not an alternative of the bus payload variant
// Compile-fail check: AsyncBus::PublishEmplace<T> with a T that is not one of the payload
// variant's alternatives must be rejected.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  explicit Imu(int a) noexcept : accel(a) {}
  int accel;
};
struct Gps {
  double latitude;
};
struct Unrelated {
  explicit Unrelated(int v) noexcept : value(v) {}
  int value;
};
struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
};
using Bus = mccc::AsyncBus<std::variant<Imu, Gps>, SmallTraits>;

int main() {
  static Bus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.PublishEmplace<Unrelated>(1U, mccc::MessagePriority::HIGH, 1) ? 0 : 1;
#else
  return bus.PublishEmplace<Imu>(1U, mccc::MessagePriority::HIGH, 1) ? 0 : 1;
#endif
}
