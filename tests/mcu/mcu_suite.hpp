// SPDX-License-Identifier: MIT
/// @file mcu_suite.hpp
/// @brief What every file of the bare-metal suite shares: the configurations under test, the
/// static arena each case builds its bus in, the error recorder, the delivery log, the oracle's
/// limits and the publish helpers. The cases themselves are declared in mcu_suite_cases.hpp.
#ifndef MCU_MCU_SUITE_HPP_
#define MCU_MCU_SUITE_HPP_

#include <mccc/mccc.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <variant>

#include "mcu_check.hpp"
#include "mcu_messages.hpp"
#include "platform/systick.hpp"

#if !MCCC_ENABLE_TEST_HOOKS
#error "the mcu suite needs MCCC_ENABLE_TEST_HOOKS=1 (the half-written publish uses the hook)"
#endif
#if MCCC_HOSTED
#error "the mcu suite is a bare-metal program (MCCC_HOSTED must be 0)"
#endif

namespace mcu_suite {

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
/// positions, a HIGH ring, compact envelopes, the PRIMASK critical section.
struct SingleCoreTraits : mccc::DefaultBusTraits {
  static constexpr std::uint32_t kQueueDepth = 64U;
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;  // one Cortex-M core
  static constexpr std::uint32_t kMaxCallbacksPerType = 4U;
  using Clock = mcu::SysTickClock;
};

/// Without a HIGH ring: HIGH shares the ring and is only favoured by admission.
struct NoHighRingTraits : SingleCoreTraits {
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

/// The bus and the loan bus of one configuration of the suite.
template <typename Traits>
struct BusesOf {
  using Bus = mccc::AsyncBus<Payload, Traits>;
  using LoanBus = mccc::AsyncBus<LoanPayload, WithScanPool<Traits>>;
};

struct SingleCore : BusesOf<SingleCoreTraits> {
  static constexpr const char* kName = "single_core";
};
struct NoHighRing : BusesOf<NoHighRingTraits> {
  static constexpr const char* kName = "single_core_no_high_ring";
};
struct FullEnvelope : BusesOf<FullEnvelopeTraits> {
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
struct ExclusiveAccess : BusesOf<ExclusiveAccessTraits> {
  static constexpr const char* kName = "single_core_ldrex_strex";
};
struct DefaultTraits : BusesOf<DefaultTraitsDepth64> {
  static constexpr const char* kName = "default_traits";
};
#endif

static_assert(sizeof(SingleCore::Bus::Position) == 4U,
              "Cortex-M has no lock-free 64-bit atomics: positions must default to 32 bits");
static_assert(SingleCore::Bus::kHighQueueDepth > 0U && SingleCore::Bus::kCompactEnvelope,
              "the bare-metal defaults: a HIGH ring and compact envelopes");
static_assert(!std::is_same_v<SingleCore::Bus::CriticalSection, mccc::NoCriticalSection>,
              "a single-core bus on Cortex-M uses the PRIMASK critical section by default");

// A SysTick period of 480 processor clocks: ~20 us on the MPS2 boards (25 MHz), and a few
// thousand instructions of the main loop between two interrupts under -icount shift=3.
constexpr std::uint32_t kTickPeriodCycles = 480U;

/// Explicit instantiations of a case for every configuration of this core (each case file ends
/// with one per case, so the runner links against them).
#if MCU_SUITE_HAS_ATOMIC_RMW
#define MCU_SUITE_INSTANTIATE_CASE(Case)              \
  template void Case<::mcu_suite::SingleCore>();      \
  template void Case<::mcu_suite::NoHighRing>();      \
  template void Case<::mcu_suite::FullEnvelope>();    \
  template void Case<::mcu_suite::ExclusiveAccess>(); \
  template void Case<::mcu_suite::DefaultTraits>()
#else
#define MCU_SUITE_INSTANTIATE_CASE(Case)         \
  template void Case<::mcu_suite::SingleCore>(); \
  template void Case<::mcu_suite::NoHighRing>(); \
  template void Case<::mcu_suite::FullEnvelope>()
#endif

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
using Arena = ArenaFor<SingleCore, NoHighRing, FullEnvelope, ExclusiveAccess, DefaultTraits>;
#else
using Arena = ArenaFor<SingleCore, NoHighRing, FullEnvelope>;
#endif
/// Holds the bus of the running case (mcu_suite_support.cpp).
alignas(Arena::kAlign) extern unsigned char g_arena[Arena::kBytes];

template <typename Bus>
class FreshBus {
  // Every configuration's buses fit by construction (ArenaFor); anything else built here, such as
  // the fan-out case's domain, is checked.
  static_assert(sizeof(Bus) <= Arena::kBytes && alignof(Bus) <= Arena::kAlign,
                "the object must fit the suite's arena (a smaller ring, or a larger arena)");

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
/// Counts one report per BusError; safe to call from the interrupt handler.
void RecordError(BusError error, std::uint64_t msg_id) noexcept;
void ClearErrors() noexcept;
std::uint32_t Errors(BusError error) noexcept;
std::uint64_t LastErrorId(BusError error) noexcept;

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

/// What the main loop's consumer saw, and what the interrupt's consumer saw.
extern DeliveryLog g_log;
extern DeliveryLog g_isr_log;

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

/// A bus's ring and HIGH-ring sizes and its admission limits, derived with
/// FirstOccupancyAtPercent from the bus's percentages (the oracle the cases check the bus with).
template <typename Bus>
struct Limits {
  using Admission = typename Bus::Admission;
  static constexpr std::uint32_t kDepth = Bus::kQueueDepth;
  static constexpr std::uint32_t kHighRing = Bus::kHighQueueDepth;
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
/// Checks that every publish and drop counter of `now` equals `before`.
void CheckSameCounts(const BusStatisticsSnapshot& now, const BusStatisticsSnapshot& before);

// ---------------------------------------------------------------------------------------------
// Scans: what the loan cases fill, publish and check
// ---------------------------------------------------------------------------------------------
void FillScan(Scan& scan, std::uint16_t stream, std::uint32_t sequence) noexcept;
bool ScanIntact(const Scan& scan) noexcept;

template <typename Bus>
std::uint32_t BlocksInUse(const Bus& bus) noexcept {
  return bus.template GetLoanStatistics<Scan>().in_use;
}

}  // namespace mcu_suite

#endif  // MCU_MCU_SUITE_HPP_
