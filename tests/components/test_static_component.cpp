// SPDX-License-Identifier: MIT
// Unit tests of mccc::StaticComponent and mccc::HasHandler (include/mccc/components/
// static_component.hpp). That the visitor compiles to direct, inlined calls is checked on the
// generated assembly by tests/codegen/.
#include "mccc/components/static_component.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "mccc/bus/async_bus.hpp"
#include "mccc/static_component.hpp"  // the documented path must work too
#include "support/bus_configs.hpp"

namespace {

struct Temperature {
  int32_t celsius;
};
struct Command {
  int32_t code;
};
struct Ignored {
  int32_t value;
};
struct BaseMessage {
  int32_t value;
};
struct DerivedMessage : BaseMessage {};

using Payload = std::variant<Temperature, Command, Ignored, int, double, DerivedMessage>;

using SmallTraits = mccc_test::SmallRing;
using Bus = mccc::AsyncBus<Payload, SmallTraits>;

// ---------------------------------------------------------------------------------------------
// HasHandler: which Handle forms count (compile time).
// ---------------------------------------------------------------------------------------------

struct PlainRef {
  void Handle(const Temperature&) {}
};
struct ByValue {
  void Handle(int) {}
};
struct WithHeader {
  void Handle(const Command&, const mccc::MessageHeader&) {}
};
struct ByValueWithHeader {
  void Handle(Command, const mccc::MessageHeader&) {}
};
struct ConstNoexceptBool {
  bool Handle(const Temperature&) const noexcept { return true; }
};
struct Template {
  template <typename T>
  void Handle(const T&) {}
};
struct Inherits : PlainRef {};
struct Private {
 private:
  void Handle(const Temperature&) {}
};
struct OnlyDouble {
  void Handle(double) {}  // an int would reach it only through a conversion
};
struct OnlyBase {
  void Handle(const BaseMessage&) {}  // a DerivedMessage would reach it only as its base
};
struct WrongReturnType {
  int Handle(const Temperature&) { return 0; }
};
struct NoHandle {};

static_assert(mccc::HasHandler<PlainRef, Temperature>::value, "Handle(const T&)");
static_assert(!mccc::HasHandler<PlainRef, Command>::value, "no handler for Command");
static_assert(mccc::HasHandler<ByValue, int>::value, "Handle(T)");
static_assert(mccc::HasHandler<WithHeader, Command>::value, "Handle(const T&, header)");
static_assert(mccc::HasHandler<ByValueWithHeader, Command>::value, "Handle(T, header)");
static_assert(mccc::HasHandler<ConstNoexceptBool, Temperature>::value, "const noexcept bool");
static_assert(mccc::HasHandler<Template, Temperature>::value, "member template");
static_assert(mccc::HasHandler<Template, double>::value, "member template");
static_assert(mccc::HasHandler<Inherits, Temperature>::value, "inherited Handle");
static_assert(!mccc::HasHandler<Private, Temperature>::value, "a private Handle is not seen");
static_assert(mccc::HasHandler<OnlyDouble, double>::value, "exact type");
static_assert(!mccc::HasHandler<OnlyDouble, int>::value, "no int -> double conversion");
static_assert(!mccc::HasHandler<OnlyBase, DerivedMessage>::value, "no derived -> base");
static_assert(!mccc::HasHandler<WrongReturnType, Temperature>::value, "void or bool only");
static_assert(!mccc::HasHandler<NoHandle, Temperature>::value, "no Handle at all");
static_assert(mccc::kHasHandler<PlainRef, Temperature>, "variable form");

// ---------------------------------------------------------------------------------------------
// Components used with the bus.
// ---------------------------------------------------------------------------------------------

class Controller : public mccc::StaticComponent<Controller, Payload> {
 public:
  void Handle(const Temperature& t) { temperatures.push_back(t.celsius); }
  void Handle(const Command& c, const mccc::MessageHeader& header) {
    commands.push_back(c.code);
    command_senders.push_back(header.sender_id);
    command_ids.push_back(header.msg_id);
  }
  bool Handle(double d) { return d >= 0.0; }  // negative = processing error
  void Handle(const BaseMessage&) { ++base_messages; }

  std::vector<int32_t> temperatures;
  std::vector<int32_t> commands;
  std::vector<uint32_t> command_senders;
  std::vector<uint64_t> command_ids;
  int base_messages = 0;
};

static_assert(Controller::kHandledTypes == 3U, "Temperature, Command, double");
static_assert(!std::is_polymorphic_v<Controller>, "no virtual function");
static_assert(sizeof(Controller::Visitor) == sizeof(void*), "the visitor is one pointer");
static_assert(std::is_trivially_copyable_v<Controller::Visitor>, "cheap to pass by value");

class StaticComponentTest : public ::testing::Test {
 protected:
  std::unique_ptr<Bus> bus_ = std::make_unique<Bus>();
};

TEST_F(StaticComponentTest, VisitorCallsHandlersAndIgnoresOtherTypes) {
  Controller controller;
  ASSERT_TRUE(bus_->Publish(Temperature{21}, 1U));
  ASSERT_TRUE(bus_->Publish(Ignored{5}, 2U));
  ASSERT_TRUE(bus_->Publish(Command{7}, 3U));
  ASSERT_TRUE(bus_->Publish(42, 4U));                // int: no handler (no conversion to double)
  ASSERT_TRUE(bus_->Publish(DerivedMessage{}, 5U));  // no handler (no conversion to its base)
  ASSERT_TRUE(bus_->Publish(Temperature{-3}, 6U));
  ASSERT_TRUE(bus_->Publish(Command{9}, 7U));

  EXPECT_EQ(bus_->ProcessBatchWith(controller.MakeVisitor()), 7U);

  EXPECT_EQ(controller.temperatures, (std::vector<int32_t>{21, -3}));
  EXPECT_EQ(controller.commands, (std::vector<int32_t>{7, 9}));
  EXPECT_EQ(controller.command_senders, (std::vector<uint32_t>{3U, 7U}));
  EXPECT_EQ(controller.command_ids, (std::vector<uint64_t>{3U, 7U}));  // delivery order ids
  EXPECT_EQ(controller.base_messages, 0);
  EXPECT_EQ(bus_->GetStatistics().processing_errors, 0U);
  EXPECT_EQ(bus_->QueueOccupancy(), 0U);
}

TEST_F(StaticComponentTest, BoolHandlerReturningFalseIsAProcessingError) {
  Controller controller;
  ASSERT_TRUE(bus_->Publish(1.5, 1U));
  ASSERT_TRUE(bus_->Publish(-1.0, 1U));
  ASSERT_TRUE(bus_->Publish(-2.0, 1U));
  EXPECT_EQ(bus_->ProcessBatchWith(controller.MakeVisitor()), 3U);
  EXPECT_EQ(bus_->GetStatistics().processing_errors, 2U);
  EXPECT_EQ(bus_->GetStatistics().messages_processed, 3U);
}

TEST_F(StaticComponentTest, VisitorReturnsHandlerVerdictAndTrueForIgnoredTypes) {
  Controller controller;
  const Controller::Visitor visitor = controller.MakeVisitor();
  const mccc::MessageHeader header{11U, 0U, 12U, mccc::MessagePriority::kHigh};
  EXPECT_TRUE(visitor(2.0, header));
  EXPECT_FALSE(visitor(-2.0, header));
  EXPECT_TRUE(visitor(Ignored{1}, header));
  EXPECT_TRUE(visitor(7, header));
  EXPECT_TRUE(visitor(Command{4}, header));
  EXPECT_EQ(controller.commands, (std::vector<int32_t>{4}));
  EXPECT_EQ(controller.command_senders, (std::vector<uint32_t>{12U}));
  EXPECT_EQ(controller.command_ids, (std::vector<uint64_t>{11U}));
}

// Handles every type through a member template, const handler, statically allocated.
class Counter : public mccc::StaticComponent<Counter, Payload> {
 public:
  template <typename T>
  void Handle(const T&, const mccc::MessageHeader& header) const {
    sender_sum += header.sender_id;
    ++count;
  }
  mutable uint64_t sender_sum = 0U;
  mutable int count = 0;
};
static_assert(Counter::kHandledTypes == std::variant_size_v<Payload>, "all types");

Counter g_counter;  // static storage: no heap, no shared_ptr needed

TEST_F(StaticComponentTest, TemplateHandlerSeesEveryTypeAndStaticStorageWorks) {
  ASSERT_TRUE(bus_->Publish(Temperature{1}, 1U));
  ASSERT_TRUE(bus_->Publish(Ignored{2}, 10U));
  ASSERT_TRUE(bus_->Publish(3.0, 100U));
  EXPECT_EQ(bus_->ProcessBatchWith(g_counter.MakeVisitor()), 3U);
  EXPECT_EQ(g_counter.count, 3);
  EXPECT_EQ(g_counter.sender_sum, 111U);
}

TEST_F(StaticComponentTest, VisitorCanBeReusedAcrossBatches) {
  Controller controller;
  Controller::Visitor visitor = controller.MakeVisitor();
  ASSERT_TRUE(bus_->Publish(Temperature{1}, 1U));
  EXPECT_EQ(bus_->ProcessBatchWith(visitor), 1U);
  ASSERT_TRUE(bus_->Publish(Temperature{2}, 1U));
  EXPECT_EQ(bus_->ProcessBatchWith(visitor), 1U);
  EXPECT_EQ(bus_->ProcessBatchWith(visitor), 0U);
  EXPECT_EQ(controller.temperatures, (std::vector<int32_t>{1, 2}));
}

}  // namespace
