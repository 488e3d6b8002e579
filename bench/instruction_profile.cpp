// SPDX-License-Identifier: MIT
// smoke-args: --messages 2000
/// @file instruction_profile.cpp
/// @brief Instructions per message of each publish and dispatch path, for the profile that
/// docs/benchmarks.md quotes when a speed target is missed. The counts come from valgrind's
/// callgrind, which needs no hardware counters (virtual machines often have none) and is
/// repeatable whatever else the machine does. scripts/profile_instructions.sh runs this program
/// under `valgrind --tool=callgrind --instr-atstart=no` once per path and divides.
///
/// Each run builds one bus, subscribes one callback, and then, with callgrind's instrumentation
/// switched on only around it, either publishes --messages 24-byte messages into the empty bus
/// (publish paths) or drains that many (dispatch paths; the publishing is not counted).
/// Without valgrind the program runs the same loops and prints what it did.
///
/// Usage: instruction_profile [--path NAME] [--messages N]
///   NAME: mpsc-publish, mpsc-publish-fast, mpsc-publish-batch, spsc-publish, spsc-publish-fast,
///         spsc-publish-batch, process-callback, process-visitor (the default bus: HIGH lane on),
///         nohigh-process-callback (the shared ring without a HIGH lane),
///         lanes-publish, lanes-publish-fast (producer lanes, the thread's own lane),
///         lanes-handle-publish, lanes-handle-publish-fast, lanes-handle-publish-batch (through a
///         handle from MakeProducer), lanes-process-callback (default: all, in turn)
/// The fan-out paths are counted by fan_out_instruction_profile.cpp: a domain's code in this
/// translation unit shifts GCC's inlining of the bus paths counted here.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "common/callgrind_counted.hpp"
#include "mccc/mccc.hpp"

namespace {

using mccc_bench::Counted;

struct Sample {  // the competitive benchmark's 24-byte payload
  uint64_t seq;
  float x, y, z, w;
};
struct Other {
  uint32_t code;
};
using Payload = std::variant<Sample, Other>;

struct SpscTraits : mccc::DefaultBusTraits {
  static constexpr bool kSingleProducer = true;
};
struct NoHighLaneTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kHighQueueDepth = 0U;
};
// As the competitive benchmark's lanes bus: a lane holds every message of a run.
struct LanesTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kProducerLanes = 4U;
  static constexpr uint32_t kLaneDepth = 131072U;
};

constexpr uint32_t kMessagesPerCall = 64U;

enum class Publish { kClock, kCallerTimestamp, kBatch };

/// `bus`: a bus, or a producer handle of one (the same publish calls).
template <typename Bus>
uint64_t PublishAll(Bus& bus, uint32_t messages, Publish how) {
  uint64_t admitted = 0U;
  if (how == Publish::kBatch) {
    std::vector<Sample> batch(kMessagesPerCall);
    for (uint32_t i = 0U; i < messages; i += kMessagesPerCall) {
      const uint32_t n = messages - i < kMessagesPerCall ? messages - i : kMessagesPerCall;
      for (uint32_t k = 0U; k < n; ++k) {
        batch[k] = Sample{i + k, 1.0F, 2.0F, 3.0F, 4.0F};
      }
      admitted += bus.PublishBatch(batch.data(), n, 1U);
    }
    return admitted;
  }
  for (uint32_t i = 0U; i < messages; ++i) {
    const Sample s{i, 1.0F, 2.0F, 3.0F, 4.0F};
    const bool ok = how == Publish::kClock ? bus.Publish(s, 1U) : bus.PublishFast(s, 1U, 0U);
    admitted += ok ? 1U : 0U;
  }
  return admitted;
}

/// Which clock `Publish` read: the default TscClock falls back to steady_clock by itself when it
/// does not trust the cycle counter (see clock.hpp).
const char* ClockName() {
#if MCCC_HAS_TSC_CLOCK && !MCCC_DEFAULT_CLOCK_STEADY
  return mccc::TscClock::UsesCycleCounter() ? "TscClock (rdtsc)"
                                            : "TscClock (steady_clock fallback)";
#else
  return "default clock";
#endif
}

/// `through_handle`: publish through a producer handle (MakeProducer) instead of the bus.
template <typename Bus>
int RunPublish(const char* name, uint32_t messages, Publish how, bool through_handle = false) {
  auto bus = std::make_unique<Bus>();
  uint64_t sum = 0U;
  bus->template Subscribe<Sample>([&sum](const Sample& s) { sum += s.seq; });
  uint64_t admitted = 0U;
  if (through_handle) {
    auto handle = bus->MakeProducer();
    const Counted counted;
    admitted = PublishAll(handle, messages, how);
  } else {
    const Counted counted;
    admitted = PublishAll(*bus, messages, how);
  }
  while (bus->ProcessBatch() != 0U) {
  }
  std::printf("%-20s %u messages published (%llu admitted), checksum %llu, clock: %s\n", name,
              messages, static_cast<unsigned long long>(admitted),
              static_cast<unsigned long long>(sum), ClockName());
  return admitted == messages ? 0 : 1;
}

template <typename Bus = mccc::AsyncBus<Payload>>
int RunDispatch(const char* name, uint32_t messages, bool visitor) {
  auto bus = std::make_unique<Bus>();
  uint64_t sum = 0U;
  bus->template Subscribe<Sample>([&sum](const Sample& s) { sum += s.seq; });
  const uint64_t admitted = PublishAll(*bus, messages, Publish::kCallerTimestamp);
  uint64_t dispatched = 0U;
  {
    const Counted counted;
    if (visitor) {
      auto handler =
          mccc::make_overloaded([&sum](const Sample& s) { sum += s.seq; }, [](const auto&) {});
      uint32_t n = 0U;
      while ((n = bus->ProcessBatchWith(handler)) != 0U) {
        dispatched += n;
      }
    } else {
      uint32_t n = 0U;
      while ((n = bus->ProcessBatch()) != 0U) {
        dispatched += n;
      }
    }
  }
  std::printf("%-20s %llu messages dispatched, checksum %llu\n", name,
              static_cast<unsigned long long>(dispatched), static_cast<unsigned long long>(sum));
  return dispatched == admitted && admitted == messages ? 0 : 1;
}

int Run(const std::string& path, uint32_t messages) {
  using Mpsc = mccc::AsyncBus<Payload>;
  using Spsc = mccc::AsyncBus<Payload, SpscTraits>;
  if (path == "mpsc-publish") return RunPublish<Mpsc>(path.c_str(), messages, Publish::kClock);
  if (path == "mpsc-publish-fast") {
    return RunPublish<Mpsc>(path.c_str(), messages, Publish::kCallerTimestamp);
  }
  if (path == "mpsc-publish-batch")
    return RunPublish<Mpsc>(path.c_str(), messages, Publish::kBatch);
  if (path == "spsc-publish") return RunPublish<Spsc>(path.c_str(), messages, Publish::kClock);
  if (path == "spsc-publish-fast") {
    return RunPublish<Spsc>(path.c_str(), messages, Publish::kCallerTimestamp);
  }
  if (path == "spsc-publish-batch")
    return RunPublish<Spsc>(path.c_str(), messages, Publish::kBatch);
  if (path == "process-callback") return RunDispatch(path.c_str(), messages, false);
  if (path == "process-visitor") return RunDispatch(path.c_str(), messages, true);
  using NoHigh = mccc::AsyncBus<Payload, NoHighLaneTraits>;
  using Lanes = mccc::AsyncBus<Payload, LanesTraits>;
  if (path == "nohigh-process-callback") {
    return RunDispatch<NoHigh>(path.c_str(), messages, false);
  }
  if (path == "lanes-publish") return RunPublish<Lanes>(path.c_str(), messages, Publish::kClock);
  if (path == "lanes-publish-fast") {
    return RunPublish<Lanes>(path.c_str(), messages, Publish::kCallerTimestamp);
  }
  if (path == "lanes-handle-publish") {
    return RunPublish<Lanes>(path.c_str(), messages, Publish::kClock, true);
  }
  if (path == "lanes-handle-publish-fast") {
    return RunPublish<Lanes>(path.c_str(), messages, Publish::kCallerTimestamp, true);
  }
  if (path == "lanes-handle-publish-batch") {
    return RunPublish<Lanes>(path.c_str(), messages, Publish::kBatch, true);
  }
  if (path == "lanes-process-callback") return RunDispatch<Lanes>(path.c_str(), messages, false);
  std::fprintf(stderr, "unknown --path %s (see the file comment)\n", path.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  uint32_t messages = 65536U;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
      path = argv[++i];
    } else if (std::strcmp(argv[i], "--messages") == 0 && i + 1 < argc) {
      messages = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::fprintf(stderr, "usage: %s [--path NAME] [--messages N] (see the file comment)\n",
                   argv[0]);
      return 2;
    }
  }
  if (messages == 0U || messages > mccc::AsyncBus<Payload>::Capacity() / 2U) {
    std::fprintf(stderr, "--messages must be 1..%u (half the queue: no admission limit hit)\n",
                 mccc::AsyncBus<Payload>::Capacity() / 2U);
    return 2;
  }
  if (!path.empty()) {
    return Run(path, messages);
  }
  int status = 0;
  for (const char* p :
       {"mpsc-publish", "mpsc-publish-fast", "mpsc-publish-batch", "spsc-publish",
        "spsc-publish-fast", "spsc-publish-batch", "process-callback", "process-visitor",
        "nohigh-process-callback", "lanes-publish", "lanes-publish-fast", "lanes-handle-publish",
        "lanes-handle-publish-fast", "lanes-handle-publish-batch", "lanes-process-callback"}) {
    status |= Run(p, messages);
  }
  return status;
}
