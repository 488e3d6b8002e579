/// @file id_base.hpp
/// @brief Where the consumer's 64-bit msg_id sequence stands, readable by producers on targets
/// whose ring positions are 32-bit (and whose 64-bit atomics are not lock-free).
///
/// The consumer publishes, once per batch, the pair (next msg_id, ring head) with a sequence lock
/// made of 32-bit atomics only. A producer that refuses a message at observed tail T widens T to
/// the id that message would have received: next_id + (T - head), the difference taken modulo
/// 2^32 (it is below the capacity). Used on the cold rejection path only.
#ifndef MCCC_DETAIL_ID_BASE_HPP_
#define MCCC_DETAIL_ID_BASE_HPP_

#include <atomic>
#include <cstdint>

namespace mccc {
namespace detail {

/// @brief Single writer (the consumer), any number of readers. Lock-free for writer and reader
/// (a reader retries only while the writer is inside Publish, a few instructions).
class IdBase {
 public:
  /// @brief Starts at `next_id` for ring position `head`.
  IdBase(uint64_t next_id, uint32_t head) noexcept { Publish(next_id, head); }

  /// @brief Consumer: the next id to be delivered is `next_id`, at ring position `head`.
  void Publish(uint64_t next_id, uint32_t head) noexcept {
    // acq_rel RMW to an odd value: its acquire half keeps the data stores below from moving
    // above it, so a reader that sees new data also sees the odd (or a later) sequence.
    const uint32_t seq = seq_.fetch_add(1U, std::memory_order_acq_rel);
    // release (each): pairs with the readers' acquire data loads, making this odd sequence
    // visible to any reader that reads one of these values (no fences: ThreadSanitizer-clean).
    id_high_.store(static_cast<uint32_t>(next_id >> 32U), std::memory_order_release);
    id_low_.store(static_cast<uint32_t>(next_id), std::memory_order_release);
    head_.store(head, std::memory_order_release);
    // release: pairs with the readers' first acquire load of seq_ (the data is complete).
    seq_.store(seq + 2U, std::memory_order_release);
  }

  /// @brief Any thread: the id of the message at ring position `tail` (>= the published head).
  uint64_t IdAt(uint32_t tail) const noexcept {
    for (;;) {
      // acquire: pairs with Publish's final release store.
      const uint32_t before = seq_.load(std::memory_order_acquire);
      if ((before & 1U) != 0U) {
        continue;  // the consumer is writing
      }
      // acquire (each): pairs with Publish's release data stores (see there); also keeps the
      // second sequence load below from moving above these.
      const uint64_t next_id =
          (static_cast<uint64_t>(id_high_.load(std::memory_order_acquire)) << 32U) |
          id_low_.load(std::memory_order_acquire);
      const uint32_t head = head_.load(std::memory_order_acquire);
      // relaxed: ordered after the acquire loads above; unchanged means the data is consistent.
      if (seq_.load(std::memory_order_relaxed) == before) {
        return next_id + static_cast<uint32_t>(tail - head);
      }
    }
  }

 private:
  std::atomic<uint32_t> seq_{0U};
  std::atomic<uint32_t> id_high_{0U};
  std::atomic<uint32_t> id_low_{0U};
  std::atomic<uint32_t> head_{0U};
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_ID_BASE_HPP_
