// SPDX-License-Identifier: MIT
// The bare-metal suite: an interrupt (SysTick) publishing while the main loop publishes and
// consumes, and an interrupt taken between a publish's claim and the writing of its slot.
#include <cstdint>

#include "mcu_suite.hpp"
#include "mcu_suite_cases.hpp"
#include "platform/console.hpp"
#include "platform/cortex_m.hpp"
#include "platform/systick.hpp"

namespace mcu_suite {

namespace {

// ---------------------------------------------------------------------------------------------
// An interrupt publishing while the main loop publishes and consumes
// ---------------------------------------------------------------------------------------------
constexpr std::uint32_t kIsrMessages = 500U;
// Main-loop bursts cycle through 1 .. kLongestBurst messages: the longer ones pass the MEDIUM
// limit of a 64-slot ring, so both producers meet refusals.
constexpr std::uint32_t kLongestBurst = 60U;

/// Checks, in delivery order, that each stream's sequence counts 0, 1, 2, ... (nothing lost,
/// duplicated or reordered) and its timestamps never decrease.
struct StreamChecker {
  std::uint32_t next[kStreams];
  std::uint64_t last_timestamp[kStreams];
  std::uint32_t out_of_order;
  std::uint32_t time_went_back;
  std::uint32_t unexpected;
  std::uint32_t source_switches;  // deliveries whose stream differs from the previous one
  std::uint16_t previous_stream;

  void operator()(const Sample& m, const MessageHeader& h) noexcept {
    if (m.stream >= kStreams || m.stream == 0U) {
      ++unexpected;
      return;
    }
    if (m.sequence != next[m.stream]) {
      ++out_of_order;
    }
    next[m.stream] = m.sequence + 1U;
    if (h.timestamp_us < last_timestamp[m.stream]) {
      ++time_went_back;
    }
    last_timestamp[m.stream] = h.timestamp_us;
    if (m.stream != previous_stream) {
      ++source_switches;
      previous_stream = m.stream;
    }
  }
  void operator()(const Command&) noexcept { ++unexpected; }
  void operator()(const Status&) noexcept { ++unexpected; }
};

/// The interrupt-side producer: one publish attempt per SysTick interrupt, every fourth of them
/// HIGH on a stream of its own; a refused message is retried at the stream's next attempt.
template <typename Bus>
struct TickProducer {
  static inline Bus* bus = nullptr;
  static inline volatile std::uint32_t next[kStreams];
  static inline volatile std::uint32_t refused[kStreams];
  static inline volatile std::uint32_t attempts = 0U;
  static inline volatile std::uint32_t published = 0U;
  static inline volatile bool main_publishing = false;
  static inline volatile bool main_consuming = false;
  static inline volatile std::uint32_t during_main_publish = 0U;
  static inline volatile std::uint32_t during_main_consume = 0U;

  static void Reset(Bus& target) noexcept {
    bus = &target;
    for (std::uint32_t i = 0U; i < kStreams; ++i) {
      next[i] = 0U;
      refused[i] = 0U;
    }
    attempts = 0U;
    published = 0U;
    main_publishing = false;
    main_consuming = false;
    during_main_publish = 0U;
    during_main_consume = 0U;
  }

  static void OnTick() noexcept {
    if (published >= kIsrMessages) {
      return;
    }
    if (main_publishing) {
      during_main_publish = during_main_publish + 1U;
    }
    if (main_consuming) {
      during_main_consume = during_main_consume + 1U;
    }
    const bool high = attempts % 4U == 3U;
    attempts = attempts + 1U;
    const std::uint16_t stream = high ? kIsrHighStream : kIsrStream;
    const MessagePriority priority = high ? MessagePriority::kHigh : MessagePriority::kMedium;
    if (bus->PublishWithPriority(Sample{stream, 0U, next[stream]}, kIsrSender, priority)) {
      next[stream] = next[stream] + 1U;
      published = published + 1U;
    } else {
      refused[stream] = refused[stream] + 1U;
    }
  }
};

}  // namespace

template <typename Config>
void InterruptPublishesWhileMainPublishesAndConsumes() {
  using Bus = typename Config::Bus;
  using Producer = TickProducer<Bus>;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);
  Producer::Reset(bus);
  StreamChecker checker{};

  // The main loop publishes and consumes for as long as the interrupt runs (how many messages
  // it gets through depends on the emulator's speed; every check below is exact regardless).
  mcu::systick::SetHook(&Producer::OnTick);
  mcu::systick::Start(kTickPeriodCycles);
  std::uint32_t main_next = 0U;
  std::uint32_t main_refused = 0U;
  std::uint32_t iteration = 0U;
  constexpr std::uint32_t kIterationBound = 1000000U;  // a stuck interrupt fails, not hangs
  while (Producer::published < kIsrMessages && iteration < kIterationBound) {
    const std::uint32_t burst = 1U + iteration % kLongestBurst;
    ++iteration;
    for (std::uint32_t k = 0U; k < burst; ++k) {
      Producer::main_publishing = true;
      const bool ok = bus.Publish(Sample{kMainStream, 0U, main_next}, kMainSender);
      Producer::main_publishing = false;
      if (!ok) {
        ++main_refused;
        break;
      }
      ++main_next;
    }
    Producer::main_consuming = true;
    bus.ProcessBatchWith(checker);
    Producer::main_consuming = false;
  }
  mcu::systick::Stop();
  mcu::systick::SetHook(nullptr);
  while (bus.ProcessBatchWith(checker) != 0U) {
  }
  CHECK(iteration < kIterationBound);
  const std::uint32_t main_messages = main_next;

  const std::uint32_t isr_medium = Producer::next[kIsrStream];
  const std::uint32_t isr_high = Producer::next[kIsrHighStream];
  // Exactly once, in order, per source.
  CHECK_EQ(checker.next[kMainStream], main_messages);
  CHECK_EQ(checker.next[kIsrStream], isr_medium);
  CHECK_EQ(checker.next[kIsrHighStream], isr_high);
  CHECK_EQ(isr_medium + isr_high, kIsrMessages);
  CHECK_EQ(checker.out_of_order, 0U);
  CHECK_EQ(checker.unexpected, 0U);
  CHECK_EQ(checker.time_went_back, 0U);
  CHECK_EQ(bus.QueueOccupancy(), 0U);
  // The interrupt really cut into the main loop's publishing and consuming, and the long
  // bursts met the MEDIUM limit.
  CHECK(Producer::during_main_publish > 0U);
  CHECK(Producer::during_main_consume > 0U);
  CHECK(checker.source_switches > 2U);
  CHECK(main_refused > 0U);

  // The counters agree with what the producers saw.
  const std::uint32_t isr_refused_medium = Producer::refused[kIsrStream];
  const std::uint32_t isr_refused_high = Producer::refused[kIsrHighStream];
  const BusStatisticsSnapshot s = bus.GetStatistics();
  CHECK_EQ(s.messages_published, main_messages + kIsrMessages);
  CHECK_EQ(s.messages_processed, main_messages + kIsrMessages);
  CHECK_EQ(s.medium_priority_published, main_messages + isr_medium);
  CHECK_EQ(s.high_priority_published, isr_high);
  CHECK_EQ(s.low_priority_published, 0U);
  CHECK_EQ(s.medium_priority_dropped, main_refused + isr_refused_medium);
  CHECK_EQ(s.high_priority_dropped, isr_refused_high);
  CHECK_EQ(s.messages_dropped, main_refused + isr_refused_medium + isr_refused_high);
  CHECK_EQ(s.processing_errors, 0U);
  CHECK_EQ(Errors(BusError::kQueueFull), main_refused + isr_refused_medium + isr_refused_high);

  mcu::Print("  main published ");
  mcu::PrintUnsigned(main_messages);
  mcu::Print(", interrupts ");
  mcu::PrintUnsigned(Producer::attempts);
  mcu::Print(" (");
  mcu::PrintUnsigned(Producer::during_main_publish);
  mcu::Print(" inside a main publish, ");
  mcu::PrintUnsigned(Producer::during_main_consume);
  mcu::Print(" inside a batch); refused: main ");
  mcu::PrintUnsigned(main_refused);
  mcu::Print(", interrupt ");
  mcu::PrintUnsigned(isr_refused_medium + isr_refused_high);
  mcu::Print("\n");
}

namespace {

// ---------------------------------------------------------------------------------------------
// An interrupt taken between a publish's claim and the writing of its slot
// ---------------------------------------------------------------------------------------------
template <typename Bus>
struct HalfWrittenPublish {
  static inline Bus* bus = nullptr;
  static inline MessagePriority interrupt_priority = MessagePriority::kMedium;
  static inline volatile std::uint32_t hook_calls = 0U;
  static inline volatile bool pended = false;
  static inline volatile bool interrupt_ran = false;
  static inline volatile bool ran_inside_window = false;
  static inline volatile bool interrupt_admitted = false;
  static inline volatile std::uint32_t depth_before = 0U;
  static inline volatile std::uint32_t depth_after = 0U;
  static inline volatile std::uint32_t consumed_by_interrupt = 0U;

  static void Reset(Bus& target, MessagePriority priority) noexcept {
    bus = &target;
    interrupt_priority = priority;
    hook_calls = 0U;
    pended = false;
    interrupt_ran = false;
    ran_inside_window = false;
    interrupt_admitted = false;
    depth_before = 0U;
    depth_after = 0U;
    consumed_by_interrupt = 0U;
  }

  /// The bus's after-claim hook: the main loop's publish has claimed its slot and not written
  /// it. Pend SysTick; its handler runs before this function returns.
  static void AfterClaim(void*, typename Bus::Position) noexcept {
    hook_calls = hook_calls + 1U;
    if (mcu::ActiveException() != 0U || pended) {
      return;  // the interrupt's own publish, or a later one
    }
    pended = true;
    mcu::systick::Pend();
    ran_inside_window = interrupt_ran;
  }

  /// The SysTick handler: publishes, then consumes what a consumer may take at this instant.
  static void OnTick() noexcept {
    interrupt_ran = true;
    depth_before = bus->QueueOccupancy();
    interrupt_admitted =
        bus->PublishWithPriority(Sample{kIsrStream, 0U, 77U}, kIsrSender, interrupt_priority);
    depth_after = bus->QueueOccupancy();
    consumed_by_interrupt = bus->ProcessBatchWith(Recorder{&g_isr_log});
  }
};

}  // namespace

template <typename Config>
void InterruptInsideHalfWrittenPublishCase(MessagePriority interrupt_priority) {
  using Bus = typename Config::Bus;
  using Window = HalfWrittenPublish<Bus>;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  Window::Reset(bus, interrupt_priority);
  g_log = DeliveryLog{};
  g_isr_log = DeliveryLog{};

  bus.SetAfterClaimHook(&Window::AfterClaim, nullptr);
  mcu::systick::SetHook(&Window::OnTick);
  const bool published = bus.Publish(Sample{kMainStream, 0U, 41U}, kMainSender);
  mcu::systick::SetHook(nullptr);
  bus.SetAfterClaimHook(nullptr, nullptr);

  CHECK(published);
  CHECK(Window::pended);
  CHECK(Window::ran_inside_window);  // the handler ran between the claim and the write
  CHECK(Window::interrupt_admitted);
  CHECK_EQ(Window::depth_before, 1U);  // the claimed, unwritten slot counts as queued
  CHECK_EQ(Window::depth_after, 2U);

  // A HIGH message on its own ring passes the stuck slot; in the same ring nothing does.
  const bool passes = interrupt_priority == MessagePriority::kHigh && Bus::kHighQueueDepth > 0U;
  CHECK_EQ(Window::consumed_by_interrupt, passes ? 1U : 0U);
  CHECK_EQ(Window::hook_calls, passes ? 1U : 2U);  // the hook is on the shared ring
  CHECK_EQ(g_isr_log.size, Window::consumed_by_interrupt);
  if (passes && g_isr_log.size == 1U) {
    CHECK_EQ(g_isr_log.items[0].value, 77U);
    CHECK_EQ(g_isr_log.items[0].msg_id, 1U);
  }

  // The main loop now takes the completed message, whole, then the interrupt's (unless taken).
  CHECK_EQ(DrainInto(bus, g_log), passes ? 1U : 2U);
  if (CHECK(g_log.size >= 1U)) {
    const Delivery& first = g_log.items[0];
    CHECK_EQ(first.kind, Kind::kSample);
    CHECK_EQ(first.stream, kMainStream);
    CHECK_EQ(first.value, 41U);
    CHECK_EQ(first.sender_id, kMainSender);
    CHECK_EQ(first.priority, MessagePriority::kMedium);
    CHECK_EQ(first.msg_id, passes ? 2U : 1U);
  }
  if (!passes && CHECK_EQ(g_log.size, 2U)) {
    const Delivery& second = g_log.items[1];
    CHECK_EQ(second.stream, kIsrStream);
    CHECK_EQ(second.value, 77U);
    CHECK_EQ(second.sender_id, kIsrSender);
    CHECK_EQ(second.priority, interrupt_priority);
    CHECK_EQ(second.msg_id, 2U);
  }
  const BusStatisticsSnapshot s = bus.GetStatistics();
  CHECK_EQ(s.messages_published, 2U);
  CHECK_EQ(s.messages_processed, 2U);
  CHECK_EQ(bus.QueueOccupancy(), 0U);
}

template <typename Config>
void InterruptInsideHalfWrittenPublish() {
  InterruptInsideHalfWrittenPublishCase<Config>(MessagePriority::kMedium);
  InterruptInsideHalfWrittenPublishCase<Config>(MessagePriority::kHigh);
}

MCU_SUITE_INSTANTIATE_CASE(InterruptPublishesWhileMainPublishesAndConsumes);
MCU_SUITE_INSTANTIATE_CASE(InterruptInsideHalfWrittenPublish);

}  // namespace mcu_suite
