// SPDX-License-Identifier: MIT
/// @file fixed_vector.hpp
/// @brief FixedVector<T, N>: a vector of at most N elements stored inside the object.
///
/// Why: subscriber tables and batches need a growable list with a hard upper bound and no heap.
/// Running out of room is an expected event on an embedded target, so the insert functions
/// return false instead of throwing, asserting or dropping silently.
#ifndef MCCC_CONTAINERS_FIXED_VECTOR_HPP_
#define MCCC_CONTAINERS_FIXED_VECTOR_HPP_

#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

#include "mccc/config.hpp"

namespace mccc {
namespace detail {

/// @brief True when `T{args...}` is a valid expression (an aggregate, a list constructor, no
/// narrowing).
template <typename Void, typename T, typename... Args>
struct IsBraceConstructible : std::false_type {};
template <typename T, typename... Args>
struct IsBraceConstructible<std::void_t<decltype(T{std::declval<Args>()...})>, T, Args...>
    : std::true_type {};

/// @brief Whether `T{args...}` cannot throw; false when it is not valid at all.
template <typename Void, typename T, typename... Args>
struct IsNothrowBraceConstructible : std::false_type {};
template <typename T, typename... Args>
struct IsNothrowBraceConstructible<std::void_t<decltype(T{std::declval<Args>()...})>, T, Args...>
    : std::bool_constant<noexcept(T{std::declval<Args>()...})> {};

}  // namespace detail

/// @brief Up to N elements of T in inline, uninitialized storage.
///
/// Only the first size() slots hold live objects: a slot is constructed when an element is added
/// and destroyed when it is removed, so T needs no default constructor and no T is built for
/// unused capacity. Element addresses never change while the element is in the vector, except
/// for the element that erase_unordered() moves into the erased slot.
///
/// Thread-safety: like a standard container. Concurrent const calls are safe; a non-const call
/// concurrent with any other call on the same object is a data race.
///
/// @tparam T element type: a non-const, non-volatile, non-array object type whose destructor
///           does not throw.
/// @tparam N capacity, > 0.
template <typename T, std::size_t N>
class FixedVector {
  static_assert(N > 0U, "mccc: FixedVector capacity N must be greater than 0");
  static_assert(std::is_object<T>::value && !std::is_array<T>::value &&
                    std::is_same<T, std::remove_cv_t<T>>::value,
                "mccc: FixedVector element type must be a non-const, non-volatile, non-array "
                "object type; store a pointer or wrapper otherwise");
  static_assert(std::is_nothrow_destructible<T>::value,
                "mccc: FixedVector element destructor must be noexcept");

 private:
  // Assignment constructs, assigns and destroys elements, so it is noexcept only if all are.
  static constexpr bool kNothrowCopyAssign =
      std::is_nothrow_copy_constructible<T>::value && std::is_nothrow_copy_assignable<T>::value;
  static constexpr bool kNothrowMoveAssign =
      std::is_nothrow_move_constructible<T>::value && std::is_nothrow_move_assignable<T>::value;

  // How emplace_back builds an element: `T(args...)` when T has such a constructor, as
  // std::vector does; otherwise `T{args...}`, so that an aggregate (a plain message struct) can
  // be emplaced from its members, as std::vector allows from C++20 on.
  template <typename... Args>
  static constexpr bool kParenthesized = std::is_constructible<T, Args&&...>::value;
  template <typename... Args>
  static constexpr bool kEmplaceable =
      kParenthesized<Args...> || detail::IsBraceConstructible<void, T, Args&&...>::value;
  template <typename... Args>
  static constexpr bool kNothrowEmplace =
      kParenthesized<Args...> ? std::is_nothrow_constructible<T, Args&&...>::value
                              : detail::IsNothrowBraceConstructible<void, T, Args&&...>::value;

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;

  /// Empty vector; constructs no T. Not thread-safe (construction).
  // `= default` would be deleted for a T with a non-trivial constructor: the union needs it.
  FixedVector() noexcept {}  // NOLINT(modernize-use-equals-default): deviation D-09

  /// @brief Copy-constructs every element of `other`.
  ///
  /// Delegates to the default constructor, so if a T copy throws, the elements copied so far
  /// are destroyed by ~FixedVector. Not thread-safe (construction; `other` may be read
  /// concurrently by const calls).
  FixedVector(const FixedVector& other) noexcept(std::is_nothrow_copy_constructible<T>::value)
      : FixedVector() {
    for (const T& element : other) {
      ConstructAtEnd(element);
    }
  }

  /// @brief Move-constructs every element of `other`, then clears `other`.
  ///
  /// The elements themselves must be moved one by one (the storage is inline, nothing can be
  /// stolen); leaving `other` empty gives it the same well-defined state as a moved-from
  /// std::vector. Not thread-safe.
  FixedVector(FixedVector&& other) noexcept(std::is_nothrow_move_constructible<T>::value)
      : FixedVector() {
    for (T& element : other) {
      ConstructAtEnd(std::move(element));
    }
    other.clear();
  }

  /// @brief Makes this a copy of `other`: assigns over the common prefix, copy-constructs the
  /// extra elements and destroys the surplus ones. Self-assignment is a no-op. Not thread-safe.
  FixedVector& operator=(const FixedVector& other) & noexcept(kNothrowCopyAssign) {
    if (this != &other) {
      AssignFrom<false>(other);
    }
    return *this;
  }

  /// @brief Like copy assignment but moves the elements, then clears `other`. Self-assignment
  /// is a no-op. Not thread-safe.
  FixedVector& operator=(FixedVector&& other) & noexcept(kNothrowMoveAssign) {
    if (this != &other) {
      AssignFrom<true>(other);
      // The elements were moved, not the vector: clear() gives `other` its documented
      // moved-from state (empty).
      other.clear();
    }
    return *this;
  }

  /// Destroys the live elements (in reverse order, like clear()). Not thread-safe.
  ~FixedVector() { clear(); }

  // Every element access indexes the element array through the pointer Slots() returns; the
  // index is below size_ (or capacity, for the end pointer) in each function.
  // NOLINTBEGIN(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-03 (element storage)

  // The insert functions are [[nodiscard]]: false means the element was NOT stored, and a
  // caller that ignores it loses data without a trace, the failure this container exists to make
  // visible. Where dropping is intended (or the room is known), say so: static_cast<void>(...).

  /// @brief Appends a copy of `value`.
  /// @return false (and nothing is copied) when the vector is full. Not thread-safe.
  [[nodiscard]] bool push_back(const T& value) noexcept(
      std::is_nothrow_copy_constructible<T>::value) {
    return emplace_back(value);
  }

  /// @brief Appends `value` by moving it.
  /// @return false when the vector is full; `value` is then left untouched. Not thread-safe.
  [[nodiscard]] bool push_back(T&& value) noexcept(std::is_nothrow_move_constructible<T>::value) {
    return emplace_back(std::move(value));
  }

  /// @brief Constructs a new last element as `T(std::forward<Args>(args)...)`, or, when T has no
  /// such constructor (an aggregate), as `T{std::forward<Args>(args)...}`.
  /// @return false when the vector is full; no T is constructed and `args` are untouched.
  /// If the constructor throws, the vector is unchanged. Not thread-safe.
  template <typename... Args>
  [[nodiscard]] bool emplace_back(Args&&... args) noexcept(kNothrowEmplace<Args...>) {
    static_assert(kEmplaceable<Args...>,
                  "mccc: FixedVector::emplace_back: T cannot be built from these arguments, "
                  "neither as T(args...) nor as T{args...} (check the argument types; a "
                  "narrowing conversion is not allowed inside braces)");
    if (full()) {
      return false;
    }
    ConstructAtEnd(std::forward<Args>(args)...);
    return true;
  }

  /// @brief Destroys the last element.
  /// @return false (and does nothing) when the vector is empty. Not thread-safe.
  bool pop_back() noexcept {
    if (empty()) {
      return false;
    }
    --size_;
    Slots()[size_].~T();
    return true;
  }

  /// @brief Removes the element at `index` in O(1): the last element is move-assigned into its
  /// slot, then the last slot is destroyed. The order of the remaining elements changes.
  /// @return false (and does nothing) when `index >= size()`. Not thread-safe.
  bool erase_unordered(size_type index) noexcept(std::is_nothrow_move_assignable<T>::value) {
    // `index >= N` is implied by the invariant size_ <= N; spelling it out lets the compiler
    // prove the accesses below in bounds (GCC's -Warray-bounds cannot see the invariant).
    if (index >= size_ || index >= N) {
      return false;
    }
    const size_type last = size_ - 1U;
    if (index != last) {
      Slots()[index] = std::move(Slots()[last]);
    }
    return pop_back();
  }

  /// @brief Same as erase_unordered(position - begin()).
  ///
  /// A template restricted to iterator/const_iterator, because a plain `const T*` overload
  /// would make `erase_unordered(0)` ambiguous (the literal 0 is also a null pointer constant).
  /// @return false (and does nothing) when `position` does not point at an element of this
  /// vector (end() included). Not thread-safe.
  template <typename Iterator,
            typename = std::enable_if_t<std::is_same<Iterator, iterator>::value ||
                                        std::is_same<Iterator, const_iterator>::value>>
  bool erase_unordered(Iterator position) noexcept(std::is_nothrow_move_assignable<T>::value) {
    // std::less gives a total order even for pointers into other objects, where a plain `<`
    // or a subtraction would be unspecified or undefined.
    const std::less<const_iterator> before{};
    if (before(position, cbegin()) || !before(position, cend())) {
      return false;
    }
    return erase_unordered(static_cast<size_type>(position - cbegin()));
  }

  /// Destroys all elements (last first); capacity is unchanged. Not thread-safe.
  void clear() noexcept {
    while (size_ > 0U) {
      --size_;
      Slots()[size_].~T();
    }
  }

  /// Element `index`. Precondition `index < size()`, asserted in debug. Not thread-safe.
  T& operator[](size_type index) noexcept {
    MCCC_ASSERT(index < size_, "mccc: FixedVector index out of range");
    return Slots()[index];
  }

  /// Element `index`. Precondition `index < size()`, asserted in debug.
  /// Thread-safe with other const calls.
  const T& operator[](size_type index) const noexcept {
    MCCC_ASSERT(index < size_, "mccc: FixedVector index out of range");
    return Slots()[index];
  }

  /// First element. Precondition `!empty()`, asserted in debug. Not thread-safe.
  T& front() noexcept {
    MCCC_ASSERT(size_ > 0U, "mccc: FixedVector::front() on an empty vector");
    return Slots()[0];
  }

  /// First element. Precondition `!empty()`, asserted in debug.
  /// Thread-safe with other const calls.
  const T& front() const noexcept {
    MCCC_ASSERT(size_ > 0U, "mccc: FixedVector::front() on an empty vector");
    return Slots()[0];
  }

  /// Last element. Precondition `!empty()`, asserted in debug. Not thread-safe.
  T& back() noexcept {
    MCCC_ASSERT(size_ > 0U, "mccc: FixedVector::back() on an empty vector");
    return Slots()[size_ - 1U];
  }

  /// Last element. Precondition `!empty()`, asserted in debug.
  /// Thread-safe with other const calls.
  const T& back() const noexcept {
    MCCC_ASSERT(size_ > 0U, "mccc: FixedVector::back() on an empty vector");
    return Slots()[size_ - 1U];
  }

  /// Pointer to the first slot (valid even when empty; only [0, size()) are live objects).
  /// Not thread-safe.
  T* data() noexcept { return Slots(); }

  /// Pointer to the first slot (valid even when empty; only [0, size()) are live objects).
  /// Thread-safe with other const calls.
  const T* data() const noexcept { return Slots(); }

  /// Iterator to the first element. Not thread-safe.
  iterator begin() noexcept { return Slots(); }
  /// Iterator past the last element. Not thread-safe.
  iterator end() noexcept { return Slots() + size_; }
  /// Iterator to the first element. Thread-safe with other const calls.
  const_iterator begin() const noexcept { return Slots(); }
  /// Iterator past the last element. Thread-safe with other const calls.
  const_iterator end() const noexcept { return Slots() + size_; }
  /// Iterator to the first element. Thread-safe with other const calls.
  const_iterator cbegin() const noexcept { return Slots(); }
  /// Iterator past the last element. Thread-safe with other const calls.
  const_iterator cend() const noexcept { return Slots() + size_; }

  /// Number of live elements. Thread-safe with other const calls.
  size_type size() const noexcept { return size_; }

  /// Largest size() this type can hold (N). Thread-safe.
  static constexpr size_type capacity() noexcept { return N; }

  /// True when size() is 0. Thread-safe with other const calls.
  [[nodiscard]] bool empty() const noexcept { return size_ == 0U; }

  /// True when size() == capacity(), i.e. the next insert returns false.
  /// Thread-safe with other const calls.
  bool full() const noexcept { return size_ == N; }

 private:
  // The first element slot. Every access goes through these two functions, so the union below
  // is named in one place only; it has a single member, so no access can reinterpret another
  // member's bytes (the type punning cppcoreguidelines-pro-type-union-access guards against).
  // NOLINTBEGIN(cppcoreguidelines-pro-type-union-access): deviation D-09 (see above)
  // NOLINTBEGIN(cppcoreguidelines-pro-bounds-array-to-pointer-decay): deviation D-03
  T* Slots() noexcept { return elements_; }
  const T* Slots() const noexcept { return elements_; }
  // NOLINTEND(cppcoreguidelines-pro-bounds-array-to-pointer-decay)
  // NOLINTEND(cppcoreguidelines-pro-type-union-access)

  // Precondition: !full().
  template <typename... Args>
  void ConstructAtEnd(Args&&... args) noexcept(kNothrowEmplace<Args...>) {
    if constexpr (kParenthesized<Args...>) {
      ::new (static_cast<void*>(Slots() + size_)) T(std::forward<Args>(args)...);
    } else {
      ::new (static_cast<void*>(Slots() + size_)) T{std::forward<Args>(args)...};
    }
    // Counted only after the constructor returned: a throwing constructor leaves size_ as is.
    ++size_;
  }

  // Shared by both assignments: copies the elements of `other` (`Source` is `const
  // FixedVector`), or moves them (kMove, `Source` is `FixedVector`).
  template <bool kMove, typename Source>
  void AssignFrom(Source& other) {
    using Element = std::conditional_t<kMove, T&&, const T&>;
    const size_type common = (size_ < other.size_) ? size_ : other.size_;
    for (size_type i = 0U; i < common; ++i) {
      Slots()[i] = static_cast<Element>(other.Slots()[i]);
    }
    for (size_type i = common; i < other.size_; ++i) {
      ConstructAtEnd(static_cast<Element>(other.Slots()[i]));
    }
    while (size_ > other.size_) {
      static_cast<void>(pop_back());  // cannot fail: the vector is not empty
    }
  }

  // NOLINTEND(cppcoreguidelines-pro-bounds-pointer-arithmetic)

  // A union member is not constructed with the vector: this gives correctly aligned storage for
  // N objects of T, and since it is a real T array, pointer arithmetic across the elements is
  // valid (raw byte storage would need std::launder on every access).
  union {
    T elements_[N];  // NOLINT(modernize-avoid-c-arrays): deviations D-03, D-09
  };
  size_type size_ = 0U;
};

}  // namespace mccc

#endif  // MCCC_CONTAINERS_FIXED_VECTOR_HPP_
