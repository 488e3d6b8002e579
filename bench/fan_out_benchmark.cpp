// SPDX-License-Identifier: MIT
// smoke-args: --smoke
/// @file fan_out_benchmark.cpp
/// @brief One publish, every consumer: mccc::Domain against the ways users fan a message out
/// with other libraries, in one interleaved run (contenders alternate within every round;
/// medians and min/max of the same run are reported).
///
/// Contenders (each peer compiled in only when CMake found it, see bench/CMakeLists.txt):
/// - **mccc Domain**: `Domain<Payload, Traits x N>`; consumer I is its own bus, spun on
///   ProcessBatch by its own thread. 24 B travels inline (one copy per consumer's ring); 64 KB
///   travels by loan (`Loan<Frame>`, filled in place in its pool block, `Publish(std::move(loan))`:
///   every consumer's ring holds a reference to that one block).
/// - **ZeroMQ inproc XPUB/SUB**: one XPUB socket (PUB that also reports subscriptions, used only
///   to wait until every SUB is connected), N SUB sockets each read by its own thread; a 64 KB
///   message is one zmq message, shared by reference among the subscribers' pipes by libzmq.
/// - **moodycamel**: one `ConcurrentQueue<std::shared_ptr<Msg>>` per consumer, one make_shared
///   per publish, the pointer try_enqueue'd (producer token) into each queue's preallocated room.
/// - **iceoryx 1:n**: one Publisher, N Subscribers in this process; the benchmark starts RouDi
///   (iox-roudi) itself with a mempool configuration of its own and skips iceoryx when it cannot.
///
/// Part 1, fan-out: 1 producer -> 1, 2, 4 consumers (each on a thread of its own), 24 B and 64 KB.
/// The producer publishes as fast as it can; a message a queue refuses (or, for ZeroMQ and
/// iceoryx, drops) is lost for that consumer and never retried. Per row: each consumer's delivered
/// throughput, the slowest consumer's, the share of copies delivered, and the producer's cost per
/// publish call (fill included: a 64 KB message is memset with its sequence number by every
/// contender, in place in the block or chunk where the library allows it), as wall time and as
/// the producer thread's CPU time.
///
/// Part 2, interference: the latency (publish stamp -> start of the callback) of a fast consumer
/// while a second consumer's callback busy-waits 1 ms per message, against the same fast consumer
/// alone; 24 B messages published at a fixed period.
///
/// Rows whose threads (producer + consumers) exceed std::thread::hardware_concurrency() are marked
/// OVERSUBSCRIBED: they measure the scheduler as much as the library.
///
/// Usage: fan_out_benchmark [--rounds N] [--messages N] [--large-messages N] [--consumers 1,2,4]
///                          [--sizes 24,64k] [--interference-ms N] [--period-us N] [--slow-us N]
///                          [--pingpong N] [--filter TEXT,TEXT,=EXACT NAME] [--roudi PATH]
///                          [--placement-tool PATH|none] [--json FILE] [--commit SHA] [--smoke]
/// --filter keeps the contenders whose name contains one of the texts (or, with a leading '=',
/// is exactly it). --consumers accepts 1 to 4.
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "common/adapters.hpp"
#include "common/cli.hpp"
#include "common/harness.hpp"
#include "common/report.hpp"
#include "mccc/mccc.hpp"

#if MCCC_BENCH_HAVE_ZMQ
#include <zmq.hpp>
#endif
#if MCCC_BENCH_HAVE_MOODYCAMEL
#include <concurrentqueue/concurrentqueue.h>
#endif
#if MCCC_BENCH_HAVE_ICEORYX
#include "iceoryx_hoofs/log/logmanager.hpp"
#include "iceoryx_posh/popo/publisher.hpp"
#include "iceoryx_posh/popo/subscriber.hpp"
#include "iceoryx_posh/runtime/posh_runtime.hpp"
#endif

// CMake records where it found these (bench/CMakeLists.txt); the command line may override them.
#ifndef MCCC_BENCH_PLACEMENT_TOOL
#define MCCC_BENCH_PLACEMENT_TOOL ""
#endif
#ifndef MCCC_BENCH_IOX_ROUDI
#define MCCC_BENCH_IOX_ROUDI ""
#endif

namespace mccc_bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Messages: what the producer fills, what every consumer checks
// ---------------------------------------------------------------------------------------------

/// @brief The small message: copied into each consumer's queue by mccc.
struct Small {
  uint64_t seq;    ///< Position in the producer's stream.
  uint64_t stamp;  ///< Ticks::Read() just before the publish call (latency runs), else 0.
  uint64_t check;  ///< seq again: a torn copy fails the consumer's check.
};
static_assert(sizeof(Small) == 24U, "the small message is 24 bytes");

constexpr std::size_t kFrameBytes = 65536U;

/// @brief The large message: 64 KB, written whole by every publish.
struct Frame {
  // User-provided and empty on purpose: iceoryx's loan() builds T() and std::make_shared value-
  // initialises, and either would zero 64 KB on top of the fill for an aggregate. mccc's loan
  // default-initialises. So every contender writes the bulk exactly once: in Fill.
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): the fill writes every member
  Frame() noexcept {}
  uint64_t seq;                           ///< See Small.
  uint64_t stamp;                         ///< See Small.
  unsigned char bulk[kFrameBytes - 16U];  ///< Every byte = the low byte of seq.
};
static_assert(sizeof(Frame) == kFrameBytes, "the large message is 64 KB");

/// @brief Fills a small message; the stamp is read last, so it times the publish call, not the
/// fill.
inline void Fill(Small& message, uint64_t seq, bool stamp) {
  message.seq = seq;
  message.check = seq;
  message.stamp = stamp ? Ticks::Read() : 0U;
}

/// @brief Writes all 64 KB. Out of line, so that every contender runs the same machine code.
[[gnu::noinline]] void Fill(Frame& frame, uint64_t seq, bool stamp) {
  frame.seq = seq;
  std::memset(frame.bulk, static_cast<int>(seq & 0xFFU), sizeof(frame.bulk));
  frame.stamp = stamp ? Ticks::Read() : 0U;
}

/// The two sizes, by index (--sizes).
constexpr std::size_t kSizeCount = 2U;
constexpr const char* kSizeNames[kSizeCount] = {"24 B", "64 KB"};

/// @brief Queue sizes of one message size, the same room for every contender.
/// kCapacity is what an mccc ring of kRingDepth slots admits at MEDIUM priority (the publishes
/// here are MEDIUM): the peers' queues get exactly that room, so that a consumer that falls
/// behind loses messages after as many queued ones whatever the library.
template <typename Msg>
struct SizeClass;

template <>
struct SizeClass<Small> {
  static constexpr uint32_t kRingDepth = 4096U;
  static constexpr uint32_t kCapacity = static_cast<uint32_t>(
      mccc::PriorityAdmission<kRingDepth>::LimitFor(mccc::MessagePriority::kMedium));
};

/// Most consumers a row runs (--consumers); also what the shared pools are sized for.
constexpr int kMaxConsumers = 4;

template <>
struct SizeClass<Frame> {
  // 256 slots of 16-byte references: 205 messages admitted at MEDIUM. Not 4,096 as for 24 B:
  // iceoryx's subscriber queue holds at most 256 chunks in Debian's build, and 4,096 64 KB
  // messages per ZeroMQ or moodycamel consumer would hold up to 1 GB at four consumers.
  static constexpr uint32_t kRingDepth = 256U;
  static constexpr uint32_t kCapacity = static_cast<uint32_t>(
      mccc::PriorityAdmission<kRingDepth>::LimitFor(mccc::MessagePriority::kMedium));
  // The pool is shared by the consumers: a block returns when the slowest consumer is done with
  // it. Sized so that it never refuses a loan before a consumer's ring refuses the message (all
  // rings full of different messages, the producer's own loan, slack), so that mccc loses copies
  // where the peers do, per consumer, and a slow consumer never costs the others their copy.
  static constexpr uint32_t kPoolBlocks = 1088U;
  static_assert(mccc::LoanAdmission<kPoolBlocks>::kMediumLimit >=
                    static_cast<uint32_t>(kMaxConsumers) * kCapacity + 16U,
                "the shared pool must outlast every consumer's ring at MEDIUM");
};

// ---------------------------------------------------------------------------------------------
// The consumer side, the same for every contender
// ---------------------------------------------------------------------------------------------

/// @brief One consumer's record: counts, checks order (strictly increasing: losses allowed,
/// duplicates and reordering not) and content, and optionally stamps latency or burns time.
/// Written only by its consumer thread; read by the main thread after the join.
struct alignas(64) ConsumerSink {
  uint64_t counted_from = 0U;      ///< Messages with a lower seq are warm-up: checked, not counted.
  uint64_t next_seq = 0U;          ///< The lowest seq the next message may carry.
  uint64_t received = 0U;          ///< Counted messages received.
  uint64_t errors = 0U;            ///< Reordered, duplicated or torn messages.
  uint64_t last_delivery_ns = 0U;  ///< NowNs() after the last poll that delivered something.
  uint64_t* latency_ticks = nullptr;  ///< Latency runs: publish -> callback, per counted message.
  std::size_t latency_capacity = 0U;
  std::size_t latency_count = 0U;
  uint64_t busy_ticks = 0U;                    ///< The slow consumer: time its callback takes.
  const std::atomic<bool>* abandon = nullptr;  ///< Set at the end: the slow callback stops burning.

  void On(const Small& message) {
    Deliver(message.seq, message.stamp, message.check == message.seq);
  }
  void On(const Frame& frame) {
    const auto expected = static_cast<unsigned char>(frame.seq & 0xFFU);
    Deliver(frame.seq, frame.stamp,
            frame.bulk[0] == expected && frame.bulk[sizeof(frame.bulk) / 2U] == expected &&
                frame.bulk[sizeof(frame.bulk) - 1U] == expected);
  }

 private:
  void Deliver(uint64_t seq, uint64_t stamp, bool intact) {
    // First thing in the callback: the latency ends where the consumer starts on the message.
    const uint64_t now = latency_ticks != nullptr ? Ticks::Read() : 0U;
    if (abandon != nullptr && abandon->load(std::memory_order_relaxed)) {
      // The run is over: what the slow consumer meets now it would not have reached in time
      // (a poll may hand it a batch of hundreds), so it is neither checked nor counted.
      // relaxed: the flag only ends the count; nothing is read through it.
      return;
    }
    errors += (seq < next_seq || !intact) ? 1U : 0U;
    next_seq = seq + 1U;
    if (seq >= counted_from) {
      ++received;
      if (latency_ticks != nullptr && latency_count < latency_capacity) {
        latency_ticks[latency_count++] = now > stamp ? now - stamp : 0U;
      }
    }
    if (busy_ticks != 0U) {
      Burn();
    }
  }

  /// The slow consumer's callback: busy for busy_ticks (a logger compressing, say), unless the
  /// run is over, so that its backlog does not hold the run up.
  void Burn() const {
    const uint64_t start = Ticks::Read();
    while (Ticks::Read() - start < busy_ticks) {
      if (abandon != nullptr && abandon->load(std::memory_order_relaxed)) {
        return;  // relaxed: only ends the burning early; nothing is read after it
      }
      CpuRelax();
    }
  }
};

/// What one publish call lost: copies that no consumer queue took (seen by the producer only
/// for mccc and moodycamel; ZeroMQ and iceoryx drop inside the library, and the consumers'
/// counts tell it), and whether the pool refused the message outright.
struct PublishCount {
  uint32_t lost_copies = 0U;
  bool pool_refused = false;
};

constexpr uint32_t kSender = 1U;
/// Messages a peer's consumer takes per poll at most (moodycamel's bulk dequeue, the ZeroMQ and
/// iceoryx loops); mccc's ProcessBatch takes up to its kBatchSize (1,024 by default).
constexpr std::size_t kPollBatch = 256U;
/// Empty polls in a row before a consumer yields its core (see IdleWait).
constexpr uint32_t kSpinsBeforeYield = 64U;

/// @brief How every contender's consumer waits when a poll finds nothing: a pause, and after
/// kSpinsBeforeYield empty polls in a row a yield, so that on a machine with fewer cores than
/// threads a spinning consumer hands its core to the producer or another consumer instead of
/// burning the rest of its time slice. The same for all contenders, so none gains by it.
inline void IdleWait(uint32_t& empty_polls) {
  if (++empty_polls % kSpinsBeforeYield == 0U) {
    std::this_thread::yield();
  } else {
    CpuRelax();
  }
}

/// @brief The core consumer `consumer` runs on: 1, 2, ... wrapping around the machine's cores
/// (on 2 cores consumers 0 and 2 share core 1 and consumers 1 and 3 share the producer's core 0).
inline int ConsumerCore(int consumer) {
  return (1 + consumer) % CoreCount();
}

/// @brief True when `threads` busy threads need more cores than the machine has.
inline bool ExceedsCores(int threads) {
  return threads > CoreCount();
}

/// @brief CPU time of the calling thread (ns): what the producer spent, not the time it waited
/// for a core.
inline uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000U + static_cast<uint64_t>(ts.tv_nsec);
}

// ---------------------------------------------------------------------------------------------
// Transports. Shape: Transport(consumers, sinks) does all set-up (untimed); Ready() / Why();
// Publish(seq, stamp) fills one message and publishes it once, on the producer thread;
// Poll(consumer) delivers what is ready to sinks[consumer], on that consumer's thread, and
// returns how many; Valid() after the run (everything returned where the library can tell).
// ---------------------------------------------------------------------------------------------

/// The 24-byte rows' consumer bus: the default bus with a ring of 4,096 slots.
struct SmallTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = SizeClass<Small>::kRingDepth;
};
/// The 64 KB rows' consumer bus: a ring of references and the shared pool (the domain holds it
/// once for all its consumers).
struct FrameTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kQueueDepth = SizeClass<Frame>::kRingDepth;
  using LoanPools = mccc::LoanPools<mccc::PoolOf<Frame, SizeClass<Frame>::kPoolBlocks>>;
};

template <typename Msg>
struct MccConfig;
template <>
struct MccConfig<Small> {
  using Payload = std::variant<Small>;
  using Traits = SmallTraits;
};
template <>
struct MccConfig<Frame> {
  using Payload = std::variant<mccc::Loaned<Frame>>;
  using Traits = FrameTraits;
};

/// Domain<Payload, Traits, Traits, ...> with kConsumers copies of Traits.
template <typename Payload, typename Traits, typename Indices>
struct RepeatedDomain;
template <typename Payload, typename Traits, std::size_t... kIndex>
struct RepeatedDomain<Payload, Traits, std::index_sequence<kIndex...>> {
  template <std::size_t>
  using Same = Traits;
  using Type = mccc::Domain<Payload, Same<kIndex>...>;
};

/// @brief mccc::Domain with kConsumers consumers, each subscribed to Msg and spun on its
/// ProcessBatch by its own thread.
template <typename Msg, int kConsumers>
class MccTransport {
  using Config = MccConfig<Msg>;
  using Domain =
      typename RepeatedDomain<typename Config::Payload, typename Config::Traits,
                              std::make_index_sequence<static_cast<std::size_t>(kConsumers)>>::Type;
  static constexpr bool kLoaned = std::is_same_v<Msg, Frame>;

 public:
  static constexpr bool kProducerSeesRefusals = true;

  MccTransport(int consumers, ConsumerSink* sinks) : domain_(std::make_unique<Domain>()) {
    ready_ = consumers == kConsumers &&
             Attach(sinks, std::make_index_sequence<static_cast<std::size_t>(kConsumers)>{});
    if constexpr (kLoaned) {
      PrefaultPool();
    }
  }

  bool Ready() const { return ready_; }
  std::string Why() const { return ready_ ? "" : "a subscription failed"; }

  MCCC_ALWAYS_INLINE PublishCount Publish(uint64_t seq, bool stamp) {
    PublishCount count;
    if constexpr (kLoaned) {
      mccc::MessageLoan<Frame> loan = domain_->template Loan<Frame>(kPriority);
      if (!loan) {
        // Counted as lost for every consumer and not retried, as a refused publish is.
        count.lost_copies = static_cast<uint32_t>(kConsumers);
        count.pool_refused = true;
        return count;
      }
      Fill(*loan, seq, stamp);  // in place, in the block every consumer will read
      count.lost_copies = domain_->Publish(std::move(loan), kSender).RefusedCount();
    } else {
      Small message;
      Fill(message, seq, stamp);
      count.lost_copies = domain_->Publish(message, kSender).RefusedCount();
    }
    return count;
  }

  MCCC_ALWAYS_INLINE std::size_t Poll(int consumer) {
    return pollers_[static_cast<std::size_t>(consumer)](*domain_);
  }

  /// Loans: every block back in the pool once every consumer has dispatched what it holds.
  bool Valid() const {
    if constexpr (kLoaned) {
      return domain_->template GetLoanStatistics<Frame>().in_use == 0U;
    } else {
      return true;
    }
  }

 private:
  static constexpr mccc::MessagePriority kPriority = mccc::MessagePriority::kMedium;
  using Poller = std::size_t (*)(Domain&);

  template <std::size_t kIndex>
  static std::size_t PollOne(Domain& domain) {
    return domain.template Consumer<kIndex>().ProcessBatch();
  }

  template <std::size_t... kIndex>
  bool Attach(ConsumerSink* sinks, std::index_sequence<kIndex...> /*consumers*/) {
    pollers_ = {{&PollOne<kIndex>...}};
    bool all = true;
    static_cast<void>(
        ((all = domain_->template Consumer<kIndex>()
                    .template Subscribe<Msg>(
                        [sink = &sinks[kIndex]](const Msg& message) { sink->On(message); })
                    .IsValid() &&
                all),
         ...));
    return all;
  }

  /// Touches every block once (untimed): a pool is allocated once, at start-up, and keeps its
  /// pages, so a long-running program never pays their first-touch faults while publishing.
  void PrefaultPool() {
    std::vector<mccc::MessageLoan<Frame>> held;
    held.reserve(SizeClass<Frame>::kPoolBlocks);
    for (uint32_t i = 0U; i < SizeClass<Frame>::kPoolBlocks; ++i) {
      mccc::MessageLoan<Frame> loan = domain_->template Loan<Frame>(mccc::MessagePriority::kHigh);
      if (!loan) {
        break;
      }
      Fill(*loan, i, false);
      held.push_back(std::move(loan));
    }
    held.clear();
    domain_->ResetLoanStatistics();
  }

  std::unique_ptr<Domain> domain_;  // heap: the rings and the 64 KB pool are members
  std::array<Poller, static_cast<std::size_t>(kConsumers)> pollers_{};
  bool ready_ = false;
};

#if MCCC_BENCH_HAVE_ZMQ
/// @brief ZeroMQ inproc: one XPUB socket, N SUB sockets. PUB semantics: a subscriber whose pipe
/// is at its high-water mark loses the message (the publisher never blocks, never learns of it).
template <typename Msg>
class ZmqTransport {
 public:
  static constexpr bool kProducerSeesRefusals = false;

  ZmqTransport(int consumers, ConsumerSink* sinks)
      // No I/O threads: inproc needs none, and each would be one more thread on the cores.
      : context_(0), publisher_(context_, zmq::socket_type::xpub), sinks_(sinks) {
    try {
      // For inproc, libzmq makes a pipe's limit the binder's send HWM plus the connector's
      // receive HWM: half each gives every subscriber mccc's room (libzmq's count of what the
      // reader has taken lags by up to half the limit, so its room is approximate).
      const int room = static_cast<int>(SizeClass<Msg>::kCapacity);
      publisher_.set(zmq::sockopt::linger, 0);
      publisher_.set(zmq::sockopt::sndhwm, room - room / 2);
      // Every subscription reaches the XPUB's recv, duplicates included: the set-up waits for
      // all of them, so that no SUB joins late and misses the first messages.
      publisher_.set(zmq::sockopt::xpub_verbose, true);
      publisher_.set(zmq::sockopt::rcvtimeo, kSetupTimeoutMs);
      publisher_.bind(kEndpoint);
      for (int i = 0; i < consumers; ++i) {
        subscribers_.emplace_back(context_, zmq::socket_type::sub);
        zmq::socket_t& subscriber = subscribers_.back();
        subscriber.set(zmq::sockopt::linger, 0);
        subscriber.set(zmq::sockopt::rcvhwm, room / 2);
        subscriber.connect(kEndpoint);
        subscriber.set(zmq::sockopt::subscribe, "");
      }
      received_.resize(static_cast<std::size_t>(consumers));
      for (int i = 0; i < consumers; ++i) {
        zmq::message_t subscription;
        if (!publisher_.recv(subscription)) {
          why_ = "a subscription did not reach the XPUB socket in time";
          return;
        }
      }
      ready_ = true;
    } catch (const zmq::error_t& e) {
      why_ = std::string("ZeroMQ: ") + e.what();
    }
  }

  bool Ready() const { return ready_; }
  std::string Why() const { return why_; }

  MCCC_ALWAYS_INLINE PublishCount Publish(uint64_t seq, bool stamp) {
    if constexpr (std::is_same_v<Msg, Small>) {
      Small message;
      Fill(message, seq, stamp);
      zmq::message_t out(&message, sizeof(message));  // libzmq keeps it inline, copies per pipe
      static_cast<void>(publisher_.send(out, zmq::send_flags::dontwait));
    } else {
      zmq::message_t out(sizeof(Frame));  // one allocation, shared by every subscriber's pipe
      void* data = out.data();
      if ((reinterpret_cast<std::uintptr_t>(data) % alignof(Frame)) != 0U) {
        misaligned_ = true;  // never seen; would make the Frame below undefined
        return PublishCount{};
      }
      Frame* frame = ::new (data) Frame;
      Fill(*frame, seq, stamp);  // in place, in the message's own buffer
      static_cast<void>(publisher_.send(out, zmq::send_flags::dontwait));
    }
    return PublishCount{};
  }

  MCCC_ALWAYS_INLINE std::size_t Poll(int consumer) {
    const auto index = static_cast<std::size_t>(consumer);
    zmq::socket_t& subscriber = subscribers_[index];
    zmq::message_t& message = received_[index];
    std::size_t n = 0U;
    while (n < kPollBatch && subscriber.recv(message, zmq::recv_flags::dontwait)) {
      if (message.size() != sizeof(Msg)) {
        ++sinks_[index].errors;
      } else if constexpr (std::is_same_v<Msg, Small>) {
        // A small message's bytes lie inside the zmq_msg_t, with no alignment promised.
        Small copy;
        std::memcpy(&copy, message.data(), sizeof(copy));
        sinks_[index].On(copy);
      } else {
        sinks_[index].On(*static_cast<const Frame*>(message.data()));
      }
      message.rebuild();  // drops this subscriber's reference now, as the others' queues do
      ++n;
    }
    return n;
  }

  bool Valid() const { return !misaligned_; }

 private:
  static constexpr const char* kEndpoint = "inproc://mccc-fan-out";
  static constexpr int kSetupTimeoutMs = 2000;

  zmq::context_t context_;  // declared first: destroyed after every socket
  zmq::socket_t publisher_;
  std::vector<zmq::socket_t> subscribers_;
  std::vector<zmq::message_t> received_;
  ConsumerSink* sinks_;
  bool ready_ = false;
  bool misaligned_ = false;
  std::string why_;
};
#endif

#if MCCC_BENCH_HAVE_MOODYCAMEL
/// @brief One moodycamel::ConcurrentQueue<std::shared_ptr<Msg>> per consumer: make_shared once
/// per publish, the pointer enqueued into each consumer's queue; the last consumer to drop its
/// pointer frees the message. try_enqueue with a producer token never allocates: a queue with no
/// preallocated room left refuses, and that copy is lost.
template <typename Msg>
class MoodycamelTransport {
  using Queue = moodycamel::ConcurrentQueue<std::shared_ptr<Msg>>;

 public:
  static constexpr bool kProducerSeesRefusals = true;

  MoodycamelTransport(int consumers, ConsumerSink* sinks) : sinks_(sinks) {
    for (int i = 0; i < consumers; ++i) {
      // Room for mccc's admitted count (moodycamel rounds it up to whole blocks of 32), one
      // explicit producer, no implicit ones.
      queues_.push_back(std::make_unique<Queue>(SizeClass<Msg>::kCapacity, 1U, 0U));
      producer_tokens_.push_back(std::make_unique<moodycamel::ProducerToken>(*queues_.back()));
      consumer_tokens_.push_back(std::make_unique<moodycamel::ConsumerToken>(*queues_.back()));
      buffers_.push_back(std::make_unique<std::shared_ptr<Msg>[]>(kPollBatch));
    }
  }

  bool Ready() const { return !queues_.empty(); }
  std::string Why() const { return "no consumer"; }

  MCCC_ALWAYS_INLINE PublishCount Publish(uint64_t seq, bool stamp) {
    std::shared_ptr<Msg> message = std::make_shared<Msg>();
    Fill(*message, seq, stamp);
    PublishCount count;
    const std::size_t last = queues_.size() - 1U;
    for (std::size_t i = 0U; i < last; ++i) {
      if (!queues_[i]->try_enqueue(*producer_tokens_[i], message)) {
        ++count.lost_copies;
      }
    }
    // The last queue takes the producer's own reference: one atomic increment fewer.
    if (!queues_[last]->try_enqueue(*producer_tokens_[last], std::move(message))) {
      ++count.lost_copies;
    }
    return count;
  }

  MCCC_ALWAYS_INLINE std::size_t Poll(int consumer) {
    const auto index = static_cast<std::size_t>(consumer);
    std::shared_ptr<Msg>* buffer = buffers_[index].get();
    const std::size_t n =
        queues_[index]->try_dequeue_bulk(*consumer_tokens_[index], buffer, kPollBatch);
    for (std::size_t k = 0U; k < n; ++k) {
      sinks_[index].On(*buffer[k]);
      buffer[k].reset();
    }
    return n;
  }

  bool Valid() const { return true; }

 private:
  std::vector<std::unique_ptr<Queue>> queues_;
  std::vector<std::unique_ptr<moodycamel::ProducerToken>> producer_tokens_;
  std::vector<std::unique_ptr<moodycamel::ConsumerToken>> consumer_tokens_;
  std::vector<std::unique_ptr<std::shared_ptr<Msg>[]>> buffers_;
  ConsumerSink* sinks_;
};
#endif

#if MCCC_BENCH_HAVE_ICEORYX
/// True once RouDi is up and this process is registered with it (StartIceoryx).
bool g_iceoryx_up = false;
/// Why iceoryx is not run, when it is not.
std::string g_iceoryx_why = "not started";

/// iceoryx's subscriber queue: mccc's admitted count, or the build's maximum if lower (256 in
/// Debian's build, below the 24-byte rows' 3,277: those iceoryx rows get less room).
template <typename Msg>
constexpr uint64_t IceoryxQueueCapacity() {
  return std::min<uint64_t>(SizeClass<Msg>::kCapacity, iox::MAX_SUBSCRIBER_QUEUE_CAPACITY);
}

/// @brief iceoryx 1:n: one Publisher, N Subscribers. Both overflow policies are "discard the
/// oldest": the publisher never waits, and a subscriber whose queue is full loses its oldest
/// sample (the consumers' counts tell it). A loan refused because the mempool is exhausted is
/// counted as lost for every consumer and not retried, as for mccc.
template <typename Msg>
class IceoryxTransport {
 public:
  static constexpr bool kProducerSeesRefusals = false;

  IceoryxTransport(int consumers, ConsumerSink* sinks) : sinks_(sinks) {
    if (!g_iceoryx_up) {
      why_ = g_iceoryx_why;
      return;
    }
    // A service of its own per run: a port of an earlier run that RouDi has not yet removed
    // can never connect to this one.
    static uint64_t runs = 0U;
    const std::string event = "run" + std::to_string(++runs);
    const iox::capro::ServiceDescription service(
        iox::capro::IdString_t("mccc"), iox::capro::IdString_t("fan_out"),
        iox::capro::IdString_t(iox::cxx::TruncateToCapacity, event.c_str()));
    iox::popo::PublisherOptions publisher_options;
    publisher_options.historyCapacity = 0U;
    publisher_options.subscriberTooSlowPolicy =
        iox::popo::ConsumerTooSlowPolicy::DISCARD_OLDEST_DATA;
    publisher_ = std::make_unique<iox::popo::Publisher<Msg>>(service, publisher_options);
    iox::popo::SubscriberOptions subscriber_options;
    subscriber_options.queueCapacity = IceoryxQueueCapacity<Msg>();
    subscriber_options.queueFullPolicy = iox::popo::QueueFullPolicy::DISCARD_OLDEST_DATA;
    for (int i = 0; i < consumers; ++i) {
      subscribers_.push_back(
          std::make_unique<iox::popo::Subscriber<Msg>>(service, subscriber_options));
    }
    // Connections are made by RouDi: wait until every subscriber is connected.
    const uint64_t deadline = NowNs() + kSetupTimeoutNs;
    while (!AllSubscribed()) {
      if (NowNs() > deadline) {
        why_ = "a subscriber was not connected within 5 s";
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ready_ = true;
  }

  bool Ready() const { return ready_; }
  std::string Why() const { return why_; }

  MCCC_ALWAYS_INLINE PublishCount Publish(uint64_t seq, bool stamp) {
    auto loaned = publisher_->loan();
    if (loaned.has_error()) {
      PublishCount count;
      count.lost_copies = static_cast<uint32_t>(subscribers_.size());
      count.pool_refused = true;
      return count;
    }
    auto& sample = loaned.value();
    Fill(*sample.get(), seq, stamp);  // in place, in the shared-memory chunk
    sample.publish();
    return PublishCount{};
  }

  MCCC_ALWAYS_INLINE std::size_t Poll(int consumer) {
    const auto index = static_cast<std::size_t>(consumer);
    iox::popo::Subscriber<Msg>& subscriber = *subscribers_[index];
    std::size_t n = 0U;
    while (n < kPollBatch) {
      auto taken = subscriber.take();
      if (taken.has_error()) {
        break;
      }
      sinks_[index].On(*taken.value().get());
      ++n;  // the sample returns its chunk when `taken` goes
    }
    return n;
  }

  bool Valid() const { return true; }

 private:
  static constexpr uint64_t kSetupTimeoutNs = 5000000000U;

  bool AllSubscribed() const {
    for (const auto& subscriber : subscribers_) {
      if (subscriber->getSubscriptionState() != iox::SubscribeState::SUBSCRIBED) {
        return false;
      }
    }
    return true;
  }

  std::unique_ptr<iox::popo::Publisher<Msg>> publisher_;
  std::vector<std::unique_ptr<iox::popo::Subscriber<Msg>>> subscribers_;
  ConsumerSink* sinks_;
  bool ready_ = false;
  std::string why_;
};

// ---------------------------------------------------------------------------------------------
// RouDi: started by the benchmark, stopped after it
// ---------------------------------------------------------------------------------------------

/// Chunks of each mempool: every subscriber's full queue plus the one it is reading, the
/// publisher's loans in flight (iceoryx allows 8), and slack.
constexpr uint64_t IceoryxChunks(uint64_t queue) {
  return static_cast<uint64_t>(kMaxConsumers) * (queue + 1U) + 8U + 64U;
}

std::string FindOnPath(const char* name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

/// The watcher process: starts RouDi, then waits until the benchmark has exited (the pipe's
/// write end closes with it, whatever way it ends) and only then stops RouDi. RouDi's shutdown
/// sends SIGTERM to every application still registered, and iceoryx 2.0 has no call that
/// unregisters a runtime before exit: stopping it from the benchmark would kill the benchmark.
/// Forked before any thread exists; calls only async-signal-safe functions.
[[noreturn]] void WatchRouDi(int read_end, int write_end, char* const* argv, const char* log,
                             const char* config, const char* dir) {
  close(write_end);
  const int log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (log_fd >= 0) {
    // RouDi's output and the watcher's go to the log, never to the benchmark's output pipe,
    // which a test runner reads until every writer has closed it.
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    close(log_fd);
  }
  const pid_t roudi = fork();
  if (roudi == 0) {
    execv(argv[0], argv);
    _exit(127);
  }
  bool running = roudi > 0;
  for (;;) {
    pollfd end{read_end, POLLIN, 0};
    const int ready = poll(&end, 1, 100);
    if (ready > 0) {
      char byte = 0;
      if (read(read_end, &byte, 1U) <= 0) {
        break;  // end of file: the benchmark has exited
      }
    } else if (ready < 0 && errno != EINTR) {
      break;
    }
    int status = 0;
    if (running && waitpid(roudi, &status, WNOHANG) == roudi) {
      running = false;
      static const char kExited[] = "\nmccc: iox-roudi exited\n";
      const ssize_t written = write(STDOUT_FILENO, kExited, sizeof(kExited) - 1U);
      static_cast<void>(written);  // the log is only read by the benchmark, best effort
    }
  }
  if (running) {
    kill(roudi, SIGTERM);
    const timespec tick{0, 10000000};  // 10 ms
    for (int i = 0; i < 1000 && running; ++i) {
      int status = 0;
      running = waitpid(roudi, &status, WNOHANG) != roudi;
      if (running) {
        nanosleep(&tick, nullptr);
      }
    }
    if (running) {
      kill(roudi, SIGKILL);
      waitpid(roudi, nullptr, 0);
    }
  }
  unlink(config);
  unlink(log);
  rmdir(dir);
  _exit(0);
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// @brief `text` on one line, without the colour escapes ("ESC [ ... m") iceoryx logs with.
std::string Printable(const std::string& text) {
  std::string out;
  bool in_escape = false;
  for (char ch : text) {
    if (in_escape) {
      in_escape = ch != 'm';
    } else if (ch == '\x1b') {
      in_escape = true;
    } else {
      out += static_cast<unsigned char>(ch) < 0x20U ? ' ' : ch;
    }
  }
  return out;
}

/// @brief Starts RouDi (through the watcher), waits until it is ready and registers this
/// process. Sets g_iceoryx_up, or g_iceoryx_why. Call before any thread is started.
void StartIceoryx(const std::string& requested) {
  std::string binary = requested;
  if (binary.empty() && std::strlen(MCCC_BENCH_IOX_ROUDI) != 0U &&
      access(MCCC_BENCH_IOX_ROUDI, X_OK) == 0) {
    binary = MCCC_BENCH_IOX_ROUDI;
  }
  if (binary.empty()) {
    binary = FindOnPath("iox-roudi");
  }
  if (binary.empty() || access(binary.c_str(), X_OK) != 0) {
    g_iceoryx_why = "iox-roudi not found (Debian package iceoryx, or --roudi PATH)";
    return;
  }
  char dir_template[] = "/tmp/mccc-fan-out-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    g_iceoryx_why = "cannot create a directory in /tmp for RouDi's configuration";
    return;
  }
  const std::string dir = dir_template;
  const std::string config = dir + "/roudi.toml";
  const std::string log = dir + "/roudi.log";
  {
    // One segment, a mempool per message size (chunk payload sizes; RouDi adds the headers).
    std::ofstream out(config);
    out << "[general]\nversion = 1\n\n[[segment]]\n\n";
    out << "[[segment.mempool]]\nsize = 32\ncount = "
        << IceoryxChunks(IceoryxQueueCapacity<Small>()) << "\n\n";
    out << "[[segment.mempool]]\nsize = " << sizeof(Frame)
        << "\ncount = " << IceoryxChunks(IceoryxQueueCapacity<Frame>()) << "\n";
  }
  // -m off: no keep-alive monitoring, so that a benchmark thread starved of its core on an
  // oversubscribed row is never taken for a dead application.
  std::vector<std::string> args = {binary, "-m", "off", "-c", config};
  std::vector<char*> argv;
  for (std::string& a : args) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  int fds[2] = {-1, -1};
  if (pipe2(fds, O_CLOEXEC) != 0) {
    g_iceoryx_why = "pipe2 failed";
    return;
  }
  std::fflush(stdout);
  const pid_t watcher = fork();
  if (watcher < 0) {
    g_iceoryx_why = "fork failed";
    return;
  }
  if (watcher == 0) {
    WatchRouDi(fds[0], fds[1], argv.data(), log.c_str(), config.c_str(), dir.c_str());
  }
  close(fds[0]);
  // fds[1] stays open until this process exits: its closing is the watcher's signal.
  const uint64_t deadline = NowNs() + 10000000000U;
  for (;;) {
    const std::string text = ReadWhole(log);
    if (text.find("RouDi is ready for clients") != std::string::npos) {
      break;
    }
    if (text.find("mccc: iox-roudi exited") != std::string::npos || NowNs() > deadline) {
      const std::string tail =
          Printable(text.size() > 600U ? text.substr(text.size() - 600U) : text);
      g_iceoryx_why = "iox-roudi did not come up (another RouDi running?): " + tail;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Debian's build logs this process's registration at debug level, on stderr.
  iox::log::LogManager::GetLogManager().SetDefaultLogLevel(iox::log::LogLevel::kWarn,
                                                           iox::log::LogLevelOutput::kHideLogLevel);
  const std::string name = "mccc_fan_out_" + std::to_string(getpid());
  iox::runtime::PoshRuntime::initRuntime(
      iox::RuntimeName_t(iox::cxx::TruncateToCapacity, name.c_str()));
  g_iceoryx_up = true;
  g_iceoryx_why.clear();
}
#endif

// ---------------------------------------------------------------------------------------------
// Runners
// ---------------------------------------------------------------------------------------------

/// @brief What one fan-out run measured.
struct FanOutOutcome {
  std::vector<double> consumer_rates;  ///< Counted messages / second, per consumer.
  double producer_wall_ns = 0.0;       ///< Producer wall time per publish call.
  double producer_cpu_ns = 0.0;        ///< Producer thread CPU time per publish call.
  double delivered = 0.0;              ///< Copies delivered / copies published (all consumers).
  uint64_t refused_copies = 0U;        ///< Copies the producer saw refused (mccc, moodycamel).
  uint64_t pool_refusals = 0U;         ///< Publishes whose loan the pool refused.
  bool valid = false;
  std::string note;
};

/// @brief Consumer `consumer` polls until `flag` was set before a poll that found nothing: the
/// producer sets it after its last publish returned, so that poll saw everything it sent.
template <typename Transport>
void DrainUntil(Transport& transport, int consumer, const std::atomic<bool>& flag,
                ConsumerSink& sink) {
  uint32_t empty_polls = 0U;
  for (;;) {
    // acquire: pairs with the producer's release store after its last publish.
    const bool last = flag.load(std::memory_order_acquire);
    if (transport.Poll(consumer) != 0U) {
      sink.last_delivery_ns = NowNs();
      empty_polls = 0U;
      continue;
    }
    if (last) {
      return;
    }
    IdleWait(empty_polls);
  }
}

void WaitFor(const std::atomic<bool>& flag) {
  uint32_t spins = 0U;
  // acquire: pairs with the release store that sets it; what was written before is visible.
  while (!flag.load(std::memory_order_acquire)) {
    IdleWait(spins);
  }
}

/// After the last message (untimed): a bus may finish work on an empty poll (returning loaned
/// blocks); the end-of-run checks see the state after it.
template <typename Transport>
void IdlePolls(Transport& transport, int consumer) {
  for (int i = 0; i < 16; ++i) {
    static_cast<void>(transport.Poll(consumer));
  }
}

/// @brief 1 producer -> `consumers` consumers: `warmup` messages (untimed; every consumer
/// drains them), then `messages` publishes as fast as the producer can make them.
template <typename Transport>
FanOutOutcome RunFanOut(int consumers, uint64_t warmup, uint64_t messages, bool* pinned) {
  FanOutOutcome out;
  std::vector<ConsumerSink> sinks(static_cast<std::size_t>(consumers));
  for (ConsumerSink& sink : sinks) {
    sink.counted_from = warmup;
  }
  auto transport = std::make_unique<Transport>(consumers, sinks.data());
  if (!transport->Ready()) {
    out.note = transport->Why();
    return out;
  }
  std::atomic<int> ready{0};
  std::atomic<bool> warm_done{false};
  std::atomic<int> drained{0};
  std::atomic<bool> go{false};
  std::atomic<bool> done{false};
  std::atomic<bool> all_pinned{true};
  uint64_t start_ns = 0U;  // written before `go` is released, read after it
  uint64_t wall_ns = 0U;
  uint64_t cpu_ns = 0U;
  uint64_t producer_end_ns = 0U;
  uint64_t lost_copies = 0U;
  uint64_t pool_refusals = 0U;

  std::vector<std::thread> threads;
  for (int i = 0; i < consumers; ++i) {
    threads.emplace_back([&, i]() {
      if (!PinThisThread(ConsumerCore(i))) {
        all_pinned.store(false);
      }
      ready.fetch_add(1);
      ConsumerSink& sink = sinks[static_cast<std::size_t>(i)];
      DrainUntil(*transport, i, warm_done, sink);
      drained.fetch_add(1);
      WaitFor(go);
      DrainUntil(*transport, i, done, sink);
      IdlePolls(*transport, i);
    });
  }
  threads.emplace_back([&]() {
    if (!PinThisThread(kProducerCore)) {
      all_pinned.store(false);
    }
    ready.fetch_add(1);
    uint32_t spins = 0U;
    while (ready.load() < consumers + 1) {
      IdleWait(spins);
    }
    for (uint64_t seq = 0U; seq < warmup; ++seq) {
      static_cast<void>(transport->Publish(seq, false));
    }
    // release: pairs with the consumers' acquire in DrainUntil.
    warm_done.store(true, std::memory_order_release);
    WaitFor(go);
    const uint64_t wall0 = NowNs();
    const uint64_t cpu0 = ThreadCpuNs();
    for (uint64_t seq = warmup; seq < warmup + messages; ++seq) {
      const PublishCount count = transport->Publish(seq, false);
      lost_copies += count.lost_copies;
      pool_refusals += count.pool_refused ? 1U : 0U;
    }
    cpu_ns = ThreadCpuNs() - cpu0;
    producer_end_ns = NowNs();
    wall_ns = producer_end_ns - wall0;
    done.store(true, std::memory_order_release);  // pairs with DrainUntil's acquire
  });
  uint32_t spins = 0U;
  while (drained.load() < consumers) {
    IdleWait(spins);
  }
  start_ns = NowNs();
  go.store(true, std::memory_order_release);  // publishes start_ns to the consumers' reads
  for (std::thread& t : threads) {
    t.join();
  }
  if (pinned != nullptr && !all_pinned.load()) {
    *pinned = false;
  }

  const auto n = static_cast<double>(messages);
  out.producer_wall_ns = static_cast<double>(wall_ns) / n;
  out.producer_cpu_ns = static_cast<double>(cpu_ns) / n;
  out.refused_copies = lost_copies;
  out.pool_refusals = pool_refusals;
  uint64_t received = 0U;
  uint64_t errors = 0U;
  for (const ConsumerSink& sink : sinks) {
    received += sink.received;
    errors += sink.errors;
    // The window runs to the consumer's last delivery, or to the producer's last publish when
    // later: a consumer that lost the last messages was not idle by choice.
    const uint64_t end_ns = std::max(sink.last_delivery_ns, producer_end_ns);
    const double seconds = static_cast<double>(end_ns - start_ns) * 1e-9;
    out.consumer_rates.push_back(seconds > 0.0 ? static_cast<double>(sink.received) / seconds
                                               : 0.0);
  }
  const uint64_t published_copies = messages * static_cast<uint64_t>(consumers);
  out.delivered = static_cast<double>(received) / static_cast<double>(published_copies);
  // Exact accounting where the producer sees refusals: every copy is delivered or refused.
  const bool accounted =
      !Transport::kProducerSeesRefusals || received + lost_copies == published_copies;
  out.valid = errors == 0U && accounted && received <= published_copies && transport->Valid();
  if (!out.valid) {
    out.note = "errors " + std::to_string(errors) + ", delivered " + std::to_string(received) +
               " + refused " + std::to_string(lost_copies) + " of " +
               std::to_string(published_copies);
  }
  return out;
}

/// @brief What one interference run measured (the fast consumer's latency).
struct LatencyOutcome {
  double p50 = 0.0;
  double p99 = 0.0;
  double max = 0.0;
  uint64_t samples = 0U;
  double fast_delivered = 0.0;  ///< Of the stamped messages, the share the fast consumer got.
  double slow_delivered = 0.0;  ///< The same for the slow consumer (loaded runs).
  bool valid = false;
  std::string note;
};

struct LatencyPlan {
  uint64_t warmup = 200U;     ///< Paced messages before the stamped ones.
  uint64_t samples = 10000U;  ///< Stamped messages.
  uint64_t period_ns = 100000U;
  uint64_t slow_ns = 1000000U;
};

/// @brief The producer publishes a stamped 24-byte message every period; consumer 0 records
/// publish -> start of its callback. With `loaded`, consumer 1 (its own thread) takes slow_ns
/// per message in its callback, so its queue fills and then refuses (or drops) for most of the
/// run. The producer sleeps between messages, as a sensor's driver does.
template <typename Transport>
LatencyOutcome RunInterference(bool loaded, const LatencyPlan& plan, bool* pinned) {
  LatencyOutcome out;
  const int consumers = loaded ? 2 : 1;
  std::atomic<bool> done{false};
  std::vector<ConsumerSink> sinks(static_cast<std::size_t>(consumers));
  std::vector<uint64_t> ticks(plan.samples, 0U);
  sinks[0].counted_from = plan.warmup;
  sinks[0].latency_ticks = ticks.data();
  sinks[0].latency_capacity = ticks.size();
  if (loaded) {
    sinks[1].counted_from = plan.warmup;
    sinks[1].busy_ticks =
        static_cast<uint64_t>(static_cast<double>(plan.slow_ns) / Ticks::NsPerTick());
    sinks[1].abandon = &done;
  }
  auto transport = std::make_unique<Transport>(consumers, sinks.data());
  if (!transport->Ready()) {
    out.note = transport->Why();
    return out;
  }
  std::atomic<int> ready{0};
  std::atomic<bool> all_pinned{true};
  std::vector<std::thread> threads;
  for (int i = 0; i < consumers; ++i) {
    threads.emplace_back([&, i]() {
      if (!PinThisThread(ConsumerCore(i))) {
        all_pinned.store(false);
      }
      ready.fetch_add(1);
      ConsumerSink& sink = sinks[static_cast<std::size_t>(i)];
      if (i == 0) {
        DrainUntil(*transport, i, done, sink);
        IdlePolls(*transport, i);
        return;
      }
      // The slow consumer leaves its backlog when the run ends (seconds of it at 1 ms each);
      // the transport's destructor releases what it still holds.
      uint32_t empty_polls = 0U;
      while (!done.load(std::memory_order_acquire)) {
        if (transport->Poll(i) != 0U) {
          empty_polls = 0U;
        } else {
          IdleWait(empty_polls);
        }
      }
    });
  }
  threads.emplace_back([&]() {
    if (!PinThisThread(kProducerCore)) {
      all_pinned.store(false);
    }
    // The kernel's default 50 us timer slack would stretch every period by up to that much.
    static_cast<void>(prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL));
    uint32_t spins = 0U;
    while (ready.load() < consumers) {
      IdleWait(spins);
    }
    timespec next{};
    clock_gettime(CLOCK_MONOTONIC, &next);
    const uint64_t total = plan.warmup + plan.samples;
    for (uint64_t seq = 0U; seq < total; ++seq) {
      const uint64_t ns = static_cast<uint64_t>(next.tv_nsec) + plan.period_ns;
      next.tv_sec += static_cast<time_t>(ns / 1000000000U);
      next.tv_nsec = static_cast<long>(ns % 1000000000U);
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
      static_cast<void>(transport->Publish(seq, true));
    }
    done.store(true, std::memory_order_release);  // pairs with DrainUntil's acquire
  });
  for (std::thread& t : threads) {
    t.join();
  }
  if (pinned != nullptr && !all_pinned.load()) {
    *pinned = false;
  }
  const ConsumerSink& fast = sinks[0];
  std::vector<double> ns;
  ns.reserve(fast.latency_count);
  const double scale = Ticks::NsPerTick();
  for (std::size_t i = 0U; i < fast.latency_count; ++i) {
    ns.push_back(static_cast<double>(ticks[i]) * scale);
  }
  std::sort(ns.begin(), ns.end());
  out.p50 = Percentile(ns, 0.50);
  out.p99 = Percentile(ns, 0.99);
  out.max = ns.empty() ? 0.0 : ns.back();
  out.samples = ns.size();
  const auto stamped = static_cast<double>(plan.samples);
  out.fast_delivered = static_cast<double>(fast.received) / stamped;
  out.slow_delivered = loaded ? static_cast<double>(sinks[1].received) / stamped : 0.0;
  uint64_t errors = 0U;
  for (const ConsumerSink& sink : sinks) {
    errors += sink.errors;
  }
  out.valid = errors == 0U && !ns.empty();
  if (!out.valid) {
    out.note = "errors " + std::to_string(errors) + ", samples " + std::to_string(ns.size());
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Contenders
// ---------------------------------------------------------------------------------------------

struct Contender {
  std::string name;
  std::function<FanOutOutcome(std::size_t, int, uint64_t, uint64_t, bool*)> fan_out;
  std::function<LatencyOutcome(bool, const LatencyPlan&, bool*)> interference;
};

template <typename Msg>
FanOutOutcome RunMccFanOut(int consumers, uint64_t warmup, uint64_t messages, bool* pinned) {
  // A domain's consumer count is a template argument.
  switch (consumers) {
    case 1:
      return RunFanOut<MccTransport<Msg, 1>>(consumers, warmup, messages, pinned);
    case 2:
      return RunFanOut<MccTransport<Msg, 2>>(consumers, warmup, messages, pinned);
    case 3:
      return RunFanOut<MccTransport<Msg, 3>>(consumers, warmup, messages, pinned);
    default:
      return RunFanOut<MccTransport<Msg, kMaxConsumers>>(consumers, warmup, messages, pinned);
  }
}

Contender MakeMccc() {
  Contender c;
  c.name = "mccc Domain";
  c.fan_out = [](std::size_t size, int consumers, uint64_t warmup, uint64_t messages,
                 bool* pinned) {
    return size == 0U ? RunMccFanOut<Small>(consumers, warmup, messages, pinned)
                      : RunMccFanOut<Frame>(consumers, warmup, messages, pinned);
  };
  c.interference = [](bool loaded, const LatencyPlan& plan, bool* pinned) {
    return loaded ? RunInterference<MccTransport<Small, 2>>(true, plan, pinned)
                  : RunInterference<MccTransport<Small, 1>>(false, plan, pinned);
  };
  return c;
}

/// A peer whose consumer count is a run-time value.
template <template <typename> class Transport>
Contender MakePeer(const char* name) {
  Contender c;
  c.name = name;
  c.fan_out = [](std::size_t size, int consumers, uint64_t warmup, uint64_t messages,
                 bool* pinned) {
    return size == 0U ? RunFanOut<Transport<Small>>(consumers, warmup, messages, pinned)
                      : RunFanOut<Transport<Frame>>(consumers, warmup, messages, pinned);
  };
  c.interference = [](bool loaded, const LatencyPlan& plan, bool* pinned) {
    return RunInterference<Transport<Small>>(loaded, plan, pinned);
  };
  return c;
}

const char* const kIceoryxName = "iceoryx 1:n publish-subscribe";

std::vector<Contender> AllContenders() {
  std::vector<Contender> v;
  v.push_back(MakeMccc());
#if MCCC_BENCH_HAVE_ZMQ
  v.push_back(MakePeer<ZmqTransport>("ZeroMQ inproc XPUB/SUB"));
#endif
#if MCCC_BENCH_HAVE_MOODYCAMEL
  v.push_back(MakePeer<MoodycamelTransport>("moodycamel CQ per consumer, shared_ptr"));
#endif
#if MCCC_BENCH_HAVE_ICEORYX
  v.push_back(MakePeer<IceoryxTransport>(kIceoryxName));
#endif
  return v;
}

/// Peers this build left out, and why (printed, so that a missing row is never a surprise).
std::vector<std::string> MissingPeers() {
  std::vector<std::string> missing;
#if !MCCC_BENCH_HAVE_ZMQ
  missing.push_back("ZeroMQ (needs cppzmq-dev and libzmq3-dev, and MCCC_BENCH_PEERS=ON)");
#endif
#if !MCCC_BENCH_HAVE_MOODYCAMEL
  missing.push_back("moodycamel (needs libconcurrentqueue-dev, and MCCC_BENCH_PEERS=ON)");
#endif
#if !MCCC_BENCH_HAVE_ICEORYX
  missing.push_back("iceoryx (needs iceoryx and libiceoryx-posh-dev, and MCCC_BENCH_PEERS=ON)");
#endif
  return missing;
}

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

struct Config {
  int rounds = 5;
  uint64_t messages = 1000000U;      // 24 B publishes per run
  uint64_t large_messages = 20000U;  // 64 KB publishes per run
  std::vector<int> consumers = {1, 2, 4};
  std::vector<std::size_t> sizes = {0U, 1U};
  uint64_t interference_ms = 1000U;
  uint64_t period_us = 100U;
  uint64_t slow_us = 1000U;
  uint64_t pingpong = 200000U;
  std::vector<std::string> filter;
  std::string roudi;
  std::string placement_tool = MCCC_BENCH_PLACEMENT_TOOL;
  std::string json;
  std::string commit;
};

bool Parse(int argc, char** argv, Config& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    auto next_u = [&]() { return std::strtoull(next().c_str(), nullptr, 10); };
    if (a == "--rounds") {
      c.rounds = static_cast<int>(next_u());
    } else if (a == "--messages") {
      c.messages = next_u();
    } else if (a == "--large-messages") {
      c.large_messages = next_u();
    } else if (a == "--consumers") {
      c.consumers.clear();
      for (const std::string& s : SplitList(next())) {
        const int n = std::atoi(s.c_str());
        if (n < 1 || n > kMaxConsumers) {
          std::fprintf(stderr, "--consumers: %s is not 1 to %d\n", s.c_str(), kMaxConsumers);
          return false;
        }
        c.consumers.push_back(n);
      }
    } else if (a == "--sizes") {
      c.sizes.clear();
      for (const std::string& s : SplitList(next())) {
        if (s == "24") {
          c.sizes.push_back(0U);
        } else if (s == "64k" || s == "64K" || s == "65536") {
          c.sizes.push_back(1U);
        } else {
          std::fprintf(stderr, "--sizes: %s is not 24 or 64k\n", s.c_str());
          return false;
        }
      }
    } else if (a == "--interference-ms") {
      c.interference_ms = next_u();
    } else if (a == "--period-us") {
      c.period_us = next_u();
    } else if (a == "--slow-us") {
      c.slow_us = next_u();
    } else if (a == "--pingpong") {
      c.pingpong = next_u();
    } else if (a == "--filter") {
      c.filter = SplitList(next());
    } else if (a == "--roudi") {
      c.roudi = next();
    } else if (a == "--placement-tool") {
      c.placement_tool = next();
    } else if (a == "--json") {
      c.json = next();
    } else if (a == "--commit") {
      c.commit = next();
    } else if (a == "--smoke") {
      c.rounds = 2;
      c.messages = 20000U;
      c.large_messages = 400U;
      c.interference_ms = 40U;
      c.pingpong = 5000U;
    } else {
      std::fprintf(stderr, "unknown argument: %s (see the file comment of fan_out_benchmark.cpp)\n",
                   a.c_str());
      return false;
    }
  }
  return c.rounds > 0 && c.messages > 0U && c.large_messages > 0U && c.period_us > 0U;
}

/// @brief Runs the placement tool (../shared/tools/placement: the one-way handoff between CPU 0
/// and CPU 1 and whether the host placed them near or far) and returns its line.
std::string RunPlacementTool(const std::string& path) {
  if (path == "none") {
    return "not run (--placement-tool none)";
  }
  if (path.empty()) {
    return "not run (no --placement-tool PATH, and none found at configure time)";
  }
  if (access(path.c_str(), X_OK) != 0) {
    return "not run (" + path + " is not an executable)";
  }
  std::fflush(stdout);
  FILE* pipe = popen(("'" + path + "' 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    return "not run (popen failed)";
  }
  std::string text;
  char buffer[256];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) {
    text += buffer;
  }
  const int status = pclose(pipe);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
    text.pop_back();
  }
  std::replace(text.begin(), text.end(), '\n', ' ');
  return status == 0 ? text : text + " (exit status " + std::to_string(status) + ")";
}

// ---------------------------------------------------------------------------------------------
// Series and tables
// ---------------------------------------------------------------------------------------------

struct FanOutSeries {
  std::vector<double> mean_rate;     ///< Per round: the mean of the consumers' rates.
  std::vector<double> slowest_rate;  ///< Per round: the slowest consumer's rate.
  std::vector<double> wall_ns, cpu_ns, delivered;
  uint64_t refused_copies = 0U;
  uint64_t pool_refusals = 0U;
  bool valid = true;
  std::string note;

  void Add(const FanOutOutcome& o) {
    if (!o.valid) {
      valid = false;
      note = o.note;
      if (o.consumer_rates.empty()) {
        return;  // never ran (set-up failed)
      }
    }
    double sum = 0.0;
    double slowest = o.consumer_rates.empty() ? 0.0 : o.consumer_rates.front();
    for (double r : o.consumer_rates) {
      sum += r;
      slowest = std::min(slowest, r);
    }
    mean_rate.push_back(
        o.consumer_rates.empty() ? 0.0 : sum / static_cast<double>(o.consumer_rates.size()));
    slowest_rate.push_back(slowest);
    wall_ns.push_back(o.producer_wall_ns);
    cpu_ns.push_back(o.producer_cpu_ns);
    delivered.push_back(o.delivered);
    refused_copies += o.refused_copies;
    pool_refusals += o.pool_refusals;
  }
};

struct LatencySeries {
  std::vector<double> p50, p99, max, fast_delivered, slow_delivered;
  uint64_t samples = 0U;
  bool valid = true;
  std::string note;

  void Add(const LatencyOutcome& o) {
    if (!o.valid) {
      valid = false;
      note = o.note;
      if (o.samples == 0U) {
        return;
      }
    }
    p50.push_back(o.p50);
    p99.push_back(o.p99);
    max.push_back(o.max);
    fast_delivered.push_back(o.fast_delivered);
    slow_delivered.push_back(o.slow_delivered);
    samples += o.samples;
  }
};

double Ratio(double a, double b) {
  return a > 0.0 && b > 0.0 ? a / b : 0.0;
}

using FanOutKey = std::tuple<std::string, std::size_t, int>;  // contender, size, consumers
using LatencyKey = std::pair<std::string, bool>;              // contender, loaded

struct RoundRecord {
  double handoff_start_ns = 0.0;
  double handoff_end_ns = 0.0;
};

}  // namespace
}  // namespace mccc_bench

int main(int argc, char** argv) {
  using namespace mccc_bench;
  Config cfg;
  if (!Parse(argc, argv, cfg)) {
    return 2;
  }
  RunInfo info = StartRun("fan_out_benchmark", argc, argv, cfg.commit);
  std::vector<Contender> contenders;
  for (Contender& c : AllContenders()) {
    if (Selected(cfg.filter, c.name)) {
      contenders.push_back(std::move(c));
    }
  }
  if (contenders.empty()) {
    std::fprintf(stderr, "--filter selects no contender\n");
    return 2;
  }
#if MCCC_BENCH_HAVE_ICEORYX
  // Before any thread exists: RouDi's watcher is forked here.
  bool iceoryx_selected = false;
  for (const Contender& c : contenders) {
    iceoryx_selected = iceoryx_selected || c.name == kIceoryxName;
  }
  if (iceoryx_selected) {
    StartIceoryx(cfg.roudi);
    if (!g_iceoryx_up) {
      std::printf("iceoryx skipped: %s\n", g_iceoryx_why.c_str());
      contenders.erase(std::remove_if(contenders.begin(), contenders.end(),
                                      [](const Contender& c) { return c.name == kIceoryxName; }),
                       contenders.end());
    }
  }
#endif

  const std::string placement_before = RunPlacementTool(cfg.placement_tool);
  (void)Ticks::NsPerTick();
  LatencyPlan plan;
  plan.period_ns = cfg.period_us * 1000U;
  plan.slow_ns = cfg.slow_us * 1000U;
  plan.samples = std::max<uint64_t>(cfg.interference_ms * 1000U / cfg.period_us, 10U);
  plan.warmup = std::max<uint64_t>(plan.samples / 20U, 10U);

  std::printf("fan_out_benchmark: %zu contenders, %d rounds, %d cores (hardware_concurrency)\n",
              contenders.size(), cfg.rounds, CoreCount());
  for (const Contender& c : contenders) {
    std::printf("  %s\n", c.name.c_str());
  }
  for (const std::string& m : MissingPeers()) {
    std::printf("  not built: %s\n", m.c_str());
  }
  std::printf("placement tool before the run: %s\n", placement_before.c_str());
  std::printf(
      "Protocol: producer on core 0, consumer i on core (1 + i) mod %d; every consumer polls "
      "without sleeping (pause, and a yield after %u empty polls in a row). Producers publish as "
      "fast as they can: a message a consumer's queue refuses or drops is lost for that consumer, "
      "counted, never retried. Queue room per consumer, every contender: %u messages of 24 B "
      "(iceoryx: %llu, its build's maximum), %u of 64 KB (what a %u- / %u-slot mccc ring admits "
      "at MEDIUM). mccc 64 KB: a refused loan would count as lost for every consumer, no retry; "
      "the shared pool (%u blocks) is sized not to refuse before a ring does.\n",
      CoreCount(), kSpinsBeforeYield, SizeClass<Small>::kCapacity,
#if MCCC_BENCH_HAVE_ICEORYX
      static_cast<unsigned long long>(IceoryxQueueCapacity<Small>()),
#else
      static_cast<unsigned long long>(SizeClass<Small>::kCapacity),
#endif
      SizeClass<Frame>::kCapacity, SizeClass<Small>::kRingDepth, SizeClass<Frame>::kRingDepth,
      SizeClass<Frame>::kPoolBlocks);
  std::fflush(stdout);

  std::map<FanOutKey, FanOutSeries> fan_out;
  std::map<LatencyKey, LatencySeries> interference;
  std::vector<RoundRecord> rounds;
  const std::size_t n = contenders.size();
  for (int round = 0; round < cfg.rounds; ++round) {
    std::printf("round %d/%d ...\n", round + 1, cfg.rounds);
    std::fflush(stdout);
    RoundRecord record;
    record.handoff_start_ns = RunPingPong(cfg.pingpong, &info.pinned);
    // Rotate the first contender every round, so that none always runs first or last.
    const auto offset = static_cast<std::size_t>(round);
    for (std::size_t size : cfg.sizes) {
      const uint64_t messages = size == 0U ? cfg.messages : cfg.large_messages;
      const uint64_t warmup = std::max<uint64_t>(messages / 10U, 64U);
      for (int consumers : cfg.consumers) {
        for (std::size_t k = 0U; k < n; ++k) {
          const Contender& c = contenders[(k + offset) % n];
          fan_out[FanOutKey{c.name, size, consumers}].Add(
              c.fan_out(size, consumers, warmup, messages, &info.pinned));
        }
      }
    }
    if (cfg.interference_ms > 0U) {
      for (std::size_t k = 0U; k < n; ++k) {
        const Contender& c = contenders[(k + offset) % n];
        // Alone and loaded alternate which goes first, round by round.
        for (int j = 0; j < 2; ++j) {
          const bool loaded = ((j + round) % 2) == 1;
          interference[LatencyKey{c.name, loaded}].Add(c.interference(loaded, plan, &info.pinned));
        }
      }
    }
    record.handoff_end_ns = RunPingPong(cfg.pingpong, &info.pinned);
    rounds.push_back(record);
  }
  const std::string placement_after = RunPlacementTool(cfg.placement_tool);

  // -------------------------------------------------------------------------------------------
  // Tables
  // -------------------------------------------------------------------------------------------
  bool all_valid = true;
  std::vector<double> handoffs;
  std::printf(
      "\nOne-way core-to-core handoff (cache-line ping-pong, core 0 <-> 1) at each round's "
      "start / end (ns):");
  for (const RoundRecord& r : rounds) {
    handoffs.push_back(r.handoff_start_ns);
    handoffs.push_back(r.handoff_end_ns);
    std::printf(" %.0f/%.0f %s;", r.handoff_start_ns, r.handoff_end_ns,
                PlacementName(ClassifyPlacement(r.handoff_start_ns, r.handoff_end_ns)));
  }
  std::printf("\nplacement tool before the run: %s\nplacement tool after the run:  %s\n",
              placement_before.c_str(), placement_after.c_str());

  std::vector<std::string> fan_out_json;
  for (std::size_t size : cfg.sizes) {
    const uint64_t messages = size == 0U ? cfg.messages : cfg.large_messages;
    std::printf(
        "\nFan-out, %s (%s), 1 producer, %llu publishes per run after %llu warm-up, %d rounds: "
        "medians (min-max over rounds)\n",
        kSizeNames[size],
        size == 0U ? "mccc: copied into each consumer's ring; moodycamel: one make_shared, a "
                     "pointer per queue; ZeroMQ: copied per subscriber pipe; iceoryx: one chunk"
                   : "mccc: one loaned block, a reference per ring; ZeroMQ: one message shared "
                     "by reference; moodycamel: one make_shared; iceoryx: one chunk; every "
                     "contender memsets all 64 KB per publish",
        static_cast<unsigned long long>(messages),
        static_cast<unsigned long long>(std::max<uint64_t>(messages / 10U, 64U)), cfg.rounds);
    std::printf(
        "  each = messages a consumer received per second, from the start to its last delivery "
        "or the last publish, whichever is later (mean of the consumers); slowest = the slowest "
        "consumer; deliv = copies delivered / published; pub ns = producer wall time per publish "
        "call, cpu ns = its thread CPU time per call; refused = copies the producer saw refused, "
        "all rounds (ZeroMQ and iceoryx drop silently: see deliv); pool = loans refused\n");
    std::printf("  %-5s %-40s %9s %17s %9s %7s %9s %9s %9s %5s %6s\n", "cons", "contender",
                "each M/s", "(min-max)", "slowest", "deliv%", "pub ns", "cpu ns", "refused", "pool",
                "check");
    for (int consumers : cfg.consumers) {
      const bool over = ExceedsCores(consumers + 1);
      for (const Contender& c : contenders) {
        auto it = fan_out.find(FanOutKey{c.name, size, consumers});
        if (it == fan_out.end()) {
          continue;
        }
        const FanOutSeries& s = it->second;
        all_valid = all_valid && s.valid;
        if (s.mean_rate.empty()) {
          std::printf("  %-5d %-40s not run: %s\n", consumers, c.name.c_str(), s.note.c_str());
          continue;
        }
        const Summary each = Summarize(s.mean_rate);
        char range[32];
        std::snprintf(range, sizeof(range), "(%.3f-%.3f)", each.min / 1e6, each.max / 1e6);
        std::printf("  %-5s %-40s %9.3f %17s %9.3f %7.2f %9.1f %9.1f %9llu %5llu %6s%s\n",
                    (std::to_string(consumers) + (over ? "*" : "")).c_str(), c.name.c_str(),
                    each.median / 1e6, range, Median(s.slowest_rate) / 1e6,
                    100.0 * Median(s.delivered), Median(s.wall_ns), Median(s.cpu_ns),
                    static_cast<unsigned long long>(s.refused_copies),
                    static_cast<unsigned long long>(s.pool_refusals), s.valid ? "ok" : "FAIL",
                    s.valid ? "" : (" " + s.note).c_str());
        JsonObject o;
        o.Str("contender", c.name).Str("size", kSizeNames[size]);
        o.Int("payload_bytes", size == 0U ? sizeof(Small) : sizeof(Frame));
        o.Int("consumers", static_cast<uint64_t>(consumers));
        o.Int("threads", static_cast<uint64_t>(consumers + 1)).Bool("oversubscribed", over);
        o.Int("publishes_per_run", messages);
        o.Sum("per_consumer_msgs_per_sec", each);
        o.Sum("slowest_consumer_msgs_per_sec", Summarize(s.slowest_rate));
        o.Sum("delivered_fraction", Summarize(s.delivered));
        o.Sum("producer_wall_ns_per_publish", Summarize(s.wall_ns));
        o.Sum("producer_cpu_ns_per_publish", Summarize(s.cpu_ns));
        o.Int("refused_copies_seen_by_producer", s.refused_copies);
        o.Int("pool_refusals", s.pool_refusals);
        o.Bool("checks_passed", s.valid);
        o.Raw("per_consumer_msgs_per_sec_samples", SamplesJson(s.mean_rate));
        o.Raw("producer_wall_ns_samples", SamplesJson(s.wall_ns));
        fan_out_json.push_back(o.Text());
      }
    }
    std::printf(
        "  * OVERSUBSCRIBED: producer + consumers exceed the %d cores (they time-share "
        "them: the row measures the scheduler as much as the library)\n",
        CoreCount());
  }

  std::vector<std::string> interference_json;
  if (cfg.interference_ms > 0U) {
    const bool over = ExceedsCores(3);
    std::printf(
        "\nInterference, 24 B, a publish every %llu us (the producer sleeps between them), %llu "
        "stamped messages per case after %llu: the fast consumer's latency, publish -> start of "
        "its callback (ns, medians over rounds), alone and while a second consumer's callback "
        "busy-waits %llu us per message (its queue fills, then it loses messages)\n",
        static_cast<unsigned long long>(cfg.period_us),
        static_cast<unsigned long long>(plan.samples), static_cast<unsigned long long>(plan.warmup),
        static_cast<unsigned long long>(cfg.slow_us));
    if (over) {
      std::printf(
          "  OVERSUBSCRIBED: producer + fast consumer + slow consumer = 3 threads on %d "
          "cores (the slow consumer shares core %d with the producer)\n",
          CoreCount(), ConsumerCore(1));
    }
    std::printf("  %-40s %10s %10s %10s %10s %8s %8s %9s %6s\n", "contender", "alone P50",
                "alone P99", "loaded P50", "loaded P99", "P50 x", "P99 x", "slow got%", "check");
    for (const Contender& c : contenders) {
      const LatencySeries& alone = interference[LatencyKey{c.name, false}];
      const LatencySeries& loaded = interference[LatencyKey{c.name, true}];
      const bool valid = alone.valid && loaded.valid;
      all_valid = all_valid && valid;
      if (alone.p50.empty() || loaded.p50.empty()) {
        std::printf("  %-40s not run: %s\n", c.name.c_str(),
                    (alone.note.empty() ? loaded.note : alone.note).c_str());
        continue;
      }
      const double a50 = Median(alone.p50);
      const double a99 = Median(alone.p99);
      const double l50 = Median(loaded.p50);
      const double l99 = Median(loaded.p99);
      std::printf("  %-40s %10.0f %10.0f %10.0f %10.0f %8.2f %8.2f %9.1f %6s\n", c.name.c_str(),
                  a50, a99, l50, l99, Ratio(l50, a50), Ratio(l99, a99),
                  100.0 * Median(loaded.slow_delivered), valid ? "ok" : "FAIL");
      JsonObject o;
      o.Str("contender", c.name).Bool("oversubscribed", over);
      o.Sum("alone_p50_ns", Summarize(alone.p50)).Sum("alone_p99_ns", Summarize(alone.p99));
      o.Sum("alone_max_ns", Summarize(alone.max));
      o.Sum("loaded_p50_ns", Summarize(loaded.p50)).Sum("loaded_p99_ns", Summarize(loaded.p99));
      o.Sum("loaded_max_ns", Summarize(loaded.max));
      o.Num("p50_ratio", Ratio(l50, a50)).Num("p99_ratio", Ratio(l99, a99));
      o.Sum("fast_delivered_fraction_loaded", Summarize(loaded.fast_delivered));
      o.Sum("slow_delivered_fraction", Summarize(loaded.slow_delivered));
      o.Bool("checks_passed", valid);
      interference_json.push_back(o.Text());
    }
    std::printf(
        "  x = loaded / alone; slow got%% = share of the stamped messages the slow "
        "consumer received before the run ended\n");
  }
  std::printf(
      "\nBesides the threads counted: ZeroMQ runs a reaper thread; iceoryx a runtime "
      "thread in this process and RouDi in another (stopped after this process exits).\n");

  JsonObject results;
  JsonObject protocol;
  protocol.Int("rounds", static_cast<uint64_t>(cfg.rounds));
  protocol.Int("messages_24b", cfg.messages).Int("messages_64kb", cfg.large_messages);
  protocol.Int("ring_depth_24b", SizeClass<Small>::kRingDepth);
  protocol.Int("ring_depth_64kb", SizeClass<Frame>::kRingDepth);
  protocol.Int("queue_room_24b", SizeClass<Small>::kCapacity);
  protocol.Int("queue_room_64kb", SizeClass<Frame>::kCapacity);
  protocol.Int("mccc_pool_blocks_64kb", SizeClass<Frame>::kPoolBlocks);
  protocol.Int("interference_period_ns", plan.period_ns).Int("slow_callback_ns", plan.slow_ns);
  protocol.Int("interference_samples", plan.samples).Int("interference_warmup", plan.warmup);
  protocol.Int("cores", static_cast<uint64_t>(CoreCount()));
  protocol.Str("lost_messages", "counted, never retried");
  results.Raw("protocol", protocol.Text());
  results.Str("placement_tool_before", placement_before);
  results.Str("placement_tool_after", placement_after);
  results.Raw("one_way_handoff_round_start_end_ns", SamplesJson(handoffs));
  results.Raw("fan_out", JArray(fan_out_json));
  results.Raw("interference", JArray(interference_json));
  results.Bool("all_checks_passed", all_valid);
  if (!WriteJson(cfg.json, info, results.Text())) {
    return 1;
  }
  if (!info.pinned) {
    std::printf("warning: some threads could not be pinned\n");
  }
  if (!all_valid) {
    std::printf(
        "FAIL: a check failed (a message reordered, duplicated or torn, a copy neither "
        "delivered nor refused, a block not back, or a contender's set-up)\n");
    return 1;
  }
  return 0;
}
