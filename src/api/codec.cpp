// Non-template parts of the codec: per-thread parser, JSON string escaping and the table of
// interned unmodelled-member blocks.
#include <cstring>
#include <functional>
#include <string_view>

#include "api/codec_impl.h"
#include "api/intern_table.h"

namespace ksched::api {

// Interned Extra blocks live in InternTable<Header> (intern_table.h), keyed by the block's tag.
// Copies of an ExtraFields add references without the table's lock: they are made from a live
// reference, so the count is at least 2 then.
ExtraFields::Header* ExtraFields::intern(Header* h) {
  const std::uint32_t tag =
      kInterned | (static_cast<std::uint32_t>(std::hash<std::string_view>{}(std::string_view(data(h), h->bytes))) &
                   ~kInterned);
  Header* got = InternTable<Header>::instance().intern(
      tag, h,
      [&](const Header& b) {
        return b.bytes == h->bytes && b.count == h->count && std::memcmp(data(&b), data(h), h->bytes) == 0;
      },
      [&](Header& b) { b.tag = tag; });
  if (got != h) destroy(h);
  return got;
}

void ExtraFields::release_interned(Header* h) noexcept {
  if (InternTable<Header>::instance().release(h, h->tag)) destroy(h);
}

}  // namespace ksched::api

namespace ksched::api::detail {

ThreadDecoder& thread_decoder() {
  thread_local ThreadDecoder td;
  return td;
}

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t run = 0;  // start of the pending run of bytes that need no escaping
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

}  // namespace ksched::api::detail
