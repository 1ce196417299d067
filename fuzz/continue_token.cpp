// Fuzz the list continue-token decoder: any input gives a token or an error text, never a crash,
// and a decoded token re-encodes to one that decodes the same.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "apiserver/storage/continue_token.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto tok = ksched::apiserver::decode_continue(in);
  if (!tok) {
    if (tok.error().empty()) std::abort();
    return 0;
  }
  if (tok->rv == 0) std::abort();  // upstream rejects a zero revision
  auto again = ksched::apiserver::decode_continue(ksched::apiserver::encode_continue(tok->rv, tok->start));
  if (!again || again->rv != tok->rv || again->start != tok->start) std::abort();
  return 0;
}
