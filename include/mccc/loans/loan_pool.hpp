// SPDX-License-Identifier: MIT
/// @file loan_pool.hpp
/// @brief `LoanPool`: a fixed pool of blocks for one message type that travels by loan
/// (loans/loan_handles.hpp). Allocation is lock-free from any thread, release wait-free from any
/// thread; no heap, ever: the blocks are members, and a fresh pool is all zero bytes (so a bus in
/// static storage keeps its pools in .bss).
///
/// How a block is taken without ABA: admission first reserves one unit of the pool's capacity
/// (a CAS on the in-use count, refused at the priority's limit), then finds a clear bit in the
/// in-use bitmap and sets it by CAS. A bitmap word holds no pointer and no generation that could
/// come back stale, so the free list cannot be corrupted by a thread that sleeps between its read
/// and its CAS, on 32-bit targets as on 64-bit ones. A release clears the bit before it gives the
/// unit back, so every reservation is backed by a clear bit and the search always ends.
#ifndef MCCC_LOANS_LOAN_POOL_HPP_
#define MCCC_LOANS_LOAN_POOL_HPP_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "mccc/admission/priority_admission.hpp"
#include "mccc/config.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"

namespace mccc {

/// @brief Counters of one loan pool (AsyncBus::GetLoanStatistics). The counters count in
/// FULL_FEATURED mode only, like the bus's; capacity and in_use are always exact snapshots.
struct LoanPoolStatistics {
  uint32_t capacity;                 ///< Blocks in the pool.
  uint32_t in_use;                   ///< Blocks loaned, queued or retained now.
  uint32_t high_water;               ///< Most blocks in use at once since the last reset.
  uint64_t loans_granted;            ///< Loans handed out.
  uint64_t high_priority_refused;    ///< HIGH loans refused (the pool was full).
  uint64_t medium_priority_refused;  ///< MEDIUM loans refused (at or above the MEDIUM limit).
  uint64_t low_priority_refused;     ///< LOW loans refused (at or above the LOW limit).
};

/// @brief Admission of a pool of `kBlocks` blocks: a loan of priority P is granted while fewer
/// blocks than P's limit are in use. LOW and MEDIUM use the ring's percentages
/// (PriorityAdmission), but MEDIUM always leaves at least one block that only HIGH may take, so a
/// flood of LOW or MEDIUM loans can never leave a HIGH message without a block. HIGH may take the
/// whole pool. A pool of one block is HIGH-only.
template <uint32_t kBlocks>
struct LoanAdmission {
  static_assert(kBlocks > 0U, "mccc: a loan pool needs at least one block");
  using Percentages = PriorityAdmission<kBlocks>;
  static constexpr uint32_t kHighLimit = kBlocks;
  static constexpr uint32_t kMediumLimit = static_cast<uint32_t>(
      std::min<uint64_t>(Percentages::LimitForPercent(Percentages::kMediumPercent), kBlocks - 1U));
  static constexpr uint32_t kLowLimit = static_cast<uint32_t>(
      std::min<uint64_t>(Percentages::LimitForPercent(Percentages::kLowPercent), kMediumLimit));
  /// Blocks only HIGH loans may take.
  static constexpr uint32_t kHighReserve = kHighLimit - kMediumLimit;

  /// @brief Blocks in use at or above which a loan of `priority` is refused.
  static constexpr uint32_t LimitFor(MessagePriority priority) noexcept {
    switch (priority) {
      case MessagePriority::kLow:
        return kLowLimit;
      case MessagePriority::kMedium:
        return kMediumLimit;
      case MessagePriority::kHigh:
        return kHighLimit;
    }
    return kMediumLimit;  // unreachable for valid enumerators
  }
};

namespace detail {

/// @brief Index of the lowest set bit of a non-zero word.
template <typename Word>
MCCC_ALWAYS_INLINE unsigned LowestSetBit(Word word) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  if constexpr (sizeof(Word) > sizeof(unsigned long)) {
    return static_cast<unsigned>(__builtin_ctzll(word));
  } else {
    return static_cast<unsigned>(__builtin_ctzl(word));
  }
#else
  unsigned bit = 0U;
  while ((word & Word{1}) == 0U) {
    word = static_cast<Word>(word >> 1U);
    ++bit;
  }
  return bit;
#endif
}

}  // namespace detail

/// @brief A pool of `kBlocks` blocks, each large enough for one T and its header.
/// @tparam kSingleCore / CriticalSection As the bus's: a single-core pool uses compiler fences,
///   or the critical section for every read-modify-write (Cortex-M0 has no RMW instruction).
/// @tparam kCacheLine Blocks are aligned to it on multi-core (the consumer writes a block's
///   reference count while producers fill the next block).
template <typename T, uint32_t kBlocks, bool kSingleCore = false,
          typename CriticalSection = NoCriticalSection, unsigned kCacheLine = 64U>
class LoanPool {
  static_assert(!std::is_reference_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T>,
                "mccc: a loan pool holds a plain object type T (no reference, const or volatile)");
  static_assert(!detail::LoanedTraits<T>::kIsLoaned && !detail::MessageLoanTraits<T>::kIsLoan,
                "mccc: PoolOf<T, N> names the message type itself, not mccc::Loaned<T>");
  static_assert(std::is_nothrow_destructible_v<T>,
                "mccc: a loaned message type must have a noexcept destructor (the last reference "
                "may be dropped on any thread, inside a noexcept dispatch)");
  static_assert(kBlocks > 0U && kBlocks <= (1U << 24U),
                "mccc: a loan pool has 1 to 16777216 blocks");

  // 64-bit bitmap words where 64-bit RMWs are lock-free, else 32-bit (Cortex-M, armv7).
  using Word = std::conditional_t<sizeof(void*) >= 8U && std::atomic<uint64_t>::is_always_lock_free,
                                  uint64_t, uint32_t>;
  // The counters: 64-bit where 64-bit atomics are lock-free, else 32-bit (they wrap there, as
  // the bus's own counters do on such targets).
  using Counter =
      std::conditional_t<std::atomic<uint64_t>::is_always_lock_free, uint64_t, uint32_t>;
  static constexpr uint32_t kWordBits = static_cast<uint32_t>(sizeof(Word) * 8U);
  static constexpr uint32_t kWords = (kBlocks + kWordBits - 1U) / kWordBits;
  static constexpr std::size_t kBlockAlign =
      std::max({alignof(T), alignof(detail::LoanBlockHeader),
                kSingleCore ? std::size_t{1} : std::size_t{kCacheLine}});
  // How many released blocks the consumer returns together: enough to amortise its two shared
  // writes over small messages (up to 64 blocks, at most about 16 KB of message), few enough that
  // producers keep at least three quarters of the pool while a batch runs; 1 (every message)
  // for blocks of 16 KB or more, whose contents cost far more than the two writes.
  static constexpr uint32_t kReturnEvery = static_cast<uint32_t>(
      std::max<std::size_t>(1U, std::min<std::size_t>({kBlocks / 4U, 64U, 16384U / sizeof(T)})));
  static constexpr unsigned kLine =
      detail::kLineAlign<kSingleCore, kCacheLine, std::atomic<uint32_t>>;

  struct alignas(kBlockAlign) Block {
    detail::LoanBlockHeader header;
    alignas(T) unsigned char storage[sizeof(T)];
  };
  static_assert(std::is_standard_layout_v<Block>,
                "mccc: internal: a block must start with its header (standard layout)");

 public:
  using Message = T;                              ///< The message type of the blocks.
  using Admission = LoanAdmission<kBlocks>;       ///< The priority limits.
  static constexpr uint32_t kCapacity = kBlocks;  ///< Blocks in the pool.

  /// @brief Bytes one block takes: header and message, rounded to the block alignment.
  static constexpr std::size_t BlockBytes() noexcept { return sizeof(Block); }

  /// @brief An empty pool (every block free): all zero bytes, no start-up code.
  constexpr LoanPool() noexcept = default;
  LoanPool(const LoanPool&) = delete;
  LoanPool& operator=(const LoanPool&) = delete;
  LoanPool(LoanPool&&) = delete;
  LoanPool& operator=(LoanPool&&) = delete;
  /// Requires every block back (no loan, queued message or retained handle left); a debug
  /// build asserts it. The owning bus destroys its queued messages before its pools.
  ~LoanPool() {
    MCCC_ASSERT(InUse() == 0U,
                "a loan pool destroyed with blocks still in use: release every Retained "
                "handle and MessageLoan before the bus is destroyed");
  }

  /// @brief Takes a block for a loan of `priority` and builds T in it from `args` (no arguments:
  /// default-initialised, so a large buffer is not zeroed). `limit`: blocks in use at or above
  /// which the loan is refused (the priority's limit, or the whole pool); `count`: whether the
  /// counters and the high-water mark count. An empty loan when refused.
  template <typename... Args>
  MessageLoan<T> TryLoan(MessagePriority priority, uint32_t limit, bool count,
                         Args&&... args) noexcept {
    static_assert(std::is_nothrow_constructible_v<T, Args...>,
                  "mccc: Loan<T>(args...): T must be nothrow constructible from these arguments "
                  "(a loan is built inside a noexcept call); prepare what may throw first, or "
                  "make the constructor noexcept");
    Block* block = Take(limit, count);
    if (count) {
      // relaxed: statistics counters; they order nothing.
      detail::FetchAddRelaxed<kSingleCore, CriticalSection>(
          block != nullptr ? granted_ : refused_[static_cast<std::size_t>(priority)], Counter{1});
    }
    if (block == nullptr) {
      return MessageLoan<T>{};
    }
    T* message = nullptr;
    if constexpr (sizeof...(Args) == 0U) {
      message = ::new (static_cast<void*>(block->storage)) T;
    } else {
      message = ::new (static_cast<void*>(block->storage)) T(std::forward<Args>(args)...);
    }
    return detail::LoanAccess::MakeLoan(&block->header, message, priority);
  }

  /// @brief A further reference to the loaned message `message` refers to, or an empty handle
  /// when `message` is not the message of a block of this pool that is in use. Valid while the
  /// caller's own reference to the message is (inside its callback, or through a Retained).
  Retained<T> Retain(const T& message) noexcept {
    const auto address = reinterpret_cast<std::uintptr_t>(&message);
    const auto first = reinterpret_cast<std::uintptr_t>(&blocks_[0].storage[0]);
    if (address < first) {
      return Retained<T>{};
    }
    const std::uintptr_t offset = address - first;
    if (offset % sizeof(Block) != 0U || offset / sizeof(Block) >= kBlocks) {
      return Retained<T>{};
    }
    Block& block = blocks_[offset / sizeof(Block)];
    // acquire: pairs with the release in Take's header publication (through the loan and the
    // ring); a free block (0) means the reference is stale.
    if (detail::LoadAcquire<kSingleCore>(block.header.references) == 0U) {
      return Retained<T>{};
    }
    RetainBlock(block.header);
    return detail::LoanAccess::AdoptRetained(&block.header, &message);
  }

  /// @brief The consumer drops the reference a dispatched message held (its ring slot's). When it
  /// was the last, the message is destroyed now and the block is queued for ReturnReleased:
  /// the consumer returns blocks in groups of kReturnEvery (and at the end of its batch), with
  /// one shared write per bitmap word instead of two per message (the pool's line is shared with
  /// every producer). Consumer only.
  void DropFromConsumer(detail::LoanBlockHeader& header) noexcept {
    MCCC_ASSERT(header.pool == this, "a loaned message dropped into a foreign pool");
    if (!DropReference(header)) {
      return;
    }
    DestroyMessage(header);
    const uint32_t index = header.index;
    released_[index / kWordBits] |= static_cast<Word>(Word{1} << (index % kWordBits));
    ++released_count_;
    if (released_count_ >= kReturnEvery) {
      ReturnReleased();
    }
  }

  /// @brief True when DropFromConsumer queued blocks not yet returned. Consumer only.
  bool HasReleased() const noexcept { return released_count_ != 0U; }

  /// @brief Returns the blocks DropFromConsumer queued (end of a consumer batch). Consumer only.
  void ReturnReleased() noexcept {
    if (released_count_ == 0U) {
      return;
    }
    for (uint32_t word = 0U; word < kWords; ++word) {
      if (released_[word] != 0U) {
        // release: pairs with Take's acquire CAS on this word, as in GiveBack.
        detail::FetchAndRelease<kSingleCore, CriticalSection>(bits_[word],
                                                              static_cast<Word>(~released_[word]));
        released_[word] = 0U;
      }
    }
    // release: pairs with Take's acquire reservation CAS, as in GiveBack.
    detail::FetchSub<kSingleCore, CriticalSection, std::memory_order_release>(in_use_,
                                                                              released_count_);
    released_count_ = 0U;
  }

  /// @brief Blocks in use (snapshot). Thread-safe.
  uint32_t InUse() const noexcept {
    // relaxed: a snapshot that orders nothing.
    return in_use_.load(std::memory_order_relaxed);
  }

  /// @brief The counters (snapshot, read one by one). Thread-safe.
  LoanPoolStatistics Statistics() const noexcept {
    // relaxed (all): counters and snapshots; nothing is published through them.
    LoanPoolStatistics s{};
    s.capacity = kBlocks;
    s.in_use = InUse();
    s.high_water = std::max(high_water_.load(std::memory_order_relaxed), s.in_use);
    s.loans_granted = granted_.load(std::memory_order_relaxed);
    s.low_priority_refused = refused_[0].load(std::memory_order_relaxed);
    s.medium_priority_refused = refused_[1].load(std::memory_order_relaxed);
    s.high_priority_refused = refused_[2].load(std::memory_order_relaxed);
    return s;
  }

  /// @brief Zeroes the counters; the high-water mark restarts from the blocks in use now.
  void ResetStatistics() noexcept {
    // relaxed (all): statistics only.
    granted_.store(0U, std::memory_order_relaxed);
    for (auto& refused : refused_) {
      refused.store(0U, std::memory_order_relaxed);
    }
    high_water_.store(InUse(), std::memory_order_relaxed);
  }

 private:
  /// Reserves a unit of capacity below `limit`, then claims a clear bit. nullptr when refused.
  Block* Take(uint32_t limit, bool count) noexcept {
    uint32_t used = in_use_.load(std::memory_order_relaxed);  // relaxed: a first guess for the CAS
    do {
      if (used >= limit) {
        return nullptr;
      }
      // acquire: pairs with GiveBack's release decrement, so the bit that release cleared is
      // visible to the search below (every reservation is backed by a clear bit).
    } while (!detail::CasWeakAcquire<kSingleCore, CriticalSection>(in_use_, used, used + 1U));
    if (count) {
      // relaxed (both): the high-water mark is a statistic; a lost race only retries.
      uint32_t seen = high_water_.load(std::memory_order_relaxed);
      while (used + 1U > seen &&
             !detail::CasWeakRelaxed<kSingleCore, CriticalSection>(high_water_, seen, used + 1U)) {
      }
    }
    // Start where the reservation count points, so concurrent takers spread over the words.
    uint32_t word = kWords == 1U ? 0U : used % kWords;
    for (;;) {
      Word bits = bits_[word].load(std::memory_order_relaxed);  // relaxed: CAS below decides
      Word free_bits = static_cast<Word>(~bits & ValidMask(word));
      while (free_bits != 0U) {
        const unsigned bit = detail::LowestSetBit(free_bits);
        // acquire: pairs with GiveBack's release fetch_and of this bit: the previous message's
        // destruction and its readers' accesses happen before this owner writes the block.
        if (detail::CasWeakAcquire<kSingleCore, CriticalSection>(
                bits_[word], bits, static_cast<Word>(bits | (Word{1} << bit)))) {
          const uint32_t index = word * kWordBits + bit;
          Block& block = blocks_[index];
          // relaxed (all three header writes): the block reaches other threads only through the
          // loan, published by the ring's release store (or the user's own synchronisation).
          block.header.references.store(1U, std::memory_order_relaxed);
          block.header.index = index;
          block.header.ops = &kOps;
          block.header.pool = this;
          return &block;
        }
        free_bits = static_cast<Word>(~bits & ValidMask(word));
      }
      word = word + 1U == kWords ? 0U : word + 1U;
    }
  }

  /// The bits of word `word` that name blocks (the last word may be partly beyond the pool).
  static constexpr Word ValidMask(uint32_t word) noexcept {
    const uint32_t remaining = kBlocks - word * kWordBits;
    return remaining >= kWordBits ? static_cast<Word>(~Word{0})
                                  : static_cast<Word>((Word{1} << remaining) - 1U);
  }

  /// Returns block `index` (its message already destroyed).
  void GiveBack(uint32_t index) noexcept {
    const Word mask = static_cast<Word>(~(Word{1} << (index % kWordBits)));
    // release: pairs with Take's acquire CAS on this word (the next owner of the block).
    detail::FetchAndRelease<kSingleCore, CriticalSection>(bits_[index / kWordBits], mask);
    // release: pairs with Take's acquire reservation CAS: a taker that counts this unit as free
    // also sees the bit cleared just above.
    detail::FetchSub<kSingleCore, CriticalSection, std::memory_order_release>(in_use_, uint32_t{1});
  }

  static void RetainBlock(detail::LoanBlockHeader& header) noexcept {
    // relaxed: a reference is only ever made from one the caller holds, which already orders
    // the message for this thread (as a shared_ptr copy); the drop that frees is acq_rel.
    detail::FetchAddRelaxed<kSingleCore, CriticalSection>(header.references, uint32_t{1});
  }

  /// Drops one reference; true when it was the last (the caller then destroys and returns).
  static bool DropReference(detail::LoanBlockHeader& header) noexcept {
    // acquire: pairs with the release half of other holders' decrements, so their reads of the
    // message happen before its destruction. A count of 1 is this caller's own reference: no one
    // else can add one (a reference is made only from a held one), so no RMW is needed.
    if (detail::LoadAcquire<kSingleCore>(header.references) != 1U) {
      // acq_rel: release publishes this holder's reads to the last holder; acquire (when this is
      // the last) takes every earlier holder's.
      return detail::FetchSub<kSingleCore, CriticalSection, std::memory_order_acq_rel>(
                 header.references, uint32_t{1}) == 1U;
    }
    // relaxed: the block is this thread's alone; the return's release store publishes it.
    header.references.store(0U, std::memory_order_relaxed);
    return true;
  }

  static void DestroyMessage(detail::LoanBlockHeader& header) noexcept {
    Block& block = *reinterpret_cast<Block*>(&header);  // the header is the block's first member
    std::launder(reinterpret_cast<T*>(block.storage))->~T();
  }

  static void DropBlock(detail::LoanBlockHeader& header) noexcept {
    if (DropReference(header)) {
      DestroyMessage(header);
      static_cast<LoanPool*>(header.pool)->GiveBack(header.index);
    }
  }

  static constexpr detail::LoanBlockOps kOps{&RetainBlock, &DropBlock};

  // Written by every Take and GiveBack: the count, the bitmap and the counters share a line.
  alignas(kLine) std::atomic<uint32_t> in_use_{0U};
  std::atomic<uint32_t> high_water_{0U};
  std::atomic<Word> bits_[kWords]{};
  std::atomic<Counter> granted_{0U};
  std::atomic<Counter> refused_[kPriorityCount]{};
  // Consumer-owned: blocks dropped during the current batch, returned by ReturnReleased.
  alignas(detail::kLineAlign<kSingleCore, kCacheLine, Word>) Word released_[kWords]{};
  uint32_t released_count_{0U};
  Block blocks_[kBlocks]{};
};

}  // namespace mccc

#endif  // MCCC_LOANS_LOAN_POOL_HPP_
