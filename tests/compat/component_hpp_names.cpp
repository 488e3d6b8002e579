// SPDX-License-Identifier: MIT
// The original MCCC's component, written as its users write it, with <mccc/component.hpp> as the
// only mccc include: that line alone must bring the bus, FixedString and TruncateToCapacity too.
#include <mccc/component.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

namespace {

struct Telemetry {
  mccc::FixedString<16> channel;
  int32_t value;
};
struct Reset {
  uint32_t code;
};
using Payload = std::variant<Telemetry, Reset>;
using Bus = mccc::AsyncBus<Payload>;
using Base = mccc::Component<Payload>;

static_assert(std::is_same_v<Base::BusType, Bus>, "");
static_assert(std::is_same_v<Base::EnvelopeType, mccc::MessageEnvelope<Payload>>, "");

void Drain(Bus& bus) {
  while (bus.ProcessBatch() > 0U) {
  }
}

// The original's pattern: a private constructor, a factory that owns the component in a
// std::shared_ptr, calls InitializeComponent() and then subscribes.
class Monitor : public Base {
 public:
  static std::shared_ptr<Monitor> Create() {
    auto ptr = std::shared_ptr<Monitor>(new Monitor());
    ptr->InitializeComponent();
    ptr->SubscribeSafe<Telemetry>([](std::shared_ptr<Base> self_base, const Telemetry& telemetry,
                                     const mccc::MessageHeader& header) {
      auto self = std::static_pointer_cast<Monitor>(self_base);
      self->last_channel_ = telemetry.channel;
      self->last_value_ = telemetry.value;
      self->last_sender_ = header.sender_id;
    });
    ptr->SubscribeSimple<Reset>(
        [raw = ptr.get()](const Reset& reset, const mccc::MessageHeader& /*header*/) {
          raw->reset_codes_ += reset.code;
        });
    return ptr;
  }

  mccc::FixedString<16> last_channel_;
  int32_t last_value_ = 0;
  uint32_t last_sender_ = 0U;
  uint32_t reset_codes_ = 0U;

 private:
  Monitor() = default;
};

TEST(OriginalComponentNames, SubscribesThroughTheSingletonAndUnsubscribesOnDestruction) {
  auto& bus = Monitor::BusType::Instance();  // the bus the component subscribed to
  Drain(bus);
  std::weak_ptr<Monitor> watch;
  {
    auto monitor = Monitor::Create();
    watch = monitor;
    EXPECT_EQ(bus.SubscriberCount<Telemetry>(), 1U);
    EXPECT_EQ(bus.SubscriberCount<Reset>(), 1U);

    const std::string long_name = "left wheel speed sensor";
    ASSERT_TRUE(
        bus.Publish(Telemetry{mccc::FixedString<16>(mccc::TruncateToCapacity, long_name), 42}, 3U));
    ASSERT_TRUE(bus.Publish(Reset{5U}, 4U));
    ASSERT_TRUE(bus.Publish(Reset{6U}, 4U));
    EXPECT_EQ(bus.ProcessBatch(), 3U);

    EXPECT_TRUE(monitor->last_channel_ == "left wheel speed");
    EXPECT_EQ(monitor->last_value_, 42);
    EXPECT_EQ(monitor->last_sender_, 3U);
    EXPECT_EQ(monitor->reset_codes_, 11U);
  }
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(bus.SubscriberCount<Telemetry>(), 0U);
  EXPECT_EQ(bus.SubscriberCount<Reset>(), 0U);
  ASSERT_TRUE(bus.Publish(Reset{1U}, 4U));
  EXPECT_EQ(bus.ProcessBatch(), 1U);  // delivered to nobody
}

}  // namespace
