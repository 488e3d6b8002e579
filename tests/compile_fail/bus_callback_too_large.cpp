// expect: mccc: the subscriber callable is larger than the bus's callback storage
// Compile-fail check: a subscriber whose captures exceed kCallbackStorageBytes must be rejected
// at compile time (never a heap fallback).
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <array>
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  int accel;
};
struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
  static constexpr uint32_t kCallbackStorageBytes = 32U;
};
using Bus = mccc::AsyncBus<std::variant<Imu>, SmallTraits>;

int main() {
  static Bus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  std::array<unsigned char, 33> calibration{};  // one byte more than the storage
#else
  std::array<unsigned char, 32> calibration{};
#endif
  const mccc::SubscriptionHandle h =
      bus.Subscribe<Imu>([calibration](const Imu& m) { return m.accel > calibration[0]; });
  return h.IsValid() ? 0 : 1;
}
