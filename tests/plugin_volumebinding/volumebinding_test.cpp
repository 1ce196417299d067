#include "scheduler/plugins/volumebinding/volumebinding.h"

#include <gtest/gtest.h>

#include <future>

#include "scheduler_testing/volume_objects.h"
#include "scheduler/plugins/volumebinding/volume_util.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::volumebinding {
namespace {

using framework::Code;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;
namespace vol = testing::volume;

constexpr const char* kZone = "topology.kubernetes.io/zone";

// Records PV/PVC updates (the default FakeClusterClient does not support them).
class RecordingClient : public testing::FakeClusterClient {
 public:
  Status update_pv(const api::PersistentVolume& pv) override {
    pvs.push_back(pv);
    return pv_error;
  }
  Status update_pvc(const api::PersistentVolumeClaim& pvc) override {
    pvcs.push_back(pvc);
    return {};
  }
  std::vector<api::PersistentVolume> pvs;
  std::vector<api::PersistentVolumeClaim> pvcs;
  Status pv_error;
};

class Handle : public testing::FakeHandle {
 public:
  framework::ClusterClient& client() override { return rec; }
  const util::StopSignal& stop_signal() const override { return stop; }
  RecordingClient rec;
  util::StopSignal stop;  // what Scheduler::stop sets
};

std::shared_ptr<api::PersistentVolume> make_pv(std::string name, std::string size, std::string sc,
                                               std::vector<std::string> modes = {"ReadWriteOnce"},
                                               std::string phase = "Available") {
  auto pv = vol::pv(std::move(name));
  pv->metadata.resourceVersion = "1";
  pv->spec.capacity.set("storage", api::Quantity::must(size));
  pv->spec.storageClassName = std::move(sc);
  pv->spec.accessModes = std::move(modes);
  pv->status.phase = std::move(phase);
  return pv;
}

void set_zone_affinity(api::PersistentVolume& pv, std::string key, std::string value) {
  api::NodeSelectorRequirement r;
  r.key = std::move(key);
  r.operator_ = "In";
  r.values = {std::move(value)};
  api::NodeSelectorTerm t;
  t.matchExpressions.push_back(r);
  pv.spec.nodeAffinity.emplace();
  pv.spec.nodeAffinity->required.emplace();
  pv.spec.nodeAffinity->required->nodeSelectorTerms.push_back(t);
}

std::shared_ptr<api::PersistentVolumeClaim> make_claim(std::string name, std::string size, std::optional<std::string> sc,
                                                       std::string volume = {}, bool bound = false) {
  auto c = vol::pvc("default", std::move(name), std::move(volume), std::move(sc));
  c->metadata.resourceVersion = "1";
  c->spec.resources.requests.set("storage", api::Quantity::must(size));
  if (bound) c->metadata.annotations.set(std::string(kAnnBindCompleted), "yes");
  return c;
}

class VolumeBindingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& l = h_.fake_lister();
    l.add_storage_class(vol::storage_class("wffc", "WaitForFirstConsumer", "kubernetes.io/no-provisioner"));
    l.add_storage_class(vol::storage_class("immediate", "Immediate"));
    auto dyn = vol::storage_class("dyn", "WaitForFirstConsumer", "csi.example.com");
    api::TopologySelectorTerm term;
    api::TopologySelectorLabelRequirement req;
    req.key = kZone;
    req.values = {"zone-a"};
    term.matchLabelExpressions.push_back(req);
    dyn->allowedTopologies.push_back(term);
    l.add_storage_class(dyn);
    nodes_ = {MakeNode().Name("node-a").Label(kZone, "zone-a").Label("kubernetes.io/hostname", "node-a").Obj(),
              MakeNode().Name("node-b").Label(kZone, "zone-b").Label("kubernetes.io/hostname", "node-b").Obj()};
    h_.set_snapshot(std::vector<api::Pod>{}, nodes_);
  }

  std::unique_ptr<VolumeBinding> plugin(std::int64_t timeout = 600) {
    config::VolumeBindingArgs args;
    args.bindTimeoutSeconds = timeout;
    auto pl = std::make_unique<VolumeBinding>(h_, args);
    pl->set_clock(&clock_);
    pl->set_sleep([this](std::chrono::milliseconds d) {
      clock_.step(d);
      if (on_sleep_) on_sleep_();
      return false;
    });
    return pl;
  }

  // Filter status on each node (node-a, node-b) after PreFilter.
  std::vector<Status> filter_all(VolumeBinding& pl, const api::Pod& pod, framework::CycleState& state) {
    std::vector<Status> out;
    for (const auto& ni : h_.snapshot().list()) out.push_back(pl.filter(state, pod, *ni));
    return out;
  }

  Handle h_;
  util::FakeClock clock_;
  std::function<void()> on_sleep_;
  std::vector<api::Node> nodes_;
};

TEST_F(VolumeBindingTest, PreFilter) {
  auto pl = plugin();
  framework::CycleState state;
  framework::PreFilterResult r;
  EXPECT_TRUE(pl->pre_filter(state, MakePod().Name("p").Obj(), {}, r).is_skip());
  // Filter after a Skip-only state passes (the pod has no claims).
  EXPECT_TRUE(pl->filter(state, MakePod().Name("p").Obj(), *h_.snapshot().list()[0]).is_success());

  auto s = pl->pre_filter(state, MakePod().Name("p").PVC("missing").Obj(), {}, r);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "persistentvolumeclaim \"missing\" not found");

  auto lost = make_claim("lost", "1Gi", "wffc", "pv-x");
  lost->status.phase = "Lost";
  h_.fake_lister().add_pvc(lost);
  s = pl->pre_filter(state, MakePod().Name("p").PVC("lost").Obj(), {}, r);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "persistentvolumeclaim \"lost\" bound to non-existent persistentvolume \"pv-x\"");

  // Immediate class (and a class that does not exist) must already be bound.
  h_.fake_lister().add_pvc(make_claim("imm", "1Gi", "immediate"));
  h_.fake_lister().add_pvc(make_claim("noclass", "1Gi", "ghost"));
  for (const char* claim : {"imm", "noclass"}) {
    s = pl->pre_filter(state, MakePod().Name("p").PVC(claim).Obj(), {}, r);
    EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable) << claim;
    EXPECT_EQ(s.message(), "pod has unbound immediate PersistentVolumeClaims") << claim;
  }
}

TEST_F(VolumeBindingTest, BoundClaims) {
  auto& l = h_.fake_lister();
  auto pv_a = make_pv("pv-a", "10Gi", "wffc", {"ReadWriteOnce"}, "Bound");
  set_zone_affinity(*pv_a, kZone, "zone-a");
  l.add_pv(pv_a);
  l.add_pvc(make_claim("bound-a", "1Gi", "wffc", "pv-a", true));
  l.add_pvc(make_claim("bound-ghost", "1Gi", "wffc", "pv-ghost", true));
  auto pl = plugin();

  framework::CycleState state;
  framework::PreFilterResult r;
  auto pod = MakePod().Name("p").PVC("bound-a").Obj();
  ASSERT_TRUE(pl->pre_filter(state, pod, {}, r).is_success());
  EXPECT_TRUE(r.all_nodes());  // zone affinity, not hostname: no node set
  auto st = filter_all(*pl, pod, state);
  EXPECT_TRUE(st[0].is_success());
  EXPECT_EQ(st[1].code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st[1].reasons(), (std::vector<std::string>{"node(s) had volume node affinity conflict"}));

  auto ghost = MakePod().Name("p").PVC("bound-ghost").Obj();
  ASSERT_TRUE(pl->pre_filter(state, ghost, {}, r).is_success());
  st = filter_all(*pl, ghost, state);
  EXPECT_EQ(st[0].reasons(),
            (std::vector<std::string>{"node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"}));

  // Bound local PV pinned by hostname narrows PreFilter to that node.
  auto local = make_pv("pv-local", "1Gi", "wffc", {"ReadWriteOnce"}, "Bound");
  set_zone_affinity(*local, "kubernetes.io/hostname", "node-b");
  l.add_pv(local);
  l.add_pvc(make_claim("bound-local", "1Gi", "wffc", "pv-local", true));
  r = {};
  ASSERT_TRUE(pl->pre_filter(state, MakePod().Name("p").PVC("bound-local").Obj(), {}, r).is_success());
  ASSERT_FALSE(r.all_nodes());
  EXPECT_EQ(*r.nodeNames, (std::set<std::string>{"node-b"}));
}

TEST_F(VolumeBindingTest, StaticBindingPicksSmallestFit) {
  auto& l = h_.fake_lister();
  l.add_pv(make_pv("pv-5", "5Gi", "wffc"));                                 // too small
  l.add_pv(make_pv("pv-20", "20Gi", "wffc"));
  l.add_pv(make_pv("pv-10", "10Gi", "wffc"));                               // smallest fit
  l.add_pv(make_pv("pv-9-rox", "9Gi", "wffc", {"ReadOnlyMany"}));          // access mode mismatch
  l.add_pv(make_pv("pv-9-bound", "9Gi", "wffc", {"ReadWriteOnce"}, "Bound"));  // not Available
  l.add_pv(make_pv("pv-9-other", "9Gi", "other"));                          // other class
  auto block = make_pv("pv-9-block", "9Gi", "wffc");
  block->spec.volumeMode = "Block";
  l.add_pv(block);                                                          // volume mode mismatch
  auto zoned = make_pv("pv-9-zone-b", "9Gi", "wffc");
  set_zone_affinity(*zoned, kZone, "zone-b");
  l.add_pv(zoned);                                                          // only fits node-b
  l.add_pvc(make_claim("claim", "8Gi", "wffc"));
  auto pod = MakePod().Name("p").PVC("claim").Obj();
  l.add_pod(std::make_shared<const api::Pod>(pod));
  auto pl = plugin();

  framework::CycleState state;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl->pre_filter(state, pod, {}, r).is_success());
  auto st = filter_all(*pl, pod, state);
  EXPECT_TRUE(st[0].is_success());
  EXPECT_TRUE(st[1].is_success());

  // Reserve on node-a assumes pv-10 for the claim; on node-b it would be pv-9-zone-b.
  ASSERT_TRUE(pl->reserve(state, pod, "node-a").is_success());
  auto assumed = pl->assume_cache().get_pv(l, "pv-10");
  ASSERT_TRUE(assumed->spec.claimRef.has_value());
  EXPECT_EQ(assumed->spec.claimRef->name, "claim");
  EXPECT_EQ(assumed->spec.claimRef->uid, "uid-claim");
  EXPECT_EQ(assumed->metadata.annotations.get(kAnnBoundByController), "yes");

  // A second pod's PreFilter sees pv-10 taken (claimRef to another claim): it gets pv-20.
  l.add_pvc(make_claim("claim2", "8Gi", "wffc"));
  auto pod2 = MakePod().Name("p2").PVC("claim2").Obj();
  framework::CycleState state2;
  ASSERT_TRUE(pl->pre_filter(state2, pod2, {}, r).is_success());
  ASSERT_TRUE(pl->reserve(state2, pod2, "node-a").is_success());
  EXPECT_TRUE(pl->assume_cache().get_pv(l, "pv-20")->spec.claimRef.has_value());
  pl->unreserve(state2, pod2, "node-a");
  EXPECT_FALSE(pl->assume_cache().get_pv(l, "pv-20")->spec.claimRef.has_value());

  // PreBind writes the PV and waits for the claim to be bound (a PV controller binds it on the
  // first poll).
  on_sleep_ = [&] {
    auto bound_pv = std::make_shared<api::PersistentVolume>(*assumed);
    bound_pv->metadata.resourceVersion = "2";
    l.add_pv(bound_pv);
    auto claim = make_claim("claim", "8Gi", "wffc", "pv-10", true);
    claim->metadata.resourceVersion = "2";
    l.add_pvc(claim);
  };
  ASSERT_TRUE(pl->pre_bind(state, pod, "node-a").is_success());
  ASSERT_EQ(h_.rec.pvs.size(), 1u);
  EXPECT_EQ(h_.rec.pvs[0].metadata.name, "pv-10");
  EXPECT_EQ(h_.rec.pvs[0].spec.claimRef->name, "claim");
  EXPECT_TRUE(h_.rec.pvcs.empty());
}

// Upstream BindPodVolumes polls with wait.PollUntilContextTimeout(ctx, 1s, bindTimeout): when the
// scheduler stops it cancels the binding cycle's context, and PreBind ends with "binding volumes:
// context canceled" instead of polling until bindTimeout (600 s here). The plugin's own wait
// (no test sleep hook) waits on Handle::stop_signal.
TEST_F(VolumeBindingTest, PreBindWaitEndsWhenTheSchedulerStops) {
  auto& l = h_.fake_lister();
  l.add_pv(make_pv("pv-10", "10Gi", "wffc"));
  l.add_pvc(make_claim("claim", "8Gi", "wffc"));
  auto pod = MakePod().Name("p").PVC("claim").Obj();
  l.add_pod(std::make_shared<const api::Pod>(pod));
  config::VolumeBindingArgs args;
  args.bindTimeoutSeconds = 600;
  VolumeBinding pl(h_, args);
  framework::CycleState state;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl.pre_filter(state, pod, {}, r).is_success());
  ASSERT_TRUE(pl.reserve(state, pod, "node-a").is_success());
  // No PV controller binds the claim: PreBind writes the PV, then polls.
  auto prebind = std::async(std::launch::async, [&] { return pl.pre_bind(state, pod, "node-a"); });
  h_.stop.request_stop();
  ASSERT_EQ(prebind.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  auto st = prebind.get();
  EXPECT_EQ(st.code(), Code::Error);
  EXPECT_EQ(st.message(), "binding volumes: context canceled");
  ASSERT_EQ(h_.rec.pvs.size(), 1u);  // the PV was written before the wait
  EXPECT_EQ(h_.rec.pvs[0].metadata.name, "pv-10");
}

TEST_F(VolumeBindingTest, PreBoundPVWinsOverSmaller) {
  auto& l = h_.fake_lister();
  l.add_pv(make_pv("pv-small", "8Gi", "wffc"));
  auto prebound = make_pv("pv-prebound", "50Gi", "wffc", {"ReadWriteOnce"}, "Available");
  prebound->spec.claimRef.emplace();
  prebound->spec.claimRef->name = "claim";
  prebound->spec.claimRef->namespace_ = "default";
  l.add_pv(prebound);
  l.add_pvc(make_claim("claim", "8Gi", "wffc"));
  auto pod = MakePod().Name("p").PVC("claim").Obj();
  auto pl = plugin();
  framework::CycleState state;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl->pre_filter(state, pod, {}, r).is_success());
  ASSERT_TRUE(pl->reserve(state, pod, "node-a").is_success());
  EXPECT_EQ(pl->assume_cache().get_pv(l, "pv-prebound")->spec.claimRef->uid, "uid-claim");
  EXPECT_FALSE(pl->assume_cache().get_pv(l, "pv-small")->spec.claimRef.has_value());
}

TEST_F(VolumeBindingTest, NoMatchAndProvisioning) {
  auto& l = h_.fake_lister();
  l.add_pvc(make_claim("static", "8Gi", "wffc"));  // no PVs, class cannot provision
  l.add_pvc(make_claim("dynamic", "8Gi", "dyn"));  // provisions in zone-a only
  auto pl = plugin();
  framework::CycleState state;
  framework::PreFilterResult r;

  auto pod = MakePod().Name("p").PVC("static").Obj();
  ASSERT_TRUE(pl->pre_filter(state, pod, {}, r).is_success());
  auto st = filter_all(*pl, pod, state);
  EXPECT_EQ(st[0].code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st[0].reasons(), (std::vector<std::string>{"node(s) didn't find available persistent volumes to bind"}));

  auto dyn = MakePod().Name("d").PVC("dynamic").Obj();
  ASSERT_TRUE(pl->pre_filter(state, dyn, {}, r).is_success());
  st = filter_all(*pl, dyn, state);
  EXPECT_TRUE(st[0].is_success());  // zone-a is an allowed topology
  EXPECT_EQ(st[1].reasons(), (std::vector<std::string>{"node(s) didn't find available persistent volumes to bind"}));

  // Storage capacity: the driver opts in; zone-a only has 5Gi.
  auto driver = std::make_shared<api::CSIDriver>();
  driver->metadata.name = "csi.example.com";
  driver->spec.storageCapacity = true;
  l.add_csi_driver(driver);
  auto cap = std::make_shared<api::CSIStorageCapacity>();
  cap->storageClassName = "dyn";
  cap->capacity = api::Quantity::must("5Gi");
  cap->nodeTopology = testing::MakeLabelSelector().Label(kZone, "zone-a").Obj();
  l.add_csi_storage_capacity(cap);
  ASSERT_TRUE(pl->pre_filter(state, dyn, {}, r).is_success());
  st = filter_all(*pl, dyn, state);
  EXPECT_EQ(st[0].reasons(), (std::vector<std::string>{"node(s) did not have enough free storage"}));
  // maximumVolumeSize wins over capacity when set.
  auto big = std::make_shared<api::CSIStorageCapacity>(*cap);
  big->capacity = api::Quantity::must("1Gi");
  big->maximumVolumeSize = api::Quantity::must("100Gi");
  l.add_csi_storage_capacity(big);
  ASSERT_TRUE(pl->pre_filter(state, dyn, {}, r).is_success());
  st = filter_all(*pl, dyn, state);
  EXPECT_TRUE(st[0].is_success());

  // Reserve + PreBind for provisioning: the claim gets the selected-node annotation; the
  // provisioner gives up (removes it) → PreBind fails so the pod is rescheduled.
  l.add_pod(std::make_shared<const api::Pod>(dyn));
  ASSERT_TRUE(pl->reserve(state, dyn, "node-a").is_success());
  EXPECT_EQ(pl->assume_cache().get_pvc(l, "default", "dynamic")->metadata.annotations.get(kAnnSelectedNode), "node-a");
  on_sleep_ = [&] {
    auto c = make_claim("dynamic", "8Gi", "dyn");
    c->metadata.resourceVersion = "3";
    c->metadata.annotations.set("unrelated", "x");
    l.add_pvc(c);
  };
  auto s = pl->pre_bind(state, dyn, "node-a");
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "binding volumes: provisioning failed for PVC \"dynamic\"");
  ASSERT_EQ(h_.rec.pvcs.size(), 1u);
  EXPECT_EQ(h_.rec.pvcs[0].metadata.annotations.get(kAnnSelectedNode), "node-a");
}

TEST_F(VolumeBindingTest, AllReasonsInOneStatus) {
  auto& l = h_.fake_lister();
  auto pv_b = make_pv("pv-b", "10Gi", "wffc", {"ReadWriteOnce"}, "Bound");
  set_zone_affinity(*pv_b, kZone, "zone-b");
  l.add_pv(pv_b);
  l.add_pvc(make_claim("bound-b", "1Gi", "wffc", "pv-b", true));
  l.add_pvc(make_claim("unmatched", "1Gi", "wffc"));
  l.add_pvc(make_claim("bound-ghost", "1Gi", "wffc", "pv-ghost", true));
  auto pl = plugin();
  framework::CycleState state;
  framework::PreFilterResult r;
  auto pod = MakePod().Name("p").PVC("bound-b").PVC("unmatched").Obj();
  ASSERT_TRUE(pl->pre_filter(state, pod, {}, r).is_success());
  auto st = filter_all(*pl, pod, state);
  EXPECT_EQ(st[0].code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st[0].reasons(), (std::vector<std::string>{"node(s) had volume node affinity conflict",
                                                       "node(s) didn't find available persistent volumes to bind"}));
  EXPECT_EQ(st[0].message(),
            "node(s) had volume node affinity conflict, node(s) didn't find available persistent volumes to bind");
  EXPECT_EQ(st[1].reasons(), (std::vector<std::string>{"node(s) didn't find available persistent volumes to bind"}));
}

TEST_F(VolumeBindingTest, AllBoundSkipsPreBindAndTimeout) {
  auto& l = h_.fake_lister();
  l.add_pv(make_pv("pv-a", "10Gi", "wffc", {"ReadWriteOnce"}, "Bound"));
  l.add_pvc(make_claim("bound", "1Gi", "wffc", "pv-a", true));
  auto pl = plugin(3);
  framework::CycleState state;
  framework::PreFilterResult r;
  auto pod = MakePod().Name("p").PVC("bound").Obj();
  ASSERT_TRUE(pl->pre_filter(state, pod, {}, r).is_success());
  ASSERT_TRUE(pl->reserve(state, pod, "node-a").is_success());
  // Every claim bound: PreBind returns at once, so the pod's binding may go in a batch.
  EXPECT_TRUE(pl->pre_bind_is_quick(state, pod));
  EXPECT_EQ(pl->pre_bind_pre_flight(state, pod, "node-a").code(), Code::Skip);
  EXPECT_TRUE(pl->pre_bind(state, pod, "node-a").is_success());
  EXPECT_TRUE(h_.rec.pvs.empty());

  // A static binding that nobody completes times out after bindTimeoutSeconds (fake clock).
  l.add_pv(make_pv("pv-free", "10Gi", "wffc"));
  l.add_pvc(make_claim("waiting", "1Gi", "wffc"));
  auto waiting = MakePod().Name("w").PVC("waiting").Obj();
  l.add_pod(std::make_shared<const api::Pod>(waiting));
  framework::CycleState state2;
  ASSERT_TRUE(pl->pre_filter(state2, waiting, {}, r).is_success());
  ASSERT_TRUE(pl->reserve(state2, waiting, "node-a").is_success());
  EXPECT_FALSE(pl->pre_bind_is_quick(state2, waiting)) << "PreBind writes the PV and waits for the claim";
  // Upstream PreBindPreFlight: work to do on the reserved node; an error for another node (no
  // volumes were found for it) or without the plugin's cycle state.
  EXPECT_TRUE(pl->pre_bind_pre_flight(state2, waiting, "node-a").is_success());
  auto other = pl->pre_bind_pre_flight(state2, waiting, "node-b");
  EXPECT_EQ(other.code(), Code::Error);
  EXPECT_EQ(other.message(), "no pod volumes found for node \"node-b\"");
  framework::CycleState empty;
  EXPECT_EQ(pl->pre_bind_pre_flight(empty, waiting, "node-a").code(), Code::Error);
  int polls = 0;
  on_sleep_ = [&] { ++polls; };
  auto s = pl->pre_bind(state2, waiting, "node-a");
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "binding volumes: context deadline exceeded");
  EXPECT_EQ(polls, 3);
  // PreBind for a node other than the reserved one has nothing to bind.
  EXPECT_EQ(pl->pre_bind(state2, waiting, "node-b").message(), "no pod volumes found for node \"node-b\"");
  // An API failure is returned as is.
  h_.rec.pv_error = Status::error("conflict");
  EXPECT_EQ(pl->pre_bind(state2, waiting, "node-a").message(), "conflict");
}

TEST_F(VolumeBindingTest, EventsAndScore) {
  auto pl = plugin();
  auto events = pl->events_to_register();
  ASSERT_EQ(events.size(), 7u);
  using R = framework::EventResource;
  EXPECT_EQ(events[0].event.resource, R::StorageClass);
  EXPECT_EQ(events[1].event.resource, R::PersistentVolumeClaim);
  EXPECT_EQ(events[2].event.resource, R::PersistentVolume);
  EXPECT_EQ(events[3].event.resource, R::Node);
  EXPECT_EQ(events[3].event.actionType, framework::kAdd | framework::kUpdateNodeLabel);
  EXPECT_EQ(events[4].event.resource, R::CSINode);
  EXPECT_EQ(events[5].event.resource, R::CSIDriver);
  EXPECT_EQ(events[6].event.resource, R::CSIStorageCapacity);

  const auto pod = MakePod().Name("p").PVC("claim").Obj();
  EXPECT_EQ(events[1].hint(pod, nullptr, make_claim("claim", "1Gi", "wffc")), framework::QueueingHint::Queue);
  EXPECT_EQ(events[1].hint(pod, nullptr, make_claim("other", "1Gi", "wffc")), framework::QueueingHint::Skip);
  auto sc = vol::storage_class("x", "WaitForFirstConsumer");
  EXPECT_EQ(events[0].hint(pod, nullptr, sc), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, sc, sc), framework::QueueingHint::Skip);

  framework::CycleState state;
  EXPECT_TRUE(pl->pre_score(state, pod, {}).is_skip());
}

TEST(VolumeBindingFactory, Defaults) {
  testing::FakeHandle h;
  auto made = make_volume_binding({}, h);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(made.value()->name(), "VolumeBinding");
  EXPECT_NE(dynamic_cast<framework::PreBindPlugin*>(made.value().get()), nullptr);
  // The default client has no PV support: its update fails.
  api::PersistentVolume pv;
  EXPECT_EQ(h.client().update_pv(pv).code(), Code::Error);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumebinding
