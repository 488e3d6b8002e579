// SPDX-License-Identifier: MIT
// priority_demo: priorities under overload. A burst of 150,000 messages hits the default
// 131,072-slot bus while nobody consumes: telemetry alternating MEDIUM / LOW, with a HIGH alarm
// every 300 messages. As the queue fills, LOW is refused first (at 60% occupancy), then MEDIUM
// (at 80%). HIGH travels in a ring of its own (the HIGH ring, 1,024 slots): the telemetry flood
// never refuses an alarm, and when the consumer catches up every alarm is dispatched before the
// queued telemetry.
//
// The outcome is exact (one thread, no consumer during the burst):
//   HIGH     500 sent,   500 admitted,     0 dropped
//   MEDIUM 75000 sent, 65668 admitted,  9332 dropped
//   LOW    74500 sent, 39190 admitted, 35310 dropped
// Expected output ends with: priority_demo: OK admitted=105358 dropped=44642 delivered=105358
#include <mccc/mccc.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <variant>

namespace {

struct Telemetry {
  uint32_t sequence;
};
struct Alarm {
  uint32_t sequence;
};
using Payload = std::variant<Telemetry, Alarm>;
using Bus = mccc::AsyncBus<Payload>;  // default traits: 131,072 slots

constexpr uint32_t kBurst = 150000U;
constexpr uint32_t kAlarmEvery = 300U;

// i % 300 == 0: HIGH (an alarm); otherwise odd i: MEDIUM, even i: LOW (telemetry).
mccc::MessagePriority PriorityOf(uint32_t i) {
  if (i % kAlarmEvery == 0U) return mccc::MessagePriority::kHigh;
  if (i % 2U == 1U) return mccc::MessagePriority::kMedium;
  return mccc::MessagePriority::kLow;
}

const char* NameOf(std::size_t priority) {
  static const char* const kNames[mccc::kPriorityCount] = {"LOW", "MEDIUM", "HIGH"};
  return kNames[priority];
}

const char* LevelName(mccc::BackpressureLevel level) {
  switch (level) {
    case mccc::BackpressureLevel::kNormal:
      return "kNormal";
    case mccc::BackpressureLevel::kWarning:
      return "kWarning";
    case mccc::BackpressureLevel::kCritical:
      return "kCritical";
    case mccc::BackpressureLevel::kFull:
      return "kFull";
  }
  return "?";
}

}  // namespace

int main() {
  auto bus = std::make_unique<Bus>();  // about 5 MB: the ring is inside the bus object

  // Delivery order, checked as it happens: alarms first, then telemetry, each in publish order.
  uint64_t delivered = 0U;
  uint64_t alarms = 0U;
  uint64_t telemetry = 0U;
  bool alarms_first = true;
  bool in_publish_order = true;
  uint32_t last_alarm = 0U;
  uint32_t last_telemetry = 0U;
  bus->Subscribe<Telemetry>([&](const Telemetry& t) {
    in_publish_order = in_publish_order && (telemetry == 0U || t.sequence > last_telemetry);
    last_telemetry = t.sequence;
    ++telemetry;
    ++delivered;
  });
  bus->Subscribe<Alarm>([&](const Alarm& a) {
    alarms_first = alarms_first && telemetry == 0U;
    in_publish_order = in_publish_order && (alarms == 0U || a.sequence > last_alarm);
    last_alarm = a.sequence;
    ++alarms;
    ++delivered;
  });

  std::printf(
      "capacity %u slots; LOW and MEDIUM are admitted while fewer than this many are queued:\n"
      "  LOW %u (60%%), MEDIUM %u (80%%)\n"
      "HIGH has a ring of its own (%u slots): admitted until that ring is full, dispatched first\n",
      static_cast<unsigned>(Bus::Capacity()),
      static_cast<unsigned>(Bus::Admission::LimitFor(mccc::MessagePriority::kLow)),
      static_cast<unsigned>(Bus::Admission::LimitFor(mccc::MessagePriority::kMedium)),
      static_cast<unsigned>(Bus::kHighQueueDepth));

  // The burst: no consumer runs, so the queue only fills.
  uint32_t sent[mccc::kPriorityCount] = {};
  uint32_t admitted[mccc::kPriorityCount] = {};
  for (uint32_t i = 0U; i < kBurst; ++i) {
    const mccc::MessagePriority priority = PriorityOf(i);
    const auto index = static_cast<std::size_t>(priority);
    ++sent[index];
    const bool ok = (priority == mccc::MessagePriority::kHigh)
                        ? bus->PublishWithPriority(Alarm{i}, 1U, priority)
                        : bus->PublishWithPriority(Telemetry{i}, 2U, priority);
    if (ok) ++admitted[index];
  }
  std::printf("after the burst: occupancy %u (%u%%), backpressure %s\n",
              static_cast<unsigned>(bus->QueueOccupancy()),
              static_cast<unsigned>(bus->QueueUtilizationPercent()),
              LevelName(bus->GetBackpressureLevel()));

  std::printf("\n%-8s %8s %9s %8s\n", "priority", "sent", "admitted", "dropped");
  uint32_t total_admitted = 0U;
  uint32_t total_dropped = 0U;
  for (std::size_t k = mccc::kPriorityCount; k-- > 0U;) {  // HIGH first
    std::printf("%-8s %8u %9u %8u\n", NameOf(k), static_cast<unsigned>(sent[k]),
                static_cast<unsigned>(admitted[k]), static_cast<unsigned>(sent[k] - admitted[k]));
    total_admitted += admitted[k];
    total_dropped += sent[k] - admitted[k];
  }

  // The bus counted the same (statistics are exact, not sampled).
  const mccc::BusStatisticsSnapshot stats = bus->GetStatistics();
  const bool stats_agree = stats.high_priority_published == admitted[2] &&
                           stats.medium_priority_published == admitted[1] &&
                           stats.low_priority_published == admitted[0] &&
                           stats.high_priority_dropped == sent[2] - admitted[2] &&
                           stats.medium_priority_dropped == sent[1] - admitted[1] &&
                           stats.low_priority_dropped == sent[0] - admitted[0];
  std::printf("\nbus statistics agree with the table: %s\n", stats_agree ? "yes" : "NO");

  // Now the consumer catches up: everything admitted is delivered, the alarms first.
  while (bus->ProcessBatch() != 0U) {
  }
  const bool order_ok = alarms_first && in_publish_order && alarms == admitted[2];
  std::printf(
      "delivery: the %llu alarms first, then %llu telemetry messages, each in publish "
      "order: %s\n",
      static_cast<unsigned long long>(alarms), static_cast<unsigned long long>(telemetry),
      order_ok ? "yes" : "NO");

  const bool ok = stats_agree && order_ok && delivered == total_admitted &&
                  admitted[2] == sent[2] && total_admitted + total_dropped == kBurst;
  std::printf("priority_demo: %s admitted=%u dropped=%u delivered=%llu\n", ok ? "OK" : "FAILED",
              static_cast<unsigned>(total_admitted), static_cast<unsigned>(total_dropped),
              static_cast<unsigned long long>(delivered));
  return ok ? 0 : 1;
}
