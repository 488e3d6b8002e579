// SPDX-License-Identifier: MIT
/// @file bridge.hpp
/// @brief The bridge module: carries selected message types of an mccc bus to buses in other
/// processes (or machines) over ZeroMQ, with priorities, backpressure and end-to-end protection.
///
/// Not part of mccc.hpp: it needs libzmq (CMake target `mccc::bridge`).
/// @code
/// mccc::bridge::ZmqContext context;
/// auto endpoints = mccc::bridge::ChannelEndpoints::FromBase("ipc:///run/robot/control");
/// // controller process
/// mccc::bridge::Importer<Bus, mccc::bridge::Types<Stop, Pose>> importer(bus, context,
/// {endpoints}); importer.Start();
/// // sensor process
/// mccc::bridge::Exporter<Bus, mccc::bridge::Types<Stop, Pose>> exporter(bus, context,
/// {endpoints}); exporter.Start();
/// @endcode
#ifndef MCCC_BRIDGE_BRIDGE_HPP_
#define MCCC_BRIDGE_BRIDGE_HPP_

#include "mccc/bridge/byte_io.hpp"
#include "mccc/bridge/channel.hpp"
#include "mccc/bridge/codec.hpp"
#include "mccc/bridge/crc32c.hpp"
#include "mccc/bridge/exporter.hpp"
#include "mccc/bridge/fields.hpp"
#include "mccc/bridge/fnv1a.hpp"
#include "mccc/bridge/importer.hpp"
#include "mccc/bridge/plain_layout.hpp"
#include "mccc/bridge/schema.hpp"
#include "mccc/bridge/send_queue.hpp"
#include "mccc/bridge/sequence_check.hpp"
#include "mccc/bridge/statistics.hpp"
#include "mccc/bridge/traits.hpp"
#include "mccc/bridge/wire_format.hpp"
#include "mccc/bridge/zmq_transport.hpp"

namespace mccc {
namespace bridge {

/// @brief Bridge settings with the ZeroMQ transport; derive to change the others.
struct DefaultBridgeTraits : BridgeTraitsBase {
  using Transport = ZmqTransport;  ///< DEALER/ROUTER socket pairs, one per channel.
};

/// @brief Exporter over ZeroMQ.
template <typename Bus, typename Selection = AllTypes, typename Traits = DefaultBridgeTraits>
using Exporter = BasicExporter<Bus, Selection, Traits>;

/// @brief Importer over ZeroMQ.
template <typename Bus, typename Selection = AllTypes, typename Traits = DefaultBridgeTraits>
using Importer = BasicImporter<Bus, Selection, Traits>;

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_BRIDGE_HPP_
