// SPDX-License-Identifier: MIT
// The std::chrono forms of the consumer's timeouts: AsyncBus::WaitForMessages(duration) and
// IdleStrategy's sleep bound, both converted by detail::TimeoutMicros (rounded up to whole
// microseconds, saturated at UINT32_MAX, zero or negative -> 0). A ConsumerWait hook records the
// timeout the bus hands on, so every check is exact and nothing depends on timing.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <ratio>
#include <variant>

#include "mccc/detail/timeout_micros.hpp"
#include "mccc/mccc.hpp"

namespace {

using mccc::detail::TimeoutMicros;
using std::chrono::duration;
using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

constexpr uint32_t kMax = std::numeric_limits<uint32_t>::max();

// The rule, checked at compile time.
// Rounded up, never down: a wait is never shorter than asked.
static_assert(TimeoutMicros(nanoseconds(1)) == 1U);
static_assert(TimeoutMicros(nanoseconds(999)) == 1U);
static_assert(TimeoutMicros(nanoseconds(1000)) == 1U);
static_assert(TimeoutMicros(nanoseconds(1001)) == 2U);
static_assert(TimeoutMicros(nanoseconds(1500)) == 2U);
static_assert(TimeoutMicros(duration<double, std::micro>(1.5)) == 2U);
static_assert(TimeoutMicros(duration<int64_t, std::pico>(1)) == 1U);
static_assert(TimeoutMicros(duration<int64_t, std::pico>(1000001)) == 2U);
static_assert(TimeoutMicros(duration<int32_t, std::ratio<1, 3>>(1)) == 333334U);  // 333333.3 us
// Whole units convert exactly.
static_assert(TimeoutMicros(microseconds(1)) == 1U);
static_assert(TimeoutMicros(milliseconds(5)) == 5000U);
static_assert(TimeoutMicros(seconds(4294)) == 4294000000U);
static_assert(TimeoutMicros(duration<float, std::milli>(0.25F)) == 250U);
static_assert(TimeoutMicros(duration<int8_t, std::ratio<3600>>(1)) == 3600000000U);
// Saturated at UINT32_MAX microseconds (a little over 71 minutes), without overflow on the way.
static_assert(TimeoutMicros(microseconds(kMax)) == kMax);
static_assert(TimeoutMicros(microseconds(int64_t{kMax} + 1)) == kMax);
static_assert(TimeoutMicros(seconds(4295)) == kMax);
static_assert(TimeoutMicros(hours(2)) == kMax);
static_assert(TimeoutMicros(hours::max()) == kMax);
static_assert(TimeoutMicros(nanoseconds::max()) == kMax);
static_assert(TimeoutMicros(duration<uint64_t, std::nano>(std::numeric_limits<uint64_t>::max())) ==
              kMax);
static_assert(TimeoutMicros(duration<double>(1e300)) == kMax);
static_assert(TimeoutMicros(duration<double>(std::numeric_limits<double>::infinity())) == kMax);
// Zero or negative: 0, i.e. no wait.
static_assert(TimeoutMicros(nanoseconds(0)) == 0U);
static_assert(TimeoutMicros(nanoseconds(-1)) == 0U);
static_assert(TimeoutMicros(hours::min()) == 0U);
static_assert(TimeoutMicros(duration<uint32_t, std::micro>(0U)) == 0U);
static_assert(TimeoutMicros(duration<double>(-0.5)) == 0U);

// Not a constant expression (NaN arithmetic), so checked at run time.
TEST(TimeoutMicrosTest, NotANumberIsNoWait) {
  EXPECT_EQ(TimeoutMicros(duration<double>(std::numeric_limits<double>::quiet_NaN())), 0U);
  EXPECT_EQ(TimeoutMicros(duration<float, std::milli>(std::numeric_limits<float>::quiet_NaN())),
            0U);
}

// A ConsumerWait hook that records what the bus asks for and returns at once.
struct RecordingWait {
  static inline uint32_t waits = 0U;
  static inline uint32_t last_timeout_us = 0U;
  static void Wait(uint32_t timeout_us) noexcept {
    ++waits;
    last_timeout_us = timeout_us;
  }
  static void Notify() noexcept {}
};

struct RecordingTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  using ConsumerWait = RecordingWait;
  // No membarrier at the first wait: sleeping is enabled on every host, so each wait below on
  // an empty bus reaches the hook.
  static constexpr bool kAsymmetricFence = false;
};
using Bus = mccc::AsyncBus<std::variant<int>, RecordingTraits>;

class ChronoWaitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static_cast<void>(bus->WaitForMessages(0U));  // enables sleeping
    RecordingWait::waits = 0U;
    RecordingWait::last_timeout_us = 12345U;
  }

  // What a chrono wait on the empty bus hands to the hook.
  template <typename Duration>
  uint32_t TimeoutHandedOn(Duration timeout) {
    const uint32_t waits_before = RecordingWait::waits;
    EXPECT_FALSE(bus->WaitForMessages(timeout));
    EXPECT_EQ(RecordingWait::waits, waits_before + 1U);
    return RecordingWait::last_timeout_us;
  }

  std::unique_ptr<Bus> bus = std::make_unique<Bus>();
};

TEST_F(ChronoWaitTest, TheDurationReachesTheWaitAsRoundedUpMicroseconds) {
  EXPECT_EQ(TimeoutHandedOn(nanoseconds(1)), 1U);
  EXPECT_EQ(TimeoutHandedOn(duration<double, std::micro>(1.5)), 2U);
  EXPECT_EQ(TimeoutHandedOn(milliseconds(5)), 5000U);
  EXPECT_EQ(TimeoutHandedOn(seconds(4294)), 4294000000U);
}

TEST_F(ChronoWaitTest, AHugeDurationSaturates) {
  EXPECT_EQ(TimeoutHandedOn(hours(24)), kMax);
  EXPECT_EQ(TimeoutHandedOn(hours::max()), kMax);
}

TEST_F(ChronoWaitTest, ZeroOrNegativeIsTheUint32FormWithZero) {
  EXPECT_EQ(TimeoutHandedOn(nanoseconds(0)), 0U);
  EXPECT_EQ(TimeoutHandedOn(milliseconds(-5)), 0U);
  EXPECT_EQ(TimeoutHandedOn(hours::min()), 0U);
  // The uint32_t form, for comparison: the same call.
  const uint32_t waits_before = RecordingWait::waits;
  EXPECT_FALSE(bus->WaitForMessages(0U));
  EXPECT_EQ(RecordingWait::waits, waits_before + 1U);
  EXPECT_EQ(RecordingWait::last_timeout_us, 0U);
}

TEST_F(ChronoWaitTest, AReadyMessageReturnsAtOnceWithoutWaiting) {
  ASSERT_TRUE(bus->Publish(7, 1U));
  EXPECT_TRUE(bus->WaitForMessages(hours(1)));
  EXPECT_EQ(RecordingWait::waits, 0U);
  int seen = 0;
  const mccc::ScopedSubscription scoped = bus->SubscribeScoped<int>([&seen](int v) { seen = v; });
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  EXPECT_EQ(seen, 7);
}

TEST_F(ChronoWaitTest, TheUint32FormIsUnchanged) {
  const uint32_t waits_before = RecordingWait::waits;
  EXPECT_FALSE(bus->WaitForMessages(250U));
  EXPECT_EQ(RecordingWait::waits, waits_before + 1U);
  EXPECT_EQ(RecordingWait::last_timeout_us, 250U);
}

// The kernel wait (the hosted default) with chrono durations: each call returns, false on an
// empty bus; no claim about how long it took.
TEST(ChronoKernelWaitTest, ShortAndNonPositiveDurationsReturn) {
  using KernelBus = mccc::AsyncBus<std::variant<int>, mccc::DefaultBusTraits>;
  auto bus = std::make_unique<KernelBus>();
  EXPECT_FALSE(bus->WaitForMessages(nanoseconds(0)));
  EXPECT_FALSE(bus->WaitForMessages(nanoseconds(-1)));
  EXPECT_FALSE(bus->WaitForMessages(nanoseconds(1)));
  EXPECT_FALSE(bus->WaitForMessages(microseconds(50)));
  ASSERT_TRUE(bus->Publish(1, 1U));
  EXPECT_TRUE(bus->WaitForMessages(seconds(10)));  // ready: returns at once
}

// IdleStrategy (the ActiveObject's sleep bound) takes the same durations by the same rule.
TEST(ChronoIdleStrategyTest, TheSleepBoundTakesADuration) {
  constexpr mccc::IdleStrategy kFromDuration =
      mccc::IdleStrategy::SpinThenYieldThenSleep(10U, 20U, milliseconds(50));
  static_assert(kFromDuration.mode == mccc::IdleMode::kSpinThenYieldThenSleep);
  static_assert(kFromDuration.spin_polls == 10U && kFromDuration.yield_polls == 20U);
  static_assert(kFromDuration.max_sleep_us == 50000U);
  static_assert(kFromDuration.MaxSleep() == milliseconds(50));

  constexpr mccc::IdleStrategy kDefaults = mccc::IdleStrategy::SpinThenYieldThenSleep();
  constexpr mccc::IdleStrategy kAdjusted = kDefaults.WithMaxSleep(nanoseconds(1500));
  static_assert(kAdjusted.max_sleep_us == 2U);  // rounded up
  static_assert(kAdjusted.spin_polls == kDefaults.spin_polls);
  static_assert(kDefaults.max_sleep_us == mccc::IdleStrategy::kDefaultMaxSleepUs);  // a copy

  EXPECT_EQ(kDefaults.WithMaxSleep(hours(10)).max_sleep_us, kMax);
  // Zero or negative gives max_sleep_us 0, which a sleeping strategy refuses.
  EXPECT_EQ(kDefaults.WithMaxSleep(seconds(-1)).max_sleep_us, 0U);
  EXPECT_FALSE(kDefaults.WithMaxSleep(seconds(0)).IsValid());
  EXPECT_TRUE(kDefaults.WithMaxSleep(nanoseconds(1)).IsValid());
}

}  // namespace
