// SPDX-License-Identifier: MIT
// Unit tests of mccc::ScopedSubscription (include/mccc/dispatch/scoped_subscription.hpp) and
// AsyncBus::SubscribeScoped: the subscription ends exactly when the owning object says so.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"

namespace {

using mccc::ScopedSubscription;
using mccc::SubscriptionHandle;

using Payload = std::variant<int, float>;
struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  static constexpr uint32_t kMaxCallbacksPerType = 4U;
};
using Bus = mccc::AsyncBus<Payload, SmallTraits>;

// A second bus type: ScopedSubscription is the same type for both.
using OtherBus = mccc::AsyncBus<std::variant<double>, SmallTraits>;

static_assert(!std::is_copy_constructible_v<ScopedSubscription>);
static_assert(!std::is_copy_assignable_v<ScopedSubscription>);
static_assert(std::is_nothrow_move_constructible_v<ScopedSubscription>);
static_assert(std::is_nothrow_move_assignable_v<ScopedSubscription>);
static_assert(std::is_nothrow_destructible_v<ScopedSubscription>);
static_assert(std::is_nothrow_default_constructible_v<ScopedSubscription>);
static_assert(!std::is_convertible_v<ScopedSubscription, bool>);  // explicit operator bool
// SubscribeScoped returns the one ScopedSubscription type.
struct IgnoreInt {
  void operator()(const int&) const {}
};
static_assert(std::is_same_v<decltype(std::declval<Bus&>().SubscribeScoped<int>(IgnoreInt{})),
                             ScopedSubscription>);

class ScopedSubscriptionTest : public ::testing::Test {
 protected:
  // Publishes `value` and dispatches it; returns how many messages the batch dispatched.
  uint32_t Deliver(int value) {
    EXPECT_TRUE(bus->Publish(value, 1U));
    return bus->ProcessBatch();
  }

  std::unique_ptr<Bus> bus = std::make_unique<Bus>();
};

TEST_F(ScopedSubscriptionTest, DestructionUnsubscribes) {
  int calls = 0;
  {
    const ScopedSubscription scoped = bus->SubscribeScoped<int>([&calls](const int&) { ++calls; });
    ASSERT_TRUE(scoped.IsActive());
    EXPECT_TRUE(static_cast<bool>(scoped));
    EXPECT_TRUE(scoped.Handle().IsValid());
    EXPECT_EQ(bus->SubscriberCount<int>(), 1U);
    EXPECT_EQ(Deliver(1), 1U);
    EXPECT_EQ(calls, 1);
  }
  EXPECT_EQ(bus->SubscriberCount<int>(), 0U);
  EXPECT_EQ(Deliver(2), 1U);  // dispatched, to nobody
  EXPECT_EQ(calls, 1);
}

TEST_F(ScopedSubscriptionTest, DefaultConstructedIsEmpty) {
  ScopedSubscription empty;
  EXPECT_FALSE(empty.IsActive());
  EXPECT_FALSE(static_cast<bool>(empty));
  EXPECT_FALSE(empty.Handle().IsValid());
  EXPECT_FALSE(empty.Reset());
  EXPECT_FALSE(empty.Release().IsValid());
}

TEST_F(ScopedSubscriptionTest, ARefusedSubscriptionGivesAnEmptyObject) {
  std::vector<ScopedSubscription> full;
  for (uint32_t i = 0U; i < SmallTraits::kMaxCallbacksPerType; ++i) {
    full.push_back(bus->SubscribeScoped<int>([](const int&) {}));
    ASSERT_TRUE(full.back().IsActive());
  }
  {
    const ScopedSubscription refused = bus->SubscribeScoped<int>([](const int&) {});
    EXPECT_FALSE(refused.IsActive());
    EXPECT_FALSE(refused.Handle().IsValid());
  }
  EXPECT_EQ(bus->SubscriberCount<int>(), SmallTraits::kMaxCallbacksPerType);  // nobody removed
}

TEST_F(ScopedSubscriptionTest, BuiltFromAPlainHandleItUnsubscribesWhenDestroyed) {
  int calls = 0;
  const SubscriptionHandle handle = bus->Subscribe<int>([&calls](const int&) { ++calls; });
  ASSERT_TRUE(handle.IsValid());
  {
    const ScopedSubscription scoped(*bus, handle);
    ASSERT_TRUE(scoped.IsActive());
    EXPECT_EQ(scoped.Handle().type_index, handle.type_index);
    EXPECT_EQ(scoped.Handle().callback_id, handle.callback_id);
    EXPECT_EQ(Deliver(1), 1U);
  }
  EXPECT_EQ(Deliver(2), 1U);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(bus->Unsubscribe(handle));  // already removed by the destructor

  const ScopedSubscription from_invalid(*bus, mccc::kInvalidSubscription);
  EXPECT_FALSE(from_invalid.IsActive());
}

TEST_F(ScopedSubscriptionTest, ReleaseKeepsTheSubscriptionAndReturnsItsHandle) {
  int calls = 0;
  SubscriptionHandle released = mccc::kInvalidSubscription;
  {
    ScopedSubscription scoped = bus->SubscribeScoped<int>([&calls](const int&) { ++calls; });
    const SubscriptionHandle held = scoped.Handle();
    released = scoped.Release();
    EXPECT_EQ(released.type_index, held.type_index);
    EXPECT_EQ(released.callback_id, held.callback_id);
    EXPECT_FALSE(scoped.IsActive());
    EXPECT_FALSE(scoped.Handle().IsValid());
    EXPECT_FALSE(scoped.Reset());  // nothing left to end
  }
  EXPECT_EQ(bus->SubscriberCount<int>(), 1U);
  EXPECT_EQ(Deliver(1), 1U);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(bus->Unsubscribe(released));
  EXPECT_EQ(Deliver(2), 1U);
  EXPECT_EQ(calls, 1);
}

TEST_F(ScopedSubscriptionTest, ResetUnsubscribesNowAndOnlyOnce) {
  int calls = 0;
  ScopedSubscription scoped = bus->SubscribeScoped<int>([&calls](const int&) { ++calls; });
  EXPECT_TRUE(scoped.Reset());
  EXPECT_FALSE(scoped.IsActive());
  EXPECT_EQ(bus->SubscriberCount<int>(), 0U);
  EXPECT_FALSE(scoped.Reset());
  EXPECT_EQ(Deliver(1), 1U);
  EXPECT_EQ(calls, 0);
}

TEST_F(ScopedSubscriptionTest, ResetAfterSomeoneElseUnsubscribedReturnsFalse) {
  ScopedSubscription scoped = bus->SubscribeScoped<int>([](const int&) {});
  ASSERT_TRUE(bus->Unsubscribe(scoped.Handle()));
  EXPECT_TRUE(scoped.IsActive());  // it still holds the handle; the bus no longer knows it
  EXPECT_FALSE(scoped.Reset());
  EXPECT_FALSE(scoped.IsActive());
}

TEST_F(ScopedSubscriptionTest, MoveConstructionTransfersOwnership) {
  int calls = 0;
  ScopedSubscription first = bus->SubscribeScoped<int>([&calls](const int&) { ++calls; });
  const SubscriptionHandle handle = first.Handle();
  {
    const ScopedSubscription second(std::move(first));
    EXPECT_FALSE(first.IsActive());  // NOLINT(bugprone-use-after-move): moved-from is empty
    EXPECT_FALSE(first.Handle().IsValid());
    ASSERT_TRUE(second.IsActive());
    EXPECT_EQ(second.Handle().callback_id, handle.callback_id);
    EXPECT_FALSE(first.Reset());  // the moved-from object ends nothing
    EXPECT_EQ(Deliver(1), 1U);
    EXPECT_EQ(calls, 1);
  }
  EXPECT_EQ(bus->SubscriberCount<int>(), 0U);  // ended with `second`
  EXPECT_EQ(Deliver(2), 1U);
  EXPECT_EQ(calls, 1);
}

TEST_F(ScopedSubscriptionTest, MoveAssignmentOverALiveOneUnsubscribesTheOldFirst) {
  int old_calls = 0;
  int new_calls = 0;
  ScopedSubscription target = bus->SubscribeScoped<int>([&old_calls](const int&) { ++old_calls; });
  ScopedSubscription source = bus->SubscribeScoped<int>([&new_calls](const int&) { ++new_calls; });
  const SubscriptionHandle old_handle = target.Handle();
  const SubscriptionHandle new_handle = source.Handle();
  EXPECT_EQ(bus->SubscriberCount<int>(), 2U);

  target = std::move(source);
  EXPECT_FALSE(source.IsActive());  // NOLINT(bugprone-use-after-move): moved-from is empty
  ASSERT_TRUE(target.IsActive());
  EXPECT_EQ(target.Handle().callback_id, new_handle.callback_id);
  EXPECT_EQ(bus->SubscriberCount<int>(), 1U);
  EXPECT_FALSE(bus->Unsubscribe(old_handle));  // the old one is gone already

  EXPECT_EQ(Deliver(1), 1U);
  EXPECT_EQ(old_calls, 0);
  EXPECT_EQ(new_calls, 1);

  target = ScopedSubscription();  // assigning an empty one ends the held subscription
  EXPECT_FALSE(target.IsActive());
  EXPECT_EQ(bus->SubscriberCount<int>(), 0U);
}

TEST_F(ScopedSubscriptionTest, MoveAssignmentToAnEmptyOneTakesOver) {
  int calls = 0;
  ScopedSubscription target;
  ScopedSubscription source = bus->SubscribeScoped<int>([&calls](const int&) { ++calls; });
  target = std::move(source);
  EXPECT_FALSE(source.IsActive());  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_TRUE(target.IsActive());
  EXPECT_EQ(bus->SubscriberCount<int>(), 1U);
  EXPECT_EQ(Deliver(1), 1U);
  EXPECT_EQ(calls, 1);
}

TEST_F(ScopedSubscriptionTest, SelfMoveAssignmentChangesNothing) {
  int calls = 0;
  ScopedSubscription scoped = bus->SubscribeScoped<int>([&calls](const int&) { ++calls; });
  const SubscriptionHandle handle = scoped.Handle();
  ScopedSubscription& alias = scoped;  // through a reference: the compiler's self-move warning
  scoped = std::move(alias);
  ASSERT_TRUE(scoped.IsActive());
  EXPECT_EQ(scoped.Handle().callback_id, handle.callback_id);
  EXPECT_EQ(bus->SubscriberCount<int>(), 1U);
  EXPECT_EQ(Deliver(1), 1U);
  EXPECT_EQ(calls, 1);
}

TEST_F(ScopedSubscriptionTest, DestroyedInsideItsOwnCallbackItIsNotCalledAgain) {
  int calls = 0;
  std::optional<ScopedSubscription> holder;
  holder.emplace(bus->SubscribeScoped<int>([&calls, &holder](const int&) {
    ++calls;
    holder.reset();  // destroys the object whose subscription is running right now
  }));
  ASSERT_TRUE(holder->IsActive());
  // Three messages in one batch: the callback runs for the first one only.
  ASSERT_TRUE(bus->Publish(1, 1U));
  ASSERT_TRUE(bus->Publish(2, 1U));
  ASSERT_TRUE(bus->Publish(3, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 3U);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(holder.has_value());
  EXPECT_EQ(bus->SubscriberCount<int>(), 0U);
  EXPECT_EQ(Deliver(4), 1U);
  EXPECT_EQ(calls, 1);
}

TEST_F(ScopedSubscriptionTest, ResetInsideAnotherCallbackStopsItForTheRestOfTheBatch) {
  int int_calls = 0;
  ScopedSubscription on_int = bus->SubscribeScoped<int>([&int_calls](const int&) { ++int_calls; });
  const ScopedSubscription on_float =
      bus->SubscribeScoped<float>([&on_int](const float&) { EXPECT_TRUE(on_int.Reset()); });
  ASSERT_TRUE(bus->Publish(1.0F, 1U));  // dispatched first: ends the int subscription
  ASSERT_TRUE(bus->Publish(2, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 2U);
  EXPECT_EQ(int_calls, 0);
  EXPECT_FALSE(on_int.IsActive());
}

TEST_F(ScopedSubscriptionTest, MoveAssignedOverInsideItsOwnCallback) {
  int first_calls = 0;
  int second_calls = 0;
  ScopedSubscription slot;
  slot = bus->SubscribeScoped<int>([&](const int&) {
    ++first_calls;
    // Replace the running subscription by another one, from inside it.
    slot = bus->SubscribeScoped<int>([&second_calls](const int&) { ++second_calls; });
  });
  EXPECT_EQ(Deliver(1), 1U);
  EXPECT_EQ(first_calls, 1);
  EXPECT_EQ(bus->SubscriberCount<int>(), 1U);
  ASSERT_TRUE(slot.IsActive());
  // Subscribed during a dispatch, it may or may not see that message (AsyncBus::Subscribe); it
  // sees every later one, and the first callback none.
  const int second_before = second_calls;
  EXPECT_EQ(Deliver(2), 1U);
  EXPECT_EQ(first_calls, 1);
  EXPECT_EQ(second_calls, second_before + 1);
}

TEST_F(ScopedSubscriptionTest, AVectorOfThemAcrossBusTypes) {
  auto other = std::make_unique<OtherBus>();
  int int_calls = 0;
  int float_calls = 0;
  int double_calls = 0;
  std::vector<ScopedSubscription> subscriptions;  // no reserve: growing moves the elements
  for (uint32_t i = 0U; i < SmallTraits::kMaxCallbacksPerType; ++i) {
    subscriptions.push_back(bus->SubscribeScoped<int>([&int_calls](const int&) { ++int_calls; }));
  }
  subscriptions.push_back(
      bus->SubscribeScoped<float>([&float_calls](const float&) { ++float_calls; }));
  subscriptions.push_back(
      other->SubscribeScoped<double>([&double_calls](const double&) { ++double_calls; }));
  for (const ScopedSubscription& s : subscriptions) {
    ASSERT_TRUE(s.IsActive());
  }
  EXPECT_EQ(bus->SubscriberCount<int>(), SmallTraits::kMaxCallbacksPerType);

  EXPECT_EQ(Deliver(1), 1U);
  ASSERT_TRUE(other->Publish(2.0, 1U));
  EXPECT_EQ(other->ProcessBatch(), 1U);
  EXPECT_EQ(int_calls, 4);
  EXPECT_EQ(double_calls, 1);

  subscriptions.erase(subscriptions.begin());  // ends one int subscription, shifts the others
  EXPECT_EQ(bus->SubscriberCount<int>(), SmallTraits::kMaxCallbacksPerType - 1U);
  EXPECT_EQ(Deliver(3), 1U);
  EXPECT_EQ(int_calls, 7);

  subscriptions.clear();
  EXPECT_EQ(bus->SubscriberCount<int>(), 0U);
  EXPECT_EQ(bus->SubscriberCount<float>(), 0U);
  EXPECT_EQ(other->SubscriberCount<double>(), 0U);
  ASSERT_TRUE(bus->Publish(4.0F, 1U));
  EXPECT_EQ(bus->ProcessBatch(), 1U);
  ASSERT_TRUE(other->Publish(5.0, 1U));
  EXPECT_EQ(other->ProcessBatch(), 1U);
  EXPECT_EQ(int_calls, 7);
  EXPECT_EQ(float_calls, 0);
  EXPECT_EQ(double_calls, 1);
}

}  // namespace
