// SPDX-License-Identifier: MIT
/// @file fuzz_harness_nested.hpp
/// @brief A publish from inside the constructor of a message being built in its slot, as a signal
/// handler interrupting its thread's publish would publish.
#ifndef MCCC_TESTS_FUZZ_HARNESS_NESTED_HPP_
#define MCCC_TESTS_FUZZ_HARNESS_NESTED_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_harness.hpp"

namespace mccc_fuzz {

template <typename Bus>
struct Harness<Bus>::NestedPublish {
  Harness* harness = nullptr;
  uint32_t seq = 0U;
  uint32_t sender = 0U;
  MessagePriority priority = MessagePriority::kMedium;
  bool ran = false;
  bool admitted = false;
  std::vector<Event> log;  // the error callback's reports during it
};

template <typename Bus>
void Harness<Bus>::RunNested(void* context) {
  auto& nested = *static_cast<NestedPublish*>(context);
  Harness& self = *nested.harness;
  const std::size_t before = self.log_.size();
  nested.ran = true;
  nested.admitted =
      self.bus_->PublishWithPriority(Small(nested.seq), nested.sender, nested.priority);
  nested.log.assign(self.log_.begin() + static_cast<std::ptrdiff_t>(before), self.log_.end());
  self.log_.resize(before);
}

template <typename Bus>
void Harness<Bus>::PublishEmplaceWithNested(uint32_t seq, MessagePriority priority,
                                            uint32_t sender) {
  NestedPublish nested;
  nested.harness = this;
  nested.seq = next_seq_++;
  nested.sender = sender + 1U;
  nested.priority = priority;
  g_in_constructor_context = &nested;
  g_in_constructor = &RunNested;
  const bool admitted = bus_->template PublishEmplace<Small>(sender, priority, seq);
  g_in_constructor = nullptr;
  g_in_constructor_context = nullptr;
  FUZZ_CHECK_EQ(nested.ran, admitted, "the slot's constructor runs exactly when admitted");
  ExpectPublish(admitted, ModelMessage{seq, kIndexOf<Small>, priority, sender, false, 0U});
  if (nested.ran) {
    log_ = nested.log;
    ExpectPublish(nested.admitted,
                  ModelMessage{nested.seq, kIndexOf<Small>, priority, nested.sender, false, 0U});
  }
}

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_HARNESS_NESTED_HPP_
