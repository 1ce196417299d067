#include "scheduler/cache/cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "scheduler_testing/testing.h"

namespace ksched::scheduler::cache {
namespace {
using scheduler::testing::MakeNode;
using scheduler::testing::MakePod;
using namespace std::chrono_literals;

framework::NodePtr node(const std::string& name, const std::string& zone = {}, const std::string& region = {}) {
  auto b = MakeNode().Name(name).Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}});
  if (!zone.empty() || !region.empty()) b.Zone(zone, region);
  return b.Ptr();
}

TEST(NodeTree, ZoneRoundRobinAndKeys) {
  EXPECT_EQ(zone_key(MakeNode().Name("a").Obj()), "");
  EXPECT_EQ(zone_key(MakeNode().Name("a").Zone("z1", "r1").Obj()), std::string("r1:\0:z1", 7));
  EXPECT_EQ(zone_key(MakeNode()
                         .Name("a")
                         .Label("failure-domain.beta.kubernetes.io/zone", "old")
                         .Label("topology.kubernetes.io/region", "r")
                         .Obj()),
            std::string("r:\0:old", 7));

  NodeTree t;
  t.add_node(*node("a1", "a"));
  t.add_node(*node("b1", "b"));
  t.add_node(*node("a2", "a"));
  t.add_node(*node("a3", "a"));
  t.add_node(*node("c1", "c"));
  t.add_node(*node("b2", "b"));
  t.add_node(*node("a1", "a"));  // duplicate ignored
  EXPECT_EQ(t.num_nodes(), 6);
  EXPECT_EQ(t.list(), (std::vector<std::string>{"a1", "b1", "c1", "a2", "b2", "a3"}));
  ASSERT_TRUE(t.remove_node(*node("c1", "c")).ok());
  EXPECT_EQ(t.zones().size(), 2u);
  EXPECT_FALSE(t.remove_node(*node("c1", "c")).ok());
  t.update_node(node("b2", "b").get(), *node("b2", "c"));
  EXPECT_EQ(t.list(), (std::vector<std::string>{"a1", "b1", "b2", "a2", "a3"}));
  t.add_node(*node("c1", "c"));  // removed before: added again
  t.add_node(*node("b2", "c"));  // already there
  EXPECT_EQ(t.num_nodes(), 6);
  EXPECT_EQ(t.list(), (std::vector<std::string>{"a1", "b1", "b2", "a2", "c1", "a3"}));
}

TEST(Cache, AssumeFinishBindingAndExpire) {
  util::FakeClock clock;
  Cache c(30s, clock);
  c.add_node(node("n1"));
  auto pod = MakePod().Name("p").UID("u1").Node("n1").Req({{"cpu", "1"}}).Ptr();
  ASSERT_TRUE(c.assume_pod(pod).ok());
  EXPECT_TRUE(c.is_assumed_pod(*pod));
  EXPECT_EQ(c.assume_pod(pod).error(), "pod u1(default/p) is in the cache, so can't be assumed");
  EXPECT_EQ(c.dump().nodes.at("n1")->requested.milliCPU, 1000);

  // Not expired while binding is in progress, whatever the clock says.
  clock.step(1h);
  c.cleanup_expired_assumed_pods();
  EXPECT_TRUE(c.is_assumed_pod(*pod));

  ASSERT_TRUE(c.finish_binding(*pod).ok());
  clock.step(29s);
  c.cleanup_expired_assumed_pods();
  EXPECT_TRUE(c.is_assumed_pod(*pod));
  clock.step(2s);
  c.cleanup_expired_assumed_pods();
  EXPECT_FALSE(c.is_assumed_pod(*pod));
  EXPECT_EQ(c.pod_count(), 0);
  EXPECT_EQ(c.dump().nodes.at("n1")->requested.milliCPU, 0);

  // The informer Add after expiry adds it back as a bound pod.
  ASSERT_TRUE(c.add_pod(pod).ok());
  EXPECT_FALSE(c.is_assumed_pod(*pod));
  EXPECT_EQ(c.pod_count(), 1);
  EXPECT_EQ(c.add_pod(pod).error(), "pod u1(default/p) was already in added state");
}

TEST(Cache, ZeroTtlNeverExpires) {
  util::FakeClock clock;
  Cache c(0s, clock);
  auto pod = MakePod().Name("p").UID("u1").Node("n1").Ptr();
  ASSERT_TRUE(c.assume_pod(pod).ok());
  ASSERT_TRUE(c.finish_binding(*pod).ok());
  clock.step(24h);
  c.cleanup_expired_assumed_pods();
  EXPECT_TRUE(c.is_assumed_pod(*pod));
}

TEST(Cache, ForgetOnlyAssumed) {
  Cache c;
  auto pod = MakePod().Name("p").UID("u1").Node("n1").Ptr();
  EXPECT_EQ(c.forget_pod(*pod).error(), "pod u1(default/p) wasn't assumed so cannot be forgotten");
  ASSERT_TRUE(c.assume_pod(pod).ok());
  auto elsewhere = MakePod().Name("p").UID("u1").Node("n2").Obj();
  EXPECT_EQ(c.forget_pod(elsewhere).error(), "pod u1(default/p) was assumed on n2 but assigned to n1");
  ASSERT_TRUE(c.forget_pod(*pod).ok());
  EXPECT_EQ(c.pod_count(), 0);
  EXPECT_TRUE(c.dump().nodes.empty());  // node-less NodeInfo without pods is dropped
  auto added = MakePod().Name("q").UID("u2").Node("n1").Ptr();
  ASSERT_TRUE(c.add_pod(added).ok());
  EXPECT_FALSE(c.forget_pod(*added).ok());
  EXPECT_EQ(c.assume_pod(MakePod().Name("x").UID("").Node("n1").Ptr()).error(),
            "cannot get cache key for pod with empty UID");
}

TEST(Cache, AddConfirmsAssumedAndRelocates) {
  Cache c;
  c.add_node(node("n1"));
  c.add_node(node("n2"));
  auto assumed = MakePod().Name("p").UID("u1").Node("n1").Req({{"cpu", "1"}}).Ptr();
  ASSERT_TRUE(c.assume_pod(assumed).ok());
  ASSERT_TRUE(c.assume_pod(MakePod().Name("q").UID("u2").Node("n1").Ptr()).ok());
  EXPECT_EQ(c.assumed_pod_count(), 2);
  EXPECT_EQ(c.dump().assumedPods, (std::set<std::string>{"u1", "u2"}));
  auto bound = MakePod().Name("p").UID("u1").Node("n2").Req({{"cpu", "1"}}).Ptr();
  ASSERT_TRUE(c.add_pod(bound).ok());
  EXPECT_FALSE(c.is_assumed_pod(*bound));
  EXPECT_EQ(c.assumed_pod_count(), 1);  // the confirmed one is no longer counted
  auto d = c.dump();
  EXPECT_EQ(d.assumedPods, (std::set<std::string>{"u2"}));
  EXPECT_EQ(d.nodes.at("n1")->requested.milliCPU, 0);
  EXPECT_EQ(d.nodes.at("n2")->requested.milliCPU, 1000);
  EXPECT_EQ(c.get_pod(*bound).value()->spec.nodeName, "n2");
}

TEST(Cache, UpdateAndRemovePod) {
  Cache c;
  c.add_node(node("n1"));
  auto v1 = MakePod().Name("p").UID("u1").Node("n1").Req({{"cpu", "1"}}).Ptr();
  auto v2 = MakePod().Name("p").UID("u1").Node("n1").Req({{"cpu", "2"}}).Label("x", "y").Ptr();
  EXPECT_EQ(c.update_pod(v1, v2).error(), "pod u1(default/p) is not added to scheduler cache, so cannot be updated");
  ASSERT_TRUE(c.assume_pod(v1).ok());
  EXPECT_EQ(c.update_pod(v1, v2).error(), "assumed pod u1(default/p) should not be updated");
  ASSERT_TRUE(c.add_pod(v1).ok());
  ASSERT_TRUE(c.update_pod(v1, v2).ok());
  EXPECT_EQ(c.dump().nodes.at("n1")->requested.milliCPU, 2000);
  EXPECT_EQ(c.get_pod(*v1).value()->metadata.labels.get("x"), "y");
  auto moved = MakePod().Name("p").UID("u1").Node("n9").Ptr();
  EXPECT_FALSE(c.update_pod(v2, moved).ok());
  ASSERT_TRUE(c.remove_pod(*v2).ok());
  EXPECT_EQ(c.pod_count(), 0);
  EXPECT_EQ(c.remove_pod(*v2).error(),
            "pod u1(default/p) is not found in scheduler cache, so cannot be removed from it");
}

TEST(Cache, RemoveNodeKeepsNodeInfoWhilePodsRemain) {
  Cache c;
  auto n1 = MakeNode().Name("n1").Capacity({{"cpu", "4"}}).Image("nginx:1", 100).Ptr();
  auto n2 = MakeNode().Name("n2").Capacity({{"cpu", "4"}}).Image("nginx:1", 100).Image("redis", 50).Ptr();
  c.add_node(n1);
  auto ni2 = c.add_node(n2);
  EXPECT_EQ(ni2->imageStates.find("nginx:1")->numNodes, 2);
  EXPECT_EQ(c.image_states().at("nginx:1").numNodes, 2);
  auto pod = MakePod().Name("p").UID("u1").Node("n1").Ptr();
  ASSERT_TRUE(c.add_pod(pod).ok());

  ASSERT_TRUE(c.remove_node(*n1).ok());
  EXPECT_EQ(c.node_count(), 1);
  EXPECT_EQ(c.image_states().at("nginx:1").numNodes, 1);
  auto d = c.dump();
  ASSERT_TRUE(d.nodes.count("n1"));
  EXPECT_EQ(d.nodes.at("n1")->node(), nullptr);
  EXPECT_EQ(d.nodes.at("n1")->pods.size(), 1u);

  Snapshot s;
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_EQ(s.list().size(), 1u);
  EXPECT_EQ(s.get("n1"), nullptr);

  ASSERT_TRUE(c.remove_pod(*pod).ok());
  EXPECT_FALSE(c.dump().nodes.count("n1"));
  EXPECT_EQ(c.remove_node(*n1).error(), "node n1 is not found");
  ASSERT_TRUE(c.remove_node(*n2).ok());
  EXPECT_TRUE(c.image_states().empty());
}

// Pods with affinity come and go on many nodes between updates (no node added or removed): the
// incrementally kept affinity lists hold the same nodes as a snapshot built from scratch.
TEST(Cache, SnapshotAffinityListsFollowPodsWithoutRebuilds) {
  Cache c;
  for (int i = 0; i < 20; ++i) c.add_node(node("n" + std::to_string(i), "z" + std::to_string(i % 3)));
  Snapshot s;
  ASSERT_TRUE(c.update_snapshot(s).ok());
  std::mt19937 rng(7);
  std::vector<framework::PodPtr> placed;
  auto names = [](const std::vector<framework::NodeInfoPtr>& list) {
    std::vector<std::string> out;
    for (const auto& ni : list) out.emplace_back(ni->name());
    std::sort(out.begin(), out.end());
    return out;
  };
  for (int round = 0; round < 60; ++round) {
    // A few changes per update: add a pod (with affinity, required anti-affinity or neither) or
    // remove one.
    for (int k = 0; k < 1 + round % 3; ++k) {
      if (!placed.empty() && rng() % 3 == 0) {
        auto it = placed.begin() + static_cast<std::ptrdiff_t>(rng() % placed.size());
        ASSERT_TRUE(c.remove_pod(**it).ok());
        placed.erase(it);
        continue;
      }
      auto w = MakePod()
                   .Name("p" + std::to_string(round) + "-" + std::to_string(k))
                   .UID("u" + std::to_string(round) + "-" + std::to_string(k))
                   .Node("n" + std::to_string(rng() % 20));
      switch (rng() % 3) {
        case 0: w.PodAffinityExists("app", "zone", scheduler::testing::AffinityKind::Preferred); break;
        case 1: w.PodAntiAffinityExists("app", "zone", scheduler::testing::AffinityKind::Required); break;
        default: break;
      }
      auto pod = w.Ptr();
      ASSERT_TRUE(c.add_pod(pod).ok());
      placed.push_back(pod);
    }
    ASSERT_TRUE(c.update_snapshot(s).ok());
    Snapshot fresh;
    ASSERT_TRUE(c.update_snapshot(fresh).ok());
    ASSERT_EQ(names(s.have_pods_with_affinity_list()), names(fresh.have_pods_with_affinity_list())) << round;
    ASSERT_EQ(names(s.have_pods_with_required_anti_affinity_list()),
              names(fresh.have_pods_with_required_anti_affinity_list()))
        << round;
    // The listed NodeInfos are the snapshot's own objects.
    for (const auto& ni : s.have_pods_with_affinity_list()) EXPECT_EQ(ni, s.get(ni->name()));
  }
}

TEST(Cache, SnapshotIncrementalUpdatesKeepIdentity) {
  Cache c;
  c.add_node(node("a1", "a"));
  c.add_node(node("b1", "b"));
  c.add_node(node("a2", "a"));
  Snapshot s;
  ASSERT_TRUE(c.update_snapshot(s).ok());
  ASSERT_EQ(s.list().size(), 3u);
  EXPECT_EQ(s.list()[0]->name(), "a1");
  EXPECT_EQ(s.list()[1]->name(), "b1");
  EXPECT_EQ(s.list()[2]->name(), "a2");
  auto a2_ptr = s.get("a2");
  auto gen = s.generation();

  // No change: nothing copied, generation stays.
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_EQ(s.generation(), gen);

  // A pod with anti-affinity and a PVC lands on a2: same object updated, lists rebuilt.
  auto pod = MakePod()
                 .Name("p")
                 .UID("u1")
                 .Node("a2")
                 .Req({{"cpu", "1"}})
                 .PVC("data")
                 .PodAntiAffinityExists("app", "zone", scheduler::testing::AffinityKind::Required)
                 .Ptr();
  ASSERT_TRUE(c.add_pod(pod).ok());
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_GT(s.generation(), gen);
  EXPECT_EQ(s.get("a2"), a2_ptr);
  EXPECT_EQ(a2_ptr->requested.milliCPU, 1000);
  ASSERT_EQ(s.have_pods_with_affinity_list().size(), 1u);
  EXPECT_EQ(s.have_pods_with_affinity_list()[0], a2_ptr);
  EXPECT_EQ(s.have_pods_with_required_anti_affinity_list().size(), 1u);
  EXPECT_TRUE(s.is_pvc_used_by_pods("default/data"));

  // Changing the cache does not change the snapshot until the next update.
  ASSERT_TRUE(c.remove_pod(*pod).ok());
  EXPECT_EQ(a2_ptr->requested.milliCPU, 1000);
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_EQ(a2_ptr->requested.milliCPU, 0);
  EXPECT_TRUE(s.have_pods_with_affinity_list().empty());
  EXPECT_FALSE(s.is_pvc_used_by_pods("default/data"));

  // Node added and removed.
  c.add_node(node("c1", "c"));
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_EQ(s.list().size(), 4u);
  EXPECT_EQ(s.list()[2]->name(), "c1");  // a1, b1, c1, a2
  ASSERT_TRUE(c.remove_node(*node("b1", "b")).ok());
  ASSERT_TRUE(c.update_snapshot(s).ok());
  ASSERT_EQ(s.list().size(), 3u);
  EXPECT_EQ(s.get("b1"), nullptr);
  EXPECT_EQ(s.list()[0]->name(), "a1");
  EXPECT_EQ(s.list()[1]->name(), "c1");
  EXPECT_EQ(s.list()[2]->name(), "a2");
}

// Each node knows its place in the snapshot's list across in-place updates, and the snapshot
// says whether its hostnames are unique, so that counts by hostname can be kept by position.
TEST(Cache, SnapshotPositionsAndUniqueHostnames) {
  auto host = [](const std::string& name, const std::string& hostname) {
    return MakeNode().Name(name).Label("kubernetes.io/hostname", hostname).Ptr();
  };
  auto positions_match = [](const Snapshot& s) {
    for (std::size_t i = 0; i < s.list().size(); ++i) {
      if (s.list()[i]->list_position() != i) return false;
    }
    return true;
  };
  Cache c;
  c.add_node(host("n1", "h1"));
  c.add_node(host("n2", "h2"));
  c.add_node(node("unlabelled"));
  Snapshot s;
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_TRUE(positions_match(s));
  EXPECT_TRUE(s.hostnames_by_position());

  // A pod lands: the node's copy in place keeps its position.
  const auto n2 = s.get("n2");
  ASSERT_TRUE(c.add_pod(MakePod().Name("p").UID("u1").Node("n2").Ptr()).ok());
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_EQ(s.get("n2"), n2);
  EXPECT_TRUE(positions_match(s));

  // Relabelled to share a hostname, then back.
  c.update_node(host("n2", "h2"), host("n2", "h1"));
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_FALSE(s.hostnames_by_position());
  EXPECT_TRUE(positions_match(s));
  c.update_node(host("n2", "h1"), host("n2", "h2"));
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_TRUE(s.hostnames_by_position());

  // A new node with a taken hostname; removing it restores uniqueness. Positions follow the list.
  c.add_node(host("n3", "h2"));
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_FALSE(s.hostnames_by_position());
  EXPECT_TRUE(positions_match(s));
  ASSERT_TRUE(c.remove_node(*host("n3", "h2")).ok());
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_TRUE(s.hostnames_by_position());
  EXPECT_TRUE(positions_match(s));
  // A snapshot without history never promises it.
  Snapshot plain({}, {host("a", "h"), host("b", "h2")});
  EXPECT_FALSE(plain.hostnames_by_position());
}

TEST(Cache, SnapshotTellsWhichNodesChangedSinceAVersion) {
  Cache c;
  c.add_node(node("a1", "a"));
  c.add_node(node("b1", "b"));
  c.add_node(node("a2", "a"));
  Snapshot s;
  ASSERT_TRUE(c.update_snapshot(s).ok());
  const auto v0 = s.version();
  std::vector<const framework::NodeInfo*> changed;
  ASSERT_TRUE(s.changed_since(v0, changed));
  EXPECT_TRUE(changed.empty());

  // Pods only: each update is a step; a version answers with every node changed since.
  auto p1 = MakePod().Name("p1").UID("u1").Node("a1").Req({{"cpu", "1"}}).Ptr();
  ASSERT_TRUE(c.add_pod(p1).ok());
  ASSERT_TRUE(c.update_snapshot(s).ok());
  const auto v1 = s.version();
  EXPECT_NE(v1, v0);
  ASSERT_TRUE(s.changed_since(v0, changed));
  EXPECT_EQ(changed, (std::vector<const framework::NodeInfo*>{s.get("a1").get()}));
  ASSERT_TRUE(c.add_pod(MakePod().Name("p2").UID("u2").Node("b1").Ptr()).ok());
  ASSERT_TRUE(c.remove_pod(*p1).ok());
  ASSERT_TRUE(c.update_snapshot(s).ok());
  ASSERT_TRUE(s.changed_since(v1, changed));
  std::vector<const framework::NodeInfo*> want{s.get("a1").get(), s.get("b1").get()};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(changed, want);
  ASSERT_TRUE(s.changed_since(v0, changed));
  EXPECT_EQ(changed, want);  // a1 once, though it changed in both steps

  // Another snapshot's version, or one it never had, is not answered.
  Snapshot other;
  ASSERT_TRUE(c.update_snapshot(other).ok());
  EXPECT_FALSE(s.changed_since(other.version(), changed));
  EXPECT_FALSE(s.changed_since({v0.lister, s.version().generation + 1}, changed));
  EXPECT_FALSE(s.changed_since({v0.lister, v0.generation - 1}, changed));

  // A structural change (a node added) forgets every earlier version.
  const auto before_node = s.version();
  c.add_node(node("c1", "c"));
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_FALSE(s.changed_since(before_node, changed));
  EXPECT_FALSE(s.changed_since(v0, changed));
  ASSERT_TRUE(s.changed_since(s.version(), changed));
  EXPECT_TRUE(changed.empty());

  // So does a node object replaced (its labels may have changed).
  const auto before_replace = s.version();
  auto old_c1 = s.get("c1")->node_ptr();
  c.update_node(old_c1, MakeNode().Name("c1").Zone("c").Label("disk", "ssd").Ptr());
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_FALSE(s.changed_since(before_replace, changed));

  // History is bounded: the oldest versions are dropped.
  const auto start = s.version();
  for (int i = 0; i < 80; ++i) {
    ASSERT_TRUE(c.add_pod(MakePod().Name("h" + std::to_string(i)).UID("h" + std::to_string(i)).Node("a2").Ptr()).ok());
    ASSERT_TRUE(c.update_snapshot(s).ok());
  }
  EXPECT_FALSE(s.changed_since(start, changed));

  // A snapshot built from objects keeps no history.
  Snapshot built({}, {MakeNode().Name("n1").Ptr()});
  EXPECT_FALSE(built.changed_since(built.version(), changed));
}

TEST(Cache, SnapshotImageNumNodesCurrentWhenCopied) {
  Cache c;
  c.add_node(MakeNode().Name("n1").Image("img", 10).Ptr());
  c.add_node(MakeNode().Name("n2").Image("img", 10).Ptr());
  Snapshot s;
  ASSERT_TRUE(c.update_snapshot(s).ok());
  // n1 was added when only it had the image; the snapshot copy sees both nodes.
  EXPECT_EQ(s.get("n1")->imageStates.find("img")->numNodes, 2);
  EXPECT_EQ(s.get("n2")->imageStates.find("img")->numNodes, 2);
}

TEST(Cache, UpdateNodeMovesZoneAndRefreshesAllocatable) {
  Cache c;
  auto old_n = node("n1", "a");
  c.add_node(old_n);
  c.add_node(node("n2", "b"));
  auto new_n = MakeNode().Name("n1").Zone("b").Capacity({{"cpu", "8"}}).Ptr();
  auto ni = c.update_node(old_n, new_n);
  EXPECT_EQ(ni->allocatable.milliCPU, 8000);
  EXPECT_EQ(c.node_tree_order(), (std::vector<std::string>{"n2", "n1"}));
  Snapshot s;
  ASSERT_TRUE(c.update_snapshot(s).ok());
  EXPECT_EQ(s.get("n1")->allocatable.milliCPU, 8000);
}

TEST(Snapshot, FromPodsAndNodes) {
  Snapshot s({MakePod().Name("p").UID("p").Node("n1").PVC("c").Ptr(),
              MakePod().Name("q").UID("q").Node("gone").Ptr()},
             {MakeNode().Name("n1").Image("img", 10).Ptr(), MakeNode().Name("n2").Image("img", 10).Ptr()});
  ASSERT_EQ(s.list().size(), 2u);
  EXPECT_EQ(s.get("n1")->pods.size(), 1u);
  EXPECT_EQ(s.get("n2")->imageStates.find("img")->numNodes, 2);
  EXPECT_TRUE(s.is_pvc_used_by_pods("default/c"));
  EXPECT_NE(s.get("gone"), nullptr);
}

TEST(Cache, DumpString) {
  Cache c;
  c.add_node(node("n1"));
  ASSERT_TRUE(c.assume_pod(MakePod().Name("p").UID("u1").Node("n1").Ptr()).ok());
  auto s = c.dump_string();
  EXPECT_NE(s.find("Node name: n1"), std::string::npos);
  EXPECT_NE(s.find("name: p, namespace: default, uid: u1, phase: , assumed"), std::string::npos);
}

TEST(Cache, ConcurrentHandlersAndSnapshots) {
  Cache c;
  for (int i = 0; i < 20; ++i) c.add_node(node("n" + std::to_string(i), "z" + std::to_string(i % 3)));
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < 500; ++i) {
      auto p = MakePod().Name("p" + std::to_string(i)).Node("n" + std::to_string(i % 20)).Req({{"cpu", "1m"}}).Ptr();
      ASSERT_TRUE(c.add_pod(p).ok());
      if (i % 2) {
        ASSERT_TRUE(c.remove_pod(*p).ok());
      }
    }
    done = true;
  });
  Snapshot s;
  while (!done) ASSERT_TRUE(c.update_snapshot(s).ok());
  writer.join();
  ASSERT_TRUE(c.update_snapshot(s).ok());
  std::int64_t total = 0;
  for (const auto& ni : s.list()) total += ni->requested.milliCPU;
  EXPECT_EQ(total, 250);
}

}  // namespace
}  // namespace ksched::scheduler::cache
