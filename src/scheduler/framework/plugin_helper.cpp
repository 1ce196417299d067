#include "scheduler/framework/plugin_helper.h"

#include <algorithm>
#include <type_traits>

#include "api/apps.h"

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

// field.Path rendering: "a.b", "a[0]"; a root path has no leading separator.
std::string child(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}
std::string index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::string join_errors(const std::vector<std::string>& errs) {
  std::string out;
  for (std::size_t i = 0; i < errs.size(); ++i) {
    if (i) out += "; ";
    out += errs[i];
  }
  return out;
}

bool empty_term(const api::NodeSelectorTerm& t) { return t.matchExpressions.empty() && t.matchFields.empty(); }

std::optional<labels::Operator> node_selector_operator(std::string_view op) {
  if (op == "In") return labels::Operator::In;
  if (op == "NotIn") return labels::Operator::NotIn;
  if (op == "Exists") return labels::Operator::Exists;
  if (op == "DoesNotExist") return labels::Operator::DoesNotExist;
  if (op == "Gt") return labels::Operator::GreaterThan;
  if (op == "Lt") return labels::Operator::LessThan;
  return std::nullopt;
}

}  // namespace

CompiledNodeSelectorTerm::CompiledNodeSelectorTerm(const api::NodeSelectorTerm& term, const std::string& path) {
  has_labels_ = !term.matchExpressions.empty();
  has_fields_ = !term.matchFields.empty();
  const std::string exprs_path = child(path, "matchExpressions");
  for (std::size_t i = 0; i < term.matchExpressions.size(); ++i) {
    const auto& e = term.matchExpressions[i];
    const std::string p = index(exprs_path, i);
    auto op = node_selector_operator(e.operator_);
    if (!op) {
      errors_.push_back(child(p, "operator") + ": Unsupported value: \"" + e.operator_ +
                        "\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"");
      continue;
    }
    // labels.NewRequirement is the one validator of key, value count, Gt/Lt integers and values.
    auto r = labels::make_requirement(e.key, *op, e.values);
    if (!r.ok()) {
      // Its messages are relative to the requirement ("values[0]: ..."); an aggregate is "[a, b]".
      const std::string& err = r.error();
      errors_.push_back(p + (!err.empty() && err.front() == '[' ? ": " : ".") + err);
      continue;
    }
    labels_.push_back(std::move(r.value()));
  }
  const std::string fields_path = child(path, "matchFields");
  for (std::size_t i = 0; i < term.matchFields.size(); ++i) {
    const auto& e = term.matchFields[i];
    const std::string p = index(fields_path, i);
    if (e.operator_ != "In" && e.operator_ != "NotIn") {
      errors_.push_back(child(p, "operator") + ": Unsupported value: \"" + e.operator_ +
                        "\": supported values: \"In\", \"NotIn\"");
      continue;
    }
    if (e.values.size() != 1) {
      errors_.push_back(child(p, "values") + ": Invalid value: must have one element");
      continue;
    }
    fields_.push_back(FieldReq{e.key, e.operator_ == "In", e.values[0]});
  }
}

bool CompiledNodeSelectorTerm::matches(const api::StringMap& node_labels, std::string_view node_name) const {
  if (!errors_.empty()) return false;
  if (!has_labels_ && !has_fields_) return false;  // empty term selects nothing
  for (const auto& r : labels_) {
    if (!r.matches(node_labels)) return false;
  }
  if (has_fields_ && !node_name.empty()) {
    for (const auto& f : fields_) {
      // metadata.name is the only node field; any other key reads as "" (fields.Set.Get).
      const std::string_view actual = f.key == "metadata.name" ? node_name : std::string_view();
      if ((actual == f.value) != f.equal) return false;
    }
  }
  return true;
}

NodeSelectorMatcher::NodeSelectorMatcher(const api::NodeSelector& ns, const std::string& path) {
  for (std::size_t i = 0; i < ns.nodeSelectorTerms.size(); ++i) {
    const auto& t = ns.nodeSelectorTerms[i];
    if (empty_term(t)) continue;  // selects nothing
    CompiledNodeSelectorTerm c(t, index(path, i));
    if (c.valid()) {
      terms_.push_back(std::move(c));
    } else {
      errors_.insert(errors_.end(), c.errors().begin(), c.errors().end());
    }
  }
}

bool NodeSelectorMatcher::matches(const api::StringMap& node_labels, std::string_view node_name) const {
  for (const auto& t : terms_) {
    if (t.matches(node_labels, node_name)) return true;
  }
  return false;
}

std::string NodeSelectorMatcher::error_string() const { return join_errors(errors_); }

PreferredSchedulingTerms::PreferredSchedulingTerms(const std::vector<api::PreferredSchedulingTerm>& terms,
                                                   const std::string& path) {
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].weight == 0 || empty_term(terms[i].preference)) continue;
    CompiledNodeSelectorTerm c(terms[i].preference, child(index(path, i), "preference"));
    if (c.valid()) {
      terms_.emplace_back(terms[i].weight, std::move(c));
    } else {
      errors_.insert(errors_.end(), c.errors().begin(), c.errors().end());
    }
  }
}

std::int64_t PreferredSchedulingTerms::score(const api::Node& node) const {
  std::int64_t sum = 0;
  for (const auto& [w, t] : terms_) {
    if (t.matches(node)) sum += w;
  }
  return sum;
}

std::string PreferredSchedulingTerms::error_string() const { return join_errors(errors_); }

RequiredNodeAffinity::RequiredNodeAffinity(const api::Pod& pod) : node_selector_(pod.spec.nodeSelector) {
  const auto& aff = pod.spec.affinity;
  if (aff && aff->nodeAffinity && aff->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
    affinity_.emplace(*aff->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution,
                      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
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

bool is_do_not_schedule_taint(const api::Taint& taint) {
  return taint.effect == kTaintEffectNoSchedule || taint.effect == kTaintEffectNoExecute;
}

bool taints_equal(const std::vector<api::Taint>& a, const std::vector<api::Taint>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const api::Taint& x, const api::Taint& y) {
    return x.key == y.key && x.value == y.value && x.effect == y.effect && x.timeAdded == y.timeAdded;
  });
}

bool tolerations_equal(const std::vector<api::Toleration>& a, const std::vector<api::Toleration>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const api::Toleration& x, const api::Toleration& y) {
    return x.key == y.key && x.operator_ == y.operator_ && x.value == y.value && x.effect == y.effect &&
           x.tolerationSeconds == y.tolerationSeconds;
  });
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
  const auto& ns = pod.metadata.namespace_;
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
  } else if (owner->apiVersion == "apps/v1" && owner->kind == "ReplicaSet") {
    add_controller_selector(selector, lister.list_replica_sets(ns), owner->name);
  } else if (owner->apiVersion == "apps/v1" && owner->kind == "StatefulSet") {
    add_controller_selector(selector, lister.list_stateful_sets(ns), owner->name);
  }
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
