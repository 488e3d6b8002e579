// SPDX-License-Identifier: MIT
// smoke-args: --messages 2000
/// @file fan_out_instruction_profile.cpp
/// @brief Instructions per message of a fan-out Domain's publish paths, for the profile of
/// scripts/profile_instructions.sh (as instruction_profile.cpp, whose bus paths it leaves alone:
/// a domain's code in that translation unit would shift GCC's inlining of them).
///
/// Usage: fan_out_instruction_profile [--path NAME] [--messages N]
///   NAME: domain-publish-1, -2, -4 (a Domain of 1, 2 or 4 default consumers, each subscribed:
///         one Publish of a 24-byte message), domain-loan-1, -4 (Loan and Publish of a 64 KB
///         message, one block for all; in rounds of 32, the consumers draining between rounds
///         uncounted) (default: all, in turn)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "common/callgrind_counted.hpp"
#include "mccc/mccc.hpp"

namespace {

using mccc_bench::Counted;

struct Sample {  // the competitive benchmark's 24-byte payload, as in instruction_profile.cpp
  uint64_t seq;
  float x, y, z, w;
};
struct Cloud {  // 64 KB, travels by loan
  uint64_t seq;
  uint8_t points[65536U - 8U];  // NOLINT(modernize-avoid-c-arrays): a plain 64 KB block
};
using Payload = std::variant<Sample, mccc::Loaned<Cloud>>;
struct ConsumerTraits : mccc::DefaultBusTraits {
  using LoanPools = mccc::LoanPools<mccc::PoolOf<Cloud, 64U>>;
};
template <std::size_t>
using Each = ConsumerTraits;
template <typename Sequence>
struct DomainOf;
template <std::size_t... I>
struct DomainOf<std::index_sequence<I...>> {
  using Type = mccc::Domain<Payload, Each<I>...>;
};
template <std::size_t kConsumers>
using DomainWith = typename DomainOf<std::make_index_sequence<kConsumers>>::Type;
constexpr uint32_t kLoansPerRound = 32U;  // below the pool's MEDIUM limit

template <typename Domain, std::size_t... I>
void SubscribeEach(Domain& domain, uint64_t& sum, std::index_sequence<I...> /*consumers*/) {
  static_cast<void>(((domain.template Consumer<I>().template Subscribe<Sample>(
                          [&sum](const Sample& s) { sum += s.seq; }),
                      domain.template Consumer<I>().template Subscribe<Cloud>(
                          [&sum](const Cloud& c) { sum += c.seq; })),
                     ...));
}

template <typename Domain>
void DrainEach(Domain& domain) {
  while (domain.DispatchHighestReady().consumer != mccc::kNoConsumer) {
  }
}

/// One fan-out Publish per message (or a Loan and its Publish), counted; the drain is not.
template <std::size_t kConsumers>
int RunDomain(const char* name, uint32_t messages, bool loaned) {
  using Domain = DomainWith<kConsumers>;
  auto domain = std::make_unique<Domain>();
  uint64_t sum = 0U;
  SubscribeEach(*domain, sum, std::make_index_sequence<kConsumers>{});
  uint64_t admitted = 0U;
  if (loaned) {
    for (uint32_t i = 0U; i < messages; i += kLoansPerRound) {
      const uint32_t n = messages - i < kLoansPerRound ? messages - i : kLoansPerRound;
      {
        const Counted counted;
        for (uint32_t k = 0U; k < n; ++k) {
          mccc::MessageLoan<Cloud> loan =
              domain->template Loan<Cloud>(mccc::MessagePriority::kMedium);
          if (loan) {
            loan->seq = i + k;
            admitted +=
                domain->Publish(std::move(loan), 1U).AdmittedCount() == kConsumers ? 1U : 0U;
          }
        }
      }
      DrainEach(*domain);
    }
  } else {
    {
      const Counted counted;
      for (uint32_t i = 0U; i < messages; ++i) {
        const Sample s{i, 1.0F, 2.0F, 3.0F, 4.0F};
        admitted += domain->Publish(s, 1U).AdmittedCount() == kConsumers ? 1U : 0U;
      }
    }
    DrainEach(*domain);
  }
  std::printf("%-20s %u messages to %zu consumers (%llu admitted by all), checksum %llu\n", name,
              messages, kConsumers, static_cast<unsigned long long>(admitted),
              static_cast<unsigned long long>(sum));
  return admitted == messages ? 0 : 1;
}

int Run(const std::string& path, uint32_t messages) {
  if (path == "domain-publish-1") return RunDomain<1U>(path.c_str(), messages, false);
  if (path == "domain-publish-2") return RunDomain<2U>(path.c_str(), messages, false);
  if (path == "domain-publish-4") return RunDomain<4U>(path.c_str(), messages, false);
  if (path == "domain-loan-1") return RunDomain<1U>(path.c_str(), messages, true);
  if (path == "domain-loan-4") return RunDomain<4U>(path.c_str(), messages, true);
  std::fprintf(stderr, "unknown --path %s (see the file comment)\n", path.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  uint32_t messages = 65536U;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
      path = argv[++i];
    } else if (std::strcmp(argv[i], "--messages") == 0 && i + 1 < argc) {
      messages = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::fprintf(stderr, "usage: %s [--path NAME] [--messages N] (see the file comment)\n",
                   argv[0]);
      return 2;
    }
  }
  if (messages == 0U || messages > DomainWith<1U>::ConsumerBus<0U>::Capacity() / 2U) {
    std::fprintf(stderr, "--messages must be 1..%u (half a queue: no admission limit hit)\n",
                 DomainWith<1U>::ConsumerBus<0U>::Capacity() / 2U);
    return 2;
  }
  if (!path.empty()) {
    return Run(path, messages);
  }
  int status = 0;
  for (const char* p : {"domain-publish-1", "domain-publish-2", "domain-publish-4", "domain-loan-1",
                        "domain-loan-4"}) {
    status |= Run(p, messages);
  }
  return status;
}
