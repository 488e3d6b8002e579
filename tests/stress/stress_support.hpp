// SPDX-License-Identifier: MIT
// Shared support of the stress tests: how long and how hard they run, and the consumer loop.
//   MCCC_STRESS_SCALE=<x>    multiplies message counts (default 1; 0.1 under TSan, 0.3 under ASan
//                            or without optimisation, chosen automatically)
//   MCCC_STRESS_SECONDS=<s>  run each case for s seconds instead of a message count
#ifndef MCCC_TESTS_STRESS_STRESS_SUPPORT_HPP_
#define MCCC_TESTS_STRESS_STRESS_SUPPORT_HPP_

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "mccc/message.hpp"
#include "mccc/traits.hpp"
#include "support/bus_configs.hpp"

#if defined(__SANITIZE_THREAD__)
#define MCCC_STRESS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MCCC_STRESS_TSAN 1
#endif
#endif
#ifndef MCCC_STRESS_TSAN
#define MCCC_STRESS_TSAN 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define MCCC_STRESS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MCCC_STRESS_ASAN 1
#endif
#endif
#ifndef MCCC_STRESS_ASAN
#define MCCC_STRESS_ASAN 0
#endif

namespace mccc_stress {

/// Bus traits of a stress case: ring depth, messages per ProcessBatch, and whether one thread
/// publishes (the wait-free single-producer path). A small depth keeps the ring full with
/// several producers; a small batch makes batches interleave with publishes.
template <uint32_t kDepth, uint32_t kBatch, bool kOneProducer = false>
using StressTraits = mccc_test::SingleProducer<mccc_test::Ring<kDepth, kBatch>, kOneProducer>;

/// splitmix64 finaliser: a cheap bijective mixer, so different inputs give different words.
constexpr uint64_t Mix(uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

// The error callback is a plain function pointer, hence global counters. relaxed: the tests read
// them after joining every producer (the join orders the increments before the reads).
inline std::atomic<uint64_t> g_queue_full_reports{0U};
inline std::atomic<uint64_t> g_other_error_reports{0U};

/// Error callback of the stress buses: kQueueFull reports apart from all others.
inline void CountErrors(mccc::BusError error, uint64_t /*msg_id*/) {
  if (error == mccc::BusError::kQueueFull) {
    g_queue_full_reports.fetch_add(1U, std::memory_order_relaxed);
  } else {
    g_other_error_reports.fetch_add(1U, std::memory_order_relaxed);
  }
}

/// A positive number from the environment, or `fallback`.
inline double EnvDouble(const char* name, double fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') {
    return fallback;
  }
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  return (end != text && value > 0.0) ? value : fallback;
}

/// Multiplier for message counts: sanitizers and unoptimised builds are 3-10x slower.
inline double StressScale() {
#if MCCC_STRESS_TSAN
  constexpr double kDefault = 0.1;
#elif MCCC_STRESS_ASAN || !defined(__OPTIMIZE__)
  constexpr double kDefault = 0.3;
#else
  constexpr double kDefault = 1.0;
#endif
  return EnvDouble("MCCC_STRESS_SCALE", kDefault);
}

/// 0: count-bounded run (the default). Otherwise seconds each producer publishes per case.
inline double StressSeconds() {
  return EnvDouble("MCCC_STRESS_SECONDS", 0.0);
}

/// The consumer thread's loop: dispatch with `process()` (ProcessBatch or ProcessBatchWith),
/// sleep in WaitForMessages when idle, and once `producers_done` is set (every producer joined,
/// so every claimed slot is written) drain what is left and return.
template <typename Bus, typename Process>
void ConsumeUntilProducersDone(Bus& bus, Process&& process,
                               const std::atomic<bool>& producers_done) {
  for (;;) {
    if (process() != 0U) {
      continue;
    }
    // acquire: pairs with the release store made after joining the producers.
    if (producers_done.load(std::memory_order_acquire)) {
      while (process() != 0U) {
      }
      return;
    }
    bus.WaitForMessages(1000U);
  }
}

/// One stress run's threads: a consumer thread running ConsumeUntilProducersDone with
/// `process()`, and `producers` threads running `produce(p, go)`, which must wait for `go` before
/// publishing so that all start together. Returns once every producer has been joined and the
/// consumer has drained the queue and been joined.
template <typename Bus, typename Produce, typename Process>
void RunProducersAndConsumer(Bus& bus, uint32_t producers, Produce&& produce, Process&& process) {
  std::atomic<bool> go{false};
  std::atomic<bool> producers_done{false};
  std::thread consumer([&] { ConsumeUntilProducersDone(bus, process, producers_done); });
  std::vector<std::thread> threads;
  threads.reserve(producers);
  for (uint32_t p = 0U; p < producers; ++p) {
    threads.emplace_back(
        [&produce, &go, p] { produce(p, static_cast<const std::atomic<bool>&>(go)); });
  }
  // release: pairs with the producers' acquire loads of `go` (everything set up before is seen).
  go.store(true, std::memory_order_release);
  for (std::thread& t : threads) {
    t.join();
  }
  // release: pairs with the consumer's acquire load; every claimed slot is written by now.
  producers_done.store(true, std::memory_order_release);
  bus.WakeConsumer();
  consumer.join();
}

/// Per priority (index = MessagePriority), the bus counted exactly what the producers recorded:
/// published == admitted and dropped == attempted - admitted.
inline void ExpectPerPriorityCounts(const mccc::BusStatisticsSnapshot& s,
                                    const std::array<uint64_t, mccc::kPriorityCount>& attempted,
                                    const std::array<uint64_t, mccc::kPriorityCount>& admitted) {
  EXPECT_EQ(s.low_priority_published, admitted[0]);
  EXPECT_EQ(s.medium_priority_published, admitted[1]);
  EXPECT_EQ(s.high_priority_published, admitted[2]);
  EXPECT_EQ(s.low_priority_dropped, attempted[0] - admitted[0]);
  EXPECT_EQ(s.medium_priority_dropped, attempted[1] - admitted[1]);
  EXPECT_EQ(s.high_priority_dropped, attempted[2] - admitted[2]);
}

}  // namespace mccc_stress

#endif  // MCCC_TESTS_STRESS_STRESS_SUPPORT_HPP_
