// SPDX-License-Identifier: MIT
/// @file minimal_lane.hpp
/// @brief The minimal producer lane: the layout the bus's producer lanes use (compact slots, no
/// sequence word, the tail announced by one store per message), a timestamp per message, and
/// nothing else. Its slot is as large as the bus's lane slot for the same payload (the header
/// words, the payload and the variant's index are all written), so that `lanes(4) Publish /
/// min lane` is the bus's own overhead and `min lane / min ring` the price of the layout itself.
/// The minimal rings (minimal_ring.hpp) give each message a 64-byte line of its own with its
/// sequence word in it; here several messages share a line, and the consumer learns how many are
/// ready from a separate tail line.
#ifndef MCCC_BENCH_COMMON_MINIMAL_LANE_HPP_
#define MCCC_BENCH_COMMON_MINIMAL_LANE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <variant>

#include "common/adapters.hpp"
#include "common/harness.hpp"

namespace mccc_bench {

/// @brief What one slot of the minimal lane holds: the same bytes as the bus's lane slot for a
/// payload P in `std::variant<P, Heartbeat, Command>` (a 24-byte header, the payload, the
/// variant's index word).
template <typename P>
struct MinimalLaneSlot {
  uint64_t id;               ///< The header's message id (written, as the bus writes it).
  uint64_t stamp;            ///< The raw cycle-counter reading.
  uint64_t sender_priority;  ///< The header's sender and priority.
  P payload;
  uint64_t index;  ///< Stands for the variant's index (written, as the bus writes it).
};

/// @brief Single-producer lane with compact slots announced by a tail index.
/// @tparam kOrderedStamp true: the stamp is the ordered read mccc's TscClock takes (`rdtscp`,
///         mccc::detail::TscSource::Ticks); false: the unordered `rdtsc`.
template <typename P, typename Sink, bool kOrderedStamp>
class MinimalLane {
 public:
  static constexpr int kMaxProducers = 1;
  static constexpr bool kSynchronous = false;

  MinimalLane(const Options& options, Sink& sink)
      : capacity_(RoundUpPow2(options.capacity)),
        mask_(capacity_ - 1U),
        storage_(new unsigned char[capacity_ * sizeof(Slot) + 64U]),
        sink_(&sink) {
    // The slots start on a line, as the bus's lane storage does; every page is touched here.
    void* first = storage_.get();
    std::size_t space = capacity_ * sizeof(Slot) + 64U;
    slots_ = static_cast<Slot*>(std::align(64U, capacity_ * sizeof(Slot), first, space));
    for (uint64_t i = 0U; i < capacity_; ++i) {
      ::new (static_cast<void*>(&slots_[i])) Slot{};
    }
  }

  struct Producer {};
  struct Consumer {};

  Producer MakeProducer(int) { return Producer{}; }
  Consumer MakeConsumer() { return Consumer{}; }
  void Flush(Producer&) {}

  MCCC_ALWAYS_INLINE bool TryPush(Producer&, const P& m) {
    uint64_t stamp = 0U;
#if MCCC_HAS_TSC_SOURCE
    stamp = kOrderedStamp ? mccc::detail::TscSource::Ticks() : Ticks::Read();
#else
    stamp = Ticks::Read();
#endif
    const uint64_t position = owner_.tail;
    if (MCCC_UNLIKELY(position - owner_.cached_head == capacity_)) {
      // acquire: pairs with the consumer's release store of the head (slots read first).
      owner_.cached_head = head_.value.load(std::memory_order_acquire);
      if (position - owner_.cached_head == capacity_) {
        return false;
      }
    }
    Slot& slot = slots_[position & mask_];
    slot.id = 0U;
    slot.stamp = stamp;
    slot.sender_priority = 1U;
    CopyIntoSlot(slot.payload, m);  // as mccc copies it (word by word when small)
    slot.index = 0U;
    owner_.tail = position + 1U;
    // release: pairs with the consumer's acquire load of the tail; the slot is complete first.
    tail_.value.store(owner_.tail, std::memory_order_release);
    return true;
  }

  MCCC_ALWAYS_INLINE std::size_t Poll(Consumer&) {
    const uint64_t first = consumer_.head;
    // acquire: pairs with the producer's release store of the tail.
    const uint64_t tail = tail_.value.load(std::memory_order_acquire);
    const uint64_t ready = tail - first;
    const uint64_t count = ready < kPollLimit ? ready : kPollLimit;
    for (uint64_t i = 0U; i < count; ++i) {
      const Slot& slot = slots_[(first + i) & mask_];
      (*sink_)(slot.payload);
      consumer_.stamp_sum += slot.stamp;  // the stamp is read, as a dispatcher would
    }
    if (count != 0U) {
      consumer_.head = first + count;
      // release: pairs with the producer's acquire load of the head; the slots are read first.
      head_.value.store(consumer_.head, std::memory_order_release);
    }
    return static_cast<std::size_t>(count);
  }

 private:
  /// Messages per Poll at most, as the minimal rings and the peers' bulk dequeue.
  static constexpr uint64_t kPollLimit = 256U;

  using Slot = MinimalLaneSlot<P>;
  static_assert(sizeof(Slot) == sizeof(typename mccc::AsyncBus<std::variant<P, Heartbeat, Command>,
                                                               LanesTraits>::StoredEnvelope),
                "the minimal lane's slot must be as large as the bus's lane slot");

  struct alignas(64) OwnerState {
    uint64_t tail = 0U;
    uint64_t cached_head = 0U;
  };
  struct alignas(64) ConsumerState {
    uint64_t head = 0U;
    uint64_t stamp_sum = 0U;  // kept so that the consumer's read of the stamps is not removed
  };

  const uint64_t capacity_;
  const uint64_t mask_;
  std::unique_ptr<unsigned char[]> storage_;
  Slot* slots_ = nullptr;  // trivially destructible: nothing to destroy
  Sink* sink_;
  OwnerState owner_;
  LineCounter tail_;
  LineCounter head_;
  ConsumerState consumer_;
};

/// @brief Family wrapper for MinimalLane.
template <bool kOrderedStamp>
struct MinimalLaneFamily {
  template <typename P, typename S>
  using Type = MinimalLane<P, S, kOrderedStamp>;
};

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_MINIMAL_LANE_HPP_
