// SPDX-License-Identifier: MIT
/// @file enumerator_aliases.hpp
/// @brief The original MCCC's upper-case enumerator names (`MessagePriority::HIGH`,
/// `PerformanceMode::BARE_METAL`, `BusError::QUEUE_FULL`, ...), for code written against it
/// (docs/migrating.md). mccc's own names are kCamelCase.
///
/// An enumerator can only be declared inside its enum, so message.hpp expands these lists at
/// the end of each enum; the names themselves are spelled only here. Always included (through
/// message.hpp), so code that uses them compiles whatever it includes first, and every
/// translation unit sees the same enums. Only the enumerators the original had are aliased
/// (BusError's later values, such as kLoanRefused, have no upper-case name).
#ifndef MCCC_COMPAT_ENUMERATOR_ALIASES_HPP_
#define MCCC_COMPAT_ENUMERATOR_ALIASES_HPP_

// NOLINTBEGIN(cppcoreguidelines-macro-usage): deviation D-08 (enumerators cannot be declared
// outside their enum)
#define MCCC_COMPAT_MESSAGE_PRIORITY_NAMES LOW = kLow, MEDIUM = kMedium, HIGH = kHigh,
#define MCCC_COMPAT_BACKPRESSURE_LEVEL_NAMES \
  NORMAL = kNormal, WARNING = kWarning, CRITICAL = kCritical, FULL = kFull,
#define MCCC_COMPAT_BUS_ERROR_NAMES                                                                \
  QUEUE_FULL = kQueueFull, INVALID_MESSAGE = kInvalidMessage, PROCESSING_ERROR = kProcessingError, \
  OVERFLOW_DETECTED = kOverflowDetected,
#define MCCC_COMPAT_PERFORMANCE_MODE_NAMES \
  FULL_FEATURED = kFullFeatured, BARE_METAL = kBareMetal, NO_STATS = kNoStats,
// NOLINTEND(cppcoreguidelines-macro-usage)

#endif  // MCCC_COMPAT_ENUMERATOR_ALIASES_HPP_
