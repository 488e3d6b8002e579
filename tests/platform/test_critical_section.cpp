// SPDX-License-Identifier: MIT
// The critical-section hook of single-core builds (platform/critical_section.hpp): every atomic
// read-modify-write and every control-path lock of such a bus goes through it, sections nest,
// and the control calls (Subscribe, Unsubscribe, ResetStatistics) are safe from an "interrupt
// handler" that lands while the main thread holds them. On a host the interrupt is a POSIX
// signal delivered to the publishing thread itself, and the critical section blocks that
// signal, exactly as PRIMASK holds back an interrupt on Cortex-M. With the old spin lock a
// handler that interrupted a holder would spin forever; here the run must complete with exact
// totals.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <variant>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace {

struct Sample {
  uint32_t source;
  uint32_t seq;
};
using Payload = std::variant<Sample>;

// ---------------------------------------------------------------------------------------------
// A counting section: checks nesting and that the bus uses it.
// ---------------------------------------------------------------------------------------------

struct CountingSection {
  static inline int depth = 0;
  static inline uint64_t entries = 0U;
  static int Enter() noexcept {
    ++entries;
    return depth++;
  }
  static void Exit(int saved) noexcept { depth = saved; }
};

using CountingTraits = mccc_test::WithCriticalSection<
    mccc_test::SingleCore<mccc_test::WithHighRing<mccc_test::SmallRing, 8U>>, CountingSection>;
using CountingBus = mccc::AsyncBus<Payload, CountingTraits>;

static_assert(mccc::detail::IsCriticalSectionHook<CountingSection>::value,
              "the counting section has the hook's shape");
static_assert(std::is_same_v<CountingBus::CriticalSection, CountingSection>,
              "a single-core bus uses its traits' critical section");

struct MultiCoreWithSection : CountingTraits {
  static constexpr bool kSingleCore = false;
};
static_assert(std::is_same_v<mccc::AsyncBus<Payload, MultiCoreWithSection>::CriticalSection,
                             mccc::NoCriticalSection>,
              "a multi-core bus never masks interrupts: the section is for one core only");

// G-33: every read-modify-write and control-path lock runs inside the critical section
TEST(CriticalSection, EveryPublishClaimAndControlCallGoesThroughTheSection) {
  auto bus = std::make_unique<CountingBus>();
  uint64_t before = CountingSection::entries;
  ASSERT_TRUE(bus->Publish(Sample{1U, 1U}, 1U));
  EXPECT_GE(CountingSection::entries, before + 1U) << "the claim CAS runs inside the section";
  EXPECT_EQ(CountingSection::depth, 0) << "every Enter is matched by its Exit";

  before = CountingSection::entries;
  const mccc::SubscriptionHandle handle = bus->Subscribe<Sample>([](const Sample&) {});
  ASSERT_TRUE(handle.IsValid());
  EXPECT_GE(CountingSection::entries, before + 1U) << "Subscribe takes the section, not a lock";

  before = CountingSection::entries;
  bus->ResetStatistics();
  EXPECT_EQ(CountingSection::entries, before + 1U) << "ResetStatistics: one section";

  before = CountingSection::entries;
  EXPECT_TRUE(bus->Unsubscribe(handle));
  EXPECT_GE(CountingSection::entries, before + 1U);
  EXPECT_EQ(CountingSection::depth, 0);
  EXPECT_EQ(bus->ProcessBatch(), 1U);
}

// G-33: sections nest
TEST(CriticalSection, NestedSectionsRestoreTheOuterState) {
  CountingSection::depth = 0;
  {
    const mccc::detail::CriticalSectionGuard<CountingSection> outer;
    EXPECT_EQ(CountingSection::depth, 1);
    {
      const mccc::detail::CriticalSectionGuard<CountingSection> inner;
      EXPECT_EQ(CountingSection::depth, 2);
    }
    EXPECT_EQ(CountingSection::depth, 1) << "the inner Exit keeps the outer section";
  }
  EXPECT_EQ(CountingSection::depth, 0);
}

TEST(CriticalSection, ReadModifyWritesInsideTheSectionAreExact) {
  std::atomic<uint32_t> word{7U};
  EXPECT_EQ((mccc::detail::FetchIncrementSeqCst<true, CountingSection>(word)), 7U);
  EXPECT_EQ((mccc::detail::FetchAddRelaxed<true, CountingSection>(word, 5U)), 8U);
  EXPECT_EQ((mccc::detail::ExchangeSeqCst<true, CountingSection>(word, 100U)), 13U);
  uint32_t expected = 99U;
  EXPECT_FALSE((mccc::detail::CasWeakSeqCst<true, CountingSection>(word, expected, 1U)));
  EXPECT_EQ(expected, 100U) << "a failed compare reports the current value";
  EXPECT_TRUE((mccc::detail::CasWeakRelease<true, CountingSection>(word, expected, 1U)))
      << "a compare inside the section never fails spuriously";
  EXPECT_EQ(word.load(), 1U);
  EXPECT_EQ(CountingSection::depth, 0);
}

// ---------------------------------------------------------------------------------------------
// Control calls from an "interrupt handler" (a signal on the same thread).
// ---------------------------------------------------------------------------------------------

constexpr int kInterruptSignal = SIGUSR1;

/// Masks the "interrupt" on this thread, as PRIMASK does on Cortex-M.
struct SignalMaskSection {
  static sigset_t Enter() noexcept {
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, kInterruptSignal);
    sigset_t saved;
    pthread_sigmask(SIG_BLOCK, &block, &saved);
    return saved;
  }
  static void Exit(sigset_t saved) noexcept { pthread_sigmask(SIG_SETMASK, &saved, nullptr); }
};

using InterruptTraits = mccc_test::WithCriticalSection<
    mccc_test::SingleCore<mccc_test::WithCallbacks<mccc_test::SharedRing<1024U>, 4U>>,
    SignalMaskSection>;
using InterruptBus = mccc::AsyncBus<Payload, InterruptTraits>;

InterruptBus* g_bus = nullptr;
std::atomic<uint32_t> g_handler_runs{0U};
std::atomic<uint32_t> g_handler_published{0U};
std::atomic<uint32_t> g_handler_subscribed{0U};
std::atomic<uint32_t> g_handler_subscribe_refused{0U};
std::atomic<uint32_t> g_handler_unsubscribe_failed{0U};

void OnInterrupt(int) {
  const uint32_t run = g_handler_runs.load(std::memory_order_relaxed);
  // Every kind of control call from inside the handler, plus a publish.
  const mccc::SubscriptionHandle handle = g_bus->Subscribe<Sample>([](const Sample&) {});
  if (!handle.IsValid()) {
    // Documented: when several interrupts land inside one consumer batch, the entries they
    // removed stay reserved until that batch ends, and the row can be full meanwhile.
    g_handler_subscribe_refused.fetch_add(1U, std::memory_order_relaxed);
  } else {
    g_handler_subscribed.fetch_add(1U, std::memory_order_relaxed);
    if (!g_bus->Unsubscribe(handle)) {
      g_handler_unsubscribe_failed.fetch_add(1U, std::memory_order_relaxed);
    }
  }
  g_bus->ResetStatistics();
  if (g_bus->Publish(Sample{2U, g_handler_published.load(std::memory_order_relaxed)}, 2U)) {
    g_handler_published.fetch_add(1U, std::memory_order_relaxed);
  }
  g_handler_runs.store(run + 1U, std::memory_order_relaxed);
}

// G-33: control calls and Publish from an interrupt complete; every message delivered once
TEST(CriticalSection, ControlCallsFromAnInterruptNeverWaitForTheInterruptedHolder) {
  auto bus = std::make_unique<InterruptBus>();
  g_bus = bus.get();
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(kInterruptSignal, &action, nullptr), 0);

  uint32_t next_expected[3] = {0U, 0U, 0U};
  uint32_t delivered[3] = {0U, 0U, 0U};
  uint32_t order_errors = 0U;
  const mccc::SubscriptionHandle checker = bus->Subscribe<Sample>([&](const Sample& sample) {
    if (sample.seq != next_expected[sample.source]) {
      ++order_errors;
    }
    next_expected[sample.source] = sample.seq + 1U;
    ++delivered[sample.source];
  });
  ASSERT_TRUE(checker.IsValid());

  const pthread_t main_thread = pthread_self();
  std::atomic<bool> stop{false};
  std::thread interrupter([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      pthread_kill(main_thread, kInterruptSignal);
      std::this_thread::yield();
    }
  });

  constexpr uint32_t kIterations = 20000U;
  uint32_t main_published = 0U;
  uint32_t main_refused = 0U;
  for (uint32_t i = 0U; i < kIterations; ++i) {
    // The main loop holds the same control paths the handler takes.
    const mccc::SubscriptionHandle handle = bus->Subscribe<Sample>([](const Sample&) {});
    ASSERT_TRUE(handle.IsValid());
    ASSERT_TRUE(bus->Unsubscribe(handle));
    if ((i & 15U) == 0U) {
      bus->ResetStatistics();
    }
    // A burst of interrupts can fill the queue between two drains (each publishes once): a
    // refusal is then correct, and the message is simply not sent.
    if (bus->Publish(Sample{1U, main_published}, 1U)) {
      ++main_published;
    } else {
      ++main_refused;
    }
    while (bus->ProcessBatch() != 0U) {
    }
  }
  stop.store(true, std::memory_order_relaxed);
  interrupter.join();
  // Signals still in flight land before the mask is dropped; take whatever they published.
  const sigset_t saved = SignalMaskSection::Enter();
  SignalMaskSection::Exit(saved);
  while (bus->ProcessBatch() != 0U) {
  }
  signal(kInterruptSignal, SIG_DFL);

  EXPECT_GT(g_handler_runs.load(), 0U) << "the interrupt never ran; the test proved nothing";
  EXPECT_EQ(main_published + main_refused, kIterations);
  EXPECT_GT(main_published, 0U);
  EXPECT_EQ(delivered[1], main_published);
  EXPECT_EQ(delivered[2], g_handler_published.load());
  EXPECT_EQ(order_errors, 0U) << "per-source order kept";
  EXPECT_GT(g_handler_subscribed.load(), 0U) << "no subscription from the interrupt succeeded";
  EXPECT_EQ(g_handler_unsubscribe_failed.load(), 0U) << "every handler subscription removed";
  // Every removed entry was reclaimed: only the checker is live, and the whole row is usable.
  EXPECT_EQ(bus->SubscriberCount<Sample>(), 1U);
  mccc::SubscriptionHandle refill[InterruptTraits::kMaxCallbacksPerType - 1U] = {};
  for (mccc::SubscriptionHandle& handle : refill) {
    handle = bus->Subscribe<Sample>([](const Sample&) {});
    EXPECT_TRUE(handle.IsValid()) << "a removed entry was never reclaimed";
  }
  for (const mccc::SubscriptionHandle& handle : refill) {
    EXPECT_TRUE(bus->Unsubscribe(handle));
  }
  EXPECT_TRUE(bus->Unsubscribe(checker));
  g_bus = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Instance() on bare metal: one object, whoever calls first (detail::StaticInstance).
// ---------------------------------------------------------------------------------------------

struct Counted {
  static inline std::atomic<int> constructed{0};
  Counted() noexcept { constructed.fetch_add(1); }
  int value = 42;
};

// G-35: Instance() builds exactly one object when first called from several threads
TEST(StaticInstance, RacingFirstCallsBuildExactlyOneObject) {
  using Instance = mccc::detail::StaticInstance<Counted, false, mccc::NoCriticalSection>;
  constexpr int kThreads = 4;
  std::atomic<int> ready{0};
  Counted* seen[kThreads] = {};
  std::thread threads[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    threads[t] = std::thread([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      seen[t] = &Instance::Get();
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(Counted::constructed.load(), 1);
  for (Counted* p : seen) {
    EXPECT_EQ(p, seen[0]);
    EXPECT_EQ(p->value, 42);
  }
}

TEST(StaticInstance, WithACriticalSectionTheFirstCallBuildsInsideIt) {
  struct Built {
    int entered_depth = CountingSection::depth;
  };
  using Instance = mccc::detail::StaticInstance<Built, true, CountingSection>;
  CountingSection::depth = 0;
  const Built& built = Instance::Get();
  EXPECT_EQ(built.entered_depth, 1) << "constructed inside the section";
  EXPECT_EQ(&Instance::Get(), &built);
  EXPECT_EQ(CountingSection::depth, 0);
}

}  // namespace
