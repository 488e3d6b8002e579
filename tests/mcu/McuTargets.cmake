# SPDX-License-Identifier: MIT
# Building bare-metal Cortex-M programs and running them under qemu-system-arm as CTest tests.
# Included by tests/mcu/CMakeLists.txt; used there and by examples/bare_metal/.
#
#   mcu_add_program(<target> CORE <cortex_m4f|cortex_m3|cortex_m0> SOURCES <src...>
#                   [DEFINITIONS <macro=value...>])
#       An executable <target>.elf for that core and its board: the platform layer of
#       tests/mcu/platform (start-up code, semihosting, SysTick), the board's linker script,
#       mccc::mccc and the project's warnings. DEFINITIONS go to every source of the program
#       (mccc's configuration macros must be the same in all of them).
#
#   mcu_add_qemu_test(<test name> PROGRAM <target> [ICOUNT <shift>] [EXPECT_PASS_LINE]
#                     [EXPECTED_FILE <file>] [TIMEOUT <seconds>] [LABELS <labels...>])
#       Runs the program on the QEMU machine of its core (tests/mcu/run_qemu.cmake): the test
#       passes when the program exits with status 0 and, if asked, its last line is "PASS" and
#       its output equals EXPECTED_FILE line for line. ICOUNT runs it with
#       `-icount shift=<shift>,sleep=off`: one instruction every 2^shift ns of virtual time, so
#       timer interrupts land on the same instructions on every run.
#
# Cores, their compiler flags and the QEMU machine that runs them:
#   cortex_m4f  -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard   mps2-an386 (MPS2, 25 MHz)
#   cortex_m3   -mcpu=cortex-m3                                        mps2-an385 (MPS2, 25 MHz)
#   cortex_m0   -mcpu=cortex-m0                                        microbit (nRF51, 16 MHz)
include_guard(GLOBAL)

set(MCU_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(MCU_PLATFORM_DIR "${MCU_DIR}/platform")

set(_mcu_flags_cortex_m4f -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
set(_mcu_flags_cortex_m3 -mcpu=cortex-m3 -mthumb -mfloat-abi=soft)
set(_mcu_flags_cortex_m0 -mcpu=cortex-m0 -mthumb -mfloat-abi=soft)
set(_mcu_machine_cortex_m4f mps2-an386)
set(_mcu_machine_cortex_m3 mps2-an385)
set(_mcu_machine_cortex_m0 microbit)
set(_mcu_linker_script_cortex_m4f "${MCU_PLATFORM_DIR}/mps2_an385_an386.ld")
set(_mcu_linker_script_cortex_m3 "${MCU_PLATFORM_DIR}/mps2_an385_an386.ld")
set(_mcu_linker_script_cortex_m0 "${MCU_PLATFORM_DIR}/microbit_nrf51.ld")
set(_mcu_clock_hz_cortex_m4f 25000000)
set(_mcu_clock_hz_cortex_m3 25000000)
set(_mcu_clock_hz_cortex_m0 16000000)

# Warnings of our own bare-metal code (what mccc_warnings gives the hosted targets).
if(NOT TARGET mcu_warnings)
  add_library(mcu_warnings INTERFACE)
  target_compile_options(mcu_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wsign-conversion
    $<$<BOOL:${MCCC_WERROR}>:-Werror>)
endif()

# The platform layer, compiled once per core.
function(_mcu_platform_library core)
  set(_lib mcu_platform_${core})
  if(TARGET ${_lib})
    return()
  endif()
  add_library(${_lib} OBJECT
    "${MCU_PLATFORM_DIR}/startup.c"
    "${MCU_PLATFORM_DIR}/faults.cpp"
    "${MCU_PLATFORM_DIR}/semihosting.cpp"
    "${MCU_PLATFORM_DIR}/console.cpp"
    "${MCU_PLATFORM_DIR}/systick.cpp")
  target_compile_options(${_lib} PRIVATE ${_mcu_flags_${core}})
  target_compile_definitions(${_lib} PRIVATE MCU_CORE_CLOCK_HZ=${_mcu_clock_hz_${core}}U)
  target_include_directories(${_lib} PUBLIC "${MCU_DIR}")
  target_link_libraries(${_lib} PRIVATE mcu_warnings)
endfunction()

function(mcu_add_program target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "CORE" "SOURCES;DEFINITIONS")
  if(NOT DEFINED _mcu_machine_${arg_CORE})
    message(FATAL_ERROR "mcu_add_program(${target}): CORE must be cortex_m4f, cortex_m3 or "
                        "cortex_m0 (got '${arg_CORE}')")
  endif()
  _mcu_platform_library(${arg_CORE})
  add_executable(${target} ${arg_SOURCES} $<TARGET_OBJECTS:mcu_platform_${arg_CORE}>)
  target_include_directories(${target} PRIVATE "${MCU_DIR}")
  target_compile_options(${target} PRIVATE ${_mcu_flags_${arg_CORE}})
  target_compile_definitions(${target} PRIVATE ${arg_DEFINITIONS}
                             MCU_CORE_CLOCK_HZ=${_mcu_clock_hz_${arg_CORE}}U)
  target_link_libraries(${target} PRIVATE mccc::mccc mcu_warnings)
  target_link_options(${target} PRIVATE
    ${_mcu_flags_${arg_CORE}}
    -nostartfiles
    "-L${MCU_PLATFORM_DIR}"
    "-T${_mcu_linker_script_${arg_CORE}}"
    "-Wl,-Map=$<TARGET_FILE_DIR:${target}>/${target}.map")
  set_target_properties(${target} PROPERTIES
    LINK_DEPENDS "${_mcu_linker_script_${arg_CORE}};${MCU_PLATFORM_DIR}/sections.ld"
    MCU_MACHINE "${_mcu_machine_${arg_CORE}}")
endfunction()

find_program(MCU_QEMU_SYSTEM_ARM qemu-system-arm DOC "Runs the bare-metal tests (Debian: qemu-system-arm)")

function(mcu_add_qemu_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "EXPECT_PASS_LINE" "PROGRAM;ICOUNT;EXPECTED_FILE;TIMEOUT"
                        "LABELS")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 120)
  endif()
  if(NOT arg_LABELS)
    set(arg_LABELS mcu)
  endif()
  get_target_property(_machine ${arg_PROGRAM} MCU_MACHINE)
  set(_args
    "-DQEMU=${MCU_QEMU_SYSTEM_ARM}"
    "-DMACHINE=${_machine}"
    "-DPROGRAM=$<TARGET_FILE:${arg_PROGRAM}>"
    "-DTIMEOUT=${arg_TIMEOUT}")
  if(DEFINED arg_ICOUNT)
    list(APPEND _args "-DICOUNT=${arg_ICOUNT}")
  endif()
  if(arg_EXPECT_PASS_LINE)
    list(APPEND _args "-DEXPECT_PASS_LINE=ON")
  endif()
  if(arg_EXPECTED_FILE)
    list(APPEND _args "-DEXPECTED_FILE=${arg_EXPECTED_FILE}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${arg_EXPECTED_FILE}")
  endif()
  add_test(NAME ${name} COMMAND "${CMAKE_COMMAND}" ${_args} -P "${MCU_DIR}/run_qemu.cmake")
  math(EXPR _ctest_timeout "${arg_TIMEOUT} + 30")
  set_tests_properties(${name} PROPERTIES
    LABELS "${arg_LABELS}"
    TIMEOUT ${_ctest_timeout}
    # Outside CI a missing emulator skips the test (visibly) instead of failing it.
    SKIP_REGULAR_EXPRESSION "skipped: tool missing")
endfunction()
