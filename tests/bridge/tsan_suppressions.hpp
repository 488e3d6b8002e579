// SPDX-License-Identifier: MIT
// ThreadSanitizer suppressions of the bridge test executables: include this header from exactly
// one source file of each executable that runs ZeroMQ (it defines a function).
//
// libzmq is not built with ThreadSanitizer: a frame's bytes, written by its I/O or sending thread
// and handed over through ZeroMQ's own lock-free pipes, look unsynchronized to TSan when the
// importer reads them, and so do its own file descriptors and buffers between its threads. Races
// with a frame of libzmq in their stacks are therefore not ours to see; every other race is.
#ifndef MCCC_TESTS_BRIDGE_TSAN_SUPPRESSIONS_HPP_
#define MCCC_TESTS_BRIDGE_TSAN_SUPPRESSIONS_HPP_

#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_suppressions() {
  return "race:libzmq.so\n";
}
#endif

#endif  // MCCC_TESTS_BRIDGE_TSAN_SUPPRESSIONS_HPP_
