# Script mode (cmake -P): the driver behind mccc_add_compile_fail_test().
#
# Compiles SOURCE with COMPILER (-std=c++17 -fsyntax-only -I INCLUDE_DIR, plus EXTRA_FLAGS) and
# succeeds only when BOTH hold:
#   1. the compiler rejects the file (non-zero exit), and
#   2. its output matches the CMake regular expression stored in REGEX_FILE.
# A file that compiles, or that fails for another reason (a typo, a missing header, a different
# static_assert), makes this script fail. The regex travels through a file, not the command line,
# so it may contain any character (';', quotes, backslashes).
#
# Inputs (-D): COMPILER, COMPILER_ID (CMake's id: GNU, Clang...), INCLUDE_DIR, SOURCE, REGEX_FILE,
# optional EXTRA_FLAGS (a ;-list).
# Or only CONVENTION_ERROR=<text>: fail with that text (a file without its '// expect:' line).
cmake_minimum_required(VERSION 3.16)

# A source registered without the required '// expect:' line: fail and say what to change.
if(DEFINED CONVENTION_ERROR)
  message(FATAL_ERROR "compile-fail check FAILED: ${CONVENTION_ERROR}")
endif()

foreach(_var IN ITEMS COMPILER INCLUDE_DIR SOURCE REGEX_FILE)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "compile_fail_check.cmake: -D${_var}=... is required")
  endif()
endforeach()

file(READ "${REGEX_FILE}" _expect)
string(STRIP "${_expect}" _expect)
if(_expect STREQUAL "")
  message(FATAL_ERROR "compile_fail_check.cmake: empty expected-message regex in ${REGEX_FILE}")
endif()

# Plain ASCII diagnostics: no locale-dependent typographic quotes around names, no colours.
set(ENV{LC_ALL} C)
set(ENV{GCC_COLORS} "")

# No source excerpts in the output: an echoed source line that merely contains the expected text
# (next to some other error) must not count as a match.
if(COMPILER_ID MATCHES "Clang")
  set(_no_caret -fno-caret-diagnostics)
else()
  set(_no_caret -fno-diagnostics-show-caret)
endif()

set(_cmd "${COMPILER}" -std=c++17 -fsyntax-only ${_no_caret} "-I${INCLUDE_DIR}" ${EXTRA_FLAGS}
    "${SOURCE}")
execute_process(
  COMMAND ${_cmd}
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _out)

string(REPLACE ";" " " _cmd_text "${_cmd}")
if(_rc EQUAL 0)
  message(FATAL_ERROR
    "compile-fail check FAILED: the source compiled, but it must be rejected.\n"
    "  command: ${_cmd_text}\n  expected message regex: ${_expect}\n${_out}")
endif()
if(NOT _out MATCHES "${_expect}")
  message(FATAL_ERROR
    "compile-fail check FAILED: the compiler rejected the source, but not with the expected "
    "message (so it failed for another reason).\n"
    "  command: ${_cmd_text}\n  expected message regex: ${_expect}\n"
    "---- compiler output ----\n${_out}")
endif()
message(STATUS "compile-fail check passed: rejected with a message matching '${_expect}'")
