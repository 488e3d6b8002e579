// expect: mccc: Subscribe<T>: the callback must be callable as
// Compile-fail check: a subscriber that cannot be called with (const T&), (const T&, const
// MessageHeader&) or (const MessageEnvelope<Payload>&) must be rejected with the accepted forms.
// Here it takes the message by non-const reference (the bus only hands out const messages).
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
using Bus = mccc::AsyncBus<std::variant<Imu>, SmallTraits>;

int main() {
  static Bus bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  const mccc::SubscriptionHandle h = bus.Subscribe<Imu>([](Imu& m) { m.accel = 0; });
#else
  const mccc::SubscriptionHandle h = bus.Subscribe<Imu>([](const Imu& m) { (void)m.accel; });
#endif
  return h.IsValid() ? 0 : 1;
}
