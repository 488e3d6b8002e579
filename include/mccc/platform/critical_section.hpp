// SPDX-License-Identifier: MIT
/// @file critical_section.hpp
/// @brief The critical-section hook of single-core builds: how a bus keeps interrupt handlers
/// (and, under an RTOS, other tasks) out of a short sequence of instructions.
///
/// A critical section type has two static members:
/// @code
/// struct MyCriticalSection {
///   static State Enter() noexcept;      // masks interrupts; returns what Exit needs to restore
///   static void Exit(State) noexcept;   // restores exactly the state Enter saw (nests)
/// };
/// @endcode
/// `State` is any trivially copyable type (the PRIMASK word on Cortex-M, a saved interrupt level
/// elsewhere). Enter/Exit must nest: an inner Enter inside an outer one returns "masked" and its
/// Exit keeps interrupts masked.
///
/// A single-core bus (Traits::kSingleCore) with a critical section uses it
/// - instead of every atomic read-modify-write (CAS, fetch-add, exchange): a relaxed load and a
///   relaxed store inside the section. Cores without such instructions (Cortex-M0/M0+, ARMv6-M)
///   then need no library support at all, and each operation becomes wait-free;
/// - instead of the spin lock of Subscribe, Unsubscribe, ResetStatistics and the components, so
///   those calls never wait for a holder they have interrupted (safe from an interrupt handler
///   or a higher-priority task).
/// A critical section masks interrupts only for a bounded number of instructions (no loop
/// depends on another thread, and no callable is run or destroyed inside one).
#ifndef MCCC_PLATFORM_CRITICAL_SECTION_HPP_
#define MCCC_PLATFORM_CRITICAL_SECTION_HPP_

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace mccc {

/// @brief "No critical section": atomic read-modify-writes and a spin lock are used instead.
struct NoCriticalSection {};

#if defined(__arm__) && defined(__ARM_ARCH_PROFILE) && (__ARM_ARCH_PROFILE == 'M')
/// @brief Cortex-M (any ARMv6-M/ARMv7-M/ARMv8-M core): masks every configurable-priority
/// interrupt through PRIMASK and restores the previous PRIMASK on exit, so sections nest and an
/// interrupt handler may use one too. NMI and HardFault are not masked (they must not publish).
struct PrimaskCriticalSection {
  /// @brief Saves PRIMASK and masks interrupts. The "memory" clobbers keep the compiler from
  /// moving memory accesses out of the section.
  static std::uint32_t Enter() noexcept {
    std::uint32_t saved = 0U;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(saved) : : "memory");
    return saved;
  }
  /// @brief Restores the PRIMASK value Enter saved (interrupts stay masked in a nested section).
  static void Exit(std::uint32_t saved) noexcept {
    __asm__ volatile("msr primask, %0" : : "r"(saved) : "memory");
  }
};

/// @brief The critical section DefaultBusTraits uses: PRIMASK on Cortex-M.
using DefaultCriticalSection = PrimaskCriticalSection;
#else
/// @brief The critical section DefaultBusTraits uses: none on this target (supply one in the bus
/// traits of a single-core build whose core lacks atomic read-modify-write instructions).
using DefaultCriticalSection = NoCriticalSection;
#endif

namespace detail {

/// @brief True when `CriticalSection` is a real hook (not NoCriticalSection).
template <typename CriticalSection>
inline constexpr bool kHasCriticalSection = !std::is_same_v<CriticalSection, NoCriticalSection>;

/// @brief Checks the shape of a critical-section hook (used in static_asserts).
template <typename CriticalSection, typename = void>
struct IsCriticalSectionHook : std::false_type {};

template <typename CriticalSection>
struct IsCriticalSectionHook<CriticalSection,
                             std::void_t<decltype(CriticalSection::Enter()),
                                         decltype(CriticalSection::Exit(CriticalSection::Enter()))>>
    : std::bool_constant<
          std::is_trivially_copyable_v<decltype(CriticalSection::Enter())>&& noexcept(
              CriticalSection::
                  Enter())&& noexcept(CriticalSection::Exit(CriticalSection::Enter()))> {};

/// @brief Holds a critical section for its scope. The compiler-only fences keep every memory
/// access of the scope inside the section even when the hook's functions are inlined without a
/// compiler barrier of their own (on one core, program order is all that must be kept).
template <typename CriticalSection>
class CriticalSectionGuard {
 public:
  CriticalSectionGuard() noexcept : saved_(CriticalSection::Enter()) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~CriticalSectionGuard() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    CriticalSection::Exit(saved_);
  }
  CriticalSectionGuard(const CriticalSectionGuard&) = delete;
  CriticalSectionGuard& operator=(const CriticalSectionGuard&) = delete;
  CriticalSectionGuard(CriticalSectionGuard&&) = delete;
  CriticalSectionGuard& operator=(CriticalSectionGuard&&) = delete;

 private:
  const decltype(CriticalSection::Enter()) saved_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_PLATFORM_CRITICAL_SECTION_HPP_
