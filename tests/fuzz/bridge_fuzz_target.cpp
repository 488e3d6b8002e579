// SPDX-License-Identifier: MIT
// Fuzz target of the bridge importer's frame parsing and stream state machine: the input is a
// script of transport messages (CRC-valid frames of a few streams with chosen sequence numbers,
// packed runs, flipped bits, raw bytes, invented stream ids) that is read as the importer reads
// it (ParseFrameAt over each message, markers and decoded data frames judged by a StreamTable
// with window limits taken from the input), against a model of what must hold whatever a peer
// sends:
//   - a message of frames built here, none of them damaged, parses whole and as built;
//   - no data number of a stream is accepted twice while the stream is remembered (an ended
//     stream accepts nothing);
//   - per remembered stream, next expected = accepted + lost + missed at join + skipped at
//     resync (the identity the statistics rest on);
//   - a decoded message with declared fields has a bool of 0 or 1 and an enum value in range.
// Any violation aborts with a message (libFuzzer and fuzz_bridge_replay report it).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "mccc/bridge/codec.hpp"
#include "mccc/bridge/sequence_check.hpp"
#include "mccc/bridge/wire_format.hpp"

namespace bridge_fuzz {

enum class Mode : uint8_t { kIdle = 0U, kRun = 1U, kFault = 2U };
/// The data message of the target: a bool and an enum to validate, declared fields.
struct Flags {
  bool armed;
  Mode mode;
  uint16_t value;
};

}  // namespace bridge_fuzz

MCCC_BRIDGE_ENUM_RANGE(bridge_fuzz::Mode, bridge_fuzz::Mode::kIdle, bridge_fuzz::Mode::kFault);
MCCC_BRIDGE_FIELDS(bridge_fuzz::Flags, armed, mode, value);

namespace bridge_fuzz {
namespace {

using mccc::bridge::Channel;
using mccc::bridge::FrameCheck;
using mccc::bridge::FrameHeader;
using mccc::bridge::SequenceResult;
using mccc::bridge::SequenceVerdict;
using Bytes = std::vector<uint8_t>;

constexpr uint64_t kSchema = 0x5EED5EED5EED5EEDULL;
constexpr uint16_t kFlagsType = 0U;
constexpr std::size_t kMaxOps = 512U;
constexpr std::size_t kStreams = 6U;  // the small set of ids most frames use: collisions
constexpr std::size_t kTableStreams = 4U;
constexpr std::size_t kTableRetired = 4U;

[[noreturn]] void Violation(const char* what) {
  std::fprintf(stderr, "bridge_fuzz: %s\n", what);
  std::abort();
}

/// Reads the script; past its end every byte is 0.
class Script {
 public:
  Script(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool More() const { return offset_ < size_; }
  uint8_t Byte() { return offset_ < size_ ? data_[offset_++] : 0U; }
  uint64_t Number() {
    uint64_t value = 0U;
    for (int i = 0; i < 8; ++i) {
      value |= static_cast<uint64_t>(Byte()) << (8 * i);
    }
    return value;
  }

 private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t offset_ = 0U;
};

/// What must hold for one stream while the table remembers it.
struct StreamModel {
  std::set<uint64_t> accepted;
  uint64_t accounted = 0U;  // accepted + lost + missed at join + skipped at resync
};

class Run {
 public:
  explicit Run(const mccc::bridge::SequenceLimits& limits) : table_(limits) {}

  void Execute(Script& script) {
    for (std::size_t op = 0U; op < kMaxOps && script.More(); ++op) {
      const uint8_t code = script.Byte();
      const auto channel = static_cast<Channel>((code >> 3U) & 1U);
      switch (code & 7U) {
        case 0U:
        case 5U:
          Deliver(Frame(script, (code & 7U) == 5U, channel, kFlagsType), true);
          break;
        case 1U:
          Deliver(Frame(script, false, channel, mccc::bridge::kHeartbeatType), true);
          break;
        case 2U:
          Deliver(Frame(script, false, channel, mccc::bridge::kEndOfStreamType), true);
          break;
        case 3U: {  // raw bytes
          Bytes raw(script.Byte());
          for (uint8_t& byte : raw) {
            byte = script.Byte();
          }
          Deliver(raw, false);
          break;
        }
        case 4U: {  // a packed run of data frames, maybe with one bit flipped
          Bytes packed;
          const std::size_t frames = 2U + script.Byte() % 3U;
          for (std::size_t i = 0U; i < frames; ++i) {
            const Bytes frame = Frame(script, false, channel, kFlagsType);
            packed.insert(packed.end(), frame.begin(), frame.end());
          }
          const uint8_t flip = script.Byte();
          const bool damaged = (flip & 1U) != 0U;
          if (damaged) {
            const std::size_t bit = (static_cast<std::size_t>(flip) * 131U) % (packed.size() * 8U);
            packed[bit / 8U] = static_cast<uint8_t>(packed[bit / 8U] ^ (1U << (bit % 8U)));
          }
          Deliver(packed, !damaged);
          break;
        }
        default: {  // a stale or wild marker of an invented stream
          FrameHeader header = Header(script.Number(), channel, mccc::bridge::kHeartbeatType);
          header.sequence = script.Number();
          Deliver(Sealed(header, Bytes()), true);
          break;
        }
      }
    }
  }

 private:
  static FrameHeader Header(uint64_t stream, Channel channel, uint16_t type) {
    FrameHeader header;
    header.priority = channel == Channel::kHigh ? 2U : 1U;
    header.type = type;
    header.schema = kSchema;
    header.stream_id = stream;
    return header;
  }

  static Bytes Sealed(FrameHeader header, const Bytes& payload) {
    header.payload_bytes = static_cast<uint32_t>(payload.size());
    Bytes frame(mccc::bridge::kFrameHeaderBytes + payload.size());
    mccc::bridge::EncodeHeader(header, frame.data());
    std::copy(payload.begin(), payload.end(), frame.begin() + mccc::bridge::kFrameHeaderBytes);
    mccc::bridge::SealFrame(frame.data(), frame.size());
    return frame;
  }

  /// A frame of a known stream (or an invented one), its number relative to the last one
  /// built for that stream, or anywhere.
  Bytes Frame(Script& script, bool invented, Channel channel, uint16_t type) {
    const uint8_t pick = script.Byte();
    const uint64_t stream = invented ? script.Number() : 0x100U + pick % kStreams;
    uint64_t& last = last_sequence_[std::make_pair(stream, channel)];
    const uint8_t step = script.Byte();
    uint64_t sequence = 0U;
    if (step < 0xF0U) {
      sequence = last + static_cast<uint64_t>(step) - 0x20U;  // wraps below 0: a wild number
    } else {
      sequence = script.Number();
    }
    last = sequence;
    FrameHeader header = Header(stream, channel, type);
    header.sequence = sequence;
    Bytes payload;
    if (type == kFlagsType) {
      payload.resize(1U + script.Byte() % 5U);  // 4 is the declared size
      for (uint8_t& byte : payload) {
        byte = script.Byte();
      }
    }
    return Sealed(header, payload);
  }

  /// Reads `message` as the importer does. `intact`: built here and not damaged.
  void Deliver(const Bytes& message, bool intact) {
    std::size_t offset = 0U;
    while (offset < message.size() || message.empty()) {
      FrameHeader header;
      std::size_t frame_bytes = 0U;
      const FrameCheck check = mccc::bridge::ParseFrameAt(
          message.data() + offset, message.size() - offset, header, frame_bytes);
      if (frame_bytes > message.size() - offset ||
          (check != FrameCheck::kCorrupted && frame_bytes < mccc::bridge::kFrameHeaderBytes)) {
        Violation("a frame's size lies outside its message");
      }
      if (intact && check != FrameCheck::kOk) {
        Violation("an undamaged frame built here did not parse");
      }
      if (check == FrameCheck::kCorrupted || message.empty()) {
        return;  // the end of the frame, hence of the message, is unknown
      }
      if (check == FrameCheck::kOk) {
        Judge(header, message.data() + offset + mccc::bridge::kFrameHeaderBytes);
      }
      offset += frame_bytes;
    }
  }

  void Judge(const FrameHeader& header, const uint8_t* payload) {
    const auto channel = static_cast<Channel>(header.priority == 2U ? 1U : 0U);
    if (header.schema != kSchema) {
      return;
    }
    const auto key = std::make_pair(header.stream_id, channel);
    if (table_.StateOf(header.stream_id, channel) == mccc::bridge::StreamState::kNew) {
      models_.erase(key);  // never seen, or forgotten: it is joined anew
    }
    const bool marker = header.type == mccc::bridge::kHeartbeatType ||
                        header.type == mccc::bridge::kEndOfStreamType;
    SequenceResult result;
    if (marker) {
      if (header.payload_bytes != 0U) {
        return;  // malformed
      }
      result = table_.CheckMarker(header.stream_id, channel, header.sequence,
                                  header.type == mccc::bridge::kEndOfStreamType);
    } else {
      if (header.type != kFlagsType) {
        return;  // malformed
      }
      Flags flags{};
      if (!mccc::bridge::Codec<Flags>::Decode(payload, header.payload_bytes, flags)) {
        return;  // malformed: never a member of its stream
      }
      uint8_t armed_byte = 0U;
      std::memcpy(&armed_byte, &flags.armed, 1U);
      uint8_t mode_byte = 0U;
      std::memcpy(&mode_byte, &flags.mode, 1U);
      if (armed_byte > 1U || mode_byte > 2U) {
        Violation("an invalid bool or enum was decoded");
      }
      const bool ended_before =
          table_.StateOf(header.stream_id, channel) == mccc::bridge::StreamState::kEnded;
      result = table_.CheckData(header.stream_id, channel, header.sequence);
      if (result.verdict == SequenceVerdict::kAccept) {
        if (ended_before) {
          Violation("an ended stream accepted a data frame");
        }
        if (!models_[key].accepted.insert(header.sequence).second) {
          Violation("a data number was accepted twice while its stream was remembered");
        }
        models_[key].accounted += 1U;
      }
    }
    if (table_.WindowOf(header.stream_id, channel) == nullptr) {
      models_.erase(key);  // not admitted (an unknown stream's marker, a wild first number)
      return;
    }
    StreamModel& model = models_[key];
    model.accounted += result.lost + result.missed_at_join + result.skipped_at_resync;
    const mccc::bridge::SequenceWindow* window = table_.WindowOf(header.stream_id, channel);
    if (window->Started() && window->Next() != model.accounted) {
      Violation("next expected != accepted + lost + missed at join + skipped at resync");
    }
  }

  mccc::bridge::StreamTable<kTableStreams, kTableRetired> table_;
  std::map<std::pair<uint64_t, Channel>, StreamModel> models_;
  std::map<std::pair<uint64_t, Channel>, uint64_t> last_sequence_;
};

}  // namespace
}  // namespace bridge_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  bridge_fuzz::Script script(data, size);
  mccc::bridge::SequenceLimits limits;
  limits.max_delta = 1U + script.Byte() % 64U;
  limits.resync_frames = 1U + script.Byte() % 4U;
  bridge_fuzz::Run run(limits);
  run.Execute(script);
  return 0;
}
