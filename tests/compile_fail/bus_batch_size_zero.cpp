// SPDX-License-Identifier: MIT
// expect: mccc: kBatchSize \(MCCC_BATCH_SIZE\) must be > 0
// A bus with kBatchSize = 0 could never dispatch anything.
#include "fixture.hpp"

struct BatchTraits : fixture::SmallTraits {
#ifndef MCCC_COMPILE_FAIL_CONTROL
  static constexpr uint32_t kBatchSize = 0U;
#else
  static constexpr uint32_t kBatchSize = 1U;
#endif
};

int main() {
  static mccc::AsyncBus<fixture::Payload, BatchTraits> bus;
  return static_cast<int>(bus.ProcessBatch());
}
