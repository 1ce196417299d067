// NodeDeclaredFeatures (alpha in v1.35, gate NodeDeclaredFeatures, off by default): a pod that
// needs a node feature (component-helpers/nodedeclaredfeatures: inferred from its spec) fits only
// nodes whose status.declaredFeatures name it. Upstream registers the plugin always and adds it
// to the default profile only with the gate; built with the gate off, it does nothing.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::nodedeclaredfeatures {

inline constexpr std::string_view kName = "NodeDeclaredFeatures";

// The features of upstream's registry (features.AllFeatures) that a pod can require at scheduling
// time. Only RestartAllContainersOnContainerExits is inferred from a pod's spec in v1.35: a
// container or init container with a restartPolicyRules entry whose action is
// RestartAllContainers. (GuaranteedQoSPodCPUResize and InPlacePodLevelResourcesVerticalScaling
// are inferred for updates only, which the scheduler does not check.)
inline constexpr std::string_view kRestartAllContainersOnContainerExits = "RestartAllContainersOnContainerExits";

// Upstream Framework.InferForPodScheduling over AllFeatures: the pod's required features, sorted.
std::vector<std::string> infer_for_pod_scheduling(const api::Pod& pod);

// Upstream MatchNodeFeatureSet: the required features missing from `declared`, in `required`'s
// order (empty: the node matches).
std::vector<std::string> unsatisfied(const std::vector<std::string>& required, const std::vector<std::string>& declared);

class NodeDeclaredFeatures final : public framework::SignPlugin,
                                   public framework::PreFilterPlugin,
                                   public framework::FilterPlugin,
                                   public framework::EnqueueExtensions {
 public:
  explicit NodeDeclaredFeatures(bool enabled) : enabled_(enabled) {}
  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // Skip when disabled or when the pod requires no feature; else stores the requirements.
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  // UnschedulableAndUnresolvable "node declared features check failed - unsatisfied
  // requirements: A, B" when the node lacks a required feature.
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Node/Add|UpdateNodeDeclaredFeature (queued unless the declared features stayed the same) and
  // Pod/Update (queued when the pod's own requirements changed); none when disabled.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

 private:
  bool enabled_;
};

util::Result<std::shared_ptr<framework::Plugin>> make_node_declared_features(const framework::PluginArgs& args,
                                                                             framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::nodedeclaredfeatures
