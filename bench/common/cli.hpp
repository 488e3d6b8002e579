// SPDX-License-Identifier: MIT
/// @file cli.hpp
/// @brief The command-line pieces the benchmark programs share: comma-separated lists and the
/// --filter rule.
#ifndef MCCC_BENCH_COMMON_CLI_HPP_
#define MCCC_BENCH_COMMON_CLI_HPP_

#include <cstddef>
#include <string>
#include <vector>

namespace mccc_bench {

/// The non-empty items of a comma-separated list ("24,64k" -> {"24", "64k"}).
inline std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0U;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    const std::size_t end = comma == std::string::npos ? s.size() : comma;
    if (end > start) {
      out.push_back(s.substr(start, end - start));
    }
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1U;
  }
  return out;
}

/// --filter: every name when the filter is empty, else the names that contain one of its texts
/// or (a text with a leading '=') are exactly it.
inline bool Selected(const std::vector<std::string>& filter, const std::string& name) {
  if (filter.empty()) {
    return true;
  }
  for (const std::string& f : filter) {
    if (f.size() > 1U && f[0] == '=' ? name == f.substr(1U) : name.find(f) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_CLI_HPP_
