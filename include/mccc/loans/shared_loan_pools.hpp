// SPDX-License-Identifier: MIT
/// @file shared_loan_pools.hpp
/// @brief The loan pools of a bus that does not own them: each consumer bus of a fan-out domain
/// (fanout/domain.hpp) lends from, checks against and returns to the domain's pools, so that a
/// loaned message is one block whatever the number of consumers it reaches.
///
/// A bus whose traits say `kSharesLoanPools` (only the domain's consumer traits do) holds a
/// SharedLoanPoolSet instead of a LoanPoolSet: one view per pool, each a pointer to the owner's
/// pool, set once by the owner before the bus is used. The views offer the pool's interface, with
/// one difference: several consumers drop references to the same blocks, so a dispatched
/// message's reference is dropped by the block's own thread-safe operation (as a Retained handle's
/// is) instead of the pool's consumer-only release, which holds blocks back for a batch return.
#ifndef MCCC_LOANS_SHARED_LOAN_POOLS_HPP_
#define MCCC_LOANS_SHARED_LOAN_POOLS_HPP_

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "mccc/config.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/loans/loan_pools.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief True when bus traits `Traits` say that the bus uses pools it does not own.
template <typename Traits, typename = void>
struct SharesLoanPools : std::false_type {};
template <typename Traits>
struct SharesLoanPools<Traits, std::void_t<decltype(Traits::kSharesLoanPools)>>
    : std::bool_constant<Traits::kSharesLoanPools> {};

/// @brief One pool of another object, with the pool's interface (see the file comment).
template <typename Pool>
class SharedPoolView {
 public:
  using Message = typename Pool::Message;
  using Admission = typename Pool::Admission;
  static constexpr uint32_t kCapacity = Pool::kCapacity;
  static constexpr bool kTakesInTurn = Pool::kTakesInTurn;
  static constexpr std::size_t BlockBytes() noexcept { return Pool::BlockBytes(); }

  constexpr SharedPoolView() noexcept = default;

  /// The owner's pool (before any other call).
  void Attach(Pool* pool) noexcept { pool_ = pool; }

  template <typename OnRefusal, typename... Args>
  MessageLoan<Message> TryLoanOrElse(MessagePriority priority, uint32_t limit, bool count,
                                     OnRefusal&& on_refusal, Args&&... args) noexcept {
    return Shared().TryLoanOrElse(priority, limit, count, std::forward<OnRefusal>(on_refusal),
                                  std::forward<Args>(args)...);
  }
  bool Owns(const LoanBlockHeader& block) const noexcept { return Shared().Owns(block); }
  Retained<Message> Retain(const Message& message) const noexcept {
    return Shared().Retain(message);
  }
  LoanPoolStatistics Statistics() const noexcept { return Shared().Statistics(); }

  /// The counters are the owner's, shared by every bus that uses the pool: one bus's
  /// ResetStatistics leaves them alone (the owner resets them).
  static void ResetStatistics() noexcept {}
  /// Nothing is held back for a batch return (see DropFromConsumer).
  static bool HasReleased() noexcept { return false; }
  static void ReturnReleased() noexcept {}

  /// The consumer drops the reference a dispatched message held: by the block's thread-safe
  /// operation, since other consumers drop references to the same block at the same time.
  void DropFromConsumer(LoanBlockHeader& header) const noexcept {
    MCCC_ASSERT(Owns(header), "a loaned message dropped into a foreign pool");
    header.ops->drop(header);
  }

 private:
  Pool& Shared() const noexcept {
    MCCC_ASSERT(pool_ != nullptr, "a bus with shared loan pools used before its owner attached");
    return *pool_;
  }

  Pool* pool_ = nullptr;
};

/// @brief The views of a bus whose pools are `Pools` of another object: one SharedPoolView per
/// pool of the owner's LoanPoolSet. The same interface as LoanPoolSet, plus AttachTo.
template <typename Pools, bool kSingleCore, typename CriticalSection, unsigned kCacheLine>
class SharedLoanPoolSet;

template <typename... Pools, bool kSingleCore, typename CriticalSection, unsigned kCacheLine>
class SharedLoanPoolSet<LoanPools<Pools...>, kSingleCore, CriticalSection, kCacheLine> {
  using Owner = LoanPoolSet<LoanPools<Pools...>, kSingleCore, CriticalSection, kCacheLine>;
  template <typename T>
  using ViewOf = SharedPoolView<typename Owner::template PoolType<T>>;

 public:
  /// The view of message type T's pool (void: none).
  template <typename T>
  using PoolType =
      std::conditional_t<std::is_void_v<typename Owner::template PoolType<T>>, void, ViewOf<T>>;

  constexpr SharedLoanPoolSet() noexcept = default;

  /// Points every view at the pool of the same message type in `owner`. Before the bus is used.
  void AttachTo(Owner& owner) noexcept {
    (std::get<ViewOf<typename Pools::Message>>(views_).Attach(
         &owner.template PoolFor<typename Pools::Message>()),
     ...);
  }

  template <typename T>
  ViewOf<T>& PoolFor() noexcept {
    return std::get<ViewOf<T>>(views_);
  }
  template <typename T>
  const ViewOf<T>& PoolFor() const noexcept {
    return std::get<ViewOf<T>>(views_);
  }

  // The counters are the owner's (SharedPoolView::ResetStatistics); nothing is held back.
  static void ResetAll() noexcept {}
  static void ReturnAllReleased() noexcept {}

  void Accumulate(LoanPoolStatistics& total) const noexcept {
    (AddPoolStatistics(total, std::get<ViewOf<typename Pools::Message>>(views_).Statistics()), ...);
  }

 private:
  std::tuple<ViewOf<typename Pools::Message>...> views_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_LOANS_SHARED_LOAN_POOLS_HPP_
