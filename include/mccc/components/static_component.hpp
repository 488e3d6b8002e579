// SPDX-License-Identifier: MIT
/// @file static_component.hpp
/// @brief `mccc::StaticComponent<Derived, Payload>`: a message handler resolved entirely at
/// compile time (CRTP), for the bus's ProcessBatchWith.
///
/// ## Use
/// @code
///   class Controller : public mccc::StaticComponent<Controller, Payload> {
///    public:
///     void Handle(const Temperature& t) { ... }
///     void Handle(const Command& c, const mccc::MessageHeader& h) { ... }
///     // every other alternative of Payload is ignored
///   };
///   Controller controller;                              // static, stack or member: no heap
///   bus.ProcessBatchWith(controller.MakeVisitor());     // on the consumer thread
/// @endcode
///
/// ## Why
/// No virtual function, no std::shared_ptr, no callback table: the visitor's call operator is a
/// template that either calls the matching Handle (a direct call the compiler can inline; see
/// tests/codegen/) or, for a type without a handler, compiles to nothing. The price is that the
/// component cannot be subscribed or unsubscribed at run time, and its lifetime is the caller's
/// business (it must outlive the ProcessBatchWith call that uses its visitor).
///
/// ## Which Handle counts (HasHandler)
/// A public non-static member function named Handle of Derived (or inherited by it) whose
/// parameters are exactly `(const T&)` or `(T)`, optionally followed by `const MessageHeader&`,
/// const-qualified or not, noexcept or not, returning void or bool (false = processing error).
/// A member template Handle counts for every T it can be instantiated with that way.
/// The match is exact on purpose: an overload that would only be reached through a conversion
/// (int -> double, Derived -> Base message, a converting constructor) does not count, so a
/// message type never silently lands in another type's handler. A private Handle is not seen
/// (HasHandler is false); MakeVisitor() fails to compile when Derived handles no alternative
/// at all, which catches that mistake and a misspelt name.
#ifndef MCCC_COMPONENTS_STATIC_COMPONENT_HPP_
#define MCCC_COMPONENTS_STATIC_COMPONENT_HPP_

#include <cstddef>
#include <type_traits>
#include <variant>

#include "mccc/config.hpp"
#include "mccc/detail/variant_traits.hpp"
#include "mccc/fwd.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// @brief True when `&Derived::Handle` selects an overload of exactly the member-pointer type
/// `MemberPointer` (overload resolution on the address picks the exact signature, or deduces a
/// member template's arguments from it; nothing is converted).
template <typename Derived, typename MemberPointer, typename = void>
struct SelectsHandle : std::false_type {};
template <typename Derived, typename MemberPointer>
struct SelectsHandle<Derived, MemberPointer,
                     std::void_t<decltype(static_cast<MemberPointer>(&Derived::Handle))>>
    : std::true_type {};

/// @brief Derived has a Handle taking exactly `Args...`, returning void or bool, const or not.
template <typename Derived, typename... Args>
inline constexpr bool kHasHandleTaking =
    SelectsHandle<Derived, void (Derived::*)(Args...)>::value ||
    SelectsHandle<Derived, void (Derived::*)(Args...) const>::value ||
    SelectsHandle<Derived, bool (Derived::*)(Args...)>::value ||
    SelectsHandle<Derived, bool (Derived::*)(Args...) const>::value;

/// @brief Derived has `Handle(const T&)` or `Handle(T)`.
template <typename Derived, typename T>
inline constexpr bool kHasPlainHandle =
    kHasHandleTaking<Derived, const T&> || kHasHandleTaking<Derived, T>;

/// @brief Derived has `Handle(const T&, const MessageHeader&)` or its by-value form.
template <typename Derived, typename T>
inline constexpr bool kHasHeaderHandle =
    kHasHandleTaking<Derived, const T&, const MessageHeader&> ||
    kHasHandleTaking<Derived, T, const MessageHeader&>;

template <typename Derived, typename Variant>
struct HandledAlternativeCount;
/// @brief How many alternatives of the variant Derived handles.
template <typename Derived, typename... Ts>
struct HandledAlternativeCount<Derived, std::variant<Ts...>>
    : std::integral_constant<std::size_t, (0U + ... +
                                           ((kHasPlainHandle<Derived, SubscribedType<Ts>> ||
                                             kHasHeaderHandle<Derived, SubscribedType<Ts>>)
                                                ? std::size_t{1U}
                                                : std::size_t{0U}))> {};

}  // namespace detail

/// @brief `HasHandler<Derived, T>::value`: Derived has a Handle for message type T, in one of
/// the forms listed in the file comment ("Which Handle counts"). Compile time only.
template <typename Derived, typename T>
struct HasHandler : std::bool_constant<detail::kHasPlainHandle<Derived, T> ||
                                       detail::kHasHeaderHandle<Derived, T>> {};

/// @brief `HasHandler<Derived, T>::value` as a variable.
template <typename Derived, typename T>
inline constexpr bool kHasHandler = HasHandler<Derived, T>::value;

namespace detail {
/// @brief HasHandler under the name the original MCCC API gives it (docs/migrating.md).
template <typename Derived, typename T>
using HasHandler = ::mccc::HasHandler<Derived, T>;
}  // namespace detail

/// @brief CRTP base of a compile-time message handler; see the file comment.
/// @tparam Derived        The class deriving from this one, with public Handle overloads.
/// @tparam PayloadVariant The bus payload, `std::variant<Msg1, Msg2, ...>`.
///
/// Thread-safety: no state of its own. The visitor calls Derived's handlers on the thread that
/// runs ProcessBatchWith, so Derived's data needs whatever protection its other users require.
template <typename Derived, typename PayloadVariant>
class StaticComponent {
  static_assert(detail::IsStdVariant<PayloadVariant>::value,
                "mccc: StaticComponent<Derived, Payload>: Payload must be the bus payload, a "
                "std::variant<...> of message types");

 public:
  /// The payload variant.
  using Payload = PayloadVariant;
  /// The bus whose ProcessBatchWith takes this component's visitor: the default-traits bus of the
  /// payload (the visitor works as well with a bus of the same payload and other traits).
  using BusType = AsyncBus<PayloadVariant, DefaultBusTraits>;
  /// What a slot of that bus holds.
  using EnvelopeType = MessageEnvelope<PayloadVariant>;

  /// @brief The function object ProcessBatchWith calls for each message: Handle for the
  /// alternatives Derived handles, nothing for the others. Holds one pointer; cheap to copy.
  class Visitor {
   public:
    /// @brief A visitor delivering to `component`, which must outlive its use. Thread-safe.
    explicit Visitor(Derived& component) noexcept : component_(&component) {}

    /// @brief Delivers `message` to the matching Handle, with `header` if that Handle takes it.
    /// Returns the handler's verdict (true for void handlers and for ignored types). Runs on the
    /// calling (consumer) thread; as thread-safe as Derived's handler.
    template <typename T>
    MCCC_ALWAYS_INLINE bool operator()(const T& message, const MessageHeader& header) const {
      // A Loaned<T> alternative reaches the visitor as the T in its block.
      static_assert(detail::kIsAlternative<T, PayloadVariant> ||
                        detail::kIsAlternative<Loaned<T>, PayloadVariant>,
                    "mccc: StaticComponent visitor: the message type is not an alternative of the "
                    "component's Payload; use the visitor with a bus of the same payload variant");
      static_assert(!(detail::kHasPlainHandle<Derived, T> && detail::kHasHeaderHandle<Derived, T>),
                    "mccc: StaticComponent: Derived has both Handle(const T&) and Handle(const T&, "
                    "const MessageHeader&) for the same message type T; keep one of them");
      if constexpr (detail::kHasHeaderHandle<Derived, T>) {
        return Verdict(*component_, message, header);
      } else if constexpr (detail::kHasPlainHandle<Derived, T>) {
        return Verdict(*component_, message);
      } else {
        static_cast<void>(message);  // no handler: ignored, decided at compile time
        static_cast<void>(header);
        return true;
      }
    }

   private:
    template <typename... Args>
    MCCC_ALWAYS_INLINE static bool Verdict(Derived& component, const Args&... args) {
      if constexpr (std::is_same_v<decltype(component.Handle(args...)), bool>) {
        return component.Handle(args...);
      } else {
        component.Handle(args...);
        return true;
      }
    }

    Derived* component_;
  };

  /// @brief Number of Payload alternatives Derived has a Handle for.
  static constexpr std::size_t kHandledTypes =
      detail::HandledAlternativeCount<Derived, PayloadVariant>::value;

  /// @brief The visitor to pass to `bus.ProcessBatchWith(...)`. Thread-safe (it only takes the
  /// address of the component).
  // cppcheck-suppress functionConst ; false positive: the visitor holds a non-const Derived&
  Visitor MakeVisitor() noexcept {
    static_assert(std::is_base_of_v<StaticComponent, Derived>,
                  "mccc: StaticComponent<Derived, Payload>: Derived must be the class that "
                  "derives from this StaticComponent (CRTP)");
    static_assert(kHandledTypes > 0U,
                  "mccc: StaticComponent: Derived has no Handle for any payload alternative; "
                  "declare public member functions void Handle(const T&) or void Handle(const T&, "
                  "const mccc::MessageHeader&) for the message types T it processes");
    return Visitor(static_cast<Derived&>(*this));
  }

 protected:
  /// Only Derived constructs and destroys it (no virtual destructor: never deleted through a
  /// pointer to this base).
  StaticComponent() noexcept = default;
  ~StaticComponent() = default;
  StaticComponent(const StaticComponent&) noexcept = default;
  StaticComponent& operator=(const StaticComponent&) noexcept = default;
  StaticComponent(StaticComponent&&) noexcept = default;
  StaticComponent& operator=(StaticComponent&&) noexcept = default;
};

}  // namespace mccc

#endif  // MCCC_COMPONENTS_STATIC_COMPONENT_HPP_
