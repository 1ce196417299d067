#include "scheduler/plugins/noderesources/fit.h"

#include <cmath>
#include <optional>

#include "scheduler/config/features.h"
#include "scheduler/dra/manager.h"

namespace ksched::scheduler::plugins::noderesources {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterNodeResourcesFit";
constexpr std::string_view kPreScoreStateKey = "PreScoreNodeResourcesFit";
constexpr std::int64_t kMaxUtilization = 100;
constexpr std::int64_t kMaxCustomPriorityScore = 10;

// A requested scalar with its reason prepared once per cycle.
struct ScalarRequest {
  std::string name;
  std::int64_t quantity = 0;
  std::string reason;  // "Insufficient <name>"
  bool ignored = false;
  // DRAExtendedResource: a DeviceClass maps the resource, so a node that does not advertise it
  // leaves it to DynamicResources (upstream shouldDelegateResourceToDRA).
  bool backed_by_dra = false;
};

struct PreFilterState final : framework::StateData {
  framework::Resource request;
  std::vector<ScalarRequest> scalars;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only
};

struct PreScoreState final : framework::StateData {
  std::vector<std::int64_t> podRequests;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreScoreState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only
};

bool is_ignored(std::string_view name, const std::set<std::string, std::less<>>& ignored,
                const std::set<std::string, std::less<>>& groups) {
  // Only extended resources can be ignored; the group is the part before '/'.
  if (!is_extended_resource_name(name)) return false;
  if (ignored.count(name)) return true;
  if (!groups.empty()) {
    const auto slash = name.find('/');
    if (groups.count(name.substr(0, slash))) return true;
  }
  return false;
}

// `dra`: the DRA state whose DeviceClasses map extended resources, when DRAExtendedResource is on
// (null: no resource is left to DynamicResources).
PreFilterState make_pre_filter_state(const api::Pod& pod, const std::set<std::string, std::less<>>& ignored,
                                     const std::set<std::string, std::less<>>& groups,
                                     const dra::Manager* dra) {
  PreFilterState s;
  s.request = framework::compute_pod_requests(pod, false);
  for (const auto& [name, q] : s.request.scalarResources) {
    if (q == 0) continue;
    const bool backed = dra != nullptr && dra->class_for_extended_resource(name) != nullptr;
    s.scalars.push_back(
        ScalarRequest{name, q, "Insufficient " + name, is_ignored(name, ignored, groups), backed});
  }
  return s;
}

template <class Emit>
void check_fit(const PreFilterState& s, const framework::NodeInfo& ni, Emit&& emit) {
  const auto& alloc = ni.allocatable;
  const auto& used = ni.requested;
  const std::int64_t pods = static_cast<std::int64_t>(ni.pods.size());
  if (pods + 1 > alloc.allowedPodNumber) emit("pods", kTooManyPods, 1, pods, alloc.allowedPodNumber);
  const auto& r = s.request;
  if (r.milliCPU == 0 && r.memory == 0 && r.ephemeralStorage == 0 && r.scalarResources.empty()) return;
  if (r.milliCPU > 0 && r.milliCPU > alloc.milliCPU - used.milliCPU) {
    emit("cpu", "Insufficient cpu", r.milliCPU, used.milliCPU, alloc.milliCPU);
  }
  if (r.memory > 0 && r.memory > alloc.memory - used.memory) {
    emit("memory", "Insufficient memory", r.memory, used.memory, alloc.memory);
  }
  if (r.ephemeralStorage > 0 && r.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) {
    emit("ephemeral-storage", "Insufficient ephemeral-storage", r.ephemeralStorage, used.ephemeralStorage,
         alloc.ephemeralStorage);
  }
  for (const auto& sc : s.scalars) {
    if (sc.ignored) continue;
    const std::int64_t* a = alloc.scalarResources.find(sc.name);
    const std::int64_t* u = used.scalarResources.find(sc.name);
    const std::int64_t have = a ? *a : 0;
    if (sc.backed_by_dra && have == 0) continue;  // the node has it through DRA, or not at all
    const std::int64_t in_use = u ? *u : 0;
    if (sc.quantity > have - in_use) emit(sc.name, sc.reason, sc.quantity, in_use, have);
  }
}

std::int64_t least_requested_score(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * framework::kMaxNodeScore / capacity;
}

std::int64_t most_requested_score(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0) return 0;
  // Defaulted (non-zero) requests can exceed capacity.
  if (requested > capacity) requested = capacity;
  return requested * framework::kMaxNodeScore / capacity;
}

// Upstream helper.BuildBrokenLinearFunction over (utilization, score) points.
std::int64_t broken_linear(const std::vector<std::pair<std::int64_t, std::int64_t>>& shape, std::int64_t p) {
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].first) {
      if (i == 0) return shape[0].second;
      const auto [u0, s0] = shape[i - 1];
      const auto [u1, s1] = shape[i];
      return s0 + (s1 - s0) * (p - u0) / (u1 - u0);
    }
  }
  return shape.back().second;
}

}  // namespace

std::vector<InsufficientResource> fits(const api::Pod& pod, const framework::NodeInfo& node_info,
                                       const std::set<std::string, std::less<>>& ignored_resources,
                                       const std::set<std::string, std::less<>>& ignored_groups,
                                       const dra::Manager* dra) {
  const PreFilterState s = make_pre_filter_state(pod, ignored_resources, ignored_groups, dra);
  std::vector<InsufficientResource> out;
  check_fit(s, node_info, [&](std::string_view name, std::string_view reason, std::int64_t req, std::int64_t used,
                              std::int64_t cap) {
    out.push_back(InsufficientResource{std::string(name), std::string(reason), req, used, cap});
  });
  return out;
}

util::Result<std::shared_ptr<Fit>> Fit::create(const config::NodeResourcesFitArgs& args,
                                               const dra::Manager* dra) {
  auto pl = std::make_shared<Fit>();
  // Upstream NewFit: the DRA state only with DRAExtendedResource on.
  if (config::features().draExtendedResource) pl->dra_ = dra;
  pl->extended_resources_ = config::features().draExtendedResource;
  pl->ignoredResources_.insert(args.ignoredResources.begin(), args.ignoredResources.end());
  pl->ignoredResourceGroups_.insert(args.ignoredResourceGroups.begin(), args.ignoredResourceGroups.end());
  const auto& strategy = args.scoringStrategy;
  std::vector<std::pair<std::string, std::int64_t>> specs;
  for (const auto& r : strategy.resources) specs.emplace_back(r.name, r.weight);
  pl->resources_ = make_scored_resources(specs);
  if (strategy.type == config::kLeastAllocated) {
    pl->strategy_ = Strategy::LeastAllocated;
  } else if (strategy.type == config::kMostAllocated) {
    pl->strategy_ = Strategy::MostAllocated;
  } else if (strategy.type == config::kRequestedToCapacityRatio) {
    pl->strategy_ = Strategy::RequestedToCapacityRatio;
    if (!strategy.requestedToCapacityRatio || strategy.requestedToCapacityRatio->shape.empty()) {
      return util::make_error("scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified");
    }
    // Shape scores are 0..10 in the config; scale them to 0..MaxNodeScore.
    for (const auto& p : strategy.requestedToCapacityRatio->shape) {
      pl->shape_.emplace_back(p.utilization, static_cast<std::int64_t>(p.score) * (framework::kMaxNodeScore / kMaxCustomPriorityScore));
    }
  } else {
    return util::make_error("scoring strategy " + strategy.type + " is not supported");
  }
  return pl;
}

Status Fit::pre_filter(framework::CycleState& state, const api::Pod& pod, const std::vector<framework::NodeInfoPtr>&,
                       framework::PreFilterResult&) {
  state.write(std::string(kPreFilterStateKey), std::make_shared<PreFilterState>(make_pre_filter_state(
                                                   pod, ignoredResources_, ignoredResourceGroups_, dra_)));
  return {};
}

Status Fit::filter(const framework::CycleState& state, const api::Pod&, const framework::NodeInfo& node_info) {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
  std::vector<std::string> reasons;
  check_fit(*s, node_info, [&](std::string_view, std::string_view reason, std::int64_t, std::int64_t, std::int64_t) {
    reasons.emplace_back(reason);
  });
  if (reasons.empty()) return {};
  return Status(framework::Code::Unschedulable, std::move(reasons));
}

Status Fit::pre_score(framework::CycleState& state, const api::Pod& pod, const std::vector<framework::NodeInfoPtr>&) {
  auto s = std::make_shared<PreScoreState>();
  s->podRequests = pod_resource_requests(pod, resources_, /*non_zero=*/true);
  state.write(std::string(kPreScoreStateKey), std::move(s));
  return {};
}

std::int64_t Fit::score_node(const framework::NodeInfo& ni, const std::vector<std::int64_t>& pod_requests) const {
  std::int64_t node_score = 0;
  std::int64_t weight_sum = 0;
  for (std::size_t i = 0; i < resources_.size(); ++i) {
    std::int64_t alloc, req;
    allocatable_and_requested(ni, resources_[i], pod_requests[i], /*use_requested=*/false, alloc, req);
    if (alloc == 0) continue;
    const std::int64_t w = resources_[i].weight;
    switch (strategy_) {
      case Strategy::LeastAllocated:
        node_score += least_requested_score(req, alloc) * w;
        weight_sum += w;
        break;
      case Strategy::MostAllocated:
        node_score += most_requested_score(req, alloc) * w;
        weight_sum += w;
        break;
      case Strategy::RequestedToCapacityRatio: {
        const std::int64_t u = req > alloc ? kMaxUtilization : req * kMaxUtilization / alloc;
        const std::int64_t rs = broken_linear(shape_, u);
        // Resources scoring 0 are left out of both sums.
        if (rs > 0) {
          node_score += rs * w;
          weight_sum += w;
        }
        break;
      }
    }
  }
  if (weight_sum == 0) return 0;
  if (strategy_ == Strategy::RequestedToCapacityRatio) {
    return static_cast<std::int64_t>(std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
  }
  return node_score / weight_sum;
}

Status Fit::score(const framework::CycleState& state, const api::Pod& pod, const framework::NodeInfo& node_info,
                  std::int64_t& score) {
  if (node_info.node() == nullptr) return Status::error("node not found");
  if (const auto* s = state.read<PreScoreState>(kPreScoreStateKey)) {
    score = score_node(node_info, s->podRequests);
  } else {
    score = score_node(node_info, pod_resource_requests(pod, resources_, true));
  }
  return {};
}

std::vector<ClusterEventWithHint> Fit::events_to_register() const {
  ClusterEventWithHint pod_event;
  pod_event.event = ClusterEvent{framework::EventResource::Pod, framework::kDelete, {}};
  pod_event.hint = [](const api::Pod&, const std::shared_ptr<const void>& oldObj, const std::shared_ptr<const void>&) {
    const auto* deleted = static_cast<const api::Pod*>(oldObj.get());
    // Deleting an unscheduled pod frees nothing.
    if (deleted == nullptr || deleted->spec.nodeName.empty()) return QueueingHint::Skip;
    return QueueingHint::Queue;
  };
  ClusterEventWithHint node_event;
  node_event.event = ClusterEvent{framework::EventResource::Node, framework::kAdd | framework::kUpdateNodeAllocatable, {}};
  node_event.hint = [dra = dra_](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                                 const std::shared_ptr<const void>& newObj) {
    const auto* modified = static_cast<const api::Node*>(newObj.get());
    if (modified == nullptr) return QueueingHint::Skip;
    framework::NodeInfo fresh(std::make_shared<const api::Node>(*modified));
    // Would not fit even on an empty node of this shape (upstream isFit: no ignored resources).
    if (!fits(pod, fresh, {}, {}, dra).empty()) return QueueingHint::Skip;
    const auto* original = static_cast<const api::Node*>(oldObj.get());
    if (original == nullptr) return QueueingHint::Queue;
    const auto before = framework::Resource::from(original->status.allocatable);
    const auto& after = fresh.allocatable;
    if (after.allowedPodNumber > before.allowedPodNumber) return QueueingHint::Queue;
    const auto req = framework::compute_pod_requests(pod, false);
    if (req.milliCPU == 0 && req.memory == 0 && req.ephemeralStorage == 0 && req.scalarResources.empty()) {
      return QueueingHint::Skip;
    }
    if ((req.milliCPU > 0 && after.milliCPU > before.milliCPU) || (req.memory > 0 && after.memory > before.memory) ||
        (req.ephemeralStorage > 0 && after.ephemeralStorage > before.ephemeralStorage)) {
      return QueueingHint::Queue;
    }
    for (const auto& [name, q] : req.scalarResources) {
      if (q > 0 && after.get(name) > before.get(name)) return QueueingHint::Queue;
      // Upstream haveAnyRequestedResourcesIncreased: a resource DRA provides on this node counts.
      if (q > 0 && dra != nullptr && after.get(name) == 0 && dra->class_for_extended_resource(name))
        return QueueingHint::Queue;
    }
    return QueueingHint::Skip;
  };
  std::vector<ClusterEventWithHint> events{std::move(pod_event), std::move(node_event)};
  if (extended_resources_) {
    // A pod may wait for a class that maps its extended resource (upstream
    // isSchedulableAfterDeviceClassEvent).
    ClusterEventWithHint class_event;
    class_event.event =
        ClusterEvent{framework::EventResource::DeviceClass, framework::kAdd | framework::kUpdate, {}};
    class_event.hint = [](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                          const std::shared_ptr<const void>& newObj) {
      return is_schedulable_after_device_class_change(
          pod, static_cast<const api::resourcev1::DeviceClass*>(oldObj.get()),
          static_cast<const api::resourcev1::DeviceClass*>(newObj.get()));
    };
    events.push_back(std::move(class_event));
  }
  return events;
}

QueueingHint is_schedulable_after_device_class_change(const api::Pod& pod,
                                                      const api::resourcev1::DeviceClass* original,
                                                      const api::resourcev1::DeviceClass* modified) {
  if (modified == nullptr) return QueueingHint::Skip;
  std::optional<framework::Resource> requests;
  auto requested = [&](std::string_view name) {
    if (!requests) requests = framework::compute_pod_requests(pod, false);
    return requests->scalarResources.find(name) != nullptr;
  };
  if (original != nullptr) {
    // Same extended resource name: nothing changed for the pod.
    if (original->spec.extendedResourceName.value_or("") == modified->spec.extendedResourceName.value_or(""))
      return QueueingHint::Skip;
  } else if (requested(std::string(dra::kResourceDeviceClassPrefix) +
                       std::string(modified->metadata.name.view()))) {
    // The implicit name only on Add: a class's name does not change.
    return QueueingHint::Queue;
  }
  if (modified->spec.extendedResourceName && requested(*modified->spec.extendedResourceName))
    return QueueingHint::Queue;
  return QueueingHint::Skip;
}

framework::Status Fit::score_placement(const framework::PodGroupInfo& /*group*/,
                                       const framework::PodGroupAssignments& assignments, std::int64_t& score) {
  score = 0;
  if (!assignments.placement) return framework::Status::error("placement score without a placement");
  const std::size_t n = resources_.size();
  std::vector<std::int64_t> group_requests(n, 0);
  for (const auto& a : assignments.proposed) {
    const auto r = pod_resource_requests(*a.pod, resources_, /*non_zero=*/true);
    for (std::size_t i = 0; i < n; ++i) group_requests[i] += r[i];
  }
  std::int64_t total = 0;
  std::int64_t weight_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t alloc_sum = 0;
    std::int64_t req_sum = group_requests[i];
    for (const auto& ni : assignments.placement->nodes()) {
      std::int64_t alloc, req;
      // With the group's request as the pod's, so that a scalar resource the group asks for counts.
      allocatable_and_requested(*ni, resources_[i], group_requests[i], /*use_requested=*/false, alloc, req);
      if (alloc == 0 && req == 0) continue;
      alloc_sum += alloc;
      req_sum += req - group_requests[i];
    }
    if (alloc_sum == 0) continue;
    const std::int64_t w = resources_[i].weight;
    total += most_requested_score(req_sum, alloc_sum) * w;
    weight_sum += w;
  }
  score = weight_sum == 0 ? 0 : total / weight_sum;
  return {};
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_resources_fit(const framework::PluginArgs& args,
                                                                         framework::Handle& handle) {
  const auto* a = args.as<config::NodeResourcesFitArgs>();
  auto pl = Fit::create(a ? *a : config::NodeResourcesFitArgs{}, handle.dra_manager());
  if (!pl.ok()) return util::make_error(pl.error());
  return std::shared_ptr<framework::Plugin>(std::move(pl.value()));
}

void Fit::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  // Upstream: "signature disabled when dra extended resources enabled".
  if (extended_resources_) {
    sig.set_unsignable();
    return;
  }
  framework::sign_requests(pod, kFitName, sig);
}

}  // namespace ksched::scheduler::plugins::noderesources
