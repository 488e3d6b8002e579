// SPDX-License-Identifier: MIT
/// @file fuzz_harness_loans.hpp
/// @brief Loans: pool admission by priority, filling in place, publishing held loans, giving them
/// back, retained handles, and a second bus's loans refused here.
#ifndef MCCC_TESTS_FUZZ_HARNESS_LOANS_HPP_
#define MCCC_TESTS_FUZZ_HARNESS_LOANS_HPP_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <utility>

#include "fuzz_check.hpp"
#include "fuzz_harness.hpp"

namespace mccc_fuzz {

template <typename Bus>
uint64_t Harness<Bus>::BlocksInUse() const {
  std::set<uint32_t> shared;
  for (const std::deque<ModelMessage>* fifo : {&normal_, &high_}) {
    for (const ModelMessage& m : *fifo) {
      if (m.type == kCloudType) {
        shared.insert(m.seq);
      }
    }
  }
  for (const HeldRetained& r : retained_) {
    shared.insert(r.seq);
  }
  return loans_.size() + shared.size();
}

template <typename Bus>
uint64_t Harness<Bus>::QueuedClouds() const {
  uint64_t n = 0U;
  for (const std::deque<ModelMessage>* fifo : {&normal_, &high_}) {
    for (const ModelMessage& m : *fifo) {
      n += m.type == kCloudType ? 1U : 0U;
    }
  }
  return n;
}

template <typename Bus>
uint64_t Harness<Bus>::LoanLimit(MessagePriority priority) const {
  if (mode_ == PerformanceMode::kBareMetal) {
    return kPool;
  }
  const auto ceil_percent = [](uint64_t percent) { return (percent * kPool + 99U) / 100U; };
  const uint64_t medium = std::min<uint64_t>(ceil_percent(80U), kPool - 1U);
  switch (priority) {
    case MessagePriority::kLow:
      return std::min<uint64_t>(ceil_percent(60U), medium);
    case MessagePriority::kMedium:
      return medium;
    default:
      return kPool;
  }
}

template <typename Bus>
std::size_t Harness<Bus>::LoanOne(uint8_t priority_byte, bool with_args, uint8_t fill) {
  const uint32_t seq = next_seq_++;
  const MessagePriority priority = DecodePriority(priority_byte);
  const auto p = static_cast<std::size_t>(priority);
  const bool valid = p < mccc::kPriorityCount;
  const uint64_t in_use = BlocksInUse();
  const bool expected = valid && in_use < LoanLimit(priority);
  mccc::MessageLoan<Cloud> loan = with_args ? bus_->template Loan<Cloud>(priority, seq, fill)
                                            : bus_->template Loan<Cloud>(priority);
  FUZZ_CHECK_EQ(static_cast<bool>(loan), expected,
                "Loan granted / refused (pool admission by priority, blocks in use)");
  const bool reporting = Reporting();
  if (!valid) {
    FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "kInvalidMessage reports (loan)");
    if (reporting) {
      FUZZ_CHECK(log_[0].error == BusError::kInvalidMessage && log_[0].id == 0U,
                 "loan with a bad priority: wrong error");
    }
    log_.clear();
    return kNoLoan;
  }
  if (!loan) {
    FUZZ_CHECK(loan.Get() == nullptr, "a refused loan points somewhere");
    if (mode_ == PerformanceMode::kFullFeatured) {
      ++loan_stats_.refused[p];
    }
    FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "kLoanRefused reports for one refusal");
    if (reporting) {
      FUZZ_CHECK(log_[0].kind == EventKind::kError && log_[0].error == BusError::kLoanRefused,
                 "loan refusal: wrong error");
      FUZZ_CHECK_EQ(log_[0].id, 0U, "kLoanRefused carries msg_id 0");
    }
    log_.clear();
    return kNoLoan;
  }
  FUZZ_CHECK(log_.empty(), "a granted loan reported an error");
  FUZZ_CHECK(loan.Priority() == priority, "the loan's priority is not the one it was loaned at");
  FUZZ_CHECK(loan.Get() == &*loan && loan.operator->() == loan.Get(), "loan accessors differ");
  for (const HeldLoan& other : loans_) {
    FUZZ_CHECK(other.loan.Get() != loan.Get(), "one block loaned twice");
  }
  for (const HeldRetained& r : retained_) {
    FUZZ_CHECK(r.handle.Get() != loan.Get(), "a retained block loaned again");
  }
  if (!with_args) {
    loan->Fill(seq, fill);
  }
  FUZZ_CHECK(loan->seq == seq && loan->fill == fill && loan->Intact(), "loan contents");
  if (mode_ == PerformanceMode::kFullFeatured) {
    ++loan_stats_.granted;
    loan_stats_.high_water = std::max<uint64_t>(loan_stats_.high_water, in_use + 1U);
  }
  loans_.push_back(HeldLoan{seq, fill, priority, std::move(loan)});
  return loans_.size() - 1U;
}

template <typename Bus>
void Harness<Bus>::CheckHeldLoan(const HeldLoan& held) const {
  FUZZ_CHECK(static_cast<bool>(held.loan), "a held loan is empty");
  FUZZ_CHECK(held.loan->seq == held.seq && held.loan->fill == held.fill && held.loan->Intact(),
             "a held loan's message changed (its block written by someone else?)");
  FUZZ_CHECK(held.loan.Priority() == held.priority, "a held loan's priority changed");
}

template <typename Bus>
void Harness<Bus>::CheckRetained(const HeldRetained& r) const {
  FUZZ_CHECK(static_cast<bool>(r.handle) && r.handle.Get() == &*r.handle &&
                 r.handle.operator->() == r.handle.Get(),
             "a retained handle is empty or its accessors differ");
  FUZZ_CHECK(r.handle->seq == r.seq && r.handle->fill == r.fill && r.handle->Intact(),
             "a retained message changed (its block reused while retained?)");
}

template <typename Bus>
void Harness<Bus>::PublishLoan(std::size_t pick, uint8_t api, uint8_t priority_byte,
                               uint8_t sender) {
  if (loans_.empty() || api % kLoanApis == kKeepLoan) {
    mccc::MessageLoan<Cloud> empty;
    const bool admitted =
        (api & 8U) != 0U
            ? bus_->PublishWithPriority(std::move(empty), sender, DecodePriority(priority_byte))
            : bus_->Publish(std::move(empty), sender);
    FUZZ_CHECK(!admitted, "an empty loan was published");
    const bool reporting = Reporting();
    FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "kInvalidMessage reports (empty loan)");
    if (reporting) {
      FUZZ_CHECK(log_[0].error == BusError::kInvalidMessage, "empty loan: wrong error");
    }
    log_.clear();
    return;
  }
  PublishHeldLoan(pick % loans_.size(), api, priority_byte, sender);
}

template <typename Bus>
void Harness<Bus>::PublishHeldLoan(std::size_t index, uint8_t api, uint8_t priority_byte,
                                   uint8_t sender) {
  HeldLoan& held = loans_[index];
  CheckHeldLoan(held);
  const MessagePriority given = DecodePriority(priority_byte);
  const Cloud* const where = held.loan.Get();
  const uint32_t seq = held.seq;
  const uint8_t fill = held.fill;
  const uint64_t timestamp = Mix(seq) >> 8U;
  MessagePriority effective = given;
  bool fast = false;
  bool admitted = false;
  bool handle_gone = false;  // the loan became a Loaned handle, which a refusal destroys
  switch (api % kLoanApis) {
    case 0U:
      admitted = bus_->Publish(std::move(held.loan), sender);
      effective = held.priority;
      break;
    case 1U:
      admitted = bus_->PublishWithPriority(std::move(held.loan), sender, given);
      break;
    case 2U:
      admitted = bus_->PublishFast(std::move(held.loan), sender, timestamp, given);
      fast = true;
      break;
    default: {
      mccc::Loaned<Cloud> handle(std::move(held.loan));
      FUZZ_CHECK(!held.loan && handle && handle.Get() == where,
                 "Loaned<Cloud>(std::move(loan)) did not take the loan over");
      admitted = bus_->PublishWithPriority(std::move(handle), sender, given);
      FUZZ_CHECK(admitted ? !handle : (handle && handle.Get() == where && handle->Intact()),
                 "a Loaned handle: moved from when admitted, untouched when refused");
      handle_gone = true;
      break;  // a refused handle returns its block here
    }
  }
  if (!handle_gone) {
    if (admitted) {
      FUZZ_CHECK(!held.loan && held.loan.Get() == nullptr, "an admitted loan was not moved from");
    } else {
      FUZZ_CHECK(held.loan.Get() == where, "a refused publish took the loan's block");
      CheckHeldLoan(held);
    }
  }
  if (admitted || handle_gone) {
    loans_.erase(loans_.begin() + static_cast<std::ptrdiff_t>(index));
  }
  if (admitted) {
    published_fill_[seq] = fill;
  }
  ExpectPublish(admitted, ModelMessage{seq, kCloudType, effective, sender, fast, timestamp});
}

template <typename Bus>
struct Harness<Bus>::ForeignVisitor {
  const Cloud* block;
  uint32_t* clouds;
  MessageHeader* header;
  bool* intact;
  void operator()(const Small&) const { std::abort(); }
  void operator()(const Big&) const { std::abort(); }
  void operator()(const Text&) const { std::abort(); }
  void operator()(const Cloud& m, const MessageHeader& h) const {
    ++*clouds;
    *header = h;
    *intact = &m == block && m.Intact();
  }
};

template <typename Bus>
void Harness<Bus>::ForeignLoan(uint8_t priority_byte, uint8_t api, uint8_t sender) {
  MessagePriority priority = DecodePriority(priority_byte);
  if (static_cast<std::size_t>(priority) >= mccc::kPriorityCount) {
    priority = MessagePriority::kHigh;
  }
  const uint32_t seq = next_seq_++;
  const auto fill = static_cast<uint8_t>(seq * 7U);
  mccc::MessageLoan<Cloud> loan = foreign_->template Loan<Cloud>(priority, seq, fill);
  if (!loan) {  // its empty pool refuses only LOW / MEDIUM loans of a pool too small for them
    FUZZ_CHECK(priority != MessagePriority::kHigh, "the second bus refused a HIGH loan");
    return;
  }
  const Cloud* const where = loan.Get();
  const bool reporting = Reporting();
  const auto check_refused = [this, reporting](bool admitted) {
    FUZZ_CHECK(!admitted, "a loan of another bus was published here");
    FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "kForeignLoan reports for one refusal");
    if (reporting) {
      FUZZ_CHECK(log_[0].kind == EventKind::kError && log_[0].error == BusError::kForeignLoan,
                 "a foreign loan: wrong error");
      FUZZ_CHECK_EQ(log_[0].id, 0U, "kForeignLoan carries msg_id 0");
    }
    log_.clear();
  };
  bool own_bus_published = false;
  MessagePriority delivered_at = priority;
  switch (api % 4U) {
    case 0U:
      check_refused(bus_->Publish(std::move(loan), sender));
      break;
    case 1U:
      check_refused(bus_->PublishWithPriority(std::move(loan), sender, priority));
      break;
    case 2U:
      check_refused(bus_->PublishFast(std::move(loan), sender, Mix(seq) >> 8U, priority));
      break;
    default: {
      mccc::Loaned<Cloud> handle(std::move(loan));
      check_refused(bus_->Publish(std::move(handle), sender));
      FUZZ_CHECK(handle && handle.Get() == where && handle->seq == seq && handle->fill == fill &&
                     handle->Intact(),
                 "a refused foreign Loaned handle changed");
      own_bus_published = foreign_->Publish(std::move(handle), sender);
      delivered_at = MessagePriority::kMedium;  // a Loaned handle has no priority of its own
      break;
    }
  }
  if (api % 4U != 3U) {
    FUZZ_CHECK(loan && loan.Get() == where && loan->seq == seq && loan->fill == fill &&
                   loan->Intact() && loan.Priority() == priority,
               "a refused foreign loan changed (block, contents or priority)");
    own_bus_published = foreign_->Publish(std::move(loan), sender);
  }
  FUZZ_CHECK(own_bus_published, "the loan refused here was not published on its own bus");
  FUZZ_CHECK_EQ(foreign_->QueueOccupancy(), 1U, "the second bus's queue");
  FUZZ_CHECK_EQ(foreign_->template GetLoanStatistics<Cloud>().in_use, 1U,
                "the second bus's pool while its loan is queued there");
  uint32_t clouds = 0U;
  MessageHeader header{};
  bool intact = false;
  FUZZ_CHECK_EQ(foreign_->ProcessBatchWith(ForeignVisitor{where, &clouds, &header, &intact}), 1U,
                "the second bus dispatched its loan");
  FUZZ_CHECK(clouds == 1U && intact, "the second bus delivered another block, or changed");
  FUZZ_CHECK(header.priority == delivered_at && header.sender_id == sender,
             "the second bus's header of its loan");
  FUZZ_CHECK_EQ(foreign_->template GetLoanStatistics<Cloud>().in_use, 0U,
                "the second bus's pool after its loan was dispatched");
}

template <typename Bus>
void Harness<Bus>::DropLoan(uint8_t pick, uint8_t how) {
  if (loans_.empty()) {
    return;
  }
  const std::size_t index = pick % loans_.size();
  HeldLoan& held = loans_[index];
  CheckHeldLoan(held);
  switch (how % 3U) {
    case 0U:
      held.loan.Reset();
      FUZZ_CHECK(!held.loan && held.loan.Get() == nullptr, "Reset left the loan non-empty");
      break;
    case 1U:
      break;  // destroyed by the erase below
    default:
      held.loan = mccc::MessageLoan<Cloud>{};
      FUZZ_CHECK(!held.loan, "an empty loan assigned over a loan left it non-empty");
      break;
  }
  loans_.erase(loans_.begin() + static_cast<std::ptrdiff_t>(index));
}

template <typename Bus>
void Harness<Bus>::RefillLoan(uint8_t pick, uint8_t fill) {
  if (loans_.empty()) {
    return;
  }
  HeldLoan& held = loans_[pick % loans_.size()];
  CheckHeldLoan(held);
  held.loan->Fill(held.seq, fill);
  held.fill = fill;
}

template <typename Bus>
void Harness<Bus>::RetainAgain(uint8_t pick, uint8_t how) {
  if (retained_.empty()) {
    return;
  }
  const std::size_t index = pick % retained_.size();
  CheckRetained(retained_[index]);
  const uint32_t seq = retained_[index].seq;
  const uint8_t fill = retained_[index].fill;
  const Cloud* const where = retained_[index].handle.Get();
  switch (how % 4U) {
    case 0U: {
      mccc::Retained<Cloud> copy(retained_[index].handle);
      FUZZ_CHECK(copy.Get() == where, "a copied Retained refers to another message");
      retained_.push_back(HeldRetained{seq, fill, std::move(copy)});
      break;
    }
    case 1U: {
      mccc::Retained<Cloud> again = bus_->Retain(*retained_[index].handle);
      FUZZ_CHECK(again && again.Get() == where, "Retain through a retained handle failed");
      retained_.push_back(HeldRetained{seq, fill, std::move(again)});
      break;
    }
    case 2U: {  // the target may be the source itself (self-assignment)
      HeldRetained& target = retained_[(index + 1U) % retained_.size()];
      target.handle = retained_[index].handle;
      target.seq = seq;
      target.fill = fill;
      FUZZ_CHECK(target.handle.Get() == where, "an assigned Retained refers to another message");
      break;
    }
    default: {
      HeldRetained moved{seq, fill, std::move(retained_[index].handle)};
      FUZZ_CHECK(!retained_[index].handle && moved.handle.Get() == where,
                 "a moved Retained: source empty, target the message");
      retained_.erase(retained_.begin() + static_cast<std::ptrdiff_t>(index));
      retained_.push_back(std::move(moved));
      break;
    }
  }
}

template <typename Bus>
void Harness<Bus>::ReleaseRetained(uint8_t pick, uint8_t how) {
  if (retained_.empty()) {
    return;
  }
  const std::size_t index = pick % retained_.size();
  HeldRetained& r = retained_[index];
  CheckRetained(r);
  switch (how % 3U) {
    case 0U:
      r.handle.Reset();
      FUZZ_CHECK(!r.handle && r.handle.Get() == nullptr, "Reset left the handle non-empty");
      break;
    case 1U:
      break;  // destroyed by the erase below
    default:
      r.handle = mccc::Retained<Cloud>{};
      FUZZ_CHECK(!r.handle, "an empty handle moved over a handle left it non-empty");
      break;
  }
  retained_.erase(retained_.begin() + static_cast<std::ptrdiff_t>(index));
}

template <typename Bus>
void Harness<Bus>::CheckDeliveredCloud(const Cloud& m) {
  const auto it = published_fill_.find(m.seq);
  FUZZ_CHECK(it != published_fill_.end(), "a Cloud delivered that was never published");
  FUZZ_CHECK_EQ(m.fill, it->second, "delivered Cloud differs from what the producer filled in");
  const Cloud copy(m);
  FUZZ_CHECK(!bus_->Retain(copy), "Retain of a copy (not in a pool block) returned a handle");
  FUZZ_CHECK(!foreign_->Retain(m), "another bus retained this bus's message");
}

template <typename Bus>
void Harness<Bus>::RetainDelivered(const Cloud& m, const mccc::Loaned<Cloud>* slot) {
  mccc::Retained<Cloud> kept = slot != nullptr ? slot->Retain() : bus_->Retain(m);
  FUZZ_CHECK(kept && kept.Get() == &m, "Retain inside the callback: no handle, or another one");
  retained_.push_back(HeldRetained{m.seq, m.fill, std::move(kept)});
}

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_HARNESS_LOANS_HPP_
