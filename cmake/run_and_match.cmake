# Script mode (cmake -P): runs a program and checks its exit status and output.
#
# Used for the example smoke tests. CTest's PASS_REGULAR_EXPRESSION alone would ignore the exit
# code (a crashing example with the right text would pass), so this driver checks both:
#   - PROGRAM must exit with status 0 (sanitizer aborts, crashes and timeouts fail);
#   - if EXPECTED_FILE is given, every non-empty line of it is a CMake regular expression that
#     must match somewhere in the combined stdout+stderr (a one-line file = one regex).
#
# Inputs (-D): PROGRAM, optional EXPECTED_FILE, optional TIMEOUT (seconds, default 50).
cmake_minimum_required(VERSION 3.16)

if(NOT DEFINED PROGRAM)
  message(FATAL_ERROR "run_and_match.cmake: -DPROGRAM=... is required")
endif()
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 50)
endif()

execute_process(
  COMMAND "${PROGRAM}"
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _out
  TIMEOUT ${TIMEOUT})
# Echo the program's output so that `ctest --output-on-failure` shows it.
message("${_out}")
if(NOT _rc STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} failed: exit status '${_rc}'")
endif()

if(DEFINED EXPECTED_FILE AND NOT EXPECTED_FILE STREQUAL "")
  file(STRINGS "${EXPECTED_FILE}" _patterns)
  set(_checked 0)
  foreach(_pattern IN LISTS _patterns)
    string(STRIP "${_pattern}" _pattern)
    if(_pattern STREQUAL "")
      continue()
    endif()
    math(EXPR _checked "${_checked} + 1")
    if(NOT _out MATCHES "${_pattern}")
      message(FATAL_ERROR "output of ${PROGRAM} does not match '${_pattern}' (from ${EXPECTED_FILE})")
    endif()
  endforeach()
  if(_checked EQUAL 0)
    message(FATAL_ERROR "${EXPECTED_FILE} holds no regular expression")
  endif()
endif()
