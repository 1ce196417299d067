// Fuzz the JSON codec: any input either fails with an error or decodes to an object whose encoding
// is a fixed point (decode(encode(x)) encodes identically), with and without skipping managedFields.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/types.h"

namespace {

template <class T>
void check(std::string_view in, const ksched::api::DecodeOptions& opts = {}) {
  auto obj = ksched::api::decode<T>(in, opts);
  if (!obj.ok()) {
    if (obj.error().empty()) std::abort();  // every failure must say why
    return;
  }
  std::string out = ksched::api::encode(*obj);
  auto again = ksched::api::decode<T>(out);
  if (!again.ok()) std::abort();
  if (ksched::api::encode(*again) != out) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  check<ksched::api::Pod>(in);
  check<ksched::api::Pod>(in, ksched::api::DecodeOptions{.dropManagedFields = true});  // the informer's path
  check<ksched::api::WatchEvent<ksched::api::Node>>(in);
  check<ksched::api::PersistentVolume>(in);
  return 0;
}
