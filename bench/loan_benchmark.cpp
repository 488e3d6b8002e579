// SPDX-License-Identifier: MIT
// smoke-args: --smoke
/// @file loan_benchmark.cpp
/// @brief Large messages through a bus, three ways, in one interleaved run:
/// - **mccc loans**: `bus.Loan<T>(MEDIUM)` (default-initialised, so nothing is zeroed), fill the
///   block in place, `Publish(std::move(loan))`; the consumer's `ProcessBatch` hands the
///   subscriber `const T&` in the block, which returns to its pool after the callback;
/// - **moodycamel + unique_ptr**: `std::unique_ptr<T>(new T)` per message, fill,
///   `try_enqueue` of the pointer (producer token); the consumer `try_dequeue_bulk`s, reads and
///   destroys each message (the usual user answer: one heap allocation per message);
/// - **mccc copy**: T inline in the payload variant on a ring small enough for 64 MB, filled in a
///   producer-side buffer and published by copy.
/// Sizes 1 KB, 64 KB and 1 MB; one producer on core 0, one consumer on core 1. Every row does
/// the same fill (each 8-byte word of T written, the same out-of-line function) and the same read
/// (the sequence number checked, 16 windows of 64 bytes spread over T summed and checked against
/// the values the fill wrote). Per row: E2E throughput, one-way latency (one message in flight,
/// stamped after the fill and before the publish, read at delivery), heap calls and minor page
/// faults per message in the timed window (global operator new/delete are replaced here, and
/// moodycamel's own allocations are counted through its traits), and the fill alone on one core.
/// Also: a 24-byte message by loan (one field filled) against the same message published inline,
/// end to end and publish + dispatch on one core.
///
/// Usage: loan_benchmark [--rounds N] [--scale X] [--sizes 1k,64k,1m] [--json FILE]
///                       [--commit SHA] [--idle-pause-ns N] [--phase-times] [--smoke]
/// --scale multiplies every message and sample count (1: about two minutes for 10 rounds).
/// --idle-pause-ns (a diagnosis, 0 by default): the E2E consumer of every row waits N ns after
/// a poll that found nothing, instead of polling again at once.
/// --phase-times (a diagnosis): the E2E producer reads the time-stamp counter around each
/// message's allocation (loan or new), fill and publish, and a table gives each phase per row.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/adapters.hpp"
#include "common/cli.hpp"
#include "common/harness.hpp"
#include "common/report.hpp"
#include "mccc/mccc.hpp"

#if MCCC_BENCH_HAVE_MOODYCAMEL
#include <concurrentqueue/concurrentqueue.h>
#define MCCC_BENCH_MOODYCAMEL_FOUND true
#else
#define MCCC_BENCH_MOODYCAMEL_FOUND false
#endif

// ---------------------------------------------------------------------------------------------
// Heap calls: every global operator new / delete of this program is counted per thread (a plain
// thread-local increment, so counting adds no shared write to the rows that allocate).
// ---------------------------------------------------------------------------------------------
namespace mccc_bench {
namespace {

struct HeapCalls {
  uint64_t allocations;
  uint64_t releases;
};
thread_local HeapCalls t_heap_calls{0U, 0U};

void* AllocateOrFail(std::size_t size, std::size_t alignment) {
  void* p = nullptr;
  if (alignment <= alignof(std::max_align_t)) {
    p = std::malloc(size == 0U ? 1U : size);
  } else if (posix_memalign(&p, alignment, size == 0U ? 1U : size) != 0) {
    p = nullptr;
  }
  return p;
}

void* AllocateCounted(std::size_t size, std::size_t alignment) {
  ++t_heap_calls.allocations;
  void* p = AllocateOrFail(size, alignment);
  if (p == nullptr) {
#if defined(__cpp_exceptions)
    throw std::bad_alloc();
#else
    std::abort();
#endif
  }
  return p;
}

void* AllocateCountedNoThrow(std::size_t size, std::size_t alignment) noexcept {
  ++t_heap_calls.allocations;
  return AllocateOrFail(size, alignment);
}

void ReleaseCounted(void* p) noexcept {
  ++t_heap_calls.releases;
  std::free(p);
}

}  // namespace
}  // namespace mccc_bench

void* operator new(std::size_t size) {
  return mccc_bench::AllocateCounted(size, 0U);
}
void* operator new[](std::size_t size) {
  return mccc_bench::AllocateCounted(size, 0U);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return mccc_bench::AllocateCountedNoThrow(size, 0U);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return mccc_bench::AllocateCountedNoThrow(size, 0U);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return mccc_bench::AllocateCounted(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return mccc_bench::AllocateCounted(size, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return mccc_bench::AllocateCountedNoThrow(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return mccc_bench::AllocateCountedNoThrow(size, static_cast<std::size_t>(alignment));
}
void operator delete(void* p) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete[](void* p) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete(void* p, std::size_t) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  mccc_bench::ReleaseCounted(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  mccc_bench::ReleaseCounted(p);
}

namespace mccc_bench {
namespace {

/// What one thread spent in a window: heap calls (allocations + releases) and minor page faults.
struct ThreadCost {
  uint64_t heap_calls = 0U;
  uint64_t minor_faults = 0U;
};

ThreadCost ReadThreadCost() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  ThreadCost cost;
  cost.heap_calls = t_heap_calls.allocations + t_heap_calls.releases;
  cost.minor_faults = static_cast<uint64_t>(usage.ru_minflt);
  return cost;
}

// ---------------------------------------------------------------------------------------------
// Payloads, the fill and the read
// ---------------------------------------------------------------------------------------------

/// @brief A large message: a sequence number and kBytes - 8 bytes of 64-bit words.
template <std::size_t kBytes>
struct Frame {
  static constexpr std::size_t kWords = kBytes / 8U - 1U;
  uint64_t seq;
  uint64_t words[kWords];
};

/// The consumer reads kReadWindows windows of kWindowWords words (64 bytes each), spread evenly
/// over the message (at 1 KB they cover most of it; at 1 MB, one window per 64 KB).
constexpr std::size_t kReadWindows = 16U;
constexpr std::size_t kWindowWords = 8U;

template <std::size_t kBytes>
constexpr std::size_t WindowStride() {
  return (Frame<kBytes>::kWords - kWindowWords) / (kReadWindows - 1U);
}

/// The sum of the word indices the read visits (the fill writes seq + index to word index).
template <std::size_t kBytes>
constexpr uint64_t WindowIndexSum() {
  uint64_t sum = 0U;
  for (std::size_t k = 0U; k < kReadWindows; ++k) {
    for (std::size_t j = 0U; j < kWindowWords; ++j) {
      sum += static_cast<uint64_t>(k * WindowStride<kBytes>() + j);
    }
  }
  return sum;
}

/// @brief The fill every row does: every word of the message written. Out of line, so that
/// every row runs the same machine code.
template <std::size_t kBytes>
[[gnu::noinline]] void Fill(Frame<kBytes>& frame, uint64_t seq) {
  frame.seq = seq;
  for (std::size_t i = 0U; i < Frame<kBytes>::kWords; ++i) {
    frame.words[i] = seq + i;
  }
}

/// @brief The 24-byte message of the overhead rows: only the sequence number is filled.
void Fill(Msg24& message, uint64_t seq) {
  message.seq = seq;
}

/// @brief The read every row does: the sum of the 16 windows. Out of line, as Fill.
template <std::size_t kBytes>
[[gnu::noinline]] uint64_t SumWindows(const Frame<kBytes>& frame) {
  uint64_t sum = 0U;
  for (std::size_t k = 0U; k < kReadWindows; ++k) {
    const uint64_t* window = frame.words + k * WindowStride<kBytes>();
    for (std::size_t j = 0U; j < kWindowWords; ++j) {
      sum += window[j];
    }
  }
  return sum;
}

/// @brief The consumer's sink: counts, checks order and content, and in latency runs stamps the
/// delivery first thing and acknowledges after the read.
struct alignas(64) FrameSink {
  uint64_t count = 0U;
  uint64_t errors = 0U;
  uint64_t* arrival = nullptr;           ///< Latency runs: delivery stamps (Ticks), by count.
  std::atomic<uint64_t>* ack = nullptr;  ///< Latency runs: messages read so far.

  template <std::size_t kBytes>
  void operator()(const Frame<kBytes>& frame) {
    if (arrival != nullptr) {
      arrival[count] = Ticks::Read();
    }
    const uint64_t seq = frame.seq;
    const uint64_t expected = seq * kReadWindows * kWindowWords + WindowIndexSum<kBytes>();
    errors += (seq != count ? 1U : 0U) + (SumWindows(frame) != expected ? 1U : 0U);
    Acknowledge();
  }

  void operator()(const Msg24& message) {
    if (arrival != nullptr) {
      arrival[count] = Ticks::Read();
    }
    errors += message.seq != count ? 1U : 0U;
    Acknowledge();
  }

 private:
  void Acknowledge() {
    ++count;
    if (ack != nullptr) {
      // release: the producer sends the next message once it sees this count (stamp first).
      ack->store(count, std::memory_order_release);
    }
  }
};

constexpr uint32_t kSender = 1U;

/// --phase-times: set once by main() before any measurement.
bool g_phase_times = false;

/// What the producer of a transport spent on each phase of its sends (ticks of Ticks::Read()),
/// with --phase-times. Written by the producer thread only; MeasureE2E resets it before the timed
/// sends and reads it after joining that thread.
struct PhaseTicks {
  uint64_t allocate = 0U;  ///< Loan, or new T (nothing for the copy through the ring).
  uint64_t fill = 0U;      ///< Fill and the before-publish hook.
  uint64_t publish = 0U;   ///< Publish or enqueue, retries included.
  uint64_t sends = 0U;
};
PhaseTicks g_phase_ticks;

/// Reads the counter when --phase-times is on (0 otherwise: the default run pays one branch).
MCCC_ALWAYS_INLINE uint64_t PhaseStamp() {
  return g_phase_times ? Ticks::Read() : 0U;
}

/// Adds one send's phases, stamped at its start, after allocation, after the fill and at its end.
MCCC_ALWAYS_INLINE void CountPhases(uint64_t start, uint64_t allocated, uint64_t filled,
                                    uint64_t end) {
  if (g_phase_times) {
    g_phase_ticks.allocate += allocated - start;
    g_phase_ticks.fill += filled - allocated;
    g_phase_ticks.publish += end - filled;
    ++g_phase_ticks.sends;
  }
}
constexpr mccc::MessagePriority kPriority = mccc::MessagePriority::kMedium;

// ---------------------------------------------------------------------------------------------
// The three transports. Shape: Transport(FrameSink&); Producer MakeProducer() and
// Consumer MakeConsumer() on their threads (outside the timed window); Send(producer, seq,
// before_publish) fills one message and publishes it, retrying while refused (producer.waits
// counts the refusals); Poll(consumer) delivers what is ready, returns how many.
// ---------------------------------------------------------------------------------------------

/// Bus traits of the loan rows: the default bus (HIGH lane on) with a pool of kBlocks for T.
template <typename T, uint32_t kBlocks>
struct LoanTraits : mccc::DefaultBusTraits {
  using LoanPools = mccc::LoanPools<mccc::PoolOf<T, kBlocks>>;
};

/// Bus traits of the copy rows: kDepth slots, no HIGH lane (a HIGH lane of 1,024 slots of 1 MB
/// would take a gigabyte).
template <uint32_t kDepth>
struct CopyTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = kDepth;
  static constexpr uint32_t kHighQueueDepth = 0U;
};

struct ProducerWaits {
  uint64_t waits = 0U;
};

/// @brief mccc loans: Loan, fill in place, Publish(std::move(loan)); ProcessBatch to a subscriber.
template <typename T, typename Traits,
          mccc::PerformanceMode kMode = mccc::PerformanceMode::kFullFeatured>
class LoanTransport {
 public:
  using Bus = mccc::AsyncBus<std::variant<mccc::Loaned<T>, Heartbeat, Command>, Traits>;
  struct Producer : ProducerWaits {};
  struct Consumer {};

  explicit LoanTransport(FrameSink& sink) : bus_(std::make_unique<Bus>()) {
    bus_->SetPerformanceMode(kMode);
    FrameSink* s = &sink;
    valid_ = bus_->template Subscribe<T>([s](const T& message) { (*s)(message); }).IsValid();
  }

  Producer MakeProducer() { return Producer{}; }
  Consumer MakeConsumer() { return Consumer{}; }

  template <typename BeforePublish>
  MCCC_ALWAYS_INLINE void Send(Producer& producer, uint64_t seq, BeforePublish&& before_publish) {
    const uint64_t start = PhaseStamp();
    mccc::MessageLoan<T> loan = bus_->template Loan<T>(kPriority);
    while (!loan) {
      ++producer.waits;
      CpuRelax();
      loan = bus_->template Loan<T>(kPriority);
    }
    const uint64_t allocated = PhaseStamp();
    Fill(*loan, seq);
    before_publish();
    const uint64_t filled = PhaseStamp();
    while (!bus_->Publish(std::move(loan), kSender)) {
      ++producer.waits;
      CpuRelax();
    }
    CountPhases(start, allocated, filled, PhaseStamp());
  }

  MCCC_ALWAYS_INLINE std::size_t Poll(Consumer&) { return bus_->ProcessBatch(); }

  /// True when set-up succeeded and every block is back in the pool.
  bool valid() const { return valid_ && bus_->template GetLoanStatistics<T>().in_use == 0U; }
  static constexpr std::size_t MemoryBytes() { return sizeof(Bus); }

 private:
  std::unique_ptr<Bus> bus_;
  bool valid_ = false;
};

/// @brief mccc copy: T inline in the variant, filled in a producer-side buffer, Publish(copy).
template <typename T, typename Traits>
class CopyTransport {
 public:
  using Bus = mccc::AsyncBus<std::variant<T, Heartbeat, Command>, Traits>;
  struct Producer : ProducerWaits {
    std::unique_ptr<T> staging;
  };
  struct Consumer {};

  explicit CopyTransport(FrameSink& sink) : bus_(std::make_unique<Bus>()) {
    FrameSink* s = &sink;
    valid_ = bus_->template Subscribe<T>([s](const T& message) { (*s)(message); }).IsValid();
  }

  Producer MakeProducer() {
    Producer producer;
    producer.staging = std::make_unique<T>();
    return producer;
  }
  Consumer MakeConsumer() { return Consumer{}; }

  template <typename BeforePublish>
  MCCC_ALWAYS_INLINE void Send(Producer& producer, uint64_t seq, BeforePublish&& before_publish) {
    T& staging = *producer.staging;
    const uint64_t start = PhaseStamp();
    Fill(staging, seq);
    before_publish();
    const uint64_t filled = PhaseStamp();
    while (!bus_->Publish(staging, kSender)) {
      ++producer.waits;
      CpuRelax();
    }
    CountPhases(start, start, filled, PhaseStamp());
  }

  MCCC_ALWAYS_INLINE std::size_t Poll(Consumer&) { return bus_->ProcessBatch(); }

  bool valid() const { return valid_; }
  static constexpr std::size_t MemoryBytes() { return sizeof(Bus); }

 private:
  std::unique_ptr<Bus> bus_;
  bool valid_ = false;
};

#if MCCC_BENCH_HAVE_MOODYCAMEL
/// moodycamel's own block allocations, counted like operator new.
struct CountingQueueTraits : moodycamel::ConcurrentQueueDefaultTraits {
  static void* malloc(std::size_t size) { return AllocateCountedNoThrow(size, 0U); }
  static void free(void* p) { ReleaseCounted(p); }
};

/// @brief moodycamel::ConcurrentQueue<std::unique_ptr<T>>: new T, fill, try_enqueue (producer
/// token; bounded to the blocks preallocated for kCapacity); try_dequeue_bulk (consumer token),
/// read, destroy.
template <typename T, std::size_t kCapacity>
class MoodycamelTransport {
 public:
  using Queue = moodycamel::ConcurrentQueue<std::unique_ptr<T>, CountingQueueTraits>;
  static constexpr std::size_t kBulk = 256U;  // as the competitive suite's moodycamel row
  struct Producer : ProducerWaits {
    std::unique_ptr<moodycamel::ProducerToken> token;
  };
  struct Consumer {
    std::unique_ptr<moodycamel::ConsumerToken> token;
    std::unique_ptr<std::unique_ptr<T>[]> buffer;
  };

  explicit MoodycamelTransport(FrameSink& sink)
      : queue_(std::make_unique<Queue>(kCapacity, 1U, 0U)), sink_(&sink) {}

  Producer MakeProducer() {
    Producer producer;
    producer.token = std::make_unique<moodycamel::ProducerToken>(*queue_);
    return producer;
  }
  Consumer MakeConsumer() {
    Consumer consumer;
    consumer.token = std::make_unique<moodycamel::ConsumerToken>(*queue_);
    consumer.buffer = std::make_unique<std::unique_ptr<T>[]>(kBulk);
    return consumer;
  }

  template <typename BeforePublish>
  MCCC_ALWAYS_INLINE void Send(Producer& producer, uint64_t seq, BeforePublish&& before_publish) {
    const uint64_t start = PhaseStamp();
    std::unique_ptr<T> message(new T);  // default-initialised, as the loan
    const uint64_t allocated = PhaseStamp();
    Fill(*message, seq);
    before_publish();
    const uint64_t filled = PhaseStamp();
    while (!queue_->try_enqueue(*producer.token, std::move(message))) {
      ++producer.waits;
      CpuRelax();
    }
    CountPhases(start, allocated, filled, PhaseStamp());
  }

  MCCC_ALWAYS_INLINE std::size_t Poll(Consumer& consumer) {
    const std::size_t n = queue_->try_dequeue_bulk(*consumer.token, consumer.buffer.get(), kBulk);
    for (std::size_t i = 0U; i < n; ++i) {
      (*sink_)(*consumer.buffer[i]);
      consumer.buffer[i].reset();
    }
    return n;
  }

  bool valid() const { return true; }
  static constexpr std::size_t MemoryBytes() { return 0U; }

 private:
  std::unique_ptr<Queue> queue_;
  FrameSink* sink_;
};
#endif

// ---------------------------------------------------------------------------------------------
// Runners
// ---------------------------------------------------------------------------------------------

/// After the last message (untimed): a consumer loop keeps polling, and a bus may finish work
/// on an empty poll (return released blocks); the end-of-run checks see the state after it.
template <typename Transport, typename Consumer>
void IdlePolls(Transport& transport, Consumer& consumer) {
  constexpr int kIdlePolls = 256;
  for (int i = 0; i < kIdlePolls; ++i) {
    transport.Poll(consumer);
  }
}

/// --idle-pause-ns: set once by main() before any measurement, read by the E2E consumers.
uint64_t g_idle_pause_ns = 0U;

/// Busy-waits `ns` nanoseconds with the CPU's spin-wait hint, touching no shared data.
void PauseFor(uint64_t ns) {
  const uint64_t until = NowNs() + ns;
  while (NowNs() < until) {
    CpuRelax();
  }
}

struct E2EOutcome {
  double msgs_per_sec = 0.0;
  double heap_calls_per_msg = 0.0;
  double minor_faults_per_msg = 0.0;
  double producer_waits_per_msg = 0.0;  ///< Refused loans / publishes the producer retried.
  double consumer_idle_polls_per_msg = 0.0;
  // --phase-times: the producer's ns per message on each phase (0 without the option).
  double allocate_ns = 0.0;
  double fill_ns = 0.0;
  double publish_ns = 0.0;
  bool valid = false;
};

/// @brief E2E: `warmup` messages, then `messages` timed on the consumer from the first delivery
/// after the warm-up to the last. Heap calls, page faults and producer waits are counted over
/// the producer's last `messages` sends and the consumer's timed window.
template <typename Transport>
E2EOutcome MeasureE2E(uint64_t warmup, uint64_t messages, bool* pinned) {
  auto sink = std::make_unique<FrameSink>();
  auto transport = std::make_unique<Transport>(*sink);
  const uint64_t total = warmup + messages;
  ThreadCost producer_start, producer_end, consumer_start, consumer_end;
  uint64_t waits = 0U;
  uint64_t idle_polls = 0U;
  uint64_t first_timed = 0U;
  uint64_t t0 = 0U;
  uint64_t t1 = 0U;
  RunPinnedThreads(
      1,
      [&](int) {
        auto producer = transport->MakeProducer();
        const auto nothing = []() {};
        for (uint64_t i = 0U; i < warmup; ++i) {
          transport->Send(producer, i, nothing);
        }
        const uint64_t waits_before = producer.waits;
        g_phase_ticks = PhaseTicks{};
        producer_start = ReadThreadCost();
        for (uint64_t i = warmup; i < total; ++i) {
          transport->Send(producer, i, nothing);
        }
        producer_end = ReadThreadCost();
        waits = producer.waits - waits_before;
      },
      [&]() {
        auto consumer = transport->MakeConsumer();
        while (sink->count < warmup) {
          transport->Poll(consumer);
        }
        consumer_start = ReadThreadCost();
        first_timed = sink->count;
        t0 = NowNs();
        while (sink->count < total) {
          if (transport->Poll(consumer) == 0U) {
            ++idle_polls;
            if (g_idle_pause_ns != 0U) {
              PauseFor(g_idle_pause_ns);
            }
          }
        }
        t1 = NowNs();
        consumer_end = ReadThreadCost();
        IdlePolls(*transport, consumer);
      },
      pinned);
  E2EOutcome out;
  const double produced = static_cast<double>(messages);
  const double consumed = static_cast<double>(total - first_timed);
  out.valid = sink->count == total && sink->errors == 0U && transport->valid() && consumed > 0.0;
  if (consumed > 0.0 && t1 > t0) {
    out.msgs_per_sec = consumed / (static_cast<double>(t1 - t0) * 1e-9);
    out.heap_calls_per_msg =
        static_cast<double>(producer_end.heap_calls - producer_start.heap_calls) / produced +
        static_cast<double>(consumer_end.heap_calls - consumer_start.heap_calls) / consumed;
    out.minor_faults_per_msg =
        static_cast<double>(producer_end.minor_faults - producer_start.minor_faults) / produced +
        static_cast<double>(consumer_end.minor_faults - consumer_start.minor_faults) / consumed;
    out.producer_waits_per_msg = static_cast<double>(waits) / produced;
    out.consumer_idle_polls_per_msg = static_cast<double>(idle_polls) / consumed;
  }
  if (g_phase_ticks.sends != 0U) {
    const double per_send = Ticks::NsPerTick() / static_cast<double>(g_phase_ticks.sends);
    out.allocate_ns = static_cast<double>(g_phase_ticks.allocate) * per_send;
    out.fill_ns = static_cast<double>(g_phase_ticks.fill) * per_send;
    out.publish_ns = static_cast<double>(g_phase_ticks.publish) * per_send;
  }
  return out;
}

/// @brief Latency: one message in flight. The producer waits for the previous message's
/// acknowledgement, fills, stamps and publishes; the consumer stamps at delivery, reads and
/// acknowledges. Percentiles of the `samples` after `warmup`, in ns.
template <typename Transport>
LatencyOutcome MeasureLatency(uint64_t warmup, uint64_t samples, bool* pinned) {
  const uint64_t total = warmup + samples;
  std::vector<uint64_t> sent(total, 0U);
  std::vector<uint64_t> arrival(total, 0U);
  auto ack = std::make_unique<LineCounter>();
  auto sink = std::make_unique<FrameSink>();
  sink->arrival = arrival.data();
  sink->ack = &ack->value;
  auto transport = std::make_unique<Transport>(*sink);
  RunPinnedThreads(
      1,
      [&](int) {
        auto producer = transport->MakeProducer();
        for (uint64_t i = 0U; i < total; ++i) {
          // acquire: pairs with the sink's release; the previous message has been read.
          while (ack->value.load(std::memory_order_acquire) < i) {
          }
          uint64_t* stamp = &sent[i];
          transport->Send(producer, i, [stamp]() { *stamp = Ticks::Read(); });
        }
      },
      [&]() {
        auto consumer = transport->MakeConsumer();
        while (sink->count < total) {
          transport->Poll(consumer);
        }
        IdlePolls(*transport, consumer);
      },
      pinned);
  std::vector<double> ns;
  ns.reserve(samples);
  const double scale = Ticks::NsPerTick();
  for (uint64_t i = warmup; i < total; ++i) {
    const uint64_t d = arrival[i] > sent[i] ? arrival[i] - sent[i] : 0U;
    ns.push_back(static_cast<double>(d) * scale);
  }
  std::sort(ns.begin(), ns.end());
  LatencyOutcome out;
  out.p50 = Percentile(ns, 0.50);
  out.p95 = Percentile(ns, 0.95);
  out.p99 = Percentile(ns, 0.99);
  out.max = ns.empty() ? 0.0 : ns.back();
  out.valid = sink->count == total && sink->errors == 0U && transport->valid();
  return out;
}

/// @brief The fill alone on core 0: one buffer filled `fills` times (after one untimed fill), ns
/// per fill.
template <typename T>
double MeasureFill(uint64_t fills, bool* pinned) {
  return RunOnProducerCore<double>(
      [&]() {
        auto buffer = std::make_unique<T>();
        Fill(*buffer, 0U);
        const uint64_t t0 = NowNs();
        for (uint64_t i = 1U; i <= fills; ++i) {
          Fill(*buffer, i);
        }
        const uint64_t t1 = NowNs();
        // Keep the last fill observable.
        volatile uint64_t last = buffer->seq;
        static_cast<void>(last);
        return static_cast<double>(t1 - t0) / static_cast<double>(fills);
      },
      pinned);
}

/// @brief Publish + dispatch on one core (core 0): bursts of kBurst sends, then the consumer
/// drains them; ns per message over `messages` (after one untimed pass of the same length).
template <typename Transport>
Outcome MeasureOneCore(uint64_t messages, bool* pinned) {
  constexpr uint64_t kBurst = 64U;
  messages = messages < kBurst ? kBurst : messages / kBurst * kBurst;
  auto sink = std::make_unique<FrameSink>();
  auto transport = std::make_unique<Transport>(*sink);
  const double ns = RunOnProducerCore<double>(
      [&]() {
        auto producer = transport->MakeProducer();
        auto consumer = transport->MakeConsumer();
        const auto nothing = []() {};
        double timed_ns = 0.0;
        for (uint64_t pass = 0U; pass < 2U; ++pass) {
          const uint64_t t0 = NowNs();
          for (uint64_t i = 0U; i < messages; i += kBurst) {
            const uint64_t base = pass * messages + i;
            for (uint64_t k = 0U; k < kBurst; ++k) {
              transport->Send(producer, base + k, nothing);
            }
            while (sink->count < base + kBurst) {
              transport->Poll(consumer);
            }
          }
          timed_ns = static_cast<double>(NowNs() - t0);
        }
        return timed_ns / static_cast<double>(messages);
      },
      pinned);
  Outcome out;
  out.value = ns;
  out.valid = sink->errors == 0U && transport->valid();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------------

enum class Way { kLoan, kMoodycamel, kCopy };

const char* WayName(Way way) {
  switch (way) {
    case Way::kLoan:
      return "mccc loans";
    case Way::kMoodycamel:
      return "moodycamel + unique_ptr";
    case Way::kCopy:
      return "mccc copy through the ring";
  }
  return "?";
}

struct SizeCase {
  const char* label;
  std::size_t bytes;
  uint64_t messages;         ///< E2E messages timed per round (scaled).
  uint64_t latency_samples;  ///< Latency samples per round (scaled).
  uint32_t pool_blocks;      ///< Loan pool blocks = moodycamel's minimum capacity.
  uint32_t copy_depth;       ///< Ring slots of the copy bus (at most 64 MB).
};

constexpr std::size_t kSizeCount = 3U;
constexpr std::size_t kKiB = 1024U;
constexpr std::size_t kMiB = 1024U * 1024U;
constexpr SizeCase kSizes[kSizeCount] = {
    {"1 KB", kKiB, 300000U, 10000U, 1024U, 32768U},
    {"64 KB", 64U * kKiB, 30000U, 5000U, 256U, 512U},
    {"1 MB", kMiB, 3000U, 1000U, 32U, 32U},
};

struct Row {
  Way way;
  std::size_t size_index;
  std::size_t memory_bytes;  ///< The bus object (its ring, and the pool for loans); 0: heap.
  std::function<E2EOutcome(uint64_t, uint64_t, bool*)> e2e;
  std::function<LatencyOutcome(uint64_t, uint64_t, bool*)> latency;
};

template <typename Transport>
Row MakeRow(Way way, std::size_t size_index) {
  Row row;
  row.way = way;
  row.size_index = size_index;
  row.memory_bytes = Transport::MemoryBytes();
  row.e2e = [](uint64_t warmup, uint64_t n, bool* pinned) {
    return MeasureE2E<Transport>(warmup, n, pinned);
  };
  row.latency = [](uint64_t warmup, uint64_t n, bool* pinned) {
    return MeasureLatency<Transport>(warmup, n, pinned);
  };
  return row;
}

template <std::size_t kIndex>
void AddRowsOfSize(std::vector<Row>& rows) {
  constexpr SizeCase kCase = kSizes[kIndex];
  using T = Frame<kCase.bytes>;
  static_assert(sizeof(T) == kCase.bytes, "a frame is exactly its nominal size");
  rows.push_back(MakeRow<LoanTransport<T, LoanTraits<T, kCase.pool_blocks>>>(Way::kLoan, kIndex));
#if MCCC_BENCH_HAVE_MOODYCAMEL
  rows.push_back(MakeRow<MoodycamelTransport<T, kCase.pool_blocks>>(Way::kMoodycamel, kIndex));
#endif
  using CopyBus = typename CopyTransport<T, CopyTraits<kCase.copy_depth>>::Bus;
  static_assert(sizeof(CopyBus) <= 64U * kMiB, "the copy row's bus must fit in 64 MB");
  rows.push_back(MakeRow<CopyTransport<T, CopyTraits<kCase.copy_depth>>>(Way::kCopy, kIndex));
}

std::vector<Row> AllRows() {
  std::vector<Row> rows;
  AddRowsOfSize<0U>(rows);
  AddRowsOfSize<1U>(rows);
  AddRowsOfSize<2U>(rows);
  return rows;
}

/// The 24-byte overhead rows: the same default bus, the message by loan or inline.
constexpr uint32_t kSmallPoolBlocks = 1024U;
using SmallLoanTransport = LoanTransport<Msg24, LoanTraits<Msg24, kSmallPoolBlocks>>;
using SmallInlineTransport = CopyTransport<Msg24, mccc::DefaultBusTraits>;
/// Diagnosis: the same loan without the pool's statistics counters (NO_STATS).
using SmallLoanNoStatsTransport =
    LoanTransport<Msg24, LoanTraits<Msg24, kSmallPoolBlocks>, mccc::PerformanceMode::kNoStats>;

/// One 24-byte variant: E2E and publish + dispatch on one core.
struct SmallVariant {
  const char* name;
  std::function<E2EOutcome(uint64_t, uint64_t, bool*)> e2e;
  std::function<Outcome(uint64_t, bool*)> one_core;
};

template <typename Transport>
SmallVariant MakeSmallVariant(const char* name) {
  SmallVariant v;
  v.name = name;
  v.e2e = [](uint64_t warmup, uint64_t n, bool* pinned) {
    return MeasureE2E<Transport>(warmup, n, pinned);
  };
  v.one_core = [](uint64_t n, bool* pinned) { return MeasureOneCore<Transport>(n, pinned); };
  return v;
}

const char* const kSmallLoan = "24 B by loan";
const char* const kSmallInline = "24 B inline";
const char* const kSmallLoanNoStats = "24 B by loan, NO_STATS (diagnosis)";

std::vector<SmallVariant> SmallVariants() {
  return {MakeSmallVariant<SmallLoanTransport>(kSmallLoan),
          MakeSmallVariant<SmallInlineTransport>(kSmallInline),
          MakeSmallVariant<SmallLoanNoStatsTransport>(kSmallLoanNoStats)};
}

struct SmallSeries {
  std::vector<double> e2e_ns, one_core_ns, heap_calls, producer_waits, idle_polls;
  bool all_valid = true;
};

double FillAlone(std::size_t size_index, uint64_t fills, bool* pinned) {
  switch (size_index) {
    case 0U:
      return MeasureFill<Frame<kSizes[0].bytes>>(fills, pinned);
    case 1U:
      return MeasureFill<Frame<kSizes[1].bytes>>(fills, pinned);
    default:
      return MeasureFill<Frame<kSizes[2].bytes>>(fills, pinned);
  }
}

// ---------------------------------------------------------------------------------------------
// Configuration and series
// ---------------------------------------------------------------------------------------------

struct Config {
  int rounds = 10;
  double scale = 1.0;
  uint64_t small_messages = 1000000U;
  uint64_t pingpong = 200000U;
  uint64_t idle_pause_ns = 0U;
  bool phase_times = false;
  std::vector<std::size_t> size_indices = {0U, 1U, 2U};
  std::string json;
  std::string commit;
};

bool Parse(int argc, char** argv, Config& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--rounds") {
      c.rounds = std::atoi(next().c_str());
    } else if (a == "--scale") {
      c.scale = std::strtod(next().c_str(), nullptr);
    } else if (a == "--sizes") {
      c.size_indices.clear();
      for (const std::string& s : SplitList(next())) {
        const std::string names[kSizeCount] = {"1k", "64k", "1m"};
        for (std::size_t k = 0U; k < kSizeCount; ++k) {
          if (s == names[k]) {
            c.size_indices.push_back(k);
          }
        }
      }
    } else if (a == "--json") {
      c.json = next();
    } else if (a == "--commit") {
      c.commit = next();
    } else if (a == "--idle-pause-ns") {
      c.idle_pause_ns = std::strtoull(next().c_str(), nullptr, 10);
    } else if (a == "--phase-times") {
      c.phase_times = true;
    } else if (a == "--smoke") {
      c.rounds = 2;
      c.scale = 0.01;
      c.pingpong = 10000U;
    } else {
      std::fprintf(stderr, "unknown argument: %s (see the file comment of loan_benchmark.cpp)\n",
                   a.c_str());
      return false;
    }
  }
  return c.rounds > 0 && c.scale > 0.0;
}

uint64_t Scaled(uint64_t n, double scale, uint64_t at_least) {
  const auto scaled = static_cast<uint64_t>(static_cast<double>(n) * scale);
  return scaled < at_least ? at_least : scaled;
}

struct RowSeries {
  std::vector<double> msgs_per_sec, heap_calls, minor_faults, producer_waits, idle_polls;
  std::vector<double> allocate_ns, fill_phase_ns, publish_ns;  // --phase-times
  std::vector<double> p50, p99, max;
  bool all_valid = true;
};

std::string RowKey(const Row& row) {
  return std::string(kSizes[row.size_index].label) + " | " + WayName(row.way);
}

double Ratio(double a, double b) {
  return a > 0.0 && b > 0.0 ? a / b : 0.0;
}

struct RoundRecord {
  double handoff_start_ns = 0.0;
  double handoff_end_ns = 0.0;
  std::map<std::size_t, double> loans_over_moodycamel;  ///< By size index.
  double small_loan_over_inline = 0.0;                  ///< 24 B, E2E ns per message.
};

/// A round is classed by the handoff at its start and end.
const char* PlacementOf(const RoundRecord& r) {
  return PlacementName(ClassifyPlacement(r.handoff_start_ns, r.handoff_end_ns));
}

}  // namespace
}  // namespace mccc_bench

int main(int argc, char** argv) {
  using namespace mccc_bench;
  Config cfg;
  if (!Parse(argc, argv, cfg)) {
    return 2;
  }
  g_idle_pause_ns = cfg.idle_pause_ns;
  g_phase_times = cfg.phase_times;
  RunInfo info = StartRun("loan_benchmark", argc, argv, cfg.commit);
  std::vector<Row> all_rows = AllRows();
  std::vector<Row> rows;
  for (Row& row : all_rows) {
    if (std::find(cfg.size_indices.begin(), cfg.size_indices.end(), row.size_index) !=
        cfg.size_indices.end()) {
      rows.push_back(std::move(row));
    }
  }
  const uint64_t small_messages = Scaled(cfg.small_messages, cfg.scale, 1024U);
  std::printf("loan_benchmark: %zu rows, %d rounds, scale %.3g, %d cores%s\n", rows.size(),
              cfg.rounds, cfg.scale, CoreCount(),
              MCCC_BENCH_MOODYCAMEL_FOUND ? "" : " (moodycamel not found: its rows are missing)");
  if (cfg.idle_pause_ns != 0U) {
    std::printf("E2E consumers wait %llu ns after each empty poll (--idle-pause-ns)\n",
                static_cast<unsigned long long>(cfg.idle_pause_ns));
  }
  (void)Ticks::NsPerTick();

  std::map<std::string, RowSeries> series;
  std::map<std::size_t, std::vector<double>> fill_ns;
  std::vector<double> pingpong_ns;
  const std::vector<SmallVariant> small_variants = SmallVariants();
  std::map<std::string, SmallSeries> small;
  // Per round, loans / moodycamel E2E (paired: the two ran within seconds of each other).
  std::map<std::size_t, std::vector<double>> paired_ratio;
  std::vector<RoundRecord> round_records;

  for (int round = 0; round < cfg.rounds; ++round) {
    std::printf("round %d/%d ...\n", round + 1, cfg.rounds);
    std::fflush(stdout);
    RoundRecord record;
    record.handoff_start_ns = RunPingPong(cfg.pingpong, &info.pinned);
    pingpong_ns.push_back(record.handoff_start_ns);
    const auto offset = static_cast<std::size_t>(round);
    for (std::size_t size_index : cfg.size_indices) {
      const SizeCase& size = kSizes[size_index];
      const uint64_t messages = Scaled(size.messages, cfg.scale, 4U * size.pool_blocks);
      const uint64_t warmup = std::max<uint64_t>(messages / 10U, 2U * size.pool_blocks);
      const uint64_t samples = Scaled(size.latency_samples, cfg.scale, 50U);
      std::vector<const Row*> of_size;
      for (const Row& row : rows) {
        if (row.size_index == size_index) {
          of_size.push_back(&row);
        }
      }
      // Rotate the first row every round; E2E of every row, then latency of every row.
      std::map<Way, double> e2e_this_round;
      for (std::size_t k = 0U; k < of_size.size(); ++k) {
        const Row& row = *of_size[(k + offset) % of_size.size()];
        const E2EOutcome o = row.e2e(warmup, messages, &info.pinned);
        RowSeries& s = series[RowKey(row)];
        s.msgs_per_sec.push_back(o.msgs_per_sec);
        s.heap_calls.push_back(o.heap_calls_per_msg);
        s.minor_faults.push_back(o.minor_faults_per_msg);
        s.producer_waits.push_back(o.producer_waits_per_msg);
        s.idle_polls.push_back(o.consumer_idle_polls_per_msg);
        s.allocate_ns.push_back(o.allocate_ns);
        s.fill_phase_ns.push_back(o.fill_ns);
        s.publish_ns.push_back(o.publish_ns);
        s.all_valid = s.all_valid && o.valid;
        e2e_this_round[row.way] = o.msgs_per_sec;
      }
      if (e2e_this_round.count(Way::kMoodycamel) != 0U) {
        const double ratio = Ratio(e2e_this_round[Way::kLoan], e2e_this_round[Way::kMoodycamel]);
        paired_ratio[size_index].push_back(ratio);
        record.loans_over_moodycamel[size_index] = ratio;
      }
      for (std::size_t k = 0U; k < of_size.size(); ++k) {
        const Row& row = *of_size[(k + offset) % of_size.size()];
        const LatencyOutcome o =
            row.latency(std::max<uint64_t>(samples / 10U, 10U), samples, &info.pinned);
        RowSeries& s = series[RowKey(row)];
        s.p50.push_back(o.p50);
        s.p99.push_back(o.p99);
        s.max.push_back(o.max);
        s.all_valid = s.all_valid && o.valid;
      }
      fill_ns[size_index].push_back(FillAlone(size_index, messages, &info.pinned));
    }
    // The 24-byte overhead rows, the first one rotated every round.
    for (std::size_t k = 0U; k < small_variants.size(); ++k) {
      const SmallVariant& v = small_variants[(k + offset) % small_variants.size()];
      SmallSeries& s = small[v.name];
      const E2EOutcome o = v.e2e(small_messages / 10U, small_messages, &info.pinned);
      s.e2e_ns.push_back(o.msgs_per_sec > 0.0 ? 1e9 / o.msgs_per_sec : 0.0);
      s.heap_calls.push_back(o.heap_calls_per_msg);
      s.producer_waits.push_back(o.producer_waits_per_msg);
      s.idle_polls.push_back(o.consumer_idle_polls_per_msg);
      const Outcome one = v.one_core(small_messages, &info.pinned);
      s.one_core_ns.push_back(one.value);
      s.all_valid = s.all_valid && o.valid && one.valid;
    }
    record.small_loan_over_inline =
        Ratio(small[kSmallLoan].e2e_ns.back(), small[kSmallInline].e2e_ns.back());
    record.handoff_end_ns = RunPingPong(cfg.pingpong, &info.pinned);
    pingpong_ns.push_back(record.handoff_end_ns);
    round_records.push_back(record);
  }

  // ------------------------------------------------------------------------------------------
  // Tables
  // ------------------------------------------------------------------------------------------
  const Summary pingpong = Summarize(pingpong_ns);
  std::printf(
      "\nCore-to-core one-way handoff (cache-line ping-pong): median %.1f ns (min %.1f, max "
      "%.1f)\n",
      pingpong.median, pingpong.min, pingpong.max);
  std::printf(
      "\nE2E, 1 producer (core 0) -> 1 consumer (core 1), medians of %d rounds; latency "
      "publish -> delivery, one in flight (ns); heap calls and minor page faults per message in "
      "the timed window; waits = refused loans / publishes the producer retried, per message\n",
      cfg.rounds);
  std::printf("  %-6s %-28s %9s %9s %9s %9s %9s %9s %7s %8s %7s %9s %6s\n", "size", "row",
              "M msg/s", "min", "max", "ns/msg", "lat P50", "lat P99", "heap", "faults", "waits",
              "memory MB", "check");
  std::vector<std::string> rows_json;
  bool all_valid = true;
  for (std::size_t size_index : cfg.size_indices) {
    const SizeCase& size = kSizes[size_index];
    for (const Row& row : rows) {
      if (row.size_index != size_index) {
        continue;
      }
      const RowSeries& s = series[RowKey(row)];
      const Summary rate = Summarize(s.msgs_per_sec);
      const double ns_per_msg = rate.median > 0.0 ? 1e9 / rate.median : 0.0;
      all_valid = all_valid && s.all_valid;
      char memory[32] = "heap";
      if (row.memory_bytes != 0U) {
        std::snprintf(memory, sizeof(memory), "%.1f",
                      static_cast<double>(row.memory_bytes) / static_cast<double>(kMiB));
      }
      std::printf("  %-6s %-28s %9.3f %9.3f %9.3f %9.1f %9.0f %9.0f %7.3f %8.3f %7.3f %9s %6s\n",
                  size.label, WayName(row.way), rate.median / 1e6, rate.min / 1e6, rate.max / 1e6,
                  ns_per_msg, Median(s.p50), Median(s.p99), Median(s.heap_calls),
                  Median(s.minor_faults), Median(s.producer_waits), memory,
                  s.all_valid ? "ok" : "FAIL");
      JsonObject o;
      o.Str("row", WayName(row.way)).Str("size", size.label);
      o.Int("payload_bytes", size.bytes);
      o.Int("pool_blocks_or_queue_capacity", size.pool_blocks);
      o.Int("copy_ring_depth", size.copy_depth);
      o.Int("bus_bytes", row.memory_bytes);
      o.Sum("msgs_per_sec", rate).Num("ns_per_msg_of_median", ns_per_msg);
      o.Sum("latency_p50_ns", Summarize(s.p50)).Sum("latency_p99_ns", Summarize(s.p99));
      o.Sum("latency_max_ns", Summarize(s.max));
      o.Sum("heap_calls_per_msg", Summarize(s.heap_calls));
      o.Sum("minor_faults_per_msg", Summarize(s.minor_faults));
      o.Sum("producer_waits_per_msg", Summarize(s.producer_waits));
      o.Sum("consumer_idle_polls_per_msg", Summarize(s.idle_polls));
      if (cfg.phase_times) {
        o.Sum("producer_allocate_ns", Summarize(s.allocate_ns));
        o.Sum("producer_fill_ns", Summarize(s.fill_phase_ns));
        o.Sum("producer_publish_ns", Summarize(s.publish_ns));
      }
      o.Bool("checks_passed", s.all_valid);
      o.Raw("msgs_per_sec_samples", SamplesJson(s.msgs_per_sec));
      rows_json.push_back(o.Text());
    }
  }

  if (cfg.phase_times) {
    std::printf(
        "\nProducer phases in the E2E runs (--phase-times: the time-stamp counter read four times "
        "per message), ns per message, medians of %d rounds:\n",
        cfg.rounds);
    std::printf("  %-6s %-28s %10s %10s %10s\n", "size", "row", "allocate", "fill", "publish");
    for (std::size_t size_index : cfg.size_indices) {
      for (const Row& row : rows) {
        if (row.size_index == size_index) {
          const RowSeries& s = series[RowKey(row)];
          std::printf("  %-6s %-28s %10.1f %10.1f %10.1f\n", kSizes[size_index].label,
                      WayName(row.way), Median(s.allocate_ns), Median(s.fill_phase_ns),
                      Median(s.publish_ns));
        }
      }
    }
  }

  std::printf(
      "\nFill alone (every word of the message written, one buffer, core 0), medians of %d "
      "rounds, next to the loan row's E2E time per message:\n",
      cfg.rounds);
  std::printf("  %-6s %12s %16s %14s\n", "size", "fill ns/msg", "loans E2E ns/msg", "fill share");
  std::vector<std::string> fill_json;
  std::map<std::size_t, double> fill_share;
  for (std::size_t size_index : cfg.size_indices) {
    const SizeCase& size = kSizes[size_index];
    const double fill = Median(fill_ns[size_index]);
    const double loan_rate =
        Median(series[std::string(size.label) + " | " + WayName(Way::kLoan)].msgs_per_sec);
    const double loan_ns = loan_rate > 0.0 ? 1e9 / loan_rate : 0.0;
    fill_share[size_index] = Ratio(fill, loan_ns);
    std::printf("  %-6s %12.1f %16.1f %13.0f%%\n", size.label, fill, loan_ns,
                100.0 * fill_share[size_index]);
    JsonObject o;
    o.Str("size", size.label).Sum("fill_ns", Summarize(fill_ns[size_index]));
    o.Num("loan_e2e_ns_per_msg", loan_ns).Num("fill_share_of_loan_e2e", fill_share[size_index]);
    fill_json.push_back(o.Text());
  }

  std::printf(
      "\n24-byte message on the default bus, by loan (pool of %u, one field filled) vs inline "
      "Publish, ns per message, medians of %d rounds (%llu messages each); E2E core 0 -> core 1, "
      "and publish + dispatch on one core (bursts of 64); idle: the E2E consumer's empty polls "
      "per message:\n",
      kSmallPoolBlocks, cfg.rounds, static_cast<unsigned long long>(small_messages));
  std::printf("  %-38s %9s %9s %9s %9s %7s %7s %7s %6s\n", "variant", "E2E ns", "min", "max",
              "one core", "heap", "waits", "idle", "check");
  std::vector<std::string> small_json;
  for (const SmallVariant& v : small_variants) {
    const SmallSeries& s = small[v.name];
    const Summary e2e = Summarize(s.e2e_ns);
    all_valid = all_valid && s.all_valid;
    std::printf("  %-38s %9.1f %9.1f %9.1f %9.1f %7.3f %7.3f %7.3f %6s\n", v.name, e2e.median,
                e2e.min, e2e.max, Median(s.one_core_ns), Median(s.heap_calls),
                Median(s.producer_waits), Median(s.idle_polls), s.all_valid ? "ok" : "FAIL");
    JsonObject o;
    o.Str("variant", v.name).Sum("e2e_ns_per_msg", e2e);
    o.Sum("one_core_ns_per_msg", Summarize(s.one_core_ns));
    o.Sum("heap_calls_per_msg", Summarize(s.heap_calls));
    o.Sum("producer_waits_per_msg", Summarize(s.producer_waits));
    o.Sum("consumer_idle_polls_per_msg", Summarize(s.idle_polls));
    o.Bool("checks_passed", s.all_valid);
    o.Raw("e2e_ns_samples", SamplesJson(s.e2e_ns));
    o.Raw("one_core_ns_samples", SamplesJson(s.one_core_ns));
    small_json.push_back(o.Text());
  }
  const double loan_e2e = Median(small[kSmallLoan].e2e_ns);
  const double inline_e2e = Median(small[kSmallInline].e2e_ns);
  const double loan_one = Median(small[kSmallLoan].one_core_ns);
  const double inline_one = Median(small[kSmallInline].one_core_ns);

  // ------------------------------------------------------------------------------------------
  // By placement: the rounds whose handoff (measured at their start and end) was near both
  // times, or far both times
  // ------------------------------------------------------------------------------------------
  std::printf(
      "\nBy placement: rounds whose one-way handoff was below %.0f ns at start and end (near) or "
      "at or above it both times (far); medians of per-round ratios\n",
      kFarHandoffNs);
  std::printf("  %-10s %7s", "placement", "rounds");
  for (std::size_t size_index : cfg.size_indices) {
    std::printf(" %15s", (std::string("loans/mc ") + kSizes[size_index].label).c_str());
  }
  std::printf(" %12s\n", "24 B loan/inl");
  std::vector<std::string> placement_json;
  for (const char* placement : {"near", "far", "mixed"}) {
    std::vector<const RoundRecord*> of_placement;
    for (const RoundRecord& r : round_records) {
      if (std::string(PlacementOf(r)) == placement) {
        of_placement.push_back(&r);
      }
    }
    JsonObject o;
    o.Str("placement", placement).Int("rounds", of_placement.size());
    std::printf("  %-10s %7zu", placement, of_placement.size());
    for (std::size_t size_index : cfg.size_indices) {
      std::vector<double> ratios;
      for (const RoundRecord* r : of_placement) {
        const auto it = r->loans_over_moodycamel.find(size_index);
        if (it != r->loans_over_moodycamel.end()) {
          ratios.push_back(it->second);
        }
      }
      std::printf(" %15.3f", Median(ratios));
      o.Raw(std::string("loans_over_moodycamel_") + kSizes[size_index].label, SamplesJson(ratios));
    }
    std::vector<double> small_ratios;
    for (const RoundRecord* r : of_placement) {
      small_ratios.push_back(r->small_loan_over_inline);
    }
    std::printf(" %12.3f\n", Median(small_ratios));
    o.Raw("small_loan_over_inline", SamplesJson(small_ratios));
    placement_json.push_back(o.Text());
  }

  // ------------------------------------------------------------------------------------------
  // Targets
  // ------------------------------------------------------------------------------------------
  std::vector<std::string> target_json;
  std::printf("\nTargets:\n");
  auto target = [&](const std::string& what, double measured, double limit, bool higher_is_better,
                    const std::string& unit, bool present = true) {
    if (!present || (measured <= 0.0 && higher_is_better)) {
      std::printf("  %-66s n/a (a row is missing from this run)\n", what.c_str());
      return;
    }
    const bool met = higher_is_better ? measured >= limit : measured <= limit;
    std::printf("  %-66s %9.3f %-3s (target %s %.3g) %s\n", what.c_str(), measured, unit.c_str(),
                higher_is_better ? ">=" : "<=", limit, met ? "MET" : "MISSED");
    JsonObject o;
    o.Str("target", what).Num("measured", measured).Num("limit", limit).Str("unit", unit);
    o.Bool("higher_is_better", higher_is_better).Bool("met", met);
    target_json.push_back(o.Text());
  };
  for (std::size_t size_index : cfg.size_indices) {
    const std::string label = kSizes[size_index].label;
    const double loans = Median(series[label + " | " + WayName(Way::kLoan)].msgs_per_sec);
    const double moody = Median(series[label + " | " + WayName(Way::kMoodycamel)].msgs_per_sec);
    target("E2E loans / moodycamel + unique_ptr, " + label + " (ratio of medians)",
           Ratio(loans, moody), 1.0, true, "x");
    target("E2E loans / moodycamel + unique_ptr, " + label + " (median of per-round ratios)",
           Median(paired_ratio[size_index]), 1.0, true, "x");
    const RowSeries& loan_row = series[label + " | " + WayName(Way::kLoan)];
    target("heap calls per message, loans, " + label, Median(loan_row.heap_calls), 0.0, false, "",
           !loan_row.heap_calls.empty());
  }
  target("24 B by loan / inline, E2E ns per message", Ratio(loan_e2e, inline_e2e), 2.0, false, "x",
         Ratio(loan_e2e, inline_e2e) > 0.0);
  target("24 B by loan / inline, publish + dispatch on one core", Ratio(loan_one, inline_one), 2.0,
         false, "x", Ratio(loan_one, inline_one) > 0.0);

  JsonObject results;
  JsonObject protocol;
  protocol.Int("rounds", static_cast<uint64_t>(cfg.rounds)).Num("scale", cfg.scale);
  protocol.Int("read_windows", kReadWindows).Int("window_bytes", kWindowWords * 8U);
  protocol.Str("loan_priority", "MEDIUM").Int("small_pool_blocks", kSmallPoolBlocks);
  protocol.Int("idle_pause_ns", cfg.idle_pause_ns).Bool("phase_times", cfg.phase_times);
  protocol.Int("small_messages", small_messages).Int("pingpong_iterations", cfg.pingpong);
  protocol.Int("cores", static_cast<uint64_t>(CoreCount()));
  results.Raw("protocol", protocol.Text());
  results.Sum("one_way_handoff_ns", pingpong);
  results.Raw("rows", JArray(rows_json));
  results.Raw("fill_alone", JArray(fill_json));
  results.Raw("small_24_byte", JArray(small_json));
  std::vector<std::string> paired_json;
  for (const auto& kv : paired_ratio) {
    JsonObject o;
    o.Str("size", kSizes[kv.first].label).Sum("loans_over_moodycamel", Summarize(kv.second));
    paired_json.push_back(o.Text());
  }
  results.Raw("paired_ratios", JArray(paired_json));
  results.Raw("by_placement", JArray(placement_json));
  std::vector<std::string> rounds_json;
  for (const RoundRecord& r : round_records) {
    JsonObject o;
    o.Num("handoff_start_ns", r.handoff_start_ns).Num("handoff_end_ns", r.handoff_end_ns);
    o.Str("placement", PlacementOf(r));
    for (const auto& kv : r.loans_over_moodycamel) {
      o.Num(std::string("loans_over_moodycamel_") + kSizes[kv.first].label, kv.second);
    }
    o.Num("small_loan_over_inline", r.small_loan_over_inline);
    rounds_json.push_back(o.Text());
  }
  results.Raw("rounds", JArray(rounds_json));
  results.Raw("targets", JArray(target_json));
  results.Bool("all_checks_passed", all_valid);
  if (!WriteJson(cfg.json, info, results.Text())) {
    return 1;
  }
  if (!info.pinned) {
    std::printf("warning: some threads could not be pinned (fewer than 2 cores?)\n");
  }
  if (!all_valid) {
    std::printf("FAIL: a check failed (a message lost, reordered or torn, or a block not back)\n");
    return 1;
  }
  return 0;
}
