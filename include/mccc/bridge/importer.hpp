// SPDX-License-Identifier: MIT
/// @file importer.hpp
/// @brief `BasicImporter`: receives frames from other processes, checks them and publishes the
/// good ones into the local bus with their original priority, sender id and timestamp.
///
/// A receiver thread takes messages from the transport, the HIGH channel first (all of it, then
/// one LOW/MEDIUM message, at most Traits::kNormalBurst frames from an exporter with the same
/// traits, before looking at HIGH again), and reads the frames of each message in order
/// (wire_format.hpp). Each frame passes, in this order: length and CRC-32C (corrupted; the rest
/// of its message is not read, since its end cannot be trusted), magic and version (unsupported
/// version / malformed), schema fingerprint (wrong schema: refused at the first frame), priority
/// against channel and type range (malformed), decoding by Codec<T> (malformed), and the sequence
/// check of its stream (lost, missed at join, repeated, reordered, out of window, after end:
/// sequence_check.hpp). Only a frame that passed all of them is published (PublishFast with the
/// original timestamp), and the bus's admission decides; its refusals are counted per priority (the
/// bus also reports them as kQueueFull). Every fault is counted, given to the fault handler if one
/// is set, and reported to the bus's error callback (kBridgeSchemaMismatch, or kBridgeReceiveFault
/// with the frame's sequence number). Each end-of-stream frame read is confirmed back to its
/// exporter, which closes its link only then (exporter.hpp).
///
/// The transport (Traits::Transport) provides `Receiver(Context&, const ChannelEndpoints&,
/// EndpointMode, const TransportOptions&)` with `bool Ok()`, `const std::string& Error()`,
/// `bool TryReceive(Channel, const uint8_t** data, std::size_t* size)` (a message of one or more
/// frames, valid until the next TryReceive of that channel; data nullptr for a message that is
/// not one bridge message, e.g. one of more parts than an exporter sends, which the transport
/// has dropped), `SendStatus Reply(Channel,
/// const uint8_t*, std::size_t)` (to the peer that sent the last frame taken from that channel),
/// `void Wait(int timeout_ms)` (until a frame may be there or Wake() is called), `void Wake()` (any
/// thread) and `std::string BoundEndpoint(Channel)`.
/// Thread-safety: Start, Stop and the destructor from one controlling thread; GetStatistics from
/// any thread.
#ifndef MCCC_BRIDGE_IMPORTER_HPP_
#define MCCC_BRIDGE_IMPORTER_HPP_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <variant>

#include "mccc/bridge/channel.hpp"
#include "mccc/bridge/codec.hpp"
#include "mccc/bridge/schema.hpp"
#include "mccc/bridge/sequence_check.hpp"
#include "mccc/bridge/statistics.hpp"
#include "mccc/bridge/traits.hpp"
#include "mccc/bridge/wire_format.hpp"
#include "mccc/config.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace bridge {

/// @brief Run-time settings of an importer.
struct ImporterOptions {
  /// Where the two channels are.
  ChannelEndpoints endpoints;
  /// Bind (default: exporters connect) or connect.
  EndpointMode mode = EndpointMode::kBind;
  /// High-water mark, linger, reconnect interval, largest frame.
  TransportOptions transport;
  /// The receiver window of every stream: the largest sequence step believed, and how many
  /// frames in a row beyond it make the importer follow a stream from there
  /// (sequence_check.hpp).
  SequenceLimits sequence;
  /// Optional: called on the receiver thread for every fault, with `fault_context`.
  FaultHandler fault_handler = nullptr;
  /// Passed to fault_handler.
  void* fault_context = nullptr;
};

/// @brief Imports the `Selection` (Types<...> or AllTypes) of `Bus`'s payload variant.
template <typename Bus, typename Selection, typename Traits>
class BasicImporter {
 public:
  using Payload = typename Bus::Payload;                       ///< The bus's variant.
  using Transport = typename Traits::Transport;                ///< The transport.
  using Context = typename Transport::Context;                 ///< Its context.
  using Selected = detail::SelectedTypes<Selection, Payload>;  ///< Types<...> imported.
  /// The schema fingerprint every frame must carry.
  static constexpr uint64_t kSchema = kSchemaFingerprint<Payload>;

  /// @brief An importer into `bus` (not started). `bus` and `context` must outlive it.
  BasicImporter(Bus& bus, Context& context, ImporterOptions options)
      : bus_(bus), context_(context), options_(std::move(options)) {}

  BasicImporter(const BasicImporter&) = delete;
  BasicImporter& operator=(const BasicImporter&) = delete;
  BasicImporter(BasicImporter&&) = delete;
  BasicImporter& operator=(BasicImporter&&) = delete;

  /// @brief Stops (see Stop).
  ~BasicImporter() { Stop(); }

  /// @brief Opens the link and starts the receiver thread. Returns false, with LastError(), if
  /// the transport could not open the endpoints. The streams followed, like the counters, carry
  /// over from one Start to the next: a stream that went on while the importer was stopped
  /// shows its gap as lost (not as missed at join, which would also count again the frames
  /// already delivered before the Stop), and its repeats stay refused.
  bool Start() {
    if (running_) {
      return true;
    }
    auto receiver = std::make_unique<typename Transport::Receiver>(
        context_, options_.endpoints, options_.mode, options_.transport);
    if (!receiver->Ok()) {
      last_error_ = receiver->Error();
      return false;
    }
    receiver_ = std::move(receiver);
    if (!streams_) {
      streams_ = std::make_unique<Streams>(options_.sequence);
    }
    // relaxed: the thread is not running yet; its creation publishes the store.
    stop_requested_.store(false, std::memory_order_relaxed);
    thread_ = std::thread([this]() noexcept { ReceiveLoop(); });
    running_ = true;
    return true;
  }

  /// @brief Stops the receiver thread and closes the link (frames not yet taken from the
  /// transport are left to it). Idempotent. Returns once the receiver thread has finished the
  /// transport message it is reading, whatever the peers keep sending: the thread looks at the
  /// stop request before it takes each message, so the wait is bounded by the checks of one
  /// message (at most TransportOptions::max_frame_bytes bytes) and the fault handler's calls
  /// for it.
  void Stop() noexcept {
    if (!running_) {
      return;
    }
    // release: pairs with the receiver thread's acquire load.
    stop_requested_.store(true, std::memory_order_release);
    receiver_->Wake();
    thread_.join();
    receiver_.reset();
    running_ = false;
  }

  /// @brief Counters (see ImporterStatistics). Thread-safe.
  ImporterStatistics GetStatistics() const noexcept {
    ImporterStatistics s;
    s.frames_received = frames_received_.Load();
    s.messages_received = messages_received_.Load();
    s.refused_messages = refused_messages_.Load();
    s.peers_refused = peers_refused_.Load();
    for (std::size_t p = 0U; p < kPriorityCount; ++p) {
      s.delivered[p] = delivered_[p].Load();
      s.refused_by_bus[p] = refused_by_bus_[p].Load();
    }
    s.lost = lost_.Load();
    s.missed_at_join = missed_at_join_.Load();
    s.repeated = repeated_.Load();
    s.reordered = reordered_.Load();
    s.corrupted = corrupted_.Load();
    s.unsupported_version = unsupported_version_.Load();
    s.wrong_schema = wrong_schema_.Load();
    s.malformed = malformed_.Load();
    s.not_imported = not_imported_.Load();
    s.markers_received = markers_received_.Load();
    s.streams_joined = streams_joined_.Load();
    s.streams_ended = streams_ended_.Load();
    s.ends_confirmed = ends_confirmed_.Load();
    s.streams_evicted = streams_evicted_.Load();
    s.streams_restored = streams_restored_.Load();
    s.out_of_window = out_of_window_.Load();
    s.after_end = after_end_.Load();
    s.resynchronised = resynchronised_.Load();
    s.skipped_at_resync = skipped_at_resync_.Load();
    return s;
  }

  /// @brief The endpoint the transport bound (e.g. the port chosen for "tcp://127.0.0.1:*").
  std::string BoundEndpoint(Channel channel) const {
    return receiver_ ? receiver_->BoundEndpoint(channel) : std::string();
  }

  /// @brief Why the last Start failed.
  const std::string& LastError() const noexcept { return last_error_; }

  /// @brief True between a successful Start and Stop.
  bool Running() const noexcept { return running_; }

 private:
  using Streams = StreamTable<Traits::kMaxStreams, Traits::kRetiredStreams>;
  using Handler = void (BasicImporter::*)(Channel, const FrameHeader&, const uint8_t*);
  static constexpr std::size_t kAlternatives = std::variant_size_v<Payload>;

  template <std::size_t... kIndex>
  static constexpr std::array<Handler, kAlternatives> MakeHandlers(
      std::index_sequence<kIndex...> /*indices*/) noexcept {
    return {{HandlerFor<kIndex>()...}};
  }

  template <std::size_t kIndex>
  static constexpr Handler HandlerFor() noexcept {
    using Alternative = std::variant_alternative_t<kIndex, Payload>;
    using T = mccc::detail::SubscribedType<Alternative>;
    if constexpr (!detail::IsSelected<Alternative, Selected>::value) {
      return &BasicImporter::NotImported;
    } else if constexpr (mccc::detail::LoanedTraits<Alternative>::kIsLoaned) {
      static_assert(detail::CheckDecoder<T>(), "");
      return &BasicImporter::template ImportLoaned<T>;
    } else {
      static_assert(detail::CheckDecoder<T>(), "");
      return &BasicImporter::template Import<T>;
    }
  }

  static constexpr std::array<Handler, kAlternatives> kHandlers =
      MakeHandlers(std::make_index_sequence<kAlternatives>{});

  bool StopRequested() const noexcept {
    // acquire: pairs with Stop's release store.
    return stop_requested_.load(std::memory_order_acquire);
  }

  void ReceiveLoop() noexcept {
    const uint8_t* data = nullptr;
    std::size_t size = 0U;
    uint64_t refused_seen = 0U;
    while (!StopRequested()) {
      detail::CollectRefusedPeers(*receiver_, refused_seen, peers_refused_);
      bool progressed = false;
      // The stop request is looked at after every message, not only when the link is idle: a
      // peer that never lets the HIGH channel run dry must not keep Stop waiting.
      while (!StopRequested() && receiver_->TryReceive(Channel::kHigh, &data, &size)) {
        HandleMessage(Channel::kHigh, data, size);
        progressed = true;
      }
      if (!StopRequested() && receiver_->TryReceive(Channel::kNormal, &data, &size)) {
        HandleMessage(Channel::kNormal, data, size);
        progressed = true;
      }
      if (!progressed && !StopRequested()) {
        receiver_->Wait(100);
      }
    }
    detail::CollectRefusedPeers(*receiver_, refused_seen, peers_refused_);
  }

  /// The frames of one transport message, in order, up to the first corrupted one.
  void HandleMessage(Channel channel, const uint8_t* message, std::size_t size) noexcept {
    messages_received_.Add();
    if (message == nullptr) {
      // Not one bridge message (more parts than an exporter sends): dropped unread.
      refused_messages_.Add();
      Report(ImportFault::kMalformed, channel, 0U, 0U, 1U);
      return;
    }
    std::size_t offset = 0U;
    do {
      std::size_t frame_bytes = 0U;
      if (!HandleFrame(channel, message + offset, size - offset, frame_bytes)) {
        return;  // the frame's end, and so the next frame's start, is unknown
      }
      offset += frame_bytes;
    } while (offset < size);
  }

  /// Checks and handles the frame at `frame` (`available` bytes left in its message) and sets
  /// `frame_bytes` to its size. False when it is corrupted: its end is unknown.
  bool HandleFrame(Channel channel, const uint8_t* frame, std::size_t available,
                   std::size_t& frame_bytes) noexcept {
    frames_received_.Add();
    FrameHeader header;
    switch (ParseFrameAt(frame, available, header, frame_bytes)) {
      case FrameCheck::kOk:
        break;
      case FrameCheck::kCorrupted:
        corrupted_.Add();
        Report(ImportFault::kCorrupted, channel, 0U, 0U, 1U);
        return false;
      case FrameCheck::kUnsupportedVersion:
        unsupported_version_.Add();
        Report(ImportFault::kUnsupportedVersion, channel, 0U, 0U, 1U);
        return true;
      case FrameCheck::kMalformed:
        malformed_.Add();
        Report(ImportFault::kMalformed, channel, 0U, 0U, 1U);
        return true;
    }
    HandleCheckedFrame(channel, header, frame);
    return true;
  }

  /// A frame whose CRC, magic and version are right.
  void HandleCheckedFrame(Channel channel, const FrameHeader& header,
                          const uint8_t* frame) noexcept {
    if (header.schema != kSchema) {
      wrong_schema_.Add();
      FaultReport report =
          MakeReport(ImportFault::kWrongSchema, channel, header.stream_id, header.sequence, 1U);
      report.expected_schema = kSchema;
      report.received_schema = header.schema;
      Deliver(report);
      if (header.type == kEndOfStreamType && header.payload_bytes == 0U) {
        ConfirmEnd(channel, header);  // refused, but read: its exporter may close the link
      }
      return;
    }
    if (header.type == kHeartbeatType || header.type == kEndOfStreamType) {
      HandleMarker(channel, header);
      return;
    }
    if (header.priority >= kPriorityCount ||
        ChannelOf(static_cast<MessagePriority>(header.priority)) != channel ||
        header.type >= kAlternatives) {
      malformed_.Add();
      Report(ImportFault::kMalformed, channel, header.stream_id, header.sequence, 1U);
      return;
    }
    (this->*kHandlers[header.type])(channel, header, frame + kFrameHeaderBytes);
  }

  void HandleMarker(Channel channel, const FrameHeader& header) noexcept {
    if (header.payload_bytes != 0U) {
      malformed_.Add();
      Report(ImportFault::kMalformed, channel, header.stream_id, header.sequence, 1U);
      return;
    }
    const bool end = header.type == kEndOfStreamType;
    const SequenceResult result =
        streams_->CheckMarker(header.stream_id, channel, header.sequence, end);
    if (result.verdict == SequenceVerdict::kOutOfWindow) {
      // Not believed: neither its gap nor its end counts (an exporter whose end this is counts
      // it as unconfirmed).
      out_of_window_.Add();
      Report(ImportFault::kOutOfWindow, channel, header.stream_id, header.sequence, 1U);
      return;
    }
    markers_received_.Add();
    // A marker carries no message: only the gaps it reveals count, not its verdict.
    static_cast<void>(Account(channel, header.stream_id, result));
    if (end) {
      if (result.ended) {
        streams_ended_.Add();
      }
      ConfirmEnd(channel, header);  // again for a repeated end: its first confirmation may be lost
    }
  }

  /// Sends an end-of-stream frame back to its exporter as the confirmation that every frame of
  /// the stream before it has been read: the exporter may now close the link without loss.
  void ConfirmEnd(Channel channel, FrameHeader header) noexcept {
    header.type = kEndConfirmedType;
    std::array<uint8_t, kFrameHeaderBytes> reply{};
    EncodeHeader(header, reply.data());
    SealFrame(reply.data(), reply.size());
    if (receiver_->Reply(channel, reply.data(), reply.size()) == SendStatus::kSent) {
      ends_confirmed_.Add();
    }
  }

  /// Counts and reports what a sequence check found; true when the frame is to be accepted.
  bool Account(Channel channel, uint64_t stream_id, const SequenceResult& result) noexcept {
    if (result.joined) {
      streams_joined_.Add();
    }
    if (result.restored) {
      streams_restored_.Add();
    }
    if (result.evicted) {
      streams_evicted_.Add();
    }
    if (result.resynchronised) {
      resynchronised_.Add();
      skipped_at_resync_.Add(result.skipped_at_resync);
      Report(ImportFault::kResynchronised, channel, stream_id, result.first_missing,
             result.skipped_at_resync);
    }
    if (result.missed_at_join != 0U) {
      missed_at_join_.Add(result.missed_at_join);
      Report(ImportFault::kMissedAtJoin, channel, stream_id, 0U, result.missed_at_join);
    }
    if (result.lost != 0U) {
      lost_.Add(result.lost);
      Report(ImportFault::kLost, channel, stream_id, result.first_missing, result.lost);
    }
    return result.verdict == SequenceVerdict::kAccept;
  }

  /// A data frame of an imported type: decode, sequence check, publish.
  template <typename T>
  void Import(Channel channel, const FrameHeader& header, const uint8_t* payload) noexcept {
    T value{};
    if (!DecodeGuarded(payload, header.payload_bytes, value)) {
      malformed_.Add();
      Report(ImportFault::kMalformed, channel, header.stream_id, header.sequence, 1U);
      return;
    }
    if (!CheckSequence(channel, header)) {
      return;
    }
    const auto priority = static_cast<MessagePriority>(header.priority);
    if (bus_.PublishFast(std::move(value), header.sender_id, header.timestamp_us, priority)) {
      delivered_[header.priority].Add();
    } else {
      refused_by_bus_[header.priority].Add();
    }
  }

  /// A data frame of a type that travels by loan in this bus (Loaned<T>): decoded straight into
  /// a block of T's pool, then the loan is published. A pool that refuses the block (LOW first,
  /// a reserve kept for HIGH: LoanAdmission) refuses the message as a full queue would: the
  /// frame still takes its sequence number (it is not lost, and its bytes are not decoded) and
  /// counts in refused_by_bus; the bus counts and reports the refusal as kLoanRefused.
  template <typename T>
  void ImportLoaned(Channel channel, const FrameHeader& header, const uint8_t* payload) noexcept {
    const auto priority = static_cast<MessagePriority>(header.priority);
    MessageLoan<T> loan = bus_.template Loan<T>(priority);
    if (!loan) {
      // Judged as if there were a block: a frame that would not decode is malformed (and not a
      // member of its stream), not a refusal of the bus.
      if (!DecodesIntoScratch<T>(payload, header.payload_bytes)) {
        malformed_.Add();
        Report(ImportFault::kMalformed, channel, header.stream_id, header.sequence, 1U);
        return;
      }
      if (CheckSequence(channel, header)) {
        refused_by_bus_[header.priority].Add();
      }
      return;
    }
    if (!DecodeGuarded(payload, header.payload_bytes, *loan)) {
      malformed_.Add();
      Report(ImportFault::kMalformed, channel, header.stream_id, header.sequence, 1U);
      return;  // the loan's destructor returns the block
    }
    if (!CheckSequence(channel, header)) {
      return;
    }
    if (bus_.PublishFast(std::move(loan), header.sender_id, header.timestamp_us, priority)) {
      delivered_[header.priority].Add();
    } else {
      refused_by_bus_[header.priority].Add();
    }
  }

  /// A valid data frame of a type this importer does not import: it still takes its sequence
  /// number (so that it is not later seen as lost), then it is counted and dropped.
  void NotImported(Channel channel, const FrameHeader& header,
                   const uint8_t* /*payload*/) noexcept {
    if (CheckSequence(channel, header)) {
      not_imported_.Add();
    }
  }

  /// The sequence check of a data frame that decoded (a frame that did not is never a member of
  /// its stream); true when it is to be accepted.
  bool CheckSequence(Channel channel, const FrameHeader& header) noexcept {
    const SequenceResult result = streams_->CheckData(header.stream_id, channel, header.sequence);
    switch (result.verdict) {
      case SequenceVerdict::kAccept:
        break;  // Account below counts any gap it revealed
      case SequenceVerdict::kRepeated:
        repeated_.Add();
        Report(ImportFault::kRepeated, channel, header.stream_id, header.sequence, 1U);
        break;
      case SequenceVerdict::kReordered:
        reordered_.Add();
        Report(ImportFault::kReordered, channel, header.stream_id, header.sequence, 1U);
        break;
      case SequenceVerdict::kOutOfWindow:
        out_of_window_.Add();
        Report(ImportFault::kOutOfWindow, channel, header.stream_id, header.sequence, 1U);
        break;
      case SequenceVerdict::kAfterEnd:
        after_end_.Add();
        Report(ImportFault::kAfterEnd, channel, header.stream_id, header.sequence, 1U);
        break;
    }
    return Account(channel, header.stream_id, result);
  }

  /// Whether the payload decodes as a T, into a T allocated for the check (the path of a
  /// refusing pool only; a T of a loan pool may be too large for the thread's stack). An
  /// allocation that fails leaves the frame unjudged: taken as decodable.
  template <typename T>
  static bool DecodesIntoScratch(const uint8_t* payload, std::size_t size) noexcept {
    const std::unique_ptr<T> scratch(new (std::nothrow) T());
    return scratch == nullptr || DecodeGuarded(payload, size, *scratch);
  }

  template <typename T>
  static bool DecodeGuarded(const uint8_t* payload, std::size_t size, T& value) noexcept {
#if MCCC_HAS_EXCEPTIONS
    try {
      return Codec<T>::Decode(payload, size, value);
    } catch (...) {
      return false;  // e.g. an allocation failed: the frame cannot be delivered
    }
#else
    return Codec<T>::Decode(payload, size, value);
#endif
  }

  static FaultReport MakeReport(ImportFault fault, Channel channel, uint64_t stream_id,
                                uint64_t sequence, uint64_t count) noexcept {
    FaultReport report;
    report.fault = fault;
    report.channel = channel;
    report.stream_id = stream_id;
    report.sequence = sequence;
    report.count = count;
    return report;
  }

  void Report(ImportFault fault, Channel channel, uint64_t stream_id, uint64_t sequence,
              uint64_t count) const noexcept {
    Deliver(MakeReport(fault, channel, stream_id, sequence, count));
  }

  void Deliver(const FaultReport& report) const noexcept {
    if (options_.fault_handler != nullptr) {
      options_.fault_handler(report, options_.fault_context);
    }
    if (bus_.GetPerformanceMode() == PerformanceMode::kBareMetal) {
      return;
    }
    const ErrorCallback callback = bus_.GetErrorCallback();
    if (callback != nullptr) {
      callback(report.fault == ImportFault::kWrongSchema ? BusError::kBridgeSchemaMismatch
                                                         : BusError::kBridgeReceiveFault,
               report.sequence);
    }
  }

  Bus& bus_;
  Context& context_;
  const ImporterOptions options_;
  std::unique_ptr<typename Transport::Receiver> receiver_;
  std::unique_ptr<Streams> streams_;
  std::thread thread_;
  std::string last_error_;
  bool running_ = false;
  std::atomic<bool> stop_requested_{false};

  // Written by the receiver thread only.
  alignas(64) detail::OwnedCounter frames_received_;
  detail::OwnedCounter messages_received_;
  detail::OwnedCounter refused_messages_;
  detail::OwnedCounter peers_refused_;
  std::array<detail::OwnedCounter, kPriorityCount> delivered_{};
  std::array<detail::OwnedCounter, kPriorityCount> refused_by_bus_{};
  detail::OwnedCounter lost_;
  detail::OwnedCounter missed_at_join_;
  detail::OwnedCounter repeated_;
  detail::OwnedCounter reordered_;
  detail::OwnedCounter corrupted_;
  detail::OwnedCounter unsupported_version_;
  detail::OwnedCounter wrong_schema_;
  detail::OwnedCounter malformed_;
  detail::OwnedCounter not_imported_;
  detail::OwnedCounter markers_received_;
  detail::OwnedCounter streams_joined_;
  detail::OwnedCounter streams_ended_;
  detail::OwnedCounter ends_confirmed_;
  detail::OwnedCounter streams_evicted_;
  detail::OwnedCounter streams_restored_;
  detail::OwnedCounter out_of_window_;
  detail::OwnedCounter after_end_;
  detail::OwnedCounter resynchronised_;
  detail::OwnedCounter skipped_at_resync_;
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_IMPORTER_HPP_
