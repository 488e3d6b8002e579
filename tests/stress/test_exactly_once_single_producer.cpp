// SPDX-License-Identifier: MIT
// The exactly-once stress matrix of test_exactly_once.cpp in the MCCC_SINGLE_PRODUCER=1 build:
// the macro is set before the first mccc include, so mccc::DefaultBusTraits::kSingleProducer is
// true and every bus below (default traits, or traits derived from them) takes the wait-free
// single-producer publish path. One producer thread, as that build requires.
//
// Matrix: 1 producer x rings of 64 (constantly full) and the default depth (131072 slots) x
// kFullFeatured / kNoStats / kBareMetal x retry-until-admitted / count-refusals x ProcessBatch
// with subscribers / ProcessBatchWith. Checks and knobs: exactly_once_harness.hpp.
#define MCCC_SINGLE_PRODUCER 1

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "mccc/bus/async_bus.hpp"
#include "mccc/traits.hpp"
#include "stress/exactly_once_harness.hpp"
#include "support/bus_configs.hpp"

namespace {

using namespace mccc_stress;  // NOLINT(google-build-using-namespace): the test's own harness

static_assert(mccc::DefaultBusTraits::kSingleProducer,
              "MCCC_SINGLE_PRODUCER=1 must make the default traits single-producer");

/// Only the depth differs from the (single-producer) defaults.
using Depth64Traits = mccc_test::Ring<64U, 16U>;

using Bus64 = mccc::AsyncBus<Payload, Depth64Traits>;
/// Everything default: 131072 slots (heap-allocated by the harness), batches of 1024.
using BusDefault = mccc::AsyncBus<Payload>;

static_assert(Depth64Traits::kSingleProducer, "inherited from the MCCC_SINGLE_PRODUCER default");
static_assert(BusDefault::kQueueDepth == 131072U, "the matrix promises the default depth");

enum BusKind : uint32_t { kDepth64, kDepthDefault };

std::vector<Scenario> AllScenarios() {
  std::vector<Scenario> all;
  AddMatrix(all, kDepth64, "SingleProducerBuildDepth64", {1U});
  AddMatrix(all, kDepthDefault, "SingleProducerBuildDefaultDepth131072", {1U});
  return all;
}

class ExactlyOnceSingleProducerTest : public ::testing::TestWithParam<Scenario> {};

// G-1: exactly once, in order, intact, with MCCC_SINGLE_PRODUCER=1 (wait-free producer path)
// G-5: admitted + refused == attempted == GetStatistics() per priority
// G-9: a refused rvalue is not moved from
TEST_P(ExactlyOnceSingleProducerTest, EveryAdmittedMessageDeliveredOnceInOrderAndIntact) {
  const Scenario& scenario = GetParam();
  if (scenario.bus == kDepth64) {
    RunScenario<Bus64>(scenario);
  } else {
    RunScenario<BusDefault>(scenario);
  }
}

INSTANTIATE_TEST_SUITE_P(Bus, ExactlyOnceSingleProducerTest, ::testing::ValuesIn(AllScenarios()),
                         ScenarioName);

// The single producer's wake-up path (a full fence only while the consumer may sleep) with the
// build's default traits.
// G-19: a parked consumer is woken by every publish (both tests below)
TEST(ExactlyOnceSingleProducerWakeupTest, ParkedConsumerIsWokenByEveryPublishDefaultTraits) {
  RunWakeupPingPong<BusDefault>(1U);
}

TEST(ExactlyOnceSingleProducerWakeupTest, ParkedConsumerIsWokenByEveryPublishDepth64) {
  RunWakeupPingPong<Bus64>(1U);
}

}  // namespace
