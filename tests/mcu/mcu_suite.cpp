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
//     interrupt loaning and publishing while the main loop loans, publishes and consumes;
//   - fan-out (a Domain of three consumers in the same static arena) run by its cooperative
//     scheduler, DispatchHighestReady, while the interrupt publishes to the domain: consumers
//     drained strictly by priority, a higher consumer published to during a lower one's batch
//     runs next, no call runs a consumer while a higher one had a message when the call began,
//     and every message a consumer admitted is dispatched to it exactly once, in order.
// Each case runs on every configuration below (RunConfiguration):
//   single_core                the bare-metal defaults for one core: compact envelopes, the HIGH
//                              ring, the PRIMASK critical section, 32-bit positions
//   single_core_no_high_ring   HIGH shares the ring
//   single_core_full_envelope  full envelopes in the slots (envelope-taking subscribers)
//   single_core_ldrex_strex    no critical section: LDREX/STREX read-modify-writes (M3/M4 only)
//   default_traits             the multi-core defaults with depth 64 (M3/M4 only)
// Output and exit status go through semihosting: one line per case, then the totals and PASS or
// FAIL; exit status = number of failures.
//
// Files: mcu_suite.hpp (configurations, arena, error recorder, delivery log, oracle helpers),
// mcu_suite_cases.hpp (the cases, in the order they run), mcu_suite_admission.cpp,
// mcu_suite_dispatch.cpp, mcu_suite_interrupts.cpp, mcu_suite_interrupt_control.cpp,
// mcu_suite_loans.cpp, mcu_suite_loans_interrupt.cpp, mcu_suite_fan_out.cpp; this file runs
// them.
#include "mcu_suite.hpp"
#include "mcu_check.hpp"
#include "mcu_suite_cases.hpp"
#include "platform/console.hpp"

#ifndef MCU_SUITE_CORE_NAME
#define MCU_SUITE_CORE_NAME "cortex-m"
#endif

namespace mcu_suite {
namespace {

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
  mcu_test::RunCase(name,
                    "fan-out: the cooperative scheduler dispatches by priority with an "
                    "interrupt publishing",
                    &CooperativeSchedulerDispatchesByPriority<Config>);
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
}  // namespace mcu_suite

// G-37: the bare-metal suite runs on Cortex-M4F, M3 and M0 under QEMU (tests/mcu/CMakeLists.txt)
int main() {
  using namespace mcu_suite;  // NOLINT(google-build-using-namespace): the configurations
  mcu::Print("mccc bare-metal suite, " MCU_SUITE_CORE_NAME "\nbus bytes (without/with loans):");
  PrintSize<SingleCore>();
  PrintSize<NoHighRing>();
  PrintSize<FullEnvelope>();
#if MCU_SUITE_HAS_ATOMIC_RMW
  PrintSize<ExclusiveAccess>();
  PrintSize<DefaultTraits>();
#endif
  mcu::Print("\n");
  RunConfiguration<SingleCore>();
  RunConfiguration<NoHighRing>();
  RunConfiguration<FullEnvelope>();
#if MCU_SUITE_HAS_ATOMIC_RMW
  RunConfiguration<ExclusiveAccess>();
  RunConfiguration<DefaultTraits>();
#endif
  return mcu_test::Finish();
}
