// SPDX-License-Identifier: MIT
// expect: mccc: SubscribeSimple<T>: the callback plus the std::weak_ptr the component stores
// Compile-fail check: a SubscribeSimple callable that, with the weak_ptr the component adds,
// exceeds the bus's kCallbackStorageBytes must be rejected with a message saying what to change.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile (the capture then fits).
#include <array>
#include <cstdint>
#include <memory>
#include <variant>

#include "mccc/components/component.hpp"

using Payload = std::variant<int>;
struct Traits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
};

int main() {
  auto bus = std::make_unique<mccc::AsyncBus<Payload, Traits>>();
  auto component = std::make_shared<mccc::Component<Payload, Traits>>(*bus);
#ifndef MCCC_COMPILE_FAIL_CONTROL
  std::array<char, 56> big{};  // 56 + 16 (weak_ptr) > 64
#else
  std::array<char, 40> big{};  // 40 + 16 fits
#endif
  return component->SubscribeSimple<int>([big](const int&) { static_cast<void>(big); }).IsValid()
             ? 0
             : 1;
}
