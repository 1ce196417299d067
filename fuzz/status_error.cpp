// Fuzz StatusError::from_response, the client's reading of every non-2xx body and watch ERROR
// object: it never fails, always yields a message, and a Status it read survives the server's
// encoding (to_json) and a second reading unchanged.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/status_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using ksched::api::StatusError;
  if (size < 2) return 0;
  const int status = 400 + data[0] % 200;  // a non-2xx HTTP status
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  StatusError e = StatusError::from_response(status, body);
  if (e.message.empty() || e.to_string().empty()) std::abort();
  if (!e.from_status) return 0;
  StatusError again = StatusError::from_response(e.code, e.to_json());
  if (!again.from_status || again.code != e.code || again.reason != e.reason || again.message != e.message)
    std::abort();
  if (again.causes.size() != e.causes.size()) std::abort();
  for (std::size_t i = 0; i < e.causes.size(); ++i)
    if (again.causes[i].reason != e.causes[i].reason || again.causes[i].field != e.causes[i].field ||
        again.causes[i].message != e.causes[i].message)
      std::abort();
  if (ksched::api::is_too_large_resource_version(again) != ksched::api::is_too_large_resource_version(e)) std::abort();
  return 0;
}
