// SPDX-License-Identifier: MIT
/// @file fixed_function.hpp
/// @brief FixedFunction<R(Args...), Capacity>: a move-only std::function replacement that stores
/// the callable inside the object and never allocates.
///
/// Why: subscriber callbacks are lambdas with captures. std::function may allocate and needs RTTI
/// for target(); neither is acceptable on the target. A callable that does not fit is a compile
/// error, never a silent heap fallback.
///
/// Design choices:
/// - Move-only. Copyability of the erased callable is not known at the point of the copy, so a
///   copyable wrapper would have to fail at run time for move-only callables (or reject them all).
///   Move-only accepts every callable and every misuse is a compile error. Hence the operations
///   table has no copy entry: it holds invoke, move (relocate) and destroy.
/// - The callable's move constructor must be noexcept (a static_assert says so). In exchange the
///   wrapper's move operations are unconditionally noexcept, so containers can move it freely.
/// - The empty state points at an operations table whose invoke asserts (debug) and traps, so a
///   call is always exactly one indirect call, with no null test on the hot path, and a call on an
///   empty wrapper is never undefined behaviour in release builds either. It does not return a
///   default `R{}` instead: that would pass a missing callback off as an answer (a predicate
///   saying false, a reading of 0), and it would need R to be default-constructible (no `T&()`).
///   std::function treats the call as an error too (bad_function_call). Test with
///   `explicit operator bool` where a callback is optional.
#ifndef MCCC_CONTAINERS_FIXED_FUNCTION_HPP_
#define MCCC_CONTAINERS_FIXED_FUNCTION_HPP_

#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

#include "mccc/config.hpp"

#if !defined(__GNUC__) && !defined(__clang__)
#include <cstdlib>
#endif

namespace mccc {

namespace detail {

/// @brief Ends the program; used when an empty FixedFunction is called in a build without
/// assertions (the precondition was violated, continuing would run arbitrary code).
[[noreturn]] inline void FixedFunctionEmptyCallTrap() noexcept {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_trap();
#else
  std::abort();
#endif
}

/// Default inline storage in bytes: room for six pointers on a 64-bit target, and with the
/// table pointer the whole object is one 64-byte cache line there.
inline constexpr std::size_t kDefaultFixedFunctionCapacity = 48U;

template <typename T>
struct FixedFunctionAlwaysFalse : std::false_type {};

}  // namespace detail

/// @brief Primary template: only function types such as `void(int)` are valid signatures.
template <typename Signature, std::size_t Capacity = detail::kDefaultFixedFunctionCapacity>
class FixedFunction {
  static_assert(detail::FixedFunctionAlwaysFalse<Signature>::value,
                "mccc: FixedFunction needs a plain function type as its signature, e.g. "
                "FixedFunction<void(int)> (no noexcept, cv or ref qualifier)");
};

/// @brief A callable with signature `R(Args...)`, stored inline in `Capacity` bytes.
///
/// Accepts function pointers, member pointers, lambdas (with captures, mutable, move-only) and
/// function objects whose size is at most Capacity, whose alignment is at most
/// alignof(std::max_align_t), and whose move constructor and destructor are noexcept.
///
/// Thread-safety: not thread-safe, except that concurrent calls of operator() are as safe as
/// concurrent calls of the stored callable itself (it is invoked as a non-const lvalue, like
/// std::function does, so a mutable lambda is NOT safe to call concurrently).
template <typename R, typename... Args, std::size_t Capacity>
class FixedFunction<R(Args...), Capacity> {
  static_assert(Capacity >= sizeof(R(*)(Args...)),
                "mccc: FixedFunction Capacity must be at least the size of a function pointer");

  // One table per stored callable type; the object holds a pointer to it (no vtable, no RTTI).
  struct Ops {
    R (*invoke)(void* storage, Args&&... args);
    // Move-constructs the callable at `dst` from the one at `src`, then destroys the source.
    void (*relocate)(void* dst, void* src) noexcept;
    void (*destroy)(void* storage) noexcept;
  };

  template <typename F>
  struct OpsFor {
    static F& Get(void* storage) noexcept { return *std::launder(static_cast<F*>(storage)); }

    static R Invoke(void* storage, Args&&... args) {
      if constexpr (std::is_void<R>::value) {
        // The result of a non-void callable is deliberately discarded, like std::function.
        static_cast<void>(std::invoke(Get(storage), std::forward<Args>(args)...));
      } else {
        return std::invoke(Get(storage), std::forward<Args>(args)...);
      }
    }

    // Move-construct at `dst`, then end the moved-from object's lifetime at `src`.
    static void Relocate(void* dst, void* src) noexcept {
      ::new (dst) F(std::move(Get(src)));
      Destroy(src);
    }

    static void Destroy(void* storage) noexcept { Get(storage).~F(); }

    static constexpr Ops kTable{&Invoke, &Relocate, &Destroy};
  };

  struct EmptyOps {
    static R Invoke(void* /*storage*/, Args&&... /*args*/) {
      MCCC_ASSERT(false, "mccc: called an empty FixedFunction (precondition: it is non-empty)");
      detail::FixedFunctionEmptyCallTrap();
    }
    static void Relocate(void* /*dst*/, void* /*src*/) noexcept {}
    static void Destroy(void* /*storage*/) noexcept {}

    static constexpr Ops kTable{&Invoke, &Relocate, &Destroy};
  };

  // Callables this wrapper accepts in its converting constructor (checked by SFINAE so that
  // overload resolution between different signatures works); size and alignment are checked
  // afterwards by static_assert so the user gets a message instead of "no matching function".
  // std::conjunction stops at the first false trait without instantiating the rest: for
  // D == FixedFunction, instantiating is_constructible<D, F&&> would recurse into the very
  // is_copy_constructible query being answered.
  template <typename F, typename D = std::decay_t<F>>
  using EnableIfCallable = std::enable_if_t<std::conjunction<
      std::negation<std::is_same<D, FixedFunction>>, std::negation<std::is_same<D, std::nullptr_t>>,
      std::is_constructible<D, F&&>, std::is_invocable_r<R, D&, Args...>>::value>;

 public:
  using result_type = R;

  /// Empty wrapper. Not thread-safe (construction).
  // User-provided (not `= default`) so that `const` objects are allowed with storage_ left raw.
  // cppcheck-suppress uninitMemberVar ; deviation D-01: storage_ is written by placement new
  FixedFunction() noexcept {}  // NOLINT(modernize-use-equals-default): deviation D-01

  /// Empty wrapper, so `FixedFunction<void()> f = nullptr;` reads like std::function.
  /// Not thread-safe (construction).
  // cppcheck-suppress [uninitMemberVar, noExplicitConstructor] ; deviations D-01, D-24
  FixedFunction(std::nullptr_t) noexcept {}  // NOLINT(hicpp-explicit-conversions): deviation D-24

  /// @brief Stores a decayed copy (or move) of `callable`.
  ///
  /// Implicit, like std::function, so lambdas can be passed where a FixedFunction is expected.
  /// A null function or member pointer gives an empty wrapper. Compile error (static_assert)
  /// when the callable is too large or over-aligned for the storage, or when its move
  /// constructor or destructor may throw. Not thread-safe (construction).
  template <typename F, typename = EnableIfCallable<F>>
  // cppcheck-suppress noExplicitConstructor ; deviation D-24: implicit, like std::function
  FixedFunction(F&& callable) noexcept(  // NOLINT(hicpp-explicit-conversions): deviation D-24
      std::is_nothrow_constructible<std::decay_t<F>, F&&>::value) {
    using D = std::decay_t<F>;
    static_assert(sizeof(D) <= Capacity,
                  "mccc: callable does not fit in FixedFunction storage; raise Capacity or "
                  "capture less (e.g. capture a pointer or reference instead of a large object)");
    static_assert(alignof(D) <= alignof(std::max_align_t),
                  "mccc: callable is over-aligned for FixedFunction storage (alignment above "
                  "alignof(std::max_align_t)); capture less, e.g. a pointer to the aligned data");
    static_assert(std::is_nothrow_move_constructible<D>::value,
                  "mccc: FixedFunction requires a callable with a noexcept move constructor; "
                  "mark the move constructor noexcept, or capture less (a lambda that captures a "
                  "const object by copy moves it by copying: capture a non-const copy, "
                  "e.g. [s = std::string(s)], or a reference/pointer)");
    static_assert(std::is_nothrow_destructible<D>::value,
                  "mccc: FixedFunction requires a callable with a noexcept destructor");
    // Tested on the undecayed type: a function reference decays to a pointer but is never null.
    using Argument = std::remove_cv_t<std::remove_reference_t<F>>;
    if constexpr (std::is_pointer<Argument>::value || std::is_member_pointer<Argument>::value) {
      if (callable == nullptr) {
        return;
      }
    }
    ::new (static_cast<void*>(storage_)) D(std::forward<F>(callable));
    ops_ = &OpsFor<D>::kTable;
  }

  // The special members and operator() hand the storage to the callable's Ops functions as a
  // pointer to its first byte.
  // NOLINTBEGIN(cppcoreguidelines-pro-bounds-array-to-pointer-decay): deviation D-03

  /// @brief Takes over `other`'s callable (moved into this storage); `other` becomes empty.
  /// Not thread-safe.
  FixedFunction(FixedFunction&& other) noexcept : ops_(other.ops_) {
    ops_->relocate(storage_, other.storage_);
    other.ops_ = &EmptyOps::kTable;
  }

  /// Not copyable: see the file comment (copyability of the stored callable is unknown).
  FixedFunction(const FixedFunction&) = delete;
  /// Not copyable: see the file comment.
  FixedFunction& operator=(const FixedFunction&) = delete;

  /// @brief Destroys the current callable, then takes over `other`'s; `other` becomes empty.
  /// Self-assignment is a no-op. Not thread-safe.
  FixedFunction& operator=(FixedFunction&& other) & noexcept {
    if (this != &other) {
      ops_->destroy(storage_);
      ops_ = other.ops_;
      ops_->relocate(storage_, other.storage_);
      other.ops_ = &EmptyOps::kTable;
    }
    return *this;
  }

  /// @brief Replaces the callable. The new one is fully constructed before the old one is
  /// destroyed, so `callable` may refer to state owned by the old one. Not thread-safe.
  template <typename F, typename = EnableIfCallable<F>>
  FixedFunction& operator=(F&& callable) noexcept(
      std::is_nothrow_constructible<std::decay_t<F>, F&&>::value) {
    FixedFunction replacement(std::forward<F>(callable));
    *this = std::move(replacement);
    return *this;
  }

  /// Destroys the callable and leaves the wrapper empty. Not thread-safe.
  FixedFunction& operator=(std::nullptr_t) noexcept {
    ops_->destroy(storage_);
    ops_ = &EmptyOps::kTable;
    return *this;
  }

  /// Destroys the stored callable, if any. Not thread-safe.
  ~FixedFunction() { ops_->destroy(storage_); }

  /// True when a callable is stored. Thread-safe with other const calls.
  explicit operator bool() const noexcept { return ops_ != &EmptyOps::kTable; }

  /// @brief Calls the stored callable with `args` (one indirect call).
  ///
  /// Precondition: `static_cast<bool>(*this)`. Violations assert in debug builds and trap
  /// otherwise. Exceptions thrown by the callable propagate. Thread-safety: see the class.
  R operator()(Args... args) const { return ops_->invoke(storage_, std::forward<Args>(args)...); }

  // NOLINTEND(cppcoreguidelines-pro-bounds-array-to-pointer-decay)

  /// Bytes of inline storage (the Capacity template argument). Thread-safe.
  static constexpr std::size_t capacity() noexcept { return Capacity; }

 private:
  // mutable: operator() is const (as for std::function) but the callable is invoked as a
  // non-const lvalue; the callable object lives in this storage and is never itself const.
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-03
  alignas(std::max_align_t) mutable unsigned char storage_[Capacity];
  const Ops* ops_ = &EmptyOps::kTable;
};

}  // namespace mccc

#endif  // MCCC_CONTAINERS_FIXED_FUNCTION_HPP_
