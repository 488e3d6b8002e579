// SPDX-License-Identifier: MIT
/// @file sequence_check.hpp
/// @brief The importer's per-stream sequence check: which frames are new, which repeat an
/// earlier one, which arrive after a later one, and how many sequence numbers never arrived.
///
/// A stream is (stream id, channel); its data frames carry 0, 1, 2, ... The check keeps the next
/// expected number and a 64-frame window of the numbers already accepted below it:
/// - n >= expected: accepted; n - expected numbers are missing (lost), expected = n + 1;
/// - n < expected and n was accepted (in the window): repeated, discarded;
/// - n < expected otherwise: reordered (it arrived after a later frame, which already counted it
///   as lost), discarded; marked, so that another copy counts as repeated. Beyond the window a
///   repeat cannot be told from a late frame and counts as reordered.
/// Heartbeats and the end-of-stream frame carry the next data number: numbers below it that
/// never arrived are lost (this finds a lost tail that no later data frame would reveal).
/// The first frame of a stream this check has not seen starts it: numbers before it are counted
/// as missed at join (they may have been sent before this importer started), not as lost.
#ifndef MCCC_BRIDGE_SEQUENCE_CHECK_HPP_
#define MCCC_BRIDGE_SEQUENCE_CHECK_HPP_

#include <array>
#include <cstddef>
#include <cstdint>

#include "mccc/bridge/channel.hpp"

namespace mccc {
namespace bridge {

/// @brief What the sequence check decided for one data frame.
enum class SequenceVerdict : uint8_t {
  kAccept = 0U,     ///< New: publish it.
  kRepeated = 1U,   ///< Already accepted: discard.
  kReordered = 2U,  ///< Arrived after a later frame: discard.
};

/// @brief The verdict plus the gap it revealed.
struct SequenceResult {
  SequenceVerdict verdict = SequenceVerdict::kAccept;  ///< The decision.
  uint64_t lost = 0U;            ///< Numbers skipped over by this frame (never arrived).
  uint64_t missed_at_join = 0U;  ///< Numbers before the first frame of a newly seen stream.
  uint64_t first_missing = 0U;   ///< The first of the lost (or missed) numbers.
};

/// @brief The state of one stream: next expected number and the acceptance window below it.
class SequenceWindow {
 public:
  /// @brief Judges data frame `sequence`.
  SequenceResult CheckData(uint64_t sequence) noexcept {
    SequenceResult result;
    if (!started_) {
      started_ = true;
      result.missed_at_join = sequence;
      result.first_missing = 0U;
      next_ = sequence + 1U;
      window_ = 1U;
      return result;
    }
    if (sequence >= next_) {
      result.lost = sequence - next_;
      result.first_missing = next_;
      Shift(sequence - next_ + 1U);
      window_ |= 1U;
      next_ = sequence + 1U;
      return result;
    }
    const uint64_t distance = next_ - 1U - sequence;  // 0: the newest accepted
    if (distance < kWindow) {
      const uint64_t bit = uint64_t{1} << distance;
      if ((window_ & bit) != 0U) {
        result.verdict = SequenceVerdict::kRepeated;
      } else {
        result.verdict = SequenceVerdict::kReordered;
        window_ |= bit;
      }
      return result;
    }
    result.verdict = SequenceVerdict::kReordered;
    return result;
  }

  /// @brief A heartbeat or end of stream saying the next data number is `next_sequence`.
  SequenceResult CheckMarker(uint64_t next_sequence) noexcept {
    SequenceResult result;
    if (!started_) {
      started_ = true;
      result.missed_at_join = next_sequence;
      next_ = next_sequence;
      window_ = 0U;
      return result;
    }
    if (next_sequence > next_) {
      result.lost = next_sequence - next_;
      result.first_missing = next_;
      Shift(next_sequence - next_);
      next_ = next_sequence;
    }
    return result;
  }

  /// @brief The next number expected.
  uint64_t Next() const noexcept { return next_; }
  /// @brief True once a frame of the stream was seen.
  bool Started() const noexcept { return started_; }

 private:
  static constexpr uint64_t kWindow = 64U;

  void Shift(uint64_t by) noexcept { window_ = by >= kWindow ? 0U : window_ << by; }

  uint64_t next_ = 0U;
  uint64_t window_ = 0U;  // bit d: number next_ - 1 - d was accepted (or arrived late)
  bool started_ = false;
};

/// @brief A fixed table of streams, so that one importer can take frames from several exporters
/// (and from an exporter that restarted: a new stream id). When full, the stream seen least
/// recently is forgotten (counted by the importer); if it comes back it is joined anew.
template <std::size_t kStreams>
class StreamTable {
  static_assert(kStreams > 0U, "mccc::bridge: StreamTable needs at least one entry");

 public:
  /// @brief The window of (stream_id, channel); `created` tells whether it was new and `evicted`
  /// whether another stream was forgotten to make room.
  SequenceWindow& Find(uint64_t stream_id, Channel channel, bool& created, bool& evicted) noexcept {
    ++clock_;
    created = false;
    evicted = false;
    Entry* oldest = &entries_[0];
    for (Entry& entry : entries_) {
      if (entry.used && entry.stream_id == stream_id && entry.channel == channel) {
        entry.last_used = clock_;
        return entry.window;
      }
      if (!entry.used) {
        oldest = &entry;
        oldest->last_used = 0U;
      } else if (oldest->used && entry.last_used < oldest->last_used) {
        oldest = &entry;
      } else {
        // Used and more recent than the candidate (or the candidate is free): keep it.
      }
    }
    created = true;
    evicted = oldest->used;
    *oldest = Entry{};
    oldest->used = true;
    oldest->stream_id = stream_id;
    oldest->channel = channel;
    oldest->last_used = clock_;
    return oldest->window;
  }

  /// @brief Forgets (stream_id, channel) after its end-of-stream frame.
  void Forget(uint64_t stream_id, Channel channel) noexcept {
    for (Entry& entry : entries_) {
      if (entry.used && entry.stream_id == stream_id && entry.channel == channel) {
        entry = Entry{};
      }
    }
  }

 private:
  struct Entry {
    SequenceWindow window;
    uint64_t stream_id = 0U;
    uint64_t last_used = 0U;
    Channel channel = Channel::kNormal;
    bool used = false;
  };

  std::array<Entry, kStreams> entries_{};
  uint64_t clock_ = 0U;
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_SEQUENCE_CHECK_HPP_
