// SPDX-License-Identifier: MIT
// Shared by the compile-fail sources of loans (loan_*.cpp): a large message type that travels by
// loan, and a bus whose variant lists mccc::Loaned<PointCloud> with a pool for it in its traits.
// Each source holds only its rule (see fixture.hpp for the convention).
#ifndef MCCC_TESTS_COMPILE_FAIL_LOAN_FIXTURE_HPP_
#define MCCC_TESTS_COMPILE_FAIL_LOAN_FIXTURE_HPP_

#include <cstdint>
#include <utility>
#include <variant>

#include "fixture.hpp"

namespace loan_fixture {

/// Travels by loan on LoanBus: filled in a pool block, only a handle goes through the ring.
struct PointCloud {
  uint32_t count;
  float xyz[3U * 64U];
};

struct LoanTraits : fixture::SmallTraits {
  using LoanPools = mccc::LoanPools<mccc::PoolOf<PointCloud, 4U>>;
};
using LoanPayload = std::variant<fixture::Imu, mccc::Loaned<PointCloud>>;
using LoanBus = mccc::AsyncBus<LoanPayload, LoanTraits>;

}  // namespace loan_fixture

#endif  // MCCC_TESTS_COMPILE_FAIL_LOAN_FIXTURE_HPP_
