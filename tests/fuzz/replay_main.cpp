// SPDX-License-Identifier: MIT
// Replays fuzz inputs through LLVMFuzzerTestOneInput (bus_fuzz_target.cpp) without libFuzzer, so
// the corpus runs with the project compiler and under every sanitizer preset.
//
// Usage: fuzz_replay <file or directory>...   (directories: every regular file, sorted by name)
// Exit status 0 when at least one input ran; a model mismatch aborts (non-zero, with a message).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace {

bool ReplayFile(const std::filesystem::path& path, std::size_t& bytes) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "fuzz_replay: cannot read %s\n", path.string().c_str());
    return false;
  }
  const std::vector<char> raw((std::istreambuf_iterator<char>(file)),
                              std::istreambuf_iterator<char>());
  std::vector<uint8_t> data(raw.size());
  std::transform(raw.begin(), raw.end(), data.begin(),
                 [](char c) { return static_cast<uint8_t>(c); });
  std::printf("fuzz_replay: %s (%zu bytes)\n", path.filename().string().c_str(), data.size());
  std::fflush(stdout);  // the name is visible even if the input aborts
  static_cast<void>(LLVMFuzzerTestOneInput(data.data(), data.size()));
  bytes += data.size();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t inputs = 0U;
  std::size_t bytes = 0U;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) {
          files.push_back(entry.path());
        }
      }
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(arg);
    }
    for (const auto& file : files) {
      if (!ReplayFile(file, bytes)) {
        return 1;
      }
      ++inputs;
    }
  }
  if (inputs == 0U) {
    std::fprintf(stderr, "fuzz_replay: no inputs (give files or directories)\n");
    return 1;
  }
  std::printf("fuzz_replay: %zu inputs (%zu bytes) replayed, every check passed\n", inputs, bytes);
  return 0;
}
