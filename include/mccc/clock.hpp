/// @file clock.hpp
/// @brief Timestamp sources for message headers: the bus reads `Traits::Clock::NowUs()` once per
/// publish (never for PublishFast). A clock is any type with `static uint64_t NowUs() noexcept`.
#ifndef MCCC_CLOCK_HPP_
#define MCCC_CLOCK_HPP_

#include <cstdint>

#include "mccc/config.hpp"

#if MCCC_HOSTED
#include <chrono>
#endif

namespace mccc {

/// @brief A clock that always reads 0: for targets with no time base (timestamps unused), or for
/// callers that always use PublishFast. Threadsafe, wait-free.
struct NullClock {
  /// @brief Always 0.
  static uint64_t NowUs() noexcept { return 0U; }
};

#if MCCC_HOSTED
/// @brief The hosted default: std::chrono::steady_clock in microseconds (monotonic, never goes
/// back). Costs one vDSO clock_gettime on Linux (~20 ns). Threadsafe.
struct SteadyClock {
  /// @brief Microseconds since an unspecified epoch (the steady_clock epoch).
  static uint64_t NowUs() noexcept {
    const auto since_epoch = std::chrono::steady_clock::now().time_since_epoch();
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count());
  }
};
#endif

#if MCCC_HOSTED && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
/// @brief A cycle-counter clock for x86 with an invariant TSC: one `rdtsc` (~7 ns) instead of a
/// clock_gettime call. The tick rate is measured once against steady_clock (about 2 ms, on first
/// use, thread-safe static initialisation); readings are monotonic per core and consistent across
/// cores on CPUs with an invariant, synchronised TSC (all x86-64 server and desktop parts since
/// ~2008). Do not use it on a CPU without `constant_tsc`/`nonstop_tsc` in /proc/cpuinfo.
struct TscClock {
  // 128-bit intermediate arithmetic (a GNU extension, hence __extension__ for -Wpedantic).
  __extension__ using Wide = unsigned __int128;

  /// @brief Microseconds since the first call (the calibration point).
  static uint64_t NowUs() noexcept {
    const Calibration& cal = Get();
    const uint64_t ticks = __builtin_ia32_rdtsc() - cal.base_ticks;
    // 128-bit product keeps full precision for centuries of uptime at any realistic TSC rate.
    return static_cast<uint64_t>((static_cast<Wide>(ticks) * cal.us_per_tick_q32) >> 32U);
  }

 private:
  struct Calibration {
    uint64_t base_ticks;
    uint64_t us_per_tick_q32;  // microseconds per tick, fixed point with 32 fraction bits
  };

  static const Calibration& Get() noexcept {
    static const Calibration cal = Calibrate();
    return cal;
  }

  static Calibration Calibrate() noexcept {
    using std::chrono::steady_clock;
    const auto t0 = steady_clock::now();
    const uint64_t c0 = __builtin_ia32_rdtsc();
    auto t1 = t0;
    while (t1 - t0 < std::chrono::milliseconds(2)) {
      t1 = steady_clock::now();
    }
    const uint64_t c1 = __builtin_ia32_rdtsc();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    const uint64_t ticks = (c1 > c0) ? (c1 - c0) : 1U;
    // us/tick = ns / 1000 / ticks, scaled by 2^32.
    const auto q32 =
        static_cast<uint64_t>((static_cast<Wide>(ns) << 32U) / (static_cast<Wide>(ticks) * 1000U));
    return Calibration{c1, q32 == 0U ? 1U : q32};
  }
};
#define MCCC_HAS_TSC_CLOCK 1
#else
#define MCCC_HAS_TSC_CLOCK 0
#endif

/// @brief The clock DefaultBusTraits uses: steady_clock where there is an OS, else NullClock
/// (an MCU supplies its tick counter through its traits: `using Clock = MyTickClock;`).
#if MCCC_HOSTED
using DefaultClock = SteadyClock;
#else
using DefaultClock = NullClock;
#endif

}  // namespace mccc

#endif  // MCCC_CLOCK_HPP_
