// SPDX-License-Identifier: MIT
// Fuzz target: random operation sequences against mccc::AsyncBus, checked against a reference
// model after every operation (single-threaded). Built two ways (tests/fuzz/CMakeLists.txt):
// - with clang++ -fsanitize=fuzzer,address,undefined: libFuzzer drives LLVMFuzzerTestOneInput;
// - with the project compiler plus replay_main.cpp: replays corpus/ and regressions/ files, so
//   the corpus also runs under the TSan and ASan+UBSan presets.
// Any difference between the bus and the model prints what differed and calls std::abort().
//
// The model (documented behaviour only; async_bus.hpp, priority_admission.hpp, message.hpp):
// - a FIFO of published messages; admission of priority P while occupancy * 100 < P% * capacity
//   (LOW 60, MEDIUM 80, HIGH 99); BARE_METAL admits while occupancy < capacity; a priority that
//   is not an enumerator is refused with INVALID_MESSAGE; a refused rvalue is not moved from;
// - the capacity is the ring the publishing thread's LOW/MEDIUM messages go to: its producer lane
//   (kLaneDepth) when the bus has lanes and the thread's identity owns one, else the shared ring;
// - with a HIGH lane (kHighQueueDepth > 0) HIGH messages form a FIFO of their own, admitted while
//   it holds fewer than kHighQueueDepth (every mode); a batch dispatches min(kBatchSize, HIGH
//   queued) HIGH messages first and then min(kBatchSize, LOW/MEDIUM queued) from the other FIFO
//   (no callback here publishes); when HIGH messages are still queued after those, only
//   min(1, LOW/MEDIUM queued), and only once kHighQueueDepth HIGH messages have been dispatched
//   since the last batch that dispatched LOW/MEDIUM (else none);
// - ProcessBatch / ProcessBatchWith without a HIGH lane dispatch min(kBatchSize, queued) messages
//   in FIFO order; msg_id = first id, first id + 1, ... in delivery order (OVERFLOW_DETECTED when
//   it wraps to 0);
// - per message, every subscriber of its type that is live when the message's dispatch starts
//   and is not unsubscribed during it is called exactly once; a subscriber added during it is
//   called at most once; nobody is called after its Unsubscribe returned. Callback ORDER is not
//   documented, so none is assumed (calls are compared as a set per message);
// - a callback returning false or throwing = one PROCESSING_ERROR (with the message's id) and one
//   processing_errors count; later callbacks and messages are still delivered;
// - statistics only in FULL_FEATURED (per priority published/dropped, processed, errors),
//   zeroed by ResetStatistics, and GetLaneStatistics of the thread's ring equal to them (one
//   producer); the error callback never in BARE_METAL; QUEUE_FULL carries the id the refused
//   message would have received (= the next admitted message's id) on a bus with one ring, and
//   the id the consumer gives next (first id + delivered) when ids are given at delivery (a HIGH
//   lane or producer lanes);
// - Subscribe is refused at kMaxCallbacksPerType live subscribers of a type, or when the row's
//   2 * kMaxCallbacksPerType entries are taken by live ones plus ones removed during the current
//   ProcessBatch (subscription_table.hpp); Unsubscribe is true exactly once for a live handle of
//   this bus (false for stale, foreign, invalid handles); SubscriberCount = live subscribers;
// - captures of an unsubscribed callable are destroyed once no call can be running (at once
//   outside a batch, at the end of the batch from inside one) and never while it runs;
// - payloads: intact on delivery, destroyed exactly once (a live-instance counter must equal the
//   number of queued messages of that type after every operation and 0 after the bus is gone);
// - QueueDepth (all rings), HighQueueDepth, LaneQueueDepth, QueueUtilizationPercent and
//   GetBackpressureLevel (the fuller ring of the two FIFOs), GetPerformanceMode, Capacity;
// - loans (loans/loan_pool.hpp, loan_handles.hpp): Cloud travels by loan from a pool of kPool
//   blocks. Loan<Cloud>(P) is granted exactly while fewer blocks than P's limit are in use (LOW
//   min(ceil(60% N), MEDIUM), MEDIUM min(ceil(80% N), N - 1), HIGH N; BARE_METAL N), else an
//   empty loan and LOAN_REFUSED (msg_id 0); a priority that is not an enumerator gives an empty
//   loan and INVALID_MESSAGE; granted / refused per priority / high-water count in FULL_FEATURED
//   only. A published loan is moved from and queued like an inline message (ring admission by
//   the loan's priority, or the one given); a refused one is left intact with the caller;
//   publishing an empty loan is INVALID_MESSAGE. Blocks in use = loans held + distinct messages
//   among queued Cloud messages and retained handles, after every operation, and equal to the
//   live Cloud objects; subscribers and visitors see exactly what the producer filled in; a
//   Retain inside the callback (bus.Retain or Loaned::Retain) keeps the message intact beyond
//   it, Retain of a copy or through another bus is empty; at the end every block is back. A loan
//   of a second bus (or its Loaned handle) published here is refused with FOREIGN_LOAN (msg_id
//   0), nothing queued or counted, left intact with the caller, and is then delivered as the
//   same block by its own bus, whose pool is empty again afterwards.
//
// Input format (every byte is meaningful; missing bytes read as 0):
//   byte 0  configuration: ((b & 0x3F) % 12) selects the bus type (depth 8 or 128, MPSC or
//           single-producer, 64- or 32-bit positions, HIGH lane, producer lanes; see RunInput;
//           types 0-5 have neither lane), bit 6 = start the ring and msg_id just before
//           their wrap point (test-hook constructor), bit 7 = drain and recheck at the end
//           (otherwise the bus is destroyed with messages still queued)
//   byte 1  distance to the wrap point (with bit 6), byte 2 payload salt
//   then operations: one opcode byte (op % 28, see Harness::Step) followed by its arguments
//   (a burst whose api byte % 8 is 7 is one PublishBatch call of the whole burst; opcodes 20 to
//   27 are the loan operations; a PublishEmplace of Small whose sender byte has bit 7 set
//   publishes once more from inside the message's constructor, as a signal handler would).
//
// Regression inputs (tests/fuzz/regressions/) replay inputs that once found a bug; they run with
// MCCC_FUZZ_STRICT=1, which tolerates nothing (no known bug is tolerated at present either).
//
// The guarantees (docs/guarantees.md) this model checks after every operation of every input:
// G-2: HIGH before the backlog, never refused by a LOW/MEDIUM flood, LOW/MEDIUM served one a
//      HIGH lane under a HIGH flood (the two FIFOs above)
// G-5: statistics exact in FULL_FEATURED, nothing counted in the other modes
// G-7: every publish admitted exactly below its priority's threshold
// G-8: a burst sent as one PublishBatch admits the prefix single publishes would
// G-3: a publish from inside a message's construction in its slot (what a signal handler that
//      interrupts its thread's publish does) is admitted and ordered as if it came right after
// G-9: every refused rvalue re-checked: not moved from
// G-10: live payloads == queued messages after every operation, 0 once the bus is gone
// G-11: a loaned message reaches subscribers and visitors as the block the producer filled
// G-12: a refused loan stays with the caller, intact; a second bus's loan is refused here
// G-13: a loan is granted exactly while the blocks in use are below its priority's limit
// G-14: blocks in use == loans held + queued or retained messages; every block back at the end
// G-16: nobody called after its Unsubscribe returned; captures destroyed once no call can run
// G-17: a callback returning false or throwing is one processing error
// G-20: ids across their wrap point, OVERFLOW_DETECTED, the QUEUE_FULL id
#define MCCC_ENABLE_TEST_HOOKS 1  // this target only: AsyncBus(initial position, first msg_id)

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "mccc/mccc.hpp"

namespace mccc_fuzz {

using mccc::BackpressureLevel;
using mccc::BusError;
using mccc::MessageHeader;
using mccc::MessagePriority;
using mccc::PerformanceMode;
using mccc::SubscriptionHandle;

// ----- failure reporting ---------------------------------------------------------------------

[[noreturn]] void Mismatch(const char* what, uint64_t actual, uint64_t expected, int line) {
  std::fprintf(
      stderr, "mccc fuzz: bus differs from the model at line %d: %s (bus %llu, model %llu)\n", line,
      what, static_cast<unsigned long long>(actual), static_cast<unsigned long long>(expected));
  std::abort();
}

#define FUZZ_CHECK(cond, what)            \
  do {                                    \
    if (!(cond)) {                        \
      Mismatch((what), 0U, 0U, __LINE__); \
    }                                     \
  } while (false)

#define FUZZ_CHECK_EQ(actual, expected, what)            \
  do {                                                   \
    const auto fuzz_a = static_cast<uint64_t>(actual);   \
    const auto fuzz_e = static_cast<uint64_t>(expected); \
    if (fuzz_a != fuzz_e) {                              \
      Mismatch((what), fuzz_a, fuzz_e, __LINE__);        \
    }                                                    \
  } while (false)

// ----- input ---------------------------------------------------------------------------------

class Input {
 public:
  Input(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool Exhausted() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : uint8_t{0}; }
  uint32_t U16() {
    const uint32_t lo = Byte();
    return lo | (static_cast<uint32_t>(Byte()) << 8U);
  }
  uint64_t U64() {
    uint64_t v = 0U;
    for (unsigned i = 0U; i < 8U; ++i) {
      v |= static_cast<uint64_t>(Byte()) << (8U * i);
    }
    return v;
  }

 private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0U;
};

// ----- payloads --------------------------------------------------------------------------------

constexpr uint64_t Mix(uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

uint64_t g_salt = 0U;      // per input, so contents differ between inputs
long g_live_text = 0;      // live Text payload objects (anywhere)
long g_live_captures = 0;  // live CaptureToken objects (inside subscriber callables)

/// Armed by the harness around one PublishEmplace<Small>: Small's constructor, running inside
/// the claimed slot, calls it once (and disarms it), as a signal handler that interrupts its
/// thread's publish would publish.
void (*g_in_constructor)(void*) = nullptr;
void* g_in_constructor_context = nullptr;

/// Alternative 0: trivially copyable, nothrow everything.
struct Small {
  explicit Small(uint32_t s) noexcept : seq(s), check(Mix(s ^ g_salt)) {
    if (g_in_constructor != nullptr) {
      void (*const nested)(void*) = g_in_constructor;
      g_in_constructor = nullptr;
      nested(g_in_constructor_context);
    }
  }
  bool Intact() const noexcept { return check == Mix(seq ^ g_salt); }
  uint32_t seq;
  uint64_t check;
};

/// Alternative 1: larger, nothrow.
struct Big {
  explicit Big(uint32_t s) noexcept : seq(s) {
    for (std::size_t i = 0U; i < words.size(); ++i) {
      words[i] = Mix((static_cast<uint64_t>(s) << 3U) + i + g_salt);
    }
  }
  bool Intact() const noexcept {
    for (std::size_t i = 0U; i < words.size(); ++i) {
      if (words[i] != Mix((static_cast<uint64_t>(seq) << 3U) + i + g_salt)) {
        return false;
      }
    }
    return true;
  }
  uint32_t seq;
  std::array<uint64_t, 5> words{};
};

/// Counts live instances, so the model can prove every payload is destroyed exactly once.
struct LiveText {
  LiveText() noexcept { ++g_live_text; }
  LiveText(const LiveText&) noexcept { ++g_live_text; }
  LiveText(LiveText&&) noexcept { ++g_live_text; }
  LiveText& operator=(const LiveText&) noexcept = default;
  LiveText& operator=(LiveText&&) noexcept = default;
  ~LiveText() { --g_live_text; }
};

std::string TextFor(uint32_t seq) {
  // 0..69 characters: both sides of the small-string optimisation (heap for the long ones).
  const std::size_t length = static_cast<std::size_t>((seq * 7U + g_salt) % 70U);
  std::string text(length, 'a');
  for (std::size_t i = 0U; i < length; ++i) {
    text[i] = static_cast<char>('a' + static_cast<char>((seq + i) % 26U));
  }
  return text;
}

/// Alternative 2: owns heap memory, may throw on construction and copy (std::string), nothrow
/// move (the bus requires it).
struct Text {
  explicit Text(uint32_t s) : seq(s), text(TextFor(s)) {}
  Text(const Text&) = default;
  Text(Text&&) noexcept = default;
  Text& operator=(const Text&) = default;
  Text& operator=(Text&&) noexcept = default;
  ~Text() = default;
  bool Intact() const { return text == TextFor(seq); }
  uint32_t seq;
  std::string text;
  LiveText live;
};

long g_live_clouds = 0;  // live Cloud objects (in pool blocks, or copies)

/// Alternative 3, as mccc::Loaned<Cloud>: built in a pool block by Loan, filled in place. Its
/// default constructor leaves the points unset (as Loan<T>() default-initialises), the other
/// fills them.
struct Cloud {
  Cloud() noexcept { ++g_live_clouds; }
  Cloud(uint32_t s, uint8_t f) noexcept {
    ++g_live_clouds;
    Fill(s, f);
  }
  Cloud(const Cloud& other) noexcept : seq(other.seq), fill(other.fill), points(other.points) {
    ++g_live_clouds;
  }
  Cloud& operator=(const Cloud&) = delete;
  ~Cloud() { --g_live_clouds; }

  static uint64_t PointFor(uint32_t s, uint8_t f, std::size_t i) noexcept {
    return Mix((static_cast<uint64_t>(s) << 16U) ^ (static_cast<uint64_t>(f) << 8U) ^ i ^ g_salt);
  }
  void Fill(uint32_t s, uint8_t f) noexcept {
    seq = s;
    fill = f;
    for (std::size_t i = 0U; i < points.size(); ++i) {
      points[i] = PointFor(s, f, i);
    }
  }
  bool Intact() const noexcept {
    for (std::size_t i = 0U; i < points.size(); ++i) {
      if (points[i] != PointFor(seq, fill, i)) {
        return false;
      }
    }
    return true;
  }
  uint32_t seq;
  uint8_t fill;
  std::array<uint64_t, 12> points;
};

using Payload = std::variant<Small, Big, Text, mccc::Loaned<Cloud>>;
constexpr uint32_t kInlineTypes = 3U;  // Small, Big, Text: published inline
constexpr uint32_t kTypes = 4U;        // and Cloud, by loan
constexpr uint8_t kCloudType = 3U;

template <typename T>
constexpr uint8_t kIndexOf = std::is_same_v<T, Small>
                                 ? 0U
                                 : (std::is_same_v<T, Big> ? 1U
                                                           : (std::is_same_v<T, Text> ? 2U : 3U));

/// The alternative that carries T.
template <typename T>
using AlternativeOf = std::conditional_t<std::is_same_v<T, Cloud>, mccc::Loaned<Cloud>, T>;

/// Lives inside subscriber callables: counts them and detects use after destruction.
struct CaptureToken {
  static constexpr uint32_t kAlive = 0xC0FFEE11U;
  CaptureToken() noexcept { ++g_live_captures; }
  CaptureToken(const CaptureToken&) noexcept { ++g_live_captures; }
  CaptureToken(CaptureToken&&) noexcept { ++g_live_captures; }
  CaptureToken& operator=(const CaptureToken&) = delete;
  CaptureToken& operator=(CaptureToken&&) = delete;
  ~CaptureToken() {
    canary = 0xDEADU;
    --g_live_captures;
  }
  bool Alive() const noexcept { return canary == kAlive; }
  uint32_t canary = kAlive;
};

struct FuzzThrow {};

// ----- model -----------------------------------------------------------------------------------

struct ModelMessage {
  uint32_t seq;
  uint8_t type;
  MessagePriority priority;
  uint32_t sender;
  bool fast;  // PublishFast: the timestamp is the caller's
  uint64_t timestamp;
};

struct ModelStats {
  std::array<uint64_t, mccc::kPriorityCount> published{};
  std::array<uint64_t, mccc::kPriorityCount> dropped{};
  uint64_t processed = 0U;
  uint64_t errors = 0U;
};

/// The pool's counters as the model expects them.
struct ModelLoanStats {
  uint64_t granted = 0U;
  std::array<uint64_t, mccc::kPriorityCount> refused{};
  uint64_t high_water = 0U;  // counted at grants in FULL_FEATURED; reset to the blocks in use
};

/// A loan the producer holds (granted, not published yet).
struct HeldLoan {
  uint32_t seq;
  uint8_t fill;
  MessagePriority priority;  // the pool admitted it at this priority
  mccc::MessageLoan<Cloud> loan;
};

/// A handle a subscriber (or the visitor) kept beyond its callback, or a copy of one.
struct HeldRetained {
  uint32_t seq;
  uint8_t fill;
  mccc::Retained<Cloud> handle;
};

/// kRetain: a Cloud subscriber keeps the message beyond its callback (no effect on other types).
enum class Action : uint8_t {
  kNone,
  kUnsubscribeSelf,
  kUnsubscribeOther,
  kSubscribeNew,
  kThrow,
  kRetain
};
constexpr uint32_t kActions = 6U;

struct Behavior {
  uint8_t form = 1U;          // 0: (envelope), 1: (T, header), 2: (T)
  bool returns_bool = false;  // false: void
  uint8_t fail_mod = 0U;      // returns false when seq % fail_mod == 0 (0: never)
  Action action = Action::kNone;
  uint8_t action_mod = 1U;  // the action runs when seq % action_mod == 0
};

struct Subscriber {
  uint8_t type;
  Behavior behavior;
  SubscriptionHandle handle;
  bool live;
};

enum class EventKind : uint8_t { kCall, kVisit, kAdd, kRemove, kError };

/// What happened during one bus call, in order (callbacks, visitor, error callback).
struct Event {
  EventKind kind;
  uint32_t sub;  // kCall / kAdd / kRemove
  uint32_t seq;  // the message being dispatched (tag of kAdd / kRemove)
  bool ok;       // call result / subscribe or unsubscribe result
  bool has_header;
  MessageHeader header;
  BusError error;
  uint64_t id;
};

std::vector<Event>* g_events = nullptr;  // where the error callback records

void RecordError(BusError error, uint64_t id) {
  if (g_events == nullptr) {
    std::abort();  // the error callback of a bus that is not under test
  }
  Event e{};
  e.kind = EventKind::kError;
  e.error = error;
  e.id = id;
  g_events->push_back(e);
}

constexpr std::array<uint64_t, mccc::kPriorityCount> kAdmitPercent = {60U, 80U, 99U};

// ----- the harness -------------------------------------------------------------------------------

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
  static constexpr bool kHighLane = kHighDepth > 0U;
  // Several rings: ids are given at delivery, and QUEUE_FULL reports the next one to deliver.
  static constexpr bool kDeliveryOrderIds = kHighLane || Bus::LaneCount() > 0U;
  static constexpr uint64_t kPool = Bus::TraitsType::kCloudBlocks;  // blocks of Cloud's pool

  Harness(Input& in, bool near_wrap, uint8_t wrap_distance, bool drain_at_end)
      : in_(in), drain_at_end_(drain_at_end) {
    if (near_wrap) {
      start_ = static_cast<Position>(std::numeric_limits<Position>::max() - wrap_distance);
      first_id_ = static_cast<uint64_t>(start_) + 1U;  // msg_id = position + 1, as from 0
      bus_ = std::make_unique<Bus>(start_, first_id_);
    } else {
      bus_ = std::make_unique<Bus>();
    }
    foreign_ = std::make_unique<Bus>();
    g_events = &log_;
    if constexpr (Bus::LaneCount() > 0U) {
      // This thread publishes everything: its identity selects its ring for the whole input.
      const uint32_t identity = mccc::detail::ThisThreadShard();
      if (identity < Bus::LaneCount()) {
        own_ring_ = identity;
        normal_depth_ = Bus::kLaneDepth;
      } else {
        own_ring_ = Bus::LaneCount();
      }
    }
  }

  ~Harness() { g_events = nullptr; }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  void Run() {
    for (uint32_t ops = 0U; ops < kMaxOps && !in_.Exhausted(); ++ops) {
      Step(in_.Byte());
      AfterOperation();
    }
    CheckStatistics();
    CheckIntrospection();
    if (drain_at_end_) {
      Drain(0U);
      FUZZ_CHECK_EQ(bus_->QueueOccupancy(), 0U, "queue not empty after draining");
      CheckStatistics();
    }
    // Every loan and retained handle goes (each checked intact first): only the queued Cloud
    // messages keep blocks, none after a drain.
    while (!loans_.empty()) {
      DropLoan(0U, static_cast<uint8_t>(loans_.size()));
    }
    while (!retained_.empty()) {
      ReleaseRetained(0U, static_cast<uint8_t>(retained_.size()));
    }
    AfterOperation();
    FUZZ_CHECK_EQ(bus_->template GetLoanStatistics<Cloud>().in_use, QueuedClouds(),
                  "blocks in use once every loan and retained handle is gone");
    if (drain_at_end_) {
      FUZZ_CHECK_EQ(bus_->template GetLoanStatistics<Cloud>().in_use, 0U,
                    "a block did not come back to the pool");
      // The whole pool is usable again: kPool HIGH loans are granted, one more is refused.
      for (uint64_t i = 0U; i <= kPool; ++i) {
        static_cast<void>(LoanOne(kHighPriorityByte, (i & 1U) != 0U, static_cast<uint8_t>(i)));
        AfterOperation();
      }
      FUZZ_CHECK_EQ(loans_.size(), kPool, "HIGH loans granted from the emptied pool");
      CheckStatistics();
      while (!loans_.empty()) {
        DropLoan(0U, 0U);
      }
      AfterOperation();
    }
    // Destroys queued payloads and all subscriptions (the counters must return to zero).
    bus_.reset();
    foreign_.reset();
    FUZZ_CHECK_EQ(g_live_text, 0, "Text payloads alive after the bus was destroyed");
    FUZZ_CHECK_EQ(g_live_clouds, 0, "Cloud messages alive after the bus was destroyed");
    FUZZ_CHECK_EQ(g_live_captures, 0, "callback captures alive after the bus was destroyed");
  }

 private:
  // ---- operations ------------------------------------------------------------------------------

  void Step(uint8_t opcode) {
    const uint8_t op = static_cast<uint8_t>(opcode % 28U);
    if (op <= 6U) {
      // One byte after the other: the order in which a call's arguments are evaluated is
      // unspecified (GCC goes right to left), and the input format names this order.
      const uint8_t type = in_.Byte();
      const uint8_t priority = in_.Byte();
      const uint8_t sender = in_.Byte();
      PublishOne(op, type, priority, sender);
      return;
    }
    switch (op) {
      case 7U: {  // burst: up to 255 publishes of one kind (fills any queue); api 7: one batch
        const uint32_t count = in_.Byte();
        const uint8_t api = static_cast<uint8_t>(in_.Byte() % 8U);
        const uint8_t type = in_.Byte();
        const uint8_t priority = in_.Byte();
        if (api == kApiBatch) {
          PublishBatchChecked(count, type, priority);
          break;
        }
        for (uint32_t i = 0U; i < count; ++i) {
          PublishOne(api,
                     static_cast<uint8_t>(type + (i % 3U) * (static_cast<uint32_t>(type) >> 7U)),
                     priority, static_cast<uint8_t>(i));
        }
        break;
      }
      case 8U:
        ProcessBatchChecked();
        break;
      case 9U:
        ProcessBatchWithChecked(in_.Byte());
        break;
      case 10U:
        Drain(in_.Byte());
        break;
      case 11U:
      case 12U: {
        const uint8_t a = in_.Byte();
        const uint8_t b = in_.Byte();
        Behavior behavior;
        behavior.form = static_cast<uint8_t>((a / kTypes) % 3U);
        behavior.returns_bool = ((a / (3U * kTypes)) & 1U) != 0U;
        behavior.fail_mod = static_cast<uint8_t>(b & 7U);
        behavior.action = static_cast<Action>(((static_cast<uint32_t>(b) >> 3U) & 7U) % kActions);
        behavior.action_mod = static_cast<uint8_t>((static_cast<uint32_t>(b) >> 6U) + 1U);
        static_cast<void>(DoSubscribe(static_cast<uint8_t>(a % kTypes), behavior));
        break;
      }
      case 13U:
        UnsubscribeVariant(in_.Byte());
        break;
      case 14U: {
        constexpr std::array<PerformanceMode, 3> kModes = {
            PerformanceMode::FULL_FEATURED, PerformanceMode::NO_STATS, PerformanceMode::BARE_METAL};
        mode_ = kModes[in_.Byte() % 3U];
        bus_->SetPerformanceMode(mode_);
        break;
      }
      case 15U:
        bus_->ResetStatistics();
        stats_ = ModelStats{};
        loan_stats_ = ModelLoanStats{};
        loan_stats_.high_water = BlocksInUse();  // the mark restarts from the blocks in use
        break;
      case 16U:
        CheckStatistics();
        break;
      case 17U:
        CheckIntrospection();
        break;
      case 18U:
        error_callback_set_ = (in_.Byte() & 1U) == 0U;
        bus_->SetErrorCallback(error_callback_set_ ? &RecordError : nullptr);
        break;
      case 19U:
        ForeignOperation(in_.Byte());
        break;
      case 20U: {  // Loan<Cloud>(priority[, seq, fill]) and fill it
        const uint8_t priority = in_.Byte();
        const uint8_t how = in_.Byte();
        static_cast<void>(LoanOne(priority, (how & 1U) != 0U, in_.Byte()));
        break;
      }
      case 21U: {  // publish a held loan (or an empty one)
        const std::size_t pick = in_.Byte();
        const uint8_t api = in_.Byte();
        const uint8_t priority = in_.Byte();
        PublishLoan(pick, api, priority, in_.Byte());
        break;
      }
      case 22U: {  // give a held loan back unpublished
        const uint8_t pick = in_.Byte();
        DropLoan(pick, in_.Byte());
        break;
      }
      case 23U: {  // write a held loan's message again, in place
        const uint8_t pick = in_.Byte();
        RefillLoan(pick, in_.Byte());
        break;
      }
      case 24U: {  // one more reference from a retained handle
        const uint8_t pick = in_.Byte();
        RetainAgain(pick, in_.Byte());
        break;
      }
      case 25U: {  // let a retained handle go
        const uint8_t pick = in_.Byte();
        ReleaseRetained(pick, in_.Byte());
        break;
      }
      case 27U: {  // a loan of the second bus published here, then on its own bus
        const uint8_t priority = in_.Byte();
        const uint8_t api = in_.Byte();
        ForeignLoan(priority, api, in_.Byte());
        break;
      }
      default: {  // loan burst: up to 255 loans of one priority, each published at once or kept
        const uint32_t count = in_.Byte();
        const uint8_t priority = in_.Byte();
        const uint8_t api = in_.Byte();
        for (uint32_t i = 0U; i < count; ++i) {
          const std::size_t held =
              LoanOne(priority, (i & 1U) != 0U, static_cast<uint8_t>(next_seq_ * 5U));
          if (held != kNoLoan && api % kLoanApis != kKeepLoan) {
            PublishHeldLoan(held, api, priority, static_cast<uint8_t>(i));
          }
        }
        break;
      }
    }
  }

  /// Invariants that hold between any two operations.
  void AfterOperation() {
    FUZZ_CHECK(log_.empty(), "an event nobody explained");
    FUZZ_CHECK_EQ(bus_->QueueOccupancy(), Queued(), "QueueDepth");
    long queued_text = 0;
    for (const std::deque<ModelMessage>* fifo : {&normal_, &high_}) {
      for (const ModelMessage& m : *fifo) {
        queued_text += m.type == 2U ? 1 : 0;
      }
    }
    FUZZ_CHECK_EQ(g_live_text, queued_text, "live Text payloads != Text messages queued");
    FUZZ_CHECK_EQ(g_live_captures, live_total_ + foreign_live_,
                  "live callback captures != live subscriptions (leaked or destroyed early)");
    const uint64_t blocks = BlocksInUse();
    FUZZ_CHECK_EQ(bus_->template GetLoanStatistics<Cloud>().in_use, blocks,
                  "blocks in use != loans held + messages queued or retained (one block each)");
    FUZZ_CHECK_EQ(bus_->GetStatistics().loan_blocks_in_use, blocks,
                  "GetStatistics().loan_blocks_in_use");
    FUZZ_CHECK_EQ(g_live_clouds, blocks,
                  "live Cloud messages != blocks in use (destroyed twice, early or never)");
  }

  // ---- loans -----------------------------------------------------------------------------------

  static constexpr std::size_t kNoLoan = static_cast<std::size_t>(-1);
  static constexpr uint8_t kHighPriorityByte = 4U;  // DecodePriority: HIGH
  // Publish-loan apis (byte % kLoanApis): 0 Publish (the loan's priority), 1 PublishWithPriority,
  // 2 PublishFast, 3 through a Loaned<Cloud> handle, 4 an empty loan (op 21) / keep it (bursts).
  static constexpr uint8_t kLoanApis = 5U;
  static constexpr uint8_t kKeepLoan = 4U;

  /// Blocks the model says are in use: every held loan has its own; a message that is queued or
  /// retained (by any number of handles) has one.
  uint64_t BlocksInUse() const {
    std::set<uint32_t> shared;
    for (const std::deque<ModelMessage>* fifo : {&normal_, &high_}) {
      for (const ModelMessage& m : *fifo) {
        if (m.type == kCloudType) {
          shared.insert(m.seq);
        }
      }
    }
    for (const HeldRetained& r : retained_) {
      shared.insert(r.seq);
    }
    return loans_.size() + shared.size();
  }

  uint64_t QueuedClouds() const {
    uint64_t n = 0U;
    for (const std::deque<ModelMessage>* fifo : {&normal_, &high_}) {
      for (const ModelMessage& m : *fifo) {
        n += m.type == kCloudType ? 1U : 0U;
      }
    }
    return n;
  }

  /// Blocks in use at or above which a loan of (valid) `priority` is refused, derived here from
  /// the documented percentages: LOW and MEDIUM as the ring's, MEDIUM leaving HIGH one block.
  uint64_t LoanLimit(MessagePriority priority) const {
    if (mode_ == PerformanceMode::BARE_METAL) {
      return kPool;
    }
    const auto ceil_percent = [](uint64_t percent) { return (percent * kPool + 99U) / 100U; };
    const uint64_t medium = std::min<uint64_t>(ceil_percent(80U), kPool - 1U);
    switch (priority) {
      case MessagePriority::LOW:
        return std::min<uint64_t>(ceil_percent(60U), medium);
      case MessagePriority::MEDIUM:
        return medium;
      default:
        return kPool;
    }
  }

  /// One Loan<Cloud>, checked against the pool model; fills the message (through the loan, or
  /// by the constructor when `with_args`). Returns the index in loans_, or kNoLoan if refused.
  std::size_t LoanOne(uint8_t priority_byte, bool with_args, uint8_t fill) {
    const uint32_t seq = next_seq_++;
    const MessagePriority priority = DecodePriority(priority_byte);
    const auto p = static_cast<std::size_t>(priority);
    const bool valid = p < mccc::kPriorityCount;
    const uint64_t in_use = BlocksInUse();
    const bool expected = valid && in_use < LoanLimit(priority);
    mccc::MessageLoan<Cloud> loan = with_args ? bus_->template Loan<Cloud>(priority, seq, fill)
                                              : bus_->template Loan<Cloud>(priority);
    FUZZ_CHECK_EQ(static_cast<bool>(loan), expected,
                  "Loan granted / refused (pool admission by priority, blocks in use)");
    const bool reporting = Reporting();
    if (!valid) {
      FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "INVALID_MESSAGE reports (loan)");
      if (reporting) {
        FUZZ_CHECK(log_[0].error == BusError::INVALID_MESSAGE && log_[0].id == 0U,
                   "loan with a bad priority: wrong error");
      }
      log_.clear();
      return kNoLoan;
    }
    if (!loan) {
      FUZZ_CHECK(loan.Get() == nullptr, "a refused loan points somewhere");
      if (mode_ == PerformanceMode::FULL_FEATURED) {
        ++loan_stats_.refused[p];
      }
      FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "LOAN_REFUSED reports for one refusal");
      if (reporting) {
        FUZZ_CHECK(log_[0].kind == EventKind::kError && log_[0].error == BusError::kLoanRefused,
                   "loan refusal: wrong error");
        FUZZ_CHECK_EQ(log_[0].id, 0U, "LOAN_REFUSED carries msg_id 0");
      }
      log_.clear();
      return kNoLoan;
    }
    FUZZ_CHECK(log_.empty(), "a granted loan reported an error");
    FUZZ_CHECK(loan.Priority() == priority, "the loan's priority is not the one it was loaned at");
    FUZZ_CHECK(loan.Get() == &*loan && loan.operator->() == loan.Get(), "loan accessors differ");
    for (const HeldLoan& other : loans_) {
      FUZZ_CHECK(other.loan.Get() != loan.Get(), "one block loaned twice");
    }
    for (const HeldRetained& r : retained_) {
      FUZZ_CHECK(r.handle.Get() != loan.Get(), "a retained block loaned again");
    }
    if (!with_args) {
      loan->Fill(seq, fill);
    }
    FUZZ_CHECK(loan->seq == seq && loan->fill == fill && loan->Intact(), "loan contents");
    if (mode_ == PerformanceMode::FULL_FEATURED) {
      ++loan_stats_.granted;
      loan_stats_.high_water = std::max<uint64_t>(loan_stats_.high_water, in_use + 1U);
    }
    loans_.push_back(HeldLoan{seq, fill, priority, std::move(loan)});
    return loans_.size() - 1U;
  }

  void CheckHeldLoan(const HeldLoan& held) const {
    FUZZ_CHECK(static_cast<bool>(held.loan), "a held loan is empty");
    FUZZ_CHECK(held.loan->seq == held.seq && held.loan->fill == held.fill && held.loan->Intact(),
               "a held loan's message changed (its block written by someone else?)");
    FUZZ_CHECK(held.loan.Priority() == held.priority, "a held loan's priority changed");
  }

  void CheckRetained(const HeldRetained& r) const {
    FUZZ_CHECK(static_cast<bool>(r.handle) && r.handle.Get() == &*r.handle &&
                   r.handle.operator->() == r.handle.Get(),
               "a retained handle is empty or its accessors differ");
    FUZZ_CHECK(r.handle->seq == r.seq && r.handle->fill == r.fill && r.handle->Intact(),
               "a retained message changed (its block reused while retained?)");
  }

  /// Op 21: publishes held loan `pick`; with no loan held, or api 4, an empty loan.
  void PublishLoan(std::size_t pick, uint8_t api, uint8_t priority_byte, uint8_t sender) {
    if (loans_.empty() || api % kLoanApis == kKeepLoan) {
      mccc::MessageLoan<Cloud> empty;
      const bool admitted =
          (api & 8U) != 0U
              ? bus_->PublishWithPriority(std::move(empty), sender, DecodePriority(priority_byte))
              : bus_->Publish(std::move(empty), sender);
      FUZZ_CHECK(!admitted, "an empty loan was published");
      const bool reporting = Reporting();
      FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "INVALID_MESSAGE reports (empty loan)");
      if (reporting) {
        FUZZ_CHECK(log_[0].error == BusError::INVALID_MESSAGE, "empty loan: wrong error");
      }
      log_.clear();
      return;
    }
    PublishHeldLoan(pick % loans_.size(), api, priority_byte, sender);
  }

  /// Publishes loans_[index] through api % kLoanApis (0 to 3), checked as an inline publish is:
  /// moved from when admitted, untouched when refused.
  void PublishHeldLoan(std::size_t index, uint8_t api, uint8_t priority_byte, uint8_t sender) {
    HeldLoan& held = loans_[index];
    CheckHeldLoan(held);
    const MessagePriority given = DecodePriority(priority_byte);
    const Cloud* const where = held.loan.Get();
    const uint32_t seq = held.seq;
    const uint8_t fill = held.fill;
    const uint64_t timestamp = Mix(seq) >> 8U;
    MessagePriority effective = given;
    bool fast = false;
    bool admitted = false;
    bool handle_gone = false;  // the loan became a Loaned handle, which a refusal destroys
    switch (api % kLoanApis) {
      case 0U:
        admitted = bus_->Publish(std::move(held.loan), sender);
        effective = held.priority;
        break;
      case 1U:
        admitted = bus_->PublishWithPriority(std::move(held.loan), sender, given);
        break;
      case 2U:
        admitted = bus_->PublishFast(std::move(held.loan), sender, timestamp, given);
        fast = true;
        break;
      default: {
        mccc::Loaned<Cloud> handle(std::move(held.loan));
        FUZZ_CHECK(!held.loan && handle && handle.Get() == where,
                   "Loaned<Cloud>(std::move(loan)) did not take the loan over");
        admitted = bus_->PublishWithPriority(std::move(handle), sender, given);
        FUZZ_CHECK(admitted ? !handle : (handle && handle.Get() == where && handle->Intact()),
                   "a Loaned handle: moved from when admitted, untouched when refused");
        handle_gone = true;
        break;  // a refused handle returns its block here
      }
    }
    if (!handle_gone) {
      if (admitted) {
        FUZZ_CHECK(!held.loan && held.loan.Get() == nullptr, "an admitted loan was not moved from");
      } else {
        FUZZ_CHECK(held.loan.Get() == where, "a refused publish took the loan's block");
        CheckHeldLoan(held);
      }
    }
    if (admitted || handle_gone) {
      loans_.erase(loans_.begin() + static_cast<std::ptrdiff_t>(index));
    }
    if (admitted) {
      published_fill_[seq] = fill;
    }
    ExpectPublish(admitted, ModelMessage{seq, kCloudType, effective, sender, fast, timestamp});
  }

  /// What the second bus's visitor sees: its one Cloud (no other type is published there).
  struct ForeignVisitor {
    const Cloud* block;
    uint32_t* clouds;
    MessageHeader* header;
    bool* intact;
    void operator()(const Small&) const { std::abort(); }
    void operator()(const Big&) const { std::abort(); }
    void operator()(const Text&) const { std::abort(); }
    void operator()(const Cloud& m, const MessageHeader& h) const {
      ++*clouds;
      *header = h;
      *intact = &m == block && m.Intact();
    }
  };

  /// Op 27: a loan of the second bus (foreign_), filled, published on this bus through api % 4
  /// (Publish, PublishWithPriority, PublishFast, a Loaned handle): refused with FOREIGN_LOAN
  /// (msg_id 0) before anything is queued or counted, and left with the caller, intact. Then
  /// published on its own bus and dispatched there (a visitor: its subscribers must never run)
  /// as the same block, after which that pool is empty again. This bus's model is unchanged, so
  /// AfterOperation checks that its pool stayed exact.
  void ForeignLoan(uint8_t priority_byte, uint8_t api, uint8_t sender) {
    MessagePriority priority = DecodePriority(priority_byte);
    if (static_cast<std::size_t>(priority) >= mccc::kPriorityCount) {
      priority = MessagePriority::HIGH;
    }
    const uint32_t seq = next_seq_++;
    const auto fill = static_cast<uint8_t>(seq * 7U);
    mccc::MessageLoan<Cloud> loan = foreign_->template Loan<Cloud>(priority, seq, fill);
    if (!loan) {  // its empty pool refuses only LOW / MEDIUM loans of a pool too small for them
      FUZZ_CHECK(priority != MessagePriority::HIGH, "the second bus refused a HIGH loan");
      return;
    }
    const Cloud* const where = loan.Get();
    const bool reporting = Reporting();
    const auto check_refused = [this, reporting](bool admitted) {
      FUZZ_CHECK(!admitted, "a loan of another bus was published here");
      FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "FOREIGN_LOAN reports for one refusal");
      if (reporting) {
        FUZZ_CHECK(log_[0].kind == EventKind::kError && log_[0].error == BusError::kForeignLoan,
                   "a foreign loan: wrong error");
        FUZZ_CHECK_EQ(log_[0].id, 0U, "FOREIGN_LOAN carries msg_id 0");
      }
      log_.clear();
    };
    bool own_bus_published = false;
    MessagePriority delivered_at = priority;
    switch (api % 4U) {
      case 0U:
        check_refused(bus_->Publish(std::move(loan), sender));
        break;
      case 1U:
        check_refused(bus_->PublishWithPriority(std::move(loan), sender, priority));
        break;
      case 2U:
        check_refused(bus_->PublishFast(std::move(loan), sender, Mix(seq) >> 8U, priority));
        break;
      default: {
        mccc::Loaned<Cloud> handle(std::move(loan));
        check_refused(bus_->Publish(std::move(handle), sender));
        FUZZ_CHECK(handle && handle.Get() == where && handle->seq == seq && handle->fill == fill &&
                       handle->Intact(),
                   "a refused foreign Loaned handle changed");
        own_bus_published = foreign_->Publish(std::move(handle), sender);
        delivered_at = MessagePriority::MEDIUM;  // a Loaned handle has no priority of its own
        break;
      }
    }
    if (api % 4U != 3U) {
      FUZZ_CHECK(loan && loan.Get() == where && loan->seq == seq && loan->fill == fill &&
                     loan->Intact() && loan.Priority() == priority,
                 "a refused foreign loan changed (block, contents or priority)");
      own_bus_published = foreign_->Publish(std::move(loan), sender);
    }
    FUZZ_CHECK(own_bus_published, "the loan refused here was not published on its own bus");
    FUZZ_CHECK_EQ(foreign_->QueueOccupancy(), 1U, "the second bus's queue");
    FUZZ_CHECK_EQ(foreign_->template GetLoanStatistics<Cloud>().in_use, 1U,
                  "the second bus's pool while its loan is queued there");
    uint32_t clouds = 0U;
    MessageHeader header{};
    bool intact = false;
    FUZZ_CHECK_EQ(foreign_->ProcessBatchWith(ForeignVisitor{where, &clouds, &header, &intact}), 1U,
                  "the second bus dispatched its loan");
    FUZZ_CHECK(clouds == 1U && intact, "the second bus delivered another block, or changed");
    FUZZ_CHECK(header.priority == delivered_at && header.sender_id == sender,
               "the second bus's header of its loan");
    FUZZ_CHECK_EQ(foreign_->template GetLoanStatistics<Cloud>().in_use, 0U,
                  "the second bus's pool after its loan was dispatched");
  }

  /// Op 22: gives held loan `pick` back unpublished: Reset, destruction, or assignment of an
  /// empty loan over it.
  void DropLoan(uint8_t pick, uint8_t how) {
    if (loans_.empty()) {
      return;
    }
    const std::size_t index = pick % loans_.size();
    HeldLoan& held = loans_[index];
    CheckHeldLoan(held);
    switch (how % 3U) {
      case 0U:
        held.loan.Reset();
        FUZZ_CHECK(!held.loan && held.loan.Get() == nullptr, "Reset left the loan non-empty");
        break;
      case 1U:
        break;  // destroyed by the erase below
      default:
        held.loan = mccc::MessageLoan<Cloud>{};
        FUZZ_CHECK(!held.loan, "an empty loan assigned over a loan left it non-empty");
        break;
    }
    loans_.erase(loans_.begin() + static_cast<std::ptrdiff_t>(index));
  }

  /// Op 23: the producer writes a held loan's message again (in place, before publishing).
  void RefillLoan(uint8_t pick, uint8_t fill) {
    if (loans_.empty()) {
      return;
    }
    HeldLoan& held = loans_[pick % loans_.size()];
    CheckHeldLoan(held);
    held.loan->Fill(held.seq, fill);
    held.fill = fill;
  }

  /// Op 24: one more reference to retained message `pick`: a copy of the handle, bus.Retain
  /// through it, a copy assigned over another handle (dropping that one's reference), or a move
  /// into a new handle.
  void RetainAgain(uint8_t pick, uint8_t how) {
    if (retained_.empty()) {
      return;
    }
    const std::size_t index = pick % retained_.size();
    CheckRetained(retained_[index]);
    const uint32_t seq = retained_[index].seq;
    const uint8_t fill = retained_[index].fill;
    const Cloud* const where = retained_[index].handle.Get();
    switch (how % 4U) {
      case 0U: {
        mccc::Retained<Cloud> copy(retained_[index].handle);
        FUZZ_CHECK(copy.Get() == where, "a copied Retained refers to another message");
        retained_.push_back(HeldRetained{seq, fill, std::move(copy)});
        break;
      }
      case 1U: {
        mccc::Retained<Cloud> again = bus_->Retain(*retained_[index].handle);
        FUZZ_CHECK(again && again.Get() == where, "Retain through a retained handle failed");
        retained_.push_back(HeldRetained{seq, fill, std::move(again)});
        break;
      }
      case 2U: {  // the target may be the source itself (self-assignment)
        HeldRetained& target = retained_[(index + 1U) % retained_.size()];
        target.handle = retained_[index].handle;
        target.seq = seq;
        target.fill = fill;
        FUZZ_CHECK(target.handle.Get() == where, "an assigned Retained refers to another message");
        break;
      }
      default: {
        HeldRetained moved{seq, fill, std::move(retained_[index].handle)};
        FUZZ_CHECK(!retained_[index].handle && moved.handle.Get() == where,
                   "a moved Retained: source empty, target the message");
        retained_.erase(retained_.begin() + static_cast<std::ptrdiff_t>(index));
        retained_.push_back(std::move(moved));
        break;
      }
    }
  }

  /// Op 25: drops retained handle `pick`: Reset, destruction, or an empty handle moved over it.
  void ReleaseRetained(uint8_t pick, uint8_t how) {
    if (retained_.empty()) {
      return;
    }
    const std::size_t index = pick % retained_.size();
    HeldRetained& r = retained_[index];
    CheckRetained(r);
    switch (how % 3U) {
      case 0U:
        r.handle.Reset();
        FUZZ_CHECK(!r.handle && r.handle.Get() == nullptr, "Reset left the handle non-empty");
        break;
      case 1U:
        break;  // destroyed by the erase below
      default:
        r.handle = mccc::Retained<Cloud>{};
        FUZZ_CHECK(!r.handle, "an empty handle moved over a handle left it non-empty");
        break;
    }
    retained_.erase(retained_.begin() + static_cast<std::ptrdiff_t>(index));
  }

  /// A delivered Cloud is what its producer filled in; neither a copy of it nor another bus can
  /// retain it.
  void CheckDeliveredCloud(const Cloud& m) {
    const auto it = published_fill_.find(m.seq);
    FUZZ_CHECK(it != published_fill_.end(), "a Cloud delivered that was never published");
    FUZZ_CHECK_EQ(m.fill, it->second, "delivered Cloud differs from what the producer filled in");
    const Cloud copy(m);
    FUZZ_CHECK(!bus_->Retain(copy), "Retain of a copy (not in a pool block) returned a handle");
    FUZZ_CHECK(!foreign_->Retain(m), "another bus retained this bus's message");
  }

  /// Keeps a delivered Cloud beyond its callback: through the slot's Loaned handle when the
  /// subscriber has the envelope, else bus.Retain.
  void RetainDelivered(const Cloud& m, const mccc::Loaned<Cloud>* slot) {
    mccc::Retained<Cloud> kept = slot != nullptr ? slot->Retain() : bus_->Retain(m);
    FUZZ_CHECK(kept && kept.Get() == &m, "Retain inside the callback: no handle, or another one");
    retained_.push_back(HeldRetained{m.seq, m.fill, std::move(kept)});
  }

  // ---- publishing ------------------------------------------------------------------------------

  static MessagePriority DecodePriority(uint8_t b) {
    switch (b % 8U) {
      case 0U:
      case 1U:
        return MessagePriority::LOW;
      case 2U:
      case 3U:
        return MessagePriority::MEDIUM;
      case 6U:  // not an enumerator: must be refused with INVALID_MESSAGE
        return static_cast<MessagePriority>(3U + (static_cast<uint32_t>(b) >> 3U));
      default:
        return MessagePriority::HIGH;
    }
  }

  static constexpr uint8_t kApiBatch = 7U;

  /// One PublishBatch of `count` messages (Small, or Big; Text's copy may throw, which
  /// PublishBatch refuses at compile time, so a Text burst is sent as Small). Expected: the
  /// longest prefix single publishes would admit one after another, each refused message counted
  /// as dropped, one QUEUE_FULL per call (with the first refused message's would-be id), one
  /// INVALID_MESSAGE and nothing else for a bad priority; the caller's array untouched.
  void PublishBatchChecked(uint32_t count, uint8_t type_byte, uint8_t priority_byte) {
    if ((type_byte % kInlineTypes) == 1U) {
      PublishBatchTyped<Big>(count, priority_byte);
    } else {
      PublishBatchTyped<Small>(count, priority_byte);
    }
  }

  template <typename T>
  void PublishBatchTyped(uint32_t count, uint8_t priority_byte) {
    const MessagePriority priority = DecodePriority(priority_byte);
    const auto p = static_cast<std::size_t>(priority);
    const bool valid = p < mccc::kPriorityCount;
    const uint32_t sender = 9U;
    std::vector<T> messages;
    messages.reserve(count);
    for (uint32_t i = 0U; i < count; ++i) {
      messages.emplace_back(next_seq_++);
    }
    const uint32_t admitted = bus_->PublishBatch(messages.data(), count, sender, priority);
    for (const T& m : messages) {
      FUZZ_CHECK(m.Intact(), "PublishBatch changed the caller's array");
    }
    uint32_t expected = 0U;
    if (valid) {
      while (expected < count && Admits(priority, expected)) {
        ++expected;
      }
    }
    FUZZ_CHECK_EQ(admitted, expected, "PublishBatch admitted a different prefix");
    const bool reporting = Reporting();
    if (!valid) {
      FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "INVALID_MESSAGE reports (batch)");
      if (reporting) {
        FUZZ_CHECK(log_[0].error == BusError::INVALID_MESSAGE, "batch, bad priority: wrong error");
      }
      log_.clear();
      return;
    }
    for (uint32_t i = 0U; i < admitted; ++i) {
      FifoFor(priority).push_back(
          ModelMessage{messages[i].seq, kIndexOf<T>, priority, sender, false, 0U});
    }
    admitted_total_ += admitted;
    if (mode_ == PerformanceMode::FULL_FEATURED) {
      stats_.published[p] += admitted;
      stats_.dropped[p] += count - admitted;
    }
    const bool refused_some = admitted != count;
    FUZZ_CHECK_EQ(log_.size(), refused_some && reporting ? 1U : 0U,
                  "QUEUE_FULL reports for one batch");
    if (refused_some && reporting) {
      FUZZ_CHECK(log_[0].kind == EventKind::kError && log_[0].error == BusError::QUEUE_FULL,
                 "batch refusal: wrong error");
      FUZZ_CHECK_EQ(log_[0].id, WouldBeId(),
                    "batch QUEUE_FULL id is not the first refused message's would-be id");
    }
    log_.clear();
  }

  void PublishOne(uint8_t api, uint8_t type_byte, uint8_t priority_byte, uint8_t sender) {
    const uint32_t seq = next_seq_++;
    const MessagePriority priority = DecodePriority(priority_byte);
    const uint64_t timestamp = Mix(seq) >> 8U;
    switch (type_byte % kInlineTypes) {
      case 0U:
        PublishTyped<Small>(api, seq, priority, sender, timestamp);
        break;
      case 1U:
        PublishTyped<Big>(api, seq, priority, sender, timestamp);
        break;
      default:
        PublishTyped<Text>(api, seq, priority, sender, timestamp);
        break;
    }
  }

  template <typename T>
  void PublishTyped(uint8_t api, uint32_t seq, MessagePriority priority, uint32_t sender,
                    uint64_t timestamp) {
    bool admitted = false;
    bool untouched = true;  // a refused message must not be moved from
    MessagePriority effective = priority;
    bool fast = false;
    switch (api) {
      case 0U: {  // Publish: MEDIUM
        T m(seq);
        admitted = bus_->Publish(std::move(m), sender);
        untouched = admitted || m.Intact();
        effective = MessagePriority::MEDIUM;
        break;
      }
      case 1U: {
        T m(seq);
        admitted = bus_->PublishWithPriority(std::move(m), sender, priority);
        untouched = admitted || m.Intact();
        break;
      }
      case 2U: {  // lvalue: copied, never moved
        const T m(seq);
        admitted = bus_->PublishWithPriority(m, sender, priority);
        untouched = m.Intact();
        break;
      }
      case 3U: {
        T m(seq);
        admitted = bus_->PublishFast(std::move(m), sender, timestamp, priority);
        untouched = admitted || m.Intact();
        fast = true;
        break;
      }
      case 4U: {  // PublishFast with its default priority (MEDIUM)
        T m(seq);
        admitted = bus_->PublishFast(std::move(m), sender, timestamp);
        untouched = admitted || m.Intact();
        effective = MessagePriority::MEDIUM;
        fast = true;
        break;
      }
      case 5U:  // in place (Text: its constructor may throw, so the bus builds a temporary)
        if constexpr (std::is_same_v<T, Small> && !Bus::TraitsType::kSingleProducer) {
          if ((sender & 0x80U) != 0U) {
            PublishEmplaceWithNested(seq, priority, sender);
            return;
          }
        }
        admitted = bus_->template PublishEmplace<T>(sender, priority, seq);
        break;
      default: {  // the whole variant
        Payload p(std::in_place_type<T>, seq);
        admitted = bus_->PublishWithPriority(std::move(p), sender, priority);
        untouched = admitted || (p.index() == kIndexOf<T> && std::get<T>(p).Intact());
        break;
      }
    }
    FUZZ_CHECK(untouched, "a refused publish moved from (or changed) the caller's message");
    ExpectPublish(admitted, ModelMessage{seq, kIndexOf<T>, effective, sender, fast, timestamp});
  }

  /// What a publish from inside the constructor of a message being built in its slot did
  /// (PublishEmplaceWithNested).
  struct NestedPublish {
    Harness* harness = nullptr;
    uint32_t seq = 0U;
    uint32_t sender = 0U;
    MessagePriority priority = MessagePriority::MEDIUM;
    bool ran = false;
    bool admitted = false;
    std::vector<Event> log;  // the error callback's reports during it
  };

  static void RunNested(void* context) {
    auto& nested = *static_cast<NestedPublish*>(context);
    Harness& self = *nested.harness;
    const std::size_t before = self.log_.size();
    nested.ran = true;
    nested.admitted =
        self.bus_->PublishWithPriority(Small(nested.seq), nested.sender, nested.priority);
    nested.log.assign(self.log_.begin() + static_cast<std::ptrdiff_t>(before), self.log_.end());
    self.log_.resize(before);
  }

  /// PublishEmplace<Small> whose constructor, running inside the claimed slot (a lane's, or a
  /// ring's), publishes one more Small of the same priority, as a signal handler interrupting
  /// the publish would (docs/porting.md "Signal handlers on hosted builds"; the handler area of a
  /// lane, ring/producer_lane.hpp). Documented outcome: the same as the two publishes one after the
  /// other, the interrupted one first (it was admitted, and claimed its place, before the inner
  /// one began), so the model applies them in that order.
  void PublishEmplaceWithNested(uint32_t seq, MessagePriority priority, uint32_t sender) {
    NestedPublish nested;
    nested.harness = this;
    nested.seq = next_seq_++;
    nested.sender = sender + 1U;
    nested.priority = priority;
    g_in_constructor_context = &nested;
    g_in_constructor = &RunNested;
    const bool admitted = bus_->template PublishEmplace<Small>(sender, priority, seq);
    g_in_constructor = nullptr;
    g_in_constructor_context = nullptr;
    FUZZ_CHECK_EQ(nested.ran, admitted, "the slot's constructor runs exactly when admitted");
    ExpectPublish(admitted, ModelMessage{seq, kIndexOf<Small>, priority, sender, false, 0U});
    if (nested.ran) {
      log_ = nested.log;
      ExpectPublish(nested.admitted,
                    ModelMessage{nested.seq, kIndexOf<Small>, priority, nested.sender, false, 0U});
    }
  }

  void ExpectPublish(bool admitted, const ModelMessage& m) {
    const auto p = static_cast<std::size_t>(m.priority);
    const bool valid = p < mccc::kPriorityCount;
    const bool expected = valid && Admits(m.priority, 0U);
    FUZZ_CHECK_EQ(admitted, expected, "admission decision (occupancy in the model is queue size)");
    const bool reporting = Reporting();
    if (admitted) {
      FifoFor(m.priority).push_back(m);
      ++admitted_total_;
      if (mode_ == PerformanceMode::FULL_FEATURED) {
        ++stats_.published[p];
      }
      FUZZ_CHECK(log_.empty(), "an admitted publish reported an error");
      return;
    }
    if (!valid) {
      FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "INVALID_MESSAGE reports");
      if (reporting) {
        FUZZ_CHECK(log_[0].error == BusError::INVALID_MESSAGE, "invalid priority: wrong error");
      }
      log_.clear();
      return;
    }
    if (mode_ == PerformanceMode::FULL_FEATURED) {
      ++stats_.dropped[p];
    }
    FUZZ_CHECK_EQ(log_.size(), reporting ? 1U : 0U, "QUEUE_FULL reports for one refusal");
    if (reporting) {
      FUZZ_CHECK(log_[0].kind == EventKind::kError && log_[0].error == BusError::QUEUE_FULL,
                 "refusal: wrong error");
      FUZZ_CHECK_EQ(log_[0].id, WouldBeId(),
                    "QUEUE_FULL id is not the id the refused message would have received");
    }
    log_.clear();
  }

  bool Reporting() const { return mode_ != PerformanceMode::BARE_METAL && error_callback_set_; }

  static bool IsHighLane(MessagePriority priority) {
    return kHighLane && priority == MessagePriority::HIGH;
  }

  std::deque<ModelMessage>& FifoFor(MessagePriority priority) {
    return IsHighLane(priority) ? high_ : normal_;
  }

  uint64_t Queued() const { return normal_.size() + high_.size(); }

  /// Would a publish of (valid) `priority` be admitted with `extra` more messages in its ring?
  bool Admits(MessagePriority priority, uint64_t extra) const {
    if (IsHighLane(priority)) {
      return high_.size() + extra < kHighDepth;  // the HIGH lane: while it has room, every mode
    }
    const uint64_t occupancy = normal_.size() + extra;
    const auto p = static_cast<std::size_t>(priority);
    return mode_ == PerformanceMode::BARE_METAL
               ? occupancy < normal_depth_
               : occupancy * 100U < kAdmitPercent[p] * normal_depth_;
  }

  /// The msg_id a QUEUE_FULL report carries now.
  uint64_t WouldBeId() const {
    return first_id_ + (kDeliveryOrderIds ? delivered_total_ : admitted_total_);
  }

  /// Moves the messages the next batch dispatches, in delivery order, into batch_.
  uint64_t PlanBatch() {
    batch_.clear();
    const uint64_t high = std::min<uint64_t>(kBatch, high_.size());
    for (uint64_t i = 0U; i < high; ++i) {
      batch_.push_back(high_.front());
      high_.pop_front();
    }
    high_dispatched_ += high;
    // A HIGH flood that used up the batch's HIGH share ends the batch (HIGH still queued), with
    // one LOW/MEDIUM message once a whole HIGH lane went since the last LOW/MEDIUM dispatch.
    const bool flood = high == kBatch && !high_.empty();
    const uint64_t share =
        !flood ? kBatch : (high_dispatched_ - high_at_normal_ >= kHighDepth ? 1U : 0U);
    const uint64_t normal = std::min<uint64_t>(share, normal_.size());
    for (uint64_t i = 0U; i < normal; ++i) {
      batch_.push_back(normal_.front());
      normal_.pop_front();
    }
    if (normal != 0U) {
      high_at_normal_ = high_dispatched_;
    }
    return batch_.size();
  }

  // ---- consuming -------------------------------------------------------------------------------

  void ProcessBatchChecked() {
    const std::vector<uint8_t> live_at_start = LiveFlags();
    const uint64_t expected = PlanBatch();
    phase_ = Phase::kProcessBatch;
    const uint32_t n = bus_->ProcessBatch();
    phase_ = Phase::kIdle;
    // The batch ended: entries removed during it are free again (subscription_table.hpp).
    pending_removed_ = {};
    FUZZ_CHECK_EQ(n, expected, "ProcessBatch count");
    Replay(n, live_at_start, /*visitor=*/false);
  }

  void ProcessBatchWithChecked(uint8_t config) {
    const std::vector<uint8_t> live_at_start = LiveFlags();
    const uint64_t expected = PlanBatch();
    visitor_config_ = config;
    phase_ = Phase::kProcessBatchWith;
    const uint32_t n = bus_->ProcessBatchWith(Visitor{this});
    phase_ = Phase::kIdle;
    FUZZ_CHECK_EQ(n, expected, "ProcessBatchWith count");
    Replay(n, live_at_start, /*visitor=*/true);
  }

  void Drain(uint8_t pattern) {
    for (uint32_t round = 0U; round < 4U * kDepth + 4U; ++round) {
      if (Queued() == 0U) {
        break;
      }
      if (((static_cast<uint32_t>(pattern) >> (round % 8U)) & 1U) != 0U) {
        ProcessBatchWithChecked(static_cast<uint8_t>(pattern + round));
      } else {
        ProcessBatchChecked();
      }
      AfterOperation();
    }
    FUZZ_CHECK_EQ(bus_->ProcessBatch(), 0U, "ProcessBatch on an empty queue");
    FUZZ_CHECK(log_.empty(), "events from an empty ProcessBatch");
  }

  /// Matches the events recorded during one ProcessBatch(With) against the `n` messages
  /// PlanBatch chose. Events belong to a message by its seq (calls, visits, subscription changes
  /// made inside them) or its id (error reports).
  void Replay(uint32_t n, const std::vector<uint8_t>& live_at_start, bool visitor) {
    std::vector<uint8_t> live = live_at_start;
    live.resize(subs_.size(), 0U);
    std::size_t cursor = 0U;
    const bool reporting = Reporting();
    for (uint32_t k = 0U; k < n; ++k) {
      FUZZ_CHECK(k < batch_.size(), "dispatched more messages than were queued");
      const ModelMessage m = batch_[k];
      const uint64_t id = first_id_ + delivered_total_;
      ++delivered_total_;
      std::vector<uint8_t> at_start(subs_.size(), 0U);
      for (std::size_t s = 0U; s < subs_.size(); ++s) {
        at_start[s] = static_cast<uint8_t>(live[s] != 0U && subs_[s].type == m.type);
      }
      std::vector<uint8_t> calls(subs_.size(), 0U);
      std::vector<uint8_t> added(subs_.size(), 0U);
      std::vector<uint8_t> removed(subs_.size(), 0U);
      uint64_t failures = 0U;
      uint64_t processing_errors = 0U;
      uint64_t overflows = 0U;
      uint64_t visits = 0U;
      for (; cursor < log_.size(); ++cursor) {
        const Event& e = log_[cursor];
        if ((e.kind == EventKind::kCall || e.kind == EventKind::kVisit) && e.seq == m.seq) {
          if (e.kind == EventKind::kCall) {
            FUZZ_CHECK(!visitor, "a subscriber was called by ProcessBatchWith");
            FUZZ_CHECK(subs_[e.sub].type == m.type, "subscriber of another type called");
            FUZZ_CHECK(live[e.sub] != 0U, "subscriber called while unsubscribed");
            FUZZ_CHECK(at_start[e.sub] != 0U || added[e.sub] != 0U,
                       "subscriber called that was neither live at the message's start nor "
                       "added during it");
            FUZZ_CHECK_EQ(calls[e.sub], 0U, "subscriber called twice for one message");
            calls[e.sub] = 1U;
          } else {
            FUZZ_CHECK(visitor, "the visitor ran during ProcessBatch");
            ++visits;
          }
          failures += e.ok ? 0U : 1U;
          if (e.has_header) {
            FUZZ_CHECK_EQ(e.header.msg_id, id, "msg_id");
            FUZZ_CHECK_EQ(e.header.sender_id, m.sender, "sender_id");
            FUZZ_CHECK_EQ(static_cast<uint8_t>(e.header.priority), static_cast<uint8_t>(m.priority),
                          "priority in the header");
            if (m.fast) {
              FUZZ_CHECK_EQ(e.header.timestamp_us, m.timestamp, "PublishFast timestamp");
            }
          }
        } else if ((e.kind == EventKind::kAdd || e.kind == EventKind::kRemove) && e.seq == m.seq) {
          if (e.ok) {
            live[e.sub] = e.kind == EventKind::kAdd ? 1U : 0U;
            (e.kind == EventKind::kAdd ? added : removed)[e.sub] = 1U;
          }
        } else if (e.kind == EventKind::kError && e.error == BusError::PROCESSING_ERROR &&
                   e.id == id) {
          ++processing_errors;
        } else if (e.kind == EventKind::kError && e.error == BusError::OVERFLOW_DETECTED &&
                   id == 0U && overflows == 0U) {
          ++overflows;
        } else {
          break;  // belongs to the next message, or to none (caught below)
        }
      }
      if (visitor) {
        FUZZ_CHECK_EQ(visits, 1U, "visitor calls for one message");
      } else {
        for (std::size_t s = 0U; s < at_start.size(); ++s) {
          if (at_start[s] != 0U && removed[s] == 0U) {
            FUZZ_CHECK_EQ(calls[s], 1U, "a subscriber live for the whole message was not called");
          }
        }
      }
      FUZZ_CHECK_EQ(processing_errors, reporting ? failures : 0U, "PROCESSING_ERROR reports");
      FUZZ_CHECK_EQ(overflows, (reporting && id == 0U) ? 1U : 0U, "OVERFLOW_DETECTED reports");
      if (mode_ == PerformanceMode::FULL_FEATURED) {
        ++stats_.processed;
        stats_.errors += failures;
      }
    }
    if (cursor != log_.size()) {
      const Event& e = log_[cursor];
      Mismatch("an event that belongs to no dispatched message (kind, seq or id)",
               static_cast<uint64_t>(e.kind) * 1000000U + e.seq, e.id, __LINE__);
    }
    log_.clear();
  }

  // ---- callbacks -------------------------------------------------------------------------------

  /// `slot`: the slot's Loaned handle, for a Cloud subscriber given the envelope.
  template <typename T>
  bool OnCall(uint32_t sub_id, const T& m, const MessageHeader* header, const CaptureToken& token,
              const mccc::Loaned<Cloud>* slot = nullptr) {
    FUZZ_CHECK(token.Alive(), "callback runs with destroyed captures");
    FUZZ_CHECK(phase_ == Phase::kProcessBatch, "subscriber called outside ProcessBatch");
    FUZZ_CHECK(sub_id < subs_.size(), "unknown subscriber");
    const Subscriber sub = subs_[sub_id];  // a copy: actions below may grow subs_
    FUZZ_CHECK(sub.live, "subscriber called after its Unsubscribe returned");
    FUZZ_CHECK_EQ(sub.type, kIndexOf<T>, "subscriber of another type called");
    FUZZ_CHECK(m.Intact(), "payload corrupted");
    if constexpr (std::is_same_v<T, Cloud>) {
      CheckDeliveredCloud(m);
    }
    current_seq_ = m.seq;
    const Behavior& b = sub.behavior;
    const bool act = b.action != Action::kNone && (m.seq % b.action_mod) == 0U;
#if MCCC_HAS_EXCEPTIONS
    const bool throws = act && b.action == Action::kThrow;
#else
    const bool throws = false;
#endif
    const bool fails = b.returns_bool && b.fail_mod != 0U && (m.seq % b.fail_mod) == 0U;
    Event e{};
    e.kind = EventKind::kCall;
    e.sub = sub_id;
    e.seq = m.seq;
    e.ok = !throws && !fails;
    e.has_header = header != nullptr;
    if (header != nullptr) {
      e.header = *header;
    }
    log_.push_back(e);
    if (act) {
      switch (b.action) {
        case Action::kUnsubscribeSelf:
          FUZZ_CHECK(DoUnsubscribe(sub.handle), "a callback could not unsubscribe itself");
          FUZZ_CHECK(token.Alive(), "captures destroyed while their callback still runs");
          break;
        case Action::kUnsubscribeOther:
          for (std::size_t j = 0U; j < subs_.size(); ++j) {
            if (j != sub_id && subs_[j].live) {
              static_cast<void>(DoUnsubscribe(subs_[j].handle));
              break;
            }
          }
          break;
        case Action::kSubscribeNew:
          static_cast<void>(DoSubscribe(static_cast<uint8_t>(m.seq % kTypes), Behavior{}));
          break;
        case Action::kThrow:
#if MCCC_HAS_EXCEPTIONS
          throw FuzzThrow{};
#else
          break;
#endif
        case Action::kRetain:
          if constexpr (std::is_same_v<T, Cloud>) {
            RetainDelivered(m, slot);
          }
          break;
        case Action::kNone:
          break;
      }
    }
    return !fails;
  }

  template <typename T>
  bool OnEnvelope(uint32_t sub_id, const Envelope& e, const CaptureToken& token) {
    const AlternativeOf<T>* m = std::get_if<AlternativeOf<T>>(&e.payload);
    FUZZ_CHECK(m != nullptr, "envelope of another alternative delivered to a subscriber of T");
    if constexpr (std::is_same_v<T, Cloud>) {
      FUZZ_CHECK(static_cast<bool>(*m), "an empty Loaned<Cloud> in a slot");
      return OnCall(sub_id, **m, &e.header, token, m);
    } else {
      return OnCall(sub_id, *m, &e.header, token);
    }
  }

  template <typename T>
  bool OnVisit(const T& m, const MessageHeader* header, bool returns_bool) {
    FUZZ_CHECK(phase_ == Phase::kProcessBatchWith, "visitor called outside ProcessBatchWith");
    FUZZ_CHECK(m.Intact(), "payload corrupted");
    if constexpr (std::is_same_v<T, Cloud>) {
      CheckDeliveredCloud(m);
      if ((visitor_config_ & 0x20U) != 0U) {
        RetainDelivered(m, nullptr);
      }
    }
    current_seq_ = m.seq;
    const uint8_t fail_mod = static_cast<uint8_t>(visitor_config_ & 7U);
    const uint8_t action =
        static_cast<uint8_t>((static_cast<uint32_t>(visitor_config_) >> 3U) & 3U);
#if MCCC_HAS_EXCEPTIONS
    const bool throws = action == 3U && (m.seq % 3U) == 0U;
#else
    const bool throws = false;
#endif
    const bool fails = returns_bool && fail_mod != 0U && (m.seq % fail_mod) == 0U;
    Event e{};
    e.kind = EventKind::kVisit;
    e.seq = m.seq;
    e.ok = !throws && !fails;
    e.has_header = header != nullptr;
    if (header != nullptr) {
      e.header = *header;
    }
    log_.push_back(e);
    if (action == 1U && (m.seq % 2U) == 0U) {
      static_cast<void>(DoSubscribe(static_cast<uint8_t>(m.seq % kTypes), Behavior{}));
    } else if (action == 2U && (m.seq % 2U) == 1U) {
      for (const Subscriber& s : subs_) {
        if (s.live) {
          static_cast<void>(DoUnsubscribe(s.handle));
          break;
        }
      }
    }
#if MCCC_HAS_EXCEPTIONS
    if (throws) {
      throw FuzzThrow{};
    }
#endif
    return !fails;
  }

  /// Handlers in all accepted shapes: with / without header, bool / void.
  struct Visitor {
    Harness* h;
    bool operator()(const Small& m, const MessageHeader& header) const {
      return h->OnVisit(m, &header, true);
    }
    void operator()(const Big& m) const { static_cast<void>(h->OnVisit(m, nullptr, false)); }
    bool operator()(const Text& m) const { return h->OnVisit(m, nullptr, true); }
    bool operator()(const Cloud& m, const MessageHeader& header) const {
      return h->OnVisit(m, &header, true);
    }
  };

  // ---- subscriptions
  // -----------------------------------------------------------------------------

  template <typename T>
  SubscriptionHandle SubscribeAs(uint32_t id, const Behavior& b) {
    Harness* self = this;
    const CaptureToken token;
    switch (b.form * 2U + (b.returns_bool ? 1U : 0U)) {
      case 0U:
        return bus_->template Subscribe<T>([self, id, token](const Envelope& e) {
          static_cast<void>(self->template OnEnvelope<T>(id, e, token));
        });
      case 1U:
        return bus_->template Subscribe<T>([self, id, token](const Envelope& e) -> bool {
          return self->template OnEnvelope<T>(id, e, token);
        });
      case 2U:
        return bus_->template Subscribe<T>([self, id, token](const T& m, const MessageHeader& h) {
          static_cast<void>(self->OnCall(id, m, &h, token));
        });
      case 3U:
        return bus_->template Subscribe<T>(
            [self, id, token](const T& m, const MessageHeader& h) -> bool {
              return self->OnCall(id, m, &h, token);
            });
      case 4U:
        return bus_->template Subscribe<T>([self, id, token](const T& m) {
          static_cast<void>(self->OnCall(id, m, nullptr, token));
        });
      default:
        return bus_->template Subscribe<T>(
            [self, id, token](const T& m) -> bool { return self->OnCall(id, m, nullptr, token); });
    }
  }

  uint32_t DoSubscribe(uint8_t type, const Behavior& behavior) {
    const bool expected =
        live_[type] < kPerType && live_[type] + pending_removed_[type] < 2U * kPerType;
    const auto id = static_cast<uint32_t>(subs_.size());
    subs_.push_back(Subscriber{type, behavior, mccc::kInvalidSubscription, false});
    SubscriptionHandle h{};
    switch (type) {
      case 0U:
        h = SubscribeAs<Small>(id, behavior);
        break;
      case 1U:
        h = SubscribeAs<Big>(id, behavior);
        break;
      case 2U:
        h = SubscribeAs<Text>(id, behavior);
        break;
      default:
        h = SubscribeAs<Cloud>(id, behavior);
        break;
    }
    FUZZ_CHECK_EQ(h.IsValid(), expected, "Subscribe accepted/refused (live, removed-in-batch)");
    if (h.IsValid()) {
      FUZZ_CHECK_EQ(h.type_index, type, "handle type_index");
      FUZZ_CHECK(issued_ids_.insert(h.callback_id).second, "callback_id reused within a bus");
      subs_[id].handle = h;
      subs_[id].live = true;
      ++live_[type];
      ++live_total_;
    }
    if (phase_ != Phase::kIdle) {
      Event e{};
      e.kind = EventKind::kAdd;
      e.sub = id;
      e.seq = current_seq_;
      e.ok = h.IsValid();
      log_.push_back(e);
    }
    return id;
  }

  static int FindLive(const std::vector<Subscriber>& subs, const SubscriptionHandle& h) {
    for (std::size_t i = 0U; i < subs.size(); ++i) {
      if (subs[i].live && subs[i].handle.type_index == h.type_index &&
          subs[i].handle.callback_id == h.callback_id) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  bool DoUnsubscribe(const SubscriptionHandle& h) {
    const int match = FindLive(subs_, h);
    const bool removed = bus_->Unsubscribe(h);
    FUZZ_CHECK_EQ(removed, match >= 0, "Unsubscribe result (true exactly once per live handle)");
    if (removed) {
      Subscriber& s = subs_[static_cast<std::size_t>(match)];
      s.live = false;
      --live_[s.type];
      --live_total_;
      if (phase_ == Phase::kProcessBatch) {
        ++pending_removed_[s.type];  // its entry stays taken until the batch ends
      }
    }
    if (phase_ != Phase::kIdle) {
      Event e{};
      e.kind = EventKind::kRemove;
      e.sub = match >= 0 ? static_cast<uint32_t>(match) : 0U;
      e.seq = current_seq_;
      e.ok = removed;
      log_.push_back(e);
    }
    return removed;
  }

  void UnsubscribeVariant(uint8_t b) {
    const std::size_t pick = in_.Byte();
    switch (b % 7U) {
      case 0U: {  // a live handle: true
        std::vector<std::size_t> live;
        for (std::size_t i = 0U; i < subs_.size(); ++i) {
          if (subs_[i].live) {
            live.push_back(i);
          }
        }
        if (!live.empty()) {
          FUZZ_CHECK(DoUnsubscribe(subs_[live[pick % live.size()]].handle),
                     "Unsubscribe of a live handle failed");
        }
        break;
      }
      case 1U: {  // stale (already removed) or refused: false
        std::vector<std::size_t> dead;
        for (std::size_t i = 0U; i < subs_.size(); ++i) {
          if (!subs_[i].live) {
            dead.push_back(i);
          }
        }
        if (!dead.empty()) {
          FUZZ_CHECK(!DoUnsubscribe(subs_[dead[pick % dead.size()]].handle),
                     "Unsubscribe of a stale handle succeeded");
        }
        break;
      }
      case 2U:  // a handle of the foreign bus, given to this bus: false
        if (!foreign_subs_.empty()) {
          const std::size_t before = foreign_->template SubscriberCount<Small>() +
                                     foreign_->template SubscriberCount<Big>() +
                                     foreign_->template SubscriberCount<Text>() +
                                     foreign_->template SubscriberCount<Cloud>();
          FUZZ_CHECK(!DoUnsubscribe(foreign_subs_[pick % foreign_subs_.size()].handle),
                     "a foreign handle removed a subscription");
          FUZZ_CHECK_EQ(foreign_->template SubscriberCount<Small>() +
                            foreign_->template SubscriberCount<Big>() +
                            foreign_->template SubscriberCount<Text>() +
                            foreign_->template SubscriberCount<Cloud>(),
                        before, "the foreign bus changed");
        }
        break;
      case 3U:  // a handle of this bus, given to the foreign bus: false, nothing changes here
        if (!subs_.empty()) {
          const SubscriptionHandle h = subs_[pick % subs_.size()].handle;
          FUZZ_CHECK_EQ(foreign_->Unsubscribe(h), FindLive(foreign_subs_, h) >= 0,
                        "foreign Unsubscribe of this bus's handle");
        }
        break;
      case 4U:
        static_cast<void>(DoUnsubscribe(mccc::kInvalidSubscription));
        break;
      case 5U: {  // type_index out of range, with an id that exists
        SubscriptionHandle h =
            subs_.empty() ? mccc::kInvalidSubscription : subs_[pick % subs_.size()].handle;
        h.type_index = kTypes + (pick % 300U);
        static_cast<void>(DoUnsubscribe(h));
        break;
      }
      default: {  // arbitrary bits
        SubscriptionHandle h{};
        h.type_index = static_cast<std::size_t>(in_.Byte() % (kTypes + 1U));
        h.callback_id = static_cast<std::size_t>(in_.U64());
        static_cast<void>(DoUnsubscribe(h));
        break;
      }
    }
  }

  void ForeignOperation(uint8_t b) {
    if ((b & 1U) == 0U) {
      const uint8_t type = static_cast<uint8_t>((static_cast<uint32_t>(b) >> 1U) % kTypes);
      const bool expected = foreign_live_by_type_[type] < kPerType;
      const CaptureToken token;
      auto never = [token](const Envelope&) { std::abort(); };  // nothing is published there
      SubscriptionHandle h{};
      switch (type) {
        case 0U:
          h = foreign_->template Subscribe<Small>(never);
          break;
        case 1U:
          h = foreign_->template Subscribe<Big>(never);
          break;
        case 2U:
          h = foreign_->template Subscribe<Text>(never);
          break;
        default:
          h = foreign_->template Subscribe<Cloud>(never);
          break;
      }
      FUZZ_CHECK_EQ(h.IsValid(), expected, "foreign Subscribe");
      if (h.IsValid()) {
        foreign_subs_.push_back(Subscriber{type, Behavior{}, h, true});
        ++foreign_live_by_type_[type];
        ++foreign_live_;
      }
    } else if (!foreign_subs_.empty()) {
      Subscriber& s = foreign_subs_[(static_cast<uint32_t>(b) >> 1U) % foreign_subs_.size()];
      FUZZ_CHECK_EQ(foreign_->Unsubscribe(s.handle), s.live, "foreign Unsubscribe");
      if (s.live) {
        s.live = false;
        --foreign_live_by_type_[s.type];
        --foreign_live_;
      }
    }
  }

  std::vector<uint8_t> LiveFlags() const {
    std::vector<uint8_t> flags(subs_.size(), 0U);
    for (std::size_t i = 0U; i < subs_.size(); ++i) {
      flags[i] = subs_[i].live ? 1U : 0U;
    }
    return flags;
  }

  // ---- observation -----------------------------------------------------------------------------

  void CheckStatistics() {
    const mccc::BusStatisticsSnapshot s = bus_->GetStatistics();
    FUZZ_CHECK_EQ(s.low_priority_published, stats_.published[0], "low_priority_published");
    FUZZ_CHECK_EQ(s.medium_priority_published, stats_.published[1], "medium_priority_published");
    FUZZ_CHECK_EQ(s.high_priority_published, stats_.published[2], "high_priority_published");
    FUZZ_CHECK_EQ(s.low_priority_dropped, stats_.dropped[0], "low_priority_dropped");
    FUZZ_CHECK_EQ(s.medium_priority_dropped, stats_.dropped[1], "medium_priority_dropped");
    FUZZ_CHECK_EQ(s.high_priority_dropped, stats_.dropped[2], "high_priority_dropped");
    FUZZ_CHECK_EQ(s.messages_published,
                  stats_.published[0] + stats_.published[1] + stats_.published[2],
                  "messages_published");
    FUZZ_CHECK_EQ(s.messages_dropped, stats_.dropped[0] + stats_.dropped[1] + stats_.dropped[2],
                  "messages_dropped");
    FUZZ_CHECK_EQ(s.messages_processed, stats_.processed, "messages_processed");
    FUZZ_CHECK_EQ(s.processing_errors, stats_.errors, "processing_errors");
    // The loan pool: the bus's sums (one pool) and the pool's own counters.
    const uint64_t blocks = BlocksInUse();
    FUZZ_CHECK_EQ(s.loans_granted, loan_stats_.granted, "loans_granted");
    FUZZ_CHECK_EQ(s.low_priority_loans_refused, loan_stats_.refused[0],
                  "low_priority_loans_refused");
    FUZZ_CHECK_EQ(s.medium_priority_loans_refused, loan_stats_.refused[1],
                  "medium_priority_loans_refused");
    FUZZ_CHECK_EQ(s.high_priority_loans_refused, loan_stats_.refused[2],
                  "high_priority_loans_refused");
    FUZZ_CHECK_EQ(s.loan_blocks_in_use, blocks, "loan_blocks_in_use");
    const mccc::LoanPoolStatistics pool = bus_->template GetLoanStatistics<Cloud>();
    FUZZ_CHECK_EQ(pool.capacity, kPool, "pool capacity");
    FUZZ_CHECK_EQ(pool.in_use, blocks, "pool in_use");
    FUZZ_CHECK_EQ(pool.high_water, std::max(loan_stats_.high_water, blocks), "pool high_water");
    FUZZ_CHECK_EQ(pool.loans_granted, loan_stats_.granted, "pool loans_granted");
    FUZZ_CHECK_EQ(pool.low_priority_refused, loan_stats_.refused[0], "pool low_priority_refused");
    FUZZ_CHECK_EQ(pool.medium_priority_refused, loan_stats_.refused[1],
                  "pool medium_priority_refused");
    FUZZ_CHECK_EQ(pool.high_priority_refused, loan_stats_.refused[2], "pool high_priority_refused");
    // One producer: its ring's statistics are the bus's (HIGH included), the others' are 0.
    for (uint32_t ring = 0U; ring <= Bus::LaneCount() + 1U; ++ring) {
      const mccc::BusStatisticsSnapshot lane = bus_->GetLaneStatistics(ring);
      const bool own = ring == own_ring_;
      FUZZ_CHECK_EQ(lane.low_priority_published, own ? s.low_priority_published : 0U,
                    "GetLaneStatistics low_priority_published");
      FUZZ_CHECK_EQ(lane.medium_priority_published, own ? s.medium_priority_published : 0U,
                    "GetLaneStatistics medium_priority_published");
      FUZZ_CHECK_EQ(lane.high_priority_published, own ? s.high_priority_published : 0U,
                    "GetLaneStatistics high_priority_published");
      FUZZ_CHECK_EQ(lane.messages_dropped, own ? s.messages_dropped : 0U,
                    "GetLaneStatistics messages_dropped");
      FUZZ_CHECK_EQ(lane.messages_processed, 0U, "GetLaneStatistics messages_processed");
    }
  }

  static BackpressureLevel LevelOf(uint64_t occupancy, uint64_t capacity) {
    if (occupancy >= capacity) {
      return BackpressureLevel::FULL;
    }
    if (occupancy * 100U >= 90U * capacity) {
      return BackpressureLevel::CRITICAL;
    }
    if (occupancy * 100U >= 75U * capacity) {
      return BackpressureLevel::WARNING;
    }
    return BackpressureLevel::NORMAL;
  }

  void CheckIntrospection() {
    FUZZ_CHECK_EQ(bus_->QueueOccupancy(), Queued(), "QueueDepth");
    FUZZ_CHECK_EQ(bus_->HighRingOccupancy(), high_.size(), "HighQueueDepth");
    for (uint32_t ring = 0U; ring <= Bus::LaneCount() + 1U; ++ring) {
      FUZZ_CHECK_EQ(bus_->LaneOccupancy(ring), ring == own_ring_ ? normal_.size() : 0U,
                    "LaneQueueDepth (this thread's ring holds its LOW/MEDIUM messages)");
    }
    // Each ring against its own capacity; the fuller one is reported (the others are empty).
    uint64_t percent = normal_.size() * 100U / normal_depth_;
    BackpressureLevel level = LevelOf(normal_.size(), normal_depth_);
    if constexpr (kHighLane) {
      percent = std::max<uint64_t>(percent, high_.size() * 100U / kHighDepth);
      const BackpressureLevel high_level = LevelOf(high_.size(), kHighDepth);
      level = static_cast<uint8_t>(high_level) > static_cast<uint8_t>(level) ? high_level : level;
    }
    FUZZ_CHECK_EQ(bus_->QueueUtilizationPercent(), percent, "QueueUtilizationPercent");
    FUZZ_CHECK_EQ(static_cast<uint8_t>(bus_->GetBackpressureLevel()), static_cast<uint8_t>(level),
                  "GetBackpressureLevel");
    FUZZ_CHECK_EQ(Bus::Capacity(), kDepth, "Capacity");
    FUZZ_CHECK_EQ(Bus::TotalCapacity(),
                  kDepth + kHighDepth + uint64_t{Bus::LaneCount()} * Bus::kLaneDepth,
                  "TotalCapacity");
    FUZZ_CHECK(bus_->GetPerformanceMode() == mode_, "GetPerformanceMode");
    FUZZ_CHECK_EQ(bus_->template SubscriberCount<Small>(), live_[0], "SubscriberCount<Small>");
    FUZZ_CHECK_EQ(bus_->template SubscriberCount<Big>(), live_[1], "SubscriberCount<Big>");
    FUZZ_CHECK_EQ(bus_->template SubscriberCount<Text>(), live_[2], "SubscriberCount<Text>");
    FUZZ_CHECK_EQ(bus_->template SubscriberCount<Cloud>(), live_[3], "SubscriberCount<Cloud>");
    // The pool's size and limits are the ones the model derives.
    using Pool = typename Bus::template LoanPoolOf<Cloud>;
    FUZZ_CHECK_EQ(Pool::kCapacity, kPool, "LoanPoolOf<Cloud>::kCapacity");
    if (mode_ != PerformanceMode::BARE_METAL) {
      FUZZ_CHECK_EQ(Pool::Admission::kLowLimit, LoanLimit(MessagePriority::LOW), "kLowLimit");
      FUZZ_CHECK_EQ(Pool::Admission::kMediumLimit, LoanLimit(MessagePriority::MEDIUM),
                    "kMediumLimit");
      FUZZ_CHECK_EQ(Pool::Admission::kHighLimit, LoanLimit(MessagePriority::HIGH), "kHighLimit");
      FUZZ_CHECK_EQ(Pool::Admission::kHighReserve, kPool - LoanLimit(MessagePriority::MEDIUM),
                    "kHighReserve");
    }
    FUZZ_CHECK_EQ(foreign_->template SubscriberCount<Small>(), foreign_live_by_type_[0],
                  "foreign SubscriberCount");
  }

  enum class Phase : uint8_t { kIdle, kProcessBatch, kProcessBatchWith };

  Input& in_;
  bool drain_at_end_;
  std::unique_ptr<Bus> bus_;
  std::unique_ptr<Bus> foreign_;  // source of foreign handles; never publishes or consumes
  Position start_{0U};
  uint64_t first_id_ = 1U;

  // The model.
  std::deque<ModelMessage> normal_;  // LOW/MEDIUM (and HIGH without a HIGH lane), FIFO
  std::deque<ModelMessage> high_;    // HIGH on the HIGH lane, FIFO
  std::vector<ModelMessage> batch_;  // what the current batch dispatches, in order
  uint64_t normal_depth_ = kDepth;   // capacity of the ring this thread's LOW/MEDIUM go to
  uint32_t own_ring_ = 0U;           // its index for LaneQueueDepth / GetLaneStatistics
  uint64_t admitted_total_ = 0U;     // the next admitted message gets first_id_ + admitted_total_
  uint64_t delivered_total_ = 0U;    // the next delivered message has first_id_ + delivered_total_
  uint64_t high_dispatched_ = 0U;    // HIGH messages dispatched (HIGH lane)
  uint64_t high_at_normal_ = 0U;     // high_dispatched_ after the last batch with LOW/MEDIUM
  PerformanceMode mode_ = PerformanceMode::FULL_FEATURED;
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

// ----- bus types -------------------------------------------------------------------------------

/// kPool: blocks of Cloud's loan pool; kHigh: HIGH lane slots (0: none); kLanes, kLaneSlots:
/// producer lanes.
template <uint32_t kDepth, uint32_t kBatch, bool kSingle, typename Pos, uint32_t kPool,
          uint32_t kHigh = 0U, uint32_t kLanes = 0U, uint32_t kLaneSlots = 8U>
struct FuzzTraits : mccc::DefaultBusTraits {
  static constexpr uint32_t kCloudBlocks = kPool;  // read by the harness's model
  using LoanPools = mccc::LoanPools<mccc::PoolOf<Cloud, kPool>>;
  static constexpr uint32_t kQueueDepth = kDepth;
  static constexpr uint32_t kBatchSize = kBatch;
  static constexpr bool kSingleProducer = kSingle;
  static constexpr uint32_t kMaxCallbacksPerType = 3U;  // small, so the limits are reached
  static constexpr uint32_t kHighQueueDepth = kHigh;
  static constexpr uint32_t kProducerLanes = kLanes;
  static constexpr uint32_t kLaneDepth = kLaneSlots;
  using Position = Pos;
};

template <uint32_t kDepth, uint32_t kBatch, bool kSingle, typename Pos, uint32_t kPool,
          uint32_t kHigh = 0U, uint32_t kLanes = 0U, uint32_t kLaneSlots = 8U>
using FuzzBus =
    mccc::AsyncBus<Payload,
                   FuzzTraits<kDepth, kBatch, kSingle, Pos, kPool, kHigh, kLanes, kLaneSlots>>;

template <typename Bus>
void RunWith(Input& in, uint8_t config, uint8_t wrap_distance) {
  Harness<Bus> harness(in, (config & 0x40U) != 0U, wrap_distance, (config & 0x80U) != 0U);
  harness.Run();
}

void RunInput(const uint8_t* data, std::size_t size) {
  FUZZ_CHECK_EQ(g_live_text, 0, "Text payloads alive before the input started");
  FUZZ_CHECK_EQ(g_live_captures, 0, "captures alive before the input started");
  FUZZ_CHECK_EQ(g_live_clouds, 0, "Cloud messages alive before the input started");
  Input in(data, size);
  const uint8_t config = in.Byte();
  const uint8_t wrap_distance = in.Byte();
  g_salt = in.Byte();
  // Depth 8: the queue is full after a few publishes, HIGH's 99% limit equals the capacity.
  // Depth 128: HIGH (127) is refused before the queue is full; batches of 16.
  // Types 6-11: a HIGH lane of 4 to 16 slots (a burst fills it, a batch of HIGH ends early)
  // and/or producer lanes (this thread publishes on the first lane when its identity owns it).
  // Loan pools: 1 block (HIGH only), 2, 3 ... and 70 (several bitmap words, the last partly used).
  switch ((config & 0x3FU) % 12U) {
    case 0U:
      RunWith<FuzzBus<8U, 3U, false, uint64_t, 5U>>(in, config, wrap_distance);
      break;
    case 1U:
      RunWith<FuzzBus<128U, 16U, false, uint64_t, 8U>>(in, config, wrap_distance);
      break;
    case 2U:
      RunWith<FuzzBus<8U, 3U, true, uint64_t, 1U>>(in, config, wrap_distance);
      break;
    case 3U:
      RunWith<FuzzBus<128U, 16U, true, uint64_t, 3U>>(in, config, wrap_distance);
      break;
    case 4U:
      RunWith<FuzzBus<8U, 3U, false, uint32_t, 2U>>(in, config, wrap_distance);
      break;
    case 5U:
      RunWith<FuzzBus<128U, 16U, true, uint32_t, 6U>>(in, config, wrap_distance);
      break;
    case 6U:
      RunWith<FuzzBus<8U, 3U, false, uint64_t, 4U, 4U>>(in, config, wrap_distance);
      break;
    case 7U:
      RunWith<FuzzBus<128U, 16U, true, uint64_t, 8U, 8U>>(in, config, wrap_distance);
      break;
    case 8U:
      RunWith<FuzzBus<8U, 3U, false, uint64_t, 5U, 4U, 1U, 8U>>(in, config, wrap_distance);
      break;
    case 9U:  // lanes without a HIGH lane: HIGH travels on the lane (99 % of 16 slots)
      RunWith<FuzzBus<128U, 16U, false, uint64_t, 3U, 0U, 2U, 16U>>(in, config, wrap_distance);
      break;
    case 10U:
      RunWith<FuzzBus<8U, 3U, false, uint32_t, 7U, 4U>>(in, config, wrap_distance);
      break;
    default:
      RunWith<FuzzBus<128U, 16U, false, uint32_t, 70U, 16U, 1U, 64U>>(in, config, wrap_distance);
      break;
  }
}

}  // namespace mccc_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  mccc_fuzz::RunInput(data, size);
  return 0;
}
