// The type checker: cel-go's checker (checker/checker.go) over the DRA environment. It assigns
// every node a type, resolves identifiers (the `device` variable, comprehension variables, type
// names) and calls (the overloads whose declared argument types the argument types are
// assignable to, with type parameters unified as cel-go does), and reports cel-go's errors:
// "undeclared reference to 'x' (in container '')", "found no matching overload for '_>_' applied
// to '(string, int)'", "undefined field 'foo'", "expected type 'bool' but found 'int'", ...
//
// Afterwards it runs the Kubernetes AST validators: homogeneous list and map literals, and
// regular expression literals given to matches().
#pragma once
#include <string>
#include <vector>

#include "cel/ast.h"
#include "cel/library.h"
#include "cel/source.h"
#include "cel/types.h"

namespace ksched::cel {

struct Reference {
  enum class Kind : std::uint8_t { None, Variable, Local, TypeName, Call };
  Kind kind = Kind::None;
  std::string name;                            // variable, local, type or resolved function name
  const FunctionDecl* function = nullptr;      // Call
  std::vector<const OverloadDecl*> overloads;  // Call: the overloads that matched, in declaration order
  bool namespaced = false;                     // Call: `a.b.f(x)` resolved as the function `a.b.f`
};

struct CheckedAst {
  Ast ast;
  std::vector<TypePtr> types;   // per node (unused nodes keep null)
  std::vector<Reference> refs;  // per node
  const TypePtr& type_of(int node) const { return types[static_cast<std::size_t>(node)]; }
  const Reference& ref(int node) const { return refs[static_cast<std::size_t>(node)]; }
};

struct CheckOptions {
  // device.allowMultipleAllocations is declared (DRAConsumableCapacity, or stored expressions).
  bool allow_multiple_allocations = true;
};

struct CheckResult {
  CheckedAst checked;
  std::vector<Issue> issues;  // empty on success
};

CheckResult check(Ast ast, const CheckOptions& options);

}  // namespace ksched::cel
