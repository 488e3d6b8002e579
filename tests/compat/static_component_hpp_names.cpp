// SPDX-License-Identifier: MIT
// The original MCCC's compile-time component, with <mccc/static_component.hpp> as the only mccc
// include: that line alone must bring AsyncBus, whose ProcessBatchWith takes the visitor.
#include <mccc/static_component.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <variant>

namespace {

struct Speed {
  int32_t rpm;
};
struct Stop {
  uint32_t reason;
};
struct Log {
  uint32_t level;
};
using Payload = std::variant<Speed, Stop, Log>;
using Bus = mccc::AsyncBus<Payload>;

class Controller : public mccc::StaticComponent<Controller, Payload> {
 public:
  void Handle(const Speed& speed) noexcept {
    ++speed_count;
    last_rpm = speed.rpm;
  }
  void Handle(const Stop& stop) noexcept { stop_reasons += stop.reason; }
  // Log is not handled: ignored, decided at compile time.

  int speed_count = 0;
  int32_t last_rpm = 0;
  uint32_t stop_reasons = 0U;
};

static_assert(mccc::detail::HasHandler<Controller, Speed>::value, "");
static_assert(mccc::detail::HasHandler<Controller, Stop>::value, "");
static_assert(!mccc::detail::HasHandler<Controller, Log>::value, "");
static_assert(std::is_same_v<Controller::BusType, Bus>, "");
static_assert(std::is_same_v<Controller::EnvelopeType, mccc::MessageEnvelope<Payload>>, "");

TEST(OriginalStaticComponentNames, VisitorDispatchesThroughTheSingleton) {
  auto& bus = Controller::BusType::Instance();
  Controller controller;
  auto visitor = controller.MakeVisitor();
  while (bus.ProcessBatchWith(visitor) > 0U) {
  }

  ASSERT_TRUE(bus.Publish(Speed{1200}, 1U));
  ASSERT_TRUE(bus.Publish(Log{3U}, 1U));
  ASSERT_TRUE(bus.Publish(Stop{9U}, 1U));
  ASSERT_TRUE(bus.Publish(Speed{1500}, 1U));
  EXPECT_EQ(bus.ProcessBatchWith(visitor), 4U);
  EXPECT_EQ(controller.speed_count, 2);
  EXPECT_EQ(controller.last_rpm, 1500);
  EXPECT_EQ(controller.stop_reasons, 9U);
  EXPECT_EQ(bus.ProcessBatchWith(visitor), 0U);
}

}  // namespace
