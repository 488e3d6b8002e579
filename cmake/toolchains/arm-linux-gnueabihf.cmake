# SPDX-License-Identifier: MIT
# 32-bit Arm Linux (ARMv7-A, hard-float ABI) with Debian's cross compiler; programs run under
# qemu-arm.
#   Debian packages: g++-arm-linux-gnueabihf qemu-user (and googletest for the tests)
#   cmake --workflow --preset cross-armv7, or -DCMAKE_TOOLCHAIN_FILE=<this file>
# The compiler's defaults are Debian armhf's: -march=armv7-a+fp -mthumb -mfloat-abi=hard, with
# 64-bit atomics as LDREXD/STREXD loops. The emulated core is a Cortex-A7 (ARMv7-A).
set(MCCC_CROSS_TRIPLET arm-linux-gnueabihf)
set(MCCC_CROSS_PROCESSOR armv7l)
set(MCCC_CROSS_QEMU qemu-arm)
set(MCCC_CROSS_QEMU_CPU cortex-a7)
include("${CMAKE_CURRENT_LIST_DIR}/linux-qemu-user.cmake")
