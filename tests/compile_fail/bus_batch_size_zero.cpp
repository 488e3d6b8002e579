// expect: mccc: kBatchSize \(MCCC_BATCH_SIZE\) must be > 0
// Compile-fail check: a bus with kBatchSize = 0 could never dispatch anything; it must be
// rejected.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"

struct Imu {
  int accel;
};
struct BatchTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kBatchSize = 0U;
#else
  static constexpr uint32_t kBatchSize = 1U;
#endif
};
using Bus = mccc::AsyncBus<std::variant<Imu>, BatchTraits>;

int main() {
  static Bus bus;
  return static_cast<int>(bus.ProcessBatch());
}
