// CEL parser: the grammar of cel-spec (cel-go's CEL.g4) by recursive descent, with cel-go's
// macros (has, all, exists, exists_one/existsOne, map, filter) and cel.bind from the bindings
// extension, and the optional syntax (`a.?b`, `a[?b]`, `[?x]`, `{?k: v}`) that Kubernetes enables.
//
// Limits as cel-go's defaults: expressions longer than 100,000 code points, and nesting deeper
// than 250 levels, are refused with cel-go's messages. Syntax errors carry cel-go's position and
// "Syntax error: " prefix; the rest of the message imitates ANTLR's ("mismatched input 'x'
// expecting ...", "token recognition error at: '...'") and only the first one is reported, where
// ANTLR's error recovery may report several.
#pragma once
#include <vector>

#include "cel/ast.h"
#include "cel/source.h"

namespace ksched::cel {

struct ParseOptions {
  int max_recursion_depth = 250;
  int expression_size_code_point_limit = 100000;
  bool optional_syntax = true;
};

struct ParseResult {
  Ast ast;
  std::vector<Issue> issues;  // empty on success
};

ParseResult parse(const Source& source, const ParseOptions& options = {});

}  // namespace ksched::cel
