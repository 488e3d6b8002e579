// SPDX-License-Identifier: MIT
/// @file adapters.hpp
/// @brief Payloads, the mccc bus adapter, the "ideal handoff" reference ring and the runners that
/// drive any adapter with the same protocol (E2E throughput, publish-only, latency, ping-pong).
///
/// An adapter is `Adapter<Payload, Sink>` with
///   static constexpr int  kMaxProducers;    // 1 for SPSC queues
///   static constexpr bool kSynchronous;     // true: TryPush delivers on the calling thread
///   Adapter(Options, Sink&);                // allocation and warm-up happen here (untimed)
///   Producer MakeProducer(int id);          // on the producer thread
///   bool TryPush(Producer&, const Payload&);// false = not admitted, the caller retries
///   void Flush(Producer&);                  // end of the producer's run
///   Consumer MakeConsumer();                // on the consumer thread
///   std::size_t Poll(Consumer&);            // delivers what is ready to the sink, returns count
/// and optionally `static constexpr std::size_t kMaxCapacity;` (most messages its queue can hold,
/// when that is below what a run needs; publish-only is skipped beyond it).
/// A "family" struct names the adapter (`template <class P, class S> using Type = ...`);
/// FamilyOf<Adapter> is one. An adapter whose producers and consumer keep no state of their own
/// derives the endpoint members from StatelessEndpoints and adds TryPush and Poll.
#ifndef MCCC_BENCH_COMMON_ADAPTERS_HPP_
#define MCCC_BENCH_COMMON_ADAPTERS_HPP_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/harness.hpp"
#include "mccc/mccc.hpp"

namespace mccc_bench {

// ---------------------------------------------------------------------------------------------
// Payloads
// ---------------------------------------------------------------------------------------------

/// @brief The brief's 24-byte payload.
struct Msg24 {
  uint64_t seq;  ///< Producer id (top 16 bits) and index; checked by the consumer.
  float x;       ///< Filler the way a sensor sample would carry it.
  float y;       ///< See x.
  float z;       ///< See x.
  float w;       ///< See x.
};
static_assert(sizeof(Msg24) == 24U, "the reference payload is 24 bytes");

/// @brief The same payload padded to kBytes.
template <std::size_t kBytes>
struct MsgPadded {
  uint64_t seq;                     ///< See Msg24.
  float x;                          ///< See Msg24.
  float y;                          ///< See Msg24.
  float z;                          ///< See Msg24.
  float w;                          ///< See Msg24.
  unsigned char pad[kBytes - 24U];  ///< Bulk that every contender must copy.
};
using Msg64 = MsgPadded<64U>;    ///< 64-byte variant.
using Msg128 = MsgPadded<128U>;  ///< 128-byte variant.
using Msg256 = MsgPadded<256U>;  ///< 256-byte variant.
static_assert(sizeof(Msg64) == 64U && sizeof(Msg128) == 128U && sizeof(Msg256) == 256U,
              "padded payload sizes");

/// @brief A zero-initialised payload template (the producer only changes seq).
template <typename P>
P Prototype() {
  P p;
  std::memset(static_cast<void*>(&p), 0, sizeof(P));
  p.x = 1.0F;
  p.y = 2.0F;
  p.z = 3.0F;
  p.w = 4.0F;
  return p;
}

/// @brief Other message types on the benchmark bus, so dispatch is by variant index as in a real
/// application (never published in the timed runs).
struct Heartbeat {
  uint64_t seq;      ///< Unused.
  uint32_t node_id;  ///< Unused.
};
/// @brief See Heartbeat.
struct Command {
  uint64_t seq;   ///< Unused.
  uint32_t code;  ///< Unused.
  float arg;      ///< Unused.
};

/// @brief Construction options shared by every adapter.
struct Options {
  std::size_t capacity = 131072U;  ///< Bounded queues get this many slots.
  int producers = 1;               ///< Producer threads that will call MakeProducer.
  bool one_in_flight = false;      ///< Latency runs: batching adapters publish every message.
};

// ---------------------------------------------------------------------------------------------
// mccc
// ---------------------------------------------------------------------------------------------

/// @brief How the consumer dispatches.
enum class Dispatch { kCallback, kVisitor };
/// @brief Publish (reads Traits::Clock), PublishFast (caller's timestamp, no clock read), or
/// PublishBatch of kPushBatchSize messages per call (one clock read and one claim per call).
enum class Stamp { kClock, kCallerTimestamp, kBatch };

/// Messages per call of the batch-publishing contenders (mccc PublishBatch, moodycamel
/// try_enqueue_bulk, boost spsc_queue push(array)).
constexpr std::size_t kPushBatchSize = 64U;

/// @brief Adapter::kPushBatch if declared (the adapter then has
/// `std::size_t TryPushBatch(Producer&, const P*, std::size_t n)` returning how many it took),
/// else 0 (one TryPush per message).
template <typename Adapter, typename = void>
struct PushBatch {
  static constexpr std::size_t value = 0U;
};
template <typename Adapter>
struct PushBatch<Adapter, std::void_t<decltype(Adapter::kPushBatch)>> {
  static constexpr std::size_t value = Adapter::kPushBatch;
};

/// @brief Pushes `n` messages built by `make(k)` (k = 0..n-1) through the adapter's batch call,
/// retrying the refused rest; buffers of kBatch messages. For contenders with PushBatch > 0.
template <std::size_t kBatch, typename Adapter, typename Producer, typename P, typename Make>
void PushInBatches(Adapter& q, Producer& producer, uint64_t n, P* buffer, Make&& make) {
  for (uint64_t i = 0U; i < n;) {
    const std::size_t count = static_cast<std::size_t>(n - i < kBatch ? n - i : kBatch);
    for (std::size_t k = 0U; k < count; ++k) {
      buffer[k] = make(i + k);
    }
    std::size_t done = 0U;
    while (done < count) {
      done += q.TryPushBatch(producer, buffer + done, count - done);
      if (done < count) {
        CpuRelax();
      }
    }
    i += count;
  }
}

/// @brief Single-producer traits (wait-free publish, no CAS).
struct SpscTraits : mccc::DefaultBusTraits {
  static constexpr bool kSingleProducer = true;  ///< See DefaultBusTraits.
};
/// @brief Default traits, but timestamps from steady_clock (the default is TscClock on x86).
struct SteadyTraits : mccc::DefaultBusTraits {
  using Clock = mccc::SteadyClock;  ///< See DefaultBusTraits.
};
/// @brief Single producer, timestamps from steady_clock.
struct SpscSteadyTraits : SpscTraits {
  using Clock = mccc::SteadyClock;  ///< See DefaultBusTraits.
};

/// @brief Default traits with the HIGH lane off: HIGH messages share the one ring with the
/// others and only admission favours them (the bus as it was before the HIGH lane).
struct NoHighLaneTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kHighQueueDepth = 0U;  ///< See DefaultBusTraits.
};

/// @brief Producer lanes: four lanes of 131,072 slots. The lane depth is the capacity every
/// other contender's queue gets (Options::capacity), and the publish-only run puts 100,000
/// MEDIUM messages into one lane, which MEDIUM's 80 % threshold admits only from 125,000 slots.
struct LanesTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kProducerLanes = 4U;   ///< See DefaultBusTraits.
  static constexpr uint32_t kLaneDepth = 131072U;  ///< See above.
};

/// @brief An mccc::AsyncBus driven through its public API. A bus with producer lanes is
/// published to through explicit handles (`AsyncBus::MakeProducer`), one per producer thread,
/// made and warmed up in the constructor (every page of their lanes touched once, as every
/// other contender's queue is at construction) and handed to the threads by MakeProducer(id).
template <typename P, typename Sink, typename Traits, mccc::PerformanceMode kMode,
          Dispatch kDispatch, Stamp kStamp>
class MccAdapter {
 public:
  using Payload = std::variant<P, Heartbeat, Command>;  ///< The bus payload.
  using Bus = mccc::AsyncBus<Payload, Traits>;          ///< The bus type.
  static constexpr bool kUsesHandles = Traits::kProducerLanes > 0U;
  static constexpr int kMaxProducers = Traits::kSingleProducer ? 1
                                       : kUsesHandles ? static_cast<int>(Traits::kProducerLanes)
                                                      : mccc_bench::kMaxProducers;
  static constexpr bool kSynchronous = false;
  static constexpr std::size_t kPushBatch = kStamp == Stamp::kBatch ? kPushBatchSize : 0U;

  MccAdapter(const Options& options, Sink& sink) : bus_(std::make_unique<Bus>()), sink_(&sink) {
    if constexpr (kUsesHandles) {
      // Before any subscription, so the warm-up messages reach no sink.
      bus_->SetPerformanceMode(mccc::PerformanceMode::kBareMetal);  // admits up to a full lane
      const P proto = Prototype<P>();
      for (int id = 0; id < options.producers && id < kMaxProducers; ++id) {
        handles_.push_back(bus_->MakeProducer());
        valid_ = valid_ && handles_.back().HasOwnLane();
        while (handles_.back().Publish(proto, 0U)) {
        }
        while (bus_->ProcessBatch() != 0U) {
        }
      }
      bus_->ResetStatistics();
    }
    bus_->SetPerformanceMode(kMode);
    if constexpr (kDispatch == Dispatch::kCallback) {
      Sink* s = sink_;
      const mccc::SubscriptionHandle handle =
          bus_->template Subscribe<P>([s](const P& m) { (*s)(m); });
      valid_ = valid_ && handle.IsValid();
    }
  }

  struct Producer {
    uint32_t sender_id;
    typename Bus::Producer* handle;  ///< Lanes: this producer's own; else null.
  };
  struct Consumer {};

  Producer MakeProducer(int id) {
    typename Bus::Producer* handle = nullptr;
    if constexpr (kUsesHandles) {
      handle = &handles_[static_cast<std::size_t>(id)];
    }
    return Producer{static_cast<uint32_t>(id) + 1U, handle};
  }

  MCCC_ALWAYS_INLINE std::size_t TryPushBatch(Producer& p, const P* m, std::size_t n) {
    if constexpr (kUsesHandles) {
      return p.handle->PublishBatch(m, static_cast<uint32_t>(n), p.sender_id);
    } else {
      return bus_->PublishBatch(m, static_cast<uint32_t>(n), p.sender_id);
    }
  }

  MCCC_ALWAYS_INLINE bool TryPush(Producer& p, const P& m) {
    if constexpr (kUsesHandles) {
      if constexpr (kStamp != Stamp::kCallerTimestamp) {
        return p.handle->Publish(m, p.sender_id);
      } else {
        return p.handle->PublishFast(m, p.sender_id, 0U);
      }
    } else if constexpr (kStamp != Stamp::kCallerTimestamp) {
      return bus_->Publish(m, p.sender_id);
    } else {
      return bus_->PublishFast(m, p.sender_id, 0U);
    }
  }

  void Flush(Producer&) {}

  Consumer MakeConsumer() { return Consumer{}; }

  MCCC_ALWAYS_INLINE std::size_t Poll(Consumer&) {
    if constexpr (kDispatch == Dispatch::kCallback) {
      return bus_->ProcessBatch();
    } else {
      Sink* s = sink_;
      return bus_->ProcessBatchWith(
          mccc::make_overloaded([s](const P& m) { (*s)(m); }, [](const auto&) {}));
    }
  }

  /// @brief The bus (statistics, modes).
  Bus& bus() { return *bus_; }
  /// @brief False if the subscription was refused, or a producer handle got no lane of its own.
  bool valid() const { return valid_; }

 private:
  std::unique_ptr<Bus> bus_;
  Sink* sink_;
  bool valid_ = true;
  std::vector<typename Bus::Producer> handles_;  // producer lanes only
};

/// @brief Family wrapper for MccAdapter.
template <typename Traits, mccc::PerformanceMode kMode, Dispatch kDispatch,
          Stamp kStamp = Stamp::kClock>
struct MccFamily {
  template <typename P, typename S>
  using Type = MccAdapter<P, S, Traits, kMode, kDispatch, kStamp>;
};

// ---------------------------------------------------------------------------------------------
// The limit: a minimal single-producer ring that publishes its index once per batch
// ---------------------------------------------------------------------------------------------

/// @brief A 64-bit atomic alone on its cache line, so that what one core writes there shares the
/// line with nothing the other core writes.
struct alignas(64) LineCounter {
  std::atomic<uint64_t> value{0U};
};

/// @brief Smallest power of two >= n (ring capacities).
inline uint64_t RoundUpPow2(std::size_t n) {
  uint64_t p = 1U;
  while (p < n) {
    p <<= 1U;
  }
  return p;
}

/// @brief Copies a message into a reference ring's slot the way mccc copies one into its own
/// (mccc/detail/word_copy.hpp: word by word when it is small and trivially copyable), so that
/// the reference rings do not pay a store-forwarding stall that mccc avoids.
template <typename P>
MCCC_ALWAYS_INLINE void CopyIntoSlot(P& slot, const P& m) {
  if constexpr (mccc::detail::kCopiesByWords<P>) {
    mccc::detail::CopyByWords(slot, m);
  } else {
    slot = m;
  }
}

/// @brief Reference SPSC ring: slots padded to whole 64-byte lines, the producer publishes its
/// tail once per kBatch messages (or when it finds the ring full, or at Flush), the consumer
/// takes everything up to the published tail and publishes its head once per poll. Nothing else:
/// no admission, no headers, no dispatch. This is what a handoff between two cores costs.
template <typename P, typename Sink>
class IdealHandoff {
 public:
  static constexpr int kMaxProducers = 1;
  static constexpr bool kSynchronous = false;
  static constexpr uint64_t kBatch = 64U;

  IdealHandoff(const Options& options, Sink& sink)
      : capacity_(RoundUpPow2(options.capacity)),
        mask_(capacity_ - 1U),
        batch_(options.one_in_flight ? 1U : kBatch),
        slots_(new Slot[capacity_]),
        sink_(&sink) {
    std::memset(static_cast<void*>(slots_.get()), 0, sizeof(Slot) * capacity_);
  }

  struct Producer {};
  struct Consumer {};

  Producer MakeProducer(int) { return Producer{}; }

  MCCC_ALWAYS_INLINE bool TryPush(Producer&, const P& m) {
    if (MCCC_UNLIKELY(local_tail_ - cached_head_ == capacity_)) {
      cached_head_ = head_.value.load(std::memory_order_acquire);
      if (local_tail_ - cached_head_ == capacity_) {
        tail_.value.store(local_tail_, std::memory_order_release);  // let the consumer drain
        pending_ = 0U;
        return false;
      }
    }
    CopyIntoSlot(slots_[local_tail_ & mask_].value, m);
    ++local_tail_;
    if (++pending_ == batch_) {
      tail_.value.store(local_tail_, std::memory_order_release);
      pending_ = 0U;
    }
    return true;
  }

  void Flush(Producer&) {
    tail_.value.store(local_tail_, std::memory_order_release);
    pending_ = 0U;
  }

  Consumer MakeConsumer() { return Consumer{}; }

  MCCC_ALWAYS_INLINE std::size_t Poll(Consumer&) {
    const uint64_t tail = tail_.value.load(std::memory_order_acquire);
    const uint64_t head = local_head_;
    for (uint64_t h = head; h != tail; ++h) {
      (*sink_)(slots_[h & mask_].value);
    }
    if (tail != head) {
      local_head_ = tail;
      head_.value.store(tail, std::memory_order_release);
    }
    return static_cast<std::size_t>(tail - head);
  }

 private:
  struct alignas(64) Slot {
    P value;
  };

  const uint64_t capacity_;
  const uint64_t mask_;
  const uint64_t batch_;
  std::unique_ptr<Slot[]> slots_;
  Sink* sink_;
  LineCounter tail_;
  LineCounter head_;
  alignas(64) uint64_t local_tail_ = 0U;  // producer-owned
  uint64_t cached_head_ = 0U;
  uint64_t pending_ = 0U;
  alignas(64) uint64_t local_head_ = 0U;  // consumer-owned
};

/// @brief The family of an adapter template whose parameters are (payload, sink).
template <template <typename, typename> class Adapter>
struct FamilyOf {
  template <typename P, typename S>
  using Type = Adapter<P, S>;
};

using IdealFamily = FamilyOf<IdealHandoff>;

/// @brief The endpoint members of an adapter whose producers and consumer keep no state of their
/// own. kIsSynchronous: TryPush delivers on the calling thread (a signal/slot library).
template <int kProducers, bool kIsSynchronous = false>
struct StatelessEndpoints {
  static constexpr int kMaxProducers = kProducers;
  static constexpr bool kSynchronous = kIsSynchronous;
  struct Producer {};
  struct Consumer {};
  Producer MakeProducer(int /*id*/) { return Producer{}; }
  void Flush(Producer& /*producer*/) {}
  Consumer MakeConsumer() { return Consumer{}; }
};

/// @brief Hands the sink up to `limit` messages, one successful `try_pop(m)` each (for queues
/// that dequeue one message at a time); returns how many.
template <typename P, typename Sink, typename TryPop>
std::size_t DrainOneByOne(Sink& sink, std::size_t limit, TryPop&& try_pop) {
  std::size_t n = 0U;
  P m{};
  while (n < limit && try_pop(m)) {
    sink(m);
    ++n;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// Runners
// ---------------------------------------------------------------------------------------------

/// @brief The producer's side of every timed loop: push `m`, retrying while it is refused.
template <typename Adapter, typename Producer, typename P>
inline void PushUntilAdmitted(Adapter& q, Producer& producer, const P& m) {
  while (!q.TryPush(producer, m)) {
    CpuRelax();
  }
}

/// @brief The consumer's side of every timed run: poll until the sink has seen `total`.
/// Returns how many polls delivered something (one increment per poll, the same for every
/// contender), from which RunE2E reports the consumer's mean batch.
template <typename Adapter, typename Sink>
inline uint64_t ConsumeUntil(Adapter& q, const Sink& sink, uint64_t total) {
  auto consumer = q.MakeConsumer();
  uint64_t delivering_polls = 0U;
  while (sink.count < total) {
    if (q.Poll(consumer) != 0U) {
      ++delivering_polls;
    }
  }
  return delivering_polls;
}

/// @brief One measurement's outcome.
struct Outcome {
  double value = 0.0;    ///< msg/s, ns/msg, or ns (see the runner).
  bool valid = false;    ///< Every message arrived exactly once and in order.
  bool skipped = false;  ///< The contender does not support this protocol.
  /// E2E only: messages per consumer poll that delivered something (0: not measured). Near 1,
  /// the consumer keeps up with the producers and reads each line as soon as it is written;
  /// large, it runs behind them and takes finished lines in batches.
  double per_poll = 0.0;
};

/// @brief Latency percentiles in ns of one run.
struct LatencyOutcome {
  double p50 = 0.0;      ///< Median.
  double p95 = 0.0;      ///< 95th percentile.
  double p99 = 0.0;      ///< 99th percentile.
  double max = 0.0;      ///< Largest sample.
  bool valid = false;    ///< Sequence check passed.
  bool skipped = false;  ///< Not supported.
};

/// @brief `adapter.valid()` where an adapter declares it (its set-up succeeded), else true.
template <typename Adapter>
auto AdapterValid(const Adapter& adapter, int) -> decltype(adapter.valid()) {
  return adapter.valid();
}
/// @brief See the overload above.
template <typename Adapter>
bool AdapterValid(const Adapter& /*adapter*/, long) {
  return true;
}

/// @brief E2E throughput: `producers` threads (see ProducerCore) push `messages` in total, retrying
/// while not admitted; the consumer (core 1) polls until all arrived. Returns messages per second.
template <typename Family, typename P>
Outcome RunE2E(uint64_t messages, int producers, bool* pinned) {
  using Adapter = typename Family::template Type<P, SeqSink>;
  Outcome out;
  if (producers > Adapter::kMaxProducers) {
    out.skipped = true;
    return out;
  }
  const uint64_t per_producer = messages / static_cast<uint64_t>(producers);
  const uint64_t total = per_producer * static_cast<uint64_t>(producers);
  auto sink = std::make_unique<SeqSink>();
  Options options;
  options.producers = producers;
  auto q = std::make_unique<Adapter>(options, *sink);
  const P proto = Prototype<P>();
  double seconds = 0.0;
  uint64_t delivering_polls = 0U;  // stays 0 for synchronous adapters (no consumer)
  if constexpr (Adapter::kSynchronous) {
    seconds = RunOnProducerCore<double>(
        [&]() {
          auto producer = q->MakeProducer(0);
          P m = proto;
          const uint64_t t0 = NowNs();
          for (uint64_t i = 0U; i < total; ++i) {
            m.seq = MakeSeq(0, i);
            q->TryPush(producer, m);
          }
          return static_cast<double>(NowNs() - t0) * 1e-9;
        },
        pinned);
  } else {
    seconds = RunPinnedThreads(
        producers,
        [&](int id) {
          auto producer = q->MakeProducer(id);
          constexpr std::size_t kBatch = PushBatch<Adapter>::value;
          if constexpr (kBatch > 0U) {
            std::vector<P> buffer(kBatch);
            PushInBatches<kBatch>(*q, producer, per_producer, buffer.data(), [&](uint64_t i) {
              P m = proto;
              m.seq = MakeSeq(id, i);
              return m;
            });
          } else {
            P m = proto;
            for (uint64_t i = 0U; i < per_producer; ++i) {
              m.seq = MakeSeq(id, i);
              PushUntilAdmitted(*q, producer, m);
            }
          }
          q->Flush(producer);
        },
        [&]() { delivering_polls = ConsumeUntil(*q, *sink, total); }, pinned);
  }
  out.valid = sink->count == total && sink->errors == 0U && AdapterValid(*q, 0);
  out.value = seconds > 0.0 ? static_cast<double>(total) / seconds : 0.0;
  out.per_poll = delivering_polls > 0U
                     ? static_cast<double>(total) / static_cast<double>(delivering_polls)
                     : 0.0;
  return out;
}

/// @brief Adapter::kMaxCapacity if declared, else unlimited.
template <typename Adapter, typename = void>
struct MaxCapacity {
  static constexpr uint64_t value = ~uint64_t{0};
};
/// @brief See the primary template.
template <typename Adapter>
struct MaxCapacity<Adapter, std::void_t<decltype(Adapter::kMaxCapacity)>> {
  static constexpr uint64_t value = Adapter::kMaxCapacity;
};

/// @brief Publish-only: one thread (core 0) pushes `messages` into an empty queue larger than
/// that; the time of the pushes alone, in ns per message. The queue is then drained and checked
/// (untimed). This is done twice on the same queue and only the second pass is timed. Any
/// refused push makes the result invalid. Skipped for synchronous adapters and
/// for adapters whose queue cannot hold `messages` (kMaxCapacity).
template <typename Family>
Outcome RunPublishOnly(uint64_t messages, bool* pinned) {
  using Adapter = typename Family::template Type<Msg24, SeqSink>;
  Outcome out;
  if constexpr (Adapter::kSynchronous) {
    out.skipped = true;
    return out;
  } else {
    if (messages > MaxCapacity<Adapter>::value) {
      out.skipped = true;
      return out;
    }
    auto sink = std::make_unique<SeqSink>();
    Options options;
    options.capacity = 131072U;
    while (options.capacity < messages + messages / 4U) {
      options.capacity *= 2U;
    }
    auto q = std::make_unique<Adapter>(options, *sink);
    uint64_t refused = 0U;
    const double ns = RunOnProducerCore<double>(
        [&]() {
          auto producer = q->MakeProducer(0);
          auto consumer = q->MakeConsumer();
          Msg24 m = Prototype<Msg24>();
          double timed_ns = 0.0;
          // Pass 0 warms up (first touch of the queue's pages, lazily allocated blocks), pass 1
          // is timed: a queue is built once at start-up, so page faults are not publish cost.
          for (uint64_t pass = 0U; pass < 2U; ++pass) {
            constexpr std::size_t kBatch = PushBatch<Adapter>::value;
            uint64_t t0 = 0U;
            if constexpr (kBatch > 0U) {
              // Messages are built into the buffer inside the timed loop, as the single-message
              // loop builds each one; a refused rest is counted, not retried (the queue is big).
              std::vector<Msg24> buffer(kBatch);
              t0 = NowNs();
              for (uint64_t i = 0U; i < messages; i += kBatch) {
                const uint64_t count = messages - i < kBatch ? messages - i : kBatch;
                for (uint64_t k = 0U; k < count; ++k) {
                  buffer[k] = m;
                  buffer[k].seq = pass * messages + i + k;
                }
                refused += count - q->TryPushBatch(producer, buffer.data(),
                                                   static_cast<std::size_t>(count));
              }
            } else {
              t0 = NowNs();
              for (uint64_t i = 0U; i < messages; ++i) {
                m.seq = pass * messages + i;
                refused += q->TryPush(producer, m) ? 0U : 1U;
              }
            }
            const uint64_t t1 = NowNs();
            timed_ns = static_cast<double>(t1 - t0);
            q->Flush(producer);
            // Drain and check (untimed). Give up after 2 s without progress.
            uint64_t last_progress = NowNs();
            const uint64_t expected = (pass + 1U) * messages - refused;
            while (sink->count < expected && NowNs() - last_progress < 2000000000U) {
              if (q->Poll(consumer) != 0U) {
                last_progress = NowNs();
              }
            }
          }
          return timed_ns / static_cast<double>(messages);
        },
        pinned);
    out.value = ns;
    out.valid =
        refused == 0U && sink->count == 2U * messages && sink->errors == 0U && AdapterValid(*q, 0);
    return out;
  }
}

/// @brief Latency: one message in flight; the producer stamps just before the push, the
/// consumer's sink stamps on delivery and acknowledges; `warmup` messages are discarded.
template <typename Family>
LatencyOutcome RunLatency(uint64_t warmup, uint64_t samples, bool* pinned) {
  using Adapter = typename Family::template Type<Msg24, LatencySink>;
  LatencyOutcome out;
  // One message in flight: a batch publisher has nothing to batch (its latency is Publish's).
  if constexpr (Adapter::kSynchronous || PushBatch<Adapter>::value > 0U) {
    out.skipped = true;
    return out;
  } else {
    const uint64_t total = warmup + samples;
    std::vector<uint64_t> sent(total, 0U);
    std::vector<uint64_t> arrival(total, 0U);
    auto ack = std::make_unique<LineCounter>();
    auto sink = std::make_unique<LatencySink>();
    sink->arrival = arrival.data();
    sink->ack = &ack->value;
    Options options;
    options.one_in_flight = true;
    auto q = std::make_unique<Adapter>(options, *sink);
    RunPinnedThreads(
        1,
        [&](int) {
          auto producer = q->MakeProducer(0);
          Msg24 m = Prototype<Msg24>();
          for (uint64_t i = 0U; i < total; ++i) {
            while (ack->value.load(std::memory_order_acquire) < i) {
            }
            m.seq = i;
            sent[i] = Ticks::Read();
            PushUntilAdmitted(*q, producer, m);
            q->Flush(producer);
          }
        },
        [&]() { ConsumeUntil(*q, *sink, total); }, pinned);
    std::vector<double> ns;
    ns.reserve(samples);
    const double scale = Ticks::NsPerTick();
    for (uint64_t i = warmup; i < total; ++i) {
      const uint64_t d = arrival[i] > sent[i] ? arrival[i] - sent[i] : 0U;
      ns.push_back(static_cast<double>(d) * scale);
    }
    std::sort(ns.begin(), ns.end());
    out.p50 = Percentile(ns, 0.50);
    out.p95 = Percentile(ns, 0.95);
    out.p99 = Percentile(ns, 0.99);
    out.max = ns.empty() ? 0.0 : ns.back();
    out.valid = sink->count == total && sink->errors == 0U && AdapterValid(*q, 0);
    return out;
  }
}

/// @brief Core-to-core cache-line ping-pong between core 0 and core 1: one line, each side waits
/// for the other's value and answers. Every round trip is timed on its own (Ticks); returns the
/// median one-way handoff in ns (median round trip / 2), which a preempted spinner cannot skew.
inline double RunPingPong(uint64_t iterations, bool* pinned) {
  auto line = std::make_unique<LineCounter>();
  std::vector<double> round_trips(iterations, 0.0);
  const double scale = Ticks::NsPerTick();
  RunPinnedThreads(
      1,
      [&](int) {
        for (uint64_t i = 0U; i < iterations; ++i) {
          const uint64_t t0 = Ticks::Read();
          line->value.store(2U * i + 1U, std::memory_order_release);
          while (line->value.load(std::memory_order_acquire) != 2U * i + 2U) {
          }
          round_trips[i] = static_cast<double>(Ticks::Read() - t0) * scale;
        }
      },
      [&]() {
        for (uint64_t i = 0U; i < iterations; ++i) {
          while (line->value.load(std::memory_order_acquire) != 2U * i + 1U) {
          }
          line->value.store(2U * i + 2U, std::memory_order_release);
        }
      },
      pinned);
  return Summarize(std::move(round_trips)).median / 2.0;
}

/// The host moves this machine's two cores between a near and a far placement (see
/// docs/benchmarks.md), for minutes or for seconds; a measurement is classed by the RunPingPong
/// handoff just before and just after it, against this threshold between the two.
constexpr double kFarHandoffNs = 150.0;

/// @brief Where a measurement ran: near or far both times, or mixed.
enum class Placement { kNear, kFar, kMixed };

/// @brief Classes a measurement by the one-way handoff before and after it (kFarHandoffNs).
inline Placement ClassifyPlacement(double before_ns, double after_ns) {
  if (before_ns < kFarHandoffNs && after_ns < kFarHandoffNs) {
    return Placement::kNear;
  }
  if (before_ns >= kFarHandoffNs && after_ns >= kFarHandoffNs) {
    return Placement::kFar;
  }
  return Placement::kMixed;
}

/// @brief "near", "far" or "mixed".
inline const char* PlacementName(Placement placement) {
  return placement == Placement::kNear ? "near" : placement == Placement::kFar ? "far" : "mixed";
}

}  // namespace mccc_bench

#endif  // MCCC_BENCH_COMMON_ADAPTERS_HPP_
