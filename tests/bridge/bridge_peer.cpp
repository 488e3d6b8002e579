// SPDX-License-Identifier: MIT
// bridge_peer: the other process of test_bridge_processes (started with fork + exec). Roles:
//   bridge_peer import  --high EP --normal EP [--mode bind|connect] [--bus normal|other]
//                       [--hold-controller] [--expect-ended N] [--idle-exit-ms N] [--progress N]
//                       [--timeout-ms N]
//   bridge_peer export  --high EP --normal EP [--mode connect|bind] --messages N
//                       [--pattern flood|steady|medium] [--pace-us N] [--burst N] [--small-queue]
//                       [--hwm N] [--warmup-ms N] [--blocked-messages N] [--stop-on-stdin]
//                       [--flood-until-told] [--flush-ms N]
//   bridge_peer proxy   --high EP --normal EP --out-high EP --out-normal EP [--timeout-ms N]
// Each prints "key=value" lines: the bound endpoints and "ready=1" once listening, its counters
// at the end. Exit status 0 unless it timed out or could not start.
//
// The options that make a test deterministic instead of dependent on timing:
//   --hold-controller   the importer's controller blocks in its first LOW callback until its bus
//                       has refused a LOW message (so the importer's bus refuses, whatever the
//                       speed of the machine); the bus keeps room for every HIGH message.
//   --blocked-messages  a binding exporter publishes the first N messages before any importer
//                       is connected (prints "blocked_done=1" then): its send queue fills and
//                       refuses by priority. It goes on once an importer has taken the backlog.
//   --stop-on-stdin     the exporter stops only when a line arrives on its standard input (the
//                       test says when the importer it wants is listening).
//   --flood-until-told  after its messages, the exporter goes on publishing LOW messages, in the
//                       same bursts, until a line arrives on its standard input (the test says
//                       when the held importer printed "importer_refused=1").
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>
#include <unistd.h>

#include "bridge/bridge_test_support.hpp"
#include "bridge/bridge_test_types.hpp"
#include "bridge/fault_proxy.hpp"
#include "bridge/tsan_suppressions.hpp"
#include "mccc/bridge/bridge.hpp"

namespace {

using mccc::BusError;
using mccc::MessagePriority;
using mccc::bridge::Channel;
using PeerErrors = bridge_test::ErrorCounts<3>;

struct Arguments {
  std::map<std::string, std::string> values;
  std::string Get(const std::string& key, const std::string& fallback = "") const {
    const auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
  uint64_t Number(const std::string& key, uint64_t fallback) const {
    const auto it = values.find(key);
    return it == values.end() ? fallback : std::strtoull(it->second.c_str(), nullptr, 10);
  }
  bool Has(const std::string& key) const { return values.count(key) != 0U; }
};

Arguments Parse(int argc, char** argv) {
  Arguments args;
  for (int i = 2; i < argc; ++i) {
    std::string key = argv[i];
    if (key.rfind("--", 0) != 0) {
      continue;
    }
    key = key.substr(2);
    if (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
      args.values[key] = argv[i + 1];
      ++i;
    } else {
      args.values[key] = "1";
    }
  }
  return args;
}

void Print(const char* key, uint64_t value) {
  std::printf("%s=%llu\n", key, static_cast<unsigned long long>(value));
}
void PrintArray(const char* key, const std::array<uint64_t, 3>& values) {
  for (std::size_t p = 0U; p < 3U; ++p) {
    std::printf("%s_p%zu=%llu\n", key, p, static_cast<unsigned long long>(values[p]));
  }
}

mccc::bridge::ChannelEndpoints Endpoints(const Arguments& args, const char* high,
                                         const char* normal) {
  return mccc::bridge::ChannelEndpoints{args.Get(high), args.Get(normal)};
}

// ---- import -----------------------------------------------------------------------------

struct FaultTally {
  std::array<std::atomic<uint64_t>, 8> reports{};
};

void CountFault(const mccc::bridge::FaultReport& report, void* context) {
  static_cast<FaultTally*>(context)->reports[static_cast<std::size_t>(report.fault)].fetch_add(1U);
}

/// What the importer's controller (its bus's subscriptions) saw.
template <typename BusType>
struct Controller {
  BusType* bus = nullptr;
  bool hold = false;       // --hold-controller
  uint64_t progress = 0U;  // print "progress=N" every N telemetry messages
  std::array<std::atomic<uint64_t>, 3> callbacks{};
  std::atomic<uint64_t> invalid{0U};
  std::atomic<uint64_t> first_index{UINT64_MAX};
  std::atomic<uint64_t> telemetry_count{0U};
  std::atomic<bool> held{false};
  std::atomic<uint64_t> held_until_refusal{0U};
  std::vector<std::atomic<uint32_t>> high_seen = std::vector<std::atomic<uint32_t>>(1U << 16U);

  void Count(bool valid, const mccc::MessageHeader& h) {
    invalid.fetch_add(valid ? 0U : 1U);
    callbacks[static_cast<std::size_t>(h.priority)].fetch_add(1U);
  }

  void OnTelemetry(const bridge_test::Telemetry& m, const mccc::MessageHeader& h) {
    Count(bridge_test::Valid(m), h);
    uint64_t expected = UINT64_MAX;
    first_index.compare_exchange_strong(expected, m.index);
    const uint64_t count = telemetry_count.fetch_add(1U) + 1U;
    if (progress != 0U && count % progress == 0U) {
      std::printf("progress=%llu\n", static_cast<unsigned long long>(count));
      std::fflush(stdout);
    }
    if (hold && h.priority == MessagePriority::kLow && !held.exchange(true)) {
      const bool refused = bridge_test::WaitFor(
          [this] { return bus->GetStatistics().low_priority_dropped != 0U; }, 60000);
      held_until_refusal.store(refused ? 1U : 0U);
      if (refused) {
        std::printf("importer_refused=1\n");  // the test may stop the exporter's LOW flood
        std::fflush(stdout);
      }
    }
  }

  void OnStop(const bridge_test::EmergencyStop& m, const mccc::MessageHeader& h) {
    Count(bridge_test::Valid(m), h);
    if (m.index < high_seen.size()) {
      high_seen[m.index].fetch_add(1U);
    }
  }
};

template <typename BusType>
int RunImport(const Arguments& args) {
  PeerErrors::Reset();
  auto bus = std::make_unique<BusType>();
  bus->SetErrorCallback(&PeerErrors::Callback);
  auto controller = std::make_unique<Controller<BusType>>();
  Controller<BusType>* const c = controller.get();
  c->bus = bus.get();
  c->hold = args.Has("hold-controller");
  c->progress = args.Number("progress", 0U);
  bus->template Subscribe<bridge_test::Telemetry>(
      [c](const bridge_test::Telemetry& m, const mccc::MessageHeader& h) { c->OnTelemetry(m, h); });
  bus->template Subscribe<bridge_test::EmergencyStop>(
      [c](const bridge_test::EmergencyStop& m, const mccc::MessageHeader& h) { c->OnStop(m, h); });
  bus->template Subscribe<bridge_test::Scan>(
      [c](const bridge_test::Scan& m, const mccc::MessageHeader& h) {
        c->Count(bridge_test::Valid(m), h);
      });
  bridge_test::ConsumerThread<BusType> consumer(*bus);
  mccc::bridge::ZmqContext context;
  FaultTally faults;
  mccc::bridge::ImporterOptions options;
  options.endpoints = Endpoints(args, "high", "normal");
  options.mode = args.Get("mode", "bind") == "bind" ? mccc::bridge::EndpointMode::kBind
                                                    : mccc::bridge::EndpointMode::kConnect;
  options.transport.high_water_mark = static_cast<int>(args.Number("hwm", 1000U));
  options.fault_handler = &CountFault;
  options.fault_context = &faults;
  mccc::bridge::Importer<BusType> importer(*bus, context, options);
  if (!importer.Start()) {
    std::printf("error=%s\n", importer.LastError().c_str());
    return 2;
  }
  std::printf("endpoint_high=%s\nendpoint_normal=%s\nready=1\n",
              importer.BoundEndpoint(Channel::kHigh).c_str(),
              importer.BoundEndpoint(Channel::kNormal).c_str());
  std::fflush(stdout);

  const uint64_t expect_ended = args.Number("expect-ended", 2U);
  const uint64_t idle_exit_ms = args.Number("idle-exit-ms", 0U);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(args.Number("timeout-ms", 60000U));
  bool finished = false;
  uint64_t last_frames = 0U;
  auto last_change = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < deadline) {
    const auto stats = importer.GetStatistics();
    const auto now = std::chrono::steady_clock::now();
    if (stats.frames_received != last_frames) {
      last_frames = stats.frames_received;
      last_change = now;
    }
    if ((expect_ended != 0U && stats.streams_ended >= expect_ended) ||
        (idle_exit_ms != 0U && last_frames != 0U &&
         now - last_change >= std::chrono::milliseconds(idle_exit_ms))) {
      finished = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  importer.Stop();
  consumer.Stop();

  const auto s = importer.GetStatistics();
  Print("frames_received", s.frames_received);
  Print("messages_received", s.messages_received);
  PrintArray("delivered", s.delivered);
  PrintArray("refused_by_bus", s.refused_by_bus);
  Print("lost", s.lost);
  Print("missed_at_join", s.missed_at_join);
  Print("repeated", s.repeated);
  Print("reordered", s.reordered);
  Print("corrupted", s.corrupted);
  Print("unsupported_version", s.unsupported_version);
  Print("wrong_schema", s.wrong_schema);
  Print("malformed", s.malformed);
  Print("not_imported", s.not_imported);
  Print("markers_received", s.markers_received);
  Print("streams_joined", s.streams_joined);
  Print("streams_ended", s.streams_ended);
  Print("ends_confirmed", s.ends_confirmed);
  Print("held_until_refusal", c->held_until_refusal.load());
  std::array<uint64_t, 3> callback_counts{};
  for (std::size_t p = 0U; p < 3U; ++p) {
    callback_counts[p] = c->callbacks[p].load();
  }
  PrintArray("callbacks", callback_counts);
  const auto bus_stats = bus->GetStatistics();
  PrintArray("bus_dropped", {bus_stats.low_priority_dropped, bus_stats.medium_priority_dropped,
                             bus_stats.high_priority_dropped});
  uint64_t high_unique = 0U;
  uint64_t high_duplicates = 0U;
  for (const auto& seen : c->high_seen) {
    const uint32_t times = seen.load();
    high_unique += times != 0U ? 1U : 0U;
    high_duplicates += times > 1U ? times - 1U : 0U;
  }
  Print("high_unique", high_unique);
  Print("high_duplicates", high_duplicates);
  Print("invalid", c->invalid.load());
  Print("first_index", c->first_index.load());
  Print("err_queue_full", PeerErrors::Of(BusError::kQueueFull));
  Print("err_receive_fault", PeerErrors::Of(BusError::kBridgeReceiveFault));
  Print("err_schema_mismatch", PeerErrors::Of(BusError::kBridgeSchemaMismatch));
  Print("reports_lost", faults.reports[0].load());
  Print("reports_missed_at_join", faults.reports[1].load());
  Print("reports_wrong_schema", faults.reports[6].load());
  Print("finished", finished ? 1U : 0U);
  std::fflush(stdout);
  return finished ? 0 : 3;
}

// ---- export -----------------------------------------------------------------------------

MessagePriority PriorityOf(const std::string& pattern, uint64_t i) {
  if (pattern == "flood") {
    return i % 200U == 100U ? MessagePriority::kHigh
           : i % 10U == 5U  ? MessagePriority::kMedium
                            : MessagePriority::kLow;
  }
  if (pattern == "steady") {
    return i % 10U == 0U ? MessagePriority::kHigh : MessagePriority::kMedium;
  }
  return MessagePriority::kMedium;
}

/// Waits for one line on standard input (at most `timeout_ms`); false on timeout or end of input.
bool WaitForLine(int timeout_ms) {
  pollfd item{STDIN_FILENO, POLLIN, 0};
  if (poll(&item, 1, timeout_ms) <= 0) {
    return false;
  }
  char c = '\0';
  while (read(STDIN_FILENO, &c, 1) == 1 && c != '\n') {
  }
  return c == '\n';
}

template <typename BridgeTraits>
int RunExport(const Arguments& args) {
  PeerErrors::Reset();
  auto bus = std::make_unique<bridge_test::Bus>();
  bus->SetErrorCallback(&PeerErrors::Callback);
  // The exporter reports a refusal with the message's msg_id: which priority that id had.
  bridge_test::DeliveredPriorities<bridge_test::Bus, bridge_test::Telemetry,
                                   bridge_test::EmergencyStop>
      delivered_priorities(*bus);
  mccc::bridge::ZmqContext context;
  mccc::bridge::ExporterOptions options;
  options.endpoints = Endpoints(args, "high", "normal");
  const bool bind = args.Get("mode", "connect") == "bind";
  options.mode = bind ? mccc::bridge::EndpointMode::kBind : mccc::bridge::EndpointMode::kConnect;
  options.transport.high_water_mark = static_cast<int>(args.Number("hwm", 1000U));
  options.stop_flush_timeout_ms = static_cast<uint32_t>(args.Number("flush-ms", 30000U));
  options.stop_confirm_timeout_ms = 30000U;  // upper bounds, not delays
  mccc::bridge::Exporter<bridge_test::Bus, mccc::bridge::AllTypes, BridgeTraits> exporter(
      *bus, context, options);
  if (!exporter.Start()) {
    std::printf("error=%s\n", exporter.LastError().c_str());
    return 2;
  }
  if (bind) {
    std::printf("endpoint_high=%s\nendpoint_normal=%s\nready=1\n",
                exporter.BoundEndpoint(Channel::kHigh).c_str(),
                exporter.BoundEndpoint(Channel::kNormal).c_str());
    std::fflush(stdout);
  }
  bridge_test::ConsumerThread<bridge_test::Bus> consumer(*bus);
  // A connecting exporter lets the transport connect first: a burst before that only fills the
  // queues (and is refused as it should be, which is not what these tests measure).
  std::this_thread::sleep_for(
      std::chrono::milliseconds(args.Number("warmup-ms", bind ? 0U : 300U)));
  const std::string pattern = args.Get("pattern", "flood");
  const uint64_t messages = args.Number("messages", 1000U);
  const uint64_t blocked_messages = args.Number("blocked-messages", 0U);
  const uint64_t pace_us = args.Number("pace-us", 0U);  // after every `burst` messages
  const uint64_t burst = std::max<uint64_t>(args.Number("burst", 1U), 1U);
  std::vector<MessagePriority> admitted;
  std::array<uint64_t, 3> published{};
  uint64_t high_index = 0U;
  bool backlog_taken = true;
  auto next = std::chrono::steady_clock::now();
  for (uint64_t i = 0U; i < messages; ++i) {
    if (i == blocked_messages && blocked_messages != 0U) {
      // Every message so far went through the exporter's subscription, with no importer there.
      bridge_test::WaitFor([&] { return bus->QueueOccupancy() == 0U; }, 60000);
      std::printf("blocked_done=1\n");
      std::fflush(stdout);
      backlog_taken = bridge_test::WaitFor(
          [&] {
            return exporter.QueuedFrames(Channel::kHigh) == 0U &&
                   exporter.QueuedFrames(Channel::kNormal) == 0U;
          },
          60000);
      next = std::chrono::steady_clock::now();
    }
    const MessagePriority priority = PriorityOf(pattern, i);
    bool ok = false;
    if (priority == MessagePriority::kHigh) {
      ok = bus->PublishWithPriority(bridge_test::MakeStop(high_index), 1U, priority);
      high_index += ok ? 1U : 0U;
    } else {
      ok = bus->PublishWithPriority(bridge_test::MakeTelemetry(i, 1U), 1U, priority);
    }
    if (ok) {
      admitted.push_back(priority);
      ++published[static_cast<std::size_t>(priority)];
    }
    if (pace_us != 0U && (i + 1U) % burst == 0U) {
      next += std::chrono::microseconds(pace_us);
      std::this_thread::sleep_until(next);
    }
  }
  bool stop_told = true;
  if (args.Has("flood-until-told")) {
    // More LOW, in the same bursts, until the test says the importer's bus has refused some.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    uint64_t i = messages;
    stop_told = false;
    while (std::chrono::steady_clock::now() < deadline) {
      if (WaitForLine(0)) {
        stop_told = true;
        break;
      }
      for (uint64_t k = 0U; k < burst; ++k, ++i) {
        if (bus->PublishWithPriority(bridge_test::MakeTelemetry(i, 1U), 1U,
                                     MessagePriority::kLow)) {
          admitted.push_back(MessagePriority::kLow);
          ++published[0];
        }
      }
      std::this_thread::sleep_for(std::chrono::microseconds(pace_us));
    }
  }
  if (args.Has("stop-on-stdin")) {
    stop_told = WaitForLine(60000);
  }
  consumer.Stop();
  exporter.Stop();  // returns once the importer confirmed both ends of stream (or 30 s passed)
  const auto s = exporter.GetStatistics();
  std::array<uint64_t, 3> refused_by_id{};
  if (delivered_priorities.Consecutive() && delivered_priorities.Count() == admitted.size()) {
    for (std::size_t id = 1U; id <= admitted.size() && id < PeerErrors::kMaxIds; ++id) {
      refused_by_id[static_cast<std::size_t>(delivered_priorities.Of(id))] +=
          PeerErrors::RefusedIds()[id];
    }
  }
  PrintArray("published", published);
  PrintArray("sent", s.sent);
  PrintArray("refused", s.refused);
  PrintArray("refused_reported", refused_by_id);
  Print("ids_consecutive",
        delivered_priorities.Consecutive() && delivered_priorities.Count() == admitted.size() ? 1U
                                                                                              : 0U);
  Print("err_send_refused", PeerErrors::Of(BusError::kBridgeSendRefused));
  Print("transmitted_normal", s.transmitted[0]);
  Print("transmitted_high", s.transmitted[1]);
  Print("messages_normal", s.messages[0]);
  Print("messages_high", s.messages[1]);
  Print("dropped_at_stop", s.dropped_at_stop);
  Print("transport_errors", s.transport_errors);
  Print("markers_sent", s.markers_sent);
  Print("ends_confirmed", s.ends_confirmed);
  Print("ends_unconfirmed", s.ends_unconfirmed);
  Print("backlog_taken", backlog_taken ? 1U : 0U);
  Print("stop_told", stop_told ? 1U : 0U);
  Print("finished", 1U);
  std::fflush(stdout);
  return 0;
}

// ---- proxy ------------------------------------------------------------------------------

int RunProxy(const Arguments& args) {
  mccc::bridge::ZmqContext context;
  bridge_test::FaultProxy proxy(context.Native(), Endpoints(args, "high", "normal"),
                                Endpoints(args, "out-high", "out-normal"));
  if (!proxy.Ok()) {
    std::printf("error=proxy could not bind or connect\n");
    return 2;
  }
  std::printf("endpoint_high=%s\nendpoint_normal=%s\nready=1\n",
              proxy.BoundEndpoint(Channel::kHigh).c_str(),
              proxy.BoundEndpoint(Channel::kNormal).c_str());
  std::fflush(stdout);
  const std::atomic<bool> never{false};
  const bool ended = proxy.Run(never, static_cast<int>(args.Number("timeout-ms", 60000U)));
  const bridge_test::ProxyCounts& c = proxy.Counts();
  Print("forwarded", c.forwarded);
  Print("messages", c.messages);
  Print("packed", c.packed);
  Print("dropped", c.dropped);
  Print("repeated", c.repeated);
  Print("reordered", c.reordered);
  Print("flipped", c.flipped);
  Print("data_frames", c.data_frames);
  Print("markers", c.markers);
  Print("confirmations", c.confirmations);
  Print("finished", ended ? 1U : 0U);
  std::fflush(stdout);
  return ended ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bridge_peer import|export|proxy --option value ...\n");
    return 1;
  }
  const std::string role = argv[1];
  const Arguments args = Parse(argc, argv);
  if (role == "import") {
    const std::string bus = args.Get("bus", "normal");
    if (bus == "other") {
      return RunImport<bridge_test::OtherBus>(args);
    }
    return RunImport<bridge_test::Bus>(args);
  }
  if (role == "export") {
    return args.Has("small-queue") ? RunExport<bridge_test::SmallQueueBridge>(args)
                                   : RunExport<mccc::bridge::DefaultBridgeTraits>(args);
  }
  if (role == "proxy") {
    return RunProxy(args);
  }
  std::fprintf(stderr, "bridge_peer: unknown role %s\n", role.c_str());
  return 1;
}
