// SPDX-License-Identifier: MIT
/// @file loan_pool.hpp
/// @brief `LoanPool`: a fixed pool of blocks for one message type that travels by loan
/// (loans/loan_handles.hpp). Allocation is lock-free from any thread, release wait-free from any
/// thread; no heap, ever: the blocks are members, and a fresh pool is all zero bytes (so a bus in
/// static storage keeps its pools in .bss). This file holds the blocks and how a free one is
/// found and given back; the limits by priority and the counters are in loans/loan_admission.hpp,
/// the reference count of a block in loans/loan_references.hpp.
///
/// Two ways of finding a free block, chosen by the size of T, both without ABA (nothing read
/// can come back stale: no pointer, no generation):
/// - Messages under 1 KB, taken in turn: a block is free while its reference count is 0, and a
///   producer claims the next free block after a shared cursor by a CAS of that count from 0 to
///   1. Admission counts blocks taken and blocks returned on two different cache lines, and
///   producers read the consumer's count only when their cached copy says the pool is at their
///   limit (or that a loan may set a new high-water mark), so a small message costs no cache line
///   written by the other side besides its block (which the producer prefetches for writing a few
///   loans ahead).
/// - Messages of 1 KB or more, the lowest free block: admission reserves a unit of an in-use
///   count by CAS, then sets a clear bit of the in-use bitmap by CAS. The producer gets the block
///   the consumer released last, whose lines are still in a cache, which matters more than the
///   two shared writes when the message is that large.
/// Either way a block is back in the free state before its return is counted, so every
/// admitted loan finds a free block.
#ifndef MCCC_LOANS_LOAN_POOL_HPP_
#define MCCC_LOANS_LOAN_POOL_HPP_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

#include "mccc/config.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/lowest_set_bit.hpp"
#include "mccc/loans/loan_admission.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/loans/loan_references.hpp"
#include "mccc/message.hpp"
#include "mccc/platform/critical_section.hpp"

namespace mccc {

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
  // Messages under 1 KB are taken in turn (see the file comment); larger ones reuse the block
  // released last, still in a cache.
  static constexpr bool kInTurn = sizeof(T) < 1024U;
  // How many released blocks the consumer returns together: enough to amortise its shared
  // writes over small messages (up to 64 blocks, at most about 16 KB of message), few enough
  // that producers keep at least three quarters of the pool while a batch runs; 1 (every
  // message) for blocks of 16 KB or more, whose contents cost far more than the writes.
  static constexpr uint32_t kReturnEvery = static_cast<uint32_t>(
      std::max<std::size_t>(1U, std::min<std::size_t>({kBlocks / 4U, 64U, 16384U / sizeof(T)})));
  // In-turn pools: the block this many loans ahead is prefetched for writing, so its miss overlaps
  // the current loan (the line was last written by the consumer when it released the block). Not
  // on one core (no other cache), and not in pools too small to keep it clear of blocks in use.
  static constexpr uint32_t kPrefetchDistance = (kSingleCore || kBlocks < 16U) ? 0U : 4U;
  // In-turn pools: how often InUse reads the two counters before it settles for a lower bound.
  // A few: a read lands between two returns unless the consumer returns groups back to back.
  static constexpr uint32_t kInUseReadAttempts = 4U;
  // The bitmap's words: none are used by an in-turn pool (one is kept: an array needs one).
  static constexpr uint32_t kBitmapWords = kInTurn ? 1U : kWords;
  static constexpr unsigned kLine =
      detail::kLineAlign<kSingleCore, kCacheLine, std::atomic<uint32_t>>;
  // Adding, dropping and freeing a block's references (loans/loan_references.hpp).
  using References = detail::LoanReferences<kSingleCore, CriticalSection>;

  struct alignas(kBlockAlign) Block {
    detail::LoanBlockHeader header;
    // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
    alignas(T) unsigned char storage[sizeof(T)];
  };
  static_assert(std::is_standard_layout_v<Block>,
                "mccc: internal: a block must start with its header (standard layout)");

 public:
  using Message = T;                              ///< The message type of the blocks.
  using Admission = LoanAdmission<kBlocks>;       ///< The priority limits.
  static constexpr uint32_t kCapacity = kBlocks;  ///< Blocks in the pool.
  /// True when blocks are taken in turn (messages under 1 KB), false when the lowest free block
  /// is taken (the one released last, still in a cache).
  static constexpr bool kTakesInTurn = kInTurn;

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
    return TryLoanOrElse(
        priority, limit, count, []() noexcept { return false; }, std::forward<Args>(args)...);
  }

  /// @brief TryLoan, where `on_refusal()` runs when the pool refuses and may free blocks (the
  /// consumer returning the ones it holds back); when it returns true the loan is tried again,
  /// once, before the refusal is counted.
  template <typename OnRefusal, typename... Args>
  MessageLoan<T> TryLoanOrElse(MessagePriority priority, uint32_t limit, bool count,
                               OnRefusal&& on_refusal, Args&&... args) noexcept {
    static_assert(std::is_nothrow_constructible_v<T, Args...>,
                  "mccc: Loan<T>(args...): T must be nothrow constructible from these arguments "
                  "(a loan is built inside a noexcept call); prepare what may throw first, or "
                  "make the constructor noexcept");
    Block* block = Take(limit, count);
    if (MCCC_UNLIKELY(block == nullptr) && on_refusal()) {
      block = Take(limit, count);
    }
    if (count) {
      // relaxed: statistics counters; they order nothing.
      static_cast<void>(detail::FetchAddRelaxed<kSingleCore, CriticalSection>(
          block != nullptr ? granted_ : refused_[static_cast<std::size_t>(priority)], Counter{1}));
    }
    if (block == nullptr) {
      return MessageLoan<T>{};
    }
    T* message = nullptr;
    if constexpr (sizeof...(Args) == 0U) {
      // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): deviation D-01
      message = ::new (static_cast<void*>(block->storage)) T;
    } else {
      // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): deviation D-01
      message = ::new (static_cast<void*>(block->storage)) T(std::forward<Args>(args)...);
    }
    return detail::LoanAccess::MakeLoan(&block->header, message, priority);
  }

  /// @brief True when `block` is the header of one of this pool's blocks: its address lies in
  /// the pool's array of blocks (two compares; the header's contents are not trusted). Every
  /// loan a bus accepts passes this check, so a block only ever returns to the pool that lent
  /// it. Thread-safe; reads no shared state.
  bool Owns(const detail::LoanBlockHeader& block) const noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
    const auto address = reinterpret_cast<std::uintptr_t>(&block);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
    const auto first = reinterpret_cast<std::uintptr_t>(&blocks_[0].header);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
    const auto last = reinterpret_cast<std::uintptr_t>(&blocks_[kBlocks - 1U].header);
    return address >= first && address <= last;
  }

  /// @brief A further reference to the loaned message `message` refers to, or an empty handle
  /// when `message` is not the message of a block of this pool that is in use. Valid while the
  /// caller's own reference to the message is (inside its callback, or through a Retained).
  Retained<T> Retain(const T& message) noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
    const auto address = reinterpret_cast<std::uintptr_t>(&message);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
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
    References::RetainBlock(block.header);
    return detail::LoanAccess::AdoptRetained(&block.header, &message);
  }

  /// @brief The consumer drops the reference a dispatched message held (its ring slot's). When it
  /// was the last, the message is destroyed now and the block queued for ReturnReleased, which
  /// returns blocks in groups of kReturnEvery (and at the end of the batch): one shared write per
  /// group instead of one or two per message. In an in-turn pool the block is free at once and
  /// only its count waits for the group. Consumer only.
  void DropFromConsumer(detail::LoanBlockHeader& header) noexcept {
    MCCC_ASSERT(header.pool == this, "a loaned message dropped into a foreign pool");
    if (!References::DropReference(header)) {
      return;
    }
    [[maybe_unused]] const uint32_t index = header.index;  // read while the block is this thread's
    DestroyMessage(header);
    References::MarkFree(header);
    if constexpr (!kInTurn) {  // an in-turn block is free now; only its count waits
      released_[index / kWordBits] |= Word{1} << (index % kWordBits);
    }
    if (++released_count_ >= kReturnEvery) {
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
    if constexpr (kInTurn) {
      // release: pairs with RefreshReturned's acquire load: a producer that counts these returns
      // also sees their blocks free (DropFromConsumer stored their counts of 0 before).
      static_cast<void>(
          detail::FetchAddRelease<kSingleCore, CriticalSection>(returned_, released_count_));
    } else {
      for (uint32_t word = 0U; word < kWords; ++word) {
        if (released_[word] != 0U) {
          // release: pairs with Take's acquire CAS on this word, as in GiveBack.
          static_cast<void>(detail::FetchAndRelease<kSingleCore, CriticalSection>(
              bits_[word], static_cast<Word>(~released_[word])));
          released_[word] = 0U;
        }
      }
      // release: pairs with Take's acquire reservation CAS, as in GiveBack.
      static_cast<void>(detail::FetchSub<kSingleCore, CriticalSection, std::memory_order_release>(
          admitted_, released_count_));
    }
    released_count_ = 0U;
  }

  /// @brief Blocks in use (snapshot): the number the pool had at one instant while it ran, or,
  /// when blocks keep returning during kInUseReadAttempts reads in a row, a lower bound of the
  /// number it had when the last of them ended. Never above kCapacity. Thread-safe, wait-free.
  uint32_t InUse() const noexcept {
    if constexpr (kInTurn) {
      // Two counters, so a read of both is a snapshot only if nothing moved between them. The
      // returns are read around the admissions: equal reads mean no block returned meanwhile,
      // so the difference is the blocks in use when admitted_ was read. Only returns can make
      // the difference lie: an admission read late just counts a block that is in use.
      // acquire (all three): pairs with the release increments of returned_ (ReturnReleased,
      // GiveBack). Every return counted is of a block whose admission happened before it (the
      // loan reached the returning thread only after its CAS of admitted_), so the admitted_
      // read ordered after it counts that admission too: the difference never wraps below 0. The
      // acquire of admitted_ keeps the second read of the returns after it.
      uint32_t returned = detail::LoadAcquire<kSingleCore>(returned_);
      for (uint32_t attempt = 1U;; ++attempt) {
#if MCCC_ENABLE_TEST_HOOKS
        if (in_use_read_hook_ != nullptr) {
          in_use_read_hook_(in_use_read_context_);
        }
#endif
        const uint32_t admitted = detail::LoadAcquire<kSingleCore>(admitted_);
        const uint32_t returned_after = detail::LoadAcquire<kSingleCore>(returned_);
        if (returned_after == returned) {
          // Admission keeps admitted_ - returned_ at or below the HIGH limit, the whole pool.
          return std::min(admitted - returned, kBlocks);
        }
        if (attempt == kInUseReadAttempts) {
          // Returns keep landing: admitted_ read before the last returns undercounts (by the
          // blocks taken and returned since), and may even be below them: 0 then.
          const auto lower = static_cast<int32_t>(admitted - returned_after);
          return lower > 0 ? std::min(static_cast<uint32_t>(lower), kBlocks) : 0U;
        }
        returned = returned_after;
      }
    } else {
      // relaxed: one counter, a snapshot by itself; it orders nothing.
      return admitted_.load(std::memory_order_relaxed);
    }
  }

#if MCCC_ENABLE_TEST_HOOKS
  /// @brief Test hook: `hook(context)` runs inside InUse of an in-turn pool, after its read of
  /// the returns and before its read of the admissions, on every attempt.
  void SetInUseReadHook(void (*hook)(void*), void* context) noexcept {
    in_use_read_hook_ = hook;
    in_use_read_context_ = context;
  }
#endif

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

  /// @brief Zeroes the counters; the high-water mark restarts from the blocks in use now
  /// (InUse: a number the pool had, or less, so never a mark it did not reach). Thread-safe.
  void ResetStatistics() noexcept {
    // relaxed (all): statistics only.
    granted_.store(0U, std::memory_order_relaxed);
    for (auto& refused : refused_) {
      refused.store(0U, std::memory_order_relaxed);
    }
    high_water_.store(InUse(), std::memory_order_relaxed);
  }

 private:
  /// A free block for a loan below `limit` blocks in use (nullptr when refused), its header set
  /// up with one reference.
  Block* Take(uint32_t limit, bool count) noexcept {
    Block* block = nullptr;
    if constexpr (kInTurn) {
      block = TakeInTurn(limit, count);
    } else {
      block = TakeLowestFree(limit, count);
    }
    if (block != nullptr) {
      const auto index = static_cast<uint32_t>(block - &blocks_[0]);
      // relaxed (all three): the block reaches other threads only through the loan, published
      // by the ring's release store (or the user's own synchronisation).
      block->header.index = index;
      block->header.ops = &kOps;
      block->header.pool = this;
    }
    return block;
  }

  /// In-turn pools: counts the loan in admitted_ if the blocks in use stay below `limit`, then
  /// claims the first free block from the cursor on.
  Block* TakeInTurn(uint32_t limit, bool count) noexcept {
    // acquire: pairs with RefreshReturned's release store, so that the blocks whose returns the
    // copy counts are seen free below. Read before admitted_, so that every return it counts is of
    // a loan counted in `admitted` (the difference never wraps below 0).
    uint32_t seen = detail::LoadAcquire<kSingleCore>(returned_seen_);
    uint32_t admitted = admitted_.load(std::memory_order_relaxed);  // relaxed: the CAS decides
    for (;;) {
      const uint32_t used = admitted - seen;
      if (used >= limit) {
        // The copy of the returns may be old: read the consumer's count (the only read of its
        // line on this path), then admitted_ again (returns of later loans may be counted in it).
        const uint32_t fresh = RefreshReturned();
        if (fresh == seen) {
          return nullptr;
        }
        seen = fresh;
        admitted = admitted_.load(std::memory_order_relaxed);  // relaxed: as above
        continue;
      }
      // relaxed: the count only admits; which block is free is decided by the acquire CAS on
      // its reference count below.
      if (detail::CasWeakRelaxed<kSingleCore, CriticalSection>(admitted_, admitted,
                                                               admitted + 1U)) {
        if (count && used + 1U > high_water_.load(std::memory_order_relaxed)) {  // relaxed: a
          // statistic. The copy of the returns may be old, which would overstate the blocks in
          // use: the mark is raised only by a count against the consumer's own.
          const auto now_used = static_cast<int32_t>(admitted + 1U - RefreshReturned());
          RaiseHighWater(now_used > 0 ? static_cast<uint32_t>(now_used) : 1U);
        }
        break;
      }
    }
    // The admission above leaves at least one block free for this loan: the search ends.
    uint32_t index = cursor_.load(std::memory_order_relaxed);  // relaxed: a hint
    for (;;) {
      std::atomic<uint32_t>& references = blocks_[index].header.references;
      uint32_t free_count = 0U;
      // acquire: pairs with MarkFree's release store of 0: the previous message's destruction
      // and its readers' accesses happen before this owner writes the block.
      if (references.load(std::memory_order_relaxed) == 0U &&
          detail::CasWeakAcquire<kSingleCore, CriticalSection>(references, free_count,
                                                               uint32_t{1})) {
        break;
      }
      index = Following(index);
    }
    const uint32_t next = Following(index);
    cursor_.store(next, std::memory_order_relaxed);  // relaxed: a hint for the next search
    PrefetchForWriting(next);
    return &blocks_[index];
  }

  /// The block after `index`, in turn.
  static constexpr uint32_t Following(uint32_t index) noexcept {
    return index + 1U == kBlocks ? 0U : index + 1U;
  }

  /// Reads the consumer's count of returned blocks and shares it with the other producers.
  uint32_t RefreshReturned() noexcept {
    // acquire: pairs with the release increments of ReturnReleased (the consumer's groups) and
    // GiveBack (a retained message dropped last): the blocks they count are seen free.
    const uint32_t fresh = detail::LoadAcquire<kSingleCore>(returned_);
    // The copy only moves forward, so a producer delayed here cannot put back an older count
    // (which would make the pool look fuller: harmless, but also, after 2^32 returns, emptier).
    uint32_t copy = returned_seen_.load(std::memory_order_relaxed);  // relaxed: the CAS decides
    // release: pairs with TakeInTurn's acquire load of the copy.
    while (static_cast<int32_t>(fresh - copy) > 0 &&
           !detail::CasWeakRelease<kSingleCore, CriticalSection>(returned_seen_, copy, fresh)) {
    }
    return fresh;
  }

  /// Requests the first lines of the block kPrefetchDistance loans after `next` for writing.
  MCCC_ALWAYS_INLINE void PrefetchForWriting(uint32_t next) noexcept {
    if constexpr (kPrefetchDistance > 0U) {
#if defined(__GNUC__) || defined(__clang__)
      uint32_t ahead = next + kPrefetchDistance;
      ahead = ahead >= kBlocks ? ahead - kBlocks : ahead;
      // A block still in use is only read by its holders: taking its line for writing early
      // would cost them a miss, so only a free one is requested (relaxed: a hint).
      if (blocks_[ahead].header.references.load(std::memory_order_relaxed) == 0U) {
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviations D-02, D-04
        const auto* first = reinterpret_cast<const unsigned char*>(&blocks_[ahead]);
        constexpr std::size_t kPrefetchBytes = std::min<std::size_t>(sizeof(Block), 256U);
        for (std::size_t offset = 0U; offset < kPrefetchBytes; offset += kCacheLine) {
          // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-03
          __builtin_prefetch(first + offset, 1, 3);
        }
      }
#else
      static_cast<void>(next);
#endif
    } else {
      static_cast<void>(next);
    }
  }

  /// Lowest-free-block pools: reserves a unit of capacity below `limit`, then claims a clear bit.
  Block* TakeLowestFree(uint32_t limit, bool count) noexcept {
    uint32_t used =
        admitted_.load(std::memory_order_relaxed);  // relaxed: a first guess for the CAS
    do {
      if (used >= limit) {
        return nullptr;
      }
      // acquire: pairs with the release decrements of GiveBack and ReturnReleased: the bits they
      // cleared are visible to the search below (every reservation is backed by a clear bit).
    } while (!detail::CasWeakAcquire<kSingleCore, CriticalSection>(admitted_, used, used + 1U));
    if (count) {
      RaiseHighWater(used + 1U);
    }
    // Start where the reservation count points, so concurrent takers spread over the words.
    uint32_t word = kWords == 1U ? 0U : used % kWords;
    for (;;) {
      Word bits = bits_[word].load(std::memory_order_relaxed);  // relaxed: CAS below decides
      Word free_bits = ~bits & ValidMask(word);
      while (free_bits != 0U) {
        const unsigned bit = detail::LowestSetBit(free_bits);
        // acquire: pairs with the release fetch_and (GiveBack, ReturnReleased) that cleared this
        // bit: the old message's destruction and its readers' accesses happen before this owner
        // writes the block.
        if (detail::CasWeakAcquire<kSingleCore, CriticalSection>(bits_[word], bits,
                                                                 bits | (Word{1} << bit))) {
          Block& block = blocks_[word * kWordBits + bit];
          // relaxed: published with the loan, as the header's other fields (Take).
          block.header.references.store(1U, std::memory_order_relaxed);
          return &block;
        }
        free_bits = ~bits & ValidMask(word);
      }
      word = word + 1U == kWords ? 0U : word + 1U;
    }
  }

  void RaiseHighWater(uint32_t used) noexcept {
    // relaxed (both): the high-water mark is a statistic; a lost race only retries.
    uint32_t seen = high_water_.load(std::memory_order_relaxed);
    while (used > seen &&
           !detail::CasWeakRelaxed<kSingleCore, CriticalSection>(high_water_, seen, used)) {
    }
  }

  /// The bits of word `word` that name blocks (the last word may be partly beyond the pool).
  static constexpr Word ValidMask(uint32_t word) noexcept {
    const uint32_t remaining = kBlocks - word * kWordBits;
    return remaining >= kWordBits ? ~Word{0} : (Word{1} << remaining) - 1U;
  }

  /// Returns block `index`, whose message is destroyed and whose count is 0 (MarkFree).
  void GiveBack(uint32_t index) noexcept {
    if constexpr (kInTurn) {
      static_cast<void>(index);  // free already: only its return is counted
      // release: pairs with RefreshReturned's acquire load: a producer that counts this return
      // also sees the block free (MarkFree, before).
      static_cast<void>(
          detail::FetchAddRelease<kSingleCore, CriticalSection>(returned_, uint32_t{1}));
    } else {
      const Word mask = ~(Word{1} << (index % kWordBits));
      // release: pairs with Take's acquire CAS on this word (the next owner of the block).
      static_cast<void>(
          detail::FetchAndRelease<kSingleCore, CriticalSection>(bits_[index / kWordBits], mask));
      // release: pairs with Take's acquire reservation CAS: a taker that counts this unit as
      // free also sees the bit cleared just above.
      static_cast<void>(detail::FetchSub<kSingleCore, CriticalSection, std::memory_order_release>(
          admitted_, uint32_t{1}));
    }
  }

  static void DestroyMessage(detail::LoanBlockHeader& header) noexcept {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
    Block& block = *reinterpret_cast<Block*>(&header);  // the header is the block's first member
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
    std::launder(reinterpret_cast<T*>(block.storage))->~T();
  }

  static void DropBlock(detail::LoanBlockHeader& header) noexcept {
    if (References::DropReference(header)) {
      // Read while the block is still this thread's: once it is free another taker rewrites them.
      auto* const pool = static_cast<LoanPool*>(header.pool);
      const uint32_t index = header.index;
      DestroyMessage(header);
      References::MarkFree(header);
      pool->GiveBack(index);
    }
  }

  static constexpr detail::LoanBlockOps kOps{&References::RetainBlock, &DropBlock};

  // Written by every loan: the admission count, the cursor or the bitmap, and the counters
  // share a line (written by producers only in an in-turn pool).
  // Lowest-free-block pools: the blocks in use. In-turn pools: the loans ever admitted (it
  // wraps; the blocks in use are admitted_ - returned_).
  alignas(kLine) std::atomic<uint32_t> admitted_{0U};
  std::atomic<uint32_t> returned_seen_{0U};  // in-turn pools: a copy of returned_
  std::atomic<uint32_t> cursor_{0U};         // in-turn pools: where the next search starts
  std::atomic<uint32_t> high_water_{0U};
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  std::atomic<Word> bits_[kBitmapWords]{};  // lowest-free-block pools: a bit per block in use
  std::atomic<Counter> granted_{0U};
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  std::atomic<Counter> refused_[kPriorityCount]{};
  // In-turn pools: the blocks returned ever (it wraps), written by the consumer once per group
  // (and by whoever drops a retained message last), read by producers only at a limit. On a
  // line of its own: next to the consumer's per-message data, producers spinning on a refusal
  // would take that line from the consumer for every message it dispatches.
  alignas(kLine) std::atomic<uint32_t> returned_{0U};
  // The consumer's alone: the blocks dropped since its last return (a bit each in a
  // lowest-free-block pool) and their number.
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  alignas(detail::kLineAlign<kSingleCore, kCacheLine, Word>) Word released_[kBitmapWords]{};
  uint32_t released_count_{0U};
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
  Block blocks_[kBlocks]{};
#if MCCC_ENABLE_TEST_HOOKS
  void (*in_use_read_hook_)(void*) = nullptr;
  void* in_use_read_context_ = nullptr;
#endif
};

}  // namespace mccc

#endif  // MCCC_LOANS_LOAN_POOL_HPP_
