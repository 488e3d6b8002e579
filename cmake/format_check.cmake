# Fails when a tracked C++ source differs from what clang-format (project .clang-format) makes of
# it. Usage: cmake -DCLANG_FORMAT=... -DGIT=... -DSOURCE_DIR=... -P format_check.cmake
execute_process(COMMAND "${GIT}" ls-files "*.hpp" "*.cpp" "*.h"
                WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE files
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE git_result)
if(NOT git_result EQUAL 0)
  message(FATAL_ERROR "format_check: git ls-files failed")
endif()
string(REPLACE "\n" ";" files "${files}")
list(LENGTH files count)
execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror ${files}
                WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE result ERROR_VARIABLE diagnostics)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "format_check: files differ from .clang-format; run "
                      "`clang-format -i <file>`:\n${diagnostics}")
endif()
message(STATUS "format_check: ${count} files match .clang-format")
