// SPDX-License-Identifier: MIT
// smoke-args: --smoke
/// @file competitive.cpp
/// @brief mccc against the message queues and signal/slot libraries users choose, with one
/// protocol for all, plus the hardware limit (an ideal SPSC handoff ring and a cache-line
/// ping-pong) in the same binary. Contenders are interleaved round by round; medians (min/max)
/// of the same run are reported, and ratios between them.
///
/// Usage: competitive [--rounds N] [--messages N] [--publish-messages N] [--latency-samples N]
///                    [--warmup N] [--pingpong N] [--sizes 24,64,128,256] [--producers 1,2,4]
///                    [--flood-samples N] [--filter TEXT,TEXT,=EXACT NAME] [--json FILE]
///                    [--commit SHA] [--smoke]
/// --filter keeps the contenders whose name contains one of the comma-separated texts (or, with a
/// leading '=', is exactly it); the limits always run, "HIGH under flood" when named or no filter
/// is given. --producers accepts counts beyond the machine's cores - 1: those rows are marked
/// OVERSUBSCRIBED (every producer then shares core 0 with the others).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/adapters.hpp"
#include "common/cli.hpp"
#include "common/harness.hpp"
#include "common/high_flood.hpp"
#include "common/minimal_lane.hpp"
#include "common/minimal_ring.hpp"
#include "common/peers.hpp"
#include "common/report.hpp"

namespace mccc_bench {
namespace {

constexpr std::size_t kSizeCount = 4U;
constexpr int kSizes[kSizeCount] = {24, 64, 128, 256};

/// What a contender is, for grouping and for the targets.
/// kBatch: publishes arrays of kPushBatchSize per call (mccc and peers alike); kept out of the
/// targets, which are defined for one publish per message.
enum class Kind {
  kMcccMpsc,
  kMcccSpsc,
  kMcccLanes,
  kPeerMpsc,
  kPeerSpsc,
  kPeerSync,
  kLimit,
  kBatch
};

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kMcccMpsc:
      return "mccc-mpsc";
    case Kind::kMcccSpsc:
      return "mccc-spsc";
    case Kind::kMcccLanes:
      return "mccc-lanes";
    case Kind::kPeerMpsc:
      return "peer-mpsc";
    case Kind::kPeerSpsc:
      return "peer-spsc";
    case Kind::kPeerSync:
      return "peer-sync";
    case Kind::kLimit:
      return "limit";
    case Kind::kBatch:
      return "batch";
  }
  return "?";
}

/// Peer queues are not run with more producers than the machine has cores for: moodycamel's
/// bounded `try_enqueue` refused one of two producers sharing a core for ever while its consumer
/// found nothing (a livelock, seen once, not investigated), which no row can report.
bool IsPeer(Kind k) {
  return k == Kind::kPeerMpsc || k == Kind::kPeerSpsc || k == Kind::kPeerSync;
}

struct Contender {
  std::string name;
  Kind kind;
  int max_producers;
  std::size_t max_size_index;  // payload variants beyond this index are not run
  std::function<Outcome(std::size_t, uint64_t, int, bool*)> e2e;
  std::function<Outcome(uint64_t, bool*)> publish_only;
  std::function<LatencyOutcome(uint64_t, uint64_t, bool*)> latency;
};

/// Payload variants a family is run with (index into kSizes); all unless specialised.
template <typename Family>
struct MaxSizeIndex {
  static constexpr std::size_t value = kSizeCount - 1U;
};

template <typename Family>
Contender Make(const char* name, Kind kind) {
  Contender c;
  c.name = name;
  c.kind = kind;
  c.max_producers = Family::template Type<Msg24, SeqSink>::kMaxProducers;
  c.max_size_index = MaxSizeIndex<Family>::value;
  c.e2e = [](std::size_t size_index, uint64_t n, int producers, bool* pinned) {
    switch (size_index) {
      case 0U:
        return RunE2E<Family, Msg24>(n, producers, pinned);
      case 1U:
        return RunE2E<Family, Msg64>(n, producers, pinned);
      case 2U:
        return RunE2E<Family, Msg128>(n, producers, pinned);
      default:
        return RunE2E<Family, Msg256>(n, producers, pinned);
    }
  };
  c.publish_only = [](uint64_t n, bool* pinned) { return RunPublishOnly<Family>(n, pinned); };
  c.latency = [](uint64_t warmup, uint64_t samples, bool* pinned) {
    return RunLatency<Family>(warmup, samples, pinned);
  };
  return c;
}

using mccc::DefaultBusTraits;
constexpr auto kFull = mccc::PerformanceMode::kFullFeatured;
constexpr auto kBare = mccc::PerformanceMode::kBareMetal;

// Names used by the targets below.
const char* const kMpscFullCb = "mccc MPSC FULL callback";
const char* const kMpscFullVisitor = "mccc MPSC FULL visitor";
const char* const kMpscBareCb = "mccc MPSC BARE callback";
const char* const kMpscBareVisitor = "mccc MPSC BARE visitor";
const char* const kSpscFullCb = "mccc SPSC FULL callback";
const char* const kSpscBareCb = "mccc SPSC BARE callback";
const char* const kMpscFullCbFast = "mccc MPSC FULL callback PublishFast";
const char* const kSpscFullCbFast = "mccc SPSC FULL callback PublishFast";
// The shared ring without the HIGH lane (the bus before it), and producer lanes (4 lanes,
// explicit handles, see adapters.hpp).
const char* const kNoHighCb = "mccc MPSC no HIGH lane, callback";
const char* const kNoHighCbFast = "mccc MPSC no HIGH lane, callback PublishFast";
const char* const kLanesCb = "mccc lanes(4) callback";
const char* const kLanesCbFast = "mccc lanes(4) callback PublishFast";
const char* const kMoodycamel = "moodycamel ConcurrentQueue (tokens, bulk)";
const char* const kIdeal = "ideal handoff (SPSC ring, 64 B lines)";
// Minimal rings (common/minimal_ring.hpp): per-message publication, plus a CAS claim and/or a
// cycle-counter stamp per message, nothing else.
const char* const kMinRingSp = "min ring SPSC (publish per message)";
const char* const kMinRingSpStamp = "min ring SPSC + rdtsc per message";
const char* const kMinRingSpOrderedStamp = "min ring SPSC + rdtscp per message";
const char* const kMinRingMp = "min ring MPSC (CAS claim per message)";
const char* const kMinRingMpStamp = "min ring MPSC + rdtsc (CAS + rdtsc per msg)";
constexpr int kMinRingWaitPauses = 64;
const char* const kMinRingMpStampWait = "min ring MPSC + rdtsc, idle consumer waits";
// The minimal lane (common/minimal_lane.hpp): the producer lanes' layout alone.
const char* const kMinLaneStamp = "min lane SPSC + rdtsc (compact slots, tail index)";
const char* const kMinLaneOrderedStamp = "min lane SPSC + rdtscp (compact slots, tail index)";

std::vector<Contender> AllContenders() {
  std::vector<Contender> v;
  v.push_back(
      Make<MccFamily<DefaultBusTraits, kFull, Dispatch::kCallback>>(kMpscFullCb, Kind::kMcccMpsc));
  v.push_back(Make<MccFamily<DefaultBusTraits, kFull, Dispatch::kVisitor>>(kMpscFullVisitor,
                                                                           Kind::kMcccMpsc));
  v.push_back(
      Make<MccFamily<DefaultBusTraits, kBare, Dispatch::kCallback>>(kMpscBareCb, Kind::kMcccMpsc));
  v.push_back(Make<MccFamily<DefaultBusTraits, kBare, Dispatch::kVisitor>>(kMpscBareVisitor,
                                                                           Kind::kMcccMpsc));
  v.push_back(
      Make<MccFamily<DefaultBusTraits, kFull, Dispatch::kCallback, Stamp::kCallerTimestamp>>(
          kMpscFullCbFast, Kind::kMcccMpsc));
  v.push_back(Make<MccFamily<SteadyTraits, kFull, Dispatch::kCallback>>(
      "mccc MPSC FULL callback SteadyClock", Kind::kMcccMpsc));
  v.push_back(
      Make<MccFamily<NoHighLaneTraits, kFull, Dispatch::kCallback>>(kNoHighCb, Kind::kMcccMpsc));
  v.push_back(
      Make<MccFamily<NoHighLaneTraits, kFull, Dispatch::kCallback, Stamp::kCallerTimestamp>>(
          kNoHighCbFast, Kind::kMcccMpsc));
  v.push_back(Make<MccFamily<LanesTraits, kFull, Dispatch::kCallback>>(kLanesCb, Kind::kMcccLanes));
  v.push_back(Make<MccFamily<LanesTraits, kFull, Dispatch::kCallback, Stamp::kCallerTimestamp>>(
      kLanesCbFast, Kind::kMcccLanes));
  v.push_back(
      Make<MccFamily<SpscTraits, kFull, Dispatch::kCallback>>(kSpscFullCb, Kind::kMcccSpsc));
  v.push_back(
      Make<MccFamily<SpscTraits, kBare, Dispatch::kCallback>>(kSpscBareCb, Kind::kMcccSpsc));
  v.push_back(Make<MccFamily<SpscTraits, kFull, Dispatch::kCallback, Stamp::kCallerTimestamp>>(
      kSpscFullCbFast, Kind::kMcccSpsc));
  v.push_back(Make<MccFamily<SpscSteadyTraits, kFull, Dispatch::kCallback>>(
      "mccc SPSC FULL callback SteadyClock", Kind::kMcccSpsc));
  v.push_back(Make<IdealFamily>(kIdeal, Kind::kLimit));
  v.push_back(Make<MinimalRingFamily<false, false>>(kMinRingSp, Kind::kLimit));
  v.push_back(Make<MinimalRingFamily<false, true>>(kMinRingSpStamp, Kind::kLimit));
  v.push_back(Make<MinimalRingFamily<false, true, 0, true>>(kMinRingSpOrderedStamp, Kind::kLimit));
  v.push_back(Make<MinimalLaneFamily<false>>(kMinLaneStamp, Kind::kLimit));
  v.push_back(Make<MinimalLaneFamily<true>>(kMinLaneOrderedStamp, Kind::kLimit));
  v.push_back(Make<MinimalRingFamily<true, false>>(kMinRingMp, Kind::kLimit));
  v.push_back(Make<MinimalRingFamily<true, true>>(kMinRingMpStamp, Kind::kLimit));
  v.push_back(
      Make<MinimalRingFamily<true, true, kMinRingWaitPauses>>(kMinRingMpStampWait, Kind::kLimit));
  v.push_back(Make<MccFamily<DefaultBusTraits, kFull, Dispatch::kCallback, Stamp::kBatch>>(
      "mccc MPSC FULL callback PublishBatch(64)", Kind::kBatch));
  v.push_back(Make<MccFamily<SpscTraits, kFull, Dispatch::kCallback, Stamp::kBatch>>(
      "mccc SPSC FULL callback PublishBatch(64)", Kind::kBatch));
#if MCCC_BENCH_HAVE_MOODYCAMEL
  v.push_back(Make<MoodycamelBulkEnqueueFamily>("moodycamel ConcurrentQueue (enqueue_bulk 64)",
                                                Kind::kBatch));
#endif
#if MCCC_BENCH_HAVE_BOOST
  v.push_back(
      Make<BoostSpscPushArrayFamily>("boost::lockfree::spsc_queue (push 64)", Kind::kBatch));
#endif
#if MCCC_BENCH_HAVE_MOODYCAMEL
  v.push_back(Make<MoodycamelFamily>(kMoodycamel, Kind::kPeerMpsc));
#endif
#if MCCC_BENCH_HAVE_RWQUEUE
  v.push_back(Make<RwQueueFamily>("moodycamel ReaderWriterQueue", Kind::kPeerSpsc));
#endif
#if MCCC_BENCH_HAVE_BOOST
  v.push_back(Make<BoostSpscFamily>("boost::lockfree::spsc_queue", Kind::kPeerSpsc));
  v.push_back(Make<BoostQueueFamily>("boost::lockfree::queue", Kind::kPeerMpsc));
#endif
#if MCCC_BENCH_HAVE_TBB
  v.push_back(Make<TbbBoundedFamily>("tbb::concurrent_bounded_queue", Kind::kPeerMpsc));
#endif
#if MCCC_BENCH_HAVE_ZMQ
  v.push_back(Make<ZmqFamily>("ZeroMQ inproc PUSH/PULL", Kind::kPeerMpsc));
#endif
#if MCCC_BENCH_HAVE_EVENTPP
  v.push_back(Make<EventppFamily>("eventpp EventQueue", Kind::kPeerMpsc));
#endif
#if MCCC_BENCH_HAVE_QPCPP
  v.push_back(Make<QpcppFamily>("QP/C++ active object (POSIX port)", Kind::kPeerMpsc));
#endif
#if MCCC_BENCH_HAVE_SIGCXX
  v.push_back(Make<SigcFamily>("libsigc++ signal (sync)", Kind::kPeerSync));
#endif
#if MCCC_BENCH_HAVE_SIGSLOT
  v.push_back(Make<SigslotFamily>("sigslot signal_st (sync)", Kind::kPeerSync));
#endif
#if MCCC_BENCH_HAVE_ENTT
  v.push_back(Make<EnttFamily>("EnTT dispatcher trigger (sync)", Kind::kPeerSync));
#endif
  return v;
}

struct Config {
  int rounds = 10;
  uint64_t messages = 1000000U;
  uint64_t publish_messages = 100000U;
  uint64_t latency_samples = 10000U;
  uint64_t warmup = 1000U;
  uint64_t pingpong = 1000000U;
  uint64_t flood_samples = 2000U;  // HIGH messages measured per run (10 kHz: 0.2 s)
  uint64_t flood_warmup = 100U;
  std::vector<std::size_t> size_indices = {0U, 1U, 2U, 3U};
  std::vector<int> producers = {1, 2, 4};
  std::vector<std::string> filter;
  std::string json;
  std::string commit;
};

bool Parse(int argc, char** argv, Config& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    auto next_u = [&]() { return std::strtoull(next().c_str(), nullptr, 10); };
    if (a == "--rounds") {
      c.rounds = static_cast<int>(next_u());
    } else if (a == "--messages") {
      c.messages = next_u();
    } else if (a == "--publish-messages") {
      c.publish_messages = next_u();
    } else if (a == "--latency-samples") {
      c.latency_samples = next_u();
    } else if (a == "--warmup") {
      c.warmup = next_u();
    } else if (a == "--pingpong") {
      c.pingpong = next_u();
    } else if (a == "--sizes") {
      c.size_indices.clear();
      for (const std::string& s : SplitList(next())) {
        for (std::size_t k = 0U; k < kSizeCount; ++k) {
          if (std::atoi(s.c_str()) == kSizes[k]) {
            c.size_indices.push_back(k);
          }
        }
      }
    } else if (a == "--producers") {
      c.producers.clear();
      for (const std::string& s : SplitList(next())) {
        c.producers.push_back(std::atoi(s.c_str()));
      }
    } else if (a == "--flood-samples") {
      c.flood_samples = next_u();
    } else if (a == "--filter") {
      c.filter = SplitList(next());
    } else if (a == "--json") {
      c.json = next();
    } else if (a == "--commit") {
      c.commit = next();
    } else if (a == "--smoke") {
      c.rounds = 2;
      c.messages = 20000U;
      c.publish_messages = 10000U;
      c.latency_samples = 200U;
      c.warmup = 50U;
      c.pingpong = 10000U;
      c.flood_samples = 100U;
      c.flood_warmup = 10U;
    } else {
      std::fprintf(stderr, "unknown argument: %s (see the file comment of competitive.cpp)\n",
                   a.c_str());
      return false;
    }
  }
  return c.rounds > 0 && c.messages > 0U && c.publish_messages > 0U && c.latency_samples > 0U;
}

/// Samples of one series plus whether every run passed the sequence check.
struct Series {
  std::vector<double> values;
  std::vector<double> per_poll;  // E2E: messages per delivering consumer poll, per round
  bool all_valid = true;
  bool skipped = false;
  void Add(const Outcome& o) {
    if (o.skipped) {
      skipped = true;
      return;
    }
    values.push_back(o.value);
    per_poll.push_back(o.per_poll);
    all_valid = all_valid && o.valid;
  }
};

struct LatencySeries {
  std::vector<double> p50, p95, p99, max;
  bool all_valid = true;
  bool skipped = false;
  void Add(const LatencyOutcome& o) {
    if (o.skipped) {
      skipped = true;
      return;
    }
    p50.push_back(o.p50);
    p95.push_back(o.p95);
    p99.push_back(o.p99);
    max.push_back(o.max);
    all_valid = all_valid && o.valid;
  }
};

/// True when `name` is selected by the filter (empty: everything).
// ---------------------------------------------------------------------------------------------
// HIGH under flood (common/high_flood.hpp): normal ring depth x HIGH lane on / off.
// ---------------------------------------------------------------------------------------------
const char* const kHighFlood = "HIGH under flood";
constexpr uint64_t kHighFloodPeriodNs = 100000U;  // 10 kHz

struct FloodCase {
  std::string name;
  uint32_t depth;
  bool high_lane;
  bool realtime;
  HighFloodOutcome (*run)(uint64_t, uint64_t, uint64_t, bool, bool*);
};

/// Depth 1,024 and 131,072 x HIGH lane on / off x consumer and HIGH publisher at normal or
/// real-time (SCHED_FIFO) priority. Real-time and normal cases alternate, so the real-time
/// consumers never spin long enough together to meet the kernel's real-time throttling.
std::vector<FloodCase> FloodCases() {
  constexpr uint32_t kHighDepth = mccc::DefaultBusTraits::kHighQueueDepth;
  struct FloodConfig {
    const char* name;
    uint32_t depth;
    bool high_lane;
    HighFloodOutcome (*run)(uint64_t, uint64_t, uint64_t, bool, bool*);
  };
  const FloodConfig configs[] = {
      {"HIGH under flood, depth 1,024, HIGH lane on", 1024U, true,
       &RunHighUnderFlood<1024U, kHighDepth>},
      {"HIGH under flood, depth 1,024, no HIGH lane", 1024U, false, &RunHighUnderFlood<1024U, 0U>},
      {"HIGH under flood, depth 131,072, HIGH lane on", 131072U, true,
       &RunHighUnderFlood<131072U, kHighDepth>},
      {"HIGH under flood, depth 131,072, no HIGH lane", 131072U, false,
       &RunHighUnderFlood<131072U, 0U>},
  };
  std::vector<FloodCase> cases;
  for (const FloodConfig& c : configs) {
    cases.push_back({c.name, c.depth, c.high_lane, false, c.run});
    cases.push_back({std::string(c.name) + ", RT", c.depth, c.high_lane, true, c.run});
  }
  return cases;
}

struct FloodSeries {
  std::vector<double> p50, p99, max, dispatch_ns, fill, publish_p50, publish_p99, after_p99;
  uint64_t low_refused = 0U;
  uint64_t high_refused = 0U;
  uint64_t consumer_preempted = 0U;
  uint64_t publisher_preempted = 0U;
  bool all_valid = true;
  bool realtime_failed = false;
  void Add(const HighFloodOutcome& o) {
    consumer_preempted += o.consumer_preempted;
    publisher_preempted += o.publisher_preempted;
    realtime_failed = realtime_failed || o.realtime_failed;
    p50.push_back(o.p50);
    p99.push_back(o.p99);
    max.push_back(o.max);
    dispatch_ns.push_back(o.dispatch_ns);
    fill.push_back(o.fill_percent);
    publish_p50.push_back(o.publish_p50);
    publish_p99.push_back(o.publish_p99);
    after_p99.push_back(o.after_p99);
    low_refused += o.low_refused;
    high_refused += o.high_refused;
    all_valid = all_valid && o.valid;
  }
};

using E2EKey = std::pair<std::string, std::pair<std::size_t, int>>;  // name, (size, producers)

struct Results {
  std::map<E2EKey, Series> e2e;
  std::map<std::string, Series> publish;
  std::map<std::string, LatencySeries> latency;
  std::map<std::string, FloodSeries> flood;
  std::vector<double> pingpong_ns;
};

const char* Verdict(bool met) {
  return met ? "MET" : "MISSED";
}

}  // namespace
}  // namespace mccc_bench

int main(int argc, char** argv) {
  using namespace mccc_bench;
  Config cfg;
  if (!Parse(argc, argv, cfg)) {
    return 2;
  }
  RunInfo info = StartRun("competitive", argc, argv, cfg.commit);
  std::vector<Contender> all = AllContenders();
  std::vector<Contender> contenders;
  for (Contender& c : all) {
    if (Selected(cfg.filter, c.name) || c.kind == Kind::kLimit) {
      contenders.push_back(std::move(c));
    }
  }
  std::vector<FloodCase> flood_cases;
  if (cfg.flood_samples > 0U && Selected(cfg.filter, kHighFlood)) {
    flood_cases = FloodCases();
  }
  std::vector<int> producer_counts;
  for (int p : cfg.producers) {
    if (p >= 1 && p <= kMaxProducers) {
      producer_counts.push_back(p);
      if (Oversubscribed(p)) {
        std::printf(
            "note: %d producers + 1 consumer on %d cores: OVERSUBSCRIBED (all producers share "
            "core 0; those rows measure time-slicing as well as the queue; peer queues skipped)\n",
            p, CoreCount());
      }
    } else {
      std::printf("note: %d producers skipped (1 to %d supported)\n", p, kMaxProducers);
    }
  }
  std::printf("competitive: %zu contenders, %d rounds, %llu msgs/round E2E, %d cores\n",
              contenders.size(), cfg.rounds, static_cast<unsigned long long>(cfg.messages),
              CoreCount());
  (void)Ticks::NsPerTick();

  Results res;
  const std::size_t n = contenders.size();
  for (int round = 0; round < cfg.rounds; ++round) {
    std::printf("round %d/%d ...\n", round + 1, cfg.rounds);
    std::fflush(stdout);
    res.pingpong_ns.push_back(RunPingPong(cfg.pingpong, &info.pinned));
    // Rotate the starting contender every round so no one always runs first or last.
    const std::size_t offset = static_cast<std::size_t>(round) % n;
    for (std::size_t size_index : cfg.size_indices) {
      for (int producers : producer_counts) {
        for (std::size_t k = 0U; k < n; ++k) {
          const Contender& c = contenders[(k + offset) % n];
          if (producers > c.max_producers || size_index > c.max_size_index ||
              (Oversubscribed(producers) && IsPeer(c.kind))) {
            continue;
          }
          res.e2e[{c.name, {size_index, producers}}].Add(
              c.e2e(size_index, cfg.messages, producers, &info.pinned));
        }
      }
    }
    for (std::size_t k = 0U; k < n; ++k) {
      const Contender& c = contenders[(k + offset) % n];
      res.publish[c.name].Add(c.publish_only(cfg.publish_messages, &info.pinned));
    }
    for (std::size_t k = 0U; k < n; ++k) {
      const Contender& c = contenders[(k + offset) % n];
      res.latency[c.name].Add(c.latency(cfg.warmup, cfg.latency_samples, &info.pinned));
    }
    for (std::size_t k = 0U; k < flood_cases.size(); ++k) {
      const FloodCase& f = flood_cases[(k + static_cast<std::size_t>(round)) % flood_cases.size()];
      res.flood[f.name].Add(
          f.run(cfg.flood_warmup, cfg.flood_samples, kHighFloodPeriodNs, f.realtime, &info.pinned));
    }
  }

  // ----------------------------------------------------------------------------------------
  // Tables
  // ----------------------------------------------------------------------------------------
  const Summary pingpong = Summarize(res.pingpong_ns);
  std::printf(
      "\nCore-to-core one-way handoff (cache-line ping-pong): median %.1f ns (min %.1f, max "
      "%.1f)\n",
      pingpong.median, pingpong.min, pingpong.max);

  std::vector<std::string> e2e_json;
  for (std::size_t size_index : cfg.size_indices) {
    for (int producers : producer_counts) {
      const double ideal = Median(res.e2e[{kIdeal, {size_index, 1}}].values);
      std::printf(
          "\nE2E throughput, %d-byte payload, %d producer(s)%s, %llu msgs x %d rounds "
          "(M msg/s)\n",
          kSizes[size_index], producers,
          Oversubscribed(producers) ? " OVERSUBSCRIBED (producers + consumer > cores)" : "",
          static_cast<unsigned long long>(cfg.messages), cfg.rounds);
      std::printf("  %-44s %9s %9s %9s %9s %9s %6s\n", "contender", "median", "min", "max",
                  "x ideal", "msg/poll", "check");
      for (const Contender& c : contenders) {
        auto it = res.e2e.find({c.name, {size_index, producers}});
        if (it == res.e2e.end() || it->second.values.empty()) {
          continue;
        }
        const Summary s = Summarize(it->second.values);
        const Summary per_poll = Summarize(it->second.per_poll);
        std::printf("  %-44s %9.2f %9.2f %9.2f %9.3f %9.1f %6s\n", c.name.c_str(), s.median / 1e6,
                    s.min / 1e6, s.max / 1e6, ideal > 0.0 ? s.median / ideal : 0.0, per_poll.median,
                    it->second.all_valid ? "ok" : "FAIL");
        JsonObject o;
        o.Str("contender", c.name).Str("kind", KindName(c.kind));
        o.Int("payload_bytes", static_cast<uint64_t>(kSizes[size_index]));
        o.Int("producers", static_cast<uint64_t>(producers));
        o.Bool("oversubscribed", Oversubscribed(producers));
        o.Sum("msgs_per_sec", s).Num("fraction_of_ideal", ideal > 0.0 ? s.median / ideal : 0.0);
        o.Bool("sequence_check_passed", it->second.all_valid);
        o.Raw("samples", SamplesJson(it->second.values));
        o.Sum("messages_per_poll", per_poll);
        o.Raw("messages_per_poll_samples", SamplesJson(it->second.per_poll));
        e2e_json.push_back(o.Text());
      }
    }
  }

  std::vector<std::string> publish_json;
  std::printf("\nPublish-only, 24-byte payload, %llu msgs into an empty queue (ns/msg)\n",
              static_cast<unsigned long long>(cfg.publish_messages));
  std::printf("  %-44s %9s %9s %9s %6s\n", "contender", "median", "min", "max", "check");
  for (const Contender& c : contenders) {
    const Series& se = res.publish[c.name];
    if (se.values.empty()) {
      if (se.skipped && c.kind != Kind::kPeerSync) {
        std::printf("  %-44s skipped (its queue holds fewer than %llu messages)\n", c.name.c_str(),
                    static_cast<unsigned long long>(cfg.publish_messages));
      }
      continue;
    }
    const Summary s = Summarize(se.values);
    std::printf("  %-44s %9.2f %9.2f %9.2f %6s\n", c.name.c_str(), s.median, s.min, s.max,
                se.all_valid ? "ok" : "FAIL");
    JsonObject o;
    o.Str("contender", c.name).Str("kind", KindName(c.kind)).Sum("ns_per_msg", s);
    o.Bool("sequence_check_passed", se.all_valid);
    publish_json.push_back(o.Text());
  }

  std::vector<std::string> latency_json;
  std::printf(
      "\nLatency publish -> delivery, one in flight, %llu samples after %llu warm-up, "
      "medians over rounds (ns)\n",
      static_cast<unsigned long long>(cfg.latency_samples),
      static_cast<unsigned long long>(cfg.warmup));
  std::printf("  %-44s %9s %9s %9s %9s %9s %6s\n", "contender", "P50", "P95", "P99", "max",
              "P50/1way", "check");
  for (const Contender& c : contenders) {
    const LatencySeries& l = res.latency[c.name];
    if (l.p50.empty()) {
      continue;
    }
    const Summary p50 = Summarize(l.p50);
    const Summary p95 = Summarize(l.p95);
    const Summary p99 = Summarize(l.p99);
    const Summary mx = Summarize(l.max);
    std::printf("  %-44s %9.1f %9.1f %9.1f %9.1f %9.2f %6s\n", c.name.c_str(), p50.median,
                p95.median, p99.median, mx.max,
                pingpong.median > 0.0 ? p50.median / pingpong.median : 0.0,
                l.all_valid ? "ok" : "FAIL");
    JsonObject o;
    o.Str("contender", c.name).Str("kind", KindName(c.kind));
    o.Sum("p50_ns", p50).Sum("p95_ns", p95).Sum("p99_ns", p99).Sum("max_ns", mx);
    o.Num("p50_over_one_way_handoff", pingpong.median > 0.0 ? p50.median / pingpong.median : 0.0);
    o.Bool("sequence_check_passed", l.all_valid);
    latency_json.push_back(o.Text());
  }

  std::vector<std::string> flood_json;
  if (!flood_cases.empty()) {
    std::printf(
        "\nHIGH under flood: LOW flood (PublishBatch 64, retried; LOW callback busy %llu ns) keeps "
        "the normal ring at LOW's limit, HIGH published at %.0f kHz from another thread; HIGH "
        "publish -> start of its "
        "callback, %llu samples per run after %llu warm-up, P50/P99 medians over rounds, max "
        "of all (ns).\n",
        static_cast<unsigned long long>(kLowCallbackNs),
        1e6 / static_cast<double>(kHighFloodPeriodNs),
        static_cast<unsigned long long>(cfg.flood_samples),
        static_cast<unsigned long long>(cfg.flood_warmup));
    if (Oversubscribed(2)) {
      std::printf(
          "  OVERSUBSCRIBED: flooder + HIGH publisher (core 0) + consumer (core 1) on %d cores\n",
          CoreCount());
    }
    std::printf(
        "  dispatch = consumer time per message under the flood; bound = 2 x one-way "
        "handoff (%.1f) + dispatch\n",
        pingpong.median);
    std::printf(
        "  preempt = involuntary context switches of the consumer / of the HIGH publisher "
        "while measuring, all rounds (other programs taking their cores; each can hold a HIGH "
        "message for milliseconds); HIGHref = HIGH publishes refused and retried (HIGH lane, or "
        "ring, full while the consumer was away); RT = consumer, flooder and HIGH publisher at "
        "SCHED_FIFO priority (no-RT: not permitted here); pub P50/P99 = the HIGH publish call "
        "alone (from the stamp to its return: the publisher's part of the latency), rest P99 = "
        "P99 of what follows it (the call's return -> start of the callback)\n");
    std::printf("  %-46s %9s %9s %10s %9s %9s %9s %6s %9s %8s %7s %7s %7s %6s\n", "case", "P50",
                "P99", "max", "dispatch", "bound", "P99/bnd", "fill%", "preempt", "HIGHref",
                "pubP50", "pubP99", "restP99", "check");
    for (const FloodCase& f : flood_cases) {
      const FloodSeries& fs = res.flood[f.name];
      const double p99 = Median(fs.p99);
      const double dispatch = Median(fs.dispatch_ns);
      const double bound = 2.0 * pingpong.median + dispatch;
      const Summary mx = Summarize(fs.max);
      std::printf(
          "  %-46s %9.0f %9.0f %10.0f %9.1f %9.1f %9.2f %6.1f %4llu/%-4llu %8llu %7.0f %7.0f "
          "%7.0f %6s\n",
          f.name.c_str(), Median(fs.p50), p99, mx.max, dispatch, bound,
          bound > 0.0 ? p99 / bound : 0.0, Median(fs.fill),
          static_cast<unsigned long long>(fs.consumer_preempted),
          static_cast<unsigned long long>(fs.publisher_preempted),
          static_cast<unsigned long long>(fs.high_refused), Median(fs.publish_p50),
          Median(fs.publish_p99), Median(fs.after_p99),
          !fs.all_valid        ? "FAIL"
          : fs.realtime_failed ? "no-RT"
                               : "ok");
      JsonObject o;
      o.Str("case", f.name).Int("normal_ring_depth", f.depth).Bool("high_lane", f.high_lane);
      o.Sum("p50_ns", Summarize(fs.p50)).Sum("p99_ns", Summarize(fs.p99)).Sum("max_ns", mx);
      o.Sum("dispatch_ns", Summarize(fs.dispatch_ns)).Num("bound_ns", bound);
      o.Sum("publish_call_p50_ns", Summarize(fs.publish_p50))
          .Sum("publish_call_p99_ns", Summarize(fs.publish_p99))
          .Sum("after_publish_p99_ns", Summarize(fs.after_p99));
      o.Sum("normal_ring_fill_percent", Summarize(fs.fill));
      o.Int("low_refused", fs.low_refused).Int("high_refused", fs.high_refused);
      o.Int("consumer_involuntary_switches", fs.consumer_preempted);
      o.Int("high_publisher_involuntary_switches", fs.publisher_preempted);
      o.Bool("realtime", f.realtime).Bool("realtime_refused", fs.realtime_failed);
      o.Bool("oversubscribed", Oversubscribed(2));
      o.Bool("sequence_check_passed", fs.all_valid);
      flood_json.push_back(o.Text());
    }
  }

  // ----------------------------------------------------------------------------------------
  // Targets (24-byte payload, one producer)
  // ----------------------------------------------------------------------------------------
  auto e2e_median = [&](const std::string& name) {
    auto it = res.e2e.find({name, {0U, 1}});
    return it == res.e2e.end() ? 0.0 : Median(it->second.values);
  };
  auto best_of = [&](Kind kind, std::string* best_name) {
    double best = 0.0;
    for (const Contender& c : contenders) {
      const double m = c.kind == kind ? e2e_median(c.name) : 0.0;
      if (m > best) {
        best = m;
        *best_name = c.name;
      }
    }
    return best;
  };
  // Used by the targets and by the minimal rings below: the 24-byte E2E rows, if run.
  const bool ran_24b =
      std::find(cfg.size_indices.begin(), cfg.size_indices.end(), 0U) != cfg.size_indices.end();
  std::string best_mp_name = "none";
  std::string best_sp_name = "none";
  const double best_mp = best_of(Kind::kPeerMpsc, &best_mp_name);
  const double best_sp = best_of(Kind::kPeerSpsc, &best_sp_name);
  auto ratio = [](double a, double b) { return a > 0.0 && b > 0.0 ? a / b : 0.0; };
  std::vector<std::string> target_json;
  std::printf("\nSpeed targets, 24-byte payload, one producer:\n");
  auto target = [&](const std::string& what, double measured, double limit, bool higher_is_better,
                    const std::string& unit) {
    if (measured <= 0.0 || limit <= 0.0) {
      std::printf("  %-62s n/a (a contender is missing from this run)\n", what.c_str());
      return;
    }
    const bool met = higher_is_better ? measured >= limit : measured <= limit;
    std::printf("  %-62s %10.3f %-6s (target %s %.3f) %s\n", what.c_str(), measured, unit.c_str(),
                higher_is_better ? ">=" : "<=", limit, Verdict(met));
    JsonObject o;
    o.Str("target", what).Num("measured", measured).Num("limit", limit).Str("unit", unit);
    o.Bool("higher_is_better", higher_is_better).Bool("met", met);
    target_json.push_back(o.Text());
  };
  if (ran_24b) {
    const double mpsc_full = e2e_median(kMpscFullCb);
    const double spsc_full = e2e_median(kSpscFullCb);
    target("E2E MPSC FULL callback / best MP queue (" + best_mp_name + ")",
           ratio(mpsc_full, best_mp), 1.0, true, "x");
    target("E2E SPSC FULL callback / best SPSC queue (" + best_sp_name + ")",
           ratio(spsc_full, best_sp), 1.0, true, "x");
    target("E2E MPSC FULL/BARE, callback", ratio(mpsc_full, e2e_median(kMpscBareCb)), 0.9, true,
           "x");
    target("E2E MPSC FULL/BARE, visitor",
           ratio(e2e_median(kMpscFullVisitor), e2e_median(kMpscBareVisitor)), 0.9, true, "x");
    target("E2E SPSC FULL/BARE, callback", ratio(spsc_full, e2e_median(kSpscBareCb)), 0.9, true,
           "x");
    target("E2E lanes(4) Publish / min ring SPSC + rdtsc",
           ratio(e2e_median(kLanesCb), e2e_median(kMinRingSpStamp)), 0.9, true, "x");
    target(std::string("E2E lanes(4) PublishFast / ") + kMoodycamel,
           ratio(e2e_median(kLanesCbFast), e2e_median(kMoodycamel)), 1.0, true, "x");
    target("E2E default bus (HIGH lane) / no HIGH lane, Publish",
           ratio(mpsc_full, e2e_median(kNoHighCb)), 0.95, true, "x");
    target("E2E default bus (HIGH lane) / no HIGH lane, PublishFast",
           ratio(e2e_median(kMpscFullCbFast), e2e_median(kNoHighCbFast)), 0.95, true, "x");
  }
  target("Publish-only lanes(4) PublishFast", Median(res.publish[kLanesCbFast].values), 4.0, false,
         "ns");
  for (const FloodCase& f : flood_cases) {
    if (f.high_lane) {
      const FloodSeries& fs = res.flood[f.name];
      const double bound = 2.0 * pingpong.median + Median(fs.dispatch_ns);
      target(f.name + ": P99 / (2 x handoff + dispatch)", ratio(Median(fs.p99), bound), 1.0, false,
             "x");
    }
  }
  target("Publish-only MPSC FULL (Publish)", Median(res.publish[kMpscFullCb].values), 10.0, false,
         "ns");
  target("Publish-only SPSC FULL (Publish)", Median(res.publish[kSpscFullCb].values), 5.0, false,
         "ns");
  for (const char* name : {kMpscFullCb, kSpscFullCb}) {
    const LatencySeries& l = res.latency[name];
    const double p50 = Median(l.p50);
    const double p99 = Median(l.p99);
    target(std::string("Latency P50 / one-way handoff, ") + name, ratio(p50, pingpong.median), 1.5,
           false, "x");
    target(std::string("Latency P99 / P50, ") + name, ratio(p99, p50), 2.0, false, "x");
  }

  // ----------------------------------------------------------------------------------------
  // Minimal rings: what per-message publication, the shared claim and the per-message stamp
  // cost by themselves (not targets; they explain the targets).
  // ----------------------------------------------------------------------------------------
  std::vector<std::string> minimal_json;
  std::printf(
      "\nMinimal rings with the same per-message promises (common/minimal_ring.hpp), 24-byte "
      "payload, one producer:\n");
  auto relation = [&](const std::string& what, double value, const std::string& unit) {
    if (value <= 0.0) {
      std::printf("  %-62s n/a (a contender is missing from this run)\n", what.c_str());
      return;
    }
    std::printf("  %-62s %10.3f %s\n", what.c_str(), value, unit.c_str());
    JsonObject o;
    o.Str("relation", what).Num("value", value).Str("unit", unit);
    minimal_json.push_back(o.Text());
  };
  if (ran_24b) {
    const double ring_mp = e2e_median(kMinRingMp);
    const double ring_mp_stamp = e2e_median(kMinRingMpStamp);
    const double ring_sp = e2e_median(kMinRingSp);
    const double ring_sp_stamp = e2e_median(kMinRingSpStamp);
    relation("E2E min ring MPSC + rdtsc / " + best_mp_name, ratio(ring_mp_stamp, best_mp), "x");
    relation("E2E min ring MPSC / " + best_mp_name, ratio(ring_mp, best_mp), "x");
    relation("E2E min ring MPSC + rdtsc, idle consumer waits / " + best_mp_name,
             ratio(e2e_median(kMinRingMpStampWait), best_mp), "x");
    relation("E2E min ring SPSC + rdtsc / " + best_sp_name, ratio(ring_sp_stamp, best_sp), "x");
    relation("E2E min ring SPSC / " + best_sp_name, ratio(ring_sp, best_sp), "x");
    relation(std::string("E2E ") + kMpscFullCb + " / min ring MPSC + rdtsc",
             ratio(e2e_median(kMpscFullCb), ring_mp_stamp), "x");
    relation(std::string("E2E ") + kMpscFullCbFast + " / min ring MPSC",
             ratio(e2e_median(kMpscFullCbFast), ring_mp), "x");
    relation(std::string("E2E ") + kSpscFullCb + " / min ring SPSC + rdtsc",
             ratio(e2e_median(kSpscFullCb), ring_sp_stamp), "x");
    relation(std::string("E2E ") + kSpscFullCbFast + " / min ring SPSC",
             ratio(e2e_median(kSpscFullCbFast), ring_sp), "x");
  }
  // Producer lanes by payload size (compact slots: a lane slot is one envelope, no sequence).
  for (std::size_t size_index : cfg.size_indices) {
    auto at = [&](const char* name) {
      auto it = res.e2e.find({name, {size_index, 1}});
      return it == res.e2e.end() ? 0.0 : Median(it->second.values);
    };
    const std::string size = std::to_string(kSizes[size_index]) + " B";
    relation("E2E lanes(4) Publish / min ring SPSC + rdtsc, " + size,
             ratio(at(kLanesCb), at(kMinRingSpStamp)), "x");
    relation("E2E lanes(4) Publish / min ring SPSC + rdtscp (mccc's ordered read), " + size,
             ratio(at(kLanesCb), at(kMinRingSpOrderedStamp)), "x");
    relation("E2E min lane SPSC + rdtsc / min ring SPSC + rdtsc, " + size,
             ratio(at(kMinLaneStamp), at(kMinRingSpStamp)), "x");
    relation("E2E lanes(4) Publish / min lane SPSC + rdtscp (same layout and read), " + size,
             ratio(at(kLanesCb), at(kMinLaneOrderedStamp)), "x");
    relation("E2E lanes(4) PublishFast / moodycamel (tokens, bulk), " + size,
             ratio(at(kLanesCbFast), at(kMoodycamel)), "x");
    relation("E2E lanes(4) PublishFast / min ring SPSC, " + size,
             ratio(at(kLanesCbFast), at(kMinRingSp)), "x");
  }
  for (const char* name : {kMinRingMpStamp, kMinRingMp, kMinRingSpStamp, kMinRingSpOrderedStamp,
                           kMinRingSp, kMinLaneStamp, kMinLaneOrderedStamp}) {
    relation(std::string("Publish-only ") + name, Median(res.publish[name].values), "ns");
  }
  for (const char* name : {kMinRingMpStamp, kMinRingMpStampWait}) {
    relation(std::string("Latency P50 / one-way handoff, ") + name,
             ratio(Median(res.latency[name].p50), pingpong.median), "x");
  }

  bool all_valid = true;
  for (const auto& kv : res.e2e) {
    all_valid = all_valid && kv.second.all_valid;
  }
  for (const auto& kv : res.publish) {
    all_valid = all_valid && kv.second.all_valid;
  }
  for (const auto& kv : res.latency) {
    all_valid = all_valid && kv.second.all_valid;
  }
  for (const auto& kv : res.flood) {
    all_valid = all_valid && kv.second.all_valid;
  }

  JsonObject results;
  JsonObject protocol;
  protocol.Int("rounds", static_cast<uint64_t>(cfg.rounds)).Int("e2e_messages", cfg.messages);
  protocol.Int("publish_only_messages", cfg.publish_messages);
  protocol.Int("latency_samples", cfg.latency_samples).Int("latency_warmup", cfg.warmup);
  protocol.Int("pingpong_iterations", cfg.pingpong);
  protocol.Int("high_flood_samples", cfg.flood_samples).Int("high_flood_warmup", cfg.flood_warmup);
  protocol.Int("high_flood_period_ns", kHighFloodPeriodNs);
  protocol.Int("cores", static_cast<uint64_t>(CoreCount()));
  results.Raw("protocol", protocol.Text());
  results.Sum("one_way_handoff_ns", pingpong);
  // Per round, in round order (as every row's "samples"): which rounds ran near and which far.
  results.Raw("one_way_handoff_samples_ns", SamplesJson(res.pingpong_ns));
  results.Raw("e2e", JArray(e2e_json));
  results.Raw("publish_only", JArray(publish_json));
  results.Raw("latency", JArray(latency_json));
  results.Raw("high_under_flood", JArray(flood_json));
  results.Raw("targets", JArray(target_json));
  results.Raw("minimal_rings", JArray(minimal_json));
  results.Bool("all_sequence_checks_passed", all_valid);
  if (!WriteJson(cfg.json, info, results.Text())) {
    return 1;
  }
  if (!info.pinned) {
    std::printf("warning: some threads could not be pinned (fewer than 2 cores?)\n");
  }
  if (!all_valid) {
    std::printf("FAIL: a sequence check failed (a message was lost, duplicated or reordered)\n");
    return 1;
  }
  return 0;
}
