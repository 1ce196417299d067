#include "apiserver/auth/rbac_authorizer.h"

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "apiserver/resources.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

bool has(const std::vector<std::string>& set, std::string_view s) {
  for (const auto& x : set)
    if (x == s) return true;
  return false;
}

bool has_all(const std::vector<std::string>& set, const std::vector<std::string>& want) {
  for (const auto& w : want)
    if (!has(set, w)) return false;
  return true;
}

// ResourceMatches: "*", the combined "resource/subresource", or "*/subresource".
bool resource_matches(const std::vector<std::string>& rules, std::string_view res, std::string_view sub) {
  for (const auto& r : rules) {
    std::string_view rv = r;
    if (rv == "*") return true;
    if (sub.empty()) {
      if (rv == res) return true;
      continue;
    }
    if (rv.size() == res.size() + 1 + sub.size() && rv.starts_with(res) && rv[res.size()] == '/' &&
        rv.ends_with(sub))
      return true;
    if (rv.size() == sub.size() + 2 && rv.starts_with("*/") && rv.ends_with(sub)) return true;
  }
  return false;
}

bool names_match(const std::vector<std::string>& names, std::string_view name) {
  return names.empty() || has(names, name);
}

bool url_matches(const std::vector<std::string>& urls, std::string_view path) {
  for (const auto& u : urls) {
    std::string_view uv = u;
    if (uv == "*" || uv == path) return true;
    if (!uv.empty() && uv.back() == '*') {
      while (!uv.empty() && uv.back() == '*') uv.remove_suffix(1);  // strings.TrimRight
      if (path.starts_with(uv)) return true;
    }
  }
  return false;
}

// The verbs a rule grants as bits; the request's verb is looked up once.
constexpr std::string_view kKnownVerbs[] = {
    "get",   "list", "watch",    "create",      "update",  "patch", "delete", "deletecollection",
    "proxy", "bind", "escalate", "impersonate", "approve", "sign",  "use",    "attest"};
int verb_bit(std::string_view v) {
  for (int i = 0; i < static_cast<int>(std::size(kKnownVerbs)); ++i)
    if (kKnownVerbs[i] == v) return i;
  return -1;
}

std::vector<std::string> strings_of(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  auto* v = o.if_contains(key);
  if (!v || !v->is_array()) return out;
  for (const auto& e : v->get_array())
    if (e.is_string()) out.emplace_back(e.get_string());
  return out;
}

std::string string_of(const json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

struct CompiledRule {
  const PolicyRule* rule = nullptr;
  std::uint32_t verb_bits = 0;
  bool all_verbs = false;
  bool unknown_verbs = false;  // verbs outside kKnownVerbs: compared as strings
  bool all_groups = false;
  bool all_resources = false;

  bool allows(const Attributes& a, int vbit) const {
    if (!all_verbs) {
      if (vbit >= 0) {
        if (!(verb_bits & (1u << vbit))) return false;
      } else if (!unknown_verbs || !has(rule->verbs, a.verb)) {
        return false;
      }
    }
    if (!a.resource_request) return url_matches(rule->non_resource_urls, a.path);
    if (!all_groups && !has(rule->api_groups, a.group)) return false;
    if (!all_resources && !resource_matches(rule->resources, a.resource, a.subresource)) return false;
    return names_match(rule->resource_names, a.name);
  }
};

struct CompiledRole {
  std::vector<PolicyRule> rules;
  std::vector<CompiledRule> compiled;

  explicit CompiledRole(std::vector<PolicyRule> r) : rules(std::move(r)) {
    compiled.reserve(rules.size());
    for (const auto& rule : rules) {
      CompiledRule c;
      c.rule = &rule;
      for (const auto& v : rule.verbs) {
        if (v == "*") c.all_verbs = true;
        int b = verb_bit(v);
        if (b >= 0)
          c.verb_bits |= 1u << b;
        else
          c.unknown_verbs = true;
      }
      c.all_groups = has(rule.api_groups, "*");
      c.all_resources = has(rule.resources, "*");
      compiled.push_back(c);
    }
  }
};

struct SubjectRef {
  std::string kind, name, ns;
};

struct BindingInfo {
  bool cluster = true;
  std::string name, ns;  // ns: the RoleBinding's namespace
  std::string role_kind, role_name;
  std::vector<SubjectRef> subjects;
  const CompiledRole* role = nullptr;  // null: the reference does not resolve (error says why)
  std::string error;

  // The source upstream's visitor prints: `ClusterRoleBinding "b" of ClusterRole "r" to User "u"`.
  std::string describe(std::size_t subject) const {
    const SubjectRef& s = subjects[subject];
    std::string who;
    if (s.kind == "ServiceAccount")
      who = s.kind + " " + go_quote(s.name + "/" + (s.ns.empty() ? ns : s.ns));
    else
      who = s.kind + " " + go_quote(s.name);
    if (cluster)
      return "ClusterRoleBinding " + go_quote(name) + " of " + role_kind + " " + go_quote(role_name) +
             " to " + who;
    return "RoleBinding " + go_quote(name + "/" + ns) + " of " + role_kind + " " + go_quote(role_name) +
           " to " + who;
  }
};

struct Grant {
  const BindingInfo* binding = nullptr;
  std::uint32_t order = 0;  // the visiting order: cluster bindings by name, then the namespace's
  std::uint32_t subject = 0;
};

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using GrantMap = std::unordered_map<std::string, std::vector<Grant>, StringHash, std::equal_to<>>;

struct Scope {
  GrantMap users, groups;
};

const std::vector<Grant>* find(const GrantMap& m, std::string_view key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

// ------------------------------------------------------------------------------------ the index

class RbacIndex {
 public:
  RbacIndex(const std::vector<ObjPtr>& cluster_roles, const std::vector<ObjPtr>& roles,
            const std::vector<ObjPtr>& cluster_bindings, const std::vector<ObjPtr>& role_bindings);

  // Calls fn(grant) for each grant that applies to the user in the namespace until fn returns false.
  template <class Fn>
  void visit(const UserInfo& user, std::string_view ns, Fn&& fn) const {
    auto each = [&](const std::vector<Grant>* gs) {
      if (!gs) return true;
      for (const auto& g : *gs)
        if (!fn(g)) return false;
      return true;
    };
    auto scope = [&](const Scope& s) {
      if (!each(find(s.users, user.name))) return false;
      for (const auto& grp : user.groups)
        if (!each(find(s.groups, grp))) return false;
      return true;
    };
    if (!scope(cluster_)) return;
    if (ns.empty()) return;
    auto it = namespaces_.find(ns);
    if (it != namespaces_.end()) scope(it->second);
  }

  bool allows(const Attributes& a) const {
    const int vbit = verb_bit(a.verb);
    bool allowed = false;
    visit(*a.user, a.ns, [&](const Grant& g) {
      if (!g.binding->role) return true;
      for (const auto& r : g.binding->role->compiled) {
        if (r.allows(a, vbit)) {
          allowed = true;
          return false;
        }
      }
      return true;
    });
    return allowed;
  }

  AuthorizationResult authorize(const Attributes& a) const {
    const int vbit = verb_bit(a.verb);
    const Grant* best = nullptr;
    std::vector<const Grant*> failed;
    visit(*a.user, a.ns, [&](const Grant& g) {
      if (!g.binding->role) {
        failed.push_back(&g);
        return true;
      }
      if (best && std::pair(best->order, best->subject) <= std::pair(g.order, g.subject)) return true;
      for (const auto& r : g.binding->role->compiled) {
        if (r.allows(a, vbit)) {
          best = &g;
          break;
        }
      }
      return true;
    });
    if (best) return {true, "RBAC: allowed by " + best->binding->describe(best->subject)};
    auto errs = errors_of(failed);
    return {false, errs.empty() ? std::string() : "RBAC: " + aggregate_errors(errs)};
  }

  UserRules rules_for(const UserInfo& user, std::string_view ns) const {
    std::map<std::uint32_t, const BindingInfo*> bindings;  // each applicable binding once, in visiting order
    visit(user, ns, [&](const Grant& g) {
      bindings.emplace(g.order, g.binding);
      return true;
    });
    UserRules out;
    for (const auto& [order, b] : bindings) {
      if (!b->role) {
        out.errors.push_back(b->error);
        continue;
      }
      for (const auto& r : b->role->rules) out.rules.push_back(&r);
    }
    return out;
  }

  const CompiledRole* cluster_role(std::string_view name) const {
    auto it = cluster_roles_.find(name);
    return it == cluster_roles_.end() ? nullptr : it->second;
  }
  const CompiledRole* role(std::string_view ns, std::string_view name) const {
    auto it = roles_.find(std::string(ns) + "/" + std::string(name));
    return it == roles_.end() ? nullptr : it->second;
  }

 private:
  static std::vector<std::string> errors_of(std::vector<const Grant*>& failed) {
    std::sort(failed.begin(), failed.end(),
              [](const Grant* x, const Grant* y) { return x->order < y->order; });
    std::vector<std::string> errs;
    std::uint32_t last = UINT32_MAX;
    for (const Grant* g : failed) {
      if (g->order == last) continue;  // a binding is visited once, whichever subject matched
      last = g->order;
      errs.push_back(g->binding->error);
    }
    return errs;
  }

  const CompiledRole* add_role(const json::object& o) {
    auto* rules = o.if_contains("rules");
    roles_storage_.emplace_back(policy_rules_of(rules));
    return &roles_storage_.back();
  }

  void add_binding(BindingInfo b, std::uint32_t order, Scope& scope) {
    bindings_.push_back(std::move(b));
    const BindingInfo& info = bindings_.back();
    for (std::size_t i = 0; i < info.subjects.size(); ++i) {
      const SubjectRef& s = info.subjects[i];
      Grant g{&info, order, static_cast<std::uint32_t>(i)};
      if (s.kind == "User") {
        scope.users[s.name].push_back(g);
      } else if (s.kind == "Group") {
        scope.groups[s.name].push_back(g);
      } else if (s.kind == "ServiceAccount") {
        // A RoleBinding's ServiceAccount without a namespace is one of the binding's namespace;
        // a ClusterRoleBinding's never applies.
        std::string sa_ns = s.ns.empty() ? info.ns : s.ns;
        if (sa_ns.empty()) continue;
        scope.users["system:serviceaccount:" + sa_ns + ":" + s.name].push_back(g);
      }
    }
  }

  BindingInfo binding_of(const json::object& o, bool cluster, std::string ns) {
    BindingInfo b;
    b.cluster = cluster;
    b.ns = std::move(ns);
    if (auto* m = o.if_contains("metadata"); m && m->is_object()) b.name = string_of(m->get_object(), "name");
    if (auto* ref = o.if_contains("roleRef"); ref && ref->is_object()) {
      b.role_kind = string_of(ref->get_object(), "kind");
      b.role_name = string_of(ref->get_object(), "name");
    }
    if (auto* subs = o.if_contains("subjects"); subs && subs->is_array()) {
      for (const auto& s : subs->get_array()) {
        if (!s.is_object()) continue;
        const auto& so = s.get_object();
        b.subjects.push_back({string_of(so, "kind"), string_of(so, "name"), string_of(so, "namespace")});
      }
    }
    // GetRoleReferenceRules with the listers' NotFound errors.
    if (b.role_kind == "ClusterRole") {
      b.role = cluster_role(b.role_name);
      if (!b.role) b.error = "clusterrole.rbac.authorization.k8s.io " + go_quote(b.role_name) + " not found";
    } else if (b.role_kind == "Role") {
      b.role = role(b.ns, b.role_name);
      if (!b.role) b.error = "role.rbac.authorization.k8s.io " + go_quote(b.role_name) + " not found";
    } else {
      b.error = "unsupported role reference kind: " + go_quote(b.role_kind);
    }
    return b;
  }

  std::deque<CompiledRole> roles_storage_;
  std::unordered_map<std::string, const CompiledRole*, StringHash, std::equal_to<>> cluster_roles_, roles_;
  std::deque<BindingInfo> bindings_;
  Scope cluster_;
  std::unordered_map<std::string, Scope, StringHash, std::equal_to<>> namespaces_;
};

RbacIndex::RbacIndex(const std::vector<ObjPtr>& cluster_roles, const std::vector<ObjPtr>& roles,
                     const std::vector<ObjPtr>& cluster_bindings, const std::vector<ObjPtr>& role_bindings) {
  auto parse = [](const ObjPtr& o) -> json::object {
    json::error_code ec;
    json::value v = json::parse(o->json, ec);
    if (ec || !v.is_object()) return {};
    return std::move(v.get_object());
  };
  for (const auto& o : cluster_roles) cluster_roles_[o->name] = add_role(parse(o));
  for (const auto& o : roles) roles_[o->ns + "/" + o->name] = add_role(parse(o));
  // Store order is key order: cluster bindings by name, role bindings by namespace then name.
  std::uint32_t order = 0;
  for (const auto& o : cluster_bindings) add_binding(binding_of(parse(o), true, ""), order++, cluster_);
  for (const auto& o : role_bindings)
    add_binding(binding_of(parse(o), false, o->ns), order++, namespaces_[o->ns]);
}

// ------------------------------------------------------------------------------------ rules

// utilerrors.NewAggregate(errs).Error(): one message alone, several de-duplicated in brackets.
std::string aggregate_errors(const std::vector<std::string>& errs) {
  if (errs.empty()) return {};
  if (errs.size() == 1) return errs[0];
  std::vector<std::string> seen;
  for (const auto& e : errs)
    if (!has(seen, e)) seen.push_back(e);
  if (seen.size() == 1) return seen[0];
  std::string out = "[";
  for (std::size_t i = 0; i < seen.size(); ++i) out += (i ? ", " : "") + seen[i];
  return out + "]";
}

std::vector<PolicyRule> policy_rules_of(const json::value* rules) {
  std::vector<PolicyRule> out;
  if (!rules || !rules->is_array()) return out;
  for (const auto& r : rules->get_array()) {
    if (!r.is_object()) continue;
    const auto& o = r.get_object();
    out.push_back(PolicyRule{strings_of(o, "verbs"), strings_of(o, "apiGroups"), strings_of(o, "resources"),
                             strings_of(o, "resourceNames"), strings_of(o, "nonResourceURLs")});
  }
  return out;
}

bool rule_allows(const Attributes& a, const PolicyRule& rule) {
  if (!has(rule.verbs, "*") && !has(rule.verbs, a.verb)) return false;
  if (!a.resource_request) return url_matches(rule.non_resource_urls, a.path);
  if (!has(rule.api_groups, "*") && !has(rule.api_groups, a.group)) return false;
  if (!resource_matches(rule.resources, a.resource, a.subresource)) return false;
  return names_match(rule.resource_names, a.name);
}

namespace {

bool resource_covers_all(const std::vector<std::string>& owner, const std::vector<std::string>& want) {
  if (has(owner, "*") || has_all(owner, want)) return true;
  for (const auto& path : want) {
    if (has(owner, path)) continue;
    auto slash = path.find('/');
    if (slash == std::string::npos) return false;
    if (!has(owner, "*/" + path.substr(slash + 1))) return false;
  }
  return true;
}

bool url_covers(std::string_view owner, std::string_view sub) {
  if (owner == sub) return true;
  if (owner.empty() || owner.back() != '*') return false;
  while (!owner.empty() && owner.back() == '*') owner.remove_suffix(1);
  return sub.starts_with(owner);
}

bool urls_cover_all(const std::vector<std::string>& owner, const std::vector<std::string>& want) {
  for (const auto& p : want) {
    bool covered = false;
    for (const auto& o : owner) covered = covered || url_covers(o, p);
    if (!covered) return false;
  }
  return true;
}

bool rule_covers(const PolicyRule& owner, const PolicyRule& sub) {
  bool verbs = has(owner.verbs, "*") || has_all(owner.verbs, sub.verbs);
  bool groups = has(owner.api_groups, "*") || has_all(owner.api_groups, sub.api_groups);
  bool resources = resource_covers_all(owner.resources, sub.resources);
  bool urls = urls_cover_all(owner.non_resource_urls, sub.non_resource_urls);
  bool names = sub.resource_names.empty()
                   ? owner.resource_names.empty()
                   : owner.resource_names.empty() || has_all(owner.resource_names, sub.resource_names);
  return verbs && groups && resources && names && urls;
}

// BreakdownRule: one verb, one group, one resource and at most one name each.
void breakdown(const PolicyRule& r, std::vector<PolicyRule>& out) {
  for (const auto& g : r.api_groups)
    for (const auto& res : r.resources)
      for (const auto& v : r.verbs) {
        if (r.resource_names.empty()) {
          out.push_back(PolicyRule{{v}, {g}, {res}, {}, {}});
        } else {
          for (const auto& n : r.resource_names) out.push_back(PolicyRule{{v}, {g}, {res}, {n}, {}});
        }
      }
  for (const auto& u : r.non_resource_urls)
    for (const auto& v : r.verbs) out.push_back(PolicyRule{{v}, {}, {}, {}, {u}});
}

std::string compact_string(const PolicyRule& r) {
  std::vector<std::string> parts;
  if (!r.api_groups.empty()) parts.push_back("APIGroups:" + go_quote_list(r.api_groups));
  if (!r.resources.empty()) parts.push_back("Resources:" + go_quote_list(r.resources));
  if (!r.non_resource_urls.empty()) parts.push_back("NonResourceURLs:" + go_quote_list(r.non_resource_urls));
  if (!r.resource_names.empty()) parts.push_back("ResourceNames:" + go_quote_list(r.resource_names));
  if (!r.verbs.empty()) parts.push_back("Verbs:" + go_quote_list(r.verbs));
  std::string out = "{";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + "}";
}

}  // namespace

bool rules_cover(const std::vector<const PolicyRule*>& owner, const std::vector<PolicyRule>& servant,
                 std::vector<PolicyRule>* missing) {
  std::vector<PolicyRule> subs;
  for (const auto& r : servant) breakdown(r, subs);
  bool all = true;
  for (auto& s : subs) {
    bool covered = false;
    for (const PolicyRule* o : owner)
      if (rule_covers(*o, s)) {
        covered = true;
        break;
      }
    if (covered) continue;
    all = false;
    if (missing) missing->push_back(std::move(s));
  }
  return all;
}

std::vector<std::string> describe_missing_rules(const std::vector<PolicyRule>& missing) {
  // CompactRules: rules of one group and one resource (and at most one name) that differ only in
  // verbs are merged; the rest stay as they are.
  std::vector<PolicyRule> compacted;
  std::map<std::tuple<std::string, std::string, std::string, bool>, std::size_t> simple;
  for (const auto& r : missing) {
    bool is_simple = r.resource_names.size() <= 1 && r.non_resource_urls.empty() &&
                     r.api_groups.size() == 1 && r.resources.size() == 1;
    if (!is_simple) {
      compacted.push_back(r);
      continue;
    }
    auto key = std::tuple(r.api_groups[0], r.resources[0],
                          r.resource_names.empty() ? "" : r.resource_names[0], !r.resource_names.empty());
    auto it = simple.find(key);
    if (it == simple.end()) {
      simple.emplace(key, compacted.size());
      compacted.push_back(r);
      continue;
    }
    auto& verbs = compacted[it->second].verbs;
    for (const auto& v : r.verbs)
      if (!has(verbs, v)) verbs.push_back(v);
  }
  std::set<std::string> out;
  for (const auto& r : compacted) out.insert(compact_string(r));
  return {out.begin(), out.end()};
}

// ------------------------------------------------------------------------------------ authorizer

namespace {
std::atomic<std::uint64_t> next_instance{1};
}

RbacAuthorizer::RbacAuthorizer(const Store& store) : store_(store), instance_(next_instance.fetch_add(1)) {
  const char* plurals[4] = {"clusterrolebindings", "rolebindings", "clusterroles", "roles"};
  for (int i = 0; i < 4; ++i) ids_[i] = find_resource("rbac.authorization.k8s.io", "v1", plurals[i])->id;
}

RbacAuthorizer::~RbacAuthorizer() = default;

RbacAuthorizer::Generation RbacAuthorizer::generation() const {
  Generation g;
  for (int i = 0; i < 4; ++i) g.v[i] = store_.resource_revision(ids_[i]);
  return g;
}

std::shared_ptr<const RbacIndex> RbacAuthorizer::shared() const {
  // The generation is read before the objects: an index built from newer objects than its
  // generation says is rebuilt once more, never kept when older.
  Generation g = generation();
  std::lock_guard l(mu_);
  if (!latest_ || !(latest_gen_ == g)) {
    latest_ = std::make_shared<const RbacIndex>(store_.current(ids_[2]), store_.current(ids_[3]),
                                                store_.current(ids_[0]), store_.current(ids_[1]));
    latest_gen_ = g;
  }
  return latest_;
}

const RbacIndex& RbacAuthorizer::current() const {
  struct Cached {
    std::uint64_t owner = 0;
    Generation gen;
    std::shared_ptr<const RbacIndex> index;
  };
  thread_local Cached cache;
  Generation g = generation();
  if (cache.owner != instance_ || !(cache.gen == g) || !cache.index) {
    cache.index = shared();
    cache.owner = instance_;
    cache.gen = g;
  }
  return *cache.index;
}

bool RbacAuthorizer::allows(const Attributes& a) const { return current().allows(a); }

AuthorizationResult RbacAuthorizer::authorize(const Attributes& a) const { return shared()->authorize(a); }

UserRules RbacAuthorizer::rules_for(const UserInfo& user, std::string_view ns) const {
  auto idx = shared();
  UserRules r = idx->rules_for(user, ns);
  r.keep = std::move(idx);
  return r;
}

util::Result<std::vector<PolicyRule>, ApiError> RbacAuthorizer::role_reference_rules(
    std::string_view kind, std::string_view name, std::string_view binding_ns) const {
  auto idx = shared();
  const CompiledRole* role = nullptr;
  std::string plural;
  if (kind == "ClusterRole") {
    role = idx->cluster_role(name);
    plural = "clusterroles";
  } else if (kind == "Role") {
    role = idx->role(binding_ns, name);
    plural = "roles";
  } else {
    return ApiError{500, "InternalError",
                    "Internal error occurred: unsupported role reference kind: " + go_quote(kind)};
  }
  if (role) return role->rules;
  ApiError e{404, "NotFound", plural + ".rbac.authorization.k8s.io " + go_quote(name) + " not found"};
  e.name = std::string(name);
  e.group = "rbac.authorization.k8s.io";
  e.kind = plural;
  return e;
}

}  // namespace ksched::apiserver
