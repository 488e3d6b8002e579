// SPDX-License-Identifier: MIT
/// @file component.hpp
/// @brief `mccc::Component`: a bus subscriber owned by std::shared_ptr that owns its subscriptions
/// and whose callbacks can never run on a destroyed (or half-destroyed) object.
///
/// ## Use
/// @code
///   class Logger : public mccc::Component<Payload> {
///    public:
///     explicit Logger(Bus& bus) : Component(bus) {}  // or Logger() = default: the singleton bus
///    protected:
///     void OnInitialize() override {  // shared_from_this() works here, not in a constructor
///       SubscribeSimple<Temperature>([this](const Temperature& t, const mccc::MessageHeader&) {
///         last_ = t.celsius;  // capturing `this` is safe, see "Lifetime" below
///       });
///       SubscribeSafe<Alarm>([](std::shared_ptr<Logger> self, const Alarm& a) {
///         self->Raise(a);     // the callback may keep `self` beyond the call
///       });
///     }
///   };
///   auto logger = std::make_shared<Logger>(bus);  // or std::allocate_shared with a pool
///   logger->InitializeComponent();                // runs OnInitialize() once
///   ...
///   logger.reset();  // the destructor unsubscribes everything (RAII)
/// @endcode
///
/// ## Lifetime: why a callback never runs on freed memory
/// Every callback a component registers holds the component only through a std::weak_ptr, and
/// the consumer locks it for the duration of each call (it "pins" the component):
/// - a call in flight holds a strong reference, so destruction cannot begin before it returns;
/// - once the last strong reference is gone, lock() fails and the message is skipped for this
///   component (not counted as an error), so no call starts during or after destruction.
/// The derived class's destructor and members are therefore covered as well as the base. Both
/// SubscribeSafe and SubscribeSimple work this way; they differ only in what the callback is
/// given (SubscribeSafe passes the pinned std::shared_ptr, e.g. to hand it to another thread).
/// Waiting in ~Component for an in-flight call instead would be too late: ~Derived has already
/// destroyed the derived members by then, and new calls could start while it ran.
///
/// Consequences to know:
/// - Cost: one atomic increment and one atomic decrement per call.
/// - If the last other owner lets go while a call is in flight, the component is destroyed on
///   the consumer thread, inside the bus dispatch, when the call returns. Keep destructors short,
///   and never make a destructor wait for the consumer thread.
/// - The bus must outlive every component subscribed to it.
/// - Subscribe only through SubscribeSafe / SubscribeSimple; a callback given to the bus
///   directly is not pinned and not removed by the destructor.
/// - Never capture a std::shared_ptr to the component in its own callbacks (SubscribeSafe
///   passes one instead): that is an ownership cycle, so the component would only die when the
///   bus destroys the callable, i.e. from inside the bus's subscription lock, and its destructor
///   could not unsubscribe from there.
/// - A component that is not owned by a std::shared_ptr (or not yet: inside its constructor)
///   cannot be pinned: every subscription is refused (invalid handle) and InitializeComponent
///   returns false. Use mccc::StaticComponent, or the bus directly, for statically allocated
///   handlers.
///
/// ## Capacity
/// A component owns at most kMaxSubscriptions subscriptions:
/// `Traits::kMaxSubscriptionsPerComponent` when the bus traits declare it, else
/// MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT. One more is refused with an invalid handle (and counted in
/// RefusedSubscriptionCount()); so is a subscription the bus refuses (kMaxCallbacksPerType
/// reached).
#ifndef MCCC_COMPONENTS_COMPONENT_HPP_
#define MCCC_COMPONENTS_COMPONENT_HPP_

#include <atomic>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "mccc/bus/async_bus.hpp"
#include "mccc/config.hpp"
#include "mccc/containers/fixed_vector.hpp"
#include "mccc/detail/atomic_ops.hpp"
#include "mccc/detail/control_lock.hpp"
#include "mccc/detail/variant_traits.hpp"
#include "mccc/detail/verdict.hpp"
#include "mccc/dispatch/visit.hpp"
#include "mccc/message.hpp"
#include "mccc/traits.hpp"

namespace mccc {
namespace detail {

/// @brief Subscriptions one Component may own: `Traits::kMaxSubscriptionsPerComponent` if the
/// traits declare it, else the MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT default.
template <typename Traits, typename = void>
struct ComponentSubscriptionLimit
    : std::integral_constant<std::size_t, MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT> {};
template <typename Traits>
struct ComponentSubscriptionLimit<Traits,
                                  std::void_t<decltype(Traits::kMaxSubscriptionsPerComponent)>>
    : std::integral_constant<std::size_t,
                             static_cast<std::size_t>(Traits::kMaxSubscriptionsPerComponent)> {};

/// @brief The first parameter type of a (non-overloaded, non-template) call operator or function
/// pointer; void when it cannot be named (generic lambda, overload set, no parameter).
template <typename MemberFunction>
struct ComponentFirstParamOfMember {
  using type = void;
};
template <typename R, typename C, typename A0, typename... As>
struct ComponentFirstParamOfMember<R (C::*)(A0, As...)> {
  using type = A0;
};
template <typename R, typename C, typename A0, typename... As>
struct ComponentFirstParamOfMember<R (C::*)(A0, As...) const> {
  using type = A0;
};
template <typename R, typename C, typename A0, typename... As>
struct ComponentFirstParamOfMember<R (C::*)(A0, As...) noexcept> {
  using type = A0;
};
template <typename R, typename C, typename A0, typename... As>
struct ComponentFirstParamOfMember<R (C::*)(A0, As...) const noexcept> {
  using type = A0;
};

template <typename F, typename = void>
struct ComponentFirstParam {
  using type = void;
};
template <typename F>
struct ComponentFirstParam<F, std::void_t<decltype(&F::operator())>>
    : ComponentFirstParamOfMember<decltype(&F::operator())> {};
template <typename R, typename A0, typename... As>
struct ComponentFirstParam<R (*)(A0, As...), void> {
  using type = A0;
};
template <typename R, typename A0, typename... As>
struct ComponentFirstParam<R (*)(A0, As...) noexcept, void> {
  using type = A0;
};

/// @brief `E` (without const) for `std::shared_ptr<E>`, void for anything else.
template <typename P>
struct ComponentSharedElement {
  using type = void;
};
template <typename E>
struct ComponentSharedElement<std::shared_ptr<E>> {
  using type = std::remove_const_t<E>;
};

/// @brief Which pointer a SubscribeSafe callback wants: `Base` (the Component) if it accepts
/// `std::shared_ptr<Base>`, else the derived class D its first parameter names as
/// `std::shared_ptr<D>`, else void (not a valid SubscribeSafe callback).
template <typename Base, typename F, typename T>
struct ComponentSafeSelf {
 private:
  template <typename Self>
  static constexpr bool kAccepts =
      std::is_invocable_v<F&, std::shared_ptr<Self>&, const T&, const MessageHeader&> ||
      std::is_invocable_v<F&, std::shared_ptr<Self>&, const T&>;
  using Named = typename ComponentSharedElement<
      std::remove_cv_t<std::remove_reference_t<typename ComponentFirstParam<F>::type>>>::type;
  static constexpr bool kTakesBase = kAccepts<Base>;
  static constexpr bool kTakesDerived =
      !std::is_void_v<Named> && std::is_base_of_v<Base, Named> && kAccepts<Named>;

 public:
  using type = std::conditional_t<kTakesBase, Base, std::conditional_t<kTakesDerived, Named, void>>;
};

/// @brief What SubscribeSafe stores in the bus: the component, held weakly, and the user's
/// callable. Each call pins the component (see the file comment) and hands the pin to `callable`.
template <typename Self, typename T, typename F>
struct ComponentSafeCallback {
  std::weak_ptr<Self> component;
  F callable;

  bool operator()(const T& message, const MessageHeader& header) {
    std::shared_ptr<Self> pinned = component.lock();
    if (!pinned) {
      return true;  // destroyed or being destroyed: skipped, which is not a processing error
    }
    if constexpr (std::is_invocable_v<F&, std::shared_ptr<Self>&, const T&, const MessageHeader&>) {
      return InvokeForVerdict(callable, pinned, message, header);
    } else {
      return InvokeForVerdict(callable, pinned, message);
    }
  }  // `pinned` is released last; if it was the last owner, the component is destroyed here.
};

/// @brief What SubscribeSimple stores in the bus: the same pin as ComponentSafeCallback, but the
/// callable only receives the message (it typically captures `this`, which the pin keeps alive).
template <typename Owner, typename T, typename F>
struct ComponentSimpleCallback {
  std::weak_ptr<Owner> component;
  F callable;

  bool operator()(const T& message, const MessageHeader& header) {
    const std::shared_ptr<Owner> pinned = component.lock();
    if (!pinned) {
      return true;  // destroyed or being destroyed: skipped, which is not a processing error
    }
    if constexpr (std::is_invocable_v<F&, const T&, const MessageHeader&>) {
      return InvokeForVerdict(callable, message, header);
    } else {
      return InvokeForVerdict(callable, message);
    }
  }
};

}  // namespace detail

/// @brief Base class of a bus subscriber held by std::shared_ptr. See the file comment for the
/// lifetime guarantee and an example.
/// @tparam PayloadVariant The bus payload, `std::variant<Msg1, Msg2, ...>`.
/// @tparam Traits         The bus traits; the component's bus is
///                        `AsyncBus<PayloadVariant, Traits>`.
///
/// Thread-safety: every member function is thread-safe unless its comment says otherwise
/// (subscriptions are guarded by a spin lock that the bus dispatch never takes).
template <typename PayloadVariant, typename Traits = DefaultBusTraits>
class Component : public std::enable_shared_from_this<Component<PayloadVariant, Traits>> {
  static_assert(detail::IsStdVariant<PayloadVariant>::value,
                "mccc: Component<Payload>: Payload must be the bus payload, a std::variant<...> of "
                "message types");

 public:
  /// The bus this component subscribes to.
  using Bus = AsyncBus<PayloadVariant, Traits>;
  /// The payload variant.
  using Payload = PayloadVariant;
  /// The bus, under the name the original MCCC API gives it (docs/migrating.md).
  using BusType = Bus;
  /// What a slot of the bus holds (the argument of an envelope callback).
  using EnvelopeType = MessageEnvelope<PayloadVariant>;

  /// Subscriptions one component can own (see the file comment, "Capacity").
  static constexpr std::size_t kMaxSubscriptions =
      detail::ComponentSubscriptionLimit<Traits>::value;
  static_assert(kMaxSubscriptions > 0U,
                "mccc: a Component needs room for at least one subscription; set "
                "MCCC_MAX_SUBSCRIPTIONS_PER_COMPONENT (or kMaxSubscriptionsPerComponent in the "
                "bus traits) to 1 or more");

  /// @brief A component on the process-wide bus `Bus::Instance()`. Not thread-safe
  /// (construction).
  Component() noexcept : Component(Bus::Instance()) {}

  /// @brief A component on `bus`, which must outlive it. Not thread-safe (construction).
  explicit Component(Bus& bus) noexcept : std::enable_shared_from_this<Component>(), bus_(bus) {}

  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;
  Component(Component&&) = delete;
  Component& operator=(Component&&) = delete;

  /// @brief Unsubscribes everything this component subscribed (RAII). No callback of this
  /// component is running or can start by then (see the file comment). Runs on the thread that
  /// released the last std::shared_ptr, which may be the consumer thread.
  virtual ~Component() { static_cast<void>(UnsubscribeAll()); }

  /// @brief Runs OnInitialize() exactly once, once the component is owned by a std::shared_ptr
  /// (so that subscriptions can hold it weakly; a constructor is too early).
  /// @return true when OnInitialize() ran now and every subscription attempted meanwhile
  /// succeeded; false when the component is not owned by a std::shared_ptr (nothing runs; a
  /// later call may succeed), when it was already initialized (nothing runs), or when a
  /// subscription was refused during OnInitialize() (the successful ones stay; UnsubscribeAll()
  /// or destroying the component removes them). Thread-safe: concurrent calls run the hook once.
  bool InitializeComponent() {
    if (this->weak_from_this().expired()) {
      return false;
    }
    // acquire (stronger than needed): only which caller wins matters; the hook's effects are
    // not published through the flag. The helper also serves cores without atomic exchange.
    if (detail::ExchangeAcquire<Traits::kSingleCore, typename Bus::CriticalSection>(initialized_,
                                                                                    true)) {
      return false;
    }
    const std::size_t refused_before = RefusedSubscriptionCount();
    OnInitialize();
    return RefusedSubscriptionCount() == refused_before;
  }

  /// @brief True once InitializeComponent() has run the hook (or is running it). Thread-safe.
  bool IsInitialized() const noexcept {
    // relaxed: a snapshot of a flag that only ever goes from false to true.
    return initialized_.load(std::memory_order_relaxed);
  }

  /// @brief Subscribes `callback` to messages of type T, holding the component only weakly: each
  /// call pins it, and once it is gone the message is skipped for it.
  ///
  /// The callback is called on the consumer thread as
  /// `callback(std::shared_ptr<C>& self, const T& message, const MessageHeader& header)` or
  /// without `header`; it returns void or bool (false counts as a processing error). C is this
  /// class (`Component`) or, when the callback's first parameter names it, the class D derived
  /// from Component that this object is (`[](std::shared_ptr<D> self, const T&) {...}`); the
  /// pointer is then converted with a static cast, so D must be this object's class or one of its
  /// bases (a debug build with RTTI asserts it).
  ///
  /// @return The bus handle; invalid (`!IsValid()`) when refused: the component is not owned by
  /// a std::shared_ptr, already owns kMaxSubscriptions subscriptions, or the bus has
  /// kMaxCallbacksPerType subscribers for T. Thread-safe, also from inside a callback.
  ///
  /// The callable is stored inline in the bus together with a std::weak_ptr (two pointers); a
  /// static_assert says when that exceeds the bus's kCallbackStorageBytes.
  template <typename T, typename F>
  SubscriptionHandle SubscribeSafe(F&& callback) noexcept {
    static_assert(detail::kIsAlternative<T, PayloadVariant>,
                  "mccc: SubscribeSafe<T>: T is not an alternative of the component's payload "
                  "variant; subscribe to one of the std::variant's types or add T to it");
    using Fn = std::decay_t<F>;
    using Self = typename detail::ComponentSafeSelf<Component, Fn, T>::type;
    static_assert(!std::is_void_v<Self>,
                  "mccc: SubscribeSafe<T>: the callback must be callable as f(std::shared_ptr<C> "
                  "self, const T&, const MessageHeader&) or f(std::shared_ptr<C> self, const T&), "
                  "where C is the Component or the class derived from it; use SubscribeSimple for "
                  "f(const T&, const MessageHeader&)");
    using Callback = detail::ComponentSafeCallback<Self, T, Fn>;
    static_assert(sizeof(StoredAs<T, Callback>) <= Traits::kCallbackStorageBytes,
                  "mccc: SubscribeSafe<T>: the callback plus the std::weak_ptr the component "
                  "stores with it (two pointers) is larger than the bus's callback storage; "
                  "capture less (e.g. only `this` or one pointer) or raise kCallbackStorageBytes "
                  "(MCCC_CALLBACK_STORAGE_BYTES) in the bus traits");
    std::shared_ptr<Component> owner = this->weak_from_this().lock();
    if (!owner) {
      return Refuse();
    }
    if constexpr (std::is_same_v<Self, Component>) {
      return Register<T>(Callback{std::weak_ptr<Self>(owner), std::forward<F>(callback)});
    } else {
#if defined(__cpp_rtti) || defined(__GXX_RTTI)
      MCCC_ASSERT(dynamic_cast<Self*>(owner.get()) != nullptr,
                  "SubscribeSafe: the callback takes std::shared_ptr<D>, but this component is "
                  "not a D");
#endif
      return Register<T>(Callback{std::weak_ptr<Self>(std::static_pointer_cast<Self>(owner)),
                                  std::forward<F>(callback)});
    }
  }

  /// @brief Subscribes `callback` to messages of type T: called on the consumer thread as
  /// `callback(const T& message, const MessageHeader& header)` or `callback(const T& message)`,
  /// returning void or bool (false counts as a processing error).
  ///
  /// The callback may capture `this`: each call pins the component exactly as SubscribeSafe does,
  /// so it never runs while or after the component is destroyed (the message is skipped then).
  ///
  /// @return As SubscribeSafe: invalid when not owned by a std::shared_ptr, at
  /// kMaxSubscriptions, or when the bus refuses. Thread-safe, also from inside a callback.
  template <typename T, typename F>
  SubscriptionHandle SubscribeSimple(F&& callback) noexcept {
    static_assert(detail::kIsAlternative<T, PayloadVariant>,
                  "mccc: SubscribeSimple<T>: T is not an alternative of the component's payload "
                  "variant; subscribe to one of the std::variant's types or add T to it");
    using Fn = std::decay_t<F>;
    static_assert(detail::kHandlesType<Fn, T>,
                  "mccc: SubscribeSimple<T>: the callback must be callable as f(const T&, const "
                  "MessageHeader&) or f(const T&); use SubscribeSafe for a callback that takes "
                  "the component's std::shared_ptr first");
    using Callback = detail::ComponentSimpleCallback<Component, T, Fn>;
    static_assert(sizeof(StoredAs<T, Callback>) <= Traits::kCallbackStorageBytes,
                  "mccc: SubscribeSimple<T>: the callback plus the std::weak_ptr the component "
                  "stores with it (two pointers) is larger than the bus's callback storage; "
                  "capture less (e.g. only `this` or one pointer) or raise kCallbackStorageBytes "
                  "(MCCC_CALLBACK_STORAGE_BYTES) in the bus traits");
    std::weak_ptr<Component> owner = this->weak_from_this();
    if (owner.expired()) {
      return Refuse();
    }
    return Register<T>(Callback{std::move(owner), std::forward<F>(callback)});
  }

  /// @brief Removes one subscription this component made. True the first time for such a handle;
  /// false (nothing changes) for an invalid handle or one this component does not own. The
  /// callback may still be running once on the consumer thread when this returns on another
  /// thread (the bus's Unsubscribe guarantee); the pin keeps the component alive for it.
  /// Thread-safe, also from inside a callback.
  bool Unsubscribe(const SubscriptionHandle& handle) noexcept {
    detail::ControlLockGuard<ControlLock> guard(lock_);
    for (std::size_t i = 0U; i < handles_.size(); ++i) {
      if (handles_[i].type_index == handle.type_index &&
          handles_[i].callback_id == handle.callback_id) {
        static_cast<void>(handles_.erase_unordered(i));
        return bus_.Unsubscribe(handle);
      }
    }
    return false;
  }

  /// @brief Removes every subscription of this component; returns how many were removed. The
  /// component can subscribe again afterwards. Thread-safe, also from inside a callback.
  std::size_t UnsubscribeAll() noexcept {
    detail::ControlLockGuard<ControlLock> guard(lock_);
    std::size_t removed = 0U;
    for (const SubscriptionHandle& handle : handles_) {
      removed += bus_.Unsubscribe(handle) ? 1U : 0U;
    }
    handles_.clear();
    return removed;
  }

  /// @brief Live subscriptions owned by this component (snapshot). Thread-safe.
  std::size_t SubscriptionCount() const noexcept {
    detail::ControlLockGuard<ControlLock> guard(lock_);
    return handles_.size();
  }

  /// @brief Subscriptions refused since construction (not owned by a std::shared_ptr, at
  /// kMaxSubscriptions, or refused by the bus). Snapshot, thread-safe.
  std::size_t RefusedSubscriptionCount() const noexcept {
    detail::ControlLockGuard<ControlLock> guard(lock_);
    return refused_;
  }

  /// @brief The bus this component subscribes to. Thread-safe.
  Bus& GetBus() const noexcept {
    return bus_;
  }

 protected:
  /// @brief Hook run once by InitializeComponent(), when the component is owned by a
  /// std::shared_ptr: the place to subscribe. Runs on the thread that called
  /// InitializeComponent(). The default does nothing.
  virtual void OnInitialize() {}

 private:
  /// The type the bus stores for a callable `Callback` subscribed to T (bounded by
  /// kCallbackStorageBytes).
  template <typename T, typename Callback>
  using StoredAs = detail::TypedCallbackAdapter<detail::AlternativeIndex<T, PayloadVariant>::value,
                                                typename Bus::Delivered, Callback>;

  SubscriptionHandle Refuse() noexcept {
    detail::ControlLockGuard<ControlLock> guard(lock_);
    ++refused_;
    return kInvalidSubscription;
  }

  template <typename T, typename Callback>
  SubscriptionHandle Register(Callback&& callback) noexcept {
    detail::ControlLockGuard<ControlLock> guard(lock_);
    if (handles_.full()) {
      ++refused_;
      return kInvalidSubscription;
    }
    const SubscriptionHandle handle = bus_.template Subscribe<T>(std::forward<Callback>(callback));
    if (!handle.IsValid()) {
      ++refused_;
      return handle;
    }
    const bool stored = handles_.push_back(handle);
    MCCC_ASSERT(stored, "Component: handle list full although checked under the lock");
    static_cast<void>(stored);
    return handle;
  }

  Bus& bus_;
  using ControlLock = detail::ControlLock<Traits::kSingleCore, typename Bus::CriticalSection>;
  mutable ControlLock lock_;                                    // guards handles_, refused_
  FixedVector<SubscriptionHandle, kMaxSubscriptions> handles_;  // under lock_
  std::size_t refused_ = 0U;                                    // under lock_
  std::atomic<bool> initialized_{false};
};

}  // namespace mccc

#endif  // MCCC_COMPONENTS_COMPONENT_HPP_
