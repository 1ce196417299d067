// InterPodAffinity (upstream framework/plugins/interpodaffinity, v1.32): required pod affinity /
// anti-affinity of the incoming pod and required anti-affinity of existing pods in Filter;
// preferred terms of both sides (and existing pods' required affinity at hardPodAffinityWeight)
// in Score.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/framework/topology_counts.h"

namespace ksched::scheduler::plugins::interpodaffinity {

inline constexpr std::string_view kName = "InterPodAffinity";
inline constexpr std::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view kErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";

class InterPodAffinity final : public framework::SignPlugin,
                               public framework::PreFilterPlugin,
                               public framework::PreFilterExtensions,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::EnqueueExtensions {
 public:
  InterPodAffinity(framework::Handle& handle, std::int32_t hard_pod_affinity_weight,
                   bool ignore_preferred_terms_of_existing_pods)
      : handle_(handle),
        hardPodAffinityWeight_(hard_pod_affinity_weight),
        ignorePreferredTermsOfExistingPods_(ignore_preferred_terms_of_existing_pods) {}

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
  // Filter's own verdict over the PreFilter state, with no Status made: true when Filter rejects.
  framework::QuickReject quick_reject(const framework::CycleState& state, const api::Pod& pod) const override;

  framework::Status pre_score(framework::CycleState& state, const api::Pod& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes) override;
  framework::Status score(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info, std::int64_t& score) override;
  bool has_normalize_score() const override { return true; }
  framework::Status normalize_score(const framework::CycleState& state, const api::Pod& pod,
                                    framework::NodeScoreList& scores) override;

  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

  // Counts served by updating kept counts, and counts made over every node (read between cycles).
  std::uint64_t counts_updated() const {
    return existing_anti_affinity_cache_.updates() + affinity_cache_.updates() + anti_affinity_cache_.updates() +
           score_cache_.updates();
  }
  std::uint64_t counts_recounted() const {
    return existing_anti_affinity_cache_.recounts() + affinity_cache_.recounts() + anti_affinity_cache_.recounts() +
           score_cache_.recounts();
  }

 private:
  // Upstream mergeAffinityTermNamespacesIfNotEmpty: a namespaceSelector is unrolled into the
  // namespace set (from the namespace lister) and replaced by "nothing".
  void merge_namespaces(std::vector<framework::AffinityTerm*>& terms) const;

  framework::Handle& handle_;
  std::int32_t hardPodAffinityWeight_ = 1;
  bool ignorePreferredTermsOfExistingPods_ = false;
  // Counts kept across cycles, one cache per kind of count, keyed by the incoming pod's inputs to
  // it: matching every existing pod each cycle cost O(pods in the cluster) per pod scheduled.
  framework::TopologyCountsCache existing_anti_affinity_cache_;
  framework::TopologyCountsCache affinity_cache_;
  framework::TopologyCountsCache anti_affinity_cache_;
  framework::TopologyCountsCache score_cache_;
};

// Args: config::InterPodAffinityArgs (nullptr → defaults).
util::Result<std::shared_ptr<framework::Plugin>> make_inter_pod_affinity(const framework::PluginArgs& args,
                                                                         framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::interpodaffinity
