#include "scheduler/plugins/defaultpreemption/defaultpreemption.h"

#include <algorithm>
#include <random>

#include "scheduler/config/features.h"
#include "scheduler/config/types.h"

namespace ksched::scheduler::plugins::defaultpreemption {

using framework::Status;
namespace pre = framework::preemption;

namespace {

// Deleted by the scheduler's preemption and still terminating.
bool terminating_by_preemption(const api::Pod& p) {
  if (!p.metadata.deletionTimestamp) return false;
  for (const auto& c : p.status.conditions) {
    if (c.type == "DisruptionTarget") return c.status == "True" && c.reason == "PreemptionByScheduler";
  }
  return false;
}

}  // namespace

DefaultPreemption::DefaultPreemption(framework::Handle& handle, std::int32_t pct, std::int32_t abs)
    : handle_(handle), pct_(pct), abs_(abs), evaluator_(std::string(kName), handle, *this, config::features().schedulerAsyncPreemption) {
  auto rng = std::make_shared<std::mt19937>(std::random_device{}());
  offset_rand = [rng](int n) { return n <= 0 ? 0 : std::uniform_int_distribution<int>(0, n - 1)(*rng); };
}

Status DefaultPreemption::post_filter(framework::CycleState& state, const api::Pod& pod,
                                      const framework::NodeToStatus& filtered, framework::PostFilterResult& result) {
  Status s = evaluator_.preempt(state, pod, filtered, result);
  std::string msg = s.message();
  if (!msg.empty()) return Status(s.code(), "preemption: " + msg);
  return s;
}

Status DefaultPreemption::pre_enqueue(const api::Pod& pod) {
  if (!evaluator_.async_enabled()) return {};
  if (evaluator_.is_pod_running_preemption(pod.metadata.uid)) return Status::unresolvable(std::string(kWaitingForPreemption));
  return {};
}

std::vector<framework::ClusterEventWithHint> DefaultPreemption::events_to_register() const {
  if (!evaluator_.async_enabled()) return {};
  framework::ClusterEventWithHint e;
  e.event = framework::ClusterEvent{framework::EventResource::Pod, framework::kDelete, ""};
  e.hint = [](const api::Pod&, const std::shared_ptr<const void>&, const std::shared_ptr<const void>&) {
    return framework::QueueingHint::Skip;
  };
  return {e};
}

int DefaultPreemption::calculate_num_candidates(int num_nodes) const {
  std::int64_t n = static_cast<std::int64_t>(num_nodes) * pct_ / 100;
  if (n < abs_) n = abs_;
  if (n > num_nodes) n = num_nodes;
  return static_cast<int>(n);
}

std::pair<int, int> DefaultPreemption::get_offset_and_num_candidates(int num_nodes) {
  return {offset_rand(num_nodes), calculate_num_candidates(num_nodes)};
}

std::string DefaultPreemption::pod_eligible_to_preempt_others(const api::Pod& pod,
                                                              const Status& nominated_node_status) {
  if (pod.spec.preemptionPolicy && *pod.spec.preemptionPolicy == "Never") {
    return "not eligible due to preemptionPolicy=Never.";
  }
  const std::string& nominated = pod.status.nominatedNodeName;
  if (!nominated.empty()) {
    // The nominated node became unresolvable: preempt again elsewhere.
    if (nominated_node_status.code() == framework::Code::UnschedulableAndUnresolvable) return {};
    if (auto ni = handle_.snapshot_node_infos().get(nominated)) {
      const auto prio = api::pod_priority(pod);
      for (const auto& pi : ni->pods) {
        if (api::pod_priority(*pi->pod) < prio && terminating_by_preemption(*pi->pod)) {
          return "not eligible due to a terminating pod on the nominated node.";
        }
      }
    }
  }
  return {};
}

Status DefaultPreemption::select_victims_on_node(framework::CycleState& state, const api::Pod& pod,
                                                 framework::NodeInfo& node_info, const pre::PdbCache& pdbs,
                                                 std::vector<framework::PodPtr>& victims_out,
                                                 int& num_pdb_violations) {
  victims_out.clear();
  num_pdb_violations = 0;
  auto remove_pod = [&](const framework::PodInfoPtr& pi) -> Status {
    if (!node_info.remove_pod(*pi->pod)) {
      return Status::error("no corresponding pod " + pi->pod->metadata.name + " in pods of node " + node_info.name());
    }
    Status s = handle_.run_pre_filter_extension_remove_pod(state, pod, pi, node_info);
    return s.is_success() ? Status{} : Status::error(s.message());
  };
  auto add_pod = [&](const framework::PodInfoPtr& pi) -> Status {
    node_info.add_pod(pi);
    Status s = handle_.run_pre_filter_extension_add_pod(state, pod, pi, node_info);
    return s.is_success() ? Status{} : Status::error(s.message());
  };

  // First remove every lower-priority pod and check that the pod fits without them.
  const auto prio = api::pod_priority(pod);
  std::vector<framework::PodInfoPtr> potential;
  for (const auto& pi : node_info.pods) {
    if (api::pod_priority(*pi->pod) < prio) potential.push_back(pi);
  }
  for (const auto& pi : potential) {
    if (Status s = remove_pod(pi); !s.is_success()) return s;
  }
  if (potential.empty()) return Status::unresolvable(std::string(kNoVictims));
  if (Status s = handle_.run_filter_plugins_with_nominated_pods(state, pod, node_info); !s.is_success()) return s;

  // Reprieve as many pods as possible, most important first, PDB-violating ones before the rest.
  const std::int64_t now = pre::now_unix_nanos();
  std::stable_sort(potential.begin(), potential.end(), [now](const auto& a, const auto& b) {
    return pre::more_important_pod(*a->pod, *b->pod, now);
  });
  std::vector<framework::PodInfoPtr> violating, non_violating;
  pre::split_by_pdb_violation(potential, pdbs, violating, non_violating);
  std::vector<framework::PodInfoPtr> victims;
  auto reprieve = [&](const framework::PodInfoPtr& pi, bool& fits) -> Status {
    if (Status s = add_pod(pi); !s.is_success()) return s;
    fits = handle_.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success();
    if (!fits) {
      if (Status s = remove_pod(pi); !s.is_success()) return s;
      victims.push_back(pi);
    }
    return {};
  };
  for (const auto& pi : violating) {
    bool fits = false;
    if (Status s = reprieve(pi, fits); !s.is_success()) return s;
    if (!fits) ++num_pdb_violations;
  }
  for (const auto& pi : non_violating) {
    bool fits = false;
    if (Status s = reprieve(pi, fits); !s.is_success()) return s;
  }
  // v1.32: keep victims most important first when both groups contributed.
  if (!violating.empty() && !non_violating.empty()) {
    std::stable_sort(victims.begin(), victims.end(), [now](const auto& a, const auto& b) {
      return pre::more_important_pod(*a->pod, *b->pod, now);
    });
  }
  for (const auto& pi : victims) victims_out.push_back(pi->pod);
  return {};
}

util::Result<std::shared_ptr<framework::Plugin>> make_default_preemption(const framework::PluginArgs& args,
                                                                         framework::Handle& handle) {
  const auto* a = args.as<config::DefaultPreemptionArgs>();
  config::DefaultPreemptionArgs defaults;
  if (a == nullptr) a = &defaults;
  if (a->minCandidateNodesPercentage < 0 || a->minCandidateNodesPercentage > 100) {
    return util::make_error("minCandidateNodesPercentage: Invalid value: " +
                            std::to_string(a->minCandidateNodesPercentage) + ": not in valid range [0, 100]");
  }
  if (a->minCandidateNodesAbsolute < 0) {
    return util::make_error("minCandidateNodesAbsolute: Invalid value: " +
                            std::to_string(a->minCandidateNodesAbsolute) + ": not in valid range [0, inf)");
  }
  if (a->minCandidateNodesPercentage == 0 && a->minCandidateNodesAbsolute == 0) {
    return util::make_error("minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
                            "minCandidateNodesAbsolute");
  }
  return std::shared_ptr<framework::Plugin>(std::make_shared<DefaultPreemption>(
      handle, a->minCandidateNodesPercentage, a->minCandidateNodesAbsolute));
}

}  // namespace ksched::scheduler::plugins::defaultpreemption
