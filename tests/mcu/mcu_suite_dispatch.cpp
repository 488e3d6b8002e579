// SPDX-License-Identifier: MIT
// The bare-metal suite: dispatch to subscribers of all three callback shapes (and the per-type
// limit, Unsubscribe), and to the visitor of ProcessBatchWith (order, ids, re-entry).
#include <cstdint>
#include <variant>

#include "mcu_suite.hpp"
#include "mcu_suite_cases.hpp"

namespace mcu_suite {

/// Subscribers taking the envelope, (message, header) or the message alone; a false return is a
/// processing error; the per-type limit; Unsubscribe stops further calls.
template <typename Config>
void CallbacksOfAllThreeShapes() {
  using Bus = typename Config::Bus;
  using Envelope = typename Bus::Envelope;
  constexpr std::uint32_t kPerType = Bus::TraitsType::kMaxCallbacksPerType;

  struct Seen {
    std::uint32_t envelope_calls;
    std::uint32_t envelope_sequence_sum;
    std::uint32_t with_header_calls;
    std::int32_t command_value;
    std::uint32_t command_sender;
    MessagePriority command_priority;
    std::uint64_t command_msg_id;
    std::uint32_t plain_calls;
  };
  static Seen seen;
  seen = Seen{};
  Seen* const s = &seen;

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);

  // The whole envelope exists only where the slots hold it (a compact bus refuses this shape
  // at compile time); there a second typed subscriber stands in for it.
  mccc::SubscriptionHandle by_envelope{};
  if constexpr (!Bus::kCompactEnvelope) {
    by_envelope = bus.template Subscribe<Sample>([s](const Envelope& envelope) noexcept {
      const Sample* sample = std::get_if<Sample>(&envelope.payload);
      ++s->envelope_calls;
      s->envelope_sequence_sum += sample != nullptr ? sample->sequence : 1000000U;
    });
  } else {
    by_envelope = bus.template Subscribe<Sample>([s](const Sample& sample) noexcept {
      ++s->envelope_calls;
      s->envelope_sequence_sum += sample.sequence;
    });
  }
  const mccc::SubscriptionHandle with_header = bus.template Subscribe<Command>(
      [s](const Command& command, const MessageHeader& header) noexcept {
        ++s->with_header_calls;
        s->command_value = command.value;
        s->command_sender = header.sender_id;
        s->command_priority = header.priority;
        s->command_msg_id = header.msg_id;
      });
  const mccc::SubscriptionHandle plain =
      bus.template Subscribe<Sample>([s](const Sample& sample) noexcept -> bool {
        ++s->plain_calls;
        return sample.sequence % 2U == 0U;  // odd sequences are processing errors
      });
  CHECK(by_envelope.IsValid() && with_header.IsValid() && plain.IsValid());
  CHECK_EQ(bus.template SubscriberCount<Sample>(), 2U);
  CHECK_EQ(bus.template SubscriberCount<Command>(), 1U);

  // The per-type limit: kMaxCallbacksPerType accepted, one more refused with an invalid handle.
  mccc::SubscriptionHandle status_handles[kPerType];
  for (std::uint32_t i = 0U; i < kPerType; ++i) {
    status_handles[i] = bus.template Subscribe<Status>([](const Status&) noexcept {});
    CHECK(status_handles[i].IsValid());
  }
  CHECK(!bus.template Subscribe<Status>([](const Status&) noexcept {}).IsValid());
  CHECK_EQ(bus.template SubscriberCount<Status>(), kPerType);
  for (std::uint32_t i = 0U; i < kPerType; ++i) {
    CHECK(bus.Unsubscribe(status_handles[i]));
  }
  CHECK_EQ(bus.template SubscriberCount<Status>(), 0U);

  for (std::uint32_t i = 0U; i < 6U; ++i) {
    CHECK(bus.Publish(Sample{kMainStream, 0U, i}, kMainSender));
  }
  CHECK(bus.PublishWithPriority(Command{-42}, 9U, MessagePriority::kHigh));
  CHECK(bus.PublishWithPriority(Status{3U}, 5U, MessagePriority::kLow));
  CHECK_EQ(bus.ProcessBatch(), 8U);

  CHECK_EQ(seen.envelope_calls, 6U);
  CHECK_EQ(seen.envelope_sequence_sum, 0U + 1U + 2U + 3U + 4U + 5U);
  CHECK_EQ(seen.plain_calls, 6U);
  CHECK_EQ(seen.with_header_calls, 1U);
  CHECK(seen.command_value == -42);
  CHECK_EQ(seen.command_sender, 9U);
  CHECK_EQ(seen.command_priority, MessagePriority::kHigh);
  // HIGH is dispatched before the queued samples when it has a ring of its own.
  CHECK_EQ(seen.command_msg_id, Bus::kHighQueueDepth > 0U ? 1U : 7U);
  CHECK_EQ(Errors(BusError::kProcessingError), 3U);  // sequences 1, 3, 5
  BusStatisticsSnapshot stats = bus.GetStatistics();
  CHECK_EQ(stats.messages_processed, 8U);
  CHECK_EQ(stats.processing_errors, 3U);

  // Unsubscribe: true once, then false; the callable is not called again.
  CHECK(bus.Unsubscribe(by_envelope));
  CHECK(!bus.Unsubscribe(by_envelope));
  CHECK(!bus.Unsubscribe(mccc::kInvalidSubscription));
  CHECK_EQ(bus.template SubscriberCount<Sample>(), 1U);
  CHECK(bus.Publish(Sample{kMainStream, 0U, 6U}, kMainSender));
  CHECK_EQ(bus.ProcessBatch(), 1U);
  CHECK_EQ(seen.envelope_calls, 6U);
  CHECK_EQ(seen.plain_calls, 7U);
  CHECK(bus.Unsubscribe(with_header));
  CHECK(bus.Unsubscribe(plain));
}

/// ProcessBatchWith: handlers of both shapes and a generic one, HIGH first with a HIGH ring,
/// ids in delivery order, false = processing error, re-entry refused.
template <typename Config>
void VisitorDispatch() {
  using Bus = typename Config::Bus;
  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);

  CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, 0U}, kMainSender, MessagePriority::kLow));
  CHECK(
      bus.PublishWithPriority(Sample{kMainStream, 0U, 1U}, kMainSender, MessagePriority::kMedium));
  CHECK(bus.PublishWithPriority(Command{7}, 3U, MessagePriority::kHigh));
  CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, 2U}, kMainSender, MessagePriority::kLow));
  CHECK(bus.PublishWithPriority(Status{9U}, 4U, MessagePriority::kMedium));

  g_log = DeliveryLog{};
  DeliveryLog* const log = &g_log;
  MessageHeader no_header{};
  const auto visitor = mccc::make_overloaded(
      [log](const Sample& m, const MessageHeader& h) noexcept -> bool {
        log->Add(Kind::kSample, m.stream, m.sequence, h);
        return m.sequence != 2U;  // the third sample fails
      },
      [log, &no_header](const Command& m) noexcept {
        log->Add(Kind::kCommand, 0U, static_cast<std::uint32_t>(m.value), no_header);
      },
      [log, &no_header](const auto& other) noexcept {
        static_cast<void>(other);
        log->Add(Kind::kStatus, 0U, 0U, no_header);
      });
  CHECK_EQ(bus.ProcessBatchWith(visitor), 5U);
  CHECK_EQ(g_log.size, 5U);

  // Delivery order (the handler without a header records msg_id 0).
  const bool lane = Bus::kHighQueueDepth > 0U;
  const Kind order_lane[5] = {Kind::kCommand, Kind::kSample, Kind::kSample, Kind::kSample,
                              Kind::kStatus};
  const Kind order_fifo[5] = {Kind::kSample, Kind::kSample, Kind::kCommand, Kind::kSample,
                              Kind::kStatus};
  std::uint32_t samples = 0U;
  for (std::uint32_t i = 0U; i < g_log.size && i < 5U; ++i) {
    const Delivery& d = g_log.items[i];
    CHECK_EQ(d.kind, lane ? order_lane[i] : order_fifo[i]);
    if (d.kind == Kind::kSample) {
      CHECK_EQ(d.value, samples);
      CHECK_EQ(d.msg_id, i + 1U);  // ids follow delivery order
      ++samples;
    }
  }
  CHECK_EQ(Errors(BusError::kProcessingError), 1U);
  CHECK_EQ(LastErrorId(BusError::kProcessingError), 4U);  // the third sample: 4th either way
  BusStatisticsSnapshot stats = bus.GetStatistics();
  CHECK_EQ(stats.messages_processed, 5U);
  CHECK_EQ(stats.processing_errors, 1U);

  // ProcessBatch / ProcessBatchWith from inside a handler dispatch nothing and are reported.
  CHECK(bus.Publish(Sample{kMainStream, 0U, 3U}, kMainSender));
  CHECK(bus.Publish(Sample{kMainStream, 0U, 4U}, kMainSender));
  std::uint32_t inner = 99U;
  Bus* const b = &bus;
  CHECK_EQ(bus.ProcessBatchWith([b, &inner](const auto&) noexcept {
    inner = b->ProcessBatch() + b->ProcessBatchWith([](const auto&) noexcept {});
  }),
           2U);
  CHECK_EQ(inner, 0U);
  CHECK_EQ(Errors(BusError::kReentrantCall), 4U);  // two inner calls per message
}

MCU_SUITE_INSTANTIATE_CASE(CallbacksOfAllThreeShapes);
MCU_SUITE_INSTANTIATE_CASE(VisitorDispatch);

}  // namespace mcu_suite
