// SPDX-License-Identifier: MIT
// expect: mccc: every payload alternative must be nothrow move constructible
// A claimed ring slot must always be completed, so every alternative needs a noexcept move
// constructor.
#include "fixture.hpp"

struct Log {
  Log() = default;
  Log(const Log&) = default;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  Log(Log&& other) : line(other.line) {}  // may throw (not noexcept)
#else
  Log(Log&& other) noexcept : line(other.line) {}
#endif
  Log& operator=(const Log&) = default;
  Log& operator=(Log&&) = default;
  ~Log() = default;
  int line = 0;
};

int main() {
  static mccc::AsyncBus<std::variant<fixture::Imu, Log>, fixture::SmallTraits> bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
