// SPDX-License-Identifier: MIT
/// @file active_object.hpp
/// @brief `mccc::ActiveObject`: a thread that owns the consumer loop of one bus, dispatching to
/// the bus's subscribers (or to a visitor) and idling without burning a core.
///
/// ## Life cycle
/// - `Start()` creates the consumer thread, applies the optional thread name and CPU pinning on
///   it (failures are reported in the returned StartResult; the thread runs either way) and
///   returns once the thread is running.
/// - `Stop()` asks the loop to stop, wakes it if it sleeps, waits for the drain, joins the
///   thread. The object can be started again afterwards. The destructor calls Stop().
///
/// ## What "stop" means on a bus shared with producers
/// An ActiveObject cannot stop other threads' Publish calls: the bus keeps admitting messages
/// after Stop() as before. Stop() stops *consuming*:
/// - every message whose Publish returned true before Stop() was called (on the calling thread,
///   or on a thread that synchronised with it, e.g. one it joined) is delivered before Stop()
///   returns: when the loop sees the stop request it marks what has been claimed in each ring
///   (AsyncBus::MarkClaimed: the shared ring, the HIGH ring, every producer lane) and dispatches
///   whole batches until each ring's consumer has reached its mark (AsyncBus::HasConsumed). Each
///   ring is FIFO, so its mark covers all its earlier messages; a count of queued messages would
///   not, since HIGH messages and other lanes overtake;
/// - messages published while the drain runs may or may not be delivered (whole batches are
///   dispatched, so a few later ones usually are);
/// - messages published after the drain finished stay queued, undelivered, until the next
///   Start() (or until the bus is destroyed, which destroys them without delivery).
///
/// The drain is bounded even when producers never pause, HIGH floods included: it waits for the
/// messages before the mark, never for an empty queue. Let N be the largest number of LOW/MEDIUM
/// messages that one ring held unconsumed at the mark, R the number of LOW/MEDIUM rings
/// (kProducerLanes + 1) and B = ceil(kHighQueueDepth / kBatchSize) (B = 1 without a HIGH ring).
/// The drain dispatches at most max(1, R x N) x B batches, each of at most kBatchSize HIGH and
/// kBatchSize LOW/MEDIUM messages. Why: the HIGH messages before the mark are at most
/// kHighQueueDepth, and every batch that finds HIGH ready takes up to kBatchSize of them; a batch
/// whose HIGH share runs out with HIGH still ready ends before the next LOW/MEDIUM message, but
/// at least one batch in any B in a row takes a LOW/MEDIUM message, from the first ready ring in
/// a rotation that moves one ring per such batch (AsyncBus: after a whole HIGH ring of messages,
/// LOW/MEDIUM get their turn), so every ring is served at least once per R x B batches. Without
/// a HIGH flood it is much shorter: a batch then serves every ready ring. Only batches that find
/// the marked messages published count: a producer preempted between claiming a slot and
/// publishing it holds the drain until it resumes.
///
/// Messages that callbacks publish during the drain (a pipeline's later stages) count as
/// published after Stop(): let such a pipeline settle before stopping if they must be delivered.
///
/// ## Stop from inside a callback
/// A callback runs on the consumer thread, which cannot join itself. Stop() called there does
/// not block: it requests the stop (exactly like RequestStop()) and returns
/// StopStatus::kDeferred. The loop finishes the current batch, drains as above and exits; the
/// thread is joined by the next Stop(), Start() or the destructor called from another thread.
/// Start() from a callback is refused (StartStatus::kCalledFromConsumerThread). Destroying the
/// ActiveObject from its own callback is a programming error (asserts; otherwise the joinable
/// std::thread terminates the program).
///
/// ## Idle behaviour
/// See idle_strategy.hpp. The sleeping strategy sleeps in AsyncBus::WaitForMessages (a futex on
/// Linux, a condition variable elsewhere); the next publish wakes it, and producers pay one plain
/// load, no system call, while the consumer is awake. The spin/yield phases restart only after a
/// poll found work, so an idle consumer wakes only once per `max_sleep_us`. The bound also takes a
/// std::chrono duration, rounded up to whole microseconds:
/// `options.idle_strategy = IdleStrategy::SpinThenYieldThenSleep().WithMaxSleep(50ms);`.
///
/// ## Thread-safety
/// Start(), Stop() and the destructor: one controlling thread at a time (not thread-safe against
/// each other). RequestStop(), IsRunning(), IsConsumerThread(), ProcessedCount(), SleepCount():
/// thread-safe, lock-free. While the object runs, its thread is the bus's one consumer: do not
/// call ProcessBatch/ProcessBatchWith/WaitForMessages on that bus elsewhere.
///
/// Hosted platforms only (MCCC_HOSTED): it uses std::thread. On bare metal this header only
/// brings in the idle policy (idle_strategy.hpp); call ProcessBatch from your RTOS task or main
/// loop instead. A bus with kSingleCore = true never wakes a sleeping consumer (its producers
/// skip the wake-up), so with the sleeping strategy each message may wait up to max_sleep_us.
#ifndef MCCC_COMPONENTS_ACTIVE_OBJECT_HPP_
#define MCCC_COMPONENTS_ACTIVE_OBJECT_HPP_

#include <cstdint>

#include "mccc/components/idle_strategy.hpp"
#include "mccc/config.hpp"

#if MCCC_HOSTED

#include <atomic>
#include <cstddef>
#include <thread>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace mccc {

/// @brief ActiveObjectOptions::cpu value meaning "do not pin the thread".
inline constexpr int32_t kNoCpuAffinity = -1;
/// @brief ActiveObjectOptions::realtime_priority value meaning "keep the inherited scheduling".
inline constexpr int32_t kNoRealtimePriority = 0;

/// @brief Configuration of an ActiveObject, read by Start().
struct ActiveObjectOptions {
  /// What the loop does when the bus is empty.
  IdleStrategy idle_strategy = IdleStrategy::SpinThenYieldThenSleep();
  /// Name of the consumer thread (shown by top -H, gdb, perf), at most 15 characters (the Linux
  /// limit); nullptr: keep the inherited name. Copied by Start(), so a temporary is fine. A
  /// longer name is not truncated: it is not applied, and StartResult::name_applied is false.
  const char* thread_name = nullptr;
  /// CPU to pin the consumer thread to (Linux: pthread_setaffinity_np), or kNoCpuAffinity.
  int32_t cpu = kNoCpuAffinity;
  /// Real-time priority of the consumer thread (Linux: SCHED_FIFO at this priority, within
  /// sched_get_priority_min/max, usually 1 to 99), or kNoRealtimePriority. The process needs the
  /// right to it (CAP_SYS_NICE, or an RLIMIT_RTPRIO at least this high); without it, or out of
  /// range, StartResult::priority_applied is false and the thread runs with the inherited
  /// scheduling. A fan-out domain gives its safety-critical consumer the higher priority.
  int32_t realtime_priority = kNoRealtimePriority;
};

/// @brief The default dispatch of an ActiveObject: `bus.ProcessBatch()`, i.e. the callbacks
/// registered with Subscribe. An empty tag type.
struct CallbackDispatch {};

/// @brief Whether Start() started the thread, and if not, why.
enum class StartStatus : uint8_t {
  kStarted = 0U,                   ///< The consumer thread runs (see the name/affinity flags).
  kAlreadyRunning = 1U,            ///< Start() while running; nothing changed.
  kCalledFromConsumerThread = 2U,  ///< Start() from one of its own callbacks; refused.
  kInvalidIdleStrategy = 3U,       ///< IdleStrategy::IsValid() is false; nothing started.
  kThreadCreationFailed = 4U,      ///< std::thread could not be created (exceptions on only).
};

/// @brief The outcome of ActiveObject::Start().
struct StartResult {
  /// Whether the thread was started.
  StartStatus status;
  /// True when no CPU was requested or the pinning succeeded. False: requested and failed
  /// (CPU out of range or not allowed, or a platform without affinity support); the thread
  /// then runs unpinned.
  bool affinity_applied;
  /// True when no name was requested or naming succeeded. False: longer than 15 characters, or
  /// the platform refused; the thread keeps its inherited name.
  bool name_applied;
  /// True when no real-time priority was requested or it was set. False: out of range, not
  /// permitted, or a platform without SCHED_FIFO; the thread keeps its inherited scheduling.
  bool priority_applied;

  /// @brief Started, and every requested thread setting was applied.
  constexpr bool Ok() const noexcept {
    return status == StartStatus::kStarted && affinity_applied && name_applied && priority_applied;
  }
};

/// @brief What Stop() did.
enum class StopStatus : uint8_t {
  kStopped = 0U,     ///< The loop drained (see the file comment) and the thread was joined.
  kNotRunning = 1U,  ///< There was no thread (never started, or already stopped).
  kDeferred = 2U,    ///< Called on the consumer thread: the stop is requested, not awaited.
};

namespace detail {
/// The ActiveObject whose loop runs on the calling thread (nullptr on other threads): lets
/// Stop()/Start() recognise a call from inside one of their own callbacks without touching
/// the std::thread object, which the starting thread may still be assigning.
inline const void*& CurrentActiveObject() noexcept {
  static thread_local const void* current = nullptr;
  return current;
}
}  // namespace detail

/// @brief A consumer thread for one bus.
/// @tparam Bus     An mccc::AsyncBus<...> (anything with ProcessBatch/ProcessBatchWith,
///                 WaitForMessages, WakeConsumer and QueueDepth).
/// @tparam Visitor CallbackDispatch (default): dispatch to the bus's subscribers. Otherwise a
///                 visitor for `bus.ProcessBatchWith` with a handler for every payload
///                 alternative (mccc::make_overloaded); stored by value and called only on the
///                 consumer thread.
///
/// @code
///   auto bus = std::make_unique<Bus>();
///   bus->Subscribe<Reading>([&](const Reading& r) { Handle(r); });
///   mccc::ActiveObjectOptions options;
///   options.thread_name = "sensor-bus";
///   mccc::ActiveObject<Bus> consumer(*bus, options);
///   const mccc::StartResult started = consumer.Start();
///   ...
///   consumer.Stop();  // delivers everything published before this call, then joins
/// @endcode
/// Not copyable or movable: the running thread refers to the object.
template <typename Bus, typename Visitor = CallbackDispatch>
class ActiveObject {
  static constexpr bool kUsesCallbacks = std::is_same<Visitor, CallbackDispatch>::value;
  static constexpr bool kNothrowDefaultVisitor =
      std::is_nothrow_default_constructible<Visitor>::value;
  static constexpr bool kNothrowMoveVisitor = std::is_nothrow_move_constructible<Visitor>::value;
  static_assert(std::is_object<Visitor>::value && !std::is_const<Visitor>::value,
                "mccc: ActiveObject<Bus, Visitor>: Visitor must be a non-const object type (it is "
                "stored by value); pass the visitor type without reference or const");

 public:
  /// Longest thread name Linux accepts (16 bytes including the terminating NUL).
  static constexpr std::size_t kMaxThreadNameLength = 15U;

  /// @brief A stopped consumer of `bus` that dispatches to the bus's subscribers (or to a
  /// default-constructed Visitor). `bus` must outlive this object. Not thread-safe.
  explicit ActiveObject(Bus& bus,
                        const ActiveObjectOptions& options = {}) noexcept(kNothrowDefaultVisitor)
      : bus_(bus), visitor_(), options_(options) {}

  /// @brief A stopped consumer of `bus` that dispatches every message to `visitor` through
  /// `bus.ProcessBatchWith`. `bus` must outlive this object. Not thread-safe.
  ActiveObject(Bus& bus, Visitor visitor,
               const ActiveObjectOptions& options = {}) noexcept(kNothrowMoveVisitor)
      : bus_(bus), visitor_(std::move(visitor)), options_(options) {}

  ActiveObject(const ActiveObject&) = delete;
  ActiveObject& operator=(const ActiveObject&) = delete;
  ActiveObject(ActiveObject&&) = delete;
  ActiveObject& operator=(ActiveObject&&) = delete;

  /// @brief Stop(): drains what was queued and joins. Must not run on the consumer thread
  /// (asserts). Not thread-safe.
  ~ActiveObject() {
    MCCC_ASSERT(!IsConsumerThread(),
                "mccc: ActiveObject destroyed from inside its own callback; call Stop() or "
                "RequestStop() there and destroy it from another thread");
    static_cast<void>(Stop());
  }

  /// @brief Starts the consumer thread and returns once it runs. A thread left over from a
  /// stop requested inside a callback (or by RequestStop) is joined first.
  /// @return status kStarted, kAlreadyRunning, kCalledFromConsumerThread,
  ///         kInvalidIdleStrategy or kThreadCreationFailed; plus whether the requested name
  ///         and CPU pinning were applied (see StartResult).
  /// Not thread-safe (one controlling thread, see the file comment).
  [[nodiscard]] StartResult Start() noexcept {
    StartResult result{StartStatus::kStarted, true, true, true};
    if (IsConsumerThread()) {
      result.status = StartStatus::kCalledFromConsumerThread;
      return result;
    }
    if (thread_.joinable()) {
      // acquire: pairs with RequestStop's release (a stale false only reports kAlreadyRunning).
      if (!stop_requested_.load(std::memory_order_acquire)) {
        result.status = StartStatus::kAlreadyRunning;
        return result;
      }
      thread_.join();  // stopping on its own: the drain ends without help
    }
    if (!options_.idle_strategy.IsValid()) {
      result.status = StartStatus::kInvalidIdleStrategy;
      return result;
    }
    PrepareThreadName();
    // relaxed: the thread creation below orders these stores before the new thread's loads.
    stop_requested_.store(false, std::memory_order_relaxed);
    startup_done_.store(false, std::memory_order_relaxed);
    running_.store(true, std::memory_order_relaxed);
    if (!CreateThread()) {
      // relaxed: no thread was created; only this thread reads it from here on.
      running_.store(false, std::memory_order_relaxed);
      result.status = StartStatus::kThreadCreationFailed;
      return result;
    }
    // acquire: pairs with the thread's release store, making the two results below visible.
    while (!startup_done_.load(std::memory_order_acquire)) {
      std::this_thread::yield();
    }
    result.affinity_applied = affinity_applied_;
    result.name_applied = name_applied_;
    result.priority_applied = priority_applied_;
    return result;
  }

  /// @brief Stops consuming: every message published before this call is delivered, then the
  /// thread is joined (see the file comment for messages published meanwhile).
  /// @return kStopped; kNotRunning if there is no thread; kDeferred when called on the consumer
  ///         thread (from a callback): the stop is only requested, as by RequestStop().
  /// Not thread-safe (one controlling thread), except that the consumer thread may call it.
  StopStatus Stop() noexcept {
    if (IsConsumerThread()) {
      RequestStop();
      return StopStatus::kDeferred;
    }
    if (!thread_.joinable()) {
      return StopStatus::kNotRunning;
    }
    // The wake-up in RequestStop is not lost even if the loop has checked the stop flag and is
    // only about to sleep (WakeConsumer makes the next WaitForMessages return at once), so a
    // sleeping consumer notices the request without waiting for max_sleep_us.
    RequestStop();
    thread_.join();
    return StopStatus::kStopped;
  }

  /// @brief Asks the loop to drain and exit without waiting for it. Thread-safe (any thread,
  /// including the consumer thread), lock-free; the thread is joined by the next Stop(),
  /// Start() or the destructor.
  void RequestStop() noexcept {
    // release: pairs with the loop's acquire load; writes before the request are visible to
    // the callbacks that run during the drain.
    stop_requested_.store(true, std::memory_order_release);
    bus_.WakeConsumer();
  }

  /// @brief True from Start() until the loop has drained and exited (also after a requested
  /// stop, until the drain is over). Thread-safe snapshot.
  bool IsRunning() const noexcept {
    // acquire: pairs with the loop's final release store (its deliveries are then visible).
    return running_.load(std::memory_order_acquire);
  }

  /// @brief True when called on this object's consumer thread (inside a callback or visitor).
  /// Thread-safe.
  bool IsConsumerThread() const noexcept {
    return detail::CurrentActiveObject() == static_cast<const void*>(this);
  }

  /// @brief Messages this object's loop has dispatched since construction (all runs).
  /// Thread-safe snapshot; updated once per batch.
  uint64_t ProcessedCount() const noexcept {
    // relaxed: a statistic; IsRunning()/Stop() provide the ordering when it matters.
    return processed_.load(std::memory_order_relaxed);
  }

  /// @brief Times the loop entered WaitForMessages to sleep since construction (all runs;
  /// a publish racing with the call makes it return at once, which still counts).
  /// Thread-safe snapshot.
  uint64_t SleepCount() const noexcept {
    // relaxed: a statistic.
    return sleeps_.load(std::memory_order_relaxed);
  }

  /// @brief The options Start() uses. Not thread-safe.
  const ActiveObjectOptions& Options() const noexcept { return options_; }

  /// @brief Replaces the options for the next Start(). Returns false (and changes nothing)
  /// while a thread exists. Not thread-safe.
  bool SetOptions(const ActiveObjectOptions& options) noexcept {
    if (thread_.joinable()) {
      return false;
    }
    options_ = options;
    return true;
  }

  /// @brief The native handle of the consumer thread (e.g. for pthread_setschedparam or
  /// pthread_getcpuclockid); meaningless when not started. Not thread-safe.
  std::thread::native_handle_type NativeHandle() noexcept { return thread_.native_handle(); }

  /// @brief The bus this object consumes. Thread-safe.
  Bus& GetBus() const noexcept { return bus_; }

 private:
  // Empty polls during the drain (a producer still writing the head slot) before yielding.
  static constexpr uint32_t kDrainSpinPolls = 64U;

  bool CreateThread() noexcept {
#if MCCC_HAS_EXCEPTIONS
    try {
      thread_ = std::thread([this]() noexcept { Run(); });
    } catch (...) {
      return false;
    }
#else
    thread_ = std::thread([this]() noexcept { Run(); });
#endif
    return true;
  }

  // Copies the requested name (the caller's string need not outlive Start) or marks it too long.
  void PrepareThreadName() noexcept {
    thread_name_[0] = '\0';
    name_too_long_ = false;
    const char* name = options_.thread_name;
    if (name == nullptr) {
      return;
    }
    std::size_t length = 0U;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-22
    while (length <= kMaxThreadNameLength && name[length] != '\0') {
      ++length;
    }
    if (length > kMaxThreadNameLength) {
      name_too_long_ = true;
      return;
    }
    for (std::size_t i = 0U; i <= length; ++i) {
      // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-pointer-arithmetic): deviation D-22
      thread_name_[i] = name[i];
    }
  }

  // Consumer thread: applies name, affinity and priority to itself, reports, then runs the loop.
  void Run() noexcept {
    detail::CurrentActiveObject() = this;
    name_applied_ = ApplyThreadName();
    affinity_applied_ = ApplyAffinity();
    priority_applied_ = ApplyRealtimePriority();
    // release: publishes the three results to Start()'s acquire load.
    startup_done_.store(true, std::memory_order_release);
    Loop();
    Drain();
    detail::CurrentActiveObject() = nullptr;
    // release: everything the loop delivered happens-before an IsRunning() that reads false.
    running_.store(false, std::memory_order_release);
  }

  bool ApplyThreadName() noexcept {
    if (options_.thread_name == nullptr) {
      return true;
    }
    if (name_too_long_) {
      return false;
    }
#if defined(__linux__)
    // NOLINTNEXTLINE(cppcoreguidelines-pro-bounds-array-to-pointer-decay): deviation D-22
    return pthread_setname_np(pthread_self(), thread_name_) == 0;
#elif defined(__APPLE__)
    return pthread_setname_np(thread_name_) == 0;
#else
    return false;  // no portable way to name a thread here
#endif
  }

  bool ApplyAffinity() noexcept {
    if (options_.cpu == kNoCpuAffinity) {
      return true;
    }
#if defined(__linux__)
    if (options_.cpu < 0 || options_.cpu >= CPU_SETSIZE) {
      return false;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<std::size_t>(options_.cpu), &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
#else
    return false;  // no affinity support on this platform
#endif
  }

  bool ApplyRealtimePriority() noexcept {
    if (options_.realtime_priority == kNoRealtimePriority) {
      return true;
    }
#if defined(__linux__)
    if (options_.realtime_priority < sched_get_priority_min(SCHED_FIFO) ||
        options_.realtime_priority > sched_get_priority_max(SCHED_FIFO)) {
      return false;
    }
    sched_param param{};
    param.sched_priority = options_.realtime_priority;
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
#else
    return false;  // no SCHED_FIFO on this platform
#endif
  }

  MCCC_ALWAYS_INLINE uint32_t ProcessOnce() noexcept {
    if constexpr (kUsesCallbacks) {
      return bus_.ProcessBatch();
    } else {
      return bus_.ProcessBatchWith(visitor_);
    }
  }

  MCCC_ALWAYS_INLINE void CountProcessed(uint32_t count) noexcept {
    // Single writer (this thread): a load and a store, no read-modify-write.
    processed_.store(processed_.load(std::memory_order_relaxed) + count, std::memory_order_relaxed);
  }

  void Loop() noexcept {
    IdleBackoff backoff(options_.idle_strategy);
    if (options_.idle_strategy.mode == IdleMode::kSpinThenYieldThenSleep) {
      // Announces early that this consumer sleeps (single-producer buses then add the fence
      // their wake-up needs); with a zero timeout it returns at once.
      static_cast<void>(bus_.WaitForMessages(0U));
    }
    // acquire: pairs with RequestStop's release.
    while (!stop_requested_.load(std::memory_order_acquire)) {
      const uint32_t processed = ProcessOnce();
      if (processed != 0U) {
        CountProcessed(processed);
        backoff.Reset();
        continue;
      }
      switch (backoff.OnEmptyPoll()) {
        case IdleAction::kSpin:
          CpuRelax();
          break;
        case IdleAction::kYield:
          std::this_thread::yield();
          break;
        case IdleAction::kSleep:
          // relaxed: a statistic (single writer).
          sleeps_.store(sleeps_.load(std::memory_order_relaxed) + 1U, std::memory_order_relaxed);
          static_cast<void>(bus_.WaitForMessages(backoff.SleepTimeoutUs()));
          break;
      }
    }
  }

  // Consumes at least the messages queued now: every Publish that returned before the stop
  // request is behind the mark taken here (it happened before the request, which happened
  // before this read). Counting messages would not do: with a HIGH ring or producer lanes a
  // message published later may be dispatched before an earlier one. Bounded as the file
  // comment states, also while HIGH messages keep the HIGH ring busy.
  void Drain() noexcept {
    const auto mark = bus_.MarkClaimed();
    uint32_t empty_polls = 0U;
    while (!bus_.HasConsumed(mark)) {
      const uint32_t processed = ProcessOnce();
      if (processed != 0U) {
        CountProcessed(processed);
        empty_polls = 0U;
      } else if (empty_polls < kDrainSpinPolls) {
        // The next position is claimed but its producer has not finished writing it yet.
        ++empty_polls;
        CpuRelax();
      } else {
        std::this_thread::yield();  // the producer may have been preempted mid-publish
      }
    }
  }

  Bus& bus_;
  Visitor visitor_;
  ActiveObjectOptions options_;
  std::thread thread_;
  // Written by Start() before the thread exists, read by the thread.
  // NOLINTNEXTLINE(modernize-avoid-c-arrays): deviation D-22
  char thread_name_[kMaxThreadNameLength + 1U] = {};
  bool name_too_long_ = false;
  // Written by the thread before startup_done_, read by Start() after it.
  bool name_applied_ = true;
  bool affinity_applied_ = true;
  bool priority_applied_ = true;
  std::atomic<bool> startup_done_{false};
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> running_{false};
  std::atomic<uint64_t> processed_{0U};
  std::atomic<uint64_t> sleeps_{0U};
};

/// Deduction guides: `mccc::ActiveObject consumer(bus);` / `mccc::ActiveObject consumer(bus,
/// visitor, options);`.
template <typename Bus>
ActiveObject(Bus&) -> ActiveObject<Bus>;
template <typename Bus>
ActiveObject(Bus&, const ActiveObjectOptions&) -> ActiveObject<Bus>;
template <typename Bus, typename Visitor>
ActiveObject(Bus&, Visitor) -> ActiveObject<Bus, Visitor>;
template <typename Bus, typename Visitor>
ActiveObject(Bus&, Visitor, const ActiveObjectOptions&) -> ActiveObject<Bus, Visitor>;

}  // namespace mccc

#endif  // MCCC_HOSTED

#endif  // MCCC_COMPONENTS_ACTIVE_OBJECT_HPP_
