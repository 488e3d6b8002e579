// SPDX-License-Identifier: MIT
// A minimal mccc consumer for the packaging tests: one bus, one subscriber, one message.
// Exit status 0 only if the message was delivered.
#include <mccc/mccc.hpp>
#include <mccc/version.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <variant>

namespace {

struct Ping {
  std::uint32_t value;
};
struct Pong {
  std::uint32_t value;
};

struct ConsumerTraits : mccc::DefaultBusTraits {
  static constexpr std::uint32_t kQueueDepth = 64U;
};

using ConsumerBus = mccc::AsyncBus<std::variant<Ping, Pong>, ConsumerTraits>;

}  // namespace

int main() {
  auto bus = std::make_unique<ConsumerBus>();
  std::uint32_t received = 0U;
  const mccc::SubscriptionHandle handle = bus->Subscribe<Ping>(
      [&received](const Ping& ping, const mccc::MessageHeader&) { received = ping.value; });
  static_cast<void>(handle);
  if (!bus->Publish(Ping{7U}, 1U)) {
    return 2;
  }
  if (bus->ProcessBatch() != 1U) {
    return 3;
  }
  std::printf("mccc %d.%d.%d consumer received %u\n", MCCC_VERSION_MAJOR, MCCC_VERSION_MINOR,
              MCCC_VERSION_PATCH, static_cast<unsigned>(received));
  return received == 7U ? 0 : 1;
}
