// SPDX-License-Identifier: MIT
// The memory a loan pool takes, exactly as docs/loans.md ("Memory") states it:
//
//   pool bytes   = round_up(control + N x BlockBytes(), max(block alignment, c))
//   BlockBytes() = round_up(round_up(header, alignof(T)) + sizeof(T), block alignment)
//   header       = 24 B (16 B on 32-bit targets): reference count, index, two pointers
//   block align  = max(alignof(T), cache line) on multi-core, max(alignof(T), alignof(header))
//                  on single-core
//   control      = round_up(round_up(round_up(round_up(16 + W x w, c) + 4 x c, L) + 4, L')
//                  + W x w + 4, block align)
//                  W bitmap words of w bytes (8, or 4 on 32-bit targets; W = 1 for messages
//                  under 1 KB, else ceil(N / (8 x w))), counters of c bytes
//                  (8, or 4 where 64-bit atomics are not lock-free), L and L' the cache line on
//                  multi-core (4 and w on single-core): the takers' line, the line of the
//                  count of returns, and the consumer's line
//
// The expectations below are that formula written out once (FormulaOf) and checked against the
// compiler's sizeof for many message sizes, alignments and pool sizes, single- and multi-core;
// then the bus: adding pools adds their bytes (up to the bus's alignment), and a loaned
// alternative is a two-pointer handle. The worked example of docs/loans.md (8 scans of 100 KB; the
// 13 GB of an inline variant) is checked literally on 64-bit hosts. Everything is constant: a
// failure names the numbers.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <variant>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

constexpr std::size_t RoundUp(std::size_t bytes, std::size_t alignment) {
  return (bytes + alignment - 1U) / alignment * alignment;
}
constexpr std::size_t Max(std::size_t a, std::size_t b) {
  return a > b ? a : b;
}

// The formula's constants for the target this test runs on.
// Bitmap words are 64-bit where 64-bit atomics are lock-free on a 64-bit target, else 32-bit.
constexpr std::size_t kWordBytes =
    sizeof(void*) >= 8U && std::atomic<uint64_t>::is_always_lock_free ? 8U : 4U;
constexpr std::size_t kHeaderBytes = sizeof(void*) == 8U ? 24U : 16U;
constexpr std::size_t kHeaderAlign = alignof(void*);
// The statistics counters are 64-bit where 64-bit atomics are lock-free, else 32-bit (Cortex-M).
constexpr std::size_t kCounterBytes = std::atomic<uint64_t>::is_always_lock_free ? 8U : 4U;
constexpr std::size_t kCacheLine = 64U;

/// What the formula of docs/loans.md says about LoanPool<T, N, kSingleCore>.
template <typename T, uint32_t kBlocks, bool kSingleCore>
struct FormulaOf {
  static constexpr std::size_t kBlockAlign =
      kSingleCore ? Max(alignof(T), kHeaderAlign) : Max(alignof(T), kCacheLine);
  static constexpr std::size_t kBlockBytes =
      RoundUp(RoundUp(kHeaderBytes, alignof(T)) + sizeof(T), kBlockAlign);
  // Bitmap words: a bit per block for messages of 1 KB or more; messages under 1 KB are taken
  // in turn and keep one unused word.
  static constexpr std::size_t kWords =
      sizeof(T) < 1024U ? 1U : (kBlocks + kWordBytes * 8U - 1U) / (kWordBytes * 8U);
  // The shared part: admission count, copy of the returns, cursor and high-water mark (4 B
  // each), the bitmap, then the granted and the three refused counters.
  static constexpr std::size_t kSharedBytes =
      RoundUp(16U + kWords * kWordBytes, kCounterBytes) + 4U * kCounterBytes;
  // Then, each on a line of its own on multi-core (naturally aligned on one core): the count of
  // returns (4 B), and the consumer's bitmap with the number of blocks waiting for a return.
  static constexpr std::size_t kLine = kSingleCore ? 4U : kCacheLine;
  static constexpr std::size_t kWordLine = kSingleCore ? kWordBytes : kCacheLine;
  static constexpr std::size_t kConsumerBytes = kWords * kWordBytes + 4U;
  static constexpr std::size_t kControlBytes =
      RoundUp(RoundUp(RoundUp(kSharedBytes, kLine) + 4U, kWordLine) + kConsumerBytes, kBlockAlign);
  static constexpr std::size_t kPoolBytes =
      RoundUp(kControlBytes + kBlocks * kBlockBytes, Max(kBlockAlign, kCounterBytes));
};

template <typename T, uint32_t kBlocks, bool kSingleCore>
using PoolUnderTest = mccc::LoanPool<T, kBlocks, kSingleCore>;

template <typename T, uint32_t kBlocks, bool kSingleCore>
void ExpectFormula(const char* what) {
  using Pool = PoolUnderTest<T, kBlocks, kSingleCore>;
  using Formula = FormulaOf<T, kBlocks, kSingleCore>;
  SCOPED_TRACE(::testing::Message()
               << what << ", N = " << kBlocks << (kSingleCore ? ", single-core" : ", multi-core"));
  EXPECT_EQ(Pool::BlockBytes(), Formula::kBlockBytes);
  EXPECT_EQ(Pool::BlockBytes() % Formula::kBlockAlign, 0U);
  EXPECT_EQ(sizeof(Pool), Formula::kPoolBytes);
  EXPECT_EQ(alignof(Pool), Max(Formula::kBlockAlign, Max(Formula::kLine, kCounterBytes)));
}

// Message types of several sizes and alignments.
struct OneByte {
  char value;
};
struct Imu {  // 24 B, 4-aligned
  float acceleration[3];
  float rate[3];
};
struct FortyBytes {  // with a 24-byte header exactly one 64-byte block
  double values[5];
};
struct FortyOneBytes {  // one byte more: two lines
  char values[41];
};
struct alignas(16) Quaternions {  // 48 B, 16-aligned: padding between header and message
  float values[12];
};
struct alignas(128) WideRecord {  // aligned beyond a cache line
  char values[128];
};
struct alignas(64) ImageTile {  // 4 KB, line-aligned
  unsigned char pixels[4096];
};
struct PointCloud {  // docs/loans.md's 100 KB scan
  uint32_t sensor;
  uint32_t sequence;
  uint32_t count;
  float xyz[3 * 8192];
};

template <bool kSingleCore>
void ExpectFormulaForEveryType() {
  ExpectFormula<OneByte, 1U, kSingleCore>("1 B");
  ExpectFormula<OneByte, 64U, kSingleCore>("1 B");
  ExpectFormula<OneByte, 65U, kSingleCore>("1 B");
  ExpectFormula<Imu, 8U, kSingleCore>("Imu 24 B");
  ExpectFormula<Imu, 192U, kSingleCore>("Imu 24 B");
  ExpectFormula<Imu, 193U, kSingleCore>("Imu 24 B");
  ExpectFormula<Imu, 1000U, kSingleCore>("Imu 24 B");
  ExpectFormula<FortyBytes, 7U, kSingleCore>("40 B");
  ExpectFormula<FortyOneBytes, 7U, kSingleCore>("41 B");
  ExpectFormula<Quaternions, 3U, kSingleCore>("48 B, 16-aligned");
  ExpectFormula<WideRecord, 2U, kSingleCore>("128 B, 128-aligned");
  ExpectFormula<WideRecord, 100U, kSingleCore>("128 B, 128-aligned");
  ExpectFormula<ImageTile, 4U, kSingleCore>("4 KB, 64-aligned");
  ExpectFormula<PointCloud, 1U, kSingleCore>("PointCloud");
  ExpectFormula<PointCloud, 8U, kSingleCore>("PointCloud");
  ExpectFormula<PointCloud, 33U, kSingleCore>("PointCloud");
}

TEST(LoanFootprint, HeaderAndHandleSizes) {
  EXPECT_EQ(sizeof(mccc::detail::LoanBlockHeader), kHeaderBytes);
  EXPECT_EQ(alignof(mccc::detail::LoanBlockHeader), kHeaderAlign);
  // The slot alternative: the block's header and the message's address.
  EXPECT_EQ(sizeof(mccc::Loaned<PointCloud>), 2U * sizeof(void*));
  EXPECT_EQ(sizeof(mccc::Loaned<OneByte>), 2U * sizeof(void*));
  EXPECT_EQ(sizeof(mccc::Retained<PointCloud>), 2U * sizeof(void*));
}

// G-15: every pool's size follows the formula of docs/loans.md (multi-core here, single-core next)
TEST(LoanFootprint, MultiCorePoolsFollowTheFormula) {
  ExpectFormulaForEveryType<false>();
}

TEST(LoanFootprint, SingleCorePoolsFollowTheFormula) {
  ExpectFormulaForEveryType<true>();
}

TEST(LoanFootprint, ControlIsThreeLinesOnMultiCore) {
  // One-byte messages take one 64-byte block each, so what is left is the control part: the
  // takers' line, the line of the count of returns, the consumer's line. Taken in turn, small
  // messages need no bitmap, and the control is three lines for any number of blocks.
  EXPECT_EQ(sizeof(PoolUnderTest<OneByte, 1U, false>) - 1U * kCacheLine, 3U * kCacheLine);
  EXPECT_EQ(sizeof(PoolUnderTest<OneByte, 1000U, false>) - 1000U * kCacheLine, 3U * kCacheLine);
  // Messages of 1 KB or more have a bit per block. The takers' line holds 16 bytes of counts,
  // four counters and as many bitmap words as fit in the rest: 128 blocks with 8-byte counters
  // (two 64-bit words, or four 32-bit ones); a block more takes a line more.
  using Tile = ImageTile;
  constexpr std::size_t kTileBlock = PoolUnderTest<Tile, 1U, false>::BlockBytes();
  constexpr auto kBlocksInOneLine =
      static_cast<uint32_t>((kCacheLine - 16U - 4U * kCounterBytes) / kWordBytes * kWordBytes * 8U);
  static_assert(kCounterBytes != 8U || kBlocksInOneLine == 128U, "as docs/loans.md says");
  EXPECT_EQ(sizeof(PoolUnderTest<Tile, 1U, false>) - 1U * kTileBlock, 3U * kCacheLine);
  EXPECT_EQ(sizeof(PoolUnderTest<Tile, kBlocksInOneLine, false>) - kBlocksInOneLine * kTileBlock,
            3U * kCacheLine);
  EXPECT_EQ(sizeof(PoolUnderTest<Tile, kBlocksInOneLine + 1U, false>) -
                (kBlocksInOneLine + 1U) * kTileBlock,
            4U * kCacheLine);
}

// The bus: pools are members (a base), nothing else changes.
struct TwoPointers {  // what a Loaned<T> alternative weighs, as a plain type
  const void* block;
  const void* message;
};
using ScanTraits = mccc_test::WithLoans<mccc_test::Ring<256U>, mccc::PoolOf<PointCloud, 8U>>;
using TwoPoolTraits = mccc_test::WithLoans<mccc_test::Ring<256U>, mccc::PoolOf<PointCloud, 8U>,
                                           mccc::PoolOf<ImageTile, 16U>>;
using PlainTraits = mccc_test::Ring<256U>;
using SingleCoreTraits =
    mccc_test::WithLoans<mccc_test::SingleCore<mccc_test::SmallRing>, mccc::PoolOf<PointCloud, 4U>>;
using SingleCorePlainTraits = mccc_test::SingleCore<mccc_test::SmallRing>;

using ScanBus = mccc::AsyncBus<std::variant<Imu, mccc::Loaned<PointCloud>>, ScanTraits>;
using ScanBusWithoutPool = mccc::AsyncBus<std::variant<Imu, TwoPointers>, PlainTraits>;
using TwoPoolBus =
    mccc::AsyncBus<std::variant<Imu, mccc::Loaned<PointCloud>, mccc::Loaned<ImageTile>>,
                   TwoPoolTraits>;
using TwoPoolBusWithoutPools =
    mccc::AsyncBus<std::variant<Imu, TwoPointers, TwoPointers>, PlainTraits>;
using SingleCoreBus = mccc::AsyncBus<std::variant<Imu, mccc::Loaned<PointCloud>>, SingleCoreTraits>;
using SingleCoreBusWithoutPool =
    mccc::AsyncBus<std::variant<Imu, TwoPointers>, SingleCorePlainTraits>;
// The same payload with the scan inline (only the slot size is asked for).
using InlineScanBus = mccc::AsyncBus<std::variant<Imu, PointCloud>, PlainTraits>;

// G-15: the pools add exactly their bytes to the bus
TEST(LoanFootprint, PoolsAddExactlyTheirBytesToTheBus) {
  using Pool = ScanBus::LoanPoolOf<PointCloud>;
  EXPECT_EQ(sizeof(Pool), (FormulaOf<PointCloud, 8U, false>::kPoolBytes));
  EXPECT_EQ(sizeof(ScanBus) - sizeof(ScanBusWithoutPool), sizeof(Pool));
  EXPECT_EQ(ScanBus::SlotBytes(), ScanBusWithoutPool::SlotBytes());

  EXPECT_EQ(sizeof(TwoPoolBus) - sizeof(TwoPoolBusWithoutPools),
            sizeof(TwoPoolBus::LoanPoolOf<PointCloud>) + sizeof(TwoPoolBus::LoanPoolOf<ImageTile>));
  EXPECT_EQ(sizeof(TwoPoolBus::LoanPoolOf<ImageTile>),
            (FormulaOf<ImageTile, 16U, false>::kPoolBytes));
  EXPECT_EQ(TwoPoolBus::SlotBytes(), TwoPoolBusWithoutPools::SlotBytes());

  using SingleCorePool = SingleCoreBus::LoanPoolOf<PointCloud>;
  EXPECT_EQ(sizeof(SingleCorePool), (FormulaOf<PointCloud, 4U, true>::kPoolBytes));
  // The pool is a base of the bus: the bus grows by its bytes, less what the base's tail
  // padding to the bus's alignment already held.
  EXPECT_LE(sizeof(SingleCoreBus) - sizeof(SingleCoreBusWithoutPool), sizeof(SingleCorePool));
  EXPECT_GT(sizeof(SingleCoreBus) - sizeof(SingleCoreBusWithoutPool) + alignof(SingleCoreBus),
            sizeof(SingleCorePool));
  EXPECT_EQ(SingleCoreBus::SlotBytes(), SingleCoreBusWithoutPool::SlotBytes());
}

// G-15: the worked example of docs/loans.md
TEST(LoanFootprint, WorkedExampleOf64BitHosts) {
  if (sizeof(void*) != 8U || kWordBytes != 8U) {
    GTEST_SKIP() << "the worked example of docs/loans.md is for 64-bit multi-core hosts";
  }
  EXPECT_EQ(sizeof(PointCloud), 98316U);
  // 24 + 98,316 = 98,340, rounded up to 64.
  EXPECT_EQ(ScanBus::LoanPoolOf<PointCloud>::BlockBytes(), 98368U);
  // 3 control lines + 8 blocks.
  EXPECT_EQ(sizeof(ScanBus::LoanPoolOf<PointCloud>), 192U + 8U * 98368U);
  EXPECT_EQ(sizeof(ScanBus::LoanPoolOf<PointCloud>), 787136U);
  // A slot carrying the handle: 24-byte header + 32-byte variant + 8-byte sequence word.
  EXPECT_EQ(ScanBus::SlotBytes(), 64U);
  // The same scan inline: every slot holds it (24 + 98,320-byte variant + 8).
  EXPECT_EQ(InlineScanBus::SlotBytes(), 98352U);
  // The default bus: 131,072 slots and the 1,024 of the HIGH ring.
  constexpr uint64_t kDefaultSlots = 131072U + 1024U;
  EXPECT_EQ(kDefaultSlots * InlineScanBus::SlotBytes(), 12991905792U);  // 13.0 GB
  EXPECT_EQ(kDefaultSlots * ScanBus::SlotBytes(), 8454144U);            // 8.1 MiB
}

// G-13: docs/loans.md's table of pool limits and HIGH reserves
TEST(LoanFootprint, AdmissionLimitsQuotedInTheReadme) {
  using Eight = mccc::LoanAdmission<8U>;
  EXPECT_EQ(Eight::kLowLimit, 5U);     // ceil(4.8)
  EXPECT_EQ(Eight::kMediumLimit, 7U);  // ceil(6.4)
  EXPECT_EQ(Eight::kHighLimit, 8U);
  EXPECT_EQ(Eight::kHighReserve, 1U);
  using Four = mccc::LoanAdmission<4U>;  // ceil(3.2) = 4 would leave HIGH nothing: N - 1
  EXPECT_EQ(Four::kLowLimit, 3U);
  EXPECT_EQ(Four::kMediumLimit, 3U);
  EXPECT_EQ(Four::kHighReserve, 1U);
  using One = mccc::LoanAdmission<1U>;  // a pool of one block is HIGH-only
  EXPECT_EQ(One::kLowLimit, 0U);
  EXPECT_EQ(One::kMediumLimit, 0U);
  EXPECT_EQ(One::kHighLimit, 1U);
  using Hundred = mccc::LoanAdmission<100U>;
  EXPECT_EQ(Hundred::kLowLimit, 60U);
  EXPECT_EQ(Hundred::kMediumLimit, 80U);
  EXPECT_EQ(Hundred::kHighReserve, 20U);
}

}  // namespace
