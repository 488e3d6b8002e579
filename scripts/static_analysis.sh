#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static analysis of the mccc headers. Exits 0 only when every stage is clean:
#
#   0. Suppressions: every NOLINT / cppcheck-suppress in include/ names its check and cites a
#      deviation of docs/misra.md ("deviation D-nn") or says "false positive"; every cited
#      deviation id is defined in docs/misra.md (a heading or an anchor).
#   1. clang-tidy (checks and options from .clang-tidy) on
#      tests/static_analysis/instantiate_all.cpp, a translation unit that instantiates every
#      class and member template of include/mccc/, once per configuration (template code is
#      only analysed once instantiated, and #if branches only when selected).
#   2. cppcheck with every check (--enable=all --inconclusive) on the same translation unit in
#      the same configurations, plus every header on its own.
#   3. Every public header compiled alone (a TU that includes it twice) with the warning set
#      below and -Werror: g++, clang++ with libstdc++, clang++ with libc++, and
#      arm-none-eabi-g++ for Cortex-M4 (-DMCCC_HOSTED=0; the headers that need an operating
#      system are left out there, see HOSTED_ONLY). The instantiation TU is built and run with
#      the three hosted compilers and compiled for Cortex-M4.
#
# Every suppression and the reason for it is listed in docs/static_analysis.md.
#
# Usage: scripts/static_analysis.sh [--no-compile-check] [--jobs N]
# Tools (override through the environment): CLANG_TIDY (default clang-tidy-14, else clang-tidy),
# CPPCHECK (default cppcheck), GXX (default g++-12, else g++), CLANGXX (default clang++-14, else
# clang++), ARM_GXX (default arm-none-eabi-g++). Written for clang-tidy 14, cppcheck 2.10, GCC 12
# and Clang 14; other versions may report other things.
# A missing compiler (or libc++, or ZeroMQ's header) skips its part with a "skipped" line; with
# CI=true in the environment it fails instead, so that CI cannot pass without running it.
# Exit status: 0 clean, 1 findings (or a part missing under CI=true), 2 clang-tidy or cppcheck
# missing.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}" || exit 2

COMPILE_CHECK=1
JOBS="$(nproc 2>/dev/null || echo 2)"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-compile-check) COMPILE_CHECK=0 ;;
    --jobs)
      JOBS="${2:-}"
      shift
      ;;
    *)
      echo "usage: $0 [--no-compile-check] [--jobs N]" >&2
      exit 2
      ;;
  esac
  shift
done
if ! [[ "${JOBS}" =~ ^[1-9][0-9]*$ ]]; then
  echo "static_analysis: --jobs needs a positive number" >&2
  exit 2
fi

first_tool() {
  local candidate
  for candidate in "$@"; do
    if command -v "${candidate}" >/dev/null 2>&1; then
      command -v "${candidate}"
      return 0
    fi
  done
  return 1
}

CLANG_TIDY="${CLANG_TIDY:-$(first_tool clang-tidy-14 clang-tidy)}"
CPPCHECK="${CPPCHECK:-$(first_tool cppcheck)}"
GXX="${GXX:-$(first_tool g++-12 g++)}"
CLANGXX="${CLANGXX:-$(first_tool clang++-14 clang++)}"
ARM_GXX="${ARM_GXX:-$(first_tool arm-none-eabi-g++)}"
for tool in CLANG_TIDY CPPCHECK; do
  if [[ -z "${!tool}" ]]; then
    echo "static_analysis: ${tool,,} not found" >&2
    exit 2
  fi
done

TU="tests/static_analysis/instantiate_all.cpp"
# The warning set of every compile. -Wuseless-cast is GCC's only (added for g++ below).
# -Wundef: an identifier tested by #if must be defined first (MISRA C++:2023 Rule 19.1.3).
WARNINGS=(-Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wcast-qual
          -Wold-style-cast -Wdouble-promotion -Wundef -Werror)
CORTEX_M4=(-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -DMCCC_HOSTED=0)
# Headers that need an operating system, left out of the Cortex-M4 compile: the ZeroMQ bridge
# transport and its parts (bridge/zmq_*.hpp: libzmq, a hosted library, and POSIX descriptors),
# and the bridge umbrella that includes them.
HOSTED_ONLY=(include/mccc/bridge/bridge.hpp include/mccc/bridge/zmq_*.hpp)
# Headers that need ZeroMQ's C header on the host (libzmq3-dev); zmq_wake_signal.hpp does not,
# but is left out with the others when zmq.h is missing.
NEEDS_ZMQ=(include/mccc/bridge/bridge.hpp include/mccc/bridge/zmq_*.hpp)

WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

FAILED=0
fail() {
  echo "FAIL: $*"
  FAILED=1
}
# A part that cannot run here: skipped, or a failure under CI=true.
missing() {
  if [[ "${CI:-}" == "true" ]]; then
    fail "$* (with CI=true every part must run)"
  else
    echo "skipped: $*"
  fi
}

# ---------------------------------------------------------------------------------------------
# Jobs: each stage below queues its commands; run_queued runs them JOBS at a time. A job is a
# name and a command; its output goes to ${WORK}/<name>.log, its verdict to <name>.status.
# ---------------------------------------------------------------------------------------------
QUEUE_NAMES=()
QUEUE_COMMANDS=()
queue() {  # <name> <command string, run by bash -c>
  QUEUE_NAMES+=("$1")
  QUEUE_COMMANDS+=("$2")
}
run_queued() {
  local i running=0
  for i in "${!QUEUE_NAMES[@]}"; do
    if [[ ${running} -ge ${JOBS} ]]; then
      wait -n
      running=$((running - 1))
    fi
    (
      start=${SECONDS}
      bash -c "${QUEUE_COMMANDS[$i]}" >"${WORK}/${QUEUE_NAMES[$i]}.log" 2>&1
      echo "$? $((SECONDS - start))" >"${WORK}/${QUEUE_NAMES[$i]}.status"
    ) &
    running=$((running + 1))
  done
  wait
}
# Reports a job: clean when it exited 0 and (for analysers) printed no diagnostic.
report() {  # <name> <description> <kind: tidy|cppcheck|compile>
  local name="$1" description="$2" kind="$3" status seconds log="${WORK}/$1.log"
  read -r status seconds <"${WORK}/${name}.status"
  local dirty=0
  case "${kind}" in
    tidy) grep -qE '(warning|error):' "${log}" && dirty=1 ;;
    cppcheck) [[ -s "${log}" ]] && dirty=1 ;;
  esac
  if [[ ${status} -ne 0 || ${dirty} -ne 0 ]]; then
    cat "${log}"
    fail "${description}"
  else
    echo "ok   ${description} (${seconds} s)"
  fi
}

echo "static_analysis: $("${CLANG_TIDY}" --version | grep -i 'version' | head -n 1 | sed 's/^ *//')"
echo "static_analysis: $("${CPPCHECK}" --version)"

mapfile -t HEADERS < <(find include/mccc -name '*.hpp' | LC_ALL=C sort)
if [[ ${#HEADERS[@]} -eq 0 || ! -f "${TU}" ]]; then
  echo "static_analysis: no headers under include/mccc, or ${TU} missing" >&2
  exit 2
fi

# ---------------------------------------------------------------------------------------------
# 0. Suppressions and deviation ids
# ---------------------------------------------------------------------------------------------
# A NOLINT must name its checks (no bare NOLINT, no wildcard) and, except NOLINTEND, give its
# reason: a deviation of docs/misra.md or a tool's false positive. The same for cppcheck.
bad_suppressions="$(grep -rnE 'NOLINT|cppcheck-suppress' include/ |
  grep -vE 'NOLINTEND\([a-z0-9.,-]+\)' |
  grep -vE '(NOLINT(NEXTLINE|BEGIN)?\([a-z0-9.,-]+\)|cppcheck-suppress [][A-Za-z0-9_, ]+).*(deviations? D-[0-9]{2}|false positive)' ||
  true)"
if [[ -n "${bad_suppressions}" ]]; then
  echo "${bad_suppressions}"
  fail "suppressions without a named check and a deviation id (or 'false positive')"
else
  echo "ok   every suppression in include/ names its check and its deviation"
fi
# Every id cited with "deviation(s) D-nn[, D-nn...]" in include/ must be defined in docs/misra.md.
mapfile -t CITED < <(grep -rhoE 'deviations? D-[0-9]{2}(, D-[0-9]{2})*' include/ |
  grep -oE 'D-[0-9]{2}' | LC_ALL=C sort -u)
if [[ ! -f docs/misra.md ]]; then
  echo "note: docs/misra.md does not exist; the ${#CITED[@]} cited deviation ids" \
       "(${CITED[*]}) are not checked"
else
  undefined=()
  for id in "${CITED[@]}"; do
    # A heading that names the id, or an HTML anchor / id attribute equal to it.
    if ! grep -qiE "^#+ .*\b${id}\b|(id|name)=\"${id}\"" docs/misra.md; then
      undefined+=("${id}")
    fi
  done
  if [[ ${#undefined[@]} -gt 0 ]]; then
    fail "deviation ids cited in include/ but not defined in docs/misra.md: ${undefined[*]}"
  else
    echo "ok   the ${#CITED[@]} deviation ids cited in include/ are defined in docs/misra.md"
  fi
fi

# ---------------------------------------------------------------------------------------------
# The configurations that select different code. Each entry: a name, then compiler flags.
#   hosted-debug     Linux x86-64, assertions on, exceptions and RTTI on (the default build).
#   hosted-release   NDEBUG (assertions compiled out), -fno-exceptions -fno-rtti, and the
#                    test hooks (MCCC_ENABLE_TEST_HOOKS) compiled in.
#   bare-metal       MCCC_HOSTED=0: no clock, no futex, no ActiveObject, one statistics shard.
# ---------------------------------------------------------------------------------------------
CONFIG_NAMES=(hosted-debug hosted-release bare-metal)
CONFIG_FLAGS=(""
              "-DNDEBUG -DMCCC_ENABLE_TEST_HOOKS=1 -fno-exceptions -fno-rtti"
              "-DMCCC_HOSTED=0")
# cppcheck does not know the compiler's predefined macros; these select the same branches.
CPPCHECK_PLATFORM=(
  "-D__GNUC__=12 -D__linux__=1 -D__x86_64__=1 -D__cpp_exceptions=199711 -D__cpp_rtti=199711"
  "-D__GNUC__=12 -D__linux__=1 -D__x86_64__=1 -DNDEBUG -DMCCC_ENABLE_TEST_HOOKS=1"
  "-D__GNUC__=12 -D__arm__=1 -DMCCC_HOSTED=0")

q() {  # quotes its arguments into one string for bash -c
  printf '%q ' "$@"
}

# ---------------------------------------------------------------------------------------------
# 1. clang-tidy, and 2. cppcheck (queued together: they are independent)
# ---------------------------------------------------------------------------------------------
CPPCHECK_COMMON=(--enable=all --inconclusive --std=c++17 --language=c++ -I include
                 --inline-suppr --quiet --error-exitcode=1
                 --template='{file}:{line}:{column}: {severity}: {message} [{id}]'
                 # Information, not a finding: cppcheck is deliberately not given the system
                 # headers (its std.cfg library models the standard library instead).
                 --suppress=missingIncludeSystem
                 # Traits structs override DefaultBusTraits members by hiding them: that is the
                 # documented configuration interface (traits.hpp). It fires on user code
                 # (the traits of the instantiation TU), never on the headers.
                 --suppress=duplInheritedMember
                 # A style suggestion (std::accumulate/count_if for raw loops), no MISRA rule;
                 # the loops read atomics with a memory-order comment each.
                 --suppress=useStlAlgorithm)
# Only for each header on its own, where nothing is instantiated or used: nothing uses the
# public members of an API struct (unusedStructMember) or calls the API (unusedFunction); the
# types of template parameters are unknown, so a by-value `Position` or enum parameter looks
# expensive (passedByValue); and the inline suppressions written for instantiated code have
# nothing to match (unmatchedSuppression). The instantiating runs keep all four.
CPPCHECK_HEADER_ONLY=(--suppress=unusedStructMember --suppress=unusedFunction
                      --suppress=passedByValue --suppress=unmatchedSuppression)

for i in "${!CONFIG_NAMES[@]}"; do
  name="${CONFIG_NAMES[$i]}"
  # shellcheck disable=SC2206  # word splitting of the flag strings is intended
  flags=(${CONFIG_FLAGS[$i]})
  # shellcheck disable=SC2206
  defines=(${CPPCHECK_PLATFORM[$i]})
  queue "tidy-${name}" "$(q "${CLANG_TIDY}" --quiet --warnings-as-errors='*' "${TU}" -- \
    -std=c++17 -Iinclude -pthread "${WARNINGS[@]}" "${flags[@]}")"
  queue "cppcheck-${name}" "$(q "${CPPCHECK}" "${CPPCHECK_COMMON[@]}" "${defines[@]}" "${TU}")"
done
# shellcheck disable=SC2206
defines=(${CPPCHECK_PLATFORM[0]})
queue "cppcheck-headers" "$(q "${CPPCHECK}" "${CPPCHECK_COMMON[@]}" "${CPPCHECK_HEADER_ONLY[@]}" \
  "${defines[@]}" "${HEADERS[@]}")"

# ---------------------------------------------------------------------------------------------
# 3. Every header compiles alone; the instantiation TU builds and runs.
# ---------------------------------------------------------------------------------------------
COMPILERS=()      # names
COMPILE_FLAGS=()  # flag strings (quoted), one per compiler
TU_ACTION=()      # run: build and run the TU; compile: object only
is_in() {  # <needle> <haystack...>
  local needle="$1" item
  shift
  for item in "$@"; do
    [[ "${item}" == "${needle}" ]] && return 0
  done
  return 1
}
if [[ ${COMPILE_CHECK} -eq 1 ]]; then
  if [[ -n "${GXX}" ]]; then
    COMPILERS+=("g++")
    COMPILE_FLAGS+=("$(q "${GXX}" -std=c++17 -Iinclude "${WARNINGS[@]}" -Wuseless-cast)")
    TU_ACTION+=(run)
  else
    missing "g++ not found: the g++ compile check"
  fi
  if [[ -n "${CLANGXX}" ]]; then
    COMPILERS+=("clang++")
    COMPILE_FLAGS+=("$(q "${CLANGXX}" -std=c++17 -Iinclude "${WARNINGS[@]}")")
    TU_ACTION+=(run)
    printf '#include <vector>\nint main() { return std::vector<int>(1).size() == 1U ? 0 : 1; }\n' \
      >"${WORK}/libcxx_probe.cpp"
    if "${CLANGXX}" -stdlib=libc++ "${WORK}/libcxx_probe.cpp" -o "${WORK}/libcxx_probe" \
         >/dev/null 2>&1 && "${WORK}/libcxx_probe"; then
      COMPILERS+=("clang++-libc++")
      COMPILE_FLAGS+=("$(q "${CLANGXX}" -stdlib=libc++ -std=c++17 -Iinclude "${WARNINGS[@]}")")
      TU_ACTION+=(run)
    else
      missing "libc++ not usable by ${CLANGXX} (Debian: libc++-14-dev libc++abi-14-dev)"
    fi
  else
    missing "clang++ not found: the clang++ compile checks (libstdc++ and libc++)"
  fi
  if [[ -n "${ARM_GXX}" ]]; then
    COMPILERS+=("cortex-m4")
    COMPILE_FLAGS+=("$(q "${ARM_GXX}" -std=c++17 "${CORTEX_M4[@]}" -Iinclude "${WARNINGS[@]}" \
      -Wuseless-cast)")
    TU_ACTION+=(compile)
  else
    missing "arm-none-eabi-g++ not found: the Cortex-M4 compile check"
  fi

  printf '#include <zmq.h>\n' >"${WORK}/zmq_probe.cpp"
  have_zmq=1
  if [[ -n "${GXX}" ]] && ! "${GXX}" -fsyntax-only "${WORK}/zmq_probe.cpp" >/dev/null 2>&1; then
    have_zmq=0
    missing "zmq.h not found (Debian: libzmq3-dev): ${NEEDS_ZMQ[*]} not compiled"
  fi

  mkdir -p "${WORK}/alone"
  for header in "${HEADERS[@]}"; do
    rel="${header#include/}"
    # Twice: the second include must be a no-op (include guard).
    printf '#include <%s>\n#include <%s>\n' "${rel}" "${rel}" >"${WORK}/alone/${rel//\//_}.cpp"
  done
  for c in "${!COMPILERS[@]}"; do
    compiler="${COMPILERS[$c]}"
    # One job per compiler and header half, so that two cores stay busy.
    for half in 0 1; do
      commands=""
      index=0
      for header in "${HEADERS[@]}"; do
        index=$((index + 1))
        [[ $((index % 2)) -eq ${half} ]] || continue
        if [[ "${compiler}" == "cortex-m4" ]] && is_in "${header}" "${HOSTED_ONLY[@]}"; then
          continue
        fi
        if [[ ${have_zmq} -eq 0 ]] && is_in "${header}" "${NEEDS_ZMQ[@]}"; then
          continue
        fi
        rel="${header#include/}"
        commands+="${COMPILE_FLAGS[$c]} -fsyntax-only $(q "${WORK}/alone/${rel//\//_}.cpp")"
        commands+=" || { echo 'in: ${rel}'; status=1; }; "
      done
      queue "alone-${compiler}-${half}" "status=0; ${commands} exit \${status}"
    done
    if [[ "${TU_ACTION[$c]}" == "run" ]]; then
      exe="$(q "${WORK}/instantiate_all-${compiler}")"
      queue "tu-${compiler}" "${COMPILE_FLAGS[$c]} -O1 $(q "${TU}") -o ${exe} -pthread && ${exe}"
    else
      queue "tu-${compiler}" "${COMPILE_FLAGS[$c]} -Os -c $(q "${TU}") \
        -o $(q "${WORK}/instantiate_all-${compiler}.o")"
    fi
  done
fi

run_queued

for name in "${CONFIG_NAMES[@]}"; do
  report "tidy-${name}" "clang-tidy ${name}" tidy
done
for name in "${CONFIG_NAMES[@]}"; do
  report "cppcheck-${name}" "cppcheck ${name}" cppcheck
done
report "cppcheck-headers" "cppcheck, each of the ${#HEADERS[@]} headers on its own" cppcheck
if [[ ${COMPILE_CHECK} -eq 1 ]]; then
  for c in "${!COMPILERS[@]}"; do
    compiler="${COMPILERS[$c]}"
    report "alone-${compiler}-0" "headers alone with ${compiler}, first half" compile
    report "alone-${compiler}-1" "headers alone with ${compiler}, second half" compile
    if [[ "${TU_ACTION[$c]}" == "run" ]]; then
      report "tu-${compiler}" "${TU} built with ${compiler} and run" compile
    else
      report "tu-${compiler}" "${TU} compiled with ${compiler}" compile
    fi
  done
fi

if [[ ${FAILED} -ne 0 ]]; then
  echo "static_analysis: FINDINGS (see above). Fix them; a suppression names its check and a" \
       "deviation of docs/misra.md, and is listed in docs/static_analysis.md"
  exit 1
fi
echo "static_analysis: clean"
exit 0
