#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds mccc and runs its tests: the one command a new user or CI needs.
#
#   scripts/test.sh [PRESET...]      default: release mcu cross-aarch64 cross-armv7
#
# 1. Installs the Debian packages the tests use that are missing (apt-get, as root or through
#    sudo; nothing is installed when all are present). Set MCCC_NO_INSTALL=1 to skip this step.
# 2. Runs `cmake --workflow --preset PRESET` (configure, build, test) for each preset given
#    (release, debug, tsan, asan-ubsan, mcu, cross-aarch64, cross-armv7; see CMakePresets.json).
#    Every preset runs even if an earlier one failed; the last line summarises them all and the
#    exit status is non-zero if any failed.
#    The emulated presets (mcu: Cortex-M under qemu-system-arm; cross-*: Arm Linux under
#    qemu-user) need their cross compiler and emulator. When one is missing the preset is
#    skipped with "test.sh: <preset>: skipped: tool missing (<tool>)"; with CI=true a missing
#    tool fails the preset instead, so that CI can never pass without running it.
#
# Needs CMake 3.25 or newer (the presets file is version 6, the first with workflow presets).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

presets=("$@")
if ((${#presets[@]} == 0)); then
  presets=(release mcu cross-aarch64 cross-armv7)
fi

# What each package is for:
#   build and unit tests    cmake make g++ pkg-config libgtest-dev libgmock-dev
#   benchmark smoke tests   libbenchmark-dev
#   Cortex-M4 compile check gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib
#   static analysis, format clang-format clang clang-tidy cppcheck
#   clang++ with libc++     libc++-14-dev libc++abi-14-dev (static analysis compile check)
#   fuzz replay (libFuzzer) libclang-rt-14-dev
#   traceability check      python3
#   bridge (mccc::bridge)   libzmq3-dev cppzmq-dev
#   mcu preset (Cortex-M)   qemu-system-arm (with the Cortex-M4 compile check's packages)
#   cross-aarch64 preset    g++-aarch64-linux-gnu
#   cross-armv7 preset      g++-arm-linux-gnueabihf
#   both cross-* presets    qemu-user googletest (GoogleTest sources, built for the target)
# Only the first line is required; without the others their tests are skipped, not failed
# (outside CI: see above).
readonly PACKAGES=(
  cmake make g++ pkg-config libgtest-dev libgmock-dev
  libbenchmark-dev
  gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib
  clang-format clang clang-tidy cppcheck
  libc++-14-dev libc++abi-14-dev
  libclang-rt-14-dev
  python3
  libzmq3-dev cppzmq-dev
  qemu-system-arm
  g++-aarch64-linux-gnu
  g++-arm-linux-gnueabihf
  qemu-user googletest
)

say() {
  echo "test.sh: $*"
}

is_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    say "need root (or sudo) to run: $*"
    return 1
  fi
}

install_missing_packages() {
  if [[ "${MCCC_NO_INSTALL:-0}" == "1" ]]; then
    say "MCCC_NO_INSTALL=1: not installing packages"
    return 0
  fi
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    say "not a Debian-based system: install GoogleTest, CMake >= 3.25 and a C++17 compiler" \
        "yourself (package list in this script)"
    return 0
  fi
  local missing=() pkg
  for pkg in "${PACKAGES[@]}"; do
    is_installed "${pkg}" || missing+=("${pkg}")
  done
  if ((${#missing[@]} == 0)); then
    say "all test dependencies are installed"
    return 0
  fi
  say "installing missing packages: ${missing[*]}"
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

check_cmake_version() {
  local version major minor
  version="$(cmake --version | head -n 1 | sed 's/^cmake version //')"
  major="${version%%.*}"
  minor="${version#*.}"
  minor="${minor%%.*}"
  if ((major < 3 || (major == 3 && minor < 25))); then
    say "CMake ${version} is too old: the presets need CMake >= 3.25"
    exit 2
  fi
}

# GCC 12's ThreadSanitizer cannot map its shadow memory when the kernel randomises mmap with more
# than 28 bits ("unexpected memory mapping"); lower it for this machine if that is the case.
tsan_preflight() {
  local dir
  dir="$(mktemp -d)"
  printf 'int main() { return 0; }\n' >"${dir}/t.cpp"
  if g++ -fsanitize=thread "${dir}/t.cpp" -o "${dir}/t" && ! "${dir}/t" 2>"${dir}/err"; then
    if grep -q 'unexpected memory mapping' "${dir}/err"; then
      say "TSan needs vm.mmap_rnd_bits=28 on this kernel; setting it"
      as_root sysctl -w vm.mmap_rnd_bits=28 || true
    fi
  fi
  rm -rf "${dir}"
}

# The GoogleTest sources the cross-* presets build for the target (Debian package googletest).
readonly GOOGLETEST_SOURCES=/usr/src/googletest/CMakeLists.txt

# The tools an emulated preset needs (commands, or the file above), one a line; nothing for the
# presets that build and run on the host.
required_tools() {
  case "$1" in
    mcu) printf '%s\n' arm-none-eabi-g++ qemu-system-arm ;;
    cross-aarch64) printf '%s\n' aarch64-linux-gnu-g++ qemu-aarch64 "${GOOGLETEST_SOURCES}" ;;
    cross-armv7) printf '%s\n' arm-linux-gnueabihf-g++ qemu-arm "${GOOGLETEST_SOURCES}" ;;
  esac
}

# Prints the first missing tool of a preset; fails if there is none.
first_missing_tool() {
  local tool
  while IFS= read -r tool; do
    if [[ "${tool}" == /* ]]; then
      [[ -e "${tool}" ]] || { echo "${tool}"; return 0; }
    else
      command -v "${tool}" >/dev/null 2>&1 || { echo "${tool}"; return 0; }
    fi
  done < <(required_tools "$1")
  return 1
}

install_missing_packages
check_cmake_version

# What failed in a preset's workflow: its failed tests (CTest's list of the last run), or the
# configure or build step when no test ran.
failed_step_of() {
  local preset=$1
  local list="build/${preset}/Testing/Temporary/LastTestsFailed.log"
  if [[ -s "${list}" ]]; then
    printf '%s: failed tests: %s' "${preset}" "$(cut -d: -f2- "${list}" | paste -sd ' ' -)"
  else
    printf '%s: failed before its tests ran (configure or build; see its output above)' "${preset}"
  fi
}

results=()
failures=()
failed=0
for preset in "${presets[@]}"; do
  if missing_tool="$(first_missing_tool "${preset}")"; then
    if [[ "${CI:-}" == "true" ]]; then
      say "${preset}: FAILED: tool missing (${missing_tool}); with CI=true every preset must run"
      results+=("${preset}=FAIL(tool missing)")
      failed=1
    else
      say "${preset}: skipped: tool missing (${missing_tool})"
      results+=("${preset}=SKIPPED(tool missing)")
    fi
    continue
  fi
  [[ "${preset}" == "tsan" ]] && tsan_preflight
  start=${SECONDS}
  status=PASS
  say "==== cmake --workflow --preset ${preset} ===="
  rm -f "build/${preset}/Testing/Temporary/LastTestsFailed.log"  # an earlier run's, if any
  if ! cmake --workflow --preset "${preset}"; then
    status=FAIL
    failed=1
    failures+=("$(failed_step_of "${preset}")")
  fi
  results+=("${preset}=${status}($((SECONDS - start))s)")
done

if ((failed)); then
  # Repeated at the end, where a log cut to its tail still shows which test failed.
  for failure in "${failures[@]}"; do
    say "${failure}"
  done
  say "FAILED: ${results[*]} total $((SECONDS))s"
  exit 1
fi
say "PASSED: ${results[*]} total $((SECONDS))s"
