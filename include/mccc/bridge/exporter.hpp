// SPDX-License-Identifier: MIT
/// @file exporter.hpp
/// @brief `BasicExporter`: sends selected message types of a local bus to other processes.
///
/// The exporter subscribes to the selected types. Its subscription (on the bus's consumer
/// thread) applies admission by priority to the channel's send queue, encodes the frame in
/// place (header, payload by Codec<T>, CRC-32C) and wakes the sender thread if it sleeps. The
/// sender thread hands the frames waiting in a channel to the transport as one message (at most
/// Traits::kNormalBurst frames and Traits::kMaxMessageBytes bytes; it never waits for more),
/// always the HIGH channel first and one LOW/MEDIUM message between two looks at HIGH, and waits
/// on the transport when a channel is at its high-water mark. Frames keep their order within a
/// channel. Packing only what is already waiting costs an idle link nothing (a lone frame leaves
/// at once, alone) and shares the transport's per-message cost when the link is busy.
///
/// Nothing is dropped uncounted: a message is either sent (sequenced) or refused (counted per
/// priority, reported to the bus's error callback as kBridgeSendRefused with its msg_id). Idle
/// channels carry a heartbeat with the next sequence number, so that an importer also sees a
/// lost tail. Stop sends an end-of-stream frame on each channel and closes the link only once
/// the importer confirmed it (it confirms after reading it, hence everything before it): a
/// transport may discard what is still in a connection when the sender closes it, and then
/// neither side could count it. An end not confirmed in time is counted in ends_unconfirmed.
///
/// The transport (Traits::Transport, e.g. ZmqTransport) provides:
/// - `Context`, created by the user and shared by the links of a process;
/// - `Sender(Context&, const ChannelEndpoints&, EndpointMode, const TransportOptions&)` with
///   `bool Ok()`, `const std::string& Error()`, `SendStatus TrySend(Channel, const uint8_t*,
///   std::size_t)` (one frame), `SendStatus TrySendParts(Channel, const ByteSpan*, std::size_t)`
///   (frames sent as one message, all or none), `void Wait(bool high_writable, bool
///   normal_writable, int timeout_ms)` (until a wanted channel can take a frame, Wake() is called,
///   or the time is up), `bool TryReceiveReply(Channel, const uint8_t**, std::size_t*)` (a frame
///   the importer sent back), `void WaitForReply(bool high, bool normal, int timeout_ms)`, `void
///   Wake()` (any thread) and `std::string BoundEndpoint(Channel)`.
/// Thread-safety: Start, Stop and the destructor from one controlling thread (never from a
/// callback of the bus); GetStatistics and QueuedFrames from any thread.
#ifndef MCCC_BRIDGE_EXPORTER_HPP_
#define MCCC_BRIDGE_EXPORTER_HPP_

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <variant>

#include "mccc/bridge/channel.hpp"
#include "mccc/bridge/codec.hpp"
#include "mccc/bridge/schema.hpp"
#include "mccc/bridge/send_queue.hpp"
#include "mccc/bridge/statistics.hpp"
#include "mccc/bridge/traits.hpp"
#include "mccc/bridge/wire_format.hpp"
#include "mccc/detail/variant_traits.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace bridge {

/// @brief Run-time settings of an exporter.
struct ExporterOptions {
  /// Where the two channels go.
  ChannelEndpoints endpoints;
  /// Connect (default: the importer binds) or bind.
  EndpointMode mode = EndpointMode::kConnect;
  /// High-water mark, linger, reconnect interval.
  TransportOptions transport;
  /// A channel that sent nothing for this long sends a heartbeat (0: never). Heartbeats let an
  /// importer count a lost tail and tell an idle link from a dead one.
  uint32_t heartbeat_interval_ms = 100U;
  /// Stop waits this long for queued frames to be taken by the transport; the rest are counted
  /// as dropped_at_stop (and seen as lost by the importer).
  uint32_t stop_flush_timeout_ms = 1000U;
  /// Stop then waits this long for the importer to confirm each channel's end-of-stream frame,
  /// and closes the link only after that: frames still in a connection when its sending side
  /// closes may be discarded by the transport (ZeroMQ does), and the importer could not count
  /// them. An end not confirmed in time is counted in ends_unconfirmed (0: do not wait).
  uint32_t stop_confirm_timeout_ms = 1000U;
  /// Optional: export only messages for which this returns true (e.g. not the ones an importer
  /// of the same process published, recognisable by their sender id, which avoids loops).
  bool (*filter)(const MessageHeader& header) = nullptr;
};

/// @brief Exports the `Selection` (Types<...> or AllTypes) of `Bus`'s payload variant.
template <typename Bus, typename Selection, typename Traits>
class BasicExporter {
 public:
  using Payload = typename Bus::Payload;                       ///< The bus's variant.
  using Transport = typename Traits::Transport;                ///< The transport.
  using Context = typename Transport::Context;                 ///< Its context.
  using Selected = detail::SelectedTypes<Selection, Payload>;  ///< Types<...> exported.
  /// The schema fingerprint written into every frame.
  static constexpr uint64_t kSchema = kSchemaFingerprint<Payload>;

  static_assert(Traits::kNormalBurst >= 1U,
                "mccc::bridge: kNormalBurst is the most frames in one transport message; use 1 "
                "or more");
  static_assert(std::variant_size_v<Payload> < kEndConfirmedType,
                "mccc::bridge: the payload variant has too many alternatives for the wire format");

  /// @brief An exporter of `bus` (not started). `bus` and `context` must outlive it.
  BasicExporter(Bus& bus, Context& context, ExporterOptions options)
      : bus_(bus), context_(context), options_(std::move(options)) {}

  BasicExporter(const BasicExporter&) = delete;
  BasicExporter& operator=(const BasicExporter&) = delete;
  BasicExporter(BasicExporter&&) = delete;
  BasicExporter& operator=(BasicExporter&&) = delete;

  /// @brief Stops (see Stop).
  ~BasicExporter() { Stop(); }

  /// @brief Opens the link, starts the sender thread and subscribes. A new stream id each time
  /// (sequence numbers start at 0). Returns false, with LastError(), if the transport could not
  /// open the endpoints or a subscription was refused; nothing is left running then.
  bool Start() {
    if (running_) {
      return true;
    }
    auto sender = std::make_unique<typename Transport::Sender>(context_, options_.endpoints,
                                                               options_.mode, options_.transport);
    if (!sender->Ok()) {
      last_error_ = sender->Error();
      return false;
    }
    sender_ = std::move(sender);
    for (auto& queue : queues_) {
      queue = std::make_unique<Queue>();
    }
    next_sequence_ = {};
    stream_id_ = NewStreamId();
    // relaxed: no callback and no sender thread runs yet; thread creation publishes these.
    gate_.store(0U, std::memory_order_relaxed);
    stop_requested_.store(false, std::memory_order_relaxed);
    sender_sleeping_.store(false, std::memory_order_relaxed);
    thread_ = std::thread([this]() noexcept { SenderLoop(); });
    running_ = true;
    if (!SubscribeAll(Selected{})) {
      last_error_ = "a subscription was refused (kMaxCallbacksPerType subscribers already)";
      Stop();
      return false;
    }
    return true;
  }

  /// @brief Unsubscribes (a message being exported at that moment completes), sends what is
  /// queued within stop_flush_timeout_ms (the rest counts as dropped_at_stop), sends an
  /// end-of-stream frame on each channel, waits at most stop_confirm_timeout_ms for the
  /// importer to confirm them (ends_confirmed / ends_unconfirmed) and closes the link.
  /// Idempotent. Returns within stop_flush_timeout_ms + stop_confirm_timeout_ms (plus the time to
  /// hand one message to the transport and to read one reply), whatever the peers do: every wait
  /// and every loop over what a peer sends looks at its deadline.
  void Stop() noexcept {
    if (!running_) {
      return;
    }
    // acq_rel: orders against every callback's gate RMW (one modification order); after it no
    // callback enters the queues.
    static_cast<void>(gate_.fetch_or(kGateClosed, std::memory_order_acq_rel));
    // acquire: pairs with the release decrement in OnMessage; that callback's queue writes are
    // visible before the sender thread is told to finish.
    while (gate_.load(std::memory_order_acquire) != kGateClosed) {
      std::this_thread::yield();
    }
    for (SubscriptionHandle& handle : handles_) {
      if (handle.IsValid()) {
        static_cast<void>(bus_.Unsubscribe(handle));  // forgotten below either way
      }
      handle = kInvalidSubscription;
    }
    // release: pairs with the sender thread's acquire load; it then flushes and ends.
    stop_requested_.store(true, std::memory_order_release);
    sender_->Wake();
    thread_.join();
    sender_.reset();
    running_ = false;
  }

  /// @brief Counters (see ExporterStatistics). Thread-safe.
  ExporterStatistics GetStatistics() const noexcept {
    ExporterStatistics s;
    for (std::size_t p = 0U; p < kPriorityCount; ++p) {
      s.sent[p] = sent_[p].Load();
      s.refused[p] = refused_[p].Load();
    }
    for (std::size_t c = 0U; c < kChannelCount; ++c) {
      s.transmitted[c] = transmitted_[c].Load();
      s.messages[c] = messages_[c].Load();
    }
    s.too_large = too_large_.Load();
    s.filtered = filtered_.Load();
    s.dropped_at_stop = dropped_at_stop_.Load();
    s.transport_errors = transport_errors_.Load();
    s.peers_refused = peers_refused_.Load();
    s.markers_sent = markers_sent_.Load();
    s.ends_confirmed = ends_confirmed_.Load();
    s.ends_unconfirmed = ends_unconfirmed_.Load();
    return s;
  }

  /// @brief Frames of `channel` waiting for the transport (a snapshot; 0 when not running).
  /// Call between Start and Stop, or from the controlling thread.
  uint32_t QueuedFrames(Channel channel) const noexcept {
    const auto& queue = queues_[IndexOf(channel)];
    return queue ? queue->Size() : 0U;
  }

  /// @brief The stream id of the current (or last) start.
  uint64_t StreamId() const noexcept { return stream_id_; }

  /// @brief The endpoint the transport bound (EndpointMode::kBind; e.g. the port of "tcp://*:*").
  std::string BoundEndpoint(Channel channel) const {
    return sender_ ? sender_->BoundEndpoint(channel) : std::string();
  }

  /// @brief Why the last Start failed.
  const std::string& LastError() const noexcept { return last_error_; }

  /// @brief True between a successful Start and Stop.
  bool Running() const noexcept { return running_; }

 private:
  using Queue = SendQueue<Traits::kSendQueueDepth, Traits::kSendQueueBytes>;
  static constexpr uint64_t kGateClosed = uint64_t{1} << 63U;
  static constexpr std::size_t kSelectedCount = detail::SelectionSize<Selected>::value;

  template <typename... Ts>
  bool SubscribeAll(Types<Ts...> selected) {
    return SubscribeInSlots(selected, std::index_sequence_for<Ts...>{});
  }

  // Type i of the selection goes to slot i, in order; the && fold stops at the first refusal.
  template <typename... Ts, std::size_t... kSlots>
  bool SubscribeInSlots(Types<Ts...> /*selected*/, std::index_sequence<kSlots...> /*slots*/) {
    return (SubscribeOne<Ts>(kSlots) && ...);
  }

  // `Alternative` is the variant's alternative; a loaned one (Loaned<T>) is subscribed to, and
  // encoded, as the T in its block.
  template <typename Alternative>
  bool SubscribeOne(std::size_t slot) {
    using T = mccc::detail::SubscribedType<Alternative>;
    static_assert(detail::CheckEncoder<T>(), "");
    handles_[slot] =
        bus_.template Subscribe<T>([this](const T& message, const MessageHeader& header) {
          OnMessage<Alternative>(message, header);
        });
    return handles_[slot].IsValid();
  }

  /// The subscription of every exported type (bus consumer thread).
  template <typename Alternative, typename T>
  void OnMessage(const T& message, const MessageHeader& header) noexcept {
    // acquire: pairs with Stop's fetch_or; a closed gate means the queues may be going away.
    if ((gate_.fetch_add(1U, std::memory_order_acquire) & kGateClosed) == 0U) {
      Export<Alternative>(message, header);
    }
    // release: pairs with Stop's acquire wait; this callback's queue writes happen before.
    static_cast<void>(gate_.fetch_sub(1U, std::memory_order_release));
  }

  template <typename Alternative, typename T>
  void Export(const T& message, const MessageHeader& header) noexcept {
    if (options_.filter != nullptr && !options_.filter(header)) {
      filtered_.Add();
      return;
    }
    const MessagePriority priority = header.priority;
    const auto priority_index = static_cast<std::size_t>(priority);
    const Channel channel = ChannelOf(priority);
    Queue& queue = *queues_[IndexOf(channel)];
    const std::size_t payload_bytes = Codec<T>::EncodedSize(message);
    const std::size_t frame_bytes = kFrameHeaderBytes + payload_bytes;
    uint8_t* frame = nullptr;
    const Reservation reservation =
        frame_bytes > Queue::kMaxFrameBytes
            ? Reservation::kTooLarge
            : queue.TryReserve(priority, static_cast<uint32_t>(frame_bytes), &frame);
    if (reservation != Reservation::kGranted) {
      if (reservation == Reservation::kTooLarge) {
        too_large_.Add();
      }
      refused_[priority_index].Add();
      ReportToBus(BusError::kBridgeSendRefused, header.msg_id);
      return;
    }
    FrameHeader wire_header;
    wire_header.priority = static_cast<uint8_t>(priority);
    wire_header.type =
        static_cast<uint16_t>(mccc::detail::AlternativeIndex<Alternative, Payload>::value);
    wire_header.payload_bytes = static_cast<uint32_t>(payload_bytes);
    wire_header.sender_id = header.sender_id;
    wire_header.schema = kSchema;
    wire_header.stream_id = stream_id_;
    wire_header.sequence = next_sequence_[IndexOf(channel)]++;
    wire_header.timestamp_us = header.timestamp_us;
    EncodeHeader(wire_header, frame);
    Codec<T>::Encode(message, frame + kFrameHeaderBytes);
    SealFrame(frame, frame_bytes);
    queue.Commit(static_cast<uint32_t>(frame_bytes));
    sent_[priority_index].Add();
    // seq_cst: the load after Commit's seq_cst store of the tail (see SendQueue::Commit); the
    // exchange makes one wake-up per sleep, not one per message.
    if (sender_sleeping_.load(std::memory_order_seq_cst) &&
        sender_sleeping_.exchange(false, std::memory_order_seq_cst)) {
      sender_->Wake();
    }
  }

  void ReportToBus(BusError error, uint64_t msg_id) const noexcept {
    if (bus_.GetPerformanceMode() == PerformanceMode::kBareMetal) {
      return;
    }
    const ErrorCallback callback = bus_.GetErrorCallback();
    if (callback != nullptr) {
      callback(error, msg_id);
    }
  }

  static uint64_t NewStreamId() {
    std::random_device device;
    const uint64_t high = device();
    const uint64_t low = device();
    const auto now =
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    const uint64_t id = ((high << 32U) | low) ^ (now * 0x9E3779B97F4A7C15ULL);
    return id == 0U ? 1U : id;
  }

  // ---- sender thread ---------------------------------------------------------------------

  using Clock = std::chrono::steady_clock;

  /// Hands the frames waiting in `channel` to the transport as one message. False when there
  /// is none or the channel is at its high-water mark (then `blocked` is set).
  bool SendRun(Channel channel, bool& blocked) noexcept {
    Queue& queue = *queues_[IndexOf(channel)];
    const std::size_t frames =
        queue.PeekRun(run_.data(), run_.size(), std::size_t{Traits::kMaxMessageBytes});
    if (frames == 0U) {
      return false;
    }
    const SendStatus status = sender_->TrySendParts(channel, run_.data(), frames);
    if (status == SendStatus::kWouldBlock) {
      blocked = true;
      return false;
    }
    if (status == SendStatus::kSent) {
      transmitted_[IndexOf(channel)].Add(frames);
      messages_[IndexOf(channel)].Add();
    } else {
      transport_errors_.Add(frames);
    }
    queue.PopRun();
    last_send_[IndexOf(channel)] = Clock::now();
    return true;
  }

  /// A heartbeat or end-of-stream frame: no payload, the next data sequence number.
  SendStatus SendMarker(Channel channel, uint16_t type) noexcept {
    std::array<uint8_t, kFrameHeaderBytes> frame{};
    FrameHeader header;
    header.priority = static_cast<uint8_t>(channel == Channel::kHigh ? MessagePriority::kHigh
                                                                     : MessagePriority::kMedium);
    header.type = type;
    header.schema = kSchema;
    header.stream_id = stream_id_;
    // Every frame popped so far was sent (or counted dropped): the next number is their count.
    header.sequence = queues_[IndexOf(channel)]->PoppedByConsumer();
    EncodeHeader(header, frame.data());
    SealFrame(frame.data(), frame.size());
    const SendStatus status = sender_->TrySend(channel, frame.data(), frame.size());
    if (status == SendStatus::kSent) {
      markers_sent_.Add();
      last_send_[IndexOf(channel)] = Clock::now();
    }
    return status;
  }

  void SenderLoop() noexcept {
    std::array<bool, kChannelCount> blocked{};
    const Clock::time_point start = Clock::now();
    const auto interval = std::chrono::milliseconds(options_.heartbeat_interval_ms);
    last_send_.fill(start - interval);  // announce the stream at once
    uint64_t refused_seen = 0U;
    for (;;) {
      detail::CollectRefusedPeers(*sender_, refused_seen, peers_refused_);
      bool progressed = false;
      while (SendRun(Channel::kHigh, blocked[1])) {
        progressed = true;
      }
      if (SendRun(Channel::kNormal, blocked[0])) {
        progressed = true;
      }
      // acquire: pairs with Stop's release store; no callback adds frames any more.
      if (stop_requested_.load(std::memory_order_acquire)) {
        break;
      }
      if (progressed) {
        continue;
      }
      int timeout_ms = 100;
      if (options_.heartbeat_interval_ms != 0U) {
        const Clock::time_point now = Clock::now();
        for (std::size_t c = 0U; c < kChannelCount; ++c) {
          const auto channel = static_cast<Channel>(c);
          if (!blocked[c] && queues_[c]->Size() == 0U && now - last_send_[c] >= interval) {
            static_cast<void>(SendMarker(channel, kHeartbeatType));
          }
          const auto due =
              std::chrono::duration_cast<std::chrono::milliseconds>(last_send_[c] + interval - now);
          timeout_ms = std::min(timeout_ms, static_cast<int>(std::max<int64_t>(due.count(), 1)));
        }
      }
      // seq_cst: the store before the re-check below (see SendQueue::Commit).
      sender_sleeping_.store(true, std::memory_order_seq_cst);
      const bool ready = (!blocked[1] && queues_[1]->HasFrameSeqCst()) ||
                         (!blocked[0] && queues_[0]->HasFrameSeqCst()) ||
                         stop_requested_.load(std::memory_order_acquire);
      if (!ready) {
        sender_->Wait(blocked[1], blocked[0], timeout_ms);
      }
      // relaxed: the flag only decides whether a producer calls Wake; a spare wake is harmless.
      sender_sleeping_.store(false, std::memory_order_relaxed);
      blocked = {};
    }
    FinishStream();
  }

  /// After Stop: flush within the time limit, count what is left, end both streams.
  void FinishStream() noexcept {
    const Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(options_.stop_flush_timeout_ms);
    std::array<bool, kChannelCount> blocked{};
    for (;;) {
      bool progressed = false;
      while (SendRun(Channel::kHigh, blocked[1])) {
        progressed = true;
      }
      while (SendRun(Channel::kNormal, blocked[0])) {
        progressed = true;
      }
      const bool empty = queues_[0]->Size() == 0U && queues_[1]->Size() == 0U;
      const Clock::time_point now = Clock::now();
      if (empty || now >= deadline) {
        break;
      }
      if (!progressed) {
        sender_->Wait(blocked[1], blocked[0], RemainingMs(now, deadline));
      }
      blocked = {};
    }
    for (auto& queue : queues_) {
      const uint8_t* frame = nullptr;
      uint32_t frame_bytes = 0U;
      while (queue->Peek(&frame, &frame_bytes)) {
        queue->Pop();
        dropped_at_stop_.Add();
      }
    }
    std::array<bool, kChannelCount> awaiting{};  // end of stream sent, confirmation pending
    std::array<uint64_t, kChannelCount> end_sequence{};
    for (const Channel channel : {Channel::kHigh, Channel::kNormal}) {
      SendStatus status = SendStatus::kWouldBlock;
      while ((status = SendMarker(channel, kEndOfStreamType)) == SendStatus::kWouldBlock) {
        const Clock::time_point now = Clock::now();
        if (now >= deadline) {
          break;
        }
        sender_->Wait(channel == Channel::kHigh, channel == Channel::kNormal,
                      RemainingMs(now, deadline));
      }
      awaiting[IndexOf(channel)] = status == SendStatus::kSent;
      end_sequence[IndexOf(channel)] = queues_[IndexOf(channel)]->PoppedByConsumer();
    }
    AwaitEndConfirmations(awaiting, end_sequence);
  }

  /// Waits (at most stop_confirm_timeout_ms) until the importer confirmed the end-of-stream
  /// frame of each channel in `awaiting` (those whose end was sent), and counts the channels
  /// confirmed and not.
  void AwaitEndConfirmations(std::array<bool, kChannelCount> awaiting,
                             const std::array<uint64_t, kChannelCount>& end_sequence) noexcept {
    const Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(options_.stop_confirm_timeout_ms);
    std::array<bool, kChannelCount> confirmed{};
    for (;;) {
      // The deadline is looked at after every reply, not only when none is waiting: a peer
      // that keeps replying with anything but the confirmation must not keep Stop waiting.
      bool late = false;
      for (std::size_t c = 0U; c < kChannelCount && !late; ++c) {
        const uint8_t* reply = nullptr;
        std::size_t reply_bytes = 0U;
        while (awaiting[c] &&
               sender_->TryReceiveReply(static_cast<Channel>(c), &reply, &reply_bytes)) {
          confirmed[c] = IsEndConfirmation(reply, reply_bytes, end_sequence[c]);
          awaiting[c] = !confirmed[c];
          if (Clock::now() >= deadline) {
            late = true;
            break;
          }
        }
      }
      const Clock::time_point now = Clock::now();
      if ((!awaiting[0] && !awaiting[1]) || late || now >= deadline) {
        break;
      }
      sender_->WaitForReply(awaiting[1], awaiting[0], RemainingMs(now, deadline));
    }
    const uint64_t confirmed_count = (confirmed[0] ? 1U : 0U) + (confirmed[1] ? 1U : 0U);
    ends_confirmed_.Add(confirmed_count);
    ends_unconfirmed_.Add(kChannelCount - confirmed_count);
  }

  /// True when `reply` is the importer's confirmation of this stream's end-of-stream frame.
  bool IsEndConfirmation(const uint8_t* reply, std::size_t reply_bytes,
                         uint64_t end_sequence) const noexcept {
    FrameHeader header;
    return reply != nullptr && ParseFrame(reply, reply_bytes, header) == FrameCheck::kOk &&
           header.type == kEndConfirmedType && header.stream_id == stream_id_ &&
           header.sequence == end_sequence;
  }

  static int RemainingMs(Clock::time_point now, Clock::time_point deadline) noexcept {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    return static_cast<int>(std::max<int64_t>(left.count(), 1));
  }

  Bus& bus_;
  Context& context_;
  const ExporterOptions options_;
  std::unique_ptr<typename Transport::Sender> sender_;
  std::array<std::unique_ptr<Queue>, kChannelCount> queues_{};
  std::array<SubscriptionHandle, kSelectedCount> handles_{};
  std::thread thread_;
  std::string last_error_;
  uint64_t stream_id_ = 0U;
  bool running_ = false;

  // Written by the bus's consumer thread (inside OnMessage).
  alignas(64) std::array<uint64_t, kChannelCount> next_sequence_{};
  std::array<detail::OwnedCounter, kPriorityCount> sent_{};
  std::array<detail::OwnedCounter, kPriorityCount> refused_{};
  detail::OwnedCounter too_large_;
  detail::OwnedCounter filtered_;
  // Callbacks inside (low bits) and the closed flag (top bit).
  alignas(64) std::atomic<uint64_t> gate_{0U};
  // Sender thread asleep (or about to be); set by it, cleared by whoever wakes it.
  alignas(64) std::atomic<bool> sender_sleeping_{false};
  std::atomic<bool> stop_requested_{false};
  // Written by the sender thread.
  alignas(64) std::array<Clock::time_point, kChannelCount> last_send_{};
  std::array<ByteSpan, Traits::kNormalBurst> run_{};  // the frames of the message being sent
  std::array<detail::OwnedCounter, kChannelCount> transmitted_{};
  std::array<detail::OwnedCounter, kChannelCount> messages_{};
  detail::OwnedCounter dropped_at_stop_;
  detail::OwnedCounter transport_errors_;
  detail::OwnedCounter peers_refused_;
  detail::OwnedCounter markers_sent_;
  detail::OwnedCounter ends_confirmed_;
  detail::OwnedCounter ends_unconfirmed_;
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_EXPORTER_HPP_
