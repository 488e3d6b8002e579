// SPDX-License-Identifier: MIT
// <mccc/protocol.hpp>, the original MCCC's header of the message vocabulary, as the only mccc
// include: the containers, make_overloaded and the header and envelope types.
#include <mccc/protocol.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <variant>

namespace {

struct Temperature {
  mccc::FixedString<8> sensor;
  float celsius;
};
struct Alarm {
  uint32_t code;
};
using Payload = std::variant<Temperature, Alarm>;

TEST(OriginalProtocolHeader, MessageVocabulary) {
  const std::string name = "outdoor-north";
  const mccc::MessageEnvelope<Payload> envelope{
      mccc::MessageHeader{7U, 1000U, 2U, mccc::MessagePriority::HIGH},
      Temperature{mccc::FixedString<8>(mccc::TruncateToCapacity, name), 21.5f}};

  mccc::FixedVector<mccc::MessagePriority, 2> seen;
  const auto visitor = mccc::make_overloaded(
      [&seen, &envelope](const Temperature& t) {
        EXPECT_TRUE(t.sensor == "outdoor-");
        EXPECT_EQ(t.celsius, 21.5f);
        EXPECT_TRUE(seen.push_back(envelope.header.priority));
      },
      [](const Alarm&) { ADD_FAILURE() << "the envelope holds a Temperature"; });
  std::visit(visitor, envelope.payload);
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen.front(), mccc::MessagePriority::HIGH);
  EXPECT_EQ(envelope.header.msg_id, 7U);
}

}  // namespace
