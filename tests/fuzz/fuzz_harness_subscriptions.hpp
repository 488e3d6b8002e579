// SPDX-License-Identifier: MIT
/// @file fuzz_harness_subscriptions.hpp
/// @brief Subscribe in every callback shape, Unsubscribe of live, stale, foreign, invalid and
/// arbitrary handles, and the second bus's subscriptions.
#ifndef MCCC_TESTS_FUZZ_HARNESS_SUBSCRIPTIONS_HPP_
#define MCCC_TESTS_FUZZ_HARNESS_SUBSCRIPTIONS_HPP_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_check.hpp"
#include "fuzz_harness.hpp"

namespace mccc_fuzz {

template <typename Bus>
template <typename T>
SubscriptionHandle Harness<Bus>::SubscribeAs(uint32_t id, const Behavior& b) {
  Harness* self = this;
  const CaptureToken token;
  switch (b.form * 2U + (b.returns_bool ? 1U : 0U)) {
    case 0U:
      return bus_->template Subscribe<T>([self, id, token](const Envelope& e) {
        static_cast<void>(self->template OnEnvelope<T>(id, e, token));
      });
    case 1U:
      return bus_->template Subscribe<T>([self, id, token](const Envelope& e) -> bool {
        return self->template OnEnvelope<T>(id, e, token);
      });
    case 2U:
      return bus_->template Subscribe<T>([self, id, token](const T& m, const MessageHeader& h) {
        static_cast<void>(self->OnCall(id, m, &h, token));
      });
    case 3U:
      return bus_->template Subscribe<T>(
          [self, id, token](const T& m, const MessageHeader& h) -> bool {
            return self->OnCall(id, m, &h, token);
          });
    case 4U:
      return bus_->template Subscribe<T>([self, id, token](const T& m) {
        static_cast<void>(self->OnCall(id, m, nullptr, token));
      });
    default:
      return bus_->template Subscribe<T>(
          [self, id, token](const T& m) -> bool { return self->OnCall(id, m, nullptr, token); });
  }
}

template <typename Bus>
uint32_t Harness<Bus>::DoSubscribe(uint8_t type, const Behavior& behavior) {
  const bool expected =
      live_[type] < kPerType && live_[type] + pending_removed_[type] < 2U * kPerType;
  const auto id = static_cast<uint32_t>(subs_.size());
  subs_.push_back(Subscriber{type, behavior, mccc::kInvalidSubscription, false});
  SubscriptionHandle h{};
  switch (type) {
    case 0U:
      h = SubscribeAs<Small>(id, behavior);
      break;
    case 1U:
      h = SubscribeAs<Big>(id, behavior);
      break;
    case 2U:
      h = SubscribeAs<Text>(id, behavior);
      break;
    default:
      h = SubscribeAs<Cloud>(id, behavior);
      break;
  }
  FUZZ_CHECK_EQ(h.IsValid(), expected, "Subscribe accepted/refused (live, removed-in-batch)");
  if (h.IsValid()) {
    FUZZ_CHECK_EQ(h.type_index, type, "handle type_index");
    FUZZ_CHECK(issued_ids_.insert(h.callback_id).second, "callback_id reused within a bus");
    subs_[id].handle = h;
    subs_[id].live = true;
    ++live_[type];
    ++live_total_;
  }
  if (phase_ != Phase::kIdle) {
    Event e{};
    e.kind = EventKind::kAdd;
    e.sub = id;
    e.seq = current_seq_;
    e.ok = h.IsValid();
    log_.push_back(e);
  }
  return id;
}

template <typename Bus>
int Harness<Bus>::FindLive(const std::vector<Subscriber>& subs, const SubscriptionHandle& h) {
  for (std::size_t i = 0U; i < subs.size(); ++i) {
    if (subs[i].live && subs[i].handle.type_index == h.type_index &&
        subs[i].handle.callback_id == h.callback_id) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

template <typename Bus>
bool Harness<Bus>::DoUnsubscribe(const SubscriptionHandle& h) {
  const int match = FindLive(subs_, h);
  const bool removed = bus_->Unsubscribe(h);
  FUZZ_CHECK_EQ(removed, match >= 0, "Unsubscribe result (true exactly once per live handle)");
  if (removed) {
    Subscriber& s = subs_[static_cast<std::size_t>(match)];
    s.live = false;
    --live_[s.type];
    --live_total_;
    if (phase_ == Phase::kProcessBatch) {
      ++pending_removed_[s.type];  // its entry stays taken until the batch ends
    }
  }
  if (phase_ != Phase::kIdle) {
    Event e{};
    e.kind = EventKind::kRemove;
    e.sub = match >= 0 ? static_cast<uint32_t>(match) : 0U;
    e.seq = current_seq_;
    e.ok = removed;
    log_.push_back(e);
  }
  return removed;
}

template <typename Bus>
void Harness<Bus>::UnsubscribeVariant(uint8_t b) {
  const std::size_t pick = in_.Byte();
  switch (b % 7U) {
    case 0U: {  // a live handle: true
      std::vector<std::size_t> live;
      for (std::size_t i = 0U; i < subs_.size(); ++i) {
        if (subs_[i].live) {
          live.push_back(i);
        }
      }
      if (!live.empty()) {
        FUZZ_CHECK(DoUnsubscribe(subs_[live[pick % live.size()]].handle),
                   "Unsubscribe of a live handle failed");
      }
      break;
    }
    case 1U: {  // stale (already removed) or refused: false
      std::vector<std::size_t> dead;
      for (std::size_t i = 0U; i < subs_.size(); ++i) {
        if (!subs_[i].live) {
          dead.push_back(i);
        }
      }
      if (!dead.empty()) {
        FUZZ_CHECK(!DoUnsubscribe(subs_[dead[pick % dead.size()]].handle),
                   "Unsubscribe of a stale handle succeeded");
      }
      break;
    }
    case 2U:  // a handle of the foreign bus, given to this bus: false
      if (!foreign_subs_.empty()) {
        const std::size_t before = foreign_->template SubscriberCount<Small>() +
                                   foreign_->template SubscriberCount<Big>() +
                                   foreign_->template SubscriberCount<Text>() +
                                   foreign_->template SubscriberCount<Cloud>();
        FUZZ_CHECK(!DoUnsubscribe(foreign_subs_[pick % foreign_subs_.size()].handle),
                   "a foreign handle removed a subscription");
        FUZZ_CHECK_EQ(foreign_->template SubscriberCount<Small>() +
                          foreign_->template SubscriberCount<Big>() +
                          foreign_->template SubscriberCount<Text>() +
                          foreign_->template SubscriberCount<Cloud>(),
                      before, "the foreign bus changed");
      }
      break;
    case 3U:  // a handle of this bus, given to the foreign bus: false, nothing changes here
      if (!subs_.empty()) {
        const SubscriptionHandle h = subs_[pick % subs_.size()].handle;
        FUZZ_CHECK_EQ(foreign_->Unsubscribe(h), FindLive(foreign_subs_, h) >= 0,
                      "foreign Unsubscribe of this bus's handle");
      }
      break;
    case 4U:
      static_cast<void>(DoUnsubscribe(mccc::kInvalidSubscription));
      break;
    case 5U: {  // type_index out of range, with an id that exists
      SubscriptionHandle h =
          subs_.empty() ? mccc::kInvalidSubscription : subs_[pick % subs_.size()].handle;
      h.type_index = kTypes + (pick % 300U);
      static_cast<void>(DoUnsubscribe(h));
      break;
    }
    default: {  // arbitrary bits
      SubscriptionHandle h{};
      h.type_index = static_cast<std::size_t>(in_.Byte() % (kTypes + 1U));
      h.callback_id = static_cast<std::size_t>(in_.U64());
      static_cast<void>(DoUnsubscribe(h));
      break;
    }
  }
}

template <typename Bus>
void Harness<Bus>::ForeignOperation(uint8_t b) {
  if ((b & 1U) == 0U) {
    const uint8_t type = static_cast<uint8_t>((static_cast<uint32_t>(b) >> 1U) % kTypes);
    const bool expected = foreign_live_by_type_[type] < kPerType;
    const CaptureToken token;
    auto never = [token](const Envelope&) { std::abort(); };  // nothing is published there
    SubscriptionHandle h{};
    switch (type) {
      case 0U:
        h = foreign_->template Subscribe<Small>(never);
        break;
      case 1U:
        h = foreign_->template Subscribe<Big>(never);
        break;
      case 2U:
        h = foreign_->template Subscribe<Text>(never);
        break;
      default:
        h = foreign_->template Subscribe<Cloud>(never);
        break;
    }
    FUZZ_CHECK_EQ(h.IsValid(), expected, "foreign Subscribe");
    if (h.IsValid()) {
      foreign_subs_.push_back(Subscriber{type, Behavior{}, h, true});
      ++foreign_live_by_type_[type];
      ++foreign_live_;
    }
  } else if (!foreign_subs_.empty()) {
    Subscriber& s = foreign_subs_[(static_cast<uint32_t>(b) >> 1U) % foreign_subs_.size()];
    FUZZ_CHECK_EQ(foreign_->Unsubscribe(s.handle), s.live, "foreign Unsubscribe");
    if (s.live) {
      s.live = false;
      --foreign_live_by_type_[s.type];
      --foreign_live_;
    }
  }
}

template <typename Bus>
std::vector<uint8_t> Harness<Bus>::LiveFlags() const {
  std::vector<uint8_t> flags(subs_.size(), 0U);
  for (std::size_t i = 0U; i < subs_.size(); ++i) {
    flags[i] = subs_[i].live ? 1U : 0U;
  }
  return flags;
}

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_HARNESS_SUBSCRIPTIONS_HPP_
