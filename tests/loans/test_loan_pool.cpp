// SPDX-License-Identifier: MIT
// LoanPool on its own (loans/loan_pool.hpp) and the handles it gives out (loans/loan_handles.hpp):
// the admission limits per priority for pools of 1 to 129 blocks, block addresses and alignment,
// the counters, Retain of references that are not (or no longer) loaned messages, the reference
// counting of Retained copies, a four-thread take/fill/verify/release run that proves no block is
// ever held twice, the snapshot InUse reads while blocks come and go (between its own reads and
// from other threads), and the single-core pool through a counting critical section.
// Every expected number below is written out by hand from the documented rule, not computed by the
// formula under test.
#define MCCC_ENABLE_TEST_HOOKS 1  // this test binary only: LoanPool::SetInUseReadHook

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "mccc/loans/loan_handles.hpp"
#include "mccc/loans/loan_pool.hpp"
#include "mccc/message.hpp"
#include "stress/stress_support.hpp"

namespace {

using mccc::LoanPoolStatistics;
using mccc::MessageLoan;
using mccc::MessagePriority;
using mccc::Retained;

constexpr std::array<MessagePriority, mccc::kPriorityCount> kPriorities{
    MessagePriority::kLow, MessagePriority::kMedium, MessagePriority::kHigh};

/// A small message with an alignment above the default new alignment of its members.
struct alignas(16) Packet {
  uint32_t owner;
  uint32_t round;
  uint64_t words[5];
};

/// The same fields in a message of 1 KB or more (a pool takes its lowest free block first).
struct alignas(16) BigPacket {
  uint32_t owner;
  uint32_t round;
  uint64_t words[5];
  unsigned char payload[1024];
};
static_assert(mccc::LoanPool<Packet, 8U>::kTakesInTurn &&
                  !mccc::LoanPool<BigPacket, 8U>::kTakesInTurn,
              "the two messages select the two ways of finding a block");

/// A message whose alignment exceeds the cache line the blocks are otherwise aligned to.
struct alignas(128) WideAligned {
  uint64_t value;
};

/// Counts live objects, so a test sees exactly when the pool destroys its messages.
struct Tracked {
  static inline std::atomic<int> live{0};
  explicit Tracked(uint32_t v) noexcept : value(v) { live.fetch_add(1); }
  Tracked() noexcept : Tracked(0U) {}
  Tracked(const Tracked&) = delete;
  Tracked& operator=(const Tracked&) = delete;
  ~Tracked() { live.fetch_sub(1); }
  uint32_t value;
};

template <typename Pool>
MessageLoan<typename Pool::Message> TakeAt(Pool& pool, MessagePriority priority) {
  return pool.TryLoan(priority, Pool::Admission::LimitFor(priority), true);
}

template <typename Pool>
std::uintptr_t AddressOf(const MessageLoan<typename Pool::Message>& loan) {
  return reinterpret_cast<std::uintptr_t>(loan.Get());
}

// ---------------------------------------------------------------------------------------------
// Admission limits for many pool sizes.
// ---------------------------------------------------------------------------------------------

/// LOW = min(ceil(60 % N), MEDIUM), MEDIUM = min(ceil(80 % N), N - 1), HIGH = N, by hand.
struct ExpectedLimits {
  uint32_t blocks;
  uint32_t low;
  uint32_t medium;
  uint32_t high;
};
constexpr std::array<ExpectedLimits, 10> kExpectedLimits{
    {{1U, 0U, 0U, 1U},          // 80 % of 1 rounds up to 1, but MEDIUM leaves one block to HIGH
     {2U, 1U, 1U, 2U},          // ceil(1.2) = 2 and ceil(1.6) = 2, both capped at N - 1
     {3U, 2U, 2U, 3U},          // ceil(1.8) = 2, ceil(2.4) = 3 capped at 2
     {4U, 3U, 3U, 4U},          // ceil(2.4) = 3, ceil(3.2) = 4 capped at 3
     {5U, 3U, 4U, 5U},          // 3 and 4 exactly
     {10U, 6U, 8U, 10U},        // 6 and 8 exactly
     {64U, 39U, 52U, 64U},      // ceil(38.4), ceil(51.2)
     {65U, 39U, 52U, 65U},      // 39 and 52 exactly
     {100U, 60U, 80U, 100U},    // 60 and 80 exactly
     {129U, 78U, 104U, 129U}},  // ceil(77.4), ceil(103.2)
};

constexpr ExpectedLimits ExpectedFor(uint32_t blocks) {
  for (const ExpectedLimits& e : kExpectedLimits) {
    if (e.blocks == blocks) {
      return e;
    }
  }
  return ExpectedLimits{0U, 0U, 0U, 0U};
}

/// A pool size and its message type: Packet is taken in turn, BigPacket (1 KB or more) lowest
/// free block first, so both ways of finding a block meet every case.
template <uint32_t kBlocks, typename MessageType = Packet>
struct Blocks : std::integral_constant<uint32_t, kBlocks> {
  using Message = MessageType;
};

template <typename BlockCount>
class LoanPoolAdmission : public ::testing::Test {
 public:
  static constexpr uint32_t kBlocks = BlockCount::value;
  static constexpr ExpectedLimits kExpected = ExpectedFor(kBlocks);
  using Pool = mccc::LoanPool<typename BlockCount::Message, kBlocks>;
  using Admission = typename Pool::Admission;
  static_assert(kExpected.blocks == kBlocks, "every tested size has a row in kExpectedLimits");
  static_assert(Admission::kLowLimit == kExpected.low, "LOW limit as documented");
  static_assert(Admission::kMediumLimit == kExpected.medium, "MEDIUM limit as documented");
  static_assert(Admission::kHighLimit == kExpected.high, "HIGH limit as documented");
  static_assert(Admission::kHighReserve == kExpected.high - kExpected.medium,
                "the HIGH reserve is what MEDIUM may not take");
  static_assert(Admission::kHighReserve >= 1U, "HIGH always keeps at least one block");

  /// Takes blocks at `priority` until the pool refuses; returns how many were granted.
  static uint32_t TakeUntilRefused(Pool& pool, MessagePriority priority,
                                   std::vector<MessageLoan<typename Pool::Message>>& held) {
    uint32_t granted = 0U;
    for (;;) {
      MessageLoan<typename Pool::Message> loan = TakeAt(pool, priority);
      if (!loan) {
        return granted;
      }
      held.push_back(std::move(loan));
      ++granted;
    }
  }
};

using PoolSizes =
    ::testing::Types<Blocks<1U>, Blocks<2U>, Blocks<3U>, Blocks<4U>, Blocks<5U>, Blocks<10U>,
                     Blocks<64U>, Blocks<65U>, Blocks<100U>, Blocks<129U>, Blocks<1U, BigPacket>,
                     Blocks<5U, BigPacket>, Blocks<65U, BigPacket>, Blocks<129U, BigPacket>>;
TYPED_TEST_SUITE(LoanPoolAdmission, PoolSizes);

// G-13: each priority is granted blocks exactly up to its limit (pools of 1 to 129 blocks)
TYPED_TEST(LoanPoolAdmission, EachPriorityTakesBlocksUpToItsLimitAndNoFurther) {
  using Fixture = TestFixture;
  constexpr ExpectedLimits kLimits = Fixture::kExpected;
  auto pool = std::make_unique<typename Fixture::Pool>();
  std::vector<MessageLoan<typename TestFixture::Pool::Message>> held;

  EXPECT_EQ(Fixture::TakeUntilRefused(*pool, MessagePriority::kLow, held), kLimits.low);
  EXPECT_EQ(pool->InUse(), kLimits.low);
  EXPECT_EQ(Fixture::TakeUntilRefused(*pool, MessagePriority::kMedium, held),
            kLimits.medium - kLimits.low);
  EXPECT_EQ(pool->InUse(), kLimits.medium);
  EXPECT_FALSE(TakeAt(*pool, MessagePriority::kLow)) << "LOW stays refused above its limit";
  EXPECT_EQ(Fixture::TakeUntilRefused(*pool, MessagePriority::kHigh, held),
            kLimits.high - kLimits.medium);
  EXPECT_EQ(pool->InUse(), Fixture::kBlocks);
  EXPECT_FALSE(TakeAt(*pool, MessagePriority::kLow));
  EXPECT_FALSE(TakeAt(*pool, MessagePriority::kMedium));

  // Refusals so far: LOW 3, MEDIUM 2, HIGH 1 (one per TakeUntilRefused, plus the re-checks).
  LoanPoolStatistics s = pool->Statistics();
  EXPECT_EQ(s.capacity, Fixture::kBlocks);
  EXPECT_EQ(s.in_use, Fixture::kBlocks);
  EXPECT_EQ(s.high_water, Fixture::kBlocks);
  EXPECT_EQ(s.loans_granted, uint64_t{Fixture::kBlocks});
  EXPECT_EQ(s.low_priority_refused, 3U);
  EXPECT_EQ(s.medium_priority_refused, 2U);
  EXPECT_EQ(s.high_priority_refused, 1U);

  // One block back: only HIGH may take it again (the pool is above the MEDIUM limit).
  held.pop_back();
  EXPECT_EQ(pool->InUse(), Fixture::kBlocks - 1U);
  if (kLimits.medium < Fixture::kBlocks - 1U) {
    EXPECT_FALSE(TakeAt(*pool, MessagePriority::kMedium));
  }
  MessageLoan<typename TestFixture::Pool::Message> again = TakeAt(*pool, MessagePriority::kHigh);
  EXPECT_TRUE(again);
  again.Reset();

  held.clear();
  EXPECT_EQ(pool->InUse(), 0U);
  EXPECT_EQ(pool->Statistics().high_water, Fixture::kBlocks) << "the mark stays until reset";
}

// G-13: from empty, each priority alone reaches exactly its limit
TYPED_TEST(LoanPoolAdmission, FromEmptyEachPriorityAloneReachesExactlyItsLimit) {
  using Fixture = TestFixture;
  constexpr ExpectedLimits kLimits = Fixture::kExpected;
  auto pool = std::make_unique<typename Fixture::Pool>();
  const std::array<uint32_t, mccc::kPriorityCount> limits{kLimits.low, kLimits.medium,
                                                          kLimits.high};
  for (std::size_t p = 0U; p < kPriorities.size(); ++p) {
    std::vector<MessageLoan<typename TestFixture::Pool::Message>> held;
    EXPECT_EQ(Fixture::TakeUntilRefused(*pool, kPriorities[p], held), limits[p])
        << "priority " << p;
    held.clear();
    EXPECT_EQ(pool->InUse(), 0U);
  }
  // The whole pool, as kBareMetal asks for it (limit = capacity), whatever the priority.
  std::vector<MessageLoan<typename TestFixture::Pool::Message>> held;
  for (uint32_t i = 0U; i < Fixture::kBlocks; ++i) {
    MessageLoan<typename TestFixture::Pool::Message> loan =
        pool->TryLoan(MessagePriority::kLow, Fixture::kBlocks, false);
    ASSERT_TRUE(loan) << "block " << i;
    held.push_back(std::move(loan));
  }
  EXPECT_FALSE(pool->TryLoan(MessagePriority::kLow, Fixture::kBlocks, false));
  const LoanPoolStatistics s = pool->Statistics();
  EXPECT_EQ(s.loans_granted, uint64_t{kLimits.low} + kLimits.medium + kLimits.high)
      << "uncounted loans (count = false) leave the counters alone";
  EXPECT_EQ(s.low_priority_refused, 1U);
  EXPECT_EQ(s.medium_priority_refused, 1U);
  EXPECT_EQ(s.high_priority_refused, 1U);
  EXPECT_EQ(s.in_use, Fixture::kBlocks) << "in_use is exact in every mode";
}

TYPED_TEST(LoanPoolAdmission, EveryBlockIsDistinctAlignedAndLargeEnough) {
  using Fixture = TestFixture;
  using BlockPool = typename Fixture::Pool;
  auto pool = std::make_unique<BlockPool>();
  std::vector<MessageLoan<typename TestFixture::Pool::Message>> held;
  std::vector<std::uintptr_t> addresses;
  for (uint32_t i = 0U; i < Fixture::kBlocks; ++i) {
    held.push_back(TakeAt(*pool, MessagePriority::kHigh));
    ASSERT_TRUE(held.back());
    addresses.push_back(AddressOf<BlockPool>(held.back()));
    EXPECT_EQ(addresses.back() % alignof(typename TestFixture::Pool::Message), 0U) << "block " << i;
    held.back()->owner = i;  // each block written in full ...
    std::fill(std::begin(held.back()->words), std::end(held.back()->words), uint64_t{i});
  }
  for (uint32_t i = 0U; i < Fixture::kBlocks; ++i) {  // ... and no write touched another
    EXPECT_EQ(held[i]->owner, i);
    EXPECT_EQ(held[i]->words[4], uint64_t{i});
  }
  std::sort(addresses.begin(), addresses.end());
  for (std::size_t i = 1U; i < addresses.size(); ++i) {
    EXPECT_GE(addresses[i] - addresses[i - 1U], sizeof(typename TestFixture::Pool::Message))
        << "blocks do not overlap";
  }
  EXPECT_GE(BlockPool::BlockBytes(),
            sizeof(typename TestFixture::Pool::Message) + sizeof(mccc::detail::LoanBlockHeader));
  EXPECT_EQ(BlockPool::BlockBytes() % 64U, 0U) << "multi-core blocks are whole cache lines";
  held.clear();
}

// ---------------------------------------------------------------------------------------------
// Alignment, construction and destruction.
// ---------------------------------------------------------------------------------------------

TEST(LoanPool, AnOveralignedMessageGetsBlocksAlignedToItsOwnAlignment) {
  using Pool = mccc::LoanPool<WideAligned, 5U>;
  auto pool = std::make_unique<Pool>();
  std::vector<MessageLoan<WideAligned>> held;
  for (uint32_t i = 0U; i < 5U; ++i) {
    held.push_back(TakeAt(*pool, MessagePriority::kHigh));
    ASSERT_TRUE(held.back());
    EXPECT_EQ(AddressOf<Pool>(held.back()) % alignof(WideAligned), 0U);
  }
  EXPECT_EQ(Pool::BlockBytes() % alignof(WideAligned), 0U);
}

TEST(LoanPool, ASingleCorePoolAlignsToTheMessageOnlyAndPacksItsBlocks) {
  struct Small {
    uint32_t value;
  };
  using Pool = mccc::LoanPool<Small, 6U, true>;
  static_assert(Pool::BlockBytes() < 64U, "no cache-line padding on one core");
  auto pool = std::make_unique<Pool>();
  std::vector<MessageLoan<Small>> held;
  for (uint32_t i = 0U; i < 6U; ++i) {
    held.push_back(TakeAt(*pool, MessagePriority::kHigh));
    ASSERT_TRUE(held.back());
    EXPECT_EQ(AddressOf<Pool>(held.back()) % alignof(Small), 0U);
    held.back()->value = i;
  }
  EXPECT_FALSE(TakeAt(*pool, MessagePriority::kHigh));
  for (uint32_t i = 0U; i < 6U; ++i) {
    EXPECT_EQ(held[i]->value, i);
  }
}

TEST(LoanPool, ALoanBuildsItsMessageFromTheArgumentsAndResetDestroysItOnce) {
  mccc::LoanPool<Tracked, 3U> pool;
  ASSERT_EQ(Tracked::live.load(), 0);
  MessageLoan<Tracked> loan = pool.TryLoan(MessagePriority::kMedium, 3U, true, 42U);
  ASSERT_TRUE(loan);
  EXPECT_EQ(loan->value, 42U);
  EXPECT_EQ((*loan).value, 42U);
  EXPECT_EQ(loan.Priority(), MessagePriority::kMedium) << "the loan keeps its admission priority";
  EXPECT_EQ(Tracked::live.load(), 1);

  MessageLoan<Tracked> moved = std::move(loan);
  EXPECT_FALSE(loan);  // NOLINT(bugprone-use-after-move): a moved-from loan is empty
  EXPECT_EQ(loan.Get(), nullptr);
  EXPECT_EQ(moved->value, 42U);
  EXPECT_EQ(Tracked::live.load(), 1) << "moving a loan moves the handle, not the message";
  EXPECT_EQ(pool.InUse(), 1U);

  moved.Reset();
  EXPECT_FALSE(moved);
  EXPECT_EQ(Tracked::live.load(), 0);
  EXPECT_EQ(pool.InUse(), 0U);
  moved.Reset();  // a second Reset is a no-op
  EXPECT_EQ(Tracked::live.load(), 0);

  {
    MessageLoan<Tracked> scoped = pool.TryLoan(MessagePriority::kLow, 1U, true, 7U);
    ASSERT_TRUE(scoped);
    EXPECT_EQ(Tracked::live.load(), 1);
  }
  EXPECT_EQ(Tracked::live.load(), 0) << "a loan destroyed unpublished destroys its message";
  EXPECT_EQ(pool.InUse(), 0U);

  // Move assignment over a held loan gives the overwritten block back first.
  MessageLoan<Tracked> first = pool.TryLoan(MessagePriority::kHigh, 3U, true, 1U);
  MessageLoan<Tracked> second = pool.TryLoan(MessagePriority::kHigh, 3U, true, 2U);
  EXPECT_EQ(pool.InUse(), 2U);
  first = std::move(second);
  EXPECT_EQ(first->value, 2U);
  EXPECT_EQ(pool.InUse(), 1U);
  EXPECT_EQ(Tracked::live.load(), 1);
  first.Reset();
  EXPECT_EQ(pool.InUse(), 0U);
}

// ---------------------------------------------------------------------------------------------
// Statistics.
// ---------------------------------------------------------------------------------------------

TEST(LoanPool, StatisticsCountGrantsRefusalsPerPriorityAndTheHighWaterMark) {
  using Pool = mccc::LoanPool<Packet, 10U>;  // LOW 6, MEDIUM 8, HIGH 10
  auto pool = std::make_unique<Pool>();
  LoanPoolStatistics s = pool->Statistics();
  EXPECT_EQ(s.capacity, 10U);
  EXPECT_EQ(s.in_use, 0U);
  EXPECT_EQ(s.high_water, 0U);
  EXPECT_EQ(s.loans_granted, 0U);
  EXPECT_EQ(s.low_priority_refused + s.medium_priority_refused + s.high_priority_refused, 0U);

  std::vector<MessageLoan<Packet>> held;
  for (int i = 0; i < 7; ++i) {  // 6 granted, 1 refused
    MessageLoan<Packet> loan = TakeAt(*pool, MessagePriority::kLow);
    if (loan) {
      held.push_back(std::move(loan));
    }
  }
  for (int i = 0; i < 5; ++i) {  // 2 granted, 3 refused
    MessageLoan<Packet> loan = TakeAt(*pool, MessagePriority::kMedium);
    if (loan) {
      held.push_back(std::move(loan));
    }
  }
  for (int i = 0; i < 4; ++i) {  // 2 granted, 2 refused
    MessageLoan<Packet> loan = TakeAt(*pool, MessagePriority::kHigh);
    if (loan) {
      held.push_back(std::move(loan));
    }
  }
  s = pool->Statistics();
  EXPECT_EQ(s.in_use, 10U);
  EXPECT_EQ(s.high_water, 10U);
  EXPECT_EQ(s.loans_granted, 10U);
  EXPECT_EQ(s.low_priority_refused, 1U);
  EXPECT_EQ(s.medium_priority_refused, 3U);
  EXPECT_EQ(s.high_priority_refused, 2U);

  held.resize(4U);  // 6 back
  s = pool->Statistics();
  EXPECT_EQ(s.in_use, 4U);
  EXPECT_EQ(s.high_water, 10U);

  pool->ResetStatistics();
  s = pool->Statistics();
  EXPECT_EQ(s.capacity, 10U);
  EXPECT_EQ(s.in_use, 4U) << "a reset does not touch the blocks";
  EXPECT_EQ(s.high_water, 4U) << "the mark restarts from the blocks in use";
  EXPECT_EQ(s.loans_granted, 0U);
  EXPECT_EQ(s.low_priority_refused, 0U);
  EXPECT_EQ(s.medium_priority_refused, 0U);
  EXPECT_EQ(s.high_priority_refused, 0U);

  held.push_back(TakeAt(*pool, MessagePriority::kLow));
  ASSERT_TRUE(held.back());
  held.resize(2U);
  s = pool->Statistics();
  EXPECT_EQ(s.high_water, 5U);
  EXPECT_EQ(s.loans_granted, 1U);
  held.clear();
}

// ---------------------------------------------------------------------------------------------
// InUse: a snapshot of two counters, read while blocks are taken and returned.
// ---------------------------------------------------------------------------------------------

/// What the InUse read hook does: takes and returns blocks of `pool` between InUse's read of the
/// returns and its read of the admissions.
struct ChurnBetweenReads {
  mccc::LoanPool<Packet, 4U>* pool;
  std::vector<MessageLoan<Packet>>* held;
  uint32_t runs_left;  // how many InUse attempts still churn

  /// Returns the oldest held block, takes one and returns it, takes one and keeps it: the blocks
  /// in use end as they began, and never exceed their number at the start.
  static void Run(void* context) {
    auto& self = *static_cast<ChurnBetweenReads*>(context);
    if (self.runs_left == 0U) {
      return;
    }
    --self.runs_left;
    self.held->erase(self.held->begin());
    TakeAt(*self.pool, MessagePriority::kHigh).Reset();
    self.held->push_back(TakeAt(*self.pool, MessagePriority::kHigh));
  }
};

// The returns read before a take and a return, the admissions after them: the difference alone
// counts the block taken twice and returned once as in use twice (4 of 4 here, where the pool
// never had more than 2), and ResetStatistics kept that as the high-water mark.
TEST(LoanPool, InUseIsExactWhenBlocksAreTakenAndReturnedBetweenItsTwoReads) {
  using Pool = mccc::LoanPool<Packet, 4U>;
  auto pool = std::make_unique<Pool>();
  std::vector<MessageLoan<Packet>> held;
  held.push_back(TakeAt(*pool, MessagePriority::kHigh));
  held.push_back(TakeAt(*pool, MessagePriority::kHigh));
  ASSERT_TRUE(held[0] && held[1]);
  ChurnBetweenReads churn{pool.get(), &held, 1U};
  pool->SetInUseReadHook(&ChurnBetweenReads::Run, &churn);

  EXPECT_EQ(pool->InUse(), 2U);
  EXPECT_EQ(churn.runs_left, 0U) << "the hook ran inside InUse";

  churn.runs_left = 1U;
  pool->ResetStatistics();
  EXPECT_EQ(churn.runs_left, 0U);
  pool->SetInUseReadHook(nullptr, nullptr);
  const LoanPoolStatistics s = pool->Statistics();
  EXPECT_EQ(s.in_use, 2U);
  EXPECT_EQ(s.high_water, 2U) << "the mark restarts from the blocks in use, not from 4";
}

// Returns between the reads on every attempt: InUse stops after a bounded number of attempts
// and answers no more than the pool had (here exactly the two blocks held throughout).
TEST(LoanPool, InUseEndsAndOverstatesNothingWhileBlocksReturnBetweenEveryRead) {
  using Pool = mccc::LoanPool<Packet, 4U>;
  auto pool = std::make_unique<Pool>();
  std::vector<MessageLoan<Packet>> held;
  held.push_back(TakeAt(*pool, MessagePriority::kHigh));
  held.push_back(TakeAt(*pool, MessagePriority::kHigh));
  ChurnBetweenReads churn{pool.get(), &held, 1000000U};
  pool->SetInUseReadHook(&ChurnBetweenReads::Run, &churn);

  const uint32_t in_use = pool->InUse();
  EXPECT_LE(in_use, 2U);
  EXPECT_LT(churn.runs_left, 1000000U);
  EXPECT_GT(churn.runs_left, 1000000U - 100U) << "a few attempts, not an endless retry";
  pool->ResetStatistics();
  const LoanPoolStatistics s = pool->Statistics();
  pool->SetInUseReadHook(nullptr, nullptr);
  EXPECT_LE(s.in_use, 2U);
  EXPECT_LE(s.high_water, 2U);
  EXPECT_EQ(pool->InUse(), 2U);
}

// Threads take and return while another reads: every snapshot and high-water mark stays within
// what the threads can hold at once (here 6 of 8 blocks), on every architecture this runs on
// (the Arm presets run it under emulation).
template <typename Message>
void InUseAndTheHighWaterMarkStayWithinWhatIsHeld() {
  constexpr uint32_t kBlocks = 8U;
  constexpr uint32_t kThreads = 3U;
  constexpr uint32_t kMostHeld = 2U;  // per thread: at most 6 blocks in use, never all 8
  using Pool = mccc::LoanPool<Message, kBlocks>;
  auto pool = std::make_unique<Pool>();
  const auto rounds = static_cast<uint64_t>(100000.0 * mccc_stress::StressScale()) + 1000U;

  std::atomic<uint32_t> working{kThreads};
  std::atomic<uint64_t> refused{0U};
  std::vector<std::thread> threads;
  for (uint32_t t = 0U; t < kThreads; ++t) {
    threads.emplace_back([&pool, &working, &refused, rounds, t]() {
      for (uint64_t round = 0U; round < rounds; ++round) {
        std::array<MessageLoan<Message>, kMostHeld> loans;
        for (auto& loan : loans) {
          loan = TakeAt(*pool, MessagePriority::kHigh);
          refused.fetch_add(loan ? 0U : 1U, std::memory_order_relaxed);
        }
        // Return them in either order, so returns land between the reader's reads either way.
        if (((round + t) & 1U) != 0U) {
          std::swap(loans[0], loans[1]);
        }
      }
      working.fetch_sub(1U, std::memory_order_release);
    });
  }
  uint32_t most_in_use = 0U;
  uint32_t most_high_water = 0U;
  uint64_t reads = 0U;
  while (working.load(std::memory_order_acquire) != 0U) {
    most_in_use = std::max(most_in_use, pool->InUse());
    const LoanPoolStatistics s = pool->Statistics();
    most_in_use = std::max(most_in_use, s.in_use);
    most_high_water = std::max(most_high_water, s.high_water);
    if ((++reads & 15U) == 0U) {
      pool->ResetStatistics();
    }
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(refused.load(), 0U) << "at most 6 of 8 blocks are ever in use";
  EXPECT_LE(most_in_use, kThreads * kMostHeld);
  EXPECT_LE(most_high_water, kThreads * kMostHeld);
  EXPECT_LE(pool->Statistics().high_water, kThreads * kMostHeld);
  EXPECT_EQ(pool->InUse(), 0U);
  EXPECT_GT(reads, 0U);
}

TEST(LoanPoolStress, InUseAndTheHighWaterMarkStayWithinWhatIsHeldTakenInTurn) {
  InUseAndTheHighWaterMarkStayWithinWhatIsHeld<Packet>();
}

TEST(LoanPoolStress, InUseAndTheHighWaterMarkStayWithinWhatIsHeldLowestFree) {
  InUseAndTheHighWaterMarkStayWithinWhatIsHeld<BigPacket>();
}

// ---------------------------------------------------------------------------------------------
// Retain and the reference counting of Retained.
// ---------------------------------------------------------------------------------------------

TEST(LoanPool, RetainOfAReferenceOutsideThePoolOrOfAFreedBlockIsEmpty) {
  mccc::LoanPool<Tracked, 4U> pool;
  const Tracked outside(5U);
  EXPECT_FALSE(pool.Retain(outside)) << "an object that is not in the pool";
  const auto heap = std::make_unique<Tracked>(6U);
  EXPECT_FALSE(pool.Retain(*heap));

  MessageLoan<Tracked> loan = pool.TryLoan(MessagePriority::kHigh, 4U, true, 9U);
  ASSERT_TRUE(loan);
  const Tracked* in_block = loan.Get();
  loan.Reset();
  EXPECT_EQ(pool.InUse(), 0U);
  EXPECT_FALSE(pool.Retain(*in_block)) << "a block that went back to the pool";
  EXPECT_EQ(pool.InUse(), 0U) << "a refused Retain takes no reference";

  mccc::LoanPool<BigPacket, 4U> lowest_free_pool;  // the other way of finding blocks
  MessageLoan<BigPacket> big = lowest_free_pool.TryLoan(MessagePriority::kHigh, 4U, true);
  ASSERT_TRUE(big);
  const BigPacket* big_in_block = big.Get();
  big.Reset();
  EXPECT_FALSE(lowest_free_pool.Retain(*big_in_block)) << "a freed block of a lowest-free pool";
  EXPECT_EQ(lowest_free_pool.InUse(), 0U);

  // Another pool's block is not this pool's.
  mccc::LoanPool<Tracked, 4U> other;
  MessageLoan<Tracked> foreign = other.TryLoan(MessagePriority::kHigh, 4U, true, 1U);
  ASSERT_TRUE(foreign);
  EXPECT_FALSE(pool.Retain(*foreign));
  EXPECT_EQ(other.InUse(), 1U);
  foreign.Reset();
  EXPECT_EQ(Tracked::live.load(), 2) << "only `outside` and `*heap` are left";
}

// G-14: the block returns when the last Retained copy goes
TEST(LoanPool, ARetainedMessageOutlivesItsLoanAndEveryCopyCounts) {
  mccc::LoanPool<Tracked, 2U> pool;
  MessageLoan<Tracked> loan = pool.TryLoan(MessagePriority::kHigh, 2U, true, 11U);
  ASSERT_TRUE(loan);
  const Tracked* block = loan.Get();

  Retained<Tracked> first = pool.Retain(*loan);
  ASSERT_TRUE(first);
  EXPECT_EQ(first.Get(), block) << "a retained handle refers to the block itself";
  loan.Reset();
  EXPECT_EQ(pool.InUse(), 1U);
  EXPECT_EQ(Tracked::live.load(), 1) << "the last reference, not the loan, destroys";
  EXPECT_EQ(first->value, 11U);

  Retained<Tracked> copy(first);  // copy construction: +1
  Retained<Tracked> assigned;     // copy assignment: +1
  assigned = first;
  Retained<Tracked> from_copy = pool.Retain(*copy);  // Retain through a held handle: +1
  ASSERT_TRUE(from_copy);
  Retained<Tracked> moved(std::move(copy));  // a move transfers, no count change
  EXPECT_FALSE(copy);                        // NOLINT(bugprone-use-after-move)
  assigned = assigned;                       // self-assignment keeps the reference
  ASSERT_TRUE(assigned);

  for (Retained<Tracked>* handle : {&first, &assigned, &from_copy}) {
    handle->Reset();
    EXPECT_EQ(pool.InUse(), 1U);
    EXPECT_EQ(Tracked::live.load(), 1);
  }
  EXPECT_EQ(moved->value, 11U);
  moved.Reset();
  EXPECT_EQ(pool.InUse(), 0U);
  EXPECT_EQ(Tracked::live.load(), 0);
  EXPECT_FALSE(pool.Retain(*block));

  // Move assignment onto a handle that holds another block drops that block.
  MessageLoan<Tracked> a = pool.TryLoan(MessagePriority::kHigh, 2U, true, 1U);
  MessageLoan<Tracked> b = pool.TryLoan(MessagePriority::kHigh, 2U, true, 2U);
  Retained<Tracked> keep_a = pool.Retain(*a);
  Retained<Tracked> keep_b = pool.Retain(*b);
  a.Reset();
  b.Reset();
  EXPECT_EQ(pool.InUse(), 2U);
  keep_a = std::move(keep_b);
  EXPECT_EQ(pool.InUse(), 1U);
  EXPECT_EQ(keep_a->value, 2U);
  keep_a = Retained<Tracked>{};
  EXPECT_EQ(pool.InUse(), 0U);
  EXPECT_EQ(Tracked::live.load(), 0);
}

// G-14: a handle released on another thread returns the block
TEST(LoanPool, AHandleReleasedOnAnotherThreadReturnsTheBlock) {
  mccc::LoanPool<Tracked, 1U> pool;  // HIGH only
  MessageLoan<Tracked> loan = pool.TryLoan(MessagePriority::kHigh, 1U, true, 3U);
  ASSERT_TRUE(loan);
  Retained<Tracked> keep = pool.Retain(*loan);
  loan.Reset();
  std::thread releaser([moved = std::move(keep)]() mutable { moved.Reset(); });
  releaser.join();
  EXPECT_EQ(pool.InUse(), 0U);
  EXPECT_EQ(Tracked::live.load(), 0);
  MessageLoan<Tracked> again = pool.TryLoan(MessagePriority::kHigh, 1U, true, 4U);
  EXPECT_TRUE(again) << "the block is takeable again";
}

// ---------------------------------------------------------------------------------------------
// Four threads take, fill, verify and release: no block is ever held twice.
// ---------------------------------------------------------------------------------------------

// G-14: no block is held by two owners; every block comes back
template <typename Message>
void FourThreadsNeverHoldTheSameBlockAndEveryBlockComesBack() {
  constexpr uint32_t kBlocks = 8U;  // LOW 5, MEDIUM 7, HIGH 8
  constexpr uint32_t kThreads = 4U;
  constexpr std::size_t kMostHeld = 3U;  // 4 x 3 > 8: the pool runs dry and refuses
  using Pool = mccc::LoanPool<Message, kBlocks>;
  auto pool = std::make_unique<Pool>();
  const auto operations =
      static_cast<uint64_t>(200000.0 * mccc_stress::StressScale()) + 1000U;  // per thread

  // The pool's blocks, found by taking them all once.
  std::vector<std::uintptr_t> blocks;
  {
    std::vector<MessageLoan<Message>> all;
    for (uint32_t i = 0U; i < kBlocks; ++i) {
      all.push_back(TakeAt(*pool, MessagePriority::kHigh));
      ASSERT_TRUE(all.back());
      blocks.push_back(AddressOf<Pool>(all.back()));
    }
  }
  std::sort(blocks.begin(), blocks.end());
  pool->ResetStatistics();
  const auto index_of = [&blocks](const Message* packet) -> std::size_t {
    const auto it =
        std::lower_bound(blocks.begin(), blocks.end(), reinterpret_cast<std::uintptr_t>(packet));
    return (it == blocks.end() || *it != reinterpret_cast<std::uintptr_t>(packet))
               ? blocks.size()
               : static_cast<std::size_t>(it - blocks.begin());
  };

  // holders[i]: threads holding block i now; any value but 0 or 1 is a double grant.
  std::array<std::atomic<uint32_t>, kBlocks> holders{};
  std::atomic<uint64_t> double_grants{0U};
  std::atomic<uint64_t> foreign_blocks{0U};
  std::atomic<uint64_t> corrupted{0U};
  std::array<std::array<uint64_t, mccc::kPriorityCount>, kThreads> granted{};
  std::array<std::array<uint64_t, mccc::kPriorityCount>, kThreads> refused{};
  std::atomic<bool> go{false};

  const auto fill = [](Message& packet, uint32_t owner, uint32_t round) {
    packet.owner = owner;
    packet.round = round;
    for (uint32_t w = 0U; w < 5U; ++w) {
      packet.words[w] = mccc_stress::Mix((uint64_t{owner} << 40U) ^ (uint64_t{round} << 3U) ^ w);
    }
  };
  const auto intact = [](const Message& packet, uint32_t owner, uint32_t round) {
    if (packet.owner != owner || packet.round != round) {
      return false;
    }
    for (uint32_t w = 0U; w < 5U; ++w) {
      if (packet.words[w] !=
          mccc_stress::Mix((uint64_t{owner} << 40U) ^ (uint64_t{round} << 3U) ^ w)) {
        return false;
      }
    }
    return true;
  };

  const auto worker = [&](uint32_t owner) {
    struct Held {
      MessageLoan<Message> loan;
      uint32_t round;
    };
    std::vector<Held> held;
    held.reserve(kMostHeld);
    uint64_t random = mccc_stress::Mix(owner + 1U);
    uint32_t round = 0U;
    const auto release_oldest = [&](uint64_t how) {
      Held oldest = std::move(held.front());
      held.erase(held.begin());
      if (!intact(*oldest.loan, owner, oldest.round)) {
        corrupted.fetch_add(1U);
      }
      const std::size_t index = index_of(oldest.loan.Get());
      // Give up the claim before the block can reach another thread.
      if (index < kBlocks && holders[index].fetch_sub(1U) != 1U) {
        double_grants.fetch_add(1U);
      }
      switch (how % 3U) {
        case 0U:
          oldest.loan.Reset();
          break;
        case 1U: {  // destroyed unpublished at the end of this scope
          MessageLoan<Message> sink = std::move(oldest.loan);
          static_cast<void>(sink);
          break;
        }
        default: {  // the last reference is a Retained taken from the loan
          Retained<Message> keep = pool->Retain(*oldest.loan);
          if (!keep || keep.Get() != oldest.loan.Get()) {
            corrupted.fetch_add(1U);
          }
          oldest.loan.Reset();
          if (!intact(*keep, owner, oldest.round)) {
            corrupted.fetch_add(1U);
          }
          keep.Reset();
          break;
        }
      }
    };
    while (!go.load(std::memory_order_acquire)) {
    }
    for (uint64_t op = 0U; op < operations; ++op) {
      random = mccc_stress::Mix(random);
      const bool take = held.empty() || (held.size() < kMostHeld && (random & 1U) != 0U);
      if (!take) {
        release_oldest(random >> 8U);
        continue;
      }
      const std::size_t p = static_cast<std::size_t>((random >> 4U) % mccc::kPriorityCount);
      MessageLoan<Message> loan = TakeAt(*pool, kPriorities[p]);
      if (!loan) {
        ++refused[owner][p];
        continue;
      }
      ++granted[owner][p];
      const std::size_t index = index_of(loan.Get());
      if (index >= kBlocks) {
        foreign_blocks.fetch_add(1U);
      } else if (holders[index].fetch_add(1U) != 0U) {
        double_grants.fetch_add(1U);
      }
      ++round;
      fill(*loan, owner, round);
      held.push_back(Held{std::move(loan), round});
    }
    while (!held.empty()) {
      release_oldest(0U);
    }
  };

  std::vector<std::thread> threads;
  for (uint32_t t = 0U; t < kThreads; ++t) {
    threads.emplace_back(worker, t);
  }
  go.store(true, std::memory_order_release);
  for (std::thread& t : threads) {
    t.join();
  }

  EXPECT_EQ(double_grants.load(), 0U) << "a block was held by two threads at once";
  EXPECT_EQ(foreign_blocks.load(), 0U) << "a loan pointed outside the pool's blocks";
  EXPECT_EQ(corrupted.load(), 0U) << "a held block was overwritten";
  std::array<uint64_t, mccc::kPriorityCount> granted_total{};
  std::array<uint64_t, mccc::kPriorityCount> refused_total{};
  for (uint32_t t = 0U; t < kThreads; ++t) {
    for (std::size_t p = 0U; p < mccc::kPriorityCount; ++p) {
      granted_total[p] += granted[t][p];
      refused_total[p] += refused[t][p];
    }
  }
  const LoanPoolStatistics s = pool->Statistics();
  EXPECT_EQ(s.in_use, 0U);
  EXPECT_EQ(s.loans_granted, granted_total[0] + granted_total[1] + granted_total[2]);
  EXPECT_EQ(s.low_priority_refused, refused_total[0]);
  EXPECT_EQ(s.medium_priority_refused, refused_total[1]);
  EXPECT_EQ(s.high_priority_refused, refused_total[2]);
  EXPECT_GE(s.high_water, 1U);
  EXPECT_LE(s.high_water, kBlocks);
  EXPECT_GT(refused_total[0], 0U) << "the run must reach the LOW limit to test admission";

  // Every block can be taken again, and they are exactly the blocks of the start.
  std::vector<MessageLoan<Message>> all;
  std::vector<std::uintptr_t> again;
  for (uint32_t i = 0U; i < kBlocks; ++i) {
    all.push_back(TakeAt(*pool, MessagePriority::kHigh));
    ASSERT_TRUE(all.back()) << "block " << i << " did not come back";
    again.push_back(AddressOf<Pool>(all.back()));
  }
  EXPECT_FALSE(TakeAt(*pool, MessagePriority::kHigh));
  std::sort(again.begin(), again.end());
  EXPECT_EQ(again, blocks);
}

TEST(LoanPoolStress, FourThreadsNeverHoldTheSameBlockAndEveryBlockComesBackTakenInTurn) {
  FourThreadsNeverHoldTheSameBlockAndEveryBlockComesBack<Packet>();
}

TEST(LoanPoolStress, FourThreadsNeverHoldTheSameBlockAndEveryBlockComesBackLowestFree) {
  FourThreadsNeverHoldTheSameBlockAndEveryBlockComesBack<BigPacket>();
}

// ---------------------------------------------------------------------------------------------
// Single-core pools: compiler fences, or a critical section around every read-modify-write.
// ---------------------------------------------------------------------------------------------

/// A host stand-in for PRIMASK: counts entries and checks that sections nest and close.
struct CountingSection {
  static inline int depth = 0;
  static inline uint64_t entries = 0U;
  static int Enter() noexcept {
    ++entries;
    return depth++;
  }
  static void Exit(int saved) noexcept { depth = saved; }
};
static_assert(mccc::detail::IsCriticalSectionHook<CountingSection>::value,
              "the counting section has the hook's shape");

TEST(LoanPoolSingleCore, EveryTakeAndReleaseGoesThroughTheCriticalSection) {
  using Pool = mccc::LoanPool<Tracked, 4U, true, CountingSection>;  // LOW 3, MEDIUM 3, HIGH 4
  Pool pool;
  uint64_t before = CountingSection::entries;
  MessageLoan<Tracked> first = pool.TryLoan(MessagePriority::kLow, 3U, true, 1U);
  ASSERT_TRUE(first);
  EXPECT_GE(CountingSection::entries, before + 2U) << "the admission count and the block claim";
  EXPECT_EQ(CountingSection::depth, 0) << "every Enter is matched by its Exit";

  std::vector<MessageLoan<Tracked>> held;
  held.push_back(std::move(first));
  for (uint32_t i = 0U; i < 2U; ++i) {
    held.push_back(pool.TryLoan(MessagePriority::kLow, Pool::Admission::kLowLimit, true, i));
    ASSERT_TRUE(held.back());
  }
  EXPECT_FALSE(pool.TryLoan(MessagePriority::kLow, Pool::Admission::kLowLimit, true, 0U));
  held.push_back(pool.TryLoan(MessagePriority::kHigh, Pool::Admission::kHighLimit, true, 9U));
  ASSERT_TRUE(held.back());
  EXPECT_FALSE(pool.TryLoan(MessagePriority::kHigh, Pool::Admission::kHighLimit, true, 0U));
  EXPECT_EQ(pool.InUse(), 4U);
  EXPECT_EQ(Tracked::live.load(), 4);

  before = CountingSection::entries;
  Retained<Tracked> keep = pool.Retain(*held.back());
  ASSERT_TRUE(keep);
  EXPECT_GE(CountingSection::entries, before + 1U) << "the reference count's increment";
  before = CountingSection::entries;
  held.clear();
  EXPECT_GE(CountingSection::entries, before + 3U + 1U)
      << "each return (the count of returns) and the retained block's decrement";
  EXPECT_EQ(pool.InUse(), 1U);
  EXPECT_EQ(keep->value, 9U);
  keep.Reset();
  EXPECT_EQ(pool.InUse(), 0U);
  EXPECT_EQ(Tracked::live.load(), 0);
  EXPECT_EQ(CountingSection::depth, 0);

  const LoanPoolStatistics s = pool.Statistics();
  EXPECT_EQ(s.loans_granted, 4U);
  EXPECT_EQ(s.low_priority_refused, 1U);
  EXPECT_EQ(s.high_priority_refused, 1U);
  EXPECT_EQ(s.high_water, 4U);
}

TEST(LoanPoolSingleCore, APoolWithoutACriticalSectionUsesFencesAndWorksTheSame) {
  mccc::LoanPool<Tracked, 3U, true> pool;  // LOW 2, MEDIUM 2, HIGH 3
  std::vector<MessageLoan<Tracked>> held;
  for (uint32_t i = 0U; i < 3U; ++i) {
    held.push_back(pool.TryLoan(MessagePriority::kHigh, 3U, true, i));
    ASSERT_TRUE(held.back());
  }
  EXPECT_FALSE(pool.TryLoan(MessagePriority::kHigh, 3U, true, 0U));
  Retained<Tracked> keep = pool.Retain(*held[1]);
  held.clear();
  EXPECT_EQ(pool.InUse(), 1U);
  EXPECT_EQ(keep->value, 1U);
  keep.Reset();
  EXPECT_EQ(pool.InUse(), 0U);
  EXPECT_EQ(Tracked::live.load(), 0);
}

}  // namespace
