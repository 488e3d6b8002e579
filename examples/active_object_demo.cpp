// SPDX-License-Identifier: MIT
// active_object_demo: components on an active object. Two mccc::Component subscribers (a
// temperature monitor that raises alarms, and an alarm logger) are served by one consumer
// thread, an mccc::ActiveObject with the sleeping idle strategy: between the sensors' bursts the
// consumer sleeps in the kernel (no CPU), and the next publish wakes it. Shutdown is clean: the
// producers finish, the pipeline settles, Stop() drains and joins, then the components go.
//
// Expected output ends with: active_object_demo: OK readings=400 alarms=8 stop=stopped
#include <mccc/mccc.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <time.h>
#endif

namespace {

struct TemperatureReading {
  uint32_t sensor_id;
  float celsius;
};
struct OverTemperatureAlarm {
  uint32_t sensor_id;
  float celsius;
};
using Payload = std::variant<TemperatureReading, OverTemperatureAlarm>;

struct DemoTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 4096U;
};
using Bus = mccc::AsyncBus<Payload, DemoTraits>;
using Base = mccc::Component<Payload, DemoTraits>;

constexpr float kLimitCelsius = 98.0F;
constexpr uint32_t kMonitorSenderId = 900U;

// Watches every reading; publishes an alarm on the same bus when one is above the limit.
class TemperatureMonitor : public Base {
 public:
  explicit TemperatureMonitor(Bus& bus) : Base(bus) {}
  uint32_t Readings() const { return readings_.load(); }

 protected:
  void OnInitialize() override {
    // Capturing `this` is safe: the component pins itself for every call (component.hpp).
    SubscribeSimple<TemperatureReading>([this](const TemperatureReading& reading) {
      readings_.fetch_add(1U, std::memory_order_relaxed);
      if (reading.celsius > kLimitCelsius) {
        // Publishing from a callback is fine: it is delivered after the current batch.
        static_cast<void>(
            GetBus().PublishWithPriority(OverTemperatureAlarm{reading.sensor_id, reading.celsius},
                                         kMonitorSenderId, mccc::MessagePriority::kHigh));
      }
    });
  }

 private:
  std::atomic<uint32_t> readings_{0U};
};

// Counts the alarms (a real one would log or trip a relay).
class AlarmLogger : public Base {
 public:
  explicit AlarmLogger(Bus& bus) : Base(bus) {}
  uint32_t Alarms() const { return alarms_.load(); }

 protected:
  void OnInitialize() override {
    SubscribeSimple<OverTemperatureAlarm>(
        [this](const OverTemperatureAlarm& alarm, const mccc::MessageHeader& header) {
          alarms_.fetch_add(1U, std::memory_order_relaxed);
          std::printf("  ALARM sensor %u at %.1f C (msg_id %llu)\n",
                      static_cast<unsigned>(alarm.sensor_id), static_cast<double>(alarm.celsius),
                      static_cast<unsigned long long>(header.msg_id));
        });
  }

 private:
  std::atomic<uint32_t> alarms_{0U};
};

// CPU time the consumer thread has used so far, in microseconds (Linux; 0 elsewhere).
template <typename Consumer>
uint64_t ConsumerCpuUs(Consumer& consumer) {
#if defined(__linux__)
  clockid_t clock{};
  timespec ts{};
  if (pthread_getcpuclockid(consumer.NativeHandle(), &clock) == 0 &&
      clock_gettime(clock, &ts) == 0) {
    return static_cast<uint64_t>(ts.tv_sec) * 1000000U + static_cast<uint64_t>(ts.tv_nsec) / 1000U;
  }
#endif
  static_cast<void>(consumer);
  return 0U;
}

constexpr uint32_t kSensors = 2U;
constexpr uint32_t kBursts = 4U;
constexpr uint32_t kPerBurst = 50U;

}  // namespace

int main() {
  auto bus = std::make_unique<Bus>();
  auto monitor = std::make_shared<TemperatureMonitor>(*bus);
  auto logger = std::make_shared<AlarmLogger>(*bus);
  if (!monitor->InitializeComponent() || !logger->InitializeComponent()) {
    std::printf("active_object_demo: FAILED (subscriptions)\n");
    return 1;
  }

  // The consumer thread: spin briefly after each message, then yield, then sleep until the next
  // publish (or at most 100 ms).
  mccc::ActiveObjectOptions options;
  options.idle_strategy = mccc::IdleStrategy::SpinThenYieldThenSleep(1000U, 50U, 100000U);
  options.thread_name = "mccc-demo";
  mccc::ActiveObject<Bus> consumer(*bus, options);
  const mccc::StartResult started = consumer.Start();
  if (started.status != mccc::StartStatus::kStarted) {
    std::printf("active_object_demo: FAILED (start)\n");
    return 1;
  }
  std::printf("consumer started (thread name %s)\n", started.name_applied ? "set" : "not set");

  // Two sensors publish in bursts with idle gaps in between.
  std::vector<std::thread> sensors;
  for (uint32_t s = 0U; s < kSensors; ++s) {
    sensors.emplace_back([&bus, s] {
      for (uint32_t burst = 0U; burst < kBursts; ++burst) {
        for (uint32_t i = 0U; i < kPerBurst; ++i) {
          // 50.0 .. 99.0 C; exactly one reading per burst (i == 49) is above the limit.
          const float celsius = 50.0F + static_cast<float>(i);
          while (!bus->Publish(TemperatureReading{s, celsius}, s)) {
            std::this_thread::yield();
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(15));  // the consumer falls asleep
      }
    });
  }
  for (std::thread& t : sensors) {
    t.join();
  }

  // The pipeline has two stages (readings -> alarms published by a callback). Stop() delivers
  // everything published before it is called, so let the second stage settle first.
  constexpr uint32_t kReadings = kSensors * kBursts * kPerBurst;
  constexpr uint32_t kAlarms = kSensors * kBursts;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (consumer.ProcessedCount() < kReadings + kAlarms &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  // Idle: the consumer sleeps; its CPU time barely moves.
  const uint64_t cpu_before = ConsumerCpuUs(consumer);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const uint64_t cpu_idle = ConsumerCpuUs(consumer) - cpu_before;
  std::printf("idle for 200 ms: consumer used %llu us of CPU, slept %llu times so far\n",
              static_cast<unsigned long long>(cpu_idle),
              static_cast<unsigned long long>(consumer.SleepCount()));

  // Clean shutdown: stop consuming (drain + join), then release the components.
  const mccc::StopStatus stopped = consumer.Stop();
  const uint32_t readings = monitor->Readings();
  const uint32_t alarms = logger->Alarms();
  monitor.reset();
  logger.reset();
  const bool unsubscribed = bus->SubscriberCount<TemperatureReading>() == 0U &&
                            bus->SubscriberCount<OverTemperatureAlarm>() == 0U;

  std::printf("delivered %llu messages, occupancy %u, components unsubscribed: %s\n",
              static_cast<unsigned long long>(consumer.ProcessedCount()),
              static_cast<unsigned>(bus->QueueOccupancy()), unsubscribed ? "yes" : "no");
  const bool ok = stopped == mccc::StopStatus::kStopped && readings == kReadings &&
                  alarms == kAlarms && consumer.SleepCount() > 0U && bus->QueueOccupancy() == 0U &&
                  unsubscribed;
  std::printf("active_object_demo: %s readings=%u alarms=%u stop=%s\n", ok ? "OK" : "FAILED",
              static_cast<unsigned>(readings), static_cast<unsigned>(alarms),
              stopped == mccc::StopStatus::kStopped ? "stopped" : "not-stopped");
  return ok ? 0 : 1;
}
