// SPDX-License-Identifier: MIT
/// @file config.hpp
/// @brief Compile-time defaults (the `MCCC_*` macros) and platform facts.
///
/// Every `MCCC_*` macro below only sets the default of a member of `mccc::DefaultBusTraits`
/// (see traits.hpp). Per-bus choices belong in a traits struct, so two buses in one program may
/// differ and nothing depends on include order. Define a macro before the first mccc include (or
/// on the compiler command line) to change the default for every bus that does not override it.
#ifndef MCCC_CONFIG_HPP_
#define MCCC_CONFIG_HPP_

#include <cstddef>
#include <cstdint>

// The MCCC_* defaults below are the documented configuration interface: object-like macros so
// that a build can set them with -D, each read once into DefaultBusTraits (traits.hpp).
// NOLINTBEGIN(cppcoreguidelines-macro-usage): deviation D-06 (configuration macros)

// ---------------------------------------------------------------------------------------------
// Capacity and limits
// ---------------------------------------------------------------------------------------------

/// Ring capacity in messages (power of two). Memory: capacity * sizeof(slot).
#ifndef MCCC_QUEUE_DEPTH
#define MCCC_QUEUE_DEPTH 131072U
#endif

/// Largest number of alternatives a bus payload variant may have.
#ifndef MCCC_MAX_MESSAGE_TYPES
#define MCCC_MAX_MESSAGE_TYPES 32U
#endif

/// Callback slots per message type (a subscription beyond this returns an invalid handle).
#ifndef MCCC_MAX_CALLBACKS_PER_TYPE
#define MCCC_MAX_CALLBACKS_PER_TYPE 16U
#endif

/// Subscriptions one `mccc::Component` can own.
#ifndef MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT
#define MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT 16U
#endif

/// Messages one `ProcessBatch` call dispatches at most.
#ifndef MCCC_BATCH_SIZE
#define MCCC_BATCH_SIZE 1024U
#endif

/// Bytes of inline storage for one subscriber callback.
#ifndef MCCC_CALLBACK_STORAGE_BYTES
#define MCCC_CALLBACK_STORAGE_BYTES 64U
#endif

// ---------------------------------------------------------------------------------------------
// Platform facts
// ---------------------------------------------------------------------------------------------

/// Destructive-interference size used to separate producer-written and consumer-written data.
#ifndef MCCC_CACHELINE_SIZE
#define MCCC_CACHELINE_SIZE 64U
#endif

/// 1 = the wait-free single-producer path (no CAS); only one thread may publish at a time.
#ifndef MCCC_SINGLE_PRODUCER
#define MCCC_SINGLE_PRODUCER 0
#endif

/// 1 = single-core MCU build: relaxed atomics plus compiler (signal) fences, no cache-line
/// padding. Wrong on any multi-core machine, hence the explicit acknowledgement below.
#ifndef MCCC_SINGLE_CORE
#define MCCC_SINGLE_CORE 0
#endif

#ifndef MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE
#define MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE 0
#endif

#if MCCC_SINGLE_CORE && !MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE
#error \
    "MCCC_SINGLE_CORE=1 replaces hardware memory barriers with compiler fences; it is only correct on a single-core CPU (producers in ISRs or cooperative tasks). Define MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE=1 to confirm."
#endif

/// Exceptions: detected from the compiler (`-fno-exceptions` turns them off). When on, a
/// callback that throws is caught and counted as a processing error.
#ifndef MCCC_HAS_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define MCCC_HAS_EXCEPTIONS 1
#else
#define MCCC_HAS_EXCEPTIONS 0
#endif
#endif

/// Hosted platform with an OS (threads, a monotonic clock). Bare-metal targets get 0, which
/// keeps <chrono>, <thread> and the futex wake-up out of the build.
#ifndef MCCC_HOSTED
#if defined(__linux__) || defined(_WIN32) || defined(__APPLE__) || defined(__unix__)
#define MCCC_HOSTED 1
#else
#define MCCC_HOSTED 0
#endif
#endif

/// Slots of the HIGH ring: a ring of its own for HIGH messages, dispatched before any queued
/// LOW/MEDIUM message (power of two; 0 = HIGH shares the normal ring). Hosted default 1024: a burst
/// of a thousand emergency messages fits while the consumer is inside one long callback, for
/// under 1 % of the default ring's memory. Bare-metal default 16: a few slots of scarce RAM.
#ifndef MCCC_HIGH_QUEUE_DEPTH
#if MCCC_HOSTED
#define MCCC_HIGH_QUEUE_DEPTH 1024U
#else
#define MCCC_HIGH_QUEUE_DEPTH 16U
#endif
#endif

/// 1 = DefaultBusTraits stores compact envelopes (sender, priority, the timestamp unless the clock
/// is NullClock, the payload; no msg_id), 0 = the full MessageEnvelope. Default 1 on bare metal,
/// where a slot's bytes are multiplied by the queue depth in scarce RAM; 0 on hosted targets.
#ifndef MCCC_COMPACT_ENVELOPE
#if MCCC_HOSTED
#define MCCC_COMPACT_ENVELOPE 0
#else
#define MCCC_COMPACT_ENVELOPE 1
#endif
#endif

/// Producer lanes: rings of their own for the first N publishing threads (0 = one shared ring).
#ifndef MCCC_PRODUCER_LANES
#define MCCC_PRODUCER_LANES 0U
#endif

/// Slots of each producer lane (power of two).
#ifndef MCCC_LANE_DEPTH
#define MCCC_LANE_DEPTH 4096U
#endif

/// 1 = DefaultBusTraits timestamps with SteadyClock (a clock_gettime per publish) even on x86,
/// where the default is TscClock (steady_clock's time line read from the cycle counter).
#ifndef MCCC_DEFAULT_CLOCK_STEADY
#define MCCC_DEFAULT_CLOCK_STEADY 0
#endif

/// Test-only hooks (initial ring position, a pause between claiming a slot and publishing it).
/// Compiled out of normal builds; the reliability tests define MCCC_ENABLE_TEST_HOOKS=1.
#ifndef MCCC_ENABLE_TEST_HOOKS
#define MCCC_ENABLE_TEST_HOOKS 0
#endif

/// 1 when compiled with ThreadSanitizer, which does not model std::atomic_thread_fence (g++ warns
/// with -Wtsan): fences are then expressed as read-modify-writes, which TSan understands.
#ifndef MCCC_TSAN
#if defined(__SANITIZE_THREAD__)
#define MCCC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MCCC_TSAN 1
#endif
#endif
#endif
#ifndef MCCC_TSAN
#define MCCC_TSAN 0
#endif

/// 1 = the consumer marks its dispatch batches with plain stores and Unsubscribe pays a
/// process-wide barrier instead (Linux membarrier; detail/asymmetric_fence.hpp). 0 = the consumer
/// pays one seq_cst read-modify-write per batch and Unsubscribe no system call. Default: 1 on
/// hosted Linux, except under ThreadSanitizer, which cannot see that barrier.
#ifndef MCCC_ASYMMETRIC_FENCE
#if MCCC_HOSTED && defined(__linux__) && !MCCC_TSAN
#define MCCC_ASYMMETRIC_FENCE 1
#else
#define MCCC_ASYMMETRIC_FENCE 0
#endif
#endif
#if MCCC_ASYMMETRIC_FENCE && !defined(__linux__)
#error "mccc: MCCC_ASYMMETRIC_FENCE=1 needs Linux (membarrier); set it to 0 on this platform"
#endif

// ---------------------------------------------------------------------------------------------
// Assertions: on in debug builds (NDEBUG undefined) unless MCCC_ENABLE_ASSERTS says otherwise.
// ---------------------------------------------------------------------------------------------
#ifndef MCCC_ENABLE_ASSERTS
#ifdef NDEBUG
#define MCCC_ENABLE_ASSERTS 0
#else
#define MCCC_ENABLE_ASSERTS 1
#endif
#endif
// NOLINTEND(cppcoreguidelines-macro-usage)

// NOLINTBEGIN(cppcoreguidelines-macro-usage): deviation D-08 (the assertion macro)
#if MCCC_ENABLE_ASSERTS
#if MCCC_HOSTED
#include <cstdio>
#include <cstdlib>
namespace mccc {
namespace detail {
/// @brief What a failed hosted MCCC_ASSERT does: one message on stderr, then abort. A function
/// rather than macro text, so the C I/O call exists once and not at every assertion.
[[noreturn]] inline void AssertionFailed(const char* message, const char* condition,
                                         const char* file, int line) noexcept {
  // The program aborts next, so a failed write has no better fallback.
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg): deviation D-20 (stderr report)
  static_cast<void>(std::fprintf(stderr, "mccc assertion failed: %s\n  (%s) at %s:%d\n", message,
                                 condition, file, line));
  std::abort();
}
}  // namespace detail
}  // namespace mccc
#define MCCC_ASSERT(cond, msg)                                           \
  do {                                                                   \
    if (!(cond)) {                                                       \
      ::mccc::detail::AssertionFailed((msg), #cond, __FILE__, __LINE__); \
    }                                                                    \
  } while (false)
#else
#define MCCC_ASSERT(cond, msg) \
  do {                         \
    if (!(cond)) {             \
      __builtin_trap();        \
    }                          \
  } while (false)
#endif
#else
#define MCCC_ASSERT(cond, msg)       \
  do {                               \
    static_cast<void>(sizeof(cond)); \
  } while (false)
#endif
// NOLINTEND(cppcoreguidelines-macro-usage)

// ---------------------------------------------------------------------------------------------
// One configuration per program. The macros above shape DefaultBusTraits and the layout of every
// bus (asserts and test hooks add members), so two translation units that see different values
// would share one `AsyncBus<Payload>` type, one Instance() object and one copy of each inline
// function while disagreeing on all of them (an ODR violation that crashes). Every translation
// unit therefore emits the same one-byte symbol inside a COMDAT group named after its
// configuration: identical configurations fold into one group, different ones keep both groups
// and the linker stops with "multiple definition of
// `mccc_configuration_macros_differ_between_translation_units'", naming both configurations in
// the section names. Define the MCCC_* macros identically everywhere, best on the compiler
// command line (target_compile_definitions). Spell each value the same way in every unit: the
// check compares the macros' text. Static linking on ELF targets (GCC, Clang); a shared library
// does not check against its host program.
// ---------------------------------------------------------------------------------------------
// NOLINTBEGIN(cppcoreguidelines-macro-usage): deviations D-06, D-08 (the configuration check)
#define MCCC_DETAIL_STRINGIFY_TEXT(x) #x
#define MCCC_DETAIL_STRINGIFY(x) MCCC_DETAIL_STRINGIFY_TEXT(x)
// clang-format off
#define MCCC_CONFIGURATION_KEY                                                       \
  "depth=" MCCC_DETAIL_STRINGIFY(MCCC_QUEUE_DEPTH)                                   \
  ",types=" MCCC_DETAIL_STRINGIFY(MCCC_MAX_MESSAGE_TYPES)                            \
  ",callbacks=" MCCC_DETAIL_STRINGIFY(MCCC_MAX_CALLBACKS_PER_TYPE)                   \
  ",component_subscriptions=" MCCC_DETAIL_STRINGIFY(MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT) \
  ",batch=" MCCC_DETAIL_STRINGIFY(MCCC_BATCH_SIZE)                                   \
  ",high_depth=" MCCC_DETAIL_STRINGIFY(MCCC_HIGH_QUEUE_DEPTH)                        \
  ",lanes=" MCCC_DETAIL_STRINGIFY(MCCC_PRODUCER_LANES)                               \
  ",lane_depth=" MCCC_DETAIL_STRINGIFY(MCCC_LANE_DEPTH)                              \
  ",compact=" MCCC_DETAIL_STRINGIFY(MCCC_COMPACT_ENVELOPE)                           \
  ",callback_bytes=" MCCC_DETAIL_STRINGIFY(MCCC_CALLBACK_STORAGE_BYTES)              \
  ",line=" MCCC_DETAIL_STRINGIFY(MCCC_CACHELINE_SIZE)                                \
  ",single_producer=" MCCC_DETAIL_STRINGIFY(MCCC_SINGLE_PRODUCER)                    \
  ",single_core=" MCCC_DETAIL_STRINGIFY(MCCC_SINGLE_CORE)                            \
  ",hosted=" MCCC_DETAIL_STRINGIFY(MCCC_HOSTED)                                      \
  ",steady_clock=" MCCC_DETAIL_STRINGIFY(MCCC_DEFAULT_CLOCK_STEADY)                  \
  ",asymmetric_fence=" MCCC_DETAIL_STRINGIFY(MCCC_ASYMMETRIC_FENCE)                  \
  ",asserts=" MCCC_DETAIL_STRINGIFY(MCCC_ENABLE_ASSERTS)                             \
  ",test_hooks=" MCCC_DETAIL_STRINGIFY(MCCC_ENABLE_TEST_HOOKS)
// clang-format on
// NOLINTEND(cppcoreguidelines-macro-usage)

#if defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
// "%progbits" rather than "@progbits": '@' starts a comment in the Arm assembler.
// NOLINTNEXTLINE(hicpp-no-assembler): deviation D-04 (assembler directives, no instructions)
__asm__(
    ".pushsection .mccc_configuration,\"aG\",%progbits,\"mccc_configuration:" MCCC_CONFIGURATION_KEY
    "\",comdat\n"
    ".globl mccc_configuration_macros_differ_between_translation_units\n"
    ".hidden mccc_configuration_macros_differ_between_translation_units\n"
    "mccc_configuration_macros_differ_between_translation_units:\n"
    ".byte 0\n"
    ".popsection\n");
#elif defined(_MSC_VER)
#pragma detect_mismatch("mccc_configuration", MCCC_CONFIGURATION_KEY)
#endif

// NOLINTBEGIN(cppcoreguidelines-macro-usage): deviations D-04, D-08 (compiler hints)
#if defined(__GNUC__) || defined(__clang__)
#define MCCC_LIKELY(x) __builtin_expect(!!(x), 1)
#define MCCC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MCCC_ALWAYS_INLINE inline __attribute__((always_inline))
#define MCCC_NOINLINE __attribute__((noinline))
#else
#define MCCC_LIKELY(x) (x)
#define MCCC_UNLIKELY(x) (x)
#define MCCC_ALWAYS_INLINE inline
#define MCCC_NOINLINE
#endif
// NOLINTEND(cppcoreguidelines-macro-usage)

#endif  // MCCC_CONFIG_HPP_
