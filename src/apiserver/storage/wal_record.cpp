#include "apiserver/storage/wal_record.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace ksched::apiserver::wal {

namespace {

void put_u32(std::string& out, std::uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  out.append(b, 4);
}
void put_i64(std::string& out, std::int64_t v) {
  auto u = static_cast<std::uint64_t>(v);
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((u >> (8 * i)) & 0xff);
  out.append(b, 8);
}
void put_str(std::string& out, std::string_view s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}
std::uint64_t get_le(std::string_view b) {
  std::uint64_t v = 0;
  for (std::size_t i = b.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

}  // namespace

// zlib's CRC-32 (the IEEE polynomial), several bytes per step: the commit path checksums every byte.
std::uint32_t crc32(std::string_view data) {
  uLong c = ::crc32(0L, Z_NULL, 0);
  while (!data.empty()) {
    auto n = static_cast<uInt>(std::min<std::size_t>(data.size(), 1u << 30));
    c = ::crc32(c, reinterpret_cast<const Bytef*>(data.data()), n);
    data.remove_prefix(n);
  }
  return static_cast<std::uint32_t>(c);
}

void append_record(std::string& out, const Record& r) {
  std::size_t frame = out.size();
  out.append(8, '\0');
  std::size_t start = out.size();
  out.push_back(static_cast<char>(r.type));
  put_i64(out, r.rv);
  put_i64(out, r.delete_deadline);
  put_str(out, r.resource);
  put_str(out, r.ns);
  put_str(out, r.name);
  put_str(out, r.json);
  std::string_view payload(out.data() + start, out.size() - start);
  std::string head;
  put_u32(head, static_cast<std::uint32_t>(payload.size()));
  put_u32(head, crc32(payload));
  std::memcpy(out.data() + frame, head.data(), 8);
}

bool Reader::next(Record& r) {
  if (pos_ == d_.size()) return false;
  if (pos_ > d_.size() || d_.size() - pos_ < 8) return fail();
  auto len = static_cast<std::size_t>(get_le(d_.substr(pos_, 4)));
  auto crc = static_cast<std::uint32_t>(get_le(d_.substr(pos_ + 4, 4)));
  if (len > d_.size() - pos_ - 8) return fail();
  std::string_view p = d_.substr(pos_ + 8, len);
  if (crc32(p) != crc) return fail();
  std::size_t q = 0;
  auto take = [&](std::size_t n, std::string_view& out) {
    if (p.size() - q < n) return false;
    out = p.substr(q, n);
    q += n;
    return true;
  };
  auto take_i64 = [&](std::int64_t& v) {
    std::string_view b;
    if (!take(8, b)) return false;
    v = static_cast<std::int64_t>(get_le(b));
    return true;
  };
  auto take_str = [&](std::string_view& out) {
    std::string_view b;
    return take(4, b) && take(static_cast<std::size_t>(get_le(b)), out);
  };
  std::string_view t;
  Record rec;
  if (!take(1, t) || !take_i64(rec.rv) || !take_i64(rec.delete_deadline) || !take_str(rec.resource) ||
      !take_str(rec.ns) || !take_str(rec.name) || !take_str(rec.json) || q != p.size())
    return fail();
  auto type = static_cast<unsigned char>(t[0]);
  if (type < 1 || type > 3) return fail();
  rec.type = static_cast<RecordType>(type);
  r = rec;
  pos_ += 8 + len;
  return true;
}

}  // namespace ksched::apiserver::wal
