// SPDX-License-Identifier: MIT
// expect: mccc: StaticComponent: Derived has no Handle for any payload alternative
// Compile-fail check: a StaticComponent whose Handle functions are all invisible (here: private,
// or misspelt) would silently ignore every message; MakeVisitor must refuse to build.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile (the handler is public).
#include <variant>

#include "mccc/components/static_component.hpp"

using Payload = std::variant<int, double>;

class Sink : public mccc::StaticComponent<Sink, Payload> {
#ifndef MCCC_COMPILE_FAIL_CONTROL
 private:
#else
 public:
#endif
  void Handle(const int&) {}
};

int main() {
  Sink sink;
  auto visitor = sink.MakeVisitor();
  static_cast<void>(visitor);
  return 0;
}
