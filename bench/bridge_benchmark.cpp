// SPDX-License-Identifier: MIT
// smoke-args: --rounds 1 --messages 2000 --latency-messages 100
// bridge_benchmark: the ZeroMQ bridge between two processes (its DEALER/ROUTER channels) against
// raw ZeroMQ PUSH/PULL sending the same structs over the same transport (ipc://, one socket pair,
// same high-water mark).
//   throughput  24 B and 1 KB messages: messages per second at the receiver, first to last. The
//               bridge sender keeps its send queue below half full (it waits, so that nothing is
//               refused), with every check on (CRC-32C, sequence, schema, codec). Raw ZeroMQ also
//               with DEALER/ROUTER (24 B), the socket types the bridge uses.
//   latency     24 B and 1 KB, one message every 100 us: publish -> callback in the other process
//               (raw: send -> recv), P50 / P99 / max, from CLOCK_MONOTONIC stamps in the payload.
//   high/flood  HIGH messages (one per millisecond) while LOW floods the link, against the same
//               HIGH messages on an idle link.
//   crc         CRC-32C of a 24 B and a 1 KB frame in this process (ns per frame).
//   CURVE       the bridge's throughput and latency rows once more with ZeroMQ's CURVE on the
//               link (keys made per run, the receiver allowing exactly the sender's key).
// Rounds are interleaved (every configuration once per round). Each configuration run is classed
// near, far or mixed by a core-to-core ping-pong just before and after it (this machine's two
// cores move between a near and a far placement, sometimes for seconds only). The summary is
// printed over all runs, over the near runs and over the far runs: medians of the runs, and for
// the latency configurations also P50 / P99 / P99.9 / max over every sample (pooled). Usage:
//   bridge_benchmark [--rounds N] [--messages N] [--latency-messages N] [--only TEXT]
// --only runs just the configurations whose name contains TEXT (e.g. --only HIGH).
// Roles used internally (fork + exec of itself): raw-recv, raw-send, bridge-recv, bridge-send.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "common/adapters.hpp"
#include "mccc/bridge/bridge.hpp"
#include "mccc/mccc.hpp"

namespace {

struct Small {  // 24 bytes
  uint64_t sequence;
  uint64_t sent_ns;
  uint64_t value;
};
struct Large {  // 1 KB
  uint64_t sequence;
  uint64_t sent_ns;
  std::array<uint8_t, 1008> data;
};
static_assert(sizeof(Small) == 24U && sizeof(Large) == 1024U, "benchmark message sizes");

/// The sending side's bus (its depth only has to cover the sender's own backpressure window) and
/// the receiving side's, deep enough that it never refuses in a throughput run: nothing pushes
/// back from the importer's bus to the link (the importer refuses instead, and a run in which it
/// refused counts as failed).
template <uint32_t kDepth>
struct BenchBusTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = kDepth;
  using Clock = mccc::SteadyClock;
};
// One bus per message size: a bus slot is as large as the largest alternative of its variant, so
// the 24 B runs must not carry the 1 KB struct (a user who sends 24 B messages would not either).
template <typename Message, uint32_t kDepth>
using BenchBus = mccc::AsyncBus<std::variant<Message>, BenchBusTraits<kDepth>>;
constexpr uint32_t kSendBusDepth = 8192U;
constexpr uint32_t kReceiveBusDepth = 65536U;
constexpr int kHighWaterMark = 1000;

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

std::map<std::string, std::string> ParseArgs(int argc, char** argv, int first) {
  std::map<std::string, std::string> args;
  for (int i = first; i + 1 < argc; i += 2) {
    args[std::string(argv[i]).substr(2)] = argv[i + 1];
  }
  return args;
}
uint64_t Num(const std::map<std::string, std::string>& args, const char* key, uint64_t fallback) {
  const auto it = args.find(key);
  return it == args.end() ? fallback : std::strtoull(it->second.c_str(), nullptr, 10);
}
std::string Str(const std::map<std::string, std::string>& args, const char* key) {
  const auto it = args.find(key);
  return it == args.end() ? std::string() : it->second;
}

/// The value at quantile `q` (0..1) of sorted `sorted`: the sample at rank q * (n - 1), rounded
/// down (0 when empty). Used for one run's figures and for the samples of all runs alike.
double Quantile(const std::vector<uint64_t>& sorted, double q) {
  return sorted.empty()
             ? 0.0
             : static_cast<double>(
                   sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1U))]);
}

/// Latencies and throughput of one receiving run, printed as key=value lines.
struct Recorder {
  std::vector<uint64_t> latencies_ns;
  uint64_t count = 0U;
  uint64_t first_ns = 0U;
  uint64_t last_ns = 0U;
  void Add(uint64_t sent_ns) {
    const uint64_t now = NowNs();
    if (count == 0U) {
      first_ns = now;
    }
    last_ns = now;
    ++count;
    if (latencies_ns.size() < latencies_ns.capacity()) {
      latencies_ns.push_back(now - sent_ns);
    }
  }
  /// Prints the figures of this run and, when `samples_path` is set, writes every latency there
  /// (raw uint64_t, this machine's byte order) for the orchestrator to pool across rounds.
  void Print(const std::string& samples_path) {
    if (!samples_path.empty()) {
      std::FILE* file = std::fopen(samples_path.c_str(), "wb");
      const std::size_t written =
          file == nullptr
              ? 0U
              : std::fwrite(latencies_ns.data(), sizeof(uint64_t), latencies_ns.size(), file);
      const bool closed = file != nullptr && std::fclose(file) == 0;
      if (written != latencies_ns.size() || !closed) {
        std::fprintf(stderr, "cannot write the samples to %s\n", samples_path.c_str());
      }
    }
    std::sort(latencies_ns.begin(), latencies_ns.end());
    const double seconds = static_cast<double>(last_ns - first_ns) * 1e-9;
    std::printf("count=%llu\nrate=%.0f\np50_ns=%.0f\np99_ns=%.0f\nmax_ns=%llu\n",
                static_cast<unsigned long long>(count),
                seconds > 0.0 ? static_cast<double>(count - 1U) / seconds : 0.0,
                Quantile(latencies_ns, 0.5), Quantile(latencies_ns, 0.99),
                latencies_ns.empty() ? 0ULL : static_cast<unsigned long long>(latencies_ns.back()));
    std::fflush(stdout);
  }
};

/// Paced senders sleep rather than spin: on a machine with two cores a spinning sender would
/// take one of them from the threads being measured. The send time is stamped after the wake-up,
/// so the sleep's own jitter is not part of a measured latency.
void SleepUntilNs(uint64_t deadline_ns) {
  const uint64_t now = NowNs();
  if (deadline_ns > now) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(deadline_ns - now));
  }
}

/// Waits for one line on standard input (at most `timeout_ms`).
void WaitForLine(int timeout_ms) {
  pollfd item{STDIN_FILENO, POLLIN, 0};
  if (poll(&item, 1, timeout_ms) <= 0) {
    return;
  }
  char c = '\0';
  while (read(STDIN_FILENO, &c, 1) == 1 && c != '\n') {
  }
}

// ---- raw ZeroMQ ---------------------------------------------------------------------------

// --router 1: DEALER/ROUTER instead of PUSH/PULL (the socket types of the bridge), to tell the
// cost of the socket types from the cost of the bridge.

int RawReceive(const std::map<std::string, std::string>& args) {
  const uint64_t messages = Num(args, "messages", 100000U);
  const bool large = Num(args, "size", 24U) == 1024U;
  const bool router = Num(args, "router", 0U) != 0U;
  void* context = zmq_ctx_new();
  void* socket = zmq_socket(context, router ? ZMQ_ROUTER : ZMQ_PULL);
  const int hwm = kHighWaterMark;
  const int timeout_ms = 30000;  // bounded: a run that stalls ends with an error
  zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, sizeof(hwm));
  zmq_setsockopt(socket, ZMQ_RCVTIMEO, &timeout_ms, sizeof(timeout_ms));
  if (zmq_bind(socket, Str(args, "endpoint").c_str()) != 0) {
    return 2;
  }
  std::printf("ready=1\n");
  std::fflush(stdout);
  Recorder recorder;
  recorder.latencies_ns.reserve(messages);
  Large buffer{};
  std::array<uint8_t, 256> peer{};
  uint64_t expected = 0U;
  while (recorder.count < messages) {
    // A ROUTER hands over the routing id of the sender first.
    const int n = router && zmq_recv(socket, peer.data(), peer.size(), 0) < 0
                      ? -1
                      : zmq_recv(socket, &buffer, sizeof(buffer), 0);
    if (n < 0) {
      if (zmq_errno() == EINTR) {
        continue;
      }
      std::printf("error=receive timed out after %llu messages\n",
                  static_cast<unsigned long long>(recorder.count));
      return 3;
    }
    uint64_t sequence = 0U;
    uint64_t sent_ns = 0U;
    std::memcpy(&sequence, &buffer, 8U);
    std::memcpy(&sent_ns, reinterpret_cast<const uint8_t*>(&buffer) + 8, 8U);
    if (sequence != expected || static_cast<std::size_t>(n) != (large ? 1024U : 24U)) {
      std::printf("error=out of sequence\n");
      return 3;
    }
    ++expected;
    recorder.Add(sent_ns);
  }
  recorder.Print(Str(args, "samples"));
  zmq_close(socket);
  zmq_ctx_term(context);
  return 0;
}

int RawSend(const std::map<std::string, std::string>& args) {
  const uint64_t messages = Num(args, "messages", 100000U);
  const uint64_t pace_ns = Num(args, "pace-ns", 0U);
  const bool large = Num(args, "size", 24U) == 1024U;
  void* context = zmq_ctx_new();
  void* socket = zmq_socket(context, Num(args, "router", 0U) != 0U ? ZMQ_DEALER : ZMQ_PUSH);
  const int hwm = kHighWaterMark;
  zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof(hwm));
  zmq_connect(socket, Str(args, "endpoint").c_str());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Large message{};
  uint64_t next = NowNs();
  for (uint64_t i = 0U; i < messages; ++i) {
    if (pace_ns != 0U) {
      next += pace_ns;
      SleepUntilNs(next);
    }
    message.sequence = i;
    message.sent_ns = NowNs();
    while (zmq_send(socket, &message, large ? 1024U : 24U, 0) < 0) {
    }
  }
  // Close only once the receiver has everything: libzmq drops what is still in an ipc://
  // connection when the sender closes it while the receiving queue is full (the bridge waits for
  // the importer's end-of-stream confirmation for the same reason). The orchestrator says when.
  WaitForLine(60000);
  zmq_close(socket);
  zmq_ctx_term(context);
  return 0;
}

// ---- bridge -------------------------------------------------------------------------------

// The bus's consumer: mccc::ActiveObject with its default idle strategy (spin, yield, then
// sleep until the next publish); Stop drains what is queued.
template <typename BusType>
class Consumer {
 public:
  explicit Consumer(BusType& bus) : active_(bus) {
    if (active_.Start().status != mccc::StartStatus::kStarted) {
      std::fprintf(stderr, "consumer thread did not start\n");
      std::exit(5);
    }
  }
  void Stop() { static_cast<void>(active_.Stop()); }

 private:
  mccc::ActiveObject<BusType> active_;
};

mccc::bridge::ChannelEndpoints BridgeEndpoints(const std::map<std::string, std::string>& args) {
  return mccc::bridge::ChannelEndpoints::FromBase(Str(args, "endpoint"));
}

/// With --curve-server-public (and the other three keys the orchestrator made): CURVE on the
/// link, the receiver (binding side) as the server that allows exactly the sender's key.
mccc::bridge::LinkSecurity BridgeSecurity(const std::map<std::string, std::string>& args,
                                          bool server) {
  mccc::bridge::LinkSecurity security;
  if (Str(args, "curve-server-public").empty()) {
    return security;
  }
  security.curve = true;
  if (server) {
    security.public_key = Str(args, "curve-server-public");
    security.secret_key = Str(args, "curve-server-secret");
    security.allowed_client_keys = {Str(args, "curve-client-public")};
  } else {
    security.public_key = Str(args, "curve-client-public");
    security.secret_key = Str(args, "curve-client-secret");
    security.server_public_key = Str(args, "curve-server-public");
  }
  return security;
}

template <typename BusType, typename Message>
int BridgeReceive(const std::map<std::string, std::string>& args) {
  const uint64_t messages = Num(args, "messages", 100000U);
  const bool high_only = Num(args, "high-only", 0U) != 0U;
  auto bus = std::make_unique<BusType>();
  Recorder recorder;
  recorder.latencies_ns.reserve(messages);
  std::atomic<uint64_t> done{0U};
  std::atomic<uint64_t> out_of_order{0U};
  uint64_t expected = 0U;
  auto on_message = [&](uint64_t sequence, uint64_t sent_ns, const mccc::MessageHeader& h) {
    if (high_only && h.priority != mccc::MessagePriority::kHigh) {
      return;
    }
    out_of_order.fetch_add(sequence == expected ? 0U : 1U);
    expected = sequence + 1U;
    recorder.Add(sent_ns);
    if (recorder.count == messages) {
      done.store(1U);
    }
  };
  bus->template Subscribe<Message>([&](const Message& m, const mccc::MessageHeader& h) {
    on_message(m.sequence, m.sent_ns, h);
  });
  Consumer<BusType> consumer(*bus);
  mccc::bridge::ZmqContext context;
  mccc::bridge::ImporterOptions options;
  options.endpoints = BridgeEndpoints(args);
  options.transport.high_water_mark = kHighWaterMark;
  options.transport.security = BridgeSecurity(args, true);
  mccc::bridge::Importer<BusType> importer(*bus, context, options);
  if (!importer.Start()) {
    return 2;
  }
  std::printf("ready=1\n");
  std::fflush(stdout);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (done.load() == 0U && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // Then the two ends of stream, which the exporter waits to see confirmed before it closes.
  while (importer.GetStatistics().streams_ended < 2U &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  importer.Stop();
  consumer.Stop();
  const auto s = importer.GetStatistics();
  std::printf("out_of_order=%llu\nlost=%llu\nrefused=%llu\n",
              static_cast<unsigned long long>(out_of_order.load()),
              static_cast<unsigned long long>(s.lost),
              static_cast<unsigned long long>(s.refused_by_bus[0] + s.refused_by_bus[1] +
                                              s.refused_by_bus[2]));
  recorder.Print(Str(args, "samples"));
  return done.load() != 0U ? 0 : 3;
}

template <typename BusType, typename Message>
int BridgeSend(const std::map<std::string, std::string>& args) {
  const uint64_t messages = Num(args, "messages", 100000U);
  const uint64_t pace_ns = Num(args, "pace-ns", 0U);
  const bool flood = Num(args, "flood", 0U) != 0U;
  const auto priority =
      Num(args, "high", 0U) != 0U ? mccc::MessagePriority::kHigh : mccc::MessagePriority::kMedium;
  auto bus = std::make_unique<BusType>();
  mccc::bridge::ZmqContext context;
  mccc::bridge::ExporterOptions options;
  options.endpoints = BridgeEndpoints(args);
  options.transport.high_water_mark = kHighWaterMark;
  options.transport.security = BridgeSecurity(args, false);
  options.stop_flush_timeout_ms = 10000U;
  mccc::bridge::Exporter<BusType> exporter(*bus, context, options);
  if (!exporter.Start()) {
    return 2;
  }
  Consumer<BusType> consumer(*bus);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::atomic<bool> stop_flood{false};
  std::thread flooder;
  if (flood) {
    // LOW at a rate the link cannot carry (bursts of 256 with a short pause), refused by the
    // exporter's admission as its send queue fills.
    flooder = std::thread([&] {
      uint64_t i = 0U;
      auto low = std::make_unique<Message>();
      while (!stop_flood.load()) {
        for (int k = 0; k < 256; ++k) {
          low->sequence = i++;
          bus->PublishWithPriority(*low, 2U, mccc::MessagePriority::kLow);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  const uint32_t half = mccc::bridge::DefaultBridgeTraits::kSendQueueDepth / 2U;
  const mccc::bridge::Channel channel = mccc::bridge::ChannelOf(priority);
  uint64_t next = NowNs();
  auto message = std::make_unique<Message>();
  for (uint64_t i = 0U; i < messages; ++i) {
    if (pace_ns != 0U) {
      next += pace_ns;
      SleepUntilNs(next);
    } else {
      // Backpressure instead of refusals, to measure the capacity: what waits in the bus and in
      // the send queue together stays below the send queue's lowest admission limit.
      while (exporter.QueuedFrames(channel) + bus->QueueOccupancy() >= half) {
        std::this_thread::yield();
      }
    }
    message->sequence = i;
    message->sent_ns = NowNs();
    if (!bus->PublishWithPriority(*message, 1U, priority)) {
      std::printf("error=refused by the sender's bus\n");
    }
  }
  stop_flood.store(true);
  if (flooder.joinable()) {
    flooder.join();
  }
  consumer.Stop();
  exporter.Stop();  // returns once the importer confirmed both ends of stream
  const auto s = exporter.GetStatistics();
  std::printf("refused_low=%llu\nrefused_other=%llu\nends_unconfirmed=%llu\n",
              static_cast<unsigned long long>(s.refused[0]),
              static_cast<unsigned long long>(s.refused[1] + s.refused[2]),
              static_cast<unsigned long long>(s.ends_unconfirmed));
  std::fflush(stdout);
  return s.ends_unconfirmed == 0U ? 0 : 4;
}

// ---- orchestration ------------------------------------------------------------------------

struct Child {
  pid_t pid = -1;
  int fd = -1;        // its standard output
  int input_fd = -1;  // its standard input
  std::string output;
};

Child Spawn(const std::vector<std::string>& args) {
  int fds[2] = {-1, -1};
  int input[2] = {-1, -1};
  if (pipe(fds) != 0) {
    return Child{};
  }
  if (pipe(input) != 0) {
    close(fds[0]);
    close(fds[1]);
    return Child{};
  }
  std::vector<std::string> strings = {"/proc/self/exe"};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : strings) {
    argv.push_back(s.data());
  }
  argv.push_back(nullptr);
  Child child;
  child.pid = fork();
  if (child.pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(input[0], STDIN_FILENO);
    close(fds[0]);
    close(fds[1]);
    close(input[0]);
    close(input[1]);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(fds[1]);
  close(input[0]);
  child.fd = fds[0];
  child.input_fd = input[1];
  return child;
}

bool ReadUntil(Child& child, const char* needle) {
  char buffer[4096];
  while (child.output.find(needle) == std::string::npos) {
    const ssize_t n = read(child.fd, buffer, sizeof(buffer));
    if (n <= 0) {
      return false;
    }
    child.output.append(buffer, static_cast<std::size_t>(n));
  }
  return true;
}

std::map<std::string, double> Finish(Child& child) {
  ReadUntil(child, "\x01");  // to the end of the output
  close(child.fd);
  close(child.input_fd);
  int status = 0;
  waitpid(child.pid, &status, 0);
  std::map<std::string, double> values;
  std::size_t start = 0U;
  while (start < child.output.size()) {
    std::size_t end = child.output.find('\n', start);
    if (end == std::string::npos) {
      end = child.output.size();
    }
    const std::string line = child.output.substr(start, end - start);
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos) {
      values[line.substr(0U, eq)] = std::strtod(line.c_str() + eq + 1, nullptr);
    }
    start = end + 1U;
  }
  values["exit"] = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  return values;
}

std::map<std::string, double> RunPair(const std::string& receiver, const std::string& sender,
                                      const std::vector<std::string>& receiver_args,
                                      const std::vector<std::string>& sender_args) {
  static int counter = 0;
  const std::string endpoint =
      "ipc://@mccc-bridge-bench-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  std::vector<std::string> r = {receiver, "--endpoint", endpoint};
  r.insert(r.end(), receiver_args.begin(), receiver_args.end());
  Child rx = Spawn(r);
  if (!ReadUntil(rx, "ready=1")) {
    return {};
  }
  std::vector<std::string> s = {sender, "--endpoint", endpoint};
  s.insert(s.end(), sender_args.begin(), sender_args.end());
  Child tx = Spawn(s);
  auto values = Finish(rx);
  // The receiver is done: the sender may close its socket now (see RawSend).
  const ssize_t told = write(tx.input_fd, "close\n", 6U);
  static_cast<void>(told);
  const auto tx_values = Finish(tx);
  for (const auto& kv : tx_values) {
    values["sender_" + kv.first] = kv.second;
  }
  return values;
}

/// The latencies a receiver wrote with --samples (empty when there is no such file).
std::vector<uint64_t> ReadSamples(const std::string& path) {
  std::vector<uint64_t> samples;
  if (std::FILE* file = std::fopen(path.c_str(), "rb")) {
    uint64_t value = 0U;
    while (std::fread(&value, sizeof(value), 1U, file) == 1U) {
      samples.push_back(value);
    }
    static_cast<void>(std::fclose(file));
  }
  return samples;
}

double Median(std::vector<double> values) {
  return mccc_bench::Summarize(std::move(values)).median;
}

// ---- report -------------------------------------------------------------------------------

// Every configuration run is classed (mccc_bench::ClassifyPlacement) by a cache-line ping-pong
// between core 0 and core 1 just before and just after it (about 10 ms each): the host switches
// this machine's placement sometimes within seconds, so classing whole rounds is not enough.
constexpr uint64_t kPingPongIterations = 20000U;

using mccc_bench::kFarHandoffNs;
using mccc_bench::Placement;
using mccc_bench::PlacementName;

/// One round: per configuration, its figures (empty when not run or failed), its latency
/// samples, whether it failed, and the placement it ran in.
struct Round {
  std::vector<std::map<std::string, double>> values;
  std::vector<std::vector<uint64_t>> samples;
  std::vector<bool> failed;
  std::vector<Placement> where;
};

/// Prints, over the configuration runs in `placement` (all of them when it is empty): the median
/// of each figure of each configuration run (`names[c]` empty: not run), the pooled latency of
/// every sample, and the target ratios both as a ratio of the medians and as the median of the
/// per-round ratios (rounds in which both configurations ran in that placement).
void Report(const std::vector<Round>& runs, const std::vector<std::string>& names,
            const char* title, std::optional<Placement> placement) {
  auto taken = [&](const Round& r, std::size_t c) {
    return !placement || r.where[c] == *placement;
  };
  std::printf("\n== %s\n", title);
  std::printf("%-34s %5s %12s %9s %9s %10s %10s %7s\n", "configuration (medians)", "runs", "msg/s",
              "P50 us", "P99 us", "max us", "refusedLOW", "failed");
  std::map<std::string, std::size_t> index;
  for (std::size_t c = 0U; c < names.size(); ++c) {
    if (names[c].empty()) {
      continue;
    }
    index[names[c]] = c;
    std::map<std::string, std::vector<double>> figures;
    int failed = 0;
    int measured = 0;
    for (const Round& r : runs) {
      if (!taken(r, c)) {
        continue;
      }
      failed += r.failed[c] ? 1 : 0;
      measured += r.values[c].empty() ? 0 : 1;
      for (const auto& kv : r.values[c]) {
        figures[kv.first].push_back(kv.second);
      }
    }
    std::printf("%-34s %5d %12.0f %9.1f %9.1f %10.1f %10.0f %7d\n", names[c].c_str(), measured,
                Median(figures["rate"]), Median(figures["p50_ns"]) / 1000.0,
                Median(figures["p99_ns"]) / 1000.0, Median(figures["max_ns"]) / 1000.0,
                Median(figures["sender_refused_low"]), failed);
  }
  std::printf("%-34s %9s %9s %9s %10s %10s\n", "latency, every sample (pooled)", "samples",
              "P50 us", "P99 us", "P99.9 us", "max us");
  std::map<std::string, double> pooled_p99;
  for (std::size_t c = 0U; c < names.size(); ++c) {
    const std::string& name = names[c];
    if (name.empty()) {
      continue;
    }
    std::vector<uint64_t> all;
    for (const Round& r : runs) {
      if (taken(r, c)) {
        all.insert(all.end(), r.samples[c].begin(), r.samples[c].end());
      }
    }
    if (all.empty()) {
      continue;
    }
    std::sort(all.begin(), all.end());
    pooled_p99[name] = Quantile(all, 0.99);
    std::printf("%-34s %9zu %9.1f %9.1f %10.1f %10.1f\n", name.c_str(), all.size(),
                Quantile(all, 0.5) / 1000.0, Quantile(all, 0.99) / 1000.0,
                Quantile(all, 0.999) / 1000.0, static_cast<double>(all.back()) / 1000.0);
  }
  // a / b: the ratio of the medians and the median of the per-round ratios (NaN when either
  // configuration was not run).
  auto ratios = [&](const char* a, const char* b, const char* key) {
    std::vector<double> va;
    std::vector<double> vb;
    std::vector<double> per_round;
    if (index.count(a) != 0U && index.count(b) != 0U) {
      for (const Round& r : runs) {
        const auto& ra = r.values[index[a]];
        const auto& rb = r.values[index[b]];
        if (taken(r, index[a]) && taken(r, index[b]) && ra.count(key) != 0U &&
            rb.count(key) != 0U) {
          va.push_back(ra.at(key));
          vb.push_back(rb.at(key));
          per_round.push_back(ra.at(key) / std::max(1.0, rb.at(key)));
        }
      }
    }
    if (per_round.empty()) {
      return std::make_pair(std::nan(""), std::nan(""));
    }
    return std::make_pair(Median(va) / std::max(1.0, Median(vb)), Median(per_round));
  };
  const auto t24 = ratios("bridge 24B throughput", "raw 24B throughput", "rate");
  const auto t1k = ratios("bridge 1KB throughput", "raw 1KB throughput", "rate");
  const auto dr = ratios("raw 24B throughput DEALER/ROUTER", "raw 24B throughput", "rate");
  const auto c24 = ratios("bridge 24B throughput, CURVE", "bridge 24B throughput", "rate");
  const auto c1k = ratios("bridge 1KB throughput, CURVE", "bridge 1KB throughput", "rate");
  const auto cl24 =
      ratios("bridge 24B latency (MEDIUM), CURVE", "bridge 24B latency (MEDIUM)", "p50_ns");
  const auto cl1k =
      ratios("bridge 1KB latency (MEDIUM), CURVE", "bridge 1KB latency (MEDIUM)", "p50_ns");
  const auto high =
      ratios("bridge HIGH latency, LOW flood", "bridge HIGH latency, idle link", "p99_ns");
  const char* flood = "bridge HIGH latency, LOW flood";
  const char* idle = "bridge HIGH latency, idle link";
  const double pooled_high = pooled_p99.count(flood) != 0U && pooled_p99.count(idle) != 0U
                                 ? pooled_p99[flood] / pooled_p99[idle]
                                 : std::nan("");
  std::printf("(ratios: of the medians / median of the per-round ratios)\n");
  std::printf("bridge / raw PUSH/PULL throughput, 24 B: %.2fx / %.2fx (target >= 0.8x)\n",
              t24.first, t24.second);
  std::printf("bridge / raw PUSH/PULL throughput, 1 KB: %.2fx / %.2fx (target >= 0.8x)\n",
              t1k.first, t1k.second);
  std::printf("raw DEALER/ROUTER / raw PUSH/PULL throughput, 24 B: %.2fx / %.2fx\n", dr.first,
              dr.second);
  std::printf("bridge with CURVE / without, throughput 24 B: %.2fx / %.2fx, 1 KB: %.2fx / %.2fx\n",
              c24.first, c24.second, c1k.first, c1k.second);
  std::printf("bridge with CURVE / without, latency P50 24 B: %.2fx / %.2fx, 1 KB: %.2fx / %.2fx\n",
              cl24.first, cl24.second, cl1k.first, cl1k.second);
  std::printf(
      "HIGH P99 under LOW flood / idle: %.2fx / %.2fx; P99 of every sample %.2fx "
      "(target <= 2x)\n",
      high.first, high.second, pooled_high);
}

int Orchestrate(const std::map<std::string, std::string>& args) {
  signal(SIGPIPE, SIG_IGN);  // a child that is gone makes write fail, not the orchestrator die
  const uint64_t rounds = Num(args, "rounds", 5U);
  const std::string messages = std::to_string(Num(args, "messages", 200000U));
  const std::string latency_messages = std::to_string(Num(args, "latency-messages", 5000U));

  // CRC-32C cost per frame (header 52 B + payload), in this process.
  for (const std::size_t payload : {std::size_t{24}, std::size_t{1024}}) {
    std::vector<uint8_t> frame(mccc::bridge::kFrameHeaderBytes + payload, 0x5A);
    const int reps = 2000000;
    uint32_t sink = 0U;
    const uint64_t start = NowNs();
    for (int i = 0; i < reps; ++i) {
      frame[0] = static_cast<uint8_t>(i);
      sink ^= mccc::bridge::FrameCrc(frame.data(), frame.size());
    }
    const double ns = static_cast<double>(NowNs() - start) / reps;
    const uint64_t start_sw = NowNs();
    for (int i = 0; i < reps / 10; ++i) {
      frame[0] = static_cast<uint8_t>(i);
      sink ^= mccc::bridge::Crc32c::ComputeSoftware(frame.data(), frame.size());
    }
    const double ns_sw = static_cast<double>(NowNs() - start_sw) / (reps / 10);
    std::printf("crc32c frame of %zu B: %.1f ns (hardware path), %.1f ns (table-driven) [%u]\n",
                frame.size(), ns, ns_sw, sink & 1U);
  }

  // CURVE keys for the "CURVE" configurations: the receiver is the server, the sender the one
  // client it allows (both processes get all four; each takes its half).
  std::string server_public;
  std::string server_secret;
  std::string client_public;
  std::string client_secret;
  std::vector<std::string> curve;
  if (mccc::bridge::ZmqTransport::NewCurveKeyPair(server_public, server_secret) &&
      mccc::bridge::ZmqTransport::NewCurveKeyPair(client_public, client_secret)) {
    curve = {"--curve-server-public", server_public, "--curve-server-secret", server_secret,
             "--curve-client-public", client_public, "--curve-client-secret", client_secret};
  }
  auto with_curve = [&curve](std::vector<std::string> bridge_args) {
    bridge_args.insert(bridge_args.end(), curve.begin(), curve.end());
    return bridge_args;
  };

  struct Config {
    const char* name;
    const char* receiver;
    const char* sender;
    std::vector<std::string> receiver_args;
    std::vector<std::string> sender_args;
  };
  const std::vector<Config> configs = {
      {"raw 24B throughput",
       "raw-recv",
       "raw-send",
       {"--messages", messages, "--size", "24"},
       {"--messages", messages, "--size", "24"}},
      {"raw 24B throughput DEALER/ROUTER",
       "raw-recv",
       "raw-send",
       {"--messages", messages, "--size", "24", "--router", "1"},
       {"--messages", messages, "--size", "24", "--router", "1"}},
      {"bridge 24B throughput",
       "bridge-recv",
       "bridge-send",
       {"--messages", messages, "--size", "24"},
       {"--messages", messages, "--size", "24"}},
      {"raw 1KB throughput",
       "raw-recv",
       "raw-send",
       {"--messages", messages, "--size", "1024"},
       {"--messages", messages, "--size", "1024"}},
      {"bridge 1KB throughput",
       "bridge-recv",
       "bridge-send",
       {"--messages", messages, "--size", "1024"},
       {"--messages", messages, "--size", "1024"}},
      {"raw 24B latency",
       "raw-recv",
       "raw-send",
       {"--messages", latency_messages, "--size", "24"},
       {"--messages", latency_messages, "--size", "24", "--pace-ns", "100000"}},
      {"bridge 24B latency (MEDIUM)",
       "bridge-recv",
       "bridge-send",
       {"--messages", latency_messages, "--size", "24"},
       {"--messages", latency_messages, "--size", "24", "--pace-ns", "100000"}},
      {"raw 1KB latency",
       "raw-recv",
       "raw-send",
       {"--messages", latency_messages, "--size", "1024"},
       {"--messages", latency_messages, "--size", "1024", "--pace-ns", "100000"}},
      {"bridge 1KB latency (MEDIUM)",
       "bridge-recv",
       "bridge-send",
       {"--messages", latency_messages, "--size", "1024"},
       {"--messages", latency_messages, "--size", "1024", "--pace-ns", "100000"}},
      {"bridge 24B throughput, CURVE", "bridge-recv", "bridge-send",
       with_curve({"--messages", messages, "--size", "24"}),
       with_curve({"--messages", messages, "--size", "24"})},
      {"bridge 1KB throughput, CURVE", "bridge-recv", "bridge-send",
       with_curve({"--messages", messages, "--size", "1024"}),
       with_curve({"--messages", messages, "--size", "1024"})},
      {"bridge 24B latency (MEDIUM), CURVE", "bridge-recv", "bridge-send",
       with_curve({"--messages", latency_messages, "--size", "24"}),
       with_curve({"--messages", latency_messages, "--size", "24", "--pace-ns", "100000"})},
      {"bridge 1KB latency (MEDIUM), CURVE", "bridge-recv", "bridge-send",
       with_curve({"--messages", latency_messages, "--size", "1024"}),
       with_curve({"--messages", latency_messages, "--size", "1024", "--pace-ns", "100000"})},
      {"bridge HIGH latency, idle link",
       "bridge-recv",
       "bridge-send",
       {"--messages", latency_messages, "--size", "24", "--high-only", "1"},
       {"--messages", latency_messages, "--size", "24", "--pace-ns", "1000000", "--high", "1"}},
      {"bridge HIGH latency, LOW flood",
       "bridge-recv",
       "bridge-send",
       {"--messages", latency_messages, "--size", "24", "--high-only", "1"},
       {"--messages", latency_messages, "--size", "24", "--pace-ns", "1000000", "--high", "1",
        "--flood", "1"}},
  };
  const std::string only = Str(args, "only");
  auto selected = [&](std::size_t c) {
    return only.empty() || std::string(configs[c].name).find(only) != std::string::npos;
  };
  // Latency configurations: every sample of every round is kept, to be pooled. The median of the
  // rounds' P99s follows the few rounds in which the virtual machine stalled; the P99 of all
  // samples is the P99 of the latency distribution over the rounds, interleaved with the other
  // configurations.
  auto is_latency = [&](std::size_t c) {
    return std::string(configs[c].name).find("latency") != std::string::npos;
  };
  const std::string samples_path = (std::filesystem::temp_directory_path() /
                                    ("mccc-bridge-bench-" + std::to_string(getpid()) + ".samples"))
                                       .string();
  std::vector<Round> runs;
  bool pinned = false;
  double handoff_ns = mccc_bench::RunPingPong(kPingPongIterations, &pinned);
  for (uint64_t round = 0U; round < rounds; ++round) {
    Round record;
    record.values.resize(configs.size());
    record.samples.resize(configs.size());
    record.failed.resize(configs.size(), false);
    record.where.resize(configs.size(), Placement::kMixed);
    for (std::size_t c = 0U; c < configs.size(); ++c) {
      if (!selected(c)) {
        continue;
      }
      std::vector<std::string> receiver_args = configs[c].receiver_args;
      if (is_latency(c)) {
        receiver_args.insert(receiver_args.end(), {"--samples", samples_path});
      }
      const double handoff_before_ns = handoff_ns;
      auto values =
          RunPair(configs[c].receiver, configs[c].sender, receiver_args, configs[c].sender_args);
      handoff_ns = mccc_bench::RunPingPong(kPingPongIterations, &pinned);
      record.where[c] = mccc_bench::ClassifyPlacement(handoff_before_ns, handoff_ns);
      const bool ok = values.count("exit") != 0U && values["exit"] == 0.0 &&
                      values.count("sender_exit") != 0U && values["sender_exit"] == 0.0;
      if (is_latency(c)) {
        if (ok) {
          record.samples[c] = ReadSamples(samples_path);
        }
        std::remove(samples_path.c_str());
      }
      if (ok) {  // a run that failed (timed out, out of sequence) is counted, not averaged
        record.values[c] = values;
      } else {
        record.failed[c] = true;
      }
      std::fprintf(stderr,
                   "round %llu %-34s rate %.0f p50 %.0f p99 %.0f exit %.0f/%.0f handoff %.0f -> "
                   "%.0f ns (%s)\n",
                   static_cast<unsigned long long>(round), configs[c].name,
                   values.count("rate") ? values.at("rate") : 0.0,
                   values.count("p50_ns") ? values.at("p50_ns") : 0.0,
                   values.count("p99_ns") ? values.at("p99_ns") : 0.0,
                   values.count("exit") ? values.at("exit") : -1.0,
                   values.count("sender_exit") ? values.at("sender_exit") : -1.0, handoff_before_ns,
                   handoff_ns, PlacementName(record.where[c]));
    }
    runs.push_back(std::move(record));
  }

  std::vector<std::string> names;
  for (std::size_t c = 0U; c < configs.size(); ++c) {
    names.push_back(selected(c) ? configs[c].name : std::string());
  }
  std::printf(
      "\nipc://, HWM %d; %llu interleaved rounds; each configuration run is classed by the "
      "one-way core-to-core handoff measured just before and after it (near: both below "
      "%.0f ns, far: both at or above, else mixed)\n",
      kHighWaterMark, static_cast<unsigned long long>(rounds), kFarHandoffNs);
  Report(runs, names, "all runs", std::nullopt);
  Report(runs, names, "near runs", Placement::kNear);
  Report(runs, names, "far runs", Placement::kFar);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string role = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
  const auto args = ParseArgs(argc, argv, role.empty() ? 1 : 2);
  if (role == "raw-recv") {
    return RawReceive(args);
  }
  if (role == "raw-send") {
    return RawSend(args);
  }
  const bool large = Num(args, "size", 24U) == 1024U;
  if (role == "bridge-recv") {
    return large ? BridgeReceive<BenchBus<Large, kReceiveBusDepth>, Large>(args)
                 : BridgeReceive<BenchBus<Small, kReceiveBusDepth>, Small>(args);
  }
  if (role == "bridge-send") {
    return large ? BridgeSend<BenchBus<Large, kSendBusDepth>, Large>(args)
                 : BridgeSend<BenchBus<Small, kSendBusDepth>, Small>(args);
  }
  return Orchestrate(args);
}
