// SPDX-License-Identifier: MIT
/// @file fuzz_harness_callbacks.hpp
/// @brief What subscriber callbacks and the ProcessBatchWith visitor record and do (fail, throw,
/// subscribe, unsubscribe, retain) while a batch dispatches.
#ifndef MCCC_TESTS_FUZZ_HARNESS_CALLBACKS_HPP_
#define MCCC_TESTS_FUZZ_HARNESS_CALLBACKS_HPP_

#include <cstdint>
#include <type_traits>
#include <variant>

#include "fuzz_check.hpp"
#include "fuzz_harness.hpp"

namespace mccc_fuzz {

template <typename Bus>
template <typename T>
bool Harness<Bus>::OnCall(uint32_t sub_id, const T& m, const MessageHeader* header,
                          const CaptureToken& token, const mccc::Loaned<Cloud>* slot) {
  FUZZ_CHECK(token.Alive(), "callback runs with destroyed captures");
  FUZZ_CHECK(phase_ == Phase::kProcessBatch, "subscriber called outside ProcessBatch");
  FUZZ_CHECK(sub_id < subs_.size(), "unknown subscriber");
  const Subscriber sub = subs_[sub_id];  // a copy: actions below may grow subs_
  FUZZ_CHECK(sub.live, "subscriber called after its Unsubscribe returned");
  FUZZ_CHECK_EQ(sub.type, kIndexOf<T>, "subscriber of another type called");
  FUZZ_CHECK(m.Intact(), "payload corrupted");
  if constexpr (std::is_same_v<T, Cloud>) {
    CheckDeliveredCloud(m);
  }
  current_seq_ = m.seq;
  const Behavior& b = sub.behavior;
  const bool act = b.action != Action::kNone && (m.seq % b.action_mod) == 0U;
#if MCCC_HAS_EXCEPTIONS
  const bool throws = act && b.action == Action::kThrow;
#else
  const bool throws = false;
#endif
  const bool fails = b.returns_bool && b.fail_mod != 0U && (m.seq % b.fail_mod) == 0U;
  Event e{};
  e.kind = EventKind::kCall;
  e.sub = sub_id;
  e.seq = m.seq;
  e.ok = !throws && !fails;
  e.has_header = header != nullptr;
  if (header != nullptr) {
    e.header = *header;
  }
  log_.push_back(e);
  if (act) {
    switch (b.action) {
      case Action::kUnsubscribeSelf:
        FUZZ_CHECK(DoUnsubscribe(sub.handle), "a callback could not unsubscribe itself");
        FUZZ_CHECK(token.Alive(), "captures destroyed while their callback still runs");
        break;
      case Action::kUnsubscribeOther:
        for (std::size_t j = 0U; j < subs_.size(); ++j) {
          if (j != sub_id && subs_[j].live) {
            static_cast<void>(DoUnsubscribe(subs_[j].handle));
            break;
          }
        }
        break;
      case Action::kSubscribeNew:
        static_cast<void>(DoSubscribe(static_cast<uint8_t>(m.seq % kTypes), Behavior{}));
        break;
      case Action::kThrow:
#if MCCC_HAS_EXCEPTIONS
        throw FuzzThrow{};
#else
        break;
#endif
      case Action::kRetain:
        if constexpr (std::is_same_v<T, Cloud>) {
          RetainDelivered(m, slot);
        }
        break;
      case Action::kNone:
        break;
    }
  }
  return !fails;
}

template <typename Bus>
template <typename T>
bool Harness<Bus>::OnEnvelope(uint32_t sub_id, const Envelope& e, const CaptureToken& token) {
  const AlternativeOf<T>* m = std::get_if<AlternativeOf<T>>(&e.payload);
  FUZZ_CHECK(m != nullptr, "envelope of another alternative delivered to a subscriber of T");
  if constexpr (std::is_same_v<T, Cloud>) {
    FUZZ_CHECK(static_cast<bool>(*m), "an empty Loaned<Cloud> in a slot");
    return OnCall(sub_id, **m, &e.header, token, m);
  } else {
    return OnCall(sub_id, *m, &e.header, token);
  }
}

template <typename Bus>
template <typename T>
bool Harness<Bus>::OnVisit(const T& m, const MessageHeader* header, bool returns_bool) {
  FUZZ_CHECK(phase_ == Phase::kProcessBatchWith, "visitor called outside ProcessBatchWith");
  FUZZ_CHECK(m.Intact(), "payload corrupted");
  if constexpr (std::is_same_v<T, Cloud>) {
    CheckDeliveredCloud(m);
    if ((visitor_config_ & 0x20U) != 0U) {
      RetainDelivered(m, nullptr);
    }
  }
  current_seq_ = m.seq;
  const uint8_t fail_mod = static_cast<uint8_t>(visitor_config_ & 7U);
  const uint8_t action = static_cast<uint8_t>((static_cast<uint32_t>(visitor_config_) >> 3U) & 3U);
#if MCCC_HAS_EXCEPTIONS
  const bool throws = action == 3U && (m.seq % 3U) == 0U;
#else
  const bool throws = false;
#endif
  const bool fails = returns_bool && fail_mod != 0U && (m.seq % fail_mod) == 0U;
  Event e{};
  e.kind = EventKind::kVisit;
  e.seq = m.seq;
  e.ok = !throws && !fails;
  e.has_header = header != nullptr;
  if (header != nullptr) {
    e.header = *header;
  }
  log_.push_back(e);
  if (action == 1U && (m.seq % 2U) == 0U) {
    static_cast<void>(DoSubscribe(static_cast<uint8_t>(m.seq % kTypes), Behavior{}));
  } else if (action == 2U && (m.seq % 2U) == 1U) {
    for (const Subscriber& s : subs_) {
      if (s.live) {
        static_cast<void>(DoUnsubscribe(s.handle));
        break;
      }
    }
  }
#if MCCC_HAS_EXCEPTIONS
  if (throws) {
    throw FuzzThrow{};
  }
#endif
  return !fails;
}

template <typename Bus>
struct Harness<Bus>::Visitor {
  Harness* h;
  bool operator()(const Small& m, const MessageHeader& header) const {
    return h->OnVisit(m, &header, true);
  }
  void operator()(const Big& m) const { static_cast<void>(h->OnVisit(m, nullptr, false)); }
  bool operator()(const Text& m) const { return h->OnVisit(m, nullptr, true); }
  bool operator()(const Cloud& m, const MessageHeader& header) const {
    return h->OnVisit(m, &header, true);
  }
};

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_HARNESS_CALLBACKS_HPP_
