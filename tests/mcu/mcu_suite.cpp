// SPDX-License-Identifier: MIT
// The mccc test suite for bare-metal Cortex-M, run under qemu-system-arm (tests/mcu/).
//
// Every case checks exact outcomes on one core, where producers are the main loop and an
// interrupt handler (SysTick), and the consumer is the main loop (or, in one case, the handler):
//   - admission at every priority threshold and in every performance mode;
//   - the backpressure level and utilisation at every occupancy;
//   - PublishBatch admitting a prefix;
//   - subscriber callbacks of all three shapes, and the visitor of ProcessBatchWith;
//   - the statistics snapshot, field by field;
//   - an interrupt publishing while the main loop publishes and consumes: every message
//     delivered exactly once, each source's order kept;
//   - an interrupt taken between a publish's claim and the writing of its slot (the bus's
//     after-claim test hook pends SysTick there): the consumer never sees the half-written
//     slot, and both messages arrive;
//   - Subscribe, Unsubscribe and ResetStatistics called from the interrupt while the main loop
//     is inside the same calls (configurations with a critical section): nothing hangs, every
//     subscription made is removed and reclaimed, every message published is delivered;
//   - loans (a bus whose pool of scan blocks is a member, in the same static arena): loan, fill
//     in place, publish, delivery of the block itself; pool admission by priority in every
//     mode; a publish refused by the ring leaves the loan intact; the block back after its
//     dispatch; Retain beyond the callback, copies, Reset, release from the interrupt; and an
//     interrupt loaning and publishing while the main loop loans, publishes and consumes.
// Each case runs on every configuration below (RunConfiguration):
//   single_core                the bare-metal defaults for one core: compact envelopes, a HIGH
//                              lane, the PRIMASK critical section, 32-bit positions
//   single_core_no_high_lane   HIGH shares the ring
//   single_core_full_envelope  full envelopes in the slots (envelope-taking subscribers)
//   single_core_ldrex_strex    no critical section: LDREX/STREX read-modify-writes (M3/M4 only)
//   default_traits             the multi-core defaults with depth 64 (M3/M4 only)
// Output and exit status go through semihosting: one line per case, then the totals and PASS or
// FAIL; exit status = number of failures.
#include <mccc/mccc.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <variant>

#include "mcu_check.hpp"
#include "mcu_messages.hpp"
#include "platform/console.hpp"
#include "platform/cortex_m.hpp"
#include "platform/systick.hpp"

#if !MCCC_ENABLE_TEST_HOOKS
#error "mcu_suite.cpp needs MCCC_ENABLE_TEST_HOOKS=1 (the half-written publish uses the hook)"
#endif
#if MCCC_HOSTED
#error "mcu_suite.cpp is a bare-metal program (MCCC_HOSTED must be 0)"
#endif

#ifndef MCU_SUITE_CORE_NAME
#define MCU_SUITE_CORE_NAME "cortex-m"
#endif

namespace {

using mccc::BackpressureLevel;
using mccc::BusError;
using mccc::BusStatisticsSnapshot;
using mccc::MessageHeader;
using mccc::MessagePriority;
using mccc::PerformanceMode;

// ---------------------------------------------------------------------------------------------
// Messages and who sends them
// ---------------------------------------------------------------------------------------------
// Sample (its stream says which producer made it), Command, Status and their Payload variant.
using mcu_test::Command;
using mcu_test::Payload;
using mcu_test::Sample;
using mcu_test::Status;

constexpr std::uint16_t kMainStream = 1U;
constexpr std::uint16_t kIsrStream = 2U;
constexpr std::uint16_t kIsrHighStream = 3U;
constexpr std::uint16_t kStreams = 4U;
constexpr std::uint32_t kMainSender = 10U;
constexpr std::uint32_t kIsrSender = 20U;

// ---------------------------------------------------------------------------------------------
// Configurations under test
// ---------------------------------------------------------------------------------------------
// Cores with atomic read-modify-write instructions (LDREX/STREX: Cortex-M3/M4) also run the
// configurations that rely on them; ARMv6-M (Cortex-M0/M0+) has none.
#if defined(__GCC_ATOMIC_INT_LOCK_FREE) && __GCC_ATOMIC_INT_LOCK_FREE == 2
#define MCU_SUITE_HAS_ATOMIC_RMW 1
#else
#define MCU_SUITE_HAS_ATOMIC_RMW 0
#endif

/// One core, producers in interrupt handlers, everything else the bare-metal defaults: 32-bit
/// positions, a HIGH lane, compact envelopes, the PRIMASK critical section.
struct SingleCoreTraits : mccc::DefaultBusTraits {
  static constexpr std::uint32_t kQueueDepth = 64U;
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;  // one Cortex-M core
  static constexpr std::uint32_t kMaxCallbacksPerType = 4U;
  using Clock = mcu::SysTickClock;
};

/// Without a HIGH lane: HIGH shares the ring and is only favoured by admission.
struct NoHighLaneTraits : SingleCoreTraits {
  static constexpr std::uint32_t kHighQueueDepth = 0U;
};

/// Full envelopes in the slots (msg_id stored), so subscribers may take the whole envelope.
struct FullEnvelopeTraits : SingleCoreTraits {
  static constexpr bool kCompactEnvelope = false;
};

// ---------------------------------------------------------------------------------------------
// Loans: a scan too large for a ring slot travels by loan from a pool inside the bus
// ---------------------------------------------------------------------------------------------
constexpr std::uint32_t kScanRanges = 32U;
struct Scan {
  std::uint16_t stream;  // which producer made it (kMainStream, kIsrStream, kIsrHighStream)
  std::uint16_t spare;
  std::uint32_t sequence;  // per stream: 0, 1, 2, ...
  std::uint16_t ranges[kScanRanges];
};
using LoanPayload = std::variant<Sample, Command, Status, mccc::Loaned<Scan>>;
/// Five blocks: LOW, MEDIUM and HIGH limits all differ (3, 4, 5).
constexpr std::uint32_t kScanBlocks = 5U;

/// A configuration's traits plus the scan pool (the bus's LoanBus).
template <typename Base>
struct WithScanPool : Base {
  using LoanPools = mccc::LoanPools<mccc::PoolOf<Scan, kScanBlocks>>;
};

struct SingleCore {
  using Bus = mccc::AsyncBus<Payload, SingleCoreTraits>;
  using LoanBus = mccc::AsyncBus<LoanPayload, WithScanPool<SingleCoreTraits>>;
  static constexpr const char* kName = "single_core";
};
struct NoHighLane {
  using Bus = mccc::AsyncBus<Payload, NoHighLaneTraits>;
  using LoanBus = mccc::AsyncBus<LoanPayload, WithScanPool<NoHighLaneTraits>>;
  static constexpr const char* kName = "single_core_no_high_lane";
};
struct FullEnvelope {
  using Bus = mccc::AsyncBus<Payload, FullEnvelopeTraits>;
  using LoanBus = mccc::AsyncBus<LoanPayload, WithScanPool<FullEnvelopeTraits>>;
  static constexpr const char* kName = "single_core_full_envelope";
};

#if MCU_SUITE_HAS_ATOMIC_RMW
/// No critical section: the claim is an LDREX/STREX compare-and-swap that an interrupt between
/// the two instructions makes fail and retry.
struct ExclusiveAccessTraits : SingleCoreTraits {
  using CriticalSection = mccc::NoCriticalSection;
};
/// The hosted defaults (multi-producer, barriers for several cores) with only the depth
/// changed: what a user gets without writing single-core traits.
struct DefaultTraitsDepth64 : mccc::DefaultBusTraits {
  static constexpr std::uint32_t kQueueDepth = 64U;
};
struct ExclusiveAccess {
  using Bus = mccc::AsyncBus<Payload, ExclusiveAccessTraits>;
  using LoanBus = mccc::AsyncBus<LoanPayload, WithScanPool<ExclusiveAccessTraits>>;
  static constexpr const char* kName = "single_core_ldrex_strex";
};
struct DefaultTraits {
  using Bus = mccc::AsyncBus<Payload, DefaultTraitsDepth64>;
  using LoanBus = mccc::AsyncBus<LoanPayload, WithScanPool<DefaultTraitsDepth64>>;
  static constexpr const char* kName = "default_traits";
};
#endif

static_assert(sizeof(SingleCore::Bus::Position) == 4U,
              "Cortex-M has no lock-free 64-bit atomics: positions must default to 32 bits");
static_assert(SingleCore::Bus::kHighQueueDepth > 0U && SingleCore::Bus::kCompactEnvelope,
              "the bare-metal defaults: a HIGH lane and compact envelopes");
static_assert(!std::is_same_v<SingleCore::Bus::CriticalSection, mccc::NoCriticalSection>,
              "a single-core bus on Cortex-M uses the PRIMASK critical section by default");

// ---------------------------------------------------------------------------------------------
// A fresh bus per case, in one static arena (no heap; one bus at a time fits a small RAM). The
// loan buses hold their pools, so a pool lives in the same static RAM.
// ---------------------------------------------------------------------------------------------
template <typename... Configs>
struct ArenaFor {
  static constexpr std::size_t kBytes = [] {
    std::size_t largest = 0U;
    for (const std::size_t size :
         {sizeof(typename Configs::Bus)..., sizeof(typename Configs::LoanBus)...}) {
      largest = size > largest ? size : largest;
    }
    return largest;
  }();
  static constexpr std::size_t kAlign = [] {
    std::size_t largest = 1U;
    for (const std::size_t align :
         {alignof(typename Configs::Bus)..., alignof(typename Configs::LoanBus)...}) {
      largest = align > largest ? align : largest;
    }
    return largest;
  }();
};
#if MCU_SUITE_HAS_ATOMIC_RMW
using Arena = ArenaFor<SingleCore, NoHighLane, FullEnvelope, ExclusiveAccess, DefaultTraits>;
#else
using Arena = ArenaFor<SingleCore, NoHighLane, FullEnvelope>;
#endif
alignas(Arena::kAlign) unsigned char g_arena[Arena::kBytes];

template <typename Bus>
class FreshBus {
 public:
  FreshBus() noexcept : bus_(*::new (static_cast<void*>(g_arena)) Bus()) {}
  ~FreshBus() { bus_.~Bus(); }
  FreshBus(const FreshBus&) = delete;
  FreshBus& operator=(const FreshBus&) = delete;
  FreshBus(FreshBus&&) = delete;
  FreshBus& operator=(FreshBus&&) = delete;

  Bus& operator*() noexcept { return bus_; }

 private:
  Bus& bus_;
};

// ---------------------------------------------------------------------------------------------
// Error callback: counts per BusError (it may run in the interrupt handler, hence the mask)
// ---------------------------------------------------------------------------------------------
constexpr std::size_t kErrorKinds = static_cast<std::size_t>(BusError::kForeignLoan) + 1U;
volatile std::uint32_t g_error_count[kErrorKinds];
volatile std::uint64_t g_error_last_id[kErrorKinds];

void RecordError(BusError error, std::uint64_t msg_id) noexcept {
  const std::size_t kind = static_cast<std::size_t>(error) % kErrorKinds;
  const std::uint32_t masked = mcu::Primask();
  mcu::DisableInterrupts();
  g_error_count[kind] = g_error_count[kind] + 1U;
  g_error_last_id[kind] = msg_id;
  if (masked == 0U) {
    mcu::EnableInterrupts();
  }
}

void ClearErrors() noexcept {
  for (std::size_t i = 0U; i < kErrorKinds; ++i) {
    g_error_count[i] = 0U;
    g_error_last_id[i] = 0U;
  }
}

std::uint32_t Errors(BusError error) noexcept {
  return g_error_count[static_cast<std::size_t>(error) % kErrorKinds];
}

std::uint64_t LastErrorId(BusError error) noexcept {
  return g_error_last_id[static_cast<std::size_t>(error) % kErrorKinds];
}

// ---------------------------------------------------------------------------------------------
// What the consumer saw
// ---------------------------------------------------------------------------------------------
enum class Kind : std::uint8_t { kSample, kCommand, kStatus };

struct Delivery {
  Kind kind;
  MessagePriority priority;
  std::uint16_t stream;
  std::uint32_t value;   // Sample::sequence, Command::value, Status::code
  std::uint32_t msg_id;  // the cases deliver far fewer than 2^32 messages
  std::uint32_t sender_id;
};

struct DeliveryLog {
  static constexpr std::uint32_t kCapacity = 80U;
  Delivery items[kCapacity];
  std::uint32_t size = 0U;
  std::uint32_t lost = 0U;  // deliveries beyond kCapacity (a check on `size` then fails)

  void Add(Kind kind, std::uint16_t stream, std::uint32_t value,
           const MessageHeader& header) noexcept {
    if (size < kCapacity) {
      items[size] = Delivery{kind,
                             header.priority,
                             stream,
                             value,
                             static_cast<std::uint32_t>(header.msg_id),
                             header.sender_id};
      ++size;
    } else {
      ++lost;
    }
  }
};

/// Visitor for ProcessBatchWith that appends every message to a log.
struct Recorder {
  DeliveryLog* log;
  void operator()(const Sample& m, const MessageHeader& h) const noexcept {
    log->Add(Kind::kSample, m.stream, m.sequence, h);
  }
  void operator()(const Command& m, const MessageHeader& h) const noexcept {
    log->Add(Kind::kCommand, 0U, static_cast<std::uint32_t>(m.value), h);
  }
  void operator()(const Status& m, const MessageHeader& h) const noexcept {
    log->Add(Kind::kStatus, 0U, m.code, h);
  }
};

DeliveryLog g_log;
DeliveryLog g_isr_log;

template <typename Bus>
std::uint32_t DrainInto(Bus& bus, DeliveryLog& log) noexcept {
  std::uint32_t total = 0U;
  for (;;) {
    const std::uint32_t taken = bus.ProcessBatchWith(Recorder{&log});
    if (taken == 0U) {
      return total;
    }
    total += taken;
  }
}

template <typename Bus>
std::uint32_t Drain(Bus& bus) noexcept {
  std::uint32_t total = 0U;
  for (;;) {
    const std::uint32_t taken = bus.ProcessBatchWith([](const auto&) noexcept {});
    if (taken == 0U) {
      return total;
    }
    total += taken;
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------
/// Smallest occupancy that is not "below `percent` % of `capacity`": n * 100 >= percent *
/// capacity. Derived here by counting, independently of the library's formula.
constexpr std::uint32_t FirstOccupancyAtPercent(std::uint32_t capacity, std::uint32_t percent) {
  std::uint32_t n = 0U;
  while (static_cast<std::uint64_t>(n) * 100U < static_cast<std::uint64_t>(percent) * capacity) {
    ++n;
  }
  return n;
}

/// A bus's ring and HIGH-lane sizes and its admission limits, derived with
/// FirstOccupancyAtPercent from the bus's percentages (the oracle the cases check the bus with).
template <typename Bus>
struct Limits {
  using Admission = typename Bus::Admission;
  static constexpr std::uint32_t kDepth = Bus::kQueueDepth;
  static constexpr std::uint32_t kHighLane = Bus::kHighQueueDepth;
  static constexpr std::uint32_t kLow = FirstOccupancyAtPercent(kDepth, Admission::kLowPercent);
  static constexpr std::uint32_t kMedium =
      FirstOccupancyAtPercent(kDepth, Admission::kMediumPercent);
  static constexpr std::uint32_t kHigh = FirstOccupancyAtPercent(kDepth, Admission::kHighPercent);
};

/// The backpressure level an occupancy of a ring of `capacity` slots must report.
template <typename Admission>
BackpressureLevel ExpectedLevel(std::uint32_t occupancy, std::uint32_t capacity) noexcept {
  if (occupancy >= capacity) {
    return BackpressureLevel::kFull;
  }
  if (occupancy >= FirstOccupancyAtPercent(capacity, Admission::kCriticalPercent)) {
    return BackpressureLevel::kCritical;
  }
  if (occupancy >= FirstOccupancyAtPercent(capacity, Admission::kWarningPercent)) {
    return BackpressureLevel::kWarning;
  }
  return BackpressureLevel::kNormal;
}

/// Publishes Samples of `stream` (sequence counting up in `sequence`) until one is refused;
/// returns how many were admitted.
template <typename Bus>
std::uint32_t PublishUntilRefused(Bus& bus, MessagePriority priority, std::uint32_t& sequence) {
  constexpr std::uint32_t kBound = 2U * (Bus::kQueueDepth + Bus::kHighQueueDepth);
  std::uint32_t admitted = 0U;
  while (admitted < kBound &&
         bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender, priority)) {
    ++sequence;
    ++admitted;
  }
  return admitted;
}

/// Publishes `count` Samples; returns how many were admitted.
template <typename Bus>
std::uint32_t PublishCount(Bus& bus, MessagePriority priority, std::uint32_t count,
                           std::uint32_t& sequence) {
  std::uint32_t admitted = 0U;
  for (std::uint32_t i = 0U; i < count; ++i) {
    if (bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender, priority)) {
      ++sequence;
      ++admitted;
    }
  }
  return admitted;
}

void CheckSameCounts(const BusStatisticsSnapshot& now, const BusStatisticsSnapshot& before) {
  CHECK_EQ(now.messages_published, before.messages_published);
  CHECK_EQ(now.messages_dropped, before.messages_dropped);
  CHECK_EQ(now.low_priority_published, before.low_priority_published);
  CHECK_EQ(now.medium_priority_published, before.medium_priority_published);
  CHECK_EQ(now.high_priority_published, before.high_priority_published);
  CHECK_EQ(now.low_priority_dropped, before.low_priority_dropped);
  CHECK_EQ(now.medium_priority_dropped, before.medium_priority_dropped);
  CHECK_EQ(now.high_priority_dropped, before.high_priority_dropped);
}

// =============================================================================================
// Cases
// =============================================================================================

/// Each priority is admitted exactly while the occupancy is below its threshold, in
/// FULL_FEATURED and NO_STATS; BARE_METAL admits until full; the HIGH lane admits HIGH while it
/// has room. Refusals are counted per priority and reported as QUEUE_FULL.
template <typename Config>
void AdmissionAtEveryThreshold() {
  using Bus = typename Config::Bus;
  using L = Limits<Bus>;

  // The bus's published thresholds are the same numbers.
  CHECK_EQ(Bus::LOW_PRIORITY_THRESHOLD, L::kLow);
  CHECK_EQ(Bus::MEDIUM_PRIORITY_THRESHOLD, L::kMedium);
  CHECK_EQ(Bus::HIGH_PRIORITY_THRESHOLD, L::kHigh);
  CHECK_EQ(Bus::BACKPRESSURE_WARNING_THRESHOLD,
           FirstOccupancyAtPercent(L::kDepth, L::Admission::kWarningPercent));
  CHECK_EQ(Bus::BACKPRESSURE_CRITICAL_THRESHOLD,
           FirstOccupancyAtPercent(L::kDepth, L::Admission::kCriticalPercent));
  CHECK(L::kLow < L::kMedium && L::kMedium < L::kHigh && L::kHigh <= L::kDepth);

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);
  std::uint32_t sequence = 0U;

  // From empty: LOW up to its limit, then MEDIUM up to its own; LOW stays refused.
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kLow, sequence), L::kLow);
  CHECK_EQ(bus.QueueOccupancy(), L::kLow);
  CHECK_EQ(Errors(BusError::kQueueFull), 1U);
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kMedium, sequence), L::kMedium - L::kLow);
  CHECK_EQ(bus.QueueOccupancy(), L::kMedium);
  CHECK(!bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender,
                                 MessagePriority::kLow));

  // HIGH: a lane of its own, or the shared ring up to the HIGH limit.
  const std::uint32_t high_admitted = PublishUntilRefused(bus, MessagePriority::kHigh, sequence);
  if constexpr (L::kHighLane > 0U) {
    CHECK_EQ(high_admitted, L::kHighLane);
    CHECK_EQ(bus.HighRingOccupancy(), L::kHighLane);
    CHECK_EQ(bus.QueueOccupancy(), L::kMedium + L::kHighLane);
  } else {
    CHECK_EQ(high_admitted, L::kHigh - L::kMedium);
    CHECK_EQ(bus.HighRingOccupancy(), 0U);
    CHECK_EQ(bus.QueueOccupancy(), L::kHigh);
  }
  CHECK(!bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender,
                                 MessagePriority::kMedium));

  const BusStatisticsSnapshot stats = bus.GetStatistics();
  CHECK_EQ(stats.low_priority_published, L::kLow);
  CHECK_EQ(stats.medium_priority_published, L::kMedium - L::kLow);
  CHECK_EQ(stats.high_priority_published, high_admitted);
  CHECK_EQ(stats.low_priority_dropped, 2U);
  CHECK_EQ(stats.medium_priority_dropped, 2U);
  CHECK_EQ(stats.high_priority_dropped, 1U);
  CHECK_EQ(stats.messages_published, L::kMedium + high_admitted);
  CHECK_EQ(stats.messages_dropped, 5U);
  CHECK_EQ(Errors(BusError::kQueueFull), 5U);

  // Everything admitted is delivered: HIGH first when it has a lane, else in publish order.
  g_log = DeliveryLog{};
  CHECK_EQ(DrainInto(bus, g_log), L::kMedium + high_admitted);
  for (std::uint32_t i = 0U; i < g_log.size; ++i) {
    std::uint32_t expected = i;
    if (L::kHighLane > 0U) {
      expected = i < high_admitted ? L::kMedium + i : i - high_admitted;
    }
    if (!CHECK_EQ(g_log.items[i].value, expected) || !CHECK_EQ(g_log.items[i].msg_id, i + 1U)) {
      break;
    }
  }

  // The threshold approached from a non-empty queue: one below it LOW is admitted, at it not.
  CHECK_EQ(PublishCount(bus, MessagePriority::kMedium, L::kLow - 1U, sequence), L::kLow - 1U);
  CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, sequence++}, kMainSender,
                                MessagePriority::kLow));
  CHECK(!bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender,
                                 MessagePriority::kLow));
  CHECK_EQ(Drain(bus), L::kLow);

  // NO_STATS: the same thresholds, refusals still reported, nothing counted.
  bus.SetPerformanceMode(PerformanceMode::kNoStats);
  BusStatisticsSnapshot before = bus.GetStatistics();
  std::uint32_t reported = Errors(BusError::kQueueFull);
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kLow, sequence), L::kLow);
  CHECK_EQ(Errors(BusError::kQueueFull), reported + 1U);
  CheckSameCounts(bus.GetStatistics(), before);
  CHECK_EQ(Drain(bus), L::kLow);

  // BARE_METAL: every priority admitted until the ring is full; nothing counted or reported.
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);
  before = bus.GetStatistics();
  reported = Errors(BusError::kQueueFull);
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kLow, sequence), L::kDepth);
  CHECK(!bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender,
                                 MessagePriority::kMedium));
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kHigh, sequence), L::kHighLane);
  CHECK_EQ(Errors(BusError::kQueueFull), reported);
  CheckSameCounts(bus.GetStatistics(), before);
  CHECK_EQ(Drain(bus), L::kDepth + L::kHighLane);
  bus.SetPerformanceMode(PerformanceMode::kFullFeatured);
}

/// The backpressure level and the utilisation at every occupancy of the ring (and of the HIGH
/// lane), against the boundaries derived from the bus's percentages; the fullest ring decides.
template <typename Config>
void BackpressureAtEveryOccupancy() {
  using Bus = typename Config::Bus;
  using L = Limits<Bus>;

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);  // admits up to the whole ring
  std::uint32_t sequence = 0U;
  for (std::uint32_t occupancy = 0U; occupancy <= L::kDepth; ++occupancy) {
    if (!CHECK_EQ(bus.GetBackpressureLevel(),
                  ExpectedLevel<typename L::Admission>(occupancy, L::kDepth)) ||
        !CHECK_EQ(bus.QueueUtilizationPercent(), occupancy * 100U / L::kDepth) ||
        !CHECK_EQ(bus.QueueOccupancy(), occupancy)) {
      break;
    }
    if (occupancy < L::kDepth &&
        !CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, sequence++}, kMainSender,
                                       MessagePriority::kLow))) {
      break;
    }
  }
  CHECK_EQ(Drain(bus), L::kDepth);
  CHECK_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kNormal);

  if constexpr (L::kHighLane > 0U) {
    for (std::uint32_t occupancy = 0U; occupancy <= L::kHighLane; ++occupancy) {
      if (!CHECK_EQ(bus.GetBackpressureLevel(),
                    ExpectedLevel<typename L::Admission>(occupancy, L::kHighLane)) ||
          !CHECK_EQ(bus.QueueUtilizationPercent(), occupancy * 100U / L::kHighLane) ||
          !CHECK_EQ(bus.HighRingOccupancy(), occupancy)) {
        break;
      }
      if (occupancy < L::kHighLane &&
          !CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, sequence++}, kMainSender,
                                         MessagePriority::kHigh))) {
        break;
      }
    }
    // A ring merely at WARNING does not hide a full HIGH lane.
    const std::uint32_t warning = FirstOccupancyAtPercent(L::kDepth, L::Admission::kWarningPercent);
    CHECK_EQ(PublishCount(bus, MessagePriority::kLow, warning, sequence), warning);
    CHECK_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kFull);
    CHECK_EQ(Drain(bus), warning + L::kHighLane);
    CHECK_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kNormal);
  }
}

/// PublishBatch admits exactly the prefix that single publishes would, with consecutive ids,
/// reports one QUEUE_FULL per call that refused any, and refuses bad arguments.
template <typename Config>
void PublishBatchAdmitsAPrefix() {
  using Bus = typename Config::Bus;
  using L = Limits<Bus>;
  constexpr std::uint32_t kPrefilled = 10U;
  constexpr std::uint32_t kBatch = 40U;
  constexpr std::uint32_t kFirstBatchSequence = 1000U;

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);

  Sample batch[kBatch];
  for (std::uint32_t i = 0U; i < kBatch; ++i) {
    batch[i] = Sample{kMainStream, 0U, kFirstBatchSequence + i};
  }
  std::uint32_t sequence = 0U;
  CHECK_EQ(PublishCount(bus, MessagePriority::kLow, kPrefilled, sequence), kPrefilled);

  // LOW: the room below the LOW limit, then nothing.
  const std::uint32_t low = bus.PublishBatch(batch, kBatch, kMainSender, MessagePriority::kLow);
  CHECK_EQ(low, L::kLow - kPrefilled);
  CHECK_EQ(bus.QueueOccupancy(), L::kLow);
  CHECK_EQ(Errors(BusError::kQueueFull), 1U);

  // The refused rest, retried as MEDIUM: the room up to the MEDIUM limit.
  const std::uint32_t rest = kBatch - low;
  const std::uint32_t medium_room = L::kMedium - L::kLow;
  const std::uint32_t medium =
      bus.PublishBatch(batch + low, rest, kMainSender, MessagePriority::kMedium);
  CHECK_EQ(medium, rest < medium_room ? rest : medium_room);
  CHECK_EQ(Errors(BusError::kQueueFull), rest > medium_room ? 2U : 1U);

  BusStatisticsSnapshot stats = bus.GetStatistics();
  CHECK_EQ(stats.low_priority_published, kPrefilled + low);
  CHECK_EQ(stats.low_priority_dropped, kBatch - low);
  CHECK_EQ(stats.medium_priority_published, medium);
  CHECK_EQ(stats.medium_priority_dropped, rest - medium);

  // Delivered in order: the singles, then the batch as one run with consecutive ids.
  g_log = DeliveryLog{};
  CHECK_EQ(DrainInto(bus, g_log), kPrefilled + low + medium);
  for (std::uint32_t i = 0U; i < g_log.size; ++i) {
    const std::uint32_t expected = i < kPrefilled ? i : kFirstBatchSequence + (i - kPrefilled);
    if (!CHECK_EQ(g_log.items[i].value, expected) || !CHECK_EQ(g_log.items[i].msg_id, i + 1U) ||
        !CHECK_EQ(g_log.items[i].sender_id, kMainSender)) {
      break;
    }
  }

  // Nothing to publish; no messages behind a pointer; not a priority.
  CHECK_EQ(bus.PublishBatch(batch, 0U, kMainSender), 0U);
  CHECK_EQ(Errors(BusError::kInvalidMessage), 0U);
  CHECK_EQ(bus.PublishBatch(static_cast<const Sample*>(nullptr), 3U, kMainSender), 0U);
  CHECK_EQ(Errors(BusError::kInvalidMessage), 1U);
  CHECK_EQ(bus.PublishBatch(batch, 3U, kMainSender, static_cast<MessagePriority>(7U)), 0U);
  CHECK_EQ(Errors(BusError::kInvalidMessage), 2U);
  CHECK_EQ(bus.QueueOccupancy(), 0U);

  // HIGH: the HIGH lane's room, or the ring up to the HIGH limit (all 40 from empty).
  const std::uint32_t high = bus.PublishBatch(batch, kBatch, kMainSender, MessagePriority::kHigh);
  CHECK_EQ(high, L::kHighLane > 0U ? L::kHighLane : kBatch);
  CHECK_EQ(Drain(bus), high);

  // More than the ring holds, in BARE_METAL: exactly the capacity.
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);
  Sample many[L::kDepth + 8U];
  for (std::uint32_t i = 0U; i < L::kDepth + 8U; ++i) {
    many[i] = Sample{kMainStream, 0U, i};
  }
  CHECK_EQ(bus.PublishBatch(many, L::kDepth + 8U, kMainSender, MessagePriority::kMedium),
           L::kDepth);
  CHECK_EQ(Drain(bus), L::kDepth);
  bus.SetPerformanceMode(PerformanceMode::kFullFeatured);
}

/// Subscribers taking the envelope, (message, header) or the message alone; a false return is a
/// processing error; the per-type limit; Unsubscribe stops further calls.
template <typename Config>
void CallbacksOfAllThreeShapes() {
  using Bus = typename Config::Bus;
  using Envelope = typename Bus::Envelope;
  constexpr std::uint32_t kPerType = Bus::TraitsType::kMaxCallbacksPerType;

  struct Seen {
    std::uint32_t envelope_calls;
    std::uint32_t envelope_sequence_sum;
    std::uint32_t with_header_calls;
    std::int32_t command_value;
    std::uint32_t command_sender;
    MessagePriority command_priority;
    std::uint64_t command_msg_id;
    std::uint32_t plain_calls;
  };
  static Seen seen;
  seen = Seen{};
  Seen* const s = &seen;

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);

  // The whole envelope exists only where the slots hold it (a compact bus refuses this shape
  // at compile time); there a second typed subscriber stands in for it.
  mccc::SubscriptionHandle by_envelope{};
  if constexpr (!Bus::kCompactEnvelope) {
    by_envelope = bus.template Subscribe<Sample>([s](const Envelope& envelope) noexcept {
      const Sample* sample = std::get_if<Sample>(&envelope.payload);
      ++s->envelope_calls;
      s->envelope_sequence_sum += sample != nullptr ? sample->sequence : 1000000U;
    });
  } else {
    by_envelope = bus.template Subscribe<Sample>([s](const Sample& sample) noexcept {
      ++s->envelope_calls;
      s->envelope_sequence_sum += sample.sequence;
    });
  }
  const mccc::SubscriptionHandle with_header = bus.template Subscribe<Command>(
      [s](const Command& command, const MessageHeader& header) noexcept {
        ++s->with_header_calls;
        s->command_value = command.value;
        s->command_sender = header.sender_id;
        s->command_priority = header.priority;
        s->command_msg_id = header.msg_id;
      });
  const mccc::SubscriptionHandle plain =
      bus.template Subscribe<Sample>([s](const Sample& sample) noexcept -> bool {
        ++s->plain_calls;
        return sample.sequence % 2U == 0U;  // odd sequences are processing errors
      });
  CHECK(by_envelope.IsValid() && with_header.IsValid() && plain.IsValid());
  CHECK_EQ(bus.template SubscriberCount<Sample>(), 2U);
  CHECK_EQ(bus.template SubscriberCount<Command>(), 1U);

  // The per-type limit: kMaxCallbacksPerType accepted, one more refused with an invalid handle.
  mccc::SubscriptionHandle status_handles[kPerType];
  for (std::uint32_t i = 0U; i < kPerType; ++i) {
    status_handles[i] = bus.template Subscribe<Status>([](const Status&) noexcept {});
    CHECK(status_handles[i].IsValid());
  }
  CHECK(!bus.template Subscribe<Status>([](const Status&) noexcept {}).IsValid());
  CHECK_EQ(bus.template SubscriberCount<Status>(), kPerType);
  for (std::uint32_t i = 0U; i < kPerType; ++i) {
    CHECK(bus.Unsubscribe(status_handles[i]));
  }
  CHECK_EQ(bus.template SubscriberCount<Status>(), 0U);

  for (std::uint32_t i = 0U; i < 6U; ++i) {
    CHECK(bus.Publish(Sample{kMainStream, 0U, i}, kMainSender));
  }
  CHECK(bus.PublishWithPriority(Command{-42}, 9U, MessagePriority::kHigh));
  CHECK(bus.PublishWithPriority(Status{3U}, 5U, MessagePriority::kLow));
  CHECK_EQ(bus.ProcessBatch(), 8U);

  CHECK_EQ(seen.envelope_calls, 6U);
  CHECK_EQ(seen.envelope_sequence_sum, 0U + 1U + 2U + 3U + 4U + 5U);
  CHECK_EQ(seen.plain_calls, 6U);
  CHECK_EQ(seen.with_header_calls, 1U);
  CHECK(seen.command_value == -42);
  CHECK_EQ(seen.command_sender, 9U);
  CHECK_EQ(seen.command_priority, MessagePriority::kHigh);
  // HIGH is dispatched before the queued samples when it has a lane of its own.
  CHECK_EQ(seen.command_msg_id, Bus::kHighQueueDepth > 0U ? 1U : 7U);
  CHECK_EQ(Errors(BusError::kProcessingError), 3U);  // sequences 1, 3, 5
  BusStatisticsSnapshot stats = bus.GetStatistics();
  CHECK_EQ(stats.messages_processed, 8U);
  CHECK_EQ(stats.processing_errors, 3U);

  // Unsubscribe: true once, then false; the callable is not called again.
  CHECK(bus.Unsubscribe(by_envelope));
  CHECK(!bus.Unsubscribe(by_envelope));
  CHECK(!bus.Unsubscribe(mccc::kInvalidSubscription));
  CHECK_EQ(bus.template SubscriberCount<Sample>(), 1U);
  CHECK(bus.Publish(Sample{kMainStream, 0U, 6U}, kMainSender));
  CHECK_EQ(bus.ProcessBatch(), 1U);
  CHECK_EQ(seen.envelope_calls, 6U);
  CHECK_EQ(seen.plain_calls, 7U);
  CHECK(bus.Unsubscribe(with_header));
  CHECK(bus.Unsubscribe(plain));
}

/// ProcessBatchWith: handlers of both shapes and a generic one, HIGH first with a HIGH lane,
/// ids in delivery order, false = processing error, re-entry refused.
template <typename Config>
void VisitorDispatch() {
  using Bus = typename Config::Bus;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);

  CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, 0U}, kMainSender, MessagePriority::kLow));
  CHECK(
      bus.PublishWithPriority(Sample{kMainStream, 0U, 1U}, kMainSender, MessagePriority::kMedium));
  CHECK(bus.PublishWithPriority(Command{7}, 3U, MessagePriority::kHigh));
  CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, 2U}, kMainSender, MessagePriority::kLow));
  CHECK(bus.PublishWithPriority(Status{9U}, 4U, MessagePriority::kMedium));

  g_log = DeliveryLog{};
  DeliveryLog* const log = &g_log;
  MessageHeader no_header{};
  const auto visitor = mccc::make_overloaded(
      [log](const Sample& m, const MessageHeader& h) noexcept -> bool {
        log->Add(Kind::kSample, m.stream, m.sequence, h);
        return m.sequence != 2U;  // the third sample fails
      },
      [log, &no_header](const Command& m) noexcept {
        log->Add(Kind::kCommand, 0U, static_cast<std::uint32_t>(m.value), no_header);
      },
      [log, &no_header](const auto& other) noexcept {
        static_cast<void>(other);
        log->Add(Kind::kStatus, 0U, 0U, no_header);
      });
  CHECK_EQ(bus.ProcessBatchWith(visitor), 5U);
  CHECK_EQ(g_log.size, 5U);

  // Delivery order (the handler without a header records msg_id 0).
  const bool lane = Bus::kHighQueueDepth > 0U;
  const Kind order_lane[5] = {Kind::kCommand, Kind::kSample, Kind::kSample, Kind::kSample,
                              Kind::kStatus};
  const Kind order_fifo[5] = {Kind::kSample, Kind::kSample, Kind::kCommand, Kind::kSample,
                              Kind::kStatus};
  std::uint32_t samples = 0U;
  for (std::uint32_t i = 0U; i < g_log.size && i < 5U; ++i) {
    const Delivery& d = g_log.items[i];
    CHECK_EQ(d.kind, lane ? order_lane[i] : order_fifo[i]);
    if (d.kind == Kind::kSample) {
      CHECK_EQ(d.value, samples);
      CHECK_EQ(d.msg_id, i + 1U);  // ids follow delivery order
      ++samples;
    }
  }
  CHECK_EQ(Errors(BusError::kProcessingError), 1U);
  CHECK_EQ(LastErrorId(BusError::kProcessingError), 4U);  // the third sample: 4th either way
  BusStatisticsSnapshot stats = bus.GetStatistics();
  CHECK_EQ(stats.messages_processed, 5U);
  CHECK_EQ(stats.processing_errors, 1U);

  // ProcessBatch / ProcessBatchWith from inside a handler dispatch nothing and are reported.
  CHECK(bus.Publish(Sample{kMainStream, 0U, 3U}, kMainSender));
  CHECK(bus.Publish(Sample{kMainStream, 0U, 4U}, kMainSender));
  std::uint32_t inner = 99U;
  Bus* const b = &bus;
  CHECK_EQ(bus.ProcessBatchWith([b, &inner](const auto&) noexcept {
    inner = b->ProcessBatch() + b->ProcessBatchWith([](const auto&) noexcept {});
  }),
           2U);
  CHECK_EQ(inner, 0U);
  CHECK_EQ(Errors(BusError::kReentrantCall), 4U);  // two inner calls per message
}

/// Every field of the statistics snapshot, exactly; Reset; NO_STATS and BARE_METAL count
/// nothing.
template <typename Config>
void StatisticsSnapshotIsExact() {
  using Bus = typename Config::Bus;
  using L = Limits<Bus>;
  constexpr std::uint32_t kHighInRing = Bus::kHighQueueDepth > 0U ? 0U : 2U;

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  BusStatisticsSnapshot s = bus.GetStatistics();
  CHECK_EQ(s.messages_published + s.messages_dropped + s.messages_processed + s.processing_errors,
           0U);

  std::uint32_t sequence = 0U;
  CHECK_EQ(PublishCount(bus, MessagePriority::kLow, 5U, sequence), 5U);
  CHECK_EQ(PublishCount(bus, MessagePriority::kMedium, 3U, sequence), 3U);
  CHECK_EQ(PublishCount(bus, MessagePriority::kHigh, 2U, sequence), 2U);
  // LOW up to its limit (HIGH counts against it only without a HIGH lane), then one refusal.
  const std::uint32_t fill = PublishUntilRefused(bus, MessagePriority::kLow, sequence);
  CHECK_EQ(fill, L::kLow - 8U - kHighInRing);
  const std::uint32_t total = 10U + fill;
  const auto fail_sequence_3 = mccc::make_overloaded(
      [](const Sample& m) noexcept { return m.sequence != 3U; }, [](const auto&) noexcept {});
  CHECK_EQ(bus.ProcessBatchWith(fail_sequence_3), total);
  s = bus.GetStatistics();
  CHECK_EQ(s.messages_published, total);
  CHECK_EQ(s.messages_dropped, 1U);
  CHECK_EQ(s.messages_processed, total);
  CHECK_EQ(s.processing_errors, 1U);
  CHECK_EQ(s.low_priority_published, 5U + fill);
  CHECK_EQ(s.medium_priority_published, 3U);
  CHECK_EQ(s.high_priority_published, 2U);
  CHECK_EQ(s.low_priority_dropped, 1U);
  CHECK_EQ(s.medium_priority_dropped, 0U);
  CHECK_EQ(s.high_priority_dropped, 0U);

  bus.ResetStatistics();
  s = bus.GetStatistics();
  CHECK_EQ(s.messages_published + s.messages_dropped + s.messages_processed + s.processing_errors +
               s.low_priority_published + s.medium_priority_published + s.high_priority_published +
               s.low_priority_dropped + s.medium_priority_dropped + s.high_priority_dropped,
           0U);

  CHECK(bus.Publish(Sample{kMainStream, 0U, sequence++}, kMainSender));
  CHECK_EQ(Drain(bus), 1U);
  for (const PerformanceMode mode : {PerformanceMode::kNoStats, PerformanceMode::kBareMetal}) {
    bus.SetPerformanceMode(mode);
    CHECK(bus.Publish(Sample{kMainStream, 0U, sequence++}, kMainSender));
    CHECK_EQ(Drain(bus), 1U);
  }
  bus.SetPerformanceMode(PerformanceMode::kFullFeatured);
  s = bus.GetStatistics();
  CHECK_EQ(s.messages_published, 1U);
  CHECK_EQ(s.medium_priority_published, 1U);
  CHECK_EQ(s.messages_processed, 1U);
  CHECK_EQ(s.messages_dropped + s.processing_errors, 0U);
}

// ---------------------------------------------------------------------------------------------
// An interrupt publishing while the main loop publishes and consumes
// ---------------------------------------------------------------------------------------------
constexpr std::uint32_t kIsrMessages = 500U;
// A SysTick period of 480 processor clocks: ~20 us on the MPS2 boards (25 MHz), and a few
// thousand instructions of the main loop between two interrupts under -icount shift=3.
constexpr std::uint32_t kTickPeriodCycles = 480U;
// Main-loop bursts cycle through 1 .. kLongestBurst messages: the longer ones pass the MEDIUM
// limit of a 64-slot ring, so both producers meet refusals.
constexpr std::uint32_t kLongestBurst = 60U;

/// Checks, in delivery order, that each stream's sequence counts 0, 1, 2, ... (nothing lost,
/// duplicated or reordered) and its timestamps never decrease.
struct StreamChecker {
  std::uint32_t next[kStreams];
  std::uint64_t last_timestamp[kStreams];
  std::uint32_t out_of_order;
  std::uint32_t time_went_back;
  std::uint32_t unexpected;
  std::uint32_t source_switches;  // deliveries whose stream differs from the previous one
  std::uint16_t previous_stream;

  void operator()(const Sample& m, const MessageHeader& h) noexcept {
    if (m.stream >= kStreams || m.stream == 0U) {
      ++unexpected;
      return;
    }
    if (m.sequence != next[m.stream]) {
      ++out_of_order;
    }
    next[m.stream] = m.sequence + 1U;
    if (h.timestamp_us < last_timestamp[m.stream]) {
      ++time_went_back;
    }
    last_timestamp[m.stream] = h.timestamp_us;
    if (m.stream != previous_stream) {
      ++source_switches;
      previous_stream = m.stream;
    }
  }
  void operator()(const Command&) noexcept { ++unexpected; }
  void operator()(const Status&) noexcept { ++unexpected; }
};

/// The interrupt-side producer: one publish attempt per SysTick interrupt, every fourth of them
/// HIGH on a stream of its own; a refused message is retried at the stream's next attempt.
template <typename Bus>
struct TickProducer {
  static inline Bus* bus = nullptr;
  static inline volatile std::uint32_t next[kStreams];
  static inline volatile std::uint32_t refused[kStreams];
  static inline volatile std::uint32_t attempts = 0U;
  static inline volatile std::uint32_t published = 0U;
  static inline volatile bool main_publishing = false;
  static inline volatile bool main_consuming = false;
  static inline volatile std::uint32_t during_main_publish = 0U;
  static inline volatile std::uint32_t during_main_consume = 0U;

  static void Reset(Bus& target) noexcept {
    bus = &target;
    for (std::uint32_t i = 0U; i < kStreams; ++i) {
      next[i] = 0U;
      refused[i] = 0U;
    }
    attempts = 0U;
    published = 0U;
    main_publishing = false;
    main_consuming = false;
    during_main_publish = 0U;
    during_main_consume = 0U;
  }

  static void OnTick() noexcept {
    if (published >= kIsrMessages) {
      return;
    }
    if (main_publishing) {
      during_main_publish = during_main_publish + 1U;
    }
    if (main_consuming) {
      during_main_consume = during_main_consume + 1U;
    }
    const bool high = attempts % 4U == 3U;
    attempts = attempts + 1U;
    const std::uint16_t stream = high ? kIsrHighStream : kIsrStream;
    const MessagePriority priority = high ? MessagePriority::kHigh : MessagePriority::kMedium;
    if (bus->PublishWithPriority(Sample{stream, 0U, next[stream]}, kIsrSender, priority)) {
      next[stream] = next[stream] + 1U;
      published = published + 1U;
    } else {
      refused[stream] = refused[stream] + 1U;
    }
  }
};

template <typename Config>
void InterruptPublishesWhileMainPublishesAndConsumes() {
  using Bus = typename Config::Bus;
  using Producer = TickProducer<Bus>;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);
  Producer::Reset(bus);
  StreamChecker checker{};

  // The main loop publishes and consumes for as long as the interrupt runs (how many messages
  // it gets through depends on the emulator's speed; every check below is exact regardless).
  mcu::systick::SetHook(&Producer::OnTick);
  mcu::systick::Start(kTickPeriodCycles);
  std::uint32_t main_next = 0U;
  std::uint32_t main_refused = 0U;
  std::uint32_t iteration = 0U;
  constexpr std::uint32_t kIterationBound = 1000000U;  // a stuck interrupt fails, not hangs
  while (Producer::published < kIsrMessages && iteration < kIterationBound) {
    const std::uint32_t burst = 1U + iteration % kLongestBurst;
    ++iteration;
    for (std::uint32_t k = 0U; k < burst; ++k) {
      Producer::main_publishing = true;
      const bool ok = bus.Publish(Sample{kMainStream, 0U, main_next}, kMainSender);
      Producer::main_publishing = false;
      if (!ok) {
        ++main_refused;
        break;
      }
      ++main_next;
    }
    Producer::main_consuming = true;
    bus.ProcessBatchWith(checker);
    Producer::main_consuming = false;
  }
  mcu::systick::Stop();
  mcu::systick::SetHook(nullptr);
  while (bus.ProcessBatchWith(checker) != 0U) {
  }
  CHECK(iteration < kIterationBound);
  const std::uint32_t main_messages = main_next;

  const std::uint32_t isr_medium = Producer::next[kIsrStream];
  const std::uint32_t isr_high = Producer::next[kIsrHighStream];
  // Exactly once, in order, per source.
  CHECK_EQ(checker.next[kMainStream], main_messages);
  CHECK_EQ(checker.next[kIsrStream], isr_medium);
  CHECK_EQ(checker.next[kIsrHighStream], isr_high);
  CHECK_EQ(isr_medium + isr_high, kIsrMessages);
  CHECK_EQ(checker.out_of_order, 0U);
  CHECK_EQ(checker.unexpected, 0U);
  CHECK_EQ(checker.time_went_back, 0U);
  CHECK_EQ(bus.QueueOccupancy(), 0U);
  // The interrupt really cut into the main loop's publishing and consuming, and the long
  // bursts met the MEDIUM limit.
  CHECK(Producer::during_main_publish > 0U);
  CHECK(Producer::during_main_consume > 0U);
  CHECK(checker.source_switches > 2U);
  CHECK(main_refused > 0U);

  // The counters agree with what the producers saw.
  const std::uint32_t isr_refused_medium = Producer::refused[kIsrStream];
  const std::uint32_t isr_refused_high = Producer::refused[kIsrHighStream];
  const BusStatisticsSnapshot s = bus.GetStatistics();
  CHECK_EQ(s.messages_published, main_messages + kIsrMessages);
  CHECK_EQ(s.messages_processed, main_messages + kIsrMessages);
  CHECK_EQ(s.medium_priority_published, main_messages + isr_medium);
  CHECK_EQ(s.high_priority_published, isr_high);
  CHECK_EQ(s.low_priority_published, 0U);
  CHECK_EQ(s.medium_priority_dropped, main_refused + isr_refused_medium);
  CHECK_EQ(s.high_priority_dropped, isr_refused_high);
  CHECK_EQ(s.messages_dropped, main_refused + isr_refused_medium + isr_refused_high);
  CHECK_EQ(s.processing_errors, 0U);
  CHECK_EQ(Errors(BusError::kQueueFull), main_refused + isr_refused_medium + isr_refused_high);

  mcu::Print("  main published ");
  mcu::PrintUnsigned(main_messages);
  mcu::Print(", interrupts ");
  mcu::PrintUnsigned(Producer::attempts);
  mcu::Print(" (");
  mcu::PrintUnsigned(Producer::during_main_publish);
  mcu::Print(" inside a main publish, ");
  mcu::PrintUnsigned(Producer::during_main_consume);
  mcu::Print(" inside a batch); refused: main ");
  mcu::PrintUnsigned(main_refused);
  mcu::Print(", interrupt ");
  mcu::PrintUnsigned(isr_refused_medium + isr_refused_high);
  mcu::Print("\n");
}

// ---------------------------------------------------------------------------------------------
// An interrupt taken between a publish's claim and the writing of its slot
// ---------------------------------------------------------------------------------------------
template <typename Bus>
struct HalfWrittenPublish {
  static inline Bus* bus = nullptr;
  static inline MessagePriority interrupt_priority = MessagePriority::kMedium;
  static inline volatile std::uint32_t hook_calls = 0U;
  static inline volatile bool pended = false;
  static inline volatile bool interrupt_ran = false;
  static inline volatile bool ran_inside_window = false;
  static inline volatile bool interrupt_admitted = false;
  static inline volatile std::uint32_t depth_before = 0U;
  static inline volatile std::uint32_t depth_after = 0U;
  static inline volatile std::uint32_t consumed_by_interrupt = 0U;

  static void Reset(Bus& target, MessagePriority priority) noexcept {
    bus = &target;
    interrupt_priority = priority;
    hook_calls = 0U;
    pended = false;
    interrupt_ran = false;
    ran_inside_window = false;
    interrupt_admitted = false;
    depth_before = 0U;
    depth_after = 0U;
    consumed_by_interrupt = 0U;
  }

  /// The bus's after-claim hook: the main loop's publish has claimed its slot and not written
  /// it. Pend SysTick; its handler runs before this function returns.
  static void AfterClaim(void*, typename Bus::Position) noexcept {
    hook_calls = hook_calls + 1U;
    if (mcu::ActiveException() != 0U || pended) {
      return;  // the interrupt's own publish, or a later one
    }
    pended = true;
    mcu::systick::Pend();
    ran_inside_window = interrupt_ran;
  }

  /// The SysTick handler: publishes, then consumes what a consumer may take at this instant.
  static void OnTick() noexcept {
    interrupt_ran = true;
    depth_before = bus->QueueOccupancy();
    interrupt_admitted =
        bus->PublishWithPriority(Sample{kIsrStream, 0U, 77U}, kIsrSender, interrupt_priority);
    depth_after = bus->QueueOccupancy();
    consumed_by_interrupt = bus->ProcessBatchWith(Recorder{&g_isr_log});
  }
};

template <typename Config>
void InterruptInsideHalfWrittenPublishCase(MessagePriority interrupt_priority) {
  using Bus = typename Config::Bus;
  using Window = HalfWrittenPublish<Bus>;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  Window::Reset(bus, interrupt_priority);
  g_log = DeliveryLog{};
  g_isr_log = DeliveryLog{};

  bus.SetAfterClaimHook(&Window::AfterClaim, nullptr);
  mcu::systick::SetHook(&Window::OnTick);
  const bool published = bus.Publish(Sample{kMainStream, 0U, 41U}, kMainSender);
  mcu::systick::SetHook(nullptr);
  bus.SetAfterClaimHook(nullptr, nullptr);

  CHECK(published);
  CHECK(Window::pended);
  CHECK(Window::ran_inside_window);  // the handler ran between the claim and the write
  CHECK(Window::interrupt_admitted);
  CHECK_EQ(Window::depth_before, 1U);  // the claimed, unwritten slot counts as queued
  CHECK_EQ(Window::depth_after, 2U);

  // A HIGH message on its own lane passes the stuck slot; in the same ring nothing does.
  const bool passes = interrupt_priority == MessagePriority::kHigh && Bus::kHighQueueDepth > 0U;
  CHECK_EQ(Window::consumed_by_interrupt, passes ? 1U : 0U);
  CHECK_EQ(Window::hook_calls, passes ? 1U : 2U);  // the hook is on the shared ring
  CHECK_EQ(g_isr_log.size, Window::consumed_by_interrupt);
  if (passes && g_isr_log.size == 1U) {
    CHECK_EQ(g_isr_log.items[0].value, 77U);
    CHECK_EQ(g_isr_log.items[0].msg_id, 1U);
  }

  // The main loop now takes the completed message, whole, then the interrupt's (unless taken).
  CHECK_EQ(DrainInto(bus, g_log), passes ? 1U : 2U);
  if (CHECK(g_log.size >= 1U)) {
    const Delivery& first = g_log.items[0];
    CHECK_EQ(first.kind, Kind::kSample);
    CHECK_EQ(first.stream, kMainStream);
    CHECK_EQ(first.value, 41U);
    CHECK_EQ(first.sender_id, kMainSender);
    CHECK_EQ(first.priority, MessagePriority::kMedium);
    CHECK_EQ(first.msg_id, passes ? 2U : 1U);
  }
  if (!passes && CHECK_EQ(g_log.size, 2U)) {
    const Delivery& second = g_log.items[1];
    CHECK_EQ(second.stream, kIsrStream);
    CHECK_EQ(second.value, 77U);
    CHECK_EQ(second.sender_id, kIsrSender);
    CHECK_EQ(second.priority, interrupt_priority);
    CHECK_EQ(second.msg_id, 2U);
  }
  const BusStatisticsSnapshot s = bus.GetStatistics();
  CHECK_EQ(s.messages_published, 2U);
  CHECK_EQ(s.messages_processed, 2U);
  CHECK_EQ(bus.QueueOccupancy(), 0U);
}

template <typename Config>
void InterruptInsideHalfWrittenPublish() {
  InterruptInsideHalfWrittenPublishCase<Config>(MessagePriority::kMedium);
  InterruptInsideHalfWrittenPublishCase<Config>(MessagePriority::kHigh);
}

// ---------------------------------------------------------------------------------------------
// Control calls from the interrupt: Subscribe, Unsubscribe and ResetStatistics in the SysTick
// handler while the main loop is inside the same calls (a spin lock would hang here; the
// critical section makes them safe)
// ---------------------------------------------------------------------------------------------
template <typename Bus>
struct ControlFromInterrupt {
  static inline Bus* bus = nullptr;
  static inline volatile bool main_in_control = false;
  static inline volatile std::uint32_t runs = 0U;
  static inline volatile std::uint32_t during_main_control = 0U;
  static inline volatile std::uint32_t subscribed = 0U;
  static inline volatile std::uint32_t refused = 0U;
  static inline volatile std::uint32_t unsubscribe_failed = 0U;
  static inline volatile std::uint32_t published = 0U;
  static inline volatile std::uint32_t delivered_to_interrupt_subscriber = 0U;

  static void Reset(Bus& target) noexcept {
    bus = &target;
    main_in_control = false;
    runs = 0U;
    during_main_control = 0U;
    subscribed = 0U;
    refused = 0U;
    unsubscribe_failed = 0U;
    published = 0U;
    delivered_to_interrupt_subscriber = 0U;
  }

  static void OnTick() noexcept {
    runs = runs + 1U;
    if (main_in_control) {
      during_main_control = during_main_control + 1U;
    }
    const mccc::SubscriptionHandle handle = bus->template Subscribe<Command>([](const Command&) {
      delivered_to_interrupt_subscriber = delivered_to_interrupt_subscriber + 1U;
    });
    if (!handle.IsValid()) {
      // Documented: entries removed inside the consumer's current batch stay reserved until it
      // ends, so a row can be full meanwhile.
      refused = refused + 1U;
    } else {
      subscribed = subscribed + 1U;
      if (!bus->Unsubscribe(handle)) {
        unsubscribe_failed = unsubscribe_failed + 1U;
      }
    }
    bus->ResetStatistics();
    if (bus->Publish(Command{static_cast<std::int32_t>(published)}, kIsrSender)) {
      published = published + 1U;
    }
  }
};

// G-33: Subscribe, Unsubscribe, ResetStatistics and Publish from an interrupt that lands while
// the main loop is inside the same calls (Cortex-M under QEMU)
template <typename Config>
void ControlCallsFromTheInterrupt() {
  using Bus = typename Config::Bus;
  if constexpr (std::is_same_v<typename Bus::CriticalSection, mccc::NoCriticalSection>) {
    mcu::Print("  skipped: no critical section (the control calls take a spin lock)\n");
  } else {
    using Isr = ControlFromInterrupt<Bus>;
    FreshBus<Bus> fresh;
    Bus& bus = *fresh;
    Isr::Reset(bus);
    std::uint32_t commands_seen = 0U;
    std::int32_t next_value = 0;
    std::uint32_t out_of_order = 0U;
    const mccc::SubscriptionHandle counter = bus.template Subscribe<Command>([&](const Command& c) {
      out_of_order += c.value == next_value ? 0U : 1U;
      next_value = c.value + 1;
      ++commands_seen;
    });
    CHECK(counter.IsValid());

    // The main loop runs at least kMinRounds rounds and until kInsideControl interrupts have
    // landed inside its control calls. A fixed number of rounds is not enough without -icount:
    // the tick then follows the host's clock, and a host that holds QEMU back delivers the
    // missed ticks late and back to back, all at one point of the main loop.
    mcu::systick::SetHook(&Isr::OnTick);
    mcu::systick::Start(kTickPeriodCycles);
    constexpr std::uint32_t kMinRounds = 3000U;
    constexpr std::uint32_t kInsideControl = 100U;
    constexpr std::uint32_t kRoundBound = 2000000U;  // a stuck interrupt fails, not hangs
    std::uint32_t rounds = 0U;
    std::uint32_t main_failures = 0U;
    while ((rounds < kMinRounds || Isr::during_main_control < kInsideControl) &&
           rounds < kRoundBound) {
      ++rounds;
      Isr::main_in_control = true;
      const mccc::SubscriptionHandle handle = bus.template Subscribe<Status>([](const Status&) {});
      const bool removed = handle.IsValid() && bus.Unsubscribe(handle);
      bus.ResetStatistics();
      Isr::main_in_control = false;
      main_failures += removed ? 0U : 1U;
      while (bus.ProcessBatch() != 0U) {
      }
    }
    mcu::systick::Stop();
    mcu::systick::SetHook(nullptr);
    while (bus.ProcessBatch() != 0U) {
    }

    CHECK(rounds < kRoundBound);
    CHECK(Isr::during_main_control >= kInsideControl);  // it really cut into the control calls
    CHECK(Isr::subscribed > 0U);
    CHECK_EQ(Isr::unsubscribe_failed, 0U);
    CHECK_EQ(main_failures, 0U);  // the main loop's own calls always succeed (outside a batch)
    CHECK_EQ(commands_seen, Isr::published);
    CHECK_EQ(out_of_order, 0U);
    CHECK_EQ(Isr::delivered_to_interrupt_subscriber, 0U);  // removed before any dispatch
    // Every removed entry was reclaimed: only the counter is live and the row is usable again.
    CHECK_EQ(bus.template SubscriberCount<Command>(), 1U);
    CHECK_EQ(bus.template SubscriberCount<Status>(), 0U);
    CHECK(bus.Unsubscribe(counter));

    mcu::Print("  interrupts ");
    mcu::PrintUnsigned(Isr::runs);
    mcu::Print(" (");
    mcu::PrintUnsigned(Isr::during_main_control);
    mcu::Print(" inside a main control call), subscribed ");
    mcu::PrintUnsigned(Isr::subscribed);
    mcu::Print(", refused ");
    mcu::PrintUnsigned(Isr::refused);
    mcu::Print(", published ");
    mcu::PrintUnsigned(Isr::published);
    mcu::Print("\n");
  }
}

// =============================================================================================
// Loans
// =============================================================================================

/// The scan pool's limits, derived here by counting from the bus's percentages: LOW and MEDIUM
/// as the ring's, MEDIUM leaving at least one block that only HIGH may take.
template <typename Bus>
struct ScanLimits {
  using Admission = typename Bus::Admission;
  static constexpr std::uint32_t Min(std::uint32_t a, std::uint32_t b) { return a < b ? a : b; }
  static constexpr std::uint32_t kMedium =
      Min(FirstOccupancyAtPercent(kScanBlocks, Admission::kMediumPercent), kScanBlocks - 1U);
  static constexpr std::uint32_t kLow =
      Min(FirstOccupancyAtPercent(kScanBlocks, Admission::kLowPercent), kMedium);
  static constexpr std::uint32_t kHigh = kScanBlocks;
};

std::uint16_t RangeFor(std::uint16_t stream, std::uint32_t sequence, std::uint32_t i) noexcept {
  return static_cast<std::uint16_t>(sequence * 31U + i * 7U + stream);
}

void FillScan(Scan& scan, std::uint16_t stream, std::uint32_t sequence) noexcept {
  scan.stream = stream;
  scan.spare = 0U;
  scan.sequence = sequence;
  for (std::uint32_t i = 0U; i < kScanRanges; ++i) {
    scan.ranges[i] = RangeFor(stream, sequence, i);
  }
}

bool ScanIntact(const Scan& scan) noexcept {
  for (std::uint32_t i = 0U; i < kScanRanges; ++i) {
    if (scan.ranges[i] != RangeFor(scan.stream, scan.sequence, i)) {
      return false;
    }
  }
  return true;
}

template <typename Bus>
std::uint32_t BlocksInUse(const Bus& bus) noexcept {
  return bus.template GetLoanStatistics<Scan>().in_use;
}

/// What the scan subscriber saw.
struct ScanLog {
  static constexpr std::uint32_t kCapacity = 16U;
  const Scan* address[kCapacity];
  std::uint32_t sequence[kCapacity];
  MessagePriority priority[kCapacity];
  std::uint32_t size;
  std::uint32_t corrupted;
  std::uint32_t lost;

  void Add(const Scan& scan, const MessageHeader& header) noexcept {
    corrupted += ScanIntact(scan) ? 0U : 1U;
    if (size < kCapacity) {
      address[size] = &scan;
      sequence[size] = scan.sequence;
      priority[size] = header.priority;
      ++size;
    } else {
      ++lost;
    }
  }
};
ScanLog g_scan_log;

/// Visitor for the loan bus: scans into g_scan_log, everything else counted.
struct ScanRecorder {
  std::uint32_t* others;
  void operator()(const Scan& scan, const MessageHeader& header) const noexcept {
    g_scan_log.Add(scan, header);
  }
  template <typename T>
  void operator()(const T&) const noexcept {
    ++*others;
  }
};

// G-11: a loan is delivered as the block the producer filled (Cortex-M)
// G-14: the block is back once its message is dispatched, or when given back unpublished
/// Loan, fill in place, publish, deliver: the subscriber is given the block the producer
/// filled (no copy), at the loan's priority; the block is back once the message is dispatched,
/// and a loan given back unpublished returns its block too.
template <typename Config>
void LoanFillPublishDeliver() {
  using Bus = typename Config::LoanBus;
  using Pool = typename Bus::template LoanPoolOf<Scan>;
  using SL = ScanLimits<Bus>;
  CHECK_EQ(Pool::kCapacity, kScanBlocks);
  CHECK_EQ(Pool::Admission::kLowLimit, SL::kLow);
  CHECK_EQ(Pool::Admission::kMediumLimit, SL::kMedium);
  CHECK_EQ(Pool::Admission::kHighLimit, SL::kHigh);
  CHECK_EQ(Pool::Admission::kHighReserve, SL::kHigh - SL::kMedium);
  CHECK(SL::kLow < SL::kMedium && SL::kMedium < SL::kHigh);
  // A slot carries a handle, not the scan.
  CHECK(Bus::SlotBytes() < sizeof(Scan));

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);
  g_scan_log = ScanLog{};
  const mccc::SubscriptionHandle handle = bus.template Subscribe<Scan>(
      [](const Scan& scan, const MessageHeader& header) { g_scan_log.Add(scan, header); });
  CHECK(handle.IsValid());
  CHECK_EQ(BlocksInUse(bus), 0U);

  mccc::MessageLoan<Scan> loan = bus.template Loan<Scan>(MessagePriority::kLow);
  CHECK(static_cast<bool>(loan));
  CHECK(loan.Priority() == MessagePriority::kLow);
  const Scan* const block = loan.Get();
  FillScan(*loan, kMainStream, 7U);
  CHECK_EQ(BlocksInUse(bus), 1U);
  CHECK(bus.Publish(std::move(loan), kMainSender));
  CHECK(!loan);
  CHECK_EQ(bus.QueueOccupancy(), 1U);
  CHECK_EQ(BlocksInUse(bus), 1U);  // queued: the slot holds the block
  CHECK_EQ(bus.ProcessBatch(), 1U);
  CHECK_EQ(g_scan_log.size, 1U);
  CHECK(g_scan_log.address[0] == block);  // the block itself: nothing was copied
  CHECK_EQ(g_scan_log.sequence[0], 7U);
  CHECK_EQ(g_scan_log.priority[0], MessagePriority::kLow);  // Publish used the loan's priority
  CHECK_EQ(g_scan_log.corrupted, 0U);
  CHECK_EQ(BlocksInUse(bus), 0U);  // back after the dispatch

  // The visitor is given the scan as well; PublishWithPriority overrides the loan's priority.
  loan = bus.template Loan<Scan>(MessagePriority::kMedium);
  CHECK(static_cast<bool>(loan));
  FillScan(*loan, kMainStream, 8U);
  CHECK(bus.PublishWithPriority(std::move(loan), kMainSender, MessagePriority::kHigh));
  std::uint32_t others = 0U;
  CHECK_EQ(bus.ProcessBatchWith(ScanRecorder{&others}), 1U);
  CHECK_EQ(g_scan_log.size, 2U);
  CHECK_EQ(g_scan_log.sequence[1], 8U);
  CHECK_EQ(g_scan_log.priority[1], MessagePriority::kHigh);
  CHECK_EQ(others, 0U);
  CHECK_EQ(BlocksInUse(bus), 0U);

  // Unpublished loans return their blocks: Reset, and destruction.
  loan = bus.template Loan<Scan>(MessagePriority::kHigh);
  CHECK_EQ(BlocksInUse(bus), 1U);
  loan.Reset();
  CHECK(!loan);
  CHECK_EQ(BlocksInUse(bus), 0U);
  {
    const mccc::MessageLoan<Scan> dropped = bus.template Loan<Scan>(MessagePriority::kHigh);
    CHECK(static_cast<bool>(dropped));
    CHECK_EQ(BlocksInUse(bus), 1U);
  }
  CHECK_EQ(BlocksInUse(bus), 0U);

  const mccc::LoanPoolStatistics stats = bus.template GetLoanStatistics<Scan>();
  CHECK_EQ(stats.capacity, kScanBlocks);
  CHECK_EQ(stats.loans_granted, 4U);
  CHECK_EQ(stats.high_water, 1U);
  CHECK_EQ(stats.low_priority_refused + stats.medium_priority_refused + stats.high_priority_refused,
           0U);
  CHECK_EQ(Errors(BusError::kLoanRefused), 0U);
  CHECK(bus.Unsubscribe(handle));
}

/// Takes loans of `priority` into `held` (from index `count` on) until the pool refuses one.
template <typename Bus>
std::uint32_t LoanUntilRefused(Bus& bus, MessagePriority priority,
                               mccc::MessageLoan<Scan> (&held)[kScanBlocks],
                               std::uint32_t& count) noexcept {
  std::uint32_t granted = 0U;
  while (count < kScanBlocks) {
    mccc::MessageLoan<Scan> loan = bus.template Loan<Scan>(priority);
    if (!loan) {
      break;
    }
    FillScan(*loan, kMainStream, count);
    held[count] = std::move(loan);
    ++count;
    ++granted;
  }
  return granted;
}

// G-13: pool admission by priority, HIGH's reserve, in every mode (Cortex-M)
/// Pool admission by priority: LOW up to its limit, MEDIUM to its own, HIGH takes the reserve;
/// refusals are counted per priority and reported as LOAN_REFUSED (msg_id 0). NO_STATS: the
/// same limits, nothing counted. BARE_METAL: LOW takes the whole pool, nothing counted or
/// reported. Every loan is published and delivered (HIGH first with a HIGH lane); every block
/// comes back.
template <typename Config>
void LoanAdmissionByPriority() {
  using Bus = typename Config::LoanBus;
  using SL = ScanLimits<Bus>;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);

  mccc::MessageLoan<Scan> held[kScanBlocks];
  std::uint32_t count = 0U;
  CHECK_EQ(LoanUntilRefused(bus, MessagePriority::kLow, held, count), SL::kLow);
  CHECK_EQ(Errors(BusError::kLoanRefused), 1U);
  CHECK_EQ(LastErrorId(BusError::kLoanRefused), 0U);
  CHECK_EQ(LoanUntilRefused(bus, MessagePriority::kMedium, held, count), SL::kMedium - SL::kLow);
  CHECK(!bus.template Loan<Scan>(MessagePriority::kLow));
  CHECK_EQ(LoanUntilRefused(bus, MessagePriority::kHigh, held, count), SL::kHigh - SL::kMedium);
  CHECK_EQ(count, kScanBlocks);
  CHECK(!bus.template Loan<Scan>(MessagePriority::kHigh));  // the pool is empty
  CHECK_EQ(Errors(BusError::kLoanRefused), 4U);

  mccc::LoanPoolStatistics pool = bus.template GetLoanStatistics<Scan>();
  CHECK_EQ(pool.in_use, kScanBlocks);
  CHECK_EQ(pool.high_water, kScanBlocks);
  CHECK_EQ(pool.loans_granted, kScanBlocks);
  CHECK_EQ(pool.low_priority_refused, 2U);
  CHECK_EQ(pool.medium_priority_refused, 1U);
  CHECK_EQ(pool.high_priority_refused, 1U);
  BusStatisticsSnapshot s = bus.GetStatistics();
  CHECK_EQ(s.loans_granted, kScanBlocks);
  CHECK_EQ(s.low_priority_loans_refused, 2U);
  CHECK_EQ(s.medium_priority_loans_refused, 1U);
  CHECK_EQ(s.high_priority_loans_refused, 1U);
  CHECK_EQ(s.loan_blocks_in_use, kScanBlocks);

  // Published at their loans' priorities; delivered HIGH first when HIGH has a lane.
  for (mccc::MessageLoan<Scan>& loan : held) {
    CHECK(bus.Publish(std::move(loan), kMainSender));
  }
  CHECK_EQ(BlocksInUse(bus), kScanBlocks);
  g_scan_log = ScanLog{};
  std::uint32_t others = 0U;
  while (bus.ProcessBatchWith(ScanRecorder{&others}) != 0U) {
  }
  CHECK_EQ(g_scan_log.size, kScanBlocks);
  CHECK_EQ(g_scan_log.corrupted, 0U);
  const std::uint32_t high = SL::kHigh - SL::kMedium;
  for (std::uint32_t i = 0U; i < g_scan_log.size; ++i) {
    std::uint32_t expected = i;
    if (Bus::kHighQueueDepth > 0U) {
      expected = i < high ? SL::kMedium + i : i - high;
    }
    if (!CHECK_EQ(g_scan_log.sequence[i], expected)) {
      break;
    }
  }
  CHECK_EQ(BlocksInUse(bus), 0U);

  // NO_STATS: the same limits, refusals reported, nothing counted.
  bus.SetPerformanceMode(PerformanceMode::kNoStats);
  count = 0U;
  CHECK_EQ(LoanUntilRefused(bus, MessagePriority::kLow, held, count), SL::kLow);
  CHECK_EQ(LoanUntilRefused(bus, MessagePriority::kHigh, held, count), SL::kHigh - SL::kLow);
  CHECK_EQ(Errors(BusError::kLoanRefused), 5U);  // the LOW refusal
  pool = bus.template GetLoanStatistics<Scan>();
  CHECK_EQ(pool.loans_granted, kScanBlocks);
  CHECK_EQ(pool.low_priority_refused + pool.medium_priority_refused + pool.high_priority_refused,
           4U);
  for (mccc::MessageLoan<Scan>& loan : held) {
    loan.Reset();
  }
  CHECK_EQ(BlocksInUse(bus), 0U);

  // BARE_METAL: any priority up to the whole pool; nothing counted or reported.
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);
  count = 0U;
  CHECK_EQ(LoanUntilRefused(bus, MessagePriority::kLow, held, count), kScanBlocks);
  CHECK(!bus.template Loan<Scan>(MessagePriority::kHigh));
  CHECK_EQ(Errors(BusError::kLoanRefused), 5U);
  pool = bus.template GetLoanStatistics<Scan>();
  CHECK_EQ(pool.loans_granted, kScanBlocks);
  CHECK_EQ(pool.in_use, kScanBlocks);
  for (mccc::MessageLoan<Scan>& loan : held) {
    loan.Reset();
  }
  CHECK_EQ(BlocksInUse(bus), 0U);
  bus.SetPerformanceMode(PerformanceMode::kFullFeatured);

  // ResetStatistics: counters zero, the high-water mark restarts from the blocks in use.
  held[0] = bus.template Loan<Scan>(MessagePriority::kMedium);
  bus.ResetStatistics();
  pool = bus.template GetLoanStatistics<Scan>();
  CHECK_EQ(pool.loans_granted, 0U);
  CHECK_EQ(pool.high_water, 1U);
  held[0].Reset();
  s = bus.GetStatistics();
  CHECK_EQ(s.loans_granted, 0U);
  CHECK_EQ(s.loan_blocks_in_use, 0U);
}

// G-12: a publish the ring refuses leaves the loan with the caller (Cortex-M)
/// A publish the ring refuses leaves the loan with the caller, intact; published later it is
/// delivered. An empty loan is refused as INVALID_MESSAGE.
template <typename Config>
void RefusedPublishKeepsTheLoan() {
  using Bus = typename Config::LoanBus;
  using L = Limits<Bus>;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);
  g_scan_log = ScanLog{};
  const mccc::SubscriptionHandle handle = bus.template Subscribe<Scan>(
      [](const Scan& scan, const MessageHeader& header) { g_scan_log.Add(scan, header); });

  std::uint32_t sequence = 0U;
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kLow, sequence), L::kLow);
  mccc::MessageLoan<Scan> loan = bus.template Loan<Scan>(MessagePriority::kLow);
  CHECK(static_cast<bool>(loan));
  const Scan* const block = loan.Get();
  FillScan(*loan, kMainStream, 42U);
  const std::uint32_t full_before = Errors(BusError::kQueueFull);
  CHECK(!bus.Publish(std::move(loan), kMainSender));
  CHECK_EQ(Errors(BusError::kQueueFull), full_before + 1U);
  CHECK(static_cast<bool>(loan));  // still the caller's, untouched
  CHECK(loan.Get() == block);
  CHECK(ScanIntact(*loan) && loan->sequence == 42U);
  CHECK_EQ(BlocksInUse(bus), 1U);

  CHECK_EQ(Drain(bus), L::kLow);
  CHECK(bus.Publish(std::move(loan), kMainSender));
  CHECK_EQ(bus.ProcessBatch(), 1U);
  CHECK_EQ(g_scan_log.size, 1U);
  CHECK(g_scan_log.address[0] == block);
  CHECK_EQ(g_scan_log.sequence[0], 42U);
  CHECK_EQ(g_scan_log.corrupted, 0U);
  CHECK_EQ(BlocksInUse(bus), 0U);

  // The loan is empty now (moved into the ring): publishing it again is INVALID_MESSAGE.
  const std::uint32_t invalid_before = Errors(BusError::kInvalidMessage);
  CHECK(!bus.Publish(std::move(loan), kMainSender));
  CHECK_EQ(Errors(BusError::kInvalidMessage), invalid_before + 1U);
  CHECK_EQ(bus.QueueOccupancy(), 0U);
  CHECK(bus.Unsubscribe(handle));
}

/// Retained handles: the subscriber keeps the scan beyond its callback (bus.Retain); the block
/// stays out of the pool until the last handle goes; copies share it; an interrupt releases one.
mccc::Retained<Scan> g_kept_scan;
volatile std::uint32_t g_kept_released_in_interrupt = 0U;

void ReleaseKeptScanInInterrupt() noexcept {
  if (g_kept_scan) {
    g_kept_scan.Reset();
    g_kept_released_in_interrupt = g_kept_released_in_interrupt + 1U;
  }
}

template <typename Config>
void RetainBeyondTheCallback() {
  using Bus = typename Config::LoanBus;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  static Bus* subscriber_bus = nullptr;
  subscriber_bus = &bus;
  const mccc::SubscriptionHandle handle = bus.template Subscribe<Scan>(
      [](const Scan& scan) { g_kept_scan = subscriber_bus->Retain(scan); });

  mccc::MessageLoan<Scan> loan = bus.template Loan<Scan>(MessagePriority::kMedium);
  const Scan* const block = loan.Get();
  FillScan(*loan, kMainStream, 5U);
  CHECK(bus.Publish(std::move(loan), kMainSender));
  CHECK_EQ(bus.ProcessBatch(), 1U);
  CHECK(static_cast<bool>(g_kept_scan));
  CHECK(g_kept_scan.Get() == block);
  CHECK_EQ(BlocksInUse(bus), 1U);  // retained: not back in the pool

  // The retained block is not handed out again while the other blocks are.
  mccc::MessageLoan<Scan> held[kScanBlocks];
  std::uint32_t count = 0U;
  CHECK_EQ(LoanUntilRefused(bus, MessagePriority::kHigh, held, count), kScanBlocks - 1U);
  for (std::uint32_t i = 0U; i < count; ++i) {
    CHECK(held[i].Get() != block);
  }
  CHECK(ScanIntact(*g_kept_scan) && g_kept_scan->sequence == 5U);
  for (mccc::MessageLoan<Scan>& l : held) {
    l.Reset();
  }

  // A copy shares the block: it returns when the last handle goes.
  mccc::Retained<Scan> copy = g_kept_scan;
  CHECK(copy.Get() == block);
  g_kept_scan.Reset();
  CHECK(!g_kept_scan);
  CHECK_EQ(BlocksInUse(bus), 1U);
  CHECK(ScanIntact(*copy));
  copy.Reset();
  CHECK_EQ(BlocksInUse(bus), 0U);

  // Retain of a copy of the message (not in a block) is empty.
  Scan outside{};
  FillScan(outside, kMainStream, 1U);
  CHECK(!bus.Retain(outside));

  // Released by the interrupt handler.
  loan = bus.template Loan<Scan>(MessagePriority::kLow);
  FillScan(*loan, kMainStream, 6U);
  CHECK(bus.Publish(std::move(loan), kMainSender));
  CHECK_EQ(bus.ProcessBatch(), 1U);
  CHECK_EQ(BlocksInUse(bus), 1U);
  g_kept_released_in_interrupt = 0U;
  mcu::systick::SetHook(&ReleaseKeptScanInInterrupt);
  mcu::systick::Pend();
  mcu::systick::SetHook(nullptr);
  CHECK_EQ(g_kept_released_in_interrupt, 1U);
  CHECK(!g_kept_scan);
  CHECK_EQ(BlocksInUse(bus), 0U);
  CHECK(bus.Unsubscribe(handle));
  subscriber_bus = nullptr;
}

/// The interrupt side of the concurrent loan case: one loan attempt per SysTick interrupt,
/// MEDIUM (kIsrStream) and every third HIGH (kIsrHighStream), filled and published in the
/// handler; a loan the ring refuses is kept and published again at the next interrupt. It also
/// releases the retained scan the consumer hands over.
constexpr std::uint32_t kIsrScans = 200U;
constexpr std::uint32_t kLoanTickPeriodCycles = 2000U;
constexpr std::uint32_t kMainScans = 300U;

template <typename Bus>
struct TickLoaner {
  static inline Bus* bus = nullptr;
  static inline mccc::MessageLoan<Scan> pending;  // refused by the ring: retried
  static inline volatile std::uint32_t next[kStreams];
  static inline volatile std::uint32_t attempts = 0U;
  static inline volatile std::uint32_t published = 0U;
  static inline volatile std::uint32_t loans_granted = 0U;
  static inline volatile std::uint32_t refused_by_pool[mccc::kPriorityCount];
  static inline volatile std::uint32_t refused_by_ring = 0U;
  static inline volatile std::uint32_t released = 0U;
  static inline volatile bool main_loaning = false;
  static inline volatile bool main_consuming = false;
  static inline volatile std::uint32_t during_main_loan = 0U;
  static inline volatile std::uint32_t during_main_consume = 0U;
  // The consumer hands a retained scan over; the interrupt releases it.
  static inline mccc::Retained<Scan> handed_over;
  static inline volatile bool handover_full = false;

  static void Reset(Bus& target) noexcept {
    bus = &target;
    pending.Reset();
    for (std::uint32_t i = 0U; i < kStreams; ++i) {
      next[i] = 0U;
    }
    for (std::uint32_t i = 0U; i < mccc::kPriorityCount; ++i) {
      refused_by_pool[i] = 0U;
    }
    attempts = 0U;
    published = 0U;
    loans_granted = 0U;
    refused_by_ring = 0U;
    released = 0U;
    main_loaning = false;
    main_consuming = false;
    during_main_loan = 0U;
    during_main_consume = 0U;
    handed_over.Reset();
    handover_full = false;
  }

  static void OnTick() noexcept {
    if (handover_full) {
      handed_over.Reset();
      released = released + 1U;
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the reset before the flag
      handover_full = false;
    }
    if (published >= kIsrScans) {
      return;
    }
    if (main_loaning) {
      during_main_loan = during_main_loan + 1U;
    }
    if (main_consuming) {
      during_main_consume = during_main_consume + 1U;
    }
    if (!pending) {
      const bool high = attempts % 3U == 2U;
      attempts = attempts + 1U;
      const MessagePriority priority = high ? MessagePriority::kHigh : MessagePriority::kMedium;
      mccc::MessageLoan<Scan> loan = bus->template Loan<Scan>(priority);
      if (!loan) {
        const auto p = static_cast<std::size_t>(priority);
        refused_by_pool[p] = refused_by_pool[p] + 1U;
        return;
      }
      loans_granted = loans_granted + 1U;
      const std::uint16_t stream = high ? kIsrHighStream : kIsrStream;
      FillScan(*loan, stream, next[stream]);
      pending = std::move(loan);
    }
    const std::uint16_t stream = pending->stream;
    if (bus->Publish(std::move(pending), kIsrSender)) {
      next[stream] = next[stream] + 1U;
      published = published + 1U;
    } else {
      refused_by_ring = refused_by_ring + 1U;
    }
  }
};

/// Per stream, in delivery order: sequences 0, 1, 2, ... and every scan intact; every eighth
/// scan is retained and handed to the interrupt, which releases it. Besides the timer's own
/// interrupts, the interrupt is pended inside some main-loop loans and inside some batches, so
/// that both interleavings happen on every run.
template <typename Bus>
struct ScanStreamChecker {
  static inline std::uint32_t next[kStreams];
  static inline std::uint32_t out_of_order = 0U;
  static inline std::uint32_t corrupted = 0U;
  static inline std::uint32_t retained = 0U;

  static void Reset() noexcept {
    for (std::uint32_t i = 0U; i < kStreams; ++i) {
      next[i] = 0U;
    }
    out_of_order = 0U;
    corrupted = 0U;
    retained = 0U;
  }

  static void OnScan(const Scan& scan) noexcept {
    using Loaner = TickLoaner<Bus>;
    if (scan.stream == 0U || scan.stream >= kStreams || scan.sequence != next[scan.stream]) {
      ++out_of_order;
      return;
    }
    next[scan.stream] = scan.sequence + 1U;
    corrupted += ScanIntact(scan) ? 0U : 1U;
    if (scan.stream == kMainStream && scan.sequence % 16U == 9U) {
      mcu::systick::Pend();  // an interrupt inside the batch, between the blocks' releases
    }
    if (scan.sequence % 8U == 0U && !Loaner::handover_full) {
      Loaner::handed_over = Loaner::bus->Retain(scan);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the handle before the flag
      Loaner::handover_full = true;
      ++retained;
    }
  }
};

// G-11: an interrupt loaning and publishing while the main loop loans and consumes: every
// loan delivered once, in order (Cortex-M)
template <typename Config>
void InterruptLoansWhileMainLoansAndConsumes() {
  using Bus = typename Config::LoanBus;
  using Loaner = TickLoaner<Bus>;
  using Checker = ScanStreamChecker<Bus>;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);
  Loaner::Reset(bus);
  Checker::Reset();
  const mccc::SubscriptionHandle handle =
      bus.template Subscribe<Scan>([](const Scan& scan) { Checker::OnScan(scan); });

  mcu::systick::SetHook(&Loaner::OnTick);
  mcu::systick::Start(kLoanTickPeriodCycles);
  std::uint32_t main_next = 0U;
  std::uint32_t main_granted = 0U;
  std::uint32_t main_refused_by_pool = 0U;
  std::uint32_t main_refused_by_ring = 0U;
  std::uint32_t iteration = 0U;
  constexpr std::uint32_t kIterationBound = 1000000U;  // a stuck interrupt fails, not hangs
  while ((Loaner::published < kIsrScans || main_next < kMainScans) && iteration < kIterationBound) {
    const std::uint32_t burst = 1U + iteration % 4U;
    ++iteration;
    for (std::uint32_t k = 0U; k < burst && main_next < kMainScans; ++k) {
      Loaner::main_loaning = true;
      mccc::MessageLoan<Scan> loan = bus.template Loan<Scan>(MessagePriority::kLow);
      if (!loan) {
        Loaner::main_loaning = false;
        ++main_refused_by_pool;
        break;
      }
      ++main_granted;
      FillScan(*loan, kMainStream, main_next);
      if (main_next % 16U == 5U) {
        mcu::systick::Pend();  // an interrupt while this loan is held, whatever the timing
      }
      const bool ok = bus.Publish(std::move(loan), kMainSender);
      Loaner::main_loaning = false;
      if (!ok) {
        ++main_refused_by_ring;  // the loan goes back to the pool at the end of this scope
        break;
      }
      ++main_next;
    }
    Loaner::main_consuming = true;
    bus.ProcessBatch();
    Loaner::main_consuming = false;
  }
  mcu::systick::Stop();
  mcu::systick::SetHook(nullptr);
  while (bus.ProcessBatch() != 0U) {
  }
  CHECK(iteration < kIterationBound);
  CHECK(!Loaner::pending);  // the interrupt published everything it loaned
  if (Loaner::handover_full) {
    Loaner::handed_over.Reset();
    Loaner::handover_full = false;
  }

  // Exactly once, in order, intact, per source; every block back.
  CHECK_EQ(Checker::next[kMainStream], kMainScans);
  CHECK_EQ(Checker::next[kIsrStream] + Checker::next[kIsrHighStream], kIsrScans);
  CHECK_EQ(Checker::next[kIsrStream], Loaner::next[kIsrStream]);
  CHECK_EQ(Checker::next[kIsrHighStream], Loaner::next[kIsrHighStream]);
  CHECK_EQ(Checker::out_of_order, 0U);
  CHECK_EQ(Checker::corrupted, 0U);
  CHECK(Checker::retained > 0U);
  CHECK_EQ(BlocksInUse(bus), 0U);
  CHECK_EQ(bus.QueueOccupancy(), 0U);
  // The interrupt really cut into the main loop's loans and batches.
  CHECK(Loaner::during_main_loan > 0U);
  CHECK(Loaner::during_main_consume > 0U);

  // The pool's counters agree with what both producers saw.
  const mccc::LoanPoolStatistics pool = bus.template GetLoanStatistics<Scan>();
  CHECK_EQ(pool.loans_granted, main_granted + Loaner::loans_granted);
  CHECK_EQ(Loaner::loans_granted, kIsrScans);
  CHECK_EQ(main_granted, kMainScans + main_refused_by_ring);
  CHECK_EQ(pool.low_priority_refused, main_refused_by_pool);
  CHECK_EQ(pool.medium_priority_refused, Loaner::refused_by_pool[1]);
  CHECK_EQ(pool.high_priority_refused, Loaner::refused_by_pool[2]);
  CHECK_EQ(Errors(BusError::kLoanRefused),
           main_refused_by_pool + Loaner::refused_by_pool[1] + Loaner::refused_by_pool[2]);
  CHECK(pool.high_water <= kScanBlocks);
  const BusStatisticsSnapshot s = bus.GetStatistics();
  CHECK_EQ(s.messages_published, kMainScans + kIsrScans);
  CHECK_EQ(s.messages_processed, kMainScans + kIsrScans);
  CHECK_EQ(s.messages_dropped, main_refused_by_ring + Loaner::refused_by_ring);
  CHECK(bus.Unsubscribe(handle));

  mcu::Print("  scans: main ");
  mcu::PrintUnsigned(kMainScans);
  mcu::Print(", interrupts ");
  mcu::PrintUnsigned(Loaner::attempts);
  mcu::Print(" (");
  mcu::PrintUnsigned(Loaner::during_main_loan);
  mcu::Print(" inside a main loan or publish, ");
  mcu::PrintUnsigned(Loaner::during_main_consume);
  mcu::Print(" inside a batch); pool refused main ");
  mcu::PrintUnsigned(main_refused_by_pool);
  mcu::Print(", interrupt ");
  mcu::PrintUnsigned(Loaner::refused_by_pool[1] + Loaner::refused_by_pool[2]);
  mcu::Print("; retained and released by the interrupt ");
  mcu::PrintUnsigned(Loaner::released);
  mcu::Print("; high water ");
  mcu::PrintUnsigned(pool.high_water);
  mcu::Print("\n");
}

// ---------------------------------------------------------------------------------------------
template <typename Config>
void RunConfiguration() {
  const char* name = Config::kName;
  mcu_test::RunCase(name, "admission at every threshold", &AdmissionAtEveryThreshold<Config>);
  mcu_test::RunCase(name, "backpressure at every occupancy", &BackpressureAtEveryOccupancy<Config>);
  mcu_test::RunCase(name, "PublishBatch admits a prefix", &PublishBatchAdmitsAPrefix<Config>);
  mcu_test::RunCase(name, "callbacks of all three shapes", &CallbacksOfAllThreeShapes<Config>);
  mcu_test::RunCase(name, "visitor dispatch", &VisitorDispatch<Config>);
  mcu_test::RunCase(name, "statistics snapshot is exact", &StatisticsSnapshotIsExact<Config>);
  mcu_test::RunCase(name, "interrupt publishes while main publishes and consumes",
                    &InterruptPublishesWhileMainPublishesAndConsumes<Config>);
  mcu_test::RunCase(name, "interrupt inside a half-written publish",
                    &InterruptInsideHalfWrittenPublish<Config>);
  mcu_test::RunCase(name, "control calls from the interrupt",
                    &ControlCallsFromTheInterrupt<Config>);
  mcu_test::RunCase(name, "loans: loan, fill, publish, deliver", &LoanFillPublishDeliver<Config>);
  mcu_test::RunCase(name, "loans: pool admission by priority", &LoanAdmissionByPriority<Config>);
  mcu_test::RunCase(name, "loans: a refused publish keeps the loan",
                    &RefusedPublishKeepsTheLoan<Config>);
  mcu_test::RunCase(name, "loans: retain beyond the callback", &RetainBeyondTheCallback<Config>);
  mcu_test::RunCase(name, "loans: interrupt loans while main loans and consumes",
                    &InterruptLoansWhileMainLoansAndConsumes<Config>);
}

template <typename Config>
void PrintSize() {
  mcu::Print(" ");
  mcu::Print(Config::kName);
  mcu::Print("=");
  mcu::PrintUnsigned(sizeof(typename Config::Bus));
  mcu::Print("/");
  mcu::PrintUnsigned(sizeof(typename Config::LoanBus));
}

}  // namespace

// G-37: the bare-metal suite runs on Cortex-M4F, M3 and M0 under QEMU (tests/mcu/CMakeLists.txt)
int main() {
  mcu::Print("mccc bare-metal suite, " MCU_SUITE_CORE_NAME "\nbus bytes (without/with loans):");
  PrintSize<SingleCore>();
  PrintSize<NoHighLane>();
  PrintSize<FullEnvelope>();
#if MCU_SUITE_HAS_ATOMIC_RMW
  PrintSize<ExclusiveAccess>();
  PrintSize<DefaultTraits>();
#endif
  mcu::Print("\n");
  RunConfiguration<SingleCore>();
  RunConfiguration<NoHighLane>();
  RunConfiguration<FullEnvelope>();
#if MCU_SUITE_HAS_ATOMIC_RMW
  RunConfiguration<ExclusiveAccess>();
  RunConfiguration<DefaultTraits>();
#endif
  return mcu_test::Finish();
}
