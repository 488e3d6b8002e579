// SPDX-License-Identifier: MIT
/// @file verdict.hpp
/// @brief How a handler's result becomes the bus's verdict on one message.
#ifndef MCCC_DETAIL_VERDICT_HPP_
#define MCCC_DETAIL_VERDICT_HPP_

#include <type_traits>
#include <utility>

#include "mccc/config.hpp"

namespace mccc {
namespace detail {

/// @brief Calls `f(args...)`. A bool result is the verdict (false = processing error); any other
/// result (void included) counts as success, so handlers need not return anything.
template <typename F, typename... Args>
MCCC_ALWAYS_INLINE bool InvokeForVerdict(F& f, Args&&... args) {
  if constexpr (std::is_same_v<std::invoke_result_t<F&, Args...>, bool>) {
    return f(std::forward<Args>(args)...);
  } else {
    static_cast<void>(f(std::forward<Args>(args)...));
    return true;
  }
}

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_DETAIL_VERDICT_HPP_
