// SPDX-License-Identifier: MIT
/// @file fuzz_input.hpp
/// @brief The fuzz input read byte by byte; bytes past its end read as 0, so every input is valid.
#ifndef MCCC_TESTS_FUZZ_INPUT_HPP_
#define MCCC_TESTS_FUZZ_INPUT_HPP_

#include <cstddef>
#include <cstdint>

namespace mccc_fuzz {

class Input {
 public:
  Input(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool Exhausted() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : uint8_t{0}; }
  uint32_t U16() {
    const uint32_t lo = Byte();
    return lo | (static_cast<uint32_t>(Byte()) << 8U);
  }
  uint64_t U64() {
    uint64_t v = 0U;
    for (unsigned i = 0U; i < 8U; ++i) {
      v |= static_cast<uint64_t>(Byte()) << (8U * i);
    }
    return v;
  }

 private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0U;
};

}  // namespace mccc_fuzz

#endif  // MCCC_TESTS_FUZZ_INPUT_HPP_
