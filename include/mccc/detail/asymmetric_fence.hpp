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
/// MCCC_ASYMMETRIC_FENCE=0 turns it off: Heavy() interrupts every CPU that runs one of the
/// process's threads (about a microsecond each), which a hard real-time design may not want.
#ifndef MCCC_DETAIL_ASYMMETRIC_FENCE_HPP_
#define MCCC_DETAIL_ASYMMETRIC_FENCE_HPP_

#include <atomic>
#include <cstdlib>

#include "mccc/config.hpp"

#if MCCC_ASYMMETRIC_FENCE
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace mccc {
namespace detail {

/// @brief See the file comment. All members are static and threadsafe.
class AsymmetricFence {
 public:
  /// @brief True when Heavy() is a real process-wide barrier (decided once; the first call
  /// registers the process with the kernel). Threadsafe.
  static bool Available() noexcept {
    static const bool available = RegisterOnce();
    return available;
  }

  /// @brief The frequent side: a compiler barrier only. Valid only when Available().
  MCCC_ALWAYS_INLINE static void Light() noexcept {
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }

  /// @brief The rare side: returns once every running thread of the process has passed a full
  /// barrier. Call only when Available(). A system call plus one interrupt per CPU that runs a
  /// thread of this process.
  static void Heavy() noexcept {
#if MCCC_ASYMMETRIC_FENCE
    // After a successful registration and a successful first call (RegisterOnce), the kernel
    // documents no error this call can return. Should one appear anyway, going on could destroy
    // a callable the consumer is still running, so stop instead of risking that.
    if (Call(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
      std::abort();
    }
#endif
  }

 private:
#if MCCC_ASYMMETRIC_FENCE
  static long Call(int command) noexcept {
    return syscall(__NR_membarrier, command, 0U, 0);
  }
#endif

  static bool RegisterOnce() noexcept {
#if MCCC_ASYMMETRIC_FENCE
    const long supported = Call(MEMBARRIER_CMD_QUERY);
    if (supported < 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 ||
        (supported & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0) {
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
