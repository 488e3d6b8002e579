// SPDX-License-Identifier: MIT
/// @file tsc_source.hpp
/// @brief The x86 time-stamp counter as a counter source for BasicTscClock (tsc_clock.hpp): the
/// ordered counter read, the reference clock, and whether the counter can be trusted.
#ifndef MCCC_CLOCK_TSC_SOURCE_HPP_
#define MCCC_CLOCK_TSC_SOURCE_HPP_

#include <cstdint>

#include "mccc/config.hpp"

#if MCCC_HOSTED && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06 (platform selection)
#define MCCC_HAS_TSC_SOURCE 1
#include <cpuid.h>

#include <array>
#include <chrono>
#include <cstring>
#if defined(__linux__)
#include <fcntl.h>
#include <unistd.h>
#endif
#else
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06 (platform selection)
#define MCCC_HAS_TSC_SOURCE 0
#endif

namespace mccc {
namespace detail {

/// @brief What a counter source says about its counter.
enum class CounterVerdict : uint8_t {
  kTrusted,    ///< Invariant and synchronised across CPUs: convert it.
  kUntrusted,  ///< Do not use it (any more).
  kUnknown,    ///< Could not tell (e.g. the verdict could not be read): keep the current state.
};

#if MCCC_HAS_TSC_SOURCE
/// @brief The x86 time-stamp counter, steady_clock as its reference. Thread-safe; every member
/// is async-signal-safe (no allocation, no lock; Check uses open/read/close only).
struct TscSource {
  /// @brief The counter, read only after every earlier instruction has executed and every
  /// earlier load has completed. `rdtsc` alone may execute before an earlier load, so a thread
  /// could stamp a time earlier than a value it has just received from another thread. `rdtscp`
  /// waits for earlier instructions and loads on both vendors (Intel SDM: "waits until all
  /// previous instructions have executed and all previous loads are globally visible"; AMD APM:
  /// it "forces all older instructions to retire"), whereas `lfence; rdtsc` gives that order on
  /// AMD only when the operating system has set the model-specific bit that makes LFENCE
  /// dispatch-serialising, which a user program cannot check. Later instructions may still run
  /// before it; nothing after the counter read needs ordering (tsc_timeline.hpp).
  MCCC_ALWAYS_INLINE static uint64_t Ticks() noexcept {
    uint32_t low = 0U;
    uint32_t high = 0U;
    // ECX receives IA32_TSC_AUX, unused. The "memory" clobber keeps the compiler, too, from
    // moving earlier loads below the instruction.
#if defined(__x86_64__)
    // NOLINTNEXTLINE(hicpp-no-assembler): deviation D-04 (cycle counter)
    __asm__ __volatile__("rdtscp" : "=a"(low), "=d"(high) : : "rcx", "memory");
#else
    // NOLINTNEXTLINE(hicpp-no-assembler): deviation D-04 (cycle counter)
    __asm__ __volatile__("rdtscp" : "=a"(low), "=d"(high) : : "ecx", "memory");
#endif
    return (static_cast<uint64_t>(high) << 32U) | low;
  }

  /// @brief Nanoseconds of the reference clock (steady_clock).
  static uint64_t ReferenceNs() noexcept {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }

  /// @brief Whether the counter can be converted: the CPU has `rdtscp`, and on Linux the kernel
  /// itself runs on the `tsc` clocksource (it checked at boot that the counter is invariant and
  /// synchronised across CPUs, and its watchdog switches away if the counter later misbehaves,
  /// which is why BasicTscClock asks again from time to time); elsewhere CPUID reports an
  /// invariant counter. After the first call, one open/read/close of a sysfs file on Linux
  /// (a few microseconds), nothing elsewhere.
  static CounterVerdict Check() noexcept {
    // CPUID once: its answer cannot change, and a hypervisor traps every CPUID.
    static const CounterVerdict processor = ProcessorVerdict();
    if (processor != CounterVerdict::kTrusted) {
      return processor;
    }
#if defined(__linux__)
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg): deviation D-05 (sysfs read)
    const int fd = ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                          O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return CounterVerdict::kUnknown;
    }
    std::array<char, 8> name{};
    const ssize_t length = ::read(fd, name.data(), name.size());
    static_cast<void>(::close(fd));  // read-only: nothing to lose if close reports an error
    if (length <= 0) {
      return CounterVerdict::kUnknown;
    }
    return length >= 4 && std::memcmp(name.data(), "tsc\n", 4U) == 0 ? CounterVerdict::kTrusted
                                                                     : CounterVerdict::kUntrusted;
#else
    return processor;
#endif
  }

 private:
  /// What CPUID says: `rdtscp` present (leaf 0x80000001, EDX bit 27) and, where no kernel
  /// verdict is read, an invariant counter (leaf 0x80000007, EDX bit 8: constant rate in every
  /// P-, C- and T-state).
  static CounterVerdict ProcessorVerdict() noexcept {
    unsigned eax = 0U;
    unsigned ebx = 0U;
    unsigned ecx = 0U;
    unsigned edx = 0U;
    if (__get_cpuid(0x80000001U, &eax, &ebx, &ecx, &edx) == 0 || (edx & (1U << 27U)) == 0U) {
      return CounterVerdict::kUntrusted;
    }
#if !defined(__linux__)
    if (__get_cpuid(0x80000007U, &eax, &ebx, &ecx, &edx) == 0 || (edx & (1U << 8U)) == 0U) {
      return CounterVerdict::kUntrusted;
    }
#endif
    return CounterVerdict::kTrusted;
  }
};
#endif

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_CLOCK_TSC_SOURCE_HPP_
