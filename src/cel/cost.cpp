#include "cel/cost.h"

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cel/runtime.h"

namespace ksched::cel {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
constexpr double kStringTraversal = 0.1;
constexpr double kRegexLength = 0.25;

std::uint64_t add_sat(std::uint64_t x, std::uint64_t y) { return (y > 0 && x > kMax - y) ? kMax : x + y; }
std::uint64_t mul_sat(std::uint64_t x, std::uint64_t y) { return (y != 0 && x > kMax / y) ? kMax : x * y; }
std::uint64_t mul_factor(std::uint64_t x, double y) {
  double xf = static_cast<double>(x);
  if (xf > 0 && y > 0 && xf > static_cast<double>(kMax) / y) return kMax;
  double c = std::ceil(xf * y);
  if (c >= 18446744073709551616.0) return kMax;
  return static_cast<std::uint64_t>(c);
}

struct Est {
  std::uint64_t min = 0, max = 0;
  Est add(Est o) const { return {add_sat(min, o.min), add_sat(max, o.max)}; }
  Est mul(Est o) const { return {mul_sat(min, o.min), mul_sat(max, o.max)}; }
  Est factor(double f) const { return {mul_factor(min, f), mul_factor(max, f)}; }
  Est join(Est o) const { return {std::min(min, o.min), std::max(max, o.max)}; }
};
const Est kUnknown{0, kMax};
Est fixed(std::uint64_t v) { return {v, v}; }

struct EntrySize {
  TypeKind container;
  Est key, val;
};

struct Node {
  std::vector<std::string> path;
  TypePtr type;
  int expr = -1;
  std::optional<Est> size;  // ComputedSize
};

// DRA's size estimator over the `device` variable's declaration.
struct Decl {
  std::uint64_t max_elements = 0;
  const Decl* elem = nullptr;
  const Decl* key = nullptr;
  std::map<std::string, const Decl*, std::less<>> fields;
};
struct DeviceDecls {
  Decl attribute{64}, domain{63}, id{32}, driver{63}, multi{1}, quantity{0};
  Decl inner_attrs{32}, outer_attrs{32}, inner_caps{32}, outer_caps{32}, device{0};
  DeviceDecls() {
    inner_attrs.key = &id;
    inner_attrs.elem = &attribute;
    outer_attrs.key = &domain;
    outer_attrs.elem = &inner_attrs;
    inner_caps.key = &id;
    inner_caps.elem = &quantity;
    outer_caps.key = &domain;
    outer_caps.elem = &inner_caps;
    device.fields = {{"driver", &driver}, {"attributes", &outer_attrs}, {"capacity", &outer_caps},
                     {"allowMultipleAllocations", &multi}};
  }
};
const DeviceDecls& device_decls() {
  static const DeviceDecls d;
  return d;
}

std::optional<Est> dra_size(const std::vector<std::string>& path) {
  if (path.empty() || path[0] != "device") return std::nullopt;
  const DeviceDecls& d = device_decls();
  const Decl* cur = &d.device;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const std::string& name = path[i];
    if (name == "@items" || name == "@values") {
      if (!cur->elem) return std::nullopt;
      cur = cur->elem;
    } else if (name == "@keys") {
      if (!cur->key) return std::nullopt;
      cur = cur->key;
    } else {
      auto it = cur->fields.find(name);
      if (it == cur->fields.end()) {
        if (cur->elem == &d.attribute) {
          cur = &d.attribute;
          continue;
        }
        return std::nullopt;
      }
      cur = it->second;
    }
  }
  return Est{0, cur->max_elements};
}

bool is_scalar(const Type& t) {
  switch (t.kind) {
    case TypeKind::Bool: case TypeKind::Double: case TypeKind::Duration: case TypeKind::Int: case TypeKind::Timestamp:
    case TypeKind::Uint:
      return true;
    case TypeKind::Opaque:
      return t.name == "optional_type" && is_scalar(*t.params[0]);
    default:
      return false;
  }
}

struct LocalVar {
  std::vector<std::string> path;
  std::optional<Est> size;
  std::optional<EntrySize> entry;
};

class Coster {
 public:
  explicit Coster(const CheckedAst& c) : c_(c) {}

  Est cost(int e) {
    if (e < 0) return {};
    const Expr& x = c_.ast.at(e);
    switch (x.kind) {
      case ExprKind::Literal: return fixed(0);
      case ExprKind::Ident: return cost_ident(e);
      case ExprKind::Select: return cost_select(e);
      case ExprKind::Call: return cost_call(e);
      case ExprKind::List: return cost_list(e);
      case ExprKind::Map: return cost_map(e);
      case ExprKind::Struct: {
        Est sum;
        for (const auto& f : x.fields) sum = sum.add(cost(f.value));
        return sum.add(fixed(40));
      }
      case ExprKind::Comprehension: return is_bind(e) ? cost_bind(e) : cost_comprehension(e);
      default: return {};
    }
  }

 private:
  const Expr& expr(int e) const { return c_.ast.at(e); }
  const TypePtr& type(int e) const { return c_.type_of(e); }

  const LocalVar* peek(const std::string& name) const {
    auto it = locals_.find(name);
    if (it == locals_.end() || it->second.empty()) return nullptr;
    return &it->second.back();
  }
  void push(const std::string& name, LocalVar v) { locals_[name].push_back(std::move(v)); }
  void pop(const std::string& name) { locals_[name].pop_back(); }

  std::vector<std::string> path_of(int e) const {
    const Expr& x = expr(e);
    if (x.kind == ExprKind::Ident) {
      if (const LocalVar* v = peek(x.name)) return v->path;
    }
    auto it = paths_.find(e);
    return it == paths_.end() ? std::vector<std::string>{} : it->second;
  }
  void set_path(int e, std::vector<std::string> p) { paths_[e] = std::move(p); }

  static std::optional<Est> expr_size(const Expr& x) {
    switch (x.kind) {
      case ExprKind::Literal:
        switch (x.literal.kind) {
          case Literal::Kind::String: return fixed(code_points(x.literal.s));
          case Literal::Kind::Bytes: return fixed(x.literal.s.size());
          default: return fixed(1);
        }
      case ExprKind::List: return fixed(x.args.size());
      case ExprKind::Map: return fixed(x.entries.size());
      default: return std::nullopt;
    }
  }

  std::optional<Est> size_of(int e) {
    if (auto it = sizes_.find(e); it != sizes_.end()) return it->second;
    if (auto s = expr_size(expr(e))) return s;
    if (auto s = dra_size(path_of(e))) {
      sizes_[e] = *s;
      return s;
    }
    if (type(e) && is_scalar(*type(e))) return fixed(1);
    if (expr(e).kind == ExprKind::Ident) {
      if (const LocalVar* v = peek(expr(e).name); v && v->size) return v->size;
    }
    return std::nullopt;
  }
  Est size_or_unknown(int e) { return size_of(e).value_or(kUnknown); }
  void set_size(int e, std::optional<Est> s) {
    if (s) sizes_[e] = *s;
  }

  std::optional<EntrySize> entry_size(int e) const {
    if (auto it = entries_.find(e); it != entries_.end()) return it->second;
    if (expr(e).kind == ExprKind::Ident) {
      if (const LocalVar* v = peek(expr(e).name); v && v->entry) return v->entry;
    }
    return std::nullopt;
  }
  void set_entry(int e, std::optional<EntrySize> s) {
    if (s) entries_[e] = *s;
  }
  static std::optional<EntrySize> union_entries(std::optional<EntrySize> a, std::optional<EntrySize> b) {
    if (!a || !b) return std::nullopt;
    return EntrySize{a->container, a->key.join(b->key), a->val.join(b->val)};
  }

  Node node_of(int e) {
    Node n;
    n.path = path_of(e);
    if (!n.path.empty() && (n.path[0] == kAccumulatorName || n.path[0] == kLegacyAccumulatorName)) n.path.clear();
    n.type = type(e);
    n.expr = e;
    n.size = size_of(e);
    return n;
  }
  // The Kubernetes estimator's sizeEstimate: computed size, else the size estimator, else unknown.
  Est node_size(const Node& n) const {
    if (n.size) return *n.size;
    if (auto s = dra_size(n.path)) return *s;
    return kUnknown;
  }

  Est cost_ident(int e) {
    const std::string& name = expr(e).name;
    if (const LocalVar* v = peek(name)) {
      set_path(e, v->path);
    } else {
      set_path(e, {name});
    }
    return fixed(1);
  }

  Est cost_select(int e) {
    const Expr& x = expr(e);
    Est sum;
    if (x.test_only) {
      // Kubernetes gives presence tests no cost (PresenceTestHasCost(false)).
      return sum.add(cost(x.operand));
    }
    sum = sum.add(cost(x.operand));
    TypeKind k = type(x.operand)->kind;
    if (k == TypeKind::Map || k == TypeKind::Struct || k == TypeKind::TypeParam) sum = sum.add(fixed(1));
    auto p = path_of(x.operand);
    p.push_back(x.name);
    set_path(e, std::move(p));
    return sum;
  }

  Est cost_list(int e) {
    const Expr& x = expr(e);
    Est sum;
    Est item{kMax, 0};
    if (x.args.empty()) item.min = 0;
    for (int el : x.args) {
      sum = sum.add(cost(el));
      item = item.join(size_or_unknown(el));
    }
    set_entry(e, EntrySize{TypeKind::List, fixed(1), item});
    return sum.add(fixed(10));
  }

  Est cost_map(int e) {
    const Expr& x = expr(e);
    Est sum;
    Est ks{kMax, 0}, vs{kMax, 0};
    if (x.entries.empty()) {
      ks.min = 0;
      vs.min = 0;
    }
    for (const auto& en : x.entries) {
      sum = sum.add(cost(en.key));
      sum = sum.add(cost(en.value));
      ks = ks.join(size_or_unknown(en.key));
      vs = vs.join(size_or_unknown(en.value));
    }
    set_entry(e, EntrySize{TypeKind::Map, ks, vs});
    return sum.add(fixed(30));
  }

  bool is_bind(int e) const {
    const Expr& x = expr(e);
    const Expr& range = expr(x.iter_range);
    const Expr& cond = expr(x.loop_condition);
    return range.kind == ExprKind::List && range.args.empty() && cond.kind == ExprKind::Literal &&
           cond.literal.kind == Literal::Kind::Bool && !cond.literal.b && x.accu_var != kLegacyAccumulatorName;
  }

  void push_local(const std::string& name, int init) {
    push(name, LocalVar{path_of(init), size_of(init), entry_size(init)});
  }

  Est cost_bind(int e) {
    const Expr& x = expr(e);
    Est sum = cost(x.iter_range).add(cost(x.accu_init));
    push_local(x.accu_var, x.accu_init);
    sum = sum.add(cost(x.result));
    pop(x.accu_var);
    set_size(e, size_of(x.result));
    set_entry(e, entry_size(x.result));
    return sum;
  }

  Est cost_comprehension(int e) {
    const Expr& x = expr(e);
    Est sum = cost(x.iter_range).add(cost(x.accu_init));
    push_local(x.accu_var, x.accu_init);
    {
      // A single iteration variable: list elements or map keys.
      auto entry = entry_size(x.iter_range);
      TypeKind container = entry ? entry->container : type(x.iter_range)->kind;
      std::optional<Est> size = entry ? std::optional<Est>(entry->key) : std::nullopt;
      std::string sub = "@keys";
      if (container == TypeKind::List) {
        size = entry ? std::optional<Est>(entry->val) : std::nullopt;
        sub = "@items";
      }
      auto p = path_of(x.iter_range);
      p.push_back(sub);
      push(x.iter_var, LocalVar{std::move(p), size, std::nullopt});
    }
    Est loop = cost(x.loop_condition);
    Est step = cost(x.loop_step);
    pop(x.iter_var);
    sum = sum.add(cost(x.result));
    pop(x.accu_var);
    Est range = size_or_unknown(x.iter_range);
    sum = sum.add(range.mul(step.add(loop)));
    const Expr& init = expr(x.accu_init);
    if (init.kind == ExprKind::Literal) {
      set_size(e, size_of(x.accu_init));
    } else if (init.kind == ExprKind::List || init.kind == ExprKind::Map) {
      set_size(e, range);
      set_entry(e, entry_size(x.loop_step));
    }
    return sum;
  }

  struct CallEst {
    Est cost;
    std::optional<Est> result;
  };

  Est cost_call(int e) {
    const Expr& x = expr(e);
    const Reference& r = c_.ref(e);
    if (r.name == "dyn" && x.args.size() == 1) {
      Est arg = cost(x.args[0]);
      set_size(e, size_of(x.args[0]));
      set_entry(e, entry_size(x.args[0]));
      return fixed(1).add(arg);
    }
    std::vector<Node> args;
    std::vector<Est> arg_costs;
    for (int a : x.args) {
      arg_costs.push_back(cost(a));
      args.push_back(node_of(a));
    }
    if (r.overloads.empty()) return {};
    Est sum;
    std::optional<Node> target;
    bool member = x.operand >= 0 && !r.namespaced;
    if (member) {
      sum = sum.add(cost(x.operand));
      target = node_of(x.operand);
    }
    Est fn{kMax, 0};
    std::optional<Est> result;
    for (const OverloadDecl* o : r.overloads) {
      CallEst c = function_cost(e, r.name, o->id, target ? &*target : nullptr, args, arg_costs);
      fn = fn.join(c.cost);
      if (c.result) result = result ? result->join(*c.result) : *c.result;
      if (o->id == "index_list" && !x.args.empty()) {
        auto en = entry_size(x.args[0]);
        result = en ? std::optional<Est>(en->val) : std::nullopt;
        auto p = path_of(x.args[0]);
        p.push_back("@items");
        set_path(e, std::move(p));
      } else if (o->id == "index_map" && !x.args.empty()) {
        auto en = entry_size(x.args[0]);
        result = en ? std::optional<Est>(en->val) : std::nullopt;
        auto p = path_of(x.args[0]);
        p.push_back("@values");
        set_path(e, std::move(p));
      }
      if (!result) result = size_of(e);
    }
    set_size(e, result);
    return sum.add(fn);
  }

  std::optional<const Node*> list_element(const Node& list, Node& storage) {
    if (!list.type || list.type->params.empty()) return std::nullopt;
    storage = Node{};
    storage.type = list.type->params[0];
    if (!list.path.empty()) {
      storage.path = list.path;
      storage.path.push_back("@items");
    }
    return &storage;
  }

  // The Kubernetes library's EstimateCallCost.
  std::optional<CallEst> kubernetes_call_cost(const std::string& fn, const std::string& overload, const Node* target,
                                              const std::vector<Node>& args) {
    auto one = CallEst{fixed(1), std::nullopt};
    if (fn == "isSorted" || fn == "sum" || fn == "max" || fn == "min" || fn == "indexOf" || fn == "lastIndexOf") {
      if (!target) return std::nullopt;
      Node storage;
      if (auto el = list_element(*target, storage)) {
        Est el_cost = fixed(1);
        TypeKind k = (*el)->type->kind;
        if (k == TypeKind::String || k == TypeKind::Bytes) el_cost = el_cost.add(node_size(**el).factor(kStringTraversal));
        return CallEst{node_size(*target).mul(el_cost), std::nullopt};
      }
      return CallEst{node_size(*target).factor(kStringTraversal), std::nullopt};
    }
    if (fn == "lowerAscii" || fn == "upperAscii" || fn == "substring" || fn == "trim") {
      if (!target) return std::nullopt;
      Est sz = node_size(*target);
      return CallEst{sz.factor(kStringTraversal), sz};
    }
    if (fn == "replace") {
      if (!target || args.size() < 2) return std::nullopt;
      Est sz = node_size(*target), from = node_size(args[0]), to = node_size(args[1]);
      Est count, retained;
      if (from.min == 0) {
        count.max = sz.max < kMax ? sz.max + 1 : sz.max;
        retained.max = sz.max;
      } else if (to.max <= from.min) {
        count.max = 0;
        retained.max = sz.max;
      } else {
        count.max = static_cast<std::uint64_t>(std::ceil(static_cast<double>(sz.max) / static_cast<double>(from.min)));
      }
      if (from.max == 0) {
        count.min = sz.min < kMax ? sz.min + 1 : sz.min;
        retained.min = sz.min;
      } else if (from.max <= to.min) {
        count.min = 0;
        retained.min = sz.min;
      } else {
        count.min = static_cast<std::uint64_t>(std::ceil(static_cast<double>(sz.min) / static_cast<double>(from.max)));
      }
      Est size = count.mul(to).add(retained);
      return CallEst{sz.factor(2 * kStringTraversal), size};
    }
    if (fn == "split") {
      if (!target) return std::nullopt;
      Est sz = node_size(*target);
      std::uint64_t max = sz.max;
      if (args.size() > 1) {
        const Expr& lit = expr(args[1].expr);
        if (lit.kind == ExprKind::Literal && lit.literal.kind == Literal::Kind::Int) {
          max = static_cast<std::uint64_t>(lit.literal.i);
        }
      }
      return CallEst{sz.factor(2 * kStringTraversal), Est{0, max}};
    }
    if (fn == "join") {
      if (!target) return std::nullopt;
      Est sz;
      Est list = node_size(*target);
      Node storage;
      if (auto el = list_element(*target, storage)) sz = list.mul(node_size(**el));
      if (!args.empty()) {
        Est sep = node_size(args[0]);
        Est seps{list.min > 0 ? list.min - 1 : 0, list.max > 0 ? list.max - 1 : 0};
        sz = sz.add(sep.mul(seps));
      }
      return CallEst{sz.factor(kStringTraversal), sz};
    }
    if (fn == "find" || fn == "findAll") {
      if (!target || args.empty()) return std::nullopt;
      Est sz = node_size(*target);
      Est str = sz.add(fixed(1)).factor(kStringTraversal);
      Est re = node_size(args[0]).factor(kRegexLength);
      return CallEst{str.mul(re), Est{0, sz.max}};
    }
    if (fn == "quantity" || fn == "isQuantity" || fn == "semver" || fn == "isSemver") {
      if (args.empty()) return std::nullopt;
      return CallEst{node_size(args[0]).factor(kStringTraversal), std::nullopt};
    }
    if (fn == "sign" || fn == "asInteger" || fn == "isInteger" || fn == "asApproximateFloat" ||
        fn == "isGreaterThan" || fn == "isLessThan" || fn == "compareTo" || fn == "add" || fn == "sub" ||
        fn == "major" || fn == "minor" || fn == "patch") {
      return one;
    }
    if (fn == "_==_" && args.size() == 2) {
      const TypePtr& l = args[0].type;
      const TypePtr& r = args[1].type;
      if (l && r && l->name == r->name && l->kind == TypeKind::Struct &&
          (l->name == "kubernetes.Quantity" || l->name == "kubernetes.Semver")) {
        return one;
      }
    }
    (void)overload;
    return std::nullopt;
  }

  CallEst function_cost(int e, const std::string& fn, const std::string& id, const Node* target,
                        const std::vector<Node>& args, const std::vector<Est>& arg_costs) {
    Est arg_sum;
    for (const Est& a : arg_costs) arg_sum = arg_sum.add(a);
    auto size_or_unknown_node = [&](const Node& n) { return n.size.value_or(kUnknown); };
    // The sets extension's overload estimators.
    if (id == "list_sets_contains_list" || id == "list_sets_intersects_list" || id == "list_sets_equivalent_list") {
      if (args.size() == 2) {
        double f = id == "list_sets_equivalent_list" ? 2 : 1;
        Est c = node_size(args[0]).mul(node_size(args[1])).factor(f).add(fixed(1));
        return {c.add(arg_sum), std::nullopt};
      }
    }
    if (auto k = kubernetes_call_cost(fn, id, target, args)) return {k->cost.add(arg_sum), k->result};
    if (id == "string_to_bytes" && args.size() == 1) {
      Est sz = size_or_unknown_node(args[0]);
      return {sz.factor(kStringTraversal).add(arg_sum), Est{sz.min, mul_sat(sz.max, 4)}};
    }
    if (id == "bytes_to_string" && args.size() == 1) {
      Est sz = size_or_unknown_node(args[0]);
      return {sz.factor(kStringTraversal).add(arg_sum), Est{sz.min / 4, sz.max}};
    }
    if (id == "strings_quote" && args.size() == 1) {
      Est sz = size_or_unknown_node(args[0]);
      return {sz.factor(kStringTraversal).add(arg_sum), Est{add_sat(sz.min, 2), add_sat(mul_sat(sz.max, 2), 2)}};
    }
    if ((id == "starts_with_string" || id == "ends_with_string") && args.size() == 1) {
      return {size_or_unknown_node(args[0]).factor(kStringTraversal).add(arg_sum), std::nullopt};
    }
    if (id == "in_list" && args.size() == 2) return {size_or_unknown_node(args[1]).factor(1).add(arg_sum), std::nullopt};
    if (id == "matches_string" && target && args.size() == 1) {
      Est str = size_or_unknown_node(*target).add(fixed(1)).factor(kStringTraversal);
      Est re = size_or_unknown_node(args[0]).factor(kRegexLength);
      return {str.mul(re).add(arg_sum), std::nullopt};
    }
    if (id == "contains_string" && target && args.size() == 1) {
      Est str = size_or_unknown_node(*target).factor(kStringTraversal);
      Est sub = size_or_unknown_node(args[0]).factor(kStringTraversal);
      return {str.mul(sub).add(arg_sum), std::nullopt};
    }
    if (id == "logical_or" || id == "logical_and") {
      Est l = arg_costs[0], r = arg_costs[1];
      return {Est{l.min, l.add(r).max}, std::nullopt};
    }
    if (id == "conditional") {
      Est size = size_or_unknown_node(args[1]).join(size_or_unknown_node(args[2]));
      set_entry(e, union_entries(entry_size(args[1].expr), entry_size(args[2].expr)));
      Est c = arg_costs[0].add(arg_costs[1].join(arg_costs[2]));
      return {c, size};
    }
    if ((id == "add_string" || id == "add_bytes" || id == "add_list") && args.size() == 2) {
      Est l = size_or_unknown_node(args[0]), r = size_or_unknown_node(args[1]);
      Est result = l.add(r);
      auto entry = union_entries(entry_size(args[0].expr), entry_size(args[1].expr));
      set_entry(e, entry);
      if (id == "add_list") return {fixed(1).add(arg_sum), result};
      return {result.factor(kStringTraversal).add(arg_sum), result};
    }
    if (id == "less_string" || id == "greater_string" || id == "less_equals_string" || id == "greater_equals_string" ||
        id == "less_bytes" || id == "greater_bytes" || id == "less_equals_bytes" || id == "greater_equals_bytes" ||
        id == "equals" || id == "not_equals") {
      Est l = size_or_unknown_node(args[0]), r = size_or_unknown_node(args[1]);
      std::uint64_t smallest = std::min(l.max, r.max);
      Est c{smallest > 0 ? 1u : 0u, smallest};
      return {c.factor(kStringTraversal).add(arg_sum), std::nullopt};
    }
    return {fixed(1).add(arg_sum), std::nullopt};
  }

  const CheckedAst& c_;
  std::unordered_map<int, std::vector<std::string>> paths_;
  std::unordered_map<int, Est> sizes_;
  std::unordered_map<int, EntrySize> entries_;
  std::map<std::string, std::vector<LocalVar>> locals_;
};

}  // namespace

CostEstimate estimate_cost(const CheckedAst& checked) {
  Coster c(checked);
  Est e = c.cost(checked.ast.root);
  return {e.min, e.max};
}

}  // namespace ksched::cel
