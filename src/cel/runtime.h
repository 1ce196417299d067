// The compiled form of a checked expression (a Plan: a flat array of nodes) and the Evaluator
// that walks it over one device. Internal to the layer; callers use cel/cel.h.
//
// Evaluation follows cel-go's interpreter: strict calls propagate the first error argument,
// && and || are commutative on errors (false && error is false, true || error is true, errors
// otherwise), ?: evaluates one branch, comprehensions stop when their condition turns false and
// initialise their accumulator on first use (which makes cel.bind lazy). The runtime cost is
// counted as cel-go's cost tracker counts it, with the Kubernetes library's costs; passing the
// limit stops the evaluation with "operation cancelled: actual cost limit exceeded".
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/device.h"
#include "cel/library.h"
#include "cel/regex.h"
#include "cel/value.h"

namespace ksched::cel {

enum class Op : std::uint8_t {
  Const,
  Device,
  DeviceField,    // device.driver, .attributes, .capacity, .allowMultipleAllocations (k.i: DeviceFieldId)
  DomainLookup,   // device.attributes["domain"] or device.capacity["domain"] (k: the domain; slot 1: capacity)
  ItemLookup,     // device.attributes["domain"].id and the like (k: the id; kid 0: its DomainLookup)
  Local,          // a comprehension or cel.bind variable (slot)
  Select,         // operand.field
  TestOnly,       // has(operand.field)
  OptSelect,      // operand.?field
  Index,          // operand[key]
  OptIndex,       // operand[?key]
  And,
  Or,
  Not,
  NotStrictlyFalse,
  Cond,
  Eq,
  Ne,
  Call,
  List,
  Map,
  Comprehension,
  AccuAppend,     // accumulator + [element] of map() and filter(), appended in place
};

enum class DeviceFieldId : std::uint8_t { Driver, Attributes, Capacity, AllowMultipleAllocations };

// How a call's runtime cost is counted: cel-go's CostTracker.costCall and the Kubernetes
// library's CallCost, decided once per call site from its function and overload.
enum class CostClass : std::uint8_t {
  One,              // O(1)
  Traversal,        // isSorted, sum, min, max, indexOf, lastIndexOf: the argument's traversal cost
  Tenth,            // size(arg0) * 0.1: lowerAscii, quantity(), startsWith, string_to_bytes, ...
  TwoTenths,        // size(arg0) * 0.2: replace, split
  JoinResult,       // size(result) * 0.2
  FindRegex,        // find, findAll, matches (member): (1 + size(arg0)) * 0.1 * size(arg1) * 0.25
  InList,           // size(arg1)
  MinTenth,         // string and bytes comparisons: min size * 0.1
  SumTenth,         // string and bytes concatenation: (size(arg0) + size(arg1)) * 0.1
  ContainsProduct,  // size(arg0) * 0.1 * size(arg1) * 0.1
  Sets1,            // sets.contains, sets.intersects: 1 + size(arg0) * size(arg1)
  Sets2,            // sets.equivalent: 1 + 2 * size(arg0) * size(arg1)
  Free,             // `x in [constants]`: cel-go's set membership lookup, which it does not charge for
};

struct PNode {
  Op op = Op::Const;
  CostClass cost = CostClass::One;  // Call
  std::uint8_t nkids = 0;
  bool has_optionals = false;     // List/Map: some elements/entries are `?x`
  std::uint32_t kids = 0;         // first child index in Plan::kids
  Value k;                        // Const: the value; Select/TestOnly/OptSelect: the field (a string)
  std::uint64_t const_cost = 0;   // Const: cost of the call folded into it
  std::int32_t expr = -1;         // source node (for messages that carry its id)
  // Call
  const FunctionDecl* fn = nullptr;
  const OverloadDecl* overload = nullptr;  // the one overload the checker resolved, else null
  const Regex* regex = nullptr;            // precompiled constant pattern (matches, find, findAll)
  // Local, Comprehension, AccuAppend
  std::int32_t slot = -1;         // Local: the variable; Comprehension: iteration variable; AccuAppend: accumulator
  std::int32_t accu_slot = -1;    // Comprehension
  std::int32_t init = -1;         // Comprehension: accumulator initialiser (a node index)
};

struct Plan {
  std::string expression;
  std::uint64_t cost_limit = 0;
  std::uint64_t max_cost = 0;
  std::vector<PNode> nodes;
  std::vector<std::int32_t> kids;
  std::vector<std::uint8_t> optional_flags;  // parallel to kids for List/Map nodes with optionals
  std::int32_t root = -1;
  std::int32_t slots = 0;
  std::vector<std::int32_t> slot_init;  // per slot: the node that initialises it lazily, or -1
  // Storage for constants: folded values and their strings live as long as the plan.
  std::unique_ptr<Arena> constants = std::make_unique<Arena>();
  std::deque<Regex> regexes;
  std::deque<api::Quantity> quantities;
  std::deque<Semver> semvers;

  std::int32_t kid(const PNode& n, int i) const { return kids[n.kids + static_cast<std::uint32_t>(i)]; }
};

// Errors in messages: a small string builder over the arena.
class StrBuf {
 public:
  explicit StrBuf(Arena& arena) : arena_(arena) {}
  StrBuf& operator<<(std::string_view s);
  StrBuf& operator<<(char c) { return *this << std::string_view(&c, 1); }
  StrBuf& operator<<(std::int64_t v);
  StrBuf& operator<<(std::uint64_t v);
  std::string_view view() const { return {data_, size_}; }

 private:
  Arena& arena_;
  char* data_ = nullptr;
  std::size_t size_ = 0, cap_ = 0;
};

class Evaluator {
 public:
  Evaluator(const Plan& plan, const Device* device, Arena& arena, std::uint64_t cost_limit);

  Value run();
  Value eval(std::int32_t n);

  Arena& arena() { return arena_; }
  const Device* device() const { return device_; }
  std::uint64_t cost() const { return cost_; }
  bool aborted() const { return aborted_; }

  void add_cost(std::uint64_t c) {
    cost_ += c;
    if (cost_ > limit_ && !aborted_) abort_cost();
  }

  Value error(std::string_view message);  // copies the message into the arena
  Value error_literal(const char* message);  // a static message, no copy
  Value no_such_overload() { return error_literal("no such overload"); }
  Value maybe_no_such_overload(const Value& v) { return v.is_error() ? v : no_such_overload(); }
  // cel-go's MaybeNoSuchOverload: the first error argument, or "no such overload: f(types)".
  Value no_such_overload_call(std::string_view function, const Value* args, std::size_t n);

  // Collections, including the device's map views.
  bool is_list(const Value& v) const { return v.kind == ValueKind::List; }
  bool is_map(const Value& v) const;
  std::uint32_t list_size(const Value& v) const { return v.list->size; }
  const Value& list_at(const Value& v, std::uint32_t i) const { return v.list->elems[i]; }
  std::uint32_t map_size(const Value& m) const;
  Value map_key_at(const Value& m, std::uint32_t i);  // i-th key in iteration order
  // Finds `key` in `m`: 1 found, 0 absent, -1 error (in `out`).
  int map_find(const Value& m, const Value& key, Value& out);

  Value make_list(const Value* elems, std::uint32_t n);
  Value make_string(std::string_view s) { return Value::string(arena_.copy(s)); }
  Value make_quantity(const api::Quantity& q, bool pointer);
  Value make_optional(const Value* inner);  // null: none

  // Value semantics shared with the library.
  Value equals(const Value& a, const Value& b);
  static std::string_view type_name(const Value& v);     // "int", "map", "kubernetes.Quantity"
  static std::string_view go_type_name(const Value& v);  // "types.Int", "cel.Semver"
  void format(StrBuf& out, const Value& v);              // Go's %v of the value
  static std::uint64_t actual_size(const Value& v, const Evaluator& ev);  // cel-go's actualSize

  const Regex* regex_of(std::int32_t node) const { return plan_.nodes[static_cast<std::size_t>(node)].regex; }
  std::int32_t current_node() const { return current_; }

 private:
  struct Slot {
    Value v;
    bool ready = false;
    std::uint32_t capacity = 0;        // AccuAppend: room in `owned`
    const ListValue* owned = nullptr;  // AccuAppend: the list it appends to in place
  };

  void abort_cost();
  [[gnu::noinline]] Value eval_call(const PNode& n, std::int32_t index);
  Value set_membership(const Value& v, const ListValue& set);
  [[gnu::noinline]] Value eval_comprehension(const PNode& n);
  // Cold cases of eval, kept out of its frame.
  [[gnu::noinline]] Value eval_list(const PNode& n);
  [[gnu::noinline]] Value eval_map(const PNode& n);
  [[gnu::noinline]] Value eval_append(const PNode& n);
  Value eval_item(const PNode& n);
  Value eval_select(const PNode& n, bool test_only, bool optional);
  Value eval_index(const PNode& n, bool optional);
  Value qualify(const Value& operand, const Value& key, bool presence, bool& present);
  Value attribute_value(const DeviceAttribute& a);
  std::uint64_t call_cost(const PNode& n, const Value* args, std::size_t nargs, const Value& result);

  const Plan& plan_;
  const Device* device_;
  Arena& arena_;
  std::uint64_t limit_;
  std::uint64_t cost_ = 0;
  bool aborted_ = false;
  Value abort_error_;
  Slot* slots_ = nullptr;
  std::int32_t current_ = -1;
};

// Domain and id of a qualified attribute or capacity name; the driver is the default domain.
inline void split_qualified(std::string_view name, std::string_view driver, std::string_view& domain,
                            std::string_view& id) {
  auto k = name.find('/');
  if (k == std::string_view::npos) {
    domain = driver;
    id = name;
  } else {
    domain = name.substr(0, k);
    id = name.substr(k + 1);
  }
}

// Number of code points in UTF-8 text (an invalid byte counts as one).
std::uint64_t code_points(std::string_view s);

// The cost class of a call to `function` resolved to `overload` (null when several may apply).
CostClass cost_class(std::string_view function, const OverloadDecl* overload);

// cel-go's comparison of a double with a number: -1, 0, 1, or 2 when NaN is involved.
int compare_double_to(double d, const Value& v);

// Go's %g / strconv.FormatFloat(f, 'g', -1, 64).
void format_double(StrBuf& out, double d);

// Runtime signature check of one argument against a declared type (cel-go's
// IsAssignableRuntimeType, type-erased for lists and maps).
bool runtime_assignable(const Evaluator& ev, const Type& t, const Value& v);

}  // namespace ksched::cel
