// SPDX-License-Identifier: MIT
// expect: mccc: the subscriber callable is larger than the bus's callback storage
// A subscriber whose captures exceed kCallbackStorageBytes is rejected (never a heap fallback).
#include <array>

#include "fixture.hpp"

struct StorageTraits : fixture::SmallTraits {
  static constexpr uint32_t kCallbackStorageBytes = 32U;
};

int main() {
  static mccc::AsyncBus<fixture::Payload, StorageTraits> bus;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  std::array<unsigned char, 33> calibration{};  // one byte more than the storage
#else
  std::array<unsigned char, 32> calibration{};
#endif
  return bus.Subscribe<fixture::Imu>([calibration](const fixture::Imu& m) {
              return m.accel > calibration[0];
            }).IsValid()
             ? 0
             : 1;
}
