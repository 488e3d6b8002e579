// SPDX-License-Identifier: MIT
// The bus type both units of the one-configuration check use: DefaultBusTraits, whose values come
// from the MCCC_* macros each unit is compiled with.
#ifndef MCCC_TESTS_ODR_ODR_BUS_HPP_
#define MCCC_TESTS_ODR_ODR_BUS_HPP_

#include <cstdint>
#include <variant>

#include "mccc/mccc.hpp"

struct OdrMsg {
  uint32_t value;
};
using OdrBus = mccc::AsyncBus<std::variant<OdrMsg>>;

#endif  // MCCC_TESTS_ODR_ODR_BUS_HPP_
