// Fuzz the RE2-syntax matcher: the input is a pattern, a NUL, and a text. A pattern compiles or
// fails with a message; matching terminates, find() agrees with search() and returns a range
// inside the text, and repeated findAll-style scanning makes progress.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cel/regex.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto nul = in.find('\0');
  std::string_view pattern = in.substr(0, nul);
  std::string_view text = nul == std::string_view::npos ? std::string_view() : in.substr(nul + 1);
  auto re = ksched::cel::Regex::compile(pattern);
  if (!re.ok()) {
    if (re.error().message.empty()) std::abort();
    return 0;
  }
  std::size_t b = 0, e = 0;
  bool found = re->find(text, 0, b, e);
  if (found != re->search(text)) std::abort();
  if (found && (b > e || e > text.size())) std::abort();
  std::size_t pos = 0;
  for (int i = 0; i < 64 && pos <= text.size(); ++i) {
    if (!re->find(text, pos, b, e)) break;
    if (b < pos || e < b || e > text.size()) std::abort();
    pos = e > b ? e : b + 1;
  }
  return 0;
}
