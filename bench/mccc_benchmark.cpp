// SPDX-License-Identifier: MIT
// smoke-args: --smoke
/// @file mccc_benchmark.cpp
/// @brief The bus alone: throughput of admitted messages, performance modes and dispatch styles,
/// an overload burst, end-to-end latency, and a sustained run; for the default MPSC bus, a
/// single-producer bus and a single-core bus (one thread publishes and consumes).
///
/// Usage: mccc_benchmark [--rounds N] [--sizes 1000,10000,100000] [--messages N]
///                       [--latency-samples N] [--warmup N] [--sustained-seconds S]
///                       [--json FILE] [--commit SHA] [--smoke]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/adapters.hpp"
#include "common/harness.hpp"
#include "common/report.hpp"

namespace mccc_bench {
namespace {

/// Single-core MCU configuration (relaxed atomics, no padding). Only correct because one thread
/// does both publishing and consuming in this benchmark.
struct SingleCoreTraits : mccc::DefaultBusTraits {
  static constexpr bool kSingleCore = true;                    ///< See DefaultBusTraits.
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;  ///< See DefaultBusTraits.
  static constexpr bool kSingleProducer = true;                ///< See DefaultBusTraits.
};

constexpr auto kFull = mccc::PerformanceMode::kFullFeatured;
constexpr auto kNoStats = mccc::PerformanceMode::kNoStats;
constexpr auto kBare = mccc::PerformanceMode::kBareMetal;

struct Config {
  int rounds = 10;
  std::vector<uint64_t> sizes = {1000U, 10000U, 100000U};
  uint64_t messages = 1000000U;
  uint64_t latency_samples = 10000U;
  uint64_t warmup = 1000U;
  double sustained_seconds = 5.0;
  std::string json;
  std::string commit;
};

bool Parse(int argc, char** argv, Config& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--rounds") {
      c.rounds = std::atoi(next().c_str());
    } else if (a == "--sizes") {
      c.sizes.clear();
      const std::string list = next();
      std::size_t start = 0U;
      while (start < list.size()) {
        std::size_t comma = list.find(',', start);
        if (comma == std::string::npos) {
          comma = list.size();
        }
        c.sizes.push_back(std::strtoull(list.substr(start, comma - start).c_str(), nullptr, 10));
        start = comma + 1U;
      }
    } else if (a == "--messages") {
      c.messages = std::strtoull(next().c_str(), nullptr, 10);
    } else if (a == "--latency-samples") {
      c.latency_samples = std::strtoull(next().c_str(), nullptr, 10);
    } else if (a == "--warmup") {
      c.warmup = std::strtoull(next().c_str(), nullptr, 10);
    } else if (a == "--sustained-seconds") {
      c.sustained_seconds = std::atof(next().c_str());
    } else if (a == "--json") {
      c.json = next();
    } else if (a == "--commit") {
      c.commit = next();
    } else if (a == "--smoke") {
      c.rounds = 2;
      c.sizes = {1000U, 10000U};
      c.messages = 20000U;
      c.latency_samples = 200U;
      c.warmup = 50U;
      c.sustained_seconds = 0.3;
    } else {
      std::fprintf(stderr, "unknown argument: %s (see the file comment of mccc_benchmark.cpp)\n",
                   a.c_str());
      return false;
    }
  }
  return c.rounds > 0 && !c.sizes.empty() && c.messages > 0U && c.latency_samples > 0U;
}

// ---------------------------------------------------------------------------------------------
// 1. Throughput of admitted messages (no retry: a refused publish is not throughput)
// ---------------------------------------------------------------------------------------------

/// Producer (core 0) publishes n messages once each; the consumer (core 1) dispatches until it
/// has seen every admitted one. Throughput = admitted / elapsed. Sequence numbers are assigned
/// to admitted messages only, so the consumer's order check stays exact.
template <typename Traits>
Outcome RunAdmitted(uint64_t n, bool* pinned, uint64_t* admitted_out) {
  using Adapter = MccAdapter<Msg24, SeqSink, Traits, kFull, Dispatch::kCallback, Stamp::kClock>;
  auto sink = std::make_unique<SeqSink>();
  auto q = std::make_unique<Adapter>(Options{}, *sink);
  std::atomic<uint64_t> admitted{~uint64_t{0}};
  const double seconds = RunPinnedThreads(
      1,
      [&](int) {
        auto producer = q->MakeProducer(0);
        Msg24 m = Prototype<Msg24>();
        uint64_t ok = 0U;
        for (uint64_t i = 0U; i < n; ++i) {
          m.seq = ok;
          ok += q->TryPush(producer, m) ? 1U : 0U;
        }
        admitted.store(ok, std::memory_order_release);
      },
      [&]() {
        auto consumer = q->MakeConsumer();
        while (sink->count != admitted.load(std::memory_order_acquire)) {
          q->Poll(consumer);
        }
      },
      pinned);
  Outcome out;
  *admitted_out = admitted.load();
  out.value = seconds > 0.0 ? static_cast<double>(*admitted_out) / seconds : 0.0;
  out.valid = sink->errors == 0U && sink->count == *admitted_out;
  return out;
}

/// Single core: one thread publishes in slices of kBatchSize and dispatches after each slice.
Outcome RunSingleCore(uint64_t n, bool* pinned, uint64_t* admitted_out) {
  using Adapter =
      MccAdapter<Msg24, SeqSink, SingleCoreTraits, kFull, Dispatch::kCallback, Stamp::kClock>;
  auto sink = std::make_unique<SeqSink>();
  auto q = std::make_unique<Adapter>(Options{}, *sink);
  uint64_t ok = 0U;
  const double seconds = RunOnProducerCore<double>(
      [&]() {
        auto producer = q->MakeProducer(0);
        auto consumer = q->MakeConsumer();
        Msg24 m = Prototype<Msg24>();
        const uint64_t t0 = NowNs();
        for (uint64_t i = 0U; i < n; ++i) {
          m.seq = ok;
          ok += q->TryPush(producer, m) ? 1U : 0U;
          if ((i + 1U) % SingleCoreTraits::kBatchSize == 0U) {
            q->Poll(consumer);
          }
        }
        while (q->Poll(consumer) != 0U) {
        }
        return static_cast<double>(NowNs() - t0) * 1e-9;
      },
      pinned);
  Outcome out;
  *admitted_out = ok;
  out.value = seconds > 0.0 ? static_cast<double>(ok) / seconds : 0.0;
  out.valid = sink->errors == 0U && sink->count == ok;
  return out;
}

// ---------------------------------------------------------------------------------------------
// 3. Overload burst
// ---------------------------------------------------------------------------------------------

mccc::MessagePriority BurstPriority(uint64_t i) {
  // 20% HIGH; the rest alternates MEDIUM / LOW (40% each).
  if (i % 5U == 0U) {
    return mccc::MessagePriority::kHigh;
  }
  return (i % 5U) % 2U == 1U ? mccc::MessagePriority::kMedium : mccc::MessagePriority::kLow;
}

const char* PriorityName(std::size_t p) {
  return p == 2U ? "HIGH" : (p == 1U ? "MEDIUM" : "LOW");
}

struct PriorityCounts {
  uint64_t sent[3] = {};
  uint64_t admitted[3] = {};
};

}  // namespace
}  // namespace mccc_bench

int main(int argc, char** argv) {
  using namespace mccc_bench;
  Config cfg;
  if (!Parse(argc, argv, cfg)) {
    return 2;
  }
  RunInfo info = StartRun("mccc_benchmark", argc, argv, cfg.commit);
  (void)Ticks::NsPerTick();
  bool all_valid = true;
  JsonObject results;

  // ---- 1. Throughput, FULL_FEATURED, callbacks, admitted only --------------------------------
  struct ThroughputCase {
    const char* config;
    std::function<Outcome(uint64_t, bool*, uint64_t*)> run;
  };
  const std::vector<ThroughputCase> configs = {
      {"MPSC (default)", [](uint64_t n, bool* p,
                            uint64_t* a) { return RunAdmitted<mccc::DefaultBusTraits>(n, p, a); }},
      {"single producer",
       [](uint64_t n, bool* p, uint64_t* a) { return RunAdmitted<SpscTraits>(n, p, a); }},
      {"single core (1 thread)",
       [](uint64_t n, bool* p, uint64_t* a) { return RunSingleCore(n, p, a); }},
  };
  std::vector<std::vector<std::vector<double>>> tput(
      configs.size(), std::vector<std::vector<double>>(cfg.sizes.size()));
  std::vector<std::vector<uint64_t>> admitted_min(
      configs.size(), std::vector<uint64_t>(cfg.sizes.size(), ~uint64_t{0}));
  for (int round = 0; round < cfg.rounds; ++round) {
    for (std::size_t s = 0U; s < cfg.sizes.size(); ++s) {
      for (std::size_t c = 0U; c < configs.size(); ++c) {
        uint64_t admitted = 0U;
        const Outcome o = configs[c].run(cfg.sizes[s], &info.pinned, &admitted);
        all_valid = all_valid && o.valid;
        tput[c][s].push_back(o.value);
        admitted_min[c][s] = std::min(admitted_min[c][s], admitted);
      }
    }
  }
  std::printf(
      "1. Throughput, FULL_FEATURED, callback dispatch, admitted messages only, %d rounds "
      "(M msg/s, mean +- sd)\n",
      cfg.rounds);
  std::printf("  %-24s %10s %10s %10s %10s %10s\n", "configuration", "messages", "admitted", "mean",
              "sd", "median");
  std::vector<std::string> tput_json;
  for (std::size_t c = 0U; c < configs.size(); ++c) {
    for (std::size_t s = 0U; s < cfg.sizes.size(); ++s) {
      const Summary sum = Summarize(tput[c][s]);
      std::printf("  %-24s %10llu %10llu %10.2f %10.2f %10.2f\n", configs[c].config,
                  static_cast<unsigned long long>(cfg.sizes[s]),
                  static_cast<unsigned long long>(admitted_min[c][s]), sum.mean / 1e6, sum.sd / 1e6,
                  sum.median / 1e6);
      JsonObject o;
      o.Str("configuration", configs[c].config).Int("messages", cfg.sizes[s]);
      o.Int("admitted_min", admitted_min[c][s]).Sum("msgs_per_sec", sum);
      tput_json.push_back(o.Text());
    }
  }
  results.Raw("throughput", JArray(tput_json));

  // ---- 2. Modes x dispatch, E2E with retry ----------------------------------------------------
  struct ModeCase {
    const char* name;
    const char* baseline;  // the BARE_METAL row of the same configuration and dispatch
    std::function<Outcome(uint64_t, bool*)> run;
  };
  const std::vector<ModeCase> modes = {
      {"MPSC FULL_FEATURED callback", "MPSC BARE_METAL callback",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<mccc::DefaultBusTraits, kFull, Dispatch::kCallback>, Msg24>(n, 1,
                                                                                             p);
       }},
      {"MPSC NO_STATS callback", "MPSC BARE_METAL callback",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<mccc::DefaultBusTraits, kNoStats, Dispatch::kCallback>, Msg24>(
             n, 1, p);
       }},
      {"MPSC BARE_METAL callback", "MPSC BARE_METAL callback",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<mccc::DefaultBusTraits, kBare, Dispatch::kCallback>, Msg24>(n, 1,
                                                                                             p);
       }},
      {"MPSC FULL_FEATURED visitor", "MPSC BARE_METAL visitor",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<mccc::DefaultBusTraits, kFull, Dispatch::kVisitor>, Msg24>(n, 1,
                                                                                            p);
       }},
      {"MPSC NO_STATS visitor", "MPSC BARE_METAL visitor",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<mccc::DefaultBusTraits, kNoStats, Dispatch::kVisitor>, Msg24>(n, 1,
                                                                                               p);
       }},
      {"MPSC BARE_METAL visitor", "MPSC BARE_METAL visitor",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<mccc::DefaultBusTraits, kBare, Dispatch::kVisitor>, Msg24>(n, 1,
                                                                                            p);
       }},
      {"SPSC FULL_FEATURED callback", "SPSC BARE_METAL callback",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<SpscTraits, kFull, Dispatch::kCallback>, Msg24>(n, 1, p);
       }},
      {"SPSC BARE_METAL callback", "SPSC BARE_METAL callback",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<SpscTraits, kBare, Dispatch::kCallback>, Msg24>(n, 1, p);
       }},
      {"SPSC FULL_FEATURED visitor", "SPSC BARE_METAL visitor",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<SpscTraits, kFull, Dispatch::kVisitor>, Msg24>(n, 1, p);
       }},
      {"SPSC BARE_METAL visitor", "SPSC BARE_METAL visitor",
       [](uint64_t n, bool* p) {
         return RunE2E<MccFamily<SpscTraits, kBare, Dispatch::kVisitor>, Msg24>(n, 1, p);
       }},
  };
  std::vector<std::vector<double>> mode_values(modes.size());
  for (int round = 0; round < cfg.rounds; ++round) {
    for (std::size_t k = 0U; k < modes.size(); ++k) {
      const std::size_t m = (k + static_cast<std::size_t>(round)) % modes.size();
      const Outcome o = modes[m].run(cfg.messages, &info.pinned);
      all_valid = all_valid && o.valid;
      mode_values[m].push_back(o.value);
    }
  }
  std::printf(
      "\n2. Modes and dispatch, E2E %llu msgs (producer retries refused publishes), %d "
      "rounds interleaved (M msg/s)\n",
      static_cast<unsigned long long>(cfg.messages), cfg.rounds);
  std::printf("  %-30s %9s %9s %9s %10s\n", "mode", "median", "min", "max", "x BARE");
  std::vector<std::string> mode_json;
  for (std::size_t m = 0U; m < modes.size(); ++m) {
    const Summary s = Summarize(mode_values[m]);
    double base = 0.0;
    for (std::size_t b = 0U; b < modes.size(); ++b) {
      if (std::string(modes[b].name) == modes[m].baseline) {
        base = Summarize(mode_values[b]).median;
      }
    }
    std::printf("  %-30s %9.2f %9.2f %9.2f %10.3f\n", modes[m].name, s.median / 1e6, s.min / 1e6,
                s.max / 1e6, base > 0.0 ? s.median / base : 0.0);
    JsonObject o;
    o.Str("mode", modes[m].name).Sum("msgs_per_sec", s);
    o.Num("ratio_to_bare_metal", base > 0.0 ? s.median / base : 0.0);
    mode_json.push_back(o.Text());
  }
  results.Raw("modes", JArray(mode_json));

  // ---- 3. Overload burst -------------------------------------------------------------------
  {
    using Bus = mccc::AsyncBus<std::variant<Msg24, Heartbeat, Command>>;
    auto bus = std::make_unique<Bus>();
    PriorityCounts counts;
    constexpr uint64_t kBurst = 150000U;
    Msg24 m = Prototype<Msg24>();
    for (uint64_t i = 0U; i < kBurst; ++i) {
      const mccc::MessagePriority p = BurstPriority(i);
      const auto pi = static_cast<std::size_t>(p);
      m.seq = i;
      ++counts.sent[pi];
      counts.admitted[pi] += bus->PublishWithPriority(m, 1U, p) ? 1U : 0U;
    }
    const mccc::BusStatisticsSnapshot st = bus->GetStatistics();
    const uint64_t depth = bus->QueueOccupancy();
    uint64_t drained = 0U;
    while (const uint32_t k = bus->ProcessBatch()) {
      drained += k;
    }
    std::printf("\n3. Overload burst: consumer paused, %llu messages into a %u-slot queue\n",
                static_cast<unsigned long long>(kBurst), Bus::Capacity());
    std::printf("  %-8s %10s %10s %10s %10s\n", "priority", "sent", "admitted", "dropped",
                "admit %");
    std::vector<std::string> burst_json;
    const uint64_t stats_admitted[3] = {st.low_priority_published, st.medium_priority_published,
                                        st.high_priority_published};
    const uint64_t stats_dropped[3] = {st.low_priority_dropped, st.medium_priority_dropped,
                                       st.high_priority_dropped};
    uint64_t total_admitted = 0U;
    for (std::size_t p = 3U; p-- > 0U;) {
      const uint64_t dropped = counts.sent[p] - counts.admitted[p];
      total_admitted += counts.admitted[p];
      std::printf(
          "  %-8s %10llu %10llu %10llu %9.1f%%\n", PriorityName(p),
          static_cast<unsigned long long>(counts.sent[p]),
          static_cast<unsigned long long>(counts.admitted[p]),
          static_cast<unsigned long long>(dropped),
          100.0 * static_cast<double>(counts.admitted[p]) / static_cast<double>(counts.sent[p]));
      const bool stats_agree =
          stats_admitted[p] == counts.admitted[p] && stats_dropped[p] == dropped;
      all_valid = all_valid && stats_agree;
      JsonObject o;
      o.Str("priority", PriorityName(p)).Int("sent", counts.sent[p]);
      o.Int("admitted", counts.admitted[p]).Int("dropped", dropped);
      o.Bool("statistics_agree", stats_agree);
      burst_json.push_back(o.Text());
    }
    std::printf("  queue depth after burst %llu, drained %llu (statistics %s)\n",
                static_cast<unsigned long long>(depth), static_cast<unsigned long long>(drained),
                drained == total_admitted ? "agree" : "DISAGREE");
    all_valid = all_valid && drained == total_admitted;
    JsonObject burst;
    burst.Int("messages", kBurst).Int("capacity", Bus::Capacity()).Int("depth_after", depth);
    burst.Raw("per_priority", JArray(burst_json));
    results.Raw("overload_burst", burst.Text());
  }

  // ---- 4. Latency ----------------------------------------------------------------------------
  struct LatencyCase {
    const char* name;
    std::function<LatencyOutcome(uint64_t, uint64_t, bool*)> run;
  };
  const std::vector<LatencyCase> lat_cases = {
      {"MPSC FULL_FEATURED callback",
       [](uint64_t w, uint64_t n, bool* p) {
         return RunLatency<MccFamily<mccc::DefaultBusTraits, kFull, Dispatch::kCallback>>(w, n, p);
       }},
      {"MPSC FULL_FEATURED visitor",
       [](uint64_t w, uint64_t n, bool* p) {
         return RunLatency<MccFamily<mccc::DefaultBusTraits, kFull, Dispatch::kVisitor>>(w, n, p);
       }},
      {"MPSC BARE_METAL callback",
       [](uint64_t w, uint64_t n, bool* p) {
         return RunLatency<MccFamily<mccc::DefaultBusTraits, kBare, Dispatch::kCallback>>(w, n, p);
       }},
      {"SPSC FULL_FEATURED callback",
       [](uint64_t w, uint64_t n, bool* p) {
         return RunLatency<MccFamily<SpscTraits, kFull, Dispatch::kCallback>>(w, n, p);
       }},
  };
  const double one_way = RunPingPong(100000U, &info.pinned);
  std::printf(
      "\n4. Latency publish -> callback, one message in flight, %llu samples after %llu "
      "warm-up (ns; core-to-core one-way handoff %.1f ns)\n",
      static_cast<unsigned long long>(cfg.latency_samples),
      static_cast<unsigned long long>(cfg.warmup), one_way);
  std::printf("  %-30s %9s %9s %9s %9s\n", "configuration", "P50", "P95", "P99", "max");
  std::vector<std::string> lat_json;
  for (const LatencyCase& lc : lat_cases) {
    const LatencyOutcome o = lc.run(cfg.warmup, cfg.latency_samples, &info.pinned);
    all_valid = all_valid && o.valid;
    std::printf("  %-30s %9.1f %9.1f %9.1f %9.1f\n", lc.name, o.p50, o.p95, o.p99, o.max);
    JsonObject j;
    j.Str("configuration", lc.name).Num("p50_ns", o.p50).Num("p95_ns", o.p95);
    j.Num("p99_ns", o.p99).Num("max_ns", o.max);
    lat_json.push_back(j.Text());
  }
  JsonObject latency;
  latency.Num("one_way_handoff_ns", one_way).Raw("results", JArray(lat_json));
  results.Raw("latency", latency.Text());

  // ---- 5. Sustained run --------------------------------------------------------------------
  {
    using Bus = mccc::AsyncBus<std::variant<Msg24, Heartbeat, Command>>;
    auto bus = std::make_unique<Bus>();
    auto sink = std::make_unique<SeqSink>();
    SeqSink* s = sink.get();
    bus->Subscribe<Msg24>([s](const Msg24& m) {
      ++s->count;
      (void)m;
    });
    std::atomic<bool> stop{false};
    std::atomic<bool> producer_done{false};
    PriorityCounts counts;
    std::vector<double> series;
    const double interval = 0.5;
    std::thread monitor([&]() {
      uint64_t last = 0U;
      const auto start = std::chrono::steady_clock::now();
      for (int k = 1;; ++k) {
        std::this_thread::sleep_until(start + std::chrono::duration<double>(interval * k));
        const uint64_t now = bus->GetStatistics().messages_processed;
        series.push_back(static_cast<double>(now - last) / interval);
        last = now;
        if (interval * k >= cfg.sustained_seconds - 1e-9) {
          stop.store(true);
          break;
        }
      }
    });
    RunPinnedThreads(
        1,
        [&](int) {
          Msg24 m = Prototype<Msg24>();
          uint64_t i = 0U;
          while (!stop.load(std::memory_order_relaxed)) {
            const mccc::MessagePriority p = BurstPriority(i);
            const auto pi = static_cast<std::size_t>(p);
            m.seq = i++;
            ++counts.sent[pi];
            counts.admitted[pi] += bus->PublishWithPriority(m, 1U, p) ? 1U : 0U;
          }
          producer_done.store(true, std::memory_order_release);
        },
        [&]() {
          while (!producer_done.load(std::memory_order_acquire)) {
            bus->ProcessBatch();
          }
          while (bus->ProcessBatch() != 0U) {
          }
        },
        &info.pinned);
    monitor.join();
    const mccc::BusStatisticsSnapshot st = bus->GetStatistics();
    std::printf(
        "\n5. Sustained run, %.1f s, MPSC FULL_FEATURED, 20%% HIGH / 40%% MEDIUM / 40%% LOW, "
        "no retry\n",
        cfg.sustained_seconds);
    std::printf("  %-8s %12s %12s %12s\n", "priority", "sent", "admitted", "dropped");
    std::vector<std::string> pri_json;
    uint64_t sent_total = 0U;
    uint64_t admitted_total = 0U;
    for (std::size_t p = 3U; p-- > 0U;) {
      sent_total += counts.sent[p];
      admitted_total += counts.admitted[p];
      std::printf("  %-8s %12llu %12llu %12llu\n", PriorityName(p),
                  static_cast<unsigned long long>(counts.sent[p]),
                  static_cast<unsigned long long>(counts.admitted[p]),
                  static_cast<unsigned long long>(counts.sent[p] - counts.admitted[p]));
      JsonObject o;
      o.Str("priority", PriorityName(p)).Int("sent", counts.sent[p]);
      o.Int("admitted", counts.admitted[p]).Int("dropped", counts.sent[p] - counts.admitted[p]);
      pri_json.push_back(o.Text());
    }
    std::printf("  processed %llu of %llu admitted (statistics: processed %llu)\n",
                static_cast<unsigned long long>(sink->count),
                static_cast<unsigned long long>(admitted_total),
                static_cast<unsigned long long>(st.messages_processed));
    all_valid = all_valid && sink->count == admitted_total;
    std::printf("  processed per %.1f s interval (M msg/s):", interval);
    std::vector<std::string> series_json;
    for (double v : series) {
      std::printf(" %.2f", v / 1e6);
      series_json.push_back(JNum(v));
    }
    std::printf("\n");
    JsonObject sus;
    sus.Num("seconds", cfg.sustained_seconds).Int("sent", sent_total);
    sus.Int("admitted", admitted_total).Int("processed", sink->count);
    sus.Raw("per_priority", JArray(pri_json)).Num("interval_s", interval);
    sus.Raw("processed_per_sec_series", JArray(series_json));
    results.Raw("sustained", sus.Text());
  }

  results.Bool("all_checks_passed", all_valid);
  if (!WriteJson(cfg.json, info, results.Text())) {
    return 1;
  }
  if (!all_valid) {
    std::printf("FAIL: a count or sequence check failed\n");
    return 1;
  }
  return 0;
}
