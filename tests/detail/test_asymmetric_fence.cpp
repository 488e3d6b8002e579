// SPDX-License-Identifier: MIT
// Tests of detail/asymmetric_fence.hpp: whether it is in use, and the store-buffering litmus
// test it exists for, run on two threads many times.
#include "mccc/detail/asymmetric_fence.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <variant>

#if defined(__linux__)
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "mccc/bus/async_bus.hpp"
#include "support/bus_configs.hpp"

namespace {

using mccc::detail::AsymmetricFence;

using Payload = std::variant<int>;
// Structs, not aliases: a typed test names its type parameter in its CTest name.
struct SmallTraits : mccc_test::SmallRing {};

TEST(AsymmetricFenceTest, AvailableOnlyWhereConfigured) {
  if (MCCC_ASYMMETRIC_FENCE == 0) {
    EXPECT_FALSE(AsymmetricFence::Available());
  }
  // Decided once: repeated calls agree.
  EXPECT_EQ(AsymmetricFence::Available(), AsymmetricFence::Available());
}

// Store buffering: F stores A then loads B behind only Light(); R stores B then loads A behind
// Heavy(). Both loads reading 0 in the same round is what the fence forbids. The two threads
// leave a barrier together each round and then wait a varying few spins each, sweeping their
// offset across the window in which a store still sits in a store buffer. The same program with
// Heavy() replaced by a compiler barrier shows that outcome on x86 within a few thousand rounds,
// so these rounds catch a Heavy() that does nothing.
// G-16: the store-buffering litmus behind the membarrier Unsubscribe handshake
TEST(AsymmetricFenceTest, StoreBufferingNeverLetsBothLoadsMissTheOtherStore) {
  if (!AsymmetricFence::Available()) {
    GTEST_SKIP() << "no membarrier here (or MCCC_ASYMMETRIC_FENCE=0): the bus uses its "
                    "read-modify-write handshake instead";
  }
  constexpr uint32_t kRounds = 20000U;
  constexpr uint32_t kSweep = 64U;  // spin offsets tried, per thread
  struct alignas(64) Cell {
    std::atomic<uint32_t> value{0U};
  };
  Cell a;
  Cell b;
  Cell arrivals;  // +1 per thread per barrier: two barriers (start, end) per round
  Cell f_saw_b;   // what F's load of B returned in the round just ended

  // acq_rel RMW and acquire loads on `arrivals`: the barrier orders the reset of a and b before
  // the round and F's result before R reads it. relaxed on a and b: they are the litmus
  // variables, ordered only by the fence under test.
  auto barrier = [&arrivals](uint32_t target) {
    arrivals.value.fetch_add(1U, std::memory_order_acq_rel);
    while (arrivals.value.load(std::memory_order_acquire) < target) {
    }
  };
  auto spin = [](uint32_t n) {
    for (volatile uint32_t i = 0U; i < n; i = i + 1U) {
    }
  };

  std::thread light_side([&] {
    for (uint32_t r = 0U; r < kRounds; ++r) {
      barrier(4U * r + 2U);
      spin((r * 7U) % kSweep);
      a.value.store(1U, std::memory_order_relaxed);
      AsymmetricFence::Light();
      f_saw_b.value.store(b.value.load(std::memory_order_relaxed), std::memory_order_relaxed);
      barrier(4U * r + 4U);
    }
  });

  uint32_t both_missed = 0U;
  for (uint32_t r = 0U; r < kRounds; ++r) {
    a.value.store(0U, std::memory_order_relaxed);
    b.value.store(0U, std::memory_order_relaxed);
    barrier(4U * r + 2U);
    spin((r / kSweep * 3U) % kSweep);
    b.value.store(1U, std::memory_order_relaxed);
    AsymmetricFence::Heavy();
    const uint32_t r_saw_a = a.value.load(std::memory_order_relaxed);
    barrier(4U * r + 4U);
    if (r_saw_a == 0U && f_saw_b.value.load(std::memory_order_relaxed) == 0U) {
      ++both_missed;
    }
  }
  light_side.join();
  EXPECT_EQ(both_missed, 0U) << "rounds in which neither thread saw the other's store";
}

// A bus may opt out of the asymmetric fence (hard real time).
struct SymmetricTraits : mccc_test::SymmetricFence<SmallTraits> {};

template <typename Traits>
class AsymmetricFenceBusTest : public ::testing::Test {};
using HandshakeTraits = ::testing::Types<SmallTraits, SymmetricTraits>;
TYPED_TEST_SUITE(AsymmetricFenceBusTest, HandshakeTraits);

// Whichever handshake the bus uses, empty polls, dispatch and Unsubscribe behave the same.
// G-16: Unsubscribe with either handshake
TYPED_TEST(AsymmetricFenceBusTest, DispatchesAndUnsubscribesInEitherMode) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, TypeParam>>();
  int seen = 0;
  const mccc::SubscriptionHandle handle =
      bus->template Subscribe<int>([&seen](const int& v) { seen += v; });
  ASSERT_TRUE(handle.IsValid());
  EXPECT_EQ(bus->ProcessBatch(), 0U) << "an empty poll dispatches nothing in either mode";
  ASSERT_TRUE(bus->Publish(5, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(seen, 5);
  EXPECT_TRUE(bus->Unsubscribe(handle));
  ASSERT_TRUE(bus->Publish(7, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(seen, 5) << "no call after Unsubscribe returned";
}

#if defined(__linux__)
// A process that forks after creating a bus (a daemon, a worker pool) keeps a working Unsubscribe
// in the child: the kernel carries the membarrier registration across fork (exec clears it, but
// exec also starts a new program). Were it lost, Heavy() would abort the child.
TEST(AsymmetricFenceTest, UnsubscribeStillWorksInAForkedChild) {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, SmallTraits>>();
  const mccc::SubscriptionHandle first = bus->Subscribe<int>([](const int&) {});
  const mccc::SubscriptionHandle second = bus->Subscribe<int>([](const int&) {});
  ASSERT_TRUE(first.IsValid() && second.IsValid());
  EXPECT_TRUE(bus->Unsubscribe(first));  // in the parent
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    // Only the bus is used here; the exit status carries the result (gtest is not fork-safe).
    const bool removed = bus->Unsubscribe(second);
    const bool delivered = bus->Publish(3, 1U) && bus->ProcessBatch() == 1U;
    _exit(removed && delivered ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}
#endif

}  // namespace
