#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per message of each mccc publish and dispatch path, counted by callgrind (needs no
# hardware counters, which virtual machines often lack). Quoted in docs/benchmarks.md, "What the
# profile shows" and "Instruction counts against the original".
#
# Usage: scripts/profile_instructions.sh [instruction_profile binary] [messages]
#   default binary: build/bench/bench/instruction_profile (built with the benchmark build of
#   docs/benchmarks.md; no -march=native for this target, valgrind 3.19 decodes no AVX-512).
# Then, when profile_peer_api sits beside that binary (target bench_profile_peer_api), the four
# calls of the API mccc shares with the original MCCC (Publish, PublishFast, an empty
# ProcessBatch, ProcessBatch per message dispatched). With MCCC_REFERENCE_PROFILE set to a build
# of the same source against the original's headers (made by hand, outside this repository:
# docs/benchmarks.md says how), each row also shows the original's count. The fan-out paths
# come from fan_out_instruction_profile beside the binary (target
# bench_fan_out_instruction_profile), when it is there.
set -euo pipefail
bin=${1:-build/bench/bench/instruction_profile}
messages=${2:-65536}
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# Instructions counted while instrumentation was on (the "totals:" line) of one run.
count() {
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" "$@" >/dev/null 2>&1
  awk '/^totals:/ { print $2 }' "$out"
}

printf '%-20s %12s %14s\n' "path" "instructions" "per message"
for path in mpsc-publish mpsc-publish-fast mpsc-publish-batch spsc-publish spsc-publish-fast \
            spsc-publish-batch process-callback process-visitor nohigh-process-callback \
            lanes-publish lanes-publish-fast lanes-handle-publish lanes-handle-publish-fast \
            lanes-handle-publish-batch lanes-process-callback; do
  total=$(count "$bin" --path "$path" --messages "$messages")
  awk -v p="$path" -v t="$total" -v n="$messages" \
    'BEGIN { printf "%-20s %12d %14.1f\n", p, t, t / n }'
done

# A fan-out Domain's paths, from their own program (target bench_fan_out_instruction_profile)
# when it sits beside that binary.
fan_out="$(dirname "$bin")/fan_out_instruction_profile"
if [[ -x "$fan_out" ]]; then
  for path in domain-publish-1 domain-publish-2 domain-publish-4 domain-loan-1 domain-loan-4; do
    total=$(count "$fan_out" --path "$path" --messages "$messages")
    awk -v p="$path" -v t="$total" -v n="$messages" \
      'BEGIN { printf "%-20s %12d %14.1f\n", p, t, t / n }'
  done
fi

peer="$(dirname "$bin")/profile_peer_api"
[[ -x "$peer" ]] || exit 0
reference=${MCCC_REFERENCE_PROFILE:-}
printf '\nthe API shared with the original MCCC (default bus, envelope callback), per call:\n'
printf '%-20s %12s %12s\n' "call" "mccc" "original"
for path in publish publish-fast empty-poll dispatch; do
  ours=$(count "$peer" --path "$path" --calls "$messages")
  theirs=""
  if [[ -n "$reference" ]]; then
    theirs=$(count "$reference" --path "$path" --calls "$messages")
  fi
  awk -v p="$path" -v a="$ours" -v b="$theirs" -v n="$messages" \
    'BEGIN { if (b == "") printf "%-20s %12.1f %12s\n", p, a / n, "-";
             else printf "%-20s %12.1f %12.1f\n", p, a / n, b / n }'
done
