// SPDX-License-Identifier: MIT
// expect: mccc: Publish: this message cannot be copied
// A message type whose copy constructor is deleted is published by moving it. Publishing an
// lvalue is refused with a message, also for a trivially copyable type (the bus never copies its
// bytes behind the deleted constructor's back).
#include "fixture.hpp"

struct Token {
  Token() noexcept = default;
  Token(const Token&) = delete;
  Token(Token&&) noexcept = default;
  Token& operator=(const Token&) = delete;
  Token& operator=(Token&&) noexcept = default;
  ~Token() = default;
  uint64_t id = 0U;
};
static_assert(std::is_trivially_copyable_v<Token>, "the case the word copy must not take");

int main() {
  static mccc::AsyncBus<std::variant<fixture::Imu, Token>, fixture::SmallTraits> bus;
  Token token;
  token.id = 7U;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  return bus.Publish(token, 1U) ? 0 : 1;
#else
  return bus.Publish(std::move(token), 1U) ? 0 : 1;
#endif
}
