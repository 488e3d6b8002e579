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
//   (LOW 60, MEDIUM 80, HIGH 99); kBareMetal admits while occupancy < capacity; a priority that
//   is not an enumerator is refused with kInvalidMessage; a refused rvalue is not moved from;
// - the capacity is the ring the publishing thread's LOW/MEDIUM messages go to: its producer lane
//   (kLaneDepth) when the bus has lanes and the thread's identity owns one, else the shared ring;
// - with a HIGH ring (kHighQueueDepth > 0) HIGH messages form a FIFO of their own, admitted while
//   it holds fewer than kHighQueueDepth (every mode); a batch dispatches min(kBatchSize, HIGH
//   queued) HIGH messages first and then min(kBatchSize, LOW/MEDIUM queued) from the other FIFO
//   (no callback here publishes); when HIGH messages are still queued after those, only
//   min(1, LOW/MEDIUM queued), and only once kHighQueueDepth HIGH messages have been dispatched
//   since the last batch that dispatched LOW/MEDIUM (else none);
// - ProcessBatch / ProcessBatchWith without a HIGH ring dispatch min(kBatchSize, queued) messages
//   in FIFO order; msg_id = first id, first id + 1, ... in delivery order (kOverflowDetected when
//   it wraps to 0);
// - per message, every subscriber of its type that is live when the message's dispatch starts
//   and is not unsubscribed during it is called exactly once; a subscriber added during it is
//   called at most once; nobody is called after its Unsubscribe returned. Callback ORDER is not
//   documented, so none is assumed (calls are compared as a set per message);
// - a callback returning false or throwing = one kProcessingError (with the message's id) and one
//   processing_errors count; later callbacks and messages are still delivered;
// - statistics only in kFullFeatured (per priority published/dropped, processed, errors),
//   zeroed by ResetStatistics, and GetLaneStatistics of the thread's ring equal to them (one
//   producer); the error callback never in kBareMetal; kQueueFull carries the id the refused
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
//   min(ceil(60% N), MEDIUM), MEDIUM min(ceil(80% N), N - 1), HIGH N; kBareMetal N), else an
//   empty loan and kLoanRefused (msg_id 0); a priority that is not an enumerator gives an empty
//   loan and kInvalidMessage; granted / refused per priority / high-water count in kFullFeatured
//   only. A published loan is moved from and queued like an inline message (ring admission by
//   the loan's priority, or the one given); a refused one is left intact with the caller;
//   publishing an empty loan is kInvalidMessage. Blocks in use = loans held + distinct messages
//   among queued Cloud messages and retained handles, after every operation, and equal to the
//   live Cloud objects; subscribers and visitors see exactly what the producer filled in; a
//   Retain inside the callback (bus.Retain or Loaned::Retain) keeps the message intact beyond
//   it, Retain of a copy or through another bus is empty; at the end every block is back. A loan
//   of a second bus (or its Loaned handle) published here is refused with kForeignLoan (msg_id
//   0), nothing queued or counted, left intact with the caller, and is then delivered as the
//   same block by its own bus, whose pool is empty again afterwards.
//
// Input format (every byte is meaningful; missing bytes read as 0):
//   byte 0  configuration: ((b & 0x3F) % 12) selects the bus type (depth 8 or 128, MPSC or
//           single-producer, 64- or 32-bit positions, HIGH ring, producer lanes; see RunInput;
//           types 0-5 have neither), bit 6 = start the ring and msg_id just before
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
//      HIGH ring under a HIGH flood (the two FIFOs above)
// G-5: statistics exact in kFullFeatured, nothing counted in the other modes
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
// G-20: ids across their wrap point, kOverflowDetected, the kQueueFull id
//
// Files: fuzz_input.hpp (the input), fuzz_payloads.hpp (message types, live counters),
// fuzz_model.hpp (the model's records and events), fuzz_harness.hpp (the harness, declared) and
// its member functions by concern: fuzz_harness_run.hpp (the opcode interpreter),
// fuzz_harness_publish.hpp, fuzz_harness_nested.hpp, fuzz_harness_consume.hpp,
// fuzz_harness_callbacks.hpp, fuzz_harness_subscriptions.hpp, fuzz_harness_loans.hpp,
// fuzz_harness_observe.hpp; fuzz_buses.hpp (the bus types); fuzz_check.hpp (failure reports).
#define MCCC_ENABLE_TEST_HOOKS 1  // this target only: AsyncBus(initial position, first msg_id)

#include <cstddef>
#include <cstdint>

#include "fuzz_buses.hpp"
#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "fuzz_payloads.hpp"

namespace mccc_fuzz {

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
  // Types 6-11: a HIGH ring of 4 to 16 slots (a burst fills it, a batch of HIGH ends early)
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
    case 9U:  // lanes without a HIGH ring: HIGH travels on the lane (99 % of 16 slots)
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
