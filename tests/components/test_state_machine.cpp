// SPDX-License-Identifier: MIT
// Tests for mccc::StateMachine (include/mccc/components/state_machine.hpp).
//
// Every test records what the machine did (entry/exit actions, handler calls) into vectors in
// the context and compares them with the exact expected sequence.
#include "mccc/components/state_machine.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace {

using mccc::DispatchResult;
using mccc::HandlerResult;
using mccc::kNoState;
using mccc::kTopState;
using mccc::StateId;
using mccc::StateMachineError;
using mccc::TraceKind;
using Trace = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// A generic test machine: every state gets the same templated handler and actions, and events
// say which state should react, so one tree covers every transition shape.
//
//   A (initial B)                    Z                 Q (no initial target)
//   +-- B (initial C)                                  +-- Q1
//   |   +-- C (initial D)
//   |   |   +-- D
//   |   |   +-- D2
//   |   +-- C2 (initial E)
//   |       +-- E
//   +-- B2
// ---------------------------------------------------------------------------------------------
enum S : StateId { kA, kB, kC, kD, kD2, kC2, kE, kB2, kZ, kQ, kQ1, kStateCount };
constexpr const char* kNames[] = {"A", "B", "C", "D", "D2", "C2", "E", "B2", "Z", "Q", "Q1"};

/// The state `from` answers with a transition to `to`.
struct Go {
  StateId from;
  StateId to;
  bool external;
};
/// The state `by` consumes the event without a transition (an internal transition).
struct Ping {
  StateId by;
};
/// Nobody handles it.
struct Noise {};

using Event = std::variant<Go, Ping, Noise>;  // Shaped like a bus payload.

struct Ctx;
using Machine = mccc::StateMachine<Ctx, Event, 16>;

struct Ctx {
  Trace trace;    // Entry and exit actions.
  Trace visited;  // Handler calls, in order.
  int internal_actions = 0;
  Machine* machine = nullptr;  // For the re-entrance tests.
};

template <StateId kState>
HandlerResult Handle(Ctx& ctx, const Event& event) {
  ctx.visited.emplace_back(kNames[kState]);
  if (const Go* go = std::get_if<Go>(&event)) {
    if (go->from == kState) {
      return go->external ? mccc::ExternalTransitionTo(go->to) : mccc::TransitionTo(go->to);
    }
  } else if (const Ping* ping = std::get_if<Ping>(&event)) {
    if (ping->by == kState) {
      ++ctx.internal_actions;
      return mccc::Handled();
    }
  }
  return mccc::Unhandled();
}

template <StateId kState>
void Entry(Ctx& ctx) {
  ctx.trace.push_back(std::string(kNames[kState]) + ":entry");
}

template <StateId kState>
void Exit(Ctx& ctx) {
  ctx.trace.push_back(std::string(kNames[kState]) + ":exit");
}

template <StateId kState>
StateMachineError Add(Machine& sm, StateId parent) {
  return sm.AddState(kState, kNames[kState], parent, &Handle<kState>, &Entry<kState>,
                     &Exit<kState>);
}

class StateMachineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_.machine = &sm_;
    ASSERT_EQ(Add<kA>(sm_, kTopState), StateMachineError::kOk);
    ASSERT_EQ(Add<kB>(sm_, kA), StateMachineError::kOk);
    ASSERT_EQ(Add<kC>(sm_, kB), StateMachineError::kOk);
    ASSERT_EQ(Add<kD>(sm_, kC), StateMachineError::kOk);
    ASSERT_EQ(Add<kD2>(sm_, kC), StateMachineError::kOk);
    ASSERT_EQ(Add<kC2>(sm_, kB), StateMachineError::kOk);
    ASSERT_EQ(Add<kE>(sm_, kC2), StateMachineError::kOk);
    ASSERT_EQ(Add<kB2>(sm_, kA), StateMachineError::kOk);
    ASSERT_EQ(Add<kZ>(sm_, kTopState), StateMachineError::kOk);
    ASSERT_EQ(Add<kQ>(sm_, kTopState), StateMachineError::kOk);
    ASSERT_EQ(Add<kQ1>(sm_, kQ), StateMachineError::kOk);
    ASSERT_EQ(sm_.SetInitialState(kA, kB), StateMachineError::kOk);
    ASSERT_EQ(sm_.SetInitialState(kB, kC), StateMachineError::kOk);
    ASSERT_EQ(sm_.SetInitialState(kC, kD), StateMachineError::kOk);
    ASSERT_EQ(sm_.SetInitialState(kC2, kE), StateMachineError::kOk);
    ASSERT_EQ(sm_.SetInitialState(kTopState, kA), StateMachineError::kOk);
  }

  // Starts in `state` (after its initial targets) and forgets the start-up trace.
  void StartIn(StateId state) {
    ASSERT_EQ(sm_.Start(state), StateMachineError::kOk);
    ctx_.trace.clear();
  }

  // Dispatches and returns the entry/exit trace of this one event.
  Trace Run(const Event& event, DispatchResult expected) {
    ctx_.trace.clear();
    ctx_.visited.clear();
    EXPECT_EQ(sm_.Dispatch(event), expected);
    return ctx_.trace;
  }

  Ctx ctx_;
  Machine sm_{ctx_};
};

// --- Start and initial transitions ---------------------------------------------------------------

TEST_F(StateMachineTest, StartDrillsThroughInitialTargetsOutermostFirst) {
  EXPECT_FALSE(sm_.IsStarted());
  EXPECT_EQ(sm_.CurrentState(), kNoState);
  ASSERT_EQ(sm_.Start(), StateMachineError::kOk);
  EXPECT_EQ(ctx_.trace, (Trace{"A:entry", "B:entry", "C:entry", "D:entry"}));
  EXPECT_TRUE(sm_.IsStarted());
  EXPECT_EQ(sm_.CurrentState(), kD);
  EXPECT_STREQ(sm_.CurrentStateName(), "D");
  EXPECT_TRUE(ctx_.visited.empty());  // No handler runs on start.
}

TEST_F(StateMachineTest, StartInANestedStateEntersItsAncestorsFirst) {
  ASSERT_EQ(sm_.Start(kC2), StateMachineError::kOk);
  EXPECT_EQ(ctx_.trace, (Trace{"A:entry", "B:entry", "C2:entry", "E:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kE);
}

TEST_F(StateMachineTest, CompositeWithoutInitialTargetIsARestingState) {
  ASSERT_EQ(sm_.Start(kQ), StateMachineError::kOk);
  EXPECT_EQ(ctx_.trace, (Trace{"Q:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kQ);
  EXPECT_TRUE(sm_.IsIn(kQ));
  EXPECT_FALSE(sm_.IsIn(kQ1));
}

TEST_F(StateMachineTest, InitialTargetMayBeADeeperDescendant) {
  Ctx ctx;
  Machine sm(ctx);
  ASSERT_EQ(Add<kA>(sm, kTopState), StateMachineError::kOk);
  ASSERT_EQ(Add<kB>(sm, kA), StateMachineError::kOk);
  ASSERT_EQ(Add<kC>(sm, kB), StateMachineError::kOk);
  ASSERT_EQ(Add<kD2>(sm, kC), StateMachineError::kOk);
  ASSERT_EQ(sm.SetInitialState(kA, kC), StateMachineError::kOk);  // Skips a level.
  ASSERT_EQ(sm.SetInitialState(kC, kD2), StateMachineError::kOk);
  ASSERT_EQ(sm.Start(kA), StateMachineError::kOk);
  EXPECT_EQ(ctx.trace, (Trace{"A:entry", "B:entry", "C:entry", "D2:entry"}));
  EXPECT_EQ(sm.CurrentState(), kD2);
}

// --- Transitions: exits up to the LCA, entries down to the target --------------------------------

TEST_F(StateMachineTest, TransitionBetweenCousinsExitsAndEntersAcrossTheLca) {
  StartIn(kA);  // A/B/C/D
  // D -> E: the LCA is B.
  EXPECT_EQ(Run(Go{kD, kE, false}, DispatchResult::kTransitioned),
            (Trace{"D:exit", "C:exit", "C2:entry", "E:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kE);
  // E -> D2: back across B; D2 is a leaf, so C's initial target D is not used.
  EXPECT_EQ(Run(Go{kE, kD2, false}, DispatchResult::kTransitioned),
            (Trace{"E:exit", "C2:exit", "C:entry", "D2:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kD2);
}

TEST_F(StateMachineTest, TransitionToACousinCompositeFollowsItsInitialTarget) {
  StartIn(kA);
  EXPECT_EQ(Run(Go{kD, kC2, false}, DispatchResult::kTransitioned),
            (Trace{"D:exit", "C:exit", "C2:entry", "E:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kE);
}

TEST_F(StateMachineTest, TransitionAcrossTheTopExitsEveryLevel) {
  StartIn(kA);
  EXPECT_EQ(Run(Go{kD, kZ, false}, DispatchResult::kTransitioned),
            (Trace{"D:exit", "C:exit", "B:exit", "A:exit", "Z:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kZ);
  EXPECT_EQ(Run(Go{kZ, kE, false}, DispatchResult::kTransitioned),
            (Trace{"Z:exit", "A:entry", "B:entry", "C2:entry", "E:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kE);
}

TEST_F(StateMachineTest, TransitionFromABubbledSourceFirstExitsTheStatesBelowIt) {
  StartIn(kA);
  // D and C do not handle it; B does, so the source is B and the LCA of B and E is B.
  EXPECT_EQ(Run(Go{kB, kE, false}, DispatchResult::kTransitioned),
            (Trace{"D:exit", "C:exit", "C2:entry", "E:entry"}));
  EXPECT_EQ(ctx_.visited, (Trace{"D", "C", "B"}));
  EXPECT_EQ(sm_.CurrentState(), kE);
}

TEST_F(StateMachineTest, LocalTransitionToAnAncestorKeepsItAndReentersItsInitialTargets) {
  StartIn(kA);
  EXPECT_EQ(Run(Go{kD, kA, false}, DispatchResult::kTransitioned),
            (Trace{"D:exit", "C:exit", "B:exit", "B:entry", "C:entry", "D:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kD);
}

TEST_F(StateMachineTest, LocalTransitionToAnAncestorWithoutInitialTargetRestsThere) {
  StartIn(kQ);
  ASSERT_EQ(Run(Go{kQ, kQ1, false}, DispatchResult::kTransitioned), (Trace{"Q1:entry"}));
  EXPECT_EQ(Run(Go{kQ1, kQ, false}, DispatchResult::kTransitioned), (Trace{"Q1:exit"}));
  EXPECT_EQ(sm_.CurrentState(), kQ);
}

TEST_F(StateMachineTest, ExternalTransitionToAnAncestorExitsAndReentersIt) {
  StartIn(kA);
  EXPECT_EQ(
      Run(Go{kD, kA, true}, DispatchResult::kTransitioned),
      (Trace{"D:exit", "C:exit", "B:exit", "A:exit", "A:entry", "B:entry", "C:entry", "D:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kD);
}

TEST_F(StateMachineTest, LocalTransitionToADescendantDoesNotExitTheSource) {
  StartIn(kB2);
  EXPECT_EQ(sm_.CurrentState(), kB2);
  // B2 passes it to A; A -> D enters B, C, D without leaving A.
  EXPECT_EQ(Run(Go{kA, kD, false}, DispatchResult::kTransitioned),
            (Trace{"B2:exit", "B:entry", "C:entry", "D:entry"}));
  EXPECT_EQ(ctx_.visited, (Trace{"B2", "A"}));
  EXPECT_EQ(sm_.CurrentState(), kD);
}

TEST_F(StateMachineTest, LocalTransitionFromTheCurrentStateToAChildOnlyEntersTheChild) {
  StartIn(kQ);
  EXPECT_EQ(Run(Go{kQ, kQ1, false}, DispatchResult::kTransitioned), (Trace{"Q1:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kQ1);
}

TEST_F(StateMachineTest, ExternalTransitionToADescendantExitsAndReentersTheSource) {
  StartIn(kQ);
  EXPECT_EQ(Run(Go{kQ, kQ1, true}, DispatchResult::kTransitioned),
            (Trace{"Q:exit", "Q:entry", "Q1:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kQ1);
}

TEST_F(StateMachineTest, LocalTransitionToADescendantThatIsActiveReentersIt) {
  StartIn(kA);  // A/B/C/D; B -> C: everything below B is exited, C is entered again.
  EXPECT_EQ(Run(Go{kB, kC, false}, DispatchResult::kTransitioned),
            (Trace{"D:exit", "C:exit", "C:entry", "D:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kD);
}

// --- Self and internal transitions ---------------------------------------------------------------

TEST_F(StateMachineTest, SelfTransitionOfALeafExitsAndReentersIt) {
  StartIn(kA);
  EXPECT_EQ(Run(Go{kD, kD, false}, DispatchResult::kTransitioned), (Trace{"D:exit", "D:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kD);
  // ExternalTransitionTo(self) is the same thing.
  EXPECT_EQ(Run(Go{kD, kD, true}, DispatchResult::kTransitioned), (Trace{"D:exit", "D:entry"}));
}

TEST_F(StateMachineTest, SelfTransitionOfAnAncestorExitsItsSubstatesAndItself) {
  StartIn(kA);
  EXPECT_EQ(Run(Go{kB, kB, false}, DispatchResult::kTransitioned),
            (Trace{"D:exit", "C:exit", "B:exit", "B:entry", "C:entry", "D:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kD);
}

TEST_F(StateMachineTest, SelfTransitionOfATopLevelState) {
  StartIn(kZ);
  EXPECT_EQ(Run(Go{kZ, kZ, false}, DispatchResult::kTransitioned), (Trace{"Z:exit", "Z:entry"}));
  EXPECT_EQ(sm_.CurrentState(), kZ);
}

TEST_F(StateMachineTest, HandledIsAnInternalTransitionWithoutExitOrEntry) {
  StartIn(kA);
  EXPECT_EQ(Run(Ping{kB}, DispatchResult::kHandled), Trace{});
  EXPECT_EQ(ctx_.internal_actions, 1);
  EXPECT_EQ(ctx_.visited, (Trace{"D", "C", "B"}));  // A is never asked.
  EXPECT_EQ(sm_.CurrentState(), kD);
}

// --- Bubbling and unhandled events ---------------------------------------------------------------

TEST_F(StateMachineTest, UnhandledEventBubblesToTheTopAndIsReportedAndIgnored) {
  StartIn(kA);
  EXPECT_EQ(Run(Noise{}, DispatchResult::kUnhandled), Trace{});
  EXPECT_EQ(ctx_.visited, (Trace{"D", "C", "B", "A"}));
  EXPECT_EQ(sm_.CurrentState(), kD);
  // A transition request from a state that is not active is just not handled.
  EXPECT_EQ(Run(Go{kE, kZ, false}, DispatchResult::kUnhandled), Trace{});
  EXPECT_EQ(sm_.CurrentState(), kD);
}

TEST_F(StateMachineTest, StateWithoutHandlerPassesEverythingToItsParent) {
  Ctx ctx;
  Machine sm(ctx);
  ASSERT_EQ(Add<kA>(sm, kTopState), StateMachineError::kOk);
  ASSERT_EQ(sm.AddState(kB, "B", kA, nullptr), StateMachineError::kOk);
  ASSERT_EQ(sm.Start(kB), StateMachineError::kOk);
  ctx.trace.clear();
  EXPECT_EQ(sm.Dispatch(Event{Ping{kA}}), DispatchResult::kHandled);
  EXPECT_EQ(ctx.visited, (Trace{"A"}));
  EXPECT_EQ(sm.Dispatch(Event{Go{kA, kB, false}}), DispatchResult::kTransitioned);
  EXPECT_TRUE(ctx.trace.empty());  // B has no actions; A is not exited (local).
  EXPECT_EQ(sm.CurrentState(), kB);
}

TEST_F(StateMachineTest, TraceHookSeesEntriesExitsAndUnhandledEvents) {
  static Trace hook_log;
  hook_log.clear();
  sm_.SetTraceHook([](Ctx&, TraceKind kind, StateId state) {
    const char* what = kind == TraceKind::kEntry  ? "enter "
                       : kind == TraceKind::kExit ? "exit "
                                                  : "unhandled in ";
    hook_log.push_back(std::string(what) + kNames[state]);
  });
  ASSERT_EQ(sm_.Start(kC2), StateMachineError::kOk);
  EXPECT_EQ(sm_.Dispatch(Event{Noise{}}), DispatchResult::kUnhandled);
  EXPECT_EQ(sm_.Dispatch(Event{Go{kE, kD, false}}), DispatchResult::kTransitioned);
  EXPECT_EQ(hook_log, (Trace{"enter A", "enter B", "enter C2", "enter E", "unhandled in E",
                             "exit E", "exit C2", "enter C", "enter D"}));
  sm_.SetTraceHook(nullptr);
  EXPECT_EQ(sm_.Dispatch(Event{Noise{}}), DispatchResult::kUnhandled);
  EXPECT_EQ(hook_log.size(), 9U);
}

// --- IsIn, names, Stop ---------------------------------------------------------------------------

TEST_F(StateMachineTest, IsInIsTrueForTheCurrentStateAndItsAncestorsOnly) {
  EXPECT_FALSE(sm_.IsIn(kA));  // Not running.
  StartIn(kA);
  for (StateId s : {kA, kB, kC, kD})
    EXPECT_TRUE(sm_.IsIn(s)) << kNames[s];
  for (StateId s : {kD2, kC2, kE, kB2, kZ, kQ, kQ1})
    EXPECT_FALSE(sm_.IsIn(s)) << kNames[s];
  EXPECT_FALSE(sm_.IsIn(kNoState));
  EXPECT_FALSE(sm_.IsIn(kStateCount));   // Never added.
  EXPECT_FALSE(sm_.IsIn(StateId{200}));  // Beyond capacity.
  ASSERT_EQ(sm_.Dispatch(Event{Go{kD, kE, false}}), DispatchResult::kTransitioned);
  for (StateId s : {kA, kB, kC2, kE})
    EXPECT_TRUE(sm_.IsIn(s)) << kNames[s];
  for (StateId s : {kC, kD, kD2, kB2})
    EXPECT_FALSE(sm_.IsIn(s)) << kNames[s];
}

TEST_F(StateMachineTest, NamesAndTreeQueries) {
  EXPECT_STREQ(sm_.StateName(kC2), "C2");
  EXPECT_STREQ(sm_.StateName(kNoState), "(none)");
  EXPECT_STREQ(sm_.StateName(kStateCount), "(unknown)");
  EXPECT_STREQ(sm_.CurrentStateName(), "(none)");
  EXPECT_EQ(sm_.Parent(kE), kC2);
  EXPECT_EQ(sm_.Parent(kA), kTopState);
  EXPECT_EQ(sm_.Parent(kStateCount), kNoState);
  EXPECT_TRUE(sm_.Contains(kQ1));
  EXPECT_FALSE(sm_.Contains(kStateCount));
  EXPECT_EQ(sm_.StateCount(), static_cast<std::size_t>(kStateCount));
  EXPECT_EQ(Machine::Capacity(), 16U);
  EXPECT_EQ(&sm_.GetContext(), &ctx_);

  Ctx ctx;
  Machine sm(ctx);
  ASSERT_EQ(sm.AddState(kA, nullptr, kTopState, nullptr), StateMachineError::kOk);
  EXPECT_STREQ(sm.StateName(kA), "?");
}

TEST_F(StateMachineTest, StopExitsInnermostFirstAndAllowsARestart) {
  StartIn(kA);
  EXPECT_EQ(sm_.Stop(), StateMachineError::kOk);
  EXPECT_EQ(ctx_.trace, (Trace{"D:exit", "C:exit", "B:exit", "A:exit"}));
  EXPECT_FALSE(sm_.IsStarted());
  EXPECT_EQ(sm_.CurrentState(), kNoState);
  EXPECT_FALSE(sm_.IsIn(kA));
  EXPECT_EQ(sm_.Dispatch(Event{Noise{}}), DispatchResult::kNotStarted);
  EXPECT_EQ(sm_.Stop(), StateMachineError::kNotStarted);
  // Configuration is allowed again; Start() re-enters the remembered top-level initial state.
  EXPECT_EQ(sm_.SetInitialState(kB, kC2), StateMachineError::kOk);
  ctx_.trace.clear();
  EXPECT_EQ(sm_.Start(), StateMachineError::kOk);
  EXPECT_EQ(ctx_.trace, (Trace{"A:entry", "B:entry", "C2:entry", "E:entry"}));
}

// --- Configuration errors and capacity -----------------------------------------------------------

TEST(StateMachineConfig, AddingMoreStatesThanCapacityIsRefused) {
  Ctx ctx;
  mccc::StateMachine<Ctx, Event, 4> sm(ctx);
  EXPECT_EQ(sm.AddState(0, "s0", kTopState, nullptr), StateMachineError::kOk);
  EXPECT_EQ(sm.AddState(1, "s1", 0, nullptr), StateMachineError::kOk);
  EXPECT_EQ(sm.AddState(2, "s2", 1, nullptr), StateMachineError::kOk);
  EXPECT_EQ(sm.AddState(3, "s3", 2, nullptr), StateMachineError::kOk);
  EXPECT_EQ(sm.AddState(4, "s4", 3, nullptr), StateMachineError::kCapacityExceeded);
  EXPECT_EQ(sm.AddState(kNoState, "none", kTopState, nullptr),
            StateMachineError::kCapacityExceeded);
  EXPECT_EQ(sm.StateCount(), 4U);
  EXPECT_EQ(sm.Capacity(), 4U);
  EXPECT_FALSE(sm.Contains(4));
}

TEST(StateMachineConfig, BadConfigurationIsRefusedWithoutChangingTheMachine) {
  Ctx ctx;
  Machine sm(ctx);
  EXPECT_EQ(sm.Start(), StateMachineError::kNoInitialState);
  EXPECT_EQ(sm.Start(kA), StateMachineError::kUnknownState);
  ASSERT_EQ(Add<kA>(sm, kTopState), StateMachineError::kOk);
  EXPECT_EQ(Add<kA>(sm, kTopState), StateMachineError::kDuplicateState);
  EXPECT_EQ(Add<kC>(sm, kB), StateMachineError::kUnknownParent);  // Parent not added yet.
  EXPECT_EQ(Add<kC>(sm, StateId{99}), StateMachineError::kUnknownParent);
  EXPECT_EQ(Add<kC>(sm, kC), StateMachineError::kUnknownParent);  // Its own parent.
  ASSERT_EQ(Add<kB>(sm, kA), StateMachineError::kOk);
  ASSERT_EQ(Add<kZ>(sm, kTopState), StateMachineError::kOk);
  EXPECT_EQ(sm.StateCount(), 3U);
  EXPECT_EQ(sm.SetInitialState(kA, kA), StateMachineError::kNotADescendant);
  EXPECT_EQ(sm.SetInitialState(kA, kZ), StateMachineError::kNotADescendant);
  EXPECT_EQ(sm.SetInitialState(kB, kA), StateMachineError::kNotADescendant);  // An ancestor.
  EXPECT_EQ(sm.SetInitialState(kA, kE), StateMachineError::kUnknownState);
  EXPECT_EQ(sm.SetInitialState(kE, kA), StateMachineError::kUnknownState);
  EXPECT_EQ(sm.SetInitialState(kTopState, kE), StateMachineError::kUnknownState);
  EXPECT_EQ(sm.Start(), StateMachineError::kNoInitialState);  // Nothing was accepted.
  EXPECT_FALSE(sm.IsStarted());

  ASSERT_EQ(sm.Start(kA), StateMachineError::kOk);
  EXPECT_EQ(sm.CurrentState(), kA);  // No initial target was accepted for A.
  EXPECT_EQ(sm.Start(kA), StateMachineError::kAlreadyStarted);
  EXPECT_EQ(sm.Start(), StateMachineError::kAlreadyStarted);
  EXPECT_EQ(Add<kC>(sm, kB), StateMachineError::kAlreadyStarted);
  EXPECT_EQ(sm.SetInitialState(kA, kB), StateMachineError::kAlreadyStarted);
  EXPECT_EQ(ctx.trace, (Trace{"A:entry"}));
}

TEST(StateMachineConfig, DispatchBeforeStartIsReported) {
  Ctx ctx;
  Machine sm(ctx);
  ASSERT_EQ(Add<kA>(sm, kTopState), StateMachineError::kOk);
  EXPECT_EQ(sm.Dispatch(Event{Ping{kA}}), DispatchResult::kNotStarted);
  EXPECT_TRUE(ctx.visited.empty());
}

// A chain as deep as the capacity: the path scratch array and every loop must cope.
template <StateId kLevel>
void ChainEntry(Ctx& ctx) {
  ctx.trace.push_back("in" + std::to_string(kLevel));
}
template <StateId kLevel>
void ChainExit(Ctx& ctx) {
  ctx.trace.push_back("out" + std::to_string(kLevel));
}
HandlerResult ChainLeaf(Ctx&, const Event& event) {
  if (std::holds_alternative<Noise>(event)) return mccc::ExternalTransitionTo(0);
  return mccc::TransitionTo(0);
}

TEST(StateMachineConfig, ChainAsDeepAsTheCapacity) {
  Ctx ctx;
  mccc::StateMachine<Ctx, Event, 6> sm(ctx);
  ASSERT_EQ(sm.AddState(0, "l0", kTopState, nullptr, &ChainEntry<0>, &ChainExit<0>),
            StateMachineError::kOk);
  ASSERT_EQ(sm.AddState(1, "l1", 0, nullptr, &ChainEntry<1>, &ChainExit<1>),
            StateMachineError::kOk);
  ASSERT_EQ(sm.AddState(2, "l2", 1, nullptr, &ChainEntry<2>, &ChainExit<2>),
            StateMachineError::kOk);
  ASSERT_EQ(sm.AddState(3, "l3", 2, nullptr, &ChainEntry<3>, &ChainExit<3>),
            StateMachineError::kOk);
  ASSERT_EQ(sm.AddState(4, "l4", 3, nullptr, &ChainEntry<4>, &ChainExit<4>),
            StateMachineError::kOk);
  ASSERT_EQ(sm.AddState(5, "l5", 4, &ChainLeaf, &ChainEntry<5>, &ChainExit<5>),
            StateMachineError::kOk);
  ASSERT_EQ(sm.SetInitialState(0, 5), StateMachineError::kOk);
  ASSERT_EQ(sm.Start(0), StateMachineError::kOk);
  EXPECT_EQ(ctx.trace, (Trace{"in0", "in1", "in2", "in3", "in4", "in5"}));
  EXPECT_EQ(sm.CurrentState(), 5U);

  ctx.trace.clear();
  EXPECT_EQ(sm.Dispatch(Event{Noise{}}), DispatchResult::kTransitioned);  // External to root.
  EXPECT_EQ(ctx.trace, (Trace{"out5", "out4", "out3", "out2", "out1", "out0", "in0", "in1", "in2",
                              "in3", "in4", "in5"}));
  ctx.trace.clear();
  EXPECT_EQ(sm.Dispatch(Event{Ping{0}}), DispatchResult::kTransitioned);  // Local to root.
  EXPECT_EQ(ctx.trace,
            (Trace{"out5", "out4", "out3", "out2", "out1", "in1", "in2", "in3", "in4", "in5"}));
}

// --- Guards: a realistic machine driven by bus-style messages ------------------------------------

struct StartCmd {};
struct StopCmd {};
struct PowerToggle {};
struct Temperature {
  int celsius;
};
using Payload = std::variant<StartCmd, StopCmd, PowerToggle, Temperature>;

struct Motor {
  int celsius = 20;
  int start_refusals = 0;
  Trace trace;
};
using MotorMachine = mccc::StateMachine<Motor, Payload, 4>;
enum MotorState : StateId { kOff, kOn, kIdle, kRunning };

HandlerResult OffHandler(Motor&, const Payload& event) {
  if (std::holds_alternative<PowerToggle>(event)) return mccc::TransitionTo(kOn);
  return mccc::Unhandled();
}
HandlerResult OnHandler(Motor& motor, const Payload& event) {
  if (std::holds_alternative<PowerToggle>(event)) return mccc::TransitionTo(kOff);
  if (std::holds_alternative<StartCmd>(event)) {  // Reached only when Idle's guard failed.
    ++motor.start_refusals;
    return mccc::Handled();
  }
  if (const Temperature* t = std::get_if<Temperature>(&event)) {
    motor.celsius = t->celsius;
    return mccc::Handled();
  }
  return mccc::Unhandled();
}
HandlerResult IdleHandler(Motor& motor, const Payload& event) {
  if (std::holds_alternative<StartCmd>(event)) {
    if (motor.celsius < 80) return mccc::TransitionTo(kRunning);  // Guard holds.
    return mccc::Unhandled();  // Guard fails: let On decide (it counts a refusal).
  }
  return mccc::Unhandled();
}
HandlerResult RunningHandler(Motor& motor, const Payload& event) {
  if (std::holds_alternative<StopCmd>(event)) return mccc::TransitionTo(kIdle);
  if (const Temperature* t = std::get_if<Temperature>(&event)) {
    motor.celsius = t->celsius;
    if (t->celsius >= 80) return mccc::TransitionTo(kIdle);  // Over-temperature guard.
    return mccc::Handled();                                  // Guard fails: consume.
  }
  return mccc::Unhandled();
}
void PowerUp(Motor& m) {
  m.trace.emplace_back("power up");
}
void PowerDown(Motor& m) {
  m.trace.emplace_back("power down");
}
void SpinUp(Motor& m) {
  m.trace.emplace_back("spin up");
}
void SpinDown(Motor& m) {
  m.trace.emplace_back("spin down");
}

class MotorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(sm_.AddState(kOff, "Off", kTopState, &OffHandler), StateMachineError::kOk);
    ASSERT_EQ(sm_.AddState(kOn, "On", kTopState, &OnHandler, &PowerUp, &PowerDown),
              StateMachineError::kOk);
    ASSERT_EQ(sm_.AddState(kIdle, "Idle", kOn, &IdleHandler), StateMachineError::kOk);
    ASSERT_EQ(sm_.AddState(kRunning, "Running", kOn, &RunningHandler, &SpinUp, &SpinDown),
              StateMachineError::kOk);
    ASSERT_EQ(sm_.SetInitialState(kOn, kIdle), StateMachineError::kOk);
    ASSERT_EQ(sm_.Start(kOff), StateMachineError::kOk);
  }
  Motor motor_;
  MotorMachine sm_{motor_};
};

TEST_F(MotorTest, GuardTrueTakesTheTransition) {
  EXPECT_EQ(sm_.Dispatch(PowerToggle{}), DispatchResult::kTransitioned);
  EXPECT_STREQ(sm_.CurrentStateName(), "Idle");
  EXPECT_EQ(sm_.Dispatch(StartCmd{}), DispatchResult::kTransitioned);
  EXPECT_STREQ(sm_.CurrentStateName(), "Running");
  EXPECT_EQ(motor_.trace, (Trace{"power up", "spin up"}));
  EXPECT_EQ(motor_.start_refusals, 0);
}

TEST_F(MotorTest, GuardFalseBubblesToTheParent) {
  ASSERT_EQ(sm_.Dispatch(PowerToggle{}), DispatchResult::kTransitioned);
  EXPECT_EQ(sm_.Dispatch(Temperature{95}), DispatchResult::kHandled);  // On records it.
  EXPECT_EQ(sm_.Dispatch(StartCmd{}), DispatchResult::kHandled);
  EXPECT_EQ(motor_.start_refusals, 1);
  EXPECT_STREQ(sm_.CurrentStateName(), "Idle");
  EXPECT_EQ(motor_.trace, (Trace{"power up"}));
}

TEST_F(MotorTest, GuardInsideTheHandlerCanConsumeOrTransition) {
  ASSERT_EQ(sm_.Dispatch(PowerToggle{}), DispatchResult::kTransitioned);
  ASSERT_EQ(sm_.Dispatch(StartCmd{}), DispatchResult::kTransitioned);
  EXPECT_EQ(sm_.Dispatch(Temperature{60}), DispatchResult::kHandled);  // Guard false.
  EXPECT_STREQ(sm_.CurrentStateName(), "Running");
  EXPECT_EQ(sm_.Dispatch(Temperature{85}), DispatchResult::kTransitioned);  // Guard true.
  EXPECT_STREQ(sm_.CurrentStateName(), "Idle");
  EXPECT_EQ(sm_.Dispatch(PowerToggle{}), DispatchResult::kTransitioned);  // Handled by On.
  EXPECT_STREQ(sm_.CurrentStateName(), "Off");
  EXPECT_EQ(motor_.trace, (Trace{"power up", "spin up", "spin down", "power down"}));
  EXPECT_EQ(sm_.Dispatch(StopCmd{}), DispatchResult::kUnhandled);  // Nobody in Off cares.
}

TEST_F(MotorTest, ConsumerLoopVisitorDispatchesEachPayloadInOneCall) {
  // What a bus consumer does: a generic visitor forwards each message; Dispatch(const T&)
  // builds the payload, Dispatch(const Payload&) takes it as is.
  const std::vector<Payload> batch = {PowerToggle{}, StartCmd{}, Temperature{90}, StopCmd{},
                                      PowerToggle{}};
  std::vector<DispatchResult> results;
  for (const Payload& message : batch) {
    std::visit([&](const auto& m) { results.push_back(sm_.Dispatch(m)); }, message);
  }
  EXPECT_EQ(results, (std::vector<DispatchResult>{
                         DispatchResult::kTransitioned, DispatchResult::kTransitioned,
                         DispatchResult::kTransitioned, DispatchResult::kUnhandled,
                         DispatchResult::kTransitioned}));
  EXPECT_EQ(sm_.Dispatch(batch.front()), DispatchResult::kTransitioned);
  EXPECT_EQ(motor_.trace, (Trace{"power up", "spin up", "spin down", "power down", "power up"}));
}

// --- Misuse: re-entrance and bad targets ---------------------------------------------------------

HandlerResult BadTargetHandler(Ctx&, const Event&) {
  return mccc::TransitionTo(kStateCount);
}
void DispatchFromEntry(Ctx& ctx) {
  ctx.trace.emplace_back(mccc::ToString(ctx.machine->Dispatch(Event{Noise{}})));
}
void StopFromExit(Ctx& ctx) {
  ctx.trace.emplace_back(mccc::ToString(ctx.machine->Stop()));
}
void AddStateFromEntry(Ctx& ctx) {
  ctx.trace.emplace_back(mccc::ToString(ctx.machine->AddState(kZ, "Z", kTopState, nullptr)));
}

#if MCCC_ENABLE_ASSERTS
// Debug builds: misuse stops the program with a message naming the mistake.
TEST(StateMachineMisuseDeathTest, TransitionFromAnEntryActionAsserts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Ctx ctx;
  Machine sm(ctx);
  ctx.machine = &sm;
  ASSERT_EQ(sm.AddState(kA, "A", kTopState, nullptr, &DispatchFromEntry), StateMachineError::kOk);
  EXPECT_DEATH((void)sm.Start(kA), "Dispatch called from a handler, action or trace hook");
}

TEST(StateMachineMisuseDeathTest, StopFromAnExitActionAsserts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Ctx ctx;
  Machine sm(ctx);
  ctx.machine = &sm;
  ASSERT_EQ(sm.AddState(kA, "A", kTopState, nullptr, nullptr, &StopFromExit),
            StateMachineError::kOk);
  ASSERT_EQ(sm.Start(kA), StateMachineError::kOk);
  EXPECT_DEATH((void)sm.Stop(), "Stop called from a handler, action or trace hook");
}

TEST(StateMachineMisuseDeathTest, TransitionToAStateNeverAddedAsserts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Ctx ctx;
  Machine sm(ctx);
  ASSERT_EQ(sm.AddState(kA, "A", kTopState, &BadTargetHandler), StateMachineError::kOk);
  ASSERT_EQ(sm.Start(kA), StateMachineError::kOk);
  EXPECT_DEATH((void)sm.Dispatch(Event{Noise{}}), "transition to a state that was never added");
}
#else
// Asserts compiled out: misuse returns the documented value and leaves the machine unchanged.
TEST(StateMachineMisuse, TransitionFromAnEntryActionIsRefused) {
  Ctx ctx;
  Machine sm(ctx);
  ctx.machine = &sm;
  ASSERT_EQ(sm.AddState(kA, "A", kTopState, nullptr, &DispatchFromEntry), StateMachineError::kOk);
  ASSERT_EQ(sm.Start(kA), StateMachineError::kOk);
  EXPECT_EQ(ctx.trace, (Trace{"reentrant call"}));
  EXPECT_EQ(sm.CurrentState(), kA);
}

TEST(StateMachineMisuse, StopFromAnExitActionIsRefused) {
  Ctx ctx;
  Machine sm(ctx);
  ctx.machine = &sm;
  ASSERT_EQ(sm.AddState(kA, "A", kTopState, nullptr, nullptr, &StopFromExit),
            StateMachineError::kOk);
  ASSERT_EQ(sm.Start(kA), StateMachineError::kOk);
  EXPECT_EQ(sm.Stop(), StateMachineError::kOk);
  EXPECT_EQ(ctx.trace, (Trace{"reentrant call"}));
  EXPECT_FALSE(sm.IsStarted());
}

TEST(StateMachineMisuse, TransitionToAStateNeverAddedIsRefused) {
  Ctx ctx;
  Machine sm(ctx);
  ASSERT_EQ(sm.AddState(kA, "A", kTopState, &BadTargetHandler), StateMachineError::kOk);
  ASSERT_EQ(sm.Start(kA), StateMachineError::kOk);
  EXPECT_EQ(sm.Dispatch(Event{Noise{}}), DispatchResult::kInvalidTarget);
  EXPECT_EQ(sm.CurrentState(), kA);
}
#endif

TEST(StateMachineMisuse, ConfigurationFromAnActionIsRefused) {
  Ctx ctx;
  Machine sm(ctx);
  ctx.machine = &sm;
  ASSERT_EQ(sm.AddState(kA, "A", kTopState, nullptr, &AddStateFromEntry), StateMachineError::kOk);
  ASSERT_EQ(sm.Start(kA), StateMachineError::kOk);
  EXPECT_EQ(ctx.trace, (Trace{"reentrant call"}));
  EXPECT_FALSE(sm.Contains(kZ));
}

#if MCCC_HAS_EXCEPTIONS
HandlerResult ThrowingHandler(Ctx&, const Event& event) {
  if (std::holds_alternative<Noise>(event)) throw std::runtime_error("handler failed");
  return mccc::TransitionTo(kB);
}
void ThrowingEntry(Ctx&) {
  throw std::runtime_error("entry failed");
}

TEST(StateMachineExceptions, AThrowingHandlerOrActionLeavesTheMachineUsable) {
  Ctx ctx;
  Machine sm(ctx);
  ASSERT_EQ(sm.AddState(kA, "A", kTopState, &ThrowingHandler), StateMachineError::kOk);
  ASSERT_EQ(sm.AddState(kB, "B", kA, nullptr, &ThrowingEntry), StateMachineError::kOk);
  ASSERT_EQ(sm.Start(kA), StateMachineError::kOk);
  EXPECT_THROW(sm.Dispatch(Event{Noise{}}), std::runtime_error);
  EXPECT_EQ(sm.CurrentState(), kA);
  EXPECT_THROW(sm.Dispatch(Event{Ping{kA}}), std::runtime_error);  // B's entry throws.
  EXPECT_EQ(sm.CurrentState(), kB);              // Active from the start of its entry action.
  EXPECT_EQ(sm.Stop(), StateMachineError::kOk);  // Not stuck in the busy state.
  EXPECT_EQ(sm.CurrentState(), kNoState);
}
#endif

// --- Compile-time properties ---------------------------------------------------------------------

static_assert(sizeof(HandlerResult) == 4U, "a handler result fits a register");
static_assert(std::is_trivially_copyable<HandlerResult>::value, "returned by value");
static_assert(mccc::TransitionTo(3).kind() == HandlerResult::Kind::kTransition, "constexpr");
static_assert(mccc::TransitionTo(3).target() == 3U, "constexpr");
static_assert(mccc::ExternalTransitionTo(2).kind() == HandlerResult::Kind::kExternalTransition,
              "constexpr");
static_assert(mccc::Handled().target() == kNoState, "no target");
static_assert(!std::is_copy_constructible<Machine>::value, "not copyable");
static_assert(!std::is_move_constructible<Machine>::value, "not movable");
static_assert(Machine::Capacity() == 16U, "capacity is the template argument");
static_assert(kTopState == kNoState, "the top is 'no state'");

TEST(StateMachineStrings, EveryValueHasAName) {
  EXPECT_STREQ(mccc::ToString(StateMachineError::kOk), "ok");
  EXPECT_STREQ(mccc::ToString(StateMachineError::kCapacityExceeded), "capacity exceeded");
  EXPECT_STREQ(mccc::ToString(StateMachineError::kDuplicateState), "duplicate state");
  EXPECT_STREQ(mccc::ToString(StateMachineError::kUnknownParent), "unknown parent");
  EXPECT_STREQ(mccc::ToString(StateMachineError::kUnknownState), "unknown state");
  EXPECT_STREQ(mccc::ToString(StateMachineError::kNotADescendant), "not a descendant");
  EXPECT_STREQ(mccc::ToString(StateMachineError::kNoInitialState), "no initial state");
  EXPECT_STREQ(mccc::ToString(StateMachineError::kAlreadyStarted), "already started");
  EXPECT_STREQ(mccc::ToString(StateMachineError::kNotStarted), "not started");
  EXPECT_STREQ(mccc::ToString(StateMachineError::kReentrantCall), "reentrant call");
  EXPECT_STREQ(mccc::ToString(DispatchResult::kHandled), "handled");
  EXPECT_STREQ(mccc::ToString(DispatchResult::kTransitioned), "transitioned");
  EXPECT_STREQ(mccc::ToString(DispatchResult::kUnhandled), "unhandled");
  EXPECT_STREQ(mccc::ToString(DispatchResult::kNotStarted), "not started");
  EXPECT_STREQ(mccc::ToString(DispatchResult::kInvalidTarget), "invalid target");
  EXPECT_STREQ(mccc::ToString(DispatchResult::kReentrantCall), "reentrant call");
}

}  // namespace
