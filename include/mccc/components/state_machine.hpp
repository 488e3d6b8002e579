// SPDX-License-Identifier: MIT
/// @file state_machine.hpp
/// @brief A hierarchical state machine (HSM) with a fixed state table: zero heap, no recursion.
///
/// ## Model
/// States form a tree. Each state has an optional parent, an optional entry action, an optional
/// exit action and an optional event handler. An event goes to the handler of the current state
/// (the innermost active state); a handler that returns `Unhandled()` passes the event on to the
/// parent, and so on up to the top, where the event is ignored and reported
/// (`DispatchResult::kUnhandled`). A composite state may have an initial target
/// (`SetInitialState`); entering the composite then drills down through the initial targets until
/// it reaches a state without one, running each entry action outermost first.
///
/// ## What a handler can return (`mccc::HandlerResult`)
/// - `Handled()`: the event is consumed. Whatever the handler did is an *internal transition*:
///   no exit or entry action runs.
/// - `Unhandled()`: the event bubbles to the parent state.
/// - `TransitionTo(target)`: a transition whose source is the state whose handler returned it.
///   The machine exits from the current state up to, not including, the least common ancestor
///   (LCA) of source and target, enters from below the LCA down to the target, then follows the
///   initial targets. Semantics by case:
///   - target == source: an *external self-transition*: exit and re-enter the source (after
///     exiting any active substates of it), then its initial targets.
///   - target below source (local): the source is not exited; only its active substates are.
///   - target above source (local): the target is not exited or re-entered; the states between
///     it and the current state are exited, then the target's initial targets are entered.
///   - otherwise (e.g. cousins): exit up to the LCA, enter down to the target.
/// - `ExternalTransitionTo(target)`: as above, but when one of source and target contains the
///   other, the containing one is also exited and re-entered (UML external transition).
///
/// ## Guards
/// A guard is code in the handler: test the condition, and return `TransitionTo(...)` when it
/// holds. When it does not, return `Unhandled()` to let a parent handle the event (UML
/// semantics: a transition whose guard is false does not fire, so an outer one may) or
/// `Handled()` to consume the event silently. There is no separate guard table.
///
/// ## Run to completion
/// Entry and exit actions are `void (*)(Context&)`: they cannot return a transition. Calling
/// `Dispatch`, `Start` or `Stop` from inside a handler, action or trace hook (re-entrance) is a
/// programming error: it trips `MCCC_ASSERT` and, with asserts compiled out, returns
/// `kReentrantCall` without touching the machine (`AddState`/`SetInitialState` there just return
/// `kReentrantCall`). A handler naming a state that was never added is also an assert, or
/// `DispatchResult::kInvalidTarget` with no state change. To react to something an action did,
/// publish a message on the bus; it is dispatched after the current event has completed.
///
/// ## Capacity
/// State ids are dense small integers chosen by the user, `0 .. MaxStates - 1`, typically an
/// enumeration: `enum StateIds : mccc::StateId { kOff, kOn, kIdle, kRunning };`. An id outside
/// that range is refused with `StateMachineError::kCapacityExceeded`. Every walk over the tree is
/// an iterative loop bounded by the depth (< MaxStates); the only scratch storage is a member
/// array of MaxStates ids, so stack use does not depend on the depth.
///
/// ## Driving it from the bus
/// The usual event type is the bus payload (`std::variant` of the message types). Handlers then
/// pick the alternatives they care about with `std::get_if`. One call feeds the machine:
/// @code
///   // In a Subscribe callback (one per message type the machine reacts to):
///   bus.Subscribe<ButtonPressed>(
///       [&sm](const ButtonPressed& msg, const mccc::MessageHeader&) { sm.Dispatch(msg); });
///   // Or in the consumer loop, from a batch visitor that receives each message:
///   bus.ProcessBatchWith([&sm](const auto& msg) { sm.Dispatch(msg); });
/// @endcode
/// `Dispatch(const T&)` for a message type `T` that `Event` can be constructed from builds the
/// `Event` on the stack (one copy of the message) and dispatches it.
///
/// ## Thread-safety
/// Not thread-safe. Configure it, start it and dispatch to it from one thread (the bus consumer
/// thread); nothing in it is atomic. Handlers and actions run on the dispatching thread.
#ifndef MCCC_COMPONENTS_STATE_MACHINE_HPP_
#define MCCC_COMPONENTS_STATE_MACHINE_HPP_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "mccc/config.hpp"
#include "mccc/detail/scoped_flag.hpp"

namespace mccc {

/// @brief Identifies a state: an index into the machine's state table, 0 .. MaxStates - 1.
using StateId = std::uint16_t;

/// @brief "No state": the current state of a machine that is not running, the parent of a
/// top-level state, and the result of `Parent()` for an unknown id.
inline constexpr StateId kNoState = 0xFFFFU;

/// @brief The implicit root above all top-level states (same value as `kNoState`). Use it as the
/// parent of top-level states and as the composite in `SetInitialState(kTopState, s)` to set the
/// top-level initial transition that `Start()` takes.
inline constexpr StateId kTopState = kNoState;

/// @brief What a state's event handler decided. Build it with `Handled()`, `Unhandled()`,
/// `TransitionTo()` or `ExternalTransitionTo()`. Four bytes, returned in registers.
class HandlerResult {
 public:
  /// @brief The decision.
  enum class Kind : std::uint8_t {
    kHandled,            ///< Consumed; no state change (an internal transition).
    kUnhandled,          ///< Pass the event to the parent state.
    kTransition,         ///< Local transition to target() (external when target is the source).
    kExternalTransition  ///< External transition to target().
  };

  /// @brief The event was consumed without a state change. Thread-safe (pure).
  static constexpr HandlerResult Handled() noexcept { return {Kind::kHandled, kNoState}; }
  /// @brief The event is passed to the parent state. Thread-safe (pure).
  static constexpr HandlerResult Unhandled() noexcept { return {Kind::kUnhandled, kNoState}; }
  /// @brief Transition to `target` (local semantics, see the file comment). Thread-safe (pure).
  static constexpr HandlerResult TransitionTo(StateId target) noexcept {
    return {Kind::kTransition, target};
  }
  /// @brief Transition to `target`, exiting and re-entering a containing source or target.
  /// Thread-safe (pure).
  static constexpr HandlerResult ExternalTransitionTo(StateId target) noexcept {
    return {Kind::kExternalTransition, target};
  }

  /// @brief The decision. Thread-safe (pure).
  constexpr Kind kind() const noexcept { return kind_; }
  /// @brief The transition target; `kNoState` unless kind() is a transition. Thread-safe (pure).
  constexpr StateId target() const noexcept { return target_; }

 private:
  constexpr HandlerResult(Kind kind, StateId target) noexcept : kind_(kind), target_(target) {}

  Kind kind_;
  StateId target_;
};

/// @brief Handler return value: event consumed, no state change. Thread-safe (pure).
constexpr HandlerResult Handled() noexcept {
  return HandlerResult::Handled();
}
/// @brief Handler return value: let the parent state handle the event. Thread-safe (pure).
constexpr HandlerResult Unhandled() noexcept {
  return HandlerResult::Unhandled();
}
/// @brief Handler return value: local transition to `target`. Thread-safe (pure).
constexpr HandlerResult TransitionTo(StateId target) noexcept {
  return HandlerResult::TransitionTo(target);
}
/// @brief Handler return value: external transition to `target`. Thread-safe (pure).
constexpr HandlerResult ExternalTransitionTo(StateId target) noexcept {
  return HandlerResult::ExternalTransitionTo(target);
}

/// @brief Result of configuring, starting or stopping a machine.
enum class StateMachineError : std::uint8_t {
  kOk,                ///< Done.
  kCapacityExceeded,  ///< The state id is >= MaxStates (or kNoState): raise MaxStates.
  kDuplicateState,    ///< A state with this id was already added.
  kUnknownParent,     ///< The parent id was not added yet (add parents before children).
  kUnknownState,      ///< The state id was never added.
  kNotADescendant,    ///< An initial target must be a proper descendant of its composite.
  kNoInitialState,    ///< Start() without a top-level initial state (SetInitialState(kTopState,)).
  kAlreadyStarted,    ///< Start() twice, or configuration while running (Stop() first).
  kNotStarted,        ///< Stop() on a machine that is not running.
  kReentrantCall      ///< Called from inside a handler, action or trace hook (also asserts).
};

/// @brief What `Dispatch` did with an event.
enum class DispatchResult : std::uint8_t {
  kHandled,        ///< A state consumed it without a state change (internal transition).
  kTransitioned,   ///< A state answered with a transition, which has completed.
  kUnhandled,      ///< No state handled it (it bubbled past the top); it was ignored.
  kNotStarted,     ///< The machine is not running (Start() first); the event was ignored.
  kInvalidTarget,  ///< A handler named a state that was never added (also asserts); no change.
  kReentrantCall   ///< Called from inside a handler, action or trace hook (also asserts).
};

/// @brief What a trace hook is told about.
enum class TraceKind : std::uint8_t {
  kEntry,     ///< The state is being entered (called before its entry action).
  kExit,      ///< The state is being exited (called before its exit action).
  kUnhandled  ///< An event bubbled past the top; the state is the current state.
};

/// @brief Name of an error value, for logs. Thread-safe (pure).
constexpr const char* ToString(StateMachineError error) noexcept {
  switch (error) {
    case StateMachineError::kOk:
      return "ok";
    case StateMachineError::kCapacityExceeded:
      return "capacity exceeded";
    case StateMachineError::kDuplicateState:
      return "duplicate state";
    case StateMachineError::kUnknownParent:
      return "unknown parent";
    case StateMachineError::kUnknownState:
      return "unknown state";
    case StateMachineError::kNotADescendant:
      return "not a descendant";
    case StateMachineError::kNoInitialState:
      return "no initial state";
    case StateMachineError::kAlreadyStarted:
      return "already started";
    case StateMachineError::kNotStarted:
      return "not started";
    case StateMachineError::kReentrantCall:
      return "reentrant call";
  }
  return "?";
}

/// @brief Name of a dispatch result, for logs. Thread-safe (pure).
constexpr const char* ToString(DispatchResult result) noexcept {
  switch (result) {
    case DispatchResult::kHandled:
      return "handled";
    case DispatchResult::kTransitioned:
      return "transitioned";
    case DispatchResult::kUnhandled:
      return "unhandled";
    case DispatchResult::kNotStarted:
      return "not started";
    case DispatchResult::kInvalidTarget:
      return "invalid target";
    case DispatchResult::kReentrantCall:
      return "reentrant call";
  }
  return "?";
}

/// @brief A hierarchical state machine over a user `Context` and an `Event` type.
///
/// @tparam Context   The object handlers and actions work on (passed as `Context&`); the machine
///                   keeps a reference to it, so it must outlive the machine.
/// @tparam Event     The event type handlers receive as `const Event&`, typically the bus
///                   payload variant.
/// @tparam MaxStates Size of the state table; state ids are 0 .. MaxStates - 1. Memory is about
///                   MaxStates * (4 pointers + 10 bytes).
///
/// Typical use:
/// @code
///   enum S : mccc::StateId { kOff, kOn, kIdle, kRunning };
///   using Machine = mccc::StateMachine<Motor, Payload, 4>;
///   mccc::HandlerResult OnIdle(Motor& m, const Payload& e) {
///     if (std::holds_alternative<StartCmd>(e)) {
///       if (m.temperature_ok) return mccc::TransitionTo(kRunning);  // guard
///       return mccc::Unhandled();                                    // let kOn decide
///     }
///     return mccc::Unhandled();
///   }
///   Machine sm(motor);
///   (void)sm.AddState(kOff, "Off", mccc::kTopState, &OnOff);
///   (void)sm.AddState(kOn, "On", mccc::kTopState, &OnOn, &PowerUp, &PowerDown);
///   (void)sm.AddState(kIdle, "Idle", kOn, &OnIdle);
///   (void)sm.AddState(kRunning, "Running", kOn, &OnRunning, &SpinUp, &SpinDown);
///   (void)sm.SetInitialState(kOn, kIdle);
///   (void)sm.Start(kOff);
///   sm.Dispatch(Payload{StartCmd{}});
/// @endcode
/// Not thread-safe (see the file comment); not copyable or movable, because handlers may hold
/// on to its address through the context.
template <typename Context, typename Event, std::size_t MaxStates = 16>
class StateMachine {
  static_assert(MaxStates >= 1U,
                "mccc: StateMachine MaxStates must be at least 1; raise MaxStates");
  static_assert(MaxStates < static_cast<std::size_t>(kNoState),
                "mccc: StateMachine MaxStates must be below 65535 (StateId is 16 bits and 65535 "
                "is kNoState); use fewer states");
  static_assert(std::is_object<Context>::value && !std::is_const<Context>::value,
                "mccc: StateMachine Context must be a non-const object type (handlers get a "
                "Context&); pass the type without reference or const");
  static_assert(std::is_object<Event>::value,
                "mccc: StateMachine Event must be an object type (handlers get a const Event&); "
                "pass the type without reference");

 public:
  /// @brief A state's event handler: decide what to do with `event` (see HandlerResult).
  using Handler = HandlerResult (*)(Context& context, const Event& event);
  /// @brief An entry or exit action.
  using Action = void (*)(Context& context);
  /// @brief Optional observer of entries, exits and unhandled events (tracing, logging).
  using TraceHook = void (*)(Context& context, TraceKind kind, StateId state);

  /// @brief Binds the machine to `context`. The machine starts empty and not running.
  /// Not thread-safe.
  explicit StateMachine(Context& context) noexcept : context_(context) {}

  StateMachine(const StateMachine&) = delete;
  StateMachine& operator=(const StateMachine&) = delete;
  StateMachine(StateMachine&&) = delete;
  StateMachine& operator=(StateMachine&&) = delete;
  ~StateMachine() = default;

  /// @brief The size of the state table (the template argument). Thread-safe (pure).
  static constexpr std::size_t Capacity() noexcept { return MaxStates; }

  /// @brief Adds state `id` below `parent` (`kTopState` for a top-level state).
  ///
  /// Parents must be added before their children, which keeps the tree acyclic. Any of
  /// `handler`, `entry` and `exit` may be null: a state without a handler passes every event to
  /// its parent. `name` must outlive the machine (a string literal); null reads as "?".
  /// @return kOk; kCapacityExceeded if `id` >= MaxStates; kDuplicateState; kUnknownParent;
  ///         kAlreadyStarted while running; kReentrantCall from a handler or action.
  /// Not thread-safe.
  [[nodiscard]] StateMachineError AddState(StateId id, const char* name, StateId parent,
                                           Handler handler, Action entry = nullptr,
                                           Action exit = nullptr) noexcept {
    const StateMachineError blocked = ConfigurationBlocked();
    if (blocked != StateMachineError::kOk) {
      return blocked;
    }
    if (id >= MaxStates) {
      return StateMachineError::kCapacityExceeded;
    }
    if (states_[id].in_use) {
      return StateMachineError::kDuplicateState;
    }
    if (parent != kTopState && !Exists(parent)) {
      return StateMachineError::kUnknownParent;
    }
    StateRecord& record = states_[id];
    record.name = (name != nullptr) ? name : "?";
    record.handler = handler;
    record.entry = entry;
    record.exit = exit;
    record.parent = parent;
    record.initial = kNoState;
    record.depth = (parent == kTopState) ? StateId{0U} : static_cast<StateId>(Depth(parent) + 1U);
    record.in_use = true;
    ++state_count_;
    return StateMachineError::kOk;
  }

  /// @brief Sets the initial target of `composite`: when a transition ends in `composite` (it
  /// is the target, or another initial target led to it), the machine continues into `target`.
  /// `target` must be a proper descendant, not necessarily a direct child; the states between
  /// are entered too. A transition to a state *below* `composite` does not use it. `composite ==
  /// kTopState` sets the top-level initial state that `Start()` enters. Setting it again replaces
  /// it. A composite without an initial target is a valid place to rest: a transition to it stops
  /// there and `CurrentState()` returns it.
  /// @return kOk; kUnknownState; kNotADescendant; kAlreadyStarted; kReentrantCall.
  /// Not thread-safe.
  [[nodiscard]] StateMachineError SetInitialState(StateId composite, StateId target) noexcept {
    const StateMachineError blocked = ConfigurationBlocked();
    if (blocked != StateMachineError::kOk) {
      return blocked;
    }
    if (!Exists(target)) {
      return StateMachineError::kUnknownState;
    }
    if (composite == kTopState) {
      top_initial_ = target;
      return StateMachineError::kOk;
    }
    if (!Exists(composite)) {
      return StateMachineError::kUnknownState;
    }
    if (target == composite || !IsAncestorOrSelf(composite, target)) {
      return StateMachineError::kNotADescendant;
    }
    states_[composite].initial = target;
    return StateMachineError::kOk;
  }

  /// @brief Runs the top-level initial transition set with `SetInitialState(kTopState, s)`:
  /// enters the ancestors of `s` outermost first, then `s`, then follows initial targets.
  /// @return kOk; kNoInitialState; kAlreadyStarted; kReentrantCall. Not thread-safe.
  [[nodiscard]] StateMachineError Start() {
    if (!busy_ && !started_ && top_initial_ == kNoState) {
      return StateMachineError::kNoInitialState;
    }
    return Start(top_initial_);  // Also reports re-entrance and a second start.
  }

  /// @brief As `Start()`, with `initial` as the top-level initial state (it is remembered, so a
  /// later `Start()` after `Stop()` enters it again).
  /// @return kOk; kUnknownState; kAlreadyStarted; kReentrantCall. Not thread-safe.
  [[nodiscard]] StateMachineError Start(StateId initial) {
    if (busy_) {
      MCCC_ASSERT(false, "mccc: StateMachine::Start called from a handler, action or trace hook");
      return StateMachineError::kReentrantCall;
    }
    if (started_) {
      return StateMachineError::kAlreadyStarted;
    }
    if (!Exists(initial)) {
      return StateMachineError::kUnknownState;
    }
    top_initial_ = initial;
    BusyScope busy(busy_);
    started_ = true;
    current_ = kNoState;
    EnterDownTo(kNoState, initial);
    FollowInitialTargets();
    return StateMachineError::kOk;
  }

  /// @brief Exits every active state, innermost first, and stops the machine. Configuration
  /// and `Start` are allowed again afterwards.
  /// @return kOk; kNotStarted; kReentrantCall. Not thread-safe.
  StateMachineError Stop() {
    if (busy_) {
      MCCC_ASSERT(false, "mccc: StateMachine::Stop called from a handler, action or trace hook");
      return StateMachineError::kReentrantCall;
    }
    if (!started_) {
      return StateMachineError::kNotStarted;
    }
    BusyScope busy(busy_);
    ExitUpTo(kNoState);
    started_ = false;
    return StateMachineError::kOk;
  }

  /// @brief Delivers `event` to the current state and lets it bubble up until a state handles
  /// it; runs the resulting transition to completion before returning.
  /// @return kHandled, kTransitioned, kUnhandled (ignored at the top; the trace hook sees
  ///         TraceKind::kUnhandled), kNotStarted, kInvalidTarget, kReentrantCall.
  /// Not thread-safe; not noexcept, so that an exception from a handler reaches the bus (which
  /// counts it); the configuration stays consistent with the actions that completed.
  DispatchResult Dispatch(const Event& event) {
    if (busy_) {
      MCCC_ASSERT(false,
                  "mccc: StateMachine::Dispatch called from a handler, action or trace hook; "
                  "publish a message instead");
      return DispatchResult::kReentrantCall;
    }
    if (!started_) {
      return DispatchResult::kNotStarted;
    }
    BusyScope busy(busy_);
    for (StateId source = current_; source != kNoState; source = states_[source].parent) {
      const Handler handler = states_[source].handler;
      if (handler == nullptr) {
        continue;
      }
      const HandlerResult result = handler(context_, event);
      switch (result.kind()) {
        case HandlerResult::Kind::kHandled:
          return DispatchResult::kHandled;
        case HandlerResult::Kind::kUnhandled:
          break;
        case HandlerResult::Kind::kTransition:
        case HandlerResult::Kind::kExternalTransition: {
          const StateId target = result.target();
          if (!Exists(target)) {
            MCCC_ASSERT(false,
                        "mccc: StateMachine handler returned a transition to a state "
                        "that was never added");
            return DispatchResult::kInvalidTarget;
          }
          const bool external = result.kind() == HandlerResult::Kind::kExternalTransition;
          ExitUpTo(LeastCommonAncestor(source, target, external));
          EnterDownTo(current_, target);
          FollowInitialTargets();
          return DispatchResult::kTransitioned;
        }
      }
    }
    if (trace_hook_ != nullptr) {
      trace_hook_(context_, TraceKind::kUnhandled, current_);
    }
    return DispatchResult::kUnhandled;
  }

  /// @brief Dispatches a message that `Event` can be built from (e.g. one alternative of the
  /// payload variant), so a typed bus callback can forward its message in one call. Costs one
  /// copy of the message into a temporary `Event`. Not thread-safe.
  template <typename T, typename = std::enable_if_t<!std::is_same<std::decay_t<T>, Event>::value &&
                                                    std::is_constructible<Event, const T&>::value>>
  DispatchResult Dispatch(const T& message) {
    return Dispatch(Event(message));
  }

  /// @brief Installs (or with nullptr removes) the trace hook, called before each entry and
  /// exit action and for each event ignored at the top. Not thread-safe.
  void SetTraceHook(TraceHook hook) noexcept { trace_hook_ = hook; }

  /// @brief True between a successful `Start` and `Stop`. Not thread-safe.
  bool IsStarted() const noexcept { return started_; }

  /// @brief The innermost active state; `kNoState` when not running. A state is active from the
  /// start of its entry action to the end of its exit action, so from inside an action this is
  /// the state whose action runs. Not thread-safe.
  StateId CurrentState() const noexcept { return current_; }

  /// @brief True if `state` is active: the current state or one of its ancestors. False for
  /// unknown ids and when not running. Not thread-safe.
  bool IsIn(StateId state) const noexcept {
    if (!Exists(state) || current_ == kNoState) {
      return false;
    }
    return IsAncestorOrSelf(state, current_);
  }

  /// @brief The name given to AddState; "(none)" for kNoState, "(unknown)" for ids never
  /// added. Not thread-safe.
  const char* StateName(StateId state) const noexcept {
    if (state == kNoState) {
      return "(none)";
    }
    return Exists(state) ? states_[state].name : "(unknown)";
  }

  /// @brief `StateName(CurrentState())`. Not thread-safe.
  const char* CurrentStateName() const noexcept { return StateName(current_); }

  /// @brief The parent of `state`; `kTopState` for a top-level state and for unknown ids.
  /// Not thread-safe.
  StateId Parent(StateId state) const noexcept {
    return Exists(state) ? states_[state].parent : kNoState;
  }

  /// @brief Whether `state` was added. Not thread-safe.
  bool Contains(StateId state) const noexcept { return Exists(state); }

  /// @brief Number of states added. Not thread-safe.
  std::size_t StateCount() const noexcept { return state_count_; }

  /// @brief The context the machine was bound to. Not thread-safe.
  Context& GetContext() const noexcept { return context_; }

 private:
  struct StateRecord {
    const char* name = nullptr;
    Handler handler = nullptr;
    Action entry = nullptr;
    Action exit = nullptr;
    StateId parent = kNoState;
    StateId initial = kNoState;
    StateId depth = 0U;  // Number of proper ancestors; < MaxStates.
    bool in_use = false;
  };

  // Marks the machine busy for one run-to-completion step; the destructor also runs when a
  // handler throws, so the machine stays usable.
  using BusyScope = detail::ScopedFlag<bool>;

  StateMachineError ConfigurationBlocked() const noexcept {
    if (busy_) {
      return StateMachineError::kReentrantCall;
    }
    if (started_) {
      return StateMachineError::kAlreadyStarted;
    }
    return StateMachineError::kOk;
  }

  bool Exists(StateId state) const noexcept { return state < MaxStates && states_[state].in_use; }

  StateId Depth(StateId state) const noexcept { return states_[state].depth; }

  // True if `ancestor` is `state` or one of its ancestors. Both must exist.
  bool IsAncestorOrSelf(StateId ancestor, StateId state) const noexcept {
    const StateId target_depth = Depth(ancestor);
    while (Depth(state) > target_depth) {
      state = states_[state].parent;
    }
    return state == ancestor;
  }

  // The deepest state that is an ancestor-or-self of both `a` and `b`; kNoState (the top) if
  // they share none or either is kNoState.
  StateId CommonAncestor(StateId a, StateId b) const noexcept {
    if (a == kNoState || b == kNoState) {
      return kNoState;
    }
    while (Depth(a) > Depth(b)) {
      a = states_[a].parent;
    }
    while (Depth(b) > Depth(a)) {
      b = states_[b].parent;
    }
    while (a != b) {  // Same depth: both reach the top together at the latest.
      a = states_[a].parent;
      b = states_[b].parent;
    }
    return a;
  }

  // The state the transition exits up to (exclusive) and enters from (exclusive). It is always
  // an ancestor-or-self of `source`, hence of the current state, or kNoState.
  StateId LeastCommonAncestor(StateId source, StateId target, bool external) const noexcept {
    if (source == target) {
      return states_[source].parent;
    }
    if (external) {
      return CommonAncestor(states_[source].parent, states_[target].parent);
    }
    return CommonAncestor(source, target);
  }

  // Exits from the current state up to, not including, `stop` (an ancestor of it or kNoState).
  // current_ follows each step, so the configuration is right even if an action throws.
  void ExitUpTo(StateId stop) {
    while (current_ != stop && current_ != kNoState) {
      const StateRecord& record = states_[current_];
      if (trace_hook_ != nullptr) {
        trace_hook_(context_, TraceKind::kExit, current_);
      }
      if (record.exit != nullptr) {
        record.exit(context_);
      }
      current_ = record.parent;
    }
  }

  // Enters from below `from` (an ancestor of `target`, or kNoState) down to `target`,
  // outermost first. The path is collected bottom-up into path_, which holds at most
  // depth + 1 <= MaxStates ids.
  void EnterDownTo(StateId from, StateId target) {
    std::size_t count = 0U;
    for (StateId state = target; state != from && state != kNoState;
         state = states_[state].parent) {
      path_[count] = state;
      ++count;
    }
    while (count > 0U) {
      --count;
      const StateId state = path_[count];
      current_ = state;
      if (trace_hook_ != nullptr) {
        trace_hook_(context_, TraceKind::kEntry, state);
      }
      const Action entry = states_[state].entry;
      if (entry != nullptr) {
        entry(context_);
      }
    }
  }

  // Follows initial targets from the current state. Each target is a proper descendant, so the
  // depth grows every round and the loop ends after fewer than MaxStates rounds.
  void FollowInitialTargets() {
    while (current_ != kNoState && states_[current_].initial != kNoState) {
      EnterDownTo(current_, states_[current_].initial);
    }
  }

  Context& context_;
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  StateRecord states_[MaxStates]{};
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  StateId path_[MaxStates]{};
  TraceHook trace_hook_ = nullptr;
  std::size_t state_count_ = 0U;
  StateId current_ = kNoState;
  StateId top_initial_ = kNoState;
  bool started_ = false;
  bool busy_ = false;
};

}  // namespace mccc

#endif  // MCCC_COMPONENTS_STATE_MACHINE_HPP_
