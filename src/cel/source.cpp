#include "cel/source.h"

#include <algorithm>

#include "util/utf8.h"

namespace ksched::cel {

Source::Source(std::string_view text) : text_(text) {
  std::int32_t cp = 0;
  for (std::size_t i = 0; i < text_.size();) {
    std::size_t n = util::utf8_sequence_length(text_, i);
    if (n == 0) n = 1;  // an invalid byte is one code point (U+FFFD)
    if (text_[i] == '\n') {
      line_offsets_.push_back(cp + 1);
      line_bytes_.push_back(static_cast<std::uint32_t>(i + 1));
    }
    i += n;
    ++cp;
  }
  size_ = cp;
}

void Source::location(std::int32_t offset, int& line, int& column) const {
  if (offset < 0) {
    line = -1;
    column = -1;
    return;
  }
  // cel-go's findLine: the number of line starts at or before the offset.
  auto it = std::upper_bound(line_offsets_.begin(), line_offsets_.end(), offset);
  std::size_t k = static_cast<std::size_t>(it - line_offsets_.begin());
  line = static_cast<int>(k) + 1;
  column = static_cast<int>(k == 0 ? offset : offset - line_offsets_[k - 1]);
}

bool Source::snippet(int line, std::string_view& out) const {
  if (line < 1 || size_ == 0) return false;
  if (line > 1 && static_cast<std::size_t>(line - 1) > line_offsets_.size()) return false;
  std::size_t begin = line == 1 ? 0 : line_bytes_[static_cast<std::size_t>(line - 2)];
  std::size_t end = static_cast<std::size_t>(line - 1) < line_bytes_.size()
                        ? line_bytes_[static_cast<std::size_t>(line - 1)] - 1
                        : text_.size();
  out = std::string_view(text_).substr(begin, end - begin);
  return true;
}

namespace {

constexpr std::size_t kMaxErrorsToReport = 100;
constexpr std::size_t kMaxSnippetLength = 16384;

std::string display(const Source& source, const Issue& issue) {
  int line = 0, column = 0;
  source.location(issue.offset, line, column);
  std::string out = "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(column + 1) + ": " +
                    issue.message;
  std::string_view snip;
  if (!source.snippet(line, snip)) return out;
  // cel-go measures the snippet in code points after replacing tabs.
  std::string text(snip);
  std::replace(text.begin(), text.end(), '\t', ' ');
  std::size_t cps = 0;
  for (std::size_t i = 0; i < text.size(); ++cps) {
    std::size_t n = util::utf8_sequence_length(text, i);
    i += n == 0 ? 1 : n;
  }
  if (cps > kMaxSnippetLength) return out;
  out += "\n | ";
  out += util::to_valid_utf8(text);
  out += "\n | ";
  std::size_t i = 0;
  for (int c = 0; c < column && i < text.size(); ++c) {
    std::size_t n = util::utf8_sequence_length(text, i);
    if (n == 0) n = 1;
    // A wide (multi-byte) character gets a wide dot, as cel-go does.
    out += n > 1 || static_cast<unsigned char>(text[i]) >= 0x80 ? "\xEF\xBC\x8E" : ".";
    i += n;
  }
  bool wide = i < text.size() && static_cast<unsigned char>(text[i]) >= 0x80;
  out += wide ? "\xEF\xBC\xBE" : "^";
  return out;
}

}  // namespace

std::string format_issues(const Source& source, std::vector<Issue> issues) {
  std::size_t total = issues.size();
  std::stable_sort(issues.begin(), issues.end(), [&](const Issue& a, const Issue& b) {
    int la = 0, ca = 0, lb = 0, cb = 0;
    source.location(a.offset, la, ca);
    source.location(b.offset, lb, cb);
    return la < lb || (la == lb && ca < cb);
  });
  std::string out;
  for (std::size_t i = 0; i < issues.size() && i < kMaxErrorsToReport; ++i) {
    if (i > 0) out += '\n';
    out += display(source, issues[i]);
  }
  if (total > kMaxErrorsToReport) {
    out += '\n';
    out += std::to_string(total - kMaxErrorsToReport) + " more errors were truncated";
  }
  return out;
}

}  // namespace ksched::cel
