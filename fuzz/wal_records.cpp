// The durable log's record reader (apiserver/storage/wal_record.h) over arbitrary bytes: it must stop at
// damage without reading out of bounds, and every record it accepts must encode back to the same
// bytes (so recovery and the writer agree on the format).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "apiserver/storage/wal_record.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ksched::apiserver::wal;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  Reader rd(in, 0);
  Record r;
  std::size_t prev = 0;
  while (rd.next(r)) {
    std::string again;
    append_record(again, r);
    if (again != in.substr(prev, rd.pos() - prev)) std::abort();
    Reader back(again, 0);
    Record r2;
    if (!back.next(r2) || r2.type != r.type || r2.rv != r.rv || r2.delete_deadline != r.delete_deadline ||
        r2.resource != r.resource || r2.ns != r.ns || r2.name != r.name || r2.json != r.json)
      std::abort();
    prev = rd.pos();
  }
  if (rd.pos() > size) std::abort();
  if (!rd.damaged() && rd.pos() != size) std::abort();
  return 0;
}
