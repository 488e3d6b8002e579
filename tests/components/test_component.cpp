// SPDX-License-Identifier: MIT
// Unit tests of mccc::Component (include/mccc/components/component.hpp). The concurrent
// create/destroy-while-dispatching hammer is tests/stress/test_component_lifetime.cpp.
#include "mccc/components/component.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "mccc/component.hpp"  // the documented path must work too
#include "support/bus_configs.hpp"

namespace {

struct Temperature {
  int32_t celsius;
};
struct Command {
  int32_t code;
};
struct Alarm {
  int32_t level;
};
using Payload = std::variant<Temperature, Command, Alarm>;

// Subscription limit set by the traits (kMaxSubscriptionsPerComponent) instead of the macro.
struct TestTraits : mccc_test::WithCallbacks<mccc_test::SmallRing, 8U> {
  static constexpr uint32_t kMaxSubscriptionsPerComponent = 4U;
};
using Bus = mccc::AsyncBus<Payload, TestTraits>;
using Base = mccc::Component<Payload, TestTraits>;

// Traits without kMaxSubscriptionsPerComponent: the MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT default.
using MacroLimitTraits = mccc_test::WithCallbacks<mccc_test::SmallRing, 32U>;
using MacroLimitBus = mccc::AsyncBus<Payload, MacroLimitTraits>;
using MacroLimitComponent = mccc::Component<Payload, MacroLimitTraits>;

static_assert(Base::kMaxSubscriptions == 4U, "traits member wins");
static_assert(MacroLimitComponent::kMaxSubscriptions == MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT,
              "macro default");
static_assert(std::is_base_of_v<std::enable_shared_from_this<Base>, Base>, "shared_from_this");
static_assert(std::has_virtual_destructor_v<Base>, "held through base pointers");

// A component whose initialization, destruction and data the tests observe.
class Probe : public Base {
 public:
  explicit Probe(Bus& bus) : Base(bus) {}
  ~Probe() override {
    if (destroyed != nullptr) {
      destroyed->store(true);
    }
  }

  std::function<void(Probe&)> on_initialize;  // what OnInitialize does (test code only)
  std::atomic<bool>* destroyed = nullptr;
  int init_calls = 0;
  std::vector<int32_t> seen;

 protected:
  void OnInitialize() override {
    ++init_calls;
    if (on_initialize) {
      on_initialize(*this);
    }
  }
};

class ComponentTest : public ::testing::Test {
 protected:
  std::shared_ptr<Probe> MakeProbe() { return std::make_shared<Probe>(*bus_); }

  std::unique_ptr<Bus> bus_ = std::make_unique<Bus>();  // declared first: outlives components
};

TEST_F(ComponentTest, SubscribeSafePassesThePinnedComponentMessageAndHeader) {
  auto probe = MakeProbe();
  const Base* seen_self = nullptr;
  long seen_use_count = 0;
  mccc::MessageHeader seen_header{};
  int32_t seen_value = 0;
  const mccc::SubscriptionHandle handle = probe->SubscribeSafe<Temperature>(
      [&](std::shared_ptr<Base> self, const Temperature& t, const mccc::MessageHeader& header) {
        seen_self = self.get();
        seen_use_count = self.use_count();  // probe + the pin + this by-value copy
        seen_value = t.celsius;
        seen_header = header;
      });
  ASSERT_TRUE(handle.IsValid());
  ASSERT_TRUE(bus_->Publish(Temperature{25}, 77U));
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  EXPECT_EQ(seen_self, probe.get());
  EXPECT_EQ(seen_use_count, 3);
  EXPECT_EQ(seen_value, 25);
  EXPECT_EQ(seen_header.sender_id, 77U);
  EXPECT_EQ(seen_header.msg_id, 1U);
  EXPECT_EQ(probe.use_count(), 1);  // the pin is released after the call
}

TEST_F(ComponentTest, SubscribeSafeCanNameTheDerivedClassAndOmitTheHeader) {
  auto probe = MakeProbe();
  ASSERT_TRUE(
      probe
          ->SubscribeSafe<Command>([](const std::shared_ptr<Probe>& self, const Command& c) {
            self->seen.push_back(c.code);  // Probe's own members, no cast needed
          })
          .IsValid());
  ASSERT_TRUE(probe
                  ->SubscribeSafe<Alarm>([](std::shared_ptr<const Probe> self, const Alarm& a,
                                            const mccc::MessageHeader& header) {
                    return self->init_calls == 0 &&
                           a.level == static_cast<int32_t>(header.sender_id);
                  })
                  .IsValid());
  ASSERT_TRUE(bus_->Publish(Command{3}, 1U));
  ASSERT_TRUE(bus_->Publish(Alarm{5}, 5U));  // handler returns true
  ASSERT_TRUE(bus_->Publish(Command{4}, 1U));
  ASSERT_TRUE(bus_->Publish(Alarm{5}, 6U));  // handler returns false: a processing error
  EXPECT_EQ(bus_->ProcessBatch(), 4U);
  EXPECT_EQ(probe->seen, (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(bus_->GetStatistics().processing_errors, 1U);
}

TEST_F(ComponentTest, SubscribeSafeWithGenericLambdaGetsTheBasePointer) {
  auto probe = MakeProbe();
  bool got_base = false;
  ASSERT_TRUE(probe
                  ->SubscribeSafe<Temperature>([&got_base](auto self, const Temperature&) {
                    got_base = std::is_same_v<decltype(self), std::shared_ptr<Base>>;
                  })
                  .IsValid());
  ASSERT_TRUE(bus_->Publish(Temperature{1}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  EXPECT_TRUE(got_base);
}

TEST_F(ComponentTest, SubscribeSimpleWithAndWithoutHeader) {
  auto probe = MakeProbe();
  Probe* raw = probe.get();
  std::vector<uint64_t> ids;
  ASSERT_TRUE(raw->SubscribeSimple<Temperature>(
                     [raw](const Temperature& t) { raw->seen.push_back(t.celsius); })
                  .IsValid());
  ASSERT_TRUE(raw->SubscribeSimple<Temperature>(
                     [&ids](const Temperature&, const mccc::MessageHeader& header) {
                       ids.push_back(header.msg_id);
                       return header.msg_id != 2U;  // false for the second message: an error
                     })
                  .IsValid());
  ASSERT_TRUE(bus_->Publish(Temperature{10}, 1U));
  ASSERT_TRUE(bus_->Publish(Temperature{20}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 2U);
  EXPECT_EQ(probe->seen, (std::vector<int32_t>{10, 20}));
  EXPECT_EQ(ids, (std::vector<uint64_t>{1U, 2U}));
  EXPECT_EQ(bus_->GetStatistics().processing_errors, 1U);
  EXPECT_EQ(probe->SubscriptionCount(), 2U);
}

TEST_F(ComponentTest, DestructorUnsubscribesEverything) {
  std::atomic<bool> destroyed{false};
  int calls = 0;
  auto probe = MakeProbe();
  probe->destroyed = &destroyed;
  ASSERT_TRUE(
      probe->SubscribeSimple<Temperature>([&calls](const Temperature&) { ++calls; }).IsValid());
  ASSERT_TRUE(
      probe->SubscribeSafe<Command>([&calls](std::shared_ptr<Base>, const Command&) { ++calls; })
          .IsValid());
  ASSERT_TRUE(probe->SubscribeSimple<Command>([&calls](const Command&) { ++calls; }).IsValid());
  EXPECT_EQ(bus_->SubscriberCount<Temperature>(), 1U);
  EXPECT_EQ(bus_->SubscriberCount<Command>(), 2U);

  probe.reset();
  EXPECT_TRUE(destroyed.load());
  EXPECT_EQ(bus_->SubscriberCount<Temperature>(), 0U);
  EXPECT_EQ(bus_->SubscriberCount<Command>(), 0U);
  ASSERT_TRUE(bus_->Publish(Temperature{1}, 1U));
  ASSERT_TRUE(bus_->Publish(Command{1}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 2U);
  EXPECT_EQ(calls, 0);
}

TEST_F(ComponentTest, InitializeComponentRunsTheHookOnceAfterSharedOwnership) {
  auto probe = MakeProbe();
  probe->on_initialize = [](Probe& self) {
    EXPECT_TRUE(self.SubscribeSimple<Temperature>(
                        [&self](const Temperature& t) { self.seen.push_back(t.celsius); })
                    .IsValid());
  };
  EXPECT_FALSE(probe->IsInitialized());
  EXPECT_TRUE(probe->InitializeComponent());
  EXPECT_TRUE(probe->IsInitialized());
  EXPECT_FALSE(probe->InitializeComponent());  // a second call does nothing
  EXPECT_EQ(probe->init_calls, 1);
  EXPECT_EQ(probe->SubscriptionCount(), 1U);
  ASSERT_TRUE(bus_->Publish(Temperature{8}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  EXPECT_EQ(probe->seen, (std::vector<int32_t>{8}));
}

TEST_F(ComponentTest, WithoutSharedOwnershipEverythingIsRefusedVisibly) {
  auto owned_uniquely = std::make_unique<Probe>(*bus_);
  EXPECT_FALSE(owned_uniquely->InitializeComponent());
  EXPECT_EQ(owned_uniquely->init_calls, 0);
  EXPECT_FALSE(owned_uniquely->IsInitialized());
  EXPECT_FALSE(owned_uniquely->SubscribeSimple<Temperature>([](const Temperature&) {}).IsValid());
  EXPECT_FALSE(
      owned_uniquely->SubscribeSafe<Temperature>([](std::shared_ptr<Base>, const Temperature&) {})
          .IsValid());
  EXPECT_EQ(owned_uniquely->RefusedSubscriptionCount(), 2U);
  EXPECT_EQ(owned_uniquely->SubscriptionCount(), 0U);
  EXPECT_EQ(bus_->SubscriberCount<Temperature>(), 0U);
}

// Subscribing from a constructor is too early: the object is not yet owned by a shared_ptr.
class SubscribesInConstructor : public Base {
 public:
  explicit SubscribesInConstructor(Bus& bus)
      : Base(bus), handle(SubscribeSimple<Temperature>([](const Temperature&) {})) {}
  mccc::SubscriptionHandle handle;
};

TEST_F(ComponentTest, SubscribingInTheConstructorIsRefused) {
  auto component = std::make_shared<SubscribesInConstructor>(*bus_);
  EXPECT_FALSE(component->handle.IsValid());
  EXPECT_EQ(component->RefusedSubscriptionCount(), 1U);
  EXPECT_EQ(bus_->SubscriberCount<Temperature>(), 0U);
}

TEST_F(ComponentTest, OneSubscriptionMoreThanTheLimitFails) {
  auto probe = MakeProbe();
  probe->on_initialize = [](Probe& self) {
    for (std::size_t i = 0U; i < Base::kMaxSubscriptions + 1U; ++i) {
      static_cast<void>(self.SubscribeSimple<Alarm>([](const Alarm&) {}));
    }
  };
  EXPECT_FALSE(probe->InitializeComponent());  // one subscription in the hook was refused
  EXPECT_EQ(probe->SubscriptionCount(), Base::kMaxSubscriptions);
  EXPECT_EQ(probe->RefusedSubscriptionCount(), 1U);
  EXPECT_EQ(bus_->SubscriberCount<Alarm>(), Base::kMaxSubscriptions);
  EXPECT_FALSE(probe->SubscribeSafe<Temperature>([](std::shared_ptr<Base>, const Temperature&) {})
                   .IsValid());
  EXPECT_EQ(probe->RefusedSubscriptionCount(), 2U);
  EXPECT_EQ(bus_->SubscriberCount<Temperature>(), 0U);
}

TEST_F(ComponentTest, MacroDefaultLimitIsEnforced) {
  auto bus = std::make_unique<MacroLimitBus>();
  auto component = std::make_shared<MacroLimitComponent>(*bus);
  for (std::size_t i = 0U; i < MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT; ++i) {
    ASSERT_TRUE(component->SubscribeSimple<Command>([](const Command&) {}).IsValid());
  }
  EXPECT_FALSE(component->SubscribeSimple<Command>([](const Command&) {}).IsValid());
  EXPECT_EQ(component->SubscriptionCount(), std::size_t{MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT});
  component.reset();
  EXPECT_EQ(bus->SubscriberCount<Command>(), 0U);
}

TEST_F(ComponentTest, SubscriptionRefusedByTheBusIsReported) {
  auto first = MakeProbe();
  auto second = MakeProbe();
  auto third = MakeProbe();
  // TestTraits: 8 callbacks per type; the first two probes take 4 each.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(first->SubscribeSimple<Alarm>([](const Alarm&) {}).IsValid());
    ASSERT_TRUE(second->SubscribeSimple<Alarm>([](const Alarm&) {}).IsValid());
  }
  EXPECT_FALSE(third->SubscribeSimple<Alarm>([](const Alarm&) {}).IsValid());
  EXPECT_EQ(third->SubscriptionCount(), 0U);
  EXPECT_EQ(third->RefusedSubscriptionCount(), 1U);
  first.reset();  // frees four slots
  EXPECT_TRUE(third->SubscribeSimple<Alarm>([](const Alarm&) {}).IsValid());
}

TEST_F(ComponentTest, UnsubscribeOneAndUnsubscribeAll) {
  auto probe = MakeProbe();
  auto other = MakeProbe();
  int temperature_calls = 0;
  int command_calls = 0;
  const auto t = probe->SubscribeSimple<Temperature>(
      [&temperature_calls](const Temperature&) { ++temperature_calls; });
  const auto c =
      probe->SubscribeSimple<Command>([&command_calls](const Command&) { ++command_calls; });
  const auto foreign = other->SubscribeSimple<Command>([](const Command&) {});
  ASSERT_TRUE(t.IsValid());
  ASSERT_TRUE(c.IsValid());
  ASSERT_TRUE(foreign.IsValid());

  EXPECT_FALSE(probe->Unsubscribe(foreign));  // not this component's
  EXPECT_FALSE(probe->Unsubscribe(mccc::kInvalidSubscription));
  EXPECT_TRUE(probe->Unsubscribe(t));
  EXPECT_FALSE(probe->Unsubscribe(t));  // only once
  EXPECT_EQ(probe->SubscriptionCount(), 1U);
  EXPECT_EQ(bus_->SubscriberCount<Command>(), 2U);

  ASSERT_TRUE(bus_->Publish(Temperature{1}, 1U));
  ASSERT_TRUE(bus_->Publish(Command{1}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 2U);
  EXPECT_EQ(temperature_calls, 0);
  EXPECT_EQ(command_calls, 1);

  EXPECT_EQ(probe->UnsubscribeAll(), 1U);
  EXPECT_EQ(probe->UnsubscribeAll(), 0U);
  EXPECT_EQ(probe->SubscriptionCount(), 0U);
  EXPECT_EQ(bus_->SubscriberCount<Command>(), 1U);  // `other` keeps its own
  EXPECT_TRUE(probe->SubscribeSimple<Temperature>([](const Temperature&) {}).IsValid());
}

TEST_F(ComponentTest, CallbackMayKeepTheComponentAliveBeyondTheCall) {
  std::atomic<bool> destroyed{false};
  std::shared_ptr<Probe> kept;
  auto probe = MakeProbe();
  probe->destroyed = &destroyed;
  ASSERT_TRUE(probe
                  ->SubscribeSafe<Alarm>([&kept](std::shared_ptr<Probe> self, const Alarm&) {
                    kept = std::move(self);
                  })
                  .IsValid());
  ASSERT_TRUE(bus_->Publish(Alarm{1}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  probe.reset();
  EXPECT_FALSE(destroyed.load());  // `kept` still owns it, and it is still subscribed
  EXPECT_EQ(bus_->SubscriberCount<Alarm>(), 1U);
  kept.reset();
  EXPECT_TRUE(destroyed.load());
  EXPECT_EQ(bus_->SubscriberCount<Alarm>(), 0U);
}

// The last owner lets go inside a callback: the component is destroyed on the consumer thread
// when the pin is released, its other subscriptions for the same message do not run.
TEST_F(ComponentTest, DestroyedOnTheConsumerThreadInsideItsOwnCallback) {
  std::atomic<bool> destroyed{false};
  int safe_calls = 0;
  int simple_calls = 0;
  std::shared_ptr<Probe> last_owner = MakeProbe();
  last_owner->destroyed = &destroyed;
  ASSERT_TRUE(last_owner
                  ->SubscribeSafe<Command>([&](std::shared_ptr<Probe> self, const Command&) {
                    ++safe_calls;
                    self.reset();
                    last_owner.reset();  // the pin alone keeps it alive until we return
                    EXPECT_FALSE(destroyed.load());
                  })
                  .IsValid());
  Probe* raw = last_owner.get();
  ASSERT_TRUE(last_owner
                  ->SubscribeSimple<Command>([&simple_calls, raw](const Command& c) {
                    ++simple_calls;
                    raw->seen.push_back(c.code);
                  })
                  .IsValid());
  ASSERT_TRUE(bus_->Publish(Command{1}, 1U));
  ASSERT_TRUE(bus_->Publish(Command{2}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 2U);
  EXPECT_TRUE(destroyed.load());
  EXPECT_EQ(safe_calls, 1);
  EXPECT_EQ(simple_calls, 0);  // unsubscribed from the consumer thread before its turn
  EXPECT_EQ(bus_->SubscriberCount<Command>(), 0U);
}

// A component whose destructor holds until the test lets it finish, so that the consumer
// dispatches while the destruction is under way on another thread.
class SlowToDie : public Base {
 public:
  SlowToDie(Bus& bus, std::atomic<int>& calls, std::atomic<bool>& in_destructor,
            std::atomic<bool>& may_finish)
      : Base(bus), calls_(calls), in_destructor_(in_destructor), may_finish_(may_finish) {}
  ~SlowToDie() override {
    in_destructor_.store(true);
    while (!may_finish_.load()) {
      std::this_thread::yield();
    }
    data_.clear();  // what a late callback would be touching
  }

 protected:
  void OnInitialize() override {
    static_cast<void>(SubscribeSimple<Temperature>([this](const Temperature& t) {
      data_.push_back(t.celsius);
      calls_.fetch_add(1);
    }));
    static_cast<void>(
        SubscribeSafe<Temperature>([](std::shared_ptr<SlowToDie> self, const Temperature& t) {
          self->data_.push_back(t.celsius);
          self->calls_.fetch_add(1);
        }));
  }

 private:
  std::atomic<int>& calls_;
  std::atomic<bool>& in_destructor_;
  std::atomic<bool>& may_finish_;
  std::vector<int32_t> data_;
};

TEST_F(ComponentTest, NoCallbackRunsWhileTheComponentIsBeingDestroyed) {
  std::atomic<int> calls{0};
  std::atomic<bool> in_destructor{false};
  std::atomic<bool> may_finish{false};
  auto component = std::make_shared<SlowToDie>(*bus_, calls, in_destructor, may_finish);
  ASSERT_TRUE(component->InitializeComponent());
  ASSERT_TRUE(bus_->Publish(Temperature{1}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  EXPECT_EQ(calls.load(), 2);

  std::thread destroyer([&component] { component.reset(); });
  while (!in_destructor.load()) {
    std::this_thread::yield();
  }
  // ~SlowToDie is running and has not unsubscribed yet: both subscriptions are still in the
  // table, and both callbacks must skip the message.
  EXPECT_EQ(bus_->SubscriberCount<Temperature>(), 2U);
  ASSERT_TRUE(bus_->Publish(Temperature{2}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(bus_->GetStatistics().processing_errors, 0U);  // a skip is not an error
  may_finish.store(true);
  destroyer.join();
  EXPECT_EQ(bus_->SubscriberCount<Temperature>(), 0U);
}

TEST_F(ComponentTest, CallbackMaySubscribeItsComponentFromTheConsumerThread) {
  auto probe = MakeProbe();
  Probe* raw = probe.get();
  ASSERT_TRUE(raw->SubscribeSimple<Temperature>([raw](const Temperature&) {
                   EXPECT_TRUE(raw->SubscribeSimple<Command>(
                                      [raw](const Command& c) { raw->seen.push_back(c.code); })
                                   .IsValid());
                 })
                  .IsValid());
  ASSERT_TRUE(bus_->Publish(Temperature{1}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  ASSERT_TRUE(bus_->Publish(Command{6}, 1U));
  EXPECT_EQ(bus_->ProcessBatch(), 1U);
  EXPECT_EQ(probe->seen, (std::vector<int32_t>{6}));
  EXPECT_EQ(probe->SubscriptionCount(), 2U);
}

// The default constructor uses the process-wide bus of the default traits.
struct SingletonOnly {
  int32_t value;
};
using SingletonPayload = std::variant<SingletonOnly, int>;
using SingletonBus = mccc::AsyncBus<SingletonPayload>;

class OnSingleton : public mccc::Component<SingletonPayload> {
 public:
  int32_t last = 0;

 protected:
  void OnInitialize() override {
    static_cast<void>(
        SubscribeSimple<SingletonOnly>([this](const SingletonOnly& m) { last = m.value; }));
  }
};

TEST(ComponentSingletonTest, DefaultConstructedComponentUsesTheSingletonBus) {
  auto component = std::make_shared<OnSingleton>();
  EXPECT_EQ(&component->GetBus(), &SingletonBus::Instance());
  ASSERT_TRUE(component->InitializeComponent());
  EXPECT_EQ(SingletonBus::Instance().SubscriberCount<SingletonOnly>(), 1U);
  ASSERT_TRUE(SingletonBus::Instance().Publish(SingletonOnly{12}, 1U));
  EXPECT_EQ(SingletonBus::Instance().ProcessBatch(), 1U);
  EXPECT_EQ(component->last, 12);
  component.reset();
  EXPECT_EQ(SingletonBus::Instance().SubscriberCount<SingletonOnly>(), 0U);
}

#if MCCC_ENABLE_ASSERTS && (defined(__cpp_rtti) || defined(__GXX_RTTI))
class Unrelated : public Base {
 public:
  explicit Unrelated(Bus& bus) : Base(bus) {}
};

TEST_F(ComponentTest, DebugBuildRejectsACallbackNamingTheWrongDerivedClass) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto probe = MakeProbe();
  EXPECT_DEATH(static_cast<void>(
                   probe->SubscribeSafe<Alarm>([](std::shared_ptr<Unrelated>, const Alarm&) {})),
               "this component is not a D");
}
#endif

}  // namespace
