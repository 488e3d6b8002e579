// SPDX-License-Identifier: MIT
// scoped_subscription_demo: subscriptions that end with their owner, and a consumer loop that
// waits with a std::chrono duration.
// - A Display object holds an mccc::ScopedSubscription (from SubscribeScoped): while it exists
//   it sees every reading; once it is destroyed nothing reaches it, with no destructor written.
// - A std::vector of ScopedSubscriptions holds the long-lived handlers; one is made from a plain
//   handle that Subscribe returned. Clearing the vector unsubscribes them all.
// - The consumer (this thread) sleeps in WaitForMessages(20ms) until a producer thread
//   publishes; the duration is rounded up to whole microseconds, never down.
//
// Expected output ends with: scoped_subscription_demo: OK readings=150 display=100 left=0
#include <mccc/mccc.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

namespace {

struct TemperatureReading {
  uint32_t sensor_id;
  float celsius;
};
struct EndOfRun {};
using Payload = std::variant<TemperatureReading, EndOfRun>;

struct DemoTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 1024U;  // holds every message of the run
};
using Bus = mccc::AsyncBus<Payload, DemoTraits>;

constexpr uint32_t kSensorId = 1U;
constexpr uint32_t kFirstBurst = 100U;
constexpr uint32_t kSecondBurst = 50U;

// Shows readings while it exists. The subscription is a member: it ends when the Display does.
class Display {
 public:
  Display(Bus& bus, uint32_t& shown)
      : shown_(shown),
        subscription_(bus.SubscribeScoped<TemperatureReading>(
            [this](const TemperatureReading&) { ++shown_; })) {}
  // The callback holds `this`: a Display stays where it was built.
  Display(const Display&) = delete;
  Display& operator=(const Display&) = delete;

  bool Subscribed() const { return subscription_.IsActive(); }

 private:
  uint32_t& shown_;
  mccc::ScopedSubscription subscription_;  // last member: destroyed first
};

// A producer thread: `count` readings, then optionally the end marker.
std::thread StartProducer(Bus& bus, uint32_t count, bool end_of_run) {
  return std::thread([&bus, count, end_of_run] {
    for (uint32_t i = 0U; i < count; ++i) {
      const float celsius = 20.0F + static_cast<float>(i % 10U);
      while (!bus.Publish(TemperatureReading{kSensorId, celsius}, kSensorId)) {
        std::this_thread::yield();  // not admitted (queue full): try again
      }
    }
    if (end_of_run) {
      while (!bus.Publish(EndOfRun{}, kSensorId)) {
        std::this_thread::yield();
      }
    }
  });
}

// The consumer loop: sleep until something is published (at most 20 ms at a time), dispatch it.
template <typename Done>
void ConsumeUntil(Bus& bus, Done&& done) {
  using namespace std::chrono_literals;
  while (!done()) {
    if (bus.WaitForMessages(20ms)) {
      static_cast<void>(bus.ProcessBatch());
    }
  }
}

}  // namespace

int main() {
  // The bus first: every ScopedSubscription below is destroyed before it.
  auto bus = std::make_unique<Bus>();

  uint32_t readings = 0U;
  bool end_seen = false;
  std::vector<mccc::ScopedSubscription> handlers;
  handlers.push_back(bus->SubscribeScoped<TemperatureReading>(
      [&readings](const TemperatureReading&) { ++readings; }));
  // An existing handle converts: the vector now owns it.
  const mccc::SubscriptionHandle plain =
      bus->Subscribe<EndOfRun>([&end_seen](const EndOfRun&) { end_seen = true; });
  handlers.emplace_back(*bus, plain);

  uint32_t shown = 0U;
  bool display_was_subscribed = false;
  {
    const Display display(*bus, shown);
    display_was_subscribed = display.Subscribed();
    std::thread producer = StartProducer(*bus, kFirstBurst, /*end_of_run=*/false);
    ConsumeUntil(*bus, [&readings] { return readings == kFirstBurst; });
    producer.join();
    std::printf("first burst: %u readings, the display showed %u\n",
                static_cast<unsigned>(readings), static_cast<unsigned>(shown));
  }  // the Display goes, and its subscription with it

  std::thread producer = StartProducer(*bus, kSecondBurst, /*end_of_run=*/true);
  ConsumeUntil(*bus, [&end_seen] { return end_seen; });
  producer.join();
  std::printf("second burst: %u readings in all, the display still showed %u\n",
              static_cast<unsigned>(readings), static_cast<unsigned>(shown));

  handlers.clear();  // unsubscribes both handlers
  const std::size_t left =
      bus->SubscriberCount<TemperatureReading>() + bus->SubscriberCount<EndOfRun>();

  const bool ok = display_was_subscribed && readings == kFirstBurst + kSecondBurst &&
                  shown == kFirstBurst && left == 0U;
  std::printf("scoped_subscription_demo: %s readings=%u display=%u left=%u\n", ok ? "OK" : "FAILED",
              static_cast<unsigned>(readings), static_cast<unsigned>(shown),
              static_cast<unsigned>(left));
  return ok ? 0 : 1;
}
