// SPDX-License-Identifier: MIT
// lidar_batch_demo: a sensor driver that publishes whole scans with PublishBatch, next to a
// safety monitor that publishes single HIGH alerts, on a deliberately small queue.
//
// - The lidar thread produces 200 scans of 360 points and hands each scan to the bus in batches
//   of 64 points: one clock reading and one queue claim per call. When the queue is too full
//   for the whole batch, PublishBatch admits the prefix that fits and returns its length; the
//   driver keeps the rest and offers it again (here after a yield), so no point is lost.
// - The monitor thread publishes 50 obstacle alerts with HIGH priority. HIGH keeps the top of
//   the queue to itself (LOW is refused from 60 % occupancy, MEDIUM from 80 %, HIGH only at 99 %),
//   so alerts get in even while the lidar keeps the queue busy.
// - The consumer (this thread) checks that every point arrives once and in scan order, and every
//   alert once and in order.
// Expected output ends with: lidar_batch_demo: OK points=72000 alerts=50
#include <mccc/mccc.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

namespace {

struct LidarPoint {
  uint32_t scan;
  uint16_t index;  // 0..359, one per degree
  float range_m;
};
struct ObstacleAlert {
  uint32_t sequence;
  float distance_m;
};
using Payload = std::variant<LidarPoint, ObstacleAlert>;

struct SmallQueueTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 1024U;  // small on purpose: batches get cut short
};
using Bus = mccc::AsyncBus<Payload, SmallQueueTraits>;

constexpr uint32_t kScans = 200U;
constexpr uint32_t kPointsPerScan = 360U;
constexpr uint32_t kBatch = 64U;
constexpr uint32_t kAlerts = 50U;
constexpr uint32_t kLidarSender = 1U;
constexpr uint32_t kMonitorSender = 2U;

void RunLidar(Bus& bus, uint64_t& calls, uint64_t& cut_short) {
  std::vector<LidarPoint> scan(kPointsPerScan);
  for (uint32_t s = 0U; s < kScans; ++s) {
    for (uint32_t i = 0U; i < kPointsPerScan; ++i) {
      scan[i] = LidarPoint{s, static_cast<uint16_t>(i), 1.0F + static_cast<float>(i % 90U) * 0.1F};
    }
    uint32_t sent = 0U;
    while (sent < kPointsPerScan) {
      const uint32_t want = kPointsPerScan - sent < kBatch ? kPointsPerScan - sent : kBatch;
      const uint32_t admitted =
          bus.PublishBatch(scan.data() + sent, want, kLidarSender, mccc::MessagePriority::kMedium);
      ++calls;
      sent += admitted;
      if (admitted < want) {
        ++cut_short;
        std::this_thread::yield();  // let the consumer make room, then offer the rest again
      }
    }
  }
}

void RunMonitor(Bus& bus) {
  for (uint32_t a = 0U; a < kAlerts; ++a) {
    const ObstacleAlert alert{a, 0.5F};
    while (!bus.PublishWithPriority(alert, kMonitorSender, mccc::MessagePriority::kHigh)) {
      std::this_thread::yield();  // only when the queue is at 99 %
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

int main() {
  auto bus = std::make_unique<Bus>();

  uint64_t points = 0U;
  uint64_t alerts = 0U;
  uint64_t errors = 0U;
  uint32_t expected_scan = 0U;
  uint32_t expected_index = 0U;
  bus->Subscribe<LidarPoint>([&](const LidarPoint& p) {
    if (p.scan != expected_scan || p.index != expected_index) {
      ++errors;  // lost, duplicated or reordered
    }
    ++points;
    expected_index = static_cast<uint32_t>(p.index) + 1U;
    if (expected_index == kPointsPerScan) {
      expected_index = 0U;
      ++expected_scan;
    }
  });
  bus->Subscribe<ObstacleAlert>([&](const ObstacleAlert& a) {
    if (a.sequence != alerts) {
      ++errors;
    }
    ++alerts;
  });

  uint64_t calls = 0U;
  uint64_t cut_short = 0U;
  std::thread lidar([&] { RunLidar(*bus, calls, cut_short); });
  std::thread monitor([&] { RunMonitor(*bus); });

  const uint64_t total = static_cast<uint64_t>(kScans) * kPointsPerScan + kAlerts;
  while (points + alerts < total) {
    if (bus->ProcessBatch() == 0U) {
      bus->WaitForMessages(1000U);
    }
  }
  lidar.join();
  monitor.join();

  const mccc::BusStatisticsSnapshot stats = bus->GetStatistics();
  std::printf("lidar: %llu PublishBatch calls, %llu cut short by a full queue (retried)\n",
              static_cast<unsigned long long>(calls), static_cast<unsigned long long>(cut_short));
  std::printf("bus: published %llu, dropped %llu (the refused tails, all offered again)\n",
              static_cast<unsigned long long>(stats.messages_published),
              static_cast<unsigned long long>(stats.messages_dropped));
  const bool ok = errors == 0U && points == static_cast<uint64_t>(kScans) * kPointsPerScan &&
                  alerts == kAlerts && stats.messages_published == total;
  std::printf("lidar_batch_demo: %s points=%llu alerts=%llu\n", ok ? "OK" : "FAILED",
              static_cast<unsigned long long>(points), static_cast<unsigned long long>(alerts));
  return ok ? 0 : 1;
}
