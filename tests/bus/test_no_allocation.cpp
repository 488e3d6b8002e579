// SPDX-License-Identifier: MIT
// Once a bus is constructed, nothing allocates: not a thread's first publish, not any later
// publish (single, priority, fast, emplace, batch, refused), not dispatch by callbacks or by a
// visitor, not Subscribe / Unsubscribe, not the statistics.
//
// How it is counted: this executable replaces the global operator new (every form) and, with
// glibc, malloc / calloc / realloc / aligned_alloc / posix_memalign / memalign / valloc /
// pvalloc (forwarded to glibc's own), so an allocation made inside the C library (e.g. the node
// glibc allocates to register a thread_local destructor) is seen too. Under AddressSanitizer or
// ThreadSanitizer, whose malloc must stay theirs, the sanitizer's allocation hook counts instead.
// Only the threads under test count, and only while they say so; the self-tests prove that each
// kind of allocation is seen.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <thread>
#include <variant>

#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MCCC_TEST_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MCCC_TEST_SANITIZER_ALLOCATOR 1
#endif
#endif
#ifndef MCCC_TEST_SANITIZER_ALLOCATOR
#define MCCC_TEST_SANITIZER_ALLOCATOR 0
#endif

#if !MCCC_TEST_SANITIZER_ALLOCATOR && defined(__GLIBC__)
#define MCCC_TEST_COUNTS_MALLOC 1
#else
#define MCCC_TEST_COUNTS_MALLOC 0
#endif

// ---------------------------------------------------------------------------------------------
// Counting
// ---------------------------------------------------------------------------------------------
namespace {

/// Allocations made by one thread while it counts.
struct AllocationCount {
  uint64_t operator_new = 0U;  ///< calls of a global operator new
  uint64_t c_allocator = 0U;   ///< malloc-family calls (also made by operator new itself)
  uint64_t Total() const noexcept { return operator_new + c_allocator; }
};

// Checked first, so that no thread-local is touched before the program runs main (the dynamic
// loader calls malloc very early). relaxed: each thread reads only its own flag and counters.
std::atomic<bool> g_counting_enabled{false};

// Atomics, although only their own thread touches them: an allocation reaches them by
// re-entering this file (malloc, operator new) from inside a call the compiler cannot see into,
// and a plain variable that no visible code reads between "start" and "stop" may have both its
// stores merged away. relaxed: no other thread reads them.
thread_local std::atomic<bool> t_counting{false};
thread_local std::atomic<uint64_t> t_operator_new{0U};
thread_local std::atomic<uint64_t> t_c_allocator{0U};

inline bool Counting() noexcept {
  return g_counting_enabled.load(std::memory_order_relaxed) &&
         t_counting.load(std::memory_order_relaxed);
}

void CountOperatorNew() noexcept {
  if (Counting()) {
    t_operator_new.fetch_add(1U, std::memory_order_relaxed);
  }
}

void CountCAllocation() noexcept {
  if (Counting()) {
    t_c_allocator.fetch_add(1U, std::memory_order_relaxed);
  }
}

/// Counts what this thread allocates from construction to Stop().
class CountScope {
 public:
  CountScope() noexcept {
    t_operator_new.store(0U, std::memory_order_relaxed);
    t_c_allocator.store(0U, std::memory_order_relaxed);
    t_counting.store(true, std::memory_order_relaxed);
  }
  CountScope(const CountScope&) = delete;
  CountScope& operator=(const CountScope&) = delete;
  CountScope(CountScope&&) = delete;
  CountScope& operator=(CountScope&&) = delete;
  ~CountScope() { t_counting.store(false, std::memory_order_relaxed); }
  AllocationCount Stop() noexcept {
    t_counting.store(false, std::memory_order_relaxed);
    AllocationCount count;
    count.operator_new = t_operator_new.load(std::memory_order_relaxed);
    count.c_allocator = t_c_allocator.load(std::memory_order_relaxed);
    return count;
  }
};

void* AllocateOrThrow(std::size_t size) {
  CountOperatorNew();
  void* p = std::malloc(size == 0U ? 1U : size);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return p;
}

void* AllocateAlignedOrThrow(std::size_t size, std::align_val_t alignment) {
  CountOperatorNew();
  const auto align = static_cast<std::size_t>(alignment);
  const std::size_t rounded = ((size == 0U ? 1U : size) + align - 1U) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return p;
}

}  // namespace

// GCC (with -O1 and up, as in the sanitizer builds) sees an inlined operator delete call free()
// on a pointer from operator new and warns of a mismatch; both are the replacements below, which
// use malloc/free on purpose.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

// The replaceable global allocation functions, every form ([new.delete]).
void* operator new(std::size_t size) {
  return AllocateOrThrow(size);
}
void* operator new[](std::size_t size) {
  return AllocateOrThrow(size);
}
void* operator new(std::size_t size, const std::nothrow_t& /*tag*/) noexcept {
  CountOperatorNew();
  return std::malloc(size == 0U ? 1U : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& /*tag*/) noexcept {
  CountOperatorNew();
  return std::malloc(size == 0U ? 1U : size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return AllocateAlignedOrThrow(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return AllocateAlignedOrThrow(size, alignment);
}
void* operator new(std::size_t size, std::align_val_t alignment,
                   const std::nothrow_t& /*tag*/) noexcept {
  try {
    return AllocateAlignedOrThrow(size, alignment);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, std::align_val_t alignment,
                     const std::nothrow_t& /*tag*/) noexcept {
  try {
    return AllocateAlignedOrThrow(size, alignment);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t /*size*/) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t /*size*/) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t& /*tag*/) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t& /*tag*/) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t /*alignment*/) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t /*alignment*/) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t /*size*/, std::align_val_t /*alignment*/) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t /*size*/, std::align_val_t /*alignment*/) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t /*alignment*/,
                     const std::nothrow_t& /*tag*/) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t /*alignment*/,
                       const std::nothrow_t& /*tag*/) noexcept {
  std::free(p);
}

#if MCCC_TEST_COUNTS_MALLOC
// glibc documents replacing malloc this way ("Replacing malloc" in its manual): the program
// defines the functions and every caller in the process, the C library included, uses them.
// The __libc_* entry points are glibc's own implementation.
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void* __libc_valloc(std::size_t size);
void* __libc_pvalloc(std::size_t size);
void __libc_free(void* p);

void* malloc(std::size_t size) noexcept {
  CountCAllocation();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  CountCAllocation();
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) noexcept {
  CountCAllocation();
  return __libc_realloc(p, size);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  CountCAllocation();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  CountCAllocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  CountCAllocation();
  if (alignment < sizeof(void*) || (alignment & (alignment - 1U)) != 0U) {
    return EINVAL;
  }
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) {
    return ENOMEM;
  }
  *out = p;
  return 0;
}
void* valloc(std::size_t size) noexcept {
  CountCAllocation();
  return __libc_valloc(size);
}
void* pvalloc(std::size_t size) noexcept {
  CountCAllocation();
  return __libc_pvalloc(size);
}
void free(void* p) noexcept {
  __libc_free(p);
}
}  // extern "C"
#endif

#if MCCC_TEST_SANITIZER_ALLOCATOR
// The sanitizers call this hook for every allocation their malloc (and operator new) serves.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*,
                                                                             std::size_t),
                                                         void (*free_hook)(const volatile void*));

namespace {
void OnSanitizerMalloc(const volatile void* /*p*/, std::size_t /*size*/) {
  CountCAllocation();
}
void OnSanitizerFree(const volatile void* /*p*/) {}
}  // namespace
#endif

namespace {

/// Turns counting on for the whole test program (main has started: thread-locals are safe).
class AllocationCountingEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
#if MCCC_TEST_SANITIZER_ALLOCATOR
    static_cast<void>(
        __sanitizer_install_malloc_and_free_hooks(&OnSanitizerMalloc, &OnSanitizerFree));
#endif
    g_counting_enabled.store(true, std::memory_order_relaxed);
  }
};
const ::testing::Environment* const g_environment =
    ::testing::AddGlobalTestEnvironment(new AllocationCountingEnvironment);

// ---------------------------------------------------------------------------------------------
// The bus under test
// ---------------------------------------------------------------------------------------------

struct Sample {
  uint64_t seq;
  float x;
  float y;
  float z;
  float w;
};
struct Command {
  Command() noexcept = default;
  Command(uint32_t target_id, int32_t new_speed) noexcept : target(target_id), speed(new_speed) {}
  uint32_t target = 0U;
  int32_t speed = 0;
};
using Payload = std::variant<Sample, Command>;

// Structs, not aliases: a typed test names its type parameter in its CTest name.
struct MultiProducerTraits : mccc_test::Ring<256U, 64U> {};
struct SingleProducerTraits : mccc_test::SingleProducer<MultiProducerTraits> {};

std::atomic<uint64_t> g_errors_reported{0U};
void CountError(mccc::BusError /*error*/, uint64_t /*msg_id*/) {
  g_errors_reported.fetch_add(1U, std::memory_order_relaxed);
}

/// What one producer thread did, and what it allocated doing it.
struct ProducerReport {
  AllocationCount first_publish;
  AllocationCount later_publishes;
  uint32_t admitted = 0U;
  uint32_t refused = 0U;
  uint32_t high_admitted = 0U;  ///< of `admitted`, the HIGH messages
};

/// Publishes through every producer entry point, until and past a full queue.
template <typename Bus>
ProducerReport PublishEverything(Bus& bus) {
  ProducerReport report;
  const auto count = [&report](bool admitted) { ++(admitted ? report.admitted : report.refused); };
  {
    CountScope scope;
    count(bus.Publish(Sample{0U, 1.F, 2.F, 3.F, 4.F}, 1U));
    report.first_publish = scope.Stop();
  }
  CountScope scope;
  const std::array<Sample, 8> batch{};
  for (uint64_t round = 0U; round < 64U; ++round) {
    count(bus.Publish(Sample{round, 1.F, 2.F, 3.F, 4.F}, 1U));
    const bool high = bus.PublishWithPriority(Command{2U, 3}, 2U, mccc::MessagePriority::kHigh);
    count(high);
    report.high_admitted += high ? 1U : 0U;
    count(bus.PublishWithPriority(Sample{round, 0.F, 0.F, 0.F, 0.F}, 3U,
                                  mccc::MessagePriority::kLow));
    count(bus.PublishFast(Sample{round, 0.F, 0.F, 0.F, 0.F}, 4U, round));
    count(bus.template PublishEmplace<Command>(5U, mccc::MessagePriority::kMedium, 7U, -1));
    const uint32_t batch_admitted = bus.PublishBatch(batch.data(), 8U, 6U);
    report.admitted += batch_admitted;
    report.refused += 8U - batch_admitted;
  }
  // Statistics and state from a producer thread.
  const mccc::BusStatisticsSnapshot statistics = bus.GetStatistics();
  static_cast<void>(statistics);
  static_cast<void>(bus.QueueOccupancy());
  static_cast<void>(bus.QueueUtilizationPercent());
  static_cast<void>(bus.GetBackpressureLevel());
  report.later_publishes = scope.Stop();
  return report;
}

template <typename Traits>
class NoAllocationTest : public ::testing::Test {
 protected:
  using Bus = mccc::AsyncBus<Payload, Traits>;
};
using TraitsUnderTest = ::testing::Types<MultiProducerTraits, SingleProducerTraits>;
TYPED_TEST_SUITE(NoAllocationTest, TraitsUnderTest);

// G-22: nothing allocates after construction (every publish form, dispatch, control calls)
TYPED_TEST(NoAllocationTest, NothingAllocatesAfterConstruction) {
  using Traits = TypeParam;
  auto bus = std::make_unique<typename TestFixture::Bus>();  // construction may allocate: it is
                                                             // outside the count
  bus->SetErrorCallback(&CountError);

  // A producer thread that has never published: its first publish is counted on its own.
  ProducerReport producer;
  std::thread([&bus, &producer] { producer = PublishEverything(*bus); }).join();
  EXPECT_GT(producer.admitted, 0U);
  EXPECT_GT(producer.refused, 0U);  // the refusal path (error callback) ran too
  EXPECT_EQ(producer.first_publish.Total(), 0U)
      << "operator new " << producer.first_publish.operator_new << ", malloc family "
      << producer.first_publish.c_allocator;
  EXPECT_EQ(producer.later_publishes.Total(), 0U)
      << "operator new " << producer.later_publishes.operator_new << ", malloc family "
      << producer.later_publishes.c_allocator;

  // The consumer side, on this thread: subscriptions, dispatch both ways, statistics, modes.
  uint64_t samples = 0U;
  uint64_t commands = 0U;
  uint32_t dispatched = 0U;
  AllocationCount consumer;
  {
    CountScope scope;
    const mccc::SubscriptionHandle on_sample =
        bus->template Subscribe<Sample>([&samples](const Sample&) { ++samples; });
    const mccc::SubscriptionHandle on_command = bus->template Subscribe<Command>(
        [&commands](const Command&, const mccc::MessageHeader&) { ++commands; });
    dispatched += bus->ProcessBatch();
    dispatched += bus->ProcessBatchWith(mccc::make_overloaded(
        [&samples](const Sample&) { ++samples; }, [&commands](const Command&) { ++commands; }));
    static_cast<void>(bus->Unsubscribe(on_sample));
    static_cast<void>(bus->Unsubscribe(on_command));
    while (bus->QueueOccupancy() != 0U) {
      dispatched += bus->ProcessBatch();
    }
    const mccc::BusStatisticsSnapshot statistics = bus->GetStatistics();
    static_cast<void>(statistics);
    bus->ResetStatistics();
    bus->SetPerformanceMode(mccc::PerformanceMode::kNoStats);
    bus->SetPerformanceMode(mccc::PerformanceMode::kFullFeatured);
    bus->WakeConsumer();
    static_cast<void>(bus->WaitForMessages(0U));
    consumer = scope.Stop();
  }
  EXPECT_EQ(dispatched, producer.admitted);
  // The callbacks saw the first batch, the visitor the second; the rest went to no subscriber.
  // A batch takes up to kBatchSize LOW/MEDIUM messages and, with a HIGH ring, as many HIGH ones.
  const uint64_t high = TestFixture::Bus::kHighQueueDepth > 0U ? producer.high_admitted : 0U;
  const uint64_t two_batches = 2U * Traits::kBatchSize;
  EXPECT_EQ(samples + commands, std::min<uint64_t>(high, two_batches) +
                                    std::min<uint64_t>(producer.admitted - high, two_batches));
  EXPECT_EQ(consumer.Total(), 0U) << "operator new " << consumer.operator_new << ", malloc family "
                                  << consumer.c_allocator;
}

// Many threads, each counted from its very first publish: returning the statistics index at
// thread exit is arranged without allocating (thread_shard.hpp), and concurrent first publishes
// do not allocate either.
// G-22: not even a thread's first publish
TEST(NoAllocation, FirstPublishOfEveryThreadAllocatesNothing) {
  using Bus = mccc::AsyncBus<Payload, MultiProducerTraits>;
  auto bus = std::make_unique<Bus>();
  constexpr int kRounds = 3;
  constexpr int kThreadsPerRound = 4;
  std::array<AllocationCount, static_cast<std::size_t>(kRounds * kThreadsPerRound)> counts{};
  for (int round = 0; round < kRounds; ++round) {
    std::array<std::thread, kThreadsPerRound> threads;
    for (int t = 0; t < kThreadsPerRound; ++t) {
      AllocationCount& count = counts[static_cast<std::size_t>(round * kThreadsPerRound + t)];
      threads[static_cast<std::size_t>(t)] = std::thread([&bus, &count, t] {
        CountScope scope;
        static_cast<void>(bus->Publish(Sample{static_cast<uint64_t>(t), 0.F, 0.F, 0.F, 0.F}, 1U));
        count = scope.Stop();
      });
    }
    for (std::thread& thread : threads) {
      thread.join();
    }
    while (bus->ProcessBatch() != 0U) {
    }
  }
  for (std::size_t i = 0U; i < counts.size(); ++i) {
    EXPECT_EQ(counts[i].Total(), 0U)
        << "thread " << i << ": operator new " << counts[i].operator_new << ", malloc family "
        << counts[i].c_allocator;
  }
}

// ---------------------------------------------------------------------------------------------
// The statistics index is returned when its thread exits (so indices do not run out as threads
// come and go), also without a thread_local destructor.
// ---------------------------------------------------------------------------------------------
TEST(NoAllocation, ThreadShardIndexIsReturnedAtThreadExit) {
  uint32_t first = mccc::detail::kNoThreadShard;
  std::thread([&first] { first = mccc::detail::ThisThreadShard(); }).join();
  ASSERT_NE(first, mccc::detail::kNoThreadShard);
  // Lowest free index first: a thread started after the first one exited gets the same index.
  for (int i = 0; i < 3; ++i) {
    uint32_t next = mccc::detail::kNoThreadShard;
    std::thread([&next] { next = mccc::detail::ThisThreadShard(); }).join();
    EXPECT_EQ(next, first);
  }
  // Two live threads hold two different indices.
  std::atomic<int> arrived{0};
  std::atomic<bool> release{false};
  std::array<uint32_t, 2> held{};
  std::array<std::thread, 2> threads;
  for (std::size_t i = 0U; i < threads.size(); ++i) {
    threads[i] = std::thread([&, i] {
      held[i] = mccc::detail::ThisThreadShard();
      // release/acquire: the index written above is read by the main thread after `arrived`.
      arrived.fetch_add(1, std::memory_order_release);
      while (!release.load(std::memory_order_acquire)) {
        std::this_thread::yield();
      }
    });
  }
  while (arrived.load(std::memory_order_acquire) != 2) {
    std::this_thread::yield();
  }
  EXPECT_NE(held[0], held[1]);
  release.store(true, std::memory_order_release);
  for (std::thread& thread : threads) {
    thread.join();
  }
}

// ---------------------------------------------------------------------------------------------
// Self-tests: the counter sees every kind of allocation the tests above must rule out.
// ---------------------------------------------------------------------------------------------
// Where an allocation's pointer goes, so that the compiler cannot drop a malloc/free pair.
std::atomic<void*> g_escaped{nullptr};

// G-22: the counter sees allocations (self-tests: this one and the next)
TEST(NoAllocation, CounterSeesOperatorNewAndMalloc) {
  CountScope scope;
  auto boxed = std::make_unique<uint64_t>(42U);
  void* raw = std::malloc(64U);
  g_escaped.store(raw, std::memory_order_relaxed);  // relaxed: only needs to be a use
  void* zeroed = std::calloc(4U, 16U);
  g_escaped.store(zeroed, std::memory_order_relaxed);
  const AllocationCount count = scope.Stop();
  std::free(zeroed);
  std::free(raw);
  EXPECT_EQ(*boxed, 42U);
  EXPECT_GE(count.operator_new, 1U);
  EXPECT_GE(count.c_allocator, 2U);  // malloc and calloc (and, unsanitized, operator new's own)
}

#if defined(__GLIBC__)
struct WithDestructor {
  int value = 1;
  ~WithDestructor() { destroyed.fetch_add(1, std::memory_order_relaxed); }
  static std::atomic<int> destroyed;
};
std::atomic<int> WithDestructor::destroyed{0};

MCCC_NOINLINE int TouchThreadLocalWithDestructor() {
  thread_local WithDestructor object;
  return object.value;
}

// What a thread_local with a destructor costs on its thread's first use under glibc: one
// allocation inside the C library (the registration of the destructor). The counter must see it,
// or the tests above would prove nothing about such a cost.
TEST(NoAllocation, CounterSeesTheCLibraryRegisteringAThreadLocalDestructor) {
  AllocationCount count;
  std::thread([&count] {
    CountScope scope;
    static_cast<void>(TouchThreadLocalWithDestructor());
    count = scope.Stop();
  }).join();
  EXPECT_EQ(WithDestructor::destroyed.load(), 1);
  EXPECT_GE(count.c_allocator, 1U);
}
#endif

}  // namespace

// ---------------------------------------------------------------------------------------------
// Loans: the pools are part of the bus, so a loan, its publication, its delivery, a retained
// handle and the return of the block allocate nothing either.
// ---------------------------------------------------------------------------------------------

struct LoanedScan {
  uint64_t seq;
  uint64_t points[64];
};
struct LoanedMap {  // 1 KB or more: the pool hands out its lowest free block
  uint64_t version;
  uint8_t cells[2048];
};
using LoanPayload = std::variant<Sample, mccc::Loaned<LoanedScan>, mccc::Loaned<LoanedMap>>;
using LoanTraits = mccc_test::WithLoans<MultiProducerTraits, mccc::PoolOf<LoanedScan, 16U>,
                                        mccc::PoolOf<LoanedMap, 4U>>;

// G-22: loans allocate nothing either (loan, publish, refusal, dispatch, retain, return)
TEST(NoAllocation, LoansAllocateNothing) {
  using Bus = mccc::AsyncBus<LoanPayload, LoanTraits>;
  auto bus = std::make_unique<Bus>();
  bus->SetErrorCallback(&CountError);

  uint32_t published = 0U;
  uint32_t refused = 0U;
  AllocationCount producer;
  std::thread([&] {
    CountScope scope;
    for (uint64_t i = 0U; i < 40U; ++i) {  // beyond both pools: refusals too
      mccc::MessageLoan<LoanedScan> scan = bus->Loan<LoanedScan>(mccc::MessagePriority::kMedium);
      if (scan) {
        scan->seq = i;
        published += bus->Publish(std::move(scan), 1U) ? 1U : 0U;
      } else {
        ++refused;
      }
      mccc::MessageLoan<LoanedMap> map = bus->Loan<LoanedMap>(mccc::MessagePriority::kHigh);
      if (map) {
        map->version = i;
        published += bus->Publish(std::move(map), 2U) ? 1U : 0U;
      } else {
        ++refused;
      }
    }
    static_cast<void>(bus->GetLoanStatistics<LoanedScan>());
    producer = scope.Stop();
  }).join();
  EXPECT_GT(published, 0U);
  EXPECT_GT(refused, 0U) << "the refusal path ran too";
  EXPECT_EQ(producer.Total(), 0U) << "operator new " << producer.operator_new << ", malloc family "
                                  << producer.c_allocator;

  uint32_t delivered = 0U;
  mccc::Retained<LoanedMap> kept;
  AllocationCount consumer;
  {
    CountScope scope;
    const mccc::SubscriptionHandle on_scan =
        bus->Subscribe<LoanedScan>([&delivered](const LoanedScan&) { ++delivered; });
    const mccc::SubscriptionHandle on_map = bus->Subscribe<LoanedMap>([&](const LoanedMap& map) {
      ++delivered;
      kept = bus->Retain(map);  // the latest map, kept beyond the callback
    });
    while (bus->QueueOccupancy() != 0U) {
      static_cast<void>(bus->ProcessBatch());
    }
    kept.Reset();
    static_cast<void>(bus->Unsubscribe(on_scan));
    static_cast<void>(bus->Unsubscribe(on_map));
    consumer = scope.Stop();
  }
  EXPECT_EQ(delivered, published);
  EXPECT_EQ(bus->GetLoanStatistics<LoanedScan>().in_use, 0U);
  EXPECT_EQ(bus->GetLoanStatistics<LoanedMap>().in_use, 0U);
  EXPECT_EQ(consumer.Total(), 0U) << "operator new " << consumer.operator_new << ", malloc family "
                                  << consumer.c_allocator;
}
