// The RE2-syntax matcher: Go regexp's matching semantics and error messages for what it
// accepts, an "unsupported" error for what it refuses, and linear time on hostile input.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "cel/regex.h"

namespace ksched::cel {
namespace {

bool matches(const std::string& pattern, const std::string& text) {
  auto re = Regex::compile(pattern);
  EXPECT_TRUE(re.ok()) << pattern << ": " << (re.ok() ? "" : re.error().message);
  return re.ok() && re->search(text);
}

std::string find(const std::string& pattern, const std::string& text) {
  auto re = Regex::compile(pattern);
  EXPECT_TRUE(re.ok()) << pattern;
  std::size_t b = 0, e = 0;
  if (!re.ok() || !re->find(text, 0, b, e)) return "<none>";
  return text.substr(b, e - b);
}

std::string error_of(const std::string& pattern) {
  auto re = Regex::compile(pattern);
  return re.ok() ? "" : re.error().message;
}

TEST(Regex, Matching) {
  EXPECT_TRUE(matches("abc", "xxabcxx"));  // unanchored, as Go's MatchString
  EXPECT_FALSE(matches("^abc", "xabc"));
  EXPECT_TRUE(matches("abc$", "xabc"));
  EXPECT_FALSE(matches("abc$", "abc\n"));  // Go's $ without (?m) is the end of the text only
  EXPECT_TRUE(matches("(?m)abc$", "abc\nx"));
  EXPECT_TRUE(matches("(?m)^x", "abc\nx"));
  EXPECT_TRUE(matches("\\Aa\\z", "a"));
  EXPECT_TRUE(matches("a.c", "abc"));
  EXPECT_FALSE(matches("a.c", "a\nc"));
  EXPECT_TRUE(matches("(?s)a.c", "a\nc"));
  EXPECT_TRUE(matches("a.c", "a\xC3\xA4" "c"));  // . is one code point
  EXPECT_TRUE(matches("^[a-z]+[0-9]{2,3}$", "abc123"));
  EXPECT_FALSE(matches("^[a-z]+[0-9]{2,3}$", "abc1234"));
  EXPECT_TRUE(matches("^[^0-9]*$", "abc"));
  EXPECT_TRUE(matches("^\\d\\s\\w\\D\\S\\W$", "1 a-x!"));
  EXPECT_TRUE(matches("^[[:alpha:]][[:digit:]][[:^space:]]$", "a1b"));
  EXPECT_TRUE(matches("\\bfoo\\b", "a foo b"));
  EXPECT_FALSE(matches("\\bfoo\\b", "afoob"));
  EXPECT_TRUE(matches("\\Bfoo\\B", "afoob"));
  EXPECT_TRUE(matches("^(ab|cd)+$", "abcdab"));
  EXPECT_TRUE(matches("^(?:a|b)*c?$", ""));
  EXPECT_TRUE(matches("^(?P<x>a)(?<y>b)$", "ab"));
  EXPECT_TRUE(matches("^\\x41\\x{263A}\\101\\t$", "A\xE2\x98\xBA" "A\t"));
  EXPECT_TRUE(matches("^\\Q.*+\\E$", ".*+"));
  EXPECT_TRUE(matches("a{,2}", "a{,2}"));  // not a repetition: literal text, as in Go
  EXPECT_TRUE(matches("^a{2}$", "aa"));
  EXPECT_TRUE(matches("^a{2,}$", "aaaa"));
  EXPECT_TRUE(matches("[^a]?sym", "asymetric"));  // upstream DRA's example
  // Case folding of ASCII letters, including the two non-ASCII code points folding to them.
  EXPECT_TRUE(matches("(?i)^abc$", "AbC"));
  EXPECT_TRUE(matches("(?i)^[a-c]+$", "ABCabc"));
  EXPECT_TRUE(matches("(?i)^k$", "\xE2\x84\xAA"));  // KELVIN SIGN
  EXPECT_TRUE(matches("(?i)^s$", "\xC5\xBF"));      // LATIN SMALL LETTER LONG S
  EXPECT_TRUE(matches("(?i:a)b", "Ab"));
  EXPECT_FALSE(matches("(?i:a)b", "AB"));
}

TEST(Regex, LeftmostFirst) {
  EXPECT_EQ(find("a+", "baaab"), "aaa");
  EXPECT_EQ(find("a+?", "baaab"), "a");
  EXPECT_EQ(find("a|ab", "ab"), "a");  // Go prefers the first alternative
  EXPECT_EQ(find("ab|a", "ab"), "ab");
  EXPECT_EQ(find("(a*)(a*)", "aaa"), "aaa");
  EXPECT_EQ(find("x*", "abc"), "");
  EXPECT_EQ(find("[0-9]+", "ab12c34"), "12");
  EXPECT_EQ(find("(?U)a+", "aaa"), "a");
  EXPECT_EQ(find("z", "abc"), "<none>");
}

TEST(Regex, GoErrorMessages) {
  EXPECT_EQ(error_of("(abc"), "error parsing regexp: missing closing ): `(abc`");
  EXPECT_EQ(error_of("abc)"), "error parsing regexp: unexpected ): `abc)`");
  EXPECT_EQ(error_of("[abc"), "error parsing regexp: missing closing ]: `[abc`");
  EXPECT_EQ(error_of("*a"), "error parsing regexp: missing argument to repetition operator: `*`");
  EXPECT_EQ(error_of("a**"), "error parsing regexp: invalid nested repetition operator: `**`");
  EXPECT_EQ(error_of("a{1001}"), "error parsing regexp: invalid repeat count: `{1001}`");
  EXPECT_EQ(error_of("a{3,2}"), "error parsing regexp: invalid repeat count: `{3,2}`");
  EXPECT_EQ(error_of("[z-a]"), "error parsing regexp: invalid character class range: `z-a`");
  EXPECT_EQ(error_of("\\q"), "error parsing regexp: invalid escape sequence: `\\q`");
  EXPECT_EQ(error_of("a\\"), "error parsing regexp: trailing backslash at end of expression: ``");
  EXPECT_EQ(error_of("(?x)"), "error parsing regexp: invalid or unsupported Perl syntax: `(?x`");
  EXPECT_EQ(error_of("(?P<>a)"), "error parsing regexp: invalid named capture: `(?P<>`");
  EXPECT_EQ(error_of("[[:foo:]]"), "error parsing regexp: invalid character class range: `[:foo:]`");
  EXPECT_EQ(error_of("\xff"), "error parsing regexp: invalid UTF-8: `\xff`");
}

TEST(Regex, RefusedFeatures) {
  for (const char* p : {"\\pL", "\\p{Greek}", "[\\PN]", "(?i)\xC3\xA4", "(?i)[\xC3\xA0-\xC3\xBF]"}) {
    auto re = Regex::compile(p);
    ASSERT_FALSE(re.ok()) << p;
    EXPECT_TRUE(re.error().unsupported) << p;
    EXPECT_NE(re.error().message.find("not supported"), std::string::npos);
  }
}

TEST(Regex, LinearTimeOnHostileInput) {
  // Catastrophic for a backtracking matcher; linear here.
  auto re = Regex::compile("^(a+)+$");
  ASSERT_TRUE(re.ok());
  std::string text(20000, 'a');
  text += 'b';
  EXPECT_FALSE(re->search(text));
  auto nested = Regex::compile("(x+x+)+y");
  ASSERT_TRUE(nested.ok());
  EXPECT_FALSE(nested->search(std::string(20000, 'x')));
  // Empty loops terminate.
  auto empty = Regex::compile("(a*)*b");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->search(std::string(1000, 'a')));
}

}  // namespace
}  // namespace ksched::cel
