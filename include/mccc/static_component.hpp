// SPDX-License-Identifier: MIT
/// @file static_component.hpp
/// @brief The include line of the API docs and of the original MCCC for mccc::StaticComponent.
/// As there, it brings everything mccc.hpp offers (AsyncBus above all, whose ProcessBatchWith
/// takes the component's visitor); mccc/components/static_component.hpp takes less.
#ifndef MCCC_STATIC_COMPONENT_HPP_
#define MCCC_STATIC_COMPONENT_HPP_

#include "mccc/mccc.hpp"  // IWYU pragma: export

#endif  // MCCC_STATIC_COMPONENT_HPP_
