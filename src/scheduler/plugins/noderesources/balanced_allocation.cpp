#include "scheduler/plugins/noderesources/balanced_allocation.h"

#include <cmath>

namespace ksched::scheduler::plugins::noderesources {

using framework::Status;

namespace {

constexpr std::string_view kPreScoreStateKey = "PreScoreNodeResourcesBalancedAllocation";

struct PreScoreState final : framework::StateData {
  std::vector<std::int64_t> podRequests;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreScoreState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only
};

}  // namespace

BalancedAllocation::BalancedAllocation(const config::NodeResourcesBalancedAllocationArgs& args) {
  std::vector<std::pair<std::string, std::int64_t>> specs;
  for (const auto& r : args.resources) specs.emplace_back(r.name, r.weight);
  resources_ = make_scored_resources(specs);
}

Status BalancedAllocation::pre_score(framework::CycleState& state, const api::Pod& pod,
                                     const std::vector<framework::NodeInfoPtr>&) {
  auto s = std::make_shared<PreScoreState>();
  s->podRequests = pod_resource_requests(pod, resources_, /*non_zero=*/false);
  state.write(std::string(kPreScoreStateKey), std::move(s));
  return {};
}

std::int64_t BalancedAllocation::score_node(const framework::NodeInfo& ni,
                                            const std::vector<std::int64_t>& pod_requests) const {
  // Two passes over the fractions (recomputed identically) avoid a per-node buffer.
  auto fraction = [&](std::size_t i, bool& present) {
    std::int64_t alloc, req;
    allocatable_and_requested(ni, resources_[i], pod_requests[i], /*use_requested=*/true, alloc, req);
    present = alloc != 0;
    if (!present) return 0.0;
    const double f = static_cast<double>(req) / static_cast<double>(alloc);
    return f > 1 ? 1.0 : f;
  };
  std::size_t n = 0;
  double total = 0;
  double first = 0, second = 0;
  for (std::size_t i = 0; i < resources_.size(); ++i) {
    bool present;
    const double f = fraction(i, present);
    if (!present) continue;
    if (n == 0) first = f;
    if (n == 1) second = f;
    total += f;
    ++n;
  }
  double std_dev = 0;
  if (n == 2) {
    std_dev = std::abs((first - second) / 2);
  } else if (n > 2) {
    const double mean = total / static_cast<double>(n);
    double sum = 0;
    for (std::size_t i = 0; i < resources_.size(); ++i) {
      bool present;
      const double f = fraction(i, present);
      if (present) sum += (f - mean) * (f - mean);
    }
    std_dev = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<std::int64_t>((1 - std_dev) * static_cast<double>(framework::kMaxNodeScore));
}

Status BalancedAllocation::score(const framework::CycleState& state, const api::Pod& pod,
                                 const framework::NodeInfo& node_info, std::int64_t& score) {
  if (node_info.node() == nullptr) return Status::error("node not found");
  if (const auto* s = state.read<PreScoreState>(kPreScoreStateKey)) {
    score = score_node(node_info, s->podRequests);
  } else {
    score = score_node(node_info, pod_resource_requests(pod, resources_, false));
  }
  return {};
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_resources_balanced_allocation(
    const framework::PluginArgs& args, framework::Handle&) {
  const auto* a = args.as<config::NodeResourcesBalancedAllocationArgs>();
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<BalancedAllocation>(a ? *a : config::NodeResourcesBalancedAllocationArgs{}));
}

void BalancedAllocation::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  framework::sign_requests(pod, kBalancedAllocationName, sig);
}

}  // namespace ksched::scheduler::plugins::noderesources
