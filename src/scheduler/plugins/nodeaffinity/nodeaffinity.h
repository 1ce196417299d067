// NodeAffinity: spec.nodeSelector + required node affinity (Filter), preferred terms (Score), and
// the profile's addedAffinity (NodeAffinityArgs) applied to every pod.
#pragma once
#include <memory>
#include <optional>
#include <string_view>

#include "scheduler/framework/interface.h"
#include "scheduler/framework/plugin_helper.h"

namespace ksched::scheduler::plugins::nodeaffinity {

inline constexpr std::string_view kName = "NodeAffinity";
inline constexpr std::string_view kObjectNameField = "metadata.name";
inline constexpr std::string_view kErrReasonPod = "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity";
inline constexpr std::string_view kErrReasonConflict = "pod affinity terms conflict";

class NodeAffinity final : public framework::SignPlugin,
                           public framework::PreFilterPlugin,
                           public framework::FilterPlugin,
                           public framework::PreScorePlugin,
                           public framework::ScorePlugin,
                           public framework::EnqueueExtensions {
 public:
  // addedAffinity's required selector and preferred terms are parsed strictly here.
  static util::Result<std::shared_ptr<NodeAffinity>> create(const std::optional<api::NodeAffinity>& added);

  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // Skip when the pod has no nodeSelector, no required node affinity and there is no addedAffinity.
  // When every required term pins metadata.name (In), returns the union of those names.
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Its Filter errors only on a missing PreFilter state or node object: the same for every node.
  bool filter_error_depends_on_node() const override { return false; }
  framework::Status pre_score(framework::CycleState& state, const api::Pod& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes) override;
  // Σ weights of matching preferred terms (pod's and addedAffinity's).
  framework::Status score(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info, std::int64_t& score) override;
  bool has_normalize_score() const override { return true; }
  framework::Status normalize_score(const framework::CycleState& state, const api::Pod& pod,
                                    framework::NodeScoreList& scores) override;
  // Node/Add|UpdateNodeLabel, queueing when the node starts to match.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

 private:
  std::optional<framework::NodeSelectorMatcher> addedNodeSelector_;
  std::optional<framework::PreferredSchedulingTerms> addedPrefSchedTerms_;
};

util::Result<std::shared_ptr<framework::Plugin>> make_node_affinity(const framework::PluginArgs& args,
                                                                    framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::nodeaffinity
