// SPDX-License-Identifier: MIT
// The bare-metal suite's shared state and out-of-line helpers (mcu_suite.hpp): the arena, the
// error counters, the delivery logs, the statistics comparison and the scan contents.
#include "mcu_suite.hpp"

#include "platform/cortex_m.hpp"

namespace mcu_suite {

alignas(Arena::kAlign) unsigned char g_arena[Arena::kBytes];

namespace {

constexpr std::size_t kErrorKinds = static_cast<std::size_t>(BusError::kForeignLoan) + 1U;
volatile std::uint32_t g_error_count[kErrorKinds];
volatile std::uint64_t g_error_last_id[kErrorKinds];

}  // namespace

void RecordError(BusError error, std::uint64_t msg_id) noexcept {
  const std::size_t kind = static_cast<std::size_t>(error) % kErrorKinds;
  const std::uint32_t masked = mcu::Primask();
  mcu::DisableInterrupts();
  g_error_count[kind] = g_error_count[kind] + 1U;
  g_error_last_id[kind] = msg_id;
  if (masked == 0U) {
    mcu::EnableInterrupts();
  }
}

void ClearErrors() noexcept {
  for (std::size_t i = 0U; i < kErrorKinds; ++i) {
    g_error_count[i] = 0U;
    g_error_last_id[i] = 0U;
  }
}

std::uint32_t Errors(BusError error) noexcept {
  return g_error_count[static_cast<std::size_t>(error) % kErrorKinds];
}

std::uint64_t LastErrorId(BusError error) noexcept {
  return g_error_last_id[static_cast<std::size_t>(error) % kErrorKinds];
}

DeliveryLog g_log;
DeliveryLog g_isr_log;

void CheckSameCounts(const BusStatisticsSnapshot& now, const BusStatisticsSnapshot& before) {
  CHECK_EQ(now.messages_published, before.messages_published);
  CHECK_EQ(now.messages_dropped, before.messages_dropped);
  CHECK_EQ(now.low_priority_published, before.low_priority_published);
  CHECK_EQ(now.medium_priority_published, before.medium_priority_published);
  CHECK_EQ(now.high_priority_published, before.high_priority_published);
  CHECK_EQ(now.low_priority_dropped, before.low_priority_dropped);
  CHECK_EQ(now.medium_priority_dropped, before.medium_priority_dropped);
  CHECK_EQ(now.high_priority_dropped, before.high_priority_dropped);
}

namespace {

std::uint16_t RangeFor(std::uint16_t stream, std::uint32_t sequence, std::uint32_t i) noexcept {
  return static_cast<std::uint16_t>(sequence * 31U + i * 7U + stream);
}

}  // namespace

void FillScan(Scan& scan, std::uint16_t stream, std::uint32_t sequence) noexcept {
  scan.stream = stream;
  scan.spare = 0U;
  scan.sequence = sequence;
  for (std::uint32_t i = 0U; i < kScanRanges; ++i) {
    scan.ranges[i] = RangeFor(stream, sequence, i);
  }
}

bool ScanIntact(const Scan& scan) noexcept {
  for (std::uint32_t i = 0U; i < kScanRanges; ++i) {
    if (scan.ranges[i] != RangeFor(scan.stream, scan.sequence, i)) {
      return false;
    }
  }
  return true;
}

}  // namespace mcu_suite
