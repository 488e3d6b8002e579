/// @file clock.hpp
/// @brief Timestamp sources for message headers: the bus reads `Traits::Clock::NowUs()` once per
/// publish (never for PublishFast). A clock is any type with `static uint64_t NowUs() noexcept`.
///
/// A clock may also split a reading in two: `static Reading Sample() noexcept` takes the instant
/// (say, the counter and what converts it) and `static uint64_t ToUs(const Reading&) noexcept`
/// turns it into microseconds, with `NowUs() == ToUs(Sample())`. A multi-producer bus then
/// samples before its claim and converts after it, so that nothing the claim's locked instruction
/// waits for depends on the conversion's range check (async_bus.hpp, ReadClock). TscClock does.
#ifndef MCCC_CLOCK_HPP_
#define MCCC_CLOCK_HPP_

#include <cstdint>
#include <type_traits>

#include "mccc/config.hpp"
#include "mccc/detail/tsc_timeline.hpp"

#if MCCC_HOSTED
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#endif
#if MCCC_HOSTED && !defined(__linux__) && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace mccc {

/// @brief A clock that always reads 0: for targets with no time base (timestamps unused), or for
/// callers that always use PublishFast. Threadsafe, wait-free.
struct NullClock {
  /// @brief Always 0.
  static uint64_t NowUs() noexcept { return 0U; }
};

#if MCCC_HOSTED
/// @brief std::chrono::steady_clock in microseconds (monotonic, never goes back): the default on
/// hosted systems other than x86 (see DefaultClock), and TscClock's reference and fallback.
/// Costs one vDSO clock_gettime on Linux (~17 ns on the benchmark VM). Threadsafe.
struct SteadyClock {
  /// @brief Microseconds since an unspecified epoch (the steady_clock epoch).
  static uint64_t NowUs() noexcept {
    const auto since_epoch = std::chrono::steady_clock::now().time_since_epoch();
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count());
  }
};
#endif

#if MCCC_HOSTED && MCCC_HAS_TSC_TIMELINE && (defined(__x86_64__) || defined(__i386__))
/// @brief steady_clock's time line read from the x86 cycle counter: one `rdtsc` (~7 ns) and a
/// few loads from a read-mostly line, instead of a clock_gettime call (~17 ns; it also
/// serialises the pipeline). The hosted x86 default.
///
/// - Readings are microseconds of steady_clock's epoch: comparable with SteadyClock::NowUs().
/// - A line ticks -> nanoseconds is calibrated on first use (about 1 ms; AsyncBus's constructor
///   takes that first reading, so a publish never pays it). Every ~50 ms the thread that notices
///   re-reads steady_clock and steers the line back onto it (detail/tsc_timeline.hpp): the rate
///   is measured over the whole uptime, and the error is removed over the next 50 ms (at most
///   500 ppm), so the distance to
///   steady_clock stays within a few microseconds and readings never go backwards.
/// - Used only where the TSC is trustworthy: on Linux when the kernel itself runs on the `tsc`
///   clocksource (it checked that the counter is invariant and synchronised across CPUs),
///   elsewhere when CPUID reports an invariant TSC. Otherwise every call is SteadyClock::NowUs().
/// Threadsafe, lock-free (a reader retries only while a resynchronisation is being written).
struct TscClock {
  /// @brief Microseconds on steady_clock's time line.
  /// Not forced inline: left to the compiler. Forced into the caller, it halved the sustained
  /// overload run of bench/mccc_benchmark (11-12 instead of 21-22 M msg/s, side by side), with
  /// no gain end to end.
  static uint64_t NowUs() noexcept {
    State& state = Get();
    detail::TscLine line{};
    const uint64_t ticks = ReadLineAndCounter(state, line);
    return Convert(state, ticks, line);
  }

  /// @brief An instant: the counter and the line that converts it, read in one seqlock window.
  struct Reading {
    uint64_t ticks;
    detail::TscLine line;
  };

  /// @brief First half of NowUs: the seqlock read and the `rdtsc`; no branch on the counter.
  /// Threadsafe, lock-free.
  MCCC_ALWAYS_INLINE static Reading Sample() noexcept {
    Reading reading{};
    reading.ticks = ReadLineAndCounter(Get(), reading.line);
    return reading;
  }

  /// @brief Second half of NowUs: the microseconds of a Sample(). Threadsafe, lock-free.
  MCCC_ALWAYS_INLINE static uint64_t ToUs(const Reading& reading) noexcept {
    return Convert(Get(), reading.ticks, reading.line);
  }

  /// @brief True when readings come from the cycle counter (false: every call is SteadyClock).
  static bool UsesCycleCounter() noexcept { return Get().usable; }

 private:
  struct alignas(64) State {
    std::atomic<uint32_t> version{0U};  // seqlock: odd while the line is being replaced
    std::atomic<uint64_t> anchor_ticks{0U};
    std::atomic<uint64_t> anchor_ns{0U};
    std::atomic<uint64_t> slope_q32{1U};
    std::atomic<uint64_t> base_slope_q32{1U};
    // Immutable after construction: the first calibration point and the tunables.
    uint64_t first_ticks = 0U;
    uint64_t first_ns = 0U;
    detail::TscSteering steering{~uint64_t{0} >> 2U, 0U, 0U, 0U};
    bool usable = false;
    std::atomic<bool> resync_busy{false};

    State() noexcept { Initialise(*this); }
  };

  /// Seqlock read of the line, with the counter read inside the same version window. Returns
  /// the counter.
  MCCC_ALWAYS_INLINE static uint64_t ReadLineAndCounter(const State& state,
                                                        detail::TscLine& line) noexcept {
    for (;;) {
      // acquire: pairs with the writer's final release store of `version`; the line read after
      // it is at least as new as that version.
      const uint32_t before = state.version.load(std::memory_order_acquire);
      // acquire (four loads; a plain load on x86, and no fence instruction, which TSan cannot
      // model): each pairs with the writer's release store of the same field, so a reader that
      // sees any new field also sees the odd version stored before it, and the version load
      // below cannot move above these loads.
      line.anchor_ticks = state.anchor_ticks.load(std::memory_order_acquire);
      line.anchor_ns = state.anchor_ns.load(std::memory_order_acquire);
      line.slope_q32 = state.slope_q32.load(std::memory_order_acquire);
      line.base_slope_q32 = state.base_slope_q32.load(std::memory_order_acquire);
      const uint64_t ticks = __builtin_ia32_rdtsc();
      // relaxed: ordered after the line loads by their acquire; an unchanged even version means
      // no writer stored a field in between.
      if (MCCC_LIKELY(before == state.version.load(std::memory_order_relaxed) &&
                      (before & 1U) == 0U)) {
        return ticks;
      }
    }
  }

  /// Microseconds of `ticks` read with `line`.
  MCCC_ALWAYS_INLINE static uint64_t Convert(State& state, uint64_t ticks,
                                             const detail::TscLine& line) noexcept {
    // The common case in one unsigned comparison: at or after the anchor and before the bend
    // (so no resynchronisation is due either). There TscEvaluate is exactly this one multiply,
    // so readings are the same as on the full path; the rest (steady_clock fallback, readings
    // just before an anchor placed ahead, the bent segment, a due resynchronisation) takes it,
    // reading the counter afresh (a little later than `ticks`; about once per 50 ms per thread).
    // 30 instead of 44 instructions per reading (callgrind).
    const uint64_t delta = ticks - line.anchor_ticks;
    if (MCCC_LIKELY(state.usable && delta <= state.steering.period_ticks)) {
      const detail::TscUWide scaled = static_cast<detail::TscUWide>(delta) * line.slope_q32;
      return (line.anchor_ns + static_cast<uint64_t>(scaled >> 32U)) / 1000U;
    }
    return NowUsFullPath(state);
  }

  /// A reading outside NowUs's common case: both segments, and the resynchronisation when it
  /// is due. Out of line and reading the line afresh (it is rare), so that NowUs keeps its line
  /// in registers instead of handing it over.
  MCCC_NOINLINE static uint64_t NowUsFullPath(State& state) noexcept {
    if (MCCC_UNLIKELY(!state.usable)) {
      return SteadyClock::NowUs();
    }
    detail::TscLine line{};
    const uint64_t ticks = ReadLineAndCounter(state, line);
    if (MCCC_UNLIKELY(detail::TscResyncDue(line, ticks, state.steering))) {
      Resynchronise(state, line.anchor_ticks);
    }
    return detail::TscEvaluate(line, ticks, state.steering.period_ticks) / 1000U;
  }

  static State& Get() noexcept {
    // Thread-safe static initialisation (C++11): the first caller calibrates, others wait.
    static State state;
    return state;
  }

  static uint64_t SteadyNs() noexcept {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }

  /// One reference reading bracketed by two tick readings; false if the bracket is wide (the
  /// thread was interrupted), so the pair would be imprecise.
  static bool ReadPair(uint64_t* ticks, uint64_t* ns) noexcept {
    const uint64_t t0 = __builtin_ia32_rdtsc();
    const uint64_t reference = SteadyNs();
    const uint64_t t1 = __builtin_ia32_rdtsc();
    if (t1 < t0 || t1 - t0 > 20000U) {
      return false;
    }
    *ticks = t0 + (t1 - t0) / 2U;
    *ns = reference;
    return true;
  }

  static bool CounterIsTrustworthy() noexcept;

  static void Initialise(State& state) noexcept {
    if (!CounterIsTrustworthy()) {
      return;
    }
    uint64_t t0 = 0U;
    uint64_t n0 = 0U;
    uint64_t t1 = 0U;
    uint64_t n1 = 0U;
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (!ReadPair(&t0, &n0)) {
        continue;
      }
      uint64_t now = n0;
      while (now - n0 < 1000000U) {  // about 1 ms of spinning, once per process
        now = SteadyNs();
      }
      if (ReadPair(&t1, &n1)) {
        break;
      }
      t1 = 0U;
    }
    const uint64_t slope = detail::TscSlopeBetween(t0, n0, t1, n1, 0U);
    if (t1 == 0U || slope == 0U) {
      return;  // no clean calibration: stay on steady_clock
    }
    state.first_ticks = t1;
    state.first_ns = n1;
    // relaxed: the state is published by the static initialisation that runs this.
    state.anchor_ticks.store(t1, std::memory_order_relaxed);
    state.anchor_ns.store(n1, std::memory_order_relaxed);
    state.slope_q32.store(slope, std::memory_order_relaxed);
    state.base_slope_q32.store(slope, std::memory_order_relaxed);
    const uint64_t ticks_per_ms = (uint64_t{1000000} << 32U) / slope;
    // Steer over 50 ms, anchors 20 us off the resynchronisation tick, at most 500 ppm (what NTP
    // allows steady_clock itself), jump forwards past 1 ms.
    state.steering = detail::TscSteering{50U * ticks_per_ms, ticks_per_ms / 50U, 500U, 1000000U};
    state.usable = true;
  }

  /// Cold path: one thread at a time replaces the line (the others keep reading the old one,
  /// which stays valid: it only drifts slowly).
  MCCC_NOINLINE static void Resynchronise(State& state, uint64_t seen_anchor_ticks) noexcept {
    // relaxed pre-check, then acquire exchange: pairs with the release store that frees the flag,
    // so the next writer starts from the line the previous one wrote.
    if (state.resync_busy.load(std::memory_order_relaxed) ||
        state.resync_busy.exchange(true, std::memory_order_acquire)) {
      return;
    }
    // relaxed: only the flag holder writes the line, and it wrote (or saw, via the flag) the
    // latest one; the line the caller saw may be older than that if another thread resynchronised
    // meanwhile.
    const detail::TscLine current{state.anchor_ticks.load(std::memory_order_relaxed),
                                  state.anchor_ns.load(std::memory_order_relaxed),
                                  state.slope_q32.load(std::memory_order_relaxed),
                                  state.base_slope_q32.load(std::memory_order_relaxed)};
    uint64_t ticks = 0U;
    uint64_t ns = 0U;
    if (current.anchor_ticks == seen_anchor_ticks && ReadPair(&ticks, &ns)) {
      const detail::TscLine next = detail::TscNextLine(current, state.first_ticks, state.first_ns,
                                                       ticks, ns, state.steering);
      // relaxed: only the flag holder writes the version, and it holds the flag.
      const uint32_t v = state.version.load(std::memory_order_relaxed);
      // relaxed: the release stores of the fields below keep this odd version before them.
      state.version.store(v + 1U, std::memory_order_relaxed);
      // release (four stores): pair with the readers' acquire loads of the fields (see there).
      state.anchor_ticks.store(next.anchor_ticks, std::memory_order_release);
      state.anchor_ns.store(next.anchor_ns, std::memory_order_release);
      state.slope_q32.store(next.slope_q32, std::memory_order_release);
      state.base_slope_q32.store(next.base_slope_q32, std::memory_order_release);
      // release: pairs with the readers' acquire load of `version` (the new line is complete).
      state.version.store(v + 2U, std::memory_order_release);
    }
    // release: pairs with the acquire exchange of the next writer.
    state.resync_busy.store(false, std::memory_order_release);
  }
};

inline bool TscClock::CounterIsTrustworthy() noexcept {
#if defined(__linux__)
  // The kernel keeps `tsc` as its clocksource only after checking that the counter is invariant
  // and synchronised across CPUs (and drops it if it later misbehaves); trust its verdict.
  std::FILE* file =
      std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (file == nullptr) {
    return false;
  }
  char name[16] = {};
  const bool read = std::fgets(name, sizeof(name), file) != nullptr;
  static_cast<void>(std::fclose(file));
  return read && std::strncmp(name, "tsc\n", 4U) == 0;
#else
  // CPUID leaf 0x80000007, EDX bit 8: invariant TSC (constant rate in every P-, C- and T-state).
  unsigned eax = 0U;
  unsigned ebx = 0U;
  unsigned ecx = 0U;
  unsigned edx = 0U;
  if (__get_cpuid(0x80000007U, &eax, &ebx, &ecx, &edx) == 0) {
    return false;
  }
  return (edx & (1U << 8U)) != 0U;
#endif
}
#define MCCC_HAS_TSC_CLOCK 1
#else
#define MCCC_HAS_TSC_CLOCK 0
#endif

namespace detail {

/// True when `Clock` splits a reading into Sample() and ToUs() (see the file comment).
template <typename Clock, typename = void>
struct ClockSplitsReading : std::false_type {};
template <typename Clock>
struct ClockSplitsReading<Clock, std::void_t<decltype(Clock::ToUs(Clock::Sample()))>>
    : std::bool_constant<std::is_same_v<decltype(Clock::ToUs(Clock::Sample())), uint64_t>> {};

}  // namespace detail

/// @brief The clock DefaultBusTraits uses: TscClock on hosted x86 (steady_clock's time line at
/// the cost of one rdtsc; it falls back to steady_clock by itself where the counter is not
/// trustworthy), SteadyClock on other hosted systems, NullClock without an OS (an MCU supplies
/// its tick counter through its traits: `using Clock = MyTickClock;`). MCCC_DEFAULT_CLOCK_STEADY=1
/// keeps SteadyClock everywhere.
#if MCCC_HAS_TSC_CLOCK && !MCCC_DEFAULT_CLOCK_STEADY
using DefaultClock = TscClock;
#elif MCCC_HOSTED
using DefaultClock = SteadyClock;
#else
using DefaultClock = NullClock;
#endif

}  // namespace mccc

#endif  // MCCC_CLOCK_HPP_
