// SPDX-License-Identifier: MIT
/// @file peers.hpp
/// @brief Adapters for the peer libraries, each used through its public API in the mode its
/// documentation recommends for speed. Each block compiles only when CMake found the peer
/// (MCCC_BENCH_HAVE_<PEER>=1). Adapter shape: see adapters.hpp.
#ifndef MCCC_BENCH_COMMON_PEERS_HPP_
#define MCCC_BENCH_COMMON_PEERS_HPP_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/adapters.hpp"

#if MCCC_BENCH_HAVE_MOODYCAMEL
#include <concurrentqueue/concurrentqueue.h>
#endif
#if MCCC_BENCH_HAVE_RWQUEUE
#include <readerwriterqueue/readerwriterqueue.h>
#endif
#if MCCC_BENCH_HAVE_BOOST
#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/spsc_queue.hpp>
#endif
#if MCCC_BENCH_HAVE_TBB
#include <tbb/concurrent_queue.h>
#endif
#if MCCC_BENCH_HAVE_ZMQ
#include <zmq.hpp>
#endif
#if MCCC_BENCH_HAVE_SIGCXX
#include <sigc++/sigc++.h>
#endif
#if MCCC_BENCH_HAVE_EVENTPP
#include <eventpp/eventqueue.h>
#endif
#if MCCC_BENCH_HAVE_ENTT
#include <entt/signal/dispatcher.hpp>
#endif
#if MCCC_BENCH_HAVE_SIGSLOT
#include <sigslot/signal.hpp>
#endif
#if MCCC_BENCH_HAVE_QPCPP
// Last: QP defines macros (POST, POST_X, Q_NEW_X, Q_ASSERT, ...) that nothing before it may see.
#include <qpcpp.hpp>
#endif

namespace mccc_bench {

/// Messages a bulk dequeue takes at most (moodycamel).
constexpr std::size_t kBulk = 256U;

#if MCCC_BENCH_HAVE_MOODYCAMEL
/// @brief moodycamel::ConcurrentQueue: explicit producer tokens, consumer token, bulk dequeue
/// (its README's fastest path); try_enqueue keeps it bounded to the preallocated blocks.
/// kBatch > 0: producers call try_enqueue_bulk with kBatch messages (all or none).
template <typename P, typename Sink, std::size_t kBatch = 0U>
class MoodycamelAdapter {
 public:
  static constexpr int kMaxProducers = mccc_bench::kMaxProducers;
  static constexpr bool kSynchronous = false;
  static constexpr std::size_t kPushBatch = kBatch;
  using Queue = moodycamel::ConcurrentQueue<P>;
  MoodycamelAdapter(const Options& o, Sink& sink)
      : q_(o.capacity, static_cast<std::size_t>(o.producers), 0U), sink_(&sink) {}
  struct Producer {
    std::unique_ptr<moodycamel::ProducerToken> token;
  };
  struct Consumer {
    std::unique_ptr<moodycamel::ConsumerToken> token;
    std::unique_ptr<P[]> buffer;
  };
  Producer MakeProducer(int) { return Producer{std::make_unique<moodycamel::ProducerToken>(q_)}; }
  bool TryPush(Producer& p, const P& m) { return q_.try_enqueue(*p.token, m); }
  std::size_t TryPushBatch(Producer& p, const P* m, std::size_t n) {
    return q_.try_enqueue_bulk(*p.token, m, n) ? n : 0U;
  }
  void Flush(Producer&) {}
  Consumer MakeConsumer() {
    return Consumer{std::make_unique<moodycamel::ConsumerToken>(q_), std::make_unique<P[]>(kBulk)};
  }
  std::size_t Poll(Consumer& c) {
    const std::size_t n = q_.try_dequeue_bulk(*c.token, c.buffer.get(), kBulk);
    for (std::size_t i = 0U; i < n; ++i) {
      (*sink_)(c.buffer[i]);
    }
    return n;
  }

 private:
  Queue q_;
  Sink* sink_;
};
/// @brief The family of an adapter whose third parameter is the producer's batch (0: none).
template <template <typename, typename, std::size_t> class Adapter, std::size_t kBatch>
struct BatchFamilyOf {
  template <typename P, typename S>
  using Type = Adapter<P, S, kBatch>;
};
using MoodycamelFamily = BatchFamilyOf<MoodycamelAdapter, 0U>;
using MoodycamelBulkEnqueueFamily = BatchFamilyOf<MoodycamelAdapter, kPushBatchSize>;
#endif

#if MCCC_BENCH_HAVE_RWQUEUE
/// @brief moodycamel::ReaderWriterQueue (SPSC): preallocated, try_enqueue / try_dequeue.
template <typename P, typename Sink>
class RwQueueAdapter : public StatelessEndpoints<1> {
 public:
  RwQueueAdapter(const Options& o, Sink& sink) : q_(o.capacity), sink_(&sink) {}
  bool TryPush(Producer&, const P& m) { return q_.try_enqueue(m); }
  std::size_t Poll(Consumer&) {
    return DrainOneByOne<P>(*sink_, kBulk, [this](P& m) { return q_.try_dequeue(m); });
  }

 private:
  moodycamel::ReaderWriterQueue<P> q_;
  Sink* sink_;
};
using RwQueueFamily = FamilyOf<RwQueueAdapter>;
#endif

#if MCCC_BENCH_HAVE_BOOST
/// @brief boost::lockfree::spsc_queue with compile-time capacity, push / consume_all.
/// kBatch > 0: the producer pushes arrays of kBatch with push(const T*, size) (takes what fits).
template <typename P, typename Sink, std::size_t kBatch = 0U>
class BoostSpscAdapter : public StatelessEndpoints<1> {
 public:
  static constexpr std::size_t kPushBatch = kBatch;
  using Queue = boost::lockfree::spsc_queue<P, boost::lockfree::capacity<131072U>>;
  BoostSpscAdapter(const Options&, Sink& sink) : q_(std::make_unique<Queue>()), sink_(&sink) {}
  bool TryPush(Producer&, const P& m) { return q_->push(m); }
  std::size_t TryPushBatch(Producer&, const P* m, std::size_t n) { return q_->push(m, n); }
  std::size_t Poll(Consumer&) {
    Sink* s = sink_;
    return q_->consume_all([s](const P& m) { (*s)(m); });
  }

 private:
  std::unique_ptr<Queue> q_;
  Sink* sink_;
};
using BoostSpscFamily = BatchFamilyOf<BoostSpscAdapter, 0U>;
using BoostSpscPushArrayFamily = BatchFamilyOf<BoostSpscAdapter, kPushBatchSize>;

/// @brief boost::lockfree::queue (MPMC), nodes reserved up front, bounded_push / consume_all.
template <typename P, typename Sink>
class BoostQueueAdapter : public StatelessEndpoints<kMaxProducers> {
 public:
  BoostQueueAdapter(const Options& o, Sink& sink) : q_(o.capacity), sink_(&sink) {}
  bool TryPush(Producer&, const P& m) { return q_.bounded_push(m); }
  std::size_t Poll(Consumer&) {
    Sink* s = sink_;
    return q_.consume_all([s](const P& m) { (*s)(m); });
  }

 private:
  boost::lockfree::queue<P> q_;
  Sink* sink_;
};
using BoostQueueFamily = FamilyOf<BoostQueueAdapter>;
#endif

#if MCCC_BENCH_HAVE_TBB
/// @brief tbb::concurrent_bounded_queue with set_capacity, try_push / try_pop.
template <typename P, typename Sink>
class TbbBoundedAdapter : public StatelessEndpoints<kMaxProducers> {
 public:
  TbbBoundedAdapter(const Options& o, Sink& sink) : sink_(&sink) {
    q_.set_capacity(static_cast<std::ptrdiff_t>(o.capacity));
  }
  bool TryPush(Producer&, const P& m) { return q_.try_push(m); }
  std::size_t Poll(Consumer&) {
    return DrainOneByOne<P>(*sink_, kBulk, [this](P& m) { return q_.try_pop(m); });
  }

 private:
  tbb::concurrent_bounded_queue<P> q_;
  Sink* sink_;
};
using TbbBoundedFamily = FamilyOf<TbbBoundedAdapter>;
#endif

#if MCCC_BENCH_HAVE_ZMQ
/// @brief ZeroMQ inproc PUSH/PULL, one PUSH socket per producer thread, non-blocking send/recv
/// (high-water marks of the queue capacity on each side: ZeroMQ returns send credit to the
/// writer lazily, every HWM/2 messages read, so a pipe split as capacity/2 per side refused
/// publishes into a just-drained queue).
template <typename P, typename Sink>
class ZmqAdapter {
 public:
  static constexpr int kMaxProducers = mccc_bench::kMaxProducers;
  static constexpr bool kSynchronous = false;
  ZmqAdapter(const Options& o, Sink& sink)
      : pull_(ctx_, zmq::socket_type::pull), sink_(&sink), hwm_(static_cast<int>(o.capacity)) {
    static std::atomic<int> next_endpoint{0};
    endpoint_ = "inproc://mccc-bench-" + std::to_string(next_endpoint.fetch_add(1));
    pull_.set(zmq::sockopt::rcvhwm, hwm_);
    pull_.bind(endpoint_);
  }
  struct Producer {
    std::unique_ptr<zmq::socket_t> push;
  };
  struct Consumer {};
  Producer MakeProducer(int) {
    auto push = std::make_unique<zmq::socket_t>(ctx_, zmq::socket_type::push);
    push->set(zmq::sockopt::sndhwm, hwm_);
    push->connect(endpoint_);
    return Producer{std::move(push)};
  }
  bool TryPush(Producer& p, const P& m) {
    return p.push->send(zmq::const_buffer(&m, sizeof(P)), zmq::send_flags::dontwait).has_value();
  }
  void Flush(Producer&) {}
  Consumer MakeConsumer() { return Consumer{}; }
  std::size_t Poll(Consumer&) {
    return DrainOneByOne<P>(*sink_, kBulk, [this](P& m) {
      return pull_.recv(zmq::mutable_buffer(&m, sizeof(P)), zmq::recv_flags::dontwait).has_value();
    });
  }

 private:
  zmq::context_t ctx_;
  zmq::socket_t pull_;
  Sink* sink_;
  int hwm_;
  std::string endpoint_;
};
using ZmqFamily = FamilyOf<ZmqAdapter>;
#endif

#if MCCC_BENCH_HAVE_EVENTPP
/// @brief eventpp::EventQueue (default thread-safe policy): enqueue on the producer; on the
/// consumer waitFor(0 ns), then process(); one listener.
///
/// process() starts with an unlocked `queueList.empty()` check (a plain read of the std::list
/// the producer splices into under the queue mutex). Called alone in a polling loop that does no
/// other synchronisation, the compiler may inline it and hoist that read out of the loop: once the
/// consumer saw the queue empty it spun on a register for ever (the old "64-byte hang"; GCC 12
/// -O3 inlined process() into the 64/128/256-byte consumers and not into the 24-byte one).
/// eventpp's documentation (doc/eventqueue.md, emptyQueue()) warns about exactly this dead loop
/// and gives `waitFor(std::chrono::nanoseconds(0))` as the safe check: it evaluates the check
/// under the queue mutex and returns at once (false) when nothing is queued. That is the only
/// non-blocking check eventpp documents as safe, and it has a price: on an empty queue it is a
/// condition-variable wait with an expired deadline (a futex system call), and a producer that
/// enqueues meanwhile finds a waiter to wake. It shows most in the one-in-flight latency run.
template <typename P, typename Sink>
class EventppAdapter : public StatelessEndpoints<kMaxProducers> {
 public:
  EventppAdapter(const Options&, Sink& sink) : sink_(&sink) {
    Sink* s = sink_;
    q_.appendListener(0, [s](const P& m) { (*s)(m); });
  }
  bool TryPush(Producer&, const P& m) {
    q_.enqueue(0, m);
    return true;
  }
  std::size_t Poll(Consumer&) {
    if (!q_.waitFor(std::chrono::nanoseconds(0))) {
      return 0U;
    }
    const uint64_t before = sink_->count;
    q_.process();
    return static_cast<std::size_t>(sink_->count - before);
  }

 private:
  eventpp::EventQueue<int, void(const P&)> q_;
  Sink* sink_;
};
using EventppFamily = FamilyOf<EventppAdapter>;
#endif

#if MCCC_BENCH_HAVE_QPCPP
/// QP/C++ pieces shared by all payload sizes (see QpcppAdapter).
namespace qpcpp_peer {

/// Signal of the payload event (the first user signal).
constexpr QP::QSignal kPayloadSig = QP::Q_USER_SIG;
/// Ring entries of each active object's queue: with QF_EQUEUE_CTR_SIZE 2 (bench/qpcpp/
/// qp_config.hpp) the most QP allows; the queue holds this plus its front slot.
constexpr std::uint_fast16_t kQueueLen = 65534U;
/// Events an active object's queue holds.
constexpr std::size_t kQueueEvents = kQueueLen + 1U;
/// Blocks per event pool: a full queue, the event being dispatched and one being filled by each
/// producer, rounded up; so the pool never runs dry before the queue is full.
constexpr std::size_t kPoolBlocks = kQueueEvents + 64U;

/// @brief The payload as a QP event (a QEvt subclass). Never constructed: Q_NEW_X takes a block
/// from the event pool and sets the QEvt header, the producer then fills `payload`.
template <typename P>
struct PayloadEvt : QP::QEvt {
  P payload;  ///< The benchmark payload (carries the sequence number).
};

/// @brief Initialises one event pool for events of type E, kPoolBlocks blocks (QMPool rounds a
/// block up to whole pointers, at least two; the storage is sized the same way and lives for the
/// process, as QF keeps using it).
template <typename E>
void InitPool() {
  constexpr std::size_t kWords =
      sizeof(E) <= 2U * sizeof(void*) ? 2U : (sizeof(E) + sizeof(void*) - 1U) / sizeof(void*);
  void** const storage = new void*[kWords * kPoolBlocks];
  QP::QF::poolInit(storage, static_cast<std::uint_fast32_t>(sizeof(void*) * kWords * kPoolBlocks),
                   static_cast<std::uint_fast16_t>(sizeof(E)));
}

/// @brief QF::init() and the four event pools, once per process. QF::poolInit requires the pools
/// in increasing order of event size. QF::init() also locks the port's start-up mutex, which only
/// QF::run() releases; the benchmark never calls QF::run() (see QpcppAdapter).
inline void EnsureFramework() {
  static const bool initialised = []() {
    QP::QF::init();
    InitPool<PayloadEvt<Msg24>>();
    InitPool<PayloadEvt<Msg64>>();
    InitPool<PayloadEvt<Msg128>>();
    InitPool<PayloadEvt<Msg256>>();
    return true;
  }();
  static_cast<void>(initialised);
}

/// @brief Next free QF priority (each active object needs its own, 1..QF_MAX_ACTIVE).
inline std::uint8_t NextPriority() {
  static std::uint8_t next = 0U;
  next = static_cast<std::uint8_t>(next + 1U);
  if (static_cast<unsigned>(next) > static_cast<unsigned>(QF_MAX_ACTIVE)) {
    std::abort();
  }
  return next;
}

/// @brief The consuming active object: a two-state QHsm-style machine whose `Active` state
/// handler hands every payload event to the sink. One per payload and sink type, started once
/// and kept for the process: QActive::start() creates a p-thread that stays parked on the
/// start-up mutex (see QpcppAdapter), so one object per type bounds those threads to five.
template <typename P, typename Sink>
class PayloadAo final : public QP::QActive {
 public:
  /// @brief The instance for <P, Sink>, started on first use.
  static PayloadAo& Instance() {
    static PayloadAo* const ao = []() {
      EnsureFramework();
      static PayloadAo object;
      static std::unique_ptr<QP::QEvtPtr[]> queue(new QP::QEvtPtr[kQueueLen]);
      object.start(NextPriority(), queue.get(), kQueueLen, nullptr, 0U);
      return &object;
    }();
    return *ao;
  }

  /// @brief Where dispatched payloads go (nullptr: dropped).
  void SetSink(Sink* sink) { sink_ = sink; }

  /// @brief What the POSIX port's active-object thread does per event (QActive::evtLoop_ in
  /// ports/posix/qf_port.cpp: get_(), dispatch(), QF::gc()), for the events queued now and
  /// without its blocking wait: getQueueUse() reads the queue's count inside QF's critical
  /// section, and get_() only blocks on an empty queue. Returns the events dispatched.
  std::size_t DispatchQueued() {
    const std::uint8_t prio = getPrio();
    const std::uint16_t n = QP::QActive::getQueueUse(prio);
    for (std::uint16_t i = 0U; i < n; ++i) {
      QP::QEvt const* const e = get_();
      dispatch(e, prio);
      QP::QF::gc(e);
    }
    return n;
  }

 private:
  PayloadAo() noexcept : QP::QActive(&PayloadAo::Initial) {}

  static QP::QState Initial(void* const me, QP::QEvt const* const e) {
    static_cast<void>(e);
    return static_cast<PayloadAo*>(me)->tran(&PayloadAo::Active);
  }

  static QP::QState Active(void* const me, QP::QEvt const* const e) {
    PayloadAo* const self = static_cast<PayloadAo*>(me);
    if (e->sig == kPayloadSig) {
      if (self->sink_ != nullptr) {
        (*self->sink_)(static_cast<PayloadEvt<P> const*>(e)->payload);
      }
      return Q_RET_HANDLED;
    }
    return self->super(&QP::QAsm::top);
  }

  Sink* sink_ = nullptr;
};

}  // namespace qpcpp_peer

/// @brief QP/C++ (POSIX port): the producer allocates a dynamic event from a QF event pool
/// (Q_NEW_X, margin 0) and posts it to an active object (POST_X, margin 0: a full queue is a
/// refusal, and postx_ recycles the refused event); the active object's state handler delivers
/// the payload to the sink.
///
/// The active object's event loop runs on the harness's consumer thread: Poll() does what the
/// port's per-AO p-thread does (get_, dispatch, gc) for the events queued, without blocking.
/// QActive::start() still creates that p-thread, but it waits on the port's start-up mutex until
/// QF::run(), which the benchmark never calls, so it never takes an event. Posting from several
/// threads is supported (QF critical sections are one process-wide mutex in this port).
template <typename P, typename Sink>
class QpcppAdapter : public StatelessEndpoints<kMaxProducers> {
 public:
  static constexpr std::size_t kMaxCapacity = qpcpp_peer::kQueueEvents;
  using Ao = qpcpp_peer::PayloadAo<P, Sink>;
  using Evt = qpcpp_peer::PayloadEvt<P>;

  QpcppAdapter(const Options&, Sink& sink) : ao_(&Ao::Instance()) { ao_->SetSink(&sink); }
  ~QpcppAdapter() {
    ao_->SetSink(nullptr);
    ao_->DispatchQueued();  // leave the shared active object empty for the next run
  }
  QpcppAdapter(const QpcppAdapter&) = delete;
  QpcppAdapter& operator=(const QpcppAdapter&) = delete;

  bool TryPush(Producer&, const P& m) {
    Evt* const e = Q_NEW_X(Evt, 0U, qpcpp_peer::kPayloadSig);
    if (e == nullptr) {
      return false;
    }
    e->payload = m;
    return ao_->POST_X(e, 0U, nullptr);
  }
  std::size_t Poll(Consumer&) { return ao_->DispatchQueued(); }

 private:
  Ao* ao_;
};
using QpcppFamily = FamilyOf<QpcppAdapter>;
#endif

// Synchronous signal/slot baselines: delivery happens inside TryPush on the publishing thread;
// they have no queue, so only E2E applies (and it is a different thing: no core-to-core handoff).

/// @brief The endpoints of a synchronous baseline: one publishing thread, nothing to poll.
struct SynchronousEndpoints : StatelessEndpoints<1, true> {
  std::size_t Poll(Consumer& /*consumer*/) { return 0U; }
};

#if MCCC_BENCH_HAVE_SIGCXX
/// @brief libsigc++ 3 sigc::signal, one connected slot, emit().
template <typename P, typename Sink>
class SigcAdapter : public SynchronousEndpoints {
 public:
  SigcAdapter(const Options&, Sink& sink) {
    Sink* s = &sink;
    signal_.connect([s](const P& m) { (*s)(m); });
  }
  bool TryPush(Producer&, const P& m) {
    signal_.emit(m);
    return true;
  }

 private:
  sigc::signal<void(const P&)> signal_;
};
using SigcFamily = FamilyOf<SigcAdapter>;
#endif

#if MCCC_BENCH_HAVE_SIGSLOT
/// @brief palacaze sigslot, single-threaded signal_st (its documented fast variant).
template <typename P, typename Sink>
class SigslotAdapter : public SynchronousEndpoints {
 public:
  SigslotAdapter(const Options&, Sink& sink) {
    Sink* s = &sink;
    signal_.connect([s](const P& m) { (*s)(m); });
  }
  bool TryPush(Producer&, const P& m) {
    signal_(m);
    return true;
  }

 private:
  sigslot::signal_st<const P&> signal_;
};
using SigslotFamily = FamilyOf<SigslotAdapter>;
#endif

#if MCCC_BENCH_HAVE_ENTT
/// @brief EnTT entt::dispatcher, trigger() (immediate delivery) to a member-function listener.
template <typename P, typename Sink>
class EnttAdapter : public SynchronousEndpoints {
 public:
  EnttAdapter(const Options&, Sink& sink) : listener_{&sink} {
    dispatcher_.sink<P>().template connect<&Listener::On>(listener_);
  }
  bool TryPush(Producer&, const P& m) {
    dispatcher_.trigger(m);
    return true;
  }

 private:
  struct Listener {
    Sink* sink;
    void On(const P& m) { (*sink)(m); }
  };
  Listener listener_;
  entt::dispatcher dispatcher_;
};
using EnttFamily = FamilyOf<EnttAdapter>;
#endif

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_PEERS_HPP_
