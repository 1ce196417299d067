// Helpers shared by plugins (upstream pkg/scheduler/framework/plugins/helper and the
// component-helpers it relies on): score normalisation, node selector / required node affinity
// matching, taint toleration, and the default spreading selector.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
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
// One NodeSelectorTerm parsed once (upstream nodeaffinity nodeSelectorTerm). A term with a parse
// error (bad operator, bad key/value, wrong value count, non-integer Gt/Lt) never matches; an
// empty term matches nothing.
class CompiledNodeSelectorTerm {
 public:
  explicit CompiledNodeSelectorTerm(const api::NodeSelectorTerm& term);
  bool matches(const api::Node& node) const;
  bool valid() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  enum class Op { In, NotIn, Exists, DoesNotExist, Gt, Lt };
  struct Req {
    std::string key;
    Op op = Op::In;
    std::vector<std::string> values;
    std::int64_t number = 0;  // Gt/Lt
  };
  struct FieldReq {
    std::string key;
    bool equal = true;  // In (==) or NotIn (!=)
    std::string value;
  };
  std::vector<Req> labels_;
  std::vector<FieldReq> fields_;
  std::string error_;
};

// A NodeSelector: its terms are ORed (upstream LazyErrorNodeSelector).
class NodeSelectorMatcher {
 public:
  NodeSelectorMatcher() = default;
  explicit NodeSelectorMatcher(const api::NodeSelector& ns);
  bool matches(const api::Node& node) const;

 private:
  std::vector<CompiledNodeSelectorTerm> terms_;
};

// The pod's spec.nodeSelector AND its required node affinity (upstream
// nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)).
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

// Sum of weights of the preferred terms that match the node (NodeAffinity scoring helper).
std::int64_t preferred_scheduling_terms_score(const std::vector<api::PreferredSchedulingTerm>& terms,
                                              const api::Node& node);

// ---------------------------------------------------------------- taints and tolerations
// Upstream Toleration.ToleratesTaint.
bool tolerates_taint(const api::Toleration& toleration, const api::Taint& taint);
bool taint_tolerated_by_tolerations(const api::Taint& taint, const std::vector<api::Toleration>& tolerations);
// First taint that passes `inclusion` (empty = all) and is not tolerated; nullptr when none.
const api::Taint* find_matching_untolerated_taint(const std::vector<api::Taint>& taints,
                                                  const std::vector<api::Toleration>& tolerations,
                                                  const std::function<bool(const api::Taint&)>& inclusion = {});

// ---------------------------------------------------------------- spreading
// Upstream helper.DefaultSelector: union of the selectors of services selecting the pod, plus
// the selector of its controlling ReplicationController / ReplicaSet / StatefulSet. Empty
// (selects everything) when nothing selects the pod.
labels::Selector default_selector(const api::Pod& pod, const ClusterLister& lister);

// Host ports a pod asks for (containers only, as upstream NodeInfo/NodePorts use them).
std::vector<const api::ContainerPort*> host_ports_of(const api::Pod& pod);

}  // namespace ksched::scheduler::framework
