// SPDX-License-Identifier: MIT
/// @file visit.hpp
/// @brief Compile-time dispatch of one envelope to a visitor (ProcessBatchWith) and the adapters
/// that turn the accepted subscriber signatures into the table's one callable signature.
///
/// A handler for alternative T may take `(const T&)` or `(const T&, const MessageHeader&)`, and
/// may return void or bool (false = processing error); for an alternative Loaned<T> it takes T
/// the same way. The visitor dispatch is a chain of index
/// comparisons the compiler turns into a jump table or direct calls: no function pointer, no
/// table, so handlers inline.
#ifndef MCCC_DISPATCH_VISIT_HPP_
#define MCCC_DISPATCH_VISIT_HPP_

#include <cstddef>
#include <type_traits>
#include <utility>
#include <variant>

#include "mccc/config.hpp"
#include "mccc/detail/verdict.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief True when `Handler` can take an alternative T in one of the accepted forms.
/// For a Loaned<U> alternative the handler takes U: subscribers see the message in the block.
template <typename Handler, typename T>
inline constexpr bool kHandlesType =
    std::is_invocable_v<Handler&, const SubscribedType<T>&, const MessageHeader&> ||
    std::is_invocable_v<Handler&, const SubscribedType<T>&>;

/// @brief Calls `handler` with the message (and header if it wants one). Returns false only if
/// the handler returned false.
/// A Loaned<U> alternative is handed over as the `const U&` in its block.
template <typename Handler, typename T>
MCCC_ALWAYS_INLINE bool InvokeHandler(Handler& handler, const T& alternative,
                                      const MessageHeader& header) {
  const SubscribedType<T>& message = MessageOf(alternative);
  if constexpr (std::is_invocable_v<Handler&, const SubscribedType<T>&, const MessageHeader&>) {
    return InvokeForVerdict(handler, message, header);
  } else {
    static_cast<void>(header);
    return InvokeForVerdict(handler, message);
  }
}

/// @brief Visits alternative `index` of `payload` with `visitor`. Index checks unroll at compile
/// time. Returns the handler's verdict (true for a valueless variant: nothing to call).
template <std::size_t I = 0U, typename Variant, typename Visitor>
MCCC_ALWAYS_INLINE bool VisitAlternative(std::size_t index, const Variant& payload,
                                         const MessageHeader& header, Visitor& visitor) {
  if constexpr (I < std::variant_size_v<Variant>) {
    if (index == I) {
      return InvokeHandler(visitor, *std::get_if<I>(&payload), header);
    }
    return VisitAlternative<I + 1U>(index, payload, header, visitor);
  } else {
    return true;
  }
}

template <typename Visitor, typename Variant>
struct VisitorCoversAll;
/// @brief True when the visitor has a handler for every alternative.
template <typename Visitor, typename... Ts>
struct VisitorCoversAll<Visitor, std::variant<Ts...>>
    : std::bool_constant<(kHandlesType<Visitor, Ts> && ...)> {};

/// @brief Adapts a subscriber callable for alternative T (index I) to `bool(const Envelope&)`.
/// The table only calls it for envelopes holding T, so the get_if never fails.
template <std::size_t I, typename Envelope, typename F>
struct TypedCallbackAdapter {
  F callable;
  bool operator()(const Envelope& envelope) {
    return InvokeHandler(callable, *std::get_if<I>(&envelope.payload), envelope.header);
  }
};

/// @brief Adapts a callable taking the whole envelope (returning void or bool).
template <typename Envelope, typename F>
struct EnvelopeCallbackAdapter {
  F callable;
  bool operator()(const Envelope& envelope) { return InvokeForVerdict(callable, envelope); }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DISPATCH_VISIT_HPP_
