// SPDX-License-Identifier: MIT
// simple_demo: the smallest complete use of the bus. Subscribe to message types, publish a few
// messages, then dispatch them on this (the consumer) thread with ProcessBatch().
//
// Expected output ends with: simple_demo: OK delivered=3
#include <mccc/mccc.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <variant>

namespace {

// Message types are plain structs; the bus payload is a std::variant of them.
struct TemperatureReading {
  float celsius;
};
struct MotorCommand {
  int32_t rpm;
};
using Payload = std::variant<TemperatureReading, MotorCommand>;

// A small queue is plenty here; the default (131072 slots) is sized for high-rate systems.
struct DemoTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 256U;
};
using Bus = mccc::AsyncBus<Payload, DemoTraits>;

constexpr uint32_t kSensorId = 1U;
constexpr uint32_t kControllerId = 2U;

}  // namespace

int main() {
  // The ring lives inside the bus object, so large buses belong on the heap or in static storage.
  auto bus = std::make_unique<Bus>();

  int delivered = 0;
  // A callback may take (const T&), (const T&, const MessageHeader&) or the whole envelope.
  const mccc::SubscriptionHandle temperature = bus->Subscribe<TemperatureReading>(
      [&delivered](const TemperatureReading& reading, const mccc::MessageHeader& header) {
        std::printf("  temperature %.1f C from sender %u (msg_id %llu)\n",
                    static_cast<double>(reading.celsius), static_cast<unsigned>(header.sender_id),
                    static_cast<unsigned long long>(header.msg_id));
        ++delivered;
      });
  const mccc::SubscriptionHandle motor =
      bus->Subscribe<MotorCommand>([&delivered](const MotorCommand& command) {
        std::printf("  motor command %d rpm\n", static_cast<int>(command.rpm));
        ++delivered;
      });
  if (!temperature.IsValid() || !motor.IsValid()) {
    std::printf("simple_demo: FAILED (subscription refused)\n");
    return 1;
  }

  // Publishing never blocks and never allocates; false means "not admitted" (queue too full).
  bool admitted = bus->Publish(TemperatureReading{21.5F}, kSensorId);
  admitted = bus->Publish(MotorCommand{1200}, kControllerId) && admitted;
  admitted = bus->PublishWithPriority(TemperatureReading{85.0F}, kSensorId,
                                      mccc::MessagePriority::kHigh) &&
             admitted;
  std::printf("published 3 messages, occupancy %u\n", static_cast<unsigned>(bus->QueueOccupancy()));

  // The consumer side: dispatch everything that is queued, in publish order.
  uint32_t processed = 0U;
  uint32_t batch = 0U;
  while ((batch = bus->ProcessBatch()) != 0U) {
    processed += batch;
  }

  const mccc::BusStatisticsSnapshot stats = bus->GetStatistics();
  std::printf("processed %u, published %llu, dropped %llu\n", static_cast<unsigned>(processed),
              static_cast<unsigned long long>(stats.messages_published),
              static_cast<unsigned long long>(stats.messages_dropped));

  bus->Unsubscribe(temperature);
  bus->Unsubscribe(motor);

  const bool ok = admitted && processed == 3U && delivered == 3;
  std::printf("simple_demo: %s delivered=%d\n", ok ? "OK" : "FAILED", delivered);
  return ok ? 0 : 1;
}
