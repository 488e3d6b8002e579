// SPDX-License-Identifier: MIT
// A test proxy between an exporter and an importer that damages the data frames of each channel
// on a fixed schedule (frame i of a channel, counting data frames only):
//   i % 10 == 3  dropped
//   i % 10 == 5  sent twice
//   i % 10 == 7  held and sent after frame i + 1 (reordered)
//   i % 10 == 9  one bit flipped (the bit depends on i)
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

namespace bridge_test {

struct ProxyCounts {
  uint64_t forwarded = 0U;  // frames sent on (a repeat counts twice)
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
  FaultProxy(void* context, const mccc::bridge::ChannelEndpoints& in,
             const mccc::bridge::ChannelEndpoints& out) {
    for (std::size_t c = 0U; c < 2U; ++c) {
      const auto channel = static_cast<mccc::bridge::Channel>(c);
      in_[c] = zmq_socket(context, ZMQ_ROUTER);
      out_[c] = zmq_socket(context, ZMQ_DEALER);
      const int linger = 2000;
      zmq_setsockopt(in_[c], ZMQ_LINGER, &linger, sizeof(linger));
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
        // Exporter to importer: [routing id of the exporter][frame].
        while (Receive(in_[c], exporter_[c]) && Receive(in_[c], frame)) {
          Handle(c, std::move(frame));
        }
        // Importer to exporter: an end-of-stream confirmation, back to the exporter that sent
        // the end of stream.
        while (Receive(out_[c], frame)) {
          zmq_send(in_[c], exporter_[c].data(), exporter_[c].size(), ZMQ_SNDMORE);
          zmq_send(in_[c], frame.data(), frame.size(), 0);
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
      const auto* data = static_cast<const uint8_t*>(zmq_msg_data(&message));
      part.assign(data, data + zmq_msg_size(&message));
    }
    zmq_msg_close(&message);
    return ok;
  }

  void Send(std::size_t c, const std::vector<uint8_t>& frame) {
    while (zmq_send(out_[c], frame.data(), frame.size(), 0) < 0 && zmq_errno() == EINTR) {
    }
    ++counts_.forwarded;
  }

  void Handle(std::size_t c, std::vector<uint8_t> frame) {
    // Control frames: header only, type 0xFFFE (heartbeat) or 0xFFFF (end of stream), LE.
    const std::size_t type = mccc::bridge::wire::kType;
    const bool control = frame.size() == mccc::bridge::kFrameHeaderBytes &&
                         frame[type + 1U] == 0xFFU &&
                         (frame[type] == 0xFFU || frame[type] == 0xFEU);
    if (control) {
      ++counts_.markers;
      Send(c, frame);
      return;
    }
    const uint64_t i = index_[c]++;
    ++counts_.data_frames;
    switch (i % 10U) {
      case 3U:
        ++counts_.dropped;
        return;
      case 5U:
        ++counts_.repeated;
        Send(c, frame);
        Send(c, frame);
        return;
      case 7U:
        held_[c] = std::move(frame);
        return;
      case 8U:
        Send(c, frame);
        if (!held_[c].empty()) {
          ++counts_.reordered;
          Send(c, held_[c]);
          held_[c].clear();
        }
        return;
      case 9U: {
        const std::size_t bit = static_cast<std::size_t>((i * 131U) % (frame.size() * 8U));
        frame[bit / 8U] = static_cast<uint8_t>(frame[bit / 8U] ^ (1U << (bit % 8U)));
        ++counts_.flipped;
        Send(c, frame);
        return;
      }
      default:
        Send(c, frame);
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
