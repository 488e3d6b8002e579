// SPDX-License-Identifier: MIT
/// @file scoped_subscription.hpp
/// @brief `mccc::ScopedSubscription`: owns one subscription and unsubscribes it when destroyed,
/// like sigslot's `scoped_connection` or a handle of eventpp.
///
/// @code
///   class Display {
///    public:
///     explicit Display(Bus& bus)
///         : on_temperature_(bus.SubscribeScoped<Temperature>([this](const Temperature& t) {
///             Show(t);
///           })) {}
///     // The callback holds `this`: a Display stays where it was built.
///     Display(const Display&) = delete;
///     Display& operator=(const Display&) = delete;
///     // No destructor needed: the subscription ends with the object.
///    private:
///     void Show(const Temperature& t);
///     mccc::ScopedSubscription on_temperature_;
///   };
/// @endcode
///
/// Made by AsyncBus::SubscribeScoped<T>(callback), or from a handle Subscribe returned:
/// `mccc::ScopedSubscription(bus, handle)`. Any object with a
/// `bool Unsubscribe(const SubscriptionHandle&) noexcept` member works as the bus.
///
/// ## Ownership
/// Move-only. A moved-from object is empty; move-assigning over an object that holds a
/// subscription unsubscribes that one first; self-move-assignment changes nothing. Release()
/// hands the plain handle back and leaves the subscription in place; Reset() ends it now.
/// IsActive() says whether the object holds a handle, not whether the bus still knows it: after
/// someone else unsubscribed the same handle, Reset() (and the destructor) merely get false back.
///
/// ## Lifetime rule
/// The bus must outlive every ScopedSubscription made from it: the object keeps a pointer to the
/// bus and calls its Unsubscribe when destroyed. Declare the bus first (members and locals are
/// destroyed in reverse order), or Release() the subscriptions before the bus goes away.
///
/// Destroying (or resetting, or move-assigning over) a ScopedSubscription inside a callback is
/// allowed, its own callback included, because AsyncBus::Unsubscribe is allowed there: the
/// callback is not called again, not even for the message being dispatched, and its callable is
/// destroyed only once the consumer's batch has left it. Destroyed on another thread, the
/// callback may still be inside the one invocation the consumer had already started
/// (AsyncBus::Unsubscribe says exactly when): what the callback uses must outlive that.
///
/// ## Thread-safety
/// One ScopedSubscription is used by one thread at a time (not thread-safe against itself, like
/// any object); different ones may be used and destroyed on any threads. What it calls,
/// AsyncBus::Unsubscribe, is thread-safe.
///
/// No heap, no exceptions, no RTTI: the bus type is erased into a pointer and a function
/// pointer, so the type is the same for every bus and containers of them are easy.
#ifndef MCCC_DISPATCH_SCOPED_SUBSCRIPTION_HPP_
#define MCCC_DISPATCH_SCOPED_SUBSCRIPTION_HPP_

#include <memory>
#include <type_traits>
#include <utility>

#include "mccc/message.hpp"

namespace mccc {
namespace detail {

/// Whether `Owner` (non-const) has `Unsubscribe(const SubscriptionHandle&)` returning bool.
template <typename Owner, typename = void>
struct HasUnsubscribe : std::false_type {};
template <typename Owner>
struct HasUnsubscribe<Owner, std::void_t<decltype(std::declval<Owner&>().Unsubscribe(
                                 std::declval<const SubscriptionHandle&>()))>>
    : std::is_convertible<decltype(std::declval<Owner&>().Unsubscribe(
                              std::declval<const SubscriptionHandle&>())),
                          bool> {};

}  // namespace detail

/// @brief Owns one subscription of a bus and unsubscribes it when destroyed (file comment:
/// ownership, the lifetime rule, thread-safety).
class [[nodiscard]] ScopedSubscription {
 public:
  /// @brief An empty object (no subscription).
  constexpr ScopedSubscription() noexcept = default;

  /// @brief Takes over `handle`, a subscription of `bus` (e.g. from `bus.Subscribe<T>(f)`): it
  /// ends when this object is destroyed or reset. An invalid handle gives an empty object.
  /// `bus` must outlive this object.
  template <typename Bus>
  ScopedSubscription(Bus& bus, const SubscriptionHandle& handle) noexcept {
    static_assert(detail::HasUnsubscribe<Bus>::value,
                  "mccc: ScopedSubscription(bus, handle): bus needs a member bool "
                  "Unsubscribe(const SubscriptionHandle&) callable on it (an AsyncBus, not "
                  "const)");
    static_assert(
        noexcept(std::declval<Bus&>().Unsubscribe(std::declval<const SubscriptionHandle&>())),
        "mccc: ScopedSubscription(bus, handle): bus.Unsubscribe must be noexcept (it "
        "runs in a destructor)");
    if (handle.IsValid()) {
      owner_ = static_cast<void*>(std::addressof(bus));
      unsubscribe_ = &UnsubscribeFrom<Bus>;
      handle_ = handle;
    }
  }

  /// @brief Unsubscribes, if it still holds a subscription.
  ~ScopedSubscription() { static_cast<void>(Reset()); }

  ScopedSubscription(const ScopedSubscription&) = delete;
  ScopedSubscription& operator=(const ScopedSubscription&) = delete;

  /// @brief Takes `other`'s subscription; `other` is left empty.
  ScopedSubscription(ScopedSubscription&& other) noexcept
      : owner_(other.owner_), unsubscribe_(other.unsubscribe_), handle_(other.handle_) {
    other.Clear();
  }

  /// @brief Unsubscribes what this object held, then takes `other`'s subscription; `other` is
  /// left empty. Assigning an object to itself changes nothing.
  ScopedSubscription& operator=(ScopedSubscription&& other) noexcept {
    if (this != &other) {
      static_cast<void>(Reset());
      owner_ = other.owner_;
      unsubscribe_ = other.unsubscribe_;
      handle_ = other.handle_;
      other.Clear();
    }
    return *this;
  }

  /// @brief Unsubscribes now and leaves the object empty. Returns what the bus's Unsubscribe
  /// returned: true if this ended the subscription, false if the object was empty or the bus no
  /// longer had it (someone unsubscribed the handle already).
  bool Reset() noexcept {
    if (!IsActive()) {
      return false;
    }
    // Empty first: whatever the bus does inside Unsubscribe (e.g. destroy a callable whose
    // captures reach this object) then finds nothing left to unsubscribe.
    void* const owner = owner_;
    const UnsubscribeFn unsubscribe = unsubscribe_;
    const SubscriptionHandle handle = handle_;
    Clear();
    return unsubscribe(owner, handle);
  }

  /// @brief Stops managing the subscription without ending it and returns its handle (for
  /// AsyncBus::Unsubscribe later, or to keep it for the bus's lifetime). The object is left
  /// empty. An empty object returns kInvalidSubscription.
  SubscriptionHandle Release() noexcept {
    const SubscriptionHandle handle = handle_;
    Clear();
    return handle;
  }

  /// @brief True while the object holds a subscription (not yet reset, released or moved from).
  bool IsActive() const noexcept { return unsubscribe_ != nullptr; }

  /// @brief IsActive().
  explicit operator bool() const noexcept { return IsActive(); }

  /// @brief The handle held (still owned by this object), kInvalidSubscription when empty.
  SubscriptionHandle Handle() const noexcept { return handle_; }

 private:
  using UnsubscribeFn = bool (*)(void*, const SubscriptionHandle&) noexcept;

  template <typename Bus>
  static bool UnsubscribeFrom(void* owner, const SubscriptionHandle& handle) noexcept {
    // static_cast from void*: restores the exact type the constructor erased (deviation D-02).
    return static_cast<Bus*>(owner)->Unsubscribe(handle);
  }

  void Clear() noexcept {
    owner_ = nullptr;
    unsubscribe_ = nullptr;
    handle_ = kInvalidSubscription;
  }

  void* owner_ = nullptr;
  UnsubscribeFn unsubscribe_ = nullptr;
  SubscriptionHandle handle_ = kInvalidSubscription;
};

}  // namespace mccc

#endif  // MCCC_DISPATCH_SCOPED_SUBSCRIPTION_HPP_
