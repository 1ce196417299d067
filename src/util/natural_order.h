// Names in the order people expect: runs of digits compare as numbers (node-2 < node-10, pod-9 <
// pod-10), the rest byte by byte; a total order ("01" after "1").
#pragma once
#include <string_view>

namespace ksched::util {

inline bool natural_less(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      // Compare the digit runs as numbers: skip leading zeros, then the longer run is larger.
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      std::size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      const auto ra = a.substr(is, ie - is), rb = b.substr(js, je - js);
      if (ra.size() != rb.size()) return ra.size() < rb.size();
      if (ra != rb) return ra < rb;
      if (ie - i != je - j) return ie - i < je - j;  // "01" after "1": a total order
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace ksched::util
