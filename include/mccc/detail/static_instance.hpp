// SPDX-License-Identifier: MIT
/// @file static_instance.hpp
/// @brief A process-wide object built in static storage on first use and never destroyed: the
/// bare-metal form of `AsyncBus::Instance()`.
///
/// Why not a function-local static: on bare metal its guard (`__cxa_guard_acquire`) does not
/// serialise two RTOS tasks unless the C library was built with a thread model, and its
/// destructor is registered at first use (`__aeabi_atexit`, `__dso_handle`), which a program
/// linked without start files has to provide although it never exits. Here the storage and the
/// state word are constant-initialised (zero), so neither a guard nor a registration exists.
///
/// How two first calls agree:
/// - single-core build with a critical section: the check and the construction run inside it,
///   so the second caller finds the object built (interrupts are masked while the object is
///   constructed: a bus constructor zeroes its memory, so for a large bus make the first call
///   before interrupts matter, e.g. in main before the scheduler starts);
/// - otherwise: a CAS elects the builder; a loser spins until the builder marks the object
///   ready. Correct on several cores; on one core without a critical section a loser that
///   preempted the builder would spin forever, so such programs make the first call early.
#ifndef MCCC_DETAIL_STATIC_INSTANCE_HPP_
#define MCCC_DETAIL_STATIC_INSTANCE_HPP_

#include <atomic>
#include <cstdint>
#include <new>

#include "mccc/config.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/cpu_relax.hpp"
#include "mccc/platform/critical_section.hpp"

namespace mccc {
namespace detail {

/// @brief The one `T` of the program, default-constructed on the first Get(). Thread-safe,
/// interrupt-safe with a critical section; never destroyed.
template <typename T, bool kSingleCore, typename CriticalSection>
class StaticInstance {
 public:
  static T& Get() noexcept {
    // acquire: pairs with the release store of kReady in Build (the object is fully built).
    if (MCCC_LIKELY(LoadAcquire<kSingleCore>(State()) == kReady)) {
      return *Object();
    }
    return Build();
  }

 private:
  static constexpr uint8_t kEmpty = 0U;
  static constexpr uint8_t kBuilding = 1U;
  static constexpr uint8_t kReady = 2U;

  // Function-local statics of trivial types with constant initialisers: zero-initialised
  // before any code runs, no guard.
  static std::atomic<uint8_t>& State() noexcept {
    static std::atomic<uint8_t> state{kEmpty};
    return state;
  }
  static unsigned char* Storage() noexcept {
    // cppcheck-suppress unassignedVariable ; deviation D-01: written by placement new in Build
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
    alignas(T) static unsigned char storage[sizeof(T)];
    // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-array-to-pointer-decay): deviation D-03
    return storage;
  }
  static T* Object() noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
    return std::launder(reinterpret_cast<T*>(Storage()));
  }

  MCCC_NOINLINE static T& Build() noexcept {
    std::atomic<uint8_t>& state = State();
    if constexpr (kRmwInCriticalSection<kSingleCore, CriticalSection>) {
      const CriticalSectionGuard<CriticalSection> section;
      // relaxed: inside the section nobody else runs on this core.
      if (state.load(std::memory_order_relaxed) == kEmpty) {
        ::new (static_cast<void*>(Storage())) T();
        // release: pairs with Get's acquire load (the object is built before it is seen ready).
        StoreRelease<kSingleCore>(state, kReady);
      }
    } else {
      // One election per pass. A pass ends with the object ready, or with the state still
      // kEmpty after a spurious failure of the weak CAS: then the election runs again.
      while (true) {
        uint8_t expected = kEmpty;
        if (CasWeakSeqCst<kSingleCore>(state, expected, kBuilding)) {
          ::new (static_cast<void*>(Storage())) T();
          // release: pairs with the acquire loads of Get and of the losers below.
          StoreRelease<kSingleCore>(state, kReady);
          break;
        }
        // Another caller is building it (or the weak CAS failed spuriously).
        // acquire: pairs with the builder's release store of kReady.
        uint8_t now = LoadAcquire<kSingleCore>(state);
        while (now == kBuilding) {
          CpuRelax();
          now = LoadAcquire<kSingleCore>(state);  // acquire: as above
        }
        if (now == kReady) {
          break;
        }
      }
    }
    return *Object();
  }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_STATIC_INSTANCE_HPP_
