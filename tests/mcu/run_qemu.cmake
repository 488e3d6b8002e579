# SPDX-License-Identifier: MIT
# Script mode (cmake -P): runs a bare-metal program under qemu-system-arm and checks it.
#
# Inputs (-D):
#   QEMU              qemu-system-arm (empty or *-NOTFOUND: the test is skipped outside CI and
#                     fails when the environment variable CI is set)
#   MACHINE           QEMU machine (mps2-an386, mps2-an385, microbit)
#   PROGRAM           the ELF image
#   TIMEOUT           seconds before the run counts as hung (default 120)
#   ICOUNT            optional: -icount shift=<ICOUNT>,sleep=off (reproducible interleaving)
#   EXPECT_PASS_LINE  optional: the last non-empty output line must be exactly "PASS"
#   EXPECTED_FILE     optional: the output must equal this file, line for line (trailing
#                     blanks and empty lines at the end ignored)
# The program's output reaches the host through semihosting (checked: stdout only, QEMU's own
# messages go to stderr); its exit status (semihosting SYS_EXIT_EXTENDED) becomes QEMU's and
# must be 0.
cmake_minimum_required(VERSION 3.16)

foreach(_required MACHINE PROGRAM)
  if(NOT DEFINED ${_required} OR "${${_required}}" STREQUAL "")
    message(FATAL_ERROR "run_qemu.cmake: -D${_required}=... is required")
  endif()
endforeach()
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 120)
endif()

if(NOT QEMU OR NOT EXISTS "${QEMU}")
  if(DEFINED ENV{CI} AND NOT "$ENV{CI}" STREQUAL "" AND NOT "$ENV{CI}" STREQUAL "false")
    message(FATAL_ERROR "qemu-system-arm is missing, and CI requires the bare-metal tests "
                        "(Debian: apt-get install qemu-system-arm)")
  endif()
  message("skipped: tool missing (qemu-system-arm; Debian: apt-get install qemu-system-arm)")
  return()
endif()

# No display, serial port, monitor or network, and the semihosting console on stdout, apart
# from QEMU's own messages on stderr.
set(_command "${QEMU}" -machine "${MACHINE}" -display none -monitor none -serial none -nic none
    -chardev stdio,id=semihosting -semihosting-config enable=on,target=native,chardev=semihosting
    -kernel "${PROGRAM}")
if(DEFINED ICOUNT AND NOT ICOUNT STREQUAL "")
  list(APPEND _command -icount "shift=${ICOUNT},sleep=off")
endif()
string(REPLACE ";" " " _shown "${_command}")
message("run: ${_shown}")

execute_process(
  COMMAND ${_command}
  INPUT_FILE /dev/null
  RESULT_VARIABLE _status
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _err
  TIMEOUT ${TIMEOUT})
# Echo everything so that `ctest --output-on-failure` shows it.
message("${_out}")
if(NOT _err STREQUAL "")
  message("stderr:\n${_err}")
endif()
if(_status MATCHES "timeout")
  message(FATAL_ERROR "${PROGRAM} did not finish within ${TIMEOUT} s (hung?)")
endif()
if(NOT _status STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} failed on ${MACHINE}: exit status '${_status}'")
endif()

string(REPLACE "\r\n" "\n" _out "${_out}")
string(REGEX REPLACE "[ \t\n]+$" "" _trimmed "${_out}")

if(EXPECT_PASS_LINE)
  string(REGEX MATCH "[^\n]*$" _last_line "${_trimmed}")
  if(NOT _last_line STREQUAL "PASS")
    message(FATAL_ERROR "the last output line is '${_last_line}', not 'PASS'")
  endif()
endif()

if(DEFINED EXPECTED_FILE AND NOT EXPECTED_FILE STREQUAL "")
  file(READ "${EXPECTED_FILE}" _expected)
  string(REPLACE "\r\n" "\n" _expected "${_expected}")
  string(REGEX REPLACE "[ \t\n]+$" "" _expected "${_expected}")
  string(REGEX REPLACE "[ \t]+\n" "\n" _expected "${_expected}")
  string(REGEX REPLACE "[ \t]+\n" "\n" _trimmed "${_trimmed}")
  if(NOT _trimmed STREQUAL _expected)
    message(FATAL_ERROR "the output differs from ${EXPECTED_FILE}; expected:\n${_expected}")
  endif()
endif()
