// SPDX-License-Identifier: MIT
// A test proxy between an exporter and an importer that damages the data frames of each channel
// on a fixed schedule (frame i of a channel, counting data frames only):
//   i % 10 == 3  dropped
//   i % 10 == 5  sent twice
//   i % 10 == 7  held and sent after frame i + 1 (reordered)
//   i % 10 == 9  one bit flipped (the bit depends on i)
// The exporter packs waiting frames into one transport message; the proxy splits each message
// into its frames, applies the schedule, and sends what is left of the message as one message
// again, ending it after a damaged frame (a reader cannot trust what follows a frame whose CRC
// fails, wire_format.hpp, so nothing is put there: every frame sent is one the importer reads).
// Heartbeats and end-of-stream frames pass unchanged, and so do the importer's end-of-stream
// confirmations on their way back to the exporter. It stops after relaying both channels'
// confirmations, or when told to. Raw ZeroMQ (ROUTER towards the exporter, DEALER towards the
// importer, like the bridge's own sockets): it plays the network, not the bridge.
#ifndef MCCC_TESTS_BRIDGE_FAULT_PROXY_HPP_
#define MCCC_TESTS_BRIDGE_FAULT_PROXY_HPP_

#include <zmq.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mccc/bridge/channel.hpp"
#include "mccc/bridge/wire_format.hpp"
#include "mccc/bridge/zmq_transport.hpp"

namespace bridge_test {

struct ProxyCounts {
  uint64_t forwarded = 0U;  // frames sent on (a repeat counts twice)
  uint64_t messages = 0U;   // transport messages sent on (data frames only)
  uint64_t packed = 0U;     // of those, messages that carried more than one frame
  uint64_t dropped = 0U;
  uint64_t repeated = 0U;
  uint64_t reordered = 0U;
  uint64_t flipped = 0U;
  uint64_t data_frames = 0U;  // data frames received from the exporter
  uint64_t markers = 0U;
  uint64_t confirmations = 0U;  // end-of-stream confirmations relayed back to the exporter
};

class FaultProxy {
 public:
  /// Binds `in` (the exporter connects) and connects to `out` (the importer binds).
  /// `in_high_water_mark`: messages the proxy's receiving side may buffer per channel.
  FaultProxy(void* context, const mccc::bridge::ChannelEndpoints& in,
             const mccc::bridge::ChannelEndpoints& out, int in_high_water_mark = 1000) {
    for (std::size_t c = 0U; c < 2U; ++c) {
      const auto channel = static_cast<mccc::bridge::Channel>(c);
      in_[c] = zmq_socket(context, ZMQ_ROUTER);
      out_[c] = zmq_socket(context, ZMQ_DEALER);
      const int linger = 2000;
      zmq_setsockopt(in_[c], ZMQ_LINGER, &linger, sizeof(linger));
      zmq_setsockopt(in_[c], ZMQ_RCVHWM, &in_high_water_mark, sizeof(in_high_water_mark));
      zmq_setsockopt(out_[c], ZMQ_LINGER, &linger, sizeof(linger));
      ok_ = ok_ && zmq_bind(in_[c], in.Of(channel).c_str()) == 0 &&
            zmq_connect(out_[c], out.Of(channel).c_str()) == 0;
    }
  }
  ~FaultProxy() {
    for (std::size_t c = 0U; c < 2U; ++c) {
      zmq_close(in_[c]);
      zmq_close(out_[c]);
    }
  }
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  bool Ok() const { return ok_; }

  std::string BoundEndpoint(mccc::bridge::Channel channel) const {
    std::array<char, 256> buffer{};
    std::size_t size = buffer.size();
    zmq_getsockopt(in_[mccc::bridge::IndexOf(channel)], ZMQ_LAST_ENDPOINT, buffer.data(), &size);
    return std::string(buffer.data());
  }

  /// Forwards until both end-of-stream confirmations went back, `stop` is set, or nothing moved
  /// for `timeout_ms`. Returns true when both streams ended and were confirmed.
  bool Run(const std::atomic<bool>& stop, int timeout_ms) {
    int waited_ms = 0;
    while (counts_.confirmations < 2U && !stop.load() && waited_ms < timeout_ms) {
      std::array<zmq_pollitem_t, 4> items{};
      for (std::size_t c = 0U; c < 2U; ++c) {
        items[c] = zmq_pollitem_t{in_[c], 0, ZMQ_POLLIN, 0};
        items[2U + c] = zmq_pollitem_t{out_[c], 0, ZMQ_POLLIN, 0};
      }
      if (zmq_poll(items.data(), 4, 10) <= 0) {
        waited_ms += 10;
        continue;
      }
      waited_ms = 0;
      std::vector<uint8_t> frame;
      for (std::size_t c = 0U; c < 2U; ++c) {
        // Exporter to importer: [routing id of the exporter][one or more frames].
        while (Receive(in_[c], exporter_[c]) && Receive(in_[c], frame)) {
          Handle(c, frame);
        }
        // Importer to exporter: an end-of-stream confirmation, back to the exporter that sent
        // the end of stream.
        while (Receive(out_[c], frame)) {
          zmq_send(in_[c], exporter_[c].data(), exporter_[c].size(), ZMQ_SNDMORE);
          Send(in_[c], frame);
          ++counts_.confirmations;
        }
      }
    }
    return counts_.confirmations >= 2U;
  }

  const ProxyCounts& Counts() const { return counts_; }

 private:
  /// One message part, without waiting.
  static bool Receive(void* socket, std::vector<uint8_t>& part) {
    zmq_msg_t message;
    zmq_msg_init(&message);
    const bool ok = zmq_msg_recv(&message, socket, ZMQ_DONTWAIT) >= 0;
    if (ok) {
      // As the bridge's own receives: the hand-over from the sending thread, for TSan.
      mccc::bridge::ZmqTransport::MarkReceived(zmq_msg_data(&message));
      const auto* data = static_cast<const uint8_t*>(zmq_msg_data(&message));
      part.assign(data, data + zmq_msg_size(&message));
    }
    zmq_msg_close(&message);
    return ok;
  }

  /// One message part, waiting while ZeroMQ cannot take it; written as the bridge writes its
  /// own (ZmqTransport::SendGathered), so that TSan sees the hand-over to the receiver.
  static void Send(void* socket, const std::vector<uint8_t>& part) {
    const mccc::bridge::ByteSpan bytes{part.data(), part.size()};
    while (mccc::bridge::ZmqTransport::SendGathered(socket, &bytes, 1U, 0) ==
           mccc::bridge::SendStatus::kWouldBlock) {  // EINTR
    }
  }

  void SendMessage(std::size_t c, const std::vector<uint8_t>& message) { Send(out_[c], message); }

  /// Appends a frame to the message being built.
  void Append(std::vector<uint8_t>& message, std::size_t& frames,
              const std::vector<uint8_t>& frame) {
    message.insert(message.end(), frame.begin(), frame.end());
    ++frames;
    ++counts_.forwarded;
  }

  /// Sends the message being built, if it has a frame.
  void Flush(std::size_t c, std::vector<uint8_t>& message, std::size_t& frames) {
    if (frames != 0U) {
      SendMessage(c, message);
      ++counts_.messages;
      counts_.packed += frames > 1U ? 1U : 0U;
    }
    message.clear();
    frames = 0U;
  }

  void Handle(std::size_t c, const std::vector<uint8_t>& message) {
    // Control frames travel alone: header only, type 0xFFFE (heartbeat) or 0xFFFF (end of
    // stream), little-endian.
    const std::size_t type = mccc::bridge::wire::kType;
    const bool control = message.size() == mccc::bridge::kFrameHeaderBytes &&
                         message[type + 1U] == 0xFFU &&
                         (message[type] == 0xFFU || message[type] == 0xFEU);
    if (control) {
      ++counts_.markers;
      ++counts_.forwarded;
      SendMessage(c, message);
      return;
    }
    std::vector<uint8_t> out;
    std::size_t out_frames = 0U;
    std::size_t offset = 0U;
    while (message.size() - offset >= mccc::bridge::kFrameHeaderBytes) {
      // The exporter's frames are whole: the length field says where each ends.
      const std::size_t length =
          mccc::bridge::kFrameHeaderBytes +
          static_cast<std::size_t>(mccc::bridge::detail::LoadLittle(
              message.data() + offset + mccc::bridge::wire::kPayloadLength, 4U));
      std::vector<uint8_t> frame(message.begin() + static_cast<std::ptrdiff_t>(offset),
                                 message.begin() + static_cast<std::ptrdiff_t>(offset + length));
      offset += length;
      HandleFrame(c, std::move(frame), out, out_frames);
    }
    Flush(c, out, out_frames);
  }

  void HandleFrame(std::size_t c, std::vector<uint8_t> frame, std::vector<uint8_t>& out,
                   std::size_t& out_frames) {
    const uint64_t i = index_[c]++;
    ++counts_.data_frames;
    switch (i % 10U) {
      case 3U:
        ++counts_.dropped;
        return;
      case 5U:
        ++counts_.repeated;
        Append(out, out_frames, frame);
        Append(out, out_frames, frame);
        return;
      case 7U:
        held_[c] = std::move(frame);
        return;
      case 8U:
        Append(out, out_frames, frame);
        if (!held_[c].empty()) {
          ++counts_.reordered;
          Append(out, out_frames, held_[c]);
          held_[c].clear();
        }
        return;
      case 9U: {
        const std::size_t bit = static_cast<std::size_t>((i * 131U) % (frame.size() * 8U));
        frame[bit / 8U] = static_cast<uint8_t>(frame[bit / 8U] ^ (1U << (bit % 8U)));
        ++counts_.flipped;
        Append(out, out_frames, frame);
        Flush(c, out, out_frames);  // nothing after a damaged frame in its message
        return;
      }
      default:
        Append(out, out_frames, frame);
        return;
    }
  }

  std::array<void*, 2> in_{};
  std::array<void*, 2> out_{};
  std::array<std::vector<uint8_t>, 2> exporter_{};  // routing id of the exporter, per channel
  std::array<uint64_t, 2> index_{};
  std::array<std::vector<uint8_t>, 2> held_{};
  ProxyCounts counts_;
  bool ok_ = true;
};

}  // namespace bridge_test

#endif  // MCCC_TESTS_BRIDGE_FAULT_PROXY_HPP_
