// SPDX-License-Identifier: MIT
// Tests for mccc::FixedString (include/mccc/containers/fixed_string.hpp).
#include "mccc/containers/fixed_string.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace {

using mccc::FixedString;
using mccc::TruncateToCapacity;

// ----- compile-time properties ------------------------------------------------------------

static_assert(FixedString<8>::capacity() == 8U, "capacity() is N");
static_assert(std::is_trivially_copyable<FixedString<16>>::value,
              "FixedString must be trivially copyable so it can travel inside messages");
static_assert(std::is_nothrow_default_constructible<FixedString<16>>::value, "");
static_assert(std::is_nothrow_constructible<FixedString<16>, const char (&)[4]>::value, "");
// Runtime strings need the tag: a plain const char* must not convert implicitly.
static_assert(!std::is_constructible<FixedString<16>, const char*>::value,
              "const char* without TruncateToCapacity must not compile");
static_assert(!std::is_convertible<const char*, FixedString<16>>::value, "");
// A literal that is too long is rejected by a static_assert in the constructor body, see
// tests/compile_fail/fixed_string_literal_too_long.cpp.

// Everything a literal needs works in constant expressions.
constexpr FixedString<8> kConstexprName("motor");
static_assert(kConstexprName.size() == 5U, "");
static_assert(kConstexprName == "motor", "");
static_assert(kConstexprName != "motors", "");
static_assert(kConstexprName == FixedString<5>("motor"), "");
static_assert(!kConstexprName.empty(), "");
static_assert(FixedString<3>(TruncateToCapacity, "abcdef").size() == 3U, "");
static_assert(FixedString<3>(TruncateToCapacity, "abcdef") == "abc", "");

constexpr FixedString<4> MakeAssigned() {
  FixedString<4> s("ab");
  s = "wxyz";
  return s;
}
static_assert(MakeAssigned() == "wxyz", "constexpr literal assignment");

// The string_view constructor and the assign overloads are constant expressions too.
static_assert(FixedString<3>(TruncateToCapacity, std::string_view("abcdef")) == "abc", "");
constexpr FixedString<4> MakeTruncAssigned() {
  FixedString<4> s("ab");
  s.assign(TruncateToCapacity, "vwxyz");
  return s;
}
static_assert(MakeTruncAssigned() == "vwxy", "constexpr truncating assign");
// The tag is still required for a std::string, as for a const char*.
static_assert(!std::is_constructible<FixedString<16>, const std::string&>::value, "");
static_assert(!std::is_constructible<FixedString<16>, std::string_view>::value, "");

// ----- construction -------------------------------------------------------------------------

TEST(FixedStringTest, DefaultConstructedIsEmptyAndTerminated) {
  const FixedString<8> s;
  EXPECT_EQ(s.size(), 0U);
  EXPECT_TRUE(s.empty());
  ASSERT_NE(s.c_str(), nullptr);
  EXPECT_STREQ(s.c_str(), "");
  EXPECT_EQ(FixedString<8>::capacity(), 8U);
}

TEST(FixedStringTest, LiteralShorterThanCapacity) {
  const FixedString<8> s("abc");
  EXPECT_EQ(s.size(), 3U);
  EXPECT_FALSE(s.empty());
  EXPECT_STREQ(s.c_str(), "abc");
}

TEST(FixedStringTest, LiteralExactlyCapacityFits) {
  const FixedString<5> s = "hello";  // implicit, like std::string
  EXPECT_EQ(s.size(), 5U);
  EXPECT_STREQ(s.c_str(), "hello");
  EXPECT_EQ(s.c_str()[5], '\0');
}

TEST(FixedStringTest, EmptyLiteralAndZeroCapacity) {
  const FixedString<0> zero("");
  EXPECT_EQ(zero.size(), 0U);
  EXPECT_STREQ(zero.c_str(), "");
  const FixedString<4> empty_literal("");
  EXPECT_TRUE(empty_literal.empty());
}

TEST(FixedStringTest, LiteralStopsAtEmbeddedNul) {
  const FixedString<8> s("ab\0cd");
  EXPECT_EQ(s.size(), 2U);
  EXPECT_STREQ(s.c_str(), "ab");
}

TEST(FixedStringTest, CharArrayCopiesUpToFirstNul) {
  char buffer[16] = {};
  std::memcpy(buffer, "pump", 5U);
  const FixedString<15> s(buffer);
  EXPECT_EQ(s.size(), 4U);
  EXPECT_STREQ(s.c_str(), "pump");
}

TEST(FixedStringTest, TruncateShorterStringIsKept) {
  const std::string runtime = "abc";
  const FixedString<8> s(TruncateToCapacity, runtime.c_str());
  EXPECT_EQ(s.size(), 3U);
  EXPECT_STREQ(s.c_str(), "abc");
}

TEST(FixedStringTest, TruncateExactFitIsKept) {
  const std::string runtime = "abcd";
  const FixedString<4> s(TruncateToCapacity, runtime.c_str());
  EXPECT_EQ(s.size(), 4U);
  EXPECT_STREQ(s.c_str(), "abcd");
}

TEST(FixedStringTest, TruncateLongerStringKeepsFirstNChars) {
  const std::string runtime = "0123456789";
  const FixedString<4> s(TruncateToCapacity, runtime.c_str());
  EXPECT_EQ(s.size(), 4U);
  EXPECT_STREQ(s.c_str(), "0123");
  EXPECT_EQ(s.c_str()[4], '\0');
}

TEST(FixedStringTest, TruncateNullPointerGivesEmpty) {
  const char* const null_string = nullptr;
  const FixedString<4> s(TruncateToCapacity, null_string);
  EXPECT_TRUE(s.empty());
  EXPECT_STREQ(s.c_str(), "");
  const FixedString<4> with_len(TruncateToCapacity, null_string, 0U);
  EXPECT_TRUE(with_len.empty());
}

TEST(FixedStringTest, TruncateWithLengthCopiesMinOfLenAndN) {
  const char text[] = "abcdefgh";  // no NUL needed within len
  const FixedString<8> first_three(TruncateToCapacity, text, 3U);
  EXPECT_EQ(first_three.size(), 3U);
  EXPECT_STREQ(first_three.c_str(), "abc");

  const FixedString<4> truncated(TruncateToCapacity, text, 8U);
  EXPECT_EQ(truncated.size(), 4U);
  EXPECT_STREQ(truncated.c_str(), "abcd");

  const FixedString<4> none(TruncateToCapacity, text, 0U);
  EXPECT_TRUE(none.empty());
}

TEST(FixedStringTest, TruncateWithLengthReadsNoFurtherThanLen) {
  // Not NUL-terminated: only len chars may be read (ASan would report an overread).
  const char raw[3] = {'x', 'y', 'z'};
  const FixedString<8> s(TruncateToCapacity, raw, sizeof(raw));
  EXPECT_EQ(s.size(), 3U);
  EXPECT_STREQ(s.c_str(), "xyz");
}

TEST(FixedStringTest, TruncateWithLengthKeepsEmbeddedNul) {
  const char raw[] = {'a', '\0', 'b'};
  const FixedString<8> s(TruncateToCapacity, raw, 3U);
  EXPECT_EQ(s.size(), 3U);
  EXPECT_EQ(s.c_str()[0], 'a');
  EXPECT_EQ(s.c_str()[1], '\0');
  EXPECT_EQ(s.c_str()[2], 'b');
  EXPECT_EQ(s.c_str()[3], '\0');
  // The C-string view ends at the embedded NUL, so it is not equal to "a".
  EXPECT_FALSE(s == "a");
  EXPECT_TRUE(s == (FixedString<3>(TruncateToCapacity, raw, 3U)));
  EXPECT_FALSE(s == (FixedString<3>(TruncateToCapacity, "a\0c", 3U)));
}

// ----- modification -------------------------------------------------------------------------

TEST(FixedStringTest, AssignLiteralReplacesContent) {
  FixedString<6> s("longer");
  s = "ab";
  EXPECT_EQ(s.size(), 2U);
  EXPECT_STREQ(s.c_str(), "ab");
  // The old tail is zeroed, so equal strings are equal byte for byte.
  const FixedString<6> fresh("ab");
  EXPECT_EQ(std::memcmp(s.c_str(), fresh.c_str(), FixedString<6>::capacity() + 1U), 0);
  s = "";
  EXPECT_TRUE(s.empty());
  s = "abcdef";
  EXPECT_STREQ(s.c_str(), "abcdef");
}

TEST(FixedStringTest, ClearEmptiesAndZeroes) {
  FixedString<6> s("abc");
  s.clear();
  EXPECT_EQ(s.size(), 0U);
  EXPECT_TRUE(s.empty());
  EXPECT_STREQ(s.c_str(), "");
  for (std::size_t i = 0U; i <= FixedString<6>::capacity(); ++i) {
    EXPECT_EQ(s.c_str()[i], '\0') << "index " << i;
  }
}

TEST(FixedStringTest, CopyIsIndependent) {
  FixedString<8> original("alpha");
  const FixedString<8> copy = original;
  original = "beta";
  EXPECT_STREQ(copy.c_str(), "alpha");
  EXPECT_STREQ(original.c_str(), "beta");
}

// ----- comparison ---------------------------------------------------------------------------

TEST(FixedStringTest, EqualityAcrossCapacities) {
  const FixedString<4> small("abc");
  const FixedString<32> large("abc");
  EXPECT_TRUE(small == large);
  EXPECT_TRUE(large == small);
  EXPECT_FALSE(small != large);

  const FixedString<32> prefix("ab");
  const FixedString<32> longer("abcd");
  const FixedString<32> different("abd");
  EXPECT_FALSE(small == prefix);
  EXPECT_FALSE(small == longer);
  EXPECT_FALSE(small == different);
  EXPECT_TRUE(small != prefix);
  EXPECT_TRUE(small != longer);
  EXPECT_TRUE(small != different);

  EXPECT_TRUE(FixedString<1>() == FixedString<9>());
}

TEST(FixedStringTest, EqualityWithCString) {
  const FixedString<8> s("abc");
  const std::string same = "abc";
  const std::string prefix = "ab";
  const std::string longer = "abcd";
  const std::string different = "abx";

  EXPECT_TRUE(s == same.c_str());
  EXPECT_TRUE(same.c_str() == s);
  EXPECT_FALSE(s != same.c_str());
  EXPECT_FALSE(same.c_str() != s);

  EXPECT_FALSE(s == prefix.c_str());
  EXPECT_FALSE(s == longer.c_str());
  EXPECT_FALSE(s == different.c_str());
  EXPECT_FALSE(longer.c_str() == s);
  EXPECT_TRUE(s != prefix.c_str());
  EXPECT_TRUE(prefix.c_str() != s);

  EXPECT_TRUE(s == "abc");  // literal decays to const char*
  EXPECT_TRUE("abc" == s);
  EXPECT_TRUE(s != "");
  EXPECT_TRUE(FixedString<8>() == "");
}

TEST(FixedStringTest, EqualityWithNullPointerTreatsItAsEmpty) {
  const char* const null_string = nullptr;
  EXPECT_TRUE(FixedString<4>() == null_string);
  EXPECT_TRUE(null_string == FixedString<4>());
  EXPECT_FALSE(FixedString<4>("a") == null_string);
  EXPECT_TRUE(FixedString<4>("a") != null_string);
  EXPECT_TRUE(null_string != FixedString<4>("a"));
}

// ----- std::string / std::string_view and assign ---------------------------------------------

TEST(FixedStringTest, TruncateFromStdStringKeepsFirstNChars) {
  const std::string long_text = "temperature sensor";
  const FixedString<11> s(TruncateToCapacity, long_text);
  EXPECT_EQ(s.size(), 11U);
  EXPECT_STREQ(s.c_str(), "temperature");
  const std::string short_text = "imu";
  const FixedString<11> t(TruncateToCapacity, short_text);
  EXPECT_EQ(t.size(), 3U);
  EXPECT_STREQ(t.c_str(), "imu");
  const FixedString<11> empty(TruncateToCapacity, std::string());
  EXPECT_TRUE(empty.empty());
}

TEST(FixedStringTest, TruncateFromStdStringKeepsEmbeddedNulAsTheLengthSays) {
  const std::string with_nul("a\0b", 3U);
  const FixedString<8> s(TruncateToCapacity, with_nul);
  EXPECT_EQ(s.size(), 3U);
  EXPECT_EQ(s, (FixedString<3>(TruncateToCapacity, "a\0b", 3U)));
}

TEST(FixedStringTest, TruncateFromStringViewReadsOnlyTheView) {
  const char text[] = "gyroscope";
  const std::string_view first_four(text, 4U);  // not NUL-terminated after 4 chars
  const FixedString<8> s(TruncateToCapacity, first_four);
  EXPECT_EQ(s.size(), 4U);
  EXPECT_STREQ(s.c_str(), "gyro");
  const FixedString<8> none(TruncateToCapacity, std::string_view());
  EXPECT_TRUE(none.empty());
}

TEST(FixedStringTest, AssignTruncatingReplacesTheWholeContent) {
  FixedString<5> s("ab");
  EXPECT_EQ(&s.assign(TruncateToCapacity, "hello world"), &s);
  EXPECT_EQ(s.size(), 5U);
  EXPECT_STREQ(s.c_str(), "hello");
  // A shorter value leaves no trace of the longer one, in the chars after size() too.
  s.assign(TruncateToCapacity, "hi");
  EXPECT_EQ(s.size(), 2U);
  EXPECT_EQ(s, FixedString<5>("hi"));
  const char* const null_string = nullptr;
  s.assign(TruncateToCapacity, null_string);
  EXPECT_TRUE(s.empty());
}

TEST(FixedStringTest, AssignTruncatingWithLengthAndFromStrings) {
  FixedString<4> s;
  s.assign(TruncateToCapacity, "abcdef", 2U);
  EXPECT_STREQ(s.c_str(), "ab");
  s.assign(TruncateToCapacity, "abcdef", 6U);
  EXPECT_STREQ(s.c_str(), "abcd");
  s.assign(TruncateToCapacity, std::string("xyz"));
  EXPECT_STREQ(s.c_str(), "xyz");
  s.assign(TruncateToCapacity, std::string_view("uvwxyz"));
  EXPECT_STREQ(s.c_str(), "uvwx");
}

TEST(FixedStringTest, AssignFromItsOwnContent) {
  FixedString<8> s("abcdef");
  s.assign(TruncateToCapacity, s.c_str() + 2);  // a suffix of itself
  EXPECT_STREQ(s.c_str(), "cdef");
  s.assign(TruncateToCapacity, s.c_str(), 2U);  // a prefix of itself
  EXPECT_STREQ(s.c_str(), "cd");
  EXPECT_EQ(s, FixedString<2>("cd"));
}

#if MCCC_ENABLE_ASSERTS
TEST(FixedStringDeathTest, CharArrayWithoutTerminatorAsserts) {
  const char unterminated[4] = {'a', 'b', 'c', 'd'};
  EXPECT_DEATH(
      {
        const FixedString<8> s(unterminated);
        static_cast<void>(s);
      },
      "no NUL at its end");
}

TEST(FixedStringDeathTest, NullPointerWithLengthAsserts) {
  const char* const null_string = nullptr;
  EXPECT_DEATH(
      {
        const FixedString<8> s(TruncateToCapacity, null_string, 3U);
        static_cast<void>(s);
      },
      "null pointer with len > 0");
}
#endif

}  // namespace
