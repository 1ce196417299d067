// DynamicResources and device binding conditions (DRADeviceBindingConditions with
// DRAResourceClaimDeviceStatus; alpha and off in v1.35, beta and on in v1.36; ksched keeps v1.35's
// default). Each test names the upstream rule it mirrors (pkg/scheduler/framework/plugins/
// dynamicresources/dynamicresources.go at v1.35.4: PreBind's wait, isClaimReadyForBinding,
// isClaimTimeout, hasBindingConditions, Filter's unavailable claims, PostFilter's deallocation).
// The API server is a fake keeping claims with resourceVersions; the scheduler's DRA state is fed
// by hand, as its informers would feed it; a driver's status update is delivered the same way.
#include "scheduler/plugins/dynamicresources/dynamicresources.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <map>
#include <mutex>

#include "api/codec.h"
#include "api/yaml_json.h"
#include "scheduler/config/features.h"
#include "scheduler_testing/fakes.h"

namespace ksched::scheduler::plugins::dynamicresources {
namespace {

namespace fw = framework;
namespace resourceapi = api::resourcev1;

template <class T>
std::shared_ptr<const T> decode_yaml(std::string_view yaml) {
  auto json = api::yaml_text_to_json(yaml);
  EXPECT_TRUE(json.ok()) << json.error();
  auto o = api::decode<T>(api::to_json_text(*json));
  EXPECT_TRUE(o.ok()) << o.error() << "\n" << yaml;
  return std::make_shared<const T>(o.ok() ? std::move(*o) : T{});
}

// Claims by name with optimistic concurrency, and the events recorded, with a way to wait for one.
class Client : public testing::FakeClusterClient {
 public:
  void put(resourceapi::ResourceClaim c) {
    std::lock_guard l(mu_);
    c.metadata.resourceVersion = std::to_string(++rv_);
    const std::string name(c.metadata.name.view());
    claims_[name] = std::make_shared<const resourceapi::ResourceClaim>(std::move(c));
  }
  std::shared_ptr<const resourceapi::ResourceClaim> stored(const std::string& name) {
    std::lock_guard l(mu_);
    return claims_.at(name);
  }
  ClaimAnswer get_resource_claim(std::string_view, std::string_view name) override {
    std::lock_guard l(mu_);
    auto it = claims_.find(std::string(name));
    if (it == claims_.end()) return {nullptr, fw::Status::error("not found"), false};
    return {it->second, {}, false};
  }
  ClaimAnswer update_resource_claim(const resourceapi::ResourceClaim& c, bool status) override {
    std::lock_guard l(mu_);
    auto& cur = claims_.at(std::string(c.metadata.name.view()));
    if (cur->metadata.resourceVersion != c.metadata.resourceVersion)
      return {nullptr, fw::Status::error("the object has been modified"), true};
    auto next = std::make_shared<resourceapi::ResourceClaim>(*cur);
    if (status) {
      next->status = c.status;
    } else {
      next->metadata = c.metadata;
      next->spec = c.spec;
    }
    next->metadata.resourceVersion = std::to_string(++rv_);
    cur = next;
    return {next, {}, false};
  }
  void event(const api::Pod& regarding, const std::string& type, const std::string& reason,
             const std::string& action, const std::string& note) override {
    FakeClusterClient::event(regarding, type, reason, action, note);
    std::lock_guard l(mu_);
    ++events_seen_;
    event_cv_.notify_all();
  }
  // Until `n` events were recorded; false when none came for a minute (a broken PreBind that
  // never reaches its wait fails the test instead of hanging it).
  bool wait_for_events(std::size_t n) {
    std::unique_lock l(mu_);
    return event_cv_.wait_for(l, std::chrono::minutes(1), [&] { return events_seen_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable event_cv_;
  std::size_t events_seen_ = 0;
  std::map<std::string, std::shared_ptr<const resourceapi::ResourceClaim>> claims_;
  std::uint64_t rv_ = 100;
};

class Handle : public testing::FakeHandle {
 public:
  fw::ClusterClient& client() override { return claims; }
  dra::Manager* dra_manager() const override { return &manager; }
  Client claims;
  mutable dra::Manager manager;
};

config::Features gates(bool binding_conditions) {
  config::Features f = config::features();
  f.draDeviceBindingConditions = binding_conditions;
  return f;
}

// One node; a fabric device offered to all nodes that binds to the node it is allocated for and
// must be attached first (binding condition Attached, failure condition AttachFailed); claim "c"
// for one such device, and pod "p" using it.
class BindingConditionsTest : public ::testing::Test {
 protected:
  explicit BindingConditionsTest(bool gate = true) : gates_(gates(gate)) {}
  void SetUp() override { start(config::DynamicResourcesArgs{}); }
  void start(config::DynamicResourcesArgs args) {
    auto n = std::make_shared<api::Node>();
    n->metadata.name = "node-1";
    handle.set_snapshot(std::vector<fw::PodPtr>{}, {n});
    plugin = std::make_unique<DynamicResources>(handle, args);
    handle.manager.on_class_add(decode_yaml<resourceapi::DeviceClass>(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: fabric}\nspec:\n"
        "  selectors: [{cel: {expression: 'device.driver == \"fabric.example.com\"'}}]\n"));
    handle.manager.on_slice_add(decode_yaml<resourceapi::ResourceSlice>(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: fabric}\nspec:\n"
        "  driver: fabric.example.com\n  pool: {name: fabric, generation: 1, resourceSliceCount: 1}\n"
        "  allNodes: true\n  devices:\n  - name: dev-0\n    bindsToNode: true\n"
        "    bindingConditions: [Attached]\n    bindingFailureConditions: [AttachFailed]\n"));
    auto c = decode_yaml<resourceapi::ResourceClaim>(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default, uid: uid-c}\n"
        "spec:\n  devices:\n    requests:\n    - name: req\n      exactly: {deviceClassName: fabric, "
        "allocationMode: ExactCount, count: 1}\n");
    handle.claims.put(*c);
    informer_delivers();
    pod = decode_yaml<api::Pod>(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: uid-p}\nspec:\n"
        "  containers: [{name: c, image: i}]\n  resourceClaims:\n  - {name: dev, resourceClaimName: c}\n");
  }
  // The informer delivers the API server's claim to the scheduler.
  void informer_delivers() { handle.manager.on_claim_add(handle.claims.stored("c")); }
  // A driver sets the device's condition `type` in the claim's status.devices.
  void driver_sets(const std::string& type, const std::string& reason = "", const std::string& message = "") {
    resourceapi::ResourceClaim c = *handle.claims.stored("c");
    resourceapi::AllocatedDeviceStatus d;
    d.driver = "fabric.example.com";
    d.pool = "fabric";
    d.device = "dev-0";
    api::Condition cond;
    cond.type = type;
    cond.status = "True";
    cond.reason = reason;
    cond.message = message;
    d.conditions.push_back(cond);
    c.status.devices = {d};
    handle.claims.put(c);
    informer_delivers();
  }
  // PreFilter, Filter and Reserve on node-1 for pod p.
  void schedule(fw::CycleState& s) {
    fw::PreFilterResult r;
    ASSERT_TRUE(plugin->pre_filter(s, *pod, handle.snapshot().list(), r).is_success());
    auto st = plugin->filter(s, *pod, *handle.snapshot().get("node-1"));
    ASSERT_TRUE(st.is_success()) << st.message();
    ASSERT_TRUE(plugin->reserve(s, *pod, "node-1").is_success());
  }

  config::ScopedFeatures gates_;
  Handle handle;
  std::unique_ptr<DynamicResources> plugin;
  std::shared_ptr<const api::Pod> pod;
};

// PreBind with binding conditions: the claim is written with the device's binding conditions, its
// allocationTimestamp and a node selector for the node (bindsToNode); the pod gets the event
// BindingConditionsPending and PreBind waits until the driver sets Attached=True, then succeeds.
TEST_F(BindingConditionsTest, PreBindWaitsUntilTheConditionsAreTrue) {
  fw::CycleState s;
  schedule(s);
  auto prebind = std::async(std::launch::async, [&] { return plugin->pre_bind(s, *pod, "node-1"); });
  ASSERT_TRUE(handle.claims.wait_for_events(1));  // PreBind wrote the claim and waits
  auto written = handle.claims.stored("c");
  ASSERT_TRUE(written->status.allocation);
  const auto& result = written->status.allocation->devices.results.at(0);
  EXPECT_EQ(result.bindingConditions.vec(), std::vector<std::string>{"Attached"});
  EXPECT_EQ(result.bindingFailureConditions.vec(), std::vector<std::string>{"AttachFailed"});
  EXPECT_TRUE(written->status.allocation->allocationTimestamp);
  ASSERT_TRUE(written->status.allocation->nodeSelector);
  EXPECT_EQ(written->status.allocation->nodeSelector->nodeSelectorTerms.at(0).matchFields.at(0).values,
            std::vector<std::string>{"node-1"});
  ASSERT_EQ(written->status.reservedFor.size(), 1u);
  auto events = handle.claims.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].regarding, "default/p");
  EXPECT_EQ(events[0].type, "Normal");
  EXPECT_EQ(events[0].reason, "BindingConditionsPending");
  EXPECT_EQ(events[0].action, "Scheduling");
  EXPECT_EQ(events[0].note, "waiting for binding conditions for device on node node-1");

  // Another condition type does not help; Attached does.
  driver_sets("Preparing");
  driver_sets("Attached");
  auto st = prebind.get();
  EXPECT_TRUE(st.is_success()) << st.message();
}

// isClaimReadyForBinding's failure: a True bindingFailureCondition ends PreBind with upstream's
// error ("claim <name> binding failed: reason=..., message=%q"). The scheduler then unreserves:
// the claim keeps its allocation but loses the reservation. In the next attempt Filter finds the
// claim unavailable (failed binding) and PostFilter deallocates it (allocation and devices' status
// cleared), so that devices are allocated afresh.
TEST_F(BindingConditionsTest, FailureConditionFailsPreBindAndTheClaimIsDeallocatedNextAttempt) {
  fw::CycleState s;
  schedule(s);
  auto prebind = std::async(std::launch::async, [&] { return plugin->pre_bind(s, *pod, "node-1"); });
  ASSERT_TRUE(handle.claims.wait_for_events(1));
  driver_sets("AttachFailed", "NoPath", "fabric \"a\" is full");
  auto st = prebind.get();
  EXPECT_EQ(st.code(), fw::Code::Error);
  EXPECT_EQ(st.message(), "claim c binding failed: reason=NoPath, message=\"fabric \\\"a\\\" is full\"");

  plugin->unreserve(s, *pod, "node-1");
  auto after = handle.claims.stored("c");
  EXPECT_TRUE(after->status.reservedFor.empty());
  EXPECT_TRUE(after->status.allocation);
  informer_delivers();

  fw::CycleState next;
  fw::PreFilterResult r;
  ASSERT_TRUE(plugin->pre_filter(next, *pod, handle.snapshot().list(), r).is_success());
  auto filtered = plugin->filter(next, *pod, *handle.snapshot().get("node-1"));
  EXPECT_EQ(filtered.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(filtered.message(), "resourceclaim not available on the node");
  fw::PostFilterResult pr;
  auto pf = plugin->post_filter(next, *pod, fw::NodeToStatus{}, pr);
  EXPECT_EQ(pf.code(), fw::Code::Unschedulable);
  EXPECT_EQ(pf.message(), "deallocation of ResourceClaim completed");
  auto cleared = handle.claims.stored("c");
  EXPECT_FALSE(cleared->status.allocation);
  EXPECT_TRUE(cleared->status.devices.empty());
}

// PreBind's PollUntilContextTimeout(bindingTimeout): no condition ever turns True, so PreBind gives
// up with "device binding timeout" (upstream maps context.DeadlineExceeded to it). One second is
// the smallest bindingTimeout validation allows.
TEST_F(BindingConditionsTest, PreBindTimesOut) {
  config::DynamicResourcesArgs args;
  args.bindingTimeout = std::chrono::seconds(1);
  plugin = std::make_unique<DynamicResources>(handle, args);
  fw::CycleState s;
  schedule(s);
  auto st = plugin->pre_bind(s, *pod, "node-1");
  EXPECT_EQ(st.code(), fw::Code::Error);
  EXPECT_EQ(st.message(), "device binding timeout");
}

// PreBind's PollUntilContextTimeout(ctx, ...) on a cancelled context: when the scheduler stops
// (dra::Manager::stop_waits, what Scheduler::stop calls), a PreBind waiting for a condition nobody
// sets ends at once with the context's error, "context canceled", long before bindingTimeout
// (600 s here). A PreBind started after the stop checks the claims once, then ends the same way.
TEST_F(BindingConditionsTest, PreBindWaitEndsWhenTheSchedulerStops) {
  fw::CycleState s;
  schedule(s);
  auto prebind = std::async(std::launch::async, [&] { return plugin->pre_bind(s, *pod, "node-1"); });
  ASSERT_TRUE(handle.claims.wait_for_events(1));  // PreBind wrote the claim and waits
  EXPECT_FALSE(handle.manager.waits_stopped());
  handle.manager.stop_waits();
  // Bounded: a wait that ignores the stop would run for bindingTimeout (600 s).
  ASSERT_EQ(prebind.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  auto st = prebind.get();
  EXPECT_EQ(st.code(), fw::Code::Error);
  EXPECT_EQ(st.message(), "context canceled");
  EXPECT_TRUE(handle.manager.waits_stopped());

  // The condition already True: no wait, so the stop does not matter (upstream's immediate poll).
  driver_sets("Attached");
  fw::CycleState again;
  schedule(again);
  EXPECT_TRUE(plugin->pre_bind(again, *pod, "node-1").is_success());
}

// isClaimTimeout in Filter: an allocated claim whose allocationTimestamp is older than
// bindingTimeout while its conditions are not all True is unavailable; PostFilter deallocates it.
TEST_F(BindingConditionsTest, ClaimPastItsBindingTimeoutIsUnavailableAndDeallocated) {
  fw::CycleState s;
  schedule(s);
  // The allocation as PreBind wrote it, but long ago (and the pod unreserved since).
  resourceapi::ResourceClaim c = *handle.claims.stored("c");
  resourceapi::AllocationResult a;
  resourceapi::DeviceRequestAllocationResult d;
  d.request = "req";
  d.driver = "fabric.example.com";
  d.pool = "fabric";
  d.device = "dev-0";
  d.bindingConditions = std::vector<std::string>{"Attached"};
  d.bindingFailureConditions = std::vector<std::string>{"AttachFailed"};
  a.devices.results.push_back(d);
  a.allocationTimestamp = api::Time{now().unixNanos - std::chrono::nanoseconds(std::chrono::seconds(601)).count()};
  c.status.allocation = a;
  plugin->unreserve(s, *pod, "node-1");
  handle.claims.put(c);
  informer_delivers();
  EXPECT_TRUE(claim_binding_timed_out(*handle.claims.stored("c"), std::chrono::seconds(600), now()));
  EXPECT_FALSE(claim_binding_timed_out(*handle.claims.stored("c"), std::chrono::seconds(602), now()));

  fw::CycleState next;
  fw::PreFilterResult r;
  ASSERT_TRUE(plugin->pre_filter(next, *pod, handle.snapshot().list(), r).is_success());
  EXPECT_EQ(plugin->filter(next, *pod, *handle.snapshot().get("node-1")).message(),
            "resourceclaim not available on the node");
  fw::PostFilterResult pr;
  EXPECT_EQ(plugin->post_filter(next, *pod, fw::NodeToStatus{}, pr).message(), "deallocation of ResourceClaim completed");
  EXPECT_FALSE(handle.claims.stored("c")->status.allocation);
}

// isClaimReadyForBinding / isClaimTimeout / hasBindingConditions on hand-made claims.
TEST(BindingConditionsHelpers, ReadyTimeoutAndHasConditions) {
  resourceapi::ResourceClaim c;
  c.metadata.name = "c";
  EXPECT_FALSE(*claim_ready_for_binding(c));  // not allocated
  resourceapi::AllocationResult a;
  resourceapi::DeviceRequestAllocationResult plain, waits;
  plain.request = waits.request = "req";
  plain.driver = waits.driver = "d";
  plain.pool = waits.pool = "p";
  plain.device = "plain";
  waits.device = "waits";
  waits.bindingConditions = std::vector<std::string>{"A", "B"};
  waits.bindingFailureConditions = std::vector<std::string>{"F"};
  a.devices.results = {plain};
  c.status.allocation = a;
  EXPECT_TRUE(*claim_ready_for_binding(c));  // no device has binding conditions
  EXPECT_FALSE(has_binding_conditions({std::make_shared<const resourceapi::ResourceClaim>(c)}));
  a.devices.results.push_back(waits);
  c.status.allocation = a;
  EXPECT_TRUE(has_binding_conditions({std::make_shared<const resourceapi::ResourceClaim>(c)}));
  EXPECT_FALSE(*claim_ready_for_binding(c));  // no status for the device yet
  resourceapi::AllocatedDeviceStatus st;
  st.driver = "d";
  st.pool = "p";
  st.device = "waits";
  auto cond = [](std::string type, std::string status) {
    api::Condition x;
    x.type = std::move(type);
    x.status = std::move(status);
    return x;
  };
  st.conditions = {cond("A", "True"), cond("B", "False")};
  c.status.devices = {st};
  EXPECT_FALSE(*claim_ready_for_binding(c));
  c.status.devices[0].conditions = {cond("A", "True"), cond("B", "True"), cond("F", "False")};
  EXPECT_TRUE(*claim_ready_for_binding(c));
  c.status.devices[0].conditions[2].status = "True";
  EXPECT_FALSE(claim_ready_for_binding(c).ok());  // a failure condition wins over ready ones
  // No allocationTimestamp: never timed out.
  EXPECT_FALSE(claim_binding_timed_out(c, std::chrono::seconds(1), now()));
}

class BindingConditionsGateOffTest : public BindingConditionsTest {
 protected:
  BindingConditionsGateOffTest() : BindingConditionsTest(false) {}
};

// Gate off (v1.35's default): the device with binding conditions is not allocatable (the stable
// allocator's isSelectable), and PreBind returns at once for a claim that already carries binding
// conditions in its allocation (upstream's early return), without the event.
TEST_F(BindingConditionsGateOffTest, DevicesAreNotAllocatableAndPreBindDoesNotWait) {
  fw::CycleState s;
  fw::PreFilterResult r;
  ASSERT_TRUE(plugin->pre_filter(s, *pod, handle.snapshot().list(), r).is_success());
  EXPECT_EQ(plugin->filter(s, *pod, *handle.snapshot().get("node-1")).message(), "cannot allocate all claims");

  // Allocated elsewhere with binding conditions (say by a scheduler with the gate on).
  resourceapi::ResourceClaim c = *handle.claims.stored("c");
  resourceapi::AllocationResult a;
  resourceapi::DeviceRequestAllocationResult d;
  d.request = "req";
  d.driver = "fabric.example.com";
  d.pool = "fabric";
  d.device = "dev-0";
  d.bindingConditions = std::vector<std::string>{"Attached"};
  d.bindingFailureConditions = std::vector<std::string>{"AttachFailed"};
  a.devices.results.push_back(d);
  c.status.allocation = a;
  handle.claims.put(c);
  informer_delivers();
  fw::CycleState s2;
  ASSERT_TRUE(plugin->pre_filter(s2, *pod, handle.snapshot().list(), r).is_success());
  ASSERT_TRUE(plugin->filter(s2, *pod, *handle.snapshot().get("node-1")).is_success());
  ASSERT_TRUE(plugin->reserve(s2, *pod, "node-1").is_success());
  EXPECT_TRUE(plugin->pre_bind(s2, *pod, "node-1").is_success());
  EXPECT_TRUE(handle.claims.events().empty());
  EXPECT_FALSE(handle.claims.stored("c")->status.allocation->allocationTimestamp);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::dynamicresources
