// SPDX-License-Identifier: MIT
/// @file word_copy.hpp
/// @brief Copies a small message out of the caller's object one aligned word at a time, so
/// that each load can be served by the store that wrote its field.
///
/// Why: a publishing thread has usually just written the message it publishes (a sequence
/// number, a reading, one field updated in a reused object). A compiler copying the object
/// into a ring slot uses the widest loads it can (16 or 32 bytes), and one such load then spans
/// several of those recent stores. x86 and Arm cores forward a store to a later load only when
/// one store covers the whole load; otherwise the load waits until the stores have left the
/// store buffer, behind every older store still queued there (the previous message's slot).
/// That wait costs more than the rest of a lane publish. Loading in words of the message's own
/// alignment (at most a machine word) gives each load one store to forward from whenever the
/// fields were written whole, and a message written long ago loses nothing.
///
/// Only small trivially copyable messages are copied this way: their copy is a handful of
/// loads either way. Above kMaxWordCopyBytes, or for byte-aligned types (a byte array's loads
/// would shrink to single bytes), the ordinary copy is used.
#ifndef MCCC_DETAIL_WORD_COPY_HPP_
#define MCCC_DETAIL_WORD_COPY_HPP_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "mccc/config.hpp"

namespace mccc {
namespace detail {

/// Largest message copied word by word (beyond it, 32 or more word copies cost as much as the
/// stall they avoid).
inline constexpr std::size_t kMaxWordCopyBytes = 128U;

/// The load width for T: its alignment, at most a machine word.
template <typename T>
inline constexpr std::size_t kCopyWordBytes = alignof(T) < sizeof(std::uintptr_t)
                                                  ? alignof(T)
                                                  : sizeof(std::uintptr_t);

/// True when the bus copies a published T word by word (CopyByWords) instead of with the
/// compiler's copy. The type must also be nothrow default constructible: the bus builds it in
/// its slot first and then overwrites it (see CopyByWords).
template <typename T>
constexpr bool CopiesByWords() noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return std::is_trivially_copyable_v<T> && std::is_nothrow_default_constructible_v<T> &&
         sizeof(T) <= kMaxWordCopyBytes && kCopyWordBytes<T> >= 4U;
#else
  return false;  // the word barrier below needs GNU inline assembly
#endif
}

/// See CopiesByWords.
template <typename T>
inline constexpr bool kCopiesByWords = CopiesByWords<T>();

/// @brief Copies `source` into `destination` one word at a time (see the file comment). For
/// types with kCopiesByWords<T> only. An empty assembler statement per word keeps the words
/// apart: it stops the compiler from merging adjacent loads back into one wide load.
/// `destination` is an object already built in its slot: copying into a local and then
/// constructing the slot's object from it would let the compiler copy that local with wide
/// loads again (over the word stores just made, the same stall).
template <typename T>
MCCC_ALWAYS_INLINE void CopyByWords(T& destination, const T& source) noexcept {
  static_assert(kCopiesByWords<T>,
                "mccc: CopyByWords is for small trivially copyable types (see kCopiesByWords)");
#if defined(__GNUC__) || defined(__clang__)
  using Word = std::conditional_t<kCopyWordBytes<T> == 8U, uint64_t, uint32_t>;
  constexpr std::size_t kWords = sizeof(T) / sizeof(Word);
  static_assert(kWords * sizeof(Word) == sizeof(T),
                "mccc: a type's size is a multiple of its alignment");
  // The objects' bytes (a trivially copyable object may be read and written as bytes).
  // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): deviation D-02
  const auto* from = reinterpret_cast<const unsigned char*>(&source);
  auto* to = reinterpret_cast<unsigned char*>(&destination);
  // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
  for (std::size_t i = 0U; i < kWords; ++i) {
    Word word{};
    // NOLINTBEGIN(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-03
    std::memcpy(&word, from + i * sizeof(Word), sizeof(Word));
    // NOLINTNEXTLINE(hicpp-no-assembler): deviation D-04
    __asm__("" : "+r"(word));
    std::memcpy(to + i * sizeof(Word), &word, sizeof(Word));
    // NOLINTEND(cppcoreguidelines-pro-bounds-pointer-arithmetic)
  }
#else
  destination = source;
#endif
}

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_WORD_COPY_HPP_
