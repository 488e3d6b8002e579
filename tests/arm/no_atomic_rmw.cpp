// SPDX-License-Identifier: MIT
// expect: mccc: this core has no lock-free atomic read-modify-write
// Cortex-M0 has no LDREX/STREX: a multi-core (default) bus cannot claim slots there. Built with
// -mcpu=cortex-m0; the control is the single-core build, whose default critical section
// (PRIMASK) replaces every read-modify-write.
// G-33: a multi-core bus on Cortex-M0 is refused at compile time
#include <mccc/mccc.hpp>

#include <cstdint>
#include <variant>

struct Sample {
  int32_t value;
};
using Payload = std::variant<Sample>;

struct M0Traits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
#if defined(MCCC_COMPILE_FAIL_CONTROL)
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;
#endif
};

mccc::AsyncBus<Payload, M0Traits> g_bus;

extern "C" uint32_t no_atomic_rmw_run(int32_t value) {
  static_cast<void>(g_bus.Publish(Sample{value}, 1U));
  return g_bus.ProcessBatch();
}
