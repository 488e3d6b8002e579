// SPDX-License-Identifier: MIT
/// @file wire_format.hpp
/// @brief The bridge frame: a fixed 52-byte header, then the payload; one transport message
/// carries one or more frames back to back.
///
/// Every header field is little-endian whatever the host (written and read byte by byte). The
/// payload of a trivially copyable message is its bytes in the host's representation; the schema
/// fingerprint includes the host byte order, so a peer that would read them differently is
/// refused as a schema mismatch (codec.hpp). The CRC covers header bytes [0, 48) and the payload.
///
/// A transport message is one or more whole frames with nothing between them: the exporter packs
/// the frames waiting in a channel's send queue into one message (at most
/// BridgeTraits::kNormalBurst frames), so that the transport's cost per message is shared by
/// them. The reader finds each frame's end from its length field before it can check the CRC;
/// a frame whose CRC fails may have a damaged length, so nothing after it in the same message can
/// be trusted: the importer counts that frame corrupted and reads no further in the message (the
/// frames it skipped are then counted lost by the sequence check, like any frame that never
/// arrived). Heartbeats, end-of-stream frames and their confirmations travel alone.
///
/// Frames go from the exporter to the importer, except one: for each end-of-stream frame it has
/// read, the importer sends the same header back with the type 0xFFFD (end confirmed), so that
/// the exporter closes the link only once nothing of the stream is left in it.
///
/// | Offset | Size | Field |
/// |---|---|---|
/// | 0  | 4 | magic "MCCB" (0x4D 0x43 0x43 0x42) |
/// | 4  | 1 | wire version (2; version 1 carried one frame per transport message) |
/// | 5  | 1 | priority (0 LOW, 1 MEDIUM, 2 HIGH) |
/// | 6  | 2 | type: variant index; 0xFFFE heartbeat, 0xFFFF end of stream, 0xFFFD end confirmed |
/// | 8  | 4 | payload length in bytes |
/// | 12 | 4 | sender id (the publisher's, unchanged) |
/// | 16 | 8 | schema fingerprint of the payload variant |
/// | 24 | 8 | stream id (random per exporter start) |
/// | 32 | 8 | sequence number within (stream, channel), from 0 |
/// | 40 | 8 | timestamp in microseconds (the publisher's bus clock, unchanged) |
/// | 48 | 4 | CRC-32C of bytes [0, 48) followed by the payload |
#ifndef MCCC_BRIDGE_WIRE_FORMAT_HPP_
#define MCCC_BRIDGE_WIRE_FORMAT_HPP_

#include <cstddef>
#include <cstdint>

#include "mccc/bridge/crc32c.hpp"

namespace mccc {
namespace bridge {

/// @brief Bytes of the frame header; the payload follows.
inline constexpr std::size_t kFrameHeaderBytes = 52U;
/// @brief The version this code writes and accepts.
inline constexpr uint8_t kWireVersion = 2U;
/// @brief Message type of a heartbeat: no payload; its sequence is the next data sequence.
inline constexpr uint16_t kHeartbeatType = 0xFFFEU;
/// @brief Message type of the last frame of a stream: as a heartbeat, then the stream ends.
inline constexpr uint16_t kEndOfStreamType = 0xFFFFU;
/// @brief Message type of the importer's reply to an end-of-stream frame it has read: the same
/// header (stream id, sequence) with this type; the only frame that travels back to the exporter.
inline constexpr uint16_t kEndConfirmedType = 0xFFFDU;

/// @brief Byte offsets of the header fields.
namespace wire {
inline constexpr std::size_t kMagic = 0U;
inline constexpr std::size_t kVersion = 4U;
inline constexpr std::size_t kPriority = 5U;
inline constexpr std::size_t kType = 6U;
inline constexpr std::size_t kPayloadLength = 8U;
inline constexpr std::size_t kSender = 12U;
inline constexpr std::size_t kSchema = 16U;
inline constexpr std::size_t kStream = 24U;
inline constexpr std::size_t kSequence = 32U;
inline constexpr std::size_t kTimestamp = 40U;
inline constexpr std::size_t kCrc = 48U;
inline constexpr uint8_t kMagicBytes[4] = {0x4DU, 0x43U, 0x43U, 0x42U};
}  // namespace wire

/// @brief The decoded header fields.
struct FrameHeader {
  uint8_t version = kWireVersion;  ///< Wire version.
  uint8_t priority = 1U;           ///< MessagePriority as a number (checked by the importer).
  uint16_t type = 0U;              ///< Variant index, or kHeartbeatType / kEndOfStreamType.
  uint32_t payload_bytes = 0U;     ///< Payload length.
  uint32_t sender_id = 0U;         ///< The publisher's sender id.
  uint64_t schema = 0U;            ///< Schema fingerprint.
  uint64_t stream_id = 0U;         ///< Stream id.
  uint64_t sequence = 0U;          ///< Sequence within (stream, channel).
  uint64_t timestamp_us = 0U;      ///< The publisher's timestamp.
};

/// @brief Outcome of ParseFrame.
enum class FrameCheck : uint8_t {
  kOk = 0U,                  ///< CRC, magic, version and length are right.
  kCorrupted = 1U,           ///< Too short, a length beyond the bytes there, or a bad CRC.
  kUnsupportedVersion = 2U,  ///< A bridge frame of another wire version (CRC right).
  kMalformed = 3U,           ///< CRC right but the magic is wrong (or, ParseFrame, bytes follow).
};

namespace detail {

inline void StoreLittle(uint8_t* out, uint64_t value, std::size_t bytes) noexcept {
  for (std::size_t i = 0U; i < bytes; ++i) {
    out[i] = static_cast<uint8_t>(value >> (8U * i));
  }
}

inline uint64_t LoadLittle(const uint8_t* in, std::size_t bytes) noexcept {
  uint64_t value = 0U;
  for (std::size_t i = 0U; i < bytes; ++i) {
    value |= static_cast<uint64_t>(in[i]) << (8U * i);
  }
  return value;
}

}  // namespace detail

/// @brief Writes header bytes [0, 48) of `header` to `frame` (the CRC is written by SealFrame).
inline void EncodeHeader(const FrameHeader& header, uint8_t* frame) noexcept {
  for (std::size_t i = 0U; i < 4U; ++i) {
    frame[wire::kMagic + i] = wire::kMagicBytes[i];
  }
  frame[wire::kVersion] = header.version;
  frame[wire::kPriority] = header.priority;
  detail::StoreLittle(frame + wire::kType, header.type, 2U);
  detail::StoreLittle(frame + wire::kPayloadLength, header.payload_bytes, 4U);
  detail::StoreLittle(frame + wire::kSender, header.sender_id, 4U);
  detail::StoreLittle(frame + wire::kSchema, header.schema, 8U);
  detail::StoreLittle(frame + wire::kStream, header.stream_id, 8U);
  detail::StoreLittle(frame + wire::kSequence, header.sequence, 8U);
  detail::StoreLittle(frame + wire::kTimestamp, header.timestamp_us, 8U);
}

/// @brief The CRC of a frame of `frame_bytes` (>= kFrameHeaderBytes): bytes [0, 48) then the
/// payload, skipping the CRC field itself.
inline uint32_t FrameCrc(const uint8_t* frame, std::size_t frame_bytes) noexcept {
  uint32_t state = Crc32c::Extend(Crc32c::kStart, frame, wire::kCrc);
  state = Crc32c::Extend(state, frame + kFrameHeaderBytes, frame_bytes - kFrameHeaderBytes);
  return Crc32c::Finish(state);
}

/// @brief Computes and stores the CRC of a frame whose header and payload are written.
inline void SealFrame(uint8_t* frame, std::size_t frame_bytes) noexcept {
  detail::StoreLittle(frame + wire::kCrc, FrameCrc(frame, frame_bytes), 4U);
}

/// @brief Checks the frame that starts at `data`, of which `available` bytes are there (the rest
/// of its transport message), and decodes its header. `frame_bytes` is set to the frame's size
/// as its length field gives it when that fits in `available`, otherwise to `available`. Order:
/// length and CRC (kCorrupted: too short for a header, a length beyond the bytes there, or a CRC
/// mismatch), magic (kMalformed), version (kUnsupportedVersion). Every wire version keeps the
/// magic, the version byte, the length and the CRC (offset 48, over everything else) where they
/// are, so a frame of another version is recognised after its CRC matched, and a flipped bit
/// anywhere is corruption. Only kOk fills `header` completely. After kCorrupted the end of the
/// frame is unknown (see the file comment); after any other result the next frame starts at
/// `data + frame_bytes`.
inline FrameCheck ParseFrameAt(const uint8_t* data, std::size_t available, FrameHeader& header,
                               std::size_t& frame_bytes) noexcept {
  frame_bytes = available;
  if (available < kFrameHeaderBytes) {
    return FrameCheck::kCorrupted;
  }
  const auto payload_bytes =
      static_cast<uint32_t>(detail::LoadLittle(data + wire::kPayloadLength, 4U));
  // Compared with what is left, not added to the header size: no overflow on 32-bit targets.
  if (payload_bytes > available - kFrameHeaderBytes) {
    return FrameCheck::kCorrupted;
  }
  const std::size_t span = kFrameHeaderBytes + payload_bytes;
  const auto stored_crc = static_cast<uint32_t>(detail::LoadLittle(data + wire::kCrc, 4U));
  if (stored_crc != FrameCrc(data, span)) {
    return FrameCheck::kCorrupted;
  }
  frame_bytes = span;
  bool magic_ok = true;
  for (std::size_t i = 0U; i < 4U; ++i) {
    magic_ok = magic_ok && data[wire::kMagic + i] == wire::kMagicBytes[i];
  }
  header.version = data[wire::kVersion];
  if (!magic_ok) {
    return FrameCheck::kMalformed;
  }
  if (header.version != kWireVersion) {
    return FrameCheck::kUnsupportedVersion;
  }
  header.priority = data[wire::kPriority];
  header.type = static_cast<uint16_t>(detail::LoadLittle(data + wire::kType, 2U));
  header.payload_bytes = payload_bytes;
  header.sender_id = static_cast<uint32_t>(detail::LoadLittle(data + wire::kSender, 4U));
  header.schema = detail::LoadLittle(data + wire::kSchema, 8U);
  header.stream_id = detail::LoadLittle(data + wire::kStream, 8U);
  header.sequence = detail::LoadLittle(data + wire::kSequence, 8U);
  header.timestamp_us = detail::LoadLittle(data + wire::kTimestamp, 8U);
  return FrameCheck::kOk;
}

/// @brief Checks a message that must be exactly one frame (an end-of-stream confirmation) and
/// decodes its header: ParseFrameAt, and kMalformed when bytes follow the frame.
inline FrameCheck ParseFrame(const uint8_t* frame, std::size_t size, FrameHeader& header) noexcept {
  std::size_t frame_bytes = 0U;
  const FrameCheck check = ParseFrameAt(frame, size, header, frame_bytes);
  if (check == FrameCheck::kOk && frame_bytes != size) {
    return FrameCheck::kMalformed;
  }
  return check;
}

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_WIRE_FORMAT_HPP_
