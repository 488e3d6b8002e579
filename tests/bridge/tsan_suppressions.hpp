// SPDX-License-Identifier: MIT
// ThreadSanitizer suppressions of the bridge test executables: include this header from exactly
// one source file of each executable that runs ZeroMQ (it defines a function).
//
// libzmq is not built with ThreadSanitizer: its own file descriptors and buffers look
// unsynchronized to TSan between its threads, and so do the bytes its I/O thread writes for an
// ipc:// or tcp:// message that the importer then reads. Races with a frame of libzmq in their
// stacks are therefore not ours to see; every other race is. The same holds for libsodium, which
// libzmq's I/O thread calls to decrypt a CURVE message in place before handing it over. (An
// inproc:// message, handed from the sending thread to the receiving one by pointer, needs no
// suppression: the transport marks that hand-over for TSan, bridge/zmq_message_io.hpp.)
#ifndef MCCC_TESTS_BRIDGE_TSAN_SUPPRESSIONS_HPP_
#define MCCC_TESTS_BRIDGE_TSAN_SUPPRESSIONS_HPP_

#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_suppressions() {
  return "race:libzmq.so\n"
         "race:libsodium.so\n";
}
#endif

#endif  // MCCC_TESTS_BRIDGE_TSAN_SUPPRESSIONS_HPP_
