// The durable log's on-disk record format (durable_log.h), apart from any I/O so that it can be
// fuzzed alone. A record is [u32 payload length][u32 CRC-32 of the payload][payload], little-endian;
// the payload is: u8 type, i64 revision, i64 graceful-deletion deadline, then four length-prefixed
// (u32) strings: resource ("group/plural"), namespace, name, and the object's JSON (empty for a
// delete and for the End record that closes a snapshot).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ksched::apiserver::wal {

inline constexpr std::string_view kSegmentMagic = "KSWAL001";
inline constexpr std::string_view kSnapshotMagic = "KSSNAP01";

enum class RecordType : std::uint8_t { Put = 1, Delete = 2, End = 3 };

struct Record {
  RecordType type = RecordType::Put;
  std::int64_t rv = 0;
  std::int64_t delete_deadline = 0;
  std::string_view resource, ns, name, json;
};

std::uint32_t crc32(std::string_view data);

// Appends one framed record to `out`.
void append_record(std::string& out, const Record& r);

// Reads records from `data` starting at `pos`. Stops at the end or at the first damaged frame
// (short, bad CRC, malformed payload, unknown type); pos() is then where the good records end.
class Reader {
 public:
  Reader(std::string_view data, std::size_t pos) : d_(data), pos_(pos) {}
  bool next(Record& r);  // false at the end or at damage (damaged() tells which)
  bool damaged() const { return damaged_; }
  std::size_t pos() const { return pos_; }

 private:
  bool fail() {
    damaged_ = true;
    return false;
  }
  std::string_view d_;
  std::size_t pos_;
  bool damaged_ = false;
};

}  // namespace ksched::apiserver::wal
