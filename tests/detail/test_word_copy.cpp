// SPDX-License-Identifier: MIT
// Word-by-word copy of small messages (detail/word_copy.hpp): which types take it, that it copies
// every byte, and that every publish route delivers such messages intact, including an object
// the caller reuses and updates between publishes.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Sample24 {  // 8-byte words
  uint64_t seq;
  float x;
  float y;
  float z;
  float w;
};
struct Vector12 {  // 4-byte words
  float x;
  float y;
  float z;
};
struct Frame128 {  // the largest size copied by words
  uint64_t seq;
  std::array<float, 30> values;
};
struct Bytes24 {  // byte-aligned: the ordinary copy
  std::array<unsigned char, 24> bytes;
};
struct Frame136 {  // beyond the limit: the ordinary copy
  uint64_t seq;
  std::array<uint64_t, 16> values;
};
struct Tagged {  // trivially copyable, but no default constructor: the ordinary copy
  explicit Tagged(uint32_t v) noexcept : value(v) {}
  uint32_t value;
};
struct Named {  // not trivially copyable: the ordinary copy
  std::string name;
};

static_assert(mccc::detail::kCopiesByWords<Sample24>);
static_assert(mccc::detail::kCopyWordBytes<Sample24> == sizeof(uintptr_t) ||
              sizeof(uintptr_t) < 8U);
static_assert(mccc::detail::kCopiesByWords<Vector12>);
static_assert(mccc::detail::kCopyWordBytes<Vector12> == 4U);
static_assert(mccc::detail::kCopiesByWords<Frame128>);
static_assert(sizeof(Frame128) == mccc::detail::kMaxWordCopyBytes);
static_assert(!mccc::detail::kCopiesByWords<Bytes24>, "a byte array would be copied bytewise");
static_assert(!mccc::detail::kCopiesByWords<Frame136>, "above kMaxWordCopyBytes");
static_assert(!mccc::detail::kCopiesByWords<Tagged>, "the bus builds the slot object first");
static_assert(!mccc::detail::kCopiesByWords<Named>, "only trivially copyable types");

/// Fills every byte of `object` (padding included) with `seed`, `seed + 1`, ...
template <typename T>
void FillBytes(T& object, unsigned char seed) {
  std::array<unsigned char, sizeof(T)> bytes{};
  for (std::size_t i = 0U; i < bytes.size(); ++i) {
    bytes[i] = static_cast<unsigned char>(seed + i);
  }
  std::memcpy(&object, bytes.data(), sizeof(T));
}

template <typename T>
void ExpectEveryByteCopied() {
  T source{};
  T destination{};
  FillBytes(source, 0x11U);
  FillBytes(destination, 0xA0U);
  mccc::detail::CopyByWords(destination, source);
  EXPECT_EQ(std::memcmp(&destination, &source, sizeof(T)), 0);
}

TEST(WordCopy, CopiesEveryByteOfEveryWordSize) {
  ExpectEveryByteCopied<Sample24>();
  ExpectEveryByteCopied<Vector12>();
  ExpectEveryByteCopied<Frame128>();
}

using Payload = std::variant<Sample24, Vector12, Frame128, Bytes24, Frame136>;

using SharedRingTraits = mccc_test::WithHighRing<mccc_test::Ring<256U>, 16U>;
using LaneTraits = mccc_test::WithLanes<SharedRingTraits, 2U>;
using CompactTraits = mccc_test::Compact<SharedRingTraits>;

/// What the subscribers saw, in delivery order.
struct Received {
  std::vector<Sample24> samples;
  std::vector<Vector12> vectors;
  std::vector<Frame128> frames;
  std::vector<Bytes24> byte_arrays;
  std::vector<Frame136> big_frames;
};

template <typename Bus>
void SubscribeAll(Bus& bus, Received& received) {
  bus.template Subscribe<Sample24>(
      [&received](const Sample24& m) { received.samples.push_back(m); });
  bus.template Subscribe<Vector12>(
      [&received](const Vector12& m) { received.vectors.push_back(m); });
  bus.template Subscribe<Frame128>(
      [&received](const Frame128& m) { received.frames.push_back(m); });
  bus.template Subscribe<Bytes24>(
      [&received](const Bytes24& m) { received.byte_arrays.push_back(m); });
  bus.template Subscribe<Frame136>(
      [&received](const Frame136& m) { received.big_frames.push_back(m); });
}

template <typename Bus>
void DrainAll(Bus& bus) {
  while (bus.ProcessBatch() != 0U) {
  }
}

Frame128 MakeFrame(uint64_t seq) {
  Frame128 frame{};
  frame.seq = seq;
  for (std::size_t i = 0U; i < frame.values.size(); ++i) {
    frame.values[i] = static_cast<float>(seq * 100U + i);
  }
  return frame;
}

void ExpectFrame(const Frame128& frame, uint64_t seq) {
  const Frame128 expected = MakeFrame(seq);
  EXPECT_EQ(std::memcmp(&frame, &expected, sizeof(Frame128)), 0) << "frame " << seq;
}

/// Publishes through `publisher` (the bus itself or a lane handle) by every route: one reused
/// object updated before each publish (the case the word copy is for), temporaries, HIGH
/// messages, and batches; checks every field of every delivered message.
template <typename Bus, typename Publisher>
void PublishEveryRouteAndCheck(Bus& bus, Publisher& publisher) {
  Received received;
  SubscribeAll(bus, received);
  constexpr uint64_t kCount = 40U;

  Sample24 reused{0U, 1.5F, 2.5F, 3.5F, 4.5F};
  Frame128 reused_frame = MakeFrame(0U);
  for (uint64_t i = 0U; i < kCount; ++i) {
    reused.seq = i;  // the one field written just before the publish
    reused.w = static_cast<float>(i);
    ASSERT_TRUE(publisher.Publish(reused, 7U));
    reused_frame = MakeFrame(i);
    ASSERT_TRUE(publisher.PublishFast(reused_frame, 7U, 0U));
    ASSERT_TRUE(publisher.PublishWithPriority(Vector12{static_cast<float>(i), 2.0F, 3.0F}, 7U,
                                              mccc::MessagePriority::kHigh));
    Bytes24 raw{};
    raw.bytes.fill(static_cast<unsigned char>(i));
    ASSERT_TRUE(publisher.Publish(raw, 7U));
    Frame136 big{};
    big.seq = i;
    big.values.fill(i * 3U);
    ASSERT_TRUE(publisher.Publish(std::move(big), 7U));
    DrainAll(bus);
  }
  std::array<Sample24, 8> batch{};
  for (std::size_t k = 0U; k < batch.size(); ++k) {
    batch[k] = Sample24{kCount + k, 1.5F, 2.5F, 3.5F, static_cast<float>(kCount + k)};
  }
  ASSERT_EQ(publisher.PublishBatch(batch.data(), static_cast<uint32_t>(batch.size()), 7U),
            batch.size());
  DrainAll(bus);

  ASSERT_EQ(received.samples.size(), kCount + batch.size());
  for (std::size_t i = 0U; i < received.samples.size(); ++i) {
    const Sample24& s = received.samples[i];
    EXPECT_EQ(s.seq, i);
    EXPECT_EQ(s.x, 1.5F);
    EXPECT_EQ(s.y, 2.5F);
    EXPECT_EQ(s.z, 3.5F);
    EXPECT_EQ(s.w, static_cast<float>(i));
  }
  ASSERT_EQ(received.frames.size(), kCount);
  ASSERT_EQ(received.vectors.size(), kCount);
  ASSERT_EQ(received.byte_arrays.size(), kCount);
  ASSERT_EQ(received.big_frames.size(), kCount);
  for (std::size_t i = 0U; i < kCount; ++i) {  // size_t: a vector index on 32-bit targets too
    ExpectFrame(received.frames[i], i);
    EXPECT_EQ(received.vectors[i].x, static_cast<float>(i));
    EXPECT_EQ(received.vectors[i].y, 2.0F);
    EXPECT_EQ(received.vectors[i].z, 3.0F);
    for (unsigned char b : received.byte_arrays[i].bytes) {
      EXPECT_EQ(b, static_cast<unsigned char>(i));
    }
    EXPECT_EQ(received.big_frames[i].seq, i);
    for (uint64_t v : received.big_frames[i].values) {
      EXPECT_EQ(v, i * 3U);
    }
  }
}

TEST(WordCopy, SharedRingDeliversEveryFieldByEveryRoute) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, SharedRingTraits>>();
  PublishEveryRouteAndCheck(*bus, *bus);
}

TEST(WordCopy, ProducerLaneDeliversEveryFieldByEveryRoute) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, LaneTraits>>();
  auto producer = bus->MakeProducer();
  ASSERT_TRUE(producer.HasOwnLane());
  PublishEveryRouteAndCheck(*bus, producer);
}

TEST(WordCopy, CompactEnvelopeDeliversEveryFieldByEveryRoute) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, CompactTraits>>();
  PublishEveryRouteAndCheck(*bus, *bus);
}

}  // namespace
