// The parsed (and, after checking, typed) expression tree, in cel-go's shape: literals, identifiers,
// field selections (with has() as a test-only selection), calls (operators are calls such as
// `_+_`, `_[_]`, `_?_:_`), list and map literals, message literals, and comprehensions, which the
// macros (all, exists, exists_one, map, filter, cel.bind) expand into.
//
// Nodes live in one vector and refer to each other by index; a node's index is its identity for
// the checker's type and reference maps. Each node keeps the code-point offset that cel-go gives
// its expression id, so errors point where cel-go's do (operators at the operator, calls at '(',
// selections at '.', macro expansions at the macro call).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ksched::cel {

struct Literal {
  enum class Kind : std::uint8_t { Null, Bool, Int, Uint, Double, String, Bytes };
  Kind kind = Kind::Null;
  bool b = false;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  std::string s;  // String (UTF-8) and Bytes
};

enum class ExprKind : std::uint8_t { Unspecified, Literal, Ident, Select, Call, List, Map, Struct, Comprehension };

struct MapEntry {
  int key = -1;
  int value = -1;
  bool optional = false;
  std::int32_t offset = -1;
};

struct StructField {
  std::string name;
  int value = -1;
  bool optional = false;
  std::int32_t offset = -1;
};

struct Expr {
  ExprKind kind = ExprKind::Unspecified;
  std::int32_t offset = -1;
  Literal literal;
  std::string name;       // Ident: name; Select: field; Call: function; Struct: message type name
  bool test_only = false;  // Select inside has()
  int operand = -1;        // Select: operand; Call: receiver target (-1 for a global call)
  std::vector<int> args;   // Call: arguments; List: elements
  std::vector<int> optional_indices;  // List: elements written `?e`
  std::vector<MapEntry> entries;
  std::vector<StructField> fields;
  // Comprehension
  std::string iter_var, iter_var2, accu_var;
  int iter_range = -1, accu_init = -1, loop_condition = -1, loop_step = -1, result = -1;
};

struct Ast {
  std::vector<Expr> nodes;
  int root = -1;

  Expr& at(int i) { return nodes[static_cast<std::size_t>(i)]; }
  const Expr& at(int i) const { return nodes[static_cast<std::size_t>(i)]; }
};

// The accumulator the macros use (cel-go's HiddenAccumulatorName) and the legacy one that an
// iteration variable may not shadow either.
inline constexpr const char* kAccumulatorName = "@result";
inline constexpr const char* kLegacyAccumulatorName = "__result__";
// cel.bind's unused iteration variable.
inline constexpr const char* kUnusedIterVar = "#unused";

}  // namespace ksched::cel
