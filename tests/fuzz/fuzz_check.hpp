// SPDX-License-Identifier: MIT
/// @file fuzz_check.hpp
/// @brief How the fuzz target fails: a difference between the bus and the model prints what
/// differed, where it was checked and both values, then aborts (libFuzzer keeps the input).
#ifndef MCCC_TESTS_FUZZ_CHECK_HPP_
#define MCCC_TESTS_FUZZ_CHECK_HPP_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mccc_fuzz {

/// Prints the mismatch (the check's file and line) and aborts.
[[noreturn]] inline void Mismatch(const char* what, uint64_t actual, uint64_t expected,
                                  const char* file, int line) {
  const char* const slash = std::strrchr(file, '/');
  std::fprintf(stderr,
               "mccc fuzz: bus differs from the model at %s:%d: %s (bus %llu, model %llu)\n",
               slash != nullptr ? slash + 1 : file, line, what,
               static_cast<unsigned long long>(actual), static_cast<unsigned long long>(expected));
  std::abort();
}

#define FUZZ_CHECK(cond, what)                      \
  do {                                              \
    if (!(cond)) {                                  \
      Mismatch((what), 0U, 0U, __FILE__, __LINE__); \
    }                                               \
  } while (false)

#define FUZZ_CHECK_EQ(actual, expected, what)               \
  do {                                                      \
    const auto fuzz_a = static_cast<uint64_t>(actual);      \
    const auto fuzz_e = static_cast<uint64_t>(expected);    \
    if (fuzz_a != fuzz_e) {                                 \
      Mismatch((what), fuzz_a, fuzz_e, __FILE__, __LINE__); \
    }                                                       \
  } while (false)

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_CHECK_HPP_
