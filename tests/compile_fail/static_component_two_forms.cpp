// SPDX-License-Identifier: MIT
// expect: mccc: StaticComponent: Derived has both Handle\(const T&\) and Handle
// Compile-fail check: two handlers for the same message type (with and without the header) would
// leave one of them silently unused; the visitor refuses to compile.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile (only one form).
#include <variant>

#include "mccc/components/static_component.hpp"

using Payload = std::variant<int, double>;

class Sink : public mccc::StaticComponent<Sink, Payload> {
 public:
  void Handle(const int&, const mccc::MessageHeader&) {}
#ifndef MCCC_COMPILE_FAIL_CONTROL
  void Handle(const int&) {}
#endif
};

int main() {
  Sink sink;
  const mccc::MessageHeader header{1U, 0U, 0U, mccc::MessagePriority::kMedium};
  return sink.MakeVisitor()(1, header) ? 0 : 1;
}
