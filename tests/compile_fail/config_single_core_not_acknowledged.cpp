// expect: MCCC_SINGLE_CORE=1 replaces hardware memory barriers with compiler fences
// Compile-fail check: the MCCC_SINGLE_CORE=1 default without MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE=1
// must stop the build (#error in config.hpp), before any bus is declared.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#define MCCC_SINGLE_CORE 1
#ifdef MCCC_COMPILE_FAIL_CONTROL
#define MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE 1
#endif

#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  int accel;
};
struct McuTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
};
using Bus = mccc::AsyncBus<std::variant<Imu>, McuTraits>;

int main() {
  static Bus bus;
  return bus.Publish(Imu{1}, 1U) ? 0 : 1;
}
