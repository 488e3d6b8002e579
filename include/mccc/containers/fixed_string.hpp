// SPDX-License-Identifier: MIT
/// @file fixed_string.hpp
/// @brief FixedString<N>: a NUL-terminated string of at most N chars stored inside the object.
///
/// Why: names, topics and error texts in messages must not allocate, and a message that is
/// copied through the ring must stay trivially copyable. A too-long string literal is caught at
/// compile time; a runtime string (a `const char*`, a pointer and a length, a std::string or a
/// std::string_view) is only accepted through the explicit TruncateToCapacity tag,
/// so shortening is always visible at the call site and never happens silently.
#ifndef MCCC_CONTAINERS_FIXED_STRING_HPP_
#define MCCC_CONTAINERS_FIXED_STRING_HPP_

#include <cstddef>
#include <string_view>

#include "mccc/config.hpp"

namespace mccc {

/// @brief Tag type selecting the truncating FixedString constructors.
struct TruncateToCapacity_t {
  /// Explicit so that `{}` cannot be mistaken for the tag.
  explicit constexpr TruncateToCapacity_t() noexcept = default;
};

/// @brief Pass as the first argument to build a FixedString from a runtime string: the copy
/// keeps the first N chars and drops the rest (the caller asked for exactly that).
inline constexpr TruncateToCapacity_t TruncateToCapacity{};

/// @brief A string of at most N chars plus a terminating NUL, stored inline (no heap).
///
/// Invariants: `size() <= N`, `c_str()[size()] == '\0'`. The type is trivially copyable, so it can
/// travel inside bus messages. The chars after size() are always zero, so two equal strings
/// are also equal byte for byte in their char storage.
///
/// Thread-safety: like a built-in value. Concurrent const calls are safe; a non-const call
/// concurrent with any other call on the same object is a data race.
///
/// @tparam N capacity in chars, not counting the terminating NUL.
template <std::size_t N>
class FixedString {
 public:
  /// Empty string. Not thread-safe (construction).
  constexpr FixedString() noexcept = default;

  /// @brief From a string literal (or any const char array): checked at compile time.
  ///
  /// Implicit on purpose, so `FixedString<16> name = "motor";` works like std::string. Copies the
  /// chars before the first NUL (at most M - 1). The last array element must be the terminator;
  /// a debug build asserts that. Not thread-safe (construction).
  template <std::size_t M>
  // cppcheck-suppress noExplicitConstructor ; deviation D-24: implicit, like std::string
  // NOLINTNEXTLINE(hicpp-explicit-conversions,modernize-avoid-c-arrays): deviations D-22, D-24
  constexpr FixedString(const char (&literal)[M]) noexcept {
    static_assert(M - 1U <= N,
                  "mccc: string literal longer than FixedString capacity; raise N or use "
                  "TruncateToCapacity");
    AssignArray(literal);
  }

  /// @brief From a runtime NUL-terminated string, keeping at most the first N chars.
  ///
  /// A null pointer gives the empty string (defined, documented behaviour instead of UB).
  /// Not thread-safe (construction).
  constexpr FixedString(TruncateToCapacity_t /*tag*/, const char* s) noexcept {
    if (s == nullptr) {
      return;
    }
    std::size_t length = 0U;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-22
    while (length < N && s[length] != '\0') {
      // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-22
      data_[length] = s[length];
      ++length;
    }
    size_ = length;
  }

  /// @brief From the first `len` chars at `s`, keeping at most the first N of them.
  ///
  /// Like `std::string(s, len)`, exactly min(len, N) chars are copied: `s` need not be
  /// NUL-terminated and an embedded NUL is copied too (it then counts in size()). A null `s` with
  /// `len > 0` is a precondition violation (asserted in debug) and gives the empty string in
  /// release. Not thread-safe (construction).
  constexpr FixedString(TruncateToCapacity_t /*tag*/, const char* s, std::size_t len) noexcept {
    MCCC_ASSERT(s != nullptr || len == 0U, "mccc: FixedString from a null pointer with len > 0");
    if (s == nullptr) {
      return;
    }
    const std::size_t length = (len < N) ? len : N;
    for (std::size_t i = 0U; i < length; ++i) {
      // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-22
      data_[i] = s[i];
    }
    size_ = length;
  }

  /// @brief From a std::string or std::string_view, keeping at most its first N chars.
  ///
  /// Exactly as the (s, len) constructor with `view.data()` and `view.size()`: embedded NULs are
  /// copied. A `std::string` converts to the view without a copy. Not thread-safe (construction).
  constexpr FixedString(TruncateToCapacity_t tag, std::string_view view) noexcept
      : FixedString(tag, view.data(), view.size()) {}

  /// @brief Replaces the content with at most the first N chars of the NUL-terminated `s` (a null
  /// pointer gives the empty string), as the constructor of the same arguments does. `s` may
  /// point into this string itself. Not thread-safe.
  constexpr FixedString& assign(TruncateToCapacity_t tag, const char* s) noexcept {
    *this = FixedString(tag, s);
    return *this;
  }

  /// @brief Replaces the content with min(len, N) chars at `s`, as the constructor of the same
  /// arguments does. `s` may point into this string itself. Not thread-safe.
  constexpr FixedString& assign(TruncateToCapacity_t tag, const char* s, std::size_t len) noexcept {
    *this = FixedString(tag, s, len);
    return *this;
  }

  /// @brief Replaces the content with at most the first N chars of `view`, as the constructor of
  /// the same arguments does. `view` may look into this string itself. Not thread-safe.
  constexpr FixedString& assign(TruncateToCapacity_t tag, std::string_view view) noexcept {
    *this = FixedString(tag, view);
    return *this;
  }

  /// @brief Replaces the content with a string literal; same compile-time check as the
  /// constructor. Not thread-safe.
  template <std::size_t M>
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  constexpr FixedString& operator=(const char (&literal)[M]) noexcept {
    static_assert(M - 1U <= N,
                  "mccc: string literal longer than FixedString capacity; raise N or use "
                  "TruncateToCapacity");
    clear();
    AssignArray(literal);
    return *this;
  }

  /// NUL-terminated content; valid until the object is modified or destroyed.
  /// Thread-safe with other const calls.
  // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-array-to-pointer-decay): deviation D-22
  constexpr const char* c_str() const noexcept { return data_; }

  /// Number of stored chars; `c_str()[size()]` is the terminator. Only a string built with
  /// the (s, len) constructor can hold a NUL before it. Thread-safe with other const calls.
  constexpr std::size_t size() const noexcept { return size_; }

  /// Largest size() this type can hold (N). Thread-safe.
  static constexpr std::size_t capacity() noexcept { return N; }

  /// True when size() is 0. Thread-safe with other const calls.
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0U; }

  /// Makes the string empty (zeroes the old chars to keep the byte-equality invariant).
  /// Not thread-safe.
  constexpr void clear() noexcept {
    for (std::size_t i = 0U; i < size_; ++i) {
      data_[i] = '\0';
    }
    size_ = 0U;
  }

 private:
  // Precondition: the object is empty (all chars zero).
  template <std::size_t M>
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  constexpr void AssignArray(const char (&literal)[M]) noexcept {
    MCCC_ASSERT(literal[M - 1U] == '\0',
                "mccc: char array given to FixedString has no NUL at its end");
    std::size_t length = 0U;
    while (length < M - 1U && literal[length] != '\0') {
      data_[length] = literal[length];
      ++length;
    }
    size_ = length;
  }

  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  char data_[N + 1U] = {};
  std::size_t size_ = 0U;
};

/// @brief Equal when both hold the same chars (capacities may differ). Thread-safe with other
/// const calls.
template <std::size_t N, std::size_t M>
constexpr bool operator==(const FixedString<N>& lhs, const FixedString<M>& rhs) noexcept {
  if (lhs.size() != rhs.size()) {
    return false;
  }
  const char* const a = lhs.c_str();
  const char* const b = rhs.c_str();
  for (std::size_t i = 0U; i < lhs.size(); ++i) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-22
    if (a[i] != b[i]) {
      return false;
    }
  }
  return true;
}

/// @brief Negation of operator==. Thread-safe with other const calls.
template <std::size_t N, std::size_t M>
constexpr bool operator!=(const FixedString<N>& lhs, const FixedString<M>& rhs) noexcept {
  return !(lhs == rhs);
}

/// @brief Equal when `rhs` is a NUL-terminated string with exactly the chars of `lhs`.
///
/// `rhs` is read no further than its terminator. A null `rhs` counts as the empty string.
/// Thread-safe with other const calls.
template <std::size_t N>
constexpr bool operator==(const FixedString<N>& lhs, const char* rhs) noexcept {
  if (rhs == nullptr) {
    return lhs.empty();
  }
  // Walks both strings together and stops at rhs's terminator, so a shorter rhs is never read
  // past its end. Equal when rhs ends exactly where lhs does.
  const char* const a = lhs.c_str();
  for (std::size_t i = 0U;; ++i) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-22
    const char c = rhs[i];
    if (i == lhs.size()) {
      return c == '\0';
    }
    // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-22
    if (c == '\0' || c != a[i]) {
      return false;
    }
  }
}

/// @brief Same as `rhs == lhs`. Thread-safe with other const calls.
template <std::size_t N>
constexpr bool operator==(const char* lhs, const FixedString<N>& rhs) noexcept {
  return rhs == lhs;
}

/// @brief Negation of operator==. Thread-safe with other const calls.
template <std::size_t N>
constexpr bool operator!=(const FixedString<N>& lhs, const char* rhs) noexcept {
  return !(lhs == rhs);
}

/// @brief Negation of operator==. Thread-safe with other const calls.
template <std::size_t N>
constexpr bool operator!=(const char* lhs, const FixedString<N>& rhs) noexcept {
  return !(rhs == lhs);
}

}  // namespace mccc

#endif  // MCCC_CONTAINERS_FIXED_STRING_HPP_
