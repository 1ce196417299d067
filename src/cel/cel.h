// CEL for Dynamic Resource Allocation device selectors (DeviceClass and ResourceClaim
// `selectors[].cel.expression`), with upstream's environment, errors and limits
// (k8s.io/dynamic-resource-allocation/cel, Kubernetes v1.35).
//
//   auto program = cel::compile(R"(device.driver == "gpu.example.com" &&
//       device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0)");
//   if (!program) ... program.error().detail ...          // the API server's 422 detail
//   auto matches = program->evaluate(device);              // per (class, device)
//   if (!matches) ... matches.error().message ...          // "no such key: memory"
//
// compile() parses, type-checks against the DRA declarations (the `device` variable: driver,
// attributes, capacity, allowMultipleAllocations), requires a bool (or dynamic) result, and
// estimates the worst-case cost. A Program is immutable and may be evaluated by many threads at
// once; evaluation copies nothing from the device and, for typical selectors, allocates nothing
// (temporaries go to a per-thread arena that is reused). Evaluation stops with an error once the
// runtime cost passes the limit, so no expression can run away.
//
// Only the part of CEL that the DRA environment offers is implemented; see docs/architecture.md
// ("CEL for device selectors") for what is and is not.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cel/device.h"
#include "util/result.h"

namespace ksched::cel {

// resourceapi.CELSelectorExpressionMaxCost and CELSelectorExpressionMaxLength.
inline constexpr std::uint64_t kSelectorMaxCost = 1000000;
inline constexpr std::size_t kSelectorMaxLength = 10 * 1024;

struct CompileOptions {
  // The environment for expressions already stored (every field and function of the current
  // version; upstream's default, which the scheduler uses) rather than new ones (what the
  // previous version also accepts; the API server's choice for a new or changed expression).
  bool stored_expression = true;
  // The DRAConsumableCapacity feature gate: declares device.allowMultipleAllocations for new
  // expressions (stored ones always have it).
  bool consumable_capacity = false;
  // Runtime cost limit of the program.
  std::uint64_t cost_limit = kSelectorMaxCost;
  // Compute the worst-case cost estimate (the API server does; the scheduler's cache does not).
  bool estimate_cost = true;
};

// Upstream's apiservercel.Error: Invalid for errors in the expression, Internal otherwise.
struct CompileError {
  enum class Type { Invalid, Internal };
  Type type = Type::Invalid;
  // "compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' applied to
  // '(string, int)'\n | device.driver > 1\n | ..............^" or "must evaluate to bool or the
  // unknown type, not int".
  std::string detail;
};

struct EvalError {
  // cel-go's message: "no such key: model", "division by zero", "operation cancelled: actual
  // cost limit exceeded", "CEL result of type int could not be converted to bool: ...".
  std::string message;
};

struct Plan;

class Program {
 public:
  // Whether the expression matches the device.
  util::Result<bool, EvalError> evaluate(const Device& device) const;
  // As evaluate, and the runtime cost the evaluation reached (cel-go's ActualCost).
  util::Result<bool, EvalError> evaluate(const Device& device, std::uint64_t& actual_cost) const;

  std::string_view expression() const;
  // Worst-case cost estimate; UINT64_MAX when not estimated.
  std::uint64_t max_cost() const;

 private:
  Program() = default;  // made by compile() only
  friend util::Result<Program, CompileError> compile(std::string_view, const CompileOptions&);
  std::shared_ptr<const Plan> plan_;
};

util::Result<Program, CompileError> compile(std::string_view expression, const CompileOptions& options = {});

// Upstream's validateCELSelector (pkg/apis/resource/validation) for the API server: what is
// wrong with a selector expression, as the field error it becomes.
struct SelectorIssue {
  enum class Kind {
    TooLong,    // field.TooLong(path, "", kSelectorMaxLength)
    Invalid,    // field.Invalid(path, expression, detail)
    Internal,   // field.InternalError(path, detail)
    Forbidden,  // field.Forbidden(path, "too complex, exceeds cost limit")
  };
  Kind kind;
  std::string detail;
};
std::optional<SelectorIssue> validate_selector(std::string_view expression, bool stored, bool consumable_capacity);

// Checks a device's data the way upstream converts it before every evaluation: a version
// attribute that is not a semantic version fails every selector with
// "attribute <name>: parse semantic version: <reason>". Evaluation itself reports this only for
// the attributes an expression reads, so callers that want upstream's behaviour run this once
// per device.
util::Result<void, EvalError> check_device(const Device& device);

// Compiled programs by expression text: thread-safe, bounded (least recently used entries are
// dropped), compiles each expression once even when several threads ask for it at the same
// time. Failed compilations are not cached, as upstream's cache does not keep them.
class Cache {
 public:
  explicit Cache(std::size_t max_entries, CompileOptions options = {.stored_expression = true, .estimate_cost = false});
  util::Result<Program, CompileError> get_or_compile(std::string_view expression);
  std::size_t size() const;

 private:
  std::size_t max_entries_;
  CompileOptions options_;
  mutable std::mutex mu_;
  std::list<std::string> lru_;  // most recent first
  std::unordered_map<std::string_view, std::pair<Program, std::list<std::string>::iterator>> map_;
  std::unordered_map<std::string, std::shared_ptr<std::mutex>> compiling_;
};

}  // namespace ksched::cel
