// SPDX-License-Identifier: MIT
// soak: runs an AsyncBus (default traits: 131072 slots) for minutes with several producers and
// one consumer, checking every message as it arrives, and fails on lost, duplicated, reordered
// or corrupted messages, on inexact statistics, on memory growth and on a falling throughput.
//
//   soak [--minutes N | --seconds N] [--producers N] [--interval SECONDS]
//        [--burst-every SECONDS] [--burst-ms MS]
//        [--max-rss-growth-mib MIB] [--min-throughput-ratio RATIO]
//   defaults: 1 minute, 4 producers, a report every 10 s (1 s for runs under a minute),
//   an overload burst of 250 ms every 5 s, RSS growth at most 4 MiB, throughput ratio at
//   least 0.5.
//
// Traffic: every producer publishes numbered samples with a priority derived from
// (producer, seq) (HIGH 20%, MEDIUM 50%, LOW 30%) through Publish / PublishWithPriority /
// PublishFast / PublishEmplace. Normally it paces itself (64 messages, then a 200 us nap), so
// the consumer keeps up and parks in WaitForMessages; during a burst every producer publishes
// flat out and the queue overflows: LOW is refused first, then MEDIUM. A refused sample is not
// retried (its seq is skipped).
//
// Checks, continuously, per ordering class: FIFO per producer holds within a class, HIGH and
// LOW/MEDIUM (with the default HIGH lane a HIGH message overtakes its producer's queued LOW/MEDIUM
// ones; with kHighQueueDepth = 0 the classes are merely a finer split of one FIFO):
// - per producer and class, delivered seqs strictly increase (no duplicate, no reordering), the
//   payload checksum, sender id and priority match, msg_id increases by exactly 1 per message;
// - about every 100 ms each producer publishes two markers (each retried until admitted), a HIGH
//   one and a MEDIUM one, each carrying how many samples of its own class the producer had
//   admitted so far and a hash of their seqs; the consumer must have delivered exactly that many
//   of that producer's samples of that class with the same hash when the marker arrives (FIFO per
//   producer and class: nothing lost, nothing invented, up to that point);
// and at the end: per producer and priority admitted + refused == attempted, equal to the bus
// statistics; per producer and class delivered == admitted (count and hash); the queue is empty;
// and, both within one run so that a slow or busy machine moves both ends alike:
// - memory: resident set size (VmRSS) at the end minus at the first report (the warm-up: threads
//   started, every slot of the ring touched) at most --max-rss-growth-mib. The bus allocates
//   nothing after construction, so growth means a leak; a leak of even a few bytes per message
//   exceeds the bound within seconds;
// - throughput: the median rate (messages delivered per second) of the last quarter of the
//   intervals at least --min-throughput-ratio times the median of the first quarter (the first
//   and the last interval when there are fewer than eight; needs two). Every interval holds the
//   same share of paced traffic and of bursts, so a falling rate means something accumulates (a
//   slower path taken over time, a growing structure); the medians keep a passing load spike on
//   a shared machine from deciding.
//
// Output: a table per interval (throughput, refusals, queue depth, VmRSS from
// /proc/self/status), the two checks with their figures, and a last line starting with
// "soak: PASS" or "soak: FAIL" (exit status 0 / 1).
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using mccc::MessageHeader;
using mccc::MessagePriority;

// ----- options ---------------------------------------------------------------------------------

struct Options {
  double seconds = 60.0;
  uint32_t producers = 4U;
  double interval = 0.0;  // 0: 10 s, or 1 s for runs shorter than a minute
  double burst_every = 5.0;
  double burst_ms = 250.0;
  double max_rss_growth_mib = 4.0;
  double min_throughput_ratio = 0.5;
};

void Usage() {
  std::fprintf(stderr,
               "usage: soak [--minutes N | --seconds N] [--producers N] [--interval SECONDS]\n"
               "            [--burst-every SECONDS] [--burst-ms MS]\n"
               "            [--max-rss-growth-mib MIB] [--min-throughput-ratio RATIO]\n");
}

bool ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      Usage();
      return false;
    }
    const double value = std::strtod(argv[++i], nullptr);
    if (!(value > 0.0)) {
      std::fprintf(stderr, "soak: %s needs a positive number\n", arg.c_str());
      return false;
    }
    if (arg == "--minutes") {
      o.seconds = value * 60.0;
    } else if (arg == "--seconds") {
      o.seconds = value;
    } else if (arg == "--producers") {
      o.producers = static_cast<uint32_t>(value);
    } else if (arg == "--interval") {
      o.interval = value;
    } else if (arg == "--burst-every") {
      o.burst_every = value;
    } else if (arg == "--burst-ms") {
      o.burst_ms = value;
    } else if (arg == "--max-rss-growth-mib") {
      o.max_rss_growth_mib = value;
    } else if (arg == "--min-throughput-ratio") {
      o.min_throughput_ratio = value;
    } else {
      Usage();
      return false;
    }
  }
  if (o.interval <= 0.0) {
    o.interval = o.seconds < 60.0 ? 1.0 : 10.0;
  }
  return o.producers > 0U;
}

// ----- messages --------------------------------------------------------------------------------

constexpr uint64_t Mix(uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

constexpr uint64_t Key(uint32_t producer, uint32_t seq) noexcept {
  return (static_cast<uint64_t>(producer) << 32U) | seq;
}

constexpr uint64_t HashStep(uint64_t hash, uint32_t seq) noexcept {
  return Mix(hash ^ (static_cast<uint64_t>(seq) + 1U));
}

struct Sample {
  Sample() noexcept = default;
  Sample(uint32_t p, uint32_t s) noexcept : producer(p), seq(s) {
    uint64_t sum = 0U;
    for (std::size_t i = 0U; i < words.size(); ++i) {
      words[i] = Mix(Key(p, s) * 4U + i);
      sum = Mix(sum ^ words[i]);
    }
    checksum = sum;
  }
  bool Intact() const noexcept {
    uint64_t sum = 0U;
    for (std::size_t i = 0U; i < words.size(); ++i) {
      if (words[i] != Mix(Key(producer, seq) * 4U + i)) {
        return false;
      }
      sum = Mix(sum ^ words[i]);
    }
    return sum == checksum;
  }
  uint32_t producer = 0U;
  uint32_t seq = 0U;
  std::array<uint64_t, 4> words{};
  uint64_t checksum = 0U;
};

/// "Up to here I had admitted `admitted` samples of my class `cls` whose seqs hash to `hash`."
struct Marker {
  uint32_t producer;
  uint32_t cls;
  uint64_t admitted;
  uint64_t hash;
};

using Payload = std::variant<Sample, Marker>;
using Bus = mccc::AsyncBus<Payload>;  // default traits: 131072 slots

MessagePriority PriorityFor(uint32_t producer, uint32_t seq) noexcept {
  const uint64_t h = Mix(Key(producer, seq) ^ 0x51A4U) % 10U;
  return h < 2U ? MessagePriority::kHigh
                : (h < 7U ? MessagePriority::kMedium : MessagePriority::kLow);
}

constexpr uint32_t SenderId(uint32_t producer) noexcept {
  return 100U + producer;
}

// Ordering classes: per producer, FIFO order holds within one.
constexpr std::size_t kNormalClass = 0U;  // LOW and MEDIUM
constexpr std::size_t kHighClass = 1U;
constexpr std::size_t kClasses = 2U;

constexpr std::size_t ClassOf(MessagePriority priority) noexcept {
  return priority == MessagePriority::kHigh ? kHighClass : kNormalClass;
}

/// The priority a marker of class `cls` is published with (so it travels with its class).
constexpr MessagePriority MarkerPriority(std::size_t cls) noexcept {
  return cls == kHighClass ? MessagePriority::kHigh : MessagePriority::kMedium;
}

// ----- shared state ----------------------------------------------------------------------------

struct alignas(64) ProducerState {
  // Written by the producer only; read after join (and the atomics by the reporter).
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
  std::array<uint64_t, kClasses> samples_admitted{};  // per ordering class
  std::array<uint64_t, kClasses> hash{};
  uint64_t markers = 0U;
  std::atomic<uint64_t> refused_live[mccc::kPriorityCount] = {};  // for the interval report
};

std::atomic<uint64_t> g_other_errors{0U};
void OnBusError(mccc::BusError error, uint64_t /*msg_id*/) {
  if (error != mccc::BusError::kQueueFull) {
    g_other_errors.fetch_add(1U, std::memory_order_relaxed);
  }
}

/// Consumer-side checker (consumer thread only, except the atomics).
class Checker {
 public:
  explicit Checker(uint32_t producers) : per_producer_(producers) {}

  void OnSample(const Sample& s, const MessageHeader& h) {
    CheckId(h);
    if (s.producer >= per_producer_.size()) {
      Fail("producer id out of range");
      return;
    }
    if (!s.Intact()) {
      Fail("payload checksum mismatch");
    }
    if (h.sender_id != SenderId(s.producer) || h.priority != PriorityFor(s.producer, s.seq)) {
      Fail("header differs from what was published");
    }
    PerProducer& p = per_producer_[s.producer][ClassOf(h.priority)];
    if (p.count > 0U && s.seq <= p.last_seq) {
      Fail("duplicate or reordered sample");
    }
    p.last_seq = s.seq;
    ++p.count;
    p.hash = HashStep(p.hash, s.seq);
    delivered_.fetch_add(1U, std::memory_order_relaxed);
  }

  void OnMarker(const Marker& m, const MessageHeader& h) {
    CheckId(h);
    if (m.producer >= per_producer_.size() || m.cls >= kClasses) {
      Fail("marker producer or class out of range");
      return;
    }
    if (h.priority != MarkerPriority(m.cls)) {
      Fail("marker priority differs from its class");
    }
    const PerProducer& p = per_producer_[m.producer][m.cls];
    if (p.count != m.admitted || p.hash != m.hash) {
      Fail("marker: delivered samples differ from the admitted ones (loss or phantom)");
    }
    markers_.fetch_add(1U, std::memory_order_relaxed);
    delivered_.fetch_add(1U, std::memory_order_relaxed);
  }

  uint64_t delivered() const { return delivered_.load(std::memory_order_relaxed); }
  uint64_t markers() const { return markers_.load(std::memory_order_relaxed); }
  uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }
  const char* first_failure() const { return first_failure_; }
  uint64_t Count(uint32_t producer, std::size_t cls) const {
    return per_producer_[producer][cls].count;
  }
  uint64_t Hash(uint32_t producer, std::size_t cls) const {
    return per_producer_[producer][cls].hash;
  }

 private:
  struct PerProducer {
    uint32_t last_seq = 0U;
    uint64_t count = 0U;
    uint64_t hash = 0U;
  };

  void CheckId(const MessageHeader& h) {
    if (next_id_ != 0U && h.msg_id != next_id_) {
      Fail("msg_id gap or repeat");
    }
    next_id_ = h.msg_id + 1U;
  }

  void Fail(const char* what) {
    if (failures_.fetch_add(1U, std::memory_order_relaxed) == 0U) {
      first_failure_ = what;
      std::fprintf(stderr, "soak: check failed: %s\n", what);
    }
  }

  std::vector<std::array<PerProducer, kClasses>> per_producer_;
  uint64_t next_id_ = 0U;
  std::atomic<uint64_t> delivered_{0U};
  std::atomic<uint64_t> markers_{0U};
  std::atomic<uint64_t> failures_{0U};
  const char* first_failure_ = "";
};

/// Median of [first, last) (not empty), leaving the caller's order alone.
template <typename It>
double MedianOf(It first, It last) {
  std::vector<double> values(first, last);
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2U == 1U ? values[n / 2U] : 0.5 * (values[n / 2U - 1U] + values[n / 2U]);
}

double ResidentMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, 6, "VmRSS:") == 0) {
      return std::strtod(line.c_str() + 6, nullptr) / 1024.0;  // the value is in kB
    }
  }
  return -1.0;
}

// ----- producer --------------------------------------------------------------------------------

bool PublishSample(Bus& bus, uint32_t producer, uint32_t seq, MessagePriority priority) {
  const uint32_t sender = SenderId(producer);
  switch (seq % 4U) {
    case 0U:
      if (priority == MessagePriority::kMedium) {
        return bus.Publish(Sample(producer, seq), sender);
      }
      return bus.PublishWithPriority(Sample(producer, seq), sender, priority);
    case 1U:
      return bus.PublishFast(Sample(producer, seq), sender, seq, priority);
    case 2U:
      return bus.PublishEmplace<Sample>(sender, priority, producer, seq);
    default:
      return bus.PublishWithPriority(Sample(producer, seq), sender, priority);
  }
}

void RunProducer(Bus& bus, uint32_t producer, const std::atomic<bool>& stop,
                 const std::atomic<bool>& burst, ProducerState& state) {
  auto next_marker = Clock::now();
  for (uint32_t seq = 0U; !stop.load(std::memory_order_relaxed); ++seq) {
    const MessagePriority priority = PriorityFor(producer, seq);
    const auto p = static_cast<std::size_t>(priority);
    ++state.attempted[p];
    if (PublishSample(bus, producer, seq, priority)) {
      const std::size_t cls = ClassOf(priority);
      ++state.admitted[p];
      ++state.samples_admitted[cls];
      state.hash[cls] = HashStep(state.hash[cls], seq);
    } else {
      state.refused_live[p].fetch_add(1U, std::memory_order_relaxed);
    }
    if ((seq % 64U) != 63U) {
      continue;
    }
    const auto now = Clock::now();
    if (now >= next_marker) {
      next_marker = now + std::chrono::milliseconds(100);
      for (std::size_t cls = 0U; cls < kClasses; ++cls) {
        const Marker marker{producer, static_cast<uint32_t>(cls), state.samples_admitted[cls],
                            state.hash[cls]};
        const MessagePriority marker_priority = MarkerPriority(cls);
        const auto k = static_cast<std::size_t>(marker_priority);
        for (;;) {
          ++state.attempted[k];
          if (bus.PublishWithPriority(marker, SenderId(producer), marker_priority)) {
            ++state.admitted[k];
            ++state.markers;
            break;
          }
          state.refused_live[k].fetch_add(1U, std::memory_order_relaxed);
          std::this_thread::yield();
        }
      }
    }
    if (!burst.load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!ParseOptions(argc, argv, opt)) {
    return 2;
  }
  auto bus = std::make_unique<Bus>();
  // Warm-up: every slot of every ring written and consumed once (BARE_METAL counts nothing; no
  // subscriber yet), so the resident set is whole before the first report however slowly the
  // producers run (sanitizer builds); the bursts fill the normal ring only to MEDIUM's 80 %.
  bus->SetPerformanceMode(mccc::PerformanceMode::kBareMetal);
  for (uint32_t i = 0U; i < Bus::kQueueDepth; ++i) {
    static_cast<void>(bus->Publish(Marker{}, 0U));
  }
  for (uint32_t i = 0U; i < Bus::kHighQueueDepth; ++i) {
    static_cast<void>(bus->PublishWithPriority(Marker{}, 0U, MessagePriority::kHigh));
  }
  while (bus->ProcessBatch() != 0U) {
  }
  bus->SetPerformanceMode(mccc::PerformanceMode::kFullFeatured);
  bus->SetErrorCallback(&OnBusError);
  Checker checker(opt.producers);
  const auto h_sample = bus->Subscribe<Sample>(
      [&checker](const Sample& s, const MessageHeader& h) { checker.OnSample(s, h); });
  const auto h_marker = bus->Subscribe<Marker>(
      [&checker](const Marker& m, const MessageHeader& h) { checker.OnMarker(m, h); });
  if (!h_sample.IsValid() || !h_marker.IsValid()) {
    std::printf("soak: FAIL: could not subscribe\n");
    return 1;
  }

  std::atomic<bool> stop{false};
  std::atomic<bool> burst{false};
  std::atomic<bool> producers_done{false};
  std::atomic<uint32_t> max_depth{0U};
  std::vector<ProducerState> states(opt.producers);

  std::thread consumer([&] {
    for (;;) {
      const uint32_t depth = bus->QueueOccupancy();
      if (depth > max_depth.load(std::memory_order_relaxed)) {
        max_depth.store(depth, std::memory_order_relaxed);
      }
      if (bus->ProcessBatch() != 0U) {
        continue;
      }
      if (producers_done.load(std::memory_order_acquire)) {
        while (bus->ProcessBatch() != 0U) {
        }
        break;
      }
      static_cast<void>(bus->WaitForMessages(1000U));
    }
  });

  const double rss_start = ResidentMiB();
  std::printf(
      "soak: %u producers, 1 consumer, queue depth %u, %.0f s, overload bursts of %.0f ms "
      "every %.1f s\n",
      opt.producers, Bus::kQueueDepth, opt.seconds, opt.burst_ms, opt.burst_every);
  std::printf("soak: RSS at start %.1f MiB\n", rss_start);
  std::printf("%8s %14s %16s %12s %12s %12s %10s %9s\n", "t[s]", "delivered/s", "delivered",
              "refused LOW", "refused MED", "refused HIGH", "max depth", "RSS[MiB]");
  std::fflush(stdout);

  std::vector<std::thread> producers;
  for (uint32_t p = 0U; p < opt.producers; ++p) {
    producers.emplace_back([&, p] { RunProducer(*bus, p, stop, burst, states[p]); });
  }

  const auto start = Clock::now();
  const auto seconds_since = [start] {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  double next_report = opt.interval;
  double next_burst = opt.burst_every;
  uint64_t last_delivered = 0U;
  double last_t = 0.0;
  std::array<uint64_t, mccc::kPriorityCount> last_refused{};
  double rss_max = rss_start;
  double rss_first_report = -1.0;      // after warm-up: threads started, every slot touched
  std::vector<double> interval_rates;  // delivered per second, one entry per report
  double t = 0.0;
  while ((t = seconds_since()) < opt.seconds) {
    if (t >= next_burst) {
      burst.store(true, std::memory_order_relaxed);
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(opt.burst_ms));
      burst.store(false, std::memory_order_relaxed);
      next_burst += opt.burst_every;
      continue;
    }
    if (t >= next_report) {
      const uint64_t delivered = checker.delivered();
      std::array<uint64_t, mccc::kPriorityCount> refused{};
      for (const ProducerState& s : states) {
        for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
          refused[i] += s.refused_live[i].load(std::memory_order_relaxed);
        }
      }
      const double rss = ResidentMiB();
      rss_max = std::max(rss_max, rss);
      if (rss_first_report < 0.0) {
        rss_first_report = rss;
      }
      const double rate = static_cast<double>(delivered - last_delivered) / (t - last_t);
      interval_rates.push_back(rate);
      std::printf("%8.0f %14.0f %16llu %12llu %12llu %12llu %10u %9.1f\n", t, rate,
                  static_cast<unsigned long long>(delivered),
                  static_cast<unsigned long long>(refused[0] - last_refused[0]),
                  static_cast<unsigned long long>(refused[1] - last_refused[1]),
                  static_cast<unsigned long long>(refused[2] - last_refused[2]),
                  max_depth.exchange(0U, std::memory_order_relaxed), rss);
      std::fflush(stdout);
      last_delivered = delivered;
      last_t = t;
      last_refused = refused;
      next_report += opt.interval;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stop.store(true, std::memory_order_relaxed);
  for (std::thread& th : producers) {
    th.join();
  }
  producers_done.store(true, std::memory_order_release);
  bus->WakeConsumer();
  consumer.join();
  const double elapsed = seconds_since();

  // ---- final checks ----
  std::string failure = checker.failures() != 0U ? checker.first_failure() : "";
  std::array<uint64_t, mccc::kPriorityCount> attempted{};
  std::array<uint64_t, mccc::kPriorityCount> admitted{};
  uint64_t samples = 0U;
  uint64_t markers = 0U;
  for (uint32_t p = 0U; p < opt.producers; ++p) {
    const ProducerState& s = states[p];
    for (std::size_t cls = 0U; cls < kClasses; ++cls) {
      if (checker.Count(p, cls) != s.samples_admitted[cls] || checker.Hash(p, cls) != s.hash[cls]) {
        failure = "delivered samples differ from the admitted ones at the end";
      }
      samples += s.samples_admitted[cls];
    }
    for (std::size_t i = 0U; i < mccc::kPriorityCount; ++i) {
      attempted[i] += s.attempted[i];
      admitted[i] += s.admitted[i];
    }
    markers += s.markers;
  }
  const mccc::BusStatisticsSnapshot st = bus->GetStatistics();
  const bool stats_exact = st.low_priority_published == admitted[0] &&
                           st.medium_priority_published == admitted[1] &&
                           st.high_priority_published == admitted[2] &&
                           st.low_priority_dropped == attempted[0] - admitted[0] &&
                           st.medium_priority_dropped == attempted[1] - admitted[1] &&
                           st.high_priority_dropped == attempted[2] - admitted[2] &&
                           st.messages_processed == samples + markers && st.processing_errors == 0U;
  if (!stats_exact) {
    failure = "bus statistics differ from the producers' counts";
  }
  if (checker.delivered() != samples + markers || checker.markers() != markers) {
    failure = "delivered count differs from admitted count";
  }
  if (bus->QueueOccupancy() != 0U) {
    failure = "queue not empty after the run";
  }
  if (g_other_errors.load() != 0U) {
    failure = "unexpected error callback reports (not QUEUE_FULL)";
  }
  const double rss_end = ResidentMiB();
  if (rss_first_report < 0.0) {
    rss_first_report = rss_end;
  }
  const double rss_growth = rss_end - rss_first_report;
  std::printf(
      "soak: RSS at start %.1f MiB, after the first interval %.1f MiB, at end %.1f MiB, max %.1f "
      "MiB\n",
      rss_start, rss_first_report, rss_end, std::max(rss_max, rss_end));
  const bool rss_ok = rss_growth <= opt.max_rss_growth_mib;
  std::printf("soak: RSS growth since the first interval %+.1f MiB (bound %.1f MiB): %s\n",
              rss_growth, opt.max_rss_growth_mib, rss_ok ? "ok" : "EXCEEDED");
  if (!rss_ok && failure.empty()) {
    failure = "resident memory grew beyond the bound after warm-up";
  }
  const auto quarter =
      static_cast<std::ptrdiff_t>(std::max<std::size_t>(1U, interval_rates.size() / 4U));
  const double first_rate = interval_rates.size() >= 2U
                                ? MedianOf(interval_rates.begin(), interval_rates.begin() + quarter)
                                : 0.0;
  const double last_rate = interval_rates.size() >= 2U
                               ? MedianOf(interval_rates.end() - quarter, interval_rates.end())
                               : 0.0;
  if (interval_rates.size() >= 2U && first_rate > 0.0) {
    const double ratio = last_rate / first_rate;
    const bool rate_ok = ratio >= opt.min_throughput_ratio;
    std::printf(
        "soak: throughput, median of the last / first %td interval(s): %.0f / %.0f messages/s = "
        "%.2f (at least %.2f): %s\n",
        quarter, last_rate, first_rate, ratio, opt.min_throughput_ratio,
        rate_ok ? "ok" : "DROPPED");
    if (!rate_ok && failure.empty()) {
      failure = "throughput of the last interval fell below the bound";
    }
  } else {
    std::printf("soak: throughput trend not checked (needs two intervals with deliveries)\n");
  }
  std::printf(
      "soak: throughput %.0f messages/s over %.0f s; refused LOW %llu, MEDIUM %llu, "
      "HIGH %llu of %llu attempts\n",
      static_cast<double>(checker.delivered()) / elapsed, elapsed,
      static_cast<unsigned long long>(attempted[0] - admitted[0]),
      static_cast<unsigned long long>(attempted[1] - admitted[1]),
      static_cast<unsigned long long>(attempted[2] - admitted[2]),
      static_cast<unsigned long long>(attempted[0] + attempted[1] + attempted[2]));
  if (!failure.empty()) {
    std::printf("soak: FAIL: %s\n", failure.c_str());
    return 1;
  }
  std::printf(
      "soak: PASS: %llu messages delivered exactly once, in order per class, intact (%llu markers "
      "verified), statistics exact, %u producers, %.0f s\n",
      static_cast<unsigned long long>(checker.delivered()),
      static_cast<unsigned long long>(markers), opt.producers, elapsed);
  return 0;
}
