// SPDX-License-Identifier: MIT
// fan_out_demo: one lidar, three consumers, each on its own thread. A mccc::Domain copies every
// scan into the queue of each subscribed consumer: a safety monitor, a perception stage and a
// logger whose callback takes 5 ms (a slow disk). On a single bus the logger would delay the
// safety monitor by up to 5 ms per scan; here the logger only falls behind (its own queue fills
// and refuses, counted in its own statistics) while the safety monitor keeps its latency.
//
// Expected output (latencies vary with the machine):
//   safety monitor: 400 of 400 scans, latency P50 <n> us, P99 <n> us
//   perception: 400 of 400 scans
//   logger: <n> scans, <n> refused (its queue), latency P50 <n> us
//   fan_out_demo: OK
#include <mccc/mccc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

namespace {

struct Scan {
  uint32_t seq;
  float nearest_m;
};
struct Heartbeat {
  uint32_t seq;
};
using Payload = std::variant<Scan, Heartbeat>;

// Consumers are listed highest priority first; each has a queue of its own.
struct SafetyTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 1024U;
};
struct PerceptionTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 1024U;
};
struct LoggerTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;  // a small queue: the slow logger refuses
};
using Lidar = mccc::Domain<Payload, SafetyTraits, PerceptionTraits, LoggerTraits>;
using Clock = SafetyTraits::Clock;  // every consumer's; the headers carry its microseconds

constexpr uint32_t kScans = 400U;
constexpr uint32_t kLidarId = 1U;

/// Latencies of one consumer, in microseconds (from the publish to its callback).
class Latencies {
 public:
  void Add(uint64_t published_us) {
    const uint64_t now = Clock::NowUs();
    std::lock_guard<std::mutex> lock(mutex_);
    samples_.push_back(now >= published_us ? now - published_us : 0U);
  }
  std::size_t Count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return samples_.size();
  }
  uint64_t Percentile(double p) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (samples_.empty()) {
      return 0U;
    }
    std::vector<uint64_t> sorted = samples_;
    std::sort(sorted.begin(), sorted.end());
    const auto index = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1U));
    return sorted[index];
  }

 private:
  std::mutex mutex_;
  std::vector<uint64_t> samples_;
};

}  // namespace

int main() {
  auto lidar = std::make_unique<Lidar>();
  Latencies safety;
  Latencies perception;
  Latencies logger;
  lidar->Consumer<0>().Subscribe<Scan>(
      [&safety](const Scan&, const mccc::MessageHeader& h) { safety.Add(h.timestamp_us); });
  lidar->Consumer<1>().Subscribe<Scan>(
      [&perception](const Scan&, const mccc::MessageHeader& h) { perception.Add(h.timestamp_us); });
  lidar->Consumer<2>().Subscribe<Scan>([&logger](const Scan&, const mccc::MessageHeader& h) {
    logger.Add(h.timestamp_us);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the slow disk
  });

  mccc::ActiveObjectOptions options;
  options.idle_strategy = mccc::IdleStrategy::SpinThenYieldThenSleep();
  mccc::ActiveObject<Lidar::ConsumerBus<0>> safety_thread(lidar->Consumer<0>(), options);
  mccc::ActiveObject<Lidar::ConsumerBus<1>> perception_thread(lidar->Consumer<1>(), options);
  mccc::ActiveObject<Lidar::ConsumerBus<2>> logger_thread(lidar->Consumer<2>(), options);
  if (safety_thread.Start().status != mccc::StartStatus::kStarted ||
      perception_thread.Start().status != mccc::StartStatus::kStarted ||
      logger_thread.Start().status != mccc::StartStatus::kStarted) {
    std::printf("fan_out_demo: FAILED to start the consumer threads\n");
    return 1;
  }

  // The lidar: a scan every 500 us. A scan is published when every subscribed consumer took it;
  // otherwise the result names who refused (here only ever the logger).
  uint32_t refused_by_logger = 0U;
  bool others_refused = false;
  for (uint32_t seq = 0U; seq < kScans; ++seq) {
    const mccc::FanOutResult result = lidar->Publish(Scan{seq, 4.5F}, kLidarId);
    refused_by_logger += result.AdmittedBy(2U) ? 0U : 1U;
    others_refused = others_refused || !result.AdmittedBy(0U) || !result.AdmittedBy(1U);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  safety_thread.Stop();
  perception_thread.Stop();
  logger_thread.Stop();

  const auto logger_stats = lidar->Consumer<2>().GetStatistics();
  std::printf("safety monitor: %zu of %u scans, latency P50 %llu us, P99 %llu us\n", safety.Count(),
              kScans, static_cast<unsigned long long>(safety.Percentile(0.5)),
              static_cast<unsigned long long>(safety.Percentile(0.99)));
  std::printf("perception: %zu of %u scans\n", perception.Count(), kScans);
  std::printf("logger: %zu scans, %llu refused (its queue), latency P50 %llu us\n", logger.Count(),
              static_cast<unsigned long long>(logger_stats.messages_dropped),
              static_cast<unsigned long long>(logger.Percentile(0.5)));
  const bool ok = safety.Count() == kScans && perception.Count() == kScans && !others_refused &&
                  logger.Count() + refused_by_logger == kScans &&
                  logger_stats.messages_dropped == refused_by_logger;
  std::printf("fan_out_demo: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
