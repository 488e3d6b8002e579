# Builds a fuzz target (bus_fuzz_target.cpp, bridge_fuzz_target.cpp) with clang++ and libFuzzer
# (plus ASan and UBSan) and fuzzes it for a bounded time. Run by the CTest tests fuzz.libfuzzer and
# fuzz.bridge.libfuzzer (tests/fuzz/CMakeLists.txt):
#   cmake -DSOURCE=<fuzz target .cpp> -DCORPUS=<seed corpus dir> -DINCLUDE_DIR=<include>
#         -DWORK_DIR=<build dir> [-DSECONDS=30] [-DRUNS=20000000] [-DNAME=bus_fuzzer]
#         -P run_libfuzzer.cmake
# The compiler: $MCCC_FUZZ_CXX, else the first of clang++, clang++-19 ... clang++-14 on PATH.
# Prints "mccc-fuzz: SKIPPED: <why>" (the test is then reported as skipped) when no clang++ can
# link -fsanitize=fuzzer (Debian: apt-get install clang libclang-rt-14-dev).
# New inputs go to WORK_DIR/corpus (the seed corpus in the source tree is only read); a failing
# input is written to WORK_DIR/crash-<sha1> (replay it: fuzz_replay or fuzz_bridge_replay <file>, or
# the fuzzer binary).
cmake_minimum_required(VERSION 3.16)

foreach(_var IN ITEMS SOURCE CORPUS INCLUDE_DIR WORK_DIR)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_libfuzzer.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT DEFINED SECONDS)
  set(SECONDS 30)
endif()
if(NOT DEFINED RUNS)
  set(RUNS 20000000)
endif()
if(NOT DEFINED NAME)
  set(NAME bus_fuzzer)
endif()

file(MAKE_DIRECTORY "${WORK_DIR}/corpus")

# ---- find a clang++ that links libFuzzer -----------------------------------------------------
if(DEFINED ENV{MCCC_FUZZ_CXX} AND NOT "$ENV{MCCC_FUZZ_CXX}" STREQUAL "")
  set(_cxx "$ENV{MCCC_FUZZ_CXX}")
else()
  find_program(_cxx NAMES clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14)
endif()
if(NOT _cxx)
  message("mccc-fuzz: SKIPPED: no clang++ found (Debian: apt-get install clang libclang-rt-14-dev)")
  return()
endif()

set(_probe "${WORK_DIR}/probe.cpp")
file(WRITE "${_probe}"
  "#include <cstddef>\n#include <cstdint>\n"
  "extern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, std::size_t) { return 0; }\n")
execute_process(
  COMMAND "${_cxx}" -fsanitize=fuzzer,address,undefined "${_probe}" -o "${WORK_DIR}/probe"
  RESULT_VARIABLE _probe_result OUTPUT_VARIABLE _probe_out ERROR_VARIABLE _probe_out)
if(NOT _probe_result EQUAL 0)
  message("${_probe_out}")
  message("mccc-fuzz: SKIPPED: ${_cxx} cannot link -fsanitize=fuzzer "
          "(Debian: apt-get install libclang-rt-14-dev)")
  return()
endif()

# ---- build (only when the target, a header or this script changed) -------------------------------
set(_binary "${WORK_DIR}/${NAME}")
set(_stale FALSE)
if(NOT EXISTS "${_binary}")
  set(_stale TRUE)
else()
  # The target's own headers (the fuzz target is split into several, beside its .cpp) count too.
  get_filename_component(_source_dir "${SOURCE}" DIRECTORY)
  file(GLOB_RECURSE _inputs "${INCLUDE_DIR}/*.hpp")
  file(GLOB _target_headers "${_source_dir}/*.hpp")
  list(APPEND _inputs ${_target_headers} "${SOURCE}" "${CMAKE_CURRENT_LIST_FILE}")
  foreach(_input IN LISTS _inputs)
    if("${_input}" IS_NEWER_THAN "${_binary}")
      set(_stale TRUE)
      break()
    endif()
  endforeach()
endif()
if(_stale)
  message("mccc-fuzz: building ${_binary} with ${_cxx}")
  execute_process(
    COMMAND "${_cxx}" -std=c++17 -O2 -g -fno-omit-frame-pointer
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
            "-I${INCLUDE_DIR}" "${SOURCE}" -o "${_binary}"
    RESULT_VARIABLE _build_result)
  if(NOT _build_result EQUAL 0)
    file(REMOVE "${_binary}")
    message(FATAL_ERROR "mccc-fuzz: building the fuzzer failed")
  endif()
endif()

# ---- fuzz ------------------------------------------------------------------------------------
set(_command "${_binary}" -max_total_time=${SECONDS} -runs=${RUNS} -max_len=4096 -timeout=10
             -rss_limit_mb=2048 -print_final_stats=1 "-artifact_prefix=${WORK_DIR}/"
             "${WORK_DIR}/corpus" "${CORPUS}")
list(JOIN _command " " _command_text)
message("mccc-fuzz: ${_command_text}")
execute_process(COMMAND ${_command} RESULT_VARIABLE _fuzz_result)
if(NOT _fuzz_result EQUAL 0)
  message(FATAL_ERROR "mccc-fuzz: the fuzzer found a failing input (exit ${_fuzz_result}); it is "
                      "saved under ${WORK_DIR}/ (crash-*, leak-*, timeout-*); replay it with "
                      "fuzz_replay / fuzz_bridge_replay <file> or ${_binary} <file>")
endif()
message("mccc-fuzz: PASSED (no failing input in ${SECONDS} s)")
