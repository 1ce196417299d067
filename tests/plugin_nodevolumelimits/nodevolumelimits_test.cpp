#include "scheduler/plugins/nodevolumelimits/nodevolumelimits.h"

#include <gtest/gtest.h>

#include "scheduler_testing/volume_objects.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::nodevolumelimits {
namespace {

using framework::Code;
using testing::FakeHandle;
using testing::MakeNode;
using testing::MakePod;
namespace vol = testing::volume;

std::shared_ptr<api::PersistentVolume> csi_pv(std::string name, std::string driver) {
  auto pv = vol::pv(name);
  pv->spec.csi.emplace();
  pv->spec.csi->driver = std::move(driver);
  pv->spec.csi->volumeHandle = "handle-" + name;
  return pv;
}

class CSILimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ptr_ = std::make_unique<FakeHandle>();
    auto& l = handle_ptr_->fake_lister();
    for (const auto* n : {"a", "b", "c", "d"}) {
      l.add_pv(csi_pv(std::string("pv-") + n, "ebs.csi.aws.com"));
      l.add_pvc(vol::pvc("default", std::string("claim-") + n, std::string("pv-") + n));
    }
    l.add_pv(csi_pv("pv-gce", "pd.csi.storage.gke.io"));
    l.add_pvc(vol::pvc("default", "claim-gce", "pv-gce"));
    // Unbound claims are counted against their class's provisioner.
    l.add_storage_class(vol::storage_class("sc", "WaitForFirstConsumer", "ebs.csi.aws.com"));
    l.add_pvc(vol::pvc("default", "unbound-1", "", "sc"));
    l.add_pvc(vol::pvc("default", "unbound-2", "", "sc"));
    // Non-CSI PV: never counted.
    l.add_pv(vol::pv("pv-intree"));
    l.add_pvc(vol::pvc("default", "claim-intree", "pv-intree"));
  }

  // Node "n" with the given existing pods, CSINode limit `limit` for the EBS driver.
  framework::Status run(const api::Pod& pod, const std::vector<api::Pod>& existing, std::optional<std::int32_t> limit,
                        const testing::ResourceMap& alloc = {}) {
    if (limit) handle_ptr_->fake_lister().add_csi_node(vol::csi_node("n", "ebs.csi.aws.com", limit));
    auto node = MakeNode().Name("n");
    if (!alloc.empty()) node.Capacity(alloc);
    handle_ptr_->set_snapshot(existing, std::vector<api::Node>{node.Obj()});
    CSILimits pl(*handle_ptr_);
    framework::CycleState state;
    framework::PreFilterResult r;
    auto pre = pl.pre_filter(state, pod, {}, r);
    if (!pre.is_success()) return pre;
    return pl.filter(state, pod, *handle_ptr_->snapshot().get("n"));
  }

  api::Pod existing(const std::vector<std::string>& claims) {
    auto p = MakePod().Name("e" + std::to_string(counter_++)).Node("n");
    for (const auto& c : claims) p.PVC(c);
    return p.Obj();
  }

  std::unique_ptr<FakeHandle> handle_ptr_;
  int counter_ = 0;
};

TEST_F(CSILimitsTest, Filter) {
  const auto U = Code::Unschedulable;
  struct Case {
    const char* name;
    std::vector<std::string> podClaims;
    std::vector<std::vector<std::string>> existingClaims;
    std::optional<std::int32_t> limit;
    Code want;
  };
  const Case cases[] = {
      {"under the limit", {"claim-a"}, {{"claim-b"}}, 2, Code::Success},
      {"over the limit", {"claim-a"}, {{"claim-b"}, {"claim-c"}}, 2, U},
      // The same volume already attached does not count as new.
      {"shared volume not new", {"claim-a"}, {{"claim-a"}, {"claim-b"}}, 2, Code::Success},
      // Attached volumes are unique across pods.
      {"duplicate attached volumes counted once", {"claim-c"}, {{"claim-a"}, {"claim-a"}}, 2, Code::Success},
      {"two new volumes exceed", {"claim-a", "claim-b"}, {{"claim-c"}}, 2, U},
      {"no limit for driver", {"claim-a"}, {{"claim-b"}, {"claim-c"}}, std::nullopt, Code::Success},
      {"other driver not counted", {"claim-gce"}, {{"claim-a"}, {"claim-b"}}, 2, Code::Success},
      {"unbound claims counted by provisioner", {"unbound-1", "unbound-2"}, {{"claim-a"}}, 2, U},
      {"in-tree PV not counted", {"claim-intree"}, {{"claim-a"}, {"claim-b"}}, 2, Code::Success},
      {"zero limit", {"claim-a"}, {}, 0, U},
  };
  for (const auto& c : cases) {
    SetUp();
    std::vector<api::Pod> pods;
    for (const auto& e : c.existingClaims) pods.push_back(existing(e));
    auto pod = MakePod().Name("p");
    for (const auto& claim : c.podClaims) pod.PVC(claim);
    auto s = run(pod.Obj(), pods, c.limit);
    EXPECT_EQ(s.code(), c.want) << c.name << ": " << s.message();
    if (c.want == U) {
      EXPECT_EQ(s.message(), "node(s) exceed max volume count") << c.name;
    }
  }
}

TEST_F(CSILimitsTest, NodeAllocatableLimit) {
  // Without a CSINode, the node's attachable-volumes-csi-<driver> allocatable is the limit.
  auto s = run(MakePod().Name("p").PVC("claim-a").Obj(), {existing({"claim-b"})}, std::nullopt,
               {{"attachable-volumes-csi-ebs.csi.aws.com", "1"}, {"pods", "10"}});
  EXPECT_EQ(s.code(), Code::Unschedulable);
}

TEST_F(CSILimitsTest, PreFilter) {
  CSILimits pl(*handle_ptr_);
  framework::CycleState state;
  framework::PreFilterResult r;
  EXPECT_TRUE(pl.pre_filter(state, MakePod().Name("p").Obj(), {}, r).is_skip());
  // Missing claim of the incoming pod: U&U from Filter on every node.
  auto pod = MakePod().Name("p").PVC("nope").Obj();
  ASSERT_TRUE(pl.pre_filter(state, pod, {}, r).is_success());
  handle_ptr_->fake_lister().add_csi_node(vol::csi_node("n", "ebs.csi.aws.com", 5));
  framework::NodeInfo ni(MakeNode().Name("n").Ptr());
  auto s = pl.filter(state, pod, ni);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "looking up PVC default/nope: persistentvolumeclaim \"nope\" not found");
}

TEST_F(CSILimitsTest, Events) {
  CSILimits pl(*handle_ptr_);
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::CSINode);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::Pod);
  EXPECT_EQ(events[1].event.actionType, framework::kDelete);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::PersistentVolumeClaim);
  const auto pod = MakePod().Name("p").PVC("claim-a").Obj();
  EXPECT_EQ(events[1].hint(pod, MakePod().Name("e").Node("n").PVC("x").Ptr(), nullptr), framework::QueueingHint::Queue);
  EXPECT_EQ(events[1].hint(pod, MakePod().Name("e").PVC("x").Ptr(), nullptr), framework::QueueingHint::Skip);
  EXPECT_EQ(events[1].hint(pod, MakePod().Name("e").Node("n").Ptr(), nullptr), framework::QueueingHint::Skip);
}


// ---- CSI migration of in-tree volumes (v1.32 rules).

api::Volume claim_vol(std::string claim) {
  api::Volume v;
  v.name = claim;
  v.persistentVolumeClaim.emplace();
  v.persistentVolumeClaim->claimName = std::move(claim);
  return v;
}

api::Volume ebs_inline(std::string name, std::string id) {
  api::Volume v;
  v.name = std::move(name);
  v.awsElasticBlockStore.emplace();
  v.awsElasticBlockStore->volumeID = std::move(id);
  return v;
}

api::Volume gce_inline(std::string name, std::string pd) {
  api::Volume v;
  v.name = std::move(name);
  v.gcePersistentDisk.emplace();
  v.gcePersistentDisk->pdName = std::move(pd);
  return v;
}

// A source the API types do not model (azureDisk, cinder, portworxVolume, ...), as raw JSON.
api::Volume extra_inline(std::string name, std::string_view key, std::string_view json) {
  api::Volume v;
  v.name = std::move(name);
  v.extra.fields.emplace_back(key, json);
  return v;
}

using DriverLimits = std::vector<std::pair<std::string, std::int32_t>>;

class CSIMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ptr_ = std::make_unique<FakeHandle>();
    auto& l = handle_ptr_->fake_lister();
    auto ebs = [&](std::string n, std::string id) {
      auto pv = vol::pv("pv-" + n);
      pv->spec.awsElasticBlockStore.emplace();
      pv->spec.awsElasticBlockStore->volumeID = std::move(id);
      l.add_pv(pv);
      l.add_pvc(vol::pvc("default", n, "pv-" + n));
    };
    ebs("ebs-1", "vol-1");
    ebs("ebs-2", "aws://us-east-1a/vol-2");  // translated to "vol-2"
    ebs("ebs-3", "vol-3");
    ebs("ebs-bad", "aws://us-east-1a/not-a-volume");  // does not translate: not counted
    auto gce = vol::pv("pv-gce-1", {{"topology.kubernetes.io/zone", "us-central1-a"}});
    gce->spec.gcePersistentDisk.emplace();
    gce->spec.gcePersistentDisk->pdName = "disk-1";
    l.add_pv(gce);
    l.add_pvc(vol::pvc("default", "gce-1", "pv-gce-1"));
    auto extra_pv = [&](std::string n, std::string_view key, std::string_view json) {
      auto pv = vol::pv("pv-" + n);
      pv->spec.extra.fields.emplace_back(key, json);
      l.add_pv(pv);
      l.add_pvc(vol::pvc("default", n, "pv-" + n));
    };
    extra_pv("azure-1", "azureDisk", R"({"diskName":"az1","diskURI":"uri-1"})");
    extra_pv("cinder-1", "cinder", R"({"volumeID":"c1"})");
    extra_pv("px-1", "portworxVolume", R"({"volumeID":"px1"})");
    extra_pv("azfile-1", "azureFile", R"({"secretName":"s","shareName":"share"})");
    l.add_pv(csi_pv("pv-csi", "ebs.csi.aws.com"));
    l.add_pvc(vol::pvc("default", "csi-1", "pv-csi"));
    l.add_storage_class(vol::storage_class("intree-ebs", "WaitForFirstConsumer", "kubernetes.io/aws-ebs"));
    l.add_pvc(vol::pvc("default", "unbound-ebs-1", "", "intree-ebs"));
    l.add_pvc(vol::pvc("default", "unbound-ebs-2", "", "intree-ebs"));
    l.add_storage_class(vol::storage_class("intree-file", "WaitForFirstConsumer", "kubernetes.io/azure-file"));
    l.add_pvc(vol::pvc("default", "unbound-file", "", "intree-file"));
  }

  // Node "n"; `drivers`: its CSINode (none when nullopt) with these allocatable counts.
  framework::Status run(const std::vector<api::Volume>& pod_vols, const std::vector<std::vector<api::Volume>>& existing,
                        const std::optional<DriverLimits>& drivers, const std::string& migrated = {},
                        const testing::ResourceMap& alloc = {}) {
    if (drivers) {
      auto n = std::make_shared<api::CSINode>();
      n->metadata.name = "n";
      if (!migrated.empty()) n->metadata.annotations.set(std::string(kMigratedPluginsAnnotation), migrated);
      for (const auto& [name, count] : *drivers) {
        api::CSINodeDriver d;
        d.name = name;
        d.allocatable.emplace();
        d.allocatable->count = count;
        n->spec.drivers.push_back(std::move(d));
      }
      handle_ptr_->fake_lister().add_csi_node(n);
    }
    std::vector<api::Pod> pods;
    for (const auto& vols : existing) {
      auto p = MakePod().Name("e" + std::to_string(pods.size())).Node("n");
      for (const auto& v : vols) p.Volume(v);
      pods.push_back(p.Obj());
    }
    auto node = MakeNode().Name("n");
    if (!alloc.empty()) node.Capacity(alloc);
    handle_ptr_->set_snapshot(pods, std::vector<api::Node>{node.Obj()});
    auto pod = MakePod().Name("p");
    for (const auto& v : pod_vols) pod.Volume(v);
    CSILimits pl(*handle_ptr_);
    framework::CycleState state;
    framework::PreFilterResult r;
    auto pre = pl.pre_filter(state, pod.Obj(), {}, r);
    if (!pre.is_success()) return pre;
    return pl.filter(state, pod.Obj(), *handle_ptr_->snapshot().get("n"));
  }

  std::unique_ptr<FakeHandle> handle_ptr_;
};

TEST_F(CSIMigrationTest, Filter) {
  const auto U = Code::Unschedulable;
  const auto OK = Code::Success;
  const std::string ebs = "ebs.csi.aws.com";
  const std::string pd = "pd.csi.storage.gke.io";
  const std::string px_listed = "kubernetes.io/aws-ebs,kubernetes.io/portworx-volume";
  struct Case {
    const char* name;
    std::vector<api::Volume> pod;
    std::vector<std::vector<api::Volume>> existing;
    std::optional<DriverLimits> drivers;
    std::string migrated;
    testing::ResourceMap alloc;
    Code want;
  };
  const Case cases[] = {
      {"EBS PV below the limit", {claim_vol("ebs-1")}, {{claim_vol("ebs-2")}}, DriverLimits{{ebs, 2}}, {}, {}, OK},
      {"EBS PV at the limit", {claim_vol("ebs-1")}, {{claim_vol("ebs-2")}, {claim_vol("ebs-3")}}, DriverLimits{{ebs, 2}},
       {}, {}, U},
      {"EBS PV counted with a CSI PV of the driver", {claim_vol("ebs-1")}, {{claim_vol("csi-1")}}, DriverLimits{{ebs, 1}},
       {}, {}, U},
      // No CSINode: migration is off, the in-tree PVs are not counted against the node's limit.
      {"EBS PV without CSINode not counted", {claim_vol("ebs-1")}, {{claim_vol("ebs-2")}, {claim_vol("ebs-3")}},
       std::nullopt, {}, {{"attachable-volumes-csi-ebs.csi.aws.com", "1"}}, OK},
      {"existing EBS PVs without CSINode not counted", {claim_vol("csi-1")}, {{claim_vol("ebs-2")}, {claim_vol("ebs-3")}},
       std::nullopt, {}, {{"attachable-volumes-csi-ebs.csi.aws.com", "1"}}, OK},
      {"untranslatable EBS PV not counted", {claim_vol("ebs-bad")}, {}, DriverLimits{{ebs, 0}}, {}, {}, OK},
      {"inline GCE PD at the limit", {gce_inline("v", "disk-x")}, {{claim_vol("gce-1")}}, DriverLimits{{pd, 1}}, {}, {}, U},
      {"inline GCE PD below the limit", {gce_inline("v", "disk-x")}, {{claim_vol("gce-1")}}, DriverLimits{{pd, 2}}, {}, {},
       OK},
      {"inline GCE PD without CSINode not counted", {gce_inline("v", "disk-x")}, {}, std::nullopt, {},
       {{"attachable-volumes-csi-pd.csi.storage.gke.io", "0"}}, OK},
      {"unbound claim of aws-ebs provisioner at the limit", {claim_vol("unbound-ebs-1")},
       {{claim_vol("ebs-1")}, {claim_vol("ebs-2")}}, DriverLimits{{ebs, 2}}, {}, {}, U},
      {"unbound claim of aws-ebs provisioner below the limit", {claim_vol("unbound-ebs-1")},
       {{claim_vol("ebs-1")}, {claim_vol("ebs-2")}}, DriverLimits{{ebs, 3}}, {}, {}, OK},
      {"unbound claims of aws-ebs provisioner without CSINode", {claim_vol("unbound-ebs-1"), claim_vol("unbound-ebs-2")},
       {}, std::nullopt, {}, {{"attachable-volumes-csi-ebs.csi.aws.com", "1"}}, OK},
      // vol-2 is attached by an existing pod inline and wanted by the new pod through its PV.
      {"volume shared by existing inline and new PV counted once", {claim_vol("ebs-2")},
       {{ebs_inline("v", "vol-2")}, {claim_vol("ebs-3")}}, DriverLimits{{ebs, 2}}, {}, {}, OK},
      {"different volume with the same node state", {claim_vol("ebs-1")},
       {{ebs_inline("v", "vol-2")}, {claim_vol("ebs-3")}}, DriverLimits{{ebs, 2}}, {}, {}, U},
      {"inline EBS in new and existing pod counted once", {ebs_inline("a", "aws:///vol-9")},
       {{ebs_inline("b", "vol-9")}}, DriverLimits{{ebs, 1}}, {}, {}, OK},
      {"azureDisk PV and inline azureDisk", {claim_vol("azure-1")},
       {{extra_inline("v", "azureDisk", R"({"diskName":"az2","diskURI":"uri-2"})")}},
       DriverLimits{{"disk.csi.azure.com", 1}}, {}, {}, U},
      {"cinder PV and inline cinder", {extra_inline("v", "cinder", R"({"volumeID":"c2"})")}, {{claim_vol("cinder-1")}},
       DriverLimits{{"cinder.csi.openstack.org", 1}}, {}, {}, U},
      {"cinder shared volume", {extra_inline("v", "cinder", R"({"volumeID":"c1"})")}, {{claim_vol("cinder-1")}},
       DriverLimits{{"cinder.csi.openstack.org", 1}}, {}, {}, OK},
      // Portworx (beta) migrates only where the CSINode annotation lists the plugin.
      {"portworx not listed", {claim_vol("px-1")}, {{extra_inline("v", "portworxVolume", R"({"volumeID":"px2"})")}},
       DriverLimits{{"pxd.portworx.com", 1}}, "kubernetes.io/aws-ebs", {}, OK},
      {"portworx listed", {claim_vol("px-1")}, {{extra_inline("v", "portworxVolume", R"({"volumeID":"px2"})")}},
       DriverLimits{{"pxd.portworx.com", 1}}, px_listed, {}, U},
      {"azureFile never migrated", {claim_vol("azfile-1"), claim_vol("unbound-file")}, {},
       DriverLimits{{"file.csi.azure.com", 0}, {"kubernetes.io/azure-file", 0}}, "kubernetes.io/azure-file", {}, OK},
  };
  for (const auto& c : cases) {
    SetUp();
    auto s = run(c.pod, c.existing, c.drivers, c.migrated, c.alloc);
    EXPECT_EQ(s.code(), c.want) << c.name << ": " << s.message();
    if (c.want == U) {
      EXPECT_EQ(s.message(), "node(s) exceed max volume count") << c.name;
    }
  }
}

TEST_F(CSIMigrationTest, UntranslatableInlineVolume) {
  // Fails the node only where EBS is migrated, as upstream's inline translation error.
  auto s = run({ebs_inline("bad", "aws://us-east-1a/x")}, {}, DriverLimits{{"ebs.csi.aws.com", 5}});
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(),
            "converting volume(bad) from inline to csi: failed to translate Kubernetes ID to EBS Volume ID Invalid "
            "format for AWS volume (aws://us-east-1a/x)");
  SetUp();
  EXPECT_TRUE(run({ebs_inline("bad", "aws://us-east-1a/x")}, {}, std::nullopt).is_success());
}

TEST_F(CSIMigrationTest, PreFilterAndEvents) {
  CSILimits pl(*handle_ptr_);
  framework::CycleState state;
  framework::PreFilterResult r;
  // Inline in-tree volumes alone keep the plugin in the cycle; other inline volumes do not.
  EXPECT_TRUE(pl.pre_filter(state, MakePod().Name("p").Volume(gce_inline("v", "d")).Obj(), {}, r).is_success());
  EXPECT_TRUE(pl.pre_filter(state, MakePod().Name("p").Volume(extra_inline("v", "cinder", R"({"volumeID":"c"})")).Obj(),
                            {}, r)
                  .is_success());
  EXPECT_TRUE(pl.pre_filter(state, MakePod().Name("p").Volume(extra_inline("v", "emptyDir", "{}")).Obj(), {}, r).is_skip());
  EXPECT_TRUE(pl.pre_filter(state, MakePod().Name("p").Volume(extra_inline("v", "cinder", "null")).Obj(), {}, r).is_skip());
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 3u);
  const auto pod = MakePod().Name("p").PVC("claim-a").Obj();
  EXPECT_EQ(events[1].hint(pod, MakePod().Name("e").Node("n").Volume(ebs_inline("v", "vol-1")).Ptr(), nullptr),
            framework::QueueingHint::Queue);
  EXPECT_EQ(events[1].hint(pod, MakePod().Name("e").Node("n").Volume(extra_inline("v", "emptyDir", "{}")).Ptr(), nullptr),
            framework::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodevolumelimits
