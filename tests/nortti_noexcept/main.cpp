// SPDX-License-Identifier: MIT
// Built with -fno-exceptions -fno-rtti (tests/CMakeLists.txt): the whole library must compile and
// work without exceptions and RTTI. Exit status 0 only if every published message was delivered:
// an inline one, and a large one that travels by loan (loan, fill in place, publish, delivery of
// the block itself, retained beyond its callback, every block back at the end).
// G-37: the library builds and runs with -fno-exceptions -fno-rtti
#include <mccc/mccc.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <variant>

namespace {

int InlineMessage() {
  using Payload = std::variant<int, float>;
  auto bus = std::make_unique<mccc::AsyncBus<Payload>>();

  int delivered = 0;
  const mccc::SubscriptionHandle handle = bus->Subscribe<int>(
      [&delivered](const int& value, const mccc::MessageHeader&) { delivered = value; });
  if (handle.callback_id == static_cast<std::size_t>(-1)) {
    return 2;
  }
  if (!bus->Publish(42, 1U)) {
    return 3;
  }
  if (bus->ProcessBatch() != 1U) {
    return 4;
  }
  return delivered == 42 ? 0 : 1;
}

struct Frame {
  uint32_t number;
  uint8_t pixels[4096];
};
struct LoanTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = 16U;
  using LoanPools = mccc::LoanPools<mccc::PoolOf<Frame, 2U>>;
};
using LoanBus = mccc::AsyncBus<std::variant<int, mccc::Loaned<Frame>>, LoanTraits>;

int LoanedMessage() {
  auto bus = std::make_unique<LoanBus>();
  LoanBus* const raw = bus.get();
  const Frame* seen = nullptr;
  mccc::Retained<Frame> kept;
  const mccc::SubscriptionHandle handle =
      bus->Subscribe<Frame>([&seen, &kept, raw](const Frame& frame) {
        seen = &frame;
        kept = raw->Retain(frame);
      });
  if (!handle.IsValid()) {
    return 10;
  }
  mccc::MessageLoan<Frame> loan = bus->Loan<Frame>(mccc::MessagePriority::kMedium);
  if (!loan) {
    return 11;
  }
  const Frame* const block = loan.Get();
  loan->number = 7U;
  for (std::size_t i = 0U; i < sizeof(loan->pixels); ++i) {
    loan->pixels[i] = static_cast<uint8_t>(i);
  }
  if (!bus->Publish(std::move(loan), 1U) || loan) {
    return 12;
  }
  if (bus->ProcessBatch() != 1U) {
    return 13;
  }
  if (seen != block || !kept || kept.Get() != block || kept->number != 7U ||
      kept->pixels[4095] != static_cast<uint8_t>(4095U)) {
    return 14;  // not the block the producer filled
  }
  if (bus->GetLoanStatistics<Frame>().in_use != 1U) {
    return 15;  // the retained handle keeps its block
  }
  kept.Reset();
  if (bus->GetLoanStatistics<Frame>().in_use != 0U) {
    return 16;
  }
  // The pool's HIGH reserve: MEDIUM takes one of two blocks, HIGH the other.
  mccc::MessageLoan<Frame> medium = bus->Loan<Frame>(mccc::MessagePriority::kMedium);
  mccc::MessageLoan<Frame> refused = bus->Loan<Frame>(mccc::MessagePriority::kMedium);
  mccc::MessageLoan<Frame> high = bus->Loan<Frame>(mccc::MessagePriority::kHigh);
  if (!medium || refused || !high) {
    return 17;
  }
  medium.Reset();
  high.Reset();
  return bus->GetStatistics().loan_blocks_in_use == 0U ? 0 : 18;
}

}  // namespace

int ScopedSubscriptionWithoutExceptionsOrRtti();  // scoped_subscription.cpp

int main() {
  const int inline_result = InlineMessage();
  if (inline_result != 0) {
    return inline_result;
  }
  const int scoped_result = ScopedSubscriptionWithoutExceptionsOrRtti();
  if (scoped_result != 0) {
    return scoped_result;
  }
  return LoanedMessage();
}
