/// @file peers.hpp
/// @brief Adapters for the peer libraries, each used through its public API in the mode its
/// documentation recommends for speed. Each block compiles only when CMake found the peer
/// (MCCC_BENCH_HAVE_<PEER>=1). Adapter shape: see adapters.hpp.
#ifndef MCCC_BENCH_COMMON_PEERS_HPP_
#define MCCC_BENCH_COMMON_PEERS_HPP_

#include <atomic>
#include <cstddef>
#include <cstdint>
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

namespace mccc_bench {

/// Messages a bulk dequeue takes at most (moodycamel).
constexpr std::size_t kBulk = 256U;

#if MCCC_BENCH_HAVE_MOODYCAMEL
/// @brief moodycamel::ConcurrentQueue: explicit producer tokens, consumer token, bulk dequeue
/// (the README's fastest path); try_enqueue keeps it bounded to the preallocated blocks.
template <typename P, typename Sink>
class MoodycamelAdapter {
 public:
  static constexpr int kMaxProducers = mccc_bench::kMaxProducers;
  static constexpr bool kSynchronous = false;
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
struct MoodycamelFamily {
  template <typename P, typename S>
  using Type = MoodycamelAdapter<P, S>;
};
#endif

#if MCCC_BENCH_HAVE_RWQUEUE
/// @brief moodycamel::ReaderWriterQueue (SPSC): preallocated, try_enqueue / try_dequeue.
template <typename P, typename Sink>
class RwQueueAdapter {
 public:
  static constexpr int kMaxProducers = 1;
  static constexpr bool kSynchronous = false;
  RwQueueAdapter(const Options& o, Sink& sink) : q_(o.capacity), sink_(&sink) {}
  struct Producer {};
  struct Consumer {};
  Producer MakeProducer(int) { return Producer{}; }
  bool TryPush(Producer&, const P& m) { return q_.try_enqueue(m); }
  void Flush(Producer&) {}
  Consumer MakeConsumer() { return Consumer{}; }
  std::size_t Poll(Consumer&) {
    std::size_t n = 0U;
    P m{};
    while (n < kBulk && q_.try_dequeue(m)) {
      (*sink_)(m);
      ++n;
    }
    return n;
  }

 private:
  moodycamel::ReaderWriterQueue<P> q_;
  Sink* sink_;
};
struct RwQueueFamily {
  template <typename P, typename S>
  using Type = RwQueueAdapter<P, S>;
};
#endif

#if MCCC_BENCH_HAVE_BOOST
/// @brief boost::lockfree::spsc_queue with compile-time capacity, push / consume_all.
template <typename P, typename Sink>
class BoostSpscAdapter {
 public:
  static constexpr int kMaxProducers = 1;
  static constexpr bool kSynchronous = false;
  using Queue = boost::lockfree::spsc_queue<P, boost::lockfree::capacity<131072U>>;
  BoostSpscAdapter(const Options&, Sink& sink) : q_(std::make_unique<Queue>()), sink_(&sink) {}
  struct Producer {};
  struct Consumer {};
  Producer MakeProducer(int) { return Producer{}; }
  bool TryPush(Producer&, const P& m) { return q_->push(m); }
  void Flush(Producer&) {}
  Consumer MakeConsumer() { return Consumer{}; }
  std::size_t Poll(Consumer&) {
    Sink* s = sink_;
    return q_->consume_all([s](const P& m) { (*s)(m); });
  }

 private:
  std::unique_ptr<Queue> q_;
  Sink* sink_;
};
struct BoostSpscFamily {
  template <typename P, typename S>
  using Type = BoostSpscAdapter<P, S>;
};

/// @brief boost::lockfree::queue (MPMC), nodes reserved up front, bounded_push / consume_all.
template <typename P, typename Sink>
class BoostQueueAdapter {
 public:
  static constexpr int kMaxProducers = mccc_bench::kMaxProducers;
  static constexpr bool kSynchronous = false;
  BoostQueueAdapter(const Options& o, Sink& sink) : q_(o.capacity), sink_(&sink) {}
  struct Producer {};
  struct Consumer {};
  Producer MakeProducer(int) { return Producer{}; }
  bool TryPush(Producer&, const P& m) { return q_.bounded_push(m); }
  void Flush(Producer&) {}
  Consumer MakeConsumer() { return Consumer{}; }
  std::size_t Poll(Consumer&) {
    Sink* s = sink_;
    return q_.consume_all([s](const P& m) { (*s)(m); });
  }

 private:
  boost::lockfree::queue<P> q_;
  Sink* sink_;
};
struct BoostQueueFamily {
  template <typename P, typename S>
  using Type = BoostQueueAdapter<P, S>;
};
#endif

#if MCCC_BENCH_HAVE_TBB
/// @brief tbb::concurrent_bounded_queue with set_capacity, try_push / try_pop.
template <typename P, typename Sink>
class TbbBoundedAdapter {
 public:
  static constexpr int kMaxProducers = mccc_bench::kMaxProducers;
  static constexpr bool kSynchronous = false;
  TbbBoundedAdapter(const Options& o, Sink& sink) : sink_(&sink) {
    q_.set_capacity(static_cast<std::ptrdiff_t>(o.capacity));
  }
  struct Producer {};
  struct Consumer {};
  Producer MakeProducer(int) { return Producer{}; }
  bool TryPush(Producer&, const P& m) { return q_.try_push(m); }
  void Flush(Producer&) {}
  Consumer MakeConsumer() { return Consumer{}; }
  std::size_t Poll(Consumer&) {
    std::size_t n = 0U;
    P m{};
    while (n < kBulk && q_.try_pop(m)) {
      (*sink_)(m);
      ++n;
    }
    return n;
  }

 private:
  tbb::concurrent_bounded_queue<P> q_;
  Sink* sink_;
};
struct TbbBoundedFamily {
  template <typename P, typename S>
  using Type = TbbBoundedAdapter<P, S>;
};
#endif

#if MCCC_BENCH_HAVE_ZMQ
/// @brief ZeroMQ inproc PUSH/PULL, one PUSH socket per producer thread, non-blocking send/recv
/// (the high-water marks bound the pipe to about the same capacity as the other queues).
template <typename P, typename Sink>
class ZmqAdapter {
 public:
  static constexpr int kMaxProducers = mccc_bench::kMaxProducers;
  static constexpr bool kSynchronous = false;
  ZmqAdapter(const Options& o, Sink& sink)
      : pull_(ctx_, zmq::socket_type::pull), sink_(&sink), hwm_(static_cast<int>(o.capacity / 2U)) {
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
    std::size_t n = 0U;
    P m{};
    while (n < kBulk) {
      const auto r = pull_.recv(zmq::mutable_buffer(&m, sizeof(P)), zmq::recv_flags::dontwait);
      if (!r.has_value()) {
        break;
      }
      (*sink_)(m);
      ++n;
    }
    return n;
  }

 private:
  zmq::context_t ctx_;
  zmq::socket_t pull_;
  Sink* sink_;
  int hwm_;
  std::string endpoint_;
};
struct ZmqFamily {
  template <typename P, typename S>
  using Type = ZmqAdapter<P, S>;
};
#endif

#if MCCC_BENCH_HAVE_EVENTPP
/// @brief eventpp::EventQueue (default thread-safe policy): enqueue on the producer, process()
/// on the consumer, one listener.
template <typename P, typename Sink>
class EventppAdapter {
 public:
  static constexpr int kMaxProducers = mccc_bench::kMaxProducers;
  static constexpr bool kSynchronous = false;
  EventppAdapter(const Options&, Sink& sink) : sink_(&sink) {
    Sink* s = sink_;
    q_.appendListener(0, [s](const P& m) { (*s)(m); });
  }
  struct Producer {};
  struct Consumer {};
  Producer MakeProducer(int) { return Producer{}; }
  bool TryPush(Producer&, const P& m) {
    q_.enqueue(0, m);
    return true;
  }
  void Flush(Producer&) {}
  Consumer MakeConsumer() { return Consumer{}; }
  std::size_t Poll(Consumer&) {
    const uint64_t before = sink_->count;
    q_.process();
    return static_cast<std::size_t>(sink_->count - before);
  }

 private:
  eventpp::EventQueue<int, void(const P&)> q_;
  Sink* sink_;
};
struct EventppFamily {
  template <typename P, typename S>
  using Type = EventppAdapter<P, S>;
};
#endif

// Synchronous signal/slot baselines: delivery happens inside TryPush on the publishing thread;
// they have no queue, so only E2E applies (and it is a different thing: no core-to-core handoff).

#if MCCC_BENCH_HAVE_SIGCXX
/// @brief libsigc++ 3 sigc::signal, one connected slot, emit().
template <typename P, typename Sink>
class SigcAdapter {
 public:
  static constexpr int kMaxProducers = 1;
  static constexpr bool kSynchronous = true;
  SigcAdapter(const Options&, Sink& sink) {
    Sink* s = &sink;
    signal_.connect([s](const P& m) { (*s)(m); });
  }
  struct Producer {};
  struct Consumer {};
  Producer MakeProducer(int) { return Producer{}; }
  bool TryPush(Producer&, const P& m) {
    signal_.emit(m);
    return true;
  }
  void Flush(Producer&) {}
  Consumer MakeConsumer() { return Consumer{}; }
  std::size_t Poll(Consumer&) { return 0U; }

 private:
  sigc::signal<void(const P&)> signal_;
};
struct SigcFamily {
  template <typename P, typename S>
  using Type = SigcAdapter<P, S>;
};
#endif

#if MCCC_BENCH_HAVE_SIGSLOT
/// @brief palacaze sigslot, single-threaded signal_st (its documented fast variant).
template <typename P, typename Sink>
class SigslotAdapter {
 public:
  static constexpr int kMaxProducers = 1;
  static constexpr bool kSynchronous = true;
  SigslotAdapter(const Options&, Sink& sink) {
    Sink* s = &sink;
    signal_.connect([s](const P& m) { (*s)(m); });
  }
  struct Producer {};
  struct Consumer {};
  Producer MakeProducer(int) { return Producer{}; }
  bool TryPush(Producer&, const P& m) {
    signal_(m);
    return true;
  }
  void Flush(Producer&) {}
  Consumer MakeConsumer() { return Consumer{}; }
  std::size_t Poll(Consumer&) { return 0U; }

 private:
  sigslot::signal_st<const P&> signal_;
};
struct SigslotFamily {
  template <typename P, typename S>
  using Type = SigslotAdapter<P, S>;
};
#endif

#if MCCC_BENCH_HAVE_ENTT
/// @brief EnTT entt::dispatcher, trigger() (immediate delivery) to a member-function listener.
template <typename P, typename Sink>
class EnttAdapter {
 public:
  static constexpr int kMaxProducers = 1;
  static constexpr bool kSynchronous = true;
  EnttAdapter(const Options&, Sink& sink) : listener_{&sink} {
    dispatcher_.sink<P>().template connect<&Listener::On>(listener_);
  }
  struct Producer {};
  struct Consumer {};
  Producer MakeProducer(int) { return Producer{}; }
  bool TryPush(Producer&, const P& m) {
    dispatcher_.trigger(m);
    return true;
  }
  void Flush(Producer&) {}
  Consumer MakeConsumer() { return Consumer{}; }
  std::size_t Poll(Consumer&) { return 0U; }

 private:
  struct Listener {
    Sink* sink;
    void On(const P& m) { (*sink)(m); }
  };
  Listener listener_;
  entt::dispatcher dispatcher_;
};
struct EnttFamily {
  template <typename P, typename S>
  using Type = EnttAdapter<P, S>;
};
#endif

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_PEERS_HPP_
