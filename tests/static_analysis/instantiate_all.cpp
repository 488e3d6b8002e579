// SPDX-License-Identifier: MIT
// Translation unit for the static analysis of the headers (scripts/static_analysis.sh,
// docs/static_analysis.md). clang-tidy and cppcheck only look inside a template once it is
// instantiated, so this file instantiates every public class template and member function
// template of include/mccc/ in the configurations that select different code:
//   - AsyncBus with the default traits (MPSC, sharded statistics, futex parking),
//     single-producer traits (no CAS, fence before the wake-up) and single-core traits
//     (relaxed atomics + signal fences, one statistics shard, no parking);
//   - every Publish form, every accepted Subscribe callback form (void and bool results),
//     ProcessBatch and ProcessBatchWith (make_overloaded visitor and StaticComponent visitor);
//   - Component (SubscribeSafe with the base and a derived pointer, SubscribeSimple),
//     StaticComponent, StateMachine, FixedVector / FixedString / FixedFunction, ActiveObject
//     with both dispatch modes, the idle policy, the clocks, MpscRing on its own, and the test
//     hooks when built with -DMCCC_ENABLE_TEST_HOOKS=1;
//   - explicit instantiation definitions (bottom of the file) of the main class templates, so
//     member functions that nothing here calls are analysed as well.
// The configurations themselves (-DNDEBUG, -fno-exceptions, -DMCCC_HOSTED=0, ...) are chosen by
// the script. It is compiled and run too (`main` returns 0 when every step behaved), so a change
// that makes it ill-formed or wrong is noticed, but its purpose is the analysis, not testing.
// G-37: every public header is analysed by clang-tidy and cppcheck through this unit
#include <mccc/mccc.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#if MCCC_HOSTED
#include <chrono>
#include <ratio>
#endif

#include "mccc/component.hpp"
#include "mccc/components/idle_strategy.hpp"
#include "mccc/static_component.hpp"

namespace {

struct Temperature {
  int32_t celsius;
};
struct Command {
  int32_t code;
};
// Nothrow-movable, but its copy may throw: exercises the "copy before claiming" publish path.
struct Note {
  std::string text;
};
// Constructor that may throw: exercises PublishEmplace's fallback path.
struct Reading {
  explicit Reading(int32_t v) : value(v) {}  // not noexcept on purpose
  int32_t value;
};
using Name = mccc::FixedString<16U>;
using Payload = std::variant<Temperature, Command, Note, Reading, Name>;

struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
  static constexpr uint32_t kMaxCallbacksPerType = 4U;
  static constexpr uint32_t kMaxSubscriptionsPerComponent = 8U;
};
struct SingleProducerTraits : SmallTraits {
  static constexpr bool kSingleProducer = true;
};
struct SingleCoreTraits : SmallTraits {
  static constexpr bool kSingleCore = true;
  static constexpr bool kSingleCoreUnsafeAcknowledged = true;
  static constexpr uint32_t kStatisticsShards = 1U;
  using Clock = mccc::NullClock;
};
// The bare-metal layout on every target: compact slots without a timestamp field, a critical
// section for the read-modify-writes and the control paths.
struct CountingCriticalSection {
  static int& Depth() noexcept {
    static int depth = 0;
    return depth;
  }
  static int Enter() noexcept { return Depth()++; }
  static void Exit(int saved) noexcept { Depth() = saved; }
};
struct CompactSingleCoreTraits : SingleCoreTraits {
  static constexpr bool kCompactEnvelope = true;
  using CriticalSection = CountingCriticalSection;
};
#if MCCC_HAS_TSC_CLOCK
struct TscTraits : SmallTraits {
  using Clock = mccc::TscClock;
};
#endif

int& ErrorCount() noexcept {
  static int errors = 0;
  return errors;
}
void OnBusError(mccc::BusError /*error*/, uint64_t /*msg_id*/) noexcept {
  ++ErrorCount();
}

// Counts a failed step (the exit status says whether any failed).
bool Check(bool condition, int& failures) {
  if (!condition) {
    ++failures;
  }
  return condition;
}

// Every publish and subscribe form on one bus type.
template <typename Bus>
int ExerciseBus() {
  int failures = 0;
  auto bus = std::make_unique<Bus>();
  bus->SetErrorCallback(&OnBusError);

  int sum = 0;
  const mccc::SubscriptionHandle h1 =
      bus->template Subscribe<Temperature>([&sum](const Temperature& t) { sum += t.celsius; });
  const mccc::SubscriptionHandle h2 = bus->template Subscribe<Command>(
      [&sum](const Command& c, const mccc::MessageHeader& /*header*/) -> bool {
        sum += c.code;
        return true;
      });
  mccc::SubscriptionHandle h3 = mccc::kInvalidSubscription;
  mccc::SubscriptionHandle h4 = mccc::kInvalidSubscription;
  if constexpr (Bus::kCompactEnvelope) {
    // A compact slot has no MessageEnvelope to hand over: the typed forms get the full header.
    h3 = bus->template Subscribe<Note>([&sum](const Note&, const mccc::MessageHeader& header) {
      sum += static_cast<int>(header.sender_id);
    });
    h4 = bus->template Subscribe<Reading>([](const Reading& /*reading*/) -> bool { return false; });
  } else {
    h3 = bus->template Subscribe<Note>([&sum](const typename Bus::Envelope& envelope) {
      sum += static_cast<int>(envelope.header.sender_id);
    });
    h4 = bus->template Subscribe<Reading>(
        [](const typename Bus::Envelope& /*envelope*/) -> bool { return false; });
  }
  const mccc::SubscriptionHandle h5 =
      bus->template Subscribe<Name>([](const Name& n) -> bool { return n == "motor"; });
  Check(h1.IsValid() && h2.IsValid() && h3.IsValid() && h4.IsValid() && h5.IsValid(), failures);
  Check(bus->template SubscriberCount<Temperature>() == 1U, failures);

  const Note note{"a note that is long enough to need the heap"};
  const Payload whole{Command{3}};
  Check(bus->Publish(Temperature{1}, 1U), failures);
  Check(bus->PublishWithPriority(Command{2}, 2U, mccc::MessagePriority::kHigh), failures);
  if constexpr (Bus::kStoresTimestamp) {
    Check(bus->PublishFast(note, 3U, 42U), failures);  // lvalue: copied before the claim
    Check(bus->PublishFast(Note{"moved"}, 3U, 43U, mccc::MessagePriority::kLow), failures);
  } else {  // no timestamp field to take the caller's value
    Check(bus->PublishWithPriority(note, 3U, mccc::MessagePriority::kMedium), failures);
    Check(bus->PublishWithPriority(Note{"moved"}, 3U, mccc::MessagePriority::kLow), failures);
  }
  Check(
      bus->template PublishEmplace<Temperature>(4U, mccc::MessagePriority::kMedium, Temperature{5}),
      failures);
  Check(bus->template PublishEmplace<Reading>(5U, mccc::MessagePriority::kMedium, 6), failures);
  Check(bus->Publish(Payload{Temperature{7}}, 6U), failures);
  Check(bus->Publish(Name("motor"), 7U), failures);
  static_cast<void>(whole);

  Check(bus->QueueOccupancy() == 8U, failures);
  Check(bus->QueueUtilizationPercent() <= 100U, failures);
  Check(bus->GetBackpressureLevel() == mccc::BackpressureLevel::kNormal, failures);
  Check(Bus::Capacity() == 64U, failures);
  Check(bus->WaitForMessages(0U), failures);
  Check(bus->ProcessBatch() == 8U, failures);

  // ProcessBatchWith with a make_overloaded visitor (a generic lambda ignores the rest).
  Check(bus->Publish(Temperature{10}, 1U), failures);
  Check(bus->Publish(Command{20}, 1U), failures);
  int visited = 0;
  const uint32_t with = bus->ProcessBatchWith(mccc::make_overloaded(
      [&visited](const Temperature& t) { visited += t.celsius; },
      [&visited](const Command& c, const mccc::MessageHeader& /*header*/) -> bool {
        visited += c.code;
        return true;
      },
      [](const auto& /*other*/) {}));
  Check(with == 2U && visited == 30, failures);

  bus->SetPerformanceMode(mccc::PerformanceMode::kNoStats);
  Check(bus->GetPerformanceMode() == mccc::PerformanceMode::kNoStats, failures);
  bus->SetPerformanceMode(mccc::PerformanceMode::kBareMetal);
  Check(bus->Publish(Temperature{1}, 1U), failures);
  Check(bus->ProcessBatch() == 1U, failures);
  bus->SetPerformanceMode(mccc::PerformanceMode::kFullFeatured);

  const mccc::BusStatisticsSnapshot stats = bus->GetStatistics();
  Check(stats.messages_published == 10U, failures);
  bus->ResetStatistics();
  Check(bus->GetStatistics().messages_published == 0U, failures);

  bus->WakeConsumer();
  Check(bus->Unsubscribe(h1) && bus->Unsubscribe(h2) && bus->Unsubscribe(h3), failures);
  Check(!bus->Unsubscribe(h1), failures);
  Check(!bus->Unsubscribe(mccc::kInvalidSubscription), failures);
  return failures + (sum == 0 ? 1 : 0);
}

// ---- Component -------------------------------------------------------------------------------
using Bus = mccc::AsyncBus<Payload, SmallTraits>;

class Listener : public mccc::Component<Payload, SmallTraits> {
 public:
  explicit Listener(Bus& bus) noexcept : Component(bus) {}
  int last = 0;

 protected:
  void OnInitialize() override {
    static_cast<void>(SubscribeSimple<Temperature>(
        [this](const Temperature& t, const mccc::MessageHeader& /*header*/) { last = t.celsius; }));
    static_cast<void>(SubscribeSimple<Command>([this](const Command& c) -> bool {
      last = c.code;
      return true;
    }));
    static_cast<void>(SubscribeSafe<Note>([](std::shared_ptr<Listener>& self, const Note& n) {
      self->last = static_cast<int>(n.text.size());
    }));
    static_cast<void>(
        SubscribeSafe<Reading>([](std::shared_ptr<Component>& /*self*/, const Reading& /*r*/,
                                  const mccc::MessageHeader& /*header*/) -> bool { return true; }));
  }
};

int ExerciseComponent() {
  int failures = 0;
  auto bus = std::make_unique<Bus>();
  auto listener = std::make_shared<Listener>(*bus);
  Check(listener->InitializeComponent(), failures);
  Check(listener->IsInitialized(), failures);
  Check(listener->SubscriptionCount() == 4U, failures);
  Check(listener->RefusedSubscriptionCount() == 0U, failures);
  Check(bus->Publish(Temperature{21}, 1U), failures);
  Check(bus->ProcessBatch() == 1U && listener->last == 21, failures);
  const mccc::SubscriptionHandle extra = listener->SubscribeSimple<Name>([](const Name& /*n*/) {});
  Check(listener->Unsubscribe(extra), failures);
  Check(&listener->GetBus() == bus.get(), failures);
  Check(listener->UnsubscribeAll() == 4U, failures);
  return failures;
}

// ---- StaticComponent -------------------------------------------------------------------------
class Controller : public mccc::StaticComponent<Controller, Payload> {
 public:
  void Handle(const Temperature& t) { total += t.celsius; }
  bool Handle(const Command& c, const mccc::MessageHeader& /*header*/) const noexcept {
    return c.code >= lowest_code;
  }
  int total = 0;
  int lowest_code = 0;
};
static_assert(mccc::kHasHandler<Controller, Temperature>, "Handle(const T&)");
static_assert(mccc::HasHandler<Controller, Command>::value, "Handle(const T&, header)");
static_assert(!mccc::kHasHandler<Controller, Note>, "no handler");

int ExerciseStaticComponent() {
  int failures = 0;
  auto bus = std::make_unique<Bus>();
  Controller controller;
  Check(bus->Publish(Temperature{4}, 1U), failures);
  Check(bus->Publish(Command{1}, 1U), failures);
  Check(bus->Publish(Note{"ignored"}, 1U), failures);
  Check(bus->ProcessBatchWith(controller.MakeVisitor()) == 3U, failures);
  Check(controller.total == 4, failures);
  return failures;
}

// ---- StateMachine ----------------------------------------------------------------------------
struct Motor {
  int entries = 0;
  int exits = 0;
  int traces = 0;
};
enum MotorState : mccc::StateId { kOff, kOn, kIdle, kRunning };
using Machine = mccc::StateMachine<Motor, Payload, 4U>;

mccc::HandlerResult OnOff(Motor& /*m*/, const Payload& e) {
  return std::holds_alternative<Command>(e) ? mccc::TransitionTo(kOn) : mccc::Unhandled();
}
mccc::HandlerResult OnOn(Motor& /*m*/, const Payload& e) {
  return std::holds_alternative<Temperature>(e) ? mccc::ExternalTransitionTo(kOff)
                                                : mccc::Handled();
}
mccc::HandlerResult OnIdle(Motor& /*m*/, const Payload& e) {
  return std::holds_alternative<Command>(e) ? mccc::TransitionTo(kRunning) : mccc::Unhandled();
}
void Enter(Motor& m) {
  ++m.entries;
}
void Leave(Motor& m) {
  ++m.exits;
}
void Trace(Motor& m, mccc::TraceKind /*kind*/, mccc::StateId /*state*/) {
  ++m.traces;
}

int ExerciseStateMachine() {
  int failures = 0;
  Motor motor;
  Machine sm(motor);
  Check(sm.AddState(kOff, "Off", mccc::kTopState, &OnOff) == mccc::StateMachineError::kOk,
        failures);
  Check(sm.AddState(kOn, "On", mccc::kTopState, &OnOn, &Enter, &Leave) ==
            mccc::StateMachineError::kOk,
        failures);
  Check(sm.AddState(kIdle, "Idle", kOn, &OnIdle) == mccc::StateMachineError::kOk, failures);
  Check(sm.AddState(kRunning, "Running", kOn, nullptr, &Enter, &Leave) ==
            mccc::StateMachineError::kOk,
        failures);
  Check(sm.SetInitialState(kOn, kIdle) == mccc::StateMachineError::kOk, failures);
  Check(sm.SetInitialState(mccc::kTopState, kOff) == mccc::StateMachineError::kOk, failures);
  sm.SetTraceHook(&Trace);
  Check(sm.Start() == mccc::StateMachineError::kOk, failures);
  Check(sm.Dispatch(Command{1}) == mccc::DispatchResult::kTransitioned, failures);
  Check(sm.CurrentState() == kIdle && sm.IsIn(kOn), failures);
  Check(sm.Dispatch(Payload{Command{1}}) == mccc::DispatchResult::kTransitioned, failures);
  Check(sm.Dispatch(Name("x")) == mccc::DispatchResult::kHandled, failures);
  Check(sm.Dispatch(Temperature{1}) == mccc::DispatchResult::kTransitioned, failures);
  Check(sm.Dispatch(Note{"x"}) == mccc::DispatchResult::kUnhandled, failures);
  Check(sm.Parent(kIdle) == kOn && sm.Contains(kRunning) && sm.StateCount() == 4U, failures);
  Check(mccc::ToString(mccc::StateMachineError::kOk) != nullptr, failures);
  Check(mccc::ToString(mccc::DispatchResult::kHandled) != nullptr, failures);
  Check(sm.StateName(kOn) != nullptr && sm.CurrentStateName() != nullptr, failures);
  Check(&sm.GetContext() == &motor && sm.IsStarted(), failures);
  Check(sm.Stop() == mccc::StateMachineError::kOk, failures);
  Check(Machine::Capacity() == 4U, failures);
  return failures;
}

// ---- Containers ------------------------------------------------------------------------------
template <typename T>
int ExerciseFixedVector(const T& a, const T& b) {
  int failures = 0;
  mccc::FixedVector<T, 4U> v;
  Check(v.push_back(a) && v.push_back(T(b)) && v.emplace_back(a), failures);
  mccc::FixedVector<T, 4U> copy(v);
  mccc::FixedVector<T, 4U> moved(std::move(copy));
  mccc::FixedVector<T, 4U> copy_assigned;
  copy_assigned = v;
  mccc::FixedVector<T, 4U> assigned;
  assigned = std::move(moved);
  Check(copy_assigned.size() == 3U, failures);
  Check(assigned.size() == 3U && v.front() == a && v.back() == a && v[1] == b, failures);
  const mccc::FixedVector<T, 4U>& cv = v;
  Check(cv.front() == a && cv.back() == a && cv[0] == a && cv.data() != nullptr, failures);
  Check(v.erase_unordered(v.begin()) && v.erase_unordered(std::size_t{0U}), failures);
  Check(!v.erase_unordered(cv.cend()), failures);
  Check(v.pop_back() && v.empty() && !v.full(), failures);
  const T* first = nullptr;
  for (const T& element : assigned) {
    first = (first == nullptr) ? &element : first;
  }
  Check(first == assigned.data() && assigned.capacity() == 4U, failures);
  assigned.clear();
  Check(v.data() == v.begin() && v.end() == v.begin(), failures);
  Check(assigned.cbegin() == assigned.cend(), failures);
  return failures;
}

int ExerciseFixedString() {
  int failures = 0;
  mccc::FixedString<8U> s = "motor";
  const mccc::FixedString<8U> t(mccc::TruncateToCapacity, "a long runtime string");
  const mccc::FixedString<8U> u(mccc::TruncateToCapacity, "abc", 2U);
  const mccc::FixedString<8U> n(mccc::TruncateToCapacity, nullptr);
  Check(t.size() == 8U && u.size() == 2U && n.empty(), failures);
  Check(s == "motor", failures);
  Check("a long r" == t, failures);
  Check(u != "abc", failures);
  Check("ab" != n, failures);
  Check(s == mccc::FixedString<16U>("motor") && s != t, failures);
  s = "pump";
  Check(s.size() == 4U && mccc::FixedString<8U>::capacity() == 8U &&
            std::string_view(s.c_str()) == "pump",
        failures);
  s.clear();
  Check(s.empty(), failures);
  return failures;
}

int Twice(int x) {
  return 2 * x;
}
struct Accumulator {
  int total = 0;
  void Add(int x) { total += x; }
};

int ExerciseFixedFunction() {
  int failures = 0;
  mccc::FixedFunction<int(int)> f = &Twice;
  Check(static_cast<bool>(f) && f(2) == 4, failures);
  int captured = 3;
  f = [captured](int x) { return x + captured; };
  Check(f(1) == 4, failures);
  mccc::FixedFunction<int(int)> g(std::move(f));
  Check(g(1) == 4, failures);
  f = std::move(g);
  f = nullptr;
  Check(!f, failures);
  mccc::FixedFunction<void(Accumulator&, int), 32U> member = &Accumulator::Add;
  Accumulator acc;
  member(acc, 5);
  Check(acc.total == 5, failures);
  auto counter = [n = 0](int x) mutable {
    n += x;
    return n;
  };
  mccc::FixedFunction<void(int)> discard(counter);  // non-void result discarded
  discard(1);
  const mccc::FixedFunction<void()> empty(nullptr);
  Check(!empty && mccc::FixedFunction<void()>::capacity() > 0U, failures);
  return failures;
}

// ---- ActiveObject and the idle policy -----------------------------------------------------------
int ExerciseActiveObject() {
  int failures = 0;
  mccc::IdleBackoff backoff(mccc::IdleStrategy::BusySpin());
  Check(backoff.OnEmptyPoll() == mccc::IdleAction::kSpin && backoff.SleepTimeoutUs() > 0U,
        failures);
  backoff.Reset();
  mccc::CpuRelax();
#if MCCC_HOSTED
  auto bus = std::make_unique<Bus>();
  int seen = 0;
  static_cast<void>(
      bus->Subscribe<Temperature>([&seen](const Temperature& t) { seen += t.celsius; }));
  mccc::ActiveObjectOptions options;
  options.thread_name = "mccc-analysis";
  options.idle_strategy = mccc::IdleStrategy::SpinThenYieldThenSleep(10U, 10U, 1000U);
  mccc::ActiveObject consumer(*bus, options);
  const mccc::StartResult started = consumer.Start();
  Check(started.Ok(), failures);
  Check(bus->Publish(Temperature{2}, 1U), failures);
  Check(consumer.Stop() == mccc::StopStatus::kStopped && seen == 2, failures);
  Check(!consumer.IsRunning() && !consumer.IsConsumerThread(), failures);
  Check(consumer.ProcessedCount() == 1U && consumer.SleepCount() < 1000000U, failures);
  Check(consumer.SetOptions(consumer.Options()) && &consumer.GetBus() == bus.get(), failures);

  auto visitor = mccc::make_overloaded([&seen](const Temperature& t) { seen += t.celsius; },
                                       [](const auto& /*other*/) {});
  mccc::ActiveObjectOptions spin;
  spin.idle_strategy = mccc::IdleStrategy::SpinThenYield(10U);
  mccc::ActiveObject visiting(*bus, visitor, spin);
  Check(visiting.Start().status == mccc::StartStatus::kStarted, failures);
  Check(bus->Publish(Temperature{3}, 1U), failures);
  visiting.RequestStop();
  static_cast<void>(visiting.NativeHandle());
  Check(visiting.Stop() != mccc::StopStatus::kDeferred && seen == 5, failures);
#endif
  return failures;
}

// ---- ScopedSubscription and the chrono timeouts ------------------------------------------------
int ExerciseScopedSubscription() {
  int failures = 0;
  auto bus = std::make_unique<Bus>();
  int seen = 0;
  mccc::ScopedSubscription owned =
      bus->SubscribeScoped<Temperature>([&seen](const Temperature& t) { seen += t.celsius; });
  mccc::ScopedSubscription moved(std::move(owned));
  mccc::ScopedSubscription converted(
      *bus, bus->Subscribe<Command>([&seen](const Command& /*c*/) { ++seen; }));
  converted = std::move(moved);  // ends the Command subscription
  Check(converted.IsActive() && converted.Handle().IsValid(), failures);
  Check(bus->Publish(Temperature{4}, 1U) && bus->ProcessBatch() == 1U && seen == 4, failures);
  const mccc::SubscriptionHandle kept = converted.Release();
  Check(!converted.Reset() && bus->Unsubscribe(kept), failures);
#if MCCC_HOSTED
  Check(!bus->WaitForMessages(std::chrono::nanoseconds(1)), failures);
  const mccc::IdleStrategy idle =
      mccc::IdleStrategy::SpinThenYieldThenSleep(1U, 1U, std::chrono::milliseconds(2))
          .WithMaxSleep(std::chrono::duration<double, std::micro>(1.5));
  Check(idle.max_sleep_us == 2U && idle.MaxSleep().count() == 2, failures);
#endif
  return failures;
}

// ---- Fan-out: a domain of two consumers, inline and loaned messages ---------------------------
struct Block {
  uint32_t seq;
  uint8_t bytes[60];  // NOLINT(modernize-avoid-c-arrays): deviation D-03
};
using DomainPayload = std::variant<Temperature, mccc::Loaned<Block>>;
template <typename Base>
struct WithBlockPool : Base {
  using LoanPools = mccc::LoanPools<mccc::PoolOf<Block, 4U>>;
};

void CountDomainError(uint32_t /*consumer*/, mccc::BusError /*error*/, uint64_t /*msg_id*/) {}

template <typename Traits>
int ExerciseDomain() {
  int failures = 0;
  using Domain = mccc::Domain<DomainPayload, WithBlockPool<Traits>, WithBlockPool<Traits>>;
  auto domain = std::make_unique<Domain>();
  domain->SetErrorCallback(&CountDomainError);
  int seen = 0;
  domain->template Consumer<0>().template Subscribe<Temperature>(
      [&seen](const Temperature&) { ++seen; });
  domain->template Consumer<1>().template Subscribe<Block>(
      [&seen](const Block& block) { seen += static_cast<int>(block.seq + block.bytes[0]); });
  domain->template ReceiveAll<1>();
  Check(static_cast<bool>(domain->Publish(Temperature{1}, 1U)), failures);
  Check(domain->PublishFast(Temperature{2}, 1U, 5U, mccc::MessagePriority::kHigh).AdmittedCount() ==
            2U,
        failures);
  Check(static_cast<bool>(domain->template PublishEmplace<Temperature>(
            1U, mccc::MessagePriority::kLow, Temperature{3})),
        failures);
  const std::array<Temperature, 2> batch{{{4}, {5}}};
  Check(domain->PublishBatch(batch.data(), 2U, 1U).AllAdmitted(), failures);
  mccc::MessageLoan<Block> loan = domain->template Loan<Block>(mccc::MessagePriority::kMedium);
  Check(static_cast<bool>(loan), failures);
  if (loan) {
    loan->seq = 1U;
    loan->bytes[0] = 2U;
  }
  Check(domain->Publish(std::move(loan), 1U).admitted == 2U, failures);  // consumer 1 only
  typename Domain::Producer handle = domain->MakeProducer();
  Check(static_cast<bool>(handle.Publish(Temperature{6}, 2U)), failures);
  mccc::DomainPublisher<Domain> publisher(*domain);
  Check(publisher.PublishFast(Temperature{7}, 3U, 9U), failures);
  while (domain->DispatchHighestReady().consumer != mccc::kNoConsumer) {
  }
  Check(domain->template GetLoanStatistics<Block>().in_use == 0U, failures);
  Check(seen > 0, failures);
  return failures;
}

// ---- Test hooks (compiled in with -DMCCC_ENABLE_TEST_HOOKS=1) ---------------------------------
#if MCCC_ENABLE_TEST_HOOKS
void AfterClaim(void* context, Bus::Position /*position*/) {
  ++*static_cast<int*>(context);
}
#endif

int ExerciseTestHooks() {
  int failures = 0;
#if MCCC_ENABLE_TEST_HOOKS
  const Bus::Position near_wrap = static_cast<Bus::Position>(~Bus::Position{0U} - 2U);
  auto bus = std::make_unique<Bus>(near_wrap, uint64_t{1U});
  int claims = 0;
  bus->SetAfterClaimHook(&AfterClaim, &claims);
  for (int i = 0; i < 5; ++i) {
    Check(bus->Publish(Temperature{i}, 1U), failures);
  }
  Check(bus->ProcessBatch() == 5U && claims == 5, failures);
#endif
  return failures;
}

int ExerciseClocksAndAdmission() {
  int failures = 0;
  Check(mccc::NullClock::NowUs() == 0U, failures);
#if MCCC_HOSTED
  const uint64_t t0 = mccc::SteadyClock::NowUs();
  Check(mccc::SteadyClock::NowUs() >= t0, failures);
#endif
#if MCCC_HAS_TSC_CLOCK
  const uint64_t c0 = mccc::TscClock::NowUs();
  Check(mccc::TscClock::NowUs() >= c0, failures);
  failures += ExerciseBus<mccc::AsyncBus<Payload, TscTraits>>();
#endif
  using Admission = mccc::PriorityAdmission<100U>;
  Check(Admission::LimitFor(mccc::MessagePriority::kLow) == 60U, failures);
  Check(Admission::LevelFor(95U) == mccc::BackpressureLevel::kCritical, failures);
  Check(Admission::UtilizationPercent(50U) == 50U, failures);
  Check(MCCC_VERSION >= 10000, failures);
  return failures;
}

// A ring used directly, for the members the bus does not call (position snapshots).
template <bool kSingleProducer, bool kSingleCore>
int ExerciseRing() {
  int failures = 0;
  using Ring = mccc::detail::MpscRing<int, 8U, kSingleProducer, kSingleCore, uint32_t, 64U>;
  auto ring = std::make_unique<Ring>(uint32_t{5U});
  const mccc::detail::RingClaim<uint32_t> claim =
      ring->TryPublish(8U, [](void* storage, uint32_t position) noexcept {
        ::new (storage) int(static_cast<int>(position));
      });
  Check(claim.admitted && claim.position == 5U, failures);
  Check(ring->HasReadyElement() && ring->HasClaimedWork() && ring->Occupancy() == 1U, failures);
  int sum = 0;
  Check(ring->ConsumeBatch(4U, [&sum](int& value, uint32_t) noexcept { sum += value; }) == 1U,
        failures);
  Check(sum == 5 && ring->ConsumedPosition() == 6U && ring->ClaimedPosition() == 6U, failures);
  return failures;
}

}  // namespace

// Explicit instantiation definitions instantiate every non-template member function, including
// the ones no code above calls, so the analysers see all of them.
template class mccc::AsyncBus<Payload, SmallTraits>;
template class mccc::AsyncBus<Payload, SingleProducerTraits>;
template class mccc::AsyncBus<Payload, SingleCoreTraits>;
template class mccc::detail::MpscRing<int, 8U, false, false, uint32_t, 64U>;
template class mccc::detail::MpscRing<int, 8U, true, false, uint32_t, 64U>;
template class mccc::detail::MpscRing<int, 8U, false, true, uint32_t, 64U>;
template class mccc::Component<Payload, SmallTraits>;
template class mccc::StaticComponent<Controller, Payload>;
template class mccc::StateMachine<Motor, Payload, 4U>;
template class mccc::FixedVector<std::string, 4U>;
template class mccc::FixedVector<int, 4U>;
template class mccc::FixedString<8U>;
template class mccc::FixedFunction<int(int)>;
template class mccc::FixedFunction<void(Accumulator&, int), 32U>;
template struct mccc::PriorityAdmission<100U>;
#if MCCC_HOSTED
template class mccc::ActiveObject<Bus>;
#endif

int main() {
  int failures = 0;
  failures += ExerciseBus<mccc::AsyncBus<Payload, SmallTraits>>();
  failures += ExerciseBus<mccc::AsyncBus<Payload, SingleProducerTraits>>();
  failures += ExerciseBus<mccc::AsyncBus<Payload, SingleCoreTraits>>();
  failures += ExerciseBus<mccc::AsyncBus<Payload, CompactSingleCoreTraits>>();
  failures += ExerciseComponent();
  failures += ExerciseStaticComponent();
  failures += ExerciseStateMachine();
  failures += ExerciseFixedVector<int>(1, 2);
  failures += ExerciseFixedVector<std::string>("a string longer than the SSO buffer", "b");
  failures += ExerciseFixedString();
  failures += ExerciseFixedFunction();
  failures += ExerciseActiveObject();
  failures += ExerciseScopedSubscription();
  failures += ExerciseDomain<SmallTraits>();
  failures += ExerciseDomain<SingleCoreTraits>();
  failures += ExerciseClocksAndAdmission();
  failures += ExerciseTestHooks();
  failures += ExerciseRing<false, false>();
  failures += ExerciseRing<true, false>();
  failures += ExerciseRing<false, true>();
  // The process-wide default-traits bus (131072 slots, static storage): instantiated, touched.
  using DefaultBus = mccc::AsyncBus<Payload>;
  failures += DefaultBus::Instance().QueueOccupancy() == 0U ? 0 : 1;
  return failures == 0 ? 0 : 1;
}
