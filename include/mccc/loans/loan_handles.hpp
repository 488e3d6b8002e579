// SPDX-License-Identifier: MIT
/// @file loan_handles.hpp
/// @brief The three handles to a message that lives in a loan pool block (loans/loan_pool.hpp):
/// - `MessageLoan<T>`: the producer's unique, writable loan (AsyncBus::Loan). Destroyed
///   unpublished, it destroys the T and returns the block;
/// - `Loaned<T>`: the payload alternative a bus carries in its ring instead of T (one reference
///   to the block; subscribers of T are given the `const T&` inside it);
/// - `Retained<T>`: a shared read-only reference a subscriber keeps beyond its callback
///   (AsyncBus::Retain); copyable, the block returns when the last reference goes.
/// Each handle holds one counted reference to its block. The counting and the return of the block
/// are the pool's (the block header names the pool's operations), so the handles work for any
/// pool size and for single-core and multi-core pools alike.
#ifndef MCCC_LOANS_LOAN_HANDLES_HPP_
#define MCCC_LOANS_LOAN_HANDLES_HPP_

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "mccc/config.hpp"
#include "mccc/message.hpp"

namespace mccc {

template <typename T>
class Loaned;
template <typename T>
class Retained;

namespace detail {

struct LoanBlockHeader;

/// @brief What a block's references do, supplied by the pool that owns the block.
struct LoanBlockOps {
  /// Adds a reference (the caller holds one already).
  void (*retain)(LoanBlockHeader& block) noexcept;
  /// Drops a reference; the last one destroys the message and returns the block to its pool.
  void (*drop)(LoanBlockHeader& block) noexcept;
};

/// @brief The part of a pool block in front of the message: written by the pool when it hands
/// the block out, read by whoever drops a reference.
struct LoanBlockHeader {
  std::atomic<uint32_t> references;  ///< 0 while the block is free
  uint32_t index;                    ///< the block's index in its pool
  const LoanBlockOps* ops;           ///< the owning pool's operations
  void* pool;                        ///< the owning pool
};

/// @brief Empties a handle (block and message pointers) and drops the reference it held: the
/// last one destroys the message and returns the block. The handle is empty before the drop, so
/// a destructor of T that reaches the handle again finds nothing to drop.
template <typename Message>
MCCC_ALWAYS_INLINE void DropHeldReference(LoanBlockHeader*& block, Message*& message) noexcept {
  if (block != nullptr) {
    LoanBlockHeader* held = std::exchange(block, nullptr);
    message = nullptr;
    held->ops->drop(*held);
  }
}

/// @brief Builds a handle from a block the pool has just handed out (one reference taken).
struct LoanAccess;

}  // namespace detail

/// @brief A producer's loan of one pool block holding a T (AsyncBus::Loan). Unique and
/// writable: fill the message in place, then `bus.Publish(std::move(loan), sender_id)`. A refused
/// publish leaves the loan untouched with the caller; a loan destroyed unpublished destroys its T
/// and returns the block. An empty loan (the pool refused it) converts to false. Move-only.
template <typename T>
class MessageLoan {
 public:
  MessageLoan() noexcept = default;
  MessageLoan(MessageLoan&& other) noexcept
      : block_(std::exchange(other.block_, nullptr)),
        message_(std::exchange(other.message_, nullptr)),
        priority_(other.priority_) {}
  MessageLoan& operator=(MessageLoan&& other) & noexcept {
    if (this != &other) {
      Reset();
      block_ = std::exchange(other.block_, nullptr);
      message_ = std::exchange(other.message_, nullptr);
      priority_ = other.priority_;
    }
    return *this;
  }
  MessageLoan(const MessageLoan&) = delete;
  MessageLoan& operator=(const MessageLoan&) = delete;
  ~MessageLoan() { Reset(); }

  /// @brief True when the loan holds a block (false: empty, refused or moved from).
  explicit operator bool() const noexcept { return block_ != nullptr; }
  /// @brief The message (the loan must not be empty).
  T& operator*() const noexcept { return *message_; }
  T* operator->() const noexcept { return message_; }
  T* Get() const noexcept { return message_; }
  /// @brief The priority the pool admitted the loan at; Publish(loan, sender) publishes with it.
  MessagePriority Priority() const noexcept { return priority_; }

  /// @brief Gives the block back unpublished (destroys the message). Empty afterwards.
  void Reset() noexcept { detail::DropHeldReference(block_, message_); }

 private:
  friend struct detail::LoanAccess;
  friend class Loaned<T>;
  MessageLoan(detail::LoanBlockHeader* block, T* message, MessagePriority priority) noexcept
      : block_(block), message_(message), priority_(priority) {}

  detail::LoanBlockHeader* block_ = nullptr;
  T* message_ = nullptr;
  MessagePriority priority_ = MessagePriority::kMedium;
};

/// @brief The payload alternative of a message that travels by loan: list `mccc::Loaned<T>` in
/// the bus's variant (and a pool for T in its traits) instead of T. The ring carries only this
/// handle; subscribers and visitors of T are given the `const T&` in the block, and the block
/// returns to its pool when the slot's payload is destroyed after the last callback (unless a
/// subscriber retained it). Built only from a MessageLoan; move-only.
template <typename T>
class Loaned {
 public:
  using element_type = T;  ///< The message type.

  /// @brief Takes over the loan's block; the loan is empty afterwards.
  explicit Loaned(MessageLoan<T>&& loan) noexcept
      : block_(std::exchange(loan.block_, nullptr)),
        message_(std::exchange(loan.message_, nullptr)) {}
  Loaned(Loaned&& other) noexcept
      : block_(std::exchange(other.block_, nullptr)),
        message_(std::exchange(other.message_, nullptr)) {}
  Loaned& operator=(Loaned&& other) & noexcept {
    if (this != &other) {
      Drop();
      block_ = std::exchange(other.block_, nullptr);
      message_ = std::exchange(other.message_, nullptr);
    }
    return *this;
  }
  Loaned(const Loaned&) = delete;
  Loaned& operator=(const Loaned&) = delete;
  ~Loaned() { Drop(); }

  explicit operator bool() const noexcept { return block_ != nullptr; }
  const T& operator*() const noexcept { return *message_; }
  const T* operator->() const noexcept { return message_; }
  const T* Get() const noexcept { return message_; }

  /// @brief A further reference to the same block, kept beyond the callback.
  Retained<T> Retain() const noexcept;

 private:
  void Drop() noexcept { detail::DropHeldReference(block_, message_); }

  friend struct detail::LoanAccess;
  detail::LoanBlockHeader* block_ = nullptr;
  const T* message_ = nullptr;
};

/// @brief A shared, read-only reference to a loaned message, kept beyond its callback
/// (AsyncBus::Retain). Copying adds a reference; the block returns to its pool when the last one
/// is destroyed, on whichever thread that happens. Holding it never blocks producers (it holds
/// one block of T's pool); release every one before the bus is destroyed.
template <typename T>
class Retained {
 public:
  Retained() noexcept = default;
  Retained(const Retained& other) noexcept : block_(other.block_), message_(other.message_) {
    if (block_ != nullptr) {
      block_->ops->retain(*block_);
    }
  }
  Retained(Retained&& other) noexcept
      : block_(std::exchange(other.block_, nullptr)),
        message_(std::exchange(other.message_, nullptr)) {}
  Retained& operator=(const Retained& other) & noexcept {
    if (this != &other) {
      Retained copy(other);
      Swap(copy);
    }
    return *this;
  }
  Retained& operator=(Retained&& other) & noexcept {
    if (this != &other) {
      Reset();
      block_ = std::exchange(other.block_, nullptr);
      message_ = std::exchange(other.message_, nullptr);
    }
    return *this;
  }
  ~Retained() { Reset(); }

  explicit operator bool() const noexcept { return block_ != nullptr; }
  const T& operator*() const noexcept { return *message_; }
  const T* operator->() const noexcept { return message_; }
  const T* Get() const noexcept { return message_; }

  /// @brief Drops this reference (the block returns if it was the last). Empty afterwards.
  void Reset() noexcept { detail::DropHeldReference(block_, message_); }

 private:
  friend struct detail::LoanAccess;
  friend class Loaned<T>;
  /// Adopts a reference the caller has already counted.
  Retained(detail::LoanBlockHeader* block, const T* message) noexcept
      : block_(block), message_(message) {}
  void Swap(Retained& other) noexcept {
    std::swap(block_, other.block_);
    std::swap(message_, other.message_);
  }

  detail::LoanBlockHeader* block_ = nullptr;
  const T* message_ = nullptr;
};

template <typename T>
Retained<T> Loaned<T>::Retain() const noexcept {
  if (block_ == nullptr) {
    return Retained<T>{};
  }
  block_->ops->retain(*block_);
  return Retained<T>(block_, message_);
}

namespace detail {

struct LoanAccess {
  template <typename T>
  static MessageLoan<T> MakeLoan(LoanBlockHeader* block, T* message,
                                 MessagePriority priority) noexcept {
    return MessageLoan<T>(block, message, priority);
  }
  template <typename T>
  static Retained<T> AdoptRetained(LoanBlockHeader* block, const T* message) noexcept {
    return Retained<T>(block, message);
  }
  /// A second loan of the block `loan` holds, counted as a reference of its own (nothing when
  /// `loan` is empty): a fan-out domain hands one to each consumer it publishes to. The message
  /// is read-only from then on (every holder but the producer sees it through a Loaned handle).
  template <typename T>
  static MessageLoan<T> Share(const MessageLoan<T>& loan) noexcept {
    if (loan.block_ == nullptr) {
      return MessageLoan<T>{};
    }
    loan.block_->ops->retain(*loan.block_);
    return MessageLoan<T>(loan.block_, loan.message_, loan.priority_);
  }
  /// The block a loan or a Loaned handle holds (nullptr when empty); the handle keeps it.
  template <typename T>
  static const LoanBlockHeader* BlockOf(const MessageLoan<T>& loan) noexcept {
    return loan.block_;
  }
  template <typename T>
  static const LoanBlockHeader* BlockOf(const Loaned<T>& loaned) noexcept {
    return loaned.block_;
  }
  /// Takes the reference out of a Loaned (empty afterwards); nullptr when it was empty.
  template <typename T>
  static LoanBlockHeader* Detach(Loaned<T>& loaned) noexcept {
    loaned.message_ = nullptr;
    return std::exchange(loaned.block_, nullptr);
  }
};

/// @brief Whether T is a Loaned<U>, and U.
template <typename T>
struct LoanedTraits {
  static constexpr bool kIsLoaned = false;
  using Message = T;
};
template <typename U>
struct LoanedTraits<Loaned<U>> {
  static constexpr bool kIsLoaned = true;
  using Message = U;
};
/// @brief Whether T is a MessageLoan<U>, and U.
template <typename T>
struct MessageLoanTraits {
  static constexpr bool kIsLoan = false;
  using Message = T;
};
template <typename U>
struct MessageLoanTraits<MessageLoan<U>> {
  static constexpr bool kIsLoan = true;
  using Message = U;
};

/// @brief The type subscribers see for alternative T: U for Loaned<U>, else T.
template <typename T>
using SubscribedType = typename LoanedTraits<T>::Message;

/// @brief What a handler is given for alternative `message`: the message inside a Loaned<U>,
/// the alternative itself otherwise.
template <typename T>
MCCC_ALWAYS_INLINE const T& MessageOf(const T& message) noexcept {
  return message;
}
template <typename U>
MCCC_ALWAYS_INLINE const U& MessageOf(const Loaned<U>& message) noexcept {
  return *message;
}

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_LOANS_LOAN_HANDLES_HPP_
