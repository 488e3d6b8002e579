// SPDX-License-Identifier: MIT
/// @file fuzz_model.hpp
/// @brief The reference model's records: queued messages, expected statistics, held loans and
/// retained handles, subscriber behaviours, and the events one bus call produced (callbacks,
/// visits, subscription changes, error reports) that the harness matches against the model.
#ifndef MCCC_TESTS_FUZZ_MODEL_HPP_
#define MCCC_TESTS_FUZZ_MODEL_HPP_

#include <array>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "fuzz_payloads.hpp"
#include "mccc/mccc.hpp"

namespace mccc_fuzz {

using mccc::BackpressureLevel;
using mccc::BusError;
using mccc::MessageHeader;
using mccc::MessagePriority;
using mccc::PerformanceMode;
using mccc::SubscriptionHandle;

struct ModelMessage {
  uint32_t seq;
  uint8_t type;
  MessagePriority priority;
  uint32_t sender;
  bool fast;  // PublishFast: the timestamp is the caller's
  uint64_t timestamp;
};

struct ModelStats {
  std::array<uint64_t, mccc::kPriorityCount> published{};
  std::array<uint64_t, mccc::kPriorityCount> dropped{};
  uint64_t processed = 0U;
  uint64_t errors = 0U;
};

/// The pool's counters as the model expects them.
struct ModelLoanStats {
  uint64_t granted = 0U;
  std::array<uint64_t, mccc::kPriorityCount> refused{};
  uint64_t high_water = 0U;  // counted at grants in kFullFeatured; reset to the blocks in use
};

/// A loan the producer holds (granted, not published yet).
struct HeldLoan {
  uint32_t seq;
  uint8_t fill;
  MessagePriority priority;  // the pool admitted it at this priority
  mccc::MessageLoan<Cloud> loan;
};

/// A handle a subscriber (or the visitor) kept beyond its callback, or a copy of one.
struct HeldRetained {
  uint32_t seq;
  uint8_t fill;
  mccc::Retained<Cloud> handle;
};

/// kRetain: a Cloud subscriber keeps the message beyond its callback (no effect on other types).
enum class Action : uint8_t {
  kNone,
  kUnsubscribeSelf,
  kUnsubscribeOther,
  kSubscribeNew,
  kThrow,
  kRetain
};
constexpr uint32_t kActions = 6U;

struct Behavior {
  uint8_t form = 1U;          // 0: (envelope), 1: (T, header), 2: (T)
  bool returns_bool = false;  // false: void
  uint8_t fail_mod = 0U;      // returns false when seq % fail_mod == 0 (0: never)
  Action action = Action::kNone;
  uint8_t action_mod = 1U;  // the action runs when seq % action_mod == 0
};

struct Subscriber {
  uint8_t type;
  Behavior behavior;
  SubscriptionHandle handle;
  bool live;
};

enum class EventKind : uint8_t { kCall, kVisit, kAdd, kRemove, kError };

/// What happened during one bus call, in order (callbacks, visitor, error callback).
struct Event {
  EventKind kind;
  uint32_t sub;  // kCall / kAdd / kRemove
  uint32_t seq;  // the message being dispatched (tag of kAdd / kRemove)
  bool ok;       // call result / subscribe or unsubscribe result
  bool has_header;
  MessageHeader header;
  BusError error;
  uint64_t id;
};

inline std::vector<Event>* g_events = nullptr;  // where the error callback records

inline void RecordError(BusError error, uint64_t id) {
  if (g_events == nullptr) {
    std::abort();  // the error callback of a bus that is not under test
  }
  Event e{};
  e.kind = EventKind::kError;
  e.error = error;
  e.id = id;
  g_events->push_back(e);
}

constexpr std::array<uint64_t, mccc::kPriorityCount> kAdmitPercent = {60U, 80U, 99U};

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_MODEL_HPP_
