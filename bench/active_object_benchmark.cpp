// SPDX-License-Identifier: MIT
// smoke-args: --idle-ms 20 --samples 20 --gap-us 500 --messages 20000 --rounds 1
// active_object_benchmark: the three figures the ActiveObject promises, per idle strategy.
//
//  1. Idle CPU: CPU time of the consumer thread (its own CPU clock, pthread_getcpuclockid) while
//     the bus stays empty for --idle-ms, as a percentage of one core. Target for the sleeping
//     strategy: < 1%.
//  2. Wake-up latency: the producer spins for --gap-us (so a sleeping consumer is asleep in the
//     kernel), then publishes one message carrying a steady_clock timestamp; the callback
//     records now - timestamp. One message in flight at a time, --samples samples; P50/P99.
//     "asleep %" is the share of samples during whose gap the consumer entered a sleep.
//  3. Throughput: one producer pinned to --producer-core, the consumer pinned to
//     --consumer-core, --messages messages per run, end to end (first publish to last
//     delivery). The contenders are a bare `while (running) bus.ProcessBatch();` thread, the
//     same loop with a CPU relax hint (PAUSE) after an empty poll (what the ActiveObject's spin
//     phase does, so the pair isolates the ActiveObject's own overhead), and ActiveObjects with
//     the busy-spin and the sleeping strategy; the runs are interleaved (round robin, --rounds
//     rounds) and the median of each is compared (target: >= 95% of the bare loop).
//
// Output: a table per section and one line starting with "JSON: " holding every figure.
// Run it alone on the machine (e.g. under flock with the lock file every benchmark run takes):
// other load distorts all three figures. `--quick` shrinks every section for a smoke run.
#include <mccc/mccc.hpp>

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------
struct Config {
  uint32_t idle_ms = 2000U;
  uint32_t samples = 1000U;
  uint32_t gap_us = 2000U;
  uint64_t messages = 10000000U;
  uint32_t rounds = 5U;
  int producer_core = 0;
  int consumer_core = 1;
};

bool ParseUnsigned(const char* text, uint64_t& value) {
  char* end = nullptr;
  const unsigned long long parsed = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0') return false;
  value = parsed;
  return true;
}

bool ParseArgs(int argc, char** argv, Config& config) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      config.idle_ms = 300U;
      config.samples = 200U;
      config.messages = 2000000U;
      config.rounds = 3U;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "missing value after %s\n", arg.c_str());
      return false;
    }
    uint64_t value = 0U;
    if (!ParseUnsigned(argv[++i], value)) {
      std::fprintf(stderr, "bad number for %s\n", arg.c_str());
      return false;
    }
    if (arg == "--idle-ms") {
      config.idle_ms = static_cast<uint32_t>(value);
    } else if (arg == "--samples") {
      config.samples = static_cast<uint32_t>(std::max<uint64_t>(value, 1U));
    } else if (arg == "--gap-us") {
      config.gap_us = static_cast<uint32_t>(value);
    } else if (arg == "--messages") {
      config.messages = std::max<uint64_t>(value, 1U);
    } else if (arg == "--rounds") {
      config.rounds = static_cast<uint32_t>(std::max<uint64_t>(value, 1U));
    } else if (arg == "--producer-core") {
      config.producer_core = static_cast<int>(value);
    } else if (arg == "--consumer-core") {
      config.consumer_core = static_cast<int>(value);
    } else {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Bus, clocks, helpers
// ---------------------------------------------------------------------------------------------
struct Sample {  // 24 bytes, a typical sensor sample
  uint64_t seq;
  float x;
  float y;
  float z;
  float w;
};
struct Stamp {
  uint64_t sent_ns;
};
using Payload = std::variant<Sample, Stamp>;
using Bus = mccc::AsyncBus<Payload>;  // default traits: 131,072 slots, multi-producer
using Consumer = mccc::ActiveObject<Bus>;

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

uint64_t ThreadCpuNs(pthread_t thread) {
  clockid_t clock{};
  timespec ts{};
  if (pthread_getcpuclockid(thread, &clock) != 0 || clock_gettime(clock, &ts) != 0) return 0U;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000U + static_cast<uint64_t>(ts.tv_nsec);
}

bool PinThisThread(int core) {
  if (core < 0 || core >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(core), &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

struct Strategy {
  const char* name;
  mccc::IdleStrategy idle;
};

const Strategy kStrategies[] = {
    {"busy-spin", mccc::IdleStrategy::BusySpin()},
    {"spin-yield", mccc::IdleStrategy::SpinThenYield()},
    {"spin-yield-sleep", mccc::IdleStrategy::SpinThenYieldThenSleep()},
};

mccc::ActiveObjectOptions OptionsFor(const mccc::IdleStrategy& idle, int core) {
  mccc::ActiveObjectOptions options;
  options.idle_strategy = idle;
  options.cpu = core;
  options.thread_name = "mccc-bench-ao";
  return options;
}

template <typename Condition>
bool SpinUntil(Condition condition, std::chrono::seconds timeout = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    mccc::CpuRelax();
  }
  return true;
}

double Percentile(std::vector<uint64_t>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1U);
  const auto index = static_cast<std::size_t>(rank + 0.5);
  return static_cast<double>(sorted[std::min(index, sorted.size() - 1U)]);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  if (n == 0U) return 0.0;
  return (n % 2U == 1U) ? values[n / 2U] : (values[n / 2U - 1U] + values[n / 2U]) / 2.0;
}

// ---------------------------------------------------------------------------------------------
// 1. Idle CPU
// ---------------------------------------------------------------------------------------------
double MeasureIdleCpuPercent(const Config& config, const mccc::IdleStrategy& idle,
                             uint64_t& sleeps) {
  auto bus = std::make_unique<Bus>();
  std::atomic<uint32_t> delivered{0U};
  bus->Subscribe<Stamp>([&delivered](const Stamp&) { delivered.fetch_add(1U); });
  Consumer consumer(*bus, OptionsFor(idle, config.consumer_core));
  if (consumer.Start().status != mccc::StartStatus::kStarted) return -1.0;
  // One message first: the consumer is past its start-up and in its normal idle path.
  static_cast<void>(bus->Publish(Stamp{0U}, 0U));
  if (!SpinUntil([&] { return delivered.load() == 1U; })) return -1.0;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));

  const uint64_t sleeps_before = consumer.SleepCount();
  const uint64_t cpu_before = ThreadCpuNs(consumer.NativeHandle());
  const uint64_t wall_before = NowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(config.idle_ms));
  const uint64_t cpu_after = ThreadCpuNs(consumer.NativeHandle());
  const uint64_t wall_after = NowNs();
  sleeps = consumer.SleepCount() - sleeps_before;
  static_cast<void>(consumer.Stop());
  return 100.0 * static_cast<double>(cpu_after - cpu_before) /
         static_cast<double>(wall_after - wall_before);
}

// ---------------------------------------------------------------------------------------------
// 2. Wake-up latency
// ---------------------------------------------------------------------------------------------
struct LatencyResult {
  double p50_ns = 0.0;
  double p99_ns = 0.0;
  double p999_ns = 0.0;
  double max_ns = 0.0;
  double asleep_percent = 0.0;  // samples during which the consumer had entered a sleep
  bool ok = false;
};

LatencyResult MeasureWakeLatency(const Config& config, const mccc::IdleStrategy& idle) {
  LatencyResult result;
  auto bus = std::make_unique<Bus>();
  std::vector<uint64_t> latencies(config.samples, 0U);
  std::atomic<uint32_t> delivered{0U};
  // Consumer-only writes into a preallocated vector; the atomic hands each sample over.
  bus->Subscribe<Stamp>([&latencies, &delivered](const Stamp& stamp) {
    const uint64_t now = NowNs();
    const uint32_t index = delivered.load(std::memory_order_relaxed);
    if (index < latencies.size()) latencies[index] = now - stamp.sent_ns;
    delivered.store(index + 1U, std::memory_order_release);
  });
  Consumer consumer(*bus, OptionsFor(idle, config.consumer_core));
  if (consumer.Start().status != mccc::StartStatus::kStarted) return result;

  uint32_t asleep = 0U;
  for (uint32_t i = 0U; i < config.samples; ++i) {
    const uint64_t sleeps_before = consumer.SleepCount();
    // The producer waits by spinning, not sleeping: a producer waking from its own sleep would
    // add its own wake-up latency to every sample and hide the consumer's figure.
    const uint64_t gap_end = NowNs() + uint64_t{config.gap_us} * 1000U;
    while (NowNs() < gap_end) {
      mccc::CpuRelax();
    }
    if (consumer.SleepCount() != sleeps_before) ++asleep;
    if (!bus->PublishFast(Stamp{NowNs()}, 0U, 0U)) return result;
    if (!SpinUntil([&] { return delivered.load(std::memory_order_acquire) == i + 1U; })) {
      return result;
    }
  }
  static_cast<void>(consumer.Stop());
  std::sort(latencies.begin(), latencies.end());
  result.p50_ns = Percentile(latencies, 50.0);
  result.p99_ns = Percentile(latencies, 99.0);
  result.p999_ns = Percentile(latencies, 99.9);
  result.max_ns = static_cast<double>(latencies.back());
  result.asleep_percent = 100.0 * asleep / static_cast<double>(config.samples);
  result.ok = true;
  return result;
}

// ---------------------------------------------------------------------------------------------
// 3. Throughput: bare loop vs ActiveObject
// ---------------------------------------------------------------------------------------------
enum class Contender { kBareLoop, kBareLoopRelax, kActiveBusySpin, kActiveSleep };
const char* const kContenderNames[] = {"bare ProcessBatch loop", "bare loop + pause when empty",
                                       "ActiveObject busy-spin", "ActiveObject spin-yield-sleep"};
constexpr std::size_t kContenders = std::size(kContenderNames);

// Consumer-side state shared by every contender: written only by the consumer thread.
struct Sink {
  uint64_t expected = 0U;
  uint64_t received = 0U;
  uint64_t checksum = 0U;
  alignas(64) std::atomic<uint64_t> end_ns{0U};  // set by the consumer at the last message
};

// The bare loops' stop flag, on a cache line of its own: on the producer's stack it would share
// a line with the producer's hot locals, and every poll of the flag would then pull that line
// away from the producer (false sharing that slows the bare loop, not the bus).
struct alignas(64) RunFlag {
  std::atomic<bool> running{true};
};

// Returns messages per second, or a negative value on failure.
double RunThroughput(const Config& config, Contender contender) {
  auto bus = std::make_unique<Bus>();
  auto sink = std::make_unique<Sink>();
  sink->expected = config.messages;
  Sink* s = sink.get();
  bus->Subscribe<Sample>([s](const Sample& sample) {
    s->checksum += sample.seq;
    if (++s->received == s->expected) s->end_ns.store(NowNs(), std::memory_order_release);
  });

  auto flag = std::make_unique<RunFlag>();
  std::atomic<bool>& running = flag->running;
  std::thread bare;
  std::unique_ptr<Consumer> active;
  if (contender == Contender::kBareLoop) {
    Bus& b = *bus;
    const int core = config.consumer_core;
    bare = std::thread([&b, &running, core] {
      static_cast<void>(PinThisThread(core));
      while (running.load(std::memory_order_relaxed)) {
        b.ProcessBatch();
      }
    });
  } else if (contender == Contender::kBareLoopRelax) {
    Bus& b = *bus;
    const int core = config.consumer_core;
    bare = std::thread([&b, &running, core] {
      static_cast<void>(PinThisThread(core));
      while (running.load(std::memory_order_relaxed)) {
        if (b.ProcessBatch() == 0U) mccc::CpuRelax();
      }
    });
  } else {
    const mccc::IdleStrategy idle = contender == Contender::kActiveBusySpin
                                        ? mccc::IdleStrategy::BusySpin()
                                        : mccc::IdleStrategy::SpinThenYieldThenSleep();
    active = std::make_unique<Consumer>(*bus, OptionsFor(idle, config.consumer_core));
    if (active->Start().status != mccc::StartStatus::kStarted) return -1.0;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // consumer settled in its loop

  // The producer is this thread (pinned by main).
  const uint64_t start_ns = NowNs();
  for (uint64_t i = 0U; i < config.messages; ++i) {
    while (!bus->PublishFast(Sample{i, 1.0F, 2.0F, 3.0F, 4.0F}, 1U, 0U)) {
      mccc::CpuRelax();  // above the MEDIUM threshold: wait for the consumer
    }
  }
  const bool done = SpinUntil([s] { return s->end_ns.load(std::memory_order_acquire) != 0U; });
  const uint64_t end_ns = s->end_ns.load(std::memory_order_acquire);

  running.store(false, std::memory_order_relaxed);
  if (bare.joinable()) bare.join();
  if (active) static_cast<void>(active->Stop());
  const uint64_t expected_sum = config.messages * (config.messages - 1U) / 2U;
  if (!done || s->checksum != expected_sum) return -1.0;
  return static_cast<double>(config.messages) * 1e9 / static_cast<double>(end_ns - start_ns);
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  if (!ParseArgs(argc, argv, config)) {
    std::fprintf(stderr,
                 "usage: %s [--quick] [--idle-ms N] [--samples N] [--gap-us N] [--messages N] "
                 "[--rounds N] [--producer-core N] [--consumer-core N]\n",
                 argv[0]);
    return 2;
  }
  const bool pinned = PinThisThread(config.producer_core);
  std::printf(
      "mccc %d.%d.%d active_object_benchmark: %u cores, producer core %d%s, consumer "
      "core %d\n",
      MCCC_VERSION_MAJOR, MCCC_VERSION_MINOR, MCCC_VERSION_PATCH,
      std::thread::hardware_concurrency(), config.producer_core, pinned ? "" : " (pinning FAILED)",
      config.consumer_core);

  bool ok = true;
  std::string json = "{\"benchmark\":\"active_object\"";

  // 1. Idle CPU.
  std::printf("\n1. Idle consumer CPU (%u ms idle, %% of one core)\n", config.idle_ms);
  std::printf("%-18s %10s %8s\n", "strategy", "cpu %", "sleeps");
  json += ",\"idle_cpu_percent\":{";
  for (std::size_t i = 0U; i < std::size(kStrategies); ++i) {
    uint64_t sleeps = 0U;
    const double cpu = MeasureIdleCpuPercent(config, kStrategies[i].idle, sleeps);
    ok = ok && cpu >= 0.0;
    std::printf("%-18s %10.3f %8llu\n", kStrategies[i].name, cpu,
                static_cast<unsigned long long>(sleeps));
    char buffer[96];
    std::snprintf(buffer, sizeof(buffer), "%s\"%s\":%.4f", i == 0U ? "" : ",", kStrategies[i].name,
                  cpu);
    json += buffer;
  }
  json += "}";

  // 2. Wake-up latency.
  std::printf("\n2. Wake-up latency, publish -> callback (%u samples, %u us apart), ns\n",
              config.samples, config.gap_us);
  std::printf("%-18s %10s %10s %10s %10s %9s\n", "strategy", "P50", "P99", "P99.9", "max",
              "asleep %");
  json += ",\"wake_latency_ns\":{";
  for (std::size_t i = 0U; i < std::size(kStrategies); ++i) {
    const LatencyResult r = MeasureWakeLatency(config, kStrategies[i].idle);
    ok = ok && r.ok;
    std::printf("%-18s %10.0f %10.0f %10.0f %10.0f %9.1f\n", kStrategies[i].name, r.p50_ns,
                r.p99_ns, r.p999_ns, r.max_ns, r.asleep_percent);
    char buffer[192];
    std::snprintf(buffer, sizeof(buffer),
                  "%s\"%s\":{\"p50\":%.0f,\"p99\":%.0f,\"p999\":%.0f,\"max\":%.0f,"
                  "\"asleep_percent\":%.1f}",
                  i == 0U ? "" : ",", kStrategies[i].name, r.p50_ns, r.p99_ns, r.p999_ns, r.max_ns,
                  r.asleep_percent);
    json += buffer;
  }
  json += "}";

  // 3. Throughput, interleaved rounds.
  std::printf("\n3. Busy throughput, 1 producer -> 1 consumer, %llu messages x %u rounds\n",
              static_cast<unsigned long long>(config.messages), config.rounds);
  std::vector<double> rates[kContenders];
  for (uint32_t round = 0U; round < config.rounds; ++round) {
    for (std::size_t c = 0U; c < kContenders; ++c) {
      // Rotate the order each round so no contender always runs first.
      const std::size_t index = (c + round) % kContenders;
      const double rate = RunThroughput(config, static_cast<Contender>(index));
      ok = ok && rate > 0.0;
      rates[index].push_back(rate);
    }
  }
  const double bare = Median(rates[0]);
  const double bare_relax = Median(rates[1]);
  std::printf("%-30s %14s %10s %10s %10s %10s\n", "consumer", "median Mmsg/s", "min", "max",
              "vs bare", "vs pause");
  json += ",\"throughput_msgs_per_s\":{";
  for (std::size_t c = 0U; c < kContenders; ++c) {
    const double median = Median(rates[c]);
    const auto [lo, hi] = std::minmax_element(rates[c].begin(), rates[c].end());
    std::printf("%-30s %14.2f %10.2f %10.2f %9.1f%% %9.1f%%\n", kContenderNames[c], median / 1e6,
                *lo / 1e6, *hi / 1e6, bare > 0.0 ? 100.0 * median / bare : 0.0,
                bare_relax > 0.0 ? 100.0 * median / bare_relax : 0.0);
    char buffer[200];
    std::snprintf(buffer, sizeof(buffer),
                  "%s\"%s\":{\"median\":%.0f,\"ratio_vs_bare\":%.4f,\"ratio_vs_bare_pause\":%.4f}",
                  c == 0U ? "" : ",", kContenderNames[c], median, bare > 0.0 ? median / bare : 0.0,
                  bare_relax > 0.0 ? median / bare_relax : 0.0);
    json += buffer;
  }
  json += "}";
  char tail[160];
  std::snprintf(tail, sizeof(tail),
                ",\"config\":{\"idle_ms\":%u,\"samples\":%u,\"gap_us\":%u,\"messages\":%llu,"
                "\"rounds\":%u},\"ok\":%s}",
                config.idle_ms, config.samples, config.gap_us,
                static_cast<unsigned long long>(config.messages), config.rounds,
                ok ? "true" : "false");
  json += tail;
  std::printf("\nJSON: %s\n", json.c_str());
  return ok ? 0 : 1;
}
