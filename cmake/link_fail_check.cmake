# Script mode (cmake -P): links OBJECTS (a ;-list) with COMPILER and succeeds only when the link
# fails AND its output matches REGEX. Used to prove that units built with different MCCC_*
# configurations cannot be linked into one program.
# Inputs (-D): COMPILER, OBJECTS, OUTPUT (the executable that must not appear), REGEX.
cmake_minimum_required(VERSION 3.16)
foreach(_var IN ITEMS COMPILER OBJECTS OUTPUT REGEX)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "link_fail_check.cmake: -D${_var}=... is required")
  endif()
endforeach()
set(ENV{LC_ALL} C)
file(REMOVE "${OUTPUT}")
execute_process(
  COMMAND "${COMPILER}" ${OBJECTS} -o "${OUTPUT}"
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _out)
if(_rc EQUAL 0)
  message(FATAL_ERROR "link-fail check FAILED: the objects linked, but must not:\n${_out}")
endif()
if(NOT _out MATCHES "${REGEX}")
  message(FATAL_ERROR "link-fail check FAILED: the link failed, but its output does not match "
                      "'${REGEX}':\n${_out}")
endif()
message(STATUS "link-fail check passed: the link was refused as expected")
