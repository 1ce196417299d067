// TaintToleration: Filter on untolerated NoSchedule/NoExecute taints; Score counts untolerated
// PreferNoSchedule taints (fewer is better, reverse-normalized).
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::tainttoleration {

inline constexpr std::string_view kName = "TaintToleration";
inline constexpr std::string_view kErrReasonUntolerated = "node(s) had untolerated taint(s)";

class TaintToleration final : public framework::SignPlugin,
                              public framework::FilterPlugin,
                              public framework::PreScorePlugin,
                              public framework::ScorePlugin,
                              public framework::EnqueueExtensions {
 public:
  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // U&U "node(s) had untolerated taint(s)" when a NoSchedule/NoExecute taint is not tolerated.
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Its Filter errors only on a missing PreFilter state or node object: the same for every node.
  bool filter_error_depends_on_node() const override { return false; }
  // Stores the pod's tolerations whose effect is "" or PreferNoSchedule.
  framework::Status pre_score(framework::CycleState& state, const api::Pod& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes) override;
  // Raw score = number of PreferNoSchedule taints those tolerations do not tolerate.
  framework::Status score(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info, std::int64_t& score) override;
  bool has_normalize_score() const override { return true; }
  framework::Status normalize_score(const framework::CycleState& state, const api::Pod& pod,
                                    framework::NodeScoreList& scores) override;
  // Node/Add|UpdateNodeTaint (a blocking taint went away) and Pod/UpdatePodTolerations.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;
};

util::Result<std::shared_ptr<framework::Plugin>> make_taint_toleration(const framework::PluginArgs& args,
                                                                       framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::tainttoleration
