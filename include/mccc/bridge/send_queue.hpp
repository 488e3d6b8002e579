// SPDX-License-Identifier: MIT
/// @file send_queue.hpp
/// @brief The exporter's send queue of one channel: encoded frames waiting for the transport.
///
/// Single producer (the exporting bus's consumer thread, inside the exporter's subscription),
/// single consumer (the exporter's sender thread). Frames are written in place (encoded straight
/// into the queue, no intermediate buffer) as records [u32 length][frame][padding to 8 bytes] in
/// a byte ring; a record never wraps (a marker sends the reader back to the start).
///
/// Admission happens here, by priority, with the bus's thresholds applied to the number of
/// queued frames (PriorityAdmission<kDepth>): the queue fills only while the transport is at its
/// high-water mark, so LOW is refused first as that backlog grows, then MEDIUM, HIGH last.
#ifndef MCCC_BRIDGE_SEND_QUEUE_HPP_
#define MCCC_BRIDGE_SEND_QUEUE_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "mccc/admission/priority_admission.hpp"
#include "mccc/bridge/channel.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace bridge {

/// @brief Outcome of SendQueue::TryReserve.
enum class Reservation : uint8_t {
  kGranted = 0U,   ///< Write the frame, then Commit.
  kRefused = 1U,   ///< The priority's admission limit is reached (or the bytes are taken).
  kTooLarge = 2U,  ///< The frame can never fit (larger than half the byte capacity).
};

/// @brief SPSC byte ring with frame-count admission.
/// @tparam kDepth frames the queue may hold (the admission thresholds are percentages of it).
/// @tparam kBytes byte capacity (power of two); a frame may take at most half of it.
template <uint32_t kDepth, uint32_t kBytes>
class SendQueue {
  static_assert(kDepth > 0U, "mccc::bridge: the send queue depth must be > 0");
  static_assert(kBytes >= 1024U && (kBytes & (kBytes - 1U)) == 0U,
                "mccc::bridge: the send queue byte capacity must be a power of two >= 1024");

  static constexpr uint32_t kRecordHeader = 8U;  // u32 length + u32 padding: frames 8-aligned
  static constexpr uint32_t kWrapMarker = 0xFFFFFFFFU;

 public:
  using Admission = PriorityAdmission<kDepth>;  ///< The bus's thresholds, over kDepth frames.

  /// Largest frame the queue accepts.
  static constexpr uint32_t kMaxFrameBytes = kBytes / 2U - kRecordHeader;

  SendQueue() : buffer_(new uint8_t[kBytes]) {}
  SendQueue(const SendQueue&) = delete;
  SendQueue& operator=(const SendQueue&) = delete;
  SendQueue(SendQueue&&) = delete;
  SendQueue& operator=(SendQueue&&) = delete;
  ~SendQueue() = default;

  // ---- producer ------------------------------------------------------------------------------

  /// @brief Producer: room for a frame of `frame_bytes` if a message of `priority` is admitted;
  /// on kGranted, `*frame` is where to write it.
  Reservation TryReserve(MessagePriority priority, uint32_t frame_bytes, uint8_t** frame) noexcept {
    if (frame_bytes > kMaxFrameBytes) {
      return Reservation::kTooLarge;
    }
    // relaxed: only decides admission; a stale value can only overstate the occupancy.
    const uint64_t popped = popped_.load(std::memory_order_relaxed);
    if (pushed_local_ - popped >= Admission::LimitFor(priority)) {
      return Reservation::kRefused;
    }
    const uint64_t record = RecordBytes(frame_bytes);
    // acquire: pairs with the release store in Pop; the reader is done with the bytes it freed.
    const uint64_t head = head_.load(std::memory_order_acquire);
    const uint64_t free_bytes = kBytes - (write_pos_ - head);
    const uint64_t offset = write_pos_ & (kBytes - 1U);
    const uint64_t to_end = kBytes - offset;
    uint64_t skip = 0U;
    if (record > to_end) {
      skip = to_end;  // the record starts over at offset 0
    }
    if (skip + record > free_bytes) {
      return Reservation::kRefused;
    }
    pending_skip_ = skip;
    pending_offset_ = skip != 0U ? 0U : offset;
    *frame = buffer_.get() + pending_offset_ + kRecordHeader;
    return Reservation::kGranted;
  }

  /// @brief Producer: publishes the frame written after a granted TryReserve.
  void Commit(uint32_t frame_bytes) noexcept {
    if (pending_skip_ != 0U) {
      const uint64_t offset = write_pos_ & (kBytes - 1U);
      StoreLength(buffer_.get() + offset, kWrapMarker);
    }
    StoreLength(buffer_.get() + pending_offset_, frame_bytes);
    write_pos_ += pending_skip_ + RecordBytes(frame_bytes);
    ++pushed_local_;
    // relaxed: a count for admission and snapshots; the frame itself is published by tail_.
    pushed_.store(pushed_local_, std::memory_order_relaxed);
    // seq_cst (not only release, which pairs with the reader's acquire load in Peek): with the
    // producer's seq_cst load of the sleeping flag after it, and the reader's seq_cst store of
    // that flag before its seq_cst re-check of tail_, either the reader sees this frame or the
    // producer sees the reader asleep and wakes it (no lost wake-up).
    tail_.store(write_pos_, std::memory_order_seq_cst);
  }

  // ---- consumer ------------------------------------------------------------------------------

  /// @brief Consumer: the oldest frame, if any (valid until Pop).
  bool Peek(const uint8_t** frame, uint32_t* frame_bytes) noexcept {
    ByteSpan oldest;
    if (PeekRun(&oldest, 1U, 0U) == 0U) {
      return false;
    }
    *frame = oldest.data;
    *frame_bytes = static_cast<uint32_t>(oldest.size);
    return true;
  }

  /// @brief Consumer: releases the frame returned by the last Peek.
  void Pop() noexcept { PopRun(); }

  /// @brief Consumer: the oldest frames, in order, without removing them: at most `max_frames`
  /// of them, and no more than `max_bytes` in total unless the first frame alone is larger (it
  /// is always included). Returns how many were written to `frames` (0 when the queue is
  /// empty); they stay valid until PopRun, which removes them.
  std::size_t PeekRun(ByteSpan* frames, std::size_t max_frames, std::size_t max_bytes) noexcept {
    // acquire: pairs with the store in Commit; every frame before `tail` is complete.
    const uint64_t tail = tail_.load(std::memory_order_acquire);
    uint64_t position = read_pos_;
    std::size_t count = 0U;
    std::size_t total = 0U;
    while (count < max_frames && position != tail) {
      uint64_t offset = position & (kBytes - 1U);
      uint32_t length = LoadLength(buffer_.get() + offset);
      if (length == kWrapMarker) {
        position += kBytes - offset;
        offset = 0U;
        length = LoadLength(buffer_.get());
      }
      if (count != 0U && total + length > max_bytes) {
        break;
      }
      frames[count] = ByteSpan{buffer_.get() + offset + kRecordHeader, length};
      total += length;
      ++count;
      position += RecordBytes(length);
    }
    run_end_ = position;
    run_frames_ = count;
    return count;
  }

  /// @brief Consumer: removes the frames returned by the last PeekRun.
  void PopRun() noexcept {
    read_pos_ = run_end_;
    popped_local_ += run_frames_;
    run_frames_ = 0U;
    // relaxed: read by the producer for admission only (see TryReserve).
    popped_.store(popped_local_, std::memory_order_relaxed);
    // release: pairs with the producer's acquire load in TryReserve; the bytes may be reused.
    head_.store(read_pos_, std::memory_order_release);
  }

  /// @brief Consumer: true when a frame is waiting (seq_cst: the re-check before sleeping, see
  /// Commit).
  bool HasFrameSeqCst() const noexcept {
    return tail_.load(std::memory_order_seq_cst) != read_pos_;
  }

  /// @brief Consumer: frames popped so far (also the next sequence number once empty).
  uint64_t PoppedByConsumer() const noexcept { return popped_local_; }

  // ---- any thread ----------------------------------------------------------------------------

  /// @brief Frames queued (a snapshot).
  uint32_t Size() const noexcept {
    // relaxed: a snapshot of two counters, each exact.
    const uint64_t popped = popped_.load(std::memory_order_relaxed);
    const uint64_t pushed = pushed_.load(std::memory_order_relaxed);
    return pushed > popped ? static_cast<uint32_t>(pushed - popped) : 0U;
  }

 private:
  static constexpr uint64_t RecordBytes(uint32_t frame_bytes) noexcept {
    return (uint64_t{kRecordHeader} + frame_bytes + 7U) & ~uint64_t{7U};
  }
  static void StoreLength(uint8_t* at, uint32_t length) noexcept {
    static_cast<void>(std::memcpy(at, &length, sizeof(length)));
  }
  static uint32_t LoadLength(const uint8_t* at) noexcept {
    uint32_t length = 0U;
    static_cast<void>(std::memcpy(&length, at, sizeof(length)));
    return length;
  }

  std::unique_ptr<uint8_t[]> buffer_;
  // Producer-owned.
  alignas(64) uint64_t write_pos_ = 0U;
  uint64_t pushed_local_ = 0U;
  uint64_t pending_skip_ = 0U;
  uint64_t pending_offset_ = 0U;
  std::atomic<uint64_t> tail_{0U};
  std::atomic<uint64_t> pushed_{0U};
  // Consumer-owned.
  alignas(64) uint64_t read_pos_ = 0U;
  uint64_t popped_local_ = 0U;
  uint64_t run_end_ = 0U;
  std::size_t run_frames_ = 0U;
  std::atomic<uint64_t> head_{0U};
  std::atomic<uint64_t> popped_{0U};
};

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_SEND_QUEUE_HPP_
