/// @file tsc_timeline.hpp
/// @brief The arithmetic behind TscClock, kept free of clocks and atomics so that tests can drive
/// it with made-up readings: a line maps cycle-counter ticks to nanoseconds of the reference
/// clock (steady_clock), and every resynchronisation replaces the line by one that steers back
/// towards the reference without ever making a reading go backwards.
///
/// A line has two segments: from its anchor it runs at a "steering" slope for one period (which
/// removes the error measured at the resynchronisation), then at the "base" slope (the rate
/// measured over the whole uptime). So a clock nobody reads for an hour is still on the base
/// rate, not steered for an hour. Resynchronisation happens only past the bend (period + lead
/// ticks after the anchor), where the old line runs at its base slope.
///
/// Why a new line can never lower a reading (O = old line, N = new line, t_w = the tick at which
/// N is computed, L = lead_ticks, far longer than any instruction reordering):
/// - N passes through O at an anchor tick t_a (1 ns above it, which absorbs rounding), so the two
///   meet there.
/// - N's steering slope below O's base slope: t_a = t_w + L. Left of t_a the slower line lies
///   above the faster one, so N(t) >= O(t) for every t < t_a. Readers switch to N right after
///   t_w, long before t_a, and nobody still holding O reads a tick past t_a (it would have to be
///   older than t_w + L).
/// - Otherwise: t_a = t_w - L (still past O's bend). Right of t_a the faster line lies above, so
///   N(t) >= O(t) for t > t_a, and every reader of N reads a tick after t_w > t_a.
/// - Reference ahead by more than kStepNs (e.g. after a suspend): N starts at the reference value
///   at t_w, a step forwards.
/// So a thread that reads O and then N never sees its value decrease, and neither does a thread
/// that receives a value computed by another (the version it reads is at least as new).
#ifndef MCCC_DETAIL_TSC_TIMELINE_HPP_
#define MCCC_DETAIL_TSC_TIMELINE_HPP_

#include <cstdint>

namespace mccc {
namespace detail {

#if (defined(__GNUC__) || defined(__clang__)) && defined(__SIZEOF_INT128__)
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

/// @brief Tunables of the steering (TscClock uses the defaults; tests pass their own).
struct TscSteering {
  uint64_t period_ticks;  ///< Length of the steering segment; resync is due past period + lead.
  uint64_t lead_ticks;    ///< Anchor offset L of the file comment; much less than period_ticks.
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
    return line.anchor_ns + static_cast<uint64_t>(static_cast<int64_t>(scaled >> 32));
  }
  const TscUWide bent = static_cast<TscUWide>(bend_ticks) * line.slope_q32;
  const TscUWide after =
      static_cast<TscUWide>(static_cast<uint64_t>(delta) - bend_ticks) * line.base_slope_q32;
  return line.anchor_ns + static_cast<uint64_t>((bent + after) >> 32);
}

/// @brief True when `ticks` is far enough past the line's bend for a resynchronisation.
inline bool TscResyncDue(const TscLine& line, uint64_t ticks,
                         const TscSteering& steering) noexcept {
  const auto delta = static_cast<int64_t>(ticks - line.anchor_ticks);
  return delta > 0 && static_cast<uint64_t>(delta) > steering.period_ticks + steering.lead_ticks;
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

/// @brief The line to use after a resynchronisation at tick `now_ticks`, where the reference read
/// `reference_ns`. `first` is the very first calibration point: the slope is measured over the
/// whole time since then (precision grows with uptime), then bent so that the remaining error
/// vanishes over one period, within max_slew_ppm. Never lowers a reading (file comment).
/// Requires TscResyncDue(current, now_ticks, steering).
inline TscLine TscNextLine(const TscLine& current, uint64_t first_ticks, uint64_t first_ns,
                           uint64_t now_ticks, uint64_t reference_ns,
                           const TscSteering& steering) noexcept {
  const uint64_t bend = steering.period_ticks;
  const uint64_t ours = TscEvaluate(current, now_ticks, bend);
  const uint64_t base_slope =
      TscSlopeBetween(first_ticks, first_ns, now_ticks, reference_ns, current.base_slope_q32);
  if (reference_ns > ours && reference_ns - ours > steering.step_ns) {
    return TscLine{now_ticks, reference_ns, base_slope, base_slope};  // far behind: step
  }
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
  }
  uint64_t slope = base_slope;
  if (period_ns > 0) {
    const TscWide bent = static_cast<TscWide>(base_slope) * (period_ns + correction) / period_ns;
    slope = bent > 0 ? static_cast<uint64_t>(bent) : 1U;
  }
  // Past O's bend, O runs at its base slope: compare with that (file comment).
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

#endif  // MCCC_DETAIL_TSC_TIMELINE_HPP_
