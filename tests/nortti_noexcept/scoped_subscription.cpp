// SPDX-License-Identifier: MIT
// ScopedSubscription under -fno-exceptions -fno-rtti: the type-erased bus (a pointer and a
// function pointer) needs neither. Returns 0 when the subscription ends exactly with its owner.
#include <mccc/mccc.hpp>

#include <memory>
#include <utility>
#include <variant>

int ScopedSubscriptionWithoutExceptionsOrRtti() {
  using Bus = mccc::AsyncBus<std::variant<int>>;
  auto bus = std::make_unique<Bus>();
  int delivered = 0;
  {
    mccc::ScopedSubscription first =
        bus->SubscribeScoped<int>([&delivered](const int& value) { delivered += value; });
    const mccc::ScopedSubscription second(std::move(first));
    if (first || !second || bus->SubscriberCount<int>() != 1U) {  // NOLINT(bugprone-use-after-move)
      return 20;
    }
    if (!bus->Publish(5, 1U) || bus->ProcessBatch() != 1U || delivered != 5) {
      return 21;
    }
  }
  if (bus->SubscriberCount<int>() != 0U) {
    return 22;
  }
  if (!bus->Publish(7, 1U) || bus->ProcessBatch() != 1U) {
    return 23;
  }
  return delivered == 5 ? 0 : 24;
}
