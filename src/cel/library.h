// The functions of the DRA CEL environment: the declarations the checker resolves overloads
// against (names, overload ids, argument and result types, as cel-go and the Kubernetes libraries
// declare them) and the implementations the evaluator calls.
//
// Included: cel-go's standard library without timestamps and durations (with Kubernetes'
// cross-type numeric comparisons), the Kubernetes libraries for quantities, semantic versions,
// regular expressions (find, findAll) and lists (isSorted, sum, min, max, indexOf, lastIndexOf),
// cel-go's strings extension (version 2), sets extension and optional types (with the optMap
// and optFlatMap macros). Names of functions of the upstream environment that are left out
// (timestamps, durations, string formatting, URLs, IP addresses, CIDRs, Kubernetes formats) are
// known to the checker, which refuses them with a message saying so instead of "undeclared".
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cel/types.h"

namespace ksched::cel {

struct Value;
class Evaluator;

// An implementation receives the receiver (if any) followed by the arguments, already checked
// against the overload's declared argument kinds (errors propagated unless the function is
// non-strict).
using Impl = Value (*)(Evaluator& ev, const Value* args);

struct OverloadDecl {
  std::string id;
  bool member = false;
  std::vector<TypePtr> args;  // receiver first for member overloads
  TypePtr result;
  std::vector<std::string> type_params;
  Impl impl = nullptr;
};

struct FunctionDecl {
  std::string name;
  std::vector<OverloadDecl> overloads;
  // Dispatched by the function as a whole (cel-go's singleton bindings: the operators, size,
  // type conversions): runtime type errors say "no such overload" as those do, not the
  // per-overload "no such overload: f(int)".
  Impl singleton = nullptr;
};

// The declared functions by name; null when unknown.
const FunctionDecl* find_function(std::string_view name);

// True for names of the upstream environment's functions that ksched does not implement.
bool is_unsupported_function(std::string_view name);

// Type identifiers (`int`, `list`, `kubernetes.Quantity`, ...): their type `type(T)`, or null.
TypePtr find_type_identifier(std::string_view name);

// Runtime type name of a declared type, for type() values: "int", "list", "kubernetes.Quantity".
std::string_view runtime_type_name(const Type& t);

}  // namespace ksched::cel
