// SPDX-License-Identifier: MIT
/// @file tsc_timeline.hpp
/// @brief The arithmetic behind TscClock, kept free of clocks and atomics so that tests can drive
/// it with made-up readings: a line maps counter ticks to nanoseconds of the reference clock
/// (steady_clock), and every resynchronisation replaces the line by one that steers back
/// towards the reference without ever making a reading go backwards.
///
/// A line has two segments: from its anchor it runs at a "steering" slope for one period (which
/// removes the error measured at the resynchronisation), then at the "base" slope (the rate
/// measured over the whole uptime). So a clock nobody reads for an hour is still on the base
/// rate, not steered for an hour.
///
/// Where a line may be read (its domain; L = lead_ticks, far longer than any instruction
/// reordering and than a resynchronisation that is not preempted):
/// - From the tick t_w of the (counter, reference) pair it was computed from: a reader reads the
///   counter only after it loaded the line, and the writer read t_w before publishing it.
/// - Up to its expiry E = anchor + period + 2L, never beyond. A resynchronisation is due from
///   anchor + period + L (past the bend, where the line runs at its base slope); a reader past E
///   either publishes the next line itself or reads this one at E (TscReadableTick), so how long
///   a writer takes (preempted, or interrupted by a reader on its own thread) never matters.
///
/// Why a new line N never reads below its predecessor O (N computed at t_w >= O's due tick, so
/// E_O <= t_w + L; a reading of O at t1 <= E_O, a later one of N at t2 >= max(t1, t_w)):
/// - N passes through O at an anchor tick t_a (1 ns above it, which absorbs rounding).
/// - N's steering slope below O's base slope: t_a = t_w + L >= E_O. Left of t_a the slower line
///   lies above the faster one. t2 <= t_a: N(t2) >= O(t2) >= O(t1). t2 > t_a: N(t2) >= N(t_a) >
///   O(t_a) >= O(t1), since t1 <= E_O <= t_a.
/// - Otherwise t_a = t_w - L (still past O's bend): right of t_a the faster line lies above, and
///   t2 >= t_w > t_a, so N(t2) >= O(t2) >= O(t1).
/// - Reference ahead by more than step_ns (e.g. after a suspend): N starts at the reference value
///   at t_w, a step forwards larger than anything O can add in the L ticks from t_w to E_O.
/// Readings of older lines are covered too: expiries grow from line to line (E_N > E_O), so the
/// same argument chains. Nothing above depends on when N is published, which is what makes a
/// delayed writer harmless: O is never read past E_O, however late N arrives.
#ifndef MCCC_CLOCK_TSC_TIMELINE_HPP_
#define MCCC_CLOCK_TSC_TIMELINE_HPP_

#include <cstdint>

namespace mccc {
namespace detail {

#if (defined(__GNUC__) || defined(__clang__)) && defined(__SIZEOF_INT128__)
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06
#define MCCC_HAS_TSC_TIMELINE 1

// 128-bit intermediates (a GNU extension, hence __extension__ for -Wpedantic).
__extension__ using TscWide = __int128;
__extension__ using TscUWide = unsigned __int128;

/// @brief One two-segment line: `anchor_ns + delta * slope_q32 / 2^32` for the first
/// `bend_ticks` ticks after the anchor (and before it), then on at `base_slope_q32`.
struct TscLine {
  uint64_t anchor_ticks;    ///< Tick at which the line is pinned.
  uint64_t anchor_ns;       ///< Reference nanoseconds at anchor_ticks.
  uint64_t slope_q32;       ///< Steering slope: nanoseconds per tick, 32 fraction bits (> 0).
  uint64_t base_slope_q32;  ///< Slope after the bend (> 0).
};

/// @brief Tunables of the steering (TscClock derives them from its calibration; tests pass
/// their own). Requires lead_ticks much less than period_ticks, and step_ns more than the
/// nanoseconds of lead_ticks.
struct TscSteering {
  uint64_t period_ticks;  ///< Length of the steering segment.
  uint64_t lead_ticks;    ///< L of the file comment: anchor offset, and the grace before expiry.
  uint64_t max_slew_ppm;  ///< Largest steering, parts per million of the base slope.
  uint64_t step_ns;       ///< Reference ahead by more than this: jump instead of steering.
};

/// @brief The line's reading at `ticks` (ticks before the anchor are allowed); `bend_ticks` is
/// the steering segment's length (TscSteering::period_ticks).
inline uint64_t TscEvaluate(const TscLine& line, uint64_t ticks, uint64_t bend_ticks) noexcept {
  // Two's complement difference: negative when `ticks` precedes the anchor.
  const auto delta = static_cast<int64_t>(ticks - line.anchor_ticks);
  if (delta <= 0 || static_cast<uint64_t>(delta) <= bend_ticks) {
    const TscWide scaled = static_cast<TscWide>(delta) * static_cast<TscWide>(line.slope_q32);
    // >> on a negative __int128 is an arithmetic shift with GCC and Clang (floor division).
    // NOLINTNEXTLINE(hicpp-signed-bitwise): deviation D-21 (signed __int128 shift)
    return line.anchor_ns + static_cast<uint64_t>(static_cast<int64_t>(scaled >> 32));
  }
  const TscUWide bent = static_cast<TscUWide>(bend_ticks) * line.slope_q32;
  const TscUWide after =
      static_cast<TscUWide>(static_cast<uint64_t>(delta) - bend_ticks) * line.base_slope_q32;
  return line.anchor_ns + static_cast<uint64_t>((bent + after) >> 32);
}

/// @brief Ticks after the anchor past which a resynchronisation is due.
inline uint64_t TscDueTicks(const TscSteering& steering) noexcept {
  return steering.period_ticks + steering.lead_ticks;
}

/// @brief Ticks after the anchor past which the line is never read (its expiry, E - anchor).
inline uint64_t TscExpiryTicks(const TscSteering& steering) noexcept {
  return steering.period_ticks + 2U * steering.lead_ticks;
}

/// @brief True when `ticks` is far enough past the line's bend for a resynchronisation.
inline bool TscResyncDue(const TscLine& line, uint64_t ticks,
                         const TscSteering& steering) noexcept {
  const auto delta = static_cast<int64_t>(ticks - line.anchor_ticks);
  return delta > 0 && static_cast<uint64_t>(delta) > TscDueTicks(steering);
}

/// @brief True when `ticks` lies past the line's expiry: the line must not be read there.
inline bool TscExpired(const TscLine& line, uint64_t ticks, const TscSteering& steering) noexcept {
  const auto delta = static_cast<int64_t>(ticks - line.anchor_ticks);
  return delta > 0 && static_cast<uint64_t>(delta) > TscExpiryTicks(steering);
}

/// @brief The tick at which a reader that read the counter at `ticks` may evaluate the line:
/// `ticks` itself up to the expiry, the expiry beyond it (time holds still there rather than
/// overtake a successor line that may already be on its way).
inline uint64_t TscReadableTick(const TscLine& line, uint64_t ticks,
                                const TscSteering& steering) noexcept {
  return TscExpired(line, ticks, steering) ? line.anchor_ticks + TscExpiryTicks(steering) : ticks;
}

/// @brief Slope (ns per tick, q32) between two (ticks, ns) points; `fallback` if degenerate.
inline uint64_t TscSlopeBetween(uint64_t ticks0, uint64_t ns0, uint64_t ticks1, uint64_t ns1,
                                uint64_t fallback) noexcept {
  if (ticks1 <= ticks0 || ns1 <= ns0) {
    return fallback;
  }
  const TscUWide q = (static_cast<TscUWide>(ns1 - ns0) << 32) / (ticks1 - ticks0);
  return (q == 0U || (q >> 63) != 0U) ? fallback : static_cast<uint64_t>(q);
}

/// @brief True when the reference (`reference_ns` at `now_ticks`) is so far ahead of `current`
/// that the next line jumps to it instead of steering: more than step_ns.
inline bool TscStepsForward(const TscLine& current, uint64_t now_ticks, uint64_t reference_ns,
                            const TscSteering& steering) noexcept {
  const uint64_t ours = TscEvaluate(current, now_ticks, steering.period_ticks);
  return reference_ns > ours && reference_ns - ours > steering.step_ns;
}

/// @brief The line to use after a resynchronisation at tick `now_ticks`, where the reference read
/// `reference_ns`. The base slope is measured from the origin (`origin_ticks`, `origin_ns`): the
/// first calibration point, so that precision grows with uptime, or the last forward step, whose
/// jump the counter did not make and the rate must not include (the caller moves the origin to
/// the resynchronisation's pair when TscStepsForward). The steering slope then removes the
/// remaining error over one period, within max_slew_ppm. Never lowers a reading of `current`
/// taken in its domain (file comment), whenever the result is published.
/// Requires TscResyncDue(current, now_ticks, steering).
inline TscLine TscNextLine(const TscLine& current, uint64_t origin_ticks, uint64_t origin_ns,
                           uint64_t now_ticks, uint64_t reference_ns,
                           const TscSteering& steering) noexcept {
  if (TscStepsForward(current, now_ticks, reference_ns, steering)) {
    // The rate so far stays; measuring it across the jump would make it as wrong as the jump.
    return TscLine{now_ticks, reference_ns, current.base_slope_q32, current.base_slope_q32};
  }
  const uint64_t bend = steering.period_ticks;
  const uint64_t ours = TscEvaluate(current, now_ticks, bend);
  const uint64_t base_slope =
      TscSlopeBetween(origin_ticks, origin_ns, now_ticks, reference_ns, current.base_slope_q32);
  const auto error = static_cast<int64_t>(reference_ns - ours);  // > 0: we are behind
  const auto period_ns =
      static_cast<int64_t>((static_cast<TscUWide>(steering.period_ticks) * base_slope) >> 32);
  const int64_t max_correction =
      static_cast<int64_t>(static_cast<TscUWide>(period_ns) * steering.max_slew_ppm / 1000000U);
  int64_t correction = error;
  if (correction > max_correction) {
    correction = max_correction;
  } else if (correction < -max_correction) {
    correction = -max_correction;
  } else {
    // Within the slew bound: the whole error is corrected over the period.
  }
  uint64_t slope = base_slope;
  if (period_ns > 0) {
    const TscWide bent = static_cast<TscWide>(base_slope) * (period_ns + correction) / period_ns;
    slope = bent > 0 ? static_cast<uint64_t>(bent) : 1U;
  }
  // Past O's bend, O runs at its base slope: compare with that (file comment). A slower line
  // meets O at or after O's expiry, a faster one before `now_ticks`.
  const uint64_t anchor = slope < current.base_slope_q32 ? now_ticks + steering.lead_ticks
                                                         : now_ticks - steering.lead_ticks;
  // +1 ns: both lines round down, so without it N could read 1 ns below O right next to the
  // anchor (floor(x + y) <= floor(x) + floor(y) + 1), enough to move a microsecond boundary.
  return TscLine{anchor, TscEvaluate(current, anchor, bend) + 1U, slope, base_slope};
}

#else
#define MCCC_HAS_TSC_TIMELINE 0
#endif

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_CLOCK_TSC_TIMELINE_HPP_
