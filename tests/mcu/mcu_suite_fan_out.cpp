// SPDX-License-Identifier: MIT
// The bare-metal suite: a fan-out Domain of three consumers run by its cooperative scheduler
// (DispatchHighestReady) in the main loop while the SysTick handler publishes to the domain.
//   A. the handler fills all three consumers, then nothing publishes: calls run consumer 0 until
//      it is empty, then 1, then 2, each call one batch;
//   B. the handler publishes to consumers 0 and 1 from inside consumer 2's batch: the batch
//      finishes, and the next call runs consumer 0;
//   C. the handler publishes one message per tick while the main loop calls the scheduler: no
//      call runs a consumer while a higher one had a message when the call began, and every
//      message a consumer admitted is dispatched to it exactly once, in order.
#include <cstdint>

#include "mcu_suite.hpp"
#include "mcu_suite_cases.hpp"
#include "platform/console.hpp"
#include "platform/cortex_m.hpp"
#include "platform/systick.hpp"

namespace mcu_suite {

namespace {

// ---------------------------------------------------------------------------------------------
// The domain: three consumers of one configuration, consumer 0 the highest priority
// ---------------------------------------------------------------------------------------------
// Consumer 0 (control) takes Commands, consumer 1 (telemetry) Samples, consumer 2 (logger)
// both, and the Status that phase B uses as a trigger: every message of the interrupt reaches
// two consumers, one of them the lowest-priority one.
constexpr std::uint32_t kConsumers = 3U;
constexpr mccc::ConsumerMask kBit0 = 1U;
constexpr mccc::ConsumerMask kBit1 = 2U;
constexpr mccc::ConsumerMask kBit2 = 4U;
constexpr mccc::ConsumerMask kCommandConsumers = kBit0 | kBit2;
constexpr mccc::ConsumerMask kSampleConsumers = kBit1 | kBit2;
constexpr mccc::ConsumerMask kStatusConsumers = kBit2;

/// A configuration's traits (kSingleCore, the critical section, the Clock: everything a domain
/// requires its consumers to share) with a smaller ring and one subscriber per type: the three
/// buses then fit together in the static arena the other cases build one bus in (the
/// Cortex-M0 board has 16 KiB of RAM in all).
template <typename Base>
struct FanOutConsumerTraits : Base {
  static constexpr std::uint32_t kQueueDepth = 16U;
  static constexpr std::uint32_t kMaxCallbacksPerType = 1U;
};

template <typename Config>
using DomainOf = mccc::Domain<Payload, FanOutConsumerTraits<typename Config::Bus::TraitsType>,
                              FanOutConsumerTraits<typename Config::Bus::TraitsType>,
                              FanOutConsumerTraits<typename Config::Bus::TraitsType>>;

/// Masks interrupts for one consistent snapshot of what the handler writes: the bus's own
/// PRIMASK section (it restores PRIMASK, so it nests inside an already masked section).
using InterruptsMasked = mccc::detail::CriticalSectionGuard<mccc::PrimaskCriticalSection>;

// ---------------------------------------------------------------------------------------------
// The messages of the interrupt: one global sequence number, even = Command, odd = Sample
// ---------------------------------------------------------------------------------------------
// Phase A: the handler publishes kBurstPairs Commands and Samples at once; phase B: two more
// (inside consumer 2's batch); phase C: one per tick until kMessages.
constexpr std::uint32_t kBurstPairs = 6U;
constexpr std::uint32_t kLiveMessages = 400U;
constexpr std::uint32_t kMessages = 2U * kBurstPairs + 2U + kLiveMessages;
constexpr std::uint8_t kTriggerCode = 0x5AU;
constexpr std::uint32_t kNone = mccc::kNoConsumer;

/// What the SysTick handler does when it runs.
enum class TickMode : std::uint8_t {
  kIdle,               // nothing
  kBurst,              // phase A: 2 * kBurstPairs messages in one run
  kTrigger,            // phase B: one Status, for consumer 2 only
  kHigherDuringBatch,  // phase B: a Command and a Sample, pended from consumer 2's callback
  kLive,               // phase C: one message per tick until kMessages
};

/// Written by the handler (volatile) and by the main loop's callbacks; one instance for every
/// configuration, reset by each run of the case.
struct FanOutState {
  // Handler side (the mode is set by the main loop, and back to kIdle by a one-shot run).
  volatile TickMode mode;
  volatile std::uint32_t next_sequence;
  volatile std::uint8_t admitted_by[kMessages];  // per sequence number: FanOutResult::admitted
  volatile std::uint32_t admitted[kConsumers];
  volatile std::uint32_t refused[kConsumers];
  volatile std::uint32_t wrong_subscribed;  // a FanOutResult::subscribed not the type's consumers
  volatile std::uint32_t into_lower_batch;  // admitted by a consumer above the one dispatching
  volatile std::uint32_t trigger_subscribed;
  volatile std::uint32_t trigger_admitted;
  volatile std::uint32_t domain_refusals[kConsumers];  // kQueueFull told to the domain
  volatile std::uint32_t domain_other_errors;
  // The consumer whose batch the main loop is in (set by its callbacks, cleared by the main loop
  // after each DispatchHighestReady), read by the handler.
  volatile std::uint32_t batch_of;
  // Main loop side: what the callbacks saw.
  std::uint32_t dispatched[kConsumers];  // sequence-numbered messages, per consumer
  std::uint32_t next_at_least[kConsumers];
  std::uint32_t out_of_order;   // a sequence number not above the previous one (or a repeat)
  std::uint32_t not_admitted;   // a message its consumer never admitted
  std::uint32_t wrong_header;   // not the handler's sender, or not MEDIUM
  std::uint32_t triggers_seen;  // Status deliveries to consumer 2
  bool pend_ran_inside_batch;   // phase B: the handler ran before Pend returned
  std::uint32_t logger_stalls;  // phase C: StallUntilTheNextPublish waits
  std::uint32_t stalls_timed_out;
};
FanOutState g_fan;

void ResetFanOut() noexcept {
  g_fan.mode = TickMode::kIdle;
  g_fan.next_sequence = 0U;
  for (std::uint32_t i = 0U; i < kMessages; ++i) {
    g_fan.admitted_by[i] = 0U;
  }
  for (std::uint32_t k = 0U; k < kConsumers; ++k) {
    g_fan.admitted[k] = 0U;
    g_fan.refused[k] = 0U;
    g_fan.domain_refusals[k] = 0U;
    g_fan.dispatched[k] = 0U;
    g_fan.next_at_least[k] = 0U;
  }
  g_fan.wrong_subscribed = 0U;
  g_fan.into_lower_batch = 0U;
  g_fan.trigger_subscribed = 0U;
  g_fan.trigger_admitted = 0U;
  g_fan.domain_other_errors = 0U;
  g_fan.batch_of = kNone;
  g_fan.out_of_order = 0U;
  g_fan.not_admitted = 0U;
  g_fan.wrong_header = 0U;
  g_fan.triggers_seen = 0U;
  g_fan.pend_ran_inside_batch = false;
  g_fan.logger_stalls = 0U;
  g_fan.stalls_timed_out = 0U;
}

/// The domain's error callback; runs in the handler (the only publisher).
void CountDomainError(std::uint32_t consumer, BusError error, std::uint64_t /*msg_id*/) noexcept {
  if (error == BusError::kQueueFull && consumer < kConsumers) {
    g_fan.domain_refusals[consumer] = g_fan.domain_refusals[consumer] + 1U;
  } else {
    g_fan.domain_other_errors = g_fan.domain_other_errors + 1U;
  }
}

/// In the live phase the logger (consumer 2) stalls, inside its batch, on every
/// kLoggerStallEvery-th message until the handler has published again (as a logger waiting for
/// a slow UART): the handler then certainly publishes to consumer 0 or 1 while a lower
/// consumer's batch runs, the interleaving the priority rule is about. Without it the main loop
/// locks onto the tick's phase under -icount (it reacts to each tick the same way) and the
/// handler never lands in a batch. It sleeps (WFI) rather than spins: without -icount the host
/// may deliver a tick milliseconds late, and every SysTick run of phase C publishes, so a
/// wake-up bound (not a spin bound) is exact.
constexpr std::uint32_t kLoggerStallEvery = 8U;
constexpr std::uint32_t kStallWakeBound = 16U;  // a handler that stops publishing fails a check

void StallUntilTheNextPublish(std::uint32_t sequence) noexcept {
  if (g_fan.mode != TickMode::kLive || sequence % kLoggerStallEvery != 0U) {
    return;
  }
  const std::uint32_t published = g_fan.next_sequence;
  if (published >= kMessages) {
    return;  // nothing more will come
  }
  std::uint32_t wakeups = 0U;
  while (g_fan.next_sequence == published && wakeups < kStallWakeBound) {
    mcu::WaitForInterrupt();  // a tick between the test and WFI only delays this by one period
    ++wakeups;
  }
  ++g_fan.logger_stalls;
  g_fan.stalls_timed_out += g_fan.next_sequence == published ? 1U : 0U;
}

/// One delivery of a sequence-numbered message to `consumer` (main loop, inside its batch).
void Deliver(std::uint32_t consumer, std::uint32_t sequence, const MessageHeader& header) noexcept {
  g_fan.batch_of = consumer;
  if (header.sender_id != kIsrSender || header.priority != MessagePriority::kMedium) {
    ++g_fan.wrong_header;
  }
  // The handler records the admission before it returns, so before any batch can see the
  // message: a delivery its consumer did not admit is a message from nowhere.
  if (sequence >= kMessages || ((g_fan.admitted_by[sequence] >> consumer) & 1U) == 0U) {
    ++g_fan.not_admitted;
  }
  // One producer at one priority: each consumer must see strictly increasing numbers. With
  // "only admitted ones" and "as many as admitted" (checked at the end) that is exactly once,
  // in order.
  if (sequence < g_fan.next_at_least[consumer]) {
    ++g_fan.out_of_order;
  }
  g_fan.next_at_least[consumer] = sequence + 1U;
  ++g_fan.dispatched[consumer];
  if (consumer == 2U) {
    StallUntilTheNextPublish(sequence);
  }
}

/// The handler side, for one domain type.
template <typename Domain>
struct FanOutTick {
  static inline Domain* domain = nullptr;

  /// Publishes the next sequence number (Command if even, Sample if odd) and records which
  /// consumers admitted it.
  static void PublishNext() noexcept {
    const std::uint32_t sequence = g_fan.next_sequence;
    if (sequence >= kMessages) {
      return;
    }
    const bool command = sequence % 2U == 0U;
    const mccc::FanOutResult result =
        command ? domain->Publish(Command{static_cast<std::int32_t>(sequence)}, kIsrSender)
                : domain->Publish(Sample{kIsrStream, 0U, sequence}, kIsrSender);
    if (result.subscribed != (command ? kCommandConsumers : kSampleConsumers)) {
      g_fan.wrong_subscribed = g_fan.wrong_subscribed + 1U;
    }
    g_fan.admitted_by[sequence] = static_cast<std::uint8_t>(result.admitted);
    const std::uint32_t running = g_fan.batch_of;
    bool above_running = false;
    for (std::uint32_t k = 0U; k < kConsumers; ++k) {
      if (result.AdmittedBy(k)) {
        g_fan.admitted[k] = g_fan.admitted[k] + 1U;
        above_running = above_running || (running != kNone && k < running);
      } else if (((result.subscribed >> k) & 1U) != 0U) {
        g_fan.refused[k] = g_fan.refused[k] + 1U;
      }
    }
    if (above_running) {
      g_fan.into_lower_batch = g_fan.into_lower_batch + 1U;
    }
    g_fan.next_sequence = sequence + 1U;
  }

  static void OnTick() noexcept {
    switch (g_fan.mode) {
      case TickMode::kIdle:
        break;
      case TickMode::kBurst:
        for (std::uint32_t i = 0U; i < 2U * kBurstPairs; ++i) {
          PublishNext();
        }
        g_fan.mode = TickMode::kIdle;
        break;
      case TickMode::kTrigger: {
        const mccc::FanOutResult result = domain->Publish(Status{kTriggerCode}, kIsrSender);
        g_fan.trigger_subscribed = result.subscribed;
        g_fan.trigger_admitted = result.admitted;
        g_fan.mode = TickMode::kIdle;
        break;
      }
      case TickMode::kHigherDuringBatch:
        PublishNext();
        PublishNext();
        g_fan.mode = TickMode::kIdle;
        break;
      case TickMode::kLive:
        PublishNext();
        break;
    }
  }
};

/// The number of sequence-numbered messages published to `consumer` in all (admitted or not).
constexpr std::uint32_t PublishedTo(std::uint32_t consumer) noexcept {
  return consumer == 0U ? (kMessages + 1U) / 2U : consumer == 1U ? kMessages / 2U : kMessages;
}

template <typename Domain>
std::uint32_t OccupancyOf(Domain& domain, std::uint32_t consumer) noexcept {
  return consumer == 0U   ? domain.template Consumer<0>().QueueOccupancy()
         : consumer == 1U ? domain.template Consumer<1>().QueueOccupancy()
                          : domain.template Consumer<2>().QueueOccupancy();
}

// ---------------------------------------------------------------------------------------------
// Phase A: the handler fills all three consumers at once; nothing publishes while the main loop
// dispatches, so the order is fixed: consumer 0 drained first, then 1, then 2
// ---------------------------------------------------------------------------------------------
template <typename Domain>
void DrainsByPriority(Domain& domain) {
  using Bus = typename Domain::template ConsumerBus<2>;
  static_assert(2U * kBurstPairs <= Limits<Bus>::kMedium,
                "phase A's burst must be admitted whole by the logger's ring");
  g_fan.mode = TickMode::kBurst;
  mcu::systick::Pend();  // the handler runs here and publishes the whole burst
  CHECK_EQ(g_fan.next_sequence, 2U * kBurstPairs);
  const std::uint32_t queued[kConsumers] = {kBurstPairs, kBurstPairs, 2U * kBurstPairs};
  for (std::uint32_t k = 0U; k < kConsumers; ++k) {
    CHECK_EQ(OccupancyOf(domain, k), queued[k]);
  }

  // Every call must run the first consumer that still holds messages, one batch of it.
  for (std::uint32_t k = 0U; k < kConsumers; ++k) {
    std::uint32_t remaining = queued[k];
    while (remaining > 0U) {
      for (std::uint32_t higher = 0U; higher < k; ++higher) {
        CHECK_EQ(OccupancyOf(domain, higher), 0U);
      }
      const mccc::DispatchOutcome outcome = domain.DispatchHighestReady();
      g_fan.batch_of = kNone;
      const std::uint32_t batch = remaining < Bus::kBatchSize ? remaining : Bus::kBatchSize;
      CHECK_EQ(outcome.consumer, k);
      if (!CHECK_EQ(outcome.dispatched, batch)) {
        return;  // the expected sequence of calls is lost; the totals at the end fail too
      }
      remaining -= batch;
      CHECK_EQ(OccupancyOf(domain, k), remaining);
    }
  }
  const mccc::DispatchOutcome idle = domain.DispatchHighestReady();
  CHECK_EQ(idle.consumer, kNone);
  CHECK_EQ(idle.dispatched, 0U);
}

// ---------------------------------------------------------------------------------------------
// Phase B: the handler publishes to consumers 0 and 1 while consumer 2's batch runs (allowed);
// the batch is not interrupted, and the next call returns to consumer 0
// ---------------------------------------------------------------------------------------------
template <typename Domain>
void HigherPriorityArrivesDuringALowerBatch(Domain& domain) {
  g_fan.mode = TickMode::kTrigger;
  mcu::systick::Pend();  // one Status, for consumer 2 only
  CHECK_EQ(g_fan.trigger_subscribed, kStatusConsumers);
  CHECK_EQ(g_fan.trigger_admitted, kStatusConsumers);
  CHECK_EQ(OccupancyOf(domain, 0U), 0U);
  CHECK_EQ(OccupancyOf(domain, 1U), 0U);
  CHECK_EQ(OccupancyOf(domain, 2U), 1U);

  // The Status callback arms kHigherDuringBatch and pends the handler from inside the batch.
  const std::uint32_t before = g_fan.next_sequence;
  const mccc::DispatchOutcome lower = domain.DispatchHighestReady();
  g_fan.batch_of = kNone;
  CHECK(g_fan.pend_ran_inside_batch);
  CHECK_EQ(g_fan.next_sequence, before + 2U);
  CHECK_EQ(lower.consumer, 2U);
  // The drain may or may not take the two copies queued for consumer 2 during its own batch;
  // either way the three messages are dispatched or still queued, none lost or repeated.
  CHECK_EQ(lower.dispatched + OccupancyOf(domain, 2U), 3U);
  CHECK_EQ(OccupancyOf(domain, 0U), 1U);
  CHECK_EQ(OccupancyOf(domain, 1U), 1U);
  CHECK_EQ(g_fan.triggers_seen, 1U);
  CHECK_EQ(g_fan.into_lower_batch, 2U);  // both messages went above the running consumer

  const mccc::DispatchOutcome first = domain.DispatchHighestReady();
  CHECK_EQ(first.consumer, 0U);  // back to the highest priority at the batch boundary
  CHECK_EQ(first.dispatched, 1U);
  const mccc::DispatchOutcome second = domain.DispatchHighestReady();
  CHECK_EQ(second.consumer, 1U);
  CHECK_EQ(second.dispatched, 1U);
  if (lower.dispatched < 3U) {
    const mccc::DispatchOutcome rest = domain.DispatchHighestReady();
    CHECK_EQ(rest.consumer, 2U);
    CHECK_EQ(rest.dispatched, 3U - lower.dispatched);
  }
  g_fan.batch_of = kNone;
  CHECK_EQ(domain.DispatchHighestReady().consumer, kNone);
}

// ---------------------------------------------------------------------------------------------
// Phase C: one message per SysTick interrupt while the main loop runs the scheduler
// ---------------------------------------------------------------------------------------------
/// What phase C counted in the main loop.
struct LiveCounts {
  std::uint32_t calls;
  std::uint32_t priority_violations;  // a call ran consumer k although j < k had a message
  std::uint32_t wrong_accounting;     // a call's outcome disagrees with the callbacks it ran
  std::uint32_t contended;            // calls that began with two or more consumers ready
  std::uint32_t back_up;              // calls that ran a consumer above the previous call's
  bool bounded;
};

template <typename Domain>
LiveCounts SchedulesWhileTheInterruptPublishes(Domain& domain) {
  LiveCounts counts{};
  counts.bounded = true;
  g_fan.mode = TickMode::kLive;
  // A stuck interrupt fails, not hangs: every tick publishes, so far fewer than kTickBound
  // ticks are needed. kCallBound only catches a timer that stopped (the idle loop spins, so it
  // is generous: without -icount the host may deliver ticks late).
  constexpr std::uint32_t kTickBound = 4U * kLiveMessages;
  constexpr std::uint32_t kCallBound = 50000000U;
  const std::uint32_t first_tick = mcu::systick::Wraps();
  mcu::systick::Start(kTickPeriodCycles);
  std::uint32_t previous = kNone;
  for (;;) {
    // What was ready when the call began: a message the handler admitted (it has returned, so
    // the message is whole in the ring) and no callback has taken yet. Masked, so that the
    // snapshot and "published everything" are one instant. Messages the handler adds after
    // this point may or may not be seen by the call; messages counted here must be.
    bool finished = false;
    std::uint32_t highest_ready = kNone;
    std::uint32_t ready_count = 0U;
    std::uint32_t dispatched_before[kConsumers];
    {
      const InterruptsMasked masked;
      finished = g_fan.next_sequence >= kMessages;
      for (std::uint32_t k = 0U; k < kConsumers; ++k) {
        dispatched_before[k] = g_fan.dispatched[k];
        if (g_fan.admitted[k] != g_fan.dispatched[k]) {
          highest_ready = highest_ready == kNone ? k : highest_ready;
          ++ready_count;
        }
      }
    }
    const mccc::DispatchOutcome outcome = domain.DispatchHighestReady();
    g_fan.batch_of = kNone;
    ++counts.calls;

    // The priority rule, exactly: the consumer run is never below the highest one that had a
    // message when the call began (kNone, the largest index, when none ran).
    if (outcome.consumer > highest_ready) {
      ++counts.priority_violations;
    }
    counts.contended += ready_count >= 2U ? 1U : 0U;
    // One batch of exactly the consumer named, as many messages as its callbacks saw.
    for (std::uint32_t k = 0U; k < kConsumers; ++k) {
      const std::uint32_t taken = g_fan.dispatched[k] - dispatched_before[k];
      if (taken != (k == outcome.consumer ? outcome.dispatched : 0U)) {
        ++counts.wrong_accounting;
      }
    }
    if (outcome.consumer == kNone && outcome.dispatched != 0U) {
      ++counts.wrong_accounting;
    }
    if (outcome.consumer != kNone) {
      counts.back_up += previous != kNone && outcome.consumer < previous ? 1U : 0U;
      previous = outcome.consumer;
    }
    // Done once everything was published before a call that found nothing.
    if (finished && outcome.consumer == kNone) {
      break;
    }
    if (counts.calls >= kCallBound || mcu::systick::Wraps() - first_tick > kTickBound) {
      counts.bounded = false;
      break;
    }
  }
  mcu::systick::Stop();
  return counts;
}

}  // namespace

// The cooperative scheduler (Domain::DispatchHighestReady) runs consumers by priority while an
// interrupt publishes to the domain (Cortex-M under QEMU)
template <typename Config>
void CooperativeSchedulerDispatchesByPriority() {
  using Domain = DomainOf<Config>;
  using Tick = FanOutTick<Domain>;
  FreshBus<Domain> fresh;  // the domain, in the arena the other cases build a bus in
  Domain& domain = *fresh;
  ResetFanOut();
  Tick::domain = &domain;
  domain.SetErrorCallback(&CountDomainError);

  // Subscriptions first, from the main loop, before the handler publishes anything.
  const mccc::SubscriptionHandle control =
      domain.template Consumer<0>().template Subscribe<Command>(
          [](const Command& command, const MessageHeader& header) noexcept {
            Deliver(0U, static_cast<std::uint32_t>(command.value), header);
          });
  const mccc::SubscriptionHandle telemetry =
      domain.template Consumer<1>().template Subscribe<Sample>(
          [](const Sample& sample, const MessageHeader& header) noexcept {
            Deliver(1U, sample.sequence, header);
          });
  const mccc::SubscriptionHandle log_commands =
      domain.template Consumer<2>().template Subscribe<Command>(
          [](const Command& command, const MessageHeader& header) noexcept {
            Deliver(2U, static_cast<std::uint32_t>(command.value), header);
          });
  const mccc::SubscriptionHandle log_samples =
      domain.template Consumer<2>().template Subscribe<Sample>(
          [](const Sample& sample, const MessageHeader& header) noexcept {
            Deliver(2U, sample.sequence, header);
          });
  // Phase B's trigger: pends the handler from inside consumer 2's batch, once.
  const mccc::SubscriptionHandle trigger =
      domain.template Consumer<2>().template Subscribe<Status>([](const Status& status) noexcept {
        g_fan.batch_of = 2U;
        ++g_fan.triggers_seen;
        if (status.code != kTriggerCode || g_fan.triggers_seen != 1U) {
          return;
        }
        const std::uint32_t before = g_fan.next_sequence;
        g_fan.mode = TickMode::kHigherDuringBatch;
        mcu::systick::Pend();  // thread mode, interrupts enabled: the handler runs here
        g_fan.pend_ran_inside_batch = g_fan.next_sequence == before + 2U;
      });
  CHECK(control.IsValid());
  CHECK(telemetry.IsValid());
  CHECK(log_commands.IsValid());
  CHECK(log_samples.IsValid());
  CHECK(trigger.IsValid());
  CHECK_EQ(domain.template SubscribersOf<Command>(), kCommandConsumers);
  CHECK_EQ(domain.template SubscribersOf<Sample>(), kSampleConsumers);
  CHECK_EQ(domain.template SubscribersOf<Status>(), kStatusConsumers);

  mcu::systick::SetHook(&Tick::OnTick);
  DrainsByPriority(domain);
  HigherPriorityArrivesDuringALowerBatch(domain);
  // Phases A and B fit every ring: nothing was refused before the live phase.
  CHECK_EQ(g_fan.refused[0] + g_fan.refused[1] + g_fan.refused[2], 0U);
  const std::uint32_t into_lower_before_live = g_fan.into_lower_batch;
  const LiveCounts live = SchedulesWhileTheInterruptPublishes(domain);
  mcu::systick::SetHook(nullptr);

  CHECK(live.bounded);
  CHECK_EQ(g_fan.next_sequence, kMessages);
  CHECK_EQ(g_fan.wrong_subscribed, 0U);
  CHECK_EQ(live.priority_violations, 0U);
  CHECK_EQ(live.wrong_accounting, 0U);
  // Exactly once, in order, per consumer: only admitted messages, strictly increasing, and as
  // many as admitted.
  CHECK_EQ(g_fan.out_of_order, 0U);
  CHECK_EQ(g_fan.not_admitted, 0U);
  CHECK_EQ(g_fan.wrong_header, 0U);
  CHECK_EQ(g_fan.triggers_seen, 1U);
  for (std::uint32_t k = 0U; k < kConsumers; ++k) {
    CHECK_EQ(g_fan.dispatched[k], g_fan.admitted[k]);
    CHECK_EQ(g_fan.admitted[k] + g_fan.refused[k], PublishedTo(k));
    CHECK_EQ(g_fan.domain_refusals[k], g_fan.refused[k]);  // each refusal told, with its index
    CHECK_EQ(OccupancyOf(domain, k), 0U);
  }
  CHECK_EQ(g_fan.domain_other_errors, 0U);
  // Each consumer's own statistics agree (consumer 2 also took the trigger).
  const BusStatisticsSnapshot s0 = domain.template Consumer<0>().GetStatistics();
  const BusStatisticsSnapshot s1 = domain.template Consumer<1>().GetStatistics();
  const BusStatisticsSnapshot s2 = domain.template Consumer<2>().GetStatistics();
  CHECK_EQ(s0.messages_published, g_fan.admitted[0]);
  CHECK_EQ(s1.messages_published, g_fan.admitted[1]);
  CHECK_EQ(s2.messages_published, g_fan.admitted[2] + 1U);
  CHECK_EQ(s0.messages_processed, g_fan.dispatched[0]);
  CHECK_EQ(s1.messages_processed, g_fan.dispatched[1]);
  CHECK_EQ(s2.messages_processed, g_fan.dispatched[2] + 1U);
  CHECK_EQ(s0.messages_dropped, g_fan.refused[0]);
  CHECK_EQ(s1.messages_dropped, g_fan.refused[1]);
  CHECK_EQ(s2.messages_dropped, g_fan.refused[2]);
  // The live phase was not vacuous: calls began with several consumers ready, the scheduler
  // went back up to a higher consumer, and the handler published to a higher consumer while a
  // lower one's batch ran.
  CHECK(live.contended > 0U);
  CHECK(live.back_up > 0U);
  const std::uint32_t into_lower_live = g_fan.into_lower_batch - into_lower_before_live;
  CHECK(g_fan.logger_stalls > 0U);
  CHECK_EQ(g_fan.stalls_timed_out, 0U);
  CHECK(into_lower_live > 0U);

  mcu::Print("  scheduler calls ");
  mcu::PrintUnsigned(live.calls);
  mcu::Print(" (");
  mcu::PrintUnsigned(live.contended);
  mcu::Print(" began with several consumers ready, ");
  mcu::PrintUnsigned(live.back_up);
  mcu::Print(" went back up); interrupt published into a lower batch ");
  mcu::PrintUnsigned(into_lower_live);
  mcu::Print(" (logger stalls ");
  mcu::PrintUnsigned(g_fan.logger_stalls);
  mcu::Print("); dispatched ");
  mcu::PrintUnsigned(g_fan.dispatched[0]);
  mcu::Print("/");
  mcu::PrintUnsigned(g_fan.dispatched[1]);
  mcu::Print("/");
  mcu::PrintUnsigned(g_fan.dispatched[2]);
  mcu::Print(", refused ");
  mcu::PrintUnsigned(g_fan.refused[0]);
  mcu::Print("/");
  mcu::PrintUnsigned(g_fan.refused[1]);
  mcu::Print("/");
  mcu::PrintUnsigned(g_fan.refused[2]);
  mcu::Print("\n");
}

MCU_SUITE_INSTANTIATE_CASE(CooperativeSchedulerDispatchesByPriority);

}  // namespace mcu_suite
