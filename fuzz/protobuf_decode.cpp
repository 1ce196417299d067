// Fuzzes the protobuf request-body decoder: arbitrary bytes must yield either an error or valid
// JSON, never a crash, hang or sanitizer report.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "apiserver/protobuf.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)ksched::apiserver::protobuf::is_protobuf(input);
  auto result = ksched::apiserver::protobuf::to_json(input);
  if (result.ok()) {
    boost::system::error_code ec;
    auto value = boost::json::parse(*result, ec);
    if (ec || !value.is_object()) std::abort();  // the decoder must only ever emit a JSON object
  }
  return 0;
}
