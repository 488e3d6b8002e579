// expect: mccc: kSingleCore = true is only correct on a single-core CPU
// Compile-fail check: bus traits that select the single-core memory model (compiler fences
// only) without kSingleCoreUnsafeAcknowledged = true must be rejected.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  int accel;
};
struct McuTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  static constexpr bool kSingleCore = true;
#ifdef MCCC_COMPILE_FAIL_CONTROL
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;
#endif
};
using Bus = mccc::AsyncBus<std::variant<Imu>, McuTraits>;

int main() {
  static Bus bus;
  return bus.Publish(Imu{1}, 1U) ? 0 : 1;
}
