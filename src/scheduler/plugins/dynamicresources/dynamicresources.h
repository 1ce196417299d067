// DynamicResources (upstream pkg/scheduler/framework/plugins/dynamicresources, v1.35): pods with
// spec.resourceClaims go only where their claims can be satisfied, and the scheduler allocates the
// devices itself (structured parameters).
//
// PreEnqueue holds a pod until every claim exists; PreFilter reads the claims, splits allocated
// from unallocated ones and checks their device classes; Filter allocates the unallocated claims
// on the node with the structured allocator (dra/allocator.h), given only that node's slices and
// the node-less ones, and checks that allocated claims may be used there; Reserve records the
// chosen node's allocation as in flight in the scheduler's DRA state (dra/manager.h), so the next
// pods see those devices taken; PreBind writes allocation and reservedFor to the claim's status;
// Unreserve undoes what was not written. PostFilter deallocates a claim allocated for a node the
// pod cannot use, when no other pod uses it. Score prefers nodes where firstAvailable requests got
// an earlier subrequest.
//
// Extended resources backed by DRA (DRAExtendedResource, alpha at v1.35, off by default as there):
// a pod whose containers request an extended resource that a DeviceClass maps (its
// spec.extendedResourceName or "deviceclass.resource.kubernetes.io/<class>") gets a "special"
// claim, kept last among its claims. PreFilter starts it in memory (or finds the one a prior cycle
// created); Filter gives it, per node that does not advertise the resource in allocatable, one
// request per container and resource (extended_resources.h) and allocates it with the pod's other
// claims; Reserve puts it in flight; PreBind creates it in the API server (counted in
// scheduler_resourceclaim_creates_total), writes allocation and reservedFor and records it in the
// pod's status.extendedResourceClaimStatus; Unreserve deletes a created one. A special claim found
// from a prior cycle is rejected by Filter and deleted by PostFilter, as upstream.
//
// Device binding conditions (DRADeviceBindingConditions, alpha and off at v1.35, with
// DRAResourceClaimDeviceStatus): devices that need preparation before the pod may bind carry
// bindingConditions; the allocator copies them into the allocation. PreBind, after writing the
// claims (with allocationTimestamp), waits until each such device's conditions are True in the
// claim's status.devices, failing on a True failure condition or after bindingTimeout (600 s by
// default); Filter then finds such a claim unavailable and PostFilter deallocates it. The wait
// also ends, with "context canceled", when the scheduler stops (dra::Manager::stop_waits).
// Consumable capacity (DRAConsumableCapacity, alpha): see dra/allocator.h.
// filterTimeout is accepted and validated but not enforced: the allocator has no cancellation.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cel/cel.h"
#include "scheduler/config/types.h"
#include "scheduler/dra/allocator.h"
#include "scheduler/dra/manager.h"
#include "scheduler/framework/interface.h"
#include "scheduler/plugins/dynamicresources/filter_verdicts.h"

namespace ksched::scheduler::plugins::dynamicresources {

inline constexpr std::string_view kName = "DynamicResources";
inline constexpr std::string_view kStateKey = "DynamicResources";
// Upstream AssumeExtendedResourceTimeoutDefaultSeconds: how long PreBind waits for the informer to
// deliver the special claim it created.
inline constexpr std::chrono::seconds kAssumeExtendedResourceTimeout{120};

// scheduler_resourceclaim_creates_total{status}: PreBind's creations of special claims, counted
// process-wide as upstream's counter is (the scheduler's metrics read it when scraped).
struct ResourceClaimCreates {
  std::atomic<std::uint64_t> success{0};
  std::atomic<std::uint64_t> failure{0};
};
ResourceClaimCreates& resource_claim_creates();

struct StateData;

class DynamicResources final : public framework::PreEnqueuePlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PostFilterPlugin,
                               public framework::ScorePlugin,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::SignPlugin,
                               public framework::EnqueueExtensions {
 public:
  // Uses the handle's DRA state; a handle without one (tools that build a framework alone) gets
  // an empty state of the plugin's own, in which no claim exists.
  DynamicResources(framework::Handle& handle, const config::DynamicResourcesArgs& args);

  std::string_view name() const override { return kName; }
  framework::Status pre_enqueue(const api::Pod& pod) override;
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  framework::Status post_filter(framework::CycleState& state, const api::Pod& pod,
                                const framework::NodeToStatus& filtered, framework::PostFilterResult& result) override;
  framework::Status score(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info, std::int64_t& score) override;
  bool has_normalize_score() const override { return true; }
  // A pod without claims scores 0 everywhere (upstream's Score returns early): skip the per-node calls.
  bool scores_nothing(const framework::CycleState& state, const api::Pod& pod) const override;
  framework::Status normalize_score(const framework::CycleState& state, const api::Pod& pod,
                                    framework::NodeScoreList& scores) override;
  framework::Status reserve(framework::CycleState& state, const api::Pod& pod, const std::string& node_name) override;
  void unreserve(framework::CycleState& state, const api::Pod& pod, const std::string& node_name) override;
  framework::Status pre_bind(framework::CycleState& state, const api::Pod& pod, const std::string& node_name) override;
  // Nothing to do at PreBind for a pod without claims (batched binding asks this).
  bool pre_bind_is_quick(const framework::CycleState& state, const api::Pod& pod) const override;
  // Upstream PreBindPreFlight: Skip for a pod without claims, an error without the cycle state.
  framework::Status pre_bind_pre_flight(const framework::CycleState& state, const api::Pod& pod,
                                        const std::string& node_name) override;
  // Upstream SignPod: a pod with claims is never batched.
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

  // The queueing hints (exposed for tests).
  framework::QueueingHint is_schedulable_after_claim_change(const api::Pod& pod,
                                                            const std::shared_ptr<const void>& old_obj,
                                                            const std::shared_ptr<const void>& new_obj) const;
  framework::QueueingHint is_schedulable_after_pod_change(const api::Pod& pod,
                                                          const std::shared_ptr<const void>& old_obj,
                                                          const std::shared_ptr<const void>& new_obj) const;

  dra::Manager& manager() const { return *manager_; }
  const FilterVerdicts& filter_verdicts() const { return verdicts_; }

 private:
  // Upstream foreachPodResourceClaim: "" when each claim of the pod exists, is not being deleted
  // and (from a template) belongs to the pod; fn(claim) for each; else upstream's message.
  // fn(claim) or, when it takes them, fn(claim, group): the pod's PodGroup as the claim's consumer
  // when the pod shares the claim with its group (DRAWorkloadResourceClaims), else nullopt.
  template <class Fn>
  std::string for_each_pod_claim(const api::Pod& pod, Fn&& fn) const;
  std::optional<api::resourcev1::ResourceClaimConsumerReference> group_consumer(
      const api::Pod& pod, const api::PodResourceClaim& pc, const api::resourcev1::ResourceClaim& claim) const;
  framework::Status validate_device_class(std::string_view class_name, std::string_view request_name) const;
  // Upstream bindClaim; returns the claim as written, or an error message.
  util::Result<dra::ClaimPtr> bind_claim(StateData& s, std::size_t index, const api::Pod& pod,
                                         const std::string& node_name);
  // DRAExtendedResource (upstream extendeddynamicresources.go).
  dra::ClaimPtr pre_filter_extended_resources(const api::Pod& pod, StateData& s) const;
  framework::Status filter_extended_resources(
      const StateData& s, const api::Pod& pod, const framework::NodeInfo& node_info,
      dra::ClaimPtr& node_claim, std::vector<api::ContainerExtendedResourceRequest>& mappings) const;
  util::Result<dra::ClaimPtr> create_extended_resource_claim(StateData& s, const api::Pod& pod,
                                                             const std::string& node_name);
  std::string patch_pod_extended_resource_claim_status(StateData& s, const api::Pod& pod,
                                                       const api::resourcev1::ResourceClaim& claim,
                                                       const std::string& node_name);
  void wait_for_claim_in_assume_cache(const dra::ClaimPtr& claim);
  // Device binding conditions: PreBind's wait (upstream's poll of isPodReadyForBinding).
  framework::Status wait_for_binding_conditions(StateData& s, const api::Pod& pod, const std::string& node_name);
  void unreserve_extended_resource_claim(StateData& s, const api::Pod& pod);
  std::string delete_claim(const api::resourcev1::ResourceClaim& claim);

  framework::Handle& handle_;
  config::DynamicResourcesArgs args_;
  std::unique_ptr<dra::Manager> own_manager_;
  dra::Manager* manager_ = nullptr;
  dra::Features features_;
  bool extended_resources_ = false;  // DRAExtendedResource
  bool group_claims_ = false;        // DRAWorkloadResourceClaims
  std::chrono::nanoseconds binding_timeout_{};  // DynamicResourcesArgs.bindingTimeout, defaulted
  std::unique_ptr<cel::Cache> cel_;
  // What every Filter call's allocator borrows: the class lookup and the selector results, which
  // stay valid as long as the slice objects they were computed for live.
  dra::DeviceClassLookup classes_;
  std::unique_ptr<dra::SelectorCache> selector_results_;
  // Filter's verdicts per node, shared by pods with the same claims (filter_verdicts.h).
  FilterVerdicts verdicts_;
};

// The scheduling queue's index for the ResourceClaim hint (queue::UnschedulablePodIndex): a pod
// waits on "namespace/name" of each claim it names (its resourceClaimName, or the name the
// ResourceClaim controller recorded in its status for a template); a claim event concerns the pods
// naming that claim, except a deallocation (nullopt), which frees devices any pod may want. This is
// the hint's own Skip rule (is_schedulable_after_claim_change), so the index asks the pods it would
// not Skip.
void claim_keys_of_pod(const api::Pod& pod, std::vector<std::string>& out);
std::optional<std::string> claim_key_of_event(const std::shared_ptr<const void>& old_obj,
                                              const std::shared_ptr<const void>& new_obj);

// Device binding conditions (upstream's helpers of the same names, v1.35).
// isClaimReadyForBinding: true when every allocated device with bindingConditions has them all
// True in status.devices (so also when none has any); an error (upstream's message) when one of
// its bindingFailureConditions is True; false while waiting.
util::Result<bool> claim_ready_for_binding(const api::resourcev1::ResourceClaim& claim);
// isClaimTimeout: some device has binding conditions and allocationTimestamp + timeout < now.
bool claim_binding_timed_out(const api::resourcev1::ResourceClaim& claim, std::chrono::nanoseconds timeout,
                             api::Time now);
// hasBindingConditions: some allocated claim has a device with binding conditions.
bool has_binding_conditions(const std::vector<dra::ClaimPtr>& claims);
// The wall clock as an API timestamp.
api::Time now();

util::Result<std::shared_ptr<framework::Plugin>> make_dynamic_resources(const framework::PluginArgs& args,
                                                                        framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::dynamicresources
