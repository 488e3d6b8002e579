#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of bridge_fuzz_target.cpp into bridge_corpus/ (a script of transport
messages: see the target for the byte meanings). Run from tests/fuzz/; the files are committed."""
import os
import struct

OUT = "bridge_corpus"


def data(stream, step, payload=(1, 1, 0x34, 0x12), high=False, invented=None):
    code = (5 if invented is not None else 0) | (8 if high else 0)
    out = [code]
    if invented is not None:
        out += [stream] + list(struct.pack("<Q", invented))
    else:
        out += [stream]
    out += step_bytes(step)
    out += [(len(payload) - 1) % 5] + list(payload)
    return out


def step_bytes(step):
    if isinstance(step, tuple):  # absolute
        return [0xF0] + list(struct.pack("<Q", step[0]))
    return [0x20 + step]


def marker(stream, step, end=False, high=False):
    return [(2 if end else 1) | (8 if high else 0), stream] + step_bytes(step)


def write(name, limits, ops):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(bytes(limits + [b for op in ops for b in op]))


os.makedirs(OUT, exist_ok=True)
write("in_order_two_channels", [15, 2],
      [data(0, 1 if i else 0x20 - 0x20) for i in range(10)] +
      [data(1, 1, high=True) for _ in range(10)])
write("gap_repeat_reorder", [15, 2],
      [data(0, 0), data(0, 1), data(0, 3), data(0, -1), data(0, 0), data(0, 2), marker(0, 3)])
write("jump_and_resync", [7, 2],
      [data(0, 0), data(0, 1), data(2, (1000,)), data(2, 1), data(2, 1), data(2, 1),
       data(0, (2,))])
write("wild_numbers", [63, 3],
      [data(3, 0), data(3, (2**64 - 1,)), data(3, (5,)), marker(3, (2**63,)), data(3, (6,))])
write("end_then_replay", [15, 1],
      [data(4, 0), data(4, 1), data(4, 1), marker(4, 1, end=True), data(4, -1), data(4, 1),
       marker(4, 0, end=True)])
write("invented_streams", [15, 1],
      [data(5, 0), data(5, 1)] + [data(0, 0, invented=0xB000 + i) for i in range(12)] +
      [data(5, 0), data(5, 1)])
write("bad_bool_enum_sizes", [15, 1],
      [data(0, 0, payload=(2, 1, 0, 0)), data(0, 0, payload=(1, 7, 0, 0)),
       data(0, 0, payload=(1, 1, 0)), data(0, 0, payload=(1, 1, 0, 0, 9)), data(0, 0)])
write("packed_and_damaged", [31, 2],
      [[4, 2, 0, 0x20, 3, 1, 2, 3, 4, 0, 0x21, 3, 0, 0, 0, 0, 0, 0x21, 3, 1, 1, 1, 1, 0],
       [4, 1, 0, 0x21, 3, 1, 2, 3, 4, 0, 0x21, 3, 0, 0, 0, 0, 0x35]])
write("raw_bytes", [1, 0],
      [[3, 60] + [0x4D, 0x43, 0x43, 0x42, 2, 1] + [0] * 54, [3, 0], [6, 1, 2, 3]])
