// SPDX-License-Identifier: MIT
/// @file idle_strategy.hpp
/// @brief What a consumer loop does when a poll of the bus finds nothing: spin, yield the CPU,
/// or sleep until a producer publishes.
///
/// The trade-off is latency against CPU time:
/// - busy spin: lowest wake-up latency (the next poll sees the message), one core at 100%;
/// - spin then yield: low latency, gives the core to other runnable threads, but an idle
///   consumer still runs (a yield with nothing else runnable returns at once);
/// - spin then yield then sleep: after a burst the consumer stays hot for a short while (so a
///   follow-up message costs no wake-up), then sleeps in the kernel until the next publish. An
///   idle consumer costs (almost) no CPU; producers pay no system call while it is awake.
///
/// IdleBackoff is only the policy (a counter of consecutive empty polls); the consumer loop
/// (e.g. mccc::ActiveObject) performs the action it returns. Keeping the policy free of threads
/// and clocks lets it compile everywhere and be tested without timing.
#ifndef MCCC_COMPONENTS_IDLE_STRATEGY_HPP_
#define MCCC_COMPONENTS_IDLE_STRATEGY_HPP_

#include <cstdint>

#include "mccc/config.hpp"
#include "mccc/detail/cpu_relax.hpp"
#include "mccc/detail/timeout_micros.hpp"

#if MCCC_HOSTED
#include <chrono>
#endif

namespace mccc {

/// @brief The three idle behaviours of a consumer loop (see the file comment).
enum class IdleMode : uint8_t {
  kBusySpin = 0U,                ///< Always poll again at once (with a CPU relax hint).
  kSpinThenYield = 1U,           ///< Spin `spin_polls` empty polls, then yield on every poll.
  kSpinThenYieldThenSleep = 2U,  ///< Spin, then yield `yield_polls` times, then sleep.
};

/// @brief What the loop should do after an empty poll.
enum class IdleAction : uint8_t {
  kSpin = 0U,   ///< Poll again after a CPU relax hint (CpuRelax()).
  kYield = 1U,  ///< Give the CPU to another runnable thread, then poll again.
  kSleep = 2U,  ///< Sleep until a producer publishes or IdleBackoff::SleepTimeoutUs() passes.
};

/// @brief Configuration of the idle behaviour: the mode plus the counts and the sleep bound.
///
/// A value type; build it with the named constructors, then adjust fields if needed:
/// @code
///   mccc::IdleStrategy idle = mccc::IdleStrategy::SpinThenYieldThenSleep();
///   idle.max_sleep_us = 50000U;  // re-check at least every 50 ms even without a publish
///   // Hosted builds also take a std::chrono duration (rounded up to whole microseconds):
///   idle =
///   mccc::IdleStrategy::SpinThenYieldThenSleep().WithMaxSleep(std::chrono::milliseconds(50));
/// @endcode
/// Thread-safety: a plain value; copy it freely.
struct IdleStrategy {
  /// Default number of empty polls spent spinning: roughly 5-50 microseconds, depending on the
  /// CPU's spin-hint latency; long enough to catch the next message of a burst without a yield
  /// or a wake-up.
  static constexpr uint32_t kDefaultSpinPolls = 1000U;
  /// Default number of empty polls spent yielding before sleeping (each yield is one system
  /// call, about 0.2-2 microseconds when no other thread is runnable).
  static constexpr uint32_t kDefaultYieldPolls = 100U;
  /// Default upper bound of one sleep. Sleeps end early when a producer publishes; the bound
  /// only limits how long a lost wake-up (a misuse, see AsyncBus::WaitForMessages) could delay
  /// a message. 100 ms means at most 10 spurious wake-ups per second when idle.
  static constexpr uint32_t kDefaultMaxSleepUs = 100000U;

  /// The behaviour.
  IdleMode mode = IdleMode::kSpinThenYieldThenSleep;
  /// Consecutive empty polls answered with kSpin before the next phase (ignored by kBusySpin).
  uint32_t spin_polls = kDefaultSpinPolls;
  /// Consecutive empty polls answered with kYield before sleeping (kSpinThenYieldThenSleep only).
  uint32_t yield_polls = kDefaultYieldPolls;
  /// Longest single sleep in microseconds (kSpinThenYieldThenSleep only). Must be > 0: a loop
  /// that "sleeps" 0 us would make a system call per poll (ActiveObject::Start refuses it).
  uint32_t max_sleep_us = kDefaultMaxSleepUs;

  /// @brief Never yield or sleep: lowest latency, one core at 100% even when idle.
  static constexpr IdleStrategy BusySpin() noexcept {
    return IdleStrategy{IdleMode::kBusySpin, 0U, 0U, kDefaultMaxSleepUs};
  }

  /// @brief Spin `spin_polls` empty polls, then yield on every further empty poll.
  static constexpr IdleStrategy SpinThenYield(uint32_t spin_polls = kDefaultSpinPolls) noexcept {
    return IdleStrategy{IdleMode::kSpinThenYield, spin_polls, 0U, kDefaultMaxSleepUs};
  }

  /// @brief Spin, then yield, then sleep until the next publish (or `max_sleep_us`).
  static constexpr IdleStrategy SpinThenYieldThenSleep(
      uint32_t spin_polls = kDefaultSpinPolls, uint32_t yield_polls = kDefaultYieldPolls,
      uint32_t max_sleep_us = kDefaultMaxSleepUs) noexcept {
    return IdleStrategy{IdleMode::kSpinThenYieldThenSleep, spin_polls, yield_polls, max_sleep_us};
  }

#if MCCC_HOSTED
  /// @brief SpinThenYieldThenSleep with the sleep bound as a std::chrono duration, converted by
  /// the rule of AsyncBus::WaitForMessages (detail/timeout_micros.hpp): rounded up to whole
  /// microseconds, saturated at UINT32_MAX us; zero or negative give max_sleep_us 0, which
  /// IsValid() refuses. Hosted builds only (<chrono>).
  template <class Rep, class Period>
  static constexpr IdleStrategy SpinThenYieldThenSleep(
      uint32_t spin_polls, uint32_t yield_polls,
      std::chrono::duration<Rep, Period> max_sleep) noexcept {
    return SpinThenYieldThenSleep(spin_polls, yield_polls, detail::TimeoutMicros(max_sleep));
  }

  /// @brief A copy with `max_sleep` as the sleep bound, converted as above:
  /// `IdleStrategy::SpinThenYieldThenSleep().WithMaxSleep(std::chrono::milliseconds(50))`.
  template <class Rep, class Period>
  constexpr IdleStrategy WithMaxSleep(std::chrono::duration<Rep, Period> max_sleep) const noexcept {
    IdleStrategy copy = *this;
    copy.max_sleep_us = detail::TimeoutMicros(max_sleep);
    return copy;
  }

  /// @brief max_sleep_us as a std::chrono duration. Hosted builds only.
  constexpr std::chrono::microseconds MaxSleep() const noexcept {
    return std::chrono::microseconds(max_sleep_us);
  }
#endif

  /// @brief False for a configuration a loop must refuse: a sleeping mode with max_sleep_us 0,
  /// or a mode value that is not an IdleMode enumerator.
  constexpr bool IsValid() const noexcept {
    switch (mode) {
      case IdleMode::kBusySpin:
      case IdleMode::kSpinThenYield:
        return true;
      case IdleMode::kSpinThenYieldThenSleep:
        return max_sleep_us > 0U;
    }
    return false;
  }
};

/// @brief The idle policy of one consumer loop: counts consecutive empty polls and says what to
/// do after each. Reset it whenever a poll found work.
///
/// Once the last phase is reached it stays there until Reset: after a sleep that timed out
/// without work the loop sleeps again at once instead of spinning, which is what keeps an idle
/// consumer below a fraction of a percent of a core.
///
/// Not thread-safe: owned by the consumer loop.
class IdleBackoff {
 public:
  /// @brief A policy for `strategy` (copied), starting with no empty polls.
  explicit constexpr IdleBackoff(const IdleStrategy& strategy) noexcept
      : mode_(strategy.mode),
        spin_limit_(strategy.spin_polls),
        // 64-bit sum: the two 32-bit counts cannot overflow it.
        yield_limit_(static_cast<uint64_t>(strategy.spin_polls) + strategy.yield_polls),
        sleep_timeout_us_(strategy.max_sleep_us) {}

  /// @brief The action for the current empty poll; advances the count. Not thread-safe.
  constexpr IdleAction OnEmptyPoll() noexcept {
    switch (mode_) {
      case IdleMode::kBusySpin:
        return IdleAction::kSpin;
      case IdleMode::kSpinThenYield:
        if (empty_polls_ < spin_limit_) {
          ++empty_polls_;
          return IdleAction::kSpin;
        }
        return IdleAction::kYield;
      case IdleMode::kSpinThenYieldThenSleep:
        if (empty_polls_ < spin_limit_) {
          ++empty_polls_;
          return IdleAction::kSpin;
        }
        if (empty_polls_ < yield_limit_) {
          ++empty_polls_;
          return IdleAction::kYield;
        }
        return IdleAction::kSleep;
    }
    return IdleAction::kSpin;  // not an enumerator: never sleeps (IdleStrategy::IsValid)
  }

  /// @brief A poll found work: the next empty poll starts the first phase again.
  /// Not thread-safe.
  constexpr void Reset() noexcept { empty_polls_ = 0U; }

  /// @brief The timeout to pass to the sleep (IdleStrategy::max_sleep_us). Not thread-safe.
  constexpr uint32_t SleepTimeoutUs() const noexcept { return sleep_timeout_us_; }

 private:
  IdleMode mode_;
  uint64_t spin_limit_;
  uint64_t yield_limit_;
  uint32_t sleep_timeout_us_;
  // Saturates at yield_limit_ (the counter stops once the last phase is reached).
  uint64_t empty_polls_ = 0U;
};

}  // namespace mccc

#endif  // MCCC_COMPONENTS_IDLE_STRATEGY_HPP_
