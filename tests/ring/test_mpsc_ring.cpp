// SPDX-License-Identifier: MIT
// The ring on its own: FIFO order, element lifetime, modular positions near the wrap point, and a
// producer suspended between claiming a slot and publishing it (test hook).
#define MCCC_ENABLE_TEST_HOOKS 1  // this test binary only: enables the ring's test hooks
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "mccc/ring/mpsc_ring.hpp"

namespace {

struct Counted {
  static inline std::atomic<int> live{0};
  uint64_t value;
  explicit Counted(uint64_t v) noexcept : value(v) { ++live; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  ~Counted() { --live; }
};

template <typename Position, bool kSingleProducer = false>
using Ring = mccc::detail::MpscRing<Counted, 8U, kSingleProducer, false, Position, 64U>;

template <typename RingT, typename Position>
bool PushValue(RingT& ring, Position limit, uint64_t value) {
  return ring
      .TryPublish(limit,
                  [value](void* storage, Position) noexcept { ::new (storage) Counted(value); })
      .admitted;
}

template <typename RingT>
std::vector<uint64_t> Drain(RingT& ring) {
  std::vector<uint64_t> out;
  ring.ConsumeBatch(1000U, [&](Counted& c, auto) noexcept { out.push_back(c.value); });
  return out;
}

TEST(MpscRing, FifoAndCapacity) {
  auto ring = std::make_unique<Ring<uint64_t>>();
  for (uint64_t i = 0; i < 8U; ++i) {
    ASSERT_TRUE(PushValue(*ring, uint64_t{8}, i));
  }
  EXPECT_FALSE(PushValue(*ring, uint64_t{8}, 99U));  // full
  EXPECT_EQ(ring->Occupancy(), 8U);
  EXPECT_EQ(Counted::live.load(), 8);
  EXPECT_EQ(Drain(*ring), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(Counted::live.load(), 0);  // destroyed right after each visit
  EXPECT_EQ(ring->Occupancy(), 0U);
}

TEST(MpscRing, LimitBelowCapacityIsRespected) {
  auto ring = std::make_unique<Ring<uint64_t>>();
  for (uint64_t i = 0; i < 5U; ++i) {
    ASSERT_TRUE(PushValue(*ring, uint64_t{5}, i));
  }
  const auto claim =
      ring->TryPublish(uint64_t{5}, [](void* s, uint64_t) noexcept { ::new (s) Counted(0U); });
  EXPECT_FALSE(claim.admitted);
  EXPECT_EQ(claim.occupancy, 5U);
  EXPECT_EQ(claim.position, 5U);  // the tail observed
  EXPECT_EQ(Drain(*ring).size(), 5U);
}

// G-10: the destructor destroys what is queued
TEST(MpscRing, DestructorDestroysQueuedElements) {
  {
    auto ring = std::make_unique<Ring<uint32_t>>();
    for (uint64_t i = 0; i < 6U; ++i) {
      ASSERT_TRUE(PushValue(*ring, uint32_t{8}, i));
    }
    EXPECT_EQ(Counted::live.load(), 6);
  }
  EXPECT_EQ(Counted::live.load(), 0);
}

// Positions start a few laps before the wrap of the position type; FIFO and capacity must hold
// across it, for every starting residue.
template <typename Position, bool kSingleProducer>
void WrapAround() {
  constexpr Position kMax = std::numeric_limits<Position>::max();
  for (Position offset = 0; offset < 20U; ++offset) {
    auto ring =
        std::make_unique<Ring<Position, kSingleProducer>>(static_cast<Position>(kMax - offset));
    uint64_t next_in = 0U;
    uint64_t next_out = 0U;
    for (int round = 0; round < 10; ++round) {
      while (PushValue(*ring, Position{8}, next_in)) {
        ++next_in;
      }
      ASSERT_EQ(ring->Occupancy(), 8U);
      const auto out = Drain(*ring);
      ASSERT_EQ(out.size(), 8U);
      for (uint64_t v : out) {
        ASSERT_EQ(v, next_out++);
      }
      // Partial fill: moves the phase between head and the slot boundaries.
      for (int k = 0; k < 3; ++k) {
        ASSERT_TRUE(PushValue(*ring, Position{8}, next_in++));
      }
      const auto part = Drain(*ring);
      ASSERT_EQ(part.size(), 3U);
      for (uint64_t v : part) {
        ASSERT_EQ(v, next_out++);
      }
    }
    EXPECT_EQ(Counted::live.load(), 0);
    // The positions really went through the wrap point.
    EXPECT_LT(ring->ConsumedPosition(), Position{200});
  }
}

// G-20: ring positions exact across their wrap point (the four tests below)
TEST(MpscRing, WrapAround64BitMultiProducer) {
  WrapAround<uint64_t, false>();
}
TEST(MpscRing, WrapAround64BitSingleProducer) {
  WrapAround<uint64_t, true>();
}
TEST(MpscRing, WrapAround32BitMultiProducer) {
  WrapAround<uint32_t, false>();
}
TEST(MpscRing, WrapAround32BitSingleProducer) {
  WrapAround<uint32_t, true>();
}

// Batches of every size 1..9 claimed across the wrap point of the position type: each call
// takes min(size, room) consecutive positions, elements carry their index, FIFO holds.
template <typename Position, bool kSingleProducer>
void BatchWrapAround() {
  constexpr Position kMax = std::numeric_limits<Position>::max();
  for (Position offset = 0; offset < 12U; ++offset) {
    auto ring =
        std::make_unique<Ring<Position, kSingleProducer>>(static_cast<Position>(kMax - offset));
    uint64_t next_in = 0U;
    uint64_t next_out = 0U;
    for (uint32_t size = 1U; size <= 9U; ++size) {
      for (Position limit = 1U; limit <= 8U; ++limit) {
        const Position before = ring->Occupancy();
        const auto claim = ring->TryPublishBatch(
            limit, size, [next_in](void* storage, Position, uint32_t index) noexcept {
              ::new (storage) Counted(next_in + index);
            });
        const Position room = before < limit ? static_cast<Position>(limit - before) : 0U;
        const Position expected = room < size ? room : static_cast<Position>(size);
        ASSERT_EQ(claim.admitted, expected) << "size " << size << " limit " << limit;
        // The occupancy the decision used: the producer's cached view, never below the truth.
        ASSERT_GE(claim.occupancy, before);
        next_in += claim.admitted;
        ASSERT_EQ(ring->Occupancy(), before + claim.admitted);
        if (ring->Occupancy() >= 6U) {
          for (uint64_t v : Drain(*ring)) {
            ASSERT_EQ(v, next_out++);
          }
        }
      }
    }
    for (uint64_t v : Drain(*ring)) {
      ASSERT_EQ(v, next_out++);
    }
    EXPECT_EQ(next_out, next_in);
    EXPECT_EQ(Counted::live.load(), 0);
    EXPECT_LT(ring->ConsumedPosition(), Position{400});  // went through the wrap point
  }
}

// G-8: batches of every size at every limit across the position wrap point (four tests)
TEST(MpscRing, BatchWrapAround64BitMultiProducer) {
  BatchWrapAround<uint64_t, false>();
}
TEST(MpscRing, BatchWrapAround64BitSingleProducer) {
  BatchWrapAround<uint64_t, true>();
}
TEST(MpscRing, BatchWrapAround32BitSingleProducer) {
  BatchWrapAround<uint32_t, true>();
}
TEST(MpscRing, BatchWrapAround32BitMultiProducer) {
  BatchWrapAround<uint32_t, false>();
}

// A producer suspended after claiming a slot and before writing it: the consumer never reads
// the half-written slot, later messages wait behind it, and everything is delivered once the
// producer resumes.
// G-18: a producer suspended between claim and publish: no half-written read, nothing lost
TEST(MpscRing, SuspendedProducerBlocksOnlyUntilItResumes) {
  using R = mccc::detail::MpscRing<Counted, 64U, false, false, uint64_t, 64U>;
  auto ring = std::make_unique<R>();
  struct Gate {
    std::atomic<bool> suspended{false};
    std::atomic<bool> resume{false};
    std::atomic<uint64_t> target{1U};
  } gate;
  ring->SetAfterClaimHook(
      [](void* ctx, uint64_t position) {
        auto* g = static_cast<Gate*>(ctx);
        if (position == g->target.load()) {
          g->suspended.store(true);
          while (!g->resume.load()) {
            std::this_thread::yield();
          }
        }
      },
      &gate);
  ASSERT_TRUE(PushValue(*ring, uint64_t{64}, 0U));                             // position 0
  std::thread slow([&] { ASSERT_TRUE(PushValue(*ring, uint64_t{64}, 1U)); });  // position 1
  while (!gate.suspended.load()) {
    std::this_thread::yield();
  }
  for (uint64_t v = 2U; v < 10U; ++v) {  // positions 2..9, complete
    ASSERT_TRUE(PushValue(*ring, uint64_t{64}, v));
  }
  EXPECT_EQ(ring->Occupancy(), 10U);                    // the claimed slot counts as occupied
  EXPECT_EQ(Drain(*ring), (std::vector<uint64_t>{0}));  // stops before the unfinished slot
  EXPECT_TRUE(Drain(*ring).empty());
  EXPECT_TRUE(ring->HasClaimedWork());
  EXPECT_FALSE(ring->HasReadyElement());
  gate.resume.store(true);
  slow.join();
  EXPECT_EQ(Drain(*ring), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(Counted::live.load(), 0);
}

}  // namespace
