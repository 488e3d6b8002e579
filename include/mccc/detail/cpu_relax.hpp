// SPDX-License-Identifier: MIT
/// @file cpu_relax.hpp
/// @brief The spin-wait hint every busy-wait loop of mccc uses.
#ifndef MCCC_DETAIL_CPU_RELAX_HPP_
#define MCCC_DETAIL_CPU_RELAX_HPP_

#include "mccc/config.hpp"

namespace mccc {

/// @brief A spin-wait hint: tells the CPU this is a busy-wait loop (x86 `pause`, Arm `yield`),
/// which saves power and frees pipeline resources for a sibling hyper-thread. A no-op on other
/// architectures. Thread-safe.
MCCC_ALWAYS_INLINE void CpuRelax() noexcept {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_ia32_pause();
#elif (defined(__aarch64__) || defined(__arm__)) && (defined(__GNUC__) || defined(__clang__))
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

}  // namespace mccc

#endif  // MCCC_DETAIL_CPU_RELAX_HPP_
