// SPDX-License-Identifier: MIT
/// @file statistics.hpp
/// @brief Bridge counters and fault reports.
///
/// Every counter has one writing thread (the exporting bus's consumer thread, the exporter's
/// sender thread, or the importer's receiver thread), so counting is a plain load and store of a
/// relaxed atomic: no read-modify-write, no shared line with another writer. Snapshots read the
/// fields one by one (exact per field, not atomic across fields).
///
/// Identities the tests check, per priority p:
/// - exporter: messages its subscription received = sent[p] + refused[p] (+ filtered);
/// - importer, per stream: next expected number = accepted + lost + missed_at_join +
///   skipped_at_resync, where the accepted frames are delivered + refused_by_bus (per priority) +
///   not_imported;
/// - every received frame is counted exactly once as accepted, repeated, reordered,
///   out_of_window, after_end, corrupted, unsupported_version, wrong_schema, malformed,
///   not_imported or a heartbeat/end-of-stream (markers_received).
#ifndef MCCC_BRIDGE_STATISTICS_HPP_
#define MCCC_BRIDGE_STATISTICS_HPP_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "mccc/bridge/channel.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace bridge {

/// @brief Exporter counters (a snapshot).
struct ExporterStatistics {
  /// Admitted to the send queue, given a sequence number and (unless dropped at stop) sent.
  std::array<uint64_t, kPriorityCount> sent{};
  /// Refused by admission in front of the transport (LOW first), or too large for the queue.
  std::array<uint64_t, kPriorityCount> refused{};
  /// Of `refused`: frames larger than the send queue can hold.
  uint64_t too_large = 0U;
  /// Skipped by the export filter (never sequenced, never sent).
  uint64_t filtered = 0U;
  /// Frames handed to the transport, per channel.
  std::array<uint64_t, kChannelCount> transmitted{};
  /// Transport messages those frames left in, per channel (heartbeats and end-of-stream
  /// frames not included): transmitted / messages is the mean number of frames per message.
  std::array<uint64_t, kChannelCount> messages{};
  /// Admitted frames still queued when Stop's flush time ran out (the importer sees them lost).
  uint64_t dropped_at_stop = 0U;
  /// Frames the transport failed to take for another reason than backpressure (dropped).
  uint64_t transport_errors = 0U;
  /// Peers the transport refused to connect (a binding exporter with an allow-list of keys).
  uint64_t peers_refused = 0U;
  /// Heartbeats and end-of-stream frames sent.
  uint64_t markers_sent = 0U;
  /// Channels whose end-of-stream frame an importer confirmed at Stop: it read every frame of
  /// the stream that the transport took.
  uint64_t ends_confirmed = 0U;
  /// Channels whose end-of-stream frame was not confirmed within stop_confirm_timeout_ms (or
  /// could not be sent): no importer was there, or the link closed with frames still in it,
  /// which the importer may never see.
  uint64_t ends_unconfirmed = 0U;
};

/// @brief Importer counters (a snapshot).
struct ImporterStatistics {
  /// Frames read from the transport's messages (data, heartbeats, bad ones: everything read;
  /// the frames after a corrupted one in the same message cannot be read and are not counted).
  uint64_t frames_received = 0U;
  /// Transport messages taken (each carries one or more frames).
  uint64_t messages_received = 0U;
  /// Peers the transport refused to connect: a client key not in the allow-list
  /// (LinkSecurity::allowed_client_keys; every attempt counts, and ZeroMQ clients retry).
  uint64_t peers_refused = 0U;
  /// Of those, messages that were not one bridge message (more transport parts than an exporter
  /// sends): dropped by the transport part by part, none of their frames read.
  uint64_t refused_messages = 0U;
  /// Passed every check and published into the bus, per priority.
  std::array<uint64_t, kPriorityCount> delivered{};
  /// Passed every check but refused by the bus's admission, per priority.
  std::array<uint64_t, kPriorityCount> refused_by_bus{};
  /// Sequence numbers that never arrived (gaps after the first frame of a stream).
  uint64_t lost = 0U;
  /// Sequence numbers before the first frame seen of a stream (sent before this importer
  /// followed the stream, e.g. while it was restarting).
  uint64_t missed_at_join = 0U;
  /// Copies of frames already accepted.
  uint64_t repeated = 0U;
  /// Frames that arrived after a later one of their stream.
  uint64_t reordered = 0U;
  /// Too short or CRC mismatch.
  uint64_t corrupted = 0U;
  /// Another wire version.
  uint64_t unsupported_version = 0U;
  /// Schema fingerprint differs from this importer's payload variant.
  uint64_t wrong_schema = 0U;
  /// CRC right, content inconsistent: length, priority vs channel, type, or the codec refused.
  uint64_t malformed = 0U;
  /// Valid frames of a type this importer does not import.
  uint64_t not_imported = 0U;
  /// Heartbeats and end-of-stream frames received.
  uint64_t markers_received = 0U;
  /// Streams first seen, and streams closed by their end-of-stream frame.
  uint64_t streams_joined = 0U;
  uint64_t streams_ended = 0U;
  /// End-of-stream frames confirmed back to their exporter (see ExporterStatistics).
  uint64_t ends_confirmed = 0U;
  /// Streams retired because the stream table was full (their record is kept, see
  /// BridgeTraitsBase::kRetiredStreams).
  uint64_t streams_evicted = 0U;
  /// Retired streams followed again from their record (a data frame of theirs came back).
  uint64_t streams_restored = 0U;
  /// Frames (data or markers) whose sequence number lies beyond the receiver window
  /// (SequenceLimits::max_delta) ahead of the next expected one: discarded.
  uint64_t out_of_window = 0U;
  /// Data frames of a stream after its end-of-stream frame (a replay, or a broken peer):
  /// discarded.
  uint64_t after_end = 0U;
  /// Times a stream was followed anew after SequenceLimits::resync_frames consecutive data
  /// frames beyond the window.
  uint64_t resynchronised = 0U;
  /// Sequence numbers those resynchronisations passed over (the run's discarded frames
  /// included).
  uint64_t skipped_at_resync = 0U;
};

/// @brief What an importer found wrong (or missing).
enum class ImportFault : uint8_t {
  kLost = 0U,                ///< Sequence numbers skipped (count: how many).
  kMissedAtJoin = 1U,        ///< Joined a stream after its start (count: numbers before).
  kRepeated = 2U,            ///< A copy of an accepted frame, discarded.
  kReordered = 3U,           ///< A frame after a later one of its stream, discarded.
  kCorrupted = 4U,           ///< CRC mismatch or too short, discarded.
  kUnsupportedVersion = 5U,  ///< Another wire version, discarded.
  kWrongSchema = 6U,         ///< Another payload variant, discarded.
  kMalformed = 7U,           ///< Inconsistent content, discarded.
  kOutOfWindow = 8U,         ///< Sequence number too far ahead of the stream, discarded.
  kResynchronised = 9U,      ///< Stream followed anew after a jump (count: numbers passed over).
  kAfterEnd = 10U,           ///< Data frame of an ended stream, discarded.
};

/// @brief A fault as given to the importer's fault handler.
struct FaultReport {
  ImportFault fault = ImportFault::kLost;  ///< What.
  Channel channel = Channel::kNormal;      ///< Where it arrived.
  uint64_t stream_id = 0U;                 ///< Stream (0 when the header could not be trusted).
  uint64_t sequence = 0U;                  ///< Frame number, or the first missing one.
  uint64_t count = 1U;                     ///< Numbers lost / missed; 1 otherwise.
  uint64_t expected_schema = 0U;           ///< kWrongSchema: this importer's fingerprint.
  uint64_t received_schema = 0U;           ///< kWrongSchema: the frame's fingerprint.
};

/// @brief Called on the importer's receiver thread for every fault (keep it quick).
using FaultHandler = void (*)(const FaultReport& report, void* context);

/// @brief A sentence saying what the fault means and what to look at.
constexpr const char* Describe(ImportFault fault) noexcept {
  switch (fault) {
    case ImportFault::kLost:
      return "messages lost: sequence numbers of the stream never arrived";
    case ImportFault::kMissedAtJoin:
      return "joined a stream after its start: earlier messages were not received here";
    case ImportFault::kRepeated:
      return "repeated frame discarded: its sequence number was already delivered";
    case ImportFault::kReordered:
      return "reordered frame discarded: it arrived after a later frame of its stream";
    case ImportFault::kCorrupted:
      return "corrupted frame discarded: CRC-32C mismatch or truncated frame";
    case ImportFault::kUnsupportedVersion:
      return "frame of another bridge wire version discarded";
    case ImportFault::kWrongSchema:
      return "schema mismatch: the exporter's payload variant differs from this importer's "
             "(alternative names, sizes, alignment, order or byte order); frame refused";
    case ImportFault::kMalformed:
      return "malformed frame discarded: length, priority, type or codec check failed";
    case ImportFault::kOutOfWindow:
      return "frame discarded: its sequence number jumps beyond the receiver window "
             "(max_delta) ahead of its stream";
    case ImportFault::kResynchronised:
      return "stream resynchronised after consecutive frames beyond the receiver window: the "
             "sequence numbers passed over were not received";
    case ImportFault::kAfterEnd:
      return "frame discarded: its stream has already ended (a replay or a broken peer)";
  }
  return "unknown bridge fault";
}

namespace detail {

/// A counter with one writing thread: load + store, never a read-modify-write.
class OwnedCounter {
 public:
  void Add(uint64_t n = 1U) noexcept {
    // relaxed: only the owning thread writes; readers want a recent value, nothing more.
    value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t Load() const noexcept {
    // relaxed: a statistic; no other data is read on its strength.
    return value_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> value_{0U};
};

/// True when a transport's link (Sender, Receiver) counts the peers it refused.
template <typename Link, typename = void>
struct CountsRefusedPeers : std::false_type {};
template <typename Link>
struct CountsRefusedPeers<
    Link, std::void_t<decltype(static_cast<uint64_t>(std::declval<const Link&>().RefusedPeers()))>>
    : std::true_type {};

/// Moves a link's count of refused peers into `counter` (by the difference since `seen`).
template <typename Link>
void CollectRefusedPeers(const Link& link, uint64_t& seen, OwnedCounter& counter) noexcept {
  if constexpr (CountsRefusedPeers<Link>::value) {
    const uint64_t now = link.RefusedPeers();
    if (now > seen) {
      counter.Add(now - seen);
      seen = now;
    }
  } else {
    static_cast<void>(link);
    static_cast<void>(seen);
    static_cast<void>(counter);
  }
}

}  // namespace detail
}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_STATISTICS_HPP_
