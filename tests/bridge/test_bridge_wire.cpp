// SPDX-License-Identifier: MIT
// Unit tests of the bridge's building blocks: CRC-32C, the frame header, the schema fingerprint,
// the codec customization point and its reader/writer, the send queue, and the packing of
// several frames into one transport message (the sequence check: test_bridge_sequence.cpp).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bridge/bridge_test_types.hpp"
#include "mccc/bridge/bridge.hpp"

namespace {

using mccc::MessagePriority;
using mccc::bridge::Crc32c;
using mccc::bridge::FrameCheck;
using mccc::bridge::FrameHeader;
using mccc::bridge::kFrameHeaderBytes;

// ---- CRC-32C ------------------------------------------------------------------------------

TEST(BridgeCrc32c, CheckValuesOfTheCatalogueAndRfc3720) {
  const std::string digits = "123456789";
  EXPECT_EQ(Crc32c::Compute(digits.data(), digits.size()), 0xE3069283U);
  EXPECT_EQ(Crc32c::ComputeSoftware(digits.data(), digits.size()), 0xE3069283U);
  std::array<uint8_t, 32> zeros{};
  std::array<uint8_t, 32> ones{};
  std::array<uint8_t, 32> ascending{};
  ones.fill(0xFFU);
  for (std::size_t i = 0U; i < ascending.size(); ++i) {
    ascending[i] = static_cast<uint8_t>(i);
  }
  EXPECT_EQ(Crc32c::Compute(zeros.data(), zeros.size()), 0x8A9136AAU);
  EXPECT_EQ(Crc32c::Compute(ones.data(), ones.size()), 0x62A8AB43U);
  EXPECT_EQ(Crc32c::Compute(ascending.data(), ascending.size()), 0x46DD794EU);
  EXPECT_EQ(Crc32c::Compute(nullptr, 0U), 0U);
}

TEST(BridgeCrc32c, HardwareSoftwareAndPiecewiseAgreeOnEveryLengthAndSplit) {
  std::mt19937 random(12345U);
  std::vector<uint8_t> data(1100U);
  for (uint8_t& byte : data) {
    byte = static_cast<uint8_t>(random());
  }
  for (std::size_t size = 0U; size <= data.size(); size += (size < 80U ? 1U : 37U)) {
    const uint32_t whole = Crc32c::Compute(data.data(), size);
    ASSERT_EQ(whole, Crc32c::ComputeSoftware(data.data(), size)) << size;
    const std::size_t split = size / 3U;
    const uint32_t pieces = Crc32c::Finish(Crc32c::Extend(
        Crc32c::Extend(Crc32c::kStart, data.data(), split), data.data() + split, size - split));
    ASSERT_EQ(whole, pieces) << size;
  }
}

// ---- frame header -------------------------------------------------------------------------

std::vector<uint8_t> MakeFrame(const FrameHeader& header, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> frame(kFrameHeaderBytes + payload.size());
  mccc::bridge::EncodeHeader(header, frame.data());
  std::copy(payload.begin(), payload.end(), frame.begin() + kFrameHeaderBytes);
  mccc::bridge::SealFrame(frame.data(), frame.size());
  return frame;
}

FrameHeader SampleHeader(uint32_t payload_bytes) {
  FrameHeader header;
  header.priority = 2U;
  header.type = 0x0102U;
  header.payload_bytes = payload_bytes;
  header.sender_id = 0xA1B2C3D4U;
  header.schema = 0x1122334455667788ULL;
  header.stream_id = 0x8877665544332211ULL;
  header.sequence = 0x0102030405060708ULL;
  header.timestamp_us = 0xF0E0D0C0B0A09080ULL;
  return header;
}

TEST(BridgeWireFormat, HeaderFieldsAreLittleEndianAtTheDocumentedOffsets) {
  const std::vector<uint8_t> frame = MakeFrame(SampleHeader(3U), {1U, 2U, 3U});
  ASSERT_EQ(frame.size(), 55U);
  EXPECT_EQ(std::string(frame.begin(), frame.begin() + 4), "MCCB");
  EXPECT_EQ(frame[4], 2U);     // version
  EXPECT_EQ(frame[5], 2U);     // priority
  EXPECT_EQ(frame[6], 0x02U);  // type, low byte first
  EXPECT_EQ(frame[7], 0x01U);
  EXPECT_EQ(frame[8], 3U);  // payload length
  EXPECT_EQ(frame[12], 0xD4U);
  EXPECT_EQ(frame[15], 0xA1U);
  EXPECT_EQ(frame[16], 0x88U);  // schema
  EXPECT_EQ(frame[24], 0x11U);  // stream
  EXPECT_EQ(frame[32], 0x08U);  // sequence
  EXPECT_EQ(frame[40], 0x80U);  // timestamp
  const uint32_t crc = Crc32c::Finish(
      Crc32c::Extend(Crc32c::Extend(Crc32c::kStart, frame.data(), 48U), frame.data() + 52, 3U));
  EXPECT_EQ(frame[48], static_cast<uint8_t>(crc));
  EXPECT_EQ(frame[51], static_cast<uint8_t>(crc >> 24U));
}

TEST(BridgeWireFormat, ParseReturnsWhatWasEncoded) {
  const std::vector<uint8_t> frame = MakeFrame(SampleHeader(3U), {1U, 2U, 3U});
  FrameHeader parsed;
  ASSERT_EQ(mccc::bridge::ParseFrame(frame.data(), frame.size(), parsed), FrameCheck::kOk);
  const FrameHeader expected = SampleHeader(3U);
  EXPECT_EQ(parsed.version, 2U);
  EXPECT_EQ(parsed.priority, expected.priority);
  EXPECT_EQ(parsed.type, expected.type);
  EXPECT_EQ(parsed.payload_bytes, 3U);
  EXPECT_EQ(parsed.sender_id, expected.sender_id);
  EXPECT_EQ(parsed.schema, expected.schema);
  EXPECT_EQ(parsed.stream_id, expected.stream_id);
  EXPECT_EQ(parsed.sequence, expected.sequence);
  EXPECT_EQ(parsed.timestamp_us, expected.timestamp_us);
}

TEST(BridgeWireFormat, EverySingleBitFlipAndEveryTruncationIsCorruption) {
  const std::vector<uint8_t> good = MakeFrame(SampleHeader(24U), std::vector<uint8_t>(24U, 0x5AU));
  FrameHeader parsed;
  for (std::size_t bit = 0U; bit < good.size() * 8U; ++bit) {
    std::vector<uint8_t> frame = good;
    frame[bit / 8U] = static_cast<uint8_t>(frame[bit / 8U] ^ (1U << (bit % 8U)));
    ASSERT_EQ(mccc::bridge::ParseFrame(frame.data(), frame.size(), parsed), FrameCheck::kCorrupted)
        << "bit " << bit;
  }
  for (std::size_t size = 0U; size < good.size(); ++size) {
    ASSERT_EQ(mccc::bridge::ParseFrame(good.data(), size, parsed), FrameCheck::kCorrupted) << size;
  }
}

TEST(BridgeWireFormat, ConsistentCrcButWrongMagicVersionOrLengthIsRefused) {
  FrameHeader parsed;
  std::vector<uint8_t> frame = MakeFrame(SampleHeader(2U), {7U, 8U});
  frame[0] = 'X';
  mccc::bridge::SealFrame(frame.data(), frame.size());
  EXPECT_EQ(mccc::bridge::ParseFrame(frame.data(), frame.size(), parsed), FrameCheck::kMalformed);

  for (const uint8_t version : {uint8_t{1U}, uint8_t{3U}}) {
    FrameHeader other = SampleHeader(2U);
    other.version = version;
    frame = MakeFrame(other, {7U, 8U});
    EXPECT_EQ(mccc::bridge::ParseFrame(frame.data(), frame.size(), parsed),
              FrameCheck::kUnsupportedVersion);
  }

  // A length beyond the bytes there cannot be told from a damaged one: corruption.
  frame = MakeFrame(SampleHeader(5U), {7U, 8U});  // says 5 bytes, carries 2
  EXPECT_EQ(mccc::bridge::ParseFrame(frame.data(), frame.size(), parsed), FrameCheck::kCorrupted);

  // A whole frame followed by more bytes where exactly one frame is expected.
  frame = MakeFrame(SampleHeader(2U), {7U, 8U});
  frame.push_back(0U);
  EXPECT_EQ(mccc::bridge::ParseFrame(frame.data(), frame.size(), parsed), FrameCheck::kMalformed);
}

// Three frames back to back, as the exporter packs them into one transport message.
std::vector<uint8_t> ThreeFrameMessage(std::array<std::size_t, 3>& ends) {
  std::vector<uint8_t> message;
  for (std::size_t i = 0U; i < 3U; ++i) {
    FrameHeader header = SampleHeader(static_cast<uint32_t>(4U + 10U * i));
    header.sequence = i;
    const std::vector<uint8_t> frame =
        MakeFrame(header, std::vector<uint8_t>(header.payload_bytes, static_cast<uint8_t>(i)));
    message.insert(message.end(), frame.begin(), frame.end());
    ends[i] = message.size();
  }
  return message;
}

TEST(BridgeWireFormat, FramesPackedInOneMessageAreReadInOrder) {
  std::array<std::size_t, 3> ends{};
  const std::vector<uint8_t> message = ThreeFrameMessage(ends);
  std::size_t offset = 0U;
  for (std::size_t i = 0U; i < 3U; ++i) {
    FrameHeader parsed;
    std::size_t frame_bytes = 0U;
    ASSERT_EQ(mccc::bridge::ParseFrameAt(message.data() + offset, message.size() - offset, parsed,
                                         frame_bytes),
              FrameCheck::kOk);
    EXPECT_EQ(parsed.sequence, i);
    EXPECT_EQ(parsed.payload_bytes, 4U + 10U * i);
    offset += frame_bytes;
    EXPECT_EQ(offset, ends[i]);
  }
}

TEST(BridgeWireFormat, EveryBitFlipInAPackedMessageIsCorruptionOfTheFrameItHit) {
  std::array<std::size_t, 3> ends{};
  const std::vector<uint8_t> good = ThreeFrameMessage(ends);
  for (std::size_t bit = 0U; bit < good.size() * 8U; ++bit) {
    std::vector<uint8_t> message = good;
    message[bit / 8U] = static_cast<uint8_t>(message[bit / 8U] ^ (1U << (bit % 8U)));
    std::size_t hit = 0U;
    while (bit / 8U >= ends[hit]) {
      ++hit;
    }
    // The frames before the damaged one read as good; the damaged one is corrupted, whatever
    // field the bit was in (its length included).
    std::size_t offset = 0U;
    for (std::size_t i = 0U; i <= hit; ++i) {
      FrameHeader parsed;
      std::size_t frame_bytes = 0U;
      const FrameCheck check = mccc::bridge::ParseFrameAt(
          message.data() + offset, message.size() - offset, parsed, frame_bytes);
      ASSERT_EQ(check, i < hit ? FrameCheck::kOk : FrameCheck::kCorrupted)
          << "bit " << bit << " frame " << i;
      offset += frame_bytes;
    }
  }
}

// ---- schema -------------------------------------------------------------------------------

struct Renamed {
  uint64_t a;
};
struct Other {
  uint32_t a;
};
struct Resized {
  uint32_t a;
  uint32_t b;
};

}  // namespace

template <>
struct mccc::bridge::TypeName<Resized> {
  static constexpr std::string_view kValue = "Other";
};

namespace {

TEST(BridgeSchema, NamesSizesAndOrderChangeTheFingerprint) {
  using mccc::bridge::kSchemaFingerprint;
  using Base = std::variant<Renamed, Other>;
  using Reordered = std::variant<Other, Renamed>;
  using Fewer = std::variant<Renamed>;
  using More = std::variant<Renamed, Other, Resized>;
  using SameNameOtherSize = std::variant<Renamed, Resized>;
  constexpr uint64_t kBase = kSchemaFingerprint<Base>;
  static_assert(kBase == kSchemaFingerprint<Base>, "deterministic");
  EXPECT_NE(kBase, kSchemaFingerprint<Reordered>);
  EXPECT_NE(kBase, kSchemaFingerprint<Fewer>);
  EXPECT_NE(kBase, kSchemaFingerprint<More>);
  // Same spelled name, other size: the TypeName specialization names Resized "Other".
  EXPECT_EQ(mccc::bridge::TypeName<Resized>::kValue, "Other");
  EXPECT_NE(kBase, kSchemaFingerprint<SameNameOtherSize>);
  EXPECT_NE(kSchemaFingerprint<bridge_test::Payload>,
            kSchemaFingerprint<bridge_test::OtherPayload>);
}

TEST(BridgeSchema, CompilerNamesAreTheQualifiedTypeNames) {
  EXPECT_EQ(mccc::bridge::TypeName<bridge_test::Telemetry>::kValue, "bridge_test::Telemetry");
  EXPECT_EQ(mccc::bridge::TypeName<uint32_t>::kValue, "unsigned int");
}

// ---- codec --------------------------------------------------------------------------------

TEST(BridgeCodec, TriviallyCopyableTypesTravelAsTheirBytes) {
  using Codec = mccc::bridge::Codec<bridge_test::Telemetry>;
  const bridge_test::Telemetry sent = bridge_test::MakeTelemetry(42U, 7U);
  std::array<uint8_t, sizeof(bridge_test::Telemetry)> bytes{};
  static_assert(Codec::EncodedSize(bridge_test::Telemetry{}) == 24U, "its size");
  Codec::Encode(sent, bytes.data());
  EXPECT_EQ(std::memcmp(bytes.data(), &sent, sizeof(sent)), 0);
  bridge_test::Telemetry received{};
  ASSERT_TRUE(Codec::Decode(bytes.data(), bytes.size(), received));
  EXPECT_TRUE(bridge_test::Valid(received));
  EXPECT_EQ(received.index, 42U);
  EXPECT_FALSE(Codec::Decode(bytes.data(), bytes.size() - 1U, received));
}

TEST(BridgeCodec, VectorCodecRoundTripsAndRefusesInconsistentBytes) {
  using Codec = mccc::bridge::Codec<bridge_test::Scan>;
  for (uint64_t index : {0U, 1U, 36U, 1000U}) {
    const bridge_test::Scan sent = bridge_test::MakeScan(index);
    std::vector<uint8_t> bytes(Codec::EncodedSize(sent));
    Codec::Encode(sent, bytes.data());
    bridge_test::Scan received;
    ASSERT_TRUE(Codec::Decode(bytes.data(), bytes.size(), received));
    EXPECT_TRUE(bridge_test::Valid(received));
    EXPECT_EQ(received.index, index);
    if (!bytes.empty()) {
      EXPECT_FALSE(Codec::Decode(bytes.data(), bytes.size() - 1U, received));
    }
    bytes.push_back(0U);
    EXPECT_FALSE(Codec::Decode(bytes.data(), bytes.size(), received));
  }
}

TEST(BridgeCodec, ReaderFailsPastTheEndAndStaysFailed) {
  const std::array<uint8_t, 5> bytes{1U, 2U, 3U, 4U, 5U};
  mccc::bridge::WireReader reader(bytes.data(), bytes.size());
  uint32_t word = 0U;
  ASSERT_TRUE(reader.Get32(word));
  EXPECT_EQ(word, 0x04030201U);
  uint16_t half = 0xBEEFU;
  EXPECT_FALSE(reader.Get16(half));
  EXPECT_EQ(half, 0xBEEFU);
  uint8_t byte = 0U;
  EXPECT_FALSE(reader.Get8(byte));  // failed for good, even though one byte is left
  EXPECT_FALSE(reader.Ok());
}

// ---- send queue ---------------------------------------------------------------------------

TEST(BridgeSendQueue, AdmissionRefusesLowThenMediumThenHighAtTheBusThresholds) {
  mccc::bridge::SendQueue<100U, 1U << 16U> queue;
  uint8_t* frame = nullptr;
  uint32_t queued = 0U;
  auto fill_with = [&](MessagePriority priority) {
    while (queue.TryReserve(priority, 60U, &frame) == mccc::bridge::Reservation::kGranted) {
      std::memset(frame, 0, 60U);
      queue.Commit(60U);
      ++queued;
    }
  };
  fill_with(MessagePriority::kLow);
  EXPECT_EQ(queued, 60U);
  fill_with(MessagePriority::kMedium);
  EXPECT_EQ(queued, 80U);
  fill_with(MessagePriority::kHigh);
  EXPECT_EQ(queued, 99U);
  EXPECT_EQ(queue.Size(), 99U);
  const uint8_t* out = nullptr;
  uint32_t size = 0U;
  ASSERT_TRUE(queue.Peek(&out, &size));
  queue.Pop();
  EXPECT_EQ(queue.TryReserve(MessagePriority::kLow, 60U, &frame),
            mccc::bridge::Reservation::kRefused);
  EXPECT_EQ(queue.TryReserve(MessagePriority::kHigh, 60U, &frame),
            mccc::bridge::Reservation::kGranted);
}

TEST(BridgeSendQueue, FramesOfEverySizeSurviveManyWrapsInOrder) {
  mccc::bridge::SendQueue<64U, 4096U> queue;
  std::mt19937 random(7U);
  uint64_t written = 0U;
  uint64_t read = 0U;
  for (int round = 0; round < 20000; ++round) {
    const auto size = static_cast<uint32_t>(8U + random() % 600U);
    uint8_t* frame = nullptr;
    const auto reservation = queue.TryReserve(MessagePriority::kHigh, size, &frame);
    if (reservation == mccc::bridge::Reservation::kGranted) {
      for (uint32_t i = 0U; i < size; ++i) {
        frame[i] = static_cast<uint8_t>(written + i);
      }
      std::memcpy(frame, &written, sizeof(written));
      queue.Commit(size);
      ++written;
    }
    const int pops = static_cast<int>(random() % 3U);
    for (int p = 0; p < pops; ++p) {
      const uint8_t* out = nullptr;
      uint32_t out_size = 0U;
      if (!queue.Peek(&out, &out_size)) {
        break;
      }
      uint64_t number = 0U;
      std::memcpy(&number, out, sizeof(number));
      ASSERT_EQ(number, read);
      for (uint32_t i = 8U; i < out_size; ++i) {
        ASSERT_EQ(out[i], static_cast<uint8_t>(read + i));
      }
      queue.Pop();
      ++read;
    }
  }
  EXPECT_GT(read, 10000U);
  EXPECT_EQ(queue.Size(), written - read);
}

TEST(BridgeSendQueue, PeekRunTakesTheOldestFramesWithinItsLimitsAcrossTheWrap) {
  mccc::bridge::SendQueue<64U, 4096U> queue;
  uint8_t* frame = nullptr;
  uint64_t written = 0U;
  uint64_t read = 0U;
  auto write = [&](uint32_t size) {
    ASSERT_EQ(queue.TryReserve(MessagePriority::kHigh, size, &frame),
              mccc::bridge::Reservation::kGranted);
    std::memset(frame, static_cast<int>(written & 0xFFU), size);
    queue.Commit(size);
    ++written;
  };
  std::array<mccc::bridge::ByteSpan, 8> run{};
  EXPECT_EQ(queue.PeekRun(run.data(), run.size(), 1000U), 0U);
  // 1,000-byte records: the fourth does not fit before the end of the 4,096 bytes and wraps.
  for (int round = 0; round < 6; ++round) {
    write(992U);
    write(992U);
    // Byte limit: the first frame always, the second only if both fit.
    ASSERT_EQ(queue.PeekRun(run.data(), run.size(), 1000U), 1U);
    ASSERT_EQ(queue.PeekRun(run.data(), run.size(), 1984U), 2U);
    // Frame limit.
    ASSERT_EQ(queue.PeekRun(run.data(), 1U, 1U << 20U), 1U);
    ASSERT_EQ(queue.PeekRun(run.data(), run.size(), 1U << 20U), 2U);
    for (std::size_t i = 0U; i < 2U; ++i) {
      ASSERT_EQ(run[i].size, 992U);
      EXPECT_EQ(run[i].data[0], static_cast<uint8_t>((read + i) & 0xFFU)) << round;
      EXPECT_EQ(run[i].data[991], static_cast<uint8_t>((read + i) & 0xFFU)) << round;
    }
    queue.PopRun();
    read += 2U;
    EXPECT_EQ(queue.Size(), 0U);
    EXPECT_EQ(queue.PoppedByConsumer(), read);
  }
  EXPECT_EQ(queue.PeekRun(run.data(), run.size(), 1U << 20U), 0U);
}

TEST(BridgeSendQueue, AFrameLargerThanHalfTheBytesIsTooLarge) {
  mccc::bridge::SendQueue<64U, 4096U> queue;
  uint8_t* frame = nullptr;
  using Queue = mccc::bridge::SendQueue<64U, 4096U>;
  EXPECT_EQ(queue.TryReserve(MessagePriority::kHigh, Queue::kMaxFrameBytes + 1U, &frame),
            mccc::bridge::Reservation::kTooLarge);
  EXPECT_EQ(queue.TryReserve(MessagePriority::kHigh, Queue::kMaxFrameBytes, &frame),
            mccc::bridge::Reservation::kGranted);
}

// ---- endpoints ----------------------------------------------------------------------------

TEST(BridgeEndpoints, FromBaseDerivesOneAddressPerChannel) {
  const auto tcp = mccc::bridge::ChannelEndpoints::FromBase("tcp://127.0.0.1:7000");
  EXPECT_EQ(tcp.high, "tcp://127.0.0.1:7000");
  EXPECT_EQ(tcp.normal, "tcp://127.0.0.1:7001");
  const auto any = mccc::bridge::ChannelEndpoints::FromBase("tcp://127.0.0.1:*");
  EXPECT_EQ(any.high, "tcp://127.0.0.1:*");
  EXPECT_EQ(any.normal, "tcp://127.0.0.1:*");
  const auto ipc = mccc::bridge::ChannelEndpoints::FromBase("ipc://@robot");
  EXPECT_EQ(ipc.high, "ipc://@robot.high");
  EXPECT_EQ(ipc.normal, "ipc://@robot.normal");
}

}  // namespace
