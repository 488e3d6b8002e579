// SPDX-License-Identifier: MIT
// The bare-metal suite: admission at every priority threshold and in every performance mode,
// the backpressure level at every occupancy, PublishBatch's admitted prefix and the statistics
// snapshot, field by field.
#include <cstdint>
#include <initializer_list>

#include "mcu_suite.hpp"
#include "mcu_suite_cases.hpp"

namespace mcu_suite {

/// Each priority is admitted exactly while the occupancy is below its threshold, in
/// kFullFeatured and kNoStats; kBareMetal admits until full; the HIGH ring admits HIGH while it
/// has room. Refusals are counted per priority and reported as kQueueFull.
template <typename Config>
void AdmissionAtEveryThreshold() {
  using Bus = typename Config::Bus;
  using L = Limits<Bus>;

  // The bus's published thresholds are the same numbers.
  CHECK_EQ(Bus::LOW_PRIORITY_THRESHOLD, L::kLow);
  CHECK_EQ(Bus::MEDIUM_PRIORITY_THRESHOLD, L::kMedium);
  CHECK_EQ(Bus::HIGH_PRIORITY_THRESHOLD, L::kHigh);
  CHECK_EQ(Bus::BACKPRESSURE_WARNING_THRESHOLD,
           FirstOccupancyAtPercent(L::kDepth, L::Admission::kWarningPercent));
  CHECK_EQ(Bus::BACKPRESSURE_CRITICAL_THRESHOLD,
           FirstOccupancyAtPercent(L::kDepth, L::Admission::kCriticalPercent));
  CHECK(L::kLow < L::kMedium && L::kMedium < L::kHigh && L::kHigh <= L::kDepth);

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);
  std::uint32_t sequence = 0U;

  // From empty: LOW up to its limit, then MEDIUM up to its own; LOW stays refused.
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kLow, sequence), L::kLow);
  CHECK_EQ(bus.QueueOccupancy(), L::kLow);
  CHECK_EQ(Errors(BusError::kQueueFull), 1U);
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kMedium, sequence), L::kMedium - L::kLow);
  CHECK_EQ(bus.QueueOccupancy(), L::kMedium);
  CHECK(!bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender,
                                 MessagePriority::kLow));

  // HIGH: a ring of its own, or the shared ring up to the HIGH limit.
  const std::uint32_t high_admitted = PublishUntilRefused(bus, MessagePriority::kHigh, sequence);
  if constexpr (L::kHighRing > 0U) {
    CHECK_EQ(high_admitted, L::kHighRing);
    CHECK_EQ(bus.HighRingOccupancy(), L::kHighRing);
    CHECK_EQ(bus.QueueOccupancy(), L::kMedium + L::kHighRing);
  } else {
    CHECK_EQ(high_admitted, L::kHigh - L::kMedium);
    CHECK_EQ(bus.HighRingOccupancy(), 0U);
    CHECK_EQ(bus.QueueOccupancy(), L::kHigh);
  }
  CHECK(!bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender,
                                 MessagePriority::kMedium));

  const BusStatisticsSnapshot stats = bus.GetStatistics();
  CHECK_EQ(stats.low_priority_published, L::kLow);
  CHECK_EQ(stats.medium_priority_published, L::kMedium - L::kLow);
  CHECK_EQ(stats.high_priority_published, high_admitted);
  CHECK_EQ(stats.low_priority_dropped, 2U);
  CHECK_EQ(stats.medium_priority_dropped, 2U);
  CHECK_EQ(stats.high_priority_dropped, 1U);
  CHECK_EQ(stats.messages_published, L::kMedium + high_admitted);
  CHECK_EQ(stats.messages_dropped, 5U);
  CHECK_EQ(Errors(BusError::kQueueFull), 5U);

  // Everything admitted is delivered: HIGH first when it has a ring of its own, else in publish
  // order.
  g_log = DeliveryLog{};
  CHECK_EQ(DrainInto(bus, g_log), L::kMedium + high_admitted);
  for (std::uint32_t i = 0U; i < g_log.size; ++i) {
    std::uint32_t expected = i;
    if (L::kHighRing > 0U) {
      expected = i < high_admitted ? L::kMedium + i : i - high_admitted;
    }
    if (!CHECK_EQ(g_log.items[i].value, expected) || !CHECK_EQ(g_log.items[i].msg_id, i + 1U)) {
      break;
    }
  }

  // The threshold approached from a non-empty queue: one below it LOW is admitted, at it not.
  CHECK_EQ(PublishCount(bus, MessagePriority::kMedium, L::kLow - 1U, sequence), L::kLow - 1U);
  CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, sequence++}, kMainSender,
                                MessagePriority::kLow));
  CHECK(!bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender,
                                 MessagePriority::kLow));
  CHECK_EQ(Drain(bus), L::kLow);

  // kNoStats: the same thresholds, refusals still reported, nothing counted.
  bus.SetPerformanceMode(PerformanceMode::kNoStats);
  BusStatisticsSnapshot before = bus.GetStatistics();
  std::uint32_t reported = Errors(BusError::kQueueFull);
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kLow, sequence), L::kLow);
  CHECK_EQ(Errors(BusError::kQueueFull), reported + 1U);
  CheckSameCounts(bus.GetStatistics(), before);
  CHECK_EQ(Drain(bus), L::kLow);

  // kBareMetal: every priority admitted until the ring is full; nothing counted or reported.
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);
  before = bus.GetStatistics();
  reported = Errors(BusError::kQueueFull);
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kLow, sequence), L::kDepth);
  CHECK(!bus.PublishWithPriority(Sample{kMainStream, 0U, sequence}, kMainSender,
                                 MessagePriority::kMedium));
  CHECK_EQ(PublishUntilRefused(bus, MessagePriority::kHigh, sequence), L::kHighRing);
  CHECK_EQ(Errors(BusError::kQueueFull), reported);
  CheckSameCounts(bus.GetStatistics(), before);
  CHECK_EQ(Drain(bus), L::kDepth + L::kHighRing);
  bus.SetPerformanceMode(PerformanceMode::kFullFeatured);
}

/// The backpressure level and the utilisation at every occupancy of the ring (and of the HIGH
/// ring), against the boundaries derived from the bus's percentages; the fullest ring decides.
template <typename Config>
void BackpressureAtEveryOccupancy() {
  using Bus = typename Config::Bus;
  using L = Limits<Bus>;

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);  // admits up to the whole ring
  std::uint32_t sequence = 0U;
  for (std::uint32_t occupancy = 0U; occupancy <= L::kDepth; ++occupancy) {
    if (!CHECK_EQ(bus.GetBackpressureLevel(),
                  ExpectedLevel<typename L::Admission>(occupancy, L::kDepth)) ||
        !CHECK_EQ(bus.QueueUtilizationPercent(), occupancy * 100U / L::kDepth) ||
        !CHECK_EQ(bus.QueueOccupancy(), occupancy)) {
      break;
    }
    if (occupancy < L::kDepth &&
        !CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, sequence++}, kMainSender,
                                       MessagePriority::kLow))) {
      break;
    }
  }
  CHECK_EQ(Drain(bus), L::kDepth);
  CHECK_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kNormal);

  if constexpr (L::kHighRing > 0U) {
    for (std::uint32_t occupancy = 0U; occupancy <= L::kHighRing; ++occupancy) {
      if (!CHECK_EQ(bus.GetBackpressureLevel(),
                    ExpectedLevel<typename L::Admission>(occupancy, L::kHighRing)) ||
          !CHECK_EQ(bus.QueueUtilizationPercent(), occupancy * 100U / L::kHighRing) ||
          !CHECK_EQ(bus.HighRingOccupancy(), occupancy)) {
        break;
      }
      if (occupancy < L::kHighRing &&
          !CHECK(bus.PublishWithPriority(Sample{kMainStream, 0U, sequence++}, kMainSender,
                                         MessagePriority::kHigh))) {
        break;
      }
    }
    // A ring merely at WARNING does not hide a full HIGH ring.
    const std::uint32_t warning = FirstOccupancyAtPercent(L::kDepth, L::Admission::kWarningPercent);
    CHECK_EQ(PublishCount(bus, MessagePriority::kLow, warning, sequence), warning);
    CHECK_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kFull);
    CHECK_EQ(Drain(bus), warning + L::kHighRing);
    CHECK_EQ(bus.GetBackpressureLevel(), BackpressureLevel::kNormal);
  }
}

/// PublishBatch admits exactly the prefix that single publishes would, with consecutive ids,
/// reports one kQueueFull per call that refused any, and refuses bad arguments.
template <typename Config>
void PublishBatchAdmitsAPrefix() {
  using Bus = typename Config::Bus;
  using L = Limits<Bus>;
  constexpr std::uint32_t kPrefilled = 10U;
  constexpr std::uint32_t kBatch = 40U;
  constexpr std::uint32_t kFirstBatchSequence = 1000U;

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  ClearErrors();
  bus.SetErrorCallback(&RecordError);

  Sample batch[kBatch];
  for (std::uint32_t i = 0U; i < kBatch; ++i) {
    batch[i] = Sample{kMainStream, 0U, kFirstBatchSequence + i};
  }
  std::uint32_t sequence = 0U;
  CHECK_EQ(PublishCount(bus, MessagePriority::kLow, kPrefilled, sequence), kPrefilled);

  // LOW: the room below the LOW limit, then nothing.
  const std::uint32_t low = bus.PublishBatch(batch, kBatch, kMainSender, MessagePriority::kLow);
  CHECK_EQ(low, L::kLow - kPrefilled);
  CHECK_EQ(bus.QueueOccupancy(), L::kLow);
  CHECK_EQ(Errors(BusError::kQueueFull), 1U);

  // The refused rest, retried as MEDIUM: the room up to the MEDIUM limit.
  const std::uint32_t rest = kBatch - low;
  const std::uint32_t medium_room = L::kMedium - L::kLow;
  const std::uint32_t medium =
      bus.PublishBatch(batch + low, rest, kMainSender, MessagePriority::kMedium);
  CHECK_EQ(medium, rest < medium_room ? rest : medium_room);
  CHECK_EQ(Errors(BusError::kQueueFull), rest > medium_room ? 2U : 1U);

  BusStatisticsSnapshot stats = bus.GetStatistics();
  CHECK_EQ(stats.low_priority_published, kPrefilled + low);
  CHECK_EQ(stats.low_priority_dropped, kBatch - low);
  CHECK_EQ(stats.medium_priority_published, medium);
  CHECK_EQ(stats.medium_priority_dropped, rest - medium);

  // Delivered in order: the singles, then the batch as one run with consecutive ids.
  g_log = DeliveryLog{};
  CHECK_EQ(DrainInto(bus, g_log), kPrefilled + low + medium);
  for (std::uint32_t i = 0U; i < g_log.size; ++i) {
    const std::uint32_t expected = i < kPrefilled ? i : kFirstBatchSequence + (i - kPrefilled);
    if (!CHECK_EQ(g_log.items[i].value, expected) || !CHECK_EQ(g_log.items[i].msg_id, i + 1U) ||
        !CHECK_EQ(g_log.items[i].sender_id, kMainSender)) {
      break;
    }
  }

  // Nothing to publish; no messages behind a pointer; not a priority.
  CHECK_EQ(bus.PublishBatch(batch, 0U, kMainSender), 0U);
  CHECK_EQ(Errors(BusError::kInvalidMessage), 0U);
  CHECK_EQ(bus.PublishBatch(static_cast<const Sample*>(nullptr), 3U, kMainSender), 0U);
  CHECK_EQ(Errors(BusError::kInvalidMessage), 1U);
  CHECK_EQ(bus.PublishBatch(batch, 3U, kMainSender, static_cast<MessagePriority>(7U)), 0U);
  CHECK_EQ(Errors(BusError::kInvalidMessage), 2U);
  CHECK_EQ(bus.QueueOccupancy(), 0U);

  // HIGH: the HIGH ring's room, or the ring up to the HIGH limit (all 40 from empty).
  const std::uint32_t high = bus.PublishBatch(batch, kBatch, kMainSender, MessagePriority::kHigh);
  CHECK_EQ(high, L::kHighRing > 0U ? L::kHighRing : kBatch);
  CHECK_EQ(Drain(bus), high);

  // More than the ring holds, in kBareMetal: exactly the capacity.
  bus.SetPerformanceMode(PerformanceMode::kBareMetal);
  Sample many[L::kDepth + 8U];
  for (std::uint32_t i = 0U; i < L::kDepth + 8U; ++i) {
    many[i] = Sample{kMainStream, 0U, i};
  }
  CHECK_EQ(bus.PublishBatch(many, L::kDepth + 8U, kMainSender, MessagePriority::kMedium),
           L::kDepth);
  CHECK_EQ(Drain(bus), L::kDepth);
  bus.SetPerformanceMode(PerformanceMode::kFullFeatured);
}

/// Every field of the statistics snapshot, exactly; Reset; kNoStats and kBareMetal count
/// nothing.
template <typename Config>
void StatisticsSnapshotIsExact() {
  using Bus = typename Config::Bus;
  using L = Limits<Bus>;
  constexpr std::uint32_t kHighInRing = Bus::kHighQueueDepth > 0U ? 0U : 2U;

  FreshBus<Bus> fresh;
  Bus& bus = *fresh;
  BusStatisticsSnapshot s = bus.GetStatistics();
  CHECK_EQ(s.messages_published + s.messages_dropped + s.messages_processed + s.processing_errors,
           0U);

  std::uint32_t sequence = 0U;
  CHECK_EQ(PublishCount(bus, MessagePriority::kLow, 5U, sequence), 5U);
  CHECK_EQ(PublishCount(bus, MessagePriority::kMedium, 3U, sequence), 3U);
  CHECK_EQ(PublishCount(bus, MessagePriority::kHigh, 2U, sequence), 2U);
  // LOW up to its limit (HIGH counts against it only without a HIGH ring), then one refusal.
  const std::uint32_t fill = PublishUntilRefused(bus, MessagePriority::kLow, sequence);
  CHECK_EQ(fill, L::kLow - 8U - kHighInRing);
  const std::uint32_t total = 10U + fill;
  const auto fail_sequence_3 = mccc::make_overloaded(
      [](const Sample& m) noexcept { return m.sequence != 3U; }, [](const auto&) noexcept {});
  CHECK_EQ(bus.ProcessBatchWith(fail_sequence_3), total);
  s = bus.GetStatistics();
  CHECK_EQ(s.messages_published, total);
  CHECK_EQ(s.messages_dropped, 1U);
  CHECK_EQ(s.messages_processed, total);
  CHECK_EQ(s.processing_errors, 1U);
  CHECK_EQ(s.low_priority_published, 5U + fill);
  CHECK_EQ(s.medium_priority_published, 3U);
  CHECK_EQ(s.high_priority_published, 2U);
  CHECK_EQ(s.low_priority_dropped, 1U);
  CHECK_EQ(s.medium_priority_dropped, 0U);
  CHECK_EQ(s.high_priority_dropped, 0U);

  bus.ResetStatistics();
  s = bus.GetStatistics();
  CHECK_EQ(s.messages_published + s.messages_dropped + s.messages_processed + s.processing_errors +
               s.low_priority_published + s.medium_priority_published + s.high_priority_published +
               s.low_priority_dropped + s.medium_priority_dropped + s.high_priority_dropped,
           0U);

  CHECK(bus.Publish(Sample{kMainStream, 0U, sequence++}, kMainSender));
  CHECK_EQ(Drain(bus), 1U);
  for (const PerformanceMode mode : {PerformanceMode::kNoStats, PerformanceMode::kBareMetal}) {
    bus.SetPerformanceMode(mode);
    CHECK(bus.Publish(Sample{kMainStream, 0U, sequence++}, kMainSender));
    CHECK_EQ(Drain(bus), 1U);
  }
  bus.SetPerformanceMode(PerformanceMode::kFullFeatured);
  s = bus.GetStatistics();
  CHECK_EQ(s.messages_published, 1U);
  CHECK_EQ(s.medium_priority_published, 1U);
  CHECK_EQ(s.messages_processed, 1U);
  CHECK_EQ(s.messages_dropped + s.processing_errors, 0U);
}

MCU_SUITE_INSTANTIATE_CASE(AdmissionAtEveryThreshold);
MCU_SUITE_INSTANTIATE_CASE(BackpressureAtEveryOccupancy);
MCU_SUITE_INSTANTIATE_CASE(PublishBatchAdmitsAPrefix);
MCU_SUITE_INSTANTIATE_CASE(StatisticsSnapshotIsExact);

}  // namespace mcu_suite
