// SPDX-License-Identifier: MIT
// A simulated counter source for mccc::BasicTscClock: a 3 GHz counter and a reference clock
// derived from one simulated time that advances by a fixed step with every call, so a test
// decides exactly when time passes, how fast the reference runs against the counter, what the
// source says about its counter, and what happens inside a resynchronisation (a hook that runs
// between the writer's (counter, reference) pair and its publication).
//
// Each test instantiates it with its own kId: BasicTscClock keeps one state per source type,
// calibrated on the first reading.
#ifndef MCCC_TESTS_SUPPORT_FAKE_COUNTER_SOURCE_HPP_
#define MCCC_TESTS_SUPPORT_FAKE_COUNTER_SOURCE_HPP_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "mccc/clock/tsc_clock.hpp"

namespace fake {

template <int kId>
struct CounterSource {
  static constexpr uint64_t kTicksPerNs = 3U;
  static constexpr uint64_t kStartNs = 1000000000U;  // one second after "boot"

  // Simulated time in ns; every Ticks() and ReferenceNs() call moves it by step_ns.
  static inline std::atomic<uint64_t> now_ns{kStartNs};
  static inline std::atomic<uint64_t> step_ns{10U};
  // The reference is piecewise linear in simulated time: it read reference_at_change when the
  // simulated time was now_at_change, and runs (1 + reference_ppm / 1e6) times as fast since.
  static inline std::atomic<int64_t> reference_ppm{0};
  static inline std::atomic<uint64_t> now_at_change{kStartNs};
  static inline std::atomic<uint64_t> reference_at_change{kStartNs};

  static inline std::atomic<mccc::detail::CounterVerdict> verdict{
      mccc::detail::CounterVerdict::kTrusted};
  static inline std::atomic<uint32_t> checks{0U};

  // A hook run once, inside the next resynchronisation, right after the writer has read its
  // (counter, reference) pair and before it publishes. Cleared before it runs, so readings it
  // makes do not run it again.
  static inline std::atomic<void (*)()> after_next_pair{nullptr};
  // While set, every (counter, reference) pair comes out interrupted (its bracketing counter
  // reads far apart), so no resynchronisation can complete.
  static inline std::atomic<bool> spoil_pairs{false};
  // While not 0, every writer sleeps this many real microseconds right after its pair (so that
  // the other threads, moving simulated time on, overtake it).
  static inline std::atomic<uint32_t> pause_after_pair_us{0U};
  // Set by ReferenceNs(): the next Ticks() call closes a pair (TscClock reads counter,
  // reference, counter).
  static inline thread_local bool pair_open = false;

  static uint64_t Ticks() noexcept {
    const uint64_t ns = now_ns.fetch_add(step_ns.load()) + step_ns.load();
    uint64_t ticks = ns * kTicksPerNs;
    if (pair_open) {
      pair_open = false;
      if (spoil_pairs.load()) {
        ticks += 1000000U;
      }
      void (*hook)() = after_next_pair.exchange(nullptr);
      if (hook != nullptr) {
        hook();  // the writer is "preempted" here, its pair already read
      }
      const uint32_t pause_us = pause_after_pair_us.load();
      if (pause_us != 0U) {
        std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
      }
    }
    return ticks;
  }

  static uint64_t ReferenceNs() noexcept {
    const uint64_t ns = now_ns.fetch_add(step_ns.load()) + step_ns.load();
    pair_open = true;
    return ReferenceAt(ns);
  }

  static mccc::detail::CounterVerdict Check() noexcept {
    checks.fetch_add(1U);
    return verdict.load();
  }

  // ---- Test controls (single-threaded unless noted) ------------------------------------------

  static uint64_t ReferenceAt(uint64_t ns) noexcept {
    const auto elapsed = static_cast<int64_t>(ns - now_at_change.load());
    const int64_t drift = elapsed / 1000000 * reference_ppm.load() +
                          elapsed % 1000000 * reference_ppm.load() / 1000000;
    return reference_at_change.load() + static_cast<uint64_t>(elapsed + drift);
  }

  /// Reference nanoseconds now, without moving time or opening a pair.
  static uint64_t PeekReferenceNs() noexcept { return ReferenceAt(now_ns.load()); }

  /// Moves simulated time forwards by `ns`. Thread-safe.
  static void Advance(uint64_t ns) noexcept { now_ns.fetch_add(ns); }

  /// From now on the reference runs `ppm` parts per million faster (negative: slower) than
  /// simulated time, which the counter follows exactly.
  static void SetReferencePpm(int64_t ppm) noexcept {
    const uint64_t ns = now_ns.load();
    reference_at_change.store(ReferenceAt(ns));
    now_at_change.store(ns);
    reference_ppm.store(ppm);
  }

  /// Moves the reference by `ns` at once (a clock step, as after a suspend).
  static void StepReference(int64_t ns) noexcept {
    const uint64_t now = now_ns.load();
    reference_at_change.store(ReferenceAt(now) + static_cast<uint64_t>(ns));
    now_at_change.store(now);
  }
};

}  // namespace fake

#endif  // MCCC_TESTS_SUPPORT_FAKE_COUNTER_SOURCE_HPP_
