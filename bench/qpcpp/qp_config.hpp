// SPDX-License-Identifier: MIT
/// @file qp_config.hpp
/// @brief QP/C++ configuration for the competitive benchmark's optional QP/C++ peer. QP reads it
/// as "qp_config.hpp" (QP 8 requires the application to provide one); bench/CMakeLists.txt puts
/// this directory on the include path of the QP library it builds from the user's checkout
/// (-DMCCC_BENCH_QPCPP_DIR) and of the benchmark, so both see the same settings.
#ifndef MCCC_BENCH_QPCPP_QP_CONFIG_HPP_
#define MCCC_BENCH_QPCPP_QP_CONFIG_HPP_

// Current API only (no deprecated aliases such as the global enum_t).
#define QP_API_VERSION 9999

// One active object per payload type and sink type (5 in the benchmark).
#define QF_MAX_ACTIVE 32U

// One event pool per payload size (24 / 64 / 128 / 256 bytes).
#define QF_MAX_EPOOL 4U

// Time events are not used.
#define QF_MAX_TICK_RATE 1U
#define QF_TIMEEVT_CTR_SIZE 4U

// Event sizes up to 64 KiB.
#define QF_EVENT_SIZ_SIZE 2U

// 16-bit queue counters: an active object's queue holds up to 65,535 events (the largest QP
// allows; the 8-bit default would cap it at 255).
#define QF_EQUEUE_CTR_SIZE 2U

// 32-bit pool counters (a pool holds more than 65,535 events), 16-bit block sizes.
#define QF_MPOOL_CTR_SIZE 4U
#define QF_MPOOL_SIZ_SIZE 2U

// QP's functional-safety assertions stay enabled (Q_UNSAFE is not defined), as QP recommends.

#endif  // MCCC_BENCH_QPCPP_QP_CONFIG_HPP_
