// SPDX-License-Identifier: MIT
// Unit tests of the codec's building blocks that need no ZeroMQ (so every preset runs them, the
// 32-bit cross build included): size arithmetic that cannot overflow and the element count of
// WireReader (byte_io.hpp), which types the default codec sends as their bytes
// (plain_layout.hpp), declared fields (fields.hpp: packed without padding, bool and enum
// validated, floats as IEEE bits) and the layout they give the schema fingerprint.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <variant>
#include <vector>

#include "mccc/bridge/codec.hpp"
#include "mccc/bridge/schema.hpp"

namespace codec_test {

struct Integers {  // plain: integers, no padding
  uint64_t index;
  uint32_t source;
  uint32_t check;
};
struct WithBlock {  // plain: a std::array member is one leaf
  uint64_t sequence;
  std::array<uint8_t, 1000> data;
};
struct Nested {  // plain: a plain member
  Integers inner;
  uint64_t extra;
};
struct Padded {  // 7 bytes of padding
  uint8_t a;
  uint64_t b;
};
enum class Mode : uint8_t { kIdle = 0U, kRun = 1U, kFault = 2U };
struct Flags {  // no padding, but bool and enum members
  bool armed;
  Mode mode;
  uint8_t spare[2];
};
struct Pointer {
  const uint32_t* where;
};
struct Point {  // floats: no unique representation
  float x;
  float y;
};
struct Heading {  // the same size, alignment and name in another build: another layout
  int32_t heading;
  float x;
};
struct Pose {
  Point position;
  Mode mode;
  bool valid;
  double stamp;
  int16_t offsets[3];
};

}  // namespace codec_test

MCCC_BRIDGE_ENUM_RANGE(codec_test::Mode, codec_test::Mode::kIdle, codec_test::Mode::kFault);
MCCC_BRIDGE_FIELDS(codec_test::Padded, a, b);
MCCC_BRIDGE_FIELDS(codec_test::Flags, armed, mode, spare);
MCCC_BRIDGE_FIELDS(codec_test::Point, x, y);
MCCC_BRIDGE_FIELDS(codec_test::Pose, position, mode, valid, stamp, offsets);

namespace {

using mccc::bridge::Codec;
using mccc::bridge::WireReader;
using mccc::bridge::WireWriter;

// ---- size arithmetic and element counts ---------------------------------------------------------

TEST(BridgeByteIo, CheckedArithmeticReportsOverflowInsteadOfWrapping) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  std::size_t out = 7U;
  EXPECT_TRUE(mccc::bridge::CheckedMultiply(4U, 1000U, out));
  EXPECT_EQ(out, 4000U);
  EXPECT_FALSE(mccc::bridge::CheckedMultiply(kMax / 4U + 1U, 4U, out));
  EXPECT_EQ(out, 4000U);  // untouched
  EXPECT_TRUE(mccc::bridge::CheckedMultiply(0U, kMax, out));
  EXPECT_EQ(out, 0U);
  EXPECT_TRUE(mccc::bridge::CheckedAdd(kMax - 1U, 1U, out));
  EXPECT_EQ(out, kMax);
  EXPECT_FALSE(mccc::bridge::CheckedAdd(kMax, 1U, out));
}

TEST(BridgeByteIo, ElementsFillComparesWithoutForming4TimesTheCount) {
  EXPECT_TRUE(mccc::bridge::ElementsFill(3U, 4U, 12U));
  EXPECT_FALSE(mccc::bridge::ElementsFill(3U, 4U, 13U));
  // 4 x 0x40000001 is 4 modulo 2^32: a 32-bit check by multiplication would accept it.
  EXPECT_FALSE(mccc::bridge::ElementsFill(0x40000001U, 4U, 4U));
  EXPECT_FALSE(mccc::bridge::ElementsFill(0x40000001U, 4U, 0U));
  EXPECT_FALSE(mccc::bridge::ElementsFill(uint64_t{1} << 62U, 4U, 0U));
  EXPECT_TRUE(mccc::bridge::ElementsFill(0U, 0U, 0U));
  EXPECT_FALSE(mccc::bridge::ElementsFill(1U, 0U, 0U));
}

TEST(BridgeByteIo, AnElementCountThatWouldWrapIsRefusedByTheReader) {
  std::array<uint8_t, 8> bytes{};
  WireWriter writer(bytes.data());
  writer.Put32(0x40000001U);  // announces a billion floats ...
  writer.PutFloat(1.5F);      // ... and brings one
  WireReader reader(bytes.data(), bytes.size());
  uint32_t count = 5U;
  EXPECT_FALSE(reader.GetCountOfRemaining(count, 4U));
  EXPECT_EQ(count, 5U);
  EXPECT_FALSE(reader.Ok());

  WireWriter honest(bytes.data());
  honest.Put32(1U);
  WireReader good(bytes.data(), bytes.size());
  EXPECT_TRUE(good.GetCountOfRemaining(count, 4U));
  EXPECT_EQ(count, 1U);
  float value = 0.0F;
  EXPECT_TRUE(good.GetFloat(value));
  EXPECT_EQ(value, 1.5F);
}

// ---- the default codec: plain types only --------------------------------------------------------

TEST(BridgePlainLayout, IntegersArraysAndNestedPlainTypesArePlain) {
  EXPECT_TRUE(mccc::bridge::kIsPlain<uint32_t>);
  EXPECT_TRUE(mccc::bridge::kIsPlain<codec_test::Integers>);
  EXPECT_TRUE(mccc::bridge::kIsPlain<codec_test::WithBlock>);
  EXPECT_TRUE(mccc::bridge::kIsPlain<codec_test::Nested>);
  EXPECT_TRUE((mccc::bridge::kIsPlain<std::array<uint16_t, 4>>));
  EXPECT_EQ(mccc::bridge::detail::PlainLeafCount<codec_test::Integers>(), 3U);
  EXPECT_EQ(mccc::bridge::detail::PlainLeafCount<codec_test::WithBlock>(), 2U);
}

TEST(BridgePlainLayout, PaddingBoolEnumFloatAndPointersAreNot) {
  EXPECT_FALSE(mccc::bridge::kIsPlain<bool>);
  EXPECT_FALSE(mccc::bridge::kIsPlain<codec_test::Mode>);
  EXPECT_FALSE(mccc::bridge::kIsPlain<float>);
  EXPECT_FALSE(mccc::bridge::kIsPlain<codec_test::Padded>);
  EXPECT_FALSE(mccc::bridge::kIsPlain<codec_test::Flags>);
  EXPECT_FALSE(mccc::bridge::kIsPlain<codec_test::Pointer>);
  EXPECT_FALSE(mccc::bridge::kIsPlain<codec_test::Point>);
  EXPECT_FALSE((mccc::bridge::kIsPlain<std::array<bool, 4>>));
}

TEST(BridgePlainLayout, APlainTypeTravelsAsItsBytes) {
  const codec_test::Integers value{0x0102030405060708ULL, 9U, 10U};
  ASSERT_EQ(Codec<codec_test::Integers>::EncodedSize(value), sizeof(value));
  std::array<uint8_t, sizeof(value)> bytes{};
  Codec<codec_test::Integers>::Encode(value, bytes.data());
  EXPECT_EQ(std::memcmp(bytes.data(), &value, sizeof(value)), 0);
  codec_test::Integers out{};
  EXPECT_TRUE(Codec<codec_test::Integers>::Decode(bytes.data(), bytes.size(), out));
  EXPECT_EQ(out.index, value.index);
  EXPECT_FALSE(Codec<codec_test::Integers>::Decode(bytes.data(), bytes.size() - 1U, out));
}

// ---- declared fields ----------------------------------------------------------------------------

TEST(BridgeDeclaredFields, PaddingBytesNeverReachTheWire) {
  codec_test::Padded value;
  std::memset(&value, 0xAB, sizeof(value));  // what the stack might hold in the padding
  value.a = 0x01U;
  value.b = 0x0203040506070809ULL;
  ASSERT_EQ(Codec<codec_test::Padded>::EncodedSize(value), 9U);
  std::vector<uint8_t> bytes(Codec<codec_test::Padded>::EncodedSize(value));
  Codec<codec_test::Padded>::Encode(value, bytes.data());
  const std::vector<uint8_t> expected = {0x01U, 0x09U, 0x08U, 0x07U, 0x06U,
                                         0x05U, 0x04U, 0x03U, 0x02U};
  EXPECT_EQ(bytes, expected);
  codec_test::Padded out{};
  ASSERT_TRUE(Codec<codec_test::Padded>::Decode(bytes.data(), bytes.size(), out));
  EXPECT_EQ(out.a, value.a);
  EXPECT_EQ(out.b, value.b);
}

TEST(BridgeDeclaredFields, AByteThatIsNoBoolAndAnUndeclaredEnumValueAreRefused) {
  codec_test::Flags out{};
  const std::array<uint8_t, 4> bad_bool = {0x02U, 0x01U, 0x00U, 0x00U};
  EXPECT_FALSE(Codec<codec_test::Flags>::Decode(bad_bool.data(), bad_bool.size(), out));
  const std::array<uint8_t, 4> bad_enum = {0x01U, 0x07U, 0x00U, 0x00U};
  EXPECT_FALSE(Codec<codec_test::Flags>::Decode(bad_enum.data(), bad_enum.size(), out));
  const std::array<uint8_t, 4> both = {0x02U, 0x07U, 0x00U, 0x00U};
  EXPECT_FALSE(Codec<codec_test::Flags>::Decode(both.data(), both.size(), out));
  const std::array<uint8_t, 4> good = {0x01U, 0x02U, 0x05U, 0x06U};
  ASSERT_TRUE(Codec<codec_test::Flags>::Decode(good.data(), good.size(), out));
  EXPECT_TRUE(out.armed);
  EXPECT_EQ(out.mode, codec_test::Mode::kFault);
  EXPECT_EQ(out.spare[1], 0x06U);
}

TEST(BridgeDeclaredFields, NestedFieldsFloatsAndArraysRoundTripPacked) {
  codec_test::Pose pose{};
  pose.position = codec_test::Point{1.25F, -3.5F};
  pose.mode = codec_test::Mode::kRun;
  pose.valid = true;
  pose.stamp = 12345.0625;
  pose.offsets[0] = -1;
  pose.offsets[1] = 2;
  pose.offsets[2] = -32768;
  constexpr std::size_t kPacked = 4U + 4U + 1U + 1U + 8U + 3U * 2U;
  ASSERT_EQ(Codec<codec_test::Pose>::EncodedSize(pose), kPacked);
  std::array<uint8_t, kPacked> bytes{};
  Codec<codec_test::Pose>::Encode(pose, bytes.data());
  EXPECT_EQ(bytes[8], 1U);      // mode
  EXPECT_EQ(bytes[9], 1U);      // valid
  EXPECT_EQ(bytes[18], 0xFFU);  // offsets[0] = -1, little-endian
  codec_test::Pose out{};
  ASSERT_TRUE(Codec<codec_test::Pose>::Decode(bytes.data(), bytes.size(), out));
  EXPECT_EQ(out.position.x, 1.25F);
  EXPECT_EQ(out.position.y, -3.5F);
  EXPECT_EQ(out.mode, codec_test::Mode::kRun);
  EXPECT_TRUE(out.valid);
  EXPECT_EQ(out.stamp, 12345.0625);
  EXPECT_EQ(out.offsets[2], -32768);
  EXPECT_FALSE(Codec<codec_test::Pose>::Decode(bytes.data(), kPacked - 1U, out));
  bytes[9] = 2U;
  EXPECT_FALSE(Codec<codec_test::Pose>::Decode(bytes.data(), bytes.size(), out));
}

// ---- the schema fingerprint sees the layout -----------------------------------------------------

}  // namespace

// Two builds of "robot::Pose": the name pinned alike, the layout not.
template <>
struct mccc::bridge::TypeName<codec_test::Point> {
  static constexpr std::string_view kValue = "robot::Pose";
};
template <>
struct mccc::bridge::TypeName<codec_test::Heading> {
  static constexpr std::string_view kValue = "robot::Pose";
};
MCCC_BRIDGE_FIELDS(codec_test::Heading, heading, x);

namespace {

TEST(BridgeSchemaLayout, TheSameNameSizeAndAlignmentWithAnotherLayoutIsAnotherSchema) {
  static_assert(sizeof(codec_test::Point) == sizeof(codec_test::Heading) &&
                    alignof(codec_test::Point) == alignof(codec_test::Heading),
                "the two layouts differ in nothing but their fields");
  EXPECT_NE(mccc::bridge::kSchemaFingerprint<std::variant<codec_test::Point>>,
            mccc::bridge::kSchemaFingerprint<std::variant<codec_test::Heading>>);
}

TEST(BridgeSchemaLayout, FieldNamesOffsetsAndKindsEachChangeTheLayoutHash) {
  using mccc::bridge::detail::HashDeclaredLayout;
  constexpr uint64_t kPoint = HashDeclaredLayout<codec_test::Point>(1U);
  constexpr uint64_t kHeading = HashDeclaredLayout<codec_test::Heading>(1U);
  constexpr uint64_t kPose = HashDeclaredLayout<codec_test::Pose>(1U);
  EXPECT_NE(kPoint, kHeading);
  EXPECT_NE(kPoint, kPose);
  // Plain types: the number of members is part of it.
  EXPECT_NE(mccc::bridge::kSchemaFingerprint<std::variant<codec_test::Integers>>,
            mccc::bridge::kSchemaFingerprint<std::variant<codec_test::Nested>>);
}

}  // namespace
