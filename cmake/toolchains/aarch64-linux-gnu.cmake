# SPDX-License-Identifier: MIT
# 64-bit Arm Linux (AArch64) with Debian's cross compiler; programs run under qemu-aarch64.
#   Debian packages: g++-aarch64-linux-gnu qemu-user (and googletest for the tests)
#   cmake --workflow --preset cross-aarch64, or -DCMAKE_TOOLCHAIN_FILE=<this file>
# The emulated core is a Cortex-A72 (Armv8.0-A): GCC's outline atomics then take the
# load/store-exclusive path (LDAXR/STLXR) that Armv8.0 boards run, not the Armv8.1 LSE
# instructions. -DMCCC_QEMU_CPU=neoverse-n1 runs the LSE path instead.
set(MCCC_CROSS_TRIPLET aarch64-linux-gnu)
set(MCCC_CROSS_PROCESSOR aarch64)
set(MCCC_CROSS_QEMU qemu-aarch64)
set(MCCC_CROSS_QEMU_CPU cortex-a72)
include("${CMAKE_CURRENT_LIST_DIR}/linux-qemu-user.cmake")
