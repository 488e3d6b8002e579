// SPDX-License-Identifier: MIT
/// @file callgrind_counted.hpp
/// @brief The scope callgrind counts instructions in, for the instruction profiles
/// (bench/instruction_profile.cpp, bench/profile_peer_api.cpp, run under
/// `valgrind --tool=callgrind --instr-atstart=no` by scripts/profile_instructions.sh). Without
/// valgrind's header it does nothing, and the programs run their loops unmeasured. Includes
/// nothing of mccc: profile_peer_api.cpp is also built against the original MCCC's headers.
#ifndef MCCC_BENCH_COMMON_CALLGRIND_COUNTED_HPP_
#define MCCC_BENCH_COMMON_CALLGRIND_COUNTED_HPP_

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define MCCC_BENCH_HAVE_CALLGRIND 1
#endif
#endif
#ifndef MCCC_BENCH_HAVE_CALLGRIND
#define MCCC_BENCH_HAVE_CALLGRIND 0
#endif

namespace mccc_bench {

/// Switches callgrind's instruction counting on for its lifetime.
class Counted {
 public:
  Counted() noexcept {
#if MCCC_BENCH_HAVE_CALLGRIND
    CALLGRIND_START_INSTRUMENTATION;
#endif
  }
  ~Counted() {
#if MCCC_BENCH_HAVE_CALLGRIND
    CALLGRIND_STOP_INSTRUMENTATION;
#endif
  }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  Counted(Counted&&) = delete;
  Counted& operator=(Counted&&) = delete;
};

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_CALLGRIND_COUNTED_HPP_
