// Regular expressions with RE2's syntax and Go regexp semantics (what cel-go's matches() and the
// Kubernetes find()/findAll() use), matched by a Pike VM: time linear in pattern size times
// input length, no backtracking, no recursion on the input.
//
// Supported: literals and escapes (\t \n \x41 \x{263A} \123 \Q...\E, escaped punctuation),
// `.`, classes with ranges and negation, Perl classes \d \s \w (and \D \S \W), POSIX classes
// [[:alpha:]] ..., anchors ^ $ \A \z \b \B, groups (capturing, (?:...), (?P<name>...),
// (?<name>...)), flags i m s U (as (?flags) and (?flags:...)), alternation, * + ? {n} {n,}
// {n,m} (counts up to 1000) with their lazy forms. Go's `$` without (?m) matches only at the
// end of the text.
//
// Refused as unsupported (an error saying so, never a silent mismatch): Unicode classes (\pL,
// \p{Greek}) and case-insensitive matching of a pattern that contains non-ASCII letters (only
// ASCII letters are folded).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ksched::cel {

struct RegexError {
  // Go's regexp message ("error parsing regexp: missing closing ): `(a`") or, for what is
  // refused, a message saying what is not supported.
  std::string message;
  bool unsupported = false;
};

class Regex {
 public:
  static util::Result<Regex, RegexError> compile(std::string_view pattern);

  // Whether the pattern matches anywhere in `s` (Go's MatchString).
  bool search(std::string_view s) const;
  // The leftmost-first match starting at or after byte `from`: [begin, end) in bytes.
  bool find(std::string_view s, std::size_t from, std::size_t& begin, std::size_t& end) const;

  struct Inst {
    enum Op : std::uint8_t { Range, Any, AnyNotNL, Split, Jmp, Match, Assert };
    Op op;
    std::uint8_t assert_kind = 0;
    std::uint32_t x = 0, y = 0;  // Split/Jmp targets; Range: [x, y) into ranges_
  };

 private:
  bool run(std::string_view s, std::size_t from, bool want_end, std::size_t& begin, std::size_t& end) const;

  std::vector<Inst> prog_;
  std::vector<std::uint32_t> ranges_;  // pairs lo, hi (inclusive)
  std::uint32_t start_ = 0;
  bool anchored_start_ = false;  // begins with \A (or ^ without (?m))
};

}  // namespace ksched::cel
