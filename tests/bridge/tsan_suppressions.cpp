// SPDX-License-Identifier: MIT
// The bridge's ThreadSanitizer suppressions as an object of their own, linked into the bridge
// examples of a ThreadSanitizer build (examples/CMakeLists.txt): the examples stay free of
// sanitizer code, and their test runs see the same suppressions as the bridge tests.
#include "bridge/tsan_suppressions.hpp"
