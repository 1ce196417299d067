#include "cel/checker.h"

#include <algorithm>
#include <map>
#include <utility>

#include "cel/regex.h"

namespace ksched::cel {
namespace {

// Type parameter substitutions, keyed by the parameter's name (cel-go keys by FormatCELType,
// which for a parameter is its name).
using Mapping = std::map<std::string, TypePtr, std::less<>>;

bool find_sub(const Mapping& m, const Type& t, TypePtr& out) {
  if (t.kind != TypeKind::TypeParam) return false;
  auto it = m.find(t.name);
  if (it == m.end()) return false;
  out = it->second;
  return true;
}

// Type.IsAssignableType (cel-go's default, without a checker mapping).
bool type_assignable_from(const Type& t, const Type& from) {
  if (&t == &from || t.kind == TypeKind::Dyn || t.kind == TypeKind::Any || t.kind == TypeKind::TypeParam) return true;
  if (t.kind != from.kind || t.name != from.name || t.params.size() != from.params.size()) return false;
  for (std::size_t i = 0; i < t.params.size(); ++i)
    if (!type_assignable_from(*t.params[i], *from.params[i])) return false;
  return true;
}

bool is_assignable_null(const Type& t) {
  switch (t.kind) {
    case TypeKind::Opaque: case TypeKind::Struct: case TypeKind::Any: case TypeKind::Duration: case TypeKind::Timestamp:
      return true;
    default:
      return type_assignable_from(t, *types::null());
  }
}

bool is_equal_or_less_specific(const Type& t1, const Type& t2) {
  if (is_dyn(t1) || t1.kind == TypeKind::TypeParam) return true;
  if (is_dyn(t2) || t2.kind == TypeKind::TypeParam) return false;
  if (t1.kind != t2.kind) return false;
  switch (t1.kind) {
    case TypeKind::Opaque:
      if (t1.name != t2.name || t1.params.size() != t2.params.size()) return false;
      for (std::size_t i = 0; i < t1.params.size(); ++i)
        if (!is_equal_or_less_specific(*t1.params[i], *t2.params[i])) return false;
      return true;
    case TypeKind::List:
      return is_equal_or_less_specific(*t1.params[0], *t2.params[0]);
    case TypeKind::Map:
      return is_equal_or_less_specific(*t1.params[0], *t2.params[0]) &&
             is_equal_or_less_specific(*t1.params[1], *t2.params[1]);
    case TypeKind::Type:
      return true;
    default:
      return exact_equal(t1, t2);
  }
}

const TypePtr& most_general(const TypePtr& t1, const TypePtr& t2) {
  return is_equal_or_less_specific(*t1, *t2) ? t1 : t2;
}

bool not_referenced_in(const Mapping& m, const Type& t, const Type& within) {
  if (exact_equal(t, within)) return false;
  switch (within.kind) {
    case TypeKind::TypeParam: {
      TypePtr sub;
      if (!find_sub(m, within, sub)) return true;
      return not_referenced_in(m, t, *sub);
    }
    case TypeKind::Opaque: case TypeKind::List: case TypeKind::Map: case TypeKind::Type:
      for (const auto& p : within.params)
        if (!not_referenced_in(m, t, *p)) return false;
      return true;
    default:
      return true;
  }
}

bool internal_is_assignable(Mapping& m, const TypePtr& t1, const TypePtr& t2);

bool internal_is_assignable_list(Mapping& m, const std::vector<TypePtr>& l1, const std::vector<TypePtr>& l2) {
  if (l1.size() != l2.size()) return false;
  for (std::size_t i = 0; i < l1.size(); ++i)
    if (!internal_is_assignable(m, l1[i], l2[i])) return false;
  return true;
}

// isValidTypeSubstitution: whether t2 (or its substitution) may stand for t1; has_sub tells
// whether t2 already had a substitution.
bool valid_substitution(Mapping& m, const TypePtr& t1, const TypePtr& t2, bool& has_sub) {
  has_sub = false;
  if (t1->kind == t2->kind && exact_equal(*t1, *t2)) {
    has_sub = true;
    return true;
  }
  TypePtr t2sub;
  if (find_sub(m, *t2, t2sub)) {
    has_sub = true;
    if (t1->kind == t2sub->kind && exact_equal(*t1, *t2sub)) return true;
    if (internal_is_assignable(m, t1, t2sub)) {
      TypePtr t2new = most_general(t1, t2sub);
      if (not_referenced_in(m, *t2, *t2new)) m[t2->name] = t2new;
      return true;
    }
    return false;
  }
  if (not_referenced_in(m, *t2, *t1)) {
    m[t2->name] = t1;
    return true;
  }
  return false;
}

bool internal_is_assignable(Mapping& m, const TypePtr& t1, const TypePtr& t2) {
  TypeKind k1 = t1->kind, k2 = t2->kind;
  if (k2 == TypeKind::TypeParam) {
    bool has_sub = false;
    if (valid_substitution(m, t1, t2, has_sub)) return true;
    if (has_sub) return false;
  }
  if (k1 == TypeKind::TypeParam) {
    bool has_sub = false;
    return valid_substitution(m, t2, t1, has_sub);
  }
  if (is_dyn_or_error(*t1) || is_dyn_or_error(*t2)) return true;
  if (k1 == TypeKind::Null) return is_assignable_null(*t2);
  if (k2 == TypeKind::Null) return is_assignable_null(*t1);
  switch (k1) {
    case TypeKind::Bool: case TypeKind::Bytes: case TypeKind::Double: case TypeKind::Int: case TypeKind::String:
    case TypeKind::Uint: case TypeKind::Any: case TypeKind::Duration: case TypeKind::Timestamp: case TypeKind::Struct:
      return type_assignable_from(*t2, *t1);
    case TypeKind::Type:
      return k2 == TypeKind::Type;
    case TypeKind::Opaque: case TypeKind::List: case TypeKind::Map:
      return k1 == k2 && t1->name == t2->name && internal_is_assignable_list(m, t1->params, t2->params);
    default:
      return false;
  }
}

TypePtr substitute(const Mapping& m, const TypePtr& t, bool param_to_dyn) {
  TypePtr sub;
  if (find_sub(m, *t, sub)) return substitute(m, sub, param_to_dyn);
  if (param_to_dyn && t->kind == TypeKind::TypeParam) return types::dyn();
  switch (t->kind) {
    case TypeKind::Opaque: {
      std::vector<TypePtr> ps;
      for (const auto& p : t->params) ps.push_back(substitute(m, p, param_to_dyn));
      return types::opaque(t->name, std::move(ps));
    }
    case TypeKind::List:
      return types::list(substitute(m, t->params[0], param_to_dyn));
    case TypeKind::Map:
      return types::map(substitute(m, t->params[0], param_to_dyn), substitute(m, t->params[1], param_to_dyn));
    case TypeKind::Type:
      if (!t->params.empty()) return types::type_of(substitute(m, t->params[0], param_to_dyn));
      return t;
    default:
      return t;
  }
}

TypePtr rename_params(const TypePtr& t, const std::map<std::string, TypePtr>& fresh) {
  if (t->kind == TypeKind::TypeParam) {
    auto it = fresh.find(t->name);
    return it == fresh.end() ? t : it->second;
  }
  if (t->params.empty()) return t;
  auto copy = std::make_shared<Type>(*t);
  for (auto& p : copy->params) p = rename_params(p, fresh);
  return copy;
}

std::string format_signature(const std::vector<TypePtr>& args, bool instance) {
  std::string out;
  std::size_t i = 0;
  if (instance) {
    out += format_cel_type(*args[0]);
    out += '.';
    i = 1;
  }
  out += '(';
  for (std::size_t k = i; k < args.size(); ++k) {
    if (k > i) out += ", ";
    out += format_cel_type(*args[k]);
  }
  out += ')';
  return out;
}

// ---------------------------------------------------------------------------------------------

class Checker {
 public:
  Checker(Ast ast, const CheckOptions& opts) : opts_(opts) {
    out_.ast = std::move(ast);
    out_.types.resize(out_.ast.nodes.size());
    out_.refs.resize(out_.ast.nodes.size());
  }

  CheckResult run() {
    check(out_.ast.root);
    for (auto& t : out_.types)
      if (t) t = substitute(mappings_, t, true);
    CheckResult r;
    if (issues_.empty()) validate();
    r.issues = std::move(issues_);
    r.checked = std::move(out_);
    return r;
  }

 private:
  Expr& node(int i) { return out_.ast.at(i); }
  const TypePtr& type_of(int i) const { return out_.types[static_cast<std::size_t>(i)]; }
  void set_type(int i, TypePtr t) { out_.types[static_cast<std::size_t>(i)] = std::move(t); }
  Reference& ref(int i) { return out_.refs[static_cast<std::size_t>(i)]; }
  void error(std::int32_t offset, std::string message) { issues_.push_back({offset, std::move(message)}); }

  bool is_assignable(const TypePtr& t1, const TypePtr& t2) {
    Mapping copy = mappings_;
    if (internal_is_assignable(copy, t1, t2)) {
      mappings_ = std::move(copy);
      return true;
    }
    return false;
  }
  bool is_assignable_list(const std::vector<TypePtr>& l1, const std::vector<TypePtr>& l2) {
    Mapping copy = mappings_;
    if (internal_is_assignable_list(copy, l1, l2)) {
      mappings_ = std::move(copy);
      return true;
    }
    return false;
  }
  TypePtr new_type_var() { return types::param("_var" + std::to_string(type_var_counter_++)); }

  // --- identifiers
  struct Ident {
    Reference::Kind kind;
    TypePtr type;
  };
  bool lookup_ident(const std::string& raw, Ident& out, std::string& resolved) {
    std::string name = raw;
    if (!name.empty() && name[0] == '.') name.erase(0, 1);
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      for (auto jt = it->rbegin(); jt != it->rend(); ++jt) {
        if (jt->first == name) {
          out = {Reference::Kind::Local, jt->second};
          resolved = name;
          return true;
        }
      }
    }
    if (name == "device") {
      out = {Reference::Kind::Variable, types::device()};
      resolved = name;
      return true;
    }
    if (TypePtr t = find_type_identifier(name)) {
      out = {Reference::Kind::TypeName, t};
      resolved = name;
      return true;
    }
    return false;
  }

  // `a.b.c` as a dotted name, when the select chain is made of identifiers only.
  bool qualified_name(int i, std::string& out) {
    const Expr& e = node(i);
    if (e.kind == ExprKind::Ident) {
      out = e.name;
      return true;
    }
    if (e.kind == ExprKind::Select && !e.test_only) {
      std::string prefix;
      if (!qualified_name(e.operand, prefix)) return false;
      out = prefix + "." + e.name;
      return true;
    }
    return false;
  }

  void check(int i) {
    if (i < 0) return;
    Expr& e = node(i);
    switch (e.kind) {
      case ExprKind::Literal:
        switch (e.literal.kind) {
          case Literal::Kind::Null: set_type(i, types::null()); break;
          case Literal::Kind::Bool: set_type(i, types::boolean()); break;
          case Literal::Kind::Int: set_type(i, types::int64()); break;
          case Literal::Kind::Uint: set_type(i, types::uint64()); break;
          case Literal::Kind::Double: set_type(i, types::dbl()); break;
          case Literal::Kind::String: set_type(i, types::string()); break;
          case Literal::Kind::Bytes: set_type(i, types::bytes()); break;
        }
        return;
      case ExprKind::Ident: check_ident(i); return;
      case ExprKind::Select: check_select(i); return;
      case ExprKind::Call: check_call(i); return;
      case ExprKind::List: check_list(i); return;
      case ExprKind::Map: check_map(i); return;
      case ExprKind::Struct: check_struct(i); return;
      case ExprKind::Comprehension: check_comprehension(i); return;
      case ExprKind::Unspecified:
        error(e.offset, "unexpected unspecified type: ");
        set_type(i, types::error());
        return;
    }
  }

  void check_ident(int i) {
    Ident id;
    std::string resolved;
    const std::string name = node(i).name;
    if (lookup_ident(name, id, resolved)) {
      set_type(i, id.type);
      ref(i).kind = id.kind;
      ref(i).name = resolved;
      node(i).name = resolved;
      return;
    }
    set_type(i, types::error());
    error(node(i).offset, "undeclared reference to '" + name + "' (in container '')");
  }

  void check_select(int i) {
    std::string qname;
    if (qualified_name(i, qname)) {
      Ident id;
      std::string resolved;
      if (lookup_ident(qname, id, resolved) && id.kind != Reference::Kind::Local) {
        // Rewritten into an identifier, as cel-go does.
        Expr& e = node(i);
        e.kind = ExprKind::Ident;
        e.name = resolved;
        e.operand = -1;
        set_type(i, id.type);
        ref(i).kind = id.kind;
        ref(i).name = resolved;
        return;
      }
    }
    const Expr e = node(i);
    TypePtr result = check_select_field(i, e.operand, e.name, false);
    if (e.test_only) result = types::boolean();
    set_type(i, substitute(mappings_, result, false));
  }

  TypePtr check_select_field(int i, int operand, const std::string& field, bool optional) {
    check(operand);
    TypePtr operand_type = substitute(mappings_, type_of(operand), false);
    bool is_opt = is_optional(*operand_type);
    TypePtr target = is_opt ? operand_type->params[0] : operand_type;
    TypePtr result = types::error();
    switch (target->kind) {
      case TypeKind::Map:
        result = target->params[1];
        break;
      case TypeKind::Struct:
        if (TypePtr ft = struct_field(*target, field)) {
          result = ft;
        } else {
          error(node(i).offset, "undefined field '" + field + "'");
        }
        break;
      case TypeKind::TypeParam:
        is_assignable(types::dyn(), target);
        result = types::dyn();
        break;
      default:
        if (!is_dyn_or_error(*target)) {
          error(node(i).offset, "type '" + format_cel_type(*target) + "' does not support field selection");
        }
        result = types::dyn();
        break;
    }
    if (is_opt || optional) return types::optional(result);
    return result;
  }

  TypePtr struct_field(const Type& t, const std::string& field) {
    if (t.name != "kubernetes.DRADevice") return nullptr;
    if (field == "driver") return types::string();
    if (field == "attributes") return types::map(types::string(), types::map(types::string(), types::any()));
    if (field == "capacity") return types::map(types::string(), types::map(types::string(), types::quantity()));
    if (field == "allowMultipleAllocations" && opts_.allow_multiple_allocations) return types::boolean();
    return nullptr;
  }

  void check_opt_select(int i) {
    const Expr e = node(i);
    const Expr& field = node(e.args[1]);
    if (field.kind != ExprKind::Literal || field.literal.kind != Literal::Kind::String) {
      error(field.offset, "unsupported optional field selection: <field>");
      set_type(i, types::error());
      return;
    }
    TypePtr result = check_select_field(i, e.args[0], field.literal.s, true);
    set_type(i, substitute(mappings_, result, false));
    set_type(e.args[1], types::string());
    ref(i).kind = Reference::Kind::Call;
    ref(i).name = "_?._";
    ref(i).function = find_function("_?._");
    if (ref(i).function) ref(i).overloads.push_back(&ref(i).function->overloads[0]);
  }

  void check_call(int i) {
    const Expr e = node(i);
    if (e.name == "_?._" && e.operand < 0) {
      check_opt_select(i);
      return;
    }
    for (int a : e.args) check(a);
    if (e.operand < 0) {
      resolve_named(i, e.name, -1, e.args);
      return;
    }
    std::string prefix;
    if (qualified_name(e.operand, prefix)) {
      std::string full = prefix + "." + e.name;
      // A namespaced function: sets.contains, strings.quote, lists.range, optional.of.
      if (find_function(full) || is_unsupported_function(full)) {
        ref(i).namespaced = true;
        resolve_named(i, full, -1, e.args);
        return;
      }
    }
    check(e.operand);
    resolve_named(i, e.name, e.operand, e.args);
  }

  void resolve_named(int i, const std::string& name, int target, const std::vector<int>& args) {
    const FunctionDecl* fn = find_function(name);
    if (!fn) {
      set_type(i, types::error());
      if (is_unsupported_function(name)) {
        error(node(i).offset, "function '" + name + "' is not supported by ksched's CEL implementation");
      } else {
        error(node(i).offset, "undeclared reference to '" + name + "' (in container '')");
      }
      return;
    }
    resolve_overload(i, *fn, target, args);
  }

  void resolve_overload(int i, const FunctionDecl& fn, int target, const std::vector<int>& args) {
    std::vector<TypePtr> arg_types;
    if (target >= 0) arg_types.push_back(type_of(target));
    for (int a : args) arg_types.push_back(type_of(a));
    TypePtr result;
    Reference r;
    r.kind = Reference::Kind::Call;
    r.name = fn.name;
    r.function = &fn;
    r.namespaced = ref(i).namespaced;
    for (const OverloadDecl& o : fn.overloads) {
      if ((target < 0 && o.member) || (target >= 0 && !o.member)) continue;
      if (fn.name == "_&&_" || fn.name == "_||_") {
        r.overloads.push_back(&o);
        bool bad = false;
        for (std::size_t k = 0; k < arg_types.size(); ++k) {
          if (!is_assignable(arg_types[k], types::boolean())) {
            error(node(args[k]).offset, "expected type 'bool' but found '" + format_cel_type(*arg_types[k]) + "'");
            bad = true;
          }
        }
        if (bad) {
          set_type(i, types::error());
          return;
        }
        set_type(i, types::boolean());
        ref(i) = std::move(r);
        return;
      }
      std::vector<TypePtr> params = o.args;
      TypePtr res = o.result;
      if (!o.type_params.empty()) {
        std::map<std::string, TypePtr> fresh;
        for (const auto& p : o.type_params) fresh[p] = new_type_var();
        for (auto& p : params) p = rename_params(p, fresh);
        res = rename_params(res, fresh);
      }
      if (params.size() != arg_types.size()) continue;
      if (!is_assignable_list(arg_types, params)) continue;
      r.overloads.push_back(&o);
      TypePtr fn_result = substitute(mappings_, res, false);
      if (!result) {
        result = fn_result;
      } else if (!is_dyn(*result) && !exact_equal(*fn_result, *result)) {
        result = types::dyn();
      }
    }
    if (!result) {
      for (auto& t : arg_types) t = substitute(mappings_, t, true);
      error(node(i).offset, "found no matching overload for '" + fn.name + "' applied to '" +
                                format_signature(arg_types, target >= 0) + "'");
      set_type(i, types::error());
      return;
    }
    set_type(i, result);
    ref(i) = std::move(r);
  }

  TypePtr join_types(const TypePtr& previous, const TypePtr& current) {
    if (!previous) return current;
    if (is_assignable(previous, current)) return most_general(previous, current);
    return types::dyn();  // mixed literals are typed dyn; the homogeneity validator reports them
  }

  void check_list(int i) {
    const Expr e = node(i);
    TypePtr elems;
    for (std::size_t k = 0; k < e.args.size(); ++k) {
      int el = e.args[k];
      check(el);
      TypePtr t = type_of(el);
      if (std::find(e.optional_indices.begin(), e.optional_indices.end(), static_cast<int>(k)) !=
          e.optional_indices.end()) {
        if (is_optional(*t)) {
          t = t->params[0];
        } else if (!is_dyn(*t)) {
          error(node(el).offset, "expected type '" + format_cel_type(*types::optional(t)) + "' but found '" +
                                     format_cel_type(*t) + "'");
        }
      }
      elems = join_types(elems, t);
    }
    if (!elems) elems = new_type_var();
    set_type(i, types::list(elems));
  }

  void check_map(int i) {
    const Expr e = node(i);
    TypePtr key_type, value_type;
    for (const auto& entry : e.entries) {
      check(entry.key);
      key_type = join_types(key_type, type_of(entry.key));
      check(entry.value);
      TypePtr vt = type_of(entry.value);
      if (entry.optional) {
        if (is_optional(*vt)) {
          vt = vt->params[0];
        } else if (!is_dyn(*vt)) {
          error(node(entry.value).offset, "expected type '" + format_cel_type(*types::optional(vt)) +
                                              "' but found '" + format_cel_type(*vt) + "'");
        }
      }
      value_type = join_types(value_type, vt);
    }
    if (!key_type) {
      key_type = new_type_var();
      value_type = new_type_var();
    }
    set_type(i, types::map(key_type, value_type));
  }

  void check_struct(int i) {
    // No message types are declared in the DRA environment.
    const Expr e = node(i);
    std::string name = e.name;
    if (!name.empty() && name[0] == '.') name.erase(0, 1);
    Ident id;
    std::string resolved;
    if (!lookup_ident(name, id, resolved)) {
      error(e.offset, "undeclared reference to '" + e.name + "' (in container '')");
    } else if (id.type->kind != TypeKind::Type) {
      error(e.offset, "'" + format_cel_type(*id.type) + "' is not a type");
    } else {
      error(e.offset, "'" + format_cel_type(*id.type->params[0]) + "' is not a message type");
    }
    set_type(i, types::error());
    for (const auto& f : e.fields) check(f.value);
  }

  void check_comprehension(int i) {
    const Expr e = node(i);
    check(e.iter_range);
    check(e.accu_init);
    TypePtr range = substitute(mappings_, type_of(e.iter_range), false);
    TypePtr accu = type_of(e.accu_init);
    scopes_.push_back({{e.accu_var, accu}});
    TypePtr var;
    switch (range->kind) {
      case TypeKind::List:
        var = range->params[0];
        break;
      case TypeKind::Map:
        var = range->params[0];
        break;
      case TypeKind::Dyn: case TypeKind::Error: case TypeKind::TypeParam:
        is_assignable(types::dyn(), range);
        var = types::dyn();
        break;
      default:
        error(node(e.iter_range).offset, "expression of type '" + format_cel_type(*range) +
                                             "' cannot be range of a comprehension (must be list, map, or dynamic)");
        var = types::error();
        break;
    }
    scopes_.push_back({{e.iter_var, var}});
    check(e.loop_condition);
    assert_type(e.loop_condition, types::boolean());
    check(e.loop_step);
    assert_type(e.loop_step, accu);
    scopes_.pop_back();
    check(e.result);
    scopes_.pop_back();
    set_type(i, substitute(mappings_, type_of(e.result), false));
  }

  void assert_type(int i, const TypePtr& t) {
    if (!is_assignable(t, type_of(i))) {
      error(node(i).offset, "expected type '" + format_cel_type(*t) + "' but found '" + format_cel_type(*type_of(i)) + "'");
    }
  }

  // --- the Kubernetes environment's AST validators
  void validate() {
    std::vector<int> order;
    std::vector<int> stack{out_.ast.root};
    std::vector<char> seen(out_.ast.nodes.size(), 0);
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      if (n < 0 || seen[static_cast<std::size_t>(n)]) continue;
      seen[static_cast<std::size_t>(n)] = 1;
      order.push_back(n);
      const Expr& e = node(n);
      auto push = [&](int c) {
        if (c >= 0) stack.push_back(c);
      };
      push(e.operand);
      for (int a : e.args) push(a);
      for (const auto& m : e.entries) {
        push(m.key);
        push(m.value);
      }
      for (const auto& f : e.fields) push(f.value);
      push(e.iter_range);
      push(e.accu_init);
      push(e.loop_condition);
      push(e.loop_step);
      push(e.result);
    }
    // Homogeneous aggregate literals.
    for (int n : order) {
      const Expr& e = node(n);
      if (e.kind == ExprKind::List) {
        TypePtr elem;
        for (std::size_t k = 0; k < e.args.size(); ++k) {
          TypePtr t = type_of(e.args[k]);
          bool opt = std::find(e.optional_indices.begin(), e.optional_indices.end(), static_cast<int>(k)) !=
                     e.optional_indices.end();
          if (opt && !t->params.empty()) t = t->params[0];
          if (!elem) {
            elem = t;
            continue;
          }
          if (!equivalent(*elem, *t)) {
            error(node(e.args[k]).offset, "expected type '" + format_cel_type(*elem) + "' but found '" +
                                              format_cel_type(*t) + "'");
            break;
          }
        }
      } else if (e.kind == ExprKind::Map) {
        TypePtr kt0, vt0;
        for (const auto& entry : e.entries) {
          TypePtr kt = type_of(entry.key), vt = type_of(entry.value);
          if (entry.optional && !vt->params.empty()) vt = vt->params[0];
          if (!kt0 && !vt0) {
            kt0 = kt;
            vt0 = vt;
            continue;
          }
          if (!equivalent(*kt0, *kt)) {
            error(node(entry.key).offset, "expected type '" + format_cel_type(*kt0) + "' but found '" +
                                              format_cel_type(*kt) + "'");
          }
          if (!equivalent(*vt0, *vt)) {
            error(node(entry.value).offset, "expected type '" + format_cel_type(*vt0) + "' but found '" +
                                                format_cel_type(*vt) + "'");
          }
        }
      }
    }
    // Regular expression literals given to matches() (its first argument, as cel-go's validator).
    for (int n : order) {
      const Expr& e = node(n);
      if (e.kind != ExprKind::Call || e.name != "matches" || e.args.empty()) continue;
      const Expr& lit = node(e.args[0]);
      if (lit.kind != ExprKind::Literal || lit.literal.kind != Literal::Kind::String) continue;
      auto re = Regex::compile(lit.literal.s);
      if (!re.ok()) {
        if (re.error().unsupported) {
          error(lit.offset, re.error().message);
        } else {
          error(lit.offset, "invalid matches argument");
        }
      }
    }
  }

  CheckOptions opts_;
  CheckedAst out_;
  Mapping mappings_;
  int type_var_counter_ = 0;
  std::vector<std::vector<std::pair<std::string, TypePtr>>> scopes_;
  std::vector<Issue> issues_;
};

}  // namespace

CheckResult check(Ast ast, const CheckOptions& options) { return Checker(std::move(ast), options).run(); }

}  // namespace ksched::cel
