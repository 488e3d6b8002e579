// SPDX-License-Identifier: MIT
/// @file domain_publisher.hpp
/// @brief `mccc::DomainPublisher`: a fan-out domain seen through a bus's publishing interface, for
/// code written against a bus that only publishes into it: a bridge importer, so that another
/// process publishes into every subscribed consumer of a domain.
///
/// @code
/// mccc::DomainPublisher<Lidar> into(*lidar);
/// mccc::bridge::Importer<mccc::DomainPublisher<Lidar>> importer(into, context, options);
/// @endcode
///
/// Its publish calls are the domain's and return true when the message was published by the
/// domain's rule (FanOutResult: every consumer subscribed to the type admitted it); each refusing
/// consumer has counted and reported its own refusal. What such code reports through a bus's
/// error callback (a bridge's receive faults) goes to this object's callback, and it reads this
/// object's performance mode. The exporting side needs nothing of the kind: an exporter
/// subscribes to a consumer's bus (`Exporter<Lidar::ConsumerBus<2>>`), as it would to any bus.
#ifndef MCCC_FANOUT_DOMAIN_PUBLISHER_HPP_
#define MCCC_FANOUT_DOMAIN_PUBLISHER_HPP_

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "mccc/loans/loan_handles.hpp"
#include "mccc/message.hpp"

namespace mccc {

/// @brief Publishes into `Domain` through a bus's publish calls (see the file comment).
/// Thread-safe as the domain's publish calls are; the domain must outlive it.
template <typename Domain>
class DomainPublisher {
 public:
  using Payload = typename Domain::Payload;  ///< The domain's variant.

  explicit DomainPublisher(Domain& domain) noexcept : domain_(domain) {}

  /// @brief Domain::Publish; true when published (FanOutResult's rule).
  template <typename T>
  bool Publish(const T& message, uint32_t sender_id) noexcept {
    return static_cast<bool>(domain_.Publish(message, sender_id));
  }
  /// @brief Domain::PublishWithPriority; true when published.
  template <typename T>
  bool PublishWithPriority(const T& message, uint32_t sender_id,
                           MessagePriority priority) noexcept {
    return static_cast<bool>(domain_.PublishWithPriority(message, sender_id, priority));
  }
  /// @brief Domain::PublishFast; true when published.
  template <typename T>
  bool PublishFast(const T& message, uint32_t sender_id, uint64_t timestamp_us,
                   MessagePriority priority = MessagePriority::kMedium) noexcept {
    return static_cast<bool>(domain_.PublishFast(message, sender_id, timestamp_us, priority));
  }

  /// @brief Domain::Loan.
  template <typename T, typename... Args>
  MessageLoan<T> Loan(MessagePriority priority, Args&&... args) noexcept {
    return domain_.template Loan<T>(priority, std::forward<Args>(args)...);
  }
  /// @brief Domain::PublishFast of a loan; true when published (the loan is then taken).
  template <typename T>
  bool PublishFast(MessageLoan<T>&& loan, uint32_t sender_id, uint64_t timestamp_us,
                   MessagePriority priority) noexcept {
    return static_cast<bool>(
        domain_.PublishFast(std::move(loan), sender_id, timestamp_us, priority));
  }

  /// @brief The callback told of the errors of the code that publishes through this object (not
  /// the consumers': those go to their buses' and the domain's callbacks). Thread-safe.
  void SetErrorCallback(ErrorCallback callback) noexcept {
    // release: pairs with the acquire load in GetErrorCallback (as AsyncBus's).
    error_callback_.store(callback, std::memory_order_release);
  }
  ErrorCallback GetErrorCallback() const noexcept {
    // acquire: pairs with SetErrorCallback's release store.
    return error_callback_.load(std::memory_order_acquire);
  }
  /// @brief The mode such code reads (kBareMetal: it reports nothing). Thread-safe.
  void SetPerformanceMode(PerformanceMode mode) noexcept {
    // relaxed: the mode selects checks; no data is published through it.
    mode_.store(mode, std::memory_order_relaxed);
  }
  PerformanceMode GetPerformanceMode() const noexcept {
    // relaxed: see SetPerformanceMode.
    return mode_.load(std::memory_order_relaxed);
  }

  /// @brief The domain.
  Domain& GetDomain() const noexcept { return domain_; }

 private:
  Domain& domain_;
  std::atomic<ErrorCallback> error_callback_{nullptr};
  std::atomic<PerformanceMode> mode_{PerformanceMode::kFullFeatured};
};

}  // namespace mccc

#endif  // MCCC_FANOUT_DOMAIN_PUBLISHER_HPP_
