// SPDX-License-Identifier: MIT
/// @file id_base.hpp
/// @brief The 64-bit msg_id of a 32-bit ring position, computable by any producer wait-free
/// (also from an interrupt or signal handler that preempted the consumer).
///
/// With 32-bit positions (targets whose 64-bit atomics are not lock-free) a position names a
/// message only modulo 2^32. msg_id = offset + the position widened to 64 bits, so a producer
/// that refuses a message at observed tail T needs the widened value of T. It gets it from two
/// words, each a single atomic store of the consumer's:
/// - the ring's 32-bit head h (stored by the consumer after every message), and
/// - `half_laps_`, the widened head divided by 2^31 (modulo 2^32), stored by the consumer before
///   any head store that can reach the next multiple of 2^31.
/// The reader loads h, then `half_laps_`. The value it gets is the one that belongs to h, or the
/// next one (the consumer moved on meanwhile). Bit 31 of h and the low bit of the matching
/// `half_laps_` are the same bit of the widened head, so a mismatch says "one ahead", and the
/// reader steps back. Exact unless the reader is delayed for 2^31 messages between its two loads,
/// and for the first 2^63 positions (`half_laps_` keeps 32 bits of the widened head's top 33).
/// No sequence lock: nothing a reader does waits for the writer, so a reader that preempted the
/// writer (one core, an interrupt) completes in a fixed number of steps.
/// T itself may be older than h (a refusing producer delayed after observing its tail): the
/// distance T - h is taken as a signed 32-bit value, exact while the delay is below 2^31 messages.
#ifndef MCCC_DETAIL_ID_BASE_HPP_
#define MCCC_DETAIL_ID_BASE_HPP_

#include <atomic>
#include <cstdint>

#include "mccc/config.hpp"
#include "mccc/detail/atomic_ops.hpp"

namespace mccc {
namespace detail {

/// @brief Single writer (the consumer), any number of readers. Wait-free for both.
template <bool kSingleCore>
class IdBase {
 public:
  /// @brief `id_bias`: msg_id minus one minus the widened position (constant for the bus's
  /// life; 0 on a fresh bus, whose position 0 carries id 1, so that a fresh IdBase is all zero
  /// bytes). `initial_position`: the ring's first position; it is its own widened value.
  constexpr IdBase(uint64_t id_bias, uint32_t initial_position) noexcept
      : id_bias_(id_bias), half_laps_(HalfLapsOf(initial_position)) {}

  /// @brief Consumer, before it consumes up to `batch_limit` messages from widened head
  /// `widened_head`: makes sure `half_laps_` already holds the value of the furthest head the
  /// batch can reach, so that no head store of the batch gets ahead of it.
  MCCC_ALWAYS_INLINE void PrepareBatch(uint64_t widened_head, uint32_t batch_limit) noexcept {
    const auto furthest = static_cast<uint32_t>((widened_head + batch_limit) >> kHalfLapBits);
    // relaxed: only the consumer writes half_laps_; it reads its own last value.
    if (MCCC_UNLIKELY(furthest != half_laps_.load(std::memory_order_relaxed))) {
      // release: pairs with the reader's acquire load of the ring head (IdOfPosition); the head
      // stores that follow in this thread carry this value to any reader that sees them.
      StoreRelease<kSingleCore>(half_laps_, furthest);
    }
  }

  /// @brief Any thread: the msg_id of ring position `position`, given `head`, a ring head the
  /// caller loaded (acquire) just before this call. Wait-free.
  MCCC_ALWAYS_INLINE uint64_t IdOfPosition(uint32_t position, uint32_t head) const noexcept {
    // relaxed: ordered after the caller's acquire load of the head, which pairs with the
    // consumer's release head store that follows its PrepareBatch store; a newer value is
    // recognised by its low bit below.
    uint32_t half_laps = half_laps_.load(std::memory_order_relaxed);
    if ((half_laps & 1U) != (head >> kHalfLapBits)) {
      --half_laps;  // the consumer prepared the next half lap after `head` was read
    }
    // The widened head: its high 32 bits are half_laps / 2 (modulo 2^31), its low 32 bits head.
    const uint64_t widened_head = (static_cast<uint64_t>(half_laps >> 1U) << 32U) | head;
    const auto distance = static_cast<int32_t>(position - head);
    return id_bias_ + 1U + widened_head + static_cast<uint64_t>(static_cast<int64_t>(distance));
  }

 private:
  static constexpr unsigned kHalfLapBits = 31U;

  static constexpr uint32_t HalfLapsOf(uint64_t widened) noexcept {
    return static_cast<uint32_t>(widened >> kHalfLapBits);
  }

  const uint64_t id_bias_;
  std::atomic<uint32_t> half_laps_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_ID_BASE_HPP_
