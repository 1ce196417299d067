// Expression text as CEL sees it: positions are counted in code points (an invalid UTF-8 byte
// counts as one, as Go's decoder does), lines end at '\n'. Issues (parse, check and validation
// errors) carry such a position and print in cel-go's form:
//   ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(string, int)'
//    | device.driver > 1
//    | ..............^
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::cel {

class Source {
 public:
  explicit Source(std::string_view text);

  std::string_view text() const { return text_; }
  // Length in code points.
  std::int32_t size() const { return size_; }
  // 1-based line and 0-based column (code points) of a code-point offset.
  void location(std::int32_t offset, int& line, int& column) const;
  // The text of a 1-based line without its '\n'; false for a line that does not exist.
  bool snippet(int line, std::string_view& out) const;

 private:
  std::string text_;
  std::int32_t size_ = 0;
  std::vector<std::int32_t> line_offsets_;  // code-point offset of each line after the first
  std::vector<std::uint32_t> line_bytes_;   // byte offset of each line after the first
};

// kNoLocation marks errors without a position (cel-go prints them at -1:0).
inline constexpr std::int32_t kNoLocation = -1;

struct Issue {
  std::int32_t offset = kNoLocation;
  std::string message;
};

// cel-go's Errors.ToDisplayString: issues sorted by position (stably), at most 100 printed, each
// with its source line and a caret, joined by '\n'.
std::string format_issues(const Source& source, std::vector<Issue> issues);

}  // namespace ksched::cel
