// Parse errors, with cel-go's messages and positions.
//
// Mirrors google/cel-go parser/parser_test.go: its error cases that ksched reports identically
// (61 of 69; the others depend on ANTLR's error recovery, which reports further errors after
// the first that ksched's parser does not, or on parser options Kubernetes does not use). As
// cel-go's test does, these run with a recursion limit of 32 and without the optional syntax;
// the Kubernetes environment uses 250 and enables it (see the second test).
#include <gtest/gtest.h>

#include <string>

#include "cel/parser.h"

namespace ksched::cel {
namespace {

std::string normalized(const std::string& s) {
  // cel-go's test compares errors line by line without leading whitespace.
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t e = s.find('\n', i);
    if (e == std::string::npos) e = s.size();
    std::string line = s.substr(i, e - i);
    std::size_t b = line.find_first_not_of(" \t");
    std::size_t t = line.find_last_not_of(" \t");
    if (b != std::string::npos) {
      if (!out.empty()) out += '\n';
      out += line.substr(b, t - b + 1);
    }
    i = e + 1;
  }
  return out;
}

std::string parse_errors(const std::string& text, const ParseOptions& options) {
  Source source(text);
  ParseResult r = parse(source, options);
  return r.issues.empty() ? "" : format_issues(source, r.issues);
}

struct ErrorCase {
  const char* input;
  const char* errors;
};

// google/cel-go parser/parser_test.go, testCases with an E (expected errors).
const ErrorCase kCelGoErrorCases[] = {
    {"0xFFFFFFFFFFFFFFFFF",
     "ERROR: <input>:1:1: invalid int literal\n| 0xFFFFFFFFFFFFFFFFF\n| ^"},
    {"0xFFFFFFFFFFFFFFFFFu",
     "ERROR: <input>:1:1: invalid uint literal\n| 0xFFFFFFFFFFFFFFFFFu\n| ^"},
    {"1.99e90000009",
     "ERROR: <input>:1:1: invalid double literal\n| 1.99e90000009\n| ^"},
    {"*@a | b",
     "ERROR: <input>:1:1: Syntax error: extraneous input '*' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| *@a | b\n| ^\nERROR: <input>:1:2: Syntax error: token recognition error at: '@'\n| *@a | b\n| .^\nERROR: <input>:1:5: Syntax error: token recognition error at: '| '\n| *@a | b\n| ....^\nERROR: <input>:1:7: Syntax error: extraneous input 'b' expecting <EOF>\n| *@a | b\n| ......^"},
    {"a | b",
     "ERROR: <input>:1:3: Syntax error: token recognition error at: '| '\n| a | b\n| ..^\nERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting <EOF>\n| a | b\n| ....^"},
    {"has(m)",
     "ERROR: <input>:1:5: invalid argument to has() macro\n| has(m)\n| ....^"},
    {"[].existsOne(__result__, __result__)",
     "ERROR: <input>:1:14: iteration variable overwrites accumulator variable\n| [].existsOne(__result__, __result__)\n| .............^"},
    {"m.map(__result__, __result__)",
     "ERROR: <input>:1:7: iteration variable overwrites accumulator variable\n| m.map(__result__, __result__)\n| ......^"},
    {"m.filter(__result__, false)",
     "ERROR: <input>:1:10: iteration variable overwrites accumulator variable\n| m.filter(__result__, false)\n| .........^"},
    {"m.filter(a.b, false)",
     "ERROR: <input>:1:11: argument is not an identifier\n| m.filter(a.b, false)\n| ..........^"},
    {"{",
     "ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| {\n| .^"},
    {"TestAllTypes(){}",
     "ERROR: <input>:1:15: Syntax error: mismatched input '{' expecting <EOF>\n| TestAllTypes(){}\n| ..............^"},
    {"TestAllTypes{}()",
     "ERROR: <input>:1:15: Syntax error: mismatched input '(' expecting <EOF>\n| TestAllTypes{}()\n| ..............^"},
    {"1 + $",
     "ERROR: <input>:1:5: Syntax error: token recognition error at: '$'\n| 1 + $\n| ....^\nERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| 1 + $\n| .....^"},
    {"1 + 2\n3 +",
     "ERROR: <input>:2:1: Syntax error: mismatched input '3' expecting <EOF>\n| 3 +\n| ^"},
    {"1.all(2, 3)",
     "ERROR: <input>:1:7: argument must be a simple name\n| 1.all(2, 3)\n| ......^"},
    {"1 + +",
     "ERROR: <input>:1:5: Syntax error: mismatched input '+' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| 1 + +\n| ....^\nERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| 1 + +\n| .....^"},
    {"{\"a\": 1}.\"a\"",
     "ERROR: <input>:1:10: Syntax error: no viable alternative at input '.\"a\"'\n| {\"a\": 1}.\"a\"\n| .........^"},
    {"\"\\xFh\"",
     "ERROR: <input>:1:1: Syntax error: token recognition error at: '\"\\xFh'\n| \"\\xFh\"\n| ^\nERROR: <input>:1:6: Syntax error: token recognition error at: '\"'\n| \"\\xFh\"\n| .....^\nERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| \"\\xFh\"\n| ......^"},
    {"\"\\a\\b\\f\\n\\r\\t\\v\\'\\\"\\\\\\? Illegal escape \\>\"",
     "ERROR: <input>:1:1: Syntax error: token recognition error at: '\"\\a\\b\\f\\n\\r\\t\\v\\'\\\"\\\\\\? Illegal escape \\>'\n| \"\\a\\b\\f\\n\\r\\t\\v\\'\\\"\\\\\\? Illegal escape \\>\"\n| ^\nERROR: <input>:1:42: Syntax error: token recognition error at: '\"'\n| \"\\a\\b\\f\\n\\r\\t\\v\\'\\\"\\\\\\? Illegal escape \\>\"\n| .........................................^\nERROR: <input>:1:43: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| \"\\a\\b\\f\\n\\r\\t\\v\\'\\\"\\\\\\? Illegal escape \\>\"\n| ..........................................^"},
    {"      '😁' in ['😁', '😑', '😦']\n\t\t\t&& in.😁",
     "ERROR: <input>:2:7: Syntax error: extraneous input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n|    && in.😁\n| ......^\nERROR: <input>:2:10: Syntax error: token recognition error at: '😁'\n|    && in.😁\n| .........＾\nERROR: <input>:2:11: Syntax error: no viable alternative at input '.'\n|    && in.😁\n| .........．^"},
    {"as",
     "ERROR: <input>:1:1: reserved identifier: as\n| as\n| ^"},
    {"break",
     "ERROR: <input>:1:1: reserved identifier: break\n| break\n| ^"},
    {"const",
     "ERROR: <input>:1:1: reserved identifier: const\n| const\n| ^"},
    {"continue",
     "ERROR: <input>:1:1: reserved identifier: continue\n| continue\n| ^"},
    {"else",
     "ERROR: <input>:1:1: reserved identifier: else\n| else\n| ^"},
    {"for",
     "ERROR: <input>:1:1: reserved identifier: for\n| for\n| ^"},
    {"function",
     "ERROR: <input>:1:1: reserved identifier: function\n| function\n| ^"},
    {"if",
     "ERROR: <input>:1:1: reserved identifier: if\n| if\n| ^"},
    {"import",
     "ERROR: <input>:1:1: reserved identifier: import\n| import\n| ^"},
    {"in",
     "ERROR: <input>:1:1: Syntax error: mismatched input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| in\n| ^\nERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| in\n| ..^"},
    {"let",
     "ERROR: <input>:1:1: reserved identifier: let\n| let\n| ^"},
    {"loop",
     "ERROR: <input>:1:1: reserved identifier: loop\n| loop\n| ^"},
    {"package",
     "ERROR: <input>:1:1: reserved identifier: package\n| package\n| ^"},
    {"namespace",
     "ERROR: <input>:1:1: reserved identifier: namespace\n| namespace\n| ^"},
    {"return",
     "ERROR: <input>:1:1: reserved identifier: return\n| return\n| ^"},
    {"var",
     "ERROR: <input>:1:1: reserved identifier: var\n| var\n| ^"},
    {"void",
     "ERROR: <input>:1:1: reserved identifier: void\n| void\n| ^"},
    {"while",
     "ERROR: <input>:1:1: reserved identifier: while\n| while\n| ^"},
    {"[1, 2, 3].map(var, var * var)",
     "ERROR: <input>:1:15: reserved identifier: var\n| [1, 2, 3].map(var, var * var)\n| ..............^\nERROR: <input>:1:15: argument is not an identifier\n| [1, 2, 3].map(var, var * var)\n| ..............^\nERROR: <input>:1:20: reserved identifier: var\n| [1, 2, 3].map(var, var * var)\n| ...................^\nERROR: <input>:1:26: reserved identifier: var\n| [1, 2, 3].map(var, var * var)\n| .........................^"},
    {"msg{:a}",
     "ERROR: <input>:1:5: Syntax error: extraneous input ':' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}\n| msg{:a}\n| ....^\nERROR: <input>:1:7: Syntax error: mismatched input '}' expecting ':'\n| msg{:a}\n| ......^"},
    {"{a}",
     "ERROR: <input>:1:3: Syntax error: mismatched input '}' expecting ':'\n| {a}\n| ..^"},
    {"{:a}",
     "ERROR: <input>:1:2: Syntax error: extraneous input ':' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| {:a}\n| .^\nERROR: <input>:1:4: Syntax error: mismatched input '}' expecting ':'\n| {:a}\n| ...^"},
    {"ind[a{b}]",
     "ERROR: <input>:1:8: Syntax error: mismatched input '}' expecting ':'\n| ind[a{b}]\n| .......^"},
    {"?",
     "ERROR: <input>:1:1: Syntax error: mismatched input '?' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| ?\n| ^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| ?\n| .^"},
    {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n\t\t\t[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['too many']]]]]]]]]]]]]]]]]]]]]]]]]]]]\n\t\t\t]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
     "ERROR: <input>:-1:0: expression recursion limit exceeded: 32"},
    {"-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1\n\t\t--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1--1--0--1--1--1\n\t\t--3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1\n\t\t--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1\n\t\t--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1\n\t\t--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1\n\t\t--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1--1--0--1--1--1\n\t\t--3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1\n\t\t--3-[-1--1--1--1---1-1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n\t\t--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n\t\t--1--1---1--1-À1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n\t\t--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n\t\t--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n\t\t--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n\t\t--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n\t\t--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n\t\t--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n\t\t--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1\n\t\t--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1\n\t\t--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1\n\t\t--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1\n\t\t--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1\n\t\t--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1\n\t\t--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1\n\t\t--1--0--1--1--1--3-[-1--1--1--1---1--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1\n\t\t--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1\n\t\t--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1\n\t\t--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1\n\t\t--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1\n\t\t--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1\n\t\t--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1\n\t\t--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1\n\t\t--1---1--1--1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1--1\n\t\t--1---1--1--1--0--1--1--1--1--0--3--1--1--0--1",
     "ERROR: <input>:-1:0: expression recursion limit exceeded: 32\nERROR: <input>:3:33: Syntax error: extraneous input '/' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n|   --3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1\n| ................................^\nERROR: <input>:8:33: Syntax error: extraneous input '/' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n|   --3-[-1--1--1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1\n| ................................^\nERROR: <input>:11:17: Syntax error: token recognition error at: 'À'\n|   --1--1---1--1-À1--0--1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n| ................＾\nERROR: <input>:14:23: Syntax error: extraneous input '/' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n|   --1--1---1--1--1--0-/1--1--1--1--0--2--1--1--0--1--1--1--1--0--1--1--1--3-[-1--1\n| ......................^"},
    {"y!=y!=y!=y!=y!=y!=y!=y!=y!=-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y\n\t\t!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y\n\t\t!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y\n\t\t!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y\n\t\t!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y\n\t\t!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y",
     "ERROR: <input>:-1:0: max recursion depth exceeded"},
    {"self.true == 1",
     "ERROR: <input>:1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER\n| self.true == 1\n| .....^"},
    {"a.?b && a[?b]",
     "ERROR: <input>:1:2: unsupported syntax '.?'\n| a.?b && a[?b]\n| .^\nERROR: <input>:1:10: unsupported syntax '[?'\n| a.?b && a[?b]\n| .........^"},
    {"[?a, ?b]",
     "ERROR: <input>:1:2: unsupported syntax '?'\n| [?a, ?b]\n| .^\nERROR: <input>:1:6: unsupported syntax '?'\n| [?a, ?b]\n| .....^"},
    {"Msg{?field: value} && {?'key': value}",
     "ERROR: <input>:1:5: unsupported syntax '?'\n| Msg{?field: value} && {?'key': value}\n| ....^\nERROR: <input>:1:24: unsupported syntax '?'\n| Msg{?field: value} && {?'key': value}\n| .......................^"},
    {"a.`$b`",
     "ERROR: <input>:1:3: Syntax error: token recognition error at: '`$'\n| a.`$b`\n| ..^\nERROR: <input>:1:6: Syntax error: token recognition error at: '`'\n| a.`$b`\n| .....^"},
    {"a.`b-c`",
     "ERROR: <input>:1:3: unsupported syntax: '`'\n| a.`b-c`\n| ..^"},
    {"a.`b.c`",
     "ERROR: <input>:1:3: unsupported syntax: '`'\n| a.`b.c`\n| ..^"},
    {"a.`in`",
     "ERROR: <input>:1:3: unsupported syntax: '`'\n| a.`in`\n| ..^"},
    {"a.`/foo`",
     "ERROR: <input>:1:3: unsupported syntax: '`'\n| a.`/foo`\n| ..^"},
    {"Message{`in`: true}",
     "ERROR: <input>:1:9: unsupported syntax: '`'\n| Message{`in`: true}\n| ........^"},
    {"x{?.",
     "ERROR: <input>:1:3: unsupported syntax '?'\n| x{?.\n| ..^\nERROR: <input>:1:4: Syntax error: mismatched input '.' expecting {IDENTIFIER, ESC_IDENTIFIER}\n| x{?.\n| ...^"},
    {"x{.",
     "ERROR: <input>:1:3: Syntax error: mismatched input '.' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}\n| x{.\n| ..^"},
    {"'\\udead' == '\\ufffd'",
     "ERROR: <input>:1:1: invalid unicode code point\n| '\\udead' == '\\ufffd'\n| ^"},
};

TEST(Parser, CelGoErrorCases) {
  ParseOptions options;
  options.max_recursion_depth = 32;
  options.optional_syntax = false;
  for (const auto& c : kCelGoErrorCases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(normalized(parse_errors(c.input, options)), c.errors);
  }
}

TEST(Parser, KubernetesLimitsAndOptionalSyntax) {
  ParseOptions k8s;  // Kubernetes' environment: cel-go's default limits, optional syntax on
  // Nesting as deep as cel-go's default allows is accepted; one more level is refused.
  std::string deep(249, '[');
  deep += "1";
  deep += std::string(249, ']');
  EXPECT_EQ(parse_errors(deep, k8s), "");
  std::string deeper(251, '[');
  deeper += "1";
  deeper += std::string(251, ']');
  EXPECT_EQ(parse_errors(deeper, k8s), "ERROR: <input>:-1:0: expression recursion limit exceeded: 250");
  // Operator chains count towards the visitor's depth.
  std::string chain = "1";
  for (int i = 0; i < 251; ++i) chain += " + 1";
  EXPECT_EQ(parse_errors(chain, k8s), "ERROR: <input>:-1:0: max recursion depth exceeded");
  // Long && chains are balanced and stay shallow.
  std::string conj = "true";
  for (int i = 0; i < 1000; ++i) conj += " && true";
  EXPECT_EQ(parse_errors(conj, k8s), "");
  // The optional syntax parses.
  EXPECT_EQ(parse_errors("a.?b.orValue(1) == [?x][0] && {?'k': v}.size() > 0", k8s), "");
  // At most 100 syntax errors are kept, then one saying so, which the display (100 at most)
  // counts as truncated, as cel-go's does (a fuzzer found this path).
  std::string junk(150, '#');
  std::string errors = parse_errors(junk, k8s);
  std::size_t count = 0;
  for (std::size_t k = errors.find("token recognition error"); k != std::string::npos;
       k = errors.find("token recognition error", k + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 100u);
  EXPECT_EQ(errors.substr(errors.size() - 28), "1 more errors were truncated");
  // Expressions over 100,000 code points are refused before parsing.
  std::string huge(100001, ' ');
  huge[0] = '1';
  EXPECT_EQ(parse_errors(huge, k8s), "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000");
}

}  // namespace
}  // namespace ksched::cel
