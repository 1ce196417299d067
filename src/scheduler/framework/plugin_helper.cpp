#include "scheduler/framework/plugin_helper.h"

#include <algorithm>
#include <charconv>
#include <type_traits>

#if __has_include("api/apps.h")
#include "api/apps.h"
#define KSCHED_HAVE_APPS 1
#endif

namespace ksched::scheduler::framework {

Status default_normalize_score(std::int64_t max_priority, bool reverse, NodeScoreList& scores) {
  std::int64_t max_count = 0;
  for (const auto& s : scores) max_count = std::max(max_count, s.score);
  if (max_count == 0) {
    if (reverse) {
      for (auto& s : scores) s.score = max_priority;
    }
    return {};
  }
  for (auto& s : scores) {
    std::int64_t v = max_priority * s.score / max_count;
    s.score = reverse ? max_priority - v : v;
  }
  return {};
}

// ---------------------------------------------------------------- node selectors
namespace {

bool parse_int64(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (*b == '+') ++b;  // Go's strconv.ParseInt accepts a leading sign
  auto [p, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && p == e;
}

}  // namespace

CompiledNodeSelectorTerm::CompiledNodeSelectorTerm(const api::NodeSelectorTerm& term) {
  for (const auto& e : term.matchExpressions) {
    Req r;
    r.key = e.key;
    if (e.operator_ == "In") {
      r.op = Op::In;
    } else if (e.operator_ == "NotIn") {
      r.op = Op::NotIn;
    } else if (e.operator_ == "Exists") {
      r.op = Op::Exists;
    } else if (e.operator_ == "DoesNotExist") {
      r.op = Op::DoesNotExist;
    } else if (e.operator_ == "Gt") {
      r.op = Op::Gt;
    } else if (e.operator_ == "Lt") {
      r.op = Op::Lt;
    } else {
      error_ = "\"" + e.operator_ + "\" is not a valid node selector operator";
      return;
    }
    if (auto errs = labels::validate_label_key(e.key); !errs.empty()) {
      error_ = errs.front();
      return;
    }
    switch (r.op) {
      case Op::In:
      case Op::NotIn:
        if (e.values.empty()) {
          error_ = "for 'in', 'notin' operators, values set can't be empty";
          return;
        }
        break;
      case Op::Exists:
      case Op::DoesNotExist:
        if (!e.values.empty()) {
          error_ = "values set must be empty for exists and does not exist";
          return;
        }
        break;
      case Op::Gt:
      case Op::Lt:
        if (e.values.size() != 1 || !parse_int64(e.values[0], r.number)) {
          error_ = "for 'Gt', 'Lt' operators, exactly one value is required and it must be an integer";
          return;
        }
        break;
    }
    for (const auto& v : e.values) {
      if (auto errs = labels::validate_label_value(v); !errs.empty()) {
        error_ = errs.front();
        return;
      }
    }
    r.values = e.values;
    labels_.push_back(std::move(r));
  }
  for (const auto& e : term.matchFields) {
    if (e.operator_ != "In" && e.operator_ != "NotIn") {
      error_ = "\"" + e.operator_ + "\" is not a valid node field selector operator";
      return;
    }
    if (e.values.size() != 1) {
      error_ = "unexpected number of value (" + std::to_string(e.values.size()) + ") for node field selector operator \"" +
               e.operator_ + "\"";
      return;
    }
    fields_.push_back(FieldReq{e.key, e.operator_ == "In", e.values[0]});
  }
}

bool CompiledNodeSelectorTerm::matches(const api::Node& node) const {
  if (!error_.empty()) return false;
  if (labels_.empty() && fields_.empty()) return false;  // empty term selects nothing
  const auto& nl = node.metadata.labels;
  for (const auto& r : labels_) {
    const std::string* v = nl.find(r.key);
    switch (r.op) {
      case Op::In:
        if (!v || std::find(r.values.begin(), r.values.end(), *v) == r.values.end()) return false;
        break;
      case Op::NotIn:
        if (v && std::find(r.values.begin(), r.values.end(), *v) != r.values.end()) return false;
        break;
      case Op::Exists:
        if (!v) return false;
        break;
      case Op::DoesNotExist:
        if (v) return false;
        break;
      case Op::Gt:
      case Op::Lt: {
        std::int64_t n = 0;
        if (!v || !parse_int64(*v, n)) return false;
        if (r.op == Op::Gt ? !(n > r.number) : !(n < r.number)) return false;
        break;
      }
    }
  }
  for (const auto& f : fields_) {
    // Only metadata.name is a node field the scheduler knows; other keys read as "".
    std::string_view actual = f.key == "metadata.name" ? std::string_view(node.metadata.name) : std::string_view();
    if ((actual == f.value) != f.equal) return false;
  }
  return true;
}

NodeSelectorMatcher::NodeSelectorMatcher(const api::NodeSelector& ns) {
  terms_.reserve(ns.nodeSelectorTerms.size());
  for (const auto& t : ns.nodeSelectorTerms) terms_.emplace_back(t);
}

bool NodeSelectorMatcher::matches(const api::Node& node) const {
  for (const auto& t : terms_) {
    if (t.matches(node)) return true;
  }
  return false;
}

RequiredNodeAffinity::RequiredNodeAffinity(const api::Pod& pod) : node_selector_(pod.spec.nodeSelector) {
  if (pod.spec.affinity && pod.spec.affinity->nodeAffinity &&
      pod.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
    affinity_.emplace(*pod.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution);
  }
}

bool RequiredNodeAffinity::matches(const api::Node& node) const {
  for (const auto& [k, v] : node_selector_) {
    const std::string* have = node.metadata.labels.find(k);
    if (!have || *have != v) return false;
  }
  return !affinity_ || affinity_->matches(node);
}

bool required_node_affinity_matches(const api::Pod& pod, const api::Node& node) {
  return RequiredNodeAffinity(pod).matches(node);
}

std::int64_t preferred_scheduling_terms_score(const std::vector<api::PreferredSchedulingTerm>& terms,
                                              const api::Node& node) {
  std::int64_t sum = 0;
  for (const auto& t : terms) {
    if (t.weight == 0) continue;
    if (CompiledNodeSelectorTerm(t.preference).matches(node)) sum += t.weight;
  }
  return sum;
}

// ---------------------------------------------------------------- taints

bool tolerates_taint(const api::Toleration& t, const api::Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.operator_.empty() || t.operator_ == "Equal") return t.value == taint.value;
  return t.operator_ == "Exists";
}

bool taint_tolerated_by_tolerations(const api::Taint& taint, const std::vector<api::Toleration>& tolerations) {
  for (const auto& t : tolerations) {
    if (tolerates_taint(t, taint)) return true;
  }
  return false;
}

const api::Taint* find_matching_untolerated_taint(const std::vector<api::Taint>& taints,
                                                  const std::vector<api::Toleration>& tolerations,
                                                  const std::function<bool(const api::Taint&)>& inclusion) {
  for (const auto& taint : taints) {
    if (inclusion && !inclusion(taint)) continue;
    if (!taint_tolerated_by_tolerations(taint, tolerations)) return &taint;
  }
  return nullptr;
}

// ---------------------------------------------------------------- default selector
namespace {

template <class S>
const api::LabelSelector* selector_ptr(const S& s) {
  if constexpr (std::is_same_v<S, api::LabelSelector>) {
    return &s;
  } else {
    return s ? &*s : nullptr;
  }
}

template <class Obj>
void add_controller_selector(labels::Selector& selector, const std::vector<std::shared_ptr<const Obj>>& objs,
                             const std::string& name) {
  for (const auto& o : objs) {
    if (!o || o->metadata.name != name) continue;
    auto other = labels::from_label_selector(selector_ptr(o->spec.selector));
    if (other && !other->is_nothing()) {
      for (const auto& r : other->requirements()) selector.add(r);
    }
    return;
  }
}

}  // namespace

labels::Selector default_selector(const api::Pod& pod, const ClusterLister& lister) {
  api::StringMap set;
  const std::string& ns = pod.metadata.namespace_;
  for (const auto& svc : lister.list_services(ns)) {
    if (!svc || svc->spec.selector.empty()) continue;
    if (!labels::from_set(svc->spec.selector).matches(pod.metadata.labels)) continue;
    for (const auto& [k, v] : svc->spec.selector) set.set(k, v);
  }
  labels::Selector selector = labels::from_set(set);

  const api::OwnerReference* owner = nullptr;
  for (const auto& o : pod.metadata.ownerReferences) {
    if (o.controller && *o.controller) {
      owner = &o;
      break;
    }
  }
  if (!owner) return selector;

  if (owner->apiVersion == "v1" && owner->kind == "ReplicationController") {
    for (const auto& rc : lister.list_replication_controllers(ns)) {
      if (!rc || rc->metadata.name != owner->name) continue;
      for (const auto& [k, v] : rc->spec.selector) set.set(k, v);
      selector = labels::from_set(set);
      break;
    }
  }
#ifdef KSCHED_HAVE_APPS
  else if (owner->apiVersion == "apps/v1" && owner->kind == "ReplicaSet") {
    add_controller_selector(selector, lister.list_replica_sets(ns), owner->name);
  } else if (owner->apiVersion == "apps/v1" && owner->kind == "StatefulSet") {
    add_controller_selector(selector, lister.list_stateful_sets(ns), owner->name);
  }
#endif
  return selector;
}

std::vector<const api::ContainerPort*> host_ports_of(const api::Pod& pod) {
  std::vector<const api::ContainerPort*> out;
  for (const auto& c : pod.spec.containers) {
    for (const auto& p : c.ports) {
      if (p.hostPort > 0) out.push_back(&p);
    }
  }
  return out;
}

}  // namespace ksched::scheduler::framework
