# Script mode (cmake -P): proves that a mccc::StaticComponent visitor compiles to direct, inlined
# code. Compiles visitor_inlining.cpp to x86-64 assembly at -O2 (the benchmark/release level)
# and checks:
#   1. no symbol containing "Handle" appears anywhere: every handler was inlined (a handler that
#      was called, or merely kept out of line, would have a mangled name "...6Handle...");
#   2. mccc_codegen_visit_one (one message through the bus's compile-time visit) contains no call
#      instruction and no indirect jump: handled types are inline code, ignored types nothing;
#   3. mccc_codegen_process_batch (ProcessBatchWith with the visitor) has exactly as many calls,
#      and as many indirect calls, as mccc_codegen_process_batch_lambdas (the same handlers as
#      make_overloaded lambdas). The only indirect calls there are the bus's error callback.
# Fixed flags (not the build's CMAKE_CXX_FLAGS), so sanitizer or debug builds do not change it.
#
# Inputs (-D): COMPILER, INCLUDE_DIR, SOURCE, OUTPUT (the .s file to write).
cmake_minimum_required(VERSION 3.16)

foreach(_var IN ITEMS COMPILER INCLUDE_DIR SOURCE OUTPUT)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "check_inlining.cmake: -D${_var}=... is required")
  endif()
endforeach()

execute_process(
  COMMAND "${COMPILER}" -std=c++17 -O2 -DNDEBUG -S "-I${INCLUDE_DIR}" "${SOURCE}" -o "${OUTPUT}"
  RESULT_VARIABLE _rc
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _out)
if(NOT _rc STREQUAL "0")
  message(FATAL_ERROR "check_inlining: compiling ${SOURCE} failed (${_rc}):\n${_out}")
endif()
file(READ "${OUTPUT}" _asm)

# The body of function `name`: from its label to the next ".cfi_endproc" (GCC and Clang emit one
# per function on x86-64 Linux).
function(function_body name out_var)
  string(REGEX MATCH "\n${name}:[^\n]*\n" _label "${_asm}")
  if(NOT _label)
    message(FATAL_ERROR "check_inlining: no function ${name} in ${OUTPUT}")
  endif()
  string(FIND "${_asm}" "${_label}" _begin)
  string(SUBSTRING "${_asm}" ${_begin} -1 _rest)
  string(FIND "${_rest}" ".cfi_endproc" _end)
  if(_end EQUAL -1)
    message(FATAL_ERROR "check_inlining: cannot find the end of ${name} in ${OUTPUT}")
  endif()
  string(SUBSTRING "${_rest}" 0 ${_end} _body)
  set(${out_var} "${_body}" PARENT_SCOPE)
endfunction()

# How many lines of `text` match the instruction pattern `regex` (anchored after a newline).
function(count_matches text regex out_var)
  string(REGEX MATCHALL "\n[ \t]+${regex}" _hits "${text}")
  list(LENGTH _hits _n)
  set(${out_var} ${_n} PARENT_SCOPE)
endfunction()

set(_call "(call|callq)[ \t]")
set(_indirect_call "(call|callq)[ \t]+\\*")
set(_indirect_jump "(notrack[ \t]+)?(jmp|jmpq)[ \t]+\\*")
set(_failures "")

# 1. No handler left out of line.
string(REGEX MATCHALL "[A-Za-z0-9_.$]*[0-9]Handle[A-Za-z0-9_.$]*" _handles "${_asm}")
if(_handles)
  list(REMOVE_DUPLICATES _handles)
  string(APPEND _failures "  a Handle was not inlined; symbols: ${_handles}\n")
endif()

# 2. One message: no call of any kind.
function_body(mccc_codegen_visit_one _visit_one)
count_matches("${_visit_one}" "${_call}" _visit_calls)
count_matches("${_visit_one}" "${_indirect_jump}" _visit_jumps)
if(NOT _visit_calls EQUAL 0 OR NOT _visit_jumps EQUAL 0)
  string(APPEND _failures "  mccc_codegen_visit_one has ${_visit_calls} call(s) and "
                          "${_visit_jumps} indirect jump(s); expected none:\n${_visit_one}\n")
endif()

# 3. The batch loop: the same calls as the lambda baseline.
function_body(mccc_codegen_process_batch _batch)
function_body(mccc_codegen_process_batch_lambdas _baseline)
count_matches("${_batch}" "${_call}" _batch_calls)
count_matches("${_baseline}" "${_call}" _baseline_calls)
count_matches("${_batch}" "${_indirect_call}" _batch_indirect)
count_matches("${_baseline}" "${_indirect_call}" _baseline_indirect)
if(NOT _batch_calls EQUAL _baseline_calls OR NOT _batch_indirect EQUAL _baseline_indirect)
  string(APPEND _failures
    "  mccc_codegen_process_batch has ${_batch_calls} call(s), ${_batch_indirect} indirect; the "
    "lambda baseline has ${_baseline_calls}, ${_baseline_indirect} indirect\n")
endif()

if(_failures)
  message(FATAL_ERROR "check_inlining: the StaticComponent visitor is not dispatched by direct, "
                      "inlined code (assembly: ${OUTPUT}):\n${_failures}")
endif()
message(STATUS "check_inlining: OK - no Handle symbol; visit_one has no call; ProcessBatchWith "
               "with the visitor: ${_batch_calls} call(s) (${_batch_indirect} indirect, the "
               "error callback), the same as the lambda baseline")
