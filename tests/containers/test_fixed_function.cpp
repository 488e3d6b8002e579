// SPDX-License-Identifier: MIT
// Tests for mccc::FixedFunction (include/mccc/containers/fixed_function.hpp).
#include "mccc/containers/fixed_function.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace {

using mccc::FixedFunction;

// ----- helpers ------------------------------------------------------------------------------

// Counts the lifetime events of a functor so that relocation and destruction can be checked.
struct Counters {
  int constructions = 0;
  int copies = 0;
  int moves = 0;
  int destructions = 0;
  int calls = 0;
};

Counters g_counters;

class CountingFunctor {
 public:
  explicit CountingFunctor(int offset) noexcept : offset_(offset) { ++g_counters.constructions; }
  CountingFunctor(const CountingFunctor& other) noexcept : offset_(other.offset_) {
    ++g_counters.copies;
  }
  CountingFunctor(CountingFunctor&& other) noexcept : offset_(other.offset_) {
    other.offset_ = -1000;
    ++g_counters.moves;
  }
  CountingFunctor& operator=(const CountingFunctor&) = delete;
  CountingFunctor& operator=(CountingFunctor&&) = delete;
  ~CountingFunctor() { ++g_counters.destructions; }

  int operator()(int x) const noexcept {
    ++g_counters.calls;
    return x + offset_;
  }

 private:
  int offset_;
};

int Twice(int x) {
  return 2 * x;
}

void Increment(int& x) {
  ++x;
}

// Holds a pointer so it is at least pointer-sized: GCC 12 at -O2 emits a false -Warray-bounds
// when std::invoke calls a member function pointer it cannot see through on an object smaller
// than a vtable pointer (reproducible with std::invoke alone, without mccc).
struct Widget {
  int value = 0;
  const void* unused = nullptr;
  int Get() const { return value; }
  void Add(int delta) { value += delta; }
};

class FixedFunctionTest : public ::testing::Test {
 protected:
  void SetUp() override { g_counters = Counters{}; }
  void TearDown() override {
    EXPECT_EQ(g_counters.constructions + g_counters.copies + g_counters.moves,
              g_counters.destructions)
        << "every CountingFunctor created must be destroyed exactly once";
  }
};

// ----- compile-time properties ------------------------------------------------------------

using IntFn = FixedFunction<int(int)>;

static_assert(IntFn::capacity() == 48U, "default Capacity");
static_assert(FixedFunction<void(), 16>::capacity() == 16U, "");
static_assert(!std::is_copy_constructible<IntFn>::value, "FixedFunction is move-only");
static_assert(!std::is_copy_assignable<IntFn>::value, "FixedFunction is move-only");
static_assert(std::is_nothrow_move_constructible<IntFn>::value, "");
static_assert(std::is_nothrow_move_assignable<IntFn>::value, "");
static_assert(std::is_nothrow_default_constructible<IntFn>::value, "");
static_assert(std::is_nothrow_destructible<IntFn>::value, "");
static_assert(std::is_nothrow_constructible<IntFn, int (*)(int)>::value, "");
static_assert(alignof(IntFn) == alignof(std::max_align_t), "");
// The storage is inline: the object is the buffer plus one table pointer (plus padding).
static_assert(sizeof(IntFn) <= 48U + sizeof(void*) + alignof(std::max_align_t), "");
// Converting constructor is SFINAE-constrained on the signature, so overloads can tell apart.
static_assert(std::is_constructible<IntFn, CountingFunctor>::value, "");
static_assert(std::is_constructible<IntFn, long (*)(long)>::value, "convertible args/result");
static_assert(!std::is_constructible<IntFn, void (*)(std::string)>::value, "wrong argument");
static_assert(!std::is_constructible<IntFn, int>::value, "not callable");
static_assert(!std::is_constructible<FixedFunction<std::string()>, int (*)()>::value,
              "result not convertible");
static_assert(std::is_constructible<FixedFunction<void()>, int (*)()>::value,
              "a result is discarded for void signatures");
// A move-only wrapper of another signature-compatible wrapper can only be moved in.
static_assert(!std::is_constructible<IntFn, FixedFunction<int(int), 16>&>::value, "");
static_assert(std::is_constructible<IntFn, FixedFunction<int(int), 16>&&>::value, "");

// ----- empty state ----------------------------------------------------------------------

TEST_F(FixedFunctionTest, DefaultAndNullAreEmpty) {
  const IntFn defaulted;
  const IntFn from_nullptr = nullptr;
  int (*const null_function)(int) = nullptr;
  const IntFn from_null_function = null_function;
  int (Widget::*const null_member)() const = nullptr;
  const FixedFunction<int(const Widget&)> from_null_member = null_member;
  EXPECT_FALSE(defaulted);
  EXPECT_FALSE(from_nullptr);
  EXPECT_FALSE(from_null_function);
  EXPECT_FALSE(from_null_member);
}

TEST_F(FixedFunctionTest, AssignNullptrDestroysCallable) {
  IntFn f = CountingFunctor(1);
  ASSERT_TRUE(f);
  const int destructions_before = g_counters.destructions;
  f = nullptr;
  EXPECT_FALSE(f);
  EXPECT_EQ(g_counters.destructions, destructions_before + 1);
  f = nullptr;  // already empty: nothing more to destroy
  EXPECT_EQ(g_counters.destructions, destructions_before + 1);
}

using FixedFunctionDeathTest = FixedFunctionTest;

TEST_F(FixedFunctionDeathTest, EmptyCallDies) {
  const FixedFunction<void()> empty;
  // With assertions the message is printed; without them the call traps. Either way the
  // process ends instead of jumping through a null pointer.
#if MCCC_ENABLE_ASSERTS
  EXPECT_DEATH(empty(), "called an empty FixedFunction");
#else
  EXPECT_DEATH(empty(), "");
#endif
  const IntFn empty_int;
  EXPECT_DEATH(static_cast<void>(empty_int(1)), "");
}

// ----- kinds of callables ---------------------------------------------------------------

TEST_F(FixedFunctionTest, FunctionPointer) {
  const IntFn f = &Twice;
  ASSERT_TRUE(f);
  EXPECT_EQ(f(21), 42);
  const IntFn g = Twice;  // function-to-pointer decay
  EXPECT_EQ(g(-4), -8);
}

TEST_F(FixedFunctionTest, LambdaWithCaptures) {
  int base = 100;  // non-const: a captured const int constant would need no capture at all
  std::string suffix = "!";  // non-const: a const std::string capture could throw when moved
  const FixedFunction<std::string(const std::string&)> f = [base, suffix](const std::string& s) {
    return s + std::to_string(base) + suffix;
  };
  EXPECT_EQ(f("x"), "x100!");
}

TEST_F(FixedFunctionTest, LambdaCapturingByReferenceSeesChanges) {
  int counter = 0;
  const FixedFunction<void()> f = [&counter] { ++counter; };
  f();
  f();
  EXPECT_EQ(counter, 2);
}

TEST_F(FixedFunctionTest, MutableLambdaKeepsStateBetweenCalls) {
  FixedFunction<int()> f = [n = 0]() mutable { return ++n; };
  EXPECT_EQ(f(), 1);
  EXPECT_EQ(f(), 2);
  FixedFunction<int()> moved = std::move(f);
  EXPECT_EQ(moved(), 3) << "the state moves with the callable";
}

TEST_F(FixedFunctionTest, FunctorLvalueIsCopiedRvalueIsMoved) {
  {
    const CountingFunctor functor(5);
    const IntFn from_lvalue = functor;
    EXPECT_EQ(g_counters.copies, 1);
    EXPECT_EQ(g_counters.moves, 0);
    EXPECT_EQ(from_lvalue(1), 6);
    EXPECT_EQ(functor(1), 6) << "the source is untouched";

    const IntFn from_rvalue = CountingFunctor(7);
    EXPECT_EQ(g_counters.copies, 1);
    EXPECT_EQ(g_counters.moves, 1);
    EXPECT_EQ(from_rvalue(1), 8);
    EXPECT_EQ(g_counters.calls, 3);
  }
  EXPECT_EQ(g_counters.destructions, 4);  // 2 originals + 1 copy + 1 moved-in
}

TEST_F(FixedFunctionTest, MemberPointers) {
  Widget w;
  w.value = 3;
  const FixedFunction<int(const Widget&)> get = &Widget::Get;
  const FixedFunction<void(Widget&, int)> add = &Widget::Add;
  add(w, 4);
  EXPECT_EQ(get(w), 7);
}

TEST_F(FixedFunctionTest, MoveOnlyCallable) {
  auto owned = std::make_unique<int>(41);
  FixedFunction<int()> f = [p = std::move(owned)] { return *p + 1; };
  EXPECT_EQ(f(), 42);
  FixedFunction<int()> g = std::move(f);
  EXPECT_FALSE(f);  // NOLINT(bugprone-use-after-move): documented to be empty
  EXPECT_EQ(g(), 42);
}

TEST_F(FixedFunctionTest, CallableExactlyFillingCapacityFits) {
  std::array<unsigned char, 16> bytes{};
  bytes[15] = 9;
  const auto lambda = [bytes] { return static_cast<int>(bytes[15]); };
  static_assert(sizeof(lambda) == 16U, "");
  const FixedFunction<int(), 16> f = lambda;
  EXPECT_EQ(f(), 9);
}

// ----- argument and result forwarding -----------------------------------------------------

TEST_F(FixedFunctionTest, ReferenceArgumentIsForwardedAsReference) {
  const FixedFunction<void(int&)> f = &Increment;
  int x = 1;
  f(x);
  f(x);
  EXPECT_EQ(x, 3);
}

TEST_F(FixedFunctionTest, MoveOnlyArgumentByValue) {
  const FixedFunction<int(std::unique_ptr<int>)> f = [](std::unique_ptr<int> p) { return *p; };
  EXPECT_EQ(f(std::make_unique<int>(17)), 17);
}

TEST_F(FixedFunctionTest, RvalueReferenceArgumentIsNotCopied) {
  const FixedFunction<std::size_t(std::string &&)> f = [](std::string&& s) {
    const std::string taken = std::move(s);
    return taken.size();
  };
  std::string text = "hello";
  EXPECT_EQ(f(std::move(text)), 5U);
  EXPECT_TRUE(text.empty());  // NOLINT(bugprone-use-after-move): the callee moved it out
}

TEST_F(FixedFunctionTest, ResultIsConvertedAndVoidDiscards) {
  const FixedFunction<long(int)> widened = [](int x) { return x * 3; };
  EXPECT_EQ(widened(5), 15L);
  int side_effect = 0;
  const FixedFunction<void()> discard = [&side_effect] {
    ++side_effect;
    return 123;
  };
  discard();
  EXPECT_EQ(side_effect, 1);
}

TEST_F(FixedFunctionTest, ReferenceResult) {
  int target = 0;
  const FixedFunction<int&()> f = [&target]() -> int& { return target; };
  f() = 9;
  EXPECT_EQ(target, 9);
}

// ----- move, assignment, destruction ------------------------------------------------------

TEST_F(FixedFunctionTest, MoveConstructionRelocatesAndEmptiesSource) {
  IntFn source = CountingFunctor(2);  // 1 construction + 1 move in, temporary destroyed
  ASSERT_EQ(g_counters.moves, 1);
  ASSERT_EQ(g_counters.destructions, 1);
  IntFn target = std::move(source);
  EXPECT_FALSE(source);  // NOLINT(bugprone-use-after-move)
  ASSERT_TRUE(target);
  EXPECT_EQ(target(3), 5);
  EXPECT_EQ(g_counters.moves, 2);
  EXPECT_EQ(g_counters.destructions, 2) << "the moved-from callable is destroyed at once";
}

TEST_F(FixedFunctionTest, MoveAssignmentDestroysOldTarget) {
  IntFn a = CountingFunctor(1);
  IntFn b = CountingFunctor(10);
  const int destructions_before = g_counters.destructions;
  const int moves_before = g_counters.moves;
  a = std::move(b);
  EXPECT_FALSE(b);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(a(1), 11);
  // Old callable of a, plus the moved-from callable of b.
  EXPECT_EQ(g_counters.destructions, destructions_before + 2);
  EXPECT_EQ(g_counters.moves, moves_before + 1);
}

TEST_F(FixedFunctionTest, MoveAssignEmptyIntoFull) {
  IntFn a = CountingFunctor(1);
  IntFn empty;
  const int destructions_before = g_counters.destructions;
  a = std::move(empty);
  EXPECT_FALSE(a);
  EXPECT_FALSE(empty);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(g_counters.destructions, destructions_before + 1);
}

TEST_F(FixedFunctionTest, SelfMoveAssignmentKeepsCallable) {
  IntFn f = CountingFunctor(4);
  IntFn& alias = f;
  const int destructions_before = g_counters.destructions;
  f = std::move(alias);
  ASSERT_TRUE(f);
  EXPECT_EQ(f(1), 5);
  EXPECT_EQ(g_counters.destructions, destructions_before);
}

TEST_F(FixedFunctionTest, AssignCallableReplacesAndDestroysOld) {
  IntFn f = CountingFunctor(1);
  const int destructions_before = g_counters.destructions;
  f = [](int x) { return x * 10; };
  EXPECT_EQ(f(2), 20);
  EXPECT_EQ(g_counters.destructions, destructions_before + 1);
  f = CountingFunctor(3);
  EXPECT_EQ(f(2), 5);
}

TEST_F(FixedFunctionTest, DestructorDestroysCallableOnce) {
  {
    const IntFn f = CountingFunctor(1);
    EXPECT_EQ(g_counters.destructions, 1);  // the temporary
  }
  EXPECT_EQ(g_counters.destructions, 2);
}

TEST_F(FixedFunctionTest, NestedWrapperOfSmallerCapacity) {
  FixedFunction<int(int), 16> inner = &Twice;
  const IntFn outer = std::move(inner);
  EXPECT_FALSE(inner);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(outer(4), 8);
}

TEST_F(FixedFunctionTest, OverloadResolutionBySignature) {
  struct Dispatcher {
    static int Take(FixedFunction<int(int)> f) { return f(1); }
    static int Take(FixedFunction<int(const std::string&)> f) { return f("abc"); }
  };
  EXPECT_EQ(Dispatcher::Take([](int x) { return x + 1; }), 2);
  EXPECT_EQ(Dispatcher::Take([](const std::string& s) { return static_cast<int>(s.size()); }), 3);
}

#if MCCC_HAS_EXCEPTIONS
TEST_F(FixedFunctionTest, ExceptionFromCallablePropagates) {
  const FixedFunction<void()> f = [] { throw std::string("boom"); };
  EXPECT_THROW(f(), std::string);
}
#endif

}  // namespace
