// Fuzz the label selector parser: a parsed selector prints to a string that parses back to the same
// selector, and matching never crashes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/labels.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto sel = ksched::labels::Selector::parse(in);
  if (!sel.ok()) {
    if (sel.error().empty()) std::abort();
    return 0;
  }
  const std::string s = sel->to_string();
  auto again = ksched::labels::Selector::parse(s);
  if (!again.ok()) std::abort();
  if (again->to_string() != s) std::abort();
  ksched::api::StringMap labels{{"app", "web"}, {"tier", "1"}, {"x", ""}};
  if (sel->matches(labels) != again->matches(labels)) std::abort();
  for (const auto& r : sel->requirements()) {
    if (!ksched::labels::validate_label_key(r.key).empty()) std::abort();
  }
  return 0;
}
