// SPDX-License-Identifier: MIT
// A transport of the tests (Traits::Transport) in which ZeroMQ plays no part: the test writes
// the messages an importer takes and the replies an exporter reads, and sees what each of them
// handed over. A peer can so send exactly the frames a case needs (crafted, repeated, or without
// end), and a test waits for a count the importer reached, never for time to pass.
//
// The wire (the transport's Context) is shared by the test's thread and the bridge's threads; a
// mutex guards it (this is a test double: simplicity over speed).
#ifndef MCCC_TESTS_BRIDGE_SCRIPTED_TRANSPORT_HPP_
#define MCCC_TESTS_BRIDGE_SCRIPTED_TRANSPORT_HPP_

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "mccc/bridge/bridge.hpp"

namespace bridge_test {

using Bytes = std::vector<uint8_t>;

/// Builds a sealed frame of `header` and `payload` (the header's length is set to the payload's).
inline Bytes MakeFrame(mccc::bridge::FrameHeader header, const Bytes& payload = Bytes()) {
  header.payload_bytes = static_cast<uint32_t>(payload.size());
  Bytes frame(mccc::bridge::kFrameHeaderBytes + payload.size());
  mccc::bridge::EncodeHeader(header, frame.data());
  std::copy(payload.begin(), payload.end(), frame.begin() + mccc::bridge::kFrameHeaderBytes);
  mccc::bridge::SealFrame(frame.data(), frame.size());
  return frame;
}

/// The transport: ScriptedTransport::Context is the wire the test scripts.
class ScriptedTransport {
 public:
  using Channel = mccc::bridge::Channel;

  /// The wire between the test and one exporter or importer.
  class Context {
   public:
    /// A message the importer will take from `channel` (after those pushed before).
    void Push(Channel channel, Bytes message) {
      const std::lock_guard<std::mutex> lock(mutex_);
      inbound_[mccc::bridge::IndexOf(channel)].push_back(std::move(message));
      ++pushed_;
      ready_.notify_all();
    }

    /// From now on `channel` always has `message` for the importer, until EndFlood.
    void Flood(Channel channel, Bytes message) {
      const std::lock_guard<std::mutex> lock(mutex_);
      flood_[mccc::bridge::IndexOf(channel)] = std::move(message);
      flooding_[mccc::bridge::IndexOf(channel)] = true;
      ready_.notify_all();
    }
    /// Ends a Flood.
    void EndFlood(Channel channel) {
      const std::lock_guard<std::mutex> lock(mutex_);
      flooding_[mccc::bridge::IndexOf(channel)] = false;
    }

    /// From now on the exporter always finds `reply` when it looks for one, until EndReplies.
    void ReplyForever(Bytes reply) {
      const std::lock_guard<std::mutex> lock(mutex_);
      reply_ = std::move(reply);
      replying_ = true;
    }
    /// Ends ReplyForever.
    void EndReplies() {
      const std::lock_guard<std::mutex> lock(mutex_);
      replying_ = false;
    }

    /// Messages pushed so far.
    uint64_t Pushed() const {
      const std::lock_guard<std::mutex> lock(mutex_);
      return pushed_;
    }
    /// Messages the importer took so far (pushed or flooded).
    uint64_t Taken() const {
      const std::lock_guard<std::mutex> lock(mutex_);
      return taken_;
    }
    /// The frames the importer sent back (end-of-stream confirmations), in order.
    std::vector<Bytes> RepliesSent() const {
      const std::lock_guard<std::mutex> lock(mutex_);
      return replies_sent_;
    }
    /// Messages the exporter handed over, per channel.
    uint64_t MessagesSent(Channel channel) const {
      const std::lock_guard<std::mutex> lock(mutex_);
      return sent_[mccc::bridge::IndexOf(channel)];
    }

   private:
    friend class ScriptedTransport;

    bool TakeInbound(Channel channel, Bytes& out) {
      const std::lock_guard<std::mutex> lock(mutex_);
      const std::size_t c = mccc::bridge::IndexOf(channel);
      if (!inbound_[c].empty()) {
        out = std::move(inbound_[c].front());
        inbound_[c].pop_front();
      } else if (flooding_[c]) {
        out = flood_[c];
      } else {
        return false;
      }
      ++taken_;
      return true;
    }

    bool TakeReply(Bytes& out) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!replying_) {
        return false;
      }
      out = reply_;
      return true;
    }

    void WaitInbound(int timeout_ms) {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
        return woken_ || flooding_[0] || flooding_[1] || !inbound_[0].empty() ||
               !inbound_[1].empty();
      });
      woken_ = false;
    }

    void WakeAll() {
      const std::lock_guard<std::mutex> lock(mutex_);
      woken_ = true;
      ready_.notify_all();
    }

    void RecordReply(const uint8_t* data, std::size_t size) {
      const std::lock_guard<std::mutex> lock(mutex_);
      replies_sent_.emplace_back(data, data + size);
    }

    void RecordSent(Channel channel) {
      const std::lock_guard<std::mutex> lock(mutex_);
      ++sent_[mccc::bridge::IndexOf(channel)];
    }

    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::array<std::deque<Bytes>, mccc::bridge::kChannelCount> inbound_{};
    std::array<Bytes, mccc::bridge::kChannelCount> flood_{};
    std::array<bool, mccc::bridge::kChannelCount> flooding_{};
    std::array<uint64_t, mccc::bridge::kChannelCount> sent_{};
    Bytes reply_;
    bool replying_ = false;
    bool woken_ = false;
    uint64_t pushed_ = 0U;
    uint64_t taken_ = 0U;
    std::vector<Bytes> replies_sent_;
  };

  /// Importer side.
  class Receiver {
   public:
    Receiver(Context& context, const mccc::bridge::ChannelEndpoints& /*endpoints*/,
             mccc::bridge::EndpointMode /*mode*/, const mccc::bridge::TransportOptions& /*options*/)
        : context_(context) {}
    bool Ok() const noexcept { return true; }
    const std::string& Error() const noexcept { return error_; }
    bool TryReceive(Channel channel, const uint8_t** data, std::size_t* size) {
      Bytes& held = held_[mccc::bridge::IndexOf(channel)];
      if (!context_.TakeInbound(channel, held)) {
        return false;
      }
      *data = held.data();
      *size = held.size();
      return true;
    }
    mccc::bridge::SendStatus Reply(Channel /*channel*/, const uint8_t* data, std::size_t size) {
      context_.RecordReply(data, size);
      return mccc::bridge::SendStatus::kSent;
    }
    void Wait(int timeout_ms) { context_.WaitInbound(timeout_ms); }
    void Wake() { context_.WakeAll(); }
    std::string BoundEndpoint(Channel /*channel*/) const { return "scripted"; }

   private:
    Context& context_;
    std::array<Bytes, mccc::bridge::kChannelCount> held_{};
    std::string error_;
  };

  /// Exporter side: takes every message at once; replies as the test scripted them.
  class Sender {
   public:
    Sender(Context& context, const mccc::bridge::ChannelEndpoints& /*endpoints*/,
           mccc::bridge::EndpointMode /*mode*/, const mccc::bridge::TransportOptions& /*options*/)
        : context_(context) {}
    bool Ok() const noexcept { return true; }
    const std::string& Error() const noexcept { return error_; }
    mccc::bridge::SendStatus TrySend(Channel channel, const uint8_t* /*data*/,
                                     std::size_t /*size*/) {
      context_.RecordSent(channel);
      return mccc::bridge::SendStatus::kSent;
    }
    mccc::bridge::SendStatus TrySendParts(Channel channel, const mccc::bridge::ByteSpan* /*parts*/,
                                          std::size_t /*count*/) {
      context_.RecordSent(channel);
      return mccc::bridge::SendStatus::kSent;
    }
    void Wait(bool /*high_writable*/, bool /*normal_writable*/, int timeout_ms) {
      std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms < 2 ? timeout_ms : 2));
    }
    bool TryReceiveReply(Channel /*channel*/, const uint8_t** data, std::size_t* size) {
      if (!context_.TakeReply(reply_)) {
        return false;
      }
      *data = reply_.data();
      *size = reply_.size();
      return true;
    }
    void WaitForReply(bool /*high*/, bool /*normal*/, int timeout_ms) {
      std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms < 2 ? timeout_ms : 2));
    }
    void Wake() {}
    std::string BoundEndpoint(Channel /*channel*/) const { return "scripted"; }

   private:
    Context& context_;
    Bytes reply_;
    std::string error_;
  };
};

/// Bridge traits with the scripted transport.
struct ScriptedBridgeTraits : mccc::bridge::BridgeTraitsBase {
  using Transport = ScriptedTransport;
};

}  // namespace bridge_test

#endif  // MCCC_TESTS_BRIDGE_SCRIPTED_TRANSPORT_HPP_
