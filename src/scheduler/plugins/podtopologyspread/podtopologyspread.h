// PodTopologySpread (upstream framework/plugins/podtopologyspread, v1.32): hard constraints in
// PreFilter/Filter, soft constraints in PreScore/Score/NormalizeScore, system default spreading
// from Services/RCs/RSs/StatefulSets.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/core.h"
#include "api/labels.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/topology_counts.h"

namespace ksched::scheduler::plugins::podtopologyspread {

inline constexpr std::string_view kName = "PodTopologySpread";
inline constexpr std::string_view kErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view kErrReasonNodeLabelNotMatch =
    "node(s) didn't match pod topology spread constraints (missing required label)";

using framework::kLabelHostname;
inline constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";

// A constraint with its selector parsed and policies resolved (upstream topologySpreadConstraint).
struct Constraint {
  std::int32_t maxSkew = 0;
  std::string topologyKey;
  labels::Selector selector;
  std::int32_t minDomains = 1;
  bool honorNodeAffinity = true;  // nodeAffinityPolicy, default Honor
  bool honorNodeTaints = false;   // nodeTaintsPolicy, default Ignore
};

// Upstream systemDefaultConstraints: hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway.
std::vector<api::TopologySpreadConstraint> system_default_constraints();

class PodTopologySpread final : public framework::SignPlugin,
                                public framework::PreFilterPlugin,
                                public framework::PreFilterExtensions,
                                public framework::FilterPlugin,
                                public framework::PreScorePlugin,
                                public framework::ScorePlugin,
                                public framework::EnqueueExtensions {
 public:
  PodTopologySpread(framework::Handle& handle, std::vector<api::TopologySpreadConstraint> default_constraints,
                    bool system_defaulted);

  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;

  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* pre_filter_extensions() override { return this; }
  framework::Status add_pod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                            const framework::PodInfoPtr& pod_to_add, const framework::NodeInfo& node_info) override;
  framework::Status remove_pod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                               const framework::PodInfoPtr& pod_to_remove,
                               const framework::NodeInfo& node_info) override;
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Its Filter errors only on a missing PreFilter state or node object: the same for every node.
  bool filter_error_depends_on_node() const override { return false; }

  framework::Status pre_score(framework::CycleState& state, const api::Pod& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes) override;
  framework::Status score(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info, std::int64_t& score) override;
  bool has_normalize_score() const override { return true; }
  framework::Status normalize_score(const framework::CycleState& state, const api::Pod& pod,
                                    framework::NodeScoreList& scores) override;

  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

  // Constraints with whenUnsatisfiable == `action` (pod's own, else the defaults with the default
  // selector). Error when a selector does not parse.
  util::Result<std::vector<Constraint>> constraints_for(const api::Pod& pod, std::string_view action) const;

  // PreFilter and PreScore counts served by updating kept counts, and counts made over every node (read
  // between cycles).
  std::uint64_t counts_updated() const { return match_cache_.updates() + score_cache_.updates(); }
  std::uint64_t counts_recounted() const { return match_cache_.recounts() + score_cache_.recounts(); }

 private:
  util::Result<std::vector<Constraint>> filter_constraints(const std::vector<api::TopologySpreadConstraint>& in,
                                                           const api::StringMap& pod_labels,
                                                           std::string_view action) const;

  framework::Handle& handle_;
  std::vector<api::TopologySpreadConstraint> default_constraints_;
  bool system_defaulted_ = false;
  // PreFilter's per-domain counts, kept across cycles per inclusion inputs (see inclusion_key):
  // matching every pod on every node each cycle cost O(pods in the cluster) per pod scheduled.
  framework::TopologyCountsCache match_cache_;
  framework::TopologyCountsCache score_cache_;  // PreScore's, likewise
};

// Args: config::PodTopologySpreadArgs (nullptr → System defaulting).
util::Result<std::shared_ptr<framework::Plugin>> make_pod_topology_spread(const framework::PluginArgs& args,
                                                                          framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::podtopologyspread
