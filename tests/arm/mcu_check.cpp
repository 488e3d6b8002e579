// SPDX-License-Identifier: MIT
// Cortex-M4 compile check (compiled to an object file only; never linked or run).
//
// Proves the library builds for a bare-metal MCU target with
//   arm-none-eabi-g++ -std=c++17 -mcpu=cortex-m4 -mthumb -Os -fno-exceptions -fno-rtti -Werror
// in two configurations (see tests/CMakeLists.txt):
//   MCU_CHECK_SINGLE_CORE_TRAITS=1  a traits struct: depth 64, single-core barriers, multi-producer
//   otherwise                       DefaultBusTraits, depth set through -DMCCC_QUEUE_DEPTH=64U
// The bus lives in static storage, as it would on an MCU without a heap; so does a second bus
// that carries a large message by loan (its pool of blocks is a member of the bus), whose loan,
// publish, dispatch, retain and release paths are emitted too.
// G-37: the library builds for Cortex-M4 with -fno-exceptions -fno-rtti -Werror
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
using McuTraits = mccc::DefaultBusTraits;
#endif

McuBus g_bus;
volatile std::int32_t g_last_speed = 0;

/// Too large for a ring slot: travels by loan.
struct RangeScan {
  std::uint32_t sequence;
  std::uint16_t ranges[256];
};
struct LoanTraits : McuTraits {
  using LoanPools = mccc::LoanPools<mccc::PoolOf<RangeScan, 4U>>;
};
using LoanBus = mccc::AsyncBus<std::variant<MotorCommand, mccc::Loaned<RangeScan>>, LoanTraits>;

LoanBus g_loan_bus;
mccc::Retained<RangeScan> g_kept_scan;
volatile std::uint32_t g_scan_sum = 0U;

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

// The loan paths: Loan (pool admission by priority), fill in place, Publish, dispatch to a
// subscriber that retains the scan, release of the retained handle, statistics.
extern "C" std::uint32_t mcu_check_loans(std::uint32_t sequence) {
  const mccc::SubscriptionHandle handle =
      g_loan_bus.Subscribe<RangeScan>([](const RangeScan& scan, const mccc::MessageHeader&) {
        g_scan_sum = scan.sequence + scan.ranges[0];
        g_kept_scan = g_loan_bus.Retain(scan);
      });
  static_cast<void>(handle);
  mccc::MessageLoan<RangeScan> loan = g_loan_bus.Loan<RangeScan>(mccc::MessagePriority::kHigh);
  if (!loan) {
    return 0U;
  }
  loan->sequence = sequence;
  for (std::uint16_t& range : loan->ranges) {
    range = static_cast<std::uint16_t>(sequence);
  }
  if (!g_loan_bus.Publish(std::move(loan), 3U)) {
    return 0U;
  }
  const std::uint32_t processed = g_loan_bus.ProcessBatch();
  g_kept_scan.Reset();
  return processed + g_loan_bus.GetLoanStatistics<RangeScan>().in_use;
}
