#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus (tests/fuzz/corpus/) and the regression inputs (tests/fuzz/regressions/)
of bus_fuzz_target.cpp. The byte format is described at the top of that file; each seed below
starts the fuzzer at one area of the bus (overload, modes, callbacks that unsubscribe, subscribe
or throw, handle misuse, msg_id and position wrap, loans). Run it after changing the input format:
    python3 tests/fuzz/make_corpus.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# Configuration byte: bus type (value % 12) | near-wrap start | drain at the end. The loan pool of
# Cloud has, per bus type: D8 5, D128 8, D8_SP 1, D128_SP 3, D8_POS32 2, D128_SP_POS32 6, D8_H4 4,
# D128_SP_H8 8, D8_H4_L1 5, D128_L2 3, D8_POS32_H4 7, D128_POS32_H16_L1 70 blocks.
D8, D128, D8_SP, D128_SP, D8_POS32, D128_SP_POS32 = range(6)
# With a HIGH ring (H<slots>) and/or producer lanes (L<lanes>): see RunInput.
D8_H4, D128_SP_H8, D8_H4_L1, D128_L2, D8_POS32_H4, D128_POS32_H16_L1 = range(6, 12)
NEAR_WRAP = 0x40
DRAIN = 0x80

# Priority bytes (value % 8): 0 LOW, 2 MEDIUM, 4 HIGH, 6 not an enumerator.
LOW, MEDIUM, HIGH, INVALID = 0, 2, 4, 6
# Publish functions (opcodes 0..6).
PUBLISH, WITH_PRIORITY, LVALUE, FAST, FAST_DEFAULT, EMPLACE, VARIANT = range(7)
# As a burst's api only: the whole burst is one PublishBatch call.
BATCH = 7
# Message types: CLOUD travels by loan (it is only subscribed to, published by the loan ops).
SMALL, BIG, TEXT, CLOUD = range(4)


def header(config, wrap_distance=0, salt=0x5A):
    return bytes([config, wrap_distance, salt])


def publish(api, type_, priority, sender=7):
    return bytes([api, type_, priority, sender])


def burst(count, api, type_, priority):
    return bytes([7, count, api, type_, priority])


PROCESS = bytes([8])


def process_with(config=0):
    """config: fail when seq % (config & 7) == 0; (config >> 3) & 3: 1 subscribe, 2 unsubscribe,
    3 throw; bit 5 (RETAIN): retain every Cloud visited."""
    return bytes([9, config])


def drain(pattern=0x55):
    return bytes([10, pattern])


def subscribe(type_, form=1, returns_bool=False, fail_mod=0, action=0, action_mod=1):
    """form 0 envelope, 1 (T, header), 2 (T); action 1 unsubscribe self, 2 unsubscribe another,
    3 subscribe a new one, 4 throw, 5 retain the message (CLOUD subscribers)."""
    a = type_ + 4 * form + (12 if returns_bool else 0)
    b = fail_mod | (action << 3) | ((action_mod - 1) << 6)
    return bytes([11, a, b])


def unsubscribe(variant, pick=0, extra=b""):
    """variant 0 live, 1 stale, 2 foreign handle here, 3 our handle on the foreign bus,
    4 kInvalidSubscription, 5 type_index out of range, 6 arbitrary bits (extra: type, 8 id bytes)."""
    return bytes([13, variant, pick]) + extra


def mode(m):  # 0 FULL_FEATURED, 1 NO_STATS, 2 BARE_METAL
    return bytes([14, m])


RESET = bytes([15])
STATS = bytes([16])
LOOK = bytes([17])
ERRORS_ON = bytes([18, 0])
ERRORS_OFF = bytes([18, 1])


def foreign_subscribe(type_):
    return bytes([19, type_ << 1])


# Loans of Cloud (opcodes 20 to 27).
RETAIN = 0x20  # process_with: the visitor retains every Cloud
RETAIN_ACTION = 5  # subscribe(..., action=RETAIN_ACTION): the subscriber retains
# Publish-loan apis: Publish (the loan's priority), PublishWithPriority, PublishFast, through a
# Loaned<Cloud> handle (a refused one is dropped), an empty loan (op 21) / keep the loans (burst).
L_PUBLISH, L_WITH_PRIORITY, L_FAST, L_HANDLE, L_EMPTY = range(5)
L_KEEP = L_EMPTY


def loan(priority, with_args=False, fill=0x11):
    """Loan<Cloud>(priority), filled through the loan, or by its constructor (with_args)."""
    return bytes([20, priority, 1 if with_args else 0, fill])


def publish_loan(pick=0, api=L_PUBLISH, priority=MEDIUM, sender=5):
    """Publishes held loan pick % held (api L_EMPTY, or none held: an empty loan)."""
    return bytes([21, pick, api, priority, sender])


def drop_loan(pick=0, how=0):
    """how 0 Reset, 1 destruction, 2 an empty loan assigned over it."""
    return bytes([22, pick, how])


def refill(pick=0, fill=0x77):
    return bytes([23, pick, fill])


def retain_again(pick=0, how=0):
    """how 0 copy, 1 bus.Retain through it, 2 copy-assign over the next handle, 3 move."""
    return bytes([24, pick, how])


def release(pick=0, how=0):
    """how 0 Reset, 1 destruction, 2 an empty handle moved over it."""
    return bytes([25, pick, how])


def loan_burst(count, priority, api=L_KEEP):
    """count loans of one priority, each published at once through api (or kept: L_KEEP)."""
    return bytes([26, count, priority, api])


def foreign_loan(priority, api=L_PUBLISH, sender=9):
    """A loan of the second bus published on this one through api (L_PUBLISH to L_HANDLE):
    refused with FOREIGN_LOAN, then published and dispatched on its own bus."""
    return bytes([27, priority, api, sender])


SEEDS = {
    "basic_depth8": header(D8 | DRAIN) + ERRORS_ON
    + subscribe(SMALL, form=0) + subscribe(BIG, form=1, returns_bool=True)
    + subscribe(TEXT, form=2)
    + b"".join(publish(api, api % 3, HIGH) for api in range(7))
    + LOOK + PROCESS + process_with() + STATS + LOOK + drain() + STATS,
    "overload_depth128": header(D128 | DRAIN) + ERRORS_ON + subscribe(SMALL) + subscribe(TEXT)
    + burst(100, WITH_PRIORITY, SMALL, LOW) + LOOK + STATS
    + burst(40, PUBLISH, TEXT, MEDIUM) + LOOK + STATS
    + burst(40, FAST, BIG, HIGH) + LOOK + STATS
    + publish(WITH_PRIORITY, SMALL, INVALID) + drain(0x0F) + STATS,
    "modes_and_reset": header(D8) + ERRORS_ON + subscribe(BIG, returns_bool=True, fail_mod=2)
    + mode(1) + burst(10, EMPLACE, BIG, MEDIUM) + STATS + PROCESS + STATS
    + mode(2) + burst(10, VARIANT, BIG, LOW) + STATS + LOOK + PROCESS
    + mode(0) + burst(10, LVALUE, BIG, HIGH) + STATS + RESET + STATS + PROCESS + STATS
    + ERRORS_OFF + burst(10, PUBLISH, TEXT, LOW) + STATS,
    "callbacks_that_act": header(D8 | DRAIN) + ERRORS_ON
    + subscribe(SMALL, action=1, action_mod=2)
    + subscribe(SMALL, form=0, returns_bool=True, fail_mod=3, action=2, action_mod=3)
    + subscribe(SMALL, form=2, action=3, action_mod=2)
    + subscribe(TEXT, returns_bool=True, action=4, action_mod=2)
    + subscribe(TEXT, form=0, fail_mod=1)
    + burst(8, FAST, SMALL, HIGH) + PROCESS + LOOK + PROCESS + PROCESS + STATS
    + burst(8, PUBLISH, TEXT, MEDIUM) + process_with(0x1B) + PROCESS + STATS + LOOK,
    "subscription_limits_in_batch": header(D8 | DRAIN) + ERRORS_ON
    + b"".join(subscribe(BIG, action=3, action_mod=1) for _ in range(4))
    + subscribe(BIG, action=1) + LOOK
    + burst(8, EMPLACE, BIG, HIGH) + PROCESS + LOOK + PROCESS + LOOK + drain(0xF0) + LOOK,
    "handles_stale_foreign_invalid": header(D128_SP) + foreign_subscribe(SMALL)
    + foreign_subscribe(BIG) + subscribe(SMALL) + subscribe(SMALL) + subscribe(BIG)
    + unsubscribe(0) + unsubscribe(1) + unsubscribe(2) + unsubscribe(3, 1) + unsubscribe(4)
    + unsubscribe(5, 2) + unsubscribe(6, 0, bytes([0]) + bytes(8)) + LOOK
    + publish(PUBLISH, SMALL, MEDIUM) + PROCESS + STATS,
    "msg_id_wrap_64": header(D8_SP | NEAR_WRAP | DRAIN, wrap_distance=3) + ERRORS_ON
    + subscribe(SMALL) + burst(8, WITH_PRIORITY, SMALL, HIGH) + PROCESS + PROCESS + PROCESS
    + burst(8, FAST, SMALL, HIGH) + process_with() + STATS,
    "batch_depth128": header(D128 | DRAIN) + ERRORS_ON + subscribe(SMALL) + subscribe(BIG)
    + burst(70, BATCH, SMALL, LOW) + STATS + burst(20, BATCH, BIG, LOW) + STATS + LOOK
    + burst(60, BATCH, SMALL, HIGH) + STATS + LOOK + PROCESS + burst(5, BATCH, BIG, INVALID)
    + mode(2) + burst(200, BATCH, SMALL, LOW) + LOOK + mode(0) + drain() + STATS
    + burst(0, BATCH, SMALL, HIGH) + STATS,
    "batch_position_wrap_32": header(D8_POS32 | NEAR_WRAP | DRAIN, wrap_distance=3) + ERRORS_ON
    + subscribe(SMALL) + burst(10, BATCH, SMALL, HIGH) + drain() + burst(9, BATCH, SMALL, HIGH)
    + PROCESS + burst(3, BATCH, BIG, MEDIUM) + STATS + drain() + STATS,
    "position_wrap_32": header(D128_SP_POS32 | NEAR_WRAP | DRAIN, wrap_distance=20) + ERRORS_ON
    + subscribe(TEXT, form=0) + burst(60, PUBLISH, TEXT, HIGH) + drain() + STATS
    + burst(100, VARIANT, SMALL, LOW) + LOOK + STATS,
    # HIGH ring: HIGH first, a HIGH flood ends a batch early, only a full HIGH ring refuses HIGH.
    "high_lane_depth8": header(D8_H4 | DRAIN) + ERRORS_ON + subscribe(SMALL) + subscribe(BIG)
    + burst(8, WITH_PRIORITY, SMALL, MEDIUM) + burst(6, FAST, BIG, HIGH) + LOOK + STATS
    + PROCESS + LOOK + PROCESS + burst(5, BATCH, SMALL, HIGH) + STATS + LOOK + process_with()
    + mode(2) + burst(10, PUBLISH, SMALL, LOW) + burst(5, EMPLACE, BIG, HIGH) + LOOK + mode(0)
    + drain() + STATS,
    "high_lane_single_producer_depth128": header(D128_SP_H8 | DRAIN) + ERRORS_ON
    + subscribe(TEXT, form=0) + burst(110, WITH_PRIORITY, TEXT, MEDIUM)
    + burst(12, VARIANT, TEXT, HIGH) + LOOK + PROCESS + PROCESS + STATS + drain(0x33) + STATS,
    # Producer lanes: this thread's LOW/MEDIUM on its lane, HIGH on the HIGH ring (or the lane).
    "lane_and_high_lane_depth8": header(D8_H4_L1 | DRAIN) + ERRORS_ON + subscribe(SMALL)
    + burst(9, WITH_PRIORITY, SMALL, LOW) + burst(9, WITH_PRIORITY, SMALL, MEDIUM)
    + burst(6, LVALUE, SMALL, HIGH) + LOOK + STATS + PROCESS + LOOK + burst(4, BATCH, SMALL, MEDIUM)
    + RESET + STATS + drain() + STATS,
    "lanes_without_high_lane_depth128": header(D128_L2 | DRAIN) + ERRORS_ON + subscribe(BIG)
    + burst(20, BATCH, BIG, HIGH) + burst(20, WITH_PRIORITY, BIG, LOW) + LOOK + PROCESS
    + mode(2) + burst(20, FAST, BIG, MEDIUM) + LOOK + mode(1) + burst(5, PUBLISH, BIG, LOW)
    + drain() + STATS,
    "high_lane_wrap_32": header(D8_POS32_H4 | NEAR_WRAP | DRAIN, wrap_distance=3) + ERRORS_ON
    + subscribe(SMALL) + burst(6, WITH_PRIORITY, SMALL, HIGH) + burst(8, BATCH, SMALL, MEDIUM)
    + drain() + burst(9, WITH_PRIORITY, SMALL, HIGH) + burst(9, WITH_PRIORITY, SMALL, MEDIUM)
    + PROCESS + burst(3, BATCH, SMALL, HIGH) + drain() + STATS,
    "lane_and_high_lane_wrap_32": header(D128_POS32_H16_L1 | NEAR_WRAP | DRAIN, wrap_distance=20)
    + ERRORS_ON + subscribe(TEXT, form=0) + burst(70, PUBLISH, TEXT, MEDIUM)
    + burst(20, FAST, TEXT, HIGH) + LOOK + PROCESS + drain() + STATS,
    # A publish from inside a message's construction in its slot, as a signal handler that
    # interrupts its thread's publish would (sender bit 7 on an EMPLACE of SMALL): on a lane it
    # waits in the lane's handler area for the interrupted publish, on a ring it claims the next
    # position; at every fill up to the limits, in every priority and mode.
    "handler_publishes_inside_a_lane_slot": header(D8_H4_L1 | DRAIN) + ERRORS_ON
    + subscribe(SMALL) + b"".join(publish(EMPLACE, SMALL, MEDIUM, 0x80 | i) for i in range(8))
    + LOOK + STATS + PROCESS + b"".join(publish(EMPLACE, SMALL, p, 0x81) for p in (LOW, HIGH))
    + burst(3, WITH_PRIORITY, SMALL, LOW) + publish(EMPLACE, SMALL, LOW, 0xC0) + LOOK + STATS
    + mode(2) + b"".join(publish(EMPLACE, SMALL, MEDIUM, 0x90) for _ in range(5)) + mode(0)
    + publish(EMPLACE, SMALL, INVALID, 0x80) + drain() + STATS,
    "handler_publishes_inside_slots_of_lanes_and_rings": header(D128_L2 | DRAIN) + ERRORS_ON
    + subscribe(SMALL, form=0) + burst(95, WITH_PRIORITY, SMALL, MEDIUM)
    + b"".join(publish(EMPLACE, SMALL, p, 0x80 | p) for p in (LOW, MEDIUM, HIGH, MEDIUM, HIGH))
    + LOOK + STATS + mode(1) + burst(20, PUBLISH, SMALL, MEDIUM)
    + publish(EMPLACE, SMALL, HIGH, 0xFF) + mode(0) + drain() + STATS,
    "handler_publishes_inside_a_ring_slot": header(D8_H4 | DRAIN) + ERRORS_ON + subscribe(SMALL)
    + b"".join(publish(EMPLACE, SMALL, p, 0x80 | i) for i, p in enumerate((MEDIUM, HIGH) * 5))
    + LOOK + STATS + PROCESS + drain()
    + b"".join(publish(EMPLACE, SMALL, MEDIUM, 0x80) for _ in range(5)) + STATS,
    "handler_publishes_near_wrap_32": header(D128_POS32_H16_L1 | NEAR_WRAP | DRAIN,
                                             wrap_distance=7) + ERRORS_ON + subscribe(SMALL)
    + b"".join(publish(EMPLACE, SMALL, p, 0x80 | i) for i, p in enumerate((MEDIUM, HIGH) * 10))
    + PROCESS + LOOK + STATS + drain() + STATS,
    # A HIGH flood that never pauses: the HIGH ring (4 slots) topped up before every batch of 3,
    # so each batch uses up its HIGH share with HIGH still ready; LOW/MEDIUM get one message each
    # time 4 HIGH went since the last (shared ring, then a producer lane), in both dispatch modes.
    "high_flood_turns_depth8": header(D8_H4 | DRAIN) + ERRORS_ON + subscribe(SMALL)
    + subscribe(BIG, form=2) + publish(PUBLISH, SMALL, MEDIUM) + publish(PUBLISH, BIG, LOW)
    + publish(WITH_PRIORITY, SMALL, MEDIUM)
    + (burst(4, WITH_PRIORITY, SMALL, HIGH) + PROCESS + burst(4, FAST, BIG, HIGH)
       + process_with()) * 4 + STATS + drain(),
    "high_flood_turns_lane": header(D8_H4_L1 | DRAIN) + ERRORS_ON + subscribe(SMALL)
    + burst(3, PUBLISH, SMALL, MEDIUM)
    + (burst(4, WITH_PRIORITY, SMALL, HIGH) + process_with() + burst(4, EMPLACE, SMALL, HIGH)
       + PROCESS) * 4 + STATS + drain(),
    # Loans. Pool of 5: LOW takes 3, MEDIUM 4, HIGH all 5; refusals counted per priority and
    # reported; every publish api; a loan dropped unpublished, one refilled before publishing.
    "loans_admission_by_priority": header(D8 | DRAIN) + ERRORS_ON
    + subscribe(CLOUD, form=1) + subscribe(CLOUD, form=2, returns_bool=True, fail_mod=2)
    + loan(LOW) + loan(LOW, with_args=True) + loan(LOW) + loan(LOW) + STATS
    + loan(MEDIUM) + loan(MEDIUM) + STATS + loan(HIGH, fill=0x22) + loan(HIGH) + STATS + LOOK
    + drop_loan(1, 0) + loan(LOW) + loan(MEDIUM) + refill(2, 0x99)
    + publish_loan(0, L_PUBLISH) + publish_loan(0, L_WITH_PRIORITY, HIGH)
    + publish_loan(0, L_FAST, LOW) + publish_loan(0, L_HANDLE, MEDIUM) + STATS + LOOK + PROCESS
    + process_with() + STATS + drop_loan(0, 2) + drop_loan(0, 1) + STATS + RESET + STATS
    + loan_burst(6, MEDIUM, L_WITH_PRIORITY) + loan_burst(3, HIGH, L_PUBLISH) + STATS,
    # Pool of 8: subscribers retain (typed through bus.Retain, the envelope through the slot's
    # Loaned::Retain), the visitor too; retained blocks stay out of the pool until released, so
    # later loans are refused; copies, bus.Retain through a handle, assignment, move, release.
    "loans_retained_across_batches": header(D128 | DRAIN) + ERRORS_ON
    + subscribe(CLOUD, form=1, action=RETAIN_ACTION, action_mod=1)
    + subscribe(CLOUD, form=0, action=RETAIN_ACTION, action_mod=2)
    + loan_burst(5, MEDIUM, L_PUBLISH) + STATS + PROCESS + STATS
    + loan_burst(6, LOW, L_KEEP) + STATS + retain_again(0, 0) + retain_again(1, 1)
    + retain_again(2, 2) + retain_again(3, 3) + STATS + release(0, 0) + release(1, 1) + STATS
    + loan(HIGH) + loan(HIGH) + STATS + publish_loan(0, L_WITH_PRIORITY, HIGH)
    + process_with(RETAIN) + STATS + release(0, 2) + release(0, 0) + release(0, 1) + release(0, 0)
    + loan(MEDIUM) + publish_loan(0, L_FAST, HIGH) + drain(0xAA) + STATS,
    # Pool of 1: only HIGH loans; a retained message keeps the only block; ring of 8 filled, so
    # a loan's publish is refused and the loan kept intact, then published once there is room.
    "loans_pool_of_one_high_only": header(D8_SP | DRAIN) + ERRORS_ON
    + subscribe(CLOUD, form=2, action=RETAIN_ACTION) + loan(LOW) + loan(MEDIUM) + loan(HIGH)
    + loan(HIGH) + STATS + burst(8, WITH_PRIORITY, SMALL, HIGH) + publish_loan(0, L_PUBLISH)
    + publish_loan(0, L_WITH_PRIORITY, HIGH) + LOOK + STATS + PROCESS + PROCESS
    + publish_loan(0, L_PUBLISH) + LOOK + PROCESS + loan(HIGH) + STATS + release(0, 0)
    + loan(HIGH, with_args=True) + publish_loan(0, L_HANDLE, HIGH) + drain() + STATS,
    # Empty loans and bad priorities: INVALID_MESSAGE, nothing counted; a loan through a
    # Loaned handle refused by a full ring returns its block; modes: NO_STATS and BARE_METAL
    # (the whole pool at LOW, no counters, no reports).
    "loans_invalid_full_and_modes": header(D8_POS32 | NEAR_WRAP | DRAIN, wrap_distance=3)
    + ERRORS_ON + subscribe(CLOUD, form=0) + publish_loan(0, L_EMPTY) + loan(INVALID)
    + loan(HIGH) + publish_loan(0, L_WITH_PRIORITY, INVALID) + burst(8, PUBLISH, SMALL, HIGH)
    + publish_loan(0, L_HANDLE, HIGH) + STATS + drain() + mode(1) + loan(LOW) + loan(LOW)
    + STATS + mode(2) + loan(LOW) + loan(LOW) + loan(LOW) + STATS + publish_loan(0, L_PUBLISH)
    + publish_loan(0, L_FAST, LOW) + mode(0) + loan(HIGH) + drop_loan() + drain() + STATS
    + publish_loan(0, L_EMPTY, INVALID) + ERRORS_OFF + loan(LOW) + loan(LOW) + STATS,
    # Pool of 70 (several bitmap words) behind a HIGH ring of 16 and a producer lane: a HIGH
    # flood of loans fills the HIGH ring (the refused loans stay held), callbacks that unsubscribe
    # and subscribe while loans are dispatched.
    "loans_many_blocks_high_lane": header(D128_POS32_H16_L1 | NEAR_WRAP | DRAIN, wrap_distance=9)
    + ERRORS_ON + subscribe(CLOUD, form=1, action=3, action_mod=2)
    + subscribe(CLOUD, form=0, returns_bool=True, fail_mod=3, action=1, action_mod=4)
    + loan_burst(60, LOW, L_PUBLISH) + STATS + loan_burst(20, HIGH, L_WITH_PRIORITY) + LOOK
    + STATS + PROCESS + LOOK + loan_burst(10, HIGH, L_KEEP) + STATS
    + b"".join(publish_loan(i, L_FAST, HIGH) for i in range(12)) + process_with(RETAIN | 0x0B)
    + STATS + release(3) + release(1, 1) + drain(0x5A) + STATS,
    # Loans of a second bus published here through every api, in every mode, among loans of this
    # bus held, queued and retained: refused (FOREIGN_LOAN, reported unless BARE_METAL or no
    # callback), intact, then delivered by their own bus; both pools exact throughout.
    "loans_foreign": header(D8_H4 | DRAIN) + ERRORS_ON
    + subscribe(CLOUD, form=1, action=RETAIN_ACTION, action_mod=2) + loan(MEDIUM) + loan(HIGH)
    + foreign_loan(LOW, L_PUBLISH) + foreign_loan(MEDIUM, L_WITH_PRIORITY)
    + foreign_loan(HIGH, L_FAST) + foreign_loan(HIGH, L_HANDLE) + publish_loan(0, L_PUBLISH)
    + foreign_loan(INVALID, L_PUBLISH) + STATS + PROCESS + foreign_loan(HIGH, L_WITH_PRIORITY)
    + mode(2) + foreign_loan(MEDIUM, L_HANDLE) + mode(0) + ERRORS_OFF + foreign_loan(HIGH)
    + ERRORS_ON + loan_burst(3, HIGH, L_PUBLISH) + foreign_loan(LOW, L_FAST) + drain() + STATS,
    # Loans queued, held and retained when the bus is destroyed (no drain): the queued ones are
    # destroyed with the ring, every block is back before the pool goes.
    "loans_left_at_destruction": header(D8_H4) + ERRORS_ON
    + subscribe(CLOUD, form=1, action=RETAIN_ACTION) + loan_burst(2, HIGH, L_PUBLISH) + PROCESS
    + loan_burst(1, LOW, L_PUBLISH) + loan(MEDIUM) + retain_again(0, 0) + STATS + LOOK,
}

# Known header bugs: replayed with MCCC_FUZZ_STRICT=1 by the fuzz.regression.* tests, which fail
# until the bug is fixed (see docs/reliability.md).
REGRESSIONS = {
    # Depth-8 bus with 32-bit positions starting 2 before the wrap: fill it (8 admitted), drain,
    # fill again: the refusal's QUEUE_FULL id is taken from the wrapped 32-bit position.
    "queue_full_id_32bit_wrap": header(D8_POS32 | NEAR_WRAP, wrap_distance=2) + ERRORS_ON
    + burst(8, WITH_PRIORITY, SMALL, HIGH) + drain() + burst(9, WITH_PRIORITY, SMALL, HIGH),
    # A producer lane: a batch takes 16 of 25, one more is published, the next batch must take
    # all 10 (the consumer once re-read the lane's tail only when it had consumed all it saw).
    "lane_batch_takes_all_published": header(D128_POS32_H16_L1) + ERRORS_ON + subscribe(SMALL)
    + burst(25, PUBLISH, SMALL, MEDIUM) + PROCESS + publish(PUBLISH, SMALL, MEDIUM) + PROCESS,
}


def write(directory, files):
    os.makedirs(directory, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write(os.path.join(HERE, "corpus"), SEEDS)
    write(os.path.join(HERE, "regressions"), REGRESSIONS)
