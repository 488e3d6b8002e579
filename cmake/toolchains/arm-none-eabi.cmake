# SPDX-License-Identifier: MIT
# Bare-metal Arm (Cortex-M) toolchain: the GNU Arm Embedded compiler with newlib-nano.
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-none-eabi.cmake ...
#   (or the `mcu` preset, which builds tests/mcu with it)
#
# Deliberately CPU-neutral: no -mcpu/-mfpu/-mfloat-abi here. Each target adds its own (compile
# AND link options, so that the linker picks the matching multilib of libc and libstdc++), which
# lets one configure build for Cortex-M4F, Cortex-M3 and Cortex-M0 side by side.
#
# What every target gets:
#   -fno-exceptions -fno-rtti             no unwinder or type info pulled into a small image
#   -ffunction-sections -fdata-sections   one section per function/object ...
#   -Wl,--gc-sections                     ... so the linker drops whatever is not referenced
#   --specs=nano.specs                    newlib-nano: the small C library (no heap unless used)
# A program supplies its own startup code and linker script (they are board facts, not
# toolchain facts); nothing here assumes a particular memory map.
#
# Debian packages: gcc-arm-none-eabi, libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib.
# Another install location: set ARM_NONE_EABI_ROOT to the directory that holds bin/.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(_mccc_arm_hints)
if(DEFINED ENV{ARM_NONE_EABI_ROOT})
  list(APPEND _mccc_arm_hints "$ENV{ARM_NONE_EABI_ROOT}/bin")
endif()
find_program(ARM_NONE_EABI_GXX arm-none-eabi-g++ HINTS ${_mccc_arm_hints} NO_CMAKE_FIND_ROOT_PATH)
if(NOT ARM_NONE_EABI_GXX)
  message(FATAL_ERROR "arm-none-eabi.cmake: arm-none-eabi-g++ not found (Debian: apt-get install "
                      "gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib, "
                      "or set ARM_NONE_EABI_ROOT)")
endif()
get_filename_component(_mccc_arm_bin "${ARM_NONE_EABI_GXX}" DIRECTORY)

set(CMAKE_C_COMPILER "${_mccc_arm_bin}/arm-none-eabi-gcc")
set(CMAKE_CXX_COMPILER "${_mccc_arm_bin}/arm-none-eabi-g++")
set(CMAKE_ASM_COMPILER "${_mccc_arm_bin}/arm-none-eabi-gcc")
set(CMAKE_AR "${_mccc_arm_bin}/arm-none-eabi-ar" CACHE FILEPATH "Archiver")
set(CMAKE_RANLIB "${_mccc_arm_bin}/arm-none-eabi-ranlib" CACHE FILEPATH "Ranlib")
set(CMAKE_OBJCOPY "${_mccc_arm_bin}/arm-none-eabi-objcopy" CACHE FILEPATH "Objcopy")
set(CMAKE_SIZE "${_mccc_arm_bin}/arm-none-eabi-size" CACHE FILEPATH "Section sizes of an ELF")
set(CMAKE_NM "${_mccc_arm_bin}/arm-none-eabi-nm" CACHE FILEPATH "Symbol lister")

# The compiler checks cannot link a program: that needs a linker script and startup code, which
# belong to the program. A static library proves the compiler works without them.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_mccc_arm_common "-ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_mccc_arm_common}")
set(CMAKE_CXX_FLAGS_INIT "${_mccc_arm_common} -fno-exceptions -fno-rtti")
set(CMAKE_ASM_FLAGS_INIT "")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs -Wl,--gc-sections")

set(CMAKE_EXECUTABLE_SUFFIX_C ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_CXX ".elf")
set(CMAKE_EXECUTABLE_SUFFIX_ASM ".elf")

# Look for libraries and headers of the target only, programs (code generators) on the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
