// SPDX-License-Identifier: MIT
// The bare-metal suite: Subscribe, Unsubscribe, ResetStatistics and Publish from the SysTick
// handler while the main loop is inside the same calls.
#include <cstdint>
#include <type_traits>

#include "mcu_suite.hpp"
#include "mcu_suite_cases.hpp"
#include "platform/console.hpp"
#include "platform/systick.hpp"

namespace mcu_suite {

namespace {

// ---------------------------------------------------------------------------------------------
// Control calls from the interrupt: Subscribe, Unsubscribe and ResetStatistics in the SysTick
// handler while the main loop is inside the same calls (a spin lock would hang here; the
// critical section makes them safe)
// ---------------------------------------------------------------------------------------------
template <typename Bus>
struct ControlFromInterrupt {
  static inline Bus* bus = nullptr;
  static inline volatile bool main_in_control = false;
  static inline volatile std::uint32_t runs = 0U;
  static inline volatile std::uint32_t during_main_control = 0U;
  static inline volatile std::uint32_t subscribed = 0U;
  static inline volatile std::uint32_t refused = 0U;
  static inline volatile std::uint32_t unsubscribe_failed = 0U;
  static inline volatile std::uint32_t published = 0U;
  static inline volatile std::uint32_t delivered_to_interrupt_subscriber = 0U;

  static void Reset(Bus& target) noexcept {
    bus = &target;
    main_in_control = false;
    runs = 0U;
    during_main_control = 0U;
    subscribed = 0U;
    refused = 0U;
    unsubscribe_failed = 0U;
    published = 0U;
    delivered_to_interrupt_subscriber = 0U;
  }

  static void OnTick() noexcept {
    runs = runs + 1U;
    if (main_in_control) {
      during_main_control = during_main_control + 1U;
    }
    const mccc::SubscriptionHandle handle = bus->template Subscribe<Command>([](const Command&) {
      delivered_to_interrupt_subscriber = delivered_to_interrupt_subscriber + 1U;
    });
    if (!handle.IsValid()) {
      // Documented: entries removed inside the consumer's current batch stay reserved until it
      // ends, so a row can be full meanwhile.
      refused = refused + 1U;
    } else {
      subscribed = subscribed + 1U;
      if (!bus->Unsubscribe(handle)) {
        unsubscribe_failed = unsubscribe_failed + 1U;
      }
    }
    bus->ResetStatistics();
    if (bus->Publish(Command{static_cast<std::int32_t>(published)}, kIsrSender)) {
      published = published + 1U;
    }
  }
};

}  // namespace

// G-33: Subscribe, Unsubscribe, ResetStatistics and Publish from an interrupt that lands while
// the main loop is inside the same calls (Cortex-M under QEMU)
template <typename Config>
void ControlCallsFromTheInterrupt() {
  using Bus = typename Config::Bus;
  if constexpr (std::is_same_v<typename Bus::CriticalSection, mccc::NoCriticalSection>) {
    mcu::Print("  skipped: no critical section (the control calls take a spin lock)\n");
  } else {
    using Isr = ControlFromInterrupt<Bus>;
    FreshBus<Bus> fresh;
    Bus& bus = *fresh;
    Isr::Reset(bus);
    std::uint32_t commands_seen = 0U;
    std::int32_t next_value = 0;
    std::uint32_t out_of_order = 0U;
    const mccc::SubscriptionHandle counter = bus.template Subscribe<Command>([&](const Command& c) {
      out_of_order += c.value == next_value ? 0U : 1U;
      next_value = c.value + 1;
      ++commands_seen;
    });
    CHECK(counter.IsValid());

    // The main loop runs at least kMinRounds rounds and until kInsideControl interrupts have
    // landed inside its control calls. A fixed number of rounds is not enough without -icount:
    // the tick then follows the host's clock, and a host that holds QEMU back delivers the
    // missed ticks late and back to back, all at one point of the main loop.
    mcu::systick::SetHook(&Isr::OnTick);
    mcu::systick::Start(kTickPeriodCycles);
    constexpr std::uint32_t kMinRounds = 3000U;
    constexpr std::uint32_t kInsideControl = 100U;
    constexpr std::uint32_t kRoundBound = 2000000U;  // a stuck interrupt fails, not hangs
    std::uint32_t rounds = 0U;
    std::uint32_t main_failures = 0U;
    while ((rounds < kMinRounds || Isr::during_main_control < kInsideControl) &&
           rounds < kRoundBound) {
      ++rounds;
      Isr::main_in_control = true;
      const mccc::SubscriptionHandle handle = bus.template Subscribe<Status>([](const Status&) {});
      const bool removed = handle.IsValid() && bus.Unsubscribe(handle);
      bus.ResetStatistics();
      Isr::main_in_control = false;
      main_failures += removed ? 0U : 1U;
      while (bus.ProcessBatch() != 0U) {
      }
    }
    mcu::systick::Stop();
    mcu::systick::SetHook(nullptr);
    while (bus.ProcessBatch() != 0U) {
    }

    CHECK(rounds < kRoundBound);
    CHECK(Isr::during_main_control >= kInsideControl);  // it really cut into the control calls
    CHECK(Isr::subscribed > 0U);
    CHECK_EQ(Isr::unsubscribe_failed, 0U);
    CHECK_EQ(main_failures, 0U);  // the main loop's own calls always succeed (outside a batch)
    CHECK_EQ(commands_seen, Isr::published);
    CHECK_EQ(out_of_order, 0U);
    CHECK_EQ(Isr::delivered_to_interrupt_subscriber, 0U);  // removed before any dispatch
    // Every removed entry was reclaimed: only the counter is live and the row is usable again.
    CHECK_EQ(bus.template SubscriberCount<Command>(), 1U);
    CHECK_EQ(bus.template SubscriberCount<Status>(), 0U);
    CHECK(bus.Unsubscribe(counter));

    mcu::Print("  interrupts ");
    mcu::PrintUnsigned(Isr::runs);
    mcu::Print(" (");
    mcu::PrintUnsigned(Isr::during_main_control);
    mcu::Print(" inside a main control call), subscribed ");
    mcu::PrintUnsigned(Isr::subscribed);
    mcu::Print(", refused ");
    mcu::PrintUnsigned(Isr::refused);
    mcu::Print(", published ");
    mcu::PrintUnsigned(Isr::published);
    mcu::Print("\n");
  }
}

MCU_SUITE_INSTANTIATE_CASE(ControlCallsFromTheInterrupt);

}  // namespace mcu_suite
