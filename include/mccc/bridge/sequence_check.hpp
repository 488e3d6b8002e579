// SPDX-License-Identifier: MIT
/// @file sequence_check.hpp
/// @brief The importer's per-stream sequence check, an end-to-end receiver window in the manner
/// of AUTOSAR E2E (a bounded accepted delta, explicit states): which frames are new, which repeat
/// an earlier one, which arrive after a later one, which jump too far ahead, and how many sequence
/// numbers never arrived.
///
/// A stream is (stream id, channel); its data frames carry 0, 1, 2, ... The check keeps the next
/// expected number N and a 64-frame window of the numbers already seen below it. For a data frame
/// n (SequenceLimits: max_delta, resync_frames):
/// - N <= n < N + max_delta: accepted; n - N numbers are missing (lost), N = n + 1;
/// - n >= N + max_delta: out of window, discarded: a number that far ahead is not believed (a
///   damaged or forged counter would otherwise wrap N or leave every later genuine frame behind
///   it). resync_frames such frames in a row, each the successor of the last, make the check
///   follow the stream from there (resynchronised, counted with the numbers it passed over);
///   a frame within the window in between cancels that;
/// - n < N and n was seen (in the window): repeated, discarded;
/// - n < N otherwise: reordered (it arrived after a later frame, which already counted it as
///   lost), discarded; marked, so that another copy counts as repeated. Beyond the window a
///   repeat cannot be told from a late frame and counts as reordered.
/// Heartbeats and the end-of-stream frame carry the next data number M: when N < M <= N +
/// max_delta the numbers in between never arrived (lost; this finds a lost tail that no later
/// data frame would reveal); M beyond that is out of window (discarded; markers never
/// resynchronise). After its end-of-stream frame a stream is ended: any data frame of it is
/// refused (after end).
///
/// StreamTable follows several streams at once, in bounded memory: a stream is admitted only by a
/// data frame that passed every other check (CRC, schema, decoding), so markers with invented
/// stream ids take no room. When the table is full, the stream that goes is the one whose last
/// accepted frame is the oldest, preferring streams that have had fewer than two frames accepted
/// (a flood of invented ids churns among its own newcomers). A stream that goes, evicted or
/// ended, keeps a retired record (its window and state) in a ring of its own, so that its repeats
/// and replays are still refused; an evicted stream that comes back is followed on from that
/// record. Only once its record has left that ring too is a stream forgotten: if it comes back it
/// is joined anew.
///
/// docs/bridge.md gives the states and transitions as a table.
#ifndef MCCC_BRIDGE_SEQUENCE_CHECK_HPP_
#define MCCC_BRIDGE_SEQUENCE_CHECK_HPP_

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "mccc/bridge/channel.hpp"

namespace mccc {
namespace bridge {

/// @brief The bounds of the receiver window (ImporterOptions::sequence).
struct SequenceLimits {
  /// The largest step accepted from the newest number seen to the next one (AUTOSAR E2E's
  /// MaxDeltaCounter): a data frame may reveal at most max_delta - 1 lost numbers, a marker at
  /// most max_delta. Make it at least the frames the transport can lose at once (with ZeroMQ, a
  /// broken connection's queue: high-water mark x kNormalBurst); a larger gap is then taken as an
  /// error and resynchronised after resync_frames frames. 0 counts as 1.
  uint64_t max_delta = uint64_t{1} << 16U;
  /// Consecutive data frames beyond the window (each the successor of the last) after which the
  /// stream is followed from there. 0 counts as 1.
  uint32_t resync_frames = 3U;
};

/// @brief What the sequence check decided for one frame.
enum class SequenceVerdict : uint8_t {
  kAccept = 0U,       ///< Data: new, publish it. Marker: believed (its gap counted, if any).
  kRepeated = 1U,     ///< Already seen: discard.
  kReordered = 2U,    ///< Arrived after a later frame: discard.
  kOutOfWindow = 3U,  ///< Beyond max_delta ahead of the next expected number: discard.
  kAfterEnd = 4U,     ///< The stream has ended: discard (a marker changes nothing).
};

/// @brief The state of one stream.
enum class StreamState : uint8_t {
  kNew = 0U,     ///< No frame seen yet.
  kSynced = 1U,  ///< Following: frames are judged against the next expected number.
  kJumped = 2U,  ///< As kSynced, and data frames beyond the window have come in a row.
  kEnded = 3U,   ///< Its end-of-stream frame was read.
};

/// @brief The verdict plus what the frame revealed or caused.
struct SequenceResult {
  SequenceVerdict verdict = SequenceVerdict::kAccept;  ///< The decision.
  uint64_t lost = 0U;               ///< Numbers skipped over by this frame (never arrived).
  uint64_t missed_at_join = 0U;     ///< Numbers before the first frame of a newly seen stream.
  uint64_t skipped_at_resync = 0U;  ///< Numbers passed over by a resynchronisation.
  uint64_t first_missing = 0U;      ///< The first of the lost (missed, skipped) numbers.
  bool resynchronised = false;      ///< This frame made the check follow the stream anew.
  bool joined = false;              ///< StreamTable: the stream was admitted (first data frame).
  bool restored = false;            ///< StreamTable: followed again from its retired record.
  bool evicted = false;             ///< StreamTable: another stream was retired to make room.
  bool ended = false;               ///< StreamTable: an end of stream that ended it.
};

/// @brief The state of one stream: next expected number, the window below it, the run of frames
/// beyond it.
class SequenceWindow {
 public:
  /// @brief Judges data frame `sequence`.
  SequenceResult CheckData(uint64_t sequence, const SequenceLimits& limits = {}) noexcept {
    SequenceResult result;
    if (state_ == StreamState::kEnded) {
      result.verdict = SequenceVerdict::kAfterEnd;
      return result;
    }
    if (sequence == kUnfollowable) {
      result.verdict = SequenceVerdict::kOutOfWindow;  // N would wrap: never followed
      return result;
    }
    if (state_ == StreamState::kNew) {
      state_ = StreamState::kSynced;
      result.missed_at_join = sequence;
      next_ = sequence + 1U;
      window_ = 1U;
      return result;
    }
    if (sequence >= next_) {
      if (sequence - next_ < MaxDelta(limits)) {
        result.lost = sequence - next_;
        result.first_missing = next_;
        Advance(sequence + 1U);
        window_ |= 1U;
        return result;
      }
      return Jump(sequence, limits);
    }
    const uint64_t distance = next_ - 1U - sequence;  // 0: the newest seen
    result.verdict = SequenceVerdict::kReordered;
    if (distance < kWindow) {
      const uint64_t bit = uint64_t{1} << distance;
      if ((window_ & bit) != 0U) {
        result.verdict = SequenceVerdict::kRepeated;
      }
      window_ |= bit;
    }
    return result;
  }

  /// @brief A heartbeat or end of stream saying the next data number is `next_sequence`.
  SequenceResult CheckMarker(uint64_t next_sequence, const SequenceLimits& limits = {}) noexcept {
    SequenceResult result;
    if (state_ == StreamState::kEnded) {
      result.verdict = SequenceVerdict::kAfterEnd;
      return result;
    }
    if (state_ == StreamState::kNew) {
      state_ = StreamState::kSynced;
      result.missed_at_join = next_sequence;
      next_ = next_sequence;
      window_ = 0U;
      return result;
    }
    if (next_sequence > next_) {
      if (next_sequence - next_ > MaxDelta(limits)) {
        result.verdict = SequenceVerdict::kOutOfWindow;
        return result;
      }
      result.lost = next_sequence - next_;
      result.first_missing = next_;
      Advance(next_sequence);
    }
    return result;
  }

  /// @brief The stream's end-of-stream frame was read: every later data frame is after end.
  void End() noexcept { state_ = StreamState::kEnded; }

  /// @brief The next number expected.
  uint64_t Next() const noexcept { return next_; }
  /// @brief The state (see the file comment).
  StreamState State() const noexcept { return state_; }
  /// @brief True once a frame of the stream was seen.
  bool Started() const noexcept { return state_ != StreamState::kNew; }

 private:
  static constexpr uint64_t kWindow = 64U;
  static constexpr uint64_t kUnfollowable = std::numeric_limits<uint64_t>::max();

  static uint64_t MaxDelta(const SequenceLimits& limits) noexcept {
    return limits.max_delta == 0U ? 1U : limits.max_delta;
  }

  void Shift(uint64_t by) noexcept { window_ = by >= kWindow ? 0U : window_ << by; }

  /// Moves N forward within the window; a jump in progress is cancelled.
  void Advance(uint64_t next) noexcept {
    Shift(next - next_);
    next_ = next;
    state_ = StreamState::kSynced;
    run_ = 0U;
  }

  /// Data frame `sequence`, beyond the window: discarded, unless it completes a run.
  SequenceResult Jump(uint64_t sequence, const SequenceLimits& limits) noexcept {
    SequenceResult result;
    result.verdict = SequenceVerdict::kOutOfWindow;
    if (state_ == StreamState::kJumped && sequence == run_next_) {
      ++run_;
    } else {
      state_ = StreamState::kJumped;
      run_ = 1U;
    }
    run_next_ = sequence + 1U;
    const uint32_t needed = limits.resync_frames == 0U ? 1U : limits.resync_frames;
    if (run_ < needed) {
      return result;
    }
    // Resynchronised: followed from this frame on; the run's earlier frames (discarded, counted
    // out of window) are marked seen, so that a copy of one counts as repeated.
    result.verdict = SequenceVerdict::kAccept;
    result.resynchronised = true;
    result.skipped_at_resync = sequence - next_;
    result.first_missing = next_;
    window_ = run_ >= kWindow ? ~uint64_t{0} : (uint64_t{1} << run_) - 1U;
    next_ = sequence + 1U;
    state_ = StreamState::kSynced;
    run_ = 0U;
    return result;
  }

  uint64_t next_ = 0U;
  uint64_t window_ = 0U;    // bit d: number next_ - 1 - d was seen (accepted or arrived late)
  uint64_t run_next_ = 0U;  // kJumped: the number that continues the run
  uint32_t run_ = 0U;       // kJumped: frames in the run
  StreamState state_ = StreamState::kNew;
};

/// @brief A bounded table of streams, so that one importer can take frames from several exporters
/// (and from an exporter that restarted: a new stream id): kStreams followed, kRetired remembered
/// after they went (file comment).
template <std::size_t kStreams, std::size_t kRetired>
class StreamTable {
  static_assert(kStreams > 0U, "mccc::bridge: StreamTable needs at least one entry");
  static_assert(kRetired > 0U, "mccc::bridge: StreamTable needs at least one retired record");

 public:
  /// @brief A table that judges with `limits`.
  explicit StreamTable(const SequenceLimits& limits = {}) noexcept : limits_(limits) {}

  /// @brief Judges data frame `sequence` of (stream_id, channel); admits the stream when the
  /// frame is accepted and the stream is not followed yet.
  SequenceResult CheckData(uint64_t stream_id, Channel channel, uint64_t sequence) noexcept {
    ++clock_;
    Entry* entry = FindActive(stream_id, channel);
    if (entry != nullptr) {
      const SequenceResult result = entry->window.CheckData(sequence, limits_);
      if (result.verdict == SequenceVerdict::kAccept) {
        Refresh(*entry, clock_);
      }
      return result;
    }
    Retired* retired = FindRetired(stream_id, channel);
    SequenceWindow window = retired != nullptr ? retired->window : SequenceWindow{};
    SequenceResult result = window.CheckData(sequence, limits_);
    if (retired != nullptr && result.verdict != SequenceVerdict::kAccept) {
      retired->window = window;  // still refused (a repeat, a replay after end): stays retired
      return result;
    }
    if (result.verdict != SequenceVerdict::kAccept) {
      return result;  // an unknown stream's frame that cannot be followed takes no room
    }
    // The record is freed before Admit, which may retire another stream into that very slot.
    const bool established = retired != nullptr && retired->established;
    if (retired != nullptr) {
      retired->used = false;
      result.restored = true;
    } else {
      result.joined = true;
    }
    Entry& admitted = Admit(stream_id, channel, result.evicted);
    admitted.window = window;
    admitted.established = established;
    Refresh(admitted, clock_);
    return result;
  }

  /// @brief Judges a marker of (stream_id, channel) announcing `next_sequence`; `end` for an
  /// end-of-stream frame, which ends a stream it is believed for. A marker of a stream neither
  /// followed nor retired changes nothing (verdict kAccept; `ended` set for an end of stream).
  SequenceResult CheckMarker(uint64_t stream_id, Channel channel, uint64_t next_sequence,
                             bool end) noexcept {
    ++clock_;
    SequenceResult result;
    Entry* entry = FindActive(stream_id, channel);
    if (entry != nullptr) {
      result = entry->window.CheckMarker(next_sequence, limits_);
      if (result.verdict == SequenceVerdict::kAccept) {
        Refresh(*entry, clock_);
        if (end) {
          entry->window.End();
          Retire(*entry);
          result.ended = true;
        }
      }
      return result;
    }
    Retired* retired = FindRetired(stream_id, channel);
    if (retired != nullptr) {
      result = retired->window.CheckMarker(next_sequence, limits_);
      if (result.verdict == SequenceVerdict::kAccept && end) {
        retired->window.End();
        result.ended = true;
      }
      return result;
    }
    result.ended = end;
    return result;
  }

  /// @brief The window of (stream_id, channel), followed or retired; nullptr when neither.
  const SequenceWindow* WindowOf(uint64_t stream_id, Channel channel) const noexcept {
    for (const Entry& entry : entries_) {
      if (entry.used && entry.stream_id == stream_id && entry.channel == channel) {
        return &entry.window;
      }
    }
    for (const Retired& record : retired_) {
      if (record.used && record.stream_id == stream_id && record.channel == channel) {
        return &record.window;
      }
    }
    return nullptr;
  }

  /// @brief The state of (stream_id, channel): kNew when neither followed nor retired.
  StreamState StateOf(uint64_t stream_id, Channel channel) const noexcept {
    const SequenceWindow* window = WindowOf(stream_id, channel);
    return window != nullptr ? window->State() : StreamState::kNew;
  }

  /// @brief True when (stream_id, channel) is followed (not retired, not forgotten).
  bool Follows(uint64_t stream_id, Channel channel) const noexcept {
    for (const Entry& entry : entries_) {
      if (entry.used && entry.stream_id == stream_id && entry.channel == channel) {
        return true;
      }
    }
    return false;
  }

 private:
  struct Entry {
    SequenceWindow window;
    uint64_t stream_id = 0U;
    uint64_t last_accepted = 0U;  // clock_ at its last accepted frame
    uint32_t accepted = 0U;       // frames accepted while followed, up to kEstablished
    Channel channel = Channel::kNormal;
    bool established = false;  // had kEstablished frames accepted
    bool used = false;
  };
  struct Retired {
    SequenceWindow window;
    uint64_t stream_id = 0U;
    Channel channel = Channel::kNormal;
    bool established = false;
    bool used = false;
  };

  static constexpr uint32_t kEstablished = 2U;

  Entry* FindActive(uint64_t stream_id, Channel channel) noexcept {
    for (Entry& entry : entries_) {
      if (entry.used && entry.stream_id == stream_id && entry.channel == channel) {
        return &entry;
      }
    }
    return nullptr;
  }

  Retired* FindRetired(uint64_t stream_id, Channel channel) noexcept {
    for (Retired& record : retired_) {
      if (record.used && record.stream_id == stream_id && record.channel == channel) {
        return &record;
      }
    }
    return nullptr;
  }

  static void Refresh(Entry& entry, uint64_t now) noexcept {
    entry.last_accepted = now;
    if (!entry.established && ++entry.accepted >= kEstablished) {
      entry.established = true;
    }
  }

  /// A free entry, or the one that goes: newcomers before established streams, then the least
  /// recently accepted. The one that goes is retired, not forgotten.
  Entry& Admit(uint64_t stream_id, Channel channel, bool& evicted) noexcept {
    Entry* victim = nullptr;
    for (Entry& entry : entries_) {
      if (!entry.used) {
        victim = &entry;
        break;
      }
      if (victim == nullptr || (victim->established && !entry.established) ||
          (victim->established == entry.established &&
           entry.last_accepted < victim->last_accepted)) {
        victim = &entry;
      }
    }
    evicted = victim->used;
    if (victim->used) {
      Retire(*victim);
    }
    *victim = Entry{};
    victim->used = true;
    victim->stream_id = stream_id;
    victim->channel = channel;
    return *victim;
  }

  /// Moves `entry` to the retired ring (its oldest record goes) and frees it.
  void Retire(Entry& entry) noexcept {
    Retired& record = retired_[next_retired_];
    next_retired_ = (next_retired_ + 1U) % kRetired;
    record.window = entry.window;
    record.stream_id = entry.stream_id;
    record.channel = entry.channel;
    record.established = entry.established;
    record.used = true;
    entry = Entry{};
  }

  std::array<Entry, kStreams> entries_{};
  std::array<Retired, kRetired> retired_{};
  SequenceLimits limits_;
  uint64_t clock_ = 0U;
  std::size_t next_retired_ = 0U;
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_SEQUENCE_CHECK_HPP_
