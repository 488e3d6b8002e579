// SPDX-License-Identifier: MIT
// Cortex-M4 compile check (compiled to an object file only; never linked or run).
//
// Proves the library builds for a bare-metal MCU target with
//   arm-none-eabi-g++ -std=c++17 -mcpu=cortex-m4 -mthumb -Os -fno-exceptions -fno-rtti -Werror
// in two configurations (see tests/CMakeLists.txt):
//   MCU_CHECK_SINGLE_CORE_TRAITS=1  a traits struct: depth 64, single-core barriers, multi-producer
//   otherwise                       DefaultBusTraits, depth set through -DMCCC_QUEUE_DEPTH=64U
// The bus lives in static storage, as it would on an MCU without a heap.
#include <mccc/mccc.hpp>

#include <cstdint>
#include <variant>

namespace {

struct SensorSample {
  std::int16_t raw;
};
struct MotorCommand {
  std::int32_t speed;
};
using McuPayload = std::variant<SensorSample, MotorCommand>;

#if defined(MCU_CHECK_SINGLE_CORE_TRAITS)
struct McuTraits : mccc::DefaultBusTraits {
  static constexpr std::uint32_t kQueueDepth = 64U;
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;  // this check targets one core
  static constexpr bool kSingleProducer = false;
};
using McuBus = mccc::AsyncBus<McuPayload, McuTraits>;
#else
using McuBus = mccc::AsyncBus<McuPayload>;
#endif

McuBus g_bus;
volatile std::int32_t g_last_speed = 0;

}  // namespace

// External linkage so the compiler must emit the whole publish/dispatch path.
extern "C" std::uint32_t mcu_check_run(std::int32_t speed) {
  const mccc::SubscriptionHandle handle =
      g_bus.Subscribe<MotorCommand>([](const MotorCommand& command, const mccc::MessageHeader&) {
        g_last_speed = command.speed;
      });
  static_cast<void>(handle);
  if (!g_bus.Publish(MotorCommand{speed}, 1U)) {
    return 0U;
  }
  static_cast<void>(g_bus.Publish(SensorSample{42}, 2U));
  return g_bus.ProcessBatch();
}
