// SPDX-License-Identifier: MIT
// smoke-args: --path empty-poll --calls 2000
/// @file profile_peer_api.cpp
/// @brief Instructions per call of the four hot paths, written against the API that mccc shares
/// with the original MCCC (DeguiLiu/mccc), so that one source counts both: built against mccc's
/// headers it is the target bench_profile_peer_api; built by hand against the original's headers
/// (docs/benchmarks.md, "Instruction counts against the original") it gives the reference
/// counts. scripts/profile_instructions.sh runs either under callgrind.
///
/// The setting of those counts: the default bus of each library (`AsyncBus<Payload>::Instance()`),
/// a 24-byte message in a three-type variant, one callback subscribed that takes the whole
/// envelope, and --calls calls with callgrind's instrumentation on only around them:
///   publish       Publish(message, sender): the bus reads its clock;
///   publish-fast  PublishFast(message, sender, timestamp): no clock read;
///   empty-poll    ProcessBatch() on an empty bus;
///   dispatch      ProcessBatch() until --calls published messages are dispatched (the
///                 publishing is not counted): divide by the messages, not the calls.
///
/// Usage: profile_peer_api --path NAME [--calls N]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <variant>

#include "common/callgrind_counted.hpp"
#include "mccc/message_bus.hpp"

namespace {

struct Sample {  // 24 bytes, as in the competitive benchmark
  uint64_t seq;
  float x, y, z, w;
};
struct Command {
  uint32_t code;
};
struct Status {
  uint16_t flags;
};
using Payload = std::variant<Sample, Command, Status>;
using Bus = mccc::AsyncBus<Payload>;
using Envelope = mccc::MessageEnvelope<Payload>;

using mccc_bench::Counted;

uint64_t g_checksum = 0U;

/// Publishes `calls` messages, timestamped by the bus or by the caller; how many were admitted.
/// The loops are written out (no callable per message) so that the compiler treats both
/// libraries' publish calls alike.
uint32_t PublishClock(Bus& bus, uint32_t calls) {
  uint32_t admitted = 0U;
  for (uint32_t i = 0U; i < calls; ++i) {
    admitted += bus.Publish(Sample{i, 1.0F, 2.0F, 3.0F, 4.0F}, 1U) ? 1U : 0U;
  }
  return admitted;
}

uint32_t PublishGivenTime(Bus& bus, uint32_t calls) {
  uint32_t admitted = 0U;
  for (uint32_t i = 0U; i < calls; ++i) {
    admitted += bus.PublishFast(Sample{i, 1.0F, 2.0F, 3.0F, 4.0F}, 1U, i) ? 1U : 0U;
  }
  return admitted;
}

int Run(const char* path, uint32_t calls) {
  Bus& bus = Bus::Instance();
  bus.Subscribe<Sample>([](const Envelope& envelope) {
    g_checksum += std::get<Sample>(envelope.payload).seq + envelope.header.msg_id;
  });
  uint64_t outcome = 0U;
  if (std::strcmp(path, "publish") == 0) {
    {
      const Counted on;
      outcome = PublishClock(bus, calls);
    }
    while (bus.ProcessBatch() != 0U) {
    }
  } else if (std::strcmp(path, "publish-fast") == 0) {
    {
      const Counted on;
      outcome = PublishGivenTime(bus, calls);
    }
    while (bus.ProcessBatch() != 0U) {
    }
  } else if (std::strcmp(path, "empty-poll") == 0) {
    const Counted on;
    for (uint32_t i = 0U; i < calls; ++i) {
      outcome += bus.ProcessBatch();
    }
    outcome = outcome == 0U ? calls : 0U;
  } else if (std::strcmp(path, "dispatch") == 0) {
    if (PublishGivenTime(bus, calls) != calls) {
      std::fprintf(stderr, "not every message was admitted: lower --calls\n");
      return 1;
    }
    const Counted on;
    uint32_t dispatched = 0U;
    while (dispatched < calls) {
      const uint32_t n = bus.ProcessBatch();
      if (n == 0U) {
        break;
      }
      dispatched += n;
    }
    outcome = dispatched;
  } else {
    std::fprintf(stderr, "unknown --path %s (see the file comment)\n", path);
    return 2;
  }
  std::printf("%-13s %u calls, outcome %llu, checksum %llu\n", path, calls,
              static_cast<unsigned long long>(outcome),
              static_cast<unsigned long long>(g_checksum));
  return outcome == calls ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = nullptr;
  uint32_t calls = 65536U;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
      path = argv[++i];
    } else if (std::strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
      calls = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      path = nullptr;
      break;
    }
  }
  if (path == nullptr || calls == 0U || calls > Bus::MAX_QUEUE_DEPTH / 2U) {
    std::fprintf(stderr,
                 "usage: %s --path publish|publish-fast|empty-poll|dispatch [--calls N]"
                 " (N: 1 .. half the queue)\n",
                 argv[0]);
    return 2;
  }
  return Run(path, calls);
}
