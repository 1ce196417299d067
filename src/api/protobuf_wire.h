// Protobuf wire format: a bounds-checked reader and the writing primitives, shared by the JSON
// renderer/encoder (protobuf_json.h) and the typed decoder (protobuf_codec.h). Kubernetes wraps
// every object in `k8s\0` + runtime.Unknown{typeMeta, raw, contentEncoding, contentType}.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ksched::api::protobuf {

// The 4-byte prefix of every Kubernetes protobuf object ("k8s" + encoding 0: runtime.Unknown).
inline constexpr std::string_view kMagic{"k8s\0", 4};
inline constexpr std::string_view kContentType = "application/vnd.kubernetes.protobuf";
inline constexpr std::string_view kWatchContentType = "application/vnd.kubernetes.protobuf;stream=watch";

inline bool has_magic(std::string_view bytes) { return bytes.size() >= 4 && std::memcmp(bytes.data(), kMagic.data(), 4) == 0; }

namespace wire {

enum Type : std::uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// Thrown by Reader on malformed input; the decoders add the field path.
struct Error {
  std::string message;
};

struct Tag {
  std::uint32_t number;
  std::uint32_t wire;
};

inline const char* type_name(std::uint32_t w) {
  switch (w) {
    case kVarint: return "varint";
    case kFixed64: return "64-bit";
    case kLen: return "length-delimited";
    case kFixed32: return "32-bit";
    default: return "invalid";
  }
}

class Reader {
 public:
  Reader() = default;
  explicit Reader(std::string_view data) : p_(data.data()), end_(data.data() + data.size()) {}
  bool done() const { return p_ >= end_; }
  const char* pos() const { return p_; }
  void seek(const char* p) { p_ = p; }
  std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }

  std::uint64_t varint() {
    // One byte is the common case (tags, small lengths, bools).
    if (p_ < end_ && !(static_cast<std::uint8_t>(*p_) & 0x80)) return static_cast<std::uint8_t>(*p_++);
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) throw Error{"truncated varint"};
      auto byte = static_cast<std::uint8_t>(*p_++);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    throw Error{"varint longer than 10 bytes"};
  }
  std::string_view bytes(std::size_t n) {
    if (n > left())
      throw Error{"truncated: field needs " + std::to_string(n) + " bytes, " + std::to_string(left()) + " left"};
    std::string_view out(p_, n);
    p_ += n;
    return out;
  }
  std::string_view len() {
    std::uint64_t n = varint();
    if (n > left())
      throw Error{"truncated: length " + std::to_string(n) + " exceeds the " + std::to_string(left()) + " bytes left"};
    std::string_view out(p_, static_cast<std::size_t>(n));
    p_ += n;
    return out;
  }
  Tag tag() {
    std::uint64_t key = varint();
    std::uint64_t number = key >> 3;
    if (number == 0 || number > 0x1fffffff) throw Error{"invalid field number " + std::to_string(number)};
    return {static_cast<std::uint32_t>(number), static_cast<std::uint32_t>(key & 7)};
  }
  void skip(std::uint32_t wire) {
    switch (wire) {
      case kVarint: varint(); break;
      case kFixed64: bytes(8); break;
      case kLen: len(); break;
      case kFixed32: bytes(4); break;
      default: throw Error{"unsupported wire type " + std::to_string(wire)};
    }
  }

 private:
  const char* p_ = nullptr;
  const char* end_ = nullptr;
};

// Throws unless `t` has wire type `want`.
inline void expect(const Tag& t, std::uint32_t want) {
  if (t.wire != want)
    throw Error{std::string("field ") + std::to_string(t.number) + " has wire type " + type_name(t.wire) +
                ", expected " + type_name(want)};
}

// ---- writing

inline std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

inline void put_varint(std::string& out, std::uint64_t v) {
  char buf[10];
  std::size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out.append(buf, n);
}

inline void put_tag(std::string& out, std::uint32_t number, std::uint32_t wire) {
  put_varint(out, (static_cast<std::uint64_t>(number) << 3) | wire);
}

// A length-delimited field: tag, length, bytes.
inline void put_len(std::string& out, std::uint32_t number, std::string_view bytes) {
  put_tag(out, number, kLen);
  put_varint(out, bytes.size());
  out.append(bytes);
}

// Size of a length-delimited field holding `n` bytes, for a field number below 16.
inline std::size_t len_field_size(std::size_t n) { return 1 + varint_size(n) + n; }

// A nested message written in place: open() leaves one byte for its length, close() writes the
// length and, for messages of 128 bytes or more, moves the content to make room for a longer one.
inline std::size_t open_len(std::string& out, std::uint32_t number) {
  put_tag(out, number, kLen);
  out.push_back('\0');
  return out.size();
}
inline void close_len(std::string& out, std::size_t start) {
  std::size_t n = out.size() - start;
  std::size_t vs = varint_size(n);
  if (vs > 1) out.insert(start, vs - 1, '\0');
  char* p = out.data() + start - 1;
  while (n >= 0x80) {
    *p++ = static_cast<char>((n & 0x7f) | 0x80);
    n >>= 7;
  }
  *p = static_cast<char>(n);
}

}  // namespace wire
}  // namespace ksched::api::protobuf
