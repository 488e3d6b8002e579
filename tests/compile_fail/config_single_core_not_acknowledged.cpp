// SPDX-License-Identifier: MIT
// expect: MCCC_SINGLE_CORE=1 replaces hardware memory barriers with compiler fences
// The MCCC_SINGLE_CORE=1 default without MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE=1 stops the build
// (#error in config.hpp) before any bus is declared.
#define MCCC_SINGLE_CORE 1
#ifdef MCCC_COMPILE_FAIL_CONTROL
#define MCCC_I_KNOW_SINGLE_CORE_IS_UNSAFE 1
#endif

#include "fixture.hpp"

int main() {
  static fixture::SmallBus bus;
  return bus.Publish(fixture::Imu{1}, 1U) ? 0 : 1;
}
