// SPDX-License-Identifier: MIT
/// @file fuzz_harness.hpp
/// @brief The harness: one bus under test, a second bus for foreign handles and loans, and the
/// reference model both are checked against after every operation. This file declares it; the
/// member functions are defined by concern in the fuzz_harness_*.hpp files named in the class.
#ifndef MCCC_TESTS_FUZZ_HARNESS_HPP_
#define MCCC_TESTS_FUZZ_HARNESS_HPP_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "fuzz_input.hpp"
#include "fuzz_model.hpp"
#include "fuzz_payloads.hpp"
#include "mccc/mccc.hpp"

namespace mccc_fuzz {

template <typename Bus>
class Harness {
 public:
  using Envelope = typename Bus::Envelope;
  using Position = typename Bus::Position;
  static constexpr uint64_t kDepth = Bus::kQueueDepth;
  static constexpr uint64_t kBatch = Bus::kBatchSize;
  static constexpr uint32_t kPerType = Bus::TraitsType::kMaxCallbacksPerType;
  static constexpr uint32_t kMaxOps = 4096U;
  static constexpr uint64_t kHighDepth = Bus::kHighQueueDepth;
  static constexpr bool kHighRing = kHighDepth > 0U;
  // Several rings: ids are given at delivery, and kQueueFull reports the next one to deliver.
  static constexpr bool kDeliveryOrderIds = kHighRing || Bus::LaneCount() > 0U;
  static constexpr uint64_t kPool = Bus::TraitsType::kCloudBlocks;  // blocks of Cloud's pool

  Harness(Input& in, bool near_wrap, uint8_t wrap_distance, bool drain_at_end);

  ~Harness() { g_events = nullptr; }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  /// Runs the input's operations (each followed by AfterOperation), then the end-of-input
  /// checks: drain if asked, every loan and retained handle given back, the bus destroyed.
  void Run();

 private:
  // ---- the opcode interpreter and the invariants after every operation (fuzz_harness_run.hpp)
  /// Runs operation `opcode % 28`, reading its argument bytes (the input format:
  /// bus_fuzz_target.cpp).
  void Step(uint8_t opcode);

  /// Invariants that hold between any two operations.
  void AfterOperation();

  // ---- publishing and the admission model (fuzz_harness_publish.hpp)
  static MessagePriority DecodePriority(uint8_t b);

  static constexpr uint8_t kApiBatch = 7U;

  /// One PublishBatch of `count` messages (Small, or Big; Text's copy may throw, which
  /// PublishBatch refuses at compile time, so a Text burst is sent as Small). Expected: the
  /// longest prefix single publishes would admit one after another, each refused message counted
  /// as dropped, one kQueueFull per call (with the first refused message's would-be id), one
  /// kInvalidMessage and nothing else for a bad priority; the caller's array untouched.
  void PublishBatchChecked(uint32_t count, uint8_t type_byte, uint8_t priority_byte);

  template <typename T>
  void PublishBatchTyped(uint32_t count, uint8_t priority_byte);

  void PublishOne(uint8_t api, uint8_t type_byte, uint8_t priority_byte, uint8_t sender);

  template <typename T>
  void PublishTyped(uint8_t api, uint32_t seq, MessagePriority priority, uint32_t sender,
                    uint64_t timestamp);

  void ExpectPublish(bool admitted, const ModelMessage& m);

  bool Reporting() const { return mode_ != PerformanceMode::kBareMetal && error_callback_set_; }

  static bool IsHighRing(MessagePriority priority);

  std::deque<ModelMessage>& FifoFor(MessagePriority priority);

  uint64_t Queued() const { return normal_.size() + high_.size(); }

  /// Would a publish of (valid) `priority` be admitted with `extra` more messages in its ring?
  bool Admits(MessagePriority priority, uint64_t extra) const;

  /// The msg_id a kQueueFull report carries now.
  uint64_t WouldBeId() const;

  // ---- a publish from inside a message's construction (a signal handler)
  // (fuzz_harness_nested.hpp)
  /// What a publish from inside the constructor of a message being built in its slot did
  /// (PublishEmplaceWithNested).
  struct NestedPublish;
  static void RunNested(void* context);
  /// PublishEmplace<Small> whose constructor, running inside the claimed slot (a lane's, or a
  /// ring's), publishes one more Small of the same priority, as a signal handler interrupting
  /// the publish would (docs/porting.md "Signal handlers on hosted builds"; the handler area of a
  /// lane, ring/producer_lane.hpp). Documented outcome: the same as the two publishes one after the
  /// other, the interrupted one first (it was admitted, and claimed its place, before the inner
  /// one began), so the model applies them in that order.
  void PublishEmplaceWithNested(uint32_t seq, MessagePriority priority, uint32_t sender);

  // ---- consuming: the batch plan and the replay of what a batch did (fuzz_harness_consume.hpp)
  /// Moves the messages the next batch dispatches, in delivery order, into batch_.
  uint64_t PlanBatch();

  void ProcessBatchChecked();

  void ProcessBatchWithChecked(uint8_t config);

  void Drain(uint8_t pattern);

  /// Matches the events recorded during one ProcessBatch(With) against the `n` messages
  /// PlanBatch chose. Events belong to a message by its seq (calls, visits, subscription changes
  /// made inside them) or its id (error reports).
  void Replay(uint32_t n, const std::vector<uint8_t>& live_at_start, bool visitor);

  // ---- what subscribers and the visitor record (fuzz_harness_callbacks.hpp)
  /// `slot`: the slot's Loaned handle, for a Cloud subscriber given the envelope.
  template <typename T>
  bool OnCall(uint32_t sub_id, const T& m, const MessageHeader* header, const CaptureToken& token,
              const mccc::Loaned<Cloud>* slot = nullptr);

  template <typename T>
  bool OnEnvelope(uint32_t sub_id, const Envelope& e, const CaptureToken& token);

  template <typename T>
  bool OnVisit(const T& m, const MessageHeader* header, bool returns_bool);

  /// Handlers in all accepted shapes: with / without header, bool / void.
  struct Visitor;

  // ---- Subscribe, Unsubscribe and handle misuse (fuzz_harness_subscriptions.hpp)
  template <typename T>
  SubscriptionHandle SubscribeAs(uint32_t id, const Behavior& b);

  uint32_t DoSubscribe(uint8_t type, const Behavior& behavior);

  static int FindLive(const std::vector<Subscriber>& subs, const SubscriptionHandle& h);

  bool DoUnsubscribe(const SubscriptionHandle& h);

  void UnsubscribeVariant(uint8_t b);

  void ForeignOperation(uint8_t b);

  std::vector<uint8_t> LiveFlags() const;

  // ---- loans, retained handles and a second bus's loans (fuzz_harness_loans.hpp)
  static constexpr std::size_t kNoLoan = static_cast<std::size_t>(-1);
  static constexpr uint8_t kHighPriorityByte = 4U;  // DecodePriority: HIGH
  // Publish-loan apis (byte % kLoanApis): 0 Publish (the loan's priority), 1 PublishWithPriority,
  // 2 PublishFast, 3 through a Loaned<Cloud> handle, 4 an empty loan (op 21) / keep it (bursts).
  static constexpr uint8_t kLoanApis = 5U;
  static constexpr uint8_t kKeepLoan = 4U;

  /// Blocks the model says are in use: every held loan has its own; a message that is queued or
  /// retained (by any number of handles) has one.
  uint64_t BlocksInUse() const;

  uint64_t QueuedClouds() const;

  /// Blocks in use at or above which a loan of (valid) `priority` is refused, derived here from
  /// the documented percentages: LOW and MEDIUM as the ring's, MEDIUM leaving HIGH one block.
  uint64_t LoanLimit(MessagePriority priority) const;

  /// One Loan<Cloud>, checked against the pool model; fills the message (through the loan, or
  /// by the constructor when `with_args`). Returns the index in loans_, or kNoLoan if refused.
  std::size_t LoanOne(uint8_t priority_byte, bool with_args, uint8_t fill);

  void CheckHeldLoan(const HeldLoan& held) const;

  void CheckRetained(const HeldRetained& r) const;

  /// Op 21: publishes held loan `pick`; with no loan held, or api 4, an empty loan.
  void PublishLoan(std::size_t pick, uint8_t api, uint8_t priority_byte, uint8_t sender);

  /// Publishes loans_[index] through api % kLoanApis (0 to 3), checked as an inline publish is:
  /// moved from when admitted, untouched when refused.
  void PublishHeldLoan(std::size_t index, uint8_t api, uint8_t priority_byte, uint8_t sender);

  /// What the second bus's visitor sees: its one Cloud (no other type is published there).
  struct ForeignVisitor;

  /// Op 27: a loan of the second bus (foreign_), filled, published on this bus through api % 4
  /// (Publish, PublishWithPriority, PublishFast, a Loaned handle): refused with kForeignLoan
  /// (msg_id 0) before anything is queued or counted, and left with the caller, intact. Then
  /// published on its own bus and dispatched there (a visitor: its subscribers must never run)
  /// as the same block, after which that pool is empty again. This bus's model is unchanged, so
  /// AfterOperation checks that its pool stayed exact.
  void ForeignLoan(uint8_t priority_byte, uint8_t api, uint8_t sender);

  /// Op 22: gives held loan `pick` back unpublished: Reset, destruction, or assignment of an
  /// empty loan over it.
  void DropLoan(uint8_t pick, uint8_t how);

  /// Op 23: the producer writes a held loan's message again (in place, before publishing).
  void RefillLoan(uint8_t pick, uint8_t fill);

  /// Op 24: one more reference to retained message `pick`: a copy of the handle, bus.Retain
  /// through it, a copy assigned over another handle (dropping that one's reference), or a move
  /// into a new handle.
  void RetainAgain(uint8_t pick, uint8_t how);

  /// Op 25: drops retained handle `pick`: Reset, destruction, or an empty handle moved over it.
  void ReleaseRetained(uint8_t pick, uint8_t how);

  /// A delivered Cloud is what its producer filled in; neither a copy of it nor another bus can
  /// retain it.
  void CheckDeliveredCloud(const Cloud& m);

  /// Keeps a delivered Cloud beyond its callback: through the slot's Loaned handle when the
  /// subscriber has the envelope, else bus.Retain.
  void RetainDelivered(const Cloud& m, const mccc::Loaned<Cloud>* slot);

  // ---- statistics and introspection against the model (fuzz_harness_observe.hpp)
  void CheckStatistics();

  static BackpressureLevel LevelOf(uint64_t occupancy, uint64_t capacity);

  void CheckIntrospection();

  // ---- the model's state and the observation of one bus call
  enum class Phase : uint8_t { kIdle, kProcessBatch, kProcessBatchWith };

  Input& in_;
  bool drain_at_end_;
  std::unique_ptr<Bus> bus_;
  std::unique_ptr<Bus> foreign_;  // source of foreign handles; never publishes or consumes
  Position start_{0U};
  uint64_t first_id_ = 1U;

  // The model.
  std::deque<ModelMessage> normal_;  // LOW/MEDIUM (and HIGH without a HIGH ring), FIFO
  std::deque<ModelMessage> high_;    // HIGH on the HIGH ring, FIFO
  std::vector<ModelMessage> batch_;  // what the current batch dispatches, in order
  uint64_t normal_depth_ = kDepth;   // capacity of the ring this thread's LOW/MEDIUM go to
  uint32_t own_ring_ = 0U;           // its index for LaneQueueDepth / GetLaneStatistics
  uint64_t admitted_total_ = 0U;     // the next admitted message gets first_id_ + admitted_total_
  uint64_t delivered_total_ = 0U;    // the next delivered message has first_id_ + delivered_total_
  uint64_t high_dispatched_ = 0U;    // HIGH messages dispatched (HIGH ring)
  uint64_t high_at_normal_ = 0U;     // high_dispatched_ after the last batch with LOW/MEDIUM
  PerformanceMode mode_ = PerformanceMode::kFullFeatured;
  bool error_callback_set_ = false;
  ModelStats stats_;
  ModelLoanStats loan_stats_;
  std::vector<HeldLoan> loans_;                 // granted, not published
  std::vector<HeldRetained> retained_;          // kept beyond their callbacks
  std::map<uint32_t, uint8_t> published_fill_;  // seq -> fill of every published Cloud
  uint32_t next_seq_ = 0U;
  std::vector<Subscriber> subs_;
  std::array<uint32_t, kTypes> live_{};
  std::array<uint32_t, kTypes> pending_removed_{};
  long live_total_ = 0;
  std::set<std::size_t> issued_ids_;
  std::vector<Subscriber> foreign_subs_;
  std::array<uint32_t, kTypes> foreign_live_by_type_{};
  long foreign_live_ = 0;

  // The observation of one bus call.
  std::vector<Event> log_;
  Phase phase_ = Phase::kIdle;
  uint32_t current_seq_ = 0U;
  uint8_t visitor_config_ = 0U;
};

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_HARNESS_HPP_
