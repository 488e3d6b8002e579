// SPDX-License-Identifier: MIT
// hsm_demo: a device controller written as a hierarchical state machine (mccc::StateMachine),
// fed by messages that several producer threads publish on the bus. One consumer thread (an
// mccc::ActiveObject with a visitor) owns the machine, so the machine needs no locks even though
// events come from many threads.
//
//   Off ──PowerOn──> On ─┬─ Idle ──StartJob──> Running ──StopJob──> Idle
//    ^                   └─ (readings are handled by On; a reading above the limit -> Fault)
//    └──── PowerOff (from anywhere in On) ───── ResetFault ── Fault <──┘
//
// The script runs in phases; the threads of one phase are joined before the next phase
// publishes, and the bus delivers in publish order, so the sequence of states is exact even
// though the readings inside a phase interleave freely:
//   1. operator thread: PowerOn, StartJob
//   2. three sensor threads: 1000 normal readings each (handled in On, whatever the order)
//   3. watchdog thread: one over-temperature reading -> Fault (Running and On are exited)
//   4. two sensor threads: 100 readings each, ignored while in Fault
//   5. operator thread: ResetFault -> Off, PowerOn -> On/Idle, PowerOff -> Off
// Expected output ends with:
//   hsm_demo: OK path=Off>On>Idle>Running>Fault>Off>On>Idle>Off readings=3000 ignored=200
//   transitions=6
#include <mccc/mccc.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace {

// ---- Messages --------------------------------------------------------------------------------
struct PowerOn {};
struct PowerOff {};
struct StartJob {
  uint32_t job_id;
};
struct StopJob {};
struct SensorReading {
  uint32_t sensor_id;
  float celsius;
};
struct ResetFault {};
using Payload = std::variant<PowerOn, PowerOff, StartJob, StopJob, SensorReading, ResetFault>;

struct DemoTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 8192U;
};
using Bus = mccc::AsyncBus<Payload, DemoTraits>;

// ---- The controller --------------------------------------------------------------------------
enum State : mccc::StateId { kOff, kOn, kIdle, kRunning, kFault, kStateCount };

constexpr float kTemperatureLimit = 90.0F;

struct Controller {
  uint32_t readings = 0U;          // normal readings handled while On
  uint32_t ignored_in_fault = 0U;  // readings that arrived while latched in Fault
  float max_celsius = 0.0F;
  bool motor_on = false;
  uint32_t job_id = 0U;
  std::string path;  // every state entered, in order
};

using Machine = mccc::StateMachine<Controller, Payload, kStateCount>;

mccc::HandlerResult OnOff(Controller&, const Payload& event) {
  if (std::holds_alternative<PowerOn>(event)) return mccc::TransitionTo(kOn);
  return mccc::Unhandled();
}

mccc::HandlerResult OnOn(Controller& c, const Payload& event) {
  if (std::holds_alternative<PowerOff>(event)) return mccc::TransitionTo(kOff);
  if (const auto* reading = std::get_if<SensorReading>(&event)) {
    if (reading->celsius > kTemperatureLimit) return mccc::TransitionTo(kFault);  // guard
    ++c.readings;
    if (reading->celsius > c.max_celsius) c.max_celsius = reading->celsius;
    return mccc::Handled();
  }
  return mccc::Unhandled();
}

mccc::HandlerResult OnIdle(Controller& c, const Payload& event) {
  if (const auto* start = std::get_if<StartJob>(&event)) {
    c.job_id = start->job_id;
    return mccc::TransitionTo(kRunning);
  }
  return mccc::Unhandled();
}

mccc::HandlerResult OnRunning(Controller&, const Payload& event) {
  if (std::holds_alternative<StopJob>(event)) return mccc::TransitionTo(kIdle);
  return mccc::Unhandled();  // readings and PowerOff are On's business
}

mccc::HandlerResult OnFault(Controller& c, const Payload& event) {
  if (std::holds_alternative<ResetFault>(event)) return mccc::TransitionTo(kOff);
  if (std::holds_alternative<SensorReading>(event)) ++c.ignored_in_fault;
  return mccc::Handled();  // latched: everything else is swallowed
}

void MotorStart(Controller& c) {
  c.motor_on = true;
  std::printf("  [action] motor start (job %u)\n", static_cast<unsigned>(c.job_id));
}
void MotorStop(Controller& c) {
  c.motor_on = false;
  std::printf("  [action] motor stop\n");
}
void PowerUp(Controller&) {
  std::printf("  [action] power up\n");
}
void PowerDown(Controller&) {
  std::printf("  [action] power down\n");
}
void LatchFault(Controller& c) {
  std::printf("  [action] FAULT latched (max normal reading %.1f C)\n",
              static_cast<double>(c.max_celsius));
}

void Trace(Controller& c, mccc::TraceKind kind, mccc::StateId state) {
  static const char* const kNames[kStateCount] = {"Off", "On", "Idle", "Running", "Fault"};
  if (kind == mccc::TraceKind::kEntry) {
    if (!c.path.empty()) c.path += '>';
    c.path += kNames[state];
    std::printf("  enter %s\n", kNames[state]);
  } else if (kind == mccc::TraceKind::kExit) {
    std::printf("  exit  %s\n", kNames[state]);
  }
}

bool Configure(Machine& machine) {
  bool ok = machine.AddState(kOff, "Off", mccc::kTopState, &OnOff) == mccc::StateMachineError::kOk;
  ok = ok && machine.AddState(kOn, "On", mccc::kTopState, &OnOn, &PowerUp, &PowerDown) ==
                 mccc::StateMachineError::kOk;
  ok = ok && machine.AddState(kIdle, "Idle", kOn, &OnIdle) == mccc::StateMachineError::kOk;
  ok = ok && machine.AddState(kRunning, "Running", kOn, &OnRunning, &MotorStart, &MotorStop) ==
                 mccc::StateMachineError::kOk;
  ok = ok && machine.AddState(kFault, "Fault", mccc::kTopState, &OnFault, &LatchFault) ==
                 mccc::StateMachineError::kOk;
  ok = ok && machine.SetInitialState(kOn, kIdle) == mccc::StateMachineError::kOk;
  ok = ok && machine.SetInitialState(mccc::kTopState, kOff) == mccc::StateMachineError::kOk;
  machine.SetTraceHook(&Trace);
  return ok;
}

// Publishes, retrying while the queue is above the admission threshold (never drops).
template <typename T>
void Send(Bus& bus, T message, uint32_t sender) {
  while (!bus.Publish(T{message}, sender)) {
    std::this_thread::yield();
  }
}

// Runs `body(i)` on `count` threads and joins them: one phase of the script.
template <typename Body>
void RunPhase(const char* title, uint32_t count, Body body) {
  std::printf("phase: %s\n", title);
  std::vector<std::thread> threads;
  for (uint32_t i = 0U; i < count; ++i) {
    threads.emplace_back(body, i);
  }
  for (std::thread& t : threads) {
    t.join();
  }
}

constexpr uint32_t kOperator = 100U;
constexpr uint32_t kWatchdog = 200U;

}  // namespace

int main() {
  auto bus = std::make_unique<Bus>();
  Controller controller;
  Machine machine(controller);
  if (!Configure(machine) || machine.Start() != mccc::StateMachineError::kOk) {
    std::printf("hsm_demo: FAILED (configuration)\n");
    return 1;
  }

  // The consumer: every message goes straight into the machine (a generic visitor covers all
  // message types). Only this thread touches the machine while the active object runs.
  uint32_t transitions = 0U;
  uint32_t unhandled = 0U;
  auto feed = [&machine, &transitions, &unhandled](const auto& message) {
    const mccc::DispatchResult result = machine.Dispatch(message);
    if (result == mccc::DispatchResult::kTransitioned) ++transitions;
    if (result == mccc::DispatchResult::kUnhandled) ++unhandled;
  };
  mccc::ActiveObjectOptions options;
  options.thread_name = "hsm-consumer";
  mccc::ActiveObject consumer(*bus, feed, options);
  if (consumer.Start().status != mccc::StartStatus::kStarted) {
    std::printf("hsm_demo: FAILED (start)\n");
    return 1;
  }

  Bus& b = *bus;
  RunPhase("operator powers on and starts job 7", 1U, [&b](uint32_t) {
    Send(b, PowerOn{}, kOperator);
    Send(b, StartJob{7U}, kOperator);
  });
  RunPhase("3 sensors report 1000 normal readings each", 3U, [&b](uint32_t sensor) {
    for (uint32_t i = 0U; i < 1000U; ++i) {
      Send(b, SensorReading{sensor, 60.0F + static_cast<float>((i + sensor) % 25U)}, sensor);
    }
  });
  RunPhase("watchdog reports over-temperature", 1U, [&b](uint32_t) {
    Send(b, SensorReading{9U, 97.5F}, kWatchdog);
  });
  RunPhase("2 sensors keep reporting while the fault is latched", 2U, [&b](uint32_t sensor) {
    for (uint32_t i = 0U; i < 100U; ++i) {
      Send(b, SensorReading{sensor, 70.0F}, sensor);
    }
  });
  RunPhase("operator resets, powers on, powers off", 1U, [&b](uint32_t) {
    Send(b, ResetFault{}, kOperator);
    Send(b, PowerOn{}, kOperator);
    Send(b, PowerOff{}, kOperator);
  });

  // Stop() delivers everything published above before returning; afterwards this thread may
  // read the machine (the join orders the consumer's writes before our reads).
  if (consumer.Stop() != mccc::StopStatus::kStopped) {
    std::printf("hsm_demo: FAILED (stop)\n");
    return 1;
  }

  const bool ok = machine.IsIn(kOff) && !controller.motor_on && controller.readings == 3000U &&
                  controller.ignored_in_fault == 200U && transitions == 6U && unhandled == 0U &&
                  controller.path == "Off>On>Idle>Running>Fault>Off>On>Idle>Off" &&
                  consumer.ProcessedCount() == 2U + 3000U + 1U + 200U + 3U;
  std::printf("final state %s, max normal reading %.1f C, %llu messages\n",
              machine.CurrentStateName(), static_cast<double>(controller.max_celsius),
              static_cast<unsigned long long>(consumer.ProcessedCount()));
  std::printf("hsm_demo: %s path=%s readings=%u ignored=%u transitions=%u\n", ok ? "OK" : "FAILED",
              controller.path.c_str(), static_cast<unsigned>(controller.readings),
              static_cast<unsigned>(controller.ignored_in_fault),
              static_cast<unsigned>(transitions));
  return ok ? 0 : 1;
}
