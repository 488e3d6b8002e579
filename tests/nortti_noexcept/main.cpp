// SPDX-License-Identifier: MIT
// Built with -fno-exceptions -fno-rtti (tests/CMakeLists.txt): the whole library must compile and
// work without exceptions and RTTI. Exit status 0 only if the published message was delivered.
#include <mccc/mccc.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <variant>

int main() {
  using Payload = std::variant<int, float>;
  auto bus = std::make_unique<mccc::AsyncBus<Payload>>();

  int delivered = 0;
  const mccc::SubscriptionHandle handle = bus->Subscribe<int>(
      [&delivered](const int& value, const mccc::MessageHeader&) { delivered = value; });
  if (handle.callback_id == static_cast<std::size_t>(-1)) {
    return 2;
  }
  if (!bus->Publish(42, 1U)) {
    return 3;
  }
  if (bus->ProcessBatch() != 1U) {
    return 4;
  }
  return delivered == 42 ? 0 : 1;
}
