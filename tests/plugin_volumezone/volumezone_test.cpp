#include "scheduler/plugins/volumezone/volumezone.h"

#include <gtest/gtest.h>

#include "scheduler_testing/volume_objects.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::volumezone {
namespace {

using framework::Code;
using testing::FakeHandle;
using testing::MakeNode;
using testing::MakePod;
namespace vol = testing::volume;

constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kRegion = "topology.kubernetes.io/region";
constexpr const char* kBetaZone = "failure-domain.beta.kubernetes.io/zone";

TEST(VolumeZone, LabelZonesToSet) {
  EXPECT_EQ(*label_zones_to_set("us-east-1a"), (std::set<std::string, std::less<>>{"us-east-1a"}));
  EXPECT_EQ(*label_zones_to_set("a__b__ c "), (std::set<std::string, std::less<>>{"a", "b", "c"}));
  EXPECT_FALSE(label_zones_to_set("a____b").has_value());
  EXPECT_FALSE(label_zones_to_set("").has_value());
}

class VolumeZoneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& l = handle_.fake_lister();
    l.add_pv(vol::pv("pv-a", {{kZone, "zone-a"}}));
    l.add_pv(vol::pv("pv-multi", {{kZone, "zone-a__zone-b"}}));
    l.add_pv(vol::pv("pv-beta", {{kBetaZone, "zone-b"}}));
    l.add_pv(vol::pv("pv-region", {{kRegion, "r1"}, {kZone, "zone-a"}}));
    l.add_pv(vol::pv("pv-nolabels"));
    l.add_pvc(vol::pvc("default", "c-a", "pv-a"));
    l.add_pvc(vol::pvc("default", "c-multi", "pv-multi"));
    l.add_pvc(vol::pvc("default", "c-beta", "pv-beta"));
    l.add_pvc(vol::pvc("default", "c-region", "pv-region"));
    l.add_pvc(vol::pvc("default", "c-none", "pv-nolabels"));
    l.add_pvc(vol::pvc("default", "c-wffc", "", "wffc"));
    l.add_pvc(vol::pvc("default", "c-immediate", "", "immediate"));
    l.add_pvc(vol::pvc("default", "c-noclass"));
    l.add_pvc(vol::pvc("default", "c-ghost", "pv-ghost"));
    l.add_storage_class(vol::storage_class("wffc", "WaitForFirstConsumer"));
    l.add_storage_class(vol::storage_class("immediate", "Immediate"));
  }
  framework::Status run(const api::Pod& pod, const api::Node& node) {
    VolumeZone pl(handle_);
    framework::CycleState state;
    framework::PreFilterResult r;
    auto pre = pl.pre_filter(state, pod, {}, r);
    if (!pre.is_success()) return pre;
    framework::NodeInfo ni(std::make_shared<const api::Node>(node));
    return pl.filter(state, pod, ni);
  }
  FakeHandle handle_;
};

TEST_F(VolumeZoneTest, Filter) {
  const auto U = Code::UnschedulableAndUnresolvable;
  struct Case {
    const char* name;
    std::string claim;
    api::Node node;
    Code want;
  };
  const Case cases[] = {
      {"same zone", "c-a", MakeNode().Name("n").Label(kZone, "zone-a").Obj(), Code::Success},
      {"other zone", "c-a", MakeNode().Name("n").Label(kZone, "zone-b").Obj(), U},
      {"node without topology labels", "c-a", MakeNode().Name("n").Label("foo", "bar").Obj(), Code::Success},
      {"node has region only (zone label missing)", "c-a", MakeNode().Name("n").Label(kRegion, "r1").Obj(), U},
      {"multi-zone value hit", "c-multi", MakeNode().Name("n").Label(kZone, "zone-b").Obj(), Code::Success},
      {"multi-zone value miss", "c-multi", MakeNode().Name("n").Label(kZone, "zone-c").Obj(), U},
      // A beta PV label is matched against the node's GA label when the beta one is absent.
      {"beta pv label vs GA node label", "c-beta", MakeNode().Name("n").Label(kZone, "zone-b").Obj(), Code::Success},
      {"region and zone both checked", "c-region", MakeNode().Name("n").Label(kZone, "zone-a").Label(kRegion, "r2").Obj(), U},
      {"region and zone match", "c-region", MakeNode().Name("n").Label(kZone, "zone-a").Label(kRegion, "r1").Obj(),
       Code::Success},
  };
  for (const auto& c : cases) {
    auto s = run(MakePod().Name("p").PVC(c.claim).Obj(), c.node);
    EXPECT_EQ(s.code(), c.want) << c.name << ": " << s.message();
    if (c.want == U) {
      EXPECT_EQ(s.message(), "node(s) had no available volume zone") << c.name;
    }
  }
}

TEST_F(VolumeZoneTest, PreFilter) {
  VolumeZone pl(handle_);
  framework::CycleState state;
  framework::PreFilterResult r;
  auto pre = [&](const std::string& claim) { return pl.pre_filter(state, MakePod().Name("p").PVC(claim).Obj(), {}, r); };
  EXPECT_TRUE(pl.pre_filter(state, MakePod().Name("p").Obj(), {}, r).is_skip());
  EXPECT_TRUE(pre("c-none").is_skip());  // PV without topology labels
  EXPECT_TRUE(pre("c-wffc").is_skip());  // unbound WaitForFirstConsumer claim is skipped
  struct Case {
    std::string claim;
    std::string msg;
  };
  const Case errors[] = {
      {"c-missing", "persistentvolumeclaim \"c-missing\" not found"},
      {"c-immediate", "PersistentVolume had no name"},
      {"c-noclass", "PersistentVolumeClaim had no pv name and storageClass name"},
      {"c-ghost", "persistentvolume \"pv-ghost\" not found"},
  };
  for (const auto& e : errors) {
    auto s = pre(e.claim);
    EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable) << e.claim;
    EXPECT_EQ(s.message(), e.msg) << e.claim;
  }
}

TEST_F(VolumeZoneTest, Events) {
  VolumeZone pl(handle_);
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::StorageClass);
  EXPECT_EQ(events[1].event.actionType, framework::kAdd | framework::kUpdateNodeLabel);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::PersistentVolumeClaim);
  EXPECT_EQ(events[3].event.resource, framework::EventResource::PersistentVolume);
  const auto pod = MakePod().Name("p").PVC("c-a").Obj();
  EXPECT_EQ(events[0].hint(pod, nullptr, vol::storage_class("x", "WaitForFirstConsumer")), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, nullptr, vol::storage_class("x", "Immediate")), framework::QueueingHint::Skip);
  EXPECT_EQ(events[2].hint(pod, nullptr, vol::pvc("default", "c-a")), framework::QueueingHint::Queue);
  EXPECT_EQ(events[2].hint(pod, vol::pvc("default", "c-a"), vol::pvc("default", "c-a", "v")), framework::QueueingHint::Queue);
  EXPECT_EQ(events[2].hint(pod, nullptr, vol::pvc("other-ns", "c-a")), framework::QueueingHint::Skip);
  EXPECT_EQ(events[2].hint(pod, nullptr, vol::pvc("default", "other")), framework::QueueingHint::Skip);
  EXPECT_EQ(events[3].hint(pod, vol::pv("v", {{kZone, "a"}}), vol::pv("v", {{kZone, "b"}})), framework::QueueingHint::Queue);
  EXPECT_EQ(events[3].hint(pod, vol::pv("v", {{kZone, "a"}}), vol::pv("v", {{kZone, "a"}, {"x", "y"}})),
            framework::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumezone
