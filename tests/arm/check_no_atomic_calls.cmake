# SPDX-License-Identifier: MIT
# Compiles SOURCE for Cortex-M0 (single-core traits) and fails if the object still calls an
# __atomic_* or __sync_* library function: the M0 has no such instructions and newlib ships no
# libatomic, so such a call would only show up as a link error in the user's firmware.
# Inputs (-D): COMPILER, INCLUDE_DIR, SOURCE, OUT.
execute_process(
  COMMAND "${COMPILER}" -std=c++17 -mcpu=cortex-m0 -mthumb -Os -fno-exceptions -fno-rtti
          -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wsign-conversion -Werror
          -DMCU_CHECK_SINGLE_CORE_TRAITS=1 "-I${INCLUDE_DIR}" -c "${SOURCE}" -o "${OUT}"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "Cortex-M0 build failed:\n${_out}")
endif()
string(REGEX REPLACE "g\\+\\+$" "nm" _nm "${COMPILER}")
execute_process(COMMAND "${_nm}" -u "${OUT}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _symbols)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${_nm} failed on ${OUT}")
endif()
if(_symbols MATCHES "__(atomic|sync)_[A-Za-z0-9_]+")
  message(FATAL_ERROR "the Cortex-M0 object calls ${CMAKE_MATCH_0}: an atomic read-modify-write "
                      "escaped the critical section\n${_symbols}")
endif()
message(STATUS "no __atomic_/__sync_ calls in the Cortex-M0 object")
