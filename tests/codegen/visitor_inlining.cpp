// SPDX-License-Identifier: MIT
// Code-generation check for mccc::StaticComponent (see check_inlining.cmake, which compiles this
// file with -O2 -S and inspects the assembly). Not linked, never run.
//
// The extern "C" functions are the dispatch paths a StaticComponent visitor takes:
//   mccc_codegen_visit_one         one message through the bus's compile-time visit, exactly as
//                                  ProcessBatchWith does it for each envelope;
//   mccc_codegen_process_batch     a whole ProcessBatchWith call with the visitor;
//   mccc_codegen_process_batch_lambdas
//                                  the same handlers written as make_overloaded lambdas (the
//                                  baseline the bus documents as inlinable).
// Expected: every Handle is inlined (no call to, and no out-of-line copy of, any Handle);
// mccc_codegen_visit_one contains no call at all, direct or indirect (handled types become
// inline code, unhandled types - Ignored, Status - become nothing); and the batch loop with the
// visitor has exactly as many calls, and as many indirect calls (the bus's error callback), as
// the lambda baseline.
#include <cstdint>
#include <variant>

#include "mccc/bus/async_bus.hpp"
#include "mccc/components/static_component.hpp"
#include "mccc/dispatch/overloaded.hpp"

// Internal linkage, like the lambdas of the baseline: both ProcessBatchWith instantiations are
// then local to this file and get the same inlining treatment.
namespace codegen {
namespace {

struct Imu {
  int32_t accel;
};
struct Gps {
  int32_t latitude;
};
struct Ignored {
  int32_t value;
};
struct Status {
  int32_t code;
};
using Payload = std::variant<Imu, Gps, Ignored, Status>;

struct Traits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 64U;
};
using Bus = mccc::AsyncBus<Payload, Traits>;

class Fusion : public mccc::StaticComponent<Fusion, Payload> {
 public:
  void Handle(const Imu& imu) { accel_sum += imu.accel; }
  bool Handle(const Gps& gps, const mccc::MessageHeader& header) {
    latitude_sum += gps.latitude;
    last_sender = header.sender_id;
    return gps.latitude != 0;
  }

  int64_t accel_sum = 0;
  int64_t latitude_sum = 0;
  uint32_t last_sender = 0U;
};

}  // namespace
}  // namespace codegen

extern "C" bool mccc_codegen_visit_one(const codegen::Bus::Envelope& envelope,
                                       codegen::Fusion& fusion) {
  codegen::Fusion::Visitor visitor = fusion.MakeVisitor();
  return mccc::detail::VisitAlternative(envelope.payload.index(), envelope.payload, envelope.header,
                                        visitor);
}

extern "C" uint32_t mccc_codegen_process_batch(codegen::Bus& bus, codegen::Fusion& fusion) {
  return bus.ProcessBatchWith(fusion.MakeVisitor());
}

extern "C" uint32_t mccc_codegen_process_batch_lambdas(codegen::Bus& bus, codegen::Fusion& fusion) {
  return bus.ProcessBatchWith(
      mccc::make_overloaded([&fusion](const codegen::Imu& imu) { fusion.accel_sum += imu.accel; },
                            [&fusion](const codegen::Gps& gps, const mccc::MessageHeader& header) {
                              fusion.latitude_sum += gps.latitude;
                              fusion.last_sender = header.sender_id;
                              return gps.latitude != 0;
                            },
                            [](const auto&) {}));
}
