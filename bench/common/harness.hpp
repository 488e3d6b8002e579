// SPDX-License-Identifier: MIT
/// @file harness.hpp
/// @brief Shared benchmark plumbing: core pinning, clocks, the start barrier, sequence-checking
/// sinks and order statistics. Benchmark code only (may allocate, uses <thread>/<chrono>).
#ifndef MCCC_BENCH_COMMON_HARNESS_HPP_
#define MCCC_BENCH_COMMON_HARNESS_HPP_

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

namespace mccc_bench {

/// Producers run on this core, the consumer on kConsumerCore (the brief's protocol).
constexpr int kProducerCore = 0;
/// See kProducerCore.
constexpr int kConsumerCore = 1;
/// Producer id lives in the top 16 bits of a sequence number, the index in the low 48.
constexpr unsigned kProducerShift = 48U;
/// Mask of the per-producer index part of a sequence number.
constexpr uint64_t kIndexMask = (uint64_t{1} << kProducerShift) - 1U;
/// Most producers a sink can track.
constexpr int kMaxProducers = 8;

/// @brief Online cores (at least 1).
inline int CoreCount() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0U ? 1 : static_cast<int>(n);
}

/// @brief Pins the calling thread to `core`. Returns false (and leaves the thread unpinned) when
/// the core does not exist or the call fails; the caller records that in the report.
inline bool PinThisThread(int core) {
  if (core < 0 || core >= CoreCount()) {
    return false;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(core), &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

/// @brief Spin-wait hint (PAUSE on x86) used by every contender's retry loop alike.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

/// @brief Monotonic nanoseconds (steady_clock): used for throughput intervals.
inline uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

/// @brief Cycle counter for per-message latency stamps (TSC on x86, steady_clock elsewhere),
/// converted to nanoseconds with a rate measured once against steady_clock.
class Ticks {
 public:
  /// @brief Raw reading (cheap; comparable across cores with an invariant TSC).
  static uint64_t Read() {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return NowNs();
#endif
  }

  /// @brief A reading taken only after every earlier load has completed, and before any later
  /// instruction starts (`rdtscp; lfence` on x86): a stamp that measures what follows it, not
  /// the loads that precede it. The same time line as Read().
  static uint64_t ReadOrdered() {
#if defined(__x86_64__) || defined(__i386__)
    unsigned int processor = 0U;
    const uint64_t ticks = __builtin_ia32_rdtscp(&processor);
    __builtin_ia32_lfence();
    return ticks;
#else
    return NowNs();
#endif
  }

  /// @brief Nanoseconds per tick (calibrated on first use, ~20 ms).
  static double NsPerTick() {
    static const double value = Calibrate();
    return value;
  }

 private:
  static double Calibrate() {
    const uint64_t n0 = NowNs();
    const uint64_t t0 = Read();
    uint64_t n1 = n0;
    while (n1 - n0 < 20000000U) {
      n1 = NowNs();
    }
    const uint64_t t1 = Read();
    return t1 > t0 ? static_cast<double>(n1 - n0) / static_cast<double>(t1 - t0) : 1.0;
  }
};

/// @brief Summary of repeated measurements of one quantity.
struct Summary {
  double median = 0.0;  ///< Median of the samples.
  double min = 0.0;     ///< Smallest sample.
  double max = 0.0;     ///< Largest sample.
  double mean = 0.0;    ///< Arithmetic mean.
  double sd = 0.0;      ///< Sample standard deviation (0 for fewer than two samples).
  std::size_t n = 0U;   ///< Number of samples.
};

/// @brief Median, extremes, mean and standard deviation of `v` (empty: all zero).
inline Summary Summarize(std::vector<double> v) {
  Summary s;
  if (v.empty()) {
    return s;
  }
  std::sort(v.begin(), v.end());
  s.n = v.size();
  s.min = v.front();
  s.max = v.back();
  const std::size_t mid = v.size() / 2U;
  s.median = (v.size() % 2U == 1U) ? v[mid] : 0.5 * (v[mid - 1U] + v[mid]);
  double sum = 0.0;
  for (double x : v) {
    sum += x;
  }
  s.mean = sum / static_cast<double>(v.size());
  if (v.size() > 1U) {
    double sq = 0.0;
    for (double x : v) {
      sq += (x - s.mean) * (x - s.mean);
    }
    s.sd = std::sqrt(sq / static_cast<double>(v.size() - 1U));
  }
  return s;
}

/// The median of `v` (Summarize's).
inline double Median(const std::vector<double>& v) {
  return Summarize(v).median;
}

/// @brief The value at quantile `q` (0..1) of sorted `v` (nearest rank).
inline double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) {
    return 0.0;
  }
  const double rank = std::ceil(q * static_cast<double>(sorted.size()));
  std::size_t index = rank < 1.0 ? 0U : static_cast<std::size_t>(rank) - 1U;
  if (index >= sorted.size()) {
    index = sorted.size() - 1U;
  }
  return sorted[index];
}

/// @brief Builds the sequence number of message `index` of producer `producer`.
constexpr uint64_t MakeSeq(int producer, uint64_t index) {
  return (static_cast<uint64_t>(producer) << kProducerShift) | index;
}

/// @brief Consumer-side check: every message counted, each producer's indices strictly in order
/// 0, 1, 2, ... (a lost, duplicated or reordered message is an error). No contender can skip work.
struct alignas(64) SeqSink {
  uint64_t expected[kMaxProducers] = {};  ///< Next index expected from each producer.
  uint64_t count = 0U;                    ///< Messages received.
  uint64_t errors = 0U;                   ///< Out-of-order, unknown-producer or gap events.

  /// @brief Checks one message.
  template <typename Msg>
  void operator()(const Msg& m) {
    Check(m.seq);
  }

  /// @brief Checks one sequence number.
  void Check(uint64_t seq) {
    const uint64_t producer = seq >> kProducerShift;
    const uint64_t index = seq & kIndexMask;
    ++count;
    if (producer >= static_cast<uint64_t>(kMaxProducers)) {
      ++errors;
      return;
    }
    if (index != expected[producer]) {
      ++errors;
    }
    expected[producer] = index + 1U;
  }
};

/// @brief SeqSink that also stamps the arrival time of message i into `arrival[i]` and
/// acknowledges it (one message in flight at a time: the producer waits for the ack).
struct alignas(64) LatencySink : SeqSink {
  uint64_t* arrival = nullptr;           ///< Arrival stamps (Ticks), indexed by sequence index.
  std::atomic<uint64_t>* ack = nullptr;  ///< Messages received so far, published to the producer.

  /// @brief Stamps, checks and acknowledges one message.
  template <typename Msg>
  void operator()(const Msg& m) {
    const uint64_t now = Ticks::Read();
    arrival[m.seq & kIndexMask] = now;
    Check(m.seq);
    // release: the producer reads the stamp array only after the run, but the ack is what lets it
    // send the next message; order the stamp first anyway.
    ack->store(count, std::memory_order_release);
  }
};

/// @brief The core producer `id` of `producers` runs on: core 0, then the cores after the
/// consumer's (2, 3, ...) while the machine has one per producer besides the consumer's; when it
/// has not (Oversubscribed), every producer shares core 0 and the scheduler time-slices them.
inline int ProducerCore(int id, int producers) {
  if (id == 0 || producers + 1 > CoreCount()) {
    return kProducerCore;
  }
  return id + 1;
}

/// @brief True when `producers` producer threads and the consumer need more cores than the
/// machine has (reports mark such rows: they measure time-slicing as much as the queue).
inline bool Oversubscribed(int producers) {
  return producers + 1 > CoreCount();
}

/// @brief Runs `producers` producer threads (pinned by ProducerCore) and one consumer thread
/// (pinned to kConsumerCore). All wait at a spin barrier; the clock starts when they are
/// released and stops when the consumer body returns. Returns elapsed seconds.
/// `producer_body(int id)` and `consumer_body()` run on their threads. `pinned` is set false if
/// any pin failed.
template <typename ProducerBody, typename ConsumerBody>
double RunPinnedThreads(int producers, ProducerBody&& producer_body, ConsumerBody&& consumer_body,
                        bool* pinned) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> all_pinned{true};
  uint64_t end_ns = 0U;
  std::thread consumer([&]() {
    if (!PinThisThread(kConsumerCore)) {
      all_pinned.store(false);
    }
    ready.fetch_add(1);
    while (!go.load(std::memory_order_acquire)) {
      CpuRelax();
    }
    consumer_body();
    end_ns = NowNs();
  });
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(producers));
  for (int id = 0; id < producers; ++id) {
    threads.emplace_back([&, id]() {
      if (!PinThisThread(ProducerCore(id, producers))) {
        all_pinned.store(false);
      }
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {
        CpuRelax();
      }
      producer_body(id);
    });
  }
  while (ready.load() < producers + 1) {
    std::this_thread::yield();
  }
  const uint64_t start_ns = NowNs();
  go.store(true, std::memory_order_release);
  for (std::thread& t : threads) {
    t.join();
  }
  consumer.join();
  if (pinned != nullptr && !all_pinned.load()) {
    *pinned = false;
  }
  return static_cast<double>(end_ns - start_ns) * 1e-9;
}

/// @brief Runs `body()` on a thread pinned to kProducerCore and returns what it returns.
template <typename Result, typename Body>
Result RunOnProducerCore(Body&& body, bool* pinned) {
  Result result{};
  std::thread t([&]() {
    if (!PinThisThread(kProducerCore) && pinned != nullptr) {
      *pinned = false;
    }
    result = body();
  });
  t.join();
  return result;
}

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_HARNESS_HPP_
