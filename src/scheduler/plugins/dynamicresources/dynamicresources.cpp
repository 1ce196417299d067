#include "scheduler/plugins/dynamicresources/dynamicresources.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include "scheduler/config/features.h"
#include "scheduler/framework/plugin_helper.h"
#include "scheduler/plugins/dynamicresources/extended_resources.h"
#include "scheduler/podgroup/manager.h"
#include "util/go_format.h"
#include "util/log.h"

namespace ksched::scheduler::plugins::dynamicresources {

using framework::Code;
using framework::Status;
namespace resourceapi = api::resourcev1;

namespace {

std::string kobj(const resourceapi::ResourceClaim& c) {
  return std::string(c.metadata.namespace_.view()) + "/" + std::string(c.metadata.name.view());
}

// Upstream statusUnschedulable: every rejection of this plugin is UnschedulableAndUnresolvable.
Status unschedulable(std::string reason) { return Status(Code::UnschedulableAndUnresolvable, std::move(reason)); }

}  // namespace

// Upstream stateData. One per scheduling attempt; Filter writes its per-node results under the
// mutex (Filter runs in parallel), Reserve and PreBind read them on one thread each.
struct StateData final : framework::StateData {
  // The pod's claims (1:1 with spec.resourceClaims, without those that need no claim), as the
  // cycle started; PreBind replaces an entry with the claim it wrote. With DRAExtendedResource,
  // the special claim for the pod's extended resources backed by DRA comes last (upstream
  // claimStore): the one found in the API server, or one in memory that PreBind creates.
  std::vector<dra::ClaimPtr> claims;
  std::size_t num_user_claims = 0;
  // The special claim's uid as PreFilter saw it (a temporary one for the in-memory claim): the key
  // of its in-flight allocation, which PreBind's created claim (another uid) does not change.
  std::string initial_extended_claim_uid;
  // The pod's scalar requests (upstream draExtendedResource.podScalarResources), when it has a
  // special claim.
  std::vector<std::pair<std::string, std::int64_t>> pod_scalar_resources;
  bool has_extended_claim() const { return claims.size() > num_user_claims; }
  std::size_t extended_index() const { return num_user_claims; }
  const dra::ClaimPtr& extended_claim() const { return claims[num_user_claims]; }
  struct ClaimInfo {
    // The allocation's node selector, when the claim is allocated and has one.
    const api::NodeSelector* available_on_nodes = nullptr;
    // Set by Reserve, written by PreBind; empty when nothing had to be allocated.
    std::optional<resourceapi::AllocationResult> allocation;
    // DRAWorkloadResourceClaims: the pod's PodGroup, when the pod shares this claim with its group
    // (reservedFor then names the group, not the pod).
    std::optional<resourceapi::ResourceClaimConsumerReference> group;
    // The claim is the in-flight allocation another member of the group made (claims[i] is that
    // copy): this pod uses it as allocated, and PreBind writes it if that member has not yet.
    bool group_in_flight = false;
  };
  std::vector<ClaimInfo> infos;
  std::vector<std::size_t> to_allocate;  // indices of the claims without allocation
  bool has_allocator = false;
  // Whether Filter keeps each node's allocation results. Only Score's firstAvailable ranking reads
  // them before Reserve; without a firstAvailable request in the pod's claims, Filter asks the
  // allocator only whether the claims fit, and Reserve allocates again on the chosen node (same
  // inputs, so the same devices), instead of building and dropping results for every node.
  bool results_in_filter = true;
  // The allocator's inputs, taken once per attempt: slices by node and the devices in use.
  std::shared_ptr<const dra::SliceIndex> slices;
  std::shared_ptr<const dra::AllocatedDevices> allocated;
  // FilterVerdicts::claims_key of the claims to allocate, when Filter's verdicts may be shared
  // with other pods (no per-node results wanted); null otherwise. With the DeviceClasses'
  // generation as PreFilter saw it.
  FilterVerdicts::ClaimsKey verdict_key;
  std::uint64_t class_generation = 0;

  std::mutex mu;
  std::set<std::size_t> unavailable_claims;  // allocated claims some node could not use
  // Upstream nodeAllocation: Filter's results for a node, in the order of the claims it gave the
  // allocator, and the node's variant of the special claim (null when the node needs none: it
  // advertises the resources itself) with its container -> request mappings.
  struct NodeAllocation {
    std::vector<resourceapi::AllocationResult> results;
    dra::ClaimPtr extended_claim;
    std::vector<api::ContainerExtendedResourceRequest> mappings;
  };
  // By node name, when results_in_filter.
  std::unordered_map<std::string, NodeAllocation> node_allocations;
  // The nodes that fit, when !results_in_filter (names of a node are short: no allocation).
  // By NodeInfo::name_hash: only a sanity check for Reserve, which allocates again anyway.
  std::vector<std::size_t> fitting_nodes;

  // Upstream's Clone returns the same object: every copy of the cycle state shares it.
  std::shared_ptr<framework::StateData> clone() const override {
    return std::const_pointer_cast<StateData>(std::static_pointer_cast<const StateData>(self.lock()));
  }
  std::weak_ptr<StateData> self;
};

DynamicResources::DynamicResources(framework::Handle& handle, const config::DynamicResourcesArgs& args)
    : handle_(handle),
      args_(args),
      cel_(std::make_unique<cel::Cache>(10)),
      selector_results_(std::make_unique<dra::SelectorCache>()) {
  manager_ = handle.dra_manager();
  if (manager_ == nullptr) {
    own_manager_ = std::make_unique<dra::Manager>();
    manager_ = own_manager_.get();
  }
  classes_ = [m = manager_](std::string_view name) { return m->device_class(name); };
  // The scheduler's gates (v1.35's defaults: DRAAdminAccess and DRAPrioritizedList on, the rest off).
  const auto& gates = config::features();
  features_.adminAccess = gates.draAdminAccess;
  features_.prioritizedList = gates.draPrioritizedList;
  features_.partitionableDevices = gates.draPartitionableDevices;
  features_.deviceTaints = gates.draDeviceTaints;
  features_.consumableCapacity = gates.draConsumableCapacity;
  features_.deviceBindingAndStatus = gates.draDeviceBindingAndStatus();
  extended_resources_ = gates.draExtendedResource;
  group_claims_ = gates.draWorkloadResourceClaims;
  // Upstream takes the default when the args leave it unset (it is unset with the gates off).
  binding_timeout_ = args.bindingTimeout.value_or(config::kDynamicResourcesBindingTimeoutDefault);
}

ResourceClaimCreates& resource_claim_creates() {
  static ResourceClaimCreates counts;
  return counts;
}

namespace {

// Whether the claim lists the pod, or (for a claim shared with its group) the pod's PodGroup, as a
// consumer.
bool reserved_for_pod_or_group(const api::Pod& pod, const resourceapi::ResourceClaim& claim,
                               const std::optional<resourceapi::ResourceClaimConsumerReference>& group) {
  for (const auto& r : claim.status.reservedFor)
    if (r.uid == pod.metadata.uid || (group && r.uid == group->uid)) return true;
  return false;
}

}  // namespace

std::optional<resourceapi::ResourceClaimConsumerReference> DynamicResources::group_consumer(
    const api::Pod& pod, const api::PodResourceClaim& pc, const resourceapi::ResourceClaim& claim) const {
  if (!group_claims_) return std::nullopt;
  const auto& sg = pod.spec.schedulingGroup;
  if (!sg || !sg->podGroupName) return std::nullopt;
  podgroup::PodGroupPtr group;
  if (podgroup::Manager* groups = handle_.pod_group_manager())
    group = groups->pod_group(pod.metadata.namespace_.view(), *sg->podGroupName);
  return dra::pod_group_consumer(pod, pc, claim, group.get());
}

template <class Fn>
std::string DynamicResources::for_each_pod_claim(const api::Pod& pod, Fn&& fn) const {
  using GroupRef = std::optional<resourceapi::ResourceClaimConsumerReference>;
  constexpr bool kWantsGroup = std::is_invocable_v<Fn, const dra::ClaimPtr&, GroupRef&&>;
  for (const auto& pc : pod.spec.resourceClaims) {
    auto name = dra::pod_claim_name(pod, pc);
    if (!name.ok()) return name.error();
    // No claim was needed (the controller recorded none): nothing to check.
    if (!name->name) continue;
    auto claim = manager_->claim(pod.metadata.namespace_.view(), *name->name);
    if (!claim) {
      return "could not find ResourceClaim \"" + std::string(pod.metadata.namespace_.view()) + "/" + *name->name + "\"";
    }
    if (claim->metadata.deletionTimestamp) {
      return "resourceclaim \"" + std::string(claim->metadata.name.view()) + "\" is being deleted";
    }
    // Looked up only when needed: the hints call this for every waiting pod.
    GroupRef group;
    bool group_known = false;
    if constexpr (kWantsGroup) {
      group = group_consumer(pod, pc, *claim);
      group_known = true;
    }
    if (name->must_check_owner) {
      if (auto msg = dra::claim_is_for_pod(pod, *claim); !msg.empty()) {
        // A claim made for the pod's PodGroup (KEP-5729) is the pod's too.
        if (!group_known) group = group_consumer(pod, pc, *claim);
        const api::OwnerReference* owner = nullptr;
        for (const auto& o : claim->metadata.ownerReferences)
          if (o.controller.value_or(false)) owner = &o;
        const bool group_owned = group && owner && owner->uid == group->uid.view() &&
                                 claim->metadata.namespace_ == pod.metadata.namespace_;
        if (!group_owned) return msg;
      }
    }
    if constexpr (kWantsGroup)
      fn(claim, std::move(group));
    else
      fn(claim);
  }
  return {};
}

// ---------------------------------------------------------------- PreEnqueue, signatures, events

Status DynamicResources::pre_enqueue(const api::Pod& pod) {
  if (pod.spec.resourceClaims.empty()) return {};
  if (auto msg = for_each_pod_claim(pod, [](const dra::ClaimPtr&) {}); !msg.empty()) return unschedulable(msg);
  return {};
}

void DynamicResources::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  if (!pod.spec.resourceClaims.empty()) sig.set_unsignable();
}

std::vector<framework::ClusterEventWithHint> DynamicResources::events_to_register() const {
  using framework::ClusterEvent;
  using framework::EventResource;
  std::vector<framework::ClusterEventWithHint> out;
  // A resource may depend on node labels (topology); with queueing hints upstream drops
  // UpdateNodeTaint from this list.
  out.push_back({ClusterEvent{EventResource::Node,
                              framework::kAdd | framework::kUpdateNodeLabel | framework::kUpdateNodeAllocatable, {}},
                 {}});
  out.push_back({ClusterEvent{EventResource::ResourceClaim, framework::kAdd | framework::kUpdate, {}},
                 [this](const api::Pod& pod, const std::shared_ptr<const void>& o, const std::shared_ptr<const void>& n) {
                   return is_schedulable_after_claim_change(pod, o, n);
                 }});
  out.push_back({ClusterEvent{EventResource::Pod, framework::kUpdatePodGeneratedResourceClaim, {}},
                 [this](const api::Pod& pod, const std::shared_ptr<const void>& o, const std::shared_ptr<const void>& n) {
                   return is_schedulable_after_pod_change(pod, o, n);
                 }});
  out.push_back({ClusterEvent{EventResource::DeviceClass, framework::kAdd | framework::kUpdate, {}}, {}});
  out.push_back({ClusterEvent{EventResource::ResourceSlice, framework::kAdd | framework::kUpdate, {}}, {}});
  return out;
}

namespace {

// Status equality as upstream's semantic DeepEqual of claim.status sees it for what the scheduler
// reads: the allocation's devices and node selector, reservedFor and the devices' statuses.
bool same_allocation(const resourceapi::ResourceClaimStatus& a, const resourceapi::ResourceClaimStatus& b) {
  if (bool(a.allocation) != bool(b.allocation)) return false;
  if (a.allocation) {
    const auto& x = a.allocation->devices.results;
    const auto& y = b.allocation->devices.results;
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].request != y[i].request || x[i].driver != y[i].driver || x[i].pool != y[i].pool ||
          x[i].device != y[i].device || x[i].adminAccess != y[i].adminAccess)
        return false;
    }
    if (bool(a.allocation->nodeSelector) != bool(b.allocation->nodeSelector)) return false;
  }
  if (a.reservedFor.size() != b.reservedFor.size()) return false;
  for (std::size_t i = 0; i < a.reservedFor.size(); ++i) {
    if (a.reservedFor[i].uid != b.reservedFor[i].uid || a.reservedFor[i].name != b.reservedFor[i].name) return false;
  }
  return a.devices.size() == b.devices.size();
}

// Whether one of the pod's spec.resourceClaims names `claim` (its resourceClaimName, or the name
// the ResourceClaim controller recorded for a template, as pod_claim_name reads them), from the
// pod alone: no lookup in the DRA state, nothing allocated.
bool pod_names_claim(const api::Pod& pod, const resourceapi::ResourceClaim& claim) {
  if (pod.metadata.namespace_ != claim.metadata.namespace_) return false;
  const std::string_view name = claim.metadata.name.view();
  for (const auto& pc : pod.spec.resourceClaims) {
    if (pc.resourceClaimName) {
      if (*pc.resourceClaimName == name) return true;
      continue;
    }
    if (!pc.resourceClaimTemplateName || !pod.status.resourceClaimStatuses) continue;
    for (const auto& st : *pod.status.resourceClaimStatuses) {
      if (st.name != pc.name) continue;
      if (st.resourceClaimName && *st.resourceClaimName == name) return true;
      break;
    }
  }
  return false;
}

}  // namespace

void claim_keys_of_pod(const api::Pod& pod, std::vector<std::string>& out) {
  const std::string_view ns = pod.metadata.namespace_.view();
  auto add = [&](std::string_view name) {
    std::string k;
    k.reserve(ns.size() + 1 + name.size());
    k.append(ns).append("/").append(name);
    out.push_back(std::move(k));
  };
  for (const auto& pc : pod.spec.resourceClaims) {
    if (pc.resourceClaimName) {
      add(*pc.resourceClaimName);
      continue;
    }
    if (!pc.resourceClaimTemplateName || !pod.status.resourceClaimStatuses) continue;
    for (const auto& st : *pod.status.resourceClaimStatuses) {
      if (st.name != pc.name) continue;
      if (st.resourceClaimName) add(*st.resourceClaimName);
      break;
    }
  }
}

std::optional<std::string> claim_key_of_event(const std::shared_ptr<const void>& old_obj,
                                              const std::shared_ptr<const void>& new_obj) {
  const auto* original = static_cast<const resourceapi::ResourceClaim*>(old_obj.get());
  const auto* modified = static_cast<const resourceapi::ResourceClaim*>(new_obj.get());
  // No claim (the hint answers Queue), or a deallocation: any pod may be concerned.
  if (modified == nullptr) return std::nullopt;
  if (original && original->status.allocation && !modified->status.allocation) return std::nullopt;
  const std::string_view ns = modified->metadata.namespace_.view(), name = modified->metadata.name.view();
  std::string k;
  k.reserve(ns.size() + 1 + name.size());
  k.append(ns).append("/").append(name);
  return k;
}

framework::QueueingHint DynamicResources::is_schedulable_after_claim_change(
    const api::Pod& pod, const std::shared_ptr<const void>& old_obj, const std::shared_ptr<const void>& new_obj) const {
  using framework::QueueingHint;
  const auto* original = static_cast<const resourceapi::ResourceClaim*>(old_obj.get());
  const auto* modified = static_cast<const resourceapi::ResourceClaim*>(new_obj.get());
  if (modified == nullptr) return QueueingHint::Queue;
  const bool deallocated = original && original->status.allocation && !modified->status.allocation;
  // Called for every waiting pod on every claim event: a claim the pod does not name cannot be
  // one it uses (names are immutable, uids unique), so unless a deallocation freed devices the
  // answer below would be Skip; found from the pod alone, without looking its claims up.
  if (!deallocated && !pod_names_claim(pod, *modified)) return QueueingHint::Skip;
  bool uses_claim = false;
  auto msg = for_each_pod_claim(pod, [&](const dra::ClaimPtr& c) {
    if (c->metadata.uid == modified->metadata.uid) uses_claim = true;
  });
  // The pod still lacks a claim: this change does not help it.
  if (!msg.empty()) return QueueingHint::Skip;
  // A deallocation frees devices that any pod may want.
  if (deallocated) return QueueingHint::Queue;
  if (!uses_claim) return QueueingHint::Skip;
  if (original == nullptr) return QueueingHint::Queue;
  // Same status: something the pod does not care about changed (a finalizer, typically).
  if (same_allocation(original->status, modified->status)) return QueueingHint::Skip;
  return QueueingHint::Queue;
}

framework::QueueingHint DynamicResources::is_schedulable_after_pod_change(const api::Pod& pod,
                                                                          const std::shared_ptr<const void>&,
                                                                          const std::shared_ptr<const void>& new_obj) const {
  using framework::QueueingHint;
  const auto* modified = static_cast<const api::Pod*>(new_obj.get());
  if (modified == nullptr) return QueueingHint::Queue;
  if (pod.metadata.uid != modified->metadata.uid) return QueueingHint::Skip;
  if (!for_each_pod_claim(*modified, [](const dra::ClaimPtr&) {}).empty()) return QueueingHint::Skip;
  return QueueingHint::Queue;
}

// ---------------------------------------------------------------- PreFilter, Filter

Status DynamicResources::validate_device_class(std::string_view class_name, std::string_view request_name) const {
  if (class_name.empty()) return Status::error("request " + std::string(request_name) + ": unsupported request type");
  if (!manager_->device_class(class_name)) {
    return unschedulable("request " + std::string(request_name) + ": device class " + std::string(class_name) +
                         " does not exist");
  }
  return {};
}

Status DynamicResources::pre_filter(framework::CycleState& state, const api::Pod& pod,
                                    const std::vector<framework::NodeInfoPtr>&, framework::PreFilterResult&) {
  // Written first, so that the later points find it even when the pod has no claims.
  auto s = std::make_shared<StateData>();
  s->self = s;
  state.write(kStateKey, s);

  std::vector<dra::ClaimPtr> claims;
  std::vector<std::optional<resourceapi::ResourceClaimConsumerReference>> groups;
  if (auto msg = for_each_pod_claim(pod,
                                    [&](const dra::ClaimPtr& c,
                                        std::optional<resourceapi::ResourceClaimConsumerReference>&& g) {
                                      claims.push_back(c);
                                      groups.push_back(std::move(g));
                                    });
      !msg.empty()) {
    return unschedulable(msg);
  }
  const std::size_t num_user_claims = claims.size();
  if (auto ext = pre_filter_extended_resources(pod, *s)) {
    s->initial_extended_claim_uid = std::string(ext->metadata.uid.view());
    claims.push_back(std::move(ext));
  }
  // Covers the user's claims and the special one.
  if (claims.empty()) return Status::skip();

  s->infos.resize(claims.size());
  for (std::size_t i = 0; i < claims.size(); ++i) {
    if (i < groups.size()) s->infos[i].group = std::move(groups[i]);
    // A claim the pod shares with its PodGroup that another member allocated in this scheduling
    // (in flight, PreBind not done): the group allocates it once, so this member takes that
    // allocation as the claim's (KEP-5729), and lands where it allows.
    if (s->infos[i].group && !claims[i]->status.allocation) {
      if (auto in_flight = manager_->pending_allocation(claims[i]->metadata.uid.view());
          in_flight && in_flight->status.allocation) {
        claims[i] = std::move(in_flight);
        s->infos[i].group_in_flight = true;
      }
    }
    const auto& claim = *claims[i];
    if (claim.status.allocation && !dra::claim_can_be_reserved(claim) &&
        !reserved_for_pod_or_group(pod, claim, s->infos[i].group)) {
      return unschedulable("resourceclaim in use");
    }
    if (claim.status.allocation) {
      if (claim.status.allocation->nodeSelector) s->infos[i].available_on_nodes = &*claim.status.allocation->nodeSelector;
      continue;
    }
    s->to_allocate.push_back(i);
    if (manager_->claim_has_pending_allocation(claim.metadata.uid.view())) {
      return unschedulable("resource claim " + kobj(claim) + " is in the process of being allocated");
    }
    // The special claim has no requests yet (in memory), or is left to Filter (from a prior cycle).
    if (i >= num_user_claims) continue;
    for (const auto& request : claim.spec.devices.requests) {
      if (request.exactly) {
        if (auto st = validate_device_class(request.exactly->deviceClassName.view(), request.name.view());
            !st.is_success())
          return st;
      } else if (!request.firstAvailable.empty()) {
        for (const auto& sub : request.firstAvailable) {
          std::string qualified = std::string(request.name.view()) + "/" + std::string(sub.name.view());
          if (auto st = validate_device_class(sub.deviceClassName.view(), qualified); !st.is_success()) return st;
        }
      } else {
        return unschedulable("resource claim " + kobj(claim) + ", request " + std::string(request.name.view()) +
                             ": unknown request type");
      }
    }
  }
  if (!s->to_allocate.empty()) {
    // Devices in use (allocated claims, assumed and in-flight allocations included) and the
    // slices do not change during this attempt's filtering: taken once.
    s->allocated = manager_->allocated_devices();
    s->slices = manager_->slices();
    s->has_allocator = true;
    // The special claim's requests differ per node: Filter keeps each node's variant for Reserve.
    s->results_in_filter = claims.size() > num_user_claims ||
                           std::any_of(claims.begin(), claims.end(), [](const dra::ClaimPtr& c) {
                             const auto& requests = c->spec.devices.requests;
                             return std::any_of(requests.begin(), requests.end(),
                                                [](const auto& r) { return !r.firstAvailable.empty(); });
                           });
  }
  if (s->has_allocator && !s->results_in_filter) {
    std::vector<const resourceapi::ResourceClaim*> to_allocate;
    to_allocate.reserve(s->to_allocate.size());
    for (std::size_t i : s->to_allocate) to_allocate.push_back(claims[i].get());
    s->class_generation = manager_->class_generation();
    s->verdict_key = verdicts_.claims_key(pod.metadata.namespace_.view(), to_allocate);
  }
  s->claims = std::move(claims);
  s->num_user_claims = num_user_claims;
  return {};
}

// Upstream preFilterExtendedResources.
dra::ClaimPtr DynamicResources::pre_filter_extended_resources(const api::Pod& pod, StateData& s) const {
  if (!extended_resources_) return nullptr;
  const framework::Resource requests = framework::compute_pod_requests(pod, false);
  bool mapped = false;
  for (const auto& [name, quantity] : requests.scalarResources) {
    if (quantity == 0 || !dra::is_dra_extended_resource_name(name)) continue;
    if (manager_->class_for_extended_resource(name)) {
      mapped = true;
      break;
    }
  }
  if (!mapped) return nullptr;
  s.pod_scalar_resources.assign(requests.scalarResources.begin(), requests.scalarResources.end());
  // A claim made for the pod in a prior cycle (its name is in the pod's status once PreBind got
  // that far; else any claim with the annotation that the pod controls). Filter rejects it and
  // PostFilter deletes it: whether its allocation still holds is not worth finding out.
  if (const auto& status = pod.status.extendedResourceClaimStatus;
      status && !status->resourceClaimName.empty()) {
    if (auto c = manager_->claim(pod.metadata.namespace_.view(), status->resourceClaimName);
        c && is_extended_resource_claim_of(pod, *c))
      return c;
  }
  if (auto c = manager_->find_claim(
          pod.metadata.namespace_.view(),
          [&](const resourceapi::ResourceClaim& claim) { return is_extended_resource_claim_of(pod, claim); }))
    return c;
  return make_in_memory_claim(pod, new_temporary_uid());
}

// Upstream filterExtendedResources: the node's variant of the special claim (null when the node
// needs none) and its mappings, or why the pod cannot use the node.
//
// One deliberate difference: upstream gives the node a variant without requests when the pod also
// has claims of its own and the node's device plugins provide every extended resource; PreBind
// then fails on the empty mappings. Here the node needs no special claim then (null), as when the
// pod has no claims of its own.
Status DynamicResources::filter_extended_resources(
    const StateData& s, const api::Pod& pod, const framework::NodeInfo& node_info, dra::ClaimPtr& node_claim,
    std::vector<api::ContainerExtendedResourceRequest>& mappings) const {
  if (!s.has_extended_claim()) return {};
  const auto& claim = *s.extended_claim();
  // From a prior cycle: rejected here, deleted by PostFilter, made afresh in the next attempt.
  if (!claim.spec.devices.requests.empty()) return unschedulable("cannot schedule extended resource claim");
  std::vector<std::pair<std::string, std::int64_t>> by_dra;
  const auto& allocatable = node_info.allocatable.scalarResources;
  for (const auto& [name, quantity] : s.pod_scalar_resources) {
    if (quantity == 0 || !dra::is_dra_extended_resource_name(name)) continue;
    const std::int64_t* have = allocatable.find(name);
    const bool backed = manager_->class_for_extended_resource(name) != nullptr;
    if (backed && (have == nullptr || *have == 0)) {
      by_dra.emplace_back(name, quantity);  // the node has to provide it through DRA
    } else if (have == nullptr) {
      // Neither a device plugin on the node nor a class provides it.
      return unschedulable("cannot fit resource");
    }
  }
  // Everything the pod asks for comes from device plugins here: NodeResourcesFit's business.
  if (by_dra.empty()) return {};
  if (claim.status.allocation) return {};
  auto made = create_requests_and_mappings(
      pod, by_dra, [this](std::string_view r) { return manager_->class_for_extended_resource(r); });
  auto variant = std::make_shared<resourceapi::ResourceClaim>(claim);
  variant->spec.devices.requests = std::move(made.requests);
  mappings = std::move(made.mappings);
  node_claim = std::move(variant);
  return {};
}

Status DynamicResources::filter(const framework::CycleState& state, const api::Pod& pod,
                                const framework::NodeInfo& node_info) {
  auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("not found");
  if (s->claims.empty()) return {};
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  dra::ClaimPtr extended_claim;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
  if (auto st = filter_extended_resources(*s, pod, node_info, extended_claim, mappings); !st.is_success())
    return st;
  // Only extended resources, all from this node's device plugins: nothing left to do here.
  if (!extended_claim && s->num_user_claims == 0) return {};

  std::vector<std::size_t> unavailable;
  for (std::size_t i = 0; i < s->claims.size(); ++i) {
    if (const auto* selector = s->infos[i].available_on_nodes) {
      auto m = dra::node_matches(*node, "", false, selector);
      if (!m.ok()) return Status::error(m.error());
      if (!*m) {
        unavailable.push_back(i);
        continue;
      }
    }
    // An allocated claim whose devices failed to bind, or did not bind in time, is unavailable
    // everywhere: PostFilter deallocates it, so that other devices may be tried.
    const auto& claim = *s->claims[i];
    if (features_.deviceBindingAndStatus && claim.status.allocation) {
      auto ready = claim_ready_for_binding(claim);
      if (!ready.ok()) {
        log::V(5).info("Claim failed binding conditions check",
                       {{"pod", api::key_of(pod)}, {"resourceclaim", kobj(claim)}, {"err", ready.error()}});
        unavailable.push_back(i);
      } else if (!*ready && claim_binding_timed_out(claim, binding_timeout_, now())) {
        log::V(5).info("Claim timed out waiting for binding conditions",
                       {{"pod", api::key_of(pod)}, {"resourceclaim", kobj(claim)}});
        unavailable.push_back(i);
      }
    }
  }

  std::vector<resourceapi::AllocationResult> allocations;
  if (s->has_allocator) {
    // Only this node's slices and the node-less ones, and only the devices in use of their pools:
    // the work per node is proportional to what the node can use.
    std::vector<dra::SlicePtr> slices_buf;
    const std::string_view node_name = node->metadata.name.view();
    // Another pod with the same claims may have had this node's verdict from the same inputs.
    const VerdictInputs inputs{&node_info.node_ptr(), node_info.name_hash(), &s->slices, s->allocated.get(),
                               s->class_generation};
    std::optional<Verdict> known;
    if (s->verdict_key) known = verdicts_.find(node_name, s->verdict_key, inputs, slices_buf);
    if (known) {
      if (!known->fits) return unschedulable(known->message);
    } else {
      const auto slices = s->slices->for_node(node_name, slices_buf);
      const dra::DevicesInUse* in_use = s->allocated->empty() ? nullptr : s->allocated.get();
      const auto remember = [&](bool fits, std::string message) {
        if (s->verdict_key)
          verdicts_.put(node_name, s->verdict_key, inputs, slices, Verdict{fits, std::move(message)});
      };
      const dra::Allocator allocator(features_, in_use, &classes_, slices, *cel_, selector_results_.get());
      std::vector<const resourceapi::ResourceClaim*> to_allocate;
      to_allocate.reserve(s->to_allocate.size());
      for (std::size_t i : s->to_allocate) {
        if (s->has_extended_claim() && i == s->extended_index()) {
          // This node's variant of the special claim, or nothing when the node needs none.
          if (extended_claim) to_allocate.push_back(extended_claim.get());
          continue;
        }
        to_allocate.push_back(s->claims[i].get());
      }
      if (!to_allocate.empty()) {
        auto r = allocator.allocate(*node, to_allocate, s->results_in_filter);
        if (!r.ok()) {
          // A node-only failure leaves the other nodes; anything else is wrong with a claim or class.
          if (r.error().node_only) {
            remember(false, r.error().message);
            return unschedulable(r.error().message);
          }
          return Status::error(r.error().message);
        }
        if (s->results_in_filter ? r->results.size() != to_allocate.size() : !r->fits) {
          remember(false, "cannot allocate all claims");
          return unschedulable("cannot allocate all claims");
        }
        remember(true, {});
        allocations = std::move(r->results);
      }
    }
  }

  if (!s->has_allocator && unavailable.empty()) return {};
  std::lock_guard l(s->mu);
  if (!unavailable.empty()) {
    s->unavailable_claims.insert(unavailable.begin(), unavailable.end());
    return unschedulable("resourceclaim not available on the node");
  }
  // Without results to keep (no firstAvailable request) only the node's name is noted, for
  // Reserve: no map entry (hash, node, empty vector) per feasible node, and Score looks nothing up.
  if (!s->results_in_filter) {
    s->fitting_nodes.push_back(node_info.name_hash());
    return {};
  }
  auto& entry = s->node_allocations[std::string(node->metadata.name.view())];
  entry.results = std::move(allocations);
  entry.extended_claim = std::move(extended_claim);
  entry.mappings = std::move(mappings);
  return {};
}

// ---------------------------------------------------------------- PostFilter

Status DynamicResources::post_filter(framework::CycleState& state, const api::Pod& pod, const framework::NodeToStatus&,
                                     framework::PostFilterResult&) {
  auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("not found");
  if (s->claims.empty()) return Status(Code::Unschedulable, "no new claims to deallocate");
  std::vector<std::size_t> candidates;
  {
    std::lock_guard l(s->mu);
    candidates.assign(s->unavailable_claims.begin(), s->unavailable_claims.end());
  }
  const bool stale_extended_claim =
      s->has_extended_claim() && s->extended_claim()->metadata.name.view() != kSpecialClaimInMemName;
  // Upstream walks a Go map: any order. Here the pod's claim order (the special claim last).
  for (std::size_t index : candidates) {
    if (s->has_extended_claim() && index == s->extended_index()) break;  // handled below
    const auto& claim = *s->claims[index];
    const auto& reserved = claim.status.reservedFor;
    if (reserved.empty() || (reserved.size() == 1 && reserved[0].uid == pod.metadata.uid)) {
      resourceapi::ResourceClaim copy = claim;
      copy.status.reservedFor.clear();
      copy.status.allocation = std::nullopt;
      copy.status.devices.clear();
      log::V(5).info("Deallocation of ResourceClaim", {{"pod", api::key_of(pod)}, {"resourceclaim", kobj(claim)}});
      auto answer = handle_.client().update_resource_claim(copy, true);
      if (!answer.status.is_success()) return Status::error(answer.status.message());
      return Status(Code::Unschedulable, "deallocation of ResourceClaim completed");
    }
  }
  // The special claim of a prior cycle (allocated or reserved then): deleted, to be made afresh.
  if (stale_extended_claim) {
    if (auto err = delete_claim(*s->extended_claim()); !err.empty()) return Status::error(err);
    return Status(Code::Unschedulable, "deletion of ResourceClaim completed");
  }
  return Status(Code::Unschedulable, "still not schedulable");
}

// Upstream deleteClaim: the claim's finalizer goes first (an update, again on a conflict), then the
// claim. "" on success, else the error.
std::string DynamicResources::delete_claim(const resourceapi::ResourceClaim& claim) {
  auto& client = handle_.client();
  const std::string name = kobj(claim);
  dra::ClaimPtr current = std::make_shared<const resourceapi::ResourceClaim>(claim);
  std::string last_error;
  bool updated = false;
  for (int attempt = 0; attempt < 5 && !updated; ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      auto got = client.get_resource_claim(claim.metadata.namespace_.view(), claim.metadata.name.view());
      if (!got.status.is_success()) return "get resourceclaim " + name + ": " + got.status.message();
      current = got.claim;
    }
    resourceapi::ResourceClaim copy = *current;
    std::vector<std::string> finalizers = copy.metadata.finalizers.vec();
    std::erase(finalizers, std::string(resourceapi::kFinalizer));
    copy.metadata.finalizers = std::move(finalizers);
    auto written = client.update_resource_claim(copy, false);
    if (written.status.is_success()) {
      updated = true;
      break;
    }
    last_error = "update resourceclaim " + name + ": " + written.status.message();
    if (!written.conflict) return last_error;
  }
  if (!updated) return last_error;
  log::V(5).info("Delete", {{"resourceclaim", name}});
  if (auto st = client.delete_resource_claim(claim.metadata.namespace_.view(), claim.metadata.name.view());
      !st.is_success())
    return st.message();
  return {};
}

// ---------------------------------------------------------------- Score

Status DynamicResources::score(const framework::CycleState& state, const api::Pod&, const framework::NodeInfo& node_info,
                               std::int64_t& score) {
  score = 0;
  auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("not found");
  if (s->claims.empty()) return {};
  if (!s->results_in_filter) {
    // No claim has a firstAvailable request: nothing to rank, only upstream's pairing check of
    // the claims with the allocations (one per claim to allocate). Upstream finds allocations for
    // every node that passed Filter exactly when there was something to allocate.
    if (!s->has_allocator) return {};
    if (s->claims.size() > s->to_allocate.size()) {
      return Status::error("number of allocations " + std::to_string(s->to_allocate.size()) +
                           " is smaller than number of claims");
    }
    return {};
  }
  const std::vector<resourceapi::AllocationResult>* results = nullptr;
  {
    std::lock_guard l(s->mu);
    auto it = s->node_allocations.find(std::string(node_info.name_view()));
    if (it == s->node_allocations.end()) return {};
    results = &it->second.results;
  }
  // Upstream computeScore, including its pairing of the i-th claim with the i-th allocation.
  for (std::size_t i = 0; i < s->claims.size(); ++i) {
    if (i >= results->size()) {
      return Status::error("number of allocations " + std::to_string(results->size()) +
                           " is smaller than number of claims");
    }
    std::set<std::string_view> allocated_sub_requests;
    for (const auto& r : (*results)[i].devices.results) {
      if (r.request.view().find('/') != std::string_view::npos) allocated_sub_requests.insert(r.request.view());
    }
    for (const auto& req : s->claims[i]->spec.devices.requests) {
      if (req.exactly) continue;
      for (std::size_t k = 0; k < req.firstAvailable.size(); ++k) {
        std::string ref = std::string(req.name.view()) + "/" + std::string(req.firstAvailable[k].name.view());
        if (allocated_sub_requests.contains(ref))
          score += std::int64_t(resourceapi::kFirstAvailableDeviceRequestMaxSize) - std::int64_t(k);
      }
    }
  }
  return {};
}

bool DynamicResources::scores_nothing(const framework::CycleState& state, const api::Pod&) const {
  const auto* s = state.read<StateData>(kStateKey);
  return s != nullptr && s->claims.empty();
}

Status DynamicResources::normalize_score(const framework::CycleState&, const api::Pod&, framework::NodeScoreList& scores) {
  return framework::default_normalize_score(framework::kMaxNodeScore, false, scores);
}

// ---------------------------------------------------------------- Reserve, Unreserve

Status DynamicResources::reserve(framework::CycleState& state, const api::Pod&, const std::string& node_name) {
  auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("not found");
  if (s->claims.empty()) return {};
  // Allocated claims are reserved for real in PreBind; if another pod was faster, that fails and
  // the pod is tried again.
  const std::size_t with_allocator = s->to_allocate.size();
  if (with_allocator == 0) return {};
  const bool extended_to_allocate =
      s->has_extended_claim() &&
      std::find(s->to_allocate.begin(), s->to_allocate.end(), s->extended_index()) != s->to_allocate.end();
  const bool user_claims_to_allocate = with_allocator > (extended_to_allocate ? 1u : 0u);
  const StateData::NodeAllocation* entry = nullptr;
  if (s->results_in_filter) {
    std::lock_guard l(s->mu);
    auto it = s->node_allocations.find(node_name);
    if (it != s->node_allocations.end()) entry = &it->second;
  }
  // The node's variant of the special claim; none when the node's device plugins provide it all.
  const dra::ClaimPtr extended_claim = entry ? entry->extended_claim : nullptr;
  const std::vector<resourceapi::AllocationResult>* results = entry ? &entry->results : nullptr;
  std::vector<resourceapi::AllocationResult> built;
  bool filtered = false;
  if (!s->results_in_filter) {
    std::lock_guard l(s->mu);
    filtered = std::find(s->fitting_nodes.begin(), s->fitting_nodes.end(), std::hash<std::string_view>{}(node_name)) !=
               s->fitting_nodes.end();
  }
  if (filtered) {
    // Filter only learnt that the claims fit here: allocate again on this node for the results.
    auto info = handle_.snapshot_node_infos().get(node_name);
    if (info != nullptr && info->node() != nullptr) {
      std::vector<dra::SlicePtr> slices_buf;
      const auto slices = s->slices->for_node(node_name, slices_buf);
      const dra::DevicesInUse* in_use = s->allocated->empty() ? nullptr : s->allocated.get();
      const dra::Allocator allocator(features_, in_use, &classes_, slices, *cel_, selector_results_.get());
      std::vector<const resourceapi::ResourceClaim*> to_allocate;
      to_allocate.reserve(s->to_allocate.size());
      for (std::size_t i : s->to_allocate) to_allocate.push_back(s->claims[i].get());
      if (auto r = allocator.allocate(*info->node(), to_allocate); r.ok()) built = std::move(r->results);
    }
    results = &built;
  }
  if (results == nullptr || results->empty()) {
    // Only the special claim was left, and this node's device plugins provide its resources.
    if (!user_claims_to_allocate && !extended_claim) return {};
    return Status::error("claim allocation not found for node");
  }
  // The special claim has no result when the node needs none (see filter_extended_resources).
  const std::size_t want = with_allocator - (extended_to_allocate && !extended_claim ? 1 : 0);
  if (results->size() != want) {
    return Status::error("internal error, have " + std::to_string(results->size()) + " allocations, " +
                         std::to_string(want) + " claims to allocate, want " +
                         std::to_string(with_allocator) + " claims");
  }
  std::size_t k = 0;
  for (const std::size_t index : s->to_allocate) {
    const bool is_extended = s->has_extended_claim() && index == s->extended_index();
    if (is_extended && !extended_claim) continue;
    s->infos[index].allocation = (*results)[k];
    // The special claim's node variant stands in for the claim (the requests are this node's).
    auto claim =
        std::make_shared<resourceapi::ResourceClaim>(is_extended ? *extended_claim : *s->claims[index]);
    const auto& fins = claim->metadata.finalizers.vec();
    if (std::find(fins.begin(), fins.end(), resourceapi::kFinalizer) == fins.end()) {
      std::vector<std::string> f = fins;
      f.emplace_back(resourceapi::kFinalizer);
      claim->metadata.finalizers = std::move(f);
    }
    claim->status.allocation = (*results)[k];
    ++k;
    const std::string uid(claim->metadata.uid.view());
    manager_->signal_claim_pending_allocation(uid, std::move(claim));
  }
  return {};
}

void DynamicResources::unreserve(framework::CycleState& state, const api::Pod& pod, const std::string&) {
  auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr || s->claims.empty()) return;
  // The user's claims here; the special claim below.
  for (std::size_t index = 0; index < s->num_user_claims; ++index) {
    const auto& claim = s->claims[index];
    // An allocation in flight is not anymore: the claim is what the API server says again. (Not
    // one another member of the pod's group made: that member's to end.)
    if (!s->infos[index].group_in_flight && manager_->remove_claim_pending_allocation(claim->metadata.uid.view())) {
      manager_->assumed_claim_restore(claim->metadata.namespace_.view(), claim->metadata.name.view());
    }
    // The group's reservation stays while the group does (the ResourceClaim controller ends it).
    if (s->infos[index].group) continue;
    if (!claim->status.allocation || !dra::claim_is_reserved_for_pod(pod, *claim)) continue;
    // Remove the pod from reservedFor (upstream: a strategic-merge patch deleting the entry by
    // uid, guarded by the claim's uid). Here: read, drop the entry, write the status, again on a
    // conflict.
    log::V(5).info("unreserve", {{"resourceclaim", kobj(*claim)}, {"pod", api::key_of(pod)}});
    auto& client = handle_.client();
    for (int attempt = 0; attempt < 5; ++attempt) {
      auto got = client.get_resource_claim(claim->metadata.namespace_.view(), claim->metadata.name.view());
      if (!got.status.is_success() || got.claim->metadata.uid != claim->metadata.uid) break;
      resourceapi::ResourceClaim copy = *got.claim;
      std::erase_if(copy.status.reservedFor, [&](const auto& r) { return r.uid == pod.metadata.uid; });
      if (copy.status.reservedFor.size() == got.claim->status.reservedFor.size()) break;
      auto written = client.update_resource_claim(copy, true);
      if (written.status.is_success()) break;
      if (!written.conflict) {
        // We will get here again when the pod is retried.
        log::error("unreserve", {{"resourceclaim", kobj(*claim)}, {"err", written.status.message()}});
        break;
      }
    }
  }
  unreserve_extended_resource_claim(*s, pod);
}

// Upstream unreserveExtendedResourceClaim: the special claim's allocation is no longer in flight,
// and a claim PreBind already created is deleted (else nobody would).
void DynamicResources::unreserve_extended_resource_claim(StateData& s, const api::Pod& pod) {
  if (!s.has_extended_claim()) return;
  const auto& claim = *s.extended_claim();
  if (manager_->remove_claim_pending_allocation(s.initial_extended_claim_uid)) {
    manager_->assumed_claim_restore(claim.metadata.namespace_.view(), claim.metadata.name.view());
  }
  if (claim.metadata.name.view() == kSpecialClaimInMemName) return;
  log::V(5).info("delete extended resource backed by DRA",
                 {{"resourceclaim", kobj(claim)},
                  {"pod", api::key_of(pod)},
                  {"claim.UID", std::string(claim.metadata.uid.view())}});
  if (auto err = delete_claim(claim); !err.empty())
    log::error("delete", {{"resourceclaim", kobj(claim)}, {"err", err}});
}

// ---------------------------------------------------------------- PreBind

bool DynamicResources::pre_bind_is_quick(const framework::CycleState& state, const api::Pod&) const {
  const auto* s = state.read<StateData>(kStateKey);
  return s != nullptr && s->claims.empty();
}

Status DynamicResources::pre_bind_pre_flight(const framework::CycleState& state, const api::Pod&,
                                             const std::string&) {
  const auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("not found");  // as PreBind says it
  return s->claims.empty() ? Status::skip() : Status();
}

util::Result<dra::ClaimPtr> DynamicResources::bind_claim(StateData& s, std::size_t index, const api::Pod& pod,
                                                         const std::string& node_name) {
  dra::ClaimPtr claim = s.claims[index];
  const std::optional<resourceapi::ResourceClaimConsumerReference>& group = s.infos[index].group;
  // The allocation to write: this pod's, or (a claim shared with the group) the one another member
  // made, which that member's PreBind may not have written yet: whichever member comes first
  // writes it, the others find it there.
  const std::optional<resourceapi::AllocationResult>& own_allocation = s.infos[index].allocation;
  std::optional<resourceapi::AllocationResult> allocation = own_allocation;
  if (s.infos[index].group_in_flight && claim->status.allocation) allocation = *claim->status.allocation;
  const bool is_extended = s.has_extended_claim() && index == s.extended_index();
  // The special claim with nothing to allocate: the node's device plugins provide the resources.
  if (is_extended && !allocation && claim->spec.devices.requests.empty()) return claim;
  // The special claim still in memory: created here first.
  const bool create = is_extended && claim->metadata.name.view() == kSpecialClaimInMemName;
  std::string name = kobj(*claim);
  const std::string uid(claim->metadata.uid.view());
  auto& client = handle_.client();
  bool modified = false;
  // Whatever happens, the allocation is no longer in flight: either the written claim is assumed
  // (the informer's copy replaces it once it has caught up), or the claim is as it was. A claim
  // created here is new to the informer: it is waited for (upstream
  // waitForExtendedClaimInAssumeCache), so that its devices count as taken all along.
  struct Done {
    DynamicResources* self;
    const dra::ClaimPtr& claim;
    const bool& modified;
    bool had_allocation;
    bool created;
    std::string uid;
    ~Done() {
      if (modified) {
        if (created) {
          self->wait_for_claim_in_assume_cache(claim);
        } else if (auto r = self->manager_->assume_claim_after_api_call(claim); !r.ok()) {
          log::V(5).info("Claim not stored in assume cache", {{"err", r.error()}});
        }
      }
      if (had_allocation) self->manager_->remove_claim_pending_allocation(uid);
    }
  } done{this, claim, modified, own_allocation.has_value(), create, uid};

  if (create) {
    auto created = create_extended_resource_claim(s, pod, node_name);
    if (!created.ok()) return util::make_error(created.error());
    claim = *created;
    modified = true;
    name = kobj(*claim);
    // Unreserve deletes the created claim from now on.
    s.claims[index] = claim;
  }

  std::string last_error;
  // A group's claim is read from the API server first: another member may have written it, and
  // the in-flight copy in the state is no API object.
  bool refresh = group.has_value();
  // Upstream retry.RetryOnConflict with DefaultRetry: five attempts, 10 ms apart.
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (refresh) {
      auto got = client.get_resource_claim(claim->metadata.namespace_.view(), claim->metadata.name.view());
      if (!got.status.is_success()) {
        return util::make_error("get updated claim " + name + " after conflict: " + got.status.message());
      }
      log::V(5).info("retrying update after conflict", {{"claim", name}});
      claim = got.claim;
    }
    refresh = true;
    if (claim->metadata.deletionTimestamp) return util::make_error("claim " + name + " got deleted in the meantime");
    resourceapi::ResourceClaim updated = *claim;
    // The group's claim, allocated and reserved for the group by another member: nothing to write.
    if (group && claim->status.allocation && reserved_for_pod_or_group(pod, *claim, group))
      return dra::ClaimPtr(claim);  // a copy, as below
    if (allocation && !(group && claim->status.allocation)) {
      if (claim->status.allocation) return util::make_error("claim " + name + " got allocated elsewhere in the meantime");
      const auto& fins = updated.metadata.finalizers.vec();
      if (std::find(fins.begin(), fins.end(), resourceapi::kFinalizer) == fins.end()) {
        std::vector<std::string> f = fins;
        f.emplace_back(resourceapi::kFinalizer);
        updated.metadata.finalizers = std::move(f);
        auto written = client.update_resource_claim(updated, false);
        if (!written.status.is_success()) {
          last_error = "add finalizer to claim " + name + ": " + written.status.message();
          if (written.conflict) continue;
          return util::make_error(last_error);
        }
        updated = *written.claim;
      }
      updated.status.allocation = *allocation;
    }
    if (group) {
      updated.status.reservedFor.push_back(*group);  // KEP-5729: the PodGroup holds it
    } else {
      resourceapi::ResourceClaimConsumerReference ref;
      ref.resource = "pods";
      ref.name = pod.metadata.name;
      ref.uid = pod.metadata.uid;
      updated.status.reservedFor.push_back(std::move(ref));
    }
    // When the allocation was made: where the binding timeout of its devices starts.
    if (features_.deviceBindingAndStatus && updated.status.allocation && !updated.status.allocation->allocationTimestamp)
      updated.status.allocation->allocationTimestamp = now();
    auto written = client.update_resource_claim(updated, true);
    if (!written.status.is_success()) {
      last_error = (allocation ? "add allocation and reservation to claim " : "add reservation to claim ") + name +
                   ": " + written.status.message();
      if (written.conflict) continue;
      return util::make_error(last_error);
    }
    claim = written.claim;
    modified = true;
    log::V(5).info("reserved", {{"pod", api::key_of(pod)}, {"resourceclaim", name}});
    if (is_extended) {
      if (auto err = patch_pod_extended_resource_claim_status(s, pod, *claim, node_name); !err.empty())
        return util::make_error(err);
    }
    return dra::ClaimPtr(claim);  // a copy: `done` assumes `claim` after this (a plain return would move it)
  }
  return util::make_error(last_error);
}

// Upstream createExtendedResourceClaimInAPI: the node's variant of the special claim, as a new
// object (no name, uid or allocation: the API server names it from its generateName).
util::Result<dra::ClaimPtr> DynamicResources::create_extended_resource_claim(StateData& s,
                                                                             const api::Pod& pod,
                                                                             const std::string& node_name) {
  dra::ClaimPtr variant;
  {
    std::lock_guard l(s.mu);
    auto it = s.node_allocations.find(node_name);
    if (it != s.node_allocations.end()) variant = it->second.extended_claim;
  }
  if (!variant) return util::make_error("extended resource claim not found for node " + node_name);
  resourceapi::ResourceClaim claim = *variant;
  claim.status.allocation = std::nullopt;
  claim.metadata.name = "";
  claim.metadata.uid = "";
  log::V(5).info("create claim for extended resources", {{"pod", api::key_of(pod)}, {"node", node_name}});
  auto answer = handle_.client().create_resource_claim(claim);
  auto& counts = resource_claim_creates();
  if (!answer.status.is_success()) {
    counts.failure.fetch_add(1, std::memory_order_relaxed);
    return util::make_error("create claim for extended resources " + kobj(claim) + ": " +
                            answer.status.message());
  }
  counts.success.fetch_add(1, std::memory_order_relaxed);
  log::V(5).info("created claim for extended resources",
                 {{"pod", api::key_of(pod)}, {"node", node_name}, {"resourceclaim", kobj(*answer.claim)}});
  return dra::ClaimPtr(answer.claim);
}

// Upstream patchPodExtendedResourceClaimStatus. "" on success, else the error.
std::string DynamicResources::patch_pod_extended_resource_claim_status(
    StateData& s, const api::Pod& pod, const resourceapi::ResourceClaim& claim,
    const std::string& node_name) {
  api::PodExtendedResourceClaimStatus status;
  {
    std::lock_guard l(s.mu);
    auto it = s.node_allocations.find(node_name);
    if (it != s.node_allocations.end()) status.requestMappings = it->second.mappings;
  }
  const std::string pod_name =
      std::string(pod.metadata.namespace_.view()) + "/" + std::string(pod.metadata.name.view());
  if (status.requestMappings.empty()) {
    return "nil or empty request mappings, no update of pod " + pod_name + " ExtendedResourceClaimStatus";
  }
  status.resourceClaimName = std::string(claim.metadata.name.view());
  if (auto st = handle_.client().patch_pod_extended_resource_claim_status(pod, status); !st.is_success()) {
    return "update pod " + pod_name + " ExtendedResourceClaimStatus: " + st.message();
  }
  return {};
}

// Waits until the informer has delivered the claim PreBind created, so the assume cache can keep
// the written version (upstream waitForExtendedClaimInAssumeCache: polls each second for up to
// 120 s). Here it wakes on each change of a claim in the DRA state instead of polling, and ends at
// once when the scheduler stops (upstream's cancelled context). A failure is only logged: the
// claim exists.
void DynamicResources::wait_for_claim_in_assume_cache(const dra::ClaimPtr& claim) {
  const auto deadline = std::chrono::steady_clock::now() + kAssumeExtendedResourceTimeout;
  std::uint64_t seen = manager_->claims_version();
  for (;;) {
    auto r = manager_->assume_claim_after_api_call(claim);
    if (r.ok()) return;
    // Anything but "not there yet" will not change by waiting.
    if (!r.error().starts_with("could not find")) {
      log::V(5).info("Claim not stored in assume cache", {{"claim", kobj(*claim)}, {"err", r.error()}});
      return;
    }
    if (manager_->waits_stopped() || std::chrono::steady_clock::now() >= deadline) {
      log::V(5).info("Claim not stored in assume cache after retries",
                     {{"claim", kobj(*claim)}, {"err", r.error()}});
      return;
    }
    seen = manager_->wait_for_claims_change(seen, deadline);
  }
}

Status DynamicResources::pre_bind(framework::CycleState& state, const api::Pod& pod,
                                  const std::string& node_name) {
  auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("not found");
  for (std::size_t i = 0; i < s->claims.size(); ++i) {
    if (reserved_for_pod_or_group(pod, *s->claims[i], s->infos[i].group)) continue;
    auto r = bind_claim(*s, i, pod, node_name);
    if (!r.ok()) return Status::error(r.error());
    // Unreserve then works with the written claim.
    s->claims[i] = *r;
  }
  if (!features_.deviceBindingAndStatus || !has_binding_conditions(s->claims)) return {};
  return wait_for_binding_conditions(*s, pod, node_name);
}

// Upstream PreBind's wait: until every device's binding conditions are True, one of its failure
// conditions is True, or bindingTimeout passes. It runs on the binding pool (PreBind), never on
// the scheduling thread; instead of upstream's poll every 5 s it wakes on each change of a claim
// in the scheduler's DRA state (informer or assume cache). A failure returns an error: the
// scheduler unreserves (the claims keep their allocation) and retries the pod, whose next Filter
// finds the claim unavailable, so PostFilter deallocates it. When the scheduler stops
// (dra::Manager::stop_waits, upstream's cancelled context) the wait ends at once with
// "context canceled" and the pod's binding fails as any PreBind error does.
Status DynamicResources::wait_for_binding_conditions(StateData& s, const api::Pod& pod, const std::string& node_name) {
  handle_.client().event(pod, "Normal", "BindingConditionsPending", "Scheduling",
                         "waiting for binding conditions for device on node " + node_name);
  const auto deadline = std::chrono::steady_clock::now() + binding_timeout_;
  std::uint64_t seen = manager_->claims_version();
  for (;;) {
    // Upstream isPodReadyForBinding: each claim as the scheduler knows it now.
    bool ready = true;
    for (auto& claim : s.claims) {
      auto latest = manager_->claim(claim->metadata.namespace_.view(), claim->metadata.name.view());
      if (!latest) return Status::error("could not find ResourceClaim \"" + kobj(*claim) + "\"");
      claim = latest;
      auto r = claim_ready_for_binding(*claim);
      if (!r.ok()) return Status::error(r.error());
      if (*r) continue;
      if (claim_binding_timed_out(*claim, binding_timeout_, now()))
        return Status::error("claim " + std::string(claim->metadata.name.view()) + " binding timeout");
      ready = false;
      break;
    }
    if (ready) return {};
    // The scheduler is stopping: upstream's poll ends with the cancelled context's error.
    if (manager_->waits_stopped()) return Status::error("context canceled");
    const std::uint64_t before = seen;
    seen = manager_->wait_for_claims_change(seen, deadline);
    // Woken by the deadline, not by a change: upstream's poll ends with its context's deadline.
    if (seen == before && std::chrono::steady_clock::now() >= deadline) return Status::error("device binding timeout");
  }
}

api::Time now() {
  return api::Time{std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count()};
}

namespace {

// The status of the allocated device a result names (upstream getAllocatedDeviceStatus).
const resourceapi::AllocatedDeviceStatus* allocated_device_status(const resourceapi::ResourceClaim& claim,
                                                                  const resourceapi::DeviceRequestAllocationResult& r) {
  for (const auto& d : claim.status.devices) {
    if (d.device == r.device.view() && d.driver == r.driver.view() && d.pool == r.pool.view()) return &d;
  }
  return nullptr;
}

const api::Condition* find_condition(const std::vector<api::Condition>& conditions, std::string_view type) {
  for (const auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

}  // namespace

util::Result<bool> claim_ready_for_binding(const resourceapi::ResourceClaim& claim) {
  if (!claim.status.allocation) return false;
  for (const auto& r : claim.status.allocation->devices.results) {
    if (r.bindingConditions.empty()) continue;
    const auto* status = allocated_device_status(claim, r);
    if (status == nullptr) return false;
    for (const auto& type : r.bindingFailureConditions) {
      const auto* failed = find_condition(status->conditions, type);
      if (failed != nullptr && failed->status == "True") {
        return util::make_error("claim " + std::string(claim.metadata.name.view()) + " binding failed: reason=" +
                                failed->reason + ", message=" + util::go_quote(failed->message));
      }
    }
    for (const auto& type : r.bindingConditions) {
      const auto* c = find_condition(status->conditions, type);
      if (c == nullptr || c->status != "True") return false;
    }
  }
  return true;
}

bool claim_binding_timed_out(const resourceapi::ResourceClaim& claim, std::chrono::nanoseconds timeout, api::Time now) {
  if (!claim.status.allocation || !claim.status.allocation->allocationTimestamp) return false;
  const auto& results = claim.status.allocation->devices.results;
  const bool waits = std::any_of(results.begin(), results.end(), [](const auto& r) { return !r.bindingConditions.empty(); });
  return waits && claim.status.allocation->allocationTimestamp->unixNanos + timeout.count() < now.unixNanos;
}

bool has_binding_conditions(const std::vector<dra::ClaimPtr>& claims) {
  for (const auto& c : claims) {
    if (!c->status.allocation) continue;
    for (const auto& r : c->status.allocation->devices.results)
      if (!r.bindingConditions.empty()) return true;
  }
  return false;
}

util::Result<std::shared_ptr<framework::Plugin>> make_dynamic_resources(const framework::PluginArgs& args,
                                                                        framework::Handle& handle) {
  const auto* a = args.as<config::DynamicResourcesArgs>();
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<DynamicResources>(handle, a ? *a : config::DynamicResourcesArgs{}));
}

}  // namespace ksched::scheduler::plugins::dynamicresources
