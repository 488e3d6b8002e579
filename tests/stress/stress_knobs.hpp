// Shared knobs of the stress tests: how long and how hard they run.
//   MCCC_STRESS_SCALE=<x>    multiplies message counts (default 1; 0.1 under TSan, 0.3 under ASan
//                            or without optimisation, chosen automatically)
//   MCCC_STRESS_SECONDS=<s>  run each case for s seconds instead of a message count
#ifndef MCCC_TESTS_STRESS_STRESS_KNOBS_HPP_
#define MCCC_TESTS_STRESS_STRESS_KNOBS_HPP_

#include <cstdlib>

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

}  // namespace mccc_stress

#endif  // MCCC_TESTS_STRESS_STRESS_KNOBS_HPP_
