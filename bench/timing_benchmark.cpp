// SPDX-License-Identifier: MIT
// smoke-args: --smoke
/// @file timing_benchmark.cpp
/// @brief The latency distribution of single bus calls under load, for docs/timing.md: P50, P99,
/// P99.9, P99.99 and the maximum of one `Publish` (timestamped, the default bus) and of one
/// `ProcessBatch` that dispatched exactly 1, 64 or 1,024 messages.
///
/// Every call is timed on its own, between two `rdtscp; lfence` readings of the time-stamp
/// counter (steady_clock nanoseconds off x86): rdtscp waits for the instructions before it, and
/// the lfence keeps the ones after it from starting early, so the interval holds the call and
/// nothing of its neighbours. The two readings' own cost is measured first, on the same thread,
/// and reported next to the figures (which include it). Samples go into a histogram that is
/// exact (one bucket per tick) up to 65,535 ticks and has 64 buckets per power of two above
/// that; the maximum is kept exactly.
///
/// Scenarios (the thread layout is the point of each; CPU numbers are those of pinning, and a
/// failed pinning is reported):
/// - publish: the measured producer on CPU 0 publishes one MEDIUM message every --period-ns
///   (paced by the counter, not back to back, as a sensor task would); the consumer on CPU 1
///   dispatches in a busy loop; --load-threads more producers, also on CPU 1, publish LOW
///   messages back to back the whole time. The ring therefore fills to the LOW admission limit
///   (60 %) whenever the consumer is not running, the load's claims contend with the measured
///   thread's on the ring's tail across the two cores, and the measured MEDIUM messages stay
///   admitted (refusals, if any, are timed and counted apart).
/// - consume-N (N = 1, 64, 1024): a bus whose kBatchSize is N; --load-threads producers on
///   CPU 0 publish MEDIUM messages back to back; the consumer alone on CPU 1 waits until at
///   least N messages are queued, then times one ProcessBatch. Only calls that dispatched
///   exactly N count (a slot still being written can end a batch early; those are counted).
/// - first-touch: one thread publishes a whole ring's worth into a bus that is constant-initialised
///   in static storage, twice, dispatching every 1,024 messages: the first lap writes each page of
///   the ring for the first time (page faults, counted), the second does not.
/// One subscriber adds a field of each message to a sum: the dispatch cost, not the callback's.
/// Each scenario ends by stopping the producers and draining; every admitted message must then
/// have been dispatched, or the program fails.
///
/// Usage: timing_benchmark [--smoke] [--mode all|first-touch|publish|consume] [--publish-seconds S]
///          [--consume-seconds S] [--load-threads N] [--period-ns P] [--json FILE]
///   --smoke: a fraction of a second per scenario (CTest's bench-smoke), no figures worth
///   reading. Defaults: 180 s of publishing, 60 s per batch size, 2 load threads, P = 1000.
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "common/report.hpp"  // MCCC_BENCH_FLAGS, pinning, pause, clocks, UTC time
#include "mccc/mccc.hpp"

namespace {

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------
/// One edge of a timed interval (see the file comment): the harness's ordered read.
inline uint64_t TimerEdge() {
  return mccc_bench::Ticks::ReadOrdered();
}

/// The counter without ordering: for pacing only.
inline uint64_t Now() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return mccc_bench::NowNs();
#endif
}

/// Counter ticks per nanosecond, measured against steady_clock over `window_ms`.
double MeasureTicksPerNs(int window_ms) {
  const uint64_t ns0 = mccc_bench::NowNs();
  const uint64_t t0 = Now();
  std::this_thread::sleep_for(std::chrono::milliseconds(window_ms));
  const uint64_t ns1 = mccc_bench::NowNs();
  const uint64_t t1 = Now();
  return static_cast<double>(t1 - t0) / static_cast<double>(ns1 - ns0);
}

/// Context switches of the calling thread so far: {involuntary (preempted), voluntary}.
std::array<uint64_t, 2> ContextSwitches() {
  rusage usage{};
  if (getrusage(RUSAGE_THREAD, &usage) != 0) {
    return {0U, 0U};
  }
  return {static_cast<uint64_t>(usage.ru_nivcsw), static_cast<uint64_t>(usage.ru_nvcsw)};
}

/// Time the hypervisor ran something else on any of this machine's CPUs ("steal", Linux
/// /proc/stat), in milliseconds; 0 where it cannot be read.
uint64_t StealMs() {
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (f == nullptr) {
    return 0U;
  }
  unsigned long long user = 0U;
  unsigned long long nice = 0U;
  unsigned long long system = 0U;
  unsigned long long idle = 0U;
  unsigned long long iowait = 0U;
  unsigned long long irq = 0U;
  unsigned long long softirq = 0U;
  unsigned long long steal = 0U;
  const int read = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
                               &system, &idle, &iowait, &irq, &softirq, &steal);
  std::fclose(f);
  const long ticks_per_s = sysconf(_SC_CLK_TCK);
  if (read != 8 || ticks_per_s <= 0) {
    return 0U;
  }
  return static_cast<uint64_t>(steal) * 1000U / static_cast<uint64_t>(ticks_per_s);
}

/// The 1-minute load average (other processes competing for the two CPUs), or -1.
double LoadAverage() {
  double load = -1.0;
  return getloadavg(&load, 1) == 1 ? load : -1.0;
}

constexpr int kProducerCpu = 0;
constexpr int kConsumerCpu = 1;

// ---------------------------------------------------------------------------------------------
// The histogram
// ---------------------------------------------------------------------------------------------
class Histogram {
 public:
  Histogram() : exact_(kExact, 0U), octaves_(kOctaves * kSubBuckets, 0U) {}

  void Add(uint64_t ticks) {
    ++count_;
    max_ = ticks > max_ ? ticks : max_;
    if (ticks < kExact) {
      ++exact_[ticks];
    } else {
      ++octaves_[IndexOf(ticks)];
    }
  }

  uint64_t Count() const { return count_; }
  uint64_t Max() const { return max_; }

  /// Samples above `ticks` (exact below kExact; above it, whole buckets, so a bucket straddling
  /// `ticks` counts entirely).
  uint64_t CountAbove(uint64_t ticks) const {
    uint64_t above = 0U;
    for (uint64_t v = ticks + 1U; v < kExact; ++v) {
      above += exact_[v];
    }
    for (std::size_t i = 0U; i < octaves_.size(); ++i) {
      if (UpperEdge(i) > ticks) {
        above += octaves_[i];
      }
    }
    return above;
  }

  /// The smallest value at or below which a fraction `p` of the samples lie (above kExact: the
  /// upper edge of its bucket, at most 1/64 above the true value; never above the maximum).
  uint64_t Percentile(double p) const {
    if (count_ == 0U) {
      return 0U;
    }
    const auto rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(count_)));
    uint64_t seen = 0U;
    for (uint64_t v = 0U; v < kExact; ++v) {
      seen += exact_[v];
      if (seen >= rank) {
        return v;
      }
    }
    for (std::size_t i = 0U; i < octaves_.size(); ++i) {
      seen += octaves_[i];
      if (seen >= rank) {
        return std::min(UpperEdge(i), max_);
      }
    }
    return max_;
  }

 private:
  static constexpr uint64_t kExactBits = 16U;
  static constexpr uint64_t kExact = uint64_t{1} << kExactBits;
  static constexpr uint64_t kSubBits = 6U;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBits;
  static constexpr uint64_t kOctaves = 64U - kExactBits;

  static std::size_t IndexOf(uint64_t ticks) {
    const auto top = static_cast<uint64_t>(63 - __builtin_clzll(ticks));  // >= kExactBits
    const uint64_t octave = top - kExactBits;
    const uint64_t sub = (ticks >> (top - kSubBits)) & (kSubBuckets - 1U);
    return static_cast<std::size_t>(octave * kSubBuckets + sub);
  }

  static uint64_t UpperEdge(std::size_t index) {
    const uint64_t octave = index / kSubBuckets;
    const uint64_t sub = index % kSubBuckets;
    const uint64_t shift = octave + kExactBits - kSubBits;
    return ((kSubBuckets + sub + 1U) << shift) - 1U;
  }

  std::vector<uint32_t> exact_;
  std::vector<uint32_t> octaves_;
  uint64_t count_ = 0U;
  uint64_t max_ = 0U;
};

// ---------------------------------------------------------------------------------------------
// Messages and buses
// ---------------------------------------------------------------------------------------------
struct Reading {
  uint64_t sequence;
  uint64_t value;
  uint64_t source;
};
struct Tick {
  uint32_t count;
};
using Payload = std::variant<Reading, Tick>;

using PublishBus = mccc::AsyncBus<Payload>;  // the default bus

// A bus that is constant-initialised in static storage (no clock to read, no run-time choice of
// fence), as a program that keeps its bus in a global gets: nothing touches its pages before the
// first publish does.
struct StaticTraits : mccc::DefaultBusTraits {
  using Clock = mccc::NullClock;
  static constexpr bool kAsymmetricFence = false;
};
using StaticBus = mccc::AsyncBus<Payload, StaticTraits>;
StaticBus g_static_bus;

template <uint32_t kBatch>
struct BatchTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kBatchSize = kBatch;
};
template <uint32_t kBatch>
using ConsumeBus = mccc::AsyncBus<Payload, BatchTraits<kBatch>>;

// ---------------------------------------------------------------------------------------------
// Options and results
// ---------------------------------------------------------------------------------------------
struct Options {
  bool smoke = false;
  std::string mode = "all";
  double publish_seconds = 180.0;
  double consume_seconds = 60.0;
  int load_threads = 2;
  uint64_t period_ns = 1000U;
  std::string json_path;
};

double g_ticks_per_ns = 1.0;

/// The machine around a measured phase, read when it begins and when it ends: the timed
/// thread's involuntary context switches, the host's steal time and the load average.
struct PhaseContext {
  uint64_t preempted = 0U;  // involuntary context switches of the timed thread meanwhile
  uint64_t steal_ms = 0U;   // hypervisor steal time meanwhile (all CPUs)
  double load_before = -1.0;
  double load_after = -1.0;  // 1-minute load average before and after
  bool recorded = false;     // Begin and End were called

  void Begin() {
    switches_at_begin_ = ContextSwitches()[0];
    steal_at_begin_ = StealMs();
    load_before = LoadAverage();
  }
  void End() {
    preempted = ContextSwitches()[0] - switches_at_begin_;
    steal_ms = StealMs() - steal_at_begin_;
    load_after = LoadAverage();
    recorded = true;
  }

 private:
  uint64_t switches_at_begin_ = 0U;
  uint64_t steal_at_begin_ = 0U;
};

struct Summary {
  std::string name;
  std::string load;
  uint64_t samples = 0U;
  uint64_t p50 = 0U;
  uint64_t p99 = 0U;
  uint64_t p999 = 0U;
  uint64_t p9999 = 0U;
  uint64_t max = 0U;
  uint64_t over_10us = 0U;  // samples above 10 microseconds
  PhaseContext context;     // the machine meanwhile (recorded by the loaded scenarios)
  std::string extra;        // scenario counters, as JSON members
};

Summary Summarise(const std::string& name, const std::string& load, const Histogram& h) {
  Summary s;
  s.name = name;
  s.load = load;
  s.samples = h.Count();
  s.p50 = h.Percentile(0.5);
  s.p99 = h.Percentile(0.99);
  s.p999 = h.Percentile(0.999);
  s.p9999 = h.Percentile(0.9999);
  s.max = h.Max();
  s.over_10us = h.CountAbove(static_cast<uint64_t>(10000.0 * g_ticks_per_ns));
  return s;
}

bool g_pinning_failed = false;
bool g_failed = false;

double ToNs(uint64_t ticks) {
  return static_cast<double>(ticks) / g_ticks_per_ns;
}

void Print(const Summary& s) {
  std::printf("%-22s samples=%" PRIu64
              "  P50=%.0f ns  P99=%.0f ns  P99.9=%.0f ns  P99.99=%.0f ns  "
              "max=%.0f ns  (ticks: %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
              "); over 10 us: %" PRIu64,
              s.name.c_str(), s.samples, ToNs(s.p50), ToNs(s.p99), ToNs(s.p999), ToNs(s.p9999),
              ToNs(s.max), s.p50, s.p99, s.p999, s.p9999, s.max, s.over_10us);
  if (s.context.recorded) {
    std::printf("; preempted %" PRIu64 " times; steal %" PRIu64 " ms; load average %.2f -> %.2f",
                s.context.preempted, s.context.steal_ms, s.context.load_before,
                s.context.load_after);
  }
  std::printf("\n");
  std::fflush(stdout);
}

void Pin(int cpu) {
  if (!mccc_bench::PinThisThread(cpu)) {
    g_pinning_failed = true;
  }
}

// ---------------------------------------------------------------------------------------------
// The timer's own cost
// ---------------------------------------------------------------------------------------------
Summary MeasureTimerOverhead(uint64_t samples) {
  Pin(kProducerCpu);
  Histogram h;
  for (uint64_t i = 0U; i < samples; ++i) {
    const uint64_t t0 = TimerEdge();
    const uint64_t t1 = TimerEdge();
    h.Add(t1 - t0);
  }
  return Summarise("timer_overhead", "none (the measuring thread alone, CPU 0)", h);
}

// ---------------------------------------------------------------------------------------------
// Scenario: the first lap of a bus in static storage
// ---------------------------------------------------------------------------------------------
long MinorFaults() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_minflt : 0;
}

/// One thread publishes a whole ring's worth into g_static_bus (dispatching every 1,024), twice:
/// the first lap writes every page of the ring for the first time, the second does not. Each
/// publish is timed; the page faults of each lap are counted.
std::vector<Summary> RunFirstTouch() {
  Pin(kProducerCpu);
  // This thread's statistics identity is taken by its first publish (once per thread); take it
  // now, so that the first lap's figures are the ring's pages only.
  static_cast<void>(mccc::detail::ThisThreadShard());
  std::vector<Summary> out;
  for (int lap = 0; lap < 2; ++lap) {
    Histogram h;
    const long faults_before = MinorFaults();
    Reading r{0U, 1U, 0U};
    for (uint32_t i = 0U; i < StaticBus::kQueueDepth; ++i) {
      ++r.sequence;
      const uint64_t t0 = TimerEdge();
      const bool ok = g_static_bus.Publish(r, 1U);
      const uint64_t t1 = TimerEdge();
      if (ok) {
        h.Add(t1 - t0);
      }
      if ((i & 1023U) == 1023U) {
        while (g_static_bus.ProcessBatch() != 0U) {
        }
      }
    }
    while (g_static_bus.ProcessBatch() != 0U) {
    }
    const long faults = MinorFaults() - faults_before;
    Summary s =
        Summarise(lap == 0 ? "first_lap_publish" : "second_lap_publish",
                  "one thread on CPU 0, no other load; a constant-initialised bus in static "
                  "storage, drained every 1,024 messages",
                  h);
    char extra[64];
    std::snprintf(extra, sizeof(extra), "\"page_faults\": %ld", faults);
    s.extra = extra;
    Print(s);
    std::printf("  %ld page faults during the lap (the ring is %zu pages of 4 KiB)\n", faults,
                sizeof(StaticBus) / 4096U);
    out.push_back(s);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scenario: Publish under load
// ---------------------------------------------------------------------------------------------
std::vector<Summary> RunPublish(const Options& options) {
  auto bus = std::make_unique<PublishBus>();
  uint64_t sink = 0U;
  const mccc::SubscriptionHandle handle =
      bus->Subscribe<Reading>([&sink](const Reading& r) { sink += r.value; });
  if (!handle.IsValid()) {
    std::fprintf(stderr, "subscribe failed\n");
    g_failed = true;
    return {};
  }
  std::atomic<bool> stop_consumer{false};
  std::atomic<bool> stop_load{false};
  std::atomic<uint64_t> processed{0U};
  std::thread consumer([&] {
    Pin(kConsumerCpu);
    uint64_t local = 0U;
    while (!stop_consumer.load(std::memory_order_relaxed)) {
      const uint32_t n = bus->ProcessBatch();
      local += n;
      if (n == 0U) {
        mccc_bench::CpuRelax();
      }
    }
    for (uint32_t n = bus->ProcessBatch(); n != 0U; n = bus->ProcessBatch()) {
      local += n;
    }
    processed.store(local, std::memory_order_relaxed);
  });
  std::vector<std::thread> load;
  std::vector<uint64_t> load_admitted(static_cast<std::size_t>(options.load_threads), 0U);
  std::vector<uint64_t> load_refused(static_cast<std::size_t>(options.load_threads), 0U);
  for (int i = 0; i < options.load_threads; ++i) {
    load.emplace_back([&, i] {
      Pin(kConsumerCpu);
      Reading r{0U, 1U, static_cast<uint64_t>(i + 1)};
      uint64_t admitted = 0U;
      uint64_t refused = 0U;
      while (!stop_load.load(std::memory_order_relaxed)) {
        ++r.sequence;
        if (bus->PublishWithPriority(r, 100U + static_cast<uint32_t>(i),
                                     mccc::MessagePriority::kLow)) {
          ++admitted;
        } else {
          ++refused;
        }
      }
      load_admitted[static_cast<std::size_t>(i)] = admitted;
      load_refused[static_cast<std::size_t>(i)] = refused;
    });
  }

  Pin(kProducerCpu);
  const double seconds = options.smoke ? 0.3 : options.publish_seconds;
  const double warmup = options.smoke ? 0.05 : 2.0;
  const auto period =
      static_cast<uint64_t>(static_cast<double>(options.period_ns) * g_ticks_per_ns);
  Histogram admitted_h;
  Histogram refused_h;
  Reading r{0U, 1U, 0U};
  uint64_t depth_sum = 0U;
  uint64_t depth_samples = 0U;
  uint64_t measured_admitted = 0U;  // warm-up included: the statistics count those too
  PhaseContext context;
  for (int phase = 0; phase < 2; ++phase) {
    const bool measuring = phase == 1;
    const double length = measuring ? seconds : warmup;
    context.Begin();  // the warm-up's is replaced by the measured phase's
    const uint64_t end = Now() + static_cast<uint64_t>(length * 1e9 * g_ticks_per_ns);
    uint64_t next = Now();
    for (;;) {
      uint64_t now = Now();
      if (now >= end) {
        break;
      }
      while (now < next) {
        mccc_bench::CpuRelax();
        now = Now();
      }
      // After a delay (this thread preempted), resume the period from now instead of
      // publishing the missed ones back to back.
      next = now - next > period ? now + period : next + period;
      ++r.sequence;
      const uint64_t t0 = TimerEdge();
      const bool ok = bus->Publish(r, 1U);
      const uint64_t t1 = TimerEdge();
      measured_admitted += ok ? 1U : 0U;
      if (measuring) {
        (ok ? admitted_h : refused_h).Add(t1 - t0);
        if ((r.sequence & 0xFFFFU) == 0U) {
          depth_sum += bus->QueueOccupancy();
          ++depth_samples;
        }
      }
    }
  }
  context.End();
  stop_load.store(true, std::memory_order_relaxed);
  for (std::thread& t : load) {
    t.join();
  }
  stop_consumer.store(true, std::memory_order_relaxed);
  consumer.join();

  const mccc::BusStatisticsSnapshot stats = bus->GetStatistics();
  const uint64_t consumed = processed.load(std::memory_order_relaxed);
  uint64_t load_in = 0U;
  uint64_t load_out = 0U;
  for (std::size_t i = 0U; i < load_admitted.size(); ++i) {
    load_in += load_admitted[i];
    load_out += load_refused[i];
  }
  if (stats.messages_published != consumed ||
      stats.messages_published != load_in + measured_admitted) {
    std::fprintf(stderr,
                 "publish: published %" PRIu64 " (load %" PRIu64 " + measured %" PRIu64
                 ") but dispatched %" PRIu64 "\n",
                 stats.messages_published, load_in, measured_admitted, consumed);
    g_failed = true;
  }
  char load_text[256];
  std::snprintf(load_text, sizeof(load_text),
                "%d producer threads on CPU 1 (with the consumer) publishing LOW back to back; "
                "measured thread on CPU 0, one MEDIUM Publish every %" PRIu64 " ns",
                options.load_threads, options.period_ns);
  Summary a = Summarise("publish_admitted", load_text, admitted_h);
  a.context = context;
  char extra[512];
  std::snprintf(extra, sizeof(extra),
                "\"refused_samples\": %" PRIu64 ", \"load_admitted\": %" PRIu64
                ", \"load_refused\": %" PRIu64 ", \"dispatched\": %" PRIu64
                ", \"mean_queue_depth\": %" PRIu64 ", \"seconds\": %.1f",
                refused_h.Count(), load_in, load_out, consumed,
                depth_samples == 0U ? 0U : depth_sum / depth_samples, seconds);
  a.extra = extra;
  std::printf("load: %s\n  load admitted %" PRIu64 ", refused %" PRIu64 "; dispatched %" PRIu64
              "; mean queue depth %" PRIu64 "\n",
              load_text, load_in, load_out, consumed,
              depth_samples == 0U ? 0U : depth_sum / depth_samples);
  Print(a);
  std::vector<Summary> out{a};
  if (refused_h.Count() != 0U) {
    out.push_back(Summarise("publish_refused", load_text, refused_h));
    out.back().context = context;
    Print(out.back());
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scenario: ProcessBatch of exactly N under load
// ---------------------------------------------------------------------------------------------
template <uint32_t kBatch>
Summary RunConsume(const Options& options) {
  using Bus = ConsumeBus<kBatch>;
  auto bus = std::make_unique<Bus>();
  uint64_t sink = 0U;
  if (!bus->template Subscribe<Reading>([&sink](const Reading& r) { sink += r.value; }).IsValid()) {
    std::fprintf(stderr, "subscribe failed\n");
    g_failed = true;
    return {};
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> producers;
  std::vector<uint64_t> admitted(static_cast<std::size_t>(options.load_threads), 0U);
  for (int i = 0; i < options.load_threads; ++i) {
    producers.emplace_back([&, i] {
      Pin(kProducerCpu);
      Reading r{0U, 1U, static_cast<uint64_t>(i + 1)};
      uint64_t count = 0U;
      while (!stop.load(std::memory_order_relaxed)) {
        ++r.sequence;
        if (bus->Publish(r, 100U + static_cast<uint32_t>(i))) {
          ++count;
        }
      }
      admitted[static_cast<std::size_t>(i)] = count;
    });
  }

  Pin(kConsumerCpu);
  const double seconds = options.smoke ? 0.3 : options.consume_seconds;
  const double warmup = options.smoke ? 0.05 : 2.0;
  Histogram h;
  uint64_t short_batches = 0U;
  uint64_t empty_calls = 0U;
  uint64_t processed = 0U;
  // Head-of-line blocking: enough messages are claimed, yet the call dispatches nothing, because
  // the slot at the head is claimed by a producer that has not finished writing it (preempted
  // mid-publish). Timed from the first such call to the next one that dispatches.
  Histogram blocked_h;
  bool blocked = false;
  uint64_t blocked_since = 0U;
  PhaseContext context;
  for (int phase = 0; phase < 2; ++phase) {
    const bool measuring = phase == 1;
    const double length = measuring ? seconds : warmup;
    context.Begin();  // the warm-up's is replaced by the measured phase's
    const uint64_t end = Now() + static_cast<uint64_t>(length * 1e9 * g_ticks_per_ns);
    while (Now() < end) {
      if (bus->QueueOccupancy() < kBatch) {
        mccc_bench::CpuRelax();
        continue;
      }
      const uint64_t t0 = TimerEdge();
      const uint32_t n = bus->ProcessBatch();
      const uint64_t t1 = TimerEdge();
      processed += n;
      if (!measuring) {
        continue;
      }
      if (n == kBatch) {
        h.Add(t1 - t0);
      } else {
        ++short_batches;
      }
      if (n == 0U) {
        ++empty_calls;
        if (!blocked) {
          blocked = true;
          blocked_since = t0;
        }
      } else if (blocked) {
        blocked_h.Add(t0 - blocked_since);
        blocked = false;
      }
    }
  }
  context.End();
  stop.store(true, std::memory_order_relaxed);
  for (std::thread& t : producers) {
    t.join();
  }
  for (uint32_t n = bus->ProcessBatch(); n != 0U; n = bus->ProcessBatch()) {
    processed += n;
  }
  uint64_t published = 0U;
  for (const uint64_t n : admitted) {
    published += n;
  }
  if (published != processed || bus->GetStatistics().messages_published != published) {
    std::fprintf(stderr, "consume-%u: published %" PRIu64 " but dispatched %" PRIu64 "\n", kBatch,
                 published, processed);
    g_failed = true;
  }
  char load_text[256];
  std::snprintf(load_text, sizeof(load_text),
                "%d producer threads on CPU 0 publishing MEDIUM back to back; consumer alone on "
                "CPU 1 waits for >= %u queued messages, then times one ProcessBatch",
                options.load_threads, kBatch);
  char name[32];
  std::snprintf(name, sizeof(name), "process_batch_%u", kBatch);
  Summary s = Summarise(name, load_text, h);
  s.context = context;
  char extra[512];
  std::snprintf(extra, sizeof(extra),
                "\"short_batches\": %" PRIu64 ", \"empty_calls\": %" PRIu64
                ", \"blocked_episodes\": %" PRIu64
                ", \"blocked_p50_ns\": %.0f"
                ", \"blocked_p99_ns\": %.0f, \"blocked_max_ns\": %.0f"
                ", \"dispatched\": %" PRIu64 ", \"seconds\": %.1f",
                short_batches, empty_calls, blocked_h.Count(), ToNs(blocked_h.Percentile(0.5)),
                ToNs(blocked_h.Percentile(0.99)), ToNs(blocked_h.Max()), processed, seconds);
  s.extra = extra;
  Print(s);
  std::printf("  %" PRIu64 " calls dispatched fewer than %u (not counted), %" PRIu64
              " of them nothing; head slot still being written: %" PRIu64
              " episodes, P50 %.0f ns, P99 %.0f ns, longest %.0f ns\n",
              short_batches, kBatch, empty_calls, blocked_h.Count(),
              ToNs(blocked_h.Percentile(0.5)), ToNs(blocked_h.Percentile(0.99)),
              ToNs(blocked_h.Max()));
  return s;
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------
void WriteJson(const std::string& path, const Options& options, const Summary& timer,
               const std::vector<Summary>& results) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    g_failed = true;
    return;
  }
  std::fprintf(f, "{\n  \"date_utc\": \"%s\",\n  \"flags\": \"%s\",\n  \"build_type\": \"%s\",\n",
               mccc_bench::UtcTimestamp(false).c_str(), MCCC_BENCH_FLAGS, MCCC_BENCH_BUILD_TYPE);
  std::fprintf(f, "  \"ticks_per_ns\": %.6f,\n  \"cpus\": %u,\n  \"pinning_failed\": %s,\n",
               g_ticks_per_ns, std::thread::hardware_concurrency(),
               g_pinning_failed ? "true" : "false");
  std::fprintf(f, "  \"smoke\": %s,\n  \"load_threads\": %d,\n  \"period_ns\": %" PRIu64 ",\n",
               options.smoke ? "true" : "false", options.load_threads, options.period_ns);
  std::vector<Summary> all{timer};
  all.insert(all.end(), results.begin(), results.end());
  std::fprintf(f, "  \"results\": [\n");
  for (std::size_t i = 0U; i < all.size(); ++i) {
    const Summary& s = all[i];
    char context[192] = "";
    if (s.context.recorded) {
      std::snprintf(context, sizeof(context),
                    ", \"preempted\": %" PRIu64 ", \"steal_ms\": %" PRIu64
                    ", \"load_before\": %.2f, \"load_after\": %.2f",
                    s.context.preempted, s.context.steal_ms, s.context.load_before,
                    s.context.load_after);
    }
    std::fprintf(f,
                 "    {\"name\": \"%s\", \"load\": \"%s\", \"samples\": %" PRIu64
                 ", \"ticks\": {\"p50\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"p99_9\": %" PRIu64
                 ", \"p99_99\": %" PRIu64 ", \"max\": %" PRIu64
                 "}, \"ns\": {\"p50\": %.1f, \"p99\": %.1f, \"p99_9\": %.1f, \"p99_99\": %.1f, "
                 "\"max\": %.1f}, \"over_10us\": %" PRIu64 "%s%s%s}%s\n",
                 s.name.c_str(), s.load.c_str(), s.samples, s.p50, s.p99, s.p999, s.p9999, s.max,
                 ToNs(s.p50), ToNs(s.p99), ToNs(s.p999), ToNs(s.p9999), ToNs(s.max), s.over_10us,
                 context, s.extra.empty() ? "" : ", ", s.extra.c_str(),
                 i + 1U == all.size() ? "" : ",");
  }
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
}

bool ParseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--smoke") {
      options.smoke = true;
    } else if (arg == "--mode" && has_value) {
      options.mode = argv[++i];
    } else if (arg == "--publish-seconds" && has_value) {
      options.publish_seconds = std::atof(argv[++i]);
    } else if (arg == "--consume-seconds" && has_value) {
      options.consume_seconds = std::atof(argv[++i]);
    } else if (arg == "--load-threads" && has_value) {
      options.load_threads = std::atoi(argv[++i]);
    } else if (arg == "--period-ns" && has_value) {
      options.period_ns = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--json" && has_value) {
      options.json_path = argv[++i];
    } else {
      std::fprintf(stderr, "unknown or incomplete argument: %s\n", arg.c_str());
      return false;
    }
  }
  return (options.mode == "all" || options.mode == "first-touch" || options.mode == "publish" ||
          options.mode == "consume") &&
         options.load_threads >= 1 && options.period_ns > 0U;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, options)) {
    std::fprintf(stderr,
                 "usage: timing_benchmark [--smoke] [--mode all|first-touch|publish|consume] "
                 "[--publish-seconds S] [--consume-seconds S] [--load-threads N] "
                 "[--period-ns P] [--json FILE]\n");
    return 2;
  }
  g_ticks_per_ns = MeasureTicksPerNs(options.smoke ? 20 : 500);
  std::printf("mccc timing benchmark, %s UTC, flags \"%s\" (%s), %u CPUs, counter %.4f ticks/ns\n",
              mccc_bench::UtcTimestamp(false).c_str(), MCCC_BENCH_FLAGS, MCCC_BENCH_BUILD_TYPE,
              std::thread::hardware_concurrency(), g_ticks_per_ns);
  const Summary timer = MeasureTimerOverhead(options.smoke ? 100000U : 20000000U);
  Print(timer);
  std::vector<Summary> results;
  if (options.mode == "all" || options.mode == "first-touch") {
    for (const Summary& s : RunFirstTouch()) {
      results.push_back(s);
    }
  }
  if (options.mode == "all" || options.mode == "publish") {
    for (const Summary& s : RunPublish(options)) {
      results.push_back(s);
    }
  }
  if (options.mode == "all" || options.mode == "consume") {
    results.push_back(RunConsume<1U>(options));
    results.push_back(RunConsume<64U>(options));
    results.push_back(RunConsume<1024U>(options));
  }
  if (g_pinning_failed) {
    std::printf("note: pinning to CPU %d / %d failed; threads ran unpinned\n", kProducerCpu,
                kConsumerCpu);
  }
  if (!options.json_path.empty()) {
    WriteJson(options.json_path, options, timer, results);
  }
  return g_failed ? 1 : 0;
}
