// SPDX-License-Identifier: MIT
// The priority table (admission/priority_table.hpp): every class's admission share and route
// come from its row, and the thresholds of PriorityAdmission follow the rows.
#include <mccc/admission/priority_admission.hpp>
#include <mccc/admission/priority_table.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

namespace {

using mccc::MessagePriority;

TEST(PriorityTable, OneRowPerPriorityInTheOrderOfTheEnumerators) {
  static_assert(mccc::kPriorityClasses.size() == mccc::kPriorityCount, "a row per priority");
  EXPECT_LT(mccc::kPriorityClasses[0].admission_percent,
            mccc::kPriorityClasses[1].admission_percent);
  EXPECT_LT(mccc::kPriorityClasses[1].admission_percent,
            mccc::kPriorityClasses[2].admission_percent);
}

TEST(PriorityTable, OnlyHighTravelsOnTheHighRing) {
  static_assert(mccc::RoutesToHighRing(MessagePriority::kHigh), "HIGH: the HIGH ring");
  static_assert(!mccc::RoutesToHighRing(MessagePriority::kMedium), "MEDIUM: the normal rings");
  static_assert(!mccc::RoutesToHighRing(MessagePriority::kLow), "LOW: the normal rings");
  // A value that is no enumerator routes nowhere special (the bus refuses it before routing).
  EXPECT_FALSE(mccc::RoutesToHighRing(static_cast<MessagePriority>(7U)));
}

TEST(PriorityTable, AdmissionLimitsAreTheRowsPercentagesOfTheCapacity) {
  using Admission = mccc::PriorityAdmission<1000U>;
  for (std::size_t index = 0U; index < mccc::kPriorityCount; ++index) {
    const auto priority = static_cast<MessagePriority>(index);
    EXPECT_EQ(Admission::LimitFor(priority), 10U * mccc::kPriorityClasses[index].admission_percent)
        << "priority " << index;
    EXPECT_EQ(Admission::Limits<uint32_t>()[index], Admission::LimitFor(priority));
  }
  EXPECT_EQ(Admission::kLowPercent, 60U);
  EXPECT_EQ(Admission::kMediumPercent, 80U);
  EXPECT_EQ(Admission::kHighPercent, 99U);
  // Not an enumerator: MEDIUM's limit.
  EXPECT_EQ(Admission::LimitFor(static_cast<MessagePriority>(9U)), 800U);
}

}  // namespace
