// SPDX-License-Identifier: MIT
/// @file component.hpp
/// @brief The include line of the API docs and of the original MCCC for mccc::Component. As
/// there, it brings everything mccc.hpp offers (the bus, the containers, the components), so
/// code written against either keeps compiling; mccc/components/component.hpp takes less.
#ifndef MCCC_COMPONENT_HPP_
#define MCCC_COMPONENT_HPP_

#include "mccc/mccc.hpp"  // IWYU pragma: export

#endif  // MCCC_COMPONENT_HPP_
