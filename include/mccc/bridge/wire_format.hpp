// SPDX-License-Identifier: MIT
/// @file wire_format.hpp
/// @brief The bridge frame: a fixed 52-byte header, then the payload.
///
/// Every header field is little-endian whatever the host (written and read byte by byte). The
/// payload of a trivially copyable message is its bytes in the host's representation; the schema
/// fingerprint includes the host byte order, so a peer that would read them differently is
/// refused as a schema mismatch (codec.hpp). The CRC covers header bytes [0, 48) and the payload.
///
/// Frames go from the exporter to the importer, except one: for each end-of-stream frame it has
/// read, the importer sends the same header back with the type 0xFFFD (end confirmed), so that
/// the exporter closes the link only once nothing of the stream is left in it.
///
/// | Offset | Size | Field |
/// |---|---|---|
/// | 0  | 4 | magic "MCCB" (0x4D 0x43 0x43 0x42) |
/// | 4  | 1 | wire version (1) |
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
inline constexpr uint8_t kWireVersion = 1U;
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
  kCorrupted = 1U,           ///< Too short, or the CRC does not match.
  kUnsupportedVersion = 2U,  ///< A bridge frame of another wire version (CRC right).
  kMalformed = 3U,           ///< CRC right but the magic or the payload length is wrong.
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

/// @brief Checks a received frame and decodes its header. Order: length and CRC (kCorrupted),
/// magic (kMalformed), version (kUnsupportedVersion), payload length (kMalformed). Every wire
/// version keeps the magic, the version byte and the CRC (offset 48, over everything else) where
/// they are, so a frame of another version is recognised after its CRC matched, and a flipped
/// bit anywhere is corruption. Only kOk fills `header` completely.
inline FrameCheck ParseFrame(const uint8_t* frame, std::size_t frame_bytes,
                             FrameHeader& header) noexcept {
  if (frame_bytes < kFrameHeaderBytes) {
    return FrameCheck::kCorrupted;
  }
  bool magic_ok = true;
  for (std::size_t i = 0U; i < 4U; ++i) {
    magic_ok = magic_ok && frame[wire::kMagic + i] == wire::kMagicBytes[i];
  }
  header.version = frame[wire::kVersion];
  const auto stored_crc = static_cast<uint32_t>(detail::LoadLittle(frame + wire::kCrc, 4U));
  if (stored_crc != FrameCrc(frame, frame_bytes)) {
    return FrameCheck::kCorrupted;
  }
  if (!magic_ok) {
    return FrameCheck::kMalformed;
  }
  if (header.version != kWireVersion) {
    return FrameCheck::kUnsupportedVersion;
  }
  header.priority = frame[wire::kPriority];
  header.type = static_cast<uint16_t>(detail::LoadLittle(frame + wire::kType, 2U));
  header.payload_bytes =
      static_cast<uint32_t>(detail::LoadLittle(frame + wire::kPayloadLength, 4U));
  header.sender_id = static_cast<uint32_t>(detail::LoadLittle(frame + wire::kSender, 4U));
  header.schema = detail::LoadLittle(frame + wire::kSchema, 8U);
  header.stream_id = detail::LoadLittle(frame + wire::kStream, 8U);
  header.sequence = detail::LoadLittle(frame + wire::kSequence, 8U);
  header.timestamp_us = detail::LoadLittle(frame + wire::kTimestamp, 8U);
  if (static_cast<std::size_t>(header.payload_bytes) != frame_bytes - kFrameHeaderBytes) {
    return FrameCheck::kMalformed;
  }
  return FrameCheck::kOk;
}

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_WIRE_FORMAT_HPP_
