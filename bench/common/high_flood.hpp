// SPDX-License-Identifier: MIT
/// @file high_flood.hpp
/// @brief "HIGH under flood": how long a HIGH message waits while the bus's normal ring is kept
/// full. Three threads:
///   - a flooder (core 0) publishes LOW messages with PublishBatch(64) and retries the refused
///     rest at once, so the normal ring stays at LOW's admission limit (the LOW callback works
///     for kLowCallbackNs, so the consumer is always the slower side; every refusal is counted
///     and the ring's occupancy is noted at every HIGH publish, as evidence);
///   - a HIGH publisher (core 0 too) wakes every `period_ns` (absolute deadlines), notes the
///     normal ring's occupancy, reads the cycle counter and publishes one HIGH message carrying
///     that reading;
///   - the consumer (core 1) calls ProcessBatch in a loop; the HIGH subscriber reads the cycle
///     counter first thing and records the difference.
/// The flooder and the HIGH publisher share core 0 (on a 2-core machine the three threads
/// oversubscribe its cores): the HIGH publisher sleeps between messages, and a woken thread
/// normally preempts the flooder at once; the latency is measured from the counter reading just
/// before the publish call, so a late wake-up shifts the sample's start, not its length.
/// `realtime`: the three threads run with SCHED_FIFO (as a real-time system runs them; the HIGH
/// publisher one level above the flooder, so its wake-up preempts it), so no other program's
/// thread takes their cores: the guarantee under test holds "while the consumer runs", and on a
/// shared machine a normal-priority consumer is not running for milliseconds at a time, nor a
/// normal-priority flooder keeping the ring full.
/// The time of one LOW dispatch under the flood is measured too (the consumer's busy time per
/// message delivered), because the target is "P99 <= 2 x one-way handoff + one LOW callback".
#ifndef MCCC_BENCH_COMMON_HIGH_FLOOD_HPP_
#define MCCC_BENCH_COMMON_HIGH_FLOOD_HPP_

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <variant>
#include <vector>

#include "common/adapters.hpp"
#include "common/harness.hpp"
#include "mccc/mccc.hpp"

namespace mccc_bench {

/// @brief Involuntary context switches of the calling thread so far (the scheduler took its core
/// for another thread: on a shared machine, other programs).
inline uint64_t InvoluntarySwitches() {
  rusage usage{};
  if (getrusage(RUSAGE_THREAD, &usage) != 0) {
    return 0U;
  }
  return static_cast<uint64_t>(usage.ru_nivcsw);
}

/// @brief Gives the calling thread SCHED_FIFO `priority` (1 or 2: above every normal thread,
/// below the kernel's own real-time threads); false when not permitted. A spinning real-time thread
/// is stopped by the kernel's real-time throttling after 0.95 s of every second, so a real-time
/// run must stay shorter than that.
inline bool MakeThisThreadRealtime(int priority) {
  sched_param param{};
  param.sched_priority = priority;
  return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
}

/// @brief The HIGH message: its index and the cycle-counter reading taken before its publish.
struct HighStamp {
  uint64_t seq;   ///< 0, 1, 2, ... (checked in order by the consumer).
  uint64_t sent;  ///< Ticks::ReadOrdered() just before the publish call.
};

/// @brief How long the flood's LOW callback works (busy), ns.
constexpr uint64_t kLowCallbackNs = 100U;

/// @brief Default traits with a normal ring of kDepth slots and a HIGH lane of kHighDepth (0:
/// none, HIGH shares the normal ring).
template <uint32_t kDepth, uint32_t kHighDepth>
struct FloodTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = kDepth;          ///< See DefaultBusTraits.
  static constexpr uint32_t kHighQueueDepth = kHighDepth;  ///< See DefaultBusTraits.
};

/// @brief One run's outcome.
struct HighFloodOutcome {
  double p50 = 0.0;            ///< HIGH publish -> start of its callback, ns.
  double p99 = 0.0;            ///< See p50.
  double max = 0.0;            ///< See p50.
  double publish_p50 = 0.0;    ///< The HIGH publish call alone (its return - `sent`), ns: the
                               ///< publisher's part of the latency.
  double publish_p99 = 0.0;    ///< See publish_p50.
  double after_p99 = 0.0;      ///< P99 of the rest (publish return -> start of the callback), ns.
  double dispatch_ns = 0.0;    ///< Consumer busy time per message delivered under the flood.
  double fill_percent = 0.0;   ///< Median occupancy of the normal ring at HIGH publish, %.
  uint64_t low_refused = 0U;   ///< LOW messages the bus refused to the flooder.
  uint64_t high_refused = 0U;  ///< HIGH publishes refused (then retried): must be 0.
  uint64_t consumer_preempted = 0U;   ///< Involuntary context switches of the consumer while
                                      ///< HIGH messages were measured (other programs' threads).
  uint64_t publisher_preempted = 0U;  ///< The same for the HIGH publisher (it shares core 0).
  bool realtime_failed = false;       ///< A real-time run could not get SCHED_FIFO (not permitted).
  bool valid = false;  ///< Every HIGH arrived once, in order; the LOW stream in order.
};

/// @brief Runs the scenario on a bus of FloodTraits<kDepth, kHighDepth>: `warmup` HIGH
/// messages discarded, then `samples` measured, one every `period_ns`.
template <uint32_t kDepth, uint32_t kHighDepth>
HighFloodOutcome RunHighUnderFlood(uint64_t warmup, uint64_t samples, uint64_t period_ns,
                                   bool realtime, bool* pinned) {
  using Traits = FloodTraits<kDepth, kHighDepth>;
  using Bus = mccc::AsyncBus<std::variant<Msg24, HighStamp>, Traits>;
  const uint64_t total = warmup + samples;
  auto bus = std::make_unique<Bus>();
  auto low_sink = std::make_unique<SeqSink>();
  std::vector<uint64_t> latency_ticks(total, 0U);
  std::vector<uint64_t> publish_ticks(total, 0U);
  std::vector<double> fill(total, 0.0);
  struct alignas(64) HighSide {
    uint64_t received = 0U;  // consumer-owned
    uint64_t errors = 0U;
    std::atomic<uint64_t> received_shared{0U};  // what the other threads may read
  };
  auto high = std::make_unique<HighSide>();
  SeqSink* low = low_sink.get();
  HighSide* h = high.get();
  uint64_t* lat = latency_ticks.data();
  // The LOW callback works for kLowCallbackNs (a real callback does something; and a consumer
  // slower than the flood is what keeps the ring full whatever the placement of the cores).
  const uint64_t work_ticks =
      static_cast<uint64_t>(static_cast<double>(kLowCallbackNs) / Ticks::NsPerTick());
  bus->template Subscribe<Msg24>([low, work_ticks](const Msg24& m) {
    const uint64_t until = Ticks::Read() + work_ticks;
    (*low)(m);
    while (Ticks::Read() < until) {
    }
  });
  bus->template Subscribe<HighStamp>([h, lat, total](const HighStamp& m) {
    const uint64_t now = Ticks::Read();
    if (m.seq != h->received || m.seq >= total) {
      ++h->errors;
    } else {
      lat[m.seq] = now - m.sent;
    }
    ++h->received;
    // release: the HIGH publisher reads the count only to know when to stop waiting.
    h->received_shared.store(h->received, std::memory_order_release);
  });

  // The flags below only start and stop loops (relaxed): every result is read after join().
  std::atomic<bool> stop{false};
  std::atomic<bool> measuring{false};
  std::atomic<bool> all_pinned{true};
  std::atomic<bool> realtime_failed{false};
  std::atomic<int> ready{0};
  uint64_t low_refused = 0U;
  uint64_t high_refused = 0U;
  uint64_t consumer_ns = 0U;
  uint64_t consumer_switches = 0U;
  uint64_t publisher_switches = 0U;
  uint64_t switches_at_start = 0U;
  uint64_t delivered = 0U;
  // LOW's admission limit: the flood is "full" once the normal ring reaches it.
  const uint32_t low_limit = Bus::LOW_PRIORITY_THRESHOLD;
  // Every thread is started before any turns real-time (two spinning real-time threads leave
  // the other threads of the machine, the creating one included, almost no time); the waits
  // sleep, because a yield gives no time to a lower real-time priority on the same core.
  const auto start_gate = [&](int priority) {
    ready.fetch_add(1);
    while (ready.load() < 3) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (realtime && !MakeThisThreadRealtime(priority)) {
      realtime_failed.store(true);
    }
  };

  std::thread consumer([&]() {
    if (!PinThisThread(kConsumerCore)) {
      all_pinned.store(false);
    }
    start_gate(1);
    uint64_t t0 = 0U;
    uint64_t n = 0U;
    while (!stop.load(std::memory_order_relaxed)) {
      const uint32_t k = bus->ProcessBatch();
      if (t0 != 0U) {
        n += k;
      } else if (measuring.load(std::memory_order_relaxed)) {
        t0 = NowNs();  // from the first HIGH publish on, the ring is full: the consumer is busy
        switches_at_start = InvoluntarySwitches();
      }
    }
    consumer_ns = t0 != 0U ? NowNs() - t0 : 0U;
    consumer_switches = InvoluntarySwitches() - switches_at_start;
    delivered = n;
    while (bus->ProcessBatch() != 0U) {  // drain (untimed)
    }
  });
  std::thread flooder([&]() {
    if (!PinThisThread(kProducerCore)) {
      all_pinned.store(false);
    }
    start_gate(1);
    std::vector<Msg24> batch(kPushBatchSize, Prototype<Msg24>());
    uint64_t next = 0U;
    while (!stop.load(std::memory_order_relaxed)) {
      for (std::size_t k = 0U; k < kPushBatchSize; ++k) {
        batch[k].seq = MakeSeq(0, next + k);
      }
      std::size_t done = 0U;
      while (done < kPushBatchSize && !stop.load(std::memory_order_relaxed)) {
        const uint32_t n =
            bus->PublishBatch(batch.data() + done, static_cast<uint32_t>(kPushBatchSize - done), 1U,
                              mccc::MessagePriority::kLow);
        low_refused += kPushBatchSize - done - n;
        done += n;
      }
      next += done;
    }
  });
  std::thread publisher([&]() {
    if (!PinThisThread(kProducerCore)) {
      all_pinned.store(false);
    }
    start_gate(2);  // above the flooder: its wake-ups preempt it
    // Start once the flood has filled the normal ring to LOW's limit.
    while (bus->LaneOccupancy(Bus::LaneCount()) + 1U < low_limit) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    timespec deadline{};
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    HighStamp m{0U, 0U};
    const uint64_t publisher_switches_at_start = InvoluntarySwitches();
    measuring.store(true, std::memory_order_relaxed);
    for (uint64_t i = 0U; i < total; ++i) {
      deadline.tv_nsec += static_cast<long>(period_ns);
      while (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_nsec -= 1000000000L;
        ++deadline.tv_sec;
      }
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr);
      fill[i] = 100.0 * static_cast<double>(bus->LaneOccupancy(Bus::LaneCount())) /
                static_cast<double>(kDepth);
      m.seq = i;
      // Ordered: the occupancy read above loads lines the other two threads write, and those
      // misses belong to the benchmark, not to the latency of the publish that follows.
      m.sent = Ticks::ReadOrdered();
      while (!bus->PublishWithPriority(m, 2U, mccc::MessagePriority::kHigh)) {
        ++high_refused;
        m.sent = Ticks::ReadOrdered();
      }
      publish_ticks[i] = Ticks::Read() - m.sent;
    }
    publisher_switches = InvoluntarySwitches() - publisher_switches_at_start;
    // Wait (bounded: 10 s) for the consumer to deliver the last HIGH message.
    const uint64_t give_up = NowNs() + 10000000000U;
    while (high->received_shared.load(std::memory_order_acquire) < total && NowNs() < give_up) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    stop.store(true, std::memory_order_relaxed);
  });
  publisher.join();
  flooder.join();
  consumer.join();
  if (pinned != nullptr && !all_pinned.load()) {
    *pinned = false;
  }

  HighFloodOutcome out;
  std::vector<double> ns;
  ns.reserve(samples);
  const double scale = Ticks::NsPerTick();
  for (uint64_t i = warmup; i < total; ++i) {
    ns.push_back(static_cast<double>(latency_ticks[i]) * scale);
  }
  std::sort(ns.begin(), ns.end());
  out.p50 = Percentile(ns, 0.50);
  out.p99 = Percentile(ns, 0.99);
  out.max = ns.empty() ? 0.0 : ns.back();
  // The same samples split at the publish call's return: the publisher's part and the rest.
  std::vector<double> publish_ns;
  std::vector<double> after_ns;
  publish_ns.reserve(samples);
  after_ns.reserve(samples);
  for (uint64_t i = warmup; i < total; ++i) {
    const uint64_t publish =
        publish_ticks[i] < latency_ticks[i] ? publish_ticks[i] : latency_ticks[i];
    publish_ns.push_back(static_cast<double>(publish) * scale);
    after_ns.push_back(static_cast<double>(latency_ticks[i] - publish) * scale);
  }
  std::sort(publish_ns.begin(), publish_ns.end());
  std::sort(after_ns.begin(), after_ns.end());
  out.publish_p50 = Percentile(publish_ns, 0.50);
  out.publish_p99 = Percentile(publish_ns, 0.99);
  out.after_p99 = Percentile(after_ns, 0.99);
  out.dispatch_ns =
      delivered > 0U ? static_cast<double>(consumer_ns) / static_cast<double>(delivered) : 0.0;
  std::vector<double> measured_fill(fill.begin() + static_cast<std::ptrdiff_t>(warmup), fill.end());
  out.fill_percent = Summarize(measured_fill).median;
  out.low_refused = low_refused;
  out.high_refused = high_refused;
  out.consumer_preempted = consumer_switches;
  out.publisher_preempted = publisher_switches;
  out.realtime_failed = realtime_failed.load();
  out.valid = high->received == total && high->errors == 0U && low_sink->errors == 0U;
  return out;
}

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_HIGH_FLOOD_HPP_
