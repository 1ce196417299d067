#include "scheduler/config/validation.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "api/labels.h"
#include "scheduler/config/features.h"
#include "scheduler/config/load.h"
#include "util/go_format.h"

namespace ksched::scheduler::config {

using util::go_quote;

namespace {

// ---------------------------------------------------------------- field.Error formatting

std::string go_string_slice(const std::vector<std::string>& v) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + go_quote(v[i]);
  return out + "}";
}

std::string child(const std::string& p, std::string_view k) {
  return p.empty() ? std::string(k) : p + "." + std::string(k);
}
std::string index(const std::string& p, std::size_t i) { return p + "[" + std::to_string(i) + "]"; }
// The path of a member below `path`, by its described wire name (schema.h):
// at<&LeaderElectionConfiguration::leaseDuration>("leaderElection") == "leaderElection.leaseDuration".
template <auto Member>
std::string at(const std::string& path) {
  constexpr std::string_view name = field_name(Member);
  static_assert(!name.empty(), "not a described member");
  return child(path, name);
}
const std::string kProfiles = at<&KubeSchedulerConfiguration::profiles>("");

// `value` is already rendered the way Go prints it (numbers bare, strings quoted).
std::string invalid(const std::string& path, const std::string& value, const std::string& detail) {
  return path + ": Invalid value: " + value + (detail.empty() ? "" : ": " + detail);
}
std::string required(const std::string& path, const std::string& detail) {
  return path + ": Required value" + (detail.empty() ? "" : ": " + detail);
}
std::string forbidden(const std::string& path, const std::string& detail) {
  return path + ": Forbidden" + (detail.empty() ? "" : ": " + detail);
}
std::string duplicate(const std::string& path, const std::string& value) {
  return path + ": Duplicate value: " + value;
}
std::string not_supported(const std::string& path, const std::string& value, const std::vector<std::string>& valid) {
  std::string list;
  for (std::size_t i = 0; i < valid.size(); ++i) list += (i ? ", " : "") + go_quote(valid[i]);
  return path + ": Unsupported value: " + value + ": supported values: " + list;
}

template <class I>
std::string num(I v) {
  return std::to_string(v);
}

void append(std::vector<std::string>& out, std::vector<std::string> more) {
  for (auto& m : more) out.push_back(std::move(m));
}

// metav1validation.ValidateLabelName
void validate_label_name(const std::string& name, const std::string& path, std::vector<std::string>& errs) {
  for (const auto& msg : labels::validate_label_key(name)) errs.push_back(invalid(path, go_quote(name), msg));
}

// ---------------------------------------------------------------- node selectors (component-helpers nodeaffinity)

void validate_node_selector_term(const api::NodeSelectorTerm& term, const std::string& path,
                                 std::vector<std::string>& errs) {
  static const std::vector<std::string> ops = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
  for (std::size_t i = 0; i < term.matchExpressions.size(); ++i) {
    const auto& r = term.matchExpressions[i];
    std::string p = index(at<&api::NodeSelectorTerm::matchExpressions>(path), i);
    if (std::find(ops.begin(), ops.end(), r.operator_) == ops.end()) {
      errs.push_back(not_supported(at<&api::NodeSelectorRequirement::operator_>(p), go_quote(r.operator_), ops));
      continue;
    }
    validate_label_name(r.key, at<&api::NodeSelectorRequirement::key>(p), errs);
    std::string vp = at<&api::NodeSelectorRequirement::values>(p);
    if (r.operator_ == "In" || r.operator_ == "NotIn") {
      if (r.values.empty()) {
        errs.push_back(invalid(vp, go_string_slice(r.values), "for 'in', 'notin' operators, values set can't be empty"));
      }
    } else if (r.operator_ == "Exists" || r.operator_ == "DoesNotExist") {
      if (!r.values.empty()) {
        errs.push_back(invalid(vp, go_string_slice(r.values), "values set must be empty for exists and does not exist"));
      }
    } else {
      if (r.values.size() != 1) {
        errs.push_back(invalid(vp, go_string_slice(r.values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (std::size_t j = 0; j < r.values.size(); ++j) {
        const std::string& v = r.values[j];
        bool integer = !v.empty();
        for (std::size_t k = 0; k < v.size(); ++k) {
          if (!(std::isdigit(static_cast<unsigned char>(v[k])) || (k == 0 && (v[k] == '-' || v[k] == '+')))) {
            integer = false;
          }
        }
        if (!integer) {
          errs.push_back(invalid(index(vp, j), go_quote(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
    }
    for (std::size_t j = 0; j < r.values.size(); ++j) {
      for (const auto& msg : labels::validate_label_value(r.values[j])) {
        errs.push_back(invalid(index(vp, j), go_quote(r.values[j]), msg));
      }
    }
  }
  for (std::size_t i = 0; i < term.matchFields.size(); ++i) {
    const auto& r = term.matchFields[i];
    std::string p = index(at<&api::NodeSelectorTerm::matchFields>(path), i);
    if (r.key != "metadata.name") {
      errs.push_back(invalid(at<&api::NodeSelectorRequirement::key>(p), go_quote(r.key), "not a valid field selector key"));
      continue;
    }
    if (r.operator_ != "In" && r.operator_ != "NotIn") {
      errs.push_back(not_supported(at<&api::NodeSelectorRequirement::operator_>(p), go_quote(r.operator_), {"In", "NotIn"}));
      continue;
    }
    if (r.values.size() != 1) errs.push_back(invalid(at<&api::NodeSelectorRequirement::values>(p), go_string_slice(r.values), "must have one element"));
  }
}

// ---------------------------------------------------------------- helpers shared by args

std::vector<std::string> validate_resources(const std::vector<ResourceSpec>& resources, const std::string& path) {
  std::vector<std::string> errs;
  for (std::size_t i = 0; i < resources.size(); ++i) {
    const auto& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errs.push_back(invalid(at<&ResourceSpec::weight>(index(path, i)), num(r.weight),
                             "resource weight of " + r.name + " not in valid range (0, 100]"));
    }
  }
  return errs;
}

std::vector<std::string> validate_function_shape(const std::vector<UtilizationShapePoint>& shape,
                                                 const std::string& path) {
  std::vector<std::string> errs;
  if (shape.empty()) {
    errs.push_back(required(path, "at least one point must be specified"));
    return errs;
  }
  for (std::size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs.push_back(invalid(at<&UtilizationShapePoint::utilization>(index(path, i)), num(shape[i].utilization),
                             "values must be sorted in increasing order"));
      break;
    }
  }
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].utilization < 0 || shape[i].utilization > 100) {
      errs.push_back(invalid(at<&UtilizationShapePoint::utilization>(index(path, i)), num(shape[i].utilization),
                             "not in valid range [0, 100]"));
    }
    if (shape[i].score < 0 || shape[i].score > 10) {
      errs.push_back(invalid(at<&UtilizationShapePoint::score>(index(path, i)), num(shape[i].score), "not in valid range [0, 10]"));
    }
  }
  return errs;
}

// v1helper.IsExtendedResourceName
bool is_extended_resource_name(const std::string& name) {
  if (name.find('/') == std::string::npos) return false;  // native (unprefixed)
  if (name.find("kubernetes.io/") != std::string::npos) return false;  // prefixed native
  if (name.rfind("requests.", 0) == 0) return false;
  return labels::validate_label_key("requests." + name).empty();
}

bool args_equal(const PluginArgs& a, const PluginArgs& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using A = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<A, std::monostate>) {
          return true;
        } else if constexpr (requires(const A& l, const A& r) { l == r; }) {
          return x == std::get<A>(b);
        } else {
          return true;  // args with core types never belong to a queue-sort plugin
        }
      },
      a);
}

}  // namespace

std::string aggregate_errors(const std::vector<std::string>& errs) {
  std::vector<std::string> uniq;
  std::set<std::string> seen;
  for (const auto& e : errs) {
    if (seen.insert(e).second) uniq.push_back(e);
  }
  if (uniq.empty()) return "";
  if (uniq.size() == 1) return uniq[0];
  std::string out = "[";
  for (std::size_t i = 0; i < uniq.size(); ++i) out += (i ? ", " : "") + uniq[i];
  return out + "]";
}

// ---------------------------------------------------------------- plugin args

std::vector<std::string> validate_plugin_args(const DefaultPreemptionArgs& a, const std::string& path) {
  std::vector<std::string> errs;
  std::string pp = at<&DefaultPreemptionArgs::minCandidateNodesPercentage>(path);
  std::string ap = at<&DefaultPreemptionArgs::minCandidateNodesAbsolute>(path);
  if (a.minCandidateNodesPercentage < 0 || a.minCandidateNodesPercentage > 100) {
    errs.push_back(invalid(pp, num(a.minCandidateNodesPercentage), "not in valid range [0, 100]"));
  }
  if (a.minCandidateNodesAbsolute < 0) {
    errs.push_back(invalid(ap, num(a.minCandidateNodesAbsolute), "not in valid range [0, inf)"));
  }
  if (a.minCandidateNodesPercentage == 0 && a.minCandidateNodesAbsolute == 0) {
    errs.push_back(invalid(pp, "0", "cannot be zero at the same time as minCandidateNodesAbsolute"));
    errs.push_back(invalid(ap, "0", "cannot be zero at the same time as minCandidateNodesPercentage"));
  }
  return errs;
}

std::vector<std::string> validate_plugin_args(const InterPodAffinityArgs& a, const std::string& path) {
  std::vector<std::string> errs;
  if (a.hardPodAffinityWeight < 0 || a.hardPodAffinityWeight > 100) {
    errs.push_back(invalid(at<&InterPodAffinityArgs::hardPodAffinityWeight>(path), num(a.hardPodAffinityWeight),
                           "not in valid range [0, 100]"));
  }
  return errs;
}

std::vector<std::string> validate_plugin_args(const NodeAffinityArgs& a, const std::string& path) {
  std::vector<std::string> errs;
  if (!a.addedAffinity) return errs;
  const auto& aff = *a.addedAffinity;
  std::string ap = at<&NodeAffinityArgs::addedAffinity>(path);
  if (aff.requiredDuringSchedulingIgnoredDuringExecution) {
    std::string rp =
        at<&api::NodeSelector::nodeSelectorTerms>(at<&api::NodeAffinity::requiredDuringSchedulingIgnoredDuringExecution>(ap));
    const auto& terms = aff.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms;
    for (std::size_t i = 0; i < terms.size(); ++i) validate_node_selector_term(terms[i], index(rp, i), errs);
  }
  const auto& pref = aff.preferredDuringSchedulingIgnoredDuringExecution;
  std::string pp = at<&api::NodeAffinity::preferredDuringSchedulingIgnoredDuringExecution>(ap);
  for (std::size_t i = 0; i < pref.size(); ++i) {
    validate_node_selector_term(pref[i].preference, at<&api::PreferredSchedulingTerm::preference>(index(pp, i)), errs);
  }
  return errs;
}

std::vector<std::string> validate_plugin_args(const NodeResourcesBalancedAllocationArgs& a,
                                                           const std::string& path) {
  std::vector<std::string> errs;
  std::set<std::string> seen;
  std::string rp = at<&NodeResourcesBalancedAllocationArgs::resources>(path);
  for (std::size_t i = 0; i < a.resources.size(); ++i) {
    const auto& r = a.resources[i];
    if (!seen.insert(r.name).second) errs.push_back(duplicate(at<&ResourceSpec::name>(index(rp, i)), go_quote(r.name)));
    if (r.weight != 1) errs.push_back(invalid(at<&ResourceSpec::weight>(index(rp, i)), num(r.weight), "must be 1"));
  }
  return errs;
}

std::vector<std::string> validate_plugin_args(const NodeResourcesFitArgs& a, const std::string& path) {
  std::vector<std::string> errs;
  std::string rp = at<&NodeResourcesFitArgs::ignoredResources>(path);
  for (std::size_t i = 0; i < a.ignoredResources.size(); ++i) validate_label_name(a.ignoredResources[i], index(rp, i), errs);
  std::string gp = at<&NodeResourcesFitArgs::ignoredResourceGroups>(path);
  for (std::size_t i = 0; i < a.ignoredResourceGroups.size(); ++i) {
    const auto& g = a.ignoredResourceGroups[i];
    if (g.find('/') != std::string::npos) {
      errs.push_back(invalid(index(gp, i), go_quote(g), "resource group name can't contain '/'"));
    }
    validate_label_name(g, index(gp, i), errs);
  }
  std::string sp = at<&NodeResourcesFitArgs::scoringStrategy>(path);
  const auto& s = a.scoringStrategy;
  static const std::vector<std::string> types = {std::string(kLeastAllocated), std::string(kMostAllocated),
                                                 std::string(kRequestedToCapacityRatio)};
  if (std::find(types.begin(), types.end(), s.type) == types.end()) {
    errs.push_back(not_supported(at<&ScoringStrategy::type>(sp), go_quote(s.type), types));
  }
  append(errs, validate_resources(s.resources, at<&ScoringStrategy::resources>(sp)));
  // v1.32 validates a given shape under "scoringStrategy.shape" (not a v1 path: written as
  // upstream reports it). A missing shape for
  // RequestedToCapacityRatio is reported as later releases do (v1.32 would crash on it).
  if (s.requestedToCapacityRatio) {
    append(errs, validate_function_shape(s.requestedToCapacityRatio->shape, child(sp, "shape")));
  } else if (s.type == kRequestedToCapacityRatio) {
    errs.push_back(required(at<&ScoringStrategy::requestedToCapacityRatio>(sp), "must be specified when type is RequestedToCapacityRatio"));
  }
  return errs;
}

std::vector<std::string> validate_plugin_args(const PodTopologySpreadArgs& a, const std::string& path) {
  std::vector<std::string> errs;
  std::string tp = at<&PodTopologySpreadArgs::defaultingType>(path);
  if (a.defaultingType != kSystemDefaulting && a.defaultingType != kListDefaulting) {
    errs.push_back(not_supported(tp, go_quote(a.defaultingType), {std::string(kSystemDefaulting), std::string(kListDefaulting)}));
  } else if (a.defaultingType == kSystemDefaulting && !a.defaultConstraints.empty()) {
    errs.push_back(invalid(tp, go_quote(a.defaultingType), "when .defaultConstraints are not empty"));
  }
  std::string cp = at<&PodTopologySpreadArgs::defaultConstraints>(path);
  for (std::size_t i = 0; i < a.defaultConstraints.size(); ++i) {
    const auto& c = a.defaultConstraints[i];
    std::string p = index(cp, i);
    if (c.maxSkew <= 0) errs.push_back(invalid(at<&api::TopologySpreadConstraint::maxSkew>(p), num(c.maxSkew), "not in valid range (0, inf)"));
    if (c.topologyKey.empty()) {
      errs.push_back(required(at<&api::TopologySpreadConstraint::topologyKey>(p), "can not be empty"));
    } else {
      validate_label_name(c.topologyKey, at<&api::TopologySpreadConstraint::topologyKey>(p), errs);
    }
    std::string wp = at<&api::TopologySpreadConstraint::whenUnsatisfiable>(p);
    if (c.whenUnsatisfiable.empty()) {
      errs.push_back(required(wp, "can not be empty"));
    } else if (c.whenUnsatisfiable != "DoNotSchedule" && c.whenUnsatisfiable != "ScheduleAnyway") {
      errs.push_back(not_supported(wp, go_quote(c.whenUnsatisfiable), {"DoNotSchedule", "ScheduleAnyway"}));
    }
    if (c.labelSelector) {
      errs.push_back(forbidden(at<&api::TopologySpreadConstraint::labelSelector>(p), "constraint must not define a selector, as they deduced for each pod"));
    }
    for (std::size_t j = 0; j < i; ++j) {
      const auto& o = a.defaultConstraints[j];
      if (o.topologyKey == c.topologyKey && o.whenUnsatisfiable == c.whenUnsatisfiable) {
        errs.push_back(duplicate(p, go_quote("{" + c.topologyKey + ", " + c.whenUnsatisfiable + "}")));
        break;
      }
    }
  }
  return errs;
}

std::vector<std::string> validate_plugin_args(const VolumeBindingArgs& a, const std::string& path) {
  std::vector<std::string> errs;
  if (a.bindTimeoutSeconds < 0) {
    errs.push_back(invalid(at<&VolumeBindingArgs::bindTimeoutSeconds>(path), num(a.bindTimeoutSeconds),
                           "invalid BindTimeoutSeconds, should not be a negative value"));
  }
  // The VolumeCapacityPriority gate is off in v1.32, so a shape must not be configured.
  if (!a.shape.empty()) {
    std::string v = "[]config.UtilizationShapePoint{";
    for (std::size_t i = 0; i < a.shape.size(); ++i) {
      v += (i ? ", " : "") + std::string("config.UtilizationShapePoint{Utilization:") + num(a.shape[i].utilization) +
           ", Score:" + num(a.shape[i].score) + "}";
    }
    v += "}";
    errs.push_back(invalid(at<&VolumeBindingArgs::shape>(path), v,
                           "unexpected field `shape`, remove it or turn on the feature gate VolumeCapacityPriority"));
  }
  return errs;
}

// Upstream ValidateDynamicResourcesArgs (DRASchedulerFilterTimeout at v1.35's default, on; the
// binding gates as set).
std::vector<std::string> validate_plugin_args(const DynamicResourcesArgs& a, const std::string& path) {
  std::vector<std::string> errs;
  if (a.filterTimeout && *a.filterTimeout < Duration::zero()) {
    // The bad value is a *metav1.Duration, which field errors print as its JSON: a quoted string.
    errs.push_back(invalid(at<&DynamicResourcesArgs::filterTimeout>(path), go_quote(util::go_duration(*a.filterTimeout)),
                           "must be zero or positive"));
  }
  if (features().draDeviceBindingAndStatus()) {
    if (a.bindingTimeout && *a.bindingTimeout < std::chrono::seconds(1)) {
      errs.push_back(invalid(at<&DynamicResourcesArgs::bindingTimeout>(path),
                             go_quote(util::go_duration(*a.bindingTimeout)), "must be at least 1 second"));
    }
  } else if (a.bindingTimeout) {
    errs.push_back(forbidden(at<&DynamicResourcesArgs::bindingTimeout>(path),
                             "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"));
  }
  return errs;
}

std::vector<std::string> validate_args(const PluginArgs& args, const std::string& path) {
  return std::visit(
      [&](const auto& a) -> std::vector<std::string> {
        if constexpr (requires { validate_plugin_args(a, path); }) {
          return validate_plugin_args(a, path);
        } else {
          return {};  // no args, or an out-of-tree plugin's
        }
      },
      args);
}

// ---------------------------------------------------------------- configuration

namespace {

const std::set<std::string, std::less<>>& removed_plugins() {
  static const std::set<std::string, std::less<>> s = {"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"};
  return s;
}

std::string removed_plugin_message(const std::string& name) {
  return invalid("", go_quote(name), "").substr(2) + ": was invalid in version \"" + std::string(kAPIVersion) +
         "\" (KubeSchedulerConfiguration is version \"" + std::string(kAPIVersion) + "\")";
}

void validate_profile(const KubeSchedulerProfile& prof, const std::string& path, std::vector<std::string>& errs) {
  if (prof.schedulerName.empty()) errs.push_back(required(at<&KubeSchedulerProfile::schedulerName>(path), ""));
  if (prof.percentageOfNodesToScore &&
      (*prof.percentageOfNodesToScore < 0 || *prof.percentageOfNodesToScore > 100)) {
    errs.push_back(invalid(at<&KubeSchedulerProfile::percentageOfNodesToScore>(path), num(*prof.percentageOfNodesToScore),
                           "not in valid range [0-100]"));
  }
  std::string pp = at<&KubeSchedulerProfile::plugins>(path);
  for (ExtensionPoint ep : kSpecificExtensionPoints) {
    const auto& set = prof.plugins.at(ep);
    for (std::size_t i = 0; i < set.enabled.size(); ++i) {
      if (removed_plugins().contains(set.enabled[i].name)) {
        errs.push_back(index(at<&PluginSet::enabled>(child(pp, extension_point_field(ep))), i) + ": " +
                       removed_plugin_message(set.enabled[i].name));
      }
    }
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < prof.pluginConfig.size(); ++i) {
    const auto& pc = prof.pluginConfig[i];
    std::string cp = index(at<&KubeSchedulerProfile::pluginConfig>(path), i);
    if (!seen.insert(pc.name).second) errs.push_back(duplicate(cp, go_quote(pc.name)));
    if (removed_plugins().contains(pc.name)) {
      errs.push_back(cp + ": " + removed_plugin_message(pc.name));
      continue;
    }
    append(errs, validate_args(pc.args, at<&PluginConfig::args>(cp)));
  }
}

void validate_common_queue_sort(const std::vector<KubeSchedulerProfile>& profiles, std::vector<std::string>& errs) {
  const PluginSet& canon = profiles[0].plugins.queueSort;
  std::string name;
  if (!canon.enabled.empty()) name = canon.enabled[0].name;
  if (canon.enabled.size() > 1) {
    // Upstream names the Go field here, not the v1 one.
    const std::string path = at<&Plugins::queueSort>(at<&KubeSchedulerProfile::plugins>(index(kProfiles, 0)));
    errs.push_back(invalid(path + ".Enabled", num(canon.enabled.size()),
                           "only one queue sort plugin can be enabled"));
  }
  const PluginArgs* canon_args = nullptr;
  if (!name.empty()) canon_args = profiles[0].raw_args_for(name);
  for (std::size_t i = 1; i < profiles.size(); ++i) {
    std::string p = index(kProfiles, i);
    const PluginSet& cur = profiles[i].plugins.queueSort;
    if (!(cur == canon)) {
      std::string v = "{";
      for (std::size_t j = 0; j < cur.enabled.size(); ++j) v += (j ? " " : "") + cur.enabled[j].name;
      v += "}";
      errs.push_back(
          invalid(at<&Plugins::queueSort>(at<&KubeSchedulerProfile::plugins>(p)), v, "must be the same for all profiles"));
    }
    for (const auto& pc : profiles[i].pluginConfig) {
      if (!name.empty() && pc.name == name) {
        bool same = canon_args ? args_equal(*canon_args, pc.args) : false;
        if (!same) {
          errs.push_back(invalid(at<&PluginConfig::args>(at<&KubeSchedulerProfile::pluginConfig>(p)), go_quote(pc.name),
                                 "queueSort must be the same for all profiles"));
        }
      }
    }
  }
}

void validate_extenders(const std::vector<Extender>& extenders, std::vector<std::string>& errs) {
  int binders = 0;
  std::set<std::string> managed;
  for (std::size_t i = 0; i < extenders.size(); ++i) {
    const auto& x = extenders[i];
    std::string p = index(at<&KubeSchedulerConfiguration::extenders>(""), i);
    if (!x.prioritizeVerb.empty() && x.weight <= 0) {
      errs.push_back(invalid(at<&Extender::weight>(p), num(x.weight), "must have a positive weight applied to it"));
    }
    if (!x.bindVerb.empty()) ++binders;
    for (std::size_t j = 0; j < x.managedResources.size(); ++j) {
      const auto& r = x.managedResources[j];
      std::string np = at<&ExtenderManagedResource::name>(index(at<&Extender::managedResources>(p), j));
      auto msgs = labels::validate_label_key(r.name);
      for (const auto& m : msgs) errs.push_back(invalid(np, go_quote(r.name), m));
      if (msgs.empty() && !is_extended_resource_name(r.name)) {
        errs.push_back(invalid(np, go_quote(r.name), "is an invalid extended resource name"));
      }
      if (!managed.insert(r.name).second) {
        errs.push_back(invalid(np, go_quote(r.name), "duplicate extender managed resource name"));
      }
    }
  }
  if (binders > 1) {
    errs.push_back(invalid(at<&KubeSchedulerConfiguration::extenders>(""), go_quote("found " + std::to_string(binders) + " extenders implementing bind"),
                           "only one extender can implement bind"));
  }
}

}  // namespace

std::vector<std::string> validation_errors(const KubeSchedulerConfiguration& cfg) {
  std::vector<std::string> errs;
  if (cfg.clientConnection.burst < 0) {
    errs.push_back(invalid(at<&ClientConnectionConfiguration::burst>(at<&KubeSchedulerConfiguration::clientConnection>("")), num(cfg.clientConnection.burst), "must be non-negative"));
  }
  const auto& le = cfg.leaderElection;
  const std::string kLeaderElection = at<&KubeSchedulerConfiguration::leaderElection>("");
  if (le.leaderElect) {
    if (le.leaseDuration <= Duration::zero()) {
      errs.push_back(invalid(at<&LeaderElectionConfiguration::leaseDuration>(kLeaderElection), util::go_duration(le.leaseDuration), "must be greater than zero"));
    }
    if (le.renewDeadline <= Duration::zero()) {
      errs.push_back(invalid(at<&LeaderElectionConfiguration::renewDeadline>(kLeaderElection), util::go_duration(le.renewDeadline), "must be greater than zero"));
    }
    if (le.retryPeriod <= Duration::zero()) {
      errs.push_back(invalid(at<&LeaderElectionConfiguration::retryPeriod>(kLeaderElection), util::go_duration(le.retryPeriod), "must be greater than zero"));
    }
    if (le.leaseDuration <= le.renewDeadline) {
      errs.push_back(invalid(at<&LeaderElectionConfiguration::leaseDuration>(kLeaderElection), util::go_duration(le.renewDeadline),
                             "LeaseDuration must be greater than RenewDeadline"));
    }
    // client-go's NewLeaderElector refuses this at startup; reporting it here fails earlier.
    constexpr double kJitterFactor = 1.2;
    if (static_cast<double>(le.renewDeadline.count()) <= kJitterFactor * static_cast<double>(le.retryPeriod.count())) {
      errs.push_back(invalid(at<&LeaderElectionConfiguration::renewDeadline>(kLeaderElection), util::go_duration(le.renewDeadline),
                             "renewDeadline must be greater than retryPeriod*JitterFactor"));
    }
    if (le.resourceLock.empty()) errs.push_back(invalid(at<&LeaderElectionConfiguration::resourceLock>(kLeaderElection), "\"\"", "resourceLock is required"));
    if (le.resourceNamespace.empty()) {
      errs.push_back(invalid(at<&LeaderElectionConfiguration::resourceNamespace>(kLeaderElection), "\"\"", "resourceNamespace is required"));
    }
    if (le.resourceName.empty()) errs.push_back(invalid(at<&LeaderElectionConfiguration::resourceName>(kLeaderElection), "\"\"", "resourceName is required"));
    if (le.resourceLock != "leases") {
      errs.push_back(invalid(at<&LeaderElectionConfiguration::resourceLock>(kLeaderElection), go_quote(le.resourceLock), "resourceLock value must be \"leases\""));
    }
  }
  if (cfg.parallelism <= 0) {
    errs.push_back(invalid(at<&KubeSchedulerConfiguration::parallelism>(""), num(cfg.parallelism), "should be an integer value greater than zero"));
  }
  if (cfg.profiles.empty()) {
    errs.push_back(required(kProfiles, ""));
  } else {
    std::map<std::string, std::size_t> names;
    for (std::size_t i = 0; i < cfg.profiles.size(); ++i) {
      const auto& prof = cfg.profiles[i];
      std::string p = index(kProfiles, i);
      validate_profile(prof, p, errs);
      auto [it, inserted] = names.emplace(prof.schedulerName, i);
      if (!inserted) {
        errs.push_back(duplicate(at<&KubeSchedulerProfile::schedulerName>(p), go_quote(at<&KubeSchedulerProfile::schedulerName>(index(kProfiles, it->second)))));
      }
    }
    validate_common_queue_sort(cfg.profiles, errs);
  }
  if (cfg.percentageOfNodesToScore &&
      (*cfg.percentageOfNodesToScore < 0 || *cfg.percentageOfNodesToScore > 100)) {
    errs.push_back(invalid(at<&KubeSchedulerConfiguration::percentageOfNodesToScore>(""), num(*cfg.percentageOfNodesToScore), "not in valid range [0-100]"));
  }
  if (cfg.podInitialBackoffSeconds <= 0) {
    errs.push_back(invalid(at<&KubeSchedulerConfiguration::podInitialBackoffSeconds>(""), num(cfg.podInitialBackoffSeconds), "must be greater than 0"));
  }
  if (cfg.podMaxBackoffSeconds < cfg.podInitialBackoffSeconds) {
    errs.push_back(invalid(at<&KubeSchedulerConfiguration::podMaxBackoffSeconds>(""), num(cfg.podMaxBackoffSeconds),
                           "must be greater than or equal to PodInitialBackoffSeconds"));
  }
  validate_extenders(cfg.extenders, errs);
  return errs;
}

util::Result<void> validate(const KubeSchedulerConfiguration& cfg) {
  auto errs = validation_errors(cfg);
  if (errs.empty()) return {};
  return util::make_error(aggregate_errors(errs));
}

}  // namespace ksched::scheduler::config
