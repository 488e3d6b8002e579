// SPDX-License-Identifier: MIT
/// @file lowest_set_bit.hpp
/// @brief `LowestSetBit`: the index of the lowest set bit of a word, by the compiler's
/// count-trailing-zeros builtin where there is one, else by a loop (a loan pool's search of its
/// bitmap of blocks in use, loans/loan_pool.hpp).
#ifndef MCCC_DETAIL_LOWEST_SET_BIT_HPP_
#define MCCC_DETAIL_LOWEST_SET_BIT_HPP_

#include "mccc/config.hpp"

namespace mccc {
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
}  // namespace mccc

#endif  // MCCC_DETAIL_LOWEST_SET_BIT_HPP_
