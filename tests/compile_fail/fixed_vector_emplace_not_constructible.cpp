// SPDX-License-Identifier: MIT
// expect: FixedVector::emplace_back: T cannot be built from these arguments
// Compile-fail check: emplace_back with arguments that neither a constructor nor brace
// initialization accepts (here a narrowing double -> int inside braces) names the problem.
// With -DMCCC_COMPILE_FAIL_CONTROL the file must compile.
#include "mccc/containers/fixed_vector.hpp"

struct Reading {
  int channel;
};

int main() {
  mccc::FixedVector<Reading, 1> v;
#ifndef MCCC_COMPILE_FAIL_CONTROL
  const bool stored = v.emplace_back(1.5);
#else
  const bool stored = v.emplace_back(1);
#endif
  return stored ? 0 : 1;
}
