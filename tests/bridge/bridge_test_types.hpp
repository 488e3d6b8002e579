// SPDX-License-Identifier: MIT
// Message types, buses and helpers shared by the bridge tests and their helper process.
#ifndef MCCC_TESTS_BRIDGE_BRIDGE_TEST_TYPES_HPP_
#define MCCC_TESTS_BRIDGE_BRIDGE_TEST_TYPES_HPP_

#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "mccc/bridge/bridge.hpp"
#include "mccc/mccc.hpp"
#include "support/bus_configs.hpp"

namespace bridge_test {

/// A 24-byte telemetry sample; `check` is derived from the other fields, so a receiver can tell
/// a damaged payload from a good one.
struct Telemetry {
  uint64_t index;
  uint32_t source;
  uint32_t check;
  uint64_t value;
};
static_assert(sizeof(Telemetry) == 24U, "Telemetry is the 24-byte message of the tests");

/// An emergency stop (sent HIGH).
struct EmergencyStop {
  uint64_t index;
  uint32_t check;
  uint32_t reason;
};

/// A message that needs a codec: a vector member.
struct Scan {
  uint64_t index = 0U;
  std::vector<float> ranges;
};

using Payload = std::variant<Telemetry, EmergencyStop, Scan>;
/// The same alternatives in another order: a different schema.
using OtherPayload = std::variant<EmergencyStop, Telemetry, Scan>;

constexpr uint32_t CheckOf(uint64_t index, uint64_t salt) noexcept {
  const uint64_t mixed = (index + salt) * 0x9E3779B97F4A7C15ULL;
  return static_cast<uint32_t>(mixed >> 32U);
}

inline Telemetry MakeTelemetry(uint64_t index, uint32_t source) noexcept {
  return Telemetry{index, source, CheckOf(index, source), index * 3U};
}
inline bool Valid(const Telemetry& t) noexcept {
  return t.check == CheckOf(t.index, t.source) && t.value == t.index * 3U;
}
inline EmergencyStop MakeStop(uint64_t index) noexcept {
  return EmergencyStop{index, CheckOf(index, 77U), 5U};
}
inline bool Valid(const EmergencyStop& s) noexcept {
  return s.check == CheckOf(s.index, 77U) && s.reason == 5U;
}
inline Scan MakeScan(uint64_t index) {
  Scan scan;
  scan.index = index;
  scan.ranges.resize(static_cast<std::size_t>(index % 37U));
  for (std::size_t i = 0U; i < scan.ranges.size(); ++i) {
    scan.ranges[i] = static_cast<float>(index) + 0.25F * static_cast<float>(i);
  }
  return scan;
}
inline bool Valid(const Scan& scan) {
  if (scan.ranges.size() != static_cast<std::size_t>(scan.index % 37U)) {
    return false;
  }
  for (std::size_t i = 0U; i < scan.ranges.size(); ++i) {
    if (scan.ranges[i] != static_cast<float>(scan.index) + 0.25F * static_cast<float>(i)) {
      return false;
    }
  }
  return true;
}

using BusTraits = mccc_test::WithClock<mccc_test::Ring<8192U>, mccc::SteadyClock>;
/// A bus that overflows quickly (importer-side refusals).
using SmallBusTraits = mccc_test::WithClock<mccc_test::Ring<256U>, mccc::SteadyClock>;
using Bus = mccc::AsyncBus<Payload, BusTraits>;
using SmallBus = mccc::AsyncBus<Payload, SmallBusTraits>;
using OtherBus = mccc::AsyncBus<OtherPayload, BusTraits>;

/// A 16 KB point cloud: large enough that a bus lends it from a pool (mccc::Loaned<Cloud>)
/// rather than copying it through its ring; `check` and the points follow from the index.
struct Cloud {
  uint64_t index;
  uint32_t count;
  uint32_t check;
  float points[4092];
};
static_assert(sizeof(Cloud) == 16384U, "Cloud is the 16 KB message of the loan tests");

/// Fills `cloud` (e.g. a loan's block) as cloud number `index`.
inline void FillCloud(Cloud& cloud, uint64_t index) noexcept {
  cloud.index = index;
  cloud.count = static_cast<uint32_t>(index % 4092U);
  cloud.check = CheckOf(index, cloud.count);
  for (std::size_t i = 0U; i < 4092U; ++i) {
    cloud.points[i] = static_cast<float>(index % 1000U) + 0.5F * static_cast<float>(i % 64U);
  }
}
inline bool Valid(const Cloud& cloud) noexcept {
  if (cloud.count != cloud.index % 4092U || cloud.check != CheckOf(cloud.index, cloud.count)) {
    return false;
  }
  for (std::size_t i = 0U; i < 4092U; ++i) {
    if (cloud.points[i] !=
        static_cast<float>(cloud.index % 1000U) + 0.5F * static_cast<float>(i % 64U)) {
      return false;
    }
  }
  return true;
}

/// Clouds lent from a pool of 32 blocks.
using LoanPayload = std::variant<Telemetry, mccc::Loaned<Cloud>>;
using LoanBusTraits =
    mccc_test::WithLoans<mccc_test::WithClock<mccc_test::Ring<1024U>, mccc::SteadyClock>,
                         mccc::PoolOf<Cloud, 32U>>;
using LoanBus = mccc::AsyncBus<LoanPayload, LoanBusTraits>;
/// Clouds lent from a pool of 4 blocks (MEDIUM admitted up to 3: refusals on purpose).
using TinyPoolBusTraits =
    mccc_test::WithLoans<mccc_test::WithClock<mccc_test::Ring<1024U>, mccc::SteadyClock>,
                         mccc::PoolOf<Cloud, 4U>>;
using TinyPoolBus = mccc::AsyncBus<LoanPayload, TinyPoolBusTraits>;
/// The same messages, the clouds copied through the ring: the same schema on the wire.
using InlineCloudPayload = std::variant<Telemetry, Cloud>;
using InlineCloudBusTraits = mccc_test::WithClock<mccc_test::SmallRing, mccc::SteadyClock>;
using InlineCloudBus = mccc::AsyncBus<InlineCloudPayload, InlineCloudBusTraits>;

/// A send queue that fills quickly (exporter-side refusals).
struct SmallQueueBridge : mccc::bridge::DefaultBridgeTraits {
  static constexpr uint32_t kSendQueueDepth = 256U;
  static constexpr uint32_t kSendQueueBytes = uint32_t{1} << 16U;
};

}  // namespace bridge_test

/// A cloud has float members: its fields travel declared (packed, little-endian IEEE bits).
MCCC_BRIDGE_FIELDS(bridge_test::Cloud, index, count, check, points);

/// The example codec of the tests: index, count, then the floats, all little-endian.
template <>
struct mccc::bridge::Codec<bridge_test::Scan> {
  static std::size_t EncodedSize(const bridge_test::Scan& scan) noexcept {
    return 12U + 4U * scan.ranges.size();
  }
  static void Encode(const bridge_test::Scan& scan, uint8_t* out) noexcept {
    WireWriter writer(out);
    writer.Put64(scan.index);
    writer.Put32(static_cast<uint32_t>(scan.ranges.size()));
    for (const float range : scan.ranges) {
      writer.PutFloat(range);
    }
  }
  static bool Decode(const uint8_t* in, std::size_t size, bridge_test::Scan& scan) {
    WireReader reader(in, size);
    uint32_t count = 0U;
    if (!reader.Get64(scan.index) || !reader.GetCountOfRemaining(count, 4U)) {
      return false;
    }
    scan.ranges.resize(count);
    for (float& range : scan.ranges) {
      reader.GetFloat(range);
    }
    return reader.Ok();
  }
};

#endif  // MCCC_TESTS_BRIDGE_BRIDGE_TEST_TYPES_HPP_
