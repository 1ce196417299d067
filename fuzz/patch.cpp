// Fuzz the three PATCH semantics (RFC 6902 JSON patch, RFC 7386 merge patch, strategic merge
// patch) against a document: every patch applies or is refused with a reason, and none makes the
// document grow by more than its own text can account for, plus what JSON patch copies may add
// (bounded here at 4 KiB): amplification is refused, not computed.
//
// Input: byte 0 picks the semantics, then the document's JSON, a newline, the patch's JSON.
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "apiserver/endpoints/patch.h"

namespace json = boost::json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const int semantics = data[0] % 3;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto nl = rest.find('\n');
  if (nl == std::string_view::npos) return 0;
  const std::string_view doc_text = rest.substr(0, nl), patch_text = rest.substr(nl + 1);
  json::error_code ec;
  json::value doc = json::parse(doc_text, ec);
  if (ec) return 0;
  json::value patch = json::parse(patch_text, ec);
  if (ec) return 0;
  constexpr std::size_t kCopyBound = 4096;
  bool ok = true;
  std::string why;
  if (semantics == 0) {
    auto r = ksched::apiserver::apply_json_patch(doc, patch, kCopyBound);
    if (!r) ok = false, why = r.error();
  } else if (semantics == 1) {
    ksched::apiserver::apply_merge_patch(doc, patch);
  } else {
    auto r = ksched::apiserver::apply_strategic_merge_patch(doc, patch, "Pod");
    if (!r) ok = false, why = r.error();
  }
  if (!ok && why.empty()) std::abort();  // every refusal says why
  // Numbers may be written longer than they were read ("0.1" -> "1E-1"): hence the factor.
  const std::size_t bound = 4 * (doc_text.size() + patch_text.size()) + kCopyBound + 64;
  const std::size_t grown = json::serialize(doc).size();
  if (grown > bound) {
    std::fprintf(stderr, "a %zu-byte document and %zu-byte patch made %zu bytes\n", doc_text.size(),
                 patch_text.size(), grown);
    std::abort();
  }
  return 0;
}
