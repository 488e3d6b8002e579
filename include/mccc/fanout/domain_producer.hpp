// SPDX-License-Identifier: MIT
/// @file domain_producer.hpp
/// @brief `mccc::DomainProducer`: a producer identity of a fan-out domain owned by an object
/// instead of a thread (Domain::MakeProducer), as AsyncBus::Producer is for a bus.
#ifndef MCCC_FANOUT_DOMAIN_PRODUCER_HPP_
#define MCCC_FANOUT_DOMAIN_PRODUCER_HPP_

#include <cstdint>
#include <utility>

#include "mccc/fanout/fan_out_result.hpp"
#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"
#include "mccc/statistics/thread_shard.hpp"

namespace mccc {

/// @brief One process-wide producer identity (the lowest free one when made), used on every
/// consumer's bus of `Domain`: there it owns a producer lane when the consumer has lanes and the
/// index is below their number (else the shared ring), and a statistics shard. The identity
/// returns when the handle is destroyed. The publish calls are the domain's, with the same
/// results. Use it from one thread at a time; move-only. A default-constructed or moved-from
/// handle publishes nothing: its calls return an empty FanOutResult (nothing subscribed, nothing
/// admitted) or, for a batch, one with every count 0.
template <typename Domain>
class DomainProducer {
 public:
  DomainProducer() noexcept = default;
  DomainProducer(DomainProducer&& other) noexcept
      : domain_(std::exchange(other.domain_, nullptr)),
        index_(std::exchange(other.index_, detail::kNoThreadShard)) {}
  DomainProducer& operator=(DomainProducer&& other) & noexcept {
    if (this != &other) {
      Release();
      domain_ = std::exchange(other.domain_, nullptr);
      index_ = std::exchange(other.index_, detail::kNoThreadShard);
    }
    return *this;
  }
  DomainProducer(const DomainProducer&) = delete;
  DomainProducer& operator=(const DomainProducer&) = delete;
  ~DomainProducer() { Release(); }

  /// @brief The process-wide identity this handle publishes as (kNoThreadShard: none was free,
  /// or the handle is empty).
  uint32_t Identity() const noexcept { return index_; }

  /// @brief Domain::Publish, as this identity.
  template <typename T>
  FanOutResult Publish(const T& message, uint32_t sender_id) noexcept {
    return domain_ == nullptr
               ? FanOutResult{}
               : domain_->CopyAs(index_, message, sender_id, MessagePriority::kMedium, true, 0U);
  }
  /// @brief Domain::PublishWithPriority, as this identity.
  template <typename T>
  FanOutResult PublishWithPriority(const T& message, uint32_t sender_id,
                                   MessagePriority priority) noexcept {
    return domain_ == nullptr ? FanOutResult{}
                              : domain_->CopyAs(index_, message, sender_id, priority, true, 0U);
  }
  /// @brief Domain::PublishFast, as this identity.
  template <typename T>
  FanOutResult PublishFast(const T& message, uint32_t sender_id, uint64_t timestamp_us,
                           MessagePriority priority = MessagePriority::kMedium) noexcept {
    return domain_ == nullptr
               ? FanOutResult{}
               : domain_->CopyAs(index_, message, sender_id, priority, false, timestamp_us);
  }
  /// @brief Domain::PublishEmplace, as this identity.
  template <typename T, typename... Args>
  FanOutResult PublishEmplace(uint32_t sender_id, MessagePriority priority,
                              Args&&... args) noexcept {
    return domain_ == nullptr ? FanOutResult{}
                              : domain_->template EmplaceAs<T>(index_, sender_id, priority,
                                                               std::forward<Args>(args)...);
  }
  /// @brief Domain::PublishBatch, as this identity.
  template <typename T>
  auto PublishBatch(const T* messages, uint32_t count, uint32_t sender_id,
                    MessagePriority priority = MessagePriority::kMedium) noexcept {
    using Result = decltype(domain_->BatchAs(index_, messages, count, sender_id, priority));
    return domain_ == nullptr ? Result{}
                              : domain_->BatchAs(index_, messages, count, sender_id, priority);
  }
  /// @brief Domain::Publish of a loan (its own priority), as this identity.
  template <typename T>
  FanOutResult Publish(MessageLoan<T>&& loan, uint32_t sender_id) noexcept {
    const MessagePriority priority = loan.Priority();
    return PublishWithPriority(std::move(loan), sender_id, priority);
  }
  /// @brief Domain::PublishWithPriority of a loan, as this identity.
  template <typename T>
  FanOutResult PublishWithPriority(MessageLoan<T>&& loan, uint32_t sender_id,
                                   MessagePriority priority) noexcept {
    return domain_ == nullptr ? FanOutResult{}
                              : domain_->PublishLoan(index_, std::move(loan), sender_id, priority,
                                                     Domain::ReadClock());
  }

 private:
  friend Domain;
  DomainProducer(Domain& domain, uint32_t index) noexcept : domain_(&domain), index_(index) {}

  void Release() noexcept {
    if (domain_ != nullptr) {
      // The handle stops using its identity before the identity returns to the registry.
      const uint32_t index = std::exchange(index_, detail::kNoThreadShard);
      domain_ = nullptr;
      detail::ReturnLeasedIndex(index);
    }
  }

  Domain* domain_ = nullptr;
  uint32_t index_ = detail::kNoThreadShard;
};

}  // namespace mccc

#endif  // MCCC_FANOUT_DOMAIN_PRODUCER_HPP_
