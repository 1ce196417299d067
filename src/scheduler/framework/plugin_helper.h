// Helpers shared by plugins (upstream pkg/scheduler/framework/plugins/helper and the
// component-helpers it relies on): score normalisation, node selector / required node affinity
// matching, taint toleration, and the default spreading selector.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/core.h"
#include "api/labels.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"

namespace ksched::scheduler::framework {

// Upstream DefaultNormalizeScore: scale so the highest score becomes max_priority (reverse:
// max_priority - scaled). All-zero scores stay 0 (or become max_priority when reversed).
Status default_normalize_score(std::int64_t max_priority, bool reverse, NodeScoreList& scores);

// ---------------------------------------------------------------- node selectors
// Node selector matching as upstream component-helpers' nodeaffinity package, the one place the
// scheduler matches NodeSelectorTerms (NodeAffinity, PodTopologySpread, VolumeBinding's PV node
// affinity, ...).
//
// One NodeSelectorTerm parsed once (upstream nodeSelectorTerm). matchExpressions become label
// requirements exactly as labels.NewRequirement builds them (key, arity, Gt/Lt integer and every
// value validated); matchFields accept In/NotIn with one value. A term with any parse error never
// matches and keeps every error, prefixed with `path`; an empty term matches nothing.
class CompiledNodeSelectorTerm {
 public:
  explicit CompiledNodeSelectorTerm(const api::NodeSelectorTerm& term, const std::string& path = "");
  bool matches(const api::Node& node) const { return matches(node.metadata.labels, node.metadata.name); }
  // An empty node_name skips matchFields: upstream extracts no node fields from a nameless node
  // (e.g. PV node affinity checked against node labels alone).
  bool matches(const api::StringMap& node_labels, std::string_view node_name) const;
  bool valid() const { return errors_.empty(); }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  struct FieldReq {
    std::string key;
    bool equal = true;  // In (==) or NotIn (!=)
    std::string value;
  };
  bool has_labels_ = false;
  bool has_fields_ = false;
  std::vector<labels::Requirement> labels_;
  std::vector<FieldReq> fields_;
  std::vector<std::string> errors_;
};

// A NodeSelector: its terms are ORed; empty terms are skipped and invalid ones never match, their
// errors kept for callers that must report them (upstream LazyErrorNodeSelector).
class NodeSelectorMatcher {
 public:
  NodeSelectorMatcher() = default;
  explicit NodeSelectorMatcher(const api::NodeSelector& ns, const std::string& path = "nodeSelectorTerms");
  bool matches(const api::Node& node) const { return matches(node.metadata.labels, node.metadata.name); }
  bool matches(const api::StringMap& node_labels, std::string_view node_name = {}) const;
  const std::vector<std::string>& errors() const { return errors_; }
  std::string error_string() const;  // errors joined by "; "

 private:
  std::vector<CompiledNodeSelectorTerm> terms_;  // valid, non-empty terms only
  std::vector<std::string> errors_;
};

// Preferred terms (upstream PreferredSchedulingTerms): score = sum of the weights of matching
// terms; weight-0 and empty terms are dropped before parsing, invalid ones are reported.
class PreferredSchedulingTerms {
 public:
  PreferredSchedulingTerms() = default;
  explicit PreferredSchedulingTerms(const std::vector<api::PreferredSchedulingTerm>& terms,
                                    const std::string& path = "preferredDuringSchedulingIgnoredDuringExecution");
  std::int64_t score(const api::Node& node) const;
  bool empty() const { return terms_.empty(); }
  const std::vector<std::string>& errors() const { return errors_; }
  std::string error_string() const;  // errors joined by "; "

 private:
  std::vector<std::pair<std::int32_t, CompiledNodeSelectorTerm>> terms_;
  std::vector<std::string> errors_;
};

// The pod's spec.nodeSelector AND its required node affinity (upstream
// nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)); parse errors only make terms miss.
class RequiredNodeAffinity {
 public:
  explicit RequiredNodeAffinity(const api::Pod& pod);
  bool matches(const api::Node& node) const;

 private:
  api::StringMap node_selector_;
  std::optional<NodeSelectorMatcher> affinity_;
};

// One-shot convenience (parses every call; hot paths keep a RequiredNodeAffinity in CycleState).
bool required_node_affinity_matches(const api::Pod& pod, const api::Node& node);

// ---------------------------------------------------------------- taints and tolerations
inline constexpr std::string_view kTaintEffectNoSchedule = "NoSchedule";
inline constexpr std::string_view kTaintEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kTaintEffectNoExecute = "NoExecute";

// Upstream Toleration.ToleratesTaint: an empty toleration effect/key is a wildcard, operator ""
// means Equal.
bool tolerates_taint(const api::Toleration& toleration, const api::Taint& taint);
bool taint_tolerated_by_tolerations(const api::Taint& taint, const std::vector<api::Toleration>& tolerations);
// First taint that passes `inclusion` (empty = all) and is not tolerated; nullptr when none.
const api::Taint* find_matching_untolerated_taint(const std::vector<api::Taint>& taints,
                                                  const std::vector<api::Toleration>& tolerations,
                                                  const std::function<bool(const api::Taint&)>& inclusion = {});
// The taints a pod must tolerate to be placed on a node: NoSchedule and NoExecute (upstream
// helper.DoNotScheduleTaintsFilterFunc); pass as find_matching_untolerated_taint's `inclusion`.
bool is_do_not_schedule_taint(const api::Taint& taint);
// Element-wise equality of the API fields (upstream compares the slices with reflect.DeepEqual),
// for event handlers and queueing hints that react to taint/toleration changes.
bool taints_equal(const std::vector<api::Taint>& a, const std::vector<api::Taint>& b);
bool tolerations_equal(const std::vector<api::Toleration>& a, const std::vector<api::Toleration>& b);

// ---------------------------------------------------------------- spreading
// Upstream helper.DefaultSelector: union of the selectors of services selecting the pod, plus
// the selector of its controlling ReplicationController / ReplicaSet / StatefulSet. Empty
// (selects everything) when nothing selects the pod.
labels::Selector default_selector(const api::Pod& pod, const ClusterLister& lister);

// Host ports a pod asks for (containers only, as upstream NodeInfo/NodePorts use them).
std::vector<const api::ContainerPort*> host_ports_of(const api::Pod& pod);

}  // namespace ksched::scheduler::framework
