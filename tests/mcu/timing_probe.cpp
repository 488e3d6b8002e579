// SPDX-License-Identifier: MIT
// Instructions per bus operation on Cortex-M4F: the measured longest paths of docs/timing.md.
//
// How the count is taken. QEMU models neither the DWT cycle counter (its registers read 0 on
// mps2-an386) nor cycle timing, but with `-icount shift=10` its virtual clock advances exactly
// 2^10 ns per executed guest instruction, and the board's timers count that clock: CMSDK APB
// timer 1 runs at 25 MHz, so it moves 25.6 ticks per instruction. Reading its 32-bit VALUE
// register before and after a call and dividing by 25.6 gives the instructions executed in
// between, to the instruction: 25.6 ticks per step leaves no rounding ambiguity. The program
// checks this on start (a run of K `nop`s must count exactly K more than none, for several K)
// and fails without printing any figure when it does not hold, e.g. when run without -icount or
// with another shift. An instruction is an instruction: a multi-cycle load, a taken branch, a
// barrier and LDREX/STREX all count one, and exception entry and return count none (they are no
// instructions), so the figures are instruction counts, not cycles.
//
// What is counted. Every measured operation is a function that is neither inlined nor analysed
// across calls (noipa), called from one measuring function; the count of an empty function of
// the same shape is subtracted, so a figure is the operation's body: its register saves, the
// bus code, the subscriber callbacks it runs, and its return value. The bus is built as a
// product would build it: no test hooks, no assertions.
//
// What is measured, per configuration (the bare-metal defaults for one core, depth 256, a
// 16-slot HIGH ring, compact envelopes, NullClock):
//   single_core          the PRIMASK critical section for every read-modify-write
//   single_core_ldrex    no critical section: LDREX/STREX read-modify-writes
//   single_producer      single_core with kSingleProducer (no claim loop)
//   multi_core           the multi-core defaults (barriers, LDREX/STREX), depth 256
// each operation over many calls in the states that take its different paths (a ring filled to
// its limit and drained, lap after lap; batches of 0, 1, 64 and the most a ring can hold; every
// subscription row length), and the worst of them. Then the interrupted cases: a SysTick
// interrupt whose handler publishes (or loans) on the same bus is made to land on every
// instruction of a Publish (or Loan) in turn, and the interrupted call's own instructions (the
// handler's subtracted) are reported: its retries are what an interrupt adds.
// Every outcome is checked (admitted or refused as the occupancy says, every message delivered
// once, every block back), so the program is a test too: its last line is PASS or FAIL.
#include <mccc/mccc.hpp>

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <variant>

#include "mcu_check.hpp"
#include "mcu_messages.hpp"
#include "platform/console.hpp"
#include "platform/cortex_m.hpp"
#include "platform/systick.hpp"

#if MCCC_HOSTED
#error "timing_probe.cpp is a bare-metal program (MCCC_HOSTED must be 0)"
#endif
#if MCCC_ENABLE_TEST_HOOKS || MCCC_ENABLE_ASSERTS
#error "timing_probe.cpp measures the product code: build it without test hooks and assertions"
#endif

#ifndef TIMING_PROBE_NAME
#define TIMING_PROBE_NAME "cortex-m"
#endif

// Neither inlined nor analysed by the caller: the call is really made, and an empty body is not
// found to be removable.
#define TIMING_MEASURED __attribute__((noinline, noipa))

namespace {

using mccc::MessagePriority;

// ---------------------------------------------------------------------------------------------
// The instruction counter
// ---------------------------------------------------------------------------------------------
namespace counter {

// CMSDK APB timer 1 of the MPS2 AN385/AN386 image (QEMU mps2-an386): a 32-bit down-counter at
// the 25 MHz peripheral clock. Timer 0 and SysTick stay free for the program.
constexpr std::uintptr_t kTimerBase = 0x40001000U;
constexpr std::uintptr_t kControl = kTimerBase + 0x0U;
constexpr std::uintptr_t kValue = kTimerBase + 0x4U;
constexpr std::uintptr_t kReload = kTimerBase + 0x8U;
constexpr std::uint32_t kEnable = 1U;

// 25.6 ticks per instruction: 25 MHz ticks (40 ns) against 1024 ns per instruction.
constexpr std::uint64_t kTicksPerTenInstructions = 256U;

void Start() noexcept {
  mcu::Register(kControl) = 0U;
  mcu::Register(kReload) = ~std::uint32_t{0};
  mcu::Register(kValue) = ~std::uint32_t{0};
  mcu::Register(kControl) = kEnable;
}

inline std::uint32_t Read() noexcept {
  return mcu::Register(kValue);
}

/// Instructions of `ticks` (elapsed down-counter ticks), rounded to the nearest: the error of
/// the two readings is below one tick, far below half an instruction.
constexpr std::uint32_t Instructions(std::uint32_t ticks) noexcept {
  return static_cast<std::uint32_t>((std::uint64_t{ticks} * 10U + kTicksPerTenInstructions / 2U) /
                                    kTicksPerTenInstructions);
}

/// Ticks of `instructions` (for placing an interrupt).
constexpr std::uint32_t Ticks(std::uint32_t instructions) noexcept {
  return static_cast<std::uint32_t>(std::uint64_t{instructions} * kTicksPerTenInstructions / 10U);
}

}  // namespace counter

// ---------------------------------------------------------------------------------------------
// Measuring one call
// ---------------------------------------------------------------------------------------------
using Operation = std::uint32_t (*)();

volatile std::uint32_t g_result;        // what the measured operation returned
volatile std::uint32_t g_window_start;  // counter before and after the last measured call
volatile std::uint32_t g_window_end;

/// Ticks of one call of kOp. The same function measures every operation and the empty one, so
/// the instructions around the call are the same for all and cancel.
template <Operation kOp>
TIMING_MEASURED std::uint32_t WindowTicks() {
  const std::uint32_t before = counter::Read();
  g_result = kOp();
  const std::uint32_t after = counter::Read();
  g_window_start = before;
  g_window_end = after;
  return before - after;
}

TIMING_MEASURED std::uint32_t EmptyOperation() {
  return 0U;
}

std::uint32_t g_empty_instructions = 0U;  // the window of EmptyOperation

/// Instructions of one call of kOp's body; its return value is left in g_result.
template <Operation kOp>
std::uint32_t Measure() noexcept {
  return counter::Instructions(WindowTicks<kOp>()) - g_empty_instructions;
}

template <unsigned kNops>
TIMING_MEASURED std::uint32_t NopRun() {
  __asm__ volatile(".rept %c0\n\tnop\n\t.endr" : : "i"(kNops) : "memory");
  return 0U;
}

/// The smallest and largest count of one operation over its runs.
struct Extremes {
  std::uint32_t runs = 0U;
  std::uint32_t min = ~std::uint32_t{0};
  std::uint32_t max = 0U;

  void Add(std::uint32_t instructions) noexcept {
    ++runs;
    min = instructions < min ? instructions : min;
    max = instructions > max ? instructions : max;
  }
};

void Report(const char* config, const char* operation, const Extremes& e) noexcept {
  mcu::Print("timing ");
  mcu::Print(config);
  mcu::Print(" ");
  mcu::Print(operation);
  mcu::Print(" runs=");
  mcu::PrintUnsigned(e.runs);
  mcu::Print(" min=");
  mcu::PrintUnsigned(e.runs == 0U ? 0U : e.min);
  mcu::Print(" max=");
  mcu::PrintUnsigned(e.max);
  mcu::Print("\n");
}

/// Checks that the counter counts instructions exactly (see the file comment).
bool CalibrateCounter() noexcept {
  counter::Start();
  g_empty_instructions = 0U;
  const std::uint32_t empty = Measure<&EmptyOperation>();
  bool exact = true;
  for (int run = 0; run < 8; ++run) {
    exact = CHECK_EQ(Measure<&EmptyOperation>(), empty) && exact;
  }
  exact = CHECK_EQ(Measure<&NopRun<1U>>(), empty + 1U) && exact;
  exact = CHECK_EQ(Measure<&NopRun<2U>>(), empty + 2U) && exact;
  exact = CHECK_EQ(Measure<&NopRun<3U>>(), empty + 3U) && exact;
  exact = CHECK_EQ(Measure<&NopRun<17U>>(), empty + 17U) && exact;
  exact = CHECK_EQ(Measure<&NopRun<100U>>(), empty + 100U) && exact;
  exact = CHECK_EQ(Measure<&NopRun<1000U>>(), empty + 1000U) && exact;
  g_empty_instructions = empty;
  mcu::Print("counter: CMSDK timer 1 at 25.6 ticks per instruction (-icount shift=10); ");
  mcu::Print(exact ? "runs of 1 to 1000 nops counted exactly"
                   : "NOT EXACT: run under -icount "
                     "shift=10");
  mcu::Print("; call window ");
  mcu::PrintUnsigned(empty);
  mcu::Print(" instructions, subtracted\n");
  return exact;
}

// ---------------------------------------------------------------------------------------------
// Messages, subscribers, configurations
// ---------------------------------------------------------------------------------------------
// Sample (its stream says which producer made it), Command, Status and their Payload variant.
using mcu_test::Command;
using mcu_test::Payload;
using mcu_test::Sample;
using mcu_test::Status;

constexpr std::uint32_t kRanges = 32U;
/// A message that travels by loan (72 bytes: too large to copy into every slot).
struct Scan {
  std::uint16_t stream;
  std::uint16_t spare;
  std::uint32_t sequence;
  std::uint16_t ranges[kRanges];
};
using LoanPayload = std::variant<Sample, Command, Status, mccc::Loaned<Scan>>;
constexpr std::uint32_t kScanBlocks = 8U;

constexpr std::uint32_t kMainSender = 10U;
constexpr std::uint32_t kInterruptSender = 20U;

struct SingleCoreTraits : mccc::DefaultBusTraits {
  static constexpr std::uint32_t kQueueDepth = 256U;
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;  // one Cortex-M core
  static constexpr std::uint32_t kMaxCallbacksPerType = 4U;
};
struct LdrexTraits : SingleCoreTraits {
  using CriticalSection = mccc::NoCriticalSection;
};
struct SingleProducerTraits : SingleCoreTraits {
  static constexpr bool kSingleProducer = true;
};
struct MultiCoreTraits : mccc::DefaultBusTraits {
  static constexpr std::uint32_t kQueueDepth = 256U;
  static constexpr std::uint32_t kMaxCallbacksPerType = 4U;
};
template <typename Base>
struct WithScanPool : Base {
  using LoanPools = mccc::LoanPools<mccc::PoolOf<Scan, kScanBlocks>>;
};

template <typename Traits, bool kInterruptPublishes>
struct Config {
  using Bus = mccc::AsyncBus<Payload, Traits>;
  using LoanBus = mccc::AsyncBus<LoanPayload, WithScanPool<Traits>>;
  /// False for a single-producer bus: a handler publishing while the main loop publishes
  /// would be a second producer, which that configuration forbids.
  static constexpr bool kHandlerMayPublish = kInterruptPublishes;
};
struct SingleCore : Config<SingleCoreTraits, true> {
  static constexpr const char* kName = "single_core";
};
struct SingleCoreLdrex : Config<LdrexTraits, true> {
  static constexpr const char* kName = "single_core_ldrex";
};
struct SingleProducer : Config<SingleProducerTraits, false> {
  static constexpr const char* kName = "single_producer";
};
struct MultiCore : Config<MultiCoreTraits, true> {
  static constexpr const char* kName = "multi_core";
};

// One bus at a time in a static arena (no heap).
template <typename... Buses>
struct ArenaFor {
  static constexpr std::size_t kBytes = [] {
    std::size_t largest = 0U;
    for (const std::size_t size : {sizeof(Buses)...}) {
      largest = size > largest ? size : largest;
    }
    return largest;
  }();
  static constexpr std::size_t kAlign = [] {
    std::size_t largest = 1U;
    for (const std::size_t align : {alignof(Buses)...}) {
      largest = align > largest ? align : largest;
    }
    return largest;
  }();
};
using Arena =
    ArenaFor<SingleCore::Bus, SingleCore::LoanBus, SingleCoreLdrex::Bus, SingleCoreLdrex::LoanBus,
             SingleProducer::Bus, SingleProducer::LoanBus, MultiCore::Bus, MultiCore::LoanBus>;
alignas(Arena::kAlign) unsigned char g_arena[Arena::kBytes];

/// The bus the measured operations of type Bus work on.
template <typename Bus>
Bus* g_bus = nullptr;

template <typename Bus>
class FreshBus {
 public:
  FreshBus() noexcept : bus_(*::new (static_cast<void*>(g_arena)) Bus()) { g_bus<Bus> = &bus_; }
  ~FreshBus() {
    g_bus<Bus> = nullptr;
    bus_.~Bus();
  }
  FreshBus(const FreshBus&) = delete;
  FreshBus& operator=(const FreshBus&) = delete;
  FreshBus(FreshBus&&) = delete;
  FreshBus& operator=(FreshBus&&) = delete;

  Bus& operator*() noexcept { return bus_; }

 private:
  Bus& bus_;
};

// What the subscribers and visitors do: one load, one add, one store per message.
volatile std::uint32_t g_sink;
volatile std::uint32_t g_delivered;

void OnSample(const Sample& sample) noexcept {
  g_sink = g_sink + sample.sequence;
  g_delivered = g_delivered + 1U;
}

struct SampleVisitor {
  void operator()(const Sample& sample) const noexcept { OnSample(sample); }
  template <typename T>
  void operator()(const T&) const noexcept {}
};
SampleVisitor g_visitor;

Sample g_sample{1U, 0U, 0U};
constexpr std::uint32_t kBatchMessages = 8U;
Sample g_batch[kBatchMessages];

template <typename Bus>
std::uint32_t Drain(Bus& bus) noexcept {
  std::uint32_t total = 0U;
  for (std::uint32_t n = bus.ProcessBatch(); n != 0U; n = bus.ProcessBatch()) {
    total += n;
  }
  return total;
}

template <typename Bus>
constexpr std::uint32_t MediumLimit() noexcept {
  return static_cast<std::uint32_t>(Bus::Admission::LimitFor(MessagePriority::kMedium));
}

// ---------------------------------------------------------------------------------------------
// The measured operations
// ---------------------------------------------------------------------------------------------
template <typename Bus>
TIMING_MEASURED std::uint32_t OpPublish() {
  return g_bus<Bus>->Publish(g_sample, kMainSender) ? 1U : 0U;
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpPublishHigh() {
  return g_bus<Bus>->PublishWithPriority(g_sample, kMainSender, MessagePriority::kHigh) ? 1U : 0U;
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpPublishBatch() {
  return g_bus<Bus>->PublishBatch(g_batch, kBatchMessages, kMainSender);
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpProcessBatch() {
  return g_bus<Bus>->ProcessBatch();
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpProcessBatchWith() {
  return g_bus<Bus>->ProcessBatchWith(g_visitor);
}

mccc::SubscriptionHandle g_handles[8];
std::uint32_t g_handle_index = 0U;

template <typename Bus>
TIMING_MEASURED std::uint32_t OpSubscribe() {
  g_handles[g_handle_index] = g_bus<Bus>->template Subscribe<Sample>(&OnSample);
  return g_handles[g_handle_index].IsValid() ? 1U : 0U;
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpUnsubscribe() {
  return g_bus<Bus>->Unsubscribe(g_handles[g_handle_index]) ? 1U : 0U;
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpGetStatistics() {
  return static_cast<std::uint32_t>(g_bus<Bus>->GetStatistics().messages_published);
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpResetStatistics() {
  g_bus<Bus>->ResetStatistics();
  return 0U;
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpQueueDepth() {
  return g_bus<Bus>->QueueOccupancy();
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpBackpressureLevel() {
  return static_cast<std::uint32_t>(g_bus<Bus>->GetBackpressureLevel());
}

mccc::MessageLoan<Scan> g_loan;
mccc::Retained<Scan> g_retained;
const Scan* g_delivered_scan = nullptr;

template <typename Bus>
TIMING_MEASURED std::uint32_t OpLoan() {
  g_loan = g_bus<Bus>->template Loan<Scan>(MessagePriority::kMedium);
  return g_loan ? 1U : 0U;
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpPublishLoan() {
  return g_bus<Bus>->Publish(std::move(g_loan), kMainSender) ? 1U : 0U;
}

template <typename Bus>
TIMING_MEASURED std::uint32_t OpRetain() {
  g_retained = g_bus<Bus>->Retain(*g_delivered_scan);
  return g_retained ? 1U : 0U;
}

TIMING_MEASURED std::uint32_t OpReleaseRetained() {
  g_retained.Reset();
  return 0U;
}

// ---------------------------------------------------------------------------------------------
// Publishing
// ---------------------------------------------------------------------------------------------
constexpr std::uint32_t kLaps = 6U;  // each lap fills the ring to its MEDIUM limit: ~5 wraps

template <typename Cfg>
void MeasurePublishing() {
  using Bus = typename Cfg::Bus;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  CHECK(bus.template Subscribe<Sample>(&OnSample).IsValid());
  constexpr std::uint32_t kLimit = MediumLimit<Bus>();
  Extremes admitted;
  Extremes refused;
  Extremes high_admitted;
  Extremes high_refused;
  for (std::uint32_t lap = 0U; lap < kLaps; ++lap) {
    // MEDIUM until refused: the fast path, then (first publish after a drain) the refresh of
    // the cached consumer position, then the refusal at the limit.
    std::uint32_t accepted = 0U;
    for (;;) {
      g_sample.sequence = accepted;
      const std::uint32_t count = Measure<&OpPublish<Bus>>();
      if (g_result == 0U) {
        refused.Add(count);
        break;
      }
      admitted.Add(count);
      ++accepted;
    }
    CHECK_EQ(accepted, kLimit);
    for (int extra = 0; extra < 8; ++extra) {
      refused.Add(Measure<&OpPublish<Bus>>());
      CHECK_EQ(g_result, 0U);
    }
    // HIGH: the HIGH ring, to its capacity.
    std::uint32_t high = 0U;
    for (;;) {
      const std::uint32_t count = Measure<&OpPublishHigh<Bus>>();
      if (g_result == 0U) {
        high_refused.Add(count);
        break;
      }
      high_admitted.Add(count);
      ++high;
    }
    CHECK_EQ(high, Bus::kHighQueueDepth);
    g_delivered = 0U;
    CHECK_EQ(Drain(bus), kLimit + Bus::kHighQueueDepth);
    CHECK_EQ(g_delivered, kLimit + Bus::kHighQueueDepth);
  }
  Report(Cfg::kName, "publish_admitted", admitted);
  Report(Cfg::kName, "publish_refused", refused);
  Report(Cfg::kName, "publish_high_admitted", high_admitted);
  Report(Cfg::kName, "publish_high_refused", high_refused);

  // PublishBatch of 8: whole batches, then the partial one at the limit, then refusals.
  Extremes batch_whole;
  Extremes batch_partial;
  Extremes batch_refused;
  for (std::uint32_t lap = 0U; lap < kLaps; ++lap) {
    std::uint32_t accepted = 0U;
    for (;;) {
      const std::uint32_t count = Measure<&OpPublishBatch<Bus>>();
      accepted += g_result;
      if (g_result == kBatchMessages) {
        batch_whole.Add(count);
      } else if (g_result != 0U) {
        batch_partial.Add(count);
      } else {
        batch_refused.Add(count);
        break;
      }
    }
    CHECK_EQ(accepted, kLimit);
    CHECK_EQ(Drain(bus), kLimit);
  }
  Report(Cfg::kName, "publish_batch_8_admitted", batch_whole);
  Report(Cfg::kName, "publish_batch_8_partial", batch_partial);
  Report(Cfg::kName, "publish_batch_8_refused", batch_refused);

  // The snapshots and the statistics, on a bus holding messages.
  Extremes depth;
  Extremes level;
  Extremes get_statistics;
  Extremes reset_statistics;
  for (std::uint32_t i = 0U; i < 16U; ++i) {
    CHECK(bus.Publish(g_sample, kMainSender));
    depth.Add(Measure<&OpQueueDepth<Bus>>());
    CHECK_EQ(g_result, i + 1U);
    level.Add(Measure<&OpBackpressureLevel<Bus>>());
    get_statistics.Add(Measure<&OpGetStatistics<Bus>>());
  }
  for (std::uint32_t i = 0U; i < 16U; ++i) {
    reset_statistics.Add(Measure<&OpResetStatistics<Bus>>());
  }
  CHECK_EQ(bus.GetStatistics().messages_published, 0U);
  CHECK_EQ(Drain(bus), 16U);
  Report(Cfg::kName, "queue_depth", depth);
  Report(Cfg::kName, "backpressure_level", level);
  Report(Cfg::kName, "get_statistics", get_statistics);
  Report(Cfg::kName, "reset_statistics", reset_statistics);
}

// ---------------------------------------------------------------------------------------------
// Consuming
// ---------------------------------------------------------------------------------------------
constexpr std::uint32_t kBatchRepeats = 12U;

template <typename Bus, Operation kProcess>
Extremes MeasureBatchesOf(Bus& bus, std::uint32_t messages) noexcept {
  Extremes e;
  for (std::uint32_t repeat = 0U; repeat < kBatchRepeats; ++repeat) {
    for (std::uint32_t i = 0U; i < messages; ++i) {
      g_sample.sequence = i;
      CHECK(bus.Publish(g_sample, kMainSender));
    }
    g_delivered = 0U;
    e.Add(Measure<kProcess>());
    CHECK_EQ(g_result, messages);
    CHECK_EQ(g_delivered, messages);
  }
  return e;
}

template <typename Cfg>
void MeasureConsuming() {
  using Bus = typename Cfg::Bus;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  CHECK(bus.template Subscribe<Sample>(&OnSample).IsValid());
  Report(Cfg::kName, "process_batch_0", MeasureBatchesOf<Bus, &OpProcessBatch<Bus>>(bus, 0U));
  Report(Cfg::kName, "process_batch_1", MeasureBatchesOf<Bus, &OpProcessBatch<Bus>>(bus, 1U));
  Report(Cfg::kName, "process_batch_64", MeasureBatchesOf<Bus, &OpProcessBatch<Bus>>(bus, 64U));
  Report(Cfg::kName, "process_batch_with_0",
         MeasureBatchesOf<Bus, &OpProcessBatchWith<Bus>>(bus, 0U));
  Report(Cfg::kName, "process_batch_with_1",
         MeasureBatchesOf<Bus, &OpProcessBatchWith<Bus>>(bus, 1U));
  Report(Cfg::kName, "process_batch_with_64",
         MeasureBatchesOf<Bus, &OpProcessBatchWith<Bus>>(bus, 64U));

  // The most one call can dispatch on this bus: the ring at its MEDIUM limit and a full HIGH
  // lane, whose messages are taken before the ring's.
  Extremes full;
  for (std::uint32_t repeat = 0U; repeat < kBatchRepeats; ++repeat) {
    std::uint32_t published = 0U;
    while (bus.Publish(g_sample, kMainSender)) {
      ++published;
    }
    while (bus.PublishWithPriority(g_sample, kMainSender, MessagePriority::kHigh)) {
      ++published;
    }
    g_delivered = 0U;
    full.Add(Measure<&OpProcessBatch<Bus>>());
    CHECK_EQ(g_result, published);
    CHECK_EQ(published, MediumLimit<Bus>() + Bus::kHighQueueDepth);
  }
  Report(Cfg::kName, "process_batch_full", full);
}

// ---------------------------------------------------------------------------------------------
// Subscriptions
// ---------------------------------------------------------------------------------------------
template <typename Bus>
Bus* g_unsubscribing_bus = nullptr;  // set while a callback unsubscribes itself
Extremes g_unsubscribe_in_callback;

template <typename Bus>
void UnsubscribeFromCallback(const Sample& sample) noexcept {
  OnSample(sample);
  if (g_unsubscribing_bus<Bus> != nullptr) {
    g_unsubscribing_bus<Bus> = nullptr;
    g_unsubscribe_in_callback.Add(Measure<&OpUnsubscribe<Bus>>());
    CHECK_EQ(g_result, 1U);
  }
}

template <typename Cfg>
void MeasureSubscriptions() {
  using Bus = typename Cfg::Bus;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  constexpr std::uint32_t kRow = SingleCoreTraits::kMaxCallbacksPerType;
  Extremes subscribe;
  Extremes subscribe_full;
  Extremes unsubscribe;
  for (std::uint32_t round = 0U; round < 4U; ++round) {
    // Fill the row (every length of it), one more is refused, then empty it.
    for (g_handle_index = 0U; g_handle_index < kRow; ++g_handle_index) {
      subscribe.Add(Measure<&OpSubscribe<Bus>>());
      CHECK_EQ(g_result, 1U);
    }
    subscribe_full.Add(Measure<&OpSubscribe<Bus>>());
    CHECK_EQ(g_result, 0U);
    for (g_handle_index = 0U; g_handle_index < kRow; ++g_handle_index) {
      unsubscribe.Add(Measure<&OpUnsubscribe<Bus>>());
      CHECK_EQ(g_result, 1U);
    }
  }
  // From inside a callback: the consumer is in its batch, so the callable is reclaimed at the
  // batch end (counted in that ProcessBatch).
  Extremes batch_with_reclaim;
  g_unsubscribe_in_callback = Extremes{};
  for (std::uint32_t round = 0U; round < 4U; ++round) {
    g_handle_index = 0U;
    g_handles[0] = bus.template Subscribe<Sample>(&UnsubscribeFromCallback<Bus>);
    CHECK(g_handles[0].IsValid());
    CHECK(bus.Publish(g_sample, kMainSender));
    g_unsubscribing_bus<Bus> = &bus;
    batch_with_reclaim.Add(Measure<&OpProcessBatch<Bus>>());
    CHECK_EQ(g_result, 1U);
    CHECK_EQ(bus.template SubscriberCount<Sample>(), 0U);
  }
  Report(Cfg::kName, "subscribe", subscribe);
  Report(Cfg::kName, "subscribe_row_full", subscribe_full);
  Report(Cfg::kName, "unsubscribe", unsubscribe);
  Report(Cfg::kName, "unsubscribe_in_callback", g_unsubscribe_in_callback);
  Report(Cfg::kName, "process_batch_1_unsubscribing", batch_with_reclaim);
}

// ---------------------------------------------------------------------------------------------
// Loans
// ---------------------------------------------------------------------------------------------
Extremes g_retain;
bool g_retain_next = false;

template <typename Bus>
void OnScan(const Scan& scan) noexcept {
  g_sink = g_sink + scan.ranges[0];
  g_delivered = g_delivered + 1U;
  if (g_retain_next) {
    g_retain_next = false;
    g_delivered_scan = &scan;
    g_retain.Add(Measure<&OpRetain<Bus>>());
    CHECK_EQ(g_result, 1U);
  }
}

template <typename Cfg>
void MeasureLoans() {
  using Bus = typename Cfg::LoanBus;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  CHECK(bus.template Subscribe<Scan>(&OnScan<Bus>).IsValid());
  using Pool = typename Bus::template LoanPoolOf<Scan>;
  constexpr std::uint32_t kMediumBlocks = Pool::Admission::LimitFor(MessagePriority::kMedium);
  static_assert(kMediumBlocks == 7U, "the report names the batch of 7 loaned messages");
  Extremes loan;
  Extremes loan_refused;
  Extremes publish_loan;
  Extremes batch_one;
  Extremes batch_many;
  Extremes release_retained;
  g_retain = Extremes{};
  for (std::uint32_t lap = 0U; lap < kLaps; ++lap) {
    // Loan and publish one at a time until the pool refuses at the MEDIUM limit, then dispatch
    // them all in one batch (their blocks return together at its end).
    std::uint32_t published = 0U;
    for (;;) {
      const std::uint32_t count = Measure<&OpLoan<Bus>>();
      if (g_result == 0U) {
        loan_refused.Add(count);
        break;
      }
      loan.Add(count);
      g_loan->ranges[0] = static_cast<std::uint16_t>(published);  // the producer fills it
      publish_loan.Add(Measure<&OpPublishLoan<Bus>>());
      CHECK_EQ(g_result, 1U);
      ++published;
    }
    CHECK_EQ(published, kMediumBlocks);
    g_delivered = 0U;
    batch_many.Add(Measure<&OpProcessBatch<Bus>>());
    CHECK_EQ(g_result, kMediumBlocks);
    CHECK_EQ(g_delivered, kMediumBlocks);
    CHECK_EQ(bus.template GetLoanStatistics<Scan>().in_use, 0U);
    // One loaned message alone.
    CHECK(OpLoan<Bus>() == 1U && OpPublishLoan<Bus>() == 1U);
    batch_one.Add(Measure<&OpProcessBatch<Bus>>());
    CHECK_EQ(g_result, 1U);
    CHECK_EQ(bus.template GetLoanStatistics<Scan>().in_use, 0U);
    // One whose callback retains it (Retain measured inside the callback); the handle is then
    // released on the main loop: the last reference, which destroys and returns the block.
    CHECK(OpLoan<Bus>() == 1U && OpPublishLoan<Bus>() == 1U);
    g_retain_next = true;
    CHECK_EQ(bus.ProcessBatch(), 1U);
    CHECK_EQ(bus.template GetLoanStatistics<Scan>().in_use, 1U);
    release_retained.Add(Measure<&OpReleaseRetained>());
    CHECK_EQ(bus.template GetLoanStatistics<Scan>().in_use, 0U);
  }
  Report(Cfg::kName, "loan", loan);
  Report(Cfg::kName, "loan_refused", loan_refused);
  Report(Cfg::kName, "publish_loan", publish_loan);
  Report(Cfg::kName, "process_batch_1_loaned", batch_one);
  Report(Cfg::kName, "process_batch_7_loaned", batch_many);
  Report(Cfg::kName, "retain_in_callback", g_retain);
  Report(Cfg::kName, "release_last_retained", release_retained);
}

// ---------------------------------------------------------------------------------------------
// Interrupted operations: a SysTick interrupt placed on every instruction of a call in turn
// ---------------------------------------------------------------------------------------------
volatile Operation g_handler_operation = nullptr;
volatile std::uint32_t g_handler_result;
volatile std::uint32_t g_handler_entry;  // counter when the handler's hook began
volatile std::uint32_t g_handler_ticks;  // ticks the hook measured around its operation
volatile bool g_handler_ran = false;
volatile std::uint32_t g_handler_runs = 0U;  // per sample: must be 0 or 1

/// The SysTick hook: stops the timer (one interrupt per sample), runs the handler's operation
/// and measures itself, so that its instructions can be taken out of the interrupted call's.
void InterruptHook() noexcept {
  const std::uint32_t entry = counter::Read();
  mcu::Register(mcu::kSystCsr) = 0U;
  g_handler_result = g_handler_operation();
  const std::uint32_t exit_value = counter::Read();
  g_handler_entry = entry;
  g_handler_ticks = entry - exit_value;
  g_handler_ran = true;
  g_handler_runs = g_handler_runs + 1U;
}

// The SysTick period: the interrupt fires at the end of the first one, and the handler stops
// the timer well before a second one ends (it needs about 30 instructions to get there), so it
// fires once per sample.
constexpr std::uint32_t kLeadTicks = counter::Ticks(64U);
// Instructions between arming and the measured window: longer than the period, so that the
// first interrupt points of a sweep land before the window and none of its instructions is
// skipped.
constexpr std::uint32_t kPadInstructions = 72U;

struct SweepOutcome {
  Extremes own;      // the interrupted call's instructions, the handler's taken out
  Extremes handler;  // the handler operation's instructions
  std::uint32_t inside = 0U;
};

std::uint32_t g_handler_frame = 0U;  // handler instructions outside its hook's own window
std::uint32_t g_hook_frame = 0U;     // hook instructions around an empty operation

/// Runs kOp once per interrupt point, with `prepare()` before and `cleanup(main, handler)` after
/// each (the results of the call and of the handler's operation), over windows of up to
/// `span` instructions.
template <Operation kOp, typename Prepare, typename Cleanup>
SweepOutcome Sweep(Operation handler_operation, std::uint32_t span, Prepare&& prepare,
                   Cleanup&& cleanup) noexcept {
  SweepOutcome outcome;
  g_handler_operation = handler_operation;
  mcu::systick::SetHook(&InterruptHook);
  const std::uint32_t last = kLeadTicks + counter::Ticks(kPadInstructions + span + 8U);
  // Steps of 12 ticks, under half an instruction: every instruction boundary is hit.
  for (std::uint32_t delay = kLeadTicks; delay < last; delay += 12U) {
    prepare();
    g_handler_ran = false;
    g_handler_runs = 0U;
    mcu::Register(mcu::kSystCsr) = 0U;
    mcu::Register(mcu::kSystRvr) = delay;
    mcu::Register(mcu::kSystCvr) = 0U;
    mcu::Register(mcu::kSystCsr) = mcu::kSystClkSourceCpu | mcu::kSystTickInt | mcu::kSystEnable;
    __asm__ volatile(".rept %c0\n\tnop\n\t.endr" : : "i"(kPadInstructions) : "memory");
    const std::uint32_t total = WindowTicks<kOp>();
    const std::uint32_t main_result = g_result;
    mcu::Register(mcu::kSystCsr) = 0U;
    CHECK(g_handler_runs <= 1U);
    const bool landed_inside =
        g_handler_ran && g_handler_entry <= g_window_start && g_handler_entry >= g_window_end;
    if (landed_inside) {
      ++outcome.inside;
      const std::uint32_t own =
          counter::Instructions(total - g_handler_ticks) - g_empty_instructions - g_handler_frame;
      outcome.own.Add(own);
      outcome.handler.Add(counter::Instructions(g_handler_ticks) - g_hook_frame);
    }
    cleanup(main_result, g_handler_ran ? g_handler_result : ~std::uint32_t{0});
  }
  mcu::systick::SetHook(nullptr);
  return outcome;
}

/// Measures the handler's fixed cost: an empty operation interrupted by an empty handler.
bool CalibrateInterrupts() noexcept {
  g_handler_frame = 0U;
  g_hook_frame = 0U;
  const SweepOutcome empty = Sweep<&EmptyOperation>(
      &EmptyOperation, 8U, []() noexcept {}, [](std::uint32_t, std::uint32_t) noexcept {});
  bool constant = CHECK(empty.inside > 0U);
  constant = CHECK_EQ(empty.own.min, empty.own.max) && constant;
  constant = CHECK_EQ(empty.handler.min, empty.handler.max) && constant;
  g_handler_frame = empty.own.max;
  g_hook_frame = empty.handler.max;
  mcu::Print("interrupts: SysTick handler frame ");
  mcu::PrintUnsigned(g_handler_frame);
  mcu::Print(" + hook frame ");
  mcu::PrintUnsigned(g_hook_frame);
  mcu::Print(" instructions, subtracted; ");
  mcu::PrintUnsigned(empty.inside);
  mcu::Print(" samples with the interrupt inside an empty window\n");
  return constant;
}

void ReportSweep(const char* config, const char* operation, const SweepOutcome& outcome,
                 std::uint32_t uninterrupted_max) noexcept {
  mcu::Print("timing ");
  mcu::Print(config);
  mcu::Print(" ");
  mcu::Print(operation);
  mcu::Print(" samples_inside=");
  mcu::PrintUnsigned(outcome.inside);
  mcu::Print(" min=");
  mcu::PrintUnsigned(outcome.own.min);
  mcu::Print(" max=");
  mcu::PrintUnsigned(outcome.own.max);
  mcu::Print(" uninterrupted_max=");
  mcu::PrintUnsigned(uninterrupted_max);
  mcu::Print(" handler_max=");
  mcu::PrintUnsigned(outcome.handler.max);
  mcu::Print("\n");
}

template <typename Bus>
TIMING_MEASURED std::uint32_t HandlerPublish() {
  return g_bus<Bus>->Publish(Sample{2U, 0U, 0U}, kInterruptSender) ? 1U : 0U;
}

template <typename Bus>
TIMING_MEASURED std::uint32_t HandlerLoanAndPublish() {
  mccc::MessageLoan<Scan> scan = g_bus<Bus>->template Loan<Scan>(MessagePriority::kHigh);
  if (!scan) {
    return 0U;
  }
  scan->ranges[0] = 7U;
  return g_bus<Bus>->Publish(std::move(scan), kInterruptSender) ? 1U : 0U;
}

/// Leaves `bus` empty with the producers' cached consumer position either current (the next
/// publish takes the fast path) or a whole limit behind (the next publish refreshes it first).
template <typename Bus>
void PrepareCache(Bus& bus, bool stale) noexcept {
  while (bus.Publish(g_sample, kMainSender)) {
  }
  CHECK_EQ(Drain(bus), MediumLimit<Bus>());
  if (!stale) {
    CHECK(bus.Publish(g_sample, kMainSender));  // refreshes the cached position
    CHECK_EQ(Drain(bus), 1U);
  }
}

template <typename Cfg>
void MeasureInterruptedPublish() {
  using Bus = typename Cfg::Bus;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  CHECK(bus.template Subscribe<Sample>(&OnSample).IsValid());
  // Two starting states: an empty ring whose cached consumer position is current (the fast
  // path), and one just drained from its limit (the producer must refresh that position).
  for (int state = 0; state < 2; ++state) {
    const bool stale_cache = state == 1;
    Extremes uninterrupted;
    for (int run = 0; run < 8; ++run) {
      PrepareCache(bus, stale_cache);
      uninterrupted.Add(Measure<&OpPublish<Bus>>());
      CHECK_EQ(Drain(bus), 1U);
    }
    const SweepOutcome outcome = Sweep<&OpPublish<Bus>>(
        &HandlerPublish<Bus>, uninterrupted.max,
        [&bus, stale_cache]() noexcept { PrepareCache(bus, stale_cache); },
        [&bus](std::uint32_t main_result, std::uint32_t handler_result) noexcept {
          CHECK_EQ(main_result, 1U);
          const std::uint32_t expected = handler_result == 1U ? 2U : 1U;
          g_delivered = 0U;
          CHECK_EQ(Drain(bus), expected);
          CHECK_EQ(g_delivered, expected);
        });
    ReportSweep(Cfg::kName, stale_cache ? "publish_interrupted_refresh" : "publish_interrupted",
                outcome, uninterrupted.max);
  }
}

template <typename Cfg>
void MeasureInterruptedLoan() {
  using Bus = typename Cfg::LoanBus;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  CHECK(bus.template Subscribe<Scan>(&OnScan<Bus>).IsValid());
  Extremes uninterrupted;
  for (int run = 0; run < 8; ++run) {
    uninterrupted.Add(Measure<&OpLoan<Bus>>());
    CHECK_EQ(g_result, 1U);
    g_loan.Reset();
  }
  const SweepOutcome outcome = Sweep<&OpLoan<Bus>>(
      &HandlerLoanAndPublish<Bus>, uninterrupted.max, []() noexcept {},
      [&bus](std::uint32_t main_result, std::uint32_t handler_result) noexcept {
        CHECK_EQ(main_result, 1U);
        g_loan.Reset();
        CHECK_EQ(Drain(bus), handler_result == 1U ? 1U : 0U);
        CHECK_EQ(bus.template GetLoanStatistics<Scan>().in_use, 0U);
      });
  ReportSweep(Cfg::kName, "loan_interrupted", outcome, uninterrupted.max);
}

// ---------------------------------------------------------------------------------------------
template <typename Cfg>
void RunConfiguration() {
  const char* name = Cfg::kName;
  mcu_test::RunCase(name, "publishing", &MeasurePublishing<Cfg>);
  mcu_test::RunCase(name, "consuming", &MeasureConsuming<Cfg>);
  mcu_test::RunCase(name, "subscriptions", &MeasureSubscriptions<Cfg>);
  mcu_test::RunCase(name, "loans", &MeasureLoans<Cfg>);
  if constexpr (Cfg::kHandlerMayPublish) {
    mcu_test::RunCase(name, "publish interrupted at every instruction",
                      &MeasureInterruptedPublish<Cfg>);
    mcu_test::RunCase(name, "loan interrupted at every instruction", &MeasureInterruptedLoan<Cfg>);
  }
}

}  // namespace

int main() {
  mcu::Print("mccc timing probe, " TIMING_PROBE_NAME "\n");
  if (!CalibrateCounter() || !CalibrateInterrupts()) {
    return mcu_test::Finish();
  }
  RunConfiguration<SingleCore>();
  RunConfiguration<SingleCoreLdrex>();
  RunConfiguration<SingleProducer>();
  RunConfiguration<MultiCore>();
  return mcu_test::Finish();
}
