// SPDX-License-Identifier: MIT
// The RAM formula of docs/porting.md ("Memory"), checked exactly against the
// compiler's layout on Cortex-M (built for cortex-m4 and cortex-m0 with -DNDEBUG, as a product
// image is; tests/CMakeLists.txt). A bus of a single-core build with 32-bit positions is
//   (kQueueDepth + kHighQueueDepth) x SlotBytes()
//   + payload types x (8 + 2 x kMaxCallbacksPerType x (24 + kCallbackStorageBytes))
//   + 248 B, + 16 B with a HIGH ring
// for kCallbackStorageBytes a multiple of 8. Every configuration below must match to the byte.
#include <mccc/mccc.hpp>

#include <cstdint>
#include <variant>

namespace {

struct Sample {
  int32_t value;
  uint32_t tick;
};
struct Command {
  uint32_t code;
  uint32_t arg;
};
struct Status {
  uint16_t flags;
};
struct Setpoint {
  int32_t value;
  uint32_t channel;
};

template <uint32_t kDepth, uint32_t kHigh, uint32_t kPerType, uint32_t kStorage>
struct McuTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = kDepth;
  static constexpr uint32_t kHighQueueDepth = kHigh;
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;
  static constexpr uint32_t kMaxCallbacksPerType = kPerType;
  static constexpr uint32_t kCallbackStorageBytes = kStorage;
};

template <typename Payload, uint32_t kDepth, uint32_t kHigh, uint32_t kPerType, uint32_t kStorage>
constexpr bool FormulaHolds() {
  using Bus = mccc::AsyncBus<Payload, McuTraits<kDepth, kHigh, kPerType, kStorage>>;
  constexpr std::size_t kTypes = std::variant_size_v<Payload>;
  constexpr std::size_t kFormula = (kDepth + kHigh) * Bus::SlotBytes() +
                                   kTypes * (8U + 2U * kPerType * (24U + kStorage)) + 248U +
                                   (kHigh != 0U ? 16U : 0U);
  return sizeof(Bus) == kFormula;
}

using Two = std::variant<Sample, Command>;
using Four = std::variant<Sample, Command, Status, Setpoint>;

static_assert(FormulaHolds<Two, 64U, 16U, 1U, 16U>(), "RAM formula: 64 + 16 slots");
static_assert(FormulaHolds<Two, 64U, 0U, 1U, 16U>(), "RAM formula: 64 slots, no HIGH ring");
static_assert(FormulaHolds<Two, 256U, 16U, 2U, 16U>(), "RAM formula: 256 + 16 slots");
static_assert(FormulaHolds<Two, 1024U, 0U, 2U, 64U>(), "RAM formula: 1024 slots");
static_assert(FormulaHolds<Four, 64U, 16U, 1U, 16U>(), "RAM formula: four types");
static_assert(FormulaHolds<Four, 128U, 8U, 3U, 24U>(), "RAM formula: 3 per type");
static_assert(FormulaHolds<Four, 64U, 16U, 4U, 32U>(), "RAM formula: 4 per type");

// The 8-byte-message slot docs/porting.md quotes: a compact NullClock envelope of 20 B + the 4-byte
// sequence word.
static_assert(mccc::AsyncBus<Two, McuTraits<64U, 16U, 1U, 16U>>::SlotBytes() == 24U,
              "docs/porting.md: 24 B per slot for a variant of two 8-byte messages");

}  // namespace
