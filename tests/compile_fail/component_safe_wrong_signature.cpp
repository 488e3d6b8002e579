// SPDX-License-Identifier: MIT
// expect: mccc: SubscribeSafe<T>: the callback must be callable as f\(std::shared_ptr<C>
// Compile-fail check: SubscribeSafe needs a callback that takes the component's shared_ptr first;
// a plain (const T&) callback belongs to SubscribeSimple, and the message says so.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include <cstdint>
#include <memory>
#include <variant>

#include "mccc/components/component.hpp"

using Payload = std::variant<int>;
struct Traits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
};
using Base = mccc::Component<Payload, Traits>;

int main() {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, Traits>>();
  auto component = std::make_shared<Base>(*bus);
#ifndef MCCC_COMPILE_FAIL_CONTROL
  auto handle = component->SubscribeSafe<int>([](const int&) {});
#else
  auto handle = component->SubscribeSafe<int>([](std::shared_ptr<Base>, const int&) {});
#endif
  return handle.IsValid() ? 0 : 1;
}
