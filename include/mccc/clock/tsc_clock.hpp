// SPDX-License-Identifier: MIT
/// @file tsc_clock.hpp
/// @brief TscClock: steady_clock's time line read from the x86 cycle counter; BasicTscClock: the
/// same machinery over any counter source (tests drive it with a simulated counter).
#ifndef MCCC_CLOCK_TSC_CLOCK_HPP_
#define MCCC_CLOCK_TSC_CLOCK_HPP_

#include <cstdint>

#include "mccc/clock/tsc_source.hpp"
#include "mccc/clock/tsc_timeline.hpp"
#include "mccc/config.hpp"

#if MCCC_HOSTED && MCCC_HAS_TSC_TIMELINE
#include <algorithm>
#include <atomic>
#endif

namespace mccc {

#if MCCC_HOSTED && MCCC_HAS_TSC_TIMELINE
/// @brief A counter's ticks converted to the time line of a reference clock: one ordered
/// counter read, a few loads from read-mostly lines and one multiply per reading.
///
/// `CounterSource` provides (all static, noexcept, thread-safe):
/// - `uint64_t Ticks()`: the counter, read after every earlier load has completed (so that a
///   value received from another thread is never followed by an earlier reading);
/// - `uint64_t ReferenceNs()`: the reference clock in nanoseconds (monotonic);
/// - `detail::CounterVerdict Check()`: whether the counter may be used; asked at calibration and
///   again at most once per second of reference time, on the resynchronisation path.
///
/// How it reads (see clock/tsc_timeline.hpp for the line and its proof):
/// - Calibration on first use: two (counter, reference) pairs about 1 ms apart. The first call
///   therefore takes about 1 ms and must not happen inside a signal handler (it runs a
///   function-local static initialiser); AsyncBus's constructor makes it. The state itself is
///   constant-initialised (a fallback line), so a reading checks no initialisation guard: until
///   calibration publishes a line, every reading takes the slow path, which calibrates first.
/// - Every reading: the published line (anchor, slope) and the counter, in one window
///   validated by the line's generation; the common case is one multiply.
/// - Resynchronisation: a reading more than 50 ms + 20 us past the anchor takes a fresh pair and
///   publishes the next line (rate measured over the whole uptime, the remaining error steered
///   away over the next 50 ms at most 500 ppm, a step forwards past 1 ms behind).
/// - Never backwards, within a thread and for values passed between threads, however long a
///   writer is delayed: a line is never read past its expiry (20 us after the resynchronisation
///   falls due), and a reader past it publishes the next line itself; see the proof in
///   tsc_timeline.hpp.
/// - No reader waits for a writer. Lines live in four slots; a writer fills a slot nobody reads
///   and publishes it with one compare-and-swap of the `published` word (generation, slot,
///   fallback flag), so a reader that interrupted a writer (a signal handler on the writer's
///   thread, say) still finds a complete line. A reader retries only when a whole new line was
///   published during its read (lock-free; at most once per resynchronisation in practice).
/// - If the source stops trusting its counter (the Linux kernel left the `tsc` clocksource), the
///   next resynchronisation switches every later reading to the reference clock, held at or
///   above the last value the counter could have produced.
/// Thread-safe, lock-free, never allocates; async-signal-safe after the first call.
template <typename CounterSource>
class BasicTscClock {
 public:
  /// @brief An instant: the counter and what of the line converts it in the common case, read in
  /// one window (the rest of the line is read afresh on the slow path).
  struct Reading {
    uint64_t ticks;
    uint64_t anchor_ticks;
    uint64_t anchor_ns;
    uint64_t slope_q32;
  };

  /// @brief Microseconds on the reference clock's time line.
  /// Not forced inline: left to the compiler, since forced into every publish it made the bus's
  /// overload path slower; Sample and ToUs are the halves meant for inlining.
  static uint64_t NowUs() noexcept { return Convert(ReadCommonCase(state_)); }

  /// @brief First half of NowUs: the line and the counter; no branch on the counter.
  /// Thread-safe, lock-free.
  MCCC_ALWAYS_INLINE static Reading Sample() noexcept { return ReadCommonCase(state_); }

  /// @brief Second half of NowUs: the microseconds of a Sample(). Thread-safe, lock-free.
  MCCC_ALWAYS_INLINE static uint64_t ToUs(const Reading& reading) noexcept {
    return Convert(reading);
  }

  /// @brief True while readings come from the counter (false: from the reference clock, either
  /// since calibration or since the source stopped trusting the counter). A snapshot.
  static bool UsesCycleCounter() noexcept {
    // acquire: pairs with the release compare-and-swap that published the current line.
    State& state = state_;
    EnsureCalibrated(state);
    return (state.published.load(std::memory_order_acquire) & kFallbackBit) == 0U;
  }

 private:
  // The `published` word: the slot's byte offset in the low bits (its index times the slot
  // size, so that a mask gives the address), then the fallback flag, then the generation, which
  // grows by one with every publication (so a value never comes back).
  static constexpr uint64_t kSlots = 4U;
  static constexpr uint64_t kSlotUnit = std::max<uint64_t>(MCCC_CACHELINE_SIZE, 64U);
  static constexpr uint64_t kSlotMask = (kSlots - 1U) * kSlotUnit;
  static constexpr uint64_t kFallbackBit = kSlots * kSlotUnit;
  static constexpr uint64_t kGenerationUnit = kFallbackBit * 2U;
  // A fallback line's anchor: so far from any real counter value that the common case's range
  // check always fails, which sends every reading to the slow path and its fallback branch.
  static constexpr uint64_t kFallbackAnchor = uint64_t{1} << 63U;
  static constexpr uint64_t kSourceCheckIntervalNs = 1000000000U;
  // A (counter, reference) pair whose bracketing counter reads lie further apart than this was
  // interrupted and would be imprecise.
  static constexpr uint64_t kMaxPairTicks = 20000U;

  /// One line, and the origin its successor measures the rate from (writers only); written
  /// only by the writer that claimed the slot, while it is not published.
  struct alignas(kSlotUnit) Slot {
    std::atomic<uint64_t> anchor_ticks{kFallbackAnchor};
    std::atomic<uint64_t> anchor_ns{0U};
    std::atomic<uint64_t> slope_q32{1U};
    std::atomic<uint64_t> base_slope_q32{1U};
    std::atomic<uint64_t> origin_ticks{0U};
    std::atomic<uint64_t> origin_ns{0U};
  };

  static_assert(sizeof(Slot) == kSlotUnit && (kSlotUnit & (kSlotUnit - 1U)) == 0U,
                "mccc: MCCC_CACHELINE_SIZE must be a power of two");

  /// The slot a `published` word names.
  static constexpr uint64_t SlotIndex(uint64_t published) noexcept {
    return (published & kSlotMask) / kSlotUnit;
  }

  /// Constant-initialised: `published` names slot 0, whose fallback line (its anchor far from
  /// any counter value) sends every reading to the slow path until calibration publishes a line
  /// in another slot (slot 0 is never written before that, so no reading sees it half-filled).
  struct State {
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
    Slot slots[kSlots]{};
    // Readers' line: the published word, and the steering segment's length, the one tunable
    // the common case reads (an atomic because calibration writes it while readers may run;
    // its final value is published with the first line).
    alignas(MCCC_CACHELINE_SIZE) std::atomic<uint64_t> published{kFallbackBit};
    std::atomic<uint64_t> period_ticks{kUncalibratedPeriod};
    // The whole steering: read only on the slow path, after EnsureCalibrated.
    detail::TscSteering steering{kUncalibratedPeriod, 0U, 0U, 0U};
    // Writers' line.
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
    alignas(MCCC_CACHELINE_SIZE) std::atomic<bool> slot_claimed[kSlots]{};
    std::atomic<uint64_t> next_check_ns{0U};
  };

  // Before calibration: less than any distance to the fallback anchor, so that the common
  // case's range check fails for every counter value.
  static constexpr uint64_t kUncalibratedPeriod = ~uint64_t{0} >> 2U;

  /// The slot a `published` word names, addressed by the byte offset the word holds, so that one
  /// base register reaches all its fields.
  MCCC_ALWAYS_INLINE static const Slot& SlotOf(const State& state, uint64_t published) noexcept {
    // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
    // NOLINTBEGIN(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-03
    const auto* first = reinterpret_cast<const unsigned char*>(&state.slots[0]);
    return *reinterpret_cast<const Slot*>(first + (published & kSlotMask));
    // NOLINTEND(cppcoreguidelines-pro-bounds-pointer-arithmetic)
    // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
  }

  enum class Outcome : uint8_t {
    kPublished,    ///< This writer published the next line.
    kSuperseded,   ///< Another writer published a line first.
    kUnavailable,  ///< Nothing published (no slot free, or no clean pair): keep the line.
  };

  /// The published line and a counter value read after it, in one window that no publication
  /// interrupted. `published` receives the word the line belongs to. `Line`: TscLine, or the
  /// Reading of the common case (which has no bent slope to load).
  template <typename Line>
  MCCC_ALWAYS_INLINE static uint64_t ReadLineAndCounter(const State& state, Line& line,
                                                        uint64_t& published) noexcept {
    for (;;) {
      // acquire: pairs with the release compare-and-swap (or calibration's release store) that
      // published this word, so the slot's fields loaded below are at least those that writer
      // stored.
      published = state.published.load(std::memory_order_acquire);
      const Slot& slot = SlotOf(state, published);
      // acquire (three or four loads; plain loads on x86): each pairs with a writer's release
      // store of the same field. A writer refills a slot only after it saw a later word
      // published, so a reader that sees any refilled field also sees that later word below,
      // and retries. The acquire also keeps the load below from moving above these.
      line.anchor_ticks = slot.anchor_ticks.load(std::memory_order_acquire);
      line.anchor_ns = slot.anchor_ns.load(std::memory_order_acquire);
      line.slope_q32 = slot.slope_q32.load(std::memory_order_acquire);
      if constexpr (std::is_same_v<Line, detail::TscLine>) {
        line.base_slope_q32 = slot.base_slope_q32.load(std::memory_order_acquire);
      }
      // After the loads above (the source orders it): the counter postdates the line's
      // publication, as the line's domain requires (tsc_timeline.hpp).
      const uint64_t ticks = CounterSource::Ticks();
      // relaxed: ordered after the field loads by their acquire; the same word means no writer
      // refilled this slot meanwhile.
      if (MCCC_LIKELY(published == state.published.load(std::memory_order_relaxed))) {
        return ticks;
      }
    }
  }

  /// The counter and the common case's part of its line.
  MCCC_ALWAYS_INLINE static Reading ReadCommonCase(const State& state) noexcept {
    Reading reading{};
    uint64_t published = 0U;
    reading.ticks = ReadLineAndCounter(state, reading, published);
    return reading;
  }

  /// Microseconds of a reading.
  MCCC_ALWAYS_INLINE static uint64_t Convert(const Reading& reading) noexcept {
    // The common case in one unsigned comparison: at or after the anchor and before the bend
    // (so no resynchronisation is due, the line has not expired, and this is no fallback line,
    // whose anchor is far away). There TscEvaluate is exactly this one multiply. The rest
    // (calibration, fallback, readings just before an anchor placed ahead, the bent segment, a
    // due resynchronisation) reads afresh on the slow path.
    const uint64_t delta = reading.ticks - reading.anchor_ticks;
    // relaxed: the line's acquire load of `published` came after calibration's store of the
    // period (released by the line's publication); before any line, the initial period fails
    // the check for the fallback anchor.
    if (MCCC_LIKELY(delta <= state_.period_ticks.load(std::memory_order_relaxed))) {
      const detail::TscUWide scaled = static_cast<detail::TscUWide>(delta) * reading.slope_q32;
      return (reading.anchor_ns + static_cast<uint64_t>(scaled >> 32U)) / 1000U;
    }
    return SlowPath(state_);
  }

  /// Calibrates once, the first time a reading reaches the slow path; concurrent first readers
  /// wait for it (the static's guard), and every later one passes the guard's check.
  static void EnsureCalibrated(State& state) noexcept {
    static const bool calibrated = (Calibrate(state), true);
    static_cast<void>(calibrated);
  }

  /// A reading outside the common case. Out of line and reading the line afresh (it is rare),
  /// so that NowUs keeps its line in registers instead of handing it over.
  MCCC_NOINLINE static uint64_t SlowPath(State& state) noexcept {
    EnsureCalibrated(state);
    const detail::TscSteering& steering = state.steering;
    for (;;) {
      detail::TscLine line{};
      uint64_t published = 0U;
      const uint64_t ticks = ReadLineAndCounter(state, line, published);
      if ((published & kFallbackBit) != 0U) {
        // The reference clock, never below the floor the fallback line carries.
        const uint64_t reference = CounterSource::ReferenceNs();
        return (reference > line.anchor_ns ? reference : line.anchor_ns) / 1000U;
      }
      if (!detail::TscResyncDue(line, ticks, steering)) {
        return detail::TscEvaluate(line, ticks, steering.period_ticks) / 1000U;
      }
      const bool expired = detail::TscExpired(line, ticks, steering);
      if (Advance(state, published, line, expired) == Outcome::kUnavailable) {
        // Still this line: at `ticks` within its domain, else at its expiry.
        return detail::TscEvaluate(line, detail::TscReadableTick(line, ticks, steering),
                                   steering.period_ticks) /
               1000U;
      }
      // A newer line is published (this thread's or another's): read again.
    }
  }

  /// Publishes the successor of `line` (published as `seen`) unless another writer does first.
  /// Before the line expires only one writer works at a time (the slot after the published
  /// one; the others keep reading the line); once it has expired every reader may try, with
  /// any free slot, so nobody ever waits for a writer that was preempted or interrupted.
  MCCC_NOINLINE static Outcome Advance(State& state, uint64_t seen, const detail::TscLine& line,
                                       bool expired) noexcept {
    const uint64_t candidates = expired ? kSlots - 1U : 1U;
    for (uint64_t step = 1U; step <= candidates; ++step) {
      // Never the published slot of `seen`.
      const uint64_t slot = (SlotIndex(seen) + step) % kSlots;
      std::atomic<bool>& claimed = state.slot_claimed[slot];
      // relaxed pre-check (a claimed slot is skipped without a write to the shared line), then
      // acquire exchange: pairs with the release store that freed the slot, so this writer's
      // field stores follow the previous writer's, and the load of `published` below sees the
      // word that writer published, or a later one.
      if (claimed.load(std::memory_order_relaxed) ||
          claimed.exchange(true, std::memory_order_acquire)) {
        continue;
      }
      Outcome outcome = Outcome::kSuperseded;
      // relaxed: compared with `seen` only. While `published` still holds `seen`, the slot is
      // not the published one, and only its holder can publish it; the field stores after this
      // load are releases, which readers rely on (ReadLineAndCounter).
      if (state.published.load(std::memory_order_relaxed) == seen) {
        outcome = FillAndPublish(state, seen, line, slot);
      }
      // release: pairs with the acquire exchange of the slot's next writer.
      claimed.store(false, std::memory_order_release);
      return outcome;
    }
    return Outcome::kUnavailable;
  }

  /// Computes the successor of `line` into `slot` and publishes it if `published` still holds
  /// `seen`. The trust re-check happens here, at most once per kSourceCheckIntervalNs.
  static Outcome FillAndPublish(State& state, uint64_t seen, const detail::TscLine& line,
                                uint64_t slot) noexcept {
    uint64_t ticks = 0U;
    uint64_t ns = 0U;
    bool clean = false;
    for (int attempt = 0; attempt < 3 && !clean; ++attempt) {
      clean = ReadPair(&ticks, &ns);
    }
    if (!clean) {
      return Outcome::kUnavailable;
    }
    bool fallback = false;
    // relaxed (load and store): the interval is a rate limit; two writers racing here only check
    // twice, and nothing else depends on the value.
    if (ns >= state.next_check_ns.load(std::memory_order_relaxed)) {
      state.next_check_ns.store(ns + kSourceCheckIntervalNs, std::memory_order_relaxed);
      fallback = CounterSource::Check() == detail::CounterVerdict::kUntrusted;
    }
    const detail::TscSteering& steering = state.steering;
    const Slot& source = SlotOf(state, seen);
    // relaxed (two loads): if the slot was refilled meanwhile, `published` no longer holds
    // `seen`, and the compare-and-swap below, a read-modify-write that always reads the latest
    // value, drops what was computed from them.
    uint64_t origin_ticks = source.origin_ticks.load(std::memory_order_relaxed);
    uint64_t origin_ns = source.origin_ns.load(std::memory_order_relaxed);
    detail::TscLine next{};
    if (fallback) {
      // The floor: 1 ns above the last value `line` can yield (at its expiry).
      const uint64_t last_tick = line.anchor_ticks + detail::TscExpiryTicks(steering);
      next =
          detail::TscLine{kFallbackAnchor,
                          detail::TscEvaluate(line, last_tick, steering.period_ticks) + 1U, 1U, 1U};
    } else {
      next = detail::TscNextLine(line, origin_ticks, origin_ns, ticks, ns, steering);
      if (detail::TscStepsForward(line, ticks, ns, steering)) {
        origin_ticks = ticks;
        origin_ns = ns;
      }
    }
    Slot& target = state.slots[slot];
    // release (six stores): each pairs with the readers' acquire load of the same field (see
    // ReadLineAndCounter); the slot is not published, so no validated reading uses them yet.
    target.anchor_ticks.store(next.anchor_ticks, std::memory_order_release);
    target.anchor_ns.store(next.anchor_ns, std::memory_order_release);
    target.slope_q32.store(next.slope_q32, std::memory_order_release);
    target.base_slope_q32.store(next.base_slope_q32, std::memory_order_release);
    target.origin_ticks.store(origin_ticks, std::memory_order_release);
    target.origin_ns.store(origin_ns, std::memory_order_release);
    uint64_t expected = seen;
    const uint64_t desired = ((seen & ~(kGenerationUnit - 1U)) + kGenerationUnit) |
                             (fallback ? kFallbackBit : 0U) | slot * kSlotUnit;
    // release on success: pairs with the readers' acquire load of `published`, which then see
    // the fields above. relaxed on failure: a newer line is out, and this one is dropped.
    if (state.published.compare_exchange_strong(expected, desired, std::memory_order_release,
                                                std::memory_order_relaxed)) {
      return Outcome::kPublished;
    }
    if (fallback) {
      // relaxed: as above; the next writer asks the source again instead of a second later.
      state.next_check_ns.store(0U, std::memory_order_relaxed);
    }
    return Outcome::kSuperseded;
  }

  /// One reference reading bracketed by two counter readings; false if the bracket is wide (the
  /// thread was interrupted), so the pair would be imprecise.
  static bool ReadPair(uint64_t* ticks, uint64_t* ns) noexcept {
    const uint64_t t0 = CounterSource::Ticks();
    const uint64_t reference = CounterSource::ReferenceNs();
    const uint64_t t1 = CounterSource::Ticks();
    if (t1 < t0 || t1 - t0 > kMaxPairTicks) {
      return false;
    }
    *ticks = t0 + (t1 - t0) / 2U;
    *ns = reference;
    return true;
  }

  /// Two pairs about 1 ms apart give the first line; without a trusted counter or a clean pair
  /// the clock stays on the reference (a fallback line with floor 0, as `published` starts).
  static void Calibrate(State& state) noexcept {
    if (CounterSource::Check() != detail::CounterVerdict::kTrusted) {
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
        now = CounterSource::ReferenceNs();
      }
      if (ReadPair(&t1, &n1)) {
        break;
      }
      t1 = 0U;
    }
    const uint64_t slope = detail::TscSlopeBetween(t0, n0, t1, n1, 0U);
    if (t1 == 0U || slope == 0U) {
      return;
    }
    const uint64_t ticks_per_ms = (uint64_t{1000000} << 32U) / slope;
    // Steer over 50 ms, anchors (and the grace before expiry) 20 us, at most 500 ppm (what NTP
    // allows steady_clock itself), jump forwards past 1 ms.
    state.steering = detail::TscSteering{50U * ticks_per_ms, ticks_per_ms / 50U, 500U, 1000000U};
    // relaxed (this store, the next and the slot's six): the release store of `published`
    // below publishes them to readers of the common case, and the guard of EnsureCalibrated to
    // the slow path.
    state.period_ticks.store(state.steering.period_ticks, std::memory_order_relaxed);
    state.next_check_ns.store(n1 + kSourceCheckIntervalNs, std::memory_order_relaxed);
    // Slot 1: slot 0 holds the initial fallback line, which readers may be loading now.
    Slot& first = state.slots[kFirstLineSlot];
    first.anchor_ticks.store(t1, std::memory_order_relaxed);
    first.anchor_ns.store(n1, std::memory_order_relaxed);
    first.slope_q32.store(slope, std::memory_order_relaxed);
    first.base_slope_q32.store(slope, std::memory_order_relaxed);
    first.origin_ticks.store(t1, std::memory_order_relaxed);
    first.origin_ns.store(n1, std::memory_order_relaxed);
    // release: pairs with the readers' acquire load of `published` (ReadLineAndCounter), so a
    // reader of this word sees the line and the period above. Generation 0, counter on.
    state.published.store(kFirstLineSlot * kSlotUnit, std::memory_order_release);
  }

  static constexpr uint64_t kFirstLineSlot = 1U;

  // Constant-initialised (State's initialisers are constant expressions), so reading it checks
  // no guard.
  // NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): deviation D-23
  static inline State state_{};
  static_assert((static_cast<void>(State{}), true),
                "mccc: TscClock's state must stay constant-initialised (its readings check no "
                "initialisation guard)");
};
#endif

#if MCCC_HOSTED && MCCC_HAS_TSC_TIMELINE && MCCC_HAS_TSC_SOURCE
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06
#define MCCC_HAS_TSC_CLOCK 1
/// @brief steady_clock's time line read from the x86 cycle counter (`rdtscp`, see
/// detail::TscSource) instead of a clock_gettime call: the hosted x86-64 default clock.
/// Readings are microseconds of steady_clock's epoch, comparable with SteadyClock::NowUs(), and
/// stay within a few microseconds of it. The counter is used only where it is trustworthy: on
/// Linux while the kernel runs on the `tsc` clocksource (re-checked about once a second, off the
/// common path), elsewhere when CPUID reports an invariant TSC; otherwise every reading is
/// steady_clock's. See BasicTscClock for the guarantees.
using TscClock = BasicTscClock<detail::TscSource>;
#else
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06
#define MCCC_HAS_TSC_CLOCK 0
#endif

}  // namespace mccc

#endif  // MCCC_CLOCK_TSC_CLOCK_HPP_
