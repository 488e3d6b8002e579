// SPDX-License-Identifier: MIT
// mccc without an operating system: a sensor interrupt publishes, the main loop consumes.
//
// On one Cortex-M4F core (QEMU mps2-an386 in CI):
// - SysTick interrupts at 10 kHz. Its handler samples a three-channel ADC (simulated here) and
//   publishes the three readings with one PublishBatch call, plus an OverTemperature alarm at
//   HIGH priority when channel 2 rises above its limit. Whatever the bus refuses (queue full) is
//   kept and published first at the next tick: no reading is lost.
// - main() consumes with ProcessBatchWith and a visitor (no callback table, no indirect call),
//   keeps per-channel statistics, and sleeps (WFI) while the queue is empty.
// - The bus is SensorBus::Instance(): built in static storage on the first call, never
//   destroyed (no heap, no destructor registration), with single-core traits (the producers are
//   interrupt handlers of the one core; the PRIMASK critical section is the Cortex-M default),
//   compact envelopes (the bare-metal default) and the SysTick clock for timestamps.
// The start-up code, the linker script, mcu::Print (semihosting, for the emulator) and the
// SysTick driver come from tests/mcu/platform/. On a board, read the real ADC and print through
// a UART instead.
#include <mccc/mccc.hpp>

#include <cstdint>
#include <variant>

#include "platform/console.hpp"
#include "platform/cortex_m.hpp"
#include "platform/systick.hpp"

namespace {

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------
struct Reading {
  std::uint8_t channel;
  std::uint8_t spare;
  std::int16_t millivolts;
  std::uint32_t sample;  // tick number of the conversion
};
struct OverTemperature {
  std::int16_t millivolts;
  std::uint32_t sample;
};
using SensorPayload = std::variant<Reading, OverTemperature>;

// ---------------------------------------------------------------------------------------------
// The bus: one core, producers in interrupt handlers
// ---------------------------------------------------------------------------------------------
struct SensorBusTraits : mccc::DefaultBusTraits {
  static constexpr std::uint32_t kQueueDepth = 64U;
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;  // a single Cortex-M core
  static constexpr std::uint32_t kMaxCallbacksPerType = 1U;    // main() uses a visitor
  static constexpr std::uint32_t kCallbackStorageBytes = 16U;
  using Clock = mcu::SysTickClock;
};
using SensorBus = mccc::AsyncBus<SensorPayload, SensorBusTraits>;

SensorBus& Bus() noexcept {
  return SensorBus::Instance();
}

constexpr std::uint32_t kSensorId = 1U;
constexpr std::uint32_t kChannels = 3U;
constexpr std::uint32_t kSamples = 200U;           // conversions per channel
constexpr std::uint32_t kSampleRateHz = 10000U;    // one conversion of every channel per tick
constexpr std::int16_t kOverTemperatureMv = 3000;  // channel 2 is the temperature sensor

/// The simulated ADC: each channel a triangle wave around its own level.
std::int16_t ConvertMillivolts(std::uint32_t channel, std::uint32_t sample) noexcept {
  constexpr std::int32_t kLevel[kChannels] = {1200, 2000, 2800};
  constexpr std::int32_t kSwing[kChannels] = {100, 250, 300};
  constexpr std::uint32_t kPeriod[kChannels] = {20U, 50U, 40U};
  const std::uint32_t period = kPeriod[channel];
  const std::uint32_t half = period / 2U;
  const std::uint32_t phase = sample % period;
  const auto rise = static_cast<std::int32_t>(phase < half ? phase : period - phase);
  const std::int32_t offset = kSwing[channel] * (2 * rise - static_cast<std::int32_t>(half)) /
                              static_cast<std::int32_t>(half);
  return static_cast<std::int16_t>(kLevel[channel] + offset);
}

// ---------------------------------------------------------------------------------------------
// The sensor interrupt (SysTick handler hook). Only it writes these.
// ---------------------------------------------------------------------------------------------
Reading g_unsent[kChannels];  // readings of the current tick the bus has not admitted yet
std::uint32_t g_unsent_first = 0U;
std::uint32_t g_unsent_count = 0U;
OverTemperature g_alarm{};
bool g_alarm_unsent = false;
std::uint32_t g_next_sample = 0U;
std::int16_t g_previous_temperature = 0;

void OnSensorTick() noexcept {
  if (g_unsent_count == 0U && g_next_sample < kSamples) {
    const std::uint32_t sample = g_next_sample++;
    for (std::uint32_t channel = 0U; channel < kChannels; ++channel) {
      g_unsent[channel] = Reading{static_cast<std::uint8_t>(channel), 0U,
                                  ConvertMillivolts(channel, sample), sample};
    }
    g_unsent_first = 0U;
    g_unsent_count = kChannels;
    const std::int16_t temperature = g_unsent[2].millivolts;
    if (sample > 0U && g_previous_temperature <= kOverTemperatureMv &&
        temperature > kOverTemperatureMv) {
      g_alarm = OverTemperature{temperature, sample};
      g_alarm_unsent = true;
    }
    g_previous_temperature = temperature;
  }
  if (g_alarm_unsent) {
    g_alarm_unsent = !Bus().PublishWithPriority(g_alarm, kSensorId, mccc::MessagePriority::kHigh);
  }
  if (g_unsent_count != 0U) {
    // One claim for the three readings; a refused tail waits for the next tick.
    const std::uint32_t admitted =
        Bus().PublishBatch(&g_unsent[g_unsent_first], g_unsent_count, kSensorId);
    g_unsent_first += admitted;
    g_unsent_count -= admitted;
  }
}

// ---------------------------------------------------------------------------------------------
// The consumer's bookkeeping
// ---------------------------------------------------------------------------------------------
struct ChannelSummary {
  std::uint32_t readings = 0U;
  std::int32_t min_mv = 0;
  std::int32_t max_mv = 0;
  std::int64_t sum_mv = 0;
  std::uint32_t next_sample = 0U;
  std::uint32_t out_of_order = 0U;
  std::uint64_t last_timestamp_us = 0U;
  std::uint32_t time_went_back = 0U;

  void Add(const Reading& reading, std::uint64_t timestamp_us) noexcept {
    if (readings == 0U || reading.millivolts < min_mv) {
      min_mv = reading.millivolts;
    }
    if (readings == 0U || reading.millivolts > max_mv) {
      max_mv = reading.millivolts;
    }
    sum_mv += reading.millivolts;
    ++readings;
    out_of_order += reading.sample == next_sample ? 0U : 1U;
    next_sample = reading.sample + 1U;
    time_went_back += timestamp_us < last_timestamp_us ? 1U : 0U;
    last_timestamp_us = timestamp_us;
  }
};

void PrintChannel(std::uint32_t channel, const ChannelSummary& s) noexcept {
  mcu::Print("channel ");
  mcu::PrintUnsigned(channel);
  mcu::Print(": ");
  mcu::PrintUnsigned(s.readings);
  mcu::Print(" readings, min ");
  mcu::PrintSigned(s.min_mv);
  mcu::Print(" mV, max ");
  mcu::PrintSigned(s.max_mv);
  mcu::Print(" mV, mean ");
  mcu::PrintSigned(s.readings == 0U ? 0 : s.sum_mv / static_cast<std::int64_t>(s.readings));
  mcu::Print(" mV, ");
  mcu::Print(s.out_of_order == 0U ? "in order" : "OUT OF ORDER");
  mcu::Print("\n");
}

}  // namespace

int main() {
  ChannelSummary channels[kChannels];
  std::uint32_t alarms = 0U;
  std::uint32_t first_alarm_sample = 0U;
  std::uint32_t received = 0U;
  const auto visitor = mccc::make_overloaded(
      [&](const Reading& reading, const mccc::MessageHeader& header) noexcept {
        channels[reading.channel % kChannels].Add(reading, header.timestamp_us);
        ++received;
      },
      [&](const OverTemperature& alarm) noexcept {
        if (alarms == 0U) {
          first_alarm_sample = alarm.sample;
        }
        ++alarms;
      });

  // The first Instance() call builds the bus (interrupts masked meanwhile): before the
  // interrupt that publishes is started.
  SensorBus& bus = Bus();
  mcu::systick::SetHook(&OnSensorTick);
  mcu::systick::Start(MCU_CORE_CLOCK_HZ / kSampleRateHz);
  while (received < kChannels * kSamples) {
    if (bus.ProcessBatchWith(visitor) == 0U) {
      // Nothing queued: sleep until the next interrupt (at the latest the next tick).
      mcu::WaitForInterrupt();
    }
  }
  mcu::systick::Stop();
  mcu::systick::SetHook(nullptr);
  static_cast<void>(bus.ProcessBatchWith(visitor));

  mcu::Print("mccc bare-metal sensor demo: 3 channels sampled by the SysTick interrupt\n");
  bool timestamps_ok = true;
  for (std::uint32_t channel = 0U; channel < kChannels; ++channel) {
    PrintChannel(channel, channels[channel]);
    timestamps_ok = timestamps_ok && channels[channel].time_went_back == 0U;
  }
  mcu::Print("over-temperature alarms: ");
  mcu::PrintUnsigned(alarms);
  mcu::Print(" (first at sample ");
  mcu::PrintUnsigned(first_alarm_sample);
  mcu::Print(")\ntimestamps: ");
  mcu::Print(timestamps_ok ? "never decreasing" : "DECREASING");
  const mccc::BusStatisticsSnapshot stats = bus.GetStatistics();
  mcu::Print("\nbus: ");
  mcu::PrintUnsigned(stats.messages_published);
  mcu::Print(" published (");
  mcu::PrintUnsigned(stats.high_priority_published);
  mcu::Print(" HIGH), ");
  mcu::PrintUnsigned(stats.messages_processed);
  mcu::Print(" processed, ");
  mcu::PrintUnsigned(bus.QueueOccupancy());
  mcu::Print(" queued\n");
  return timestamps_ok && stats.messages_processed == stats.messages_published ? 0 : 1;
}
