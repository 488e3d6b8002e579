// SPDX-License-Identifier: MIT
// The footprint application (scripts/footprint.sh sizes it): the smallest useful mccc program
// on a Cortex-M4F, and the same program without mccc, so that the difference of the two images
// is mccc's own share of flash and RAM.
//
// Both variants: a SysTick interrupt produces a SensorSample per tick; the main loop turns each
// sample into a MotorCommand and handles that too (two message types, one interrupt producer),
// for kTicks ticks, then exits 0 if the checksum of what it handled is the expected one.
//   FOOTPRINT_WITH_MCCC=1  the hand-over is an mccc bus of FOOTPRINT_SLOTS slots
//                          (FootprintBus::Instance()): the interrupt publishes, main() publishes
//                          the command and consumes both with a visitor (ProcessBatchWith).
//   FOOTPRINT_WITH_MCCC=0  the hand-over is a one-slot mailbox (a flag and a copy), the least
//                          an interrupt-to-main program needs; the command is handled directly.
// Built -Os, without assertions or test hooks (what a product image would use).
#if FOOTPRINT_WITH_MCCC
#include <mccc/mccc.hpp>

#include <cstddef>
#include <variant>
#endif

#include <cstdint>

#include "platform/cortex_m.hpp"
#include "platform/systick.hpp"

namespace {

struct SensorSample {
  std::uint16_t channel;
  std::int16_t value;
  std::uint32_t tick;
};
struct MotorCommand {
  std::int32_t speed;
  std::uint32_t tick;
};

constexpr std::uint32_t kTicks = 100U;
constexpr std::uint32_t kPeriodCycles = 2500U;

std::int16_t Convert(std::uint32_t tick) noexcept {
  return static_cast<std::int16_t>(static_cast<std::int32_t>(tick % 50U) * 20 - 500);
}

std::int32_t Control(const SensorSample& sample) noexcept {
  return -2 * sample.value;
}

/// The checksum main() must reach: every sample and every command handled exactly once.
constexpr std::uint32_t ExpectedChecksum() noexcept {
  std::uint32_t sum = 0U;
  for (std::uint32_t tick = 0U; tick < kTicks; ++tick) {
    const auto value = static_cast<std::int32_t>(tick % 50U) * 20 - 500;
    sum += static_cast<std::uint32_t>(value) + tick;       // the sample
    sum += static_cast<std::uint32_t>(-2 * value) ^ tick;  // the command
  }
  return sum;
}

volatile std::uint32_t g_checksum = 0U;

void Handle(const SensorSample& sample) noexcept {
  g_checksum = g_checksum + static_cast<std::uint32_t>(sample.value) + sample.tick;
}

void Handle(const MotorCommand& command) noexcept {
  g_checksum = g_checksum + (static_cast<std::uint32_t>(command.speed) ^ command.tick);
}

volatile std::uint32_t g_produced = 0U;

#if FOOTPRINT_WITH_MCCC
// ---------------------------------------------------------------------------------------------
// With mccc
// ---------------------------------------------------------------------------------------------
using Payload = std::variant<SensorSample, MotorCommand>;

/// The traits docs/porting.md suggests for one core; everything
/// else is the bare-metal default (compact envelopes, NullClock, PRIMASK). The application
/// dispatches with a visitor, so one subscriber per type is the table it needs.
/// FOOTPRINT_HIGH_SLOTS: the HIGH ring (the bare-metal default is 16 slots; 0 = none).
template <std::uint32_t kSlots>
struct FootprintTraits : mccc::DefaultBusTraits {
  static constexpr std::uint32_t kQueueDepth = kSlots;
  static constexpr std::uint32_t kHighQueueDepth = FOOTPRINT_HIGH_SLOTS;
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;  // one core, an interrupt producer
  static constexpr std::uint32_t kMaxCallbacksPerType = 1U;
  static constexpr std::uint32_t kCallbackStorageBytes = 16U;
};
template <std::uint32_t kSlots>
using BusOf = mccc::AsyncBus<Payload, FootprintTraits<kSlots>>;
using FootprintBus = BusOf<FOOTPRINT_SLOTS>;

/// The bus in static storage, built on the first call (no destructor registration).
FootprintBus& Bus() noexcept {
  return FootprintBus::Instance();
}

void OnTick() noexcept {
  const std::uint32_t tick = g_produced;
  if (tick < kTicks && Bus().Publish(SensorSample{0U, Convert(tick), tick}, 1U)) {
    g_produced = tick + 1U;
  }
}

std::uint32_t RunConsumer() noexcept {
  FootprintBus& bus = Bus();
  std::uint32_t handled = 0U;
  const auto visitor = mccc::make_overloaded(
      [&handled, &bus](const SensorSample& sample) noexcept {
        Handle(sample);
        ++handled;
        static_cast<void>(bus.Publish(MotorCommand{Control(sample), sample.tick}, 2U));
      },
      [&handled](const MotorCommand& command) noexcept {
        Handle(command);
        ++handled;
      });
  while (handled < 2U * kTicks) {
    if (bus.ProcessBatchWith(visitor) == 0U) {
      mcu::WaitForInterrupt();
    }
  }
  return handled;
}

// The sizes scripts/footprint.sh reports, in a section that is not part of the image (no
// flash, no RAM): the bus, one slot as the bus reports it (SlotBytes()) and as measured (the
// growth of the bus per added slot), the ring and HIGH-lane slot counts, the stored envelope.
constexpr std::size_t kMeasuredSlotBytes =
    (sizeof(BusOf<2U * FOOTPRINT_SLOTS>) - sizeof(FootprintBus)) / FOOTPRINT_SLOTS;
static_assert(sizeof(BusOf<2U * FOOTPRINT_SLOTS>) - sizeof(FootprintBus) ==
                  kMeasuredSlotBytes * FOOTPRINT_SLOTS,
              "the bus must grow by a whole number of bytes per slot");

#else
// ---------------------------------------------------------------------------------------------
// Without mccc: a one-slot mailbox
// ---------------------------------------------------------------------------------------------
volatile bool g_mailbox_full = false;
SensorSample g_mailbox{};

void OnTick() noexcept {
  const std::uint32_t tick = g_produced;
  if (tick < kTicks && !g_mailbox_full) {
    g_mailbox = SensorSample{0U, Convert(tick), tick};
    g_mailbox_full = true;
    g_produced = tick + 1U;
  }
}

std::uint32_t RunConsumer() noexcept {
  std::uint32_t handled = 0U;
  while (handled < 2U * kTicks) {
    if (!g_mailbox_full) {
      mcu::WaitForInterrupt();
      continue;
    }
    const SensorSample sample = g_mailbox;
    g_mailbox_full = false;
    Handle(sample);
    Handle(MotorCommand{Control(sample), sample.tick});
    handled += 2U;
  }
  return handled;
}
#endif

}  // namespace

#if FOOTPRINT_WITH_MCCC
/// Emits the sizes into the non-allocated section .footprint_facts (read back with objcopy).
/// Never called; the linker drops its code, not the section.
extern "C" __attribute__((used)) void mccc_footprint_facts() {
  asm volatile(
      ".pushsection .footprint_facts,\"\",%%progbits\n\t"
      ".word %c0, %c1, %c2, %c3, %c4, %c5\n\t"
      ".popsection" ::"i"(sizeof(FootprintBus)),
      "i"(FootprintBus::SlotBytes()), "i"(kMeasuredSlotBytes), "i"(FootprintBus::kQueueDepth),
      "i"(FootprintBus::kHighQueueDepth), "i"(sizeof(FootprintBus::StoredEnvelope)));
}
#endif

int main() {
  mcu::systick::SetHook(&OnTick);
  mcu::systick::Start(kPeriodCycles);
  const std::uint32_t handled = RunConsumer();
  mcu::systick::Stop();
  return handled == 2U * kTicks && g_checksum == ExpectedChecksum() ? 0 : 1;
}
