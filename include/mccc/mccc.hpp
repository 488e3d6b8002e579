// SPDX-License-Identifier: MIT
/// @file mccc.hpp
/// @brief Umbrella header: everything mccc offers. Include the individual headers to take less.
#ifndef MCCC_MCCC_HPP_
#define MCCC_MCCC_HPP_

#include "mccc/clock.hpp"
#include "mccc/config.hpp"
#include "mccc/fwd.hpp"
#include "mccc/message.hpp"
#include "mccc/traits.hpp"
#include "mccc/version.hpp"

#include "mccc/containers/fixed_function.hpp"
#include "mccc/containers/fixed_string.hpp"
#include "mccc/containers/fixed_vector.hpp"

#include "mccc/admission/priority_admission.hpp"
#include "mccc/bus/async_bus.hpp"
#include "mccc/bus/stored_envelope.hpp"
#include "mccc/dispatch/overloaded.hpp"
#include "mccc/dispatch/scoped_subscription.hpp"
#include "mccc/dispatch/subscription_table.hpp"
#include "mccc/dispatch/visit.hpp"
#include "mccc/fanout/domain.hpp"
#include "mccc/fanout/domain_publisher.hpp"
#include "mccc/platform/critical_section.hpp"
#include "mccc/ring/mpsc_ring.hpp"
#include "mccc/ring/producer_lane.hpp"
#include "mccc/statistics/bus_statistics.hpp"
#include "mccc/wakeup/consumer_parking.hpp"

#include "mccc/components/active_object.hpp"
#include "mccc/components/component.hpp"
#include "mccc/components/state_machine.hpp"
#include "mccc/components/static_component.hpp"

#endif  // MCCC_MCCC_HPP_
