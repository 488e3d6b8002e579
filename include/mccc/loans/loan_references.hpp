// SPDX-License-Identifier: MIT
/// @file loan_references.hpp
/// @brief The reference count of a loan pool block (detail::LoanBlockHeader::references, the
/// pool in loans/loan_pool.hpp): a reference is added only from one held already, the last one
/// dropped is told so (its holder then destroys the message and returns the block), and a
/// count of 0 marks the block free.
#ifndef MCCC_LOANS_LOAN_REFERENCES_HPP_
#define MCCC_LOANS_LOAN_REFERENCES_HPP_

#include <atomic>
#include <cstdint>

#include "mccc/detail/atomic_ops.hpp"
#include "mccc/loans/loan_handles.hpp"

namespace mccc {
namespace detail {

/// @brief The operations on a block's reference count, for a pool built with `kSingleCore` and
/// `CriticalSection` (as LoanPool's).
template <bool kSingleCore, typename CriticalSection>
struct LoanReferences {
  /// A count of 0 marks the block free, once its message is destroyed: an in-turn pool's
  /// producers claim it from there, and Retain of a stale reference sees it.
  static void MarkFree(detail::LoanBlockHeader& header) noexcept {
    // release: pairs with TakeInTurn's acquire CAS of the count from 0 (the next owner: the
    // destruction and the readers' accesses happen before it writes), and with Retain's acquire.
    detail::StoreRelease<kSingleCore>(header.references, uint32_t{0});
  }

  static void RetainBlock(detail::LoanBlockHeader& header) noexcept {
    // relaxed: a reference is only ever made from one the caller holds, which already orders
    // the message for this thread (as a shared_ptr copy); the drop that frees is acq_rel.
    static_cast<void>(
        detail::FetchAddRelaxed<kSingleCore, CriticalSection>(header.references, uint32_t{1}));
  }

  /// Drops one reference; true when it was the last (the caller then destroys and returns). The
  /// count never reaches 0 here: 0 marks a free block, and this one is not free until its
  /// message is destroyed.
  static bool DropReference(detail::LoanBlockHeader& header) noexcept {
    // acquire: pairs with the release half of other holders' decrements, so their reads of the
    // message happen before its destruction. A count of 1 is this caller's own reference: no one
    // else can add one (a reference is made only from a held one).
    uint32_t references = detail::LoadAcquire<kSingleCore>(header.references);
    while (references != 1U) {
      // acq_rel: release publishes this holder's reads to the last holder; acquire (on failure
      // too) so that a count of 1 read here orders the other holders' reads as above.
      if (detail::CasWeakAcqRel<kSingleCore, CriticalSection>(header.references, references,
                                                              references - 1U)) {
        return false;
      }
    }
    return true;
  }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_LOANS_LOAN_REFERENCES_HPP_
