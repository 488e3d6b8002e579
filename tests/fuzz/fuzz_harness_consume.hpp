// SPDX-License-Identifier: MIT
/// @file fuzz_harness_consume.hpp
/// @brief Consuming: which messages the next batch dispatches (PlanBatch), ProcessBatch,
/// ProcessBatchWith and Drain, and the replay that matches a batch's events to its messages.
#ifndef MCCC_TESTS_FUZZ_HARNESS_CONSUME_HPP_
#define MCCC_TESTS_FUZZ_HARNESS_CONSUME_HPP_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_harness.hpp"

namespace mccc_fuzz {

template <typename Bus>
uint64_t Harness<Bus>::PlanBatch() {
  batch_.clear();
  const uint64_t high = std::min<uint64_t>(kBatch, high_.size());
  for (uint64_t i = 0U; i < high; ++i) {
    batch_.push_back(high_.front());
    high_.pop_front();
  }
  high_dispatched_ += high;
  // A HIGH flood that used up the batch's HIGH share ends the batch (HIGH still queued), with
  // one LOW/MEDIUM message once a whole HIGH ring went since the last LOW/MEDIUM dispatch.
  const bool flood = high == kBatch && !high_.empty();
  const uint64_t share =
      !flood ? kBatch : (high_dispatched_ - high_at_normal_ >= kHighDepth ? 1U : 0U);
  const uint64_t normal = std::min<uint64_t>(share, normal_.size());
  for (uint64_t i = 0U; i < normal; ++i) {
    batch_.push_back(normal_.front());
    normal_.pop_front();
  }
  if (normal != 0U) {
    high_at_normal_ = high_dispatched_;
  }
  return batch_.size();
}

template <typename Bus>
void Harness<Bus>::ProcessBatchChecked() {
  const std::vector<uint8_t> live_at_start = LiveFlags();
  const uint64_t expected = PlanBatch();
  phase_ = Phase::kProcessBatch;
  const uint32_t n = bus_->ProcessBatch();
  phase_ = Phase::kIdle;
  // The batch ended: entries removed during it are free again (subscription_table.hpp).
  pending_removed_ = {};
  FUZZ_CHECK_EQ(n, expected, "ProcessBatch count");
  Replay(n, live_at_start, /*visitor=*/false);
}

template <typename Bus>
void Harness<Bus>::ProcessBatchWithChecked(uint8_t config) {
  const std::vector<uint8_t> live_at_start = LiveFlags();
  const uint64_t expected = PlanBatch();
  visitor_config_ = config;
  phase_ = Phase::kProcessBatchWith;
  const uint32_t n = bus_->ProcessBatchWith(Visitor{this});
  phase_ = Phase::kIdle;
  FUZZ_CHECK_EQ(n, expected, "ProcessBatchWith count");
  Replay(n, live_at_start, /*visitor=*/true);
}

template <typename Bus>
void Harness<Bus>::Drain(uint8_t pattern) {
  for (uint32_t round = 0U; round < 4U * kDepth + 4U; ++round) {
    if (Queued() == 0U) {
      break;
    }
    if (((static_cast<uint32_t>(pattern) >> (round % 8U)) & 1U) != 0U) {
      ProcessBatchWithChecked(static_cast<uint8_t>(pattern + round));
    } else {
      ProcessBatchChecked();
    }
    AfterOperation();
  }
  FUZZ_CHECK_EQ(bus_->ProcessBatch(), 0U, "ProcessBatch on an empty queue");
  FUZZ_CHECK(log_.empty(), "events from an empty ProcessBatch");
}

template <typename Bus>
void Harness<Bus>::Replay(uint32_t n, const std::vector<uint8_t>& live_at_start, bool visitor) {
  std::vector<uint8_t> live = live_at_start;
  live.resize(subs_.size(), 0U);
  std::size_t cursor = 0U;
  const bool reporting = Reporting();
  for (uint32_t k = 0U; k < n; ++k) {
    FUZZ_CHECK(k < batch_.size(), "dispatched more messages than were queued");
    const ModelMessage m = batch_[k];
    const uint64_t id = first_id_ + delivered_total_;
    ++delivered_total_;
    std::vector<uint8_t> at_start(subs_.size(), 0U);
    for (std::size_t s = 0U; s < subs_.size(); ++s) {
      at_start[s] = static_cast<uint8_t>(live[s] != 0U && subs_[s].type == m.type);
    }
    std::vector<uint8_t> calls(subs_.size(), 0U);
    std::vector<uint8_t> added(subs_.size(), 0U);
    std::vector<uint8_t> removed(subs_.size(), 0U);
    uint64_t failures = 0U;
    uint64_t processing_errors = 0U;
    uint64_t overflows = 0U;
    uint64_t visits = 0U;
    for (; cursor < log_.size(); ++cursor) {
      const Event& e = log_[cursor];
      if ((e.kind == EventKind::kCall || e.kind == EventKind::kVisit) && e.seq == m.seq) {
        if (e.kind == EventKind::kCall) {
          FUZZ_CHECK(!visitor, "a subscriber was called by ProcessBatchWith");
          FUZZ_CHECK(subs_[e.sub].type == m.type, "subscriber of another type called");
          FUZZ_CHECK(live[e.sub] != 0U, "subscriber called while unsubscribed");
          FUZZ_CHECK(at_start[e.sub] != 0U || added[e.sub] != 0U,
                     "subscriber called that was neither live at the message's start nor "
                     "added during it");
          FUZZ_CHECK_EQ(calls[e.sub], 0U, "subscriber called twice for one message");
          calls[e.sub] = 1U;
        } else {
          FUZZ_CHECK(visitor, "the visitor ran during ProcessBatch");
          ++visits;
        }
        failures += e.ok ? 0U : 1U;
        if (e.has_header) {
          FUZZ_CHECK_EQ(e.header.msg_id, id, "msg_id");
          FUZZ_CHECK_EQ(e.header.sender_id, m.sender, "sender_id");
          FUZZ_CHECK_EQ(static_cast<uint8_t>(e.header.priority), static_cast<uint8_t>(m.priority),
                        "priority in the header");
          if (m.fast) {
            FUZZ_CHECK_EQ(e.header.timestamp_us, m.timestamp, "PublishFast timestamp");
          }
        }
      } else if ((e.kind == EventKind::kAdd || e.kind == EventKind::kRemove) && e.seq == m.seq) {
        if (e.ok) {
          live[e.sub] = e.kind == EventKind::kAdd ? 1U : 0U;
          (e.kind == EventKind::kAdd ? added : removed)[e.sub] = 1U;
        }
      } else if (e.kind == EventKind::kError && e.error == BusError::kProcessingError &&
                 e.id == id) {
        ++processing_errors;
      } else if (e.kind == EventKind::kError && e.error == BusError::kOverflowDetected &&
                 id == 0U && overflows == 0U) {
        ++overflows;
      } else {
        break;  // belongs to the next message, or to none (caught below)
      }
    }
    if (visitor) {
      FUZZ_CHECK_EQ(visits, 1U, "visitor calls for one message");
    } else {
      for (std::size_t s = 0U; s < at_start.size(); ++s) {
        if (at_start[s] != 0U && removed[s] == 0U) {
          FUZZ_CHECK_EQ(calls[s], 1U, "a subscriber live for the whole message was not called");
        }
      }
    }
    FUZZ_CHECK_EQ(processing_errors, reporting ? failures : 0U, "kProcessingError reports");
    FUZZ_CHECK_EQ(overflows, (reporting && id == 0U) ? 1U : 0U, "kOverflowDetected reports");
    if (mode_ == PerformanceMode::kFullFeatured) {
      ++stats_.processed;
      stats_.errors += failures;
    }
  }
  if (cursor != log_.size()) {
    const Event& e = log_[cursor];
    Mismatch("an event that belongs to no dispatched message (kind, seq or id)",
             static_cast<uint64_t>(e.kind) * 1000000U + e.seq, e.id, __FILE__, __LINE__);
  }
  log_.clear();
}

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_HARNESS_CONSUME_HPP_
