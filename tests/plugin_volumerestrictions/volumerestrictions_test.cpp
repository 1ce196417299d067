#include "scheduler/plugins/volumerestrictions/volumerestrictions.h"

#include <gtest/gtest.h>

#include "scheduler_testing/volume_objects.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::volumerestrictions {
namespace {

using framework::Code;
using testing::FakeHandle;
using testing::MakeNode;
using testing::MakePod;
namespace vol = testing::volume;

api::Volume gce(std::string pd, bool ro) {
  api::Volume v;
  v.name = "gce";
  v.gcePersistentDisk.emplace();
  v.gcePersistentDisk->pdName = std::move(pd);
  v.gcePersistentDisk->readOnly = ro;
  return v;
}
api::Volume ebs(std::string id) {
  api::Volume v;
  v.name = "ebs";
  v.awsElasticBlockStore.emplace();
  v.awsElasticBlockStore->volumeID = std::move(id);
  v.awsElasticBlockStore->readOnly = true;  // EBS conflicts even when both are read-only
  return v;
}
api::Volume iscsi(std::string iqn, bool ro) {
  api::Volume v;
  v.name = "iscsi";
  v.iscsi.emplace();
  v.iscsi->iqn = std::move(iqn);
  v.iscsi->readOnly = ro;
  return v;
}
api::Volume rbd(std::vector<std::string> mons, std::string pool, std::string image, bool ro) {
  api::Volume v;
  v.name = "rbd";
  v.rbd.emplace();
  v.rbd->monitors = std::move(mons);
  v.rbd->pool = std::move(pool);
  v.rbd->image = std::move(image);
  v.rbd->readOnly = ro;
  return v;
}

TEST(VolumeRestrictions, InlineDiskConflicts) {
  struct Case {
    const char* name;
    api::Volume incoming;
    api::Volume existing;
    bool conflict;
  };
  const Case cases[] = {
      {"gce same disk rw", gce("foo", false), gce("foo", false), true},
      {"gce same disk one ro", gce("foo", true), gce("foo", false), true},
      {"gce same disk both ro", gce("foo", true), gce("foo", true), false},
      {"gce other disk", gce("foo", false), gce("bar", false), false},
      {"ebs same id (even ro)", ebs("vol-1"), ebs("vol-1"), true},
      {"ebs other id", ebs("vol-1"), ebs("vol-2"), false},
      {"iscsi same iqn", iscsi("iqn.a", false), iscsi("iqn.a", true), true},
      {"iscsi both ro", iscsi("iqn.a", true), iscsi("iqn.a", true), false},
      {"rbd overlap", rbd({"a", "b"}, "p", "img", false), rbd({"b", "c"}, "p", "img", false), true},
      {"rbd no monitor overlap", rbd({"a"}, "p", "img", false), rbd({"c"}, "p", "img", false), false},
      {"rbd other pool", rbd({"a"}, "p", "img", false), rbd({"a"}, "q", "img", false), false},
      {"rbd both ro", rbd({"a"}, "p", "img", true), rbd({"a"}, "p", "img", true), false},
      {"different kinds", gce("foo", false), ebs("foo"), false},
  };
  for (const auto& c : cases) {
    FakeHandle handle;
    VolumeRestrictions pl(handle);
    auto pod = MakePod().Name("p").Volume(c.incoming).Obj();
    framework::NodeInfo ni(MakeNode().Name("n").Ptr());
    ni.add_pod(MakePod().Name("e").Node("n").Volume(c.existing).Info());
    framework::CycleState state;
    framework::PreFilterResult r;
    ASSERT_TRUE(pl.pre_filter(state, pod, {}, r).is_success()) << c.name;
    auto s = pl.filter(state, pod, ni);
    if (c.conflict) {
      EXPECT_EQ(s.code(), Code::Unschedulable) << c.name;
      EXPECT_EQ(s.message(), "node(s) had no available disk") << c.name;
    } else {
      EXPECT_TRUE(s.is_success()) << c.name;
    }
  }
}

TEST(VolumeRestrictions, PreFilterSkipAndMissingClaim) {
  FakeHandle handle;
  VolumeRestrictions pl(handle);
  framework::CycleState state;
  framework::PreFilterResult r;
  EXPECT_TRUE(pl.pre_filter(state, MakePod().Name("p").Obj(), {}, r).is_skip());
  // A claim that does not exist: U&U with the lister's not-found text.
  auto s = pl.pre_filter(state, MakePod().Name("p").PVC("missing").Obj(), {}, r);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "persistentvolumeclaim \"missing\" not found");
  // A ReadWriteOnce claim nobody else uses: nothing to check.
  handle.fake_lister().add_pvc(vol::pvc("default", "rwo"));
  EXPECT_TRUE(pl.pre_filter(state, MakePod().Name("p").PVC("rwo").Obj(), {}, r).is_skip());
}

TEST(VolumeRestrictions, ReadWriteOncePod) {
  FakeHandle handle;
  handle.fake_lister().add_pvc(vol::pvc("default", "claim", "", std::nullopt, {"ReadWriteOncePod"}));
  auto user = MakePod().Name("user").Node("n1").PVC("claim").Obj();
  auto node1 = MakeNode().Name("n1").Obj();
  auto node2 = MakeNode().Name("n2").Obj();
  handle.set_snapshot(std::vector<api::Pod>{user}, std::vector<api::Node>{node1, node2});
  VolumeRestrictions pl(handle);

  auto pod = MakePod().Name("p").PVC("claim").Obj();
  framework::CycleState state;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl.pre_filter(state, pod, {}, r).is_success());
  // The conflict is cluster-wide: every node rejects, as Unschedulable so preemption can help.
  for (const auto& ni : handle.snapshot().list()) {
    auto s = pl.filter(state, pod, *ni);
    EXPECT_EQ(s.code(), Code::Unschedulable);
    EXPECT_EQ(s.message(),
              "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode");
  }
  // Removing the user (preemption dry run) clears the conflict; adding it back restores it.
  auto info = framework::PodInfo::make(std::make_shared<const api::Pod>(user));
  auto& n1 = *handle.snapshot().get("n1");
  ASSERT_TRUE(pl.remove_pod(state, pod, info, n1).is_success());
  EXPECT_TRUE(pl.filter(state, pod, n1).is_success());
  ASSERT_TRUE(pl.add_pod(state, pod, info, n1).is_success());
  EXPECT_EQ(pl.filter(state, pod, n1).code(), Code::Unschedulable);
}

TEST(VolumeRestrictions, Events) {
  FakeHandle handle;
  VolumeRestrictions pl(handle);
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::Pod);
  EXPECT_EQ(events[0].event.actionType, framework::kDelete);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::Node);
  EXPECT_EQ(events[1].event.actionType, framework::kAdd);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::PersistentVolumeClaim);
  EXPECT_EQ(events[2].event.actionType, framework::kAdd);

  const auto pod = MakePod().Name("p").Volume(gce("foo", false)).PVC("claim").Obj();
  EXPECT_EQ(events[0].hint(pod, MakePod().Name("e").Volume(gce("foo", false)).Ptr(), nullptr), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, MakePod().Name("e").PVC("claim").Ptr(), nullptr), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, MakePod().Name("e").Volume(gce("bar", false)).Ptr(), nullptr), framework::QueueingHint::Skip);
  EXPECT_EQ(events[2].hint(pod, nullptr, vol::pvc("default", "claim")), framework::QueueingHint::Queue);
  EXPECT_EQ(events[2].hint(pod, nullptr, vol::pvc("other", "claim")), framework::QueueingHint::Skip);
  EXPECT_EQ(events[2].hint(pod, nullptr, vol::pvc("default", "x")), framework::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumerestrictions
