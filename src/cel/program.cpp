#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "cel/cel.h"
#include "cel/checker.h"
#include "cel/cost.h"
#include "cel/parser.h"
#include "cel/program.h"
#include "cel/runtime.h"

namespace ksched::cel {

namespace {

// Arena memory a thread keeps between evaluations; more is released after an evaluation that
// needed it (a pathological expression, bounded by the cost limit).
constexpr std::size_t kArenaKeepBytes = 1 << 20;

class Planner {
 public:
  Planner(const CheckedAst& checked, Plan& plan) : c_(checked), p_(plan) {}

  // Returns false with `error` when a constant regular expression does not compile.
  bool run(CompileError& error) {
    p_.root = plan(c_.ast.root);
    if (failed_) {
      error = error_;
      return false;
    }
    return true;
  }

 private:
  const Expr& expr(int e) const { return c_.ast.at(e); }

  std::int32_t add(PNode n, const std::vector<std::int32_t>& kids, const std::vector<std::uint8_t>* optional = nullptr) {
    n.kids = static_cast<std::uint32_t>(p_.kids.size());
    n.nkids = static_cast<std::uint8_t>(kids.size());
    p_.kids.insert(p_.kids.end(), kids.begin(), kids.end());
    if (optional) {
      p_.optional_flags.resize(p_.kids.size(), 0);
      for (std::size_t i = 0; i < optional->size(); ++i) p_.optional_flags[n.kids + i] = (*optional)[i];
    } else {
      p_.optional_flags.resize(p_.kids.size(), 0);
    }
    p_.nodes.push_back(n);
    return static_cast<std::int32_t>(p_.nodes.size()) - 1;
  }

  std::int32_t constant(const Value& v, int e, std::uint64_t cost = 0) {
    PNode n;
    n.op = Op::Const;
    n.k = v;
    n.const_cost = cost;
    n.expr = e;
    std::int32_t id = add(n, {});
    mark_go_const(id);
    return id;
  }

  bool is_const(std::int32_t n) const { return p_.nodes[static_cast<std::size_t>(n)].op == Op::Const; }

  // Evaluates a node whose children are constants once, at compile time, keeping its cost to
  // charge when the constant is read (cel-go evaluates these calls on every run).
  std::int32_t fold(std::int32_t n, bool keep_cost, bool conversion = false) {
    const PNode& node = p_.nodes[static_cast<std::size_t>(n)];
    for (int i = 0; i < node.nkids; ++i)
      if (!is_const(p_.kid(node, i))) return n;
    Evaluator ev(p_, nullptr, *p_.constants, std::numeric_limits<std::uint64_t>::max());
    Value v = ev.eval(n);
    if (v.is_error()) {
      // cel-go fails the program when a conversion of a constant fails.
      if (conversion) fail(CompileError::Type::Internal, "program instantiation failed: " + std::string(v.err->message));
      return n;
    }
    PNode k;
    k.op = Op::Const;
    k.k = v;
    k.const_cost = keep_cost ? ev.cost() : 0;
    k.expr = node.expr;
    p_.nodes[static_cast<std::size_t>(n)] = k;
    if (!keep_cost) mark_go_const(n);
    return n;
  }

  // cel-go's constants: literals, type names, lists and maps of constants, conversions of
  // constants, `in` an empty constant list. Other calls of constants are folded here too, but
  // cel-go evaluates (and charges for) them on every run, so its optimizations do not see them.
  void mark_go_const(std::int32_t n) {
    if (go_const_.size() <= static_cast<std::size_t>(n)) go_const_.resize(static_cast<std::size_t>(n) + 1, 0);
    go_const_[static_cast<std::size_t>(n)] = 1;
  }
  bool go_const(std::int32_t n) const {
    return is_const(n) && static_cast<std::size_t>(n) < go_const_.size() && go_const_[static_cast<std::size_t>(n)];
  }

  std::int32_t slot_of(const std::string& name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == name) return it->second;
    return -1;
  }

  std::int32_t new_slot() {
    p_.slot_init.push_back(-1);
    return p_.slots++;
  }

  Value literal(const Literal& l) {
    switch (l.kind) {
      case Literal::Kind::Null: return Value::null();
      case Literal::Kind::Bool: return Value::boolean(l.b);
      case Literal::Kind::Int: return Value::integer(l.i);
      case Literal::Kind::Uint: return Value::uinteger(l.u);
      case Literal::Kind::Double: return Value::dbl(l.d);
      case Literal::Kind::String: return Value::string(p_.constants->copy(l.s));
      case Literal::Kind::Bytes: return Value::bytes(p_.constants->copy(l.s));
    }
    return Value();
  }

  void fail(CompileError::Type type, std::string detail) {
    if (failed_) return;
    failed_ = true;
    error_ = {type, std::move(detail)};
  }

  std::int32_t plan(int e) {
    const Expr& x = expr(e);
    const Reference& r = c_.ref(e);
    switch (x.kind) {
      case ExprKind::Literal:
        return constant(literal(x.literal), e);
      case ExprKind::Ident: {
        PNode n;
        n.expr = e;
        if (r.kind == Reference::Kind::Local) {
          n.op = Op::Local;
          n.slot = slot_of(x.name);
          return add(n, {});
        }
        if (r.kind == Reference::Kind::TypeName) {
          const TypePtr& t = c_.type_of(e);
          return constant(Value::type(p_.constants->copy(runtime_type_name(*t->params[0]))), e);
        }
        n.op = Op::Device;
        return add(n, {});
      }
      case ExprKind::Select: {
        std::int32_t operand = plan(x.operand);
        PNode n;
        n.expr = e;
        if (!x.test_only && p_.nodes[static_cast<std::size_t>(operand)].op == Op::Device) {
          // A field of the device, read directly.
          static constexpr std::pair<std::string_view, DeviceFieldId> kFields[] = {
              {"driver", DeviceFieldId::Driver},
              {"attributes", DeviceFieldId::Attributes},
              {"capacity", DeviceFieldId::Capacity},
              {"allowMultipleAllocations", DeviceFieldId::AllowMultipleAllocations}};
          for (const auto& [name, id] : kFields) {
            if (x.name == name) {
              n.op = Op::DeviceField;
              n.k = Value::integer(static_cast<std::int64_t>(id));
              p_.nodes[static_cast<std::size_t>(operand)] = n;  // replaces the Device node
              return operand;
            }
          }
        }
        if (!x.test_only && p_.nodes[static_cast<std::size_t>(operand)].op == Op::DomainLookup) {
          return item_lookup(operand, Value::string(p_.constants->copy(x.name)), e);
        }
        n.op = x.test_only ? Op::TestOnly : Op::Select;
        n.k = Value::string(p_.constants->copy(x.name));
        return add(n, {operand});
      }
      case ExprKind::Call:
        return plan_call(e);
      case ExprKind::List: {
        std::vector<std::int32_t> kids;
        std::vector<std::uint8_t> opt(x.args.size(), 0);
        for (int i : x.optional_indices) opt[static_cast<std::size_t>(i)] = 1;
        for (int a : x.args) kids.push_back(plan(a));
        PNode n;
        n.op = Op::List;
        n.expr = e;
        n.has_optionals = !x.optional_indices.empty();
        std::int32_t id = add(n, kids, &opt);
        return n.has_optionals ? id : fold(id, false);
      }
      case ExprKind::Map: {
        std::vector<std::int32_t> kids;
        std::vector<std::uint8_t> opt;
        bool any_optional = false;
        for (const auto& en : x.entries) {
          kids.push_back(plan(en.key));
          kids.push_back(plan(en.value));
          opt.push_back(en.optional ? 1 : 0);
          opt.push_back(0);
          any_optional = any_optional || en.optional;
        }
        PNode n;
        n.op = Op::Map;
        n.expr = e;
        n.has_optionals = any_optional;
        std::int32_t id = add(n, kids, &opt);
        return any_optional ? id : fold(id, false);
      }
      case ExprKind::Comprehension:
        return plan_comprehension(e);
      default:
        return constant(Value(), e);
    }
  }

  std::int32_t plan_call(int e) {
    const Expr& x = expr(e);
    const Reference& r = c_.ref(e);
    const std::string& fn = r.name;
    auto simple = [&](Op op) {
      std::vector<std::int32_t> kids;
      for (int a : x.args) kids.push_back(plan(a));
      PNode n;
      n.op = op;
      n.expr = e;
      return add(n, kids);
    };
    if (fn == "_&&_") return simple(Op::And);
    if (fn == "_||_") return simple(Op::Or);
    if (fn == "_?_:_") return simple(Op::Cond);
    if (fn == "!_") return simple(Op::Not);
    if (fn == "@not_strictly_false") return simple(Op::NotStrictlyFalse);
    if (fn == "_==_") return simple(Op::Eq);
    if (fn == "_!=_") return simple(Op::Ne);
    if (fn == "_[_]") {
      std::int32_t id = simple(Op::Index);
      // device.attributes["domain"], then ["id"]: looked up directly in the device.
      const PNode& n = p_.nodes[static_cast<std::size_t>(id)];
      std::int32_t target = p_.kid(n, 0), key = p_.kid(n, 1);
      const PNode& t = p_.nodes[static_cast<std::size_t>(target)];
      const PNode& k = p_.nodes[static_cast<std::size_t>(key)];
      if (k.op != Op::Const || k.k.kind != ValueKind::String || k.const_cost != 0) return id;
      if (t.op == Op::DeviceField && (t.k.i == static_cast<std::int64_t>(DeviceFieldId::Attributes) ||
                                      t.k.i == static_cast<std::int64_t>(DeviceFieldId::Capacity))) {
        PNode d;
        d.op = Op::DomainLookup;
        d.expr = e;
        d.k = k.k;
        d.slot = t.k.i == static_cast<std::int64_t>(DeviceFieldId::Capacity) ? 1 : 0;
        p_.nodes[static_cast<std::size_t>(id)] = d;
        p_.nodes[static_cast<std::size_t>(id)].nkids = 0;
        return id;
      }
      if (t.op == Op::DomainLookup) return item_lookup(target, k.k, e);
      return id;
    }
    if (fn == "_[?_]") return simple(Op::OptIndex);
    if (fn == "_?._") {
      PNode n;
      n.op = Op::OptSelect;
      n.expr = e;
      n.k = Value::string(p_.constants->copy(expr(x.args[1]).literal.s));
      return add(n, {plan(x.args[0])});
    }
    std::vector<std::int32_t> kids;
    bool member = x.operand >= 0 && !r.namespaced;
    if (member) kids.push_back(plan(x.operand));
    for (int a : x.args) kids.push_back(plan(a));
    PNode n;
    n.op = Op::Call;
    n.expr = e;
    n.fn = r.function;
    n.overload = r.overloads.size() == 1 ? r.overloads[0] : nullptr;
    n.cost = cost_class(fn, n.overload);
    // Constant patterns are compiled once (cel-go's regex optimization).
    if ((fn == "matches" || fn == "find" || fn == "findAll") && kids.size() >= 2) {
      int pattern_expr = member ? (x.args.empty() ? -1 : x.args[0]) : (x.args.size() > 1 ? x.args[1] : -1);
      if (pattern_expr >= 0 && expr(pattern_expr).kind == ExprKind::Literal &&
          expr(pattern_expr).literal.kind == Literal::Kind::String) {
        auto re = Regex::compile(expr(pattern_expr).literal.s);
        if (!re.ok()) {
          if (re.error().unsupported) {
            fail(CompileError::Type::Invalid, "compilation failed: " + re.error().message);
          } else {
            fail(CompileError::Type::Internal, "program instantiation failed: " + re.error().message);
          }
        } else {
          p_.regexes.push_back(std::move(*re));
          n.regex = &p_.regexes.back();
        }
      }
    }
    if (fn == "@in" && kids.size() == 2 && n.overload && n.overload->id == "in_list" && go_const(kids[1]) &&
        p_.nodes[static_cast<std::size_t>(kids[1])].k.kind == ValueKind::List) {
      // cel-go's set membership optimization for a constant list of primitive values: an empty
      // list makes the test false without evaluating its operand, any other a lookup it does not
      // charge for.
      const ListValue& l = *p_.nodes[static_cast<std::size_t>(kids[1])].k.list;
      if (l.size == 0) return constant(Value::boolean(false), e);
      bool primitive = true;
      for (std::uint32_t i = 0; i < l.size; ++i) {
        ValueKind k = l.elems[i].kind;
        if (k != ValueKind::Bool && k != ValueKind::Int && k != ValueKind::Uint && k != ValueKind::Double &&
            k != ValueKind::String) {
          primitive = false;
        }
      }
      if (primitive) n.cost = CostClass::Free;
    }
    std::int32_t id = add(n, kids);
    // Type conversions of constants are computed when the program is built (cel-go's
    // maybeOptimizeConstUnary), at no runtime cost, and fail it when they fail; other calls
    // keep their cost, and their errors for when they run.
    static constexpr std::string_view kConversions[] = {"bool", "bytes", "double", "dyn", "int", "string", "type", "uint"};
    bool conversion = kids.size() == 1 && go_const(kids[0]) &&
                      std::find(std::begin(kConversions), std::end(kConversions), fn) != std::end(kConversions);
    return fold(id, !conversion, conversion);
  }

  std::int32_t item_lookup(std::int32_t domain, const Value& id, int e) {
    PNode n;
    n.op = Op::ItemLookup;
    n.expr = e;
    n.k = id;
    return add(n, {domain});
  }

  // accumulator + [element], the step of map() and filter().
  bool is_append(int e, const std::string& accu) const {
    const Expr& x = expr(e);
    if (x.kind != ExprKind::Call || c_.ref(e).name != "_+_" || x.args.size() != 2) return false;
    const Expr& l = expr(x.args[0]);
    const Expr& r = expr(x.args[1]);
    return l.kind == ExprKind::Ident && l.name == accu && r.kind == ExprKind::List && r.args.size() == 1 &&
           r.optional_indices.empty();
  }

  std::int32_t plan_append(int e, std::int32_t accu_slot) {
    PNode n;
    n.op = Op::AccuAppend;
    n.expr = e;
    n.slot = accu_slot;
    return add(n, {plan(expr(expr(e).args[1]).args[0])});
  }

  std::int32_t plan_step(int e, const std::string& accu, std::int32_t accu_slot, bool owned_list) {
    if (owned_list && is_append(e, accu)) return plan_append(e, accu_slot);
    const Expr& x = expr(e);
    if (owned_list && x.kind == ExprKind::Call && c_.ref(e).name == "_?_:_" && x.args.size() == 3 &&
        is_append(x.args[1], accu) && expr(x.args[2]).kind == ExprKind::Ident && expr(x.args[2]).name == accu) {
      std::int32_t cond = plan(x.args[0]);
      std::int32_t then = plan_append(x.args[1], accu_slot);
      std::int32_t otherwise = plan(x.args[2]);
      PNode n;
      n.op = Op::Cond;
      n.expr = e;
      return add(n, {cond, then, otherwise});
    }
    return plan(e);
  }

  std::int32_t plan_comprehension(int e) {
    const Expr& x = expr(e);
    std::int32_t range = plan(x.iter_range);
    std::int32_t accu_slot = new_slot();
    std::int32_t iter_slot = new_slot();
    std::int32_t init = plan(x.accu_init);
    p_.slot_init[static_cast<std::size_t>(accu_slot)] = init;
    const Expr& init_expr = expr(x.accu_init);
    bool owned_list = init_expr.kind == ExprKind::List && init_expr.args.empty();
    scope_.emplace_back(x.accu_var, accu_slot);
    scope_.emplace_back(x.iter_var, iter_slot);
    std::int32_t cond = plan(x.loop_condition);
    std::int32_t step = plan_step(x.loop_step, x.accu_var, accu_slot, owned_list);
    scope_.pop_back();
    std::int32_t result = plan(x.result);
    scope_.pop_back();
    PNode n;
    n.op = Op::Comprehension;
    n.expr = e;
    n.slot = iter_slot;
    n.accu_slot = accu_slot;
    n.init = init;
    return add(n, {range, cond, step, result});
  }

  const CheckedAst& c_;
  Plan& p_;
  std::vector<std::pair<std::string, std::int32_t>> scope_;
  bool failed_ = false;
  CompileError error_;
  std::vector<std::uint8_t> go_const_;
};

// The message of a result that is not a bool (DeviceMatches' conversion error).
std::string not_bool_message(const Value& v) {
  std::string type(Evaluator::type_name(v));
  std::string why;
  switch (v.kind) {
    case ValueKind::Int: why = "unsupported type conversion from 'int' to bool"; break;
    case ValueKind::Uint: why = "unsupported type conversion from 'uint' to bool"; break;
    case ValueKind::Double: why = "type conversion error from Double to 'bool'"; break;
    case ValueKind::String: why = "unsupported native conversion from string to 'bool'"; break;
    case ValueKind::Bytes: why = "type conversion error from Bytes to 'bool'"; break;
    case ValueKind::Null: why = "type conversion error from 'null_type' to 'bool'"; break;
    case ValueKind::List: why = "type conversion error from list to 'bool'"; break;
    case ValueKind::Type: why = "type conversion not supported for 'type'"; break;
    case ValueKind::Quantity: why = "type conversion error from 'Quantity' to 'bool'"; break;
    case ValueKind::Semver: why = "type conversion error from 'Semver' to 'bool'"; break;
    case ValueKind::Optional: why = "optional.none() dereference"; break;
    default: why = "type conversion error from map to 'bool'"; break;
  }
  return "CEL result of type " + type + " could not be converted to bool: " + why;
}

}  // namespace

util::Result<std::shared_ptr<Plan>, CompileError> build_plan(std::string_view expression,
                                                              const CompileOptions& options, bool require_bool) {
  Source source(expression);
  ParseResult parsed = parse(source);
  if (!parsed.issues.empty()) {
    return CompileError{CompileError::Type::Invalid, "compilation failed: " + format_issues(source, parsed.issues)};
  }
  CheckOptions check_options;
  check_options.allow_multiple_allocations = options.stored_expression || options.consumable_capacity;
  CheckResult checked = check(std::move(parsed.ast), check_options);
  if (!checked.issues.empty()) {
    return CompileError{CompileError::Type::Invalid, "compilation failed: " + format_issues(source, checked.issues)};
  }
  const Type& out = *checked.checked.type_of(checked.checked.ast.root);
  if (require_bool && out.kind != TypeKind::Bool && out.kind != TypeKind::Any) {
    return CompileError{CompileError::Type::Invalid,
                        "must evaluate to bool or the unknown type, not " + type_string(out)};
  }
  auto plan = std::make_shared<Plan>();
  plan->expression = std::string(expression);
  plan->cost_limit = options.cost_limit;
  Planner planner(checked.checked, *plan);
  CompileError error;
  if (!planner.run(error)) return error;
  plan->max_cost = options.estimate_cost ? estimate_cost(checked.checked).max : std::numeric_limits<std::uint64_t>::max();
  return plan;
}

util::Result<Program, CompileError> compile(std::string_view expression, const CompileOptions& options) {
  auto plan = build_plan(expression, options, true);
  if (!plan.ok()) return plan.error();
  Program p;
  p.plan_ = std::move(*plan);
  return p;
}

util::Result<bool, EvalError> Program::evaluate(const Device& device) const {
  std::uint64_t cost = 0;
  return evaluate(device, cost);
}

util::Result<bool, EvalError> Program::evaluate(const Device& device, std::uint64_t& actual_cost) const {
  thread_local Arena arena;
  arena.reset();
  Evaluator ev(*plan_, &device, arena, plan_->cost_limit);
  Value v = ev.run();
  actual_cost = ev.cost();
  if (v.kind == ValueKind::Bool && arena.used() <= kArenaKeepBytes) return v.b;
  util::Result<bool, EvalError> result = EvalError{};
  if (v.kind == ValueKind::Bool) {
    result = v.b;
  } else if (v.kind == ValueKind::Error) {
    result = EvalError{std::string(v.err->message)};
  } else if (v.kind == ValueKind::Optional && v.opt && v.opt->kind == ValueKind::Bool) {
    result = v.opt->b;
  } else {
    result = EvalError{not_bool_message(v.kind == ValueKind::Optional && v.opt ? *v.opt : v)};
  }
  if (arena.used() > kArenaKeepBytes) arena.release();
  return result;
}

std::string_view Program::expression() const { return plan_->expression; }
std::uint64_t Program::max_cost() const { return plan_->max_cost; }

std::optional<SelectorIssue> validate_selector(std::string_view expression, bool stored, bool consumable_capacity) {
  if (expression.size() > kSelectorMaxLength) return SelectorIssue{SelectorIssue::Kind::TooLong, ""};
  CompileOptions options;
  options.stored_expression = stored;
  options.consumable_capacity = consumable_capacity;
  auto p = compile(expression, options);
  if (!p.ok()) {
    auto kind = p.error().type == CompileError::Type::Internal ? SelectorIssue::Kind::Internal : SelectorIssue::Kind::Invalid;
    return SelectorIssue{kind, p.error().detail};
  }
  if (p->max_cost() > kSelectorMaxCost) {
    return SelectorIssue{SelectorIssue::Kind::Forbidden, "too complex, exceeds cost limit"};
  }
  return std::nullopt;
}

util::Result<void, EvalError> check_device(const Device& device) {
  for (const auto& a : device.attributes) {
    if (a.kind != DeviceAttribute::Kind::Version) continue;
    Semver v;
    std::string why;
    if (!parse_semver(a.string_value, v, &why)) {
      return EvalError{"attribute " + std::string(a.name) + ": parse semantic version: " + why};
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// Cache

Cache::Cache(std::size_t max_entries, CompileOptions options) : max_entries_(std::max<std::size_t>(1, max_entries)), options_(options) {}

std::size_t Cache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return map_.size();
}

util::Result<Program, CompileError> Cache::get_or_compile(std::string_view expression) {
  std::shared_ptr<std::mutex> key_mu;
  auto lookup = [&]() -> std::optional<Program> {
    auto it = map_.find(expression);
    if (it == map_.end()) return std::nullopt;
    lru_.splice(lru_.begin(), lru_, it->second.second);
    return it->second.first;
  };
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto p = lookup()) return *p;
    auto& m = compiling_[std::string(expression)];
    if (!m) m = std::make_shared<std::mutex>();
    key_mu = m;
  }
  // One compilation per expression at a time: others asking for it wait and then find it.
  std::lock_guard<std::mutex> compiling(*key_mu);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto p = lookup()) return *p;
  }
  auto result = compile(expression, options_);
  std::lock_guard<std::mutex> lock(mu_);
  if (result.ok() && map_.find(expression) == map_.end()) {
    lru_.emplace_front(expression);
    map_.emplace(std::string_view(lru_.front()), std::make_pair(*result, lru_.begin()));
    while (map_.size() > max_entries_) {
      map_.erase(std::string_view(lru_.back()));
      lru_.pop_back();
    }
  }
  auto it = compiling_.find(std::string(expression));
  if (it != compiling_.end() && it->second == key_mu) compiling_.erase(it);
  return result;
}

}  // namespace ksched::cel
