// Fuzz the field selector parser: printing and re-parsing is a fixed point and keeps the meaning.
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>
#include <cstdlib>
#include <string_view>

#include "api/fields.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto sel = ksched::fields::Selector::parse(in);
  if (!sel.ok()) {
    if (sel.error().empty()) std::abort();
    return 0;
  }
  const std::string s = sel->to_string();
  auto again = ksched::fields::Selector::parse(s);
  if (!again.ok()) std::abort();
  // Terms are ordered by their raw text, so "==" vs "=" may reorder them; compare as sets.
  auto canon = [](const ksched::fields::Selector& x) {
    std::vector<std::tuple<std::string, bool, std::string>> v;
    for (const auto& r : x.requirements()) v.emplace_back(r.field, r.not_equals, r.value);
    std::sort(v.begin(), v.end());
    return v;
  };
  if (canon(*again) != canon(*sel)) std::abort();
  ksched::fields::FieldSet f{{"metadata.name", "p"}, {"status.phase", "Running"}};
  if (sel->matches(f) != again->matches(f)) std::abort();
  return 0;
}
