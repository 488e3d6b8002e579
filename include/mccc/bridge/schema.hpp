// SPDX-License-Identifier: MIT
/// @file schema.hpp
/// @brief The schema fingerprint of a payload variant: the names, sizes, alignments and layouts
/// of its alternatives in order, and the host byte order, hashed into 64 bits at compile time.
///
/// Exporter and importer compare fingerprints on every frame, so two processes built with
/// different variants (an alternative added, removed, reordered, renamed, resized, or with its
/// declared fields renamed, retyped or moved) refuse each other's messages at the first frame
/// instead of misreading them.
///
/// Names come from the compiler (`__PRETTY_FUNCTION__`), so both sides must spell types alike:
/// the same compiler family is safest. Specialize `mccc::bridge::TypeName<T>` to pin a name (or
/// to version a codec's format, e.g. "robot::Scan/2"):
/// @code
/// template <> struct mccc::bridge::TypeName<robot::Scan> {
///   static constexpr std::string_view kValue = "robot::Scan/2";
/// };
/// @endcode
#ifndef MCCC_BRIDGE_SCHEMA_HPP_
#define MCCC_BRIDGE_SCHEMA_HPP_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <variant>

#include "mccc/bridge/fields.hpp"
#include "mccc/bridge/fnv1a.hpp"
#include "mccc/bridge/plain_layout.hpp"
#include "mccc/loans/loan_handles.hpp"

namespace mccc {
namespace bridge {
namespace detail {

template <typename T>
constexpr std::string_view RawSignature() noexcept {
#if defined(__clang__) || defined(__GNUC__)
  return __PRETTY_FUNCTION__;
#elif defined(_MSC_VER)
  return __FUNCSIG__;
#else
#error "mccc::bridge: no way to spell a type's name on this compiler; specialize TypeName<T>"
#endif
}

/// The type's name as the compiler spells it: the text after "T = " (GCC, Clang) up to the next
/// ';' or ']'. MSVC spells the whole signature; its text is then used as is.
template <typename T>
constexpr std::string_view CompilerTypeName() noexcept {
  constexpr std::string_view kSignature = RawSignature<T>();
  constexpr std::size_t kMarker = kSignature.find("T = ");
  if constexpr (kMarker == std::string_view::npos) {
    return kSignature;
  } else {
    constexpr std::size_t kBegin = kMarker + 4U;
    constexpr std::size_t kEnd = kSignature.find_first_of(";]", kBegin);
    return kSignature.substr(
        kBegin, kEnd == std::string_view::npos ? std::string_view::npos : kEnd - kBegin);
  }
}

/// 1 on little-endian hosts, 2 on big-endian ones.
constexpr uint64_t HostByteOrderTag() noexcept {
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return 2U;
#else
  return 1U;
#endif
}

}  // namespace detail

/// @brief Customization point: the name a message type has in the schema fingerprint.
template <typename T>
struct TypeName {
  /// The compiler's spelling of T (see the file comment).
  static constexpr std::string_view kValue = detail::CompilerTypeName<T>();
};

template <typename Variant>
struct SchemaFingerprint;

/// @brief FNV-1a (64 bit) over a tag, the host byte order, the number of alternatives and, for
/// each alternative in order, the TypeName, sizeof and alignof of the message it carries and its
/// layout as the default codec sends it (declared fields: each field's name, offset, size and
/// kind; a plain type: its number of members): T for
/// an alternative T and for mccc::Loaned<T> alike, since the wire carries the T either way. So
/// a process that lends its scans (Loaned<Scan>) and one that copies them (Scan) understand
/// each other, and the handle's own size (a pointer, 4 or 8 bytes) plays no part. Never 0.
template <typename... Ts>
struct SchemaFingerprint<std::variant<Ts...>> {
 private:
  template <typename Alternative>
  static constexpr uint64_t HashAlternative(uint64_t hash) noexcept {
    using Carried = typename ::mccc::detail::LoanedTraits<Alternative>::Message;
    hash = detail::HashBytes(hash, TypeName<Carried>::kValue);
    hash = detail::HashNumber(detail::HashNumber(hash, sizeof(Carried)), alignof(Carried));
    return HashLayout<Carried>(hash);
  }

  /// What the default codec sends of T: its declared fields (names, offsets, sizes, kinds), or
  /// a plain type's number of members; nothing for a type with a Codec of its own, whose format
  /// its TypeName should version.
  template <typename T>
  static constexpr uint64_t HashLayout(uint64_t hash) noexcept {
    if constexpr (kHasDeclaredFields<T>) {
      return detail::HashDeclaredLayout<T>(detail::HashBytes(hash, "fields;"));
    } else if constexpr (std::is_trivially_copyable_v<T> &&
                         std::has_unique_object_representations_v<T>) {
      if constexpr (kIsPlain<T>) {
        return detail::HashNumber(detail::HashBytes(hash, "plain;"), detail::PlainLeafCount<T>());
      } else {
        return hash;  // refused by the default codec; only a Codec<T> of its own can send it
      }
    } else {
      return hash;
    }
  }

  static constexpr uint64_t Compute() noexcept {
    uint64_t hash = detail::HashBytes(detail::kFnvOffset, "mccc.bridge.schema.v2");
    hash = detail::HashNumber(hash, detail::HostByteOrderTag());
    hash = detail::HashNumber(hash, sizeof...(Ts));
    ((hash = HashAlternative<Ts>(hash)), ...);
    return hash == 0U ? 1U : hash;
  }

 public:
  /// The fingerprint.
  static constexpr uint64_t value = Compute();
};

/// @brief The fingerprint of `Variant`.
template <typename Variant>
inline constexpr uint64_t kSchemaFingerprint = SchemaFingerprint<Variant>::value;

}  // namespace bridge
}  // namespace mccc

#endif  // MCCC_BRIDGE_SCHEMA_HPP_
