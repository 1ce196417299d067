// Mirrors upstream topologyaware/topology_placement_test.go's GeneratePlacements cases (newest in
// the index): no constraint gives the parent placement back, one placement per value of the key
// (nodes without it in none), a group with members already placed stays in their domain, and
// members in two domains are an error.
#include "scheduler/plugins/topologyplacement/topologyplacement.h"

#include <gtest/gtest.h>

#include "api/scheduling.h"
#include "scheduler_testing/testing.h"
#include "scheduler_testing/workloads.h"

namespace ksched::scheduler::plugins::topologyplacement {
namespace {

using testing::MakeNode;

constexpr const char* kRack = "topology.kubernetes.io/rack";

struct Fixture {
  Fixture() {
    nodes = {MakeNode().Name("a1").Label(kRack, "rack-a").Obj(), MakeNode().Name("a2").Label(kRack, "rack-a").Obj(),
             MakeNode().Name("b1").Label(kRack, "rack-b").Obj(), MakeNode().Name("plain").Obj()};
    snapshot = std::make_unique<testing::FakeSnapshot>(std::vector<api::Pod>{}, nodes);
    root = framework::Placement("", snapshot->list());
  }
  framework::PodGroupInfo group(const std::string& key) {
    auto pg = std::make_shared<api::schedulingv1beta1::PodGroup>(*testing::MakePodGroup("pg", 2));
    if (!key.empty()) pg->spec.schedulingConstraints.emplace().topology.push_back({key, {}});
    framework::PodGroupInfo g;
    g.ns = "default";
    g.name = "pg";
    g.key = "default/pg";
    g.podGroup = pg;
    return g;
  }
  std::vector<api::Node> nodes;
  std::unique_ptr<testing::FakeSnapshot> snapshot;
  framework::Placement root;
};

std::vector<std::string> names(const framework::Placement& p) {
  std::vector<std::string> out;
  for (const auto& ni : p.nodes()) out.emplace_back(ni->name().view());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TopologyPlacement, NoTopologyConstraintGivesTheParentPlacement) {
  Fixture f;
  TopologyPlacement pl(*f.snapshot);
  std::vector<framework::Placement> out;
  ASSERT_TRUE(pl.generate_placements(f.group(""), f.root, out).is_success());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].nodes().size(), 4u);
  // The parent's list itself, not a copy (a tree's unconstrained groups cost no node list).
  EXPECT_TRUE(out[0].shares_nodes_with(f.root));
  // A workloadRef group (no PodGroup object) likewise.
  framework::PodGroupInfo no_object;
  out.clear();
  ASSERT_TRUE(pl.generate_placements(no_object, f.root, out).is_success());
  ASSERT_EQ(out.size(), 1u);
}

TEST(TopologyPlacement, OnePlacementPerDomainOfTheKey) {
  Fixture f;
  TopologyPlacement pl(*f.snapshot);
  std::vector<framework::Placement> out;
  ASSERT_TRUE(pl.generate_placements(f.group(kRack), f.root, out).is_success());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "rack-a");
  EXPECT_EQ(names(out[0]), (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(out[1].name, "rack-b");
  EXPECT_EQ(names(out[1]), (std::vector<std::string>{"b1"}));
  // A key no node has: no placement.
  out.clear();
  ASSERT_TRUE(pl.generate_placements(f.group("example.com/none"), f.root, out).is_success());
  EXPECT_TRUE(out.empty());
}

// ksched: a domain that holds every node of the parent shares the parent's list (no upstream
// counterpart; upstream copies the nodes into each placement).
TEST(TopologyPlacement, ADomainThatIsTheWholeParentSharesItsList) {
  Fixture f;
  TopologyPlacement pl(*f.snapshot);
  std::vector<framework::Placement> racks;
  ASSERT_TRUE(pl.generate_placements(f.group(kRack), f.root, racks).is_success());
  ASSERT_EQ(racks.size(), 2u);
  EXPECT_FALSE(racks[0].shares_nodes_with(f.root));
  // rack-a cut again by the rack: one placement, the same nodes, the same list.
  std::vector<framework::Placement> out;
  ASSERT_TRUE(pl.generate_placements(f.group(kRack), racks[0], out).is_success());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "rack-a");
  EXPECT_TRUE(out[0].shares_nodes_with(racks[0]));
  EXPECT_EQ(names(out[0]), (std::vector<std::string>{"a1", "a2"}));
  // Cut by a key that splits it: lists of its own.
  framework::Placement mixed("mixed", framework::Placement::NodeList{f.root.nodes()[0], f.root.nodes()[2]});
  out.clear();
  ASSERT_TRUE(pl.generate_placements(f.group(kRack), mixed, out).is_success());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FALSE(out[0].shares_nodes_with(mixed));
  EXPECT_FALSE(out[1].shares_nodes_with(mixed));
}

TEST(TopologyPlacement, MembersAlreadyPlacedKeepTheGroupInTheirDomain) {
  Fixture f;
  TopologyPlacement pl(*f.snapshot);
  auto g = f.group(kRack);
  g.scheduledNodes = {"b1"};
  std::vector<framework::Placement> out;
  ASSERT_TRUE(pl.generate_placements(g, f.root, out).is_success());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "rack-b");

  g.scheduledNodes = {"a1", "b1"};
  out.clear();
  framework::Status s = pl.generate_placements(g, f.root, out);
  EXPECT_TRUE(s.is_error());
  EXPECT_EQ(s.message(),
            "cannot determine domain for already scheduled pods: more than 1 domain found for pod group: rack-a, rack-b");

  g.scheduledNodes = {"plain"};
  EXPECT_TRUE(pl.generate_placements(g, f.root, out).is_error());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::topologyplacement
