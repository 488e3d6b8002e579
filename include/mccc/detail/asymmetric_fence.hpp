// SPDX-License-Identifier: MIT
/// @file asymmetric_fence.hpp
/// @brief A StoreLoad barrier whose cost is split unevenly between two threads: the frequent
/// side pays a compiler barrier, the rare side a process-wide barrier from the kernel.
///
/// The pattern it serves (Dekker): thread F runs `store A; Light(); load B` often, thread R runs
/// `store B; Heavy(); load A` rarely. At least one of the two loads sees the other thread's store.
/// - Heavy() is Linux `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`: before it returns, every
///   thread of this process that is running on some CPU has executed a full memory barrier (an
///   interrupt does it), and threads that are not running have none pending. So if F's load of B
///   ran before R's store of B became visible, F's store of A is drained by the time Heavy()
///   returns, and R's load of A sees it.
/// - Light() only stops the compiler from moving F's load above its store; the CPU may still
///   (x86 store buffer, Arm), which is exactly what Heavy() repairs.
///
/// Not available (Available() false) off Linux, on kernels older than 4.14 or where seccomp
/// forbids the call, and under ThreadSanitizer (which models neither the system call nor the
/// barrier it imposes); callers then keep a seq_cst read-modify-write on the frequent side.
/// Heavy() can still fail later (a seccomp filter installed after start-up): it then returns
/// false and the caller must fall back to the symmetric handshake; nothing aborts.
/// MCCC_ASYMMETRIC_FENCE=0 turns it off: Heavy() interrupts every CPU that runs one of the
/// process's threads (an interrupt each), which a hard real-time design may not want.
#ifndef MCCC_DETAIL_ASYMMETRIC_FENCE_HPP_
#define MCCC_DETAIL_ASYMMETRIC_FENCE_HPP_

#include <atomic>

#include "mccc/config.hpp"

#if MCCC_ASYMMETRIC_FENCE
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace mccc {
namespace detail {

/// @brief See the file comment. All members are static and thread-safe.
class AsymmetricFence {
 public:
  /// @brief True when Heavy() is a real process-wide barrier (decided once; the first call
  /// registers the process with the kernel). Thread-safe.
  static bool Available() noexcept {
    static const bool available = RegisterOnce();
    return available;
  }

  /// @brief The frequent side: a compiler barrier only. Valid only when Available().
  MCCC_ALWAYS_INLINE static void Light() noexcept {
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }

  /// @brief The rare side: returns true once every running thread of the process has passed a
  /// full barrier; false when the kernel refused the call (no barrier happened: the caller must
  /// not rely on it). Call only when Available(). A system call plus one interrupt per CPU that
  /// runs a thread of this process; never call it while holding a lock the frequent side needs.
  static bool Heavy() noexcept {
#if MCCC_ENABLE_TEST_HOOKS
    // relaxed: a test switch set before the threads that call Heavy() start.
    if (FailForTest().load(std::memory_order_relaxed)) {
      return false;
    }
#endif
#if MCCC_ASYMMETRIC_FENCE
    return Call(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
#else
    return false;
#endif
  }

#if MCCC_ENABLE_TEST_HOOKS
  /// @brief Test hook: makes every later Heavy() fail as a seccomp filter would.
  static std::atomic<bool>& FailForTest() noexcept {
    static std::atomic<bool> fail{false};
    return fail;
  }
#endif

 private:
#if MCCC_ASYMMETRIC_FENCE
  static long Call(int command) noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg): deviation D-05 (membarrier system call)
    return syscall(__NR_membarrier, command, 0U, 0);
  }
#endif

  static bool RegisterOnce() noexcept {
#if MCCC_ASYMMETRIC_FENCE
    const long supported = Call(MEMBARRIER_CMD_QUERY);
    if (supported < 0) {
      return false;
    }
    // The query answers a bit mask of commands: tested as unsigned bits.
    const auto commands = static_cast<unsigned long>(supported);
    if ((commands & static_cast<unsigned long>(MEMBARRIER_CMD_PRIVATE_EXPEDITED)) == 0U ||
        (commands & static_cast<unsigned long>(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) == 0U) {
      return false;
    }
    // One real barrier after registering proves the command works here before anyone relies
    // on it (Heavy() then treats a failure as impossible).
    return Call(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
           Call(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
#else
    return false;
#endif
  }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_ASYMMETRIC_FENCE_HPP_
