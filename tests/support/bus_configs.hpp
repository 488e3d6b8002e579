// SPDX-License-Identifier: MIT
// The bus configurations the tests use, built from a few named pieces instead of a traits struct
// per test file. A configuration is a base ring plus modifiers, each a template that derives
// from the configuration it is given and changes one concern:
//
//   using LanesTraits = mccc_test::WithLanes<mccc_test::Ring<64U, 16U>, 4U, 128U>;
//   using SpscTraits = mccc_test::SingleProducer<mccc_test::Ring<64U>>;
//
// reads "a 64-slot ring with batches of 16 (and the default HIGH ring), plus 4 producer lanes
// of 128 slots". Every name below is a type, so a test can still derive its own struct from one
// when it needs something unusual (a counting critical section, a clock of its own).
//
// Two configurations spelled the same are the same type, and so are their buses: a test that
// keeps state per bus type (a static error log, Instance()) and needs two separate ones must
// derive a struct of its own. A typed test prints its type parameter in its CTest name, so
// give the configurations it runs a name of their own (`struct LaneTraits : mccc_test::
// WithLanes<...> {};`): the test is then ...<LaneTraits>, not the whole template.
#ifndef MCCC_TESTS_SUPPORT_BUS_CONFIGS_HPP_
#define MCCC_TESTS_SUPPORT_BUS_CONFIGS_HPP_

#include <cstdint>

#include "mccc/loans/loan_pools.hpp"
#include "mccc/traits.hpp"

namespace mccc_test {

// ----- The base ------------------------------------------------------------------------------

/// A bus of kDepth slots in the shared ring, batches of kBatch, and a HIGH ring of kHighDepth
/// slots (0: HIGH messages share the ring with LOW and MEDIUM). Everything else is
/// mccc::DefaultBusTraits. The defaults keep a test's bus small (the library's default depth
/// is 131,072 slots) and its batch and HIGH ring as a user gets them.
template <uint32_t kDepth, uint32_t kBatch = mccc::DefaultBusTraits::kBatchSize,
          uint32_t kHighDepth = mccc::DefaultBusTraits::kHighQueueDepth>
struct Ring : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = kDepth;
  static constexpr uint32_t kBatchSize = kBatch;
  static constexpr uint32_t kHighQueueDepth = kHighDepth;
};

/// The configuration most single-threaded tests need: 64 slots, everything else by default.
using SmallRing = Ring<64U>;

/// One ring for every priority (no HIGH ring): msg_id equals the ring position, and HIGH waits
/// its turn behind queued LOW and MEDIUM messages.
template <uint32_t kDepth, uint32_t kBatch = mccc::DefaultBusTraits::kBatchSize>
using SharedRing = Ring<kDepth, kBatch, 0U>;

// ----- Modifiers: each changes one concern of the configuration Base --------------------------

/// kLanes producer lanes of kDepth slots each: the first kLanes producer identities of the
/// process publish on a lane of their own, the others share the ring.
template <class Base, uint32_t kLanes, uint32_t kDepth = Base::kQueueDepth>
struct WithLanes : Base {
  static constexpr uint32_t kProducerLanes = kLanes;
  static constexpr uint32_t kLaneDepth = kDepth;
};

/// A HIGH ring of kDepth slots (0: none) on Base.
template <class Base, uint32_t kDepth>
struct WithHighRing : Base {
  static constexpr uint32_t kHighQueueDepth = kDepth;
};

/// Base without a HIGH ring.
template <class Base>
using NoHighRing = WithHighRing<Base, 0U>;

/// Batches of kBatch messages on Base.
template <class Base, uint32_t kBatch>
struct WithBatch : Base {
  static constexpr uint32_t kBatchSize = kBatch;
};

/// The single-producer build of Base (kOn = false: the multi-producer one, whatever the
/// MCCC_SINGLE_PRODUCER default): a wait-free publish, one publishing thread at a time.
template <class Base, bool kOn = true>
struct SingleProducer : Base {
  static constexpr bool kSingleProducer = kOn;
};

/// The single-core build of Base (plain loads and stores, the critical-section hook for the
/// read-modify-writes). Tests that use it run their bus on one thread, or guard it themselves.
template <class Base>
struct SingleCore : Base {
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;
};

/// Compact envelopes on Base: a slot keeps the sender, the priority, the timestamp (unless the
/// clock is NullClock) and the payload.
template <class Base>
struct Compact : Base {
  static constexpr bool kCompactEnvelope = true;
};

/// Base stamping with ClockT (mccc::NullClock: no timestamps).
template <class Base, class ClockT>
struct WithClock : Base {
  using Clock = ClockT;
};

/// Base with ring positions of type PositionT (uint32_t or uint64_t).
template <class Base, class PositionT>
struct WithPosition : Base {
  using Position = PositionT;
};

/// Base with loan pools: WithLoans<Base, mccc::PoolOf<Scan, 8U>, ...>.
template <class Base, class... Pools>
struct WithLoans : Base {
  using LoanPools = mccc::LoanPools<Pools...>;
};

/// Base with up to kCallbacks subscriptions per message type.
template <class Base, uint32_t kCallbacks>
struct WithCallbacks : Base {
  static constexpr uint32_t kMaxCallbacksPerType = kCallbacks;
};

/// Base whose consumer sleeps through the ConsumerWait hook WaitT.
template <class Base, class WaitT>
struct WithConsumerWait : Base {
  using ConsumerWait = WaitT;
};

/// Base whose single-core read-modify-writes go through SectionT.
template <class Base, class SectionT>
struct WithCriticalSection : Base {
  using CriticalSection = SectionT;
};

/// Base with the symmetric batch handshake (a seq_cst read-modify-write per batch) instead of
/// the asymmetric fence.
template <class Base>
struct SymmetricFence : Base {
  static constexpr bool kAsymmetricFence = false;
};

}  // namespace mccc_test

#endif  // MCCC_TESTS_SUPPORT_BUS_CONFIGS_HPP_
