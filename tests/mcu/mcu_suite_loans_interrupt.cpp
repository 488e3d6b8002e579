// SPDX-License-Identifier: MIT
// The bare-metal suite: an interrupt loaning and publishing scans while the main loop loans,
// publishes and consumes; scans retained by the consumer are released by the interrupt.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "mcu_suite.hpp"
#include "mcu_suite_cases.hpp"
#include "platform/console.hpp"
#include "platform/systick.hpp"

namespace mcu_suite {

namespace {

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

}  // namespace

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

MCU_SUITE_INSTANTIATE_CASE(InterruptLoansWhileMainLoansAndConsumes);

}  // namespace mcu_suite
