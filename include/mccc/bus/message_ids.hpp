// SPDX-License-Identifier: MIT
/// @file message_ids.hpp
/// @brief The msg_id sequence of a bus: who assigns each id, and the id a refused publish
/// reports.
///
/// Ids are 1, 2, 3, ... in delivery order (from a fresh bus). Three ways to get there, chosen
/// at compile time:
/// - one ring with 64-bit positions and full envelopes: the producer writes position + bias + 1
///   into the header it builds, so the consumer never writes to a slot's line (kProducerAssigns);
/// - several rings (the HIGH ring, producer lanes): only the consumer knows the delivery order,
///   so it assigns each id as it delivers, and publishes "delivered so far" once per batch for
///   refused producers to report (kDeliveryOrder);
/// - one ring with 32-bit positions (or compact slots, which have no id field): the consumer
///   assigns, and a refused producer widens its 32-bit position to 64 bits (detail/id_base.hpp).
/// Widening is exact only while the consumer prepares it before each batch for the furthest
/// position the batch can reach: that is the drain order's most-per-batch bound, which is why
/// MessageIds takes the drain order's type (BatchBound::kMostPerBatch).
#ifndef MCCC_BUS_MESSAGE_IDS_HPP_
#define MCCC_BUS_MESSAGE_IDS_HPP_

#include <atomic>
#include <cstdint>

#include "mccc/config.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/id_base.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief The ids of one bus. The producer half (IdAtPosition, WouldBeId) is thread-safe and
/// wait-free; the rest belongs to the consumer.
/// @tparam BatchBound A type with `kMostPerBatch`: the most messages one batch delivers.
template <typename Position, bool kSingleCore, unsigned kLine, bool kProducerAssigns,
          bool kDeliveryOrder, typename BatchBound>
class MessageIds {
 public:
  /// 32-bit positions: a position or delivery count is widened to a 64-bit id.
  static constexpr bool kWidens = sizeof(Position) < sizeof(uint64_t);

  /// @brief A fresh sequence: the first message delivered gets id 1. All zero bytes.
  constexpr MessageIds() noexcept
      : bias_(0U), last_id_(0U), delivered_mark_(Position{0U}), id_base_(0U, 0U) {}

  /// @brief A sequence whose ring starts at `initial_position` with id `first_id` (tests).
  MessageIds(Position initial_position, uint64_t first_id) noexcept
      : bias_(first_id - 1U - static_cast<uint64_t>(initial_position)),
        last_id_(first_id - 1U),
        delivered_mark_(initial_position),
        id_base_(bias_, static_cast<uint32_t>(initial_position)) {}  // bias_ is declared first

  /// @brief Producer: the id written into the header of the message claimed at `position`
  /// (0 unless the producer assigns ids: the consumer then completes it).
  MCCC_ALWAYS_INLINE uint64_t IdForHeader(Position position) const noexcept {
    return kProducerAssigns ? IdAtPosition(position) : 0U;
  }

  /// @brief Producer, refused at observed tail `tail` (cold path): the id the message would
  /// have received, which is the id the next admitted message receives. `consumed()` returns
  /// the ring's consumer position; it is read only where a 32-bit position is widened.
  template <typename ConsumedPosition>
  uint64_t WouldBeId(Position tail, const ConsumedPosition& consumed) const noexcept {
    if constexpr (kDeliveryOrder) {
      // Several rings: the id is decided at delivery. The report carries the id the consumer
      // gives next as of its last finished batch (ids below it were delivered before the
      // refusal was reported). acquire: pairs with FinishBatch's release store.
      static_cast<void>(tail);
      static_cast<void>(consumed);
      const Position mark = LoadAcquire<kSingleCore>(delivered_mark_);
      if constexpr (kWidens) {
        return id_base_.IdOfPosition(static_cast<uint32_t>(mark), static_cast<uint32_t>(mark));
      } else {
        return static_cast<uint64_t>(mark) + bias_ + 1U;
      }
    } else if constexpr (kProducerAssigns) {
      static_cast<void>(consumed);
      return IdAtPosition(tail);
    } else {
      return id_base_.IdOfPosition(static_cast<uint32_t>(tail), static_cast<uint32_t>(consumed()));
    }
  }

  /// @brief Consumer, before a batch (32-bit positions): lets refusing producers widen
  /// positions (or delivery counts) the batch's stores reach (detail/id_base.hpp).
  MCCC_ALWAYS_INLINE void PrepareBatch() noexcept {
    if constexpr (kWidens) {
      id_base_.PrepareBatch(WidenedHead(), BatchBound::kMostPerBatch);
    }
  }

  /// @brief Consumer: completes `header`'s id (unless the producer wrote it) and advances the
  /// sequence. True when the 64-bit sequence wrapped to 0 (once per 2^64 messages).
  MCCC_ALWAYS_INLINE bool Assign(MessageHeader& header) noexcept {
    if constexpr (kProducerAssigns) {
      MCCC_ASSERT(header.msg_id == last_id_ + 1U, "msg_id out of sequence");
    } else {
      header.msg_id = last_id_ + 1U;
    }
    ++last_id_;
    return MCCC_UNLIKELY(header.msg_id == 0U);
  }

  /// @brief Consumer, after a batch that delivered something: publishes how far delivery got
  /// for refused producers (several rings only).
  MCCC_ALWAYS_INLINE void FinishBatch() noexcept {
    if constexpr (kDeliveryOrder) {
      // release: pairs with WouldBeId's acquire load; with 32-bit positions it also carries
      // PrepareBatch's earlier store of the widening word to that reader.
      StoreRelease<kSingleCore>(delivered_mark_, static_cast<Position>(WidenedHead()));
    }
  }

  /// @brief Consumer: the id of the last message delivered (0: none yet).
  uint64_t LastDelivered() const noexcept { return last_id_; }

 private:
  /// The msg_id of ring position `position` (64-bit positions; producer side).
  MCCC_ALWAYS_INLINE uint64_t IdAtPosition(Position position) const noexcept {
    return static_cast<uint64_t>(position) + bias_ + 1U;
  }

  /// Consumer: the widened position of the next message to deliver (its id minus one minus the
  /// bias), or the delivered count with several rings.
  MCCC_ALWAYS_INLINE uint64_t WidenedHead() const noexcept { return last_id_ - bias_; }

  // Read by every producer that assigns ids, never written after construction: on a line of
  // its own, apart from the consumer's words below (0 on a fresh bus).
  const uint64_t bias_;
  // Consumer-owned: the id of the last message delivered.
  alignas(kLine) uint64_t last_id_;
  // Consumer-written once per batch, read by refusing producers (several rings only): the
  // delivered count at the end of the last batch, which WouldBeId turns into an id.
  std::atomic<Position> delivered_mark_;
  // Consumer-written at most once per 2^31 messages, read by refused producers (32-bit
  // positions only).
  IdBase<kSingleCore> id_base_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_MESSAGE_IDS_HPP_
