// DynamicResources at each extension point, against upstream's dynamicresources_test.go (v1.35):
// each test names the upstream case it mirrors. The API server is a fake that keeps claims with
// resourceVersions (a stale write is a conflict); the scheduler's DRA state is fed by hand, as its
// informers would.
#include "scheduler/plugins/dynamicresources/dynamicresources.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <random>
#include <tuple>

#include "api/codec.h"
#include "api/yaml_json.h"
#include "scheduler/config/features.h"
#include "scheduler/plugins/dynamicresources/extended_resources.h"
#include "scheduler_testing/fakes.h"

namespace ksched::scheduler::plugins::dynamicresources {
namespace {

namespace fw = framework;
namespace resourceapi = api::resourcev1;
using testing::FakeHandle;

template <class T>
std::shared_ptr<const T> obj(std::string_view yaml) {
  auto json = api::yaml_text_to_json(yaml);
  EXPECT_TRUE(json.ok()) << json.error();
  auto o = api::decode<T>(api::to_json_text(*json));
  EXPECT_TRUE(o.ok()) << o.error() << "\n" << yaml;
  return std::make_shared<const T>(o.ok() ? std::move(*o) : T{});
}

std::shared_ptr<const api::Node> node(const std::string& name) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  n->metadata.labels.set("kubernetes.io/hostname", name);
  return n;
}

// `devices` GPUs of driver gpu.example.com on `node_name`, in the node's own pool.
std::shared_ptr<const resourceapi::ResourceSlice> slice(const std::string& node_name, int devices) {
  std::string y = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + node_name +
                  "-gpu}\nspec:\n  driver: gpu.example.com\n  pool: {name: " + node_name +
                  ", generation: 1, resourceSliceCount: 1}\n  nodeName: " + node_name + "\n  devices:\n";
  for (int i = 0; i < devices; ++i) y += "  - name: gpu-" + std::to_string(i) + "\n";
  return obj<resourceapi::ResourceSlice>(y);
}

std::shared_ptr<const resourceapi::DeviceClass> gpu_class() {
  return obj<resourceapi::DeviceClass>(
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n"
      "  selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]\n");
}

// A claim for one GPU (class `cls`), uid "uid-<name>", resourceVersion 1.
std::shared_ptr<resourceapi::ResourceClaim> claim(const std::string& name, const std::string& cls = "gpu") {
  auto c = obj<resourceapi::ResourceClaim>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name +
      ", namespace: default, uid: uid-" + name + ", resourceVersion: '1'}\nspec:\n  devices:\n    requests:\n"
      "    - name: req-1\n      exactly: {deviceClassName: " + cls + ", allocationMode: ExactCount, count: 1}\n");
  return std::make_shared<resourceapi::ResourceClaim>(*c);
}

// A pod whose claim "gpu" names `claim_name` directly.
std::shared_ptr<const api::Pod> pod_with_claim(const std::string& name, const std::string& claim_name) {
  return obj<api::Pod>("apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default, uid: uid-" +
                       name + "}\nspec:\n  containers: [{name: c, image: i}]\n  resourceClaims:\n"
                       "  - {name: gpu, resourceClaimName: " + claim_name + "}\n");
}

// A pod whose claim "gpu" comes from a template; `generated` is what the controller recorded.
std::shared_ptr<const api::Pod> pod_with_template(const std::string& name, const std::string& generated = "") {
  std::string y = "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default, uid: uid-" + name +
                  "}\nspec:\n  containers: [{name: c, image: i}]\n  resourceClaims:\n"
                  "  - {name: gpu, resourceClaimTemplateName: gpu-template}\n";
  if (!generated.empty()) y += "status:\n  resourceClaimStatuses: [{name: gpu, resourceClaimName: " + generated + "}]\n";
  return obj<api::Pod>(y);
}

std::shared_ptr<const api::Pod> plain_pod(const std::string& name) {
  return obj<api::Pod>("apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default, uid: uid-" +
                       name + "}\nspec:\n  containers: [{name: c, image: i}]\n");
}

// An allocation of `device` in pool `pool` of gpu.example.com, for request req-1; with `node`, the
// node selector that pins it there.
resourceapi::AllocationResult allocation(const std::string& pool, const std::string& device,
                                         const std::string& node = "") {
  resourceapi::AllocationResult a;
  resourceapi::DeviceRequestAllocationResult r;
  r.request = "req-1";
  r.driver = "gpu.example.com";
  r.pool = pool;
  r.device = device;
  a.devices.results.push_back(r);
  if (!node.empty()) {
    api::NodeSelectorRequirement req;
    req.key = "metadata.name";
    req.operator_ = "In";
    req.values = {node};
    api::NodeSelectorTerm term;
    term.matchFields.push_back(req);
    api::NodeSelector sel;
    sel.nodeSelectorTerms.push_back(term);
    a.nodeSelector = sel;
  }
  return a;
}

// The API server's claims: GET and PUT (object or status) with optimistic concurrency.
class ClaimClient : public testing::FakeClusterClient {
 public:
  void put(const resourceapi::ResourceClaim& c) {
    std::lock_guard l(mu_);
    claims_[key(c)] = std::make_shared<const resourceapi::ResourceClaim>(c);
  }
  std::shared_ptr<const resourceapi::ResourceClaim> stored(const std::string& name) {
    std::lock_guard l(mu_);
    auto it = claims_.find("default/" + name);
    return it == claims_.end() ? nullptr : it->second;
  }
  ClaimAnswer get_resource_claim(std::string_view ns, std::string_view name) override {
    std::lock_guard l(mu_);
    auto it = claims_.find(std::string(ns) + "/" + std::string(name));
    if (it == claims_.end()) return {nullptr, fw::Status::error("not found"), false};
    return {it->second, {}, false};
  }
  ClaimAnswer update_resource_claim(const resourceapi::ResourceClaim& c, bool status) override {
    std::lock_guard l(mu_);
    ++updates;
    if (conflicts_left > 0) {
      --conflicts_left;
      // Someone else wrote in between: the stored version moves on.
      auto bumped = std::make_shared<resourceapi::ResourceClaim>(*claims_.at(key(c)));
      bumped->metadata.resourceVersion = std::to_string(++rv_);
      claims_[key(c)] = bumped;
    }
    auto& cur = claims_.at(key(c));
    if (cur->metadata.resourceVersion != c.metadata.resourceVersion) {
      return {nullptr, fw::Status::error("the object has been modified"), true};
    }
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
  // DRAExtendedResource: POST names the claim from its generateName; the informer (`on_create`,
  // set by the handle) sees it at once, as a fast one would.
  ClaimAnswer create_resource_claim(const resourceapi::ResourceClaim& c) override {
    std::shared_ptr<const resourceapi::ResourceClaim> made;
    {
      std::lock_guard l(mu_);
      if (!create_error.empty()) return {nullptr, fw::Status::error(create_error), false};
      auto next = std::make_shared<resourceapi::ResourceClaim>(c);
      next->metadata.name = std::string(c.metadata.generateName.view()) + std::to_string(created_);
      next->metadata.uid = "uid-created-" + std::to_string(created_++);
      next->metadata.resourceVersion = std::to_string(++rv_);
      claims_[key(*next)] = next;
      made = next;
    }
    if (on_create) on_create(made);
    return {made, {}, false};
  }
  fw::Status delete_resource_claim(std::string_view ns, std::string_view name) override {
    std::shared_ptr<const resourceapi::ResourceClaim> gone;
    {
      std::lock_guard l(mu_);
      auto it = claims_.find(std::string(ns) + "/" + std::string(name));
      if (it == claims_.end()) return fw::Status::error("not found");
      gone = it->second;
      claims_.erase(it);
      deleted.push_back(std::string(name));
    }
    if (on_delete) on_delete(gone);
    return {};
  }
  fw::Status patch_pod_extended_resource_claim_status(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& st) override {
    std::lock_guard l(mu_);
    if (!patch_error.empty()) return fw::Status::error(patch_error);
    pod_statuses[std::string(pod.metadata.name.view())] = st;
    return {};
  }
  std::vector<std::shared_ptr<const resourceapi::ResourceClaim>> all() {
    std::lock_guard l(mu_);
    std::vector<std::shared_ptr<const resourceapi::ResourceClaim>> out;
    for (const auto& [k, c] : claims_) out.push_back(c);
    return out;
  }
  int conflicts_left = 0;
  int updates = 0;
  std::string create_error, patch_error;
  std::vector<std::string> deleted;
  std::map<std::string, api::PodExtendedResourceClaimStatus> pod_statuses;
  std::function<void(std::shared_ptr<const resourceapi::ResourceClaim>)> on_create, on_delete;

 private:
  int created_ = 0;
  static std::string key(const resourceapi::ResourceClaim& c) {
    return std::string(c.metadata.namespace_.view()) + "/" + std::string(c.metadata.name.view());
  }
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const resourceapi::ResourceClaim>> claims_;
  std::uint64_t rv_ = 100;
};

class DraHandle : public FakeHandle {
 public:
  fw::ClusterClient& client() override { return claims; }
  dra::Manager* dra_manager() const override { return &manager; }
  ClaimClient claims;
  mutable dra::Manager manager;
};

class DynamicResourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    handle.set_snapshot(std::vector<fw::PodPtr>{}, {node("node-1"), node("node-2")});
    plugin = std::make_unique<DynamicResources>(handle, config::DynamicResourcesArgs{});
    handle.manager.on_class_add(gpu_class());
  }
  // A claim known to the API server and to the scheduler's informer.
  void add_claim(const std::shared_ptr<resourceapi::ResourceClaim>& c) {
    handle.claims.put(*c);
    handle.manager.on_claim_add(c);
  }
  const fw::NodeInfo& ni(const std::string& name) { return *handle.snapshot().get(name); }
  fw::Status pre_filter(fw::CycleState& s, const api::Pod& p) {
    fw::PreFilterResult r;
    return plugin->pre_filter(s, p, handle.snapshot().list(), r);
  }

  DraHandle handle;
  std::unique_ptr<DynamicResources> plugin;
};

// "empty": a pod without claims is skipped at PreFilter and costs nothing after.
TEST_F(DynamicResourcesTest, PodWithoutClaimsIsSkipped) {
  auto p = plain_pod("p");
  EXPECT_TRUE(plugin->pre_enqueue(*p).is_success());
  fw::CycleState s;
  EXPECT_TRUE(pre_filter(s, *p).is_skip());
  fw::PostFilterResult pr;
  auto st = plugin->post_filter(s, *p, fw::NodeToStatus{}, pr);
  EXPECT_EQ(st.code(), fw::Code::Unschedulable);
  EXPECT_EQ(st.message(), "no new claims to deallocate");
  EXPECT_TRUE(plugin->reserve(s, *p, "node-1").is_success());
  EXPECT_TRUE(plugin->pre_bind_is_quick(s, *p));
  EXPECT_TRUE(plugin->pre_bind_pre_flight(s, *p, "node-1").is_skip());  // upstream PreBindPreFlight
  fw::CycleState no_state;
  EXPECT_EQ(plugin->pre_bind_pre_flight(no_state, *p, "node-1").code(), fw::Code::Error);
  EXPECT_TRUE(plugin->pre_bind(s, *p, "node-1").is_success());
  fw::PodSignature sig;
  plugin->sign_pod(*p, sig);
  EXPECT_TRUE(sig.signable());
}

// "claim does not exist": PreEnqueue and PreFilter name the missing claim.
TEST_F(DynamicResourcesTest, MissingClaimKeepsThePodOut) {
  auto p = pod_with_claim("p", "my-claim");
  auto st = plugin->pre_enqueue(*p);
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), "could not find ResourceClaim \"default/my-claim\"");
  fw::CycleState s;
  EXPECT_EQ(pre_filter(s, *p).message(), "could not find ResourceClaim \"default/my-claim\"");
  fw::PodSignature sig;
  plugin->sign_pod(*p, sig);
  EXPECT_FALSE(sig.signable());  // upstream SignPod: pods with claims are not signable
}

// "claim not created yet" (template): the controller has not recorded the claim in the pod's status.
TEST_F(DynamicResourcesTest, TemplateClaimNotCreatedYet) {
  auto st = plugin->pre_enqueue(*pod_with_template("p"));
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), "pod \"default/p\": ResourceClaim not created yet");
  // Recorded but not yet seen by the informer.
  EXPECT_EQ(plugin->pre_enqueue(*pod_with_template("p", "p-gpu-x")).message(),
            "could not find ResourceClaim \"default/p-gpu-x\"");
  // Seen, but not made for this pod: upstream IsForPod.
  add_claim(claim("p-gpu-x"));
  EXPECT_EQ(plugin->pre_enqueue(*pod_with_template("p", "p-gpu-x")).message(),
            "ResourceClaim default/p-gpu-x was not created for pod default/p (pod is not owner)");
}

// "deleted claim".
TEST_F(DynamicResourcesTest, ClaimBeingDeleted) {
  auto c = claim("my-claim");
  c->metadata.deletionTimestamp = api::Time{};
  add_claim(c);
  EXPECT_EQ(plugin->pre_enqueue(*pod_with_claim("p", "my-claim")).message(),
            "resourceclaim \"my-claim\" is being deleted");
}

// "missing class".
TEST_F(DynamicResourcesTest, MissingDeviceClass) {
  add_claim(claim("my-claim", "no-such-class"));
  fw::CycleState s;
  auto st = pre_filter(s, *pod_with_claim("p", "my-claim"));
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), "request req-1: device class no-such-class does not exist");
}

// "structured no resources" and "structured ... allocation": Filter allocates on the node's own
// devices; a node without any says so.
TEST_F(DynamicResourcesTest, FilterAllocatesOnTheNodesDevices) {
  handle.manager.on_slice_add(slice("node-1", 1));
  add_claim(claim("my-claim"));
  auto p = pod_with_claim("p", "my-claim");
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *p).is_success());
  EXPECT_TRUE(plugin->filter(s, *p, ni("node-1")).is_success());
  auto st = plugin->filter(s, *p, ni("node-2"));
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), "cannot allocate all claims");
}

// "structured allocation, other node" / "allocated claim on other node": an allocated claim whose
// node selector excludes the node; PostFilter then deallocates it (nobody uses it).
TEST_F(DynamicResourcesTest, ClaimAllocatedElsewhereIsDeallocatedInPostFilter) {
  auto c = claim("my-claim");
  c->status.allocation = allocation("node-2", "gpu-0", "node-2");
  add_claim(c);
  auto p = pod_with_claim("p", "my-claim");
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *p).is_success());
  auto st = plugin->filter(s, *p, ni("node-1"));
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), "resourceclaim not available on the node");
  EXPECT_TRUE(plugin->filter(s, *p, ni("node-2")).is_success());
  fw::PostFilterResult pr;
  st = plugin->post_filter(s, *p, fw::NodeToStatus{}, pr);
  EXPECT_EQ(st.code(), fw::Code::Unschedulable);
  EXPECT_EQ(st.message(), "deallocation of ResourceClaim completed");
  EXPECT_FALSE(handle.claims.stored("my-claim")->status.allocation);
}

// "claim reserved for another pod" at the limit: "resourceclaim in use".
TEST_F(DynamicResourcesTest, ClaimWithFullReservedForIsInUse) {
  auto c = claim("my-claim");
  c->status.allocation = allocation("node-1", "gpu-0");
  for (std::size_t i = 0; i < dra::kResourceClaimReservedForMaxSize; ++i) {
    resourceapi::ResourceClaimConsumerReference r;
    r.resource = "pods";
    r.name = "other-" + std::to_string(i);
    r.uid = "uid-other-" + std::to_string(i);
    c->status.reservedFor.push_back(r);
  }
  add_claim(c);
  fw::CycleState s;
  auto st = pre_filter(s, *pod_with_claim("p", "my-claim"));
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), "resourceclaim in use");
}

// Two pods competing for the last device (upstream's in-flight allocation, "claim is in flight"):
// after the first pod's Reserve the second finds no device; Unreserve frees it again.
TEST_F(DynamicResourcesTest, ReservedDeviceIsNotGivenTwiceUntilUnreserve) {
  handle.manager.on_slice_add(slice("node-1", 1));
  add_claim(claim("a"));
  add_claim(claim("b"));
  auto pa = pod_with_claim("pa", "a");
  auto pb = pod_with_claim("pb", "b");

  fw::CycleState sa;
  ASSERT_TRUE(pre_filter(sa, *pa).is_success());
  ASSERT_TRUE(plugin->filter(sa, *pa, ni("node-1")).is_success());
  ASSERT_TRUE(plugin->reserve(sa, *pa, "node-1").is_success());
  EXPECT_TRUE(handle.manager.claim_has_pending_allocation("uid-a"));

  fw::CycleState sb;
  ASSERT_TRUE(pre_filter(sb, *pb).is_success());
  EXPECT_EQ(plugin->filter(sb, *pb, ni("node-1")).message(), "cannot allocate all claims");
  // The first pod's own claim, while in flight, stops a second attempt for it.
  fw::CycleState sa2;
  EXPECT_EQ(pre_filter(sa2, *pa).message(), "resource claim default/a is in the process of being allocated");

  plugin->unreserve(sa, *pa, "node-1");
  EXPECT_FALSE(handle.manager.claim_has_pending_allocation("uid-a"));
  fw::CycleState sb2;
  ASSERT_TRUE(pre_filter(sb2, *pb).is_success());
  EXPECT_TRUE(plugin->filter(sb2, *pb, ni("node-1")).is_success());
}

// "structured allocation": PreBind writes finalizer, allocation and reservedFor; the written claim is
// assumed (its device stays taken) until the informer catches up.
TEST_F(DynamicResourcesTest, PreBindWritesAllocationAndReservation) {
  handle.manager.on_slice_add(slice("node-1", 1));
  add_claim(claim("a"));
  add_claim(claim("b"));
  auto pa = pod_with_claim("pa", "a");
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *pa).is_success());
  ASSERT_TRUE(plugin->filter(s, *pa, ni("node-1")).is_success());
  ASSERT_TRUE(plugin->reserve(s, *pa, "node-1").is_success());
  EXPECT_FALSE(plugin->pre_bind_is_quick(s, *pa));
  EXPECT_TRUE(plugin->pre_bind_pre_flight(s, *pa, "node-1").is_success());  // PreBind has claims to write
  ASSERT_TRUE(plugin->pre_bind(s, *pa, "node-1").is_success());

  auto stored = handle.claims.stored("a");
  ASSERT_TRUE(stored->status.allocation);
  ASSERT_EQ(stored->status.allocation->devices.results.size(), 1u);
  EXPECT_EQ(stored->status.allocation->devices.results[0].device, "gpu-0");
  ASSERT_EQ(stored->status.reservedFor.size(), 1u);
  EXPECT_EQ(stored->status.reservedFor[0].uid, "uid-pa");
  EXPECT_EQ(stored->status.reservedFor[0].name, "pa");
  EXPECT_EQ(stored->status.reservedFor[0].resource, "pods");
  EXPECT_EQ(stored->metadata.finalizers.vec(), std::vector<std::string>{std::string(resourceapi::kFinalizer)});

  // No longer in flight, but assumed: the scheduler's copy is the written one.
  EXPECT_FALSE(handle.manager.claim_has_pending_allocation("uid-a"));
  EXPECT_EQ(handle.manager.claim("default", "a"), stored);
  fw::CycleState sb;
  ASSERT_TRUE(pre_filter(sb, *pod_with_claim("pb", "b")).is_success());
  EXPECT_EQ(plugin->filter(sb, *pod_with_claim("pb", "b"), ni("node-1")).message(), "cannot allocate all claims");
  // An older informer event does not undo the assumption; the written version replaces it.
  handle.manager.on_claim_update(nullptr, claim("a"));
  EXPECT_EQ(handle.manager.claim("default", "a"), stored);
  handle.manager.on_claim_update(nullptr, stored);
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 1u);
}

// Without a firstAvailable request Filter only learns that the claims fit; Reserve allocates
// again on the node it is given, so the written allocation is that node's, whichever node Filter
// saw last.
TEST_F(DynamicResourcesTest, ReserveAllocatesOnTheChosenNode) {
  handle.manager.on_slice_add(slice("node-1", 2));
  handle.manager.on_slice_add(slice("node-2", 2));
  add_claim(claim("a"));
  auto pa = pod_with_claim("pa", "a");
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *pa).is_success());
  ASSERT_TRUE(plugin->filter(s, *pa, ni("node-2")).is_success());
  ASSERT_TRUE(plugin->filter(s, *pa, ni("node-1")).is_success());
  std::int64_t score = -1;
  ASSERT_TRUE(plugin->score(s, *pa, ni("node-1"), score).is_success());
  EXPECT_EQ(score, 0);
  ASSERT_TRUE(plugin->reserve(s, *pa, "node-2").is_success());
  ASSERT_TRUE(plugin->pre_bind(s, *pa, "node-2").is_success());
  auto stored = handle.claims.stored("a");
  ASSERT_TRUE(stored->status.allocation);
  ASSERT_EQ(stored->status.allocation->devices.results.size(), 1u);
  EXPECT_EQ(stored->status.allocation->devices.results[0].pool, "node-2");
  EXPECT_EQ(stored->status.allocation->devices.results[0].device, "gpu-0");
  ASSERT_TRUE(stored->status.allocation->nodeSelector);
  ASSERT_EQ(stored->status.allocation->nodeSelector->nodeSelectorTerms.size(), 1u);
  const auto& fields = stored->status.allocation->nodeSelector->nodeSelectorTerms[0].matchFields;
  ASSERT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields[0].values, std::vector<std::string>{"node-2"});
  // A node Filter did not accept has nothing to reserve.
  fw::CycleState sb;
  add_claim(claim("b"));
  auto pb = pod_with_claim("pb", "b");
  ASSERT_TRUE(pre_filter(sb, *pb).is_success());
  EXPECT_FALSE(plugin->reserve(sb, *pb, "node-1").is_success());
}

// "bind failure ... conflict": a conflicting write is retried on a fresh copy of the claim.
TEST_F(DynamicResourcesTest, PreBindRetriesOnConflict) {
  handle.manager.on_slice_add(slice("node-1", 1));
  add_claim(claim("a"));
  auto pa = pod_with_claim("pa", "a");
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *pa).is_success());
  ASSERT_TRUE(plugin->filter(s, *pa, ni("node-1")).is_success());
  ASSERT_TRUE(plugin->reserve(s, *pa, "node-1").is_success());
  handle.claims.conflicts_left = 1;
  ASSERT_TRUE(plugin->pre_bind(s, *pa, "node-1").is_success());
  EXPECT_EQ(handle.claims.stored("a")->status.reservedFor.size(), 1u);
  EXPECT_GE(handle.claims.updates, 3);  // finalizer (conflict), finalizer, status
}

// "bind failure": a claim allocated by someone else meanwhile fails PreBind with upstream's
// message, and Unreserve leaves no allocation in flight.
TEST_F(DynamicResourcesTest, PreBindFailsWhenAllocatedElsewhereMeanwhile) {
  handle.manager.on_slice_add(slice("node-1", 2));
  add_claim(claim("a"));
  auto pa = pod_with_claim("pa", "a");
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *pa).is_success());
  ASSERT_TRUE(plugin->filter(s, *pa, ni("node-1")).is_success());
  ASSERT_TRUE(plugin->reserve(s, *pa, "node-1").is_success());
  auto other = claim("a");
  other->status.allocation = allocation("node-1", "gpu-1");
  other->metadata.resourceVersion = "2";
  handle.claims.put(*other);
  handle.claims.conflicts_left = 0;
  // The plugin's copy is at version 1: its first write conflicts, the retry sees the allocation.
  auto st = plugin->pre_bind(s, *pa, "node-1");
  EXPECT_TRUE(st.is_error());
  EXPECT_EQ(st.message(), "claim default/a got allocated elsewhere in the meantime");
  plugin->unreserve(s, *pa, "node-1");
  EXPECT_FALSE(handle.manager.claim_has_pending_allocation("uid-a"));
}

// Unreserve of a claim reserved for the pod removes the pod from reservedFor.
TEST_F(DynamicResourcesTest, UnreserveRemovesTheReservation) {
  handle.manager.on_slice_add(slice("node-1", 1));
  add_claim(claim("a"));
  auto pa = pod_with_claim("pa", "a");
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *pa).is_success());
  ASSERT_TRUE(plugin->filter(s, *pa, ni("node-1")).is_success());
  ASSERT_TRUE(plugin->reserve(s, *pa, "node-1").is_success());
  ASSERT_TRUE(plugin->pre_bind(s, *pa, "node-1").is_success());
  ASSERT_EQ(handle.claims.stored("a")->status.reservedFor.size(), 1u);
  plugin->unreserve(s, *pa, "node-1");  // e.g. Bind failed
  EXPECT_TRUE(handle.claims.stored("a")->status.reservedFor.empty());
  EXPECT_TRUE(handle.claims.stored("a")->status.allocation);  // deallocation is the controller's
}

// Queueing hints (upstream TestIsSchedulableAfterClaimChange / TestIsSchedulableAfterPodChange).
TEST_F(DynamicResourcesTest, QueueingHints) {
  using fw::QueueingHint;
  auto p = pod_with_claim("p", "my-claim");
  auto c = claim("my-claim");
  // "skip-deletes"/"backoff-wrong-new-object" aside: the pod's claim is missing, any claim change
  // that does not create it is skipped.
  auto unrelated = claim("other");
  add_claim(unrelated);
  EXPECT_EQ(plugin->is_schedulable_after_claim_change(*p, nullptr, unrelated), QueueingHint::Skip);
  // "queue-on-add": the pod's claim was created.
  add_claim(c);
  EXPECT_EQ(plugin->is_schedulable_after_claim_change(*p, nullptr, c), QueueingHint::Queue);
  // "skip-unrelated-claim".
  EXPECT_EQ(plugin->is_schedulable_after_claim_change(*p, unrelated, unrelated), QueueingHint::Skip);
  // "skip-spec-status-no-change" (a finalizer added).
  auto with_finalizer = std::make_shared<resourceapi::ResourceClaim>(*c);
  with_finalizer->metadata.finalizers = std::vector<std::string>{"x"};
  EXPECT_EQ(plugin->is_schedulable_after_claim_change(*p, c, with_finalizer), QueueingHint::Skip);
  // "queue-on-status-change".
  auto allocated = std::make_shared<resourceapi::ResourceClaim>(*c);
  allocated->status.allocation = allocation("node-1", "gpu-0");
  EXPECT_EQ(plugin->is_schedulable_after_claim_change(*p, c, allocated), QueueingHint::Queue);
  // "structured-claim-deallocate": any claim's deallocation frees devices.
  auto unrelated_allocated = std::make_shared<resourceapi::ResourceClaim>(*unrelated);
  unrelated_allocated->status.allocation = allocated->status.allocation;
  EXPECT_EQ(plugin->is_schedulable_after_claim_change(*p, unrelated_allocated, unrelated), QueueingHint::Queue);

  // The pod's own status update naming its generated claim.
  auto waiting = pod_with_template("t");
  auto generated = claim("t-gpu");
  generated->metadata.ownerReferences =
      std::vector<api::OwnerReference>{api::OwnerReference{"v1", "Pod", "t", "uid-t", true, true, {}, {}}};
  add_claim(generated);
  EXPECT_EQ(plugin->is_schedulable_after_pod_change(*waiting, waiting, pod_with_template("t", "t-gpu")),
            QueueingHint::Queue);
  EXPECT_EQ(plugin->is_schedulable_after_pod_change(*waiting, waiting, pod_with_template("t", "t-missing")),
            QueueingHint::Skip);
  EXPECT_EQ(plugin->is_schedulable_after_pod_change(*waiting, nullptr, plain_pod("someone-else")), QueueingHint::Skip);
}

// The queue's claim index (claim_keys_of_pod, claim_key_of_event) keeps the hint's answers: every
// (pod, claim event) the hint queues is one the index asks, i.e. the event has no key (a
// deallocation) or the pod waits on the event's key. Pods: a claim named directly, a template's
// claim recorded in the status, a template's claim not recorded yet.
TEST_F(DynamicResourcesTest, ClaimIndexAsksEveryPodTheHintQueues) {
  using fw::QueueingHint;
  auto direct = pod_with_claim("d", "d-claim");
  auto generated = pod_with_template("t", "t-gpu");
  auto not_recorded = pod_with_template("u");
  std::vector<std::string> keys;
  claim_keys_of_pod(*direct, keys);
  claim_keys_of_pod(*generated, keys);
  claim_keys_of_pod(*not_recorded, keys);
  EXPECT_EQ(keys, (std::vector<std::string>{"default/d-claim", "default/t-gpu"}));

  auto d_claim = claim("d-claim");
  auto t_gpu = claim("t-gpu");
  t_gpu->metadata.ownerReferences =
      std::vector<api::OwnerReference>{api::OwnerReference{"v1", "Pod", "t", "uid-t", true, true, {}, {}}};
  auto other = claim("other");
  for (const auto& c : {d_claim, t_gpu, other}) add_claim(c);
  auto allocated = [](const std::shared_ptr<resourceapi::ResourceClaim>& c) {
    auto a = std::make_shared<resourceapi::ResourceClaim>(*c);
    a->status.allocation = allocation("node-1", "gpu-0");
    return std::shared_ptr<const resourceapi::ResourceClaim>(a);
  };
  using Event = std::pair<std::shared_ptr<const void>, std::shared_ptr<const void>>;
  std::vector<Event> events;
  for (const auto& c : {d_claim, t_gpu, other}) {
    events.push_back({nullptr, c});             // added
    events.push_back({c, allocated(c)});        // allocated
    events.push_back({allocated(c), c});        // deallocated
    events.push_back({c, c});                   // no status change
  }
  int queued = 0;
  for (const auto& pod : {direct, generated, not_recorded}) {
    std::vector<std::string> pod_keys;
    claim_keys_of_pod(*pod, pod_keys);
    for (const auto& [o, n] : events) {
      if (plugin->is_schedulable_after_claim_change(*pod, o, n) != QueueingHint::Queue) continue;
      ++queued;
      auto key = claim_key_of_event(o, n);
      EXPECT_TRUE(!key || std::find(pod_keys.begin(), pod_keys.end(), *key) != pod_keys.end())
          << api::key_of(*pod) << " queued by " << *key;
    }
  }
  // d and t: their claim added, allocated, and any of the three claims deallocated.
  EXPECT_EQ(queued, 10);
  // A deallocation concerns every pod; an allocation only the claim's.
  EXPECT_EQ(claim_key_of_event(allocated(other), other), std::nullopt);
  EXPECT_EQ(claim_key_of_event(other, allocated(other)), std::optional<std::string>("default/other"));
}

// EventsToRegister with queueing hints on: nodes (add, label, allocatable), claims (hinted), the
// pod's generated claims (hinted), classes and slices (always queue).
TEST_F(DynamicResourcesTest, EventsToRegister) {
  auto events = plugin->events_to_register();
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].event.resource, fw::EventResource::Node);
  EXPECT_EQ(events[0].event.actionType, fw::kAdd | fw::kUpdateNodeLabel | fw::kUpdateNodeAllocatable);
  EXPECT_EQ(events[1].event.resource, fw::EventResource::ResourceClaim);
  EXPECT_TRUE(static_cast<bool>(events[1].hint));
  EXPECT_EQ(events[2].event.resource, fw::EventResource::Pod);
  EXPECT_EQ(events[2].event.actionType, fw::kUpdatePodGeneratedResourceClaim);
  EXPECT_EQ(events[3].event.resource, fw::EventResource::DeviceClass);
  EXPECT_FALSE(static_cast<bool>(events[3].hint));
  EXPECT_EQ(events[4].event.resource, fw::EventResource::ResourceSlice);
  EXPECT_EQ(events[4].event.actionType, fw::kAdd | fw::kUpdate);
}

// ---------------------------------------------------------------- Filter's verdicts across pods

// A claim named `name` asking `count` devices of class `cls`.
std::shared_ptr<resourceapi::ResourceClaim> claim_for(const std::string& name, int count, const std::string& cls) {
  auto c = obj<resourceapi::ResourceClaim>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name +
      ", namespace: default, uid: uid-" + name + ", resourceVersion: '1'}\nspec:\n  devices:\n    requests:\n"
      "    - name: req-1\n      exactly: {deviceClassName: " + cls + ", allocationMode: ExactCount, count: " +
      std::to_string(count) + "}\n");
  return std::make_shared<resourceapi::ResourceClaim>(*c);
}

// A class "gpu" whose selector matches gpu.example.com's devices, or none.
std::shared_ptr<const resourceapi::DeviceClass> gpu_class_matching(bool matches, int version) {
  return obj<resourceapi::DeviceClass>(
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu, resourceVersion: '" +
      std::to_string(version) + "'}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"" +
      (matches ? "gpu.example.com" : "other.example.com") + "\"'}}]\n");
}

// Pods with the same claims share Filter's verdict per node; a reservation changes only its node's
// verdict, a new slice or class version every verdict that depends on it.
TEST_F(DynamicResourcesTest, FilterVerdictsAreSharedUntilTheirInputsChange) {
  handle.manager.on_slice_add(slice("node-1", 1));
  handle.manager.on_slice_add(slice("node-2", 1));
  const auto& verdicts = plugin->filter_verdicts();
  auto filter_both = [&](const std::string& name, int count = 1) {
    add_claim(claim_for(name, count, "gpu"));
    auto p = pod_with_claim("p-" + name, name);
    auto s = std::make_shared<fw::CycleState>();
    EXPECT_TRUE(pre_filter(*s, *p).is_success());
    std::pair<std::string, std::string> out{plugin->filter(*s, *p, ni("node-1")).message(),
                                            plugin->filter(*s, *p, ni("node-2")).message()};
    return std::tuple{out, s, p};
  };
  auto [v1, s1, p1] = filter_both("a");
  EXPECT_EQ(v1, std::make_pair(std::string(), std::string()));
  EXPECT_EQ(verdicts.hits(), 0u);
  auto [v2, s2, p2] = filter_both("b");
  EXPECT_EQ(v2, std::make_pair(std::string(), std::string()));
  EXPECT_EQ(verdicts.hits(), 2u);  // b's claim is a's, but for its name
  // Two devices: another key, computed afresh.
  auto [v3, s3, p3] = filter_both("c", 2);
  EXPECT_EQ(v3, std::make_pair(std::string("cannot allocate all claims"), std::string("cannot allocate all claims")));
  EXPECT_EQ(verdicts.hits(), 2u);
  // a takes node-1's only device: node-1's verdict is computed again, node-2's is still good.
  ASSERT_TRUE(plugin->reserve(*s1, *p1, "node-1").is_success());
  auto [v4, s4, p4] = filter_both("d");
  EXPECT_EQ(v4, std::make_pair(std::string("cannot allocate all claims"), std::string()));
  EXPECT_EQ(verdicts.hits(), 3u);
  // Freed again: a new pool state (none in use), not the one remembered.
  plugin->unreserve(*s1, *p1, "node-1");
  auto [v5, s5, p5] = filter_both("e");
  EXPECT_EQ(v5, std::make_pair(std::string(), std::string()));
  EXPECT_EQ(verdicts.hits(), 4u);
  // node-2's slice replaced by one with two devices: its verdict for two devices changes.
  handle.manager.on_slice_update(slice("node-2", 1), slice("node-2", 2));
  auto [v6, s6, p6] = filter_both("f", 2);
  EXPECT_EQ(v6, std::make_pair(std::string("cannot allocate all claims"), std::string()));
  // The class no longer selects the devices: every verdict is computed again.
  const auto before = verdicts.hits();
  handle.manager.on_class_update(gpu_class(), gpu_class_matching(false, 2));
  auto [v7, s7, p7] = filter_both("g");
  EXPECT_EQ(v7, std::make_pair(std::string("cannot allocate all claims"), std::string("cannot allocate all claims")));
  EXPECT_EQ(verdicts.hits(), before);
}

// Randomized: after any sequence of slice, class, node and reservation changes, Filter's verdict on
// every node (remembered or not) is the one a fresh allocator gives for the same inputs.
TEST_F(DynamicResourcesTest, FilterVerdictsEqualAFreshAllocation) {
  std::mt19937 rng(20261207);
  const std::vector<std::string> nodes{"node-1", "node-2"};
  std::map<std::string, int> devices{{"node-1", 0}, {"node-2", 0}};
  std::map<std::string, std::shared_ptr<const resourceapi::ResourceSlice>> slices;
  std::vector<std::tuple<std::shared_ptr<fw::CycleState>, std::shared_ptr<const api::Pod>, std::string>> reserved;
  bool class_matches = true;
  int class_version = 1, claims = 0, checked = 0;
  cel::Cache cel(10);
  const dra::DeviceClassLookup classes = [&](std::string_view n) { return handle.manager.device_class(n); };
  for (int step = 0; step < 400; ++step) {
    const int op = static_cast<int>(rng() % 10);
    const std::string& n = nodes[rng() % nodes.size()];
    if (op == 0) {  // a node's slice replaced (0-3 devices)
      auto next = slice(n, static_cast<int>(rng() % 4));
      if (slices.count(n)) handle.manager.on_slice_update(slices[n], next);
      else handle.manager.on_slice_add(next);
      slices[n] = next;
    } else if (op == 1) {  // the class toggled
      auto next = gpu_class_matching(class_matches = !class_matches, ++class_version);
      handle.manager.on_class_update(nullptr, next);
    } else if (op == 2 && !reserved.empty()) {  // a reservation undone
      auto i = rng() % reserved.size();
      auto& [s, p, at] = reserved[i];
      plugin->unreserve(*s, *p, at);
      reserved.erase(reserved.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (op == 3) {  // the node object replaced (same name)
      std::vector<fw::NodePtr> ns;
      for (const auto& name : nodes) ns.push_back(node(name));
      handle.set_snapshot(std::vector<fw::PodPtr>{}, ns);
    } else {  // a pod: its verdicts checked, then maybe reserved on a node that fits
      const std::string name = "c" + std::to_string(++claims);
      add_claim(claim_for(name, 1 + static_cast<int>(rng() % 2), "gpu"));
      auto p = pod_with_claim("p-" + name, name);
      auto s = std::make_shared<fw::CycleState>();
      ASSERT_TRUE(pre_filter(*s, *p).is_success());
      auto in_use = handle.manager.allocated_devices();
      auto index = handle.manager.slices();
      std::vector<std::string> fitting;
      for (const auto& node_name : nodes) {
        std::vector<dra::SlicePtr> buf;
        const dra::Allocator fresh(dra::Features{}, in_use->empty() ? nullptr : in_use.get(), &classes,
                                   index->for_node(node_name, buf), cel, nullptr);
        const resourceapi::ResourceClaim* c = handle.manager.claim("default", name).get();
        auto want = fresh.allocate(*ni(node_name).node(), std::span(&c, 1), false);
        ASSERT_TRUE(want.ok());
        const auto got = plugin->filter(*s, *p, ni(node_name));
        EXPECT_EQ(got.is_success(), want->fits) << "step " << step << " node " << node_name;
        if (!want->fits) {
          EXPECT_EQ(got.message(), "cannot allocate all claims");
        }
        if (got.is_success()) fitting.push_back(node_name);
        ++checked;
      }
      if (!fitting.empty() && rng() % 2 == 0) {
        const std::string at = fitting[rng() % fitting.size()];
        ASSERT_TRUE(plugin->reserve(*s, *p, at).is_success());
        reserved.emplace_back(s, p, at);
      }
    }
  }
  EXPECT_GT(checked, 400);
  // The cache was used, and computed afresh when it had to be.
  EXPECT_GT(plugin->filter_verdicts().hits(), 50u);
  EXPECT_GT(plugin->filter_verdicts().misses(), 50u);
}

// ---------------------------------------------------------------- DRAExtendedResource

// A class "gpu" (driver gpu.example.com) that maps `resource` (none: only its implicit name).
std::shared_ptr<const resourceapi::DeviceClass> mapped_class(
    const std::string& name = "gpu", const std::string& resource = "example.com/gpu",
    const std::string& created = "2025-01-01T00:00:00Z") {
  std::string y = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " + name +
                  ", creationTimestamp: '" + created +
                  "'}\nspec:\n"
                  "  selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]\n";
  if (!resource.empty()) y += "  extendedResourceName: " + resource + "\n";
  return obj<resourceapi::DeviceClass>(y);
}

// A pod with one container "c" requesting `requests` (resource: quantity).
std::shared_ptr<const api::Pod> pod_requesting(
    const std::string& name, const std::vector<std::pair<std::string, std::string>>& requests) {
  std::string y = "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default, uid: uid-" +
                  name +
                  "}\nspec:\n  containers:\n  - name: c\n    image: i\n    resources:\n      requests:\n";
  for (const auto& [r, q] : requests) y += "        " + r + ": '" + q + "'\n";
  return obj<api::Pod>(y);
}

std::shared_ptr<const api::Node> node_with_gpus(const std::string& name, const std::string& count) {
  auto n = std::make_shared<api::Node>(*node(name));
  n->status.capacity.set("example.com/gpu", api::Quantity::must(count));
  n->status.allocatable.set("example.com/gpu", api::Quantity::must(count));
  n->status.allocatable.set("pods", api::Quantity::must("110"));
  return n;
}

// DRAExtendedResource on (alpha at v1.35, off by default): the class "gpu" maps example.com/gpu;
// the fake API server's claims reach the scheduler's DRA state as soon as they are written or
// deleted, as its informer would deliver them.
class ExtendedResourceTest : public DynamicResourcesTest {
 protected:
  void SetUp() override {
    config::Features f = config::features();
    f.draExtendedResource = true;
    gates.emplace(f);
    DynamicResourcesTest::SetUp();
    handle.manager.on_class_update(gpu_class(), mapped_class());
    handle.claims.on_create = [this](std::shared_ptr<const resourceapi::ResourceClaim> c) {
      handle.manager.on_claim_add(std::move(c));
    };
    handle.claims.on_delete = [this](std::shared_ptr<const resourceapi::ResourceClaim> c) {
      handle.manager.on_claim_delete(std::move(c));
    };
  }
  std::uint64_t creates(bool ok) const {
    const auto& c = resource_claim_creates();
    return (ok ? c.success : c.failure).load();
  }
  // Through Reserve on `node`, as the scheduler runs the points.
  void schedule_up_to_reserve(fw::CycleState& s, const api::Pod& p, const std::string& node_name) {
    ASSERT_TRUE(pre_filter(s, p).is_success());
    ASSERT_TRUE(plugin->filter(s, p, ni(node_name)).is_success());
    ASSERT_TRUE(plugin->reserve(s, p, node_name).is_success());
  }
  std::optional<config::ScopedFeatures> gates;
};

// Upstream "extended-resource-name-with-resources": example.com/gpu: 2 on a node that does not
// advertise it is allocated two devices of the mapped class there; PreBind creates the special
// claim (generateName, annotation, the pod as controller, the allocation, reservedFor), records it
// in the pod's status.extendedResourceClaimStatus, and counts the creation.
TEST_F(ExtendedResourceTest, ExtendedResourceNameWithResources) {
  handle.manager.on_slice_add(slice("node-1", 2));
  auto p = pod_requesting("p", {{"example.com/gpu", "2"}});
  const auto created_before = creates(true);
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *p).is_success());
  EXPECT_TRUE(plugin->filter(s, *p, ni("node-1")).is_success());
  EXPECT_EQ(plugin->filter(s, *p, ni("node-2")).message(), "cannot allocate all claims");
  ASSERT_TRUE(plugin->reserve(s, *p, "node-1").is_success());
  // In flight: the two devices are taken for every other pod already.
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 2u);
  EXPECT_FALSE(plugin->pre_bind_is_quick(s, *p));
  EXPECT_TRUE(plugin->pre_bind_pre_flight(s, *p, "node-1").is_success());
  ASSERT_TRUE(plugin->pre_bind(s, *p, "node-1").is_success());

  auto all = handle.claims.all();
  ASSERT_EQ(all.size(), 1u);
  const auto& c = *all[0];
  EXPECT_EQ(c.metadata.name, "p-extended-resources-0");
  EXPECT_EQ(c.metadata.generateName, "p-extended-resources-");
  EXPECT_EQ(c.metadata.annotations.get(resourceapi::kExtendedResourceClaimAnnotation), "true");
  ASSERT_EQ(c.metadata.ownerReferences.vec().size(), 1u);
  const auto& owner = c.metadata.ownerReferences.vec()[0];
  EXPECT_EQ(owner.apiVersion, "v1");
  EXPECT_EQ(owner.kind, "Pod");
  EXPECT_EQ(owner.name, "p");
  EXPECT_EQ(owner.uid, "uid-p");
  EXPECT_EQ(owner.controller, std::optional<bool>(true));
  ASSERT_EQ(c.spec.devices.requests.size(), 1u);
  EXPECT_EQ(c.spec.devices.requests[0].name, "container-0-request-0");
  ASSERT_TRUE(c.spec.devices.requests[0].exactly);
  EXPECT_EQ(c.spec.devices.requests[0].exactly->deviceClassName, "gpu");
  EXPECT_EQ(c.spec.devices.requests[0].exactly->allocationMode, "ExactCount");
  EXPECT_EQ(c.spec.devices.requests[0].exactly->count, 2);
  ASSERT_TRUE(c.status.allocation);
  const auto& results = c.status.allocation->devices.results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].request, "container-0-request-0");
  EXPECT_EQ(results[1].request, "container-0-request-0");
  EXPECT_EQ(results[0].pool, "node-1");
  EXPECT_EQ(results[1].pool, "node-1");
  EXPECT_NE(results[0].device, results[1].device);
  ASSERT_EQ(c.status.reservedFor.size(), 1u);
  EXPECT_EQ(c.status.reservedFor[0].uid, "uid-p");
  EXPECT_EQ(c.metadata.finalizers.vec(), std::vector<std::string>{std::string(resourceapi::kFinalizer)});

  ASSERT_EQ(handle.claims.pod_statuses.count("p"), 1u);
  const auto& status = handle.claims.pod_statuses["p"];
  EXPECT_EQ(status.resourceClaimName, "p-extended-resources-0");
  ASSERT_EQ(status.requestMappings.size(), 1u);
  EXPECT_EQ(status.requestMappings[0].containerName, "c");
  EXPECT_EQ(status.requestMappings[0].resourceName, "example.com/gpu");
  EXPECT_EQ(status.requestMappings[0].requestName, "container-0-request-0");
  // scheduler_resourceclaim_creates_total{status="success"}.
  EXPECT_EQ(creates(true), created_before + 1);

  // The written claim is the scheduler's copy; its devices stay taken, none is in flight.
  EXPECT_EQ(handle.manager.claim("default", "p-extended-resources-0"), all[0]);
  EXPECT_EQ(handle.manager.allocated_devices()->all(), handle.manager.allocated_devices_from_scratch());
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 2u);
  auto q = pod_requesting("q", {{"example.com/gpu", "1"}});
  fw::CycleState sq;
  ASSERT_TRUE(pre_filter(sq, *q).is_success());
  EXPECT_EQ(plugin->filter(sq, *q, ni("node-1")).message(), "cannot allocate all claims");
}

// Upstream "extended-resource-name-with-node-resource": a node that advertises the resource
// itself (a device plugin) needs no claim; NodeResourcesFit checks it there (fit_test.cpp).
TEST_F(ExtendedResourceTest, NodeThatAdvertisesTheResourceNeedsNoClaim) {
  handle.set_snapshot(std::vector<fw::PodPtr>{}, {node_with_gpus("node-1", "4"), node("node-2")});
  handle.manager.on_slice_add(slice("node-2", 2));
  auto p = pod_requesting("p", {{"example.com/gpu", "2"}});
  const auto created_before = creates(true);
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *p).is_success());
  EXPECT_TRUE(plugin->filter(s, *p, ni("node-1")).is_success());
  EXPECT_TRUE(plugin->filter(s, *p, ni("node-2")).is_success());
  ASSERT_TRUE(plugin->reserve(s, *p, "node-1").is_success());
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 0u);
  ASSERT_TRUE(plugin->pre_bind(s, *p, "node-1").is_success());
  EXPECT_TRUE(handle.claims.all().empty());
  EXPECT_TRUE(handle.claims.pod_statuses.empty());
  EXPECT_EQ(creates(true), created_before);
  // Allocatable 0 counts as not advertised (upstream "extended-resource-name-with-zero-allocatable").
  handle.set_snapshot(std::vector<fw::PodPtr>{}, {node_with_gpus("node-1", "0"), node("node-2")});
  handle.manager.on_slice_add(slice("node-1", 1));
  fw::CycleState s2;
  ASSERT_TRUE(pre_filter(s2, *p).is_success());
  EXPECT_EQ(plugin->filter(s2, *p, ni("node-1")).message(), "cannot allocate all claims");
}

// Upstream "extended-resource-name-no-resource": too few devices; nothing to deallocate, nothing
// created. A resource neither advertised nor mapped: upstream's "cannot fit resource".
TEST_F(ExtendedResourceTest, NotEnoughDevices) {
  handle.manager.on_slice_add(slice("node-1", 1));
  auto p = pod_requesting("p", {{"example.com/gpu", "2"}});
  const auto created_before = creates(true);
  const auto failed_before = creates(false);
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *p).is_success());
  for (const char* n : {"node-1", "node-2"}) {
    auto st = plugin->filter(s, *p, ni(n));
    EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
    EXPECT_EQ(st.message(), "cannot allocate all claims");
  }
  fw::PostFilterResult pr;
  EXPECT_EQ(plugin->post_filter(s, *p, fw::NodeToStatus{}, pr).message(), "still not schedulable");
  EXPECT_EQ(creates(true), created_before);
  EXPECT_EQ(creates(false), failed_before);

  auto mixed = pod_requesting("m", {{"example.com/gpu", "1"}, {"example.com/other", "1"}});
  fw::CycleState sm;
  ASSERT_TRUE(pre_filter(sm, *mixed).is_success());
  auto st = plugin->filter(sm, *mixed, ni("node-1"));
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), "cannot fit resource");
}

// Upstream "non-DRA-extended-resource-name-with-zero-allocatable" and "empty-with-extended-
// resources-enabled": nothing maps the pod's resource (or it asks for none): PreFilter skips.
TEST_F(ExtendedResourceTest, UnmappedResourceIsSkipped) {
  fw::CycleState s;
  EXPECT_TRUE(pre_filter(s, *pod_requesting("p", {{"example.com/unmapped", "1"}})).is_skip());
  fw::CycleState s2;
  EXPECT_TRUE(pre_filter(s2, *plain_pod("q")).is_skip());
  EXPECT_TRUE(plugin->pre_bind_pre_flight(s2, *plain_pod("q"), "node-1").is_skip());
}

// With the gate off (v1.35's default) nothing changes: the pod has no claims for DynamicResources.
TEST_F(DynamicResourcesTest, ExtendedResourceGateOffChangesNothing) {
  ASSERT_FALSE(config::features().draExtendedResource);
  handle.manager.on_class_update(gpu_class(), mapped_class());
  handle.manager.on_slice_add(slice("node-1", 2));
  auto p = pod_requesting("p", {{"example.com/gpu", "2"}});
  fw::CycleState s;
  EXPECT_TRUE(pre_filter(s, *p).is_skip());
  EXPECT_TRUE(plugin->filter(s, *p, ni("node-1")).is_success());
  EXPECT_TRUE(plugin->reserve(s, *p, "node-1").is_success());
  EXPECT_TRUE(plugin->pre_bind(s, *p, "node-1").is_success());
  EXPECT_TRUE(handle.claims.all().empty());
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 0u);
}

// Upstream "extended-resource-name-with-resources-has-claim" and "...-delete-claim": a special
// claim from a prior cycle (after a restart the pod's status names it; without the status it is
// found by its annotation and owner) is not reused: Filter rejects it, PostFilter deletes it.
TEST_F(ExtendedResourceTest, ClaimFromPriorCycleIsDeleted) {
  handle.manager.on_slice_add(slice("node-1", 2));
  for (bool status_set : {true, false}) {
    auto c = obj<resourceapi::ResourceClaim>(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: p-extended-resources-x\n"
        "  namespace: default\n  uid: uid-x\n  resourceVersion: '1'\n  generateName: p-extended-resources-\n"
        "  annotations: {resource.kubernetes.io/extended-resource-claim: 'true'}\n"
        "  finalizers: [resource.kubernetes.io/delete-protection]\n"
        "  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: uid-p, controller: true}]\n"
        "spec:\n  devices:\n    requests:\n    - name: container-0-request-0\n"
        "      exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: 2}\n");
    auto allocated = std::make_shared<resourceapi::ResourceClaim>(*c);
    allocated->status.allocation = allocation("node-1", "gpu-0", "node-1");
    add_claim(allocated);
    auto p = std::make_shared<api::Pod>(*pod_requesting("p", {{"example.com/gpu", "2"}}));
    if (status_set) {
      api::PodExtendedResourceClaimStatus st;
      st.resourceClaimName = "p-extended-resources-x";
      st.requestMappings.push_back({"c", "example.com/gpu", "container-0-request-0", {}, {}});
      p->status.extendedResourceClaimStatus = st;
    }
    fw::CycleState s;
    ASSERT_TRUE(pre_filter(s, *p).is_success());
    auto st = plugin->filter(s, *p, ni("node-1"));
    EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
    EXPECT_EQ(st.message(), "cannot schedule extended resource claim");
    fw::PostFilterResult pr;
    auto post = plugin->post_filter(s, *p, fw::NodeToStatus{}, pr);
    EXPECT_EQ(post.code(), fw::Code::Unschedulable);
    EXPECT_EQ(post.message(), "deletion of ResourceClaim completed");
    EXPECT_EQ(handle.claims.stored("p-extended-resources-x"), nullptr);
    EXPECT_EQ(handle.manager.claim("default", "p-extended-resources-x"), nullptr);
    // The next attempt starts afresh.
    fw::CycleState next;
    ASSERT_TRUE(pre_filter(next, *p).is_success());
    EXPECT_TRUE(plugin->filter(next, *p, ni("node-1")).is_success());
  }
  EXPECT_EQ(handle.claims.deleted,
            (std::vector<std::string>{"p-extended-resources-x", "p-extended-resources-x"}));
}

// Upstream "extended-resource-name-claim-creation-failure": PreBind fails with the API server's
// error, counted as a failure; Unreserve frees the devices that were in flight.
TEST_F(ExtendedResourceTest, ClaimCreationFailure) {
  handle.manager.on_slice_add(slice("node-1", 2));
  handle.claims.create_error = "claim creation errors";
  auto p = pod_requesting("p", {{"example.com/gpu", "2"}});
  const auto failed_before = creates(false);
  fw::CycleState s;
  schedule_up_to_reserve(s, *p, "node-1");
  auto st = plugin->pre_bind(s, *p, "node-1");
  EXPECT_EQ(st.code(), fw::Code::Error);
  EXPECT_EQ(st.message(), "create claim for extended resources default/: claim creation errors");
  EXPECT_EQ(creates(false), failed_before + 1);
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 0u);  // PreBind ended the in-flight allocation
  plugin->unreserve(s, *p, "node-1");
  EXPECT_TRUE(handle.claims.all().empty());
  EXPECT_TRUE(handle.claims.deleted.empty());
}

// Upstream "extended-resource-name-skip-bind" and "extended-resource-name-bind-failure": Unreserve
// before PreBind ends the in-flight allocation; after PreBind it deletes the created claim.
TEST_F(ExtendedResourceTest, UnreserveDeletesTheCreatedClaim) {
  handle.manager.on_slice_add(slice("node-1", 2));
  auto p = pod_requesting("p", {{"example.com/gpu", "2"}});
  fw::CycleState s;
  schedule_up_to_reserve(s, *p, "node-1");
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 2u);
  plugin->unreserve(s, *p, "node-1");
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 0u);
  EXPECT_TRUE(handle.claims.all().empty());

  fw::CycleState s2;
  schedule_up_to_reserve(s2, *p, "node-1");
  ASSERT_TRUE(plugin->pre_bind(s2, *p, "node-1").is_success());
  ASSERT_EQ(handle.claims.all().size(), 1u);
  const std::string name(handle.claims.all()[0]->metadata.name.view());
  plugin->unreserve(s2, *p, "node-1");  // the binding failed
  EXPECT_TRUE(handle.claims.all().empty());
  EXPECT_EQ(handle.claims.deleted, std::vector<std::string>{name});
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 0u);
}

// Upstream "extended-resource-name-with-resources-fail-patch": the claim is made, the pod's status
// patch fails, PreBind says why.
TEST_F(ExtendedResourceTest, PodStatusPatchFailure) {
  handle.manager.on_slice_add(slice("node-1", 2));
  handle.claims.patch_error = "patch error";
  auto p = pod_requesting("p", {{"example.com/gpu", "1"}});
  const auto created_before = creates(true);
  fw::CycleState s;
  schedule_up_to_reserve(s, *p, "node-1");
  auto st = plugin->pre_bind(s, *p, "node-1");
  EXPECT_EQ(st.code(), fw::Code::Error);
  EXPECT_EQ(st.message(), "update pod default/p ExtendedResourceClaimStatus: patch error");
  EXPECT_EQ(creates(true), created_before + 1);
  EXPECT_EQ(handle.claims.all().size(), 1u);
}

// Upstream "implicit-extended-resource-name-with-resources" (one container asking for the
// implicit name and the explicit one) and "...-two-containers-with-resources": one request per
// container and resource, named by the container's index and the resource's index among the
// container's sorted requests.
TEST(ExtendedResourceRequests, ImplicitAndExplicitNames) {
  auto gpu = mapped_class();
  auto class_of = [&](std::string_view r) -> dra::ClassPtr {
    return r == "example.com/gpu" || r == "deviceclass.resource.kubernetes.io/gpu" ? gpu : nullptr;
  };
  const std::vector<std::pair<std::string, std::int64_t>> both = {
      {"example.com/gpu", 2}, {"deviceclass.resource.kubernetes.io/gpu", 1}};
  auto one = pod_requesting("p", {{"deviceclass.resource.kubernetes.io/gpu", "1"}, {"example.com/gpu", "2"}});
  auto made = create_requests_and_mappings(*one, both, class_of);
  ASSERT_EQ(made.requests.size(), 2u);
  EXPECT_EQ(made.requests[0].name, "container-0-request-0");
  EXPECT_EQ(made.requests[0].exactly->count, 1);
  EXPECT_EQ(made.requests[1].name, "container-0-request-1");
  EXPECT_EQ(made.requests[1].exactly->count, 2);
  ASSERT_EQ(made.mappings.size(), 2u);
  EXPECT_EQ(made.mappings[0].resourceName, "deviceclass.resource.kubernetes.io/gpu");
  EXPECT_EQ(made.mappings[0].requestName, "container-0-request-0");
  EXPECT_EQ(made.mappings[1].resourceName, "example.com/gpu");
  EXPECT_EQ(made.mappings[1].requestName, "container-0-request-1");

  auto two = obj<api::Pod>(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: uid-p}\nspec:\n  containers:\n"
      "  - {name: a, image: i, resources: {requests: {deviceclass.resource.kubernetes.io/gpu: '1'}}}\n"
      "  - {name: b, image: i, resources: {requests: {example.com/gpu: '2'}}}\n");
  made = create_requests_and_mappings(*two, both, class_of);
  ASSERT_EQ(made.requests.size(), 2u);
  EXPECT_EQ(made.requests[0].name, "container-0-request-0");
  EXPECT_EQ(made.requests[0].exactly->count, 1);
  EXPECT_EQ(made.requests[1].name, "container-1-request-0");
  EXPECT_EQ(made.requests[1].exactly->count, 2);
  ASSERT_EQ(made.mappings.size(), 2u);
  EXPECT_EQ(made.mappings[0].containerName, "a");
  EXPECT_EQ(made.mappings[1].containerName, "b");
  EXPECT_EQ(made.mappings[1].requestName, "container-1-request-0");
}

// Upstream createRequestsAndMappings with init containers: a plain init container first reuses
// the requests of the long-lived containers after it (sidecars, regular containers) and asks only
// for the rest; the plain init containers' largest request serves them all.
TEST(ExtendedResourceRequests, InitContainersReuseLongLivedRequests) {
  auto gpu = mapped_class();
  auto class_of = [&](std::string_view r) -> dra::ClassPtr { return r == "example.com/gpu" ? gpu : nullptr; };
  auto pod = obj<api::Pod>(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: uid-p}\nspec:\n  "
      "initContainers:\n"
      "  - {name: init0, image: i, resources: {requests: {example.com/gpu: '3'}}}\n"
      "  - {name: init1, image: i, resources: {requests: {example.com/gpu: '1'}}}\n"
      "  - {name: side, image: i, restartPolicy: Always, resources: {requests: {example.com/gpu: '1'}}}\n"
      "  containers:\n  - {name: c, image: i, resources: {requests: {example.com/gpu: '1'}}}\n");
  auto made = create_requests_and_mappings(*pod, {{"example.com/gpu", 3}}, class_of);
  std::vector<std::pair<std::string, std::int64_t>> requests;
  for (const auto& r : made.requests) requests.emplace_back(std::string(r.name.view()), r.exactly->count);
  EXPECT_EQ(requests,
            (std::vector<std::pair<std::string, std::int64_t>>{
                {"container-0-request-0", 1}, {"container-2-request-0", 1}, {"container-3-request-0", 1}}));
  std::vector<std::pair<std::string, std::string>> mappings;
  for (const auto& m : made.mappings) mappings.emplace_back(m.containerName, m.requestName);
  EXPECT_EQ(mappings, (std::vector<std::pair<std::string, std::string>>{{"side", "container-2-request-0"},
                                                                        {"c", "container-3-request-0"},
                                                                        {"init0", "container-2-request-0"},
                                                                        {"init0", "container-3-request-0"},
                                                                        {"init0", "container-0-request-0"},
                                                                        {"init1", "container-2-request-0"}}));

  // Two plain init containers with requests of their own: the larger one serves both.
  auto inits = obj<api::Pod>(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, uid: uid-p}\nspec:\n  "
      "initContainers:\n"
      "  - {name: init0, image: i, resources: {requests: {example.com/gpu: '2'}}}\n"
      "  - {name: init1, image: i, resources: {requests: {example.com/gpu: '3'}}}\n"
      "  containers:\n  - {name: c, image: i}\n");
  made = create_requests_and_mappings(*inits, {{"example.com/gpu", 3}}, class_of);
  ASSERT_EQ(made.requests.size(), 1u);
  EXPECT_EQ(made.requests[0].name, "container-1-request-0");
  EXPECT_EQ(made.requests[0].exactly->count, 3);
  ASSERT_EQ(made.mappings.size(), 2u);
  EXPECT_EQ(made.mappings[0].requestName, "container-1-request-0");
  EXPECT_EQ(made.mappings[1].requestName, "container-1-request-0");
}

// Upstream ExtendedResourceCache: explicit and implicit names, a changed name drops the old one,
// a delete drops both, and of two classes naming one resource the newer wins.
TEST(DraManager, ExtendedResourceClassMapping) {
  dra::Manager m;
  auto gpu = mapped_class("gpu", "example.com/gpu", "2025-01-01T00:00:00Z");
  m.on_class_add(gpu);
  EXPECT_EQ(m.class_for_extended_resource("example.com/gpu"), gpu);
  EXPECT_EQ(m.class_for_extended_resource("deviceclass.resource.kubernetes.io/gpu"), gpu);
  EXPECT_EQ(m.class_for_extended_resource("example.com/other"), nullptr);
  auto renamed = mapped_class("gpu", "example.com/gpu2", "2025-01-01T00:00:00Z");
  m.on_class_update(gpu, renamed);
  EXPECT_EQ(m.class_for_extended_resource("example.com/gpu"), nullptr);
  EXPECT_EQ(m.class_for_extended_resource("example.com/gpu2"), renamed);
  auto newer = mapped_class("gpu-new", "example.com/gpu2", "2025-06-01T00:00:00Z");
  auto older = mapped_class("gpu-old", "example.com/gpu2", "2024-01-01T00:00:00Z");
  m.on_class_add(newer);
  m.on_class_add(older);
  EXPECT_EQ(m.class_for_extended_resource("example.com/gpu2"), newer);
  m.on_class_delete(renamed);
  EXPECT_EQ(m.class_for_extended_resource("deviceclass.resource.kubernetes.io/gpu"), nullptr);
  EXPECT_EQ(m.class_for_extended_resource("example.com/gpu2"), newer);
  EXPECT_TRUE(dra::is_dra_extended_resource_name("example.com/gpu"));
  EXPECT_TRUE(dra::is_dra_extended_resource_name("deviceclass.resource.kubernetes.io/gpu"));
  EXPECT_FALSE(dra::is_dra_extended_resource_name("cpu"));
  EXPECT_FALSE(dra::is_dra_extended_resource_name("kubernetes.io/foo"));
}

// The manager hands Filter only a node's slices and the node-less ones, and only the devices in
// use of those pools.
TEST(DraManager, SlicesAndAllocatedDevicesByNode) {
  dra::Manager m;
  m.on_slice_add(slice("node-1", 2));
  m.on_slice_add(slice("node-2", 2));
  m.on_slice_add(obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: shared}\nspec:\n  driver: net.example.com\n"
      "  pool: {name: shared, generation: 1, resourceSliceCount: 1}\n  allNodes: true\n  devices: [{name: nic-0}]\n"));
  auto idx = m.slices();
  std::vector<dra::SlicePtr> buf1;
  auto for1 = idx->for_node("node-1", buf1);
  ASSERT_EQ(for1.size(), 2u);
  EXPECT_EQ(for1[0]->metadata.name, "node-1-gpu");
  EXPECT_EQ(for1[1]->metadata.name, "shared");
  // A node without slices of its own gets the node-less ones, borrowed from the index.
  std::vector<dra::SlicePtr> buf3;
  auto for3 = idx->for_node("node-3", buf3);
  ASSERT_EQ(for3.size(), 1u);
  EXPECT_EQ(for3.data(), idx->node_less.data());
  auto c = claim("x");
  c->status.allocation = allocation("node-2", "gpu-0");
  m.on_claim_add(c);
  auto allocated = m.allocated_devices();
  // Devices in use are found by pool, then by name.
  EXPECT_EQ(allocated->in_pool("gpu.example.com", "node-1"), nullptr);
  const dra::DeviceNameSet* on2 = allocated->in_pool("gpu.example.com", "node-2");
  ASSERT_NE(on2, nullptr);
  EXPECT_EQ(*on2, dra::DeviceNameSet({"gpu-0"}));
  EXPECT_EQ(allocated->in_pool("net.example.com", "node-2"), nullptr);
  auto nic = claim("nic");
  resourceapi::AllocationResult a;
  resourceapi::DeviceRequestAllocationResult r;
  r.request = "req-1";
  r.driver = "net.example.com";
  r.pool = "shared";
  r.device = "nic-0";
  a.devices.results.push_back(r);
  nic->status.allocation = a;
  m.on_claim_add(nic);
  // The snapshot taken before is unchanged; a new one sees both pools.
  EXPECT_EQ(allocated->size(), 1u);
  EXPECT_EQ(allocated->in_pool("net.example.com", "shared"), nullptr);
  auto both = m.allocated_devices();
  EXPECT_EQ(both->size(), 2u);
  ASSERT_NE(both->in_pool("net.example.com", "shared"), nullptr);
  // The unchanged pool's set is shared with the previous snapshot.
  EXPECT_EQ(both->in_pool("gpu.example.com", "node-2"), on2);
  // And every bucket but the new pool's is the previous snapshot's own (no copy per snapshot).
  const std::size_t changed = dra::AllocatedDevices::bucket_of("net.example.com", "shared");
  for (std::size_t b = 0; b < dra::AllocatedDevices::kBuckets; ++b) {
    if (b != changed) {
      EXPECT_EQ(both->buckets[b], allocated->buckets[b]) << "bucket " << b;
    }
  }
  EXPECT_NE(both->buckets[changed], allocated->buckets[changed]);
  // Filter on node-2: the node's pool and the node-less one, each device looked up in its pool.
  std::vector<dra::SlicePtr> buf2;
  auto for2 = m.slices()->for_node("node-2", buf2);
  ASSERT_EQ(for2.size(), 2u);
  dra::Features f;
  cel::Cache cache(10);
  dra::DeviceClassLookup classes = [&](std::string_view n) { return m.device_class(n); };
  m.on_class_add(gpu_class());
  dra::Allocator alloc(f, static_cast<const dra::DevicesInUse*>(both.get()), &classes, for2, cache);
  auto want = claim("want");
  const resourceapi::ResourceClaim* claims[] = {want.get()};
  auto got = alloc.allocate(*node("node-2"), claims);
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_TRUE(got->found());
  EXPECT_EQ(got->results[0].devices.results[0].device, "gpu-1");  // gpu-0 is in use
  m.on_claim_delete(c);
  m.on_claim_delete(nic);
  EXPECT_EQ(m.allocated_devices()->size(), 0u);
  EXPECT_TRUE(m.allocated_devices()->empty());
  m.on_slice_delete(slice("node-1", 2));
  std::vector<dra::SlicePtr> buf4;
  EXPECT_EQ(m.slices()->for_node("node-1", buf4).size(), 1u);
}

// The devices in use are kept up to date change by change; after any sequence of informer
// events, assume-cache writes and restores and in-flight allocations they equal the set computed
// from scratch, snapshot after snapshot (random sequences, fixed seeds).
TEST(DraManager, IncrementalAllocatedDevicesEqualARebuild) {
  std::vector<std::shared_ptr<resourceapi::ResourceClaim>> base;
  for (int i = 0; i < 8; ++i) base.push_back(claim("c" + std::to_string(i)));
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint32_t>(n)); };
    dra::Manager m;
    // Claims c0..c7, each with a server-side version; devices from a small space so that claims
    // share devices and pools (shared devices count once per holder).
    std::uint64_t rv = 1;
    auto random_claim = [&](int i) {
      auto c = std::make_shared<resourceapi::ResourceClaim>(*base[static_cast<std::size_t>(i)]);
      c->metadata.resourceVersion = std::to_string(++rv);
      if (pick(3) != 0) {
        resourceapi::AllocationResult a;
        const int n = 1 + pick(3);
        for (int k = 0; k < n; ++k) {
          resourceapi::DeviceRequestAllocationResult r;
          r.request = "req-1";
          r.driver = pick(4) == 0 ? "net.example.com" : "gpu.example.com";
          r.pool = "node-" + std::to_string(pick(3));
          r.device = "dev-" + std::to_string(pick(4));
          if (pick(8) == 0) r.adminAccess = true;  // holds no device
          a.devices.results.push_back(r);
        }
        c->status.allocation = a;
      }
      return c;
    };
    std::map<std::string, dra::ClaimPtr> known;  // the informer's view
    for (int step = 0; step < 300; ++step) {
      const int i = pick(8);
      const std::string name = "c" + std::to_string(i);
      const std::string uid = "uid-" + name;
      switch (pick(7)) {
        case 0:
        case 1: {  // informer add or update
          auto c = random_claim(i);
          auto it = known.find(name);
          if (it == known.end()) m.on_claim_add(c);
          else m.on_claim_update(it->second, c);
          known[name] = c;
          break;
        }
        case 2: {  // informer delete
          auto it = known.find(name);
          if (it == known.end()) break;
          m.on_claim_delete(it->second);
          known.erase(it);
          break;
        }
        case 3: {  // Reserve: an allocation in flight
          auto c = random_claim(i);
          m.signal_claim_pending_allocation(uid, c);
          break;
        }
        case 4:  // PreBind done or Unreserve: no longer in flight
          m.remove_claim_pending_allocation(uid);
          break;
        case 5: {  // PreBind wrote the claim: assume the API server's answer
          auto c = random_claim(i);
          (void)m.assume_claim_after_api_call(c);
          break;
        }
        case 6:  // Unreserve: back to the informer's copy
          m.assumed_claim_restore("default", name);
          break;
      }
      if (pick(3) == 0) continue;  // several changes between snapshots, too
      auto snap = m.allocated_devices();
      const dra::DeviceIdSet scratch = m.allocated_devices_from_scratch();
      ASSERT_EQ(snap->all(), scratch) << "seed " << seed << " step " << step;
      // The allocator's lookup (pool, then name) agrees, for every device of the space.
      for (const char* driver : {"gpu.example.com", "net.example.com"}) {
        for (int pool = 0; pool < 3; ++pool) {
          const std::string pool_name = "node-" + std::to_string(pool);
          const dra::DeviceNameSet* names = snap->in_pool(driver, pool_name);
          for (int dev = 0; dev < 4; ++dev) {
            const std::string device = "dev-" + std::to_string(dev);
            EXPECT_EQ(names != nullptr && names->contains(device),
                      scratch.contains(dra::DeviceId{driver, pool_name, device}))
                << driver << "/" << pool_name << "/" << device << " seed " << seed << " step " << step;
          }
        }
      }
      std::size_t pools = 0;
      for (std::size_t b = 0; b < dra::AllocatedDevices::kBuckets; ++b) {
        const auto& bucket = *snap->buckets[b];
        pools += bucket.size();
        for (const auto& p : bucket) {
          EXPECT_FALSE(p->names.empty());
          EXPECT_EQ(dra::AllocatedDevices::bucket_of(p->driver, p->pool), b);
        }
        for (std::size_t k = 1; k < bucket.size(); ++k) {
          EXPECT_LT(std::tie(bucket[k - 1]->pool, bucket[k - 1]->driver), std::tie(bucket[k]->pool, bucket[k]->driver));
        }
      }
      EXPECT_EQ(pools, snap->pool_count);
      EXPECT_EQ(snap->empty(), scratch.empty());
      // Without changes in between, the same snapshot again.
      EXPECT_EQ(m.allocated_devices(), snap);
    }
  }
}


// ---------------------------------------------------------------- DRAWorkloadResourceClaims
// KEP-5729 (alpha in v1.36, beta and off in v1.37): a claim a gang shares through its PodGroup is
// allocated once for the group and reserved for the PodGroup ({scheduling.k8s.io, podgroups}, the
// shape upstream's resourceclaim controller_test.go "add-reserved-podgroup" expects), and a member's
// PostFilter does not deallocate it (upstream dynamicresources_preemption_test.go
// "pod-group-claim-not-released" for the same rule in preemption).

// The PodGroup "pg"'s claim made from its template: controlled by the PodGroup (uid-pg).
std::shared_ptr<resourceapi::ResourceClaim> group_claim(const std::string& name) {
  auto c = claim(name);
  api::OwnerReference owner;
  owner.apiVersion = "scheduling.k8s.io/v1beta1";
  owner.kind = "PodGroup";
  owner.name = "pg";
  owner.uid = "uid-pg";
  owner.controller = true;
  c->metadata.ownerReferences = std::vector<api::OwnerReference>{owner};
  return c;
}

// A member of PodGroup "pg" whose claim "gpu" is the group's (recorded as `generated`).
std::shared_ptr<const api::Pod> member(const std::string& name, const std::string& generated) {
  return obj<api::Pod>("apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: default, uid: uid-" +
                       name + "}\nspec:\n  containers: [{name: c, image: i}]\n  schedulingGroup: {podGroupName: pg}\n"
                       "  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: gpu-template}\n"
                       "status:\n  resourceClaimStatuses: [{name: gpu, resourceClaimName: " + generated + "}]\n");
}

class WorkloadClaimsTest : public DynamicResourcesTest {
 protected:
  void SetUp() override {
    config::Features f = config::features();
    f.draWorkloadResourceClaims = gate_on;
    gates.emplace(f);
    DynamicResourcesTest::SetUp();
  }
  bool gate_on = true;
  std::optional<config::ScopedFeatures> gates;
};

// Two members of a gang in one pod-group cycle (Reserve of each before any PreBind): the second
// sees the first's in-flight allocation as the claim's, so it must land on the node that
// allocation pins (node-1, whose only device the first member's allocation holds) and allocates
// nothing itself; whichever PreBind runs first writes the one allocation, reserved for the PodGroup.
TEST_F(WorkloadClaimsTest, GangMembersShareOneAllocationReservedForThePodGroup) {
  handle.manager.on_slice_add(slice("node-1", 1));
  handle.manager.on_slice_add(slice("node-2", 1));
  add_claim(group_claim("pg-gpu-x"));
  auto pa = member("pa", "pg-gpu-x");
  auto pb = member("pb", "pg-gpu-x");
  fw::CycleState sa, sb;
  ASSERT_TRUE(pre_filter(sa, *pa).is_success());
  ASSERT_TRUE(plugin->filter(sa, *pa, ni("node-1")).is_success());
  ASSERT_TRUE(plugin->reserve(sa, *pa, "node-1").is_success());
  ASSERT_TRUE(handle.manager.claim_has_pending_allocation("uid-pg-gpu-x"));

  auto st = pre_filter(sb, *pb);
  ASSERT_TRUE(st.is_success()) << st.message();
  EXPECT_EQ(plugin->filter(sb, *pb, ni("node-2")).message(), "resourceclaim not available on the node");
  ASSERT_TRUE(plugin->filter(sb, *pb, ni("node-1")).is_success());
  ASSERT_TRUE(plugin->reserve(sb, *pb, "node-1").is_success());

  // The second member's PreBind first: it writes the group's allocation.
  ASSERT_TRUE(plugin->pre_bind(sb, *pb, "node-1").is_success());
  auto stored = handle.claims.stored("pg-gpu-x");
  ASSERT_TRUE(stored->status.allocation);
  ASSERT_EQ(stored->status.allocation->devices.results.size(), 1u);
  EXPECT_EQ(stored->status.allocation->devices.results[0].pool, "node-1");
  EXPECT_EQ(stored->status.allocation->devices.results[0].device, "gpu-0");
  ASSERT_EQ(stored->status.reservedFor.size(), 1u);
  EXPECT_EQ(stored->status.reservedFor[0].apiGroup, "scheduling.k8s.io");
  EXPECT_EQ(stored->status.reservedFor[0].resource, "podgroups");
  EXPECT_EQ(stored->status.reservedFor[0].name, "pg");
  EXPECT_EQ(stored->status.reservedFor[0].uid, "uid-pg");
  EXPECT_EQ(stored->metadata.finalizers.vec(), std::vector<std::string>{std::string(resourceapi::kFinalizer)});
  // The first member's PreBind finds it written and reserved: nothing more, and its allocation is
  // no longer in flight.
  const int writes = handle.claims.updates;
  ASSERT_TRUE(plugin->pre_bind(sa, *pa, "node-1").is_success());
  EXPECT_EQ(handle.claims.updates, writes);
  EXPECT_EQ(handle.claims.stored("pg-gpu-x")->status.reservedFor.size(), 1u);
  EXPECT_FALSE(handle.manager.claim_has_pending_allocation("uid-pg-gpu-x"));
  // One device in use for the whole group.
  EXPECT_EQ(handle.manager.allocated_devices()->size(), 1u);

  // A member's Unreserve leaves the group's reservation alone.
  plugin->unreserve(sa, *pa, "node-1");
  EXPECT_EQ(handle.claims.stored("pg-gpu-x")->status.reservedFor.size(), 1u);
}

// The claim allocated for the group and reserved for it: a member that cannot use it where it is
// is not helped by deallocating it (the group holds it).
TEST_F(WorkloadClaimsTest, ClaimReservedForThePodGroupIsNotDeallocatedByAMember) {
  auto c = group_claim("pg-gpu-x");
  c->status.allocation = allocation("node-2", "gpu-0", "node-2");
  resourceapi::ResourceClaimConsumerReference group;
  group.apiGroup = "scheduling.k8s.io";
  group.resource = "podgroups";
  group.name = "pg";
  group.uid = "uid-pg";
  c->status.reservedFor.push_back(group);
  add_claim(c);
  auto p = member("p", "pg-gpu-x");
  fw::CycleState s;
  ASSERT_TRUE(pre_filter(s, *p).is_success());
  EXPECT_EQ(plugin->filter(s, *p, ni("node-1")).message(), "resourceclaim not available on the node");
  fw::PostFilterResult pr;
  EXPECT_EQ(plugin->post_filter(s, *p, fw::NodeToStatus{}, pr).message(), "still not schedulable");
  EXPECT_TRUE(handle.claims.stored("pg-gpu-x")->status.allocation);
  // On its node the member binds without a write: the group already holds the claim.
  ASSERT_TRUE(plugin->filter(s, *p, ni("node-2")).is_success());
  const int writes = handle.claims.updates;
  ASSERT_TRUE(plugin->reserve(s, *p, "node-2").is_success());
  ASSERT_TRUE(plugin->pre_bind(s, *p, "node-2").is_success());
  EXPECT_EQ(handle.claims.updates, writes);
}

class WorkloadClaimsGateOffTest : public WorkloadClaimsTest {
 protected:
  void SetUp() override {
    gate_on = false;
    WorkloadClaimsTest::SetUp();
  }
};

// Gate off: a claim the PodGroup controls is not the member's (upstream's IsForPod), so the member
// waits, as any pod whose generated claim has another owner.
TEST_F(WorkloadClaimsGateOffTest, TheGroupsClaimIsNotTheMembers) {
  handle.manager.on_slice_add(slice("node-1", 1));
  add_claim(group_claim("pg-gpu-x"));
  fw::CycleState s;
  auto st = pre_filter(s, *member("pa", "pg-gpu-x"));
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), "ResourceClaim default/pg-gpu-x was not created for pod default/pa (pod is not owner)");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::dynamicresources
