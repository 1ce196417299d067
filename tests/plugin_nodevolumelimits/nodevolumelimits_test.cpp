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

}  // namespace
}  // namespace ksched::scheduler::plugins::nodevolumelimits
