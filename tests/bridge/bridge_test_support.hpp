// SPDX-License-Identifier: MIT
// Helpers of the bridge tests: a consumer thread for a bus, waiting for a condition with a time
// limit, error-callback counters per bus role, the priority of every msg_id a bus delivered, and
// in-process endpoints with the options the tests give exporters and importers.
#ifndef MCCC_TESTS_BRIDGE_BRIDGE_TEST_SUPPORT_HPP_
#define MCCC_TESTS_BRIDGE_BRIDGE_TEST_SUPPORT_HPP_

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "mccc/bridge/bridge.hpp"
#include "mccc/message.hpp"

namespace bridge_test {

/// Runs `bus.ProcessBatch()` on its own thread until stopped; Stop() drains what is queued.
template <typename BusType>
class ConsumerThread {
 public:
  explicit ConsumerThread(BusType& bus) : bus_(bus), thread_([this]() { Run(); }) {}
  ~ConsumerThread() { Stop(); }
  ConsumerThread(const ConsumerThread&) = delete;
  ConsumerThread& operator=(const ConsumerThread&) = delete;

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
        bus_.WaitForMessages(2000U);
      }
    }
    while (bus_.ProcessBatch() != 0U) {
    }
  }

  BusType& bus_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// Polls `condition` every millisecond for at most `timeout_ms`; returns its last value.
template <typename Condition>
bool WaitFor(Condition condition, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return condition();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

/// Error-callback counts of one bus, by BusError value; a plain function pointer per role.
template <int kRole>
struct ErrorCounts {
  static constexpr std::size_t kKinds = 16U;
  static std::array<std::atomic<uint64_t>, kKinds>& Counts() {
    static std::array<std::atomic<uint64_t>, kKinds> counts{};
    return counts;
  }
  /// msg_ids reported with kBridgeSendRefused, for tests that map them to priorities.
  static constexpr std::size_t kMaxIds = 1U << 20U;
  static std::array<std::atomic<uint8_t>, kMaxIds>& RefusedIds() {
    static std::array<std::atomic<uint8_t>, kMaxIds> ids{};
    return ids;
  }
  static void Reset() {
    for (auto& count : Counts()) {
      count.store(0U);
    }
    for (auto& id : RefusedIds()) {
      id.store(0U);
    }
  }
  static void Callback(mccc::BusError error, uint64_t msg_id) {
    Counts()[static_cast<std::size_t>(error)].fetch_add(1U);
    if (error == mccc::BusError::kBridgeSendRefused && msg_id < kMaxIds) {
      RefusedIds()[msg_id].fetch_add(1U);
    }
  }
  static uint64_t Of(mccc::BusError error) {
    return Counts()[static_cast<std::size_t>(error)].load();
  }
};

/// The priority of every message `bus` delivers, by msg_id, recorded by subscriptions to `Types`
/// on the bus's consumer thread: ids follow delivery order, and a HIGH message overtakes queued
/// LOW/MEDIUM ones, so the publish order does not tell which priority an id had. Create it
/// before anything is published; read it after the consumer thread ended.
template <typename BusType, typename... Types>
class DeliveredPriorities {
 public:
  explicit DeliveredPriorities(BusType& bus) { (Subscribe<Types>(bus), ...); }

  /// Messages recorded (ids 1..Count()).
  std::size_t Count() const { return priorities_.size() - 1U; }
  /// True when the ids arrived as 1, 2, 3, ... (else Of() is meaningless).
  bool Consecutive() const { return consecutive_; }
  mccc::MessagePriority Of(uint64_t msg_id) const {
    return priorities_[static_cast<std::size_t>(msg_id)];
  }

 private:
  template <typename T>
  void Subscribe(BusType& bus) {
    bus.template Subscribe<T>([this](const T&, const mccc::MessageHeader& h) { Record(h); });
  }
  void Record(const mccc::MessageHeader& h) {
    consecutive_ = consecutive_ && h.msg_id == priorities_.size();
    priorities_.push_back(h.priority);
  }

  std::vector<mccc::MessagePriority> priorities_{mccc::MessagePriority::kMedium};  // no id 0
  bool consecutive_ = true;
};

/// Endpoints no other test of the process uses: "inproc://bridge-test-<name>-<n>".
inline mccc::bridge::ChannelEndpoints UniqueEndpoints(const char* name) {
  static std::atomic<int> counter{0};
  return mccc::bridge::ChannelEndpoints::FromBase(std::string("inproc://bridge-test-") + name +
                                                  "-" + std::to_string(counter.fetch_add(1)));
}

/// Exporter options towards `endpoints`.
inline mccc::bridge::ExporterOptions ExportTo(const mccc::bridge::ChannelEndpoints& endpoints) {
  mccc::bridge::ExporterOptions options;
  options.endpoints = endpoints;
  // Upper bounds, not delays: Stop returns as soon as everything is sent and confirmed. They are
  // generous because a sanitizer build runs the importer (and the proxy) many times slower.
  options.stop_flush_timeout_ms = 30000U;
  options.stop_confirm_timeout_ms = 30000U;
  return options;
}

/// Importer options on `endpoints`.
inline mccc::bridge::ImporterOptions ImportFrom(const mccc::bridge::ChannelEndpoints& endpoints) {
  mccc::bridge::ImporterOptions options;
  options.endpoints = endpoints;
  return options;
}

}  // namespace bridge_test

#endif  // MCCC_TESTS_BRIDGE_BRIDGE_TEST_SUPPORT_HPP_
