// SPDX-License-Identifier: MIT
/// @file qpcpp_callbacks.cpp
/// @brief The callbacks QP/C++ requires from every application, for the competitive benchmark's
/// optional QP/C++ peer (compiled only when CMake was given -DMCCC_BENCH_QPCPP_DIR; see
/// QpcppAdapter in peers.hpp). The benchmark never calls QF::run(), so the start-up, clean-up
/// and clock-tick callbacks are never invoked; QP's assertion handler reports and aborts.
#include <cstdio>
#include <cstdlib>

#include <qpcpp.hpp>

namespace QP {
namespace QF {

void onStartup() {}
void onCleanup() {}
void onClockTick() {}

}  // namespace QF
}  // namespace QP

extern "C" Q_NORETURN Q_onError(char const* const module, int_t const id) {
  std::fprintf(stderr, "QP/C++ assertion failed: module %s, id %d\n", module, id);
  std::fflush(stderr);
  std::abort();
}
