// expect: mccc: ProcessBatchWith: the visitor has no handler for at least one payload alternative
// Compile-fail check: ProcessBatchWith needs a handler for every alternative (a message without
// one would be silently dropped); a visitor that lacks one must be rejected.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"
#include "mccc/dispatch/overloaded.hpp"

struct Imu {
  int accel;
};
struct Gps {
  double latitude;
};
struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
};
using Bus = mccc::AsyncBus<std::variant<Imu, Gps>, SmallTraits>;

int main() {
  static Bus bus;
  int sum = 0;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  auto visitor = mccc::make_overloaded([&sum](const Imu& m) { sum += m.accel; });  // no Gps
#else
  auto visitor = mccc::make_overloaded([&sum](const Imu& m) { sum += m.accel; }, [](const Gps&) {});
#endif
  return static_cast<int>(bus.ProcessBatchWith(visitor)) + sum;
}
