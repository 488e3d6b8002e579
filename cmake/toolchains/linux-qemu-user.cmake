# SPDX-License-Identifier: MIT
# Shared part of the Arm Linux toolchain files (aarch64-linux-gnu.cmake, arm-linux-gnueabihf.cmake),
# which set MCCC_CROSS_TRIPLET, MCCC_CROSS_PROCESSOR, MCCC_CROSS_QEMU and MCCC_CROSS_QEMU_CPU
# before including this file.
#
# - Compilers: Debian's cross compilers <triplet>-gcc / <triplet>-g++ (packages g++-<triplet>).
#   GoogleTest's own project needs the C compiler too.
# - Target files: Debian installs the target's C and C++ runtime under /usr/<triplet> (no separate
#   sysroot; the compilers find it themselves). Libraries, headers and CMake packages are looked up
#   only there, programs only on the host, so nothing built for the host is ever linked in.
# - pkg-config reads only the target's .pc directories, so a host library (e.g. the host's libzmq)
#   is never taken for a target one.
# - Emulator: qemu-user (package qemu-user) with -L /usr/<triplet>, where the target's dynamic
#   loader and shared libraries live. CMake prepends it to every test whose command is a target
#   (add_test, gtest_discover_tests, including the discovery run at build time) and to try_run.
#   -cpu names a real core, so the program runs on the instruction set of a real board.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR "${MCCC_CROSS_PROCESSOR}")

set(CMAKE_C_COMPILER "${MCCC_CROSS_TRIPLET}-gcc")
set(CMAKE_CXX_COMPILER "${MCCC_CROSS_TRIPLET}-g++")

set(CMAKE_FIND_ROOT_PATH "/usr/${MCCC_CROSS_TRIPLET}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(_mccc_target_pkgconfig_dirs "/usr/lib/${MCCC_CROSS_TRIPLET}/pkgconfig"
    "/usr/${MCCC_CROSS_TRIPLET}/lib/pkgconfig" "/usr/share/pkgconfig")
string(REPLACE ";" ":" _mccc_target_pkgconfig_dirs "${_mccc_target_pkgconfig_dirs}")
set(ENV{PKG_CONFIG_LIBDIR} "${_mccc_target_pkgconfig_dirs}")

set(MCCC_QEMU_CPU "${MCCC_CROSS_QEMU_CPU}" CACHE STRING
    "Core that ${MCCC_CROSS_QEMU} emulates (qemu -cpu; '${MCCC_CROSS_QEMU} -cpu help' lists them)")
find_program(MCCC_QEMU_EXECUTABLE NAMES "${MCCC_CROSS_QEMU}"
             DOC "qemu-user emulator that runs the ${MCCC_CROSS_PROCESSOR} test programs")
if(MCCC_QEMU_EXECUTABLE)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      "${MCCC_QEMU_EXECUTABLE};-cpu;${MCCC_QEMU_CPU};-L;/usr/${MCCC_CROSS_TRIPLET}")
else()
  # Building needs no emulator, but running the tests (and discovering GoogleTest cases after
  # each link) does: say so up front instead of failing later.
  message(WARNING "mccc: ${MCCC_CROSS_QEMU} not found (Debian package qemu-user): "
                  "the ${MCCC_CROSS_PROCESSOR} test programs cannot run")
endif()
