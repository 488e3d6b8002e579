// SPDX-License-Identifier: MIT
/// @file mcu_suite_cases.hpp
/// @brief The cases of the bare-metal suite, in the order mcu_suite.cpp runs them. Each is a
/// template over a configuration of mcu_suite.hpp, defined in the file named beside it and
/// instantiated there for every configuration of the core (MCU_SUITE_INSTANTIATE_CASE).
#ifndef MCU_MCU_SUITE_CASES_HPP_
#define MCU_MCU_SUITE_CASES_HPP_

namespace mcu_suite {

// mcu_suite_admission.cpp
template <typename Config>
void AdmissionAtEveryThreshold();
template <typename Config>
void BackpressureAtEveryOccupancy();
template <typename Config>
void PublishBatchAdmitsAPrefix();
template <typename Config>
void StatisticsSnapshotIsExact();

// mcu_suite_dispatch.cpp
template <typename Config>
void CallbacksOfAllThreeShapes();
template <typename Config>
void VisitorDispatch();

// mcu_suite_interrupts.cpp
template <typename Config>
void InterruptPublishesWhileMainPublishesAndConsumes();
template <typename Config>
void InterruptInsideHalfWrittenPublish();

// mcu_suite_interrupt_control.cpp
template <typename Config>
void ControlCallsFromTheInterrupt();

// mcu_suite_loans.cpp
template <typename Config>
void LoanFillPublishDeliver();
template <typename Config>
void LoanAdmissionByPriority();
template <typename Config>
void RefusedPublishKeepsTheLoan();
template <typename Config>
void RetainBeyondTheCallback();

// mcu_suite_loans_interrupt.cpp
template <typename Config>
void InterruptLoansWhileMainLoansAndConsumes();

// mcu_suite_fan_out.cpp
template <typename Config>
void CooperativeSchedulerDispatchesByPriority();

}  // namespace mcu_suite

#endif  // MCU_MCU_SUITE_CASES_HPP_
