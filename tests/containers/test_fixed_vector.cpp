// SPDX-License-Identifier: MIT
// Tests for mccc::FixedVector (include/mccc/containers/fixed_vector.hpp).
//
// Element lifetimes are checked with Tracked, which records every live object address: a
// double destroy, an assignment to or from a dead slot, or a leak shows up as a failure, not
// only as a wrong counter.
#include "mccc/containers/fixed_vector.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace {

using mccc::FixedVector;

// ----- instance tracking --------------------------------------------------------------------

struct Counters {
  int default_constructions = 0;
  int value_constructions = 0;
  int copy_constructions = 0;
  int move_constructions = 0;
  int copy_assignments = 0;
  int move_assignments = 0;
  int destructions = 0;
  int lifetime_errors = 0;  // destroy of a dead object, use of a dead object
  std::set<const void*> live;

  int constructions() const {
    return default_constructions + value_constructions + copy_constructions + move_constructions;
  }
};

Counters g_counters;

class Tracked {
 public:
  Tracked() noexcept : value_(0) {
    Register();
    ++g_counters.default_constructions;
  }
  explicit Tracked(int value) noexcept : value_(value) {
    Register();
    ++g_counters.value_constructions;
  }
  Tracked(int a, int b) noexcept : value_(a * 100 + b) {
    Register();
    ++g_counters.value_constructions;
  }
  Tracked(const Tracked& other) noexcept : value_(other.value_) {
    CheckAlive(&other);
    Register();
    ++g_counters.copy_constructions;
  }
  Tracked(Tracked&& other) noexcept : value_(other.value_) {
    CheckAlive(&other);
    other.value_ = kMovedFrom;
    Register();
    ++g_counters.move_constructions;
  }
  Tracked& operator=(const Tracked& other) noexcept {
    CheckAlive(this);
    CheckAlive(&other);
    value_ = other.value_;
    ++g_counters.copy_assignments;
    return *this;
  }
  Tracked& operator=(Tracked&& other) noexcept {
    CheckAlive(this);
    CheckAlive(&other);
    value_ = other.value_;
    if (this != &other) {
      other.value_ = kMovedFrom;
    }
    ++g_counters.move_assignments;
    return *this;
  }
  ~Tracked() {
    if (g_counters.live.erase(this) != 1U) {
      ++g_counters.lifetime_errors;
    }
    ++g_counters.destructions;
  }

  int value() const {
    CheckAlive(this);
    return value_;
  }

  static constexpr int kMovedFrom = -1;

 private:
  void Register() {
    if (!g_counters.live.insert(this).second) {
      ++g_counters.lifetime_errors;  // constructed over a live object
    }
  }
  static void CheckAlive(const void* object) {
    if (g_counters.live.count(object) != 1U) {
      ++g_counters.lifetime_errors;
    }
  }

  int value_;
};

// Every test starts from zero and must end with no live Tracked and no lifetime error.
class FixedVectorTest : public ::testing::Test {
 protected:
  void SetUp() override { g_counters = Counters{}; }
  void TearDown() override {
    EXPECT_EQ(g_counters.live.size(), 0U) << "leaked Tracked objects";
    EXPECT_EQ(g_counters.lifetime_errors, 0) << "double destroy or use of a dead object";
    EXPECT_EQ(g_counters.constructions(), g_counters.destructions);
  }
};

// ----- compile-time properties ------------------------------------------------------------

struct NoDefault {
  explicit NoDefault(int v) noexcept : value(v) {}
  int value;
};

struct ThrowingMove {
  ThrowingMove() = default;
  ThrowingMove(const ThrowingMove&) {}
  ThrowingMove(ThrowingMove&&) {}  // NOLINT: deliberately not noexcept
  ThrowingMove& operator=(const ThrowingMove&) { return *this; }
  ThrowingMove& operator=(ThrowingMove&&) { return *this; }  // NOLINT
};

struct alignas(32) OverAligned {
  int value = 0;
};

static_assert(FixedVector<int, 7>::capacity() == 7U, "");
static_assert(std::is_nothrow_default_constructible<FixedVector<NoDefault, 4>>::value,
              "an empty FixedVector constructs no element, so T needs no default constructor");
static_assert(std::is_nothrow_move_constructible<FixedVector<int, 4>>::value, "");
static_assert(std::is_nothrow_move_assignable<FixedVector<int, 4>>::value, "");
static_assert(std::is_nothrow_copy_constructible<FixedVector<int, 4>>::value, "");
static_assert(std::is_nothrow_destructible<FixedVector<Tracked, 4>>::value, "");
static_assert(!std::is_nothrow_move_constructible<FixedVector<ThrowingMove, 4>>::value,
              "noexcept must follow T");
static_assert(!std::is_nothrow_move_assignable<FixedVector<ThrowingMove, 4>>::value, "");
static_assert(!std::is_nothrow_copy_constructible<FixedVector<ThrowingMove, 4>>::value, "");
static_assert(noexcept(std::declval<FixedVector<int, 4>&>().push_back(1)), "");
static_assert(!noexcept(std::declval<FixedVector<ThrowingMove, 4>&>().push_back(ThrowingMove{})),
              "");
static_assert(alignof(FixedVector<OverAligned, 3>) >= 32U, "storage honours alignof(T)");
static_assert(std::is_same<FixedVector<int, 2>::iterator, int*>::value, "");
static_assert(std::is_same<FixedVector<int, 2>::const_iterator, const int*>::value, "");

// ----- construction and capacity ------------------------------------------------------------

TEST_F(FixedVectorTest, DefaultConstructedIsEmptyAndConstructsNoElement) {
  {
    FixedVector<Tracked, 8> v;
    EXPECT_EQ(v.size(), 0U);
    EXPECT_TRUE(v.empty());
    EXPECT_FALSE(v.full());
    EXPECT_EQ(v.begin(), v.end());
    EXPECT_EQ(v.capacity(), 8U);
  }
  EXPECT_EQ(g_counters.constructions(), 0);
  EXPECT_EQ(g_counters.destructions, 0);
}

TEST_F(FixedVectorTest, WorksWithoutDefaultConstructor) {
  FixedVector<NoDefault, 2> v;
  ASSERT_TRUE(v.emplace_back(5));
  EXPECT_EQ(v[0].value, 5);
}

TEST_F(FixedVectorTest, StorageIsAlignedForOverAlignedElements) {
  FixedVector<OverAligned, 3> v;
  ASSERT_TRUE(v.emplace_back());
  ASSERT_TRUE(v.emplace_back());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&v[0]) % 32U, 0U);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&v[1]) % 32U, 0U);
}

// ----- insertion ----------------------------------------------------------------------------

TEST_F(FixedVectorTest, PushBackCopyConstructsOnce) {
  FixedVector<Tracked, 4> v;
  const Tracked source(7);
  ASSERT_TRUE(v.push_back(source));
  EXPECT_EQ(v.size(), 1U);
  EXPECT_EQ(v[0].value(), 7);
  EXPECT_EQ(source.value(), 7);
  EXPECT_EQ(g_counters.copy_constructions, 1);
  EXPECT_EQ(g_counters.move_constructions, 0);
  EXPECT_EQ(g_counters.live.size(), 2U);
}

TEST_F(FixedVectorTest, PushBackRvalueMoveConstructsOnce) {
  FixedVector<Tracked, 4> v;
  Tracked source(9);
  ASSERT_TRUE(v.push_back(std::move(source)));
  EXPECT_EQ(v[0].value(), 9);
  EXPECT_EQ(source.value(), Tracked::kMovedFrom);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(g_counters.move_constructions, 1);
  EXPECT_EQ(g_counters.copy_constructions, 0);
}

TEST_F(FixedVectorTest, EmplaceBackConstructsInPlace) {
  FixedVector<Tracked, 4> v;
  ASSERT_TRUE(v.emplace_back(3, 4));
  ASSERT_TRUE(v.emplace_back());
  EXPECT_EQ(v.size(), 2U);
  EXPECT_EQ(v[0].value(), 304);
  EXPECT_EQ(v[1].value(), 0);
  EXPECT_EQ(g_counters.value_constructions, 1);
  EXPECT_EQ(g_counters.default_constructions, 1);
  EXPECT_EQ(g_counters.copy_constructions + g_counters.move_constructions, 0);
}

// A message struct with no constructor: emplace_back builds it from its members with braces.
struct Reading {
  int channel;
  double value;
};

// A type with both a (count, value) constructor and a list constructor: the parentheses win,
// as in std::vector, so (3, 7) means three sevens and not the list {3, 7}.
struct CountOrList {
  CountOrList(std::size_t count, int value) noexcept : size(count), first(value) {}
  CountOrList(std::initializer_list<int> list) noexcept
      : size(list.size()), first(list.size() == 0U ? 0 : *list.begin()) {}
  std::size_t size;
  int first;
};

static_assert(noexcept(std::declval<FixedVector<Reading, 2>&>().emplace_back(1, 2.0)),
              "brace construction of an aggregate of scalars cannot throw");

TEST_F(FixedVectorTest, EmplaceBackBuildsAnAggregateFromItsMembers) {
  FixedVector<Reading, 2> v;
  ASSERT_TRUE(v.emplace_back(4, 2.5));
  ASSERT_TRUE(v.emplace_back(5, -1.0));
  EXPECT_FALSE(v.emplace_back(6, 1.0));
  ASSERT_EQ(v.size(), 2U);
  EXPECT_EQ(v[0].channel, 4);
  EXPECT_EQ(v[0].value, 2.5);
  EXPECT_EQ(v[1].channel, 5);
  EXPECT_EQ(v[1].value, -1.0);
}

TEST_F(FixedVectorTest, EmplaceBackPrefersAConstructorOverBraces) {
  FixedVector<CountOrList, 1> v;
  ASSERT_TRUE(v.emplace_back(std::size_t{3}, 7));
  EXPECT_EQ(v[0].size, 3U);
  EXPECT_EQ(v[0].first, 7);
}

TEST_F(FixedVectorTest, InsertIntoFullVectorReturnsFalseAndTouchesNothing) {
  FixedVector<Tracked, 2> v;
  ASSERT_TRUE(v.emplace_back(1));
  ASSERT_TRUE(v.emplace_back(2));
  EXPECT_TRUE(v.full());
  const int constructions_before = g_counters.constructions();

  Tracked movable(3);
  const Tracked copyable(4);
  EXPECT_FALSE(v.push_back(std::move(movable)));
  EXPECT_FALSE(v.push_back(copyable));
  EXPECT_FALSE(v.emplace_back(5));
  EXPECT_FALSE(v.emplace_back(6, 7));

  EXPECT_EQ(movable.value(), 3) << "a rejected rvalue must not be moved from";
  EXPECT_EQ(copyable.value(), 4);
  // Only movable and copyable were constructed since; nothing was built inside v.
  EXPECT_EQ(g_counters.constructions(), constructions_before + 2);
  EXPECT_EQ(v.size(), 2U);
  EXPECT_EQ(v[0].value(), 1);
  EXPECT_EQ(v[1].value(), 2);
}

TEST_F(FixedVectorTest, PushBackOfOwnElementIsSafe) {
  FixedVector<Tracked, 3> v;
  ASSERT_TRUE(v.emplace_back(11));
  ASSERT_TRUE(v.push_back(v[0]));  // no reallocation, so the reference stays valid
  ASSERT_TRUE(v.push_back(v.back()));
  EXPECT_EQ(v[1].value(), 11);
  EXPECT_EQ(v[2].value(), 11);
}

TEST_F(FixedVectorTest, FillToCapacityExactly) {
  FixedVector<int, 5> v;
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(v.push_back(i * 10)) << i;
  }
  EXPECT_TRUE(v.full());
  EXPECT_FALSE(v.push_back(99));
  EXPECT_EQ(v.size(), 5U);
  int expected = 0;
  for (const int element : v) {
    EXPECT_EQ(element, expected);
    expected += 10;
  }
}

TEST_F(FixedVectorTest, MoveOnlyElements) {
  FixedVector<std::unique_ptr<int>, 3> v;
  ASSERT_TRUE(v.push_back(std::make_unique<int>(1)));
  ASSERT_TRUE(v.emplace_back(new int(2)));  // NOLINT(cppcoreguidelines-owning-memory)
  ASSERT_TRUE(v.push_back(std::make_unique<int>(3)));
  auto rejected = std::make_unique<int>(4);
  EXPECT_FALSE(v.push_back(std::move(rejected)));
  ASSERT_NE(rejected, nullptr);  // NOLINT(bugprone-use-after-move): untouched on failure
  EXPECT_EQ(*rejected, 4);

  ASSERT_TRUE(v.erase_unordered(std::size_t{0}));
  ASSERT_EQ(v.size(), 2U);
  EXPECT_EQ(*v[0], 3);
  EXPECT_EQ(*v[1], 2);

  FixedVector<std::unique_ptr<int>, 3> moved(std::move(v));
  EXPECT_TRUE(v.empty());  // NOLINT(bugprone-use-after-move): documented to be empty
  ASSERT_EQ(moved.size(), 2U);
  EXPECT_EQ(*moved[0], 3);
  EXPECT_EQ(*moved[1], 2);
}

// ----- removal ------------------------------------------------------------------------------

TEST_F(FixedVectorTest, PopBackDestroysLastAndReportsEmpty) {
  FixedVector<Tracked, 3> v;
  EXPECT_FALSE(v.pop_back());
  ASSERT_TRUE(v.emplace_back(1));
  ASSERT_TRUE(v.emplace_back(2));
  EXPECT_TRUE(v.pop_back());
  EXPECT_EQ(v.size(), 1U);
  EXPECT_EQ(v.back().value(), 1);
  EXPECT_EQ(g_counters.destructions, 1);
  EXPECT_TRUE(v.pop_back());
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(g_counters.destructions, 2);
  EXPECT_FALSE(v.pop_back());
  EXPECT_EQ(g_counters.destructions, 2);
}

TEST_F(FixedVectorTest, EraseUnorderedMovesLastIntoHole) {
  FixedVector<Tracked, 4> v;
  for (int i = 1; i <= 4; ++i) {
    ASSERT_TRUE(v.emplace_back(i));
  }
  ASSERT_TRUE(v.erase_unordered(std::size_t{1}));
  ASSERT_EQ(v.size(), 3U);
  EXPECT_EQ(v[0].value(), 1);
  EXPECT_EQ(v[1].value(), 4);
  EXPECT_EQ(v[2].value(), 3);
  EXPECT_EQ(g_counters.move_assignments, 1);
  EXPECT_EQ(g_counters.destructions, 1);
  EXPECT_EQ(g_counters.live.size(), 3U);
}

TEST_F(FixedVectorTest, EraseUnorderedLastElementOnlyDestroys) {
  FixedVector<Tracked, 4> v;
  ASSERT_TRUE(v.emplace_back(1));
  ASSERT_TRUE(v.emplace_back(2));
  ASSERT_TRUE(v.erase_unordered(std::size_t{1}));
  ASSERT_EQ(v.size(), 1U);
  EXPECT_EQ(v[0].value(), 1);
  EXPECT_EQ(g_counters.move_assignments, 0);
  EXPECT_EQ(g_counters.destructions, 1);

  ASSERT_TRUE(v.erase_unordered(0));  // a literal 0 is not ambiguous with the iterator overload
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(g_counters.move_assignments, 0);
  EXPECT_EQ(g_counters.destructions, 2);
}

TEST_F(FixedVectorTest, EraseUnorderedOutOfRangeReturnsFalse) {
  FixedVector<Tracked, 4> v;
  EXPECT_FALSE(v.erase_unordered(std::size_t{0}));
  ASSERT_TRUE(v.emplace_back(1));
  EXPECT_FALSE(v.erase_unordered(std::size_t{1}));
  EXPECT_FALSE(v.erase_unordered(std::size_t{1000}));
  EXPECT_EQ(v.size(), 1U);
  EXPECT_EQ(g_counters.destructions, 0);
}

TEST_F(FixedVectorTest, EraseUnorderedByIterator) {
  FixedVector<Tracked, 4> v;
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(v.emplace_back(i));
  }
  ASSERT_TRUE(v.erase_unordered(v.begin()));
  ASSERT_EQ(v.size(), 2U);
  EXPECT_EQ(v[0].value(), 3);
  EXPECT_EQ(v[1].value(), 2);

  ASSERT_TRUE(v.erase_unordered(v.cbegin() + 1));
  ASSERT_EQ(v.size(), 1U);
  EXPECT_EQ(v[0].value(), 3);

  EXPECT_FALSE(v.erase_unordered(v.end()));
  EXPECT_FALSE(v.erase_unordered(v.cend()));
  FixedVector<Tracked, 4> other;
  ASSERT_TRUE(other.emplace_back(8));
  EXPECT_FALSE(v.erase_unordered(other.begin())) << "iterator into another vector";
  EXPECT_EQ(v.size(), 1U);
  EXPECT_EQ(other.size(), 1U);
}

TEST_F(FixedVectorTest, ClearDestroysEveryElementOnce) {
  FixedVector<Tracked, 4> v;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(v.emplace_back(i));
  }
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(g_counters.destructions, 3);
  EXPECT_EQ(g_counters.live.size(), 0U);
  ASSERT_TRUE(v.emplace_back(42));  // reusable after clear
  EXPECT_EQ(v.front().value(), 42);
}

TEST_F(FixedVectorTest, DestructorDestroysLiveElementsOnly) {
  {
    FixedVector<Tracked, 8> v;
    ASSERT_TRUE(v.emplace_back(1));
    ASSERT_TRUE(v.emplace_back(2));
  }
  EXPECT_EQ(g_counters.constructions(), 2);
  EXPECT_EQ(g_counters.destructions, 2);
}

// ----- access -------------------------------------------------------------------------------

TEST_F(FixedVectorTest, AccessorsAndIterators) {
  FixedVector<int, 4> v;
  ASSERT_TRUE(v.push_back(10));
  ASSERT_TRUE(v.push_back(20));
  ASSERT_TRUE(v.push_back(30));
  const FixedVector<int, 4>& cv = v;

  EXPECT_EQ(v.front(), 10);
  EXPECT_EQ(v.back(), 30);
  EXPECT_EQ(cv.front(), 10);
  EXPECT_EQ(cv.back(), 30);
  EXPECT_EQ(v.data(), &v[0]);
  EXPECT_EQ(cv.data(), &cv[0]);
  EXPECT_EQ(v.end() - v.begin(), 3);
  EXPECT_EQ(cv.end() - cv.begin(), 3);
  EXPECT_EQ(v.cend() - v.cbegin(), 3);

  v.front() = 11;
  v.back() = 33;
  v[1] = 22;
  for (int& element : v) {
    element += 1;
  }
  EXPECT_EQ(cv[0], 12);
  EXPECT_EQ(cv[1], 23);
  EXPECT_EQ(cv[2], 34);
}

// ----- copy and move ------------------------------------------------------------------------

TEST_F(FixedVectorTest, CopyConstructorCopiesEachElement) {
  FixedVector<Tracked, 4> source;
  ASSERT_TRUE(source.emplace_back(1));
  ASSERT_TRUE(source.emplace_back(2));
  const FixedVector<Tracked, 4> copy(source);
  ASSERT_EQ(copy.size(), 2U);
  EXPECT_EQ(copy[0].value(), 1);
  EXPECT_EQ(copy[1].value(), 2);
  EXPECT_EQ(source.size(), 2U);
  EXPECT_EQ(source[0].value(), 1);
  EXPECT_EQ(g_counters.copy_constructions, 2);
  EXPECT_NE(&copy[0], &source[0]);
}

TEST_F(FixedVectorTest, MoveConstructorMovesEachElementAndEmptiesSource) {
  FixedVector<Tracked, 4> source;
  ASSERT_TRUE(source.emplace_back(1));
  ASSERT_TRUE(source.emplace_back(2));
  const FixedVector<Tracked, 4> moved(std::move(source));
  ASSERT_EQ(moved.size(), 2U);
  EXPECT_EQ(moved[0].value(), 1);
  EXPECT_EQ(moved[1].value(), 2);
  EXPECT_TRUE(source.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(g_counters.move_constructions, 2);
  EXPECT_EQ(g_counters.copy_constructions, 0);
  EXPECT_EQ(g_counters.destructions, 2);  // the moved-from sources
  EXPECT_EQ(g_counters.live.size(), 2U);
}

TEST_F(FixedVectorTest, CopyAssignToShorterAssignsThenConstructs) {
  FixedVector<Tracked, 4> target;
  ASSERT_TRUE(target.emplace_back(100));
  FixedVector<Tracked, 4> source;
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(source.emplace_back(i));
  }
  const int destructions_before = g_counters.destructions;
  target = source;
  ASSERT_EQ(target.size(), 3U);
  EXPECT_EQ(target[0].value(), 1);
  EXPECT_EQ(target[1].value(), 2);
  EXPECT_EQ(target[2].value(), 3);
  EXPECT_EQ(source.size(), 3U);
  EXPECT_EQ(source[2].value(), 3);
  EXPECT_EQ(g_counters.copy_assignments, 1);
  EXPECT_EQ(g_counters.copy_constructions, 2);
  EXPECT_EQ(g_counters.destructions, destructions_before);
  EXPECT_EQ(g_counters.live.size(), 6U);
}

TEST_F(FixedVectorTest, CopyAssignToLongerAssignsThenDestroysSurplus) {
  FixedVector<Tracked, 4> target;
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(target.emplace_back(i * 100));
  }
  FixedVector<Tracked, 4> source;
  ASSERT_TRUE(source.emplace_back(7));
  target = source;
  ASSERT_EQ(target.size(), 1U);
  EXPECT_EQ(target[0].value(), 7);
  EXPECT_EQ(g_counters.copy_assignments, 1);
  EXPECT_EQ(g_counters.copy_constructions, 0);
  EXPECT_EQ(g_counters.destructions, 2);
  EXPECT_EQ(g_counters.live.size(), 2U);
}

TEST_F(FixedVectorTest, MoveAssignMovesAndEmptiesSource) {
  FixedVector<Tracked, 4> target;
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(target.emplace_back(i * 100));
  }
  FixedVector<Tracked, 4> source;
  ASSERT_TRUE(source.emplace_back(7));
  ASSERT_TRUE(source.emplace_back(8));
  target = std::move(source);
  ASSERT_EQ(target.size(), 2U);
  EXPECT_EQ(target[0].value(), 7);
  EXPECT_EQ(target[1].value(), 8);
  EXPECT_TRUE(source.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(g_counters.move_assignments, 2);
  EXPECT_EQ(g_counters.move_constructions, 0);
  // One surplus target element plus the two moved-from source elements.
  EXPECT_EQ(g_counters.destructions, 3);
  EXPECT_EQ(g_counters.live.size(), 2U);
}

TEST_F(FixedVectorTest, MoveAssignIntoShorterConstructsExtra) {
  FixedVector<Tracked, 4> target;
  FixedVector<Tracked, 4> source;
  ASSERT_TRUE(source.emplace_back(7));
  ASSERT_TRUE(source.emplace_back(8));
  target = std::move(source);
  ASSERT_EQ(target.size(), 2U);
  EXPECT_EQ(target[0].value(), 7);
  EXPECT_EQ(target[1].value(), 8);
  EXPECT_EQ(g_counters.move_constructions, 2);
  EXPECT_EQ(g_counters.move_assignments, 0);
}

TEST_F(FixedVectorTest, SelfAssignmentIsNoOp) {
  FixedVector<Tracked, 4> v;
  ASSERT_TRUE(v.emplace_back(1));
  ASSERT_TRUE(v.emplace_back(2));
  FixedVector<Tracked, 4>& alias = v;
  v = alias;
  v = std::move(alias);
  ASSERT_EQ(v.size(), 2U);
  EXPECT_EQ(v[0].value(), 1);
  EXPECT_EQ(v[1].value(), 2);
  EXPECT_EQ(g_counters.copy_assignments + g_counters.move_assignments, 0);
  EXPECT_EQ(g_counters.destructions, 0);
}

#if MCCC_HAS_EXCEPTIONS
// Throws from its copy constructor once the budget is used up, to check that a partially
// built copy is cleaned up.
class ThrowOnCopy {
 public:
  explicit ThrowOnCopy(int value) : tracked_(value) {}
  ThrowOnCopy(const ThrowOnCopy& other) : tracked_(CheckBudget(other)) {}
  ThrowOnCopy& operator=(const ThrowOnCopy&) = default;

  static int copy_budget;

 private:
  static const Tracked& CheckBudget(const ThrowOnCopy& other) {
    if (copy_budget == 0) {
      throw std::runtime_error("copy budget exhausted");
    }
    --copy_budget;
    return other.tracked_;
  }

  Tracked tracked_;
};
int ThrowOnCopy::copy_budget = 0;

TEST_F(FixedVectorTest, ThrowingCopyConstructorLeaksNothing) {
  FixedVector<ThrowOnCopy, 4> source;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(source.emplace_back(i));
  }
  ThrowOnCopy::copy_budget = 2;  // the third element copy throws
  using Vector = FixedVector<ThrowOnCopy, 4>;
  EXPECT_THROW({ const Vector copy(source); }, std::runtime_error);
  EXPECT_EQ(g_counters.live.size(), 3U) << "the two copied elements must have been destroyed";
  EXPECT_EQ(g_counters.copy_constructions, 2);
  EXPECT_EQ(g_counters.destructions, 2);

  ThrowOnCopy::copy_budget = 0;
  const ThrowOnCopy extra(9);
  EXPECT_THROW(static_cast<void>(source.push_back(extra)), std::runtime_error);
  EXPECT_EQ(source.size(), 3U) << "a throwing constructor must not count as an element";
}
#endif

#if MCCC_ENABLE_ASSERTS
using FixedVectorDeathTest = FixedVectorTest;

TEST_F(FixedVectorDeathTest, IndexOutOfRangeAsserts) {
  FixedVector<int, 4> v;
  ASSERT_TRUE(v.push_back(1));
  EXPECT_DEATH(static_cast<void>(v[1]), "FixedVector index out of range");
  const FixedVector<int, 4>& cv = v;
  EXPECT_DEATH(static_cast<void>(cv[4]), "FixedVector index out of range");
}

TEST_F(FixedVectorDeathTest, FrontBackOnEmptyAssert) {
  FixedVector<int, 4> v;
  EXPECT_DEATH(static_cast<void>(v.front()), "front\\(\\) on an empty vector");
  EXPECT_DEATH(static_cast<void>(v.back()), "back\\(\\) on an empty vector");
}
#endif

}  // namespace
