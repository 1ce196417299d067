#include "apiserver/registry/scheduling/validation.h"

#include <boost/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "api/scheduling.h"
#include "apiserver/registry/resource/validation.h"
#include "util/go_format.h"

namespace ksched::apiserver::registry::scheduling {

namespace json = boost::json;

namespace {

// A value as upstream's message shows its internal Go struct: JSON with the Go field names, every
// field present (nil pointers as null), as the project renders such values (validation_pod.cpp).
json::value go_controller_ref(const json::object& ref) {
  return json::object{{"APIGroup", rules::sv(ref, "apiGroup")},
                      {"Kind", rules::sv(ref, "kind")},
                      {"Name", rules::sv(ref, "name")}};
}

json::value go_pod_group(const json::value& v) {
  static const json::object empty;
  const json::object& g = v.is_object() ? v.get_object() : empty;
  const json::object* policy = rules::obj(g, "policy");
  const json::object* basic = policy ? rules::obj(*policy, "basic") : nullptr;
  const json::object* gang = policy ? rules::obj(*policy, "gang") : nullptr;
  json::value go_gang = nullptr;
  if (gang) go_gang = json::object{{"MinCount", rules::int_of(*gang, "minCount").value_or(0)}};
  return json::object{
      {"Name", rules::sv(g, "name")},
      {"Policy", json::object{{"Basic", basic ? json::value(json::object()) : json::value(nullptr)},
                              {"Gang", std::move(go_gang)}}}};
}

// path.IsValidPathSegmentName: a kind or a name in a URL path.
void path_segment_name(Errors& e, std::string_view v, const Path& path) {
  if (v == "." || v == "..") {
    e.invalid_str(path, v, "may not be '" + std::string(v) + "'");
    return;
  }
  if (v.find('/') != std::string_view::npos) e.invalid_str(path, v, "may not contain '/'");
  if (v.find('%') != std::string_view::npos) e.invalid_str(path, v, "may not contain '%'");
}

// validateControllerRef.
void controller_ref(Errors& e, const json::object& ref, const Path& path) {
  std::string_view group = rules::sv(ref, "apiGroup");
  if (!group.empty()) rules::each(e, rules::dns1123_subdomain(group), path.child("apiGroup"), group);
  for (const char* member : {"kind", "name"}) {
    std::string_view v = rules::sv(ref, member);
    if (v.empty())
      e.required(path.child(member));
    else
      path_segment_name(e, v, path.child(member));
  }
}

// validatePodGroupPolicy: exactly one of basic and gang, a gang's minCount above 0.
void pod_group_policy(Errors& e, const json::object& policy, const Path& path) {
  bool basic = rules::obj(policy, "basic") != nullptr, gang = rules::obj(policy, "gang") != nullptr;
  if (!basic && !gang) {
    e.required(path, "exactly one of `basic`, `gang` is required");
  } else if (basic && gang) {
    e.invalid_str(path, "{`basic`, `gang`}", "exactly one of `basic`, `gang` is required, but multiple fields are set");
  } else if (gang) {
    std::int64_t min_count = rules::int_of(*rules::obj(policy, "gang"), "minCount").value_or(0);
    const Path gang_path = path.child("gang");
    if (min_count <= 0) e.invalid_int(gang_path.child("minCount"), min_count, "must be greater than zero");
  }
}

}  // namespace

void workload_spec(Errors& e, const json::object& spec, const Path& path) {
  if (const json::object* ref = rules::obj(spec, "controllerRef")) controller_ref(e, *ref, path.child("controllerRef"));
  const json::array* groups = rules::arr(spec, "podGroups");
  Path p = path.child("podGroups");
  std::size_t n = groups ? groups->size() : 0;
  if (n == 0) {
    e.required(p, "must have at least one item");
    return;
  }
  if (n > api::schedulingv1alpha1::kWorkloadMaxPodGroups) {
    e.causes.push_back(Cause{"FieldValueTooMany",
                             "Too many: " + std::to_string(n) + ": must have at most " +
                                 std::to_string(api::schedulingv1alpha1::kWorkloadMaxPodGroups) + " items",
                             p.str()});
    return;
  }
  std::set<std::string, std::less<>> seen;
  static const json::object empty;
  for (std::size_t i = 0; i < n; ++i) {
    Path gp = p.index(i);
    const json::object& g = (*groups)[i].is_object() ? (*groups)[i].get_object() : empty;
    std::string_view name = rules::sv(g, "name");
    rules::each(e, rules::dns1123_label(name), gp.child("name"), name);  // ValidatePodGroupName
    if (!seen.insert(std::string(name)).second) e.duplicate(gp.child("name"), util::go_quote(name));
    const json::object* policy = rules::obj(g, "policy");
    pod_group_policy(e, policy ? *policy : empty, gp.child("policy"));
  }
}

void workload_spec_update(Errors& e, const json::object& spec, const json::object& old) {
  // ValidateImmutableField (Semantic.DeepEqual: a nil and an empty list compare equal). v1.35
  // names these two fields from the root ("controllerRef", "podGroups"), without "spec.".
  auto changed = [&](std::string_view member) {
    const json::value* now = spec.if_contains(member);
    const json::value* was = old.if_contains(member);
    json::value a = now ? *now : json::value(), b = was ? *was : json::value();
    return rules::semantic(a) != rules::semantic(b);
  };
  if (rules::obj(old, "controllerRef") && changed("controllerRef")) {
    const json::object* now = rules::obj(spec, "controllerRef");
    e.invalid("controllerRef", now ? json::serialize(go_controller_ref(*now)) : "null", "field is immutable");
  }
  if (changed("podGroups")) {
    std::string rendered = "null";
    if (const json::array* now = rules::arr(spec, "podGroups")) {
      json::array groups;
      for (const auto& g : *now) groups.push_back(go_pod_group(g));
      rendered = json::serialize(groups);
    }
    e.invalid("podGroups", rendered, "field is immutable");
  }
}

// ---------------------------------------------------------------- PodGroup (v1beta1)
// Declarative validation's messages (k8s.io/apimachinery/pkg/api/validate): a required value is
// "Required value"; a union with no member "Invalid value: \"\": must specify one of: `a`, `b`",
// with several "Invalid value: \"{`a`, `b`}\": must specify exactly one of: `a`, `b`"; the
// immutable and update rules render the value as null.
namespace {

namespace sv1b1 = api::schedulingv1beta1;

// validate.Union over members that are objects when set.
bool union_of(Errors& e, const json::object& o, std::initializer_list<std::string_view> members, const Path& path) {
  std::string all, set;
  for (std::string_view m : members) {
    std::string quoted = "`" + std::string(m) + "`";
    all += (all.empty() ? "" : ", ") + quoted;
    if (rules::has(o, m)) set += (set.empty() ? "" : ", ") + quoted;
  }
  std::size_t n = 0;
  for (std::string_view m : members) n += rules::has(o, m) ? 1 : 0;
  if (n == 0) {
    e.invalid_str(path, "", "must specify one of: " + all);
    return false;
  }
  if (n > 1) {
    e.invalid_str(path, "{" + set + "}", "must specify exactly one of: " + all);
    return false;
  }
  return true;
}

// +k8s:required with a format: "" is missing (validate.RequiredValue), anything else is checked.
void required_name(Errors& e, std::string_view v, std::vector<std::string> (*format)(std::string_view),
                   const Path& path) {
  if (v.empty())
    e.required(path);
  else
    rules::each(e, format(v), path, v);
}

void scheduling_policy(Errors& e, const json::object& policy, const Path& path) {
  if (!union_of(e, policy, {"basic", "gang"}, path)) return;
  if (const json::object* gang = rules::obj(policy, "gang")) {
    std::int64_t min_count = rules::int_of(*gang, "minCount").value_or(0);
    const Path gp = path.child("gang");
    if (min_count == 0)
      e.required(gp.child("minCount"));
    else if (min_count < 1)
      e.invalid_int(gp.child("minCount"), min_count, "must be greater than or equal to 1");
  }
}

// A value as the Go struct holds it: null and "" members are the zero value and dropped; an empty
// object stays, since a pointer to an empty struct ({single: {}}) is not nil. (rules::semantic
// drops empty objects too, which would make {single: {}} and {all: {}} equal.)
json::value go_value(const json::value& v) {
  if (!v.is_object()) return v;
  json::object out;
  for (const auto& kv : v.get_object()) {
    const json::value& m = kv.value();
    if (m.is_null() || (m.is_string() && m.get_string().empty())) continue;
    out.emplace(kv.key(), go_value(m));
  }
  return out;
}

// Whether member `k` differs between the two objects (the immutable rules' equality).
bool member_changed(const json::object& now, const json::object& was, std::string_view k) {
  const json::value* a = now.if_contains(k);
  const json::value* b = was.if_contains(k);
  auto norm = [](const json::value* v) {
    if (!v || v->is_null() || (v->is_string() && v->get_string().empty())) return json::value();
    return go_value(*v);
  };
  return norm(a) != norm(b);
}

}  // namespace

namespace {
using PolicyRule = void (*)(Errors&, const json::object&, const Path&);
void pod_group_policy_fields(Errors& e, const json::object& o, const Path& path, bool preemption_policy_gate,
                             PolicyRule policy_rule = scheduling_policy);

// resourceClaims of a PodGroup or a Workload's template (DRAWorkloadResourceClaims; dropped before
// validation while the gate is off unless stored), v1.37's tags on PodGroupResourceClaim:
// +k8s:maxItems=4, a list-map keyed by name (required, a DNS label), and exactly one of
// resourceClaimName and resourceClaimTemplateName, each a DNS subdomain.
void resource_claims(Errors& e, const json::object& o, const Path& path) {
  const json::array* claims = rules::arr(o, "resourceClaims");
  if (!claims) return;
  const Path p = path.child("resourceClaims");
  if (claims->size() > sv1b1::kMaxPodGroupResourceClaims) {
    e.causes.push_back(Cause{"FieldValueTooMany",
                             "Too many: " + std::to_string(claims->size()) + ": must have at most " +
                                 std::to_string(sv1b1::kMaxPodGroupResourceClaims) + " items",
                             p.str()});
    return;
  }
  std::set<std::string, std::less<>> seen;
  static const json::object empty;
  for (std::size_t i = 0; i < claims->size(); ++i) {
    const json::object& c = (*claims)[i].is_object() ? (*claims)[i].get_object() : empty;
    const Path ip = p.index(i);
    std::string_view name = rules::sv(c, "name");
    required_name(e, name, rules::dns1123_label, ip.child("name"));
    if (!seen.insert(std::string(name)).second) e.duplicate(ip, json::serialize((*claims)[i]));
    if (!union_of(e, c, {"resourceClaimName", "resourceClaimTemplateName"}, ip)) continue;
    for (const char* k : {"resourceClaimName", "resourceClaimTemplateName"})
      if (const json::value* v = c.if_contains(k); v && v->is_string())
        rules::each(e, rules::dns1123_subdomain(v->get_string()), ip.child(k), v->get_string());
  }
}
}  // namespace

void pod_group_spec(Errors& e, const json::object& spec, const Path& path, bool pod_group_preemption_policy) {
  // parentCompositePodGroupName (CompositePodGroup; dropped before validation while the gate is
  // off unless stored): a DNS subdomain, and +k8s:dependentRequired("workloadRef").
  if (const json::value* parent = spec.if_contains("parentCompositePodGroupName"); parent && parent->is_string()) {
    rules::each(e, rules::dns1123_subdomain(parent->get_string()), path.child("parentCompositePodGroupName"),
                parent->get_string());
    if (!rules::obj(spec, "workloadRef"))
      e.required(path.child("workloadRef"), "must be specified when `parentCompositePodGroupName` is set");
  }
  if (const json::object* ref = rules::obj(spec, "workloadRef")) {
    const Path rp = path.child("workloadRef");
    required_name(e, rules::sv(*ref, "workloadName"), rules::dns1123_subdomain, rp.child("workloadName"));
    required_name(e, rules::sv(*ref, "templateName"), rules::dns1123_label, rp.child("templateName"));
  }
  pod_group_policy_fields(e, spec, path, pod_group_preemption_policy);
  resource_claims(e, spec, path);
}

namespace {

// PodGroupSchedulingPolicy's update tags (shared by a PodGroup and a Workload's template): basic
// immutable, gang neither set nor cleared (its minCount may change).
void scheduling_policy_update(Errors& e, const json::object& holder, const json::object& old_holder, const Path& path) {
  static const json::object empty;
  const json::object* p = rules::obj(holder, "schedulingPolicy");
  const json::object* op = rules::obj(old_holder, "schedulingPolicy");
  const json::object& policy = p ? *p : empty;
  const json::object& old_policy = op ? *op : empty;
  const Path pp = path.child("schedulingPolicy");
  if (rules::has(policy, "basic") != rules::has(old_policy, "basic"))
    e.invalid(pp.child("basic"), "null", "field is immutable");
  if (rules::has(policy, "gang") && !rules::has(old_policy, "gang"))
    e.invalid(pp.child("gang"), "null", "field cannot be set once created");
  else if (!rules::has(policy, "gang") && rules::has(old_policy, "gang"))
    e.invalid(pp.child("gang"), "null", "field cannot be cleared once set");
}

// The rules a PodGroup's spec and a Workload's template share: schedulingPolicy, disruptionMode,
// priorityClassName, priority, preemptionPolicy.
// `policy_rule` checks schedulingPolicy (a PodGroup's or a CompositePodGroup's).
void pod_group_policy_fields(Errors& e, const json::object& o, const Path& path, bool preemption_policy_gate,
                             PolicyRule policy_rule) {
  // schedulingConstraints (TopologyAwareWorkloadScheduling; dropped before validation unless the
  // gate is on): topology has +k8s:maxItems=1, each key +k8s:required +k8s:format=k8s-label-key.
  if (const json::object* sc = rules::obj(o, "schedulingConstraints")) {
    const Path scp = path.child("schedulingConstraints");
    const Path tp = scp.child("topology");
    if (const json::array* topo = rules::arr(*sc, "topology")) {
      if (topo->size() > 1) {
        e.causes.push_back(Cause{"FieldValueTooMany",
                                 "Too many: " + std::to_string(topo->size()) + ": must have at most 1 item", tp.str()});
      } else {
        static const json::object empty;
        for (std::size_t i = 0; i < topo->size(); ++i) {
          const json::object& t = (*topo)[i].is_object() ? (*topo)[i].get_object() : empty;
          const Path ip = tp.index(i);
          required_name(e, rules::sv(t, "key"), rules::qualified_name, ip.child("key"));
        }
      }
    }
  }
  static const json::object empty;
  const json::object* policy = rules::obj(o, "schedulingPolicy");
  policy_rule(e, policy ? *policy : empty, path.child("schedulingPolicy"));
  if (const json::object* mode = rules::obj(o, "disruptionMode"))
    union_of(e, *mode, {"single", "all"}, path.child("disruptionMode"));
  if (std::string_view pc = rules::sv(o, "priorityClassName"); !pc.empty())
    rules::each(e, rules::dns1123_subdomain(pc), path.child("priorityClassName"), pc);
  if (auto priority = rules::int_of(o, "priority"); priority && *priority > sv1b1::kHighestUserDefinablePriority)
    e.invalid_int(path.child("priority"), *priority,
                  "must be less than or equal to " + std::to_string(sv1b1::kHighestUserDefinablePriority));
  // +k8s:ifDisabled("PodGroupPreemptionPolicy")=+k8s:forbidden, +k8s:ifEnabled(...)=+k8s:optional,
  // and the PreemptionPolicy type's +k8s:enum.
  if (!preemption_policy_gate) {
    if (rules::has(o, "preemptionPolicy")) e.forbidden(path.child("preemptionPolicy"), "");
  } else if (const json::value* pp = o.if_contains("preemptionPolicy"); pp && pp->is_string()) {
    const std::string_view policy = pp->get_string();
    if (policy != "Never" && policy != "PreemptLowerPriority")
      e.not_supported(path.child("preemptionPolicy"), util::go_quote(policy), {"Never", "PreemptLowerPriority"});
  }
}

}  // namespace

void pod_group_spec_update(Errors& e, const json::object& spec, const json::object& old, const Path& path) {
  for (const char* k : {"parentCompositePodGroupName", "workloadRef"})
    if (member_changed(spec, old, k)) e.invalid(path.child(k), "null", "field is immutable");
  scheduling_policy_update(e, spec, old, path);
  for (const char* k :
       {"schedulingConstraints", "resourceClaims", "disruptionMode", "priorityClassName", "priority", "preemptionPolicy"})
    if (member_changed(spec, old, k)) e.invalid(path.child(k), "null", "field is immutable");
}

// ---------------------------------------------------------------- Workload (v1beta1)
namespace {

const json::object* template_named(const json::array* list, std::string_view name) {
  if (!list) return nullptr;
  for (const auto& v : *list)
    if (v.is_object() && rules::sv(v.get_object(), "name") == name) return &v.get_object();
  return nullptr;
}

}  // namespace

namespace {

void too_many(Errors& e, const Path& p, std::size_t n, std::size_t max) {
  e.causes.push_back(Cause{"FieldValueTooMany",
                           "Too many: " + std::to_string(n) + ": must have at most " + std::to_string(max) + " items",
                           p.str()});
}

// A list of templates (a Workload's or a composite template's, PodGroup or composite ones):
// +k8s:maxItems=8, the list-map key unique (the item itself is the duplicate value), then
// `each(template, its path)` for the template's own rules.
template <class EachTemplate>
void template_list(Errors& e, const json::array* templates, const Path& p, EachTemplate&& each) {
  const std::size_t n = templates ? templates->size() : 0;
  if (n > sv1b1::kWorkloadMaxPodGroupTemplates) {
    too_many(e, p, n, sv1b1::kWorkloadMaxPodGroupTemplates);
    return;
  }
  std::set<std::string, std::less<>> seen;
  static const json::object empty;
  for (std::size_t i = 0; i < n; ++i) {
    const Path tp = p.index(i);
    const json::object& t = (*templates)[i].is_object() ? (*templates)[i].get_object() : empty;
    std::string_view name = rules::sv(t, "name");
    required_name(e, name, rules::dns1123_label, tp.child("name"));
    if (!seen.insert(std::string(name)).second) e.duplicate(tp, json::serialize((*templates)[i]));
    each(t, tp);
  }
}

// A list of PodGroup templates: each template's policy fields.
void pod_group_template_list(Errors& e, const json::array* templates, const Path& p, bool preemption_policy_gate) {
  template_list(e, templates, p, [&](const json::object& t, const Path& tp) {
    pod_group_policy_fields(e, t, tp, preemption_policy_gate);
    resource_claims(e, t, tp);
  });
}

// CompositePodGroupSchedulingPolicy: a union of basic and gang, a gang's minGroupCount required and
// at least 1 (the same shape of rules as a PodGroup's policy).
void composite_scheduling_policy(Errors& e, const json::object& policy, const Path& path) {
  if (!union_of(e, policy, {"basic", "gang"}, path)) return;
  if (const json::object* gang = rules::obj(policy, "gang")) {
    std::int64_t n = rules::int_of(*gang, "minGroupCount").value_or(0);
    const Path gp = path.child("gang");
    if (n == 0)
      e.required(gp.child("minGroupCount"));
    else if (n < 1)
      e.invalid_int(gp.child("minGroupCount"), n, "must be greater than or equal to 1");
  }
}

// The fields a CompositePodGroup's spec and a composite template share: schedulingConstraints
// (topology at most 1, keys label keys), schedulingPolicy, disruptionMode, priorityClassName,
// priority, preemptionPolicy.
void composite_policy_fields(Errors& e, const json::object& o, const Path& path, bool preemption_policy_gate) {
  pod_group_policy_fields(e, o, path, preemption_policy_gate, composite_scheduling_policy);
}

// A list of composite templates, recursively: each template's fields and its two child lists.
void composite_template_list(Errors& e, const json::array* templates, const Path& p, bool preemption_policy_gate) {
  template_list(e, templates, p, [&](const json::object& t, const Path& tp) {
    composite_policy_fields(e, t, tp, preemption_policy_gate);
    pod_group_template_list(e, rules::arr(t, "podGroupTemplates"), tp.child("podGroupTemplates"),
                            preemption_policy_gate);
    composite_template_list(e, rules::arr(t, "compositePodGroupTemplates"), tp.child("compositePodGroupTemplates"),
                            preemption_policy_gate);
  });
}

std::size_t size_of(const json::array* a) { return a ? a->size() : 0; }

// validateCompositePodGroupTemplateListNames / ...TemplateNames (handwritten): a name used in one
// list may not appear in another list anywhere below (duplicates inside one list are the
// declarative rule's). `names` holds the names of the lists seen so far.
void cross_list_names(Errors& e, const json::array* templates, const Path& p, std::set<std::string, std::less<>>& names) {
  if (!templates) return;
  std::set<std::string, std::less<>> here;
  for (std::size_t i = 0; i < templates->size(); ++i) {
    if (!(*templates)[i].is_object()) continue;
    std::string_view name = rules::sv((*templates)[i].get_object(), "name");
    if (names.contains(name)) {
      const Path ip = p.index(i);
      e.duplicate(ip.child("name"), util::go_quote(name));
    }
    here.insert(std::string(name));
  }
  names.insert(here.begin(), here.end());
  for (std::size_t i = 0; i < templates->size(); ++i) {
    if (!(*templates)[i].is_object()) continue;
    const json::object& t = (*templates)[i].get_object();
    const Path ip = p.index(i);
    std::set<std::string, std::less<>> pg_here;
    const json::array* pgs = rules::arr(t, "podGroupTemplates");
    const Path pgp = ip.child("podGroupTemplates");
    for (std::size_t j = 0; j < size_of(pgs); ++j) {
      if (!(*pgs)[j].is_object()) continue;
      std::string_view name = rules::sv((*pgs)[j].get_object(), "name");
      if (names.contains(name)) {
        const Path jp = pgp.index(j);
        e.duplicate(jp.child("name"), util::go_quote(name));
      }
      pg_here.insert(std::string(name));
    }
    names.insert(pg_here.begin(), pg_here.end());
    cross_list_names(e, rules::arr(t, "compositePodGroupTemplates"), ip.child("compositePodGroupTemplates"), names);
  }
}

// validateWorkloadTemplatesDepth: a top-level composite template whose composite descendants
// reach WorkloadMaxTreeDepth levels (with itself) is refused; its child list is the value.
bool depth_ok(const json::object& t, int depth) {
  if (depth == sv1b1::kWorkloadMaxTreeDepth) return false;
  if (const json::array* children = rules::arr(t, "compositePodGroupTemplates"))
    for (const auto& c : *children)
      if (c.is_object() && !depth_ok(c.get_object(), depth + 1)) return false;
  return true;
}

// validateWorkloadPriority: every template of the Workload (all levels) has one priorityClassName
// and one priority (both unset counts as one configuration).
bool same_priority(const json::object& t, std::optional<std::pair<std::string, std::optional<std::int64_t>>>& first) {
  std::pair<std::string, std::optional<std::int64_t>> here{std::string(rules::sv(t, "priorityClassName")),
                                                           rules::int_of(t, "priority")};
  if (!first) {
    first = std::move(here);
    return true;
  }
  return *first == here;
}
bool composite_same_priority(const json::object& t,
                             std::optional<std::pair<std::string, std::optional<std::int64_t>>>& first) {
  if (!same_priority(t, first)) return false;
  if (const json::array* cs = rules::arr(t, "compositePodGroupTemplates"))
    for (const auto& c : *cs)
      if (c.is_object() && !composite_same_priority(c.get_object(), first)) return false;
  if (const json::array* pgs = rules::arr(t, "podGroupTemplates"))
    for (const auto& c : *pgs)
      if (c.is_object() && !same_priority(c.get_object(), first)) return false;
  return true;
}

// validateCompositePodGroupTemplateHasAtLeastOneChild, recursively.
void has_a_child(Errors& e, const json::object& t, const Path& path) {
  const json::array* cs = rules::arr(t, "compositePodGroupTemplates");
  if (size_of(rules::arr(t, "podGroupTemplates")) == 0 && size_of(cs) == 0)
    e.invalid_str(path, rules::sv(t, "name"),
                  "must have at least one child PodGroupTemplate or CompositePodGroupTemplate");
  const Path cp = path.child("compositePodGroupTemplates");
  for (std::size_t i = 0; i < size_of(cs); ++i)
    if ((*cs)[i].is_object()) has_a_child(e, (*cs)[i].get_object(), cp.index(i));
}

}  // namespace

void workload_v1beta1_spec(Errors& e, const json::object& spec, const Path& path, bool pod_group_preemption_policy,
                           bool composite_pod_group) {
  if (const json::object* ref = rules::obj(spec, "controllerRef")) controller_ref(e, *ref, path.child("controllerRef"));
  const json::array* templates = rules::arr(spec, "podGroupTemplates");
  const json::array* composite = rules::arr(spec, "compositePodGroupTemplates");
  const std::size_t n = size_of(templates), nc = size_of(composite);
  const Path cp = path.child("compositePodGroupTemplates");
  // +k8s:ifDisabled("CompositePodGroup")=+k8s:forbidden, +k8s:ifEnabled(...)=+k8s:optional.
  if (nc > 0 && !composite_pod_group) e.forbidden(cp, "");
  // The two lists are a union (+k8s:unionMember); a member of a disabled gate is not named.
  if (n == 0 && nc == 0)
    e.invalid_str(path, "",
                  composite_pod_group ? "must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`"
                                      : "must specify one of: `podGroupTemplates`");
  else if (n > 0 && nc > 0 && composite_pod_group)
    e.invalid_str(path, "{`podGroupTemplates`, `compositePodGroupTemplates`}",
                  "must specify exactly one of: `podGroupTemplates`, `compositePodGroupTemplates`");
  pod_group_template_list(e, templates, path.child("podGroupTemplates"), pod_group_preemption_policy);
  if (nc > 0 && composite_pod_group) {
    composite_template_list(e, composite, cp, pod_group_preemption_policy);
    // The handwritten rules (pkg/apis/scheduling/validation's ValidateWorkloadSpec).
    std::set<std::string, std::less<>> names;
    for (std::size_t i = 0; i < n; ++i)
      if ((*templates)[i].is_object()) names.insert(std::string(rules::sv((*templates)[i].get_object(), "name")));
    cross_list_names(e, composite, cp, names);
    for (std::size_t i = 0; i < nc; ++i) {
      if (!(*composite)[i].is_object()) continue;
      const json::object& t = (*composite)[i].get_object();
      if (!depth_ok(t, 1)) {
        const json::value* children = t.if_contains("compositePodGroupTemplates");
        e.invalid(cp.index(i), children ? json::serialize(*children) : "null",
                  "maximum template hierarchy depth is " + std::to_string(sv1b1::kWorkloadMaxTreeDepth));
      }
    }
  }
  // validateWorkloadPriority, over every template the spec holds.
  std::optional<std::pair<std::string, std::optional<std::int64_t>>> first;
  bool same = true;
  for (std::size_t i = 0; same && i < n; ++i)
    if ((*templates)[i].is_object()) same = same_priority((*templates)[i].get_object(), first);
  for (std::size_t i = 0; same && i < nc; ++i)
    if ((*composite)[i].is_object()) same = composite_same_priority((*composite)[i].get_object(), first);
  if (!same) e.invalid(path, "null", "detected multiple priority configurations");
  if (composite_pod_group)
    for (std::size_t i = 0; i < nc; ++i)
      if ((*composite)[i].is_object()) {
        const Path ip = cp.index(i);
        has_a_child(e, (*composite)[i].get_object(), ip);
      }
}

namespace {

// +k8s:update=NoAddItem, NoRemoveItem on a list-map keyed by name, then each kept item's immutable
// fields against the item of the same name (`item_update`).
template <class ItemUpdate>
void list_map_update(Errors& e, const json::array* now, const json::array* was, const Path& p, ItemUpdate item_update) {
  if (now)
    for (std::size_t i = 0; i < now->size(); ++i) {
      std::string_view name = (*now)[i].is_object() ? rules::sv((*now)[i].get_object(), "name") : std::string_view();
      if (!template_named(was, name)) {
        e.forbidden(p.index(i), "cannot add new items");
        break;
      }
    }
  if (was)
    for (const auto& v : *was) {
      std::string_view name = v.is_object() ? rules::sv(v.get_object(), "name") : std::string_view();
      if (!template_named(now, name)) {
        e.forbidden(p, "cannot remove items");
        break;
      }
    }
  if (!now) return;
  for (std::size_t i = 0; i < now->size(); ++i) {
    if (!(*now)[i].is_object()) continue;
    const json::object& t = (*now)[i].get_object();
    const json::object* ot = template_named(was, rules::sv(t, "name"));
    if (!ot) continue;
    const Path tp = p.index(i);
    item_update(t, *ot, tp);
  }
}

void pod_group_template_update(Errors& e, const json::object& t, const json::object& ot, const Path& tp) {
  scheduling_policy_update(e, t, ot, tp);
  for (const char* k :
       {"schedulingConstraints", "resourceClaims", "disruptionMode", "priorityClassName", "priority", "preemptionPolicy"})
    if (member_changed(t, ot, k)) e.invalid(tp.child(k), "null", "field is immutable");
}

void composite_template_update(Errors& e, const json::object& t, const json::object& ot, const Path& tp) {
  scheduling_policy_update(e, t, ot, tp);
  for (const char* k : {"schedulingConstraints", "disruptionMode", "priorityClassName", "priority", "preemptionPolicy"})
    if (member_changed(t, ot, k)) e.invalid(tp.child(k), "null", "field is immutable");
  list_map_update(e, rules::arr(t, "podGroupTemplates"), rules::arr(ot, "podGroupTemplates"),
                  tp.child("podGroupTemplates"),
                  [&](const json::object& a, const json::object& b, const Path& p) { pod_group_template_update(e, a, b, p); });
  list_map_update(e, rules::arr(t, "compositePodGroupTemplates"), rules::arr(ot, "compositePodGroupTemplates"),
                  tp.child("compositePodGroupTemplates"),
                  [&](const json::object& a, const json::object& b, const Path& p) { composite_template_update(e, a, b, p); });
}

}  // namespace

void workload_v1beta1_spec_update(Errors& e, const json::object& spec, const json::object& old, const Path& path) {
  if (member_changed(spec, old, "controllerRef")) e.invalid(path.child("controllerRef"), "null", "field is immutable");
  list_map_update(e, rules::arr(spec, "podGroupTemplates"), rules::arr(old, "podGroupTemplates"),
                  path.child("podGroupTemplates"),
                  [&](const json::object& a, const json::object& b, const Path& p) { pod_group_template_update(e, a, b, p); });
  list_map_update(e, rules::arr(spec, "compositePodGroupTemplates"), rules::arr(old, "compositePodGroupTemplates"),
                  path.child("compositePodGroupTemplates"),
                  [&](const json::object& a, const json::object& b, const Path& p) { composite_template_update(e, a, b, p); });
}

// ---------------------------------------------------------------- CompositePodGroup (v1alpha3)

void composite_pod_group_spec(Errors& e, const json::object& spec, const Path& path, bool pod_group_preemption_policy) {
  // parentCompositePodGroupName: +k8s:format=k8s-long-name.
  if (const json::value* parent = spec.if_contains("parentCompositePodGroupName"); parent && parent->is_string())
    rules::each(e, rules::dns1123_subdomain(parent->get_string()), path.child("parentCompositePodGroupName"),
                parent->get_string());
  // workloadRef: +k8s:required, both names required.
  if (const json::object* ref = rules::obj(spec, "workloadRef")) {
    const Path rp = path.child("workloadRef");
    required_name(e, rules::sv(*ref, "workloadName"), rules::dns1123_subdomain, rp.child("workloadName"));
    required_name(e, rules::sv(*ref, "templateName"), rules::dns1123_label, rp.child("templateName"));
  } else {
    e.required(path.child("workloadRef"));
  }
  composite_policy_fields(e, spec, path, pod_group_preemption_policy);
}

void composite_pod_group_spec_update(Errors& e, const json::object& spec, const json::object& old, const Path& path) {
  for (const char* k : {"parentCompositePodGroupName", "workloadRef", "schedulingPolicy", "schedulingConstraints",
                        "disruptionMode", "priorityClassName", "priority", "preemptionPolicy"})
    if (member_changed(spec, old, k)) e.invalid(path.child(k), "null", "field is immutable");
}

void pod_group_status(Errors& e, const json::object& status, const Path& path, const json::object* spec) {
  if (const json::array* cs = rules::arr(status, "conditions"))
    resource::conditions(e, *cs, path.child("conditions"), 0);
  // validatePodGroupResourceClaimStatuses: each entry names one of spec.resourceClaims.
  const json::array* statuses = rules::arr(status, "resourceClaimStatuses");
  if (!statuses) return;
  const json::array* claims = spec ? rules::arr(*spec, "resourceClaims") : nullptr;
  const Path p = path.child("resourceClaimStatuses");
  for (std::size_t i = 0; i < statuses->size(); ++i) {
    if (!(*statuses)[i].is_object()) continue;
    std::string_view name = rules::sv((*statuses)[i].get_object(), "name");
    if (!template_named(claims, name)) {
      const Path ip = p.index(i);
      e.invalid_str(ip.child("name"), name, "must match the name of an entry in `spec.resourceClaims`");
    }
  }
}

// ---------------------------------------------------------------- PriorityClass (v1)
namespace {

std::string quote_json(const std::string& s) { return json::serialize(json::value(s)); }

}  // namespace

void priority_class(Errors& e, const json::object& pc) {
  std::vector<Cause>& causes = e.causes;
  const json::object* meta = rules::obj(pc, "metadata");
  const std::string name(meta ? rules::sv(*meta, "name") : std::string_view());
  const json::value* v = pc.if_contains("value");
  if (!v) {
    causes.push_back(Cause{"FieldValueRequired", "Required value", "value"});
    return;
  }
  std::int64_t value = v->is_int64() ? v->get_int64() : 0;
  if (name.starts_with("system-")) {
    std::string err;
    if (name == "system-node-critical" || name == "system-cluster-critical") {
      std::int64_t want = name == "system-node-critical" ? 2000001000 : 2000000000;
      auto* gd = pc.if_contains("globalDefault");
      if (value != want)
        err = "value of " + name + " PriorityClass must be " + std::to_string(want);
      else if (gd && gd->is_bool() && gd->get_bool())
        err = "globalDefault of " + name + " PriorityClass must be false";
    } else {
      err = name + " is not a known system priority class";
    }
    if (!err.empty())
      causes.push_back(Cause{"FieldValueForbidden",
                             "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: " + err,
                             "metadata.name"});
  } else if (value > 1000000000) {
    causes.push_back(Cause{"FieldValueForbidden", "Forbidden: maximum allowed value of a user defined priority is 1000000000",
                           "value"});
  }
  if (auto* p = pc.if_contains("preemptionPolicy"); p && p->is_string()) {
    std::string policy(p->get_string());
    if (policy != "Never" && policy != "PreemptLowerPriority")
      causes.push_back(Cause{"FieldValueNotSupported",
                             "Unsupported value: " + quote_json(policy) + ": supported values: \"Never\", \"PreemptLowerPriority\"",
                             "preemptionPolicy"});
  }
}

void priority_class_update(Errors& e, const json::object& pc, const json::object& old) {
  const json::value* v = pc.if_contains("value");
  const json::value* ov = old.if_contains("value");
  if ((v == nullptr) != (ov == nullptr) || (v && *v != *ov))
    e.causes.push_back(Cause{"FieldValueForbidden", "Forbidden: may not be changed in an update.", "value"});
  std::string policy(rules::sv(pc, "preemptionPolicy"));
  if (policy != rules::sv(old, "preemptionPolicy"))
    e.causes.push_back(
        Cause{"FieldValueInvalid", "Invalid value: " + quote_json(policy) + ": field is immutable", "preemptionPolicy"});
}

}  // namespace ksched::apiserver::registry::scheduling
