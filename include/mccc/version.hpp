// SPDX-License-Identifier: MIT
/// @file version.hpp
/// @brief The single source of truth for the mccc version; CMake parses these three lines.
#ifndef MCCC_VERSION_HPP_
#define MCCC_VERSION_HPP_

// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06
#define MCCC_VERSION_MAJOR 1
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06
#define MCCC_VERSION_MINOR 0
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): deviation D-06
#define MCCC_VERSION_PATCH 0

/// @brief The version as one comparable integer: major * 10000 + minor * 100 + patch.
#define MCCC_VERSION (MCCC_VERSION_MAJOR * 10000 + MCCC_VERSION_MINOR * 100 + MCCC_VERSION_PATCH)

#endif  // MCCC_VERSION_HPP_
