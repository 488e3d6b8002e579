#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Static analysis of the mccc headers. Exits 0 only when every stage is clean:
#
#   1. clang-tidy (checks and options from .clang-tidy) on
#      tests/static_analysis/instantiate_all.cpp, a translation unit that instantiates every
#      class and member template of include/mccc/, once per configuration (template code is
#      only analysed once instantiated, and #if branches only when selected).
#   2. cppcheck on the same translation unit in the same configurations, plus every header on
#      its own.
#   3. Every header compiled alone (a TU that includes it twice) with g++ and clang++ and
#      -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wsign-conversion -Werror; the
#      instantiation TU is built and run with both compilers.
#
# Every suppression and the reason for it is listed in docs/static_analysis.md.
#
# Usage: scripts/static_analysis.sh [--no-compile-check]
# Tools (override through the environment): CLANG_TIDY (default clang-tidy-14, else clang-tidy),
# CPPCHECK (default cppcheck), GXX (default g++-12, else g++), CLANGXX (default clang++-14, else
# clang++). Written for clang-tidy 14 and cppcheck 2.10; other versions may report other things.
# Exit status: 0 clean, 1 findings, 2 a tool is missing.
set -u

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}" || exit 2

COMPILE_CHECK=1
if [[ "${1:-}" == "--no-compile-check" ]]; then
  COMPILE_CHECK=0
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--no-compile-check]" >&2
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
for tool in CLANG_TIDY CPPCHECK; do
  if [[ -z "${!tool}" ]]; then
    echo "static_analysis: ${tool,,} not found" >&2
    exit 2
  fi
done
if [[ ${COMPILE_CHECK} -eq 1 && ( -z "${GXX}" || -z "${CLANGXX}" ) ]]; then
  echo "static_analysis: g++ and clang++ are needed for the compile check" \
       "(or pass --no-compile-check)" >&2
  exit 2
fi

TU="tests/static_analysis/instantiate_all.cpp"
WARNINGS=(-Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wsign-conversion)
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

FAILED=0
fail() {
  echo "FAIL: $*"
  FAILED=1
}

# The configurations that select different code. Each entry: a name, then compiler flags.
#   hosted-debug     Linux x86-64, assertions on, exceptions and RTTI on (the default build).
#   hosted-release   NDEBUG (assertions compiled out), -fno-exceptions -fno-rtti, and the
#                    test hooks (MCCC_ENABLE_TEST_HOOKS) compiled in.
#   bare-metal       MCCC_HOSTED=0: no clock, no futex, no ActiveObject, one statistics shard.
CONFIG_NAMES=(hosted-debug hosted-release bare-metal)
CONFIG_FLAGS=(""
              "-DNDEBUG -DMCCC_ENABLE_TEST_HOOKS=1 -fno-exceptions -fno-rtti"
              "-DMCCC_HOSTED=0")
# cppcheck does not know the compiler's predefined macros; these select the same branches.
CPPCHECK_PLATFORM=(
  "-D__GNUC__=12 -D__linux__=1 -D__x86_64__=1 -D__cpp_exceptions=199711 -D__cpp_rtti=199711"
  "-D__GNUC__=12 -D__linux__=1 -D__x86_64__=1 -DNDEBUG -DMCCC_ENABLE_TEST_HOOKS=1"
  "-D__GNUC__=12 -D__arm__=1 -DMCCC_HOSTED=0")

echo "static_analysis: $("${CLANG_TIDY}" --version | grep -i 'version' | head -n 1 | sed 's/^ *//')"
echo "static_analysis: $("${CPPCHECK}" --version)"

# ---------------------------------------------------------------------------------------------
# 1. clang-tidy
# ---------------------------------------------------------------------------------------------
for i in "${!CONFIG_NAMES[@]}"; do
  name="${CONFIG_NAMES[$i]}"
  # shellcheck disable=SC2206  # word splitting of the flag string is intended
  flags=(${CONFIG_FLAGS[$i]})
  log="${WORK}/clang-tidy-${name}.log"
  start=${SECONDS}
  "${CLANG_TIDY}" --quiet --warnings-as-errors='*' "${TU}" -- \
      -std=c++17 -Iinclude -pthread "${WARNINGS[@]}" "${flags[@]}" >"${log}" 2>&1
  status=$?
  if [[ ${status} -ne 0 ]] || grep -qE '(warning|error):' "${log}"; then
    cat "${log}"
    fail "clang-tidy (${name})"
  else
    echo "ok   clang-tidy ${name} ($((SECONDS - start)) s)"
  fi
done

# ---------------------------------------------------------------------------------------------
# 2. cppcheck
# ---------------------------------------------------------------------------------------------
# shellcheck disable=SC2054  # the commas are inside one cppcheck option
CPPCHECK_COMMON=(--enable=warning,style,performance,portability --std=c++17 --language=c++
                 -I include --inline-suppr --quiet --error-exitcode=1
                 --template='{file}:{line}:{column}: {severity}: {message} [{id}]'
                 # Traits structs override DefaultBusTraits members by hiding them: that is the
                 # documented configuration interface (traits.hpp), not an accident.
                 --suppress=duplInheritedMember
                 # A style suggestion (std::accumulate/count_if for raw loops); the loops read
                 # atomics with a memory-order comment each, which an algorithm would hide.
                 --suppress=useStlAlgorithm)

run_cppcheck() {  # <name> <args...>
  local name="$1"
  shift
  local log="${WORK}/cppcheck-${name}.log"
  local start=${SECONDS}
  "${CPPCHECK}" "${CPPCHECK_COMMON[@]}" "$@" >"${log}" 2>&1
  local status=$?
  if [[ ${status} -ne 0 ]] || [[ -s "${log}" ]]; then
    cat "${log}"
    fail "cppcheck (${name})"
  else
    echo "ok   cppcheck ${name} ($((SECONDS - start)) s)"
  fi
}

for i in "${!CONFIG_NAMES[@]}"; do
  # shellcheck disable=SC2206
  defines=(${CPPCHECK_PLATFORM[$i]})
  run_cppcheck "${CONFIG_NAMES[$i]}" "${defines[@]}" "${TU}"
done

mapfile -t HEADERS < <(find include/mccc -name '*.hpp' | LC_ALL=C sort)
# Each header as its own translation unit: nothing uses the public members of an API struct
# there (MessageHeader, DefaultBusTraits, ...), so unusedStructMember is only noise in this run.
# shellcheck disable=SC2206
defines=(${CPPCHECK_PLATFORM[0]})
run_cppcheck "headers" "${defines[@]}" --suppress=unusedStructMember "${HEADERS[@]}"

# ---------------------------------------------------------------------------------------------
# 3. Every header compiles alone; the instantiation TU builds and runs.
# ---------------------------------------------------------------------------------------------
if [[ ${COMPILE_CHECK} -eq 1 ]]; then
  for compiler in "${GXX}" "${CLANGXX}"; do
    start=${SECONDS}
    bad=0
    for header in "${HEADERS[@]}"; do
      rel="${header#include/}"
      # Twice: the second include must be a no-op (include guard).
      printf '#include <%s>\n#include <%s>\n' "${rel}" "${rel}" >"${WORK}/alone.cpp"
      if ! "${compiler}" -std=c++17 -Iinclude "${WARNINGS[@]}" -Werror -fsyntax-only \
           "${WORK}/alone.cpp" >"${WORK}/alone.log" 2>&1; then
        cat "${WORK}/alone.log"
        fail "${rel} does not compile alone with $(basename "${compiler}")"
        bad=1
      fi
    done
    [[ ${bad} -eq 0 ]] && echo "ok   ${#HEADERS[@]} headers compile alone with" \
                              "$(basename "${compiler}") ($((SECONDS - start)) s)"

    start=${SECONDS}
    exe="${WORK}/instantiate_all_$(basename "${compiler}")"
    if ! "${compiler}" -std=c++17 -Iinclude "${WARNINGS[@]}" -Werror -O1 "${TU}" -o "${exe}" \
         -pthread >"${WORK}/tu.log" 2>&1; then
      cat "${WORK}/tu.log"
      fail "${TU} does not build with $(basename "${compiler}")"
    elif ! "${exe}"; then
      fail "${TU} built with $(basename "${compiler}") exits non-zero"
    else
      echo "ok   ${TU} builds and runs with $(basename "${compiler}") ($((SECONDS - start)) s)"
    fi
  done
fi

if [[ ${FAILED} -ne 0 ]]; then
  echo "static_analysis: FINDINGS (see above). Fix them; a suppression needs a reason, recorded" \
       "in docs/static_analysis.md"
  exit 1
fi
echo "static_analysis: clean"
exit 0
