// SPDX-License-Identifier: MIT
// smoke-args: --benchmark_min_time=0.01
/// @file clock_cost.cpp
/// @brief The cost of one clock reading: the clocks a bus can timestamp with, TscClock's
/// conversion over each way of reading the x86 counter, and those counter reads alone.
///
/// TscClock reads the counter with `rdtscp`, which is ordered after earlier loads on Intel and
/// AMD alike (clock/tsc_source.hpp). The same conversion over `lfence; rdtsc` (ordered on Intel,
/// and on AMD only when the OS has made LFENCE dispatch-serialising) and over a bare `rdtsc`
/// (not ordered: a reading can precede a value just received from another thread) is measured
/// beside it, so that the price of the order is a ratio from one run.
///
/// Usage:
///   clock_cost [Google Benchmark flags]        ns per reading, e.g. --benchmark_repetitions=5
///   clock_cost --count-instructions NAME N     N readings of NAME with callgrind's counting on
///                                              only around them (valgrind --tool=callgrind
///                                              --instr-atstart=no); NAME as listed by --list
///   clock_cost --list                          the NAMEs
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mccc/clock.hpp"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define MCCC_CLOCK_COST_HAVE_CALLGRIND 1
#endif
#endif
#ifndef MCCC_CLOCK_COST_HAVE_CALLGRIND
#define MCCC_CLOCK_COST_HAVE_CALLGRIND 0
#endif

namespace {

#if MCCC_HAS_TSC_CLOCK
/// TscClock's source with the counter read as `lfence; rdtsc`.
struct LfenceRdtscSource : mccc::detail::TscSource {
  MCCC_ALWAYS_INLINE static uint64_t Ticks() noexcept {
    __builtin_ia32_lfence();
    return __builtin_ia32_rdtsc();
  }
};
/// TscClock's source with a bare `rdtsc`: not ordered after earlier loads (for its cost only).
struct UnorderedRdtscSource : mccc::detail::TscSource {
  MCCC_ALWAYS_INLINE static uint64_t Ticks() noexcept { return __builtin_ia32_rdtsc(); }
};
using LfenceTscClock = mccc::BasicTscClock<LfenceRdtscSource>;
using UnorderedTscClock = mccc::BasicTscClock<UnorderedRdtscSource>;

uint64_t RawRdtsc() noexcept {
  return __builtin_ia32_rdtsc();
}
uint64_t RawLfenceRdtsc() noexcept {
  __builtin_ia32_lfence();
  return __builtin_ia32_rdtsc();
}
uint64_t RawRdtscp() noexcept {
  unsigned int processor_id = 0U;
  return __builtin_ia32_rdtscp(&processor_id);
}
uint64_t TscSplit() noexcept {
  return mccc::TscClock::ToUs(mccc::TscClock::Sample());
}
#endif

struct Variant {
  const char* name;
  uint64_t (*read)() noexcept;
};

const Variant kVariants[] = {
    {"steady_clock", &mccc::SteadyClock::NowUs},
#if MCCC_HAS_TSC_CLOCK
    {"tsc_clock", &mccc::TscClock::NowUs},
    {"tsc_clock_sample_to_us", &TscSplit},
    {"tsc_clock_over_lfence_rdtsc", &LfenceTscClock::NowUs},
    {"tsc_clock_over_unordered_rdtsc", &UnorderedTscClock::NowUs},
    {"counter_rdtscp", &RawRdtscp},
    {"counter_lfence_rdtsc", &RawLfenceRdtsc},
    {"counter_rdtsc", &RawRdtsc},
#endif
};

// The readings are called inline where the compiler can (the function pointer only names them
// for the instruction count), so each benchmark is a template on its reading.
template <uint64_t (*kRead)() noexcept>
void BM_Read(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(kRead());
  }
}

void RegisterAll() {
  benchmark::RegisterBenchmark("steady_clock", &BM_Read<&mccc::SteadyClock::NowUs>);
#if MCCC_HAS_TSC_CLOCK
  benchmark::RegisterBenchmark("tsc_clock", &BM_Read<&mccc::TscClock::NowUs>);
  benchmark::RegisterBenchmark("tsc_clock_sample_to_us", &BM_Read<&TscSplit>);
  benchmark::RegisterBenchmark("tsc_clock_over_lfence_rdtsc", &BM_Read<&LfenceTscClock::NowUs>);
  benchmark::RegisterBenchmark("tsc_clock_over_unordered_rdtsc",
                               &BM_Read<&UnorderedTscClock::NowUs>);
  benchmark::RegisterBenchmark("counter_rdtscp", &BM_Read<&RawRdtscp>);
  benchmark::RegisterBenchmark("counter_lfence_rdtsc", &BM_Read<&RawLfenceRdtsc>);
  benchmark::RegisterBenchmark("counter_rdtsc", &BM_Read<&RawRdtsc>);
#endif
}

/// N readings of one variant with callgrind's counting on around them only; prints the sum so
/// that the readings cannot be dropped.
int CountInstructions(const char* name, uint64_t readings) {
  for (const Variant& variant : kVariants) {
    if (std::strcmp(variant.name, name) != 0) {
      continue;
    }
    static_cast<void>(variant.read());  // calibration, outside the count
    uint64_t sum = 0U;
#if MCCC_CLOCK_COST_HAVE_CALLGRIND
    CALLGRIND_START_INSTRUMENTATION;
#endif
    for (uint64_t i = 0U; i < readings; ++i) {
      sum += variant.read();
    }
#if MCCC_CLOCK_COST_HAVE_CALLGRIND
    CALLGRIND_STOP_INSTRUMENTATION;
#endif
    std::printf("%s: %llu readings (checksum %llu)\n", name,
                static_cast<unsigned long long>(readings), static_cast<unsigned long long>(sum));
    return 0;
  }
  std::fprintf(stderr, "clock_cost: unknown reading '%s' (see --list)\n", name);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const Variant& variant : kVariants) {
      std::printf("%s\n", variant.name);
    }
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "--count-instructions") == 0) {
    if (argc != 4) {
      std::fprintf(stderr, "usage: clock_cost --count-instructions NAME N\n");
      return 2;
    }
    return CountInstructions(argv[2], std::strtoull(argv[3], nullptr, 10));
  }
  for (const Variant& variant : kVariants) {
    static_cast<void>(variant.read());  // each clock calibrates on its first reading
  }
#if MCCC_HAS_TSC_CLOCK
  std::printf("TscClock reads the %s\n", mccc::TscClock::UsesCycleCounter()
                                             ? "cycle counter"
                                             : "steady_clock fallback (counter not trusted)");
#endif
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
