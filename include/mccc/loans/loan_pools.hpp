// SPDX-License-Identifier: MIT
/// @file loan_pools.hpp
/// @brief How a bus is given its loan pools: `Traits::LoanPools` lists one `PoolOf<T, N>` per
/// message type that travels by loan (the variant lists `Loaned<T>` for it):
/// @code
/// struct LidarTraits : mccc::DefaultBusTraits {
///   using LoanPools = mccc::LoanPools<mccc::PoolOf<PointCloud, 8>, mccc::PoolOf<Image, 4>>;
/// };
/// using Bus = mccc::AsyncBus<std::variant<Imu, mccc::Loaned<PointCloud>, mccc::Loaned<Image>>,
///                            LidarTraits>;
/// @endcode
/// The bus holds the pools (sized at compile time, no heap), so they live wherever the bus does.
#ifndef MCCC_LOANS_LOAN_POOLS_HPP_
#define MCCC_LOANS_LOAN_POOLS_HPP_

#include <cstdint>
#include <type_traits>
#include <variant>

#include "mccc/loans/loan_handles.hpp"
#include "mccc/loans/loan_pool.hpp"
#include "mccc/message.hpp"

namespace mccc {

/// @brief A pool of `kBlocks` blocks for message type T (an entry of LoanPools).
template <typename T, uint32_t kBlocks>
struct PoolOf {
  using Message = T;
  static constexpr uint32_t kBlockCount = kBlocks;
};

/// @brief The loan pools of a bus (Traits::LoanPools); empty by default.
template <typename... Pools>
struct LoanPools {};

/// @brief No loan pools (DefaultBusTraits): no message travels by loan.
using NoLoanPools = LoanPools<>;

namespace detail {

template <typename T>
struct IsLoanPools : std::false_type {};
template <typename... Pools>
struct IsLoanPools<LoanPools<Pools...>> : std::true_type {};

/// @brief How many entries of `Pools` are for message type T.
template <typename T, typename Pools>
struct PoolCount;
template <typename T, typename... Pools>
struct PoolCount<T, LoanPools<Pools...>>
    : std::integral_constant<std::size_t,
                             (std::size_t{0} + ... +
                              (std::is_same_v<T, typename Pools::Message> ? 1U : 0U))> {};

/// @brief How many alternatives of the variant are Loaned<T>, or T itself.
template <typename T, typename Variant>
struct LoanedAlternativeCount;
template <typename T, typename... Ts>
struct LoanedAlternativeCount<T, std::variant<Ts...>>
    : std::integral_constant<std::size_t,
                             (std::size_t{0} + ... + (std::is_same_v<Loaned<T>, Ts> ? 1U : 0U))> {};
template <typename T, typename Variant>
struct InlineAlternativeCount;
template <typename T, typename... Ts>
struct InlineAlternativeCount<T, std::variant<Ts...>>
    : std::integral_constant<std::size_t,
                             (std::size_t{0} + ... + (std::is_same_v<T, Ts> ? 1U : 0U))> {};

/// @brief True when every Loaned<U> alternative of the variant has exactly one pool, every pool
/// has its Loaned alternative, and no type is both inline and loaned.
template <typename Variant, typename Pools>
struct LoanConfigurationChecks;
template <typename... Ts, typename... Pools>
struct LoanConfigurationChecks<std::variant<Ts...>, LoanPools<Pools...>> {
  static constexpr bool kEveryLoanedHasOnePool =
      ((!LoanedTraits<Ts>::kIsLoaned ||
        PoolCount<typename LoanedTraits<Ts>::Message, LoanPools<Pools...>>::value == 1U) &&
       ...);
  static constexpr bool kEveryPoolIsUsed =
      ((LoanedAlternativeCount<typename Pools::Message, std::variant<Ts...>>::value == 1U) && ...);
  static constexpr bool kNoTypeBothWays =
      ((!LoanedTraits<Ts>::kIsLoaned ||
        InlineAlternativeCount<typename LoanedTraits<Ts>::Message, std::variant<Ts...>>::value ==
            0U) &&
       ...);
};

/// @brief Adds one pool's counters to `total` (capacity, use, high-water mark, grants, refusals).
inline void AddPoolStatistics(LoanPoolStatistics& total, const LoanPoolStatistics& pool) noexcept {
  total.capacity += pool.capacity;
  total.in_use += pool.in_use;
  total.high_water += pool.high_water;
  total.loans_granted += pool.loans_granted;
  total.high_priority_refused += pool.high_priority_refused;
  total.medium_priority_refused += pool.medium_priority_refused;
  total.low_priority_refused += pool.low_priority_refused;
}

/// @brief The pools of one bus, one member per LoanPools entry (an empty base without any).
template <typename Pools, bool kSingleCore, typename CriticalSection, unsigned kCacheLine>
class LoanPoolSet;

template <bool kSingleCore, typename CriticalSection, unsigned kCacheLine>
class LoanPoolSet<LoanPools<>, kSingleCore, CriticalSection, kCacheLine> {
 public:
  // User-provided (here and below), so that a class that names the set in its member-initialiser
  // list, `LoanPoolSet()`, calls this constructor instead of value-initialising the set, which
  // would zero every block first.
  constexpr LoanPoolSet() noexcept {}  // NOLINT(modernize-use-equals-default): deviation D-01
  /// The pool type of message type T (void: none).
  template <typename T>
  using PoolType = void;
  void ResetAll() noexcept {}
  /// Consumer, end of a batch: every pool returns the blocks its dispatched messages released.
  void ReturnAllReleased() noexcept {}
  /// Adds every pool's counters to `loans_granted` and the refusals per priority.
  void Accumulate(LoanPoolStatistics& total) const noexcept { static_cast<void>(total); }
};

// Each level holds the first pool and inherits the set of the others. Every level declares the
// same four functions, each doing its own pool and then calling the base's: the base is private,
// so the set is used only through the top level's functions and no base function can be
// reached past the one that replaces it.
template <typename First, typename... Rest, bool kSingleCore, typename CriticalSection,
          unsigned kCacheLine>
class LoanPoolSet<LoanPools<First, Rest...>, kSingleCore, CriticalSection, kCacheLine>
    : private LoanPoolSet<LoanPools<Rest...>, kSingleCore, CriticalSection, kCacheLine> {
  using Base = LoanPoolSet<LoanPools<Rest...>, kSingleCore, CriticalSection, kCacheLine>;

 public:
  using FirstPool = LoanPool<typename First::Message, First::kBlockCount, kSingleCore,
                             CriticalSection, kCacheLine>;
  template <typename T>
  using PoolType = std::conditional_t<std::is_same_v<T, typename First::Message>, FirstPool,
                                      typename Base::template PoolType<T>>;

  constexpr LoanPoolSet() noexcept : Base() {}

  /// @brief The pool of message type T (which has one: checked by the bus).
  template <typename T>
  auto& PoolFor() noexcept {
    if constexpr (std::is_same_v<T, typename First::Message>) {
      return pool_;
    } else {
      return Base::template PoolFor<T>();
    }
  }
  template <typename T>
  const auto& PoolFor() const noexcept {
    if constexpr (std::is_same_v<T, typename First::Message>) {
      return pool_;
    } else {
      return Base::template PoolFor<T>();
    }
  }

  void ResetAll() noexcept {
    pool_.ResetStatistics();
    Base::ResetAll();
  }

  void ReturnAllReleased() noexcept {
    pool_.ReturnReleased();
    Base::ReturnAllReleased();
  }

  void Accumulate(LoanPoolStatistics& total) const noexcept {
    AddPoolStatistics(total, pool_.Statistics());
    Base::Accumulate(total);
  }

 private:
  FirstPool pool_;
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_LOANS_LOAN_POOLS_HPP_
