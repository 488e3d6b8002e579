// SPDX-License-Identifier: MIT
// Tests for mccc::make_overloaded / mccc::Overloaded (include/mccc/dispatch/overloaded.hpp).
#include "mccc/dispatch/overloaded.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace {

using mccc::make_overloaded;
using mccc::Overloaded;

struct Imu {
  int accel = 0;
};
struct Gps {
  double latitude = 0.0;
};
struct Text {
  std::string body;
};
using Payload = std::variant<Imu, Gps, Text>;

// ----- compile-time properties ------------------------------------------------------------

constexpr auto kConstexprVisitor =
    make_overloaded([](int x) { return x + 1; }, [](double) { return -1; });
static_assert(kConstexprVisitor(1) == 2, "usable in constant expressions");
static_assert(kConstexprVisitor(1.0) == -1, "");

struct First {
  int operator()(int) const { return 1; }
};
struct Second {
  int operator()(const std::string&) const { return 2; }
};
static_assert(std::is_aggregate<Overloaded<First, Second>>::value,
              "Overloaded is a C++17 aggregate");
static_assert(
    std::is_same<decltype(make_overloaded(First{}, Second{})), Overloaded<First, Second>>::value,
    "");
static_assert(noexcept(make_overloaded(First{}, Second{})), "noexcept follows the functors");

// ----- behaviour ------------------------------------------------------------------------------

TEST(OverloadedTest, VisitPicksTheMatchingLambda) {
  int imu_calls = 0;
  int gps_calls = 0;
  int text_calls = 0;
  auto visitor = make_overloaded(
      [&imu_calls](const Imu& m) { imu_calls += m.accel; },
      [&gps_calls](const Gps&) { ++gps_calls; },
      [&text_calls](const Text& m) { text_calls += static_cast<int>(m.body.size()); });
  const Payload imu = Imu{5};
  const Payload gps = Gps{1.5};
  const Payload text = Text{"abc"};
  std::visit(visitor, imu);
  std::visit(visitor, gps);
  std::visit(visitor, text);
  std::visit(visitor, imu);
  EXPECT_EQ(imu_calls, 10);
  EXPECT_EQ(gps_calls, 1);
  EXPECT_EQ(text_calls, 3);
}

TEST(OverloadedTest, VisitReturnsValue) {
  const auto describe = make_overloaded([](const Imu&) { return std::string("imu"); },
                                        [](const Gps&) { return std::string("gps"); },
                                        [](const Text& t) { return "text:" + t.body; });
  EXPECT_EQ(std::visit(describe, Payload{Imu{}}), "imu");
  EXPECT_EQ(std::visit(describe, Payload{Gps{}}), "gps");
  EXPECT_EQ(std::visit(describe, Payload{Text{"hi"}}), "text:hi");
}

TEST(OverloadedTest, GenericLambdaIsTheFallback) {
  const auto visitor = make_overloaded([](const Gps&) { return 1; }, [](const auto&) { return 0; });
  EXPECT_EQ(std::visit(visitor, Payload{Gps{}}), 1);
  EXPECT_EQ(std::visit(visitor, Payload{Imu{}}), 0);
  EXPECT_EQ(std::visit(visitor, Payload{Text{}}), 0);
}

TEST(OverloadedTest, OrdinaryOverloadResolution) {
  const auto f = make_overloaded(First{}, Second{}, [](double) { return 3; });
  EXPECT_EQ(f(7), 1);                 // exact match int
  EXPECT_EQ(f(std::string("x")), 2);  // exact match string
  EXPECT_EQ(f(2.5), 3);               // exact match double
  EXPECT_EQ(f('c'), 1);               // promotion char -> int beats conversion to double
}

TEST(OverloadedTest, AggregateInitAndDeductionGuide) {
  const Overloaded<First, Second> explicit_type{First{}, Second{}};
  EXPECT_EQ(explicit_type(0), 1);
  EXPECT_EQ(explicit_type(std::string()), 2);
  const Overloaded deduced{First{}, [](double) { return 9; }};
  EXPECT_EQ(deduced(0), 1);
  EXPECT_EQ(deduced(0.5), 9);
}

TEST(OverloadedTest, MutableAndMoveOnlyLambdas) {
  auto owned = std::make_unique<int>(40);
  auto f = make_overloaded([n = 0](int) mutable { return ++n; },
                           // mutable too: a const and a non-const call operator would make
                           // f(0.0) ambiguous (implicit object vs. argument conversion).
                           [p = std::move(owned)](double) mutable { return *p + 2; });
  EXPECT_EQ(f(0), 1);
  EXPECT_EQ(f(0), 2) << "mutable state is kept in the Overloaded object";
  EXPECT_EQ(f(0.0), 42);
  static_assert(!std::is_copy_constructible<decltype(f)>::value, "move-only like its lambdas");
  auto moved = std::move(f);
  EXPECT_EQ(moved(0), 3);
}

TEST(OverloadedTest, LvalueFunctorsAreCopied) {
  int count = 0;
  auto counter = [&count](int) { ++count; };
  const auto f = make_overloaded(counter, [](double) {});
  f(1);
  counter(1);
  EXPECT_EQ(count, 2);
}

}  // namespace
