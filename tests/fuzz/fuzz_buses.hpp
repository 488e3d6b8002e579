// SPDX-License-Identifier: MIT
/// @file fuzz_buses.hpp
/// @brief The bus types the fuzz target runs (their traits; RunInput picks one per input) and
/// the run of one input on one of them.
#ifndef MCCC_TESTS_FUZZ_BUSES_HPP_
#define MCCC_TESTS_FUZZ_BUSES_HPP_

#include <cstdint>

#include "fuzz_harness.hpp"
// Every member function of the harness, as RunWith instantiates it.
#include "fuzz_harness_callbacks.hpp"
#include "fuzz_harness_consume.hpp"
#include "fuzz_harness_loans.hpp"
#include "fuzz_harness_nested.hpp"
#include "fuzz_harness_observe.hpp"
#include "fuzz_harness_publish.hpp"
#include "fuzz_harness_run.hpp"
#include "fuzz_harness_subscriptions.hpp"
#include "fuzz_input.hpp"
#include "fuzz_payloads.hpp"
#include "mccc/mccc.hpp"

namespace mccc_fuzz {

/// kPool: blocks of Cloud's loan pool; kHigh: HIGH ring slots (0: none); kLanes, kLaneSlots:
/// producer lanes.
template <uint32_t kDepth, uint32_t kBatch, bool kSingle, typename Pos, uint32_t kPool,
          uint32_t kHigh = 0U, uint32_t kLanes = 0U, uint32_t kLaneSlots = 8U>
struct FuzzTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kCloudBlocks = kPool;  // read by the harness's model
  using LoanPools = mccc::LoanPools<mccc::PoolOf<Cloud, kPool>>;
  static constexpr uint32_t kQueueDepth = kDepth;
  static constexpr uint32_t kBatchSize = kBatch;
  static constexpr bool kSingleProducer = kSingle;
  static constexpr uint32_t kMaxCallbacksPerType = 3U;  // small, so the limits are reached
  static constexpr uint32_t kHighQueueDepth = kHigh;
  static constexpr uint32_t kProducerLanes = kLanes;
  static constexpr uint32_t kLaneDepth = kLaneSlots;
  using Position = Pos;
};

template <uint32_t kDepth, uint32_t kBatch, bool kSingle, typename Pos, uint32_t kPool,
          uint32_t kHigh = 0U, uint32_t kLanes = 0U, uint32_t kLaneSlots = 8U>
using FuzzBus =
    mccc::AsyncBus<Payload,
                   FuzzTraits<kDepth, kBatch, kSingle, Pos, kPool, kHigh, kLanes, kLaneSlots>>;

template <typename Bus>
void RunWith(Input& in, uint8_t config, uint8_t wrap_distance) {
  Harness<Bus> harness(in, (config & 0x40U) != 0U, wrap_distance, (config & 0x80U) != 0U);
  harness.Run();
}

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_BUSES_HPP_
