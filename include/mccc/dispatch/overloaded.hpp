// SPDX-License-Identifier: MIT
/// @file overloaded.hpp
/// @brief make_overloaded(fs...): one function object whose operator() is the overload set of
/// all the given lambdas, for std::visit and for the bus's ProcessBatchWith.
///
/// Why: visiting a message variant with one lambda per alternative is the clearest way to write
/// a handler, and it keeps dispatch a compile-time overload resolution (no table, no heap).
#ifndef MCCC_DISPATCH_OVERLOADED_HPP_
#define MCCC_DISPATCH_OVERLOADED_HPP_

#include <type_traits>
#include <utility>

namespace mccc {

/// @brief Inherits every `Fs::operator()`, so a call picks the best match by ordinary overload
/// resolution. An aggregate: `Overloaded<A, B>{a, b}` and class template argument deduction
/// (`Overloaded{a, b}`) both work.
///
/// Thread-safety: as safe as the function objects it inherits (lambdas without `mutable` have a
/// const operator() and can be called concurrently).
template <typename... Fs>
struct Overloaded : Fs... {
  static_assert(sizeof...(Fs) > 0U, "mccc: Overloaded needs at least one function object");
  static_assert((std::is_class<Fs>::value && ...),
                "mccc: Overloaded can only combine lambdas or function objects; wrap a plain "
                "function (pointer) in a lambda");
  static_assert(
      (!std::is_final<Fs>::value && ...),
      "mccc: Overloaded cannot inherit from a final function object; wrap it in a lambda");

  using Fs::operator()...;
};

/// Deduction guide: `Overloaded{lambda1, lambda2}` stores copies of the lambdas.
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

/// @brief Combines `fs` into one overloaded function object (each is copied or moved in).
///
/// @code
/// std::visit(mccc::make_overloaded([](const Imu& m) { ... }, [](const Gps& m) { ... }), v);
/// @endcode
/// Thread-safe (builds a new object; reads the arguments only).
template <typename... Fs>
constexpr Overloaded<std::decay_t<Fs>...> make_overloaded(Fs&&... fs) noexcept(
    (std::is_nothrow_constructible<std::decay_t<Fs>, Fs&&>::value && ...)) {
  return Overloaded<std::decay_t<Fs>...>{std::forward<Fs>(fs)...};
}

}  // namespace mccc

#endif  // MCCC_DISPATCH_OVERLOADED_HPP_
