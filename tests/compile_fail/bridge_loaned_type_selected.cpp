// SPDX-License-Identifier: MIT
// expect: mccc::bridge: this alternative travels by loan \(mccc::Loaned<T>\)
//
// The exporter and the importer check every selected alternative's codec with these functions;
// a loaned alternative is refused there, before the generic "not trivially copyable" message.
#include "mccc/bridge/codec.hpp"
#include "mccc/mccc.hpp"

namespace {
struct Scan {
  int points[64];
};
}  // namespace

#ifndef MCCC_COMPILE_FAIL_CONTROL
static_assert(mccc::bridge::detail::CheckEncoder<mccc::Loaned<Scan>>(), "");
#else
static_assert(mccc::bridge::detail::CheckEncoder<Scan>(), "");
#endif

int main() {
  return 0;
}
