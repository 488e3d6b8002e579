// expect: mccc: the payload variant has more alternatives than kMaxMessageTypes
// Compile-fail check: a payload variant with more alternatives than the bus traits allow
// (kMaxMessageTypes bounds the callback table) must be rejected.
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
struct Baro {
  float pressure;
};
struct TwoTypesTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kMaxMessageTypes = 2U;
#else
  static constexpr uint32_t kMaxMessageTypes = 3U;
#endif
};
using Bus = mccc::AsyncBus<std::variant<Imu, Gps, Baro>, TwoTypesTraits>;

int main() {
  static Bus bus;
  return bus.Publish(Baro{1.0F}, 1U) ? 0 : 1;
}
