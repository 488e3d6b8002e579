// SPDX-License-Identifier: MIT
/// @file fuzz_harness_publish.hpp
/// @brief Publishing through every API, each checked against the admission model (thresholds per
/// priority, the HIGH ring, kBareMetal, invalid priorities, PublishBatch's prefix).
#ifndef MCCC_TESTS_FUZZ_HARNESS_PUBLISH_HPP_
#define MCCC_TESTS_FUZZ_HARNESS_PUBLISH_HPP_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_harness.hpp"

namespace mccc_fuzz {

template <typename Bus>
MessagePriority Harness<Bus>::DecodePriority(uint8_t b) {
  switch (b % 8U) {
    case 0U:
    case 1U:
      return MessagePriority::kLow;
    case 2U:
    case 3U:
      return MessagePriority::kMedium;
    case 6U:  // not an enumerator: must be refused with kInvalidMessage
      return static_cast<MessagePriority>(3U + (static_cast<uint32_t>(b) >> 3U));
    default:
      return MessagePriority::kHigh;
  }
}

template <typename Bus>
void Harness<Bus>::PublishBatchChecked(uint32_t count, uint8_t type_byte, uint8_t priority_byte) {
  if ((type_byte % kInlineTypes) == 1U) {
    PublishBatchTyped<Big>(count, priority_byte);
  } else {
    PublishBatchTyped<Small>(count, priority_byte);
  }
}

template <typename Bus>
template <typename T>
void Harness<Bus>::PublishBatchTyped(uint32_t count, uint8_t priority_byte) {
  const MessagePriority priority = DecodePriority(priority_byte);
  const auto p = static_cast<std::size_t>(priority);
  const bool valid = p < mccc::kPriorityCount;
  const uint32_t sender = 9U;
  std::vector<T> messages;
  messages.reserve(count);
  for (uint32_t i = 0U; i < count; ++i) {
    messages.emplace_back(next_seq_++);
  }
  const uint32_t admitted = bus_->PublishBatch(messages.data(), count, sender, priority);
  for (const T& m : messages) {
    FUZZ_CHECK(m.Intact(), "PublishBatch changed the caller's array");
  }
  uint32_t expected = 0U;
  if (valid) {
    while (expected < count && Admits(priority, expected)) {
      ++expected;
    }
  }
  FUZZ_CHECK_EQ(admitted, expected, "PublishBatch admitted a different prefix");
  const bool reporting = Reporting();
  if (!valid) {
    FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "kInvalidMessage reports (batch)");
    if (reporting) {
      FUZZ_CHECK(log_[0].error == BusError::kInvalidMessage, "batch, bad priority: wrong error");
    }
    log_.clear();
    return;
  }
  for (uint32_t i = 0U; i < admitted; ++i) {
    FifoFor(priority).push_back(
        ModelMessage{messages[i].seq, kIndexOf<T>, priority, sender, false, 0U});
  }
  admitted_total_ += admitted;
  if (mode_ == PerformanceMode::kFullFeatured) {
    stats_.published[p] += admitted;
    stats_.dropped[p] += count - admitted;
  }
  const bool refused_some = admitted != count;
  FUZZ_CHECK_EQ(log_.size(), refused_some && reporting ? 1U : 0U,
                "kQueueFull reports for one batch");
  if (refused_some && reporting) {
    FUZZ_CHECK(log_[0].kind == EventKind::kError && log_[0].error == BusError::kQueueFull,
               "batch refusal: wrong error");
    FUZZ_CHECK_EQ(log_[0].id, WouldBeId(),
                  "batch kQueueFull id is not the first refused message's would-be id");
  }
  log_.clear();
}

template <typename Bus>
void Harness<Bus>::PublishOne(uint8_t api, uint8_t type_byte, uint8_t priority_byte,
                              uint8_t sender) {
  const uint32_t seq = next_seq_++;
  const MessagePriority priority = DecodePriority(priority_byte);
  const uint64_t timestamp = Mix(seq) >> 8U;
  switch (type_byte % kInlineTypes) {
    case 0U:
      PublishTyped<Small>(api, seq, priority, sender, timestamp);
      break;
    case 1U:
      PublishTyped<Big>(api, seq, priority, sender, timestamp);
      break;
    default:
      PublishTyped<Text>(api, seq, priority, sender, timestamp);
      break;
  }
}

template <typename Bus>
template <typename T>
void Harness<Bus>::PublishTyped(uint8_t api, uint32_t seq, MessagePriority priority,
                                uint32_t sender, uint64_t timestamp) {
  bool admitted = false;
  bool untouched = true;  // a refused message must not be moved from
  MessagePriority effective = priority;
  bool fast = false;
  switch (api) {
    case 0U: {  // Publish: MEDIUM
      T m(seq);
      admitted = bus_->Publish(std::move(m), sender);
      untouched = admitted || m.Intact();
      effective = MessagePriority::kMedium;
      break;
    }
    case 1U: {
      T m(seq);
      admitted = bus_->PublishWithPriority(std::move(m), sender, priority);
      untouched = admitted || m.Intact();
      break;
    }
    case 2U: {  // lvalue: copied, never moved
      const T m(seq);
      admitted = bus_->PublishWithPriority(m, sender, priority);
      untouched = m.Intact();
      break;
    }
    case 3U: {
      T m(seq);
      admitted = bus_->PublishFast(std::move(m), sender, timestamp, priority);
      untouched = admitted || m.Intact();
      fast = true;
      break;
    }
    case 4U: {  // PublishFast with its default priority (MEDIUM)
      T m(seq);
      admitted = bus_->PublishFast(std::move(m), sender, timestamp);
      untouched = admitted || m.Intact();
      effective = MessagePriority::kMedium;
      fast = true;
      break;
    }
    case 5U:  // in place (Text: its constructor may throw, so the bus builds a temporary)
      if constexpr (std::is_same_v<T, Small> && !Bus::TraitsType::kSingleProducer) {
        if ((sender & 0x80U) != 0U) {
          PublishEmplaceWithNested(seq, priority, sender);
          return;
        }
      }
      admitted = bus_->template PublishEmplace<T>(sender, priority, seq);
      break;
    default: {  // the whole variant
      Payload p(std::in_place_type<T>, seq);
      admitted = bus_->PublishWithPriority(std::move(p), sender, priority);
      untouched = admitted || (p.index() == kIndexOf<T> && std::get<T>(p).Intact());
      break;
    }
  }
  FUZZ_CHECK(untouched, "a refused publish moved from (or changed) the caller's message");
  ExpectPublish(admitted, ModelMessage{seq, kIndexOf<T>, effective, sender, fast, timestamp});
}

template <typename Bus>
void Harness<Bus>::ExpectPublish(bool admitted, const ModelMessage& m) {
  const auto p = static_cast<std::size_t>(m.priority);
  const bool valid = p < mccc::kPriorityCount;
  const bool expected = valid && Admits(m.priority, 0U);
  FUZZ_CHECK_EQ(admitted, expected, "admission decision (occupancy in the model is queue size)");
  const bool reporting = Reporting();
  if (admitted) {
    FifoFor(m.priority).push_back(m);
    ++admitted_total_;
    if (mode_ == PerformanceMode::kFullFeatured) {
      ++stats_.published[p];
    }
    FUZZ_CHECK(log_.empty(), "an admitted publish reported an error");
    return;
  }
  if (!valid) {
    FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "kInvalidMessage reports");
    if (reporting) {
      FUZZ_CHECK(log_[0].error == BusError::kInvalidMessage, "invalid priority: wrong error");
    }
    log_.clear();
    return;
  }
  if (mode_ == PerformanceMode::kFullFeatured) {
    ++stats_.dropped[p];
  }
  FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "kQueueFull reports for one refusal");
  if (reporting) {
    FUZZ_CHECK(log_[0].kind == EventKind::kError && log_[0].error == BusError::kQueueFull,
               "refusal: wrong error");
    FUZZ_CHECK_EQ(log_[0].id, WouldBeId(),
                  "kQueueFull id is not the id the refused message would have received");
  }
  log_.clear();
}

template <typename Bus>
bool Harness<Bus>::IsHighRing(MessagePriority priority) {
  return kHighRing && priority == MessagePriority::kHigh;
}

template <typename Bus>
std::deque<ModelMessage>& Harness<Bus>::FifoFor(MessagePriority priority) {
  return IsHighRing(priority) ? high_ : normal_;
}

template <typename Bus>
bool Harness<Bus>::Admits(MessagePriority priority, uint64_t extra) const {
  if (IsHighRing(priority)) {
    return high_.size() + extra < kHighDepth;  // the HIGH ring: while it has room, every mode
  }
  const uint64_t occupancy = normal_.size() + extra;
  const auto p = static_cast<std::size_t>(priority);
  return mode_ == PerformanceMode::kBareMetal ? occupancy < normal_depth_
                                              : occupancy * 100U < kAdmitPercent[p] * normal_depth_;
}

template <typename Bus>
uint64_t Harness<Bus>::WouldBeId() const {
  return first_id_ + (kDeliveryOrderIds ? delivered_total_ : admitted_total_);
}

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_HARNESS_PUBLISH_HPP_
