// SPDX-License-Identifier: MIT
/// @file fuzz_payloads.hpp
/// @brief The payload types the fuzzed buses carry (Small, Big, Text inline; Cloud by loan), each
/// able to tell whether it arrived intact, and the live-instance counters that prove every
/// payload and every subscriber capture is destroyed exactly once.
#ifndef MCCC_TESTS_FUZZ_PAYLOADS_HPP_
#define MCCC_TESTS_FUZZ_PAYLOADS_HPP_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>

#include "mccc/mccc.hpp"

#if !defined(MCCC_ENABLE_TEST_HOOKS) || !MCCC_ENABLE_TEST_HOOKS
#error "the fuzz target needs MCCC_ENABLE_TEST_HOOKS=1 before mccc is included"
#endif

namespace mccc_fuzz {

constexpr uint64_t Mix(uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

inline uint64_t g_salt = 0U;      // per input, so contents differ between inputs
inline long g_live_text = 0;      // live Text payload objects (anywhere)
inline long g_live_captures = 0;  // live CaptureToken objects (inside subscriber callables)

/// Armed by the harness around one PublishEmplace<Small>: Small's constructor, running inside
/// the claimed slot, calls it once (and disarms it), as a signal handler that interrupts its
/// thread's publish would publish.
inline void (*g_in_constructor)(void*) = nullptr;
inline void* g_in_constructor_context = nullptr;

/// Alternative 0: trivially copyable, nothrow everything.
struct Small {
  explicit Small(uint32_t s) noexcept : seq(s), check(Mix(s ^ g_salt)) {
    if (g_in_constructor != nullptr) {
      void (*const nested)(void*) = g_in_constructor;
      g_in_constructor = nullptr;
      nested(g_in_constructor_context);
    }
  }
  bool Intact() const noexcept { return check == Mix(seq ^ g_salt); }
  uint32_t seq;
  uint64_t check;
};

/// Alternative 1: larger, nothrow.
struct Big {
  explicit Big(uint32_t s) noexcept : seq(s) {
    for (std::size_t i = 0U; i < words.size(); ++i) {
      words[i] = Mix((static_cast<uint64_t>(s) << 3U) + i + g_salt);
    }
  }
  bool Intact() const noexcept {
    for (std::size_t i = 0U; i < words.size(); ++i) {
      if (words[i] != Mix((static_cast<uint64_t>(seq) << 3U) + i + g_salt)) {
        return false;
      }
    }
    return true;
  }
  uint32_t seq;
  std::array<uint64_t, 5> words{};
};

/// Counts live instances, so the model can prove every payload is destroyed exactly once.
struct LiveText {
  LiveText() noexcept { ++g_live_text; }
  LiveText(const LiveText&) noexcept { ++g_live_text; }
  LiveText(LiveText&&) noexcept { ++g_live_text; }
  LiveText& operator=(const LiveText&) noexcept = default;
  LiveText& operator=(LiveText&&) noexcept = default;
  ~LiveText() { --g_live_text; }
};

inline std::string TextFor(uint32_t seq) {
  // 0..69 characters: both sides of the small-string optimisation (heap for the long ones).
  const std::size_t length = static_cast<std::size_t>((seq * 7U + g_salt) % 70U);
  std::string text(length, 'a');
  for (std::size_t i = 0U; i < length; ++i) {
    text[i] = static_cast<char>('a' + static_cast<char>((seq + i) % 26U));
  }
  return text;
}

/// Alternative 2: owns heap memory, may throw on construction and copy (std::string), nothrow
/// move (the bus requires it).
struct Text {
  explicit Text(uint32_t s) : seq(s), text(TextFor(s)) {}
  Text(const Text&) = default;
  Text(Text&&) noexcept = default;
  Text& operator=(const Text&) = default;
  Text& operator=(Text&&) noexcept = default;
  ~Text() = default;
  bool Intact() const { return text == TextFor(seq); }
  uint32_t seq;
  std::string text;
  LiveText live;
};

inline long g_live_clouds = 0;  // live Cloud objects (in pool blocks, or copies)

/// Alternative 3, as mccc::Loaned<Cloud>: built in a pool block by Loan, filled in place. Its
/// default constructor leaves the points unset (as Loan<T>() default-initialises), the other
/// fills them.
struct Cloud {
  Cloud() noexcept { ++g_live_clouds; }
  Cloud(uint32_t s, uint8_t f) noexcept {
    ++g_live_clouds;
    Fill(s, f);
  }
  Cloud(const Cloud& other) noexcept : seq(other.seq), fill(other.fill), points(other.points) {
    ++g_live_clouds;
  }
  Cloud& operator=(const Cloud&) = delete;
  ~Cloud() { --g_live_clouds; }

  static uint64_t PointFor(uint32_t s, uint8_t f, std::size_t i) noexcept {
    return Mix((static_cast<uint64_t>(s) << 16U) ^ (static_cast<uint64_t>(f) << 8U) ^ i ^ g_salt);
  }
  void Fill(uint32_t s, uint8_t f) noexcept {
    seq = s;
    fill = f;
    for (std::size_t i = 0U; i < points.size(); ++i) {
      points[i] = PointFor(s, f, i);
    }
  }
  bool Intact() const noexcept {
    for (std::size_t i = 0U; i < points.size(); ++i) {
      if (points[i] != PointFor(seq, fill, i)) {
        return false;
      }
    }
    return true;
  }
  uint32_t seq;
  uint8_t fill;
  std::array<uint64_t, 12> points;
};

using Payload = std::variant<Small, Big, Text, mccc::Loaned<Cloud>>;
constexpr uint32_t kInlineTypes = 3U;  // Small, Big, Text: published inline
constexpr uint32_t kTypes = 4U;        // and Cloud, by loan
constexpr uint8_t kCloudType = 3U;

template <typename T>
constexpr uint8_t kIndexOf = std::is_same_v<T, Small>
                                 ? 0U
                                 : (std::is_same_v<T, Big> ? 1U
                                                           : (std::is_same_v<T, Text> ? 2U : 3U));

/// The alternative that carries T.
template <typename T>
using AlternativeOf = std::conditional_t<std::is_same_v<T, Cloud>, mccc::Loaned<Cloud>, T>;

/// Lives inside subscriber callables: counts them and detects use after destruction.
struct CaptureToken {
  static constexpr uint32_t kAlive = 0xC0FFEE11U;
  CaptureToken() noexcept { ++g_live_captures; }
  CaptureToken(const CaptureToken&) noexcept { ++g_live_captures; }
  CaptureToken(CaptureToken&&) noexcept { ++g_live_captures; }
  CaptureToken& operator=(const CaptureToken&) = delete;
  CaptureToken& operator=(CaptureToken&&) = delete;
  ~CaptureToken() {
    canary = 0xDEADU;
    --g_live_captures;
  }
  bool Alive() const noexcept { return canary == kAlive; }
  uint32_t canary = kAlive;
};

struct FuzzThrow {};

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_PAYLOADS_HPP_
