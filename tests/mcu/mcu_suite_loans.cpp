// SPDX-License-Identifier: MIT
// The bare-metal suite: loans from the scan pool inside the bus: loan, fill in place, publish
// and delivery of the block itself; pool admission by priority in every mode; a publish the ring
// refuses leaves the loan intact; Retain beyond the callback, copies, Reset, release from the
// interrupt.
#include <cstdint>
#include <utility>

#include "mcu_suite.hpp"
#include "mcu_suite_cases.hpp"
#include "platform/systick.hpp"

namespace mcu_suite {

namespace {

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

}  // namespace

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

// G-13: pool admission by priority, HIGH's reserve, in every mode (Cortex-M)
/// Pool admission by priority: LOW up to its limit, MEDIUM to its own, HIGH takes the reserve;
/// refusals are counted per priority and reported as kLoanRefused (msg_id 0). kNoStats: the
/// same limits, nothing counted. kBareMetal: LOW takes the whole pool, nothing counted or
/// reported. Every loan is published and delivered (HIGH first with a HIGH ring); every block
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

  // Published at their loans' priorities; delivered HIGH first when HIGH has a ring of its own.
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

  // kNoStats: the same limits, refusals reported, nothing counted.
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

  // kBareMetal: any priority up to the whole pool; nothing counted or reported.
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
/// delivered. An empty loan is refused as kInvalidMessage.
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

  // The loan is empty now (moved into the ring): publishing it again is kInvalidMessage.
  const std::uint32_t invalid_before = Errors(BusError::kInvalidMessage);
  CHECK(!bus.Publish(std::move(loan), kMainSender));
  CHECK_EQ(Errors(BusError::kInvalidMessage), invalid_before + 1U);
  CHECK_EQ(bus.QueueOccupancy(), 0U);
  CHECK(bus.Unsubscribe(handle));
}

namespace {

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

}  // namespace

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

MCU_SUITE_INSTANTIATE_CASE(LoanFillPublishDeliver);
MCU_SUITE_INSTANTIATE_CASE(LoanAdmissionByPriority);
MCU_SUITE_INSTANTIATE_CASE(RefusedPublishKeepsTheLoan);
MCU_SUITE_INSTANTIATE_CASE(RetainBeyondTheCallback);

}  // namespace mcu_suite
