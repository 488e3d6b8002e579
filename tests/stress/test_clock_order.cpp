// SPDX-License-Identifier: MIT
// Stress tests of the clock's ordering promises across threads:
// - TscClock on the real counter: a reading never precedes a value received from another thread
//   (the counter read is ordered after the load that received it);
// - BasicTscClock on a simulated counter that runs so fast that resynchronisations fall due
//   every few thousand readings and expire within one reading: writers race to publish, readers
//   past an expiry publish lines themselves, and still no thread, and no value handed between
//   threads, sees time go back.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "mccc/clock.hpp"
#include "stress_support.hpp"
#include "support/fake_counter_source.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace {

/// Pins the calling thread to the `index`-th CPU it may run on (Linux), so that the two threads
/// of a case run on different cores whenever they run: the reordering under test needs a cache
/// line that travels between cores. Returns false when there is no such CPU (nothing changed).
bool PinToAllowedCpu(int index) {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
    return false;
  }
  int seen = 0;
  for (std::size_t cpu = 0U; cpu < static_cast<std::size_t>(CPU_SETSIZE); ++cpu) {
    if (CPU_ISSET(cpu, &allowed) && seen++ == index) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      return pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0;
    }
  }
#else
  static_cast<void>(index);
#endif
  return false;
}

struct OrderCount {
  uint64_t checks = 0U;
  uint64_t backwards = 0U;
  uint64_t worst_us = 0U;
};

// One thread publishes readings of `Clock` (release); the caller acquires the latest one and
// reads `Clock` right after, `checks` times or until `max_seconds` pass. Counts how often its
// reading was earlier than the value it had just received.
template <typename Clock>
OrderCount ReceiveAndRead(uint64_t checks, double max_seconds) {
  alignas(64) std::atomic<uint64_t> latest{Clock::NowUs()};
  std::atomic<bool> stop{false};
  std::thread sender([&]() {
    static_cast<void>(PinToAllowedCpu(1));
    // relaxed: a stop flag only; the loop's own stores carry the data.
    while (!stop.load(std::memory_order_relaxed)) {
      // release: pairs with the receiver's acquire load below.
      latest.store(Clock::NowUs(), std::memory_order_release);
    }
  });
  OrderCount count;
#if defined(__linux__)
  cpu_set_t original;
  CPU_ZERO(&original);
  const bool restore = sched_getaffinity(0, sizeof(original), &original) == 0;
  static_cast<void>(PinToAllowedCpu(0));
#endif
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(max_seconds);
  while (count.checks < checks) {
    for (int i = 0; i < 4096; ++i) {
      // acquire: pairs with the sender's release store, so the sender's reading happened before.
      const uint64_t received = latest.load(std::memory_order_acquire);
      const uint64_t now = Clock::NowUs();
      if (now < received) {
        ++count.backwards;
        count.worst_us = std::max(count.worst_us, received - now);
      }
    }
    count.checks += 4096U;
    if (std::chrono::steady_clock::now() > deadline) {
      break;
    }
  }
  stop.store(true, std::memory_order_relaxed);
  sender.join();
#if defined(__linux__)
  if (restore) {
    static_cast<void>(pthread_setaffinity_np(pthread_self(), sizeof(original), &original));
  }
#endif
  return count;
}

#if MCCC_HAS_TSC_CLOCK
// G-29: a reading taken after receiving another thread's value is not earlier than it
TEST(TscClockOrder, AReadingNeverPrecedesAValueReceivedFromAnotherThread) {
  if (!mccc::TscClock::UsesCycleCounter()) {
    GTEST_SKIP() << "the counter is not trusted here: TscClock reads steady_clock";
  }
  const auto checks = static_cast<uint64_t>(30000000.0 * mccc_stress::StressScale());
  const OrderCount count = ReceiveAndRead<mccc::TscClock>(checks, 20.0);
  EXPECT_EQ(count.backwards, 0U) << "of " << count.checks << " checks; worst " << count.worst_us
                                 << " us earlier than the received value";
  EXPECT_GT(count.checks, 0U);
}
#endif

#if MCCC_HAS_TSC_TIMELINE && MCCC_HOSTED
// G-29: monotonic on every thread and across handovers while writers race
// G-30: resynchronising writers never step time back
TEST(BasicTscClockWriters, RacingWritersKeepEveryThreadAndEveryHandoverMonotonic) {
  using Source = fake::CounterSource<100>;
  using Clock = mccc::BasicTscClock<Source>;
  static_cast<void>(Clock::NowUs());  // calibrate with the default 10 ns per call
  // From now on every call moves simulated time by 1 us: a resynchronisation falls due about
  // every 50,000 calls, and a line expires 20 calls after that, so readers past an expiry
  // publish lines of their own while the due writer is still at work.
  Source::step_ns.store(1000U);
  const auto readings =
      static_cast<uint64_t>(std::max(300000.0 * mccc_stress::StressScale(), 50000.0));
  constexpr int kThreads = 4;
  alignas(64) std::atomic<uint64_t> handed_over{0U};
  std::atomic<uint64_t> thread_backwards{0U};
  std::atomic<uint64_t> handover_backwards{0U};
  const auto run_threads = [&]() {
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&]() {
        ready.fetch_add(1);
        while (ready.load() < kThreads) {
        }
        uint64_t previous = 0U;
        for (uint64_t i = 0U; i < readings; ++i) {
          // acquire: pairs with another thread's release store of a reading it took before.
          const uint64_t received = handed_over.load(std::memory_order_acquire);
          const uint64_t now = Clock::NowUs();
          if (now < previous) {
            thread_backwards.fetch_add(1U);
          }
          if (now < received) {
            handover_backwards.fetch_add(1U);
          }
          previous = now;
          // release: pairs with the acquire load above, in another thread.
          handed_over.store(now, std::memory_order_release);
        }
      });
    }
    for (std::thread& thread : threads) {
      thread.join();
    }
  };
  // The reference drifts one way, then the other, so that new lines are sometimes slower,
  // sometimes faster than the lines they replace. In the second half every writer is held up
  // after its pair (as if preempted there), so that the other threads overtake it: readers past
  // the expiry publish lines of their own, writers find themselves superseded, and slots run
  // out.
  Source::SetReferencePpm(-250);
  run_threads();
  Source::SetReferencePpm(300);
  Source::pause_after_pair_us.store(50U);
  run_threads();
  Source::pause_after_pair_us.store(0U);
  EXPECT_EQ(thread_backwards.load(), 0U);
  EXPECT_EQ(handover_backwards.load(), 0U);
  EXPECT_TRUE(Clock::UsesCycleCounter());
}
#endif

}  // namespace
