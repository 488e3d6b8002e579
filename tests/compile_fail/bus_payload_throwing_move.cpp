// expect: mccc: every payload alternative must be nothrow move constructible
// Compile-fail check: a claimed ring slot must always be completed, so every payload alternative
// needs a noexcept move constructor; a throwing one must be rejected.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  int accel;
};
struct Log {
  Log() = default;
  Log(const Log&) = default;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  Log(Log&& other) : line(other.line) {}  // may throw (not noexcept)
#else
  Log(Log&& other) noexcept : line(other.line) {}
#endif
  Log& operator=(const Log&) = default;
  Log& operator=(Log&&) = default;
  ~Log() = default;
  int line = 0;
};
struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
};
using Bus = mccc::AsyncBus<std::variant<Imu, Log>, SmallTraits>;

int main() {
  static Bus bus;
  return bus.Publish(Imu{1}, 1U) ? 0 : 1;
}
