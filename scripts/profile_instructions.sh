#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per message of each mccc publish and dispatch path, counted by callgrind (needs no
# hardware counters, which virtual machines often lack). Quoted in docs/benchmarks.md, "What the
# profile shows".
#
# Usage: scripts/profile_instructions.sh [instruction_profile binary] [messages]
#   default binary: build/bench/bench/instruction_profile (built with the benchmark build of
#   docs/benchmarks.md; no -march=native for this target, valgrind 3.19 decodes no AVX-512).
set -euo pipefail
bin=${1:-build/bench/bench/instruction_profile}
messages=${2:-65536}
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
printf '%-20s %12s %14s\n' "path" "instructions" "per message"
for path in mpsc-publish mpsc-publish-fast mpsc-publish-batch spsc-publish spsc-publish-fast \
            spsc-publish-batch process-callback process-visitor nohigh-process-callback \
            lanes-publish lanes-publish-fast lanes-handle-publish lanes-handle-publish-fast \
            lanes-handle-publish-batch lanes-process-callback; do
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
    "$bin" --path "$path" --messages "$messages" >/dev/null 2>&1
  # The "totals:" line holds the instructions executed while instrumentation was on.
  total=$(awk '/^totals:/ { print $2 }' "$out")
  awk -v p="$path" -v t="$total" -v n="$messages" \
    'BEGIN { printf "%-20s %12d %14.1f\n", p, t, t / n }'
done
