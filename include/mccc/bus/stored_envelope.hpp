// SPDX-License-Identifier: MIT
/// @file stored_envelope.hpp
/// @brief What a ring slot holds, and what the consumer hands to subscribers: the full
/// MessageEnvelope (default on hosted targets), or a compact envelope that keeps only what the
/// bus cannot derive (default on bare metal, Traits::kCompactEnvelope).
///
/// Why a compact form: on a small MCU every slot byte is multiplied by the queue depth. The
/// msg_id need not be stored at all: the consumer assigns ids in delivery order (several rings)
/// or derives them from the ring position it consumes (one ring), and widens them itself. The
/// timestamp need not be stored when the clock is NullClock (it would always be 0). What is
/// left is the sender id, the priority and the payload. The consumer rebuilds a full
/// MessageHeader on its stack for each message, so typed callbacks, components and visitors
/// see the same `const MessageHeader&` as on a hosted bus; only callbacks that take the whole
/// `MessageEnvelope` need the full form in the slot.
#ifndef MCCC_BUS_STORED_ENVELOPE_HPP_
#define MCCC_BUS_STORED_ENVELOPE_HPP_

#include <cstdint>

#include "mccc/message.hpp"

namespace mccc {

/// @brief The header fields a compact slot stores (with or without the timestamp).
template <bool kWithTimestamp>
struct CompactHeader {
  uint64_t timestamp_us;     ///< As MessageHeader::timestamp_us.
  uint32_t sender_id;        ///< As MessageHeader::sender_id.
  MessagePriority priority;  ///< As MessageHeader::priority.
};

/// @brief Without a timestamp (the bus clock is NullClock).
template <>
struct CompactHeader<false> {
  uint32_t sender_id;        ///< As MessageHeader::sender_id.
  MessagePriority priority;  ///< As MessageHeader::priority.
};

/// @brief A compact slot: the stored header fields and the payload.
template <typename PayloadVariant, bool kWithTimestamp>
struct CompactEnvelope {
  CompactHeader<kWithTimestamp> header;  ///< What the bus cannot derive.
  PayloadVariant payload;                ///< The message.
};

/// @brief What subscribers of a compact bus receive: the payload in its slot and a full header
/// rebuilt by the consumer (msg_id assigned, timestamp 0 without a stored timestamp).
template <typename PayloadVariant>
struct DeliveredMessage {
  const PayloadVariant& payload;  ///< The message, in its slot (valid during the dispatch).
  MessageHeader header;           ///< The complete header.
};

namespace detail {

/// @brief The slot and delivery types of a bus, and the conversions between its header forms.
template <typename PayloadVariant, bool kCompact, bool kWithTimestamp>
struct EnvelopeLayout {
  using Stored = MessageEnvelope<PayloadVariant>;     ///< A slot holds the whole envelope.
  using Delivered = MessageEnvelope<PayloadVariant>;  ///< Subscribers get the slot itself.
  static constexpr const MessageHeader& ToStored(const MessageHeader& header) noexcept {
    return header;
  }
};

template <typename PayloadVariant, bool kWithTimestamp>
struct EnvelopeLayout<PayloadVariant, true, kWithTimestamp> {
  using Stored = CompactEnvelope<PayloadVariant, kWithTimestamp>;
  using Delivered = DeliveredMessage<PayloadVariant>;
  static constexpr CompactHeader<kWithTimestamp> ToStored(const MessageHeader& header) noexcept {
    if constexpr (kWithTimestamp) {
      return CompactHeader<kWithTimestamp>{header.timestamp_us, header.sender_id, header.priority};
    } else {
      return CompactHeader<kWithTimestamp>{header.sender_id, header.priority};
    }
  }
  /// The full header of a stored one; the msg_id is filled in by the consumer.
  static constexpr MessageHeader ToDelivered(const CompactHeader<kWithTimestamp>& stored) noexcept {
    if constexpr (kWithTimestamp) {
      return MessageHeader{0U, stored.timestamp_us, stored.sender_id, stored.priority};
    } else {
      return MessageHeader{0U, 0U, stored.sender_id, stored.priority};
    }
  }
};

}  // namespace detail
}  // namespace mccc

#endif  // MCCC_BUS_STORED_ENVELOPE_HPP_
