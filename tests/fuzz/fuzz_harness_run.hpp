// SPDX-License-Identifier: MIT
/// @file fuzz_harness_run.hpp
/// @brief The harness's opcode interpreter (Step: one opcode byte and its arguments per operation),
/// its run over a whole input (Run) and the invariants checked after every operation.
#ifndef MCCC_TESTS_FUZZ_HARNESS_RUN_HPP_
#define MCCC_TESTS_FUZZ_HARNESS_RUN_HPP_

#include <cstdint>
#include <limits>
#include <memory>

#include "fuzz_check.hpp"
#include "fuzz_harness.hpp"

namespace mccc_fuzz {

template <typename Bus>
Harness<Bus>::Harness(Input& in, bool near_wrap, uint8_t wrap_distance, bool drain_at_end)
    : in_(in), drain_at_end_(drain_at_end) {
  if (near_wrap) {
    start_ = static_cast<Position>(std::numeric_limits<Position>::max() - wrap_distance);
    first_id_ = static_cast<uint64_t>(start_) + 1U;  // msg_id = position + 1, as from 0
    bus_ = std::make_unique<Bus>(start_, first_id_);
  } else {
    bus_ = std::make_unique<Bus>();
  }
  foreign_ = std::make_unique<Bus>();
  g_events = &log_;
  if constexpr (Bus::LaneCount() > 0U) {
    // This thread publishes everything: its identity selects its ring for the whole input.
    const uint32_t identity = mccc::detail::ThisThreadShard();
    if (identity < Bus::LaneCount()) {
      own_ring_ = identity;
      normal_depth_ = Bus::kLaneDepth;
    } else {
      own_ring_ = Bus::LaneCount();
    }
  }
}

template <typename Bus>
void Harness<Bus>::Run() {
  for (uint32_t ops = 0U; ops < kMaxOps && !in_.Exhausted(); ++ops) {
    Step(in_.Byte());
    AfterOperation();
  }
  CheckStatistics();
  CheckIntrospection();
  if (drain_at_end_) {
    Drain(0U);
    FUZZ_CHECK_EQ(bus_->QueueOccupancy(), 0U, "queue not empty after draining");
    CheckStatistics();
  }
  // Every loan and retained handle goes (each checked intact first): only the queued Cloud
  // messages keep blocks, none after a drain.
  while (!loans_.empty()) {
    DropLoan(0U, static_cast<uint8_t>(loans_.size()));
  }
  while (!retained_.empty()) {
    ReleaseRetained(0U, static_cast<uint8_t>(retained_.size()));
  }
  AfterOperation();
  FUZZ_CHECK_EQ(bus_->template GetLoanStatistics<Cloud>().in_use, QueuedClouds(),
                "blocks in use once every loan and retained handle is gone");
  if (drain_at_end_) {
    FUZZ_CHECK_EQ(bus_->template GetLoanStatistics<Cloud>().in_use, 0U,
                  "a block did not come back to the pool");
    // The whole pool is usable again: kPool HIGH loans are granted, one more is refused.
    for (uint64_t i = 0U; i <= kPool; ++i) {
      static_cast<void>(LoanOne(kHighPriorityByte, (i & 1U) != 0U, static_cast<uint8_t>(i)));
      AfterOperation();
    }
    FUZZ_CHECK_EQ(loans_.size(), kPool, "HIGH loans granted from the emptied pool");
    CheckStatistics();
    while (!loans_.empty()) {
      DropLoan(0U, 0U);
    }
    AfterOperation();
  }
  // Destroys queued payloads and all subscriptions (the counters must return to zero).
  bus_.reset();
  foreign_.reset();
  FUZZ_CHECK_EQ(g_live_text, 0, "Text payloads alive after the bus was destroyed");
  FUZZ_CHECK_EQ(g_live_clouds, 0, "Cloud messages alive after the bus was destroyed");
  FUZZ_CHECK_EQ(g_live_captures, 0, "callback captures alive after the bus was destroyed");
}

template <typename Bus>
void Harness<Bus>::Step(uint8_t opcode) {
  const uint8_t op = static_cast<uint8_t>(opcode % 28U);
  if (op <= 6U) {
    // One byte after the other: the order in which a call's arguments are evaluated is
    // unspecified (GCC goes right to left), and the input format names this order.
    const uint8_t type = in_.Byte();
    const uint8_t priority = in_.Byte();
    const uint8_t sender = in_.Byte();
    PublishOne(op, type, priority, sender);
    return;
  }
  switch (op) {
    case 7U: {  // burst: up to 255 publishes of one kind (fills any queue); api 7: one batch
      const uint32_t count = in_.Byte();
      const uint8_t api = static_cast<uint8_t>(in_.Byte() % 8U);
      const uint8_t type = in_.Byte();
      const uint8_t priority = in_.Byte();
      if (api == kApiBatch) {
        PublishBatchChecked(count, type, priority);
        break;
      }
      for (uint32_t i = 0U; i < count; ++i) {
        PublishOne(api, static_cast<uint8_t>(type + (i % 3U) * (static_cast<uint32_t>(type) >> 7U)),
                   priority, static_cast<uint8_t>(i));
      }
      break;
    }
    case 8U:
      ProcessBatchChecked();
      break;
    case 9U:
      ProcessBatchWithChecked(in_.Byte());
      break;
    case 10U:
      Drain(in_.Byte());
      break;
    case 11U:
    case 12U: {
      const uint8_t a = in_.Byte();
      const uint8_t b = in_.Byte();
      Behavior behavior;
      behavior.form = static_cast<uint8_t>((a / kTypes) % 3U);
      behavior.returns_bool = ((a / (3U * kTypes)) & 1U) != 0U;
      behavior.fail_mod = static_cast<uint8_t>(b & 7U);
      behavior.action = static_cast<Action>(((static_cast<uint32_t>(b) >> 3U) & 7U) % kActions);
      behavior.action_mod = static_cast<uint8_t>((static_cast<uint32_t>(b) >> 6U) + 1U);
      static_cast<void>(DoSubscribe(static_cast<uint8_t>(a % kTypes), behavior));
      break;
    }
    case 13U:
      UnsubscribeVariant(in_.Byte());
      break;
    case 14U: {
      constexpr std::array<PerformanceMode, 3> kModes = {
          PerformanceMode::kFullFeatured, PerformanceMode::kNoStats, PerformanceMode::kBareMetal};
      mode_ = kModes[in_.Byte() % 3U];
      bus_->SetPerformanceMode(mode_);
      break;
    }
    case 15U:
      bus_->ResetStatistics();
      stats_ = ModelStats{};
      loan_stats_ = ModelLoanStats{};
      loan_stats_.high_water = BlocksInUse();  // the mark restarts from the blocks in use
      break;
    case 16U:
      CheckStatistics();
      break;
    case 17U:
      CheckIntrospection();
      break;
    case 18U:
      error_callback_set_ = (in_.Byte() & 1U) == 0U;
      bus_->SetErrorCallback(error_callback_set_ ? &RecordError : nullptr);
      break;
    case 19U:
      ForeignOperation(in_.Byte());
      break;
    case 20U: {  // Loan<Cloud>(priority[, seq, fill]) and fill it
      const uint8_t priority = in_.Byte();
      const uint8_t how = in_.Byte();
      static_cast<void>(LoanOne(priority, (how & 1U) != 0U, in_.Byte()));
      break;
    }
    case 21U: {  // publish a held loan (or an empty one)
      const std::size_t pick = in_.Byte();
      const uint8_t api = in_.Byte();
      const uint8_t priority = in_.Byte();
      PublishLoan(pick, api, priority, in_.Byte());
      break;
    }
    case 22U: {  // give a held loan back unpublished
      const uint8_t pick = in_.Byte();
      DropLoan(pick, in_.Byte());
      break;
    }
    case 23U: {  // write a held loan's message again, in place
      const uint8_t pick = in_.Byte();
      RefillLoan(pick, in_.Byte());
      break;
    }
    case 24U: {  // one more reference from a retained handle
      const uint8_t pick = in_.Byte();
      RetainAgain(pick, in_.Byte());
      break;
    }
    case 25U: {  // let a retained handle go
      const uint8_t pick = in_.Byte();
      ReleaseRetained(pick, in_.Byte());
      break;
    }
    case 27U: {  // a loan of the second bus published here, then on its own bus
      const uint8_t priority = in_.Byte();
      const uint8_t api = in_.Byte();
      ForeignLoan(priority, api, in_.Byte());
      break;
    }
    default: {  // loan burst: up to 255 loans of one priority, each published at once or kept
      const uint32_t count = in_.Byte();
      const uint8_t priority = in_.Byte();
      const uint8_t api = in_.Byte();
      for (uint32_t i = 0U; i < count; ++i) {
        const std::size_t held =
            LoanOne(priority, (i & 1U) != 0U, static_cast<uint8_t>(next_seq_ * 5U));
        if (held != kNoLoan && api % kLoanApis != kKeepLoan) {
          PublishHeldLoan(held, api, priority, static_cast<uint8_t>(i));
        }
      }
      break;
    }
  }
}

template <typename Bus>
void Harness<Bus>::AfterOperation() {
  FUZZ_CHECK(log_.empty(), "an event nobody explained");
  FUZZ_CHECK_EQ(bus_->QueueOccupancy(), Queued(), "QueueDepth");
  long queued_text = 0;
  for (const std::deque<ModelMessage>* fifo : {&normal_, &high_}) {
    for (const ModelMessage& m : *fifo) {
      queued_text += m.type == 2U ? 1 : 0;
    }
  }
  FUZZ_CHECK_EQ(g_live_text, queued_text, "live Text payloads != Text messages queued");
  FUZZ_CHECK_EQ(g_live_captures, live_total_ + foreign_live_,
                "live callback captures != live subscriptions (leaked or destroyed early)");
  const uint64_t blocks = BlocksInUse();
  FUZZ_CHECK_EQ(bus_->template GetLoanStatistics<Cloud>().in_use, blocks,
                "blocks in use != loans held + messages queued or retained (one block each)");
  FUZZ_CHECK_EQ(bus_->GetStatistics().loan_blocks_in_use, blocks,
                "GetStatistics().loan_blocks_in_use");
  FUZZ_CHECK_EQ(g_live_clouds, blocks,
                "live Cloud messages != blocks in use (destroyed twice, early or never)");
}

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_HARNESS_RUN_HPP_
