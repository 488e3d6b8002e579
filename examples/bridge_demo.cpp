// SPDX-License-Identifier: MIT
// bridge_demo: two processes joined by the ZeroMQ bridge. A sensor process publishes telemetry
// (LOW), lidar scans (MEDIUM, a FixedVector member sent through a codec) and, once, an emergency
// stop (HIGH) on its own bus; an exporter carries them to a controller process, whose importer
// publishes them on the controller's bus with their original priority, sender and timestamp.
// The emergency stop travels on the HIGH channel and always gets through. Both print the bridge
// statistics at the end.
//
// Run without arguments: the program starts the controller and the sensor (fork + exec of
// itself with "controller" / "sensor") and checks that the stop arrived exactly once.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <variant>

#include "mccc/bridge/bridge.hpp"
#include "mccc/mccc.hpp"

namespace demo {

struct Telemetry {  // float members: its fields are declared below
  uint32_t sample;
  float temperature_c;
  float speed_mps;
};

struct LidarScan {  // not trivially copyable (FixedVector): needs the codec below
  uint32_t scan;
  mccc::FixedVector<float, 32> ranges_m;
};

struct EmergencyStop {
  uint32_t reason;
};

using Payload = std::variant<Telemetry, LidarScan, EmergencyStop>;
struct DemoBusTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 4096U;
  using Clock = mccc::SteadyClock;  // one time line for both processes
};
using Bus = mccc::AsyncBus<Payload, DemoBusTraits>;
using Selection = mccc::bridge::Types<Telemetry, LidarScan, EmergencyStop>;

constexpr uint32_t kSensorId = 7U;
constexpr uint32_t kSamples = 1000U;

}  // namespace demo

/// Telemetry has float members: its fields are declared, and travel packed and little-endian.
MCCC_BRIDGE_FIELDS(demo::Telemetry, sample, temperature_c, speed_mps);

/// The codec of LidarScan: scan number, range count, ranges (little-endian IEEE floats).
template <>
struct mccc::bridge::Codec<demo::LidarScan> {
  static std::size_t EncodedSize(const demo::LidarScan& scan) noexcept {
    return 8U + 4U * scan.ranges_m.size();
  }
  static void Encode(const demo::LidarScan& scan, uint8_t* out) noexcept {
    WireWriter writer(out);
    writer.Put32(scan.scan);
    writer.Put32(static_cast<uint32_t>(scan.ranges_m.size()));
    for (const float range : scan.ranges_m) {
      writer.PutFloat(range);
    }
  }
  static bool Decode(const uint8_t* in, std::size_t size, demo::LidarScan& scan) noexcept {
    WireReader reader(in, size);
    uint32_t count = 0U;
    if (!reader.Get32(scan.scan) || !reader.Get32(count) ||
        count > decltype(scan.ranges_m)::capacity() || reader.Remaining() != 4U * count) {
      return false;  // counted as malformed by the importer, never published
    }
    for (uint32_t i = 0U; i < count; ++i) {
      float range = 0.0F;
      if (!reader.GetFloat(range) || !scan.ranges_m.emplace_back(range)) {
        return false;
      }
    }
    return true;
  }
};

namespace demo {

/// The bus's one consumer thread: dispatches until stopped, then drains.
class Consumer {
 public:
  explicit Consumer(Bus& bus) : bus_(bus), thread_([this] { Run(); }) {}
  ~Consumer() { Stop(); }
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;
  void Stop() {
    if (thread_.joinable()) {
      stop_.store(true);
      bus_.WakeConsumer();
      thread_.join();
    }
  }

 private:
  void Run() {
    while (!stop_.load()) {
      if (bus_.ProcessBatch() == 0U) {
        bus_.WaitForMessages(5000U);
      }
    }
    while (bus_.ProcessBatch() != 0U) {
    }
  }
  Bus& bus_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

int RunController(const std::string& base) {
  auto bus = std::make_unique<Bus>();
  std::atomic<uint32_t> stops{0U};
  std::atomic<uint32_t> telemetry{0U};
  std::atomic<uint32_t> scans{0U};
  bus->Subscribe<Telemetry>([&](const Telemetry&) { telemetry.fetch_add(1U); });
  bus->Subscribe<LidarScan>([&](const LidarScan&) { scans.fetch_add(1U); });
  bus->Subscribe<EmergencyStop>([&](const EmergencyStop& stop, const mccc::MessageHeader& h) {
    stops.fetch_add(1U);
    std::printf(
        "controller: EMERGENCY STOP received from sender %u (reason %u, priority HIGH=%d) "
        "after %u telemetry samples\n",
        h.sender_id, stop.reason, h.priority == mccc::MessagePriority::kHigh ? 1 : 0,
        telemetry.load());
    std::fflush(stdout);
  });
  Consumer consumer(*bus);
  mccc::bridge::ZmqContext context;
  mccc::bridge::ImporterOptions options;
  options.endpoints = mccc::bridge::ChannelEndpoints::FromBase(base);
  mccc::bridge::Importer<Bus, Selection> importer(*bus, context, options);
  if (!importer.Start()) {
    std::printf("controller: cannot listen: %s\n", importer.LastError().c_str());
    return 1;
  }
  std::printf("controller: listening\n");
  std::fflush(stdout);
  // Until the sensor's two end-of-stream frames (one per channel), at most 60 s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (importer.GetStatistics().streams_ended < 2U &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  importer.Stop();
  consumer.Stop();
  const mccc::bridge::ImporterStatistics s = importer.GetStatistics();
  std::printf(
      "controller: bridge statistics: delivered LOW %llu MEDIUM %llu HIGH %llu, refused by "
      "bus %llu, lost %llu, corrupted %llu, wrong schema %llu, frames %llu\n",
      static_cast<unsigned long long>(s.delivered[0]),
      static_cast<unsigned long long>(s.delivered[1]),
      static_cast<unsigned long long>(s.delivered[2]),
      static_cast<unsigned long long>(s.refused_by_bus[0] + s.refused_by_bus[1] +
                                      s.refused_by_bus[2]),
      static_cast<unsigned long long>(s.lost + s.missed_at_join),
      static_cast<unsigned long long>(s.corrupted), static_cast<unsigned long long>(s.wrong_schema),
      static_cast<unsigned long long>(s.frames_received));
  std::printf("controller: callbacks: telemetry %u, scans %u, emergency stops %u\n",
              telemetry.load(), scans.load(), stops.load());
  std::fflush(stdout);
  return stops.load() == 1U ? 0 : 1;
}

int RunSensor(const std::string& base) {
  auto bus = std::make_unique<Bus>();
  mccc::bridge::ZmqContext context;
  mccc::bridge::ExporterOptions options;
  options.endpoints = mccc::bridge::ChannelEndpoints::FromBase(base);
  // The controller confirms each end of stream once it has read it, normally within
  // milliseconds; a slow build of this demo (ThreadSanitizer on a loaded machine) can take
  // seconds, which the default second would count as unconfirmed.
  options.stop_confirm_timeout_ms = 10000U;
  mccc::bridge::Exporter<Bus, Selection> exporter(*bus, context, options);
  if (!exporter.Start()) {
    std::printf("sensor: cannot connect: %s\n", exporter.LastError().c_str());
    return 1;
  }
  Consumer consumer(*bus);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the link connect
  for (uint32_t i = 0U; i < kSamples; ++i) {
    bus->PublishWithPriority(Telemetry{i, 40.0F + 0.01F * static_cast<float>(i), 1.5F}, kSensorId,
                             mccc::MessagePriority::kLow);
    if (i % 50U == 0U) {
      LidarScan scan{i / 50U, {}};
      for (uint32_t r = 0U; r < 16U; ++r) {
        static_cast<void>(scan.ranges_m.emplace_back(2.0F + 0.1F * static_cast<float>(r)));
      }
      bus->PublishWithPriority(std::move(scan), kSensorId, mccc::MessagePriority::kMedium);
    }
    if (i == kSamples / 2U) {
      bus->PublishWithPriority(EmergencyStop{3U}, kSensorId, mccc::MessagePriority::kHigh);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  consumer.Stop();
  // Sends what is queued and the end-of-stream frames, and returns once the controller confirmed
  // that it read them: nothing is left in the connection when the link closes.
  exporter.Stop();
  const mccc::bridge::ExporterStatistics s = exporter.GetStatistics();
  std::printf(
      "sensor: bridge statistics: sent LOW %llu MEDIUM %llu HIGH %llu, refused %llu, "
      "dropped at stop %llu, ends confirmed %llu of 2\n",
      static_cast<unsigned long long>(s.sent[0]), static_cast<unsigned long long>(s.sent[1]),
      static_cast<unsigned long long>(s.sent[2]),
      static_cast<unsigned long long>(s.refused[0] + s.refused[1] + s.refused[2]),
      static_cast<unsigned long long>(s.dropped_at_stop),
      static_cast<unsigned long long>(s.ends_confirmed));
  std::fflush(stdout);
  return s.ends_confirmed == 2U ? 0 : 1;
}

pid_t Launch(const char* self, const char* role, const std::string& base) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, role, base.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int ExitStatus(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace demo

int main(int argc, char** argv) {
  if (argc == 3) {
    const std::string role = argv[1];
    return role == "controller" ? demo::RunController(argv[2]) : demo::RunSensor(argv[2]);
  }
  // A Linux abstract ipc:// address (no file), unique per run.
  const std::string base = "ipc://@mccc-bridge-demo-" + std::to_string(getpid());
  std::fflush(stdout);
  const pid_t controller = demo::Launch("/proc/self/exe", "controller", base);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const pid_t sensor = demo::Launch("/proc/self/exe", "sensor", base);
  const int sensor_status = demo::ExitStatus(sensor);
  const int controller_status = demo::ExitStatus(controller);
  if (sensor_status != 0 || controller_status != 0) {
    std::printf("bridge_demo: FAILED (sensor %d, controller %d)\n", sensor_status,
                controller_status);
    return 1;
  }
  std::printf("bridge_demo: the emergency stop was delivered exactly once\n");
  return 0;
}
