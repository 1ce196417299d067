#include "scheduler/framework/topology_counts.h"

#include <gtest/gtest.h>

#include <map>

#include "scheduler/cache/cache.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::framework {
namespace {
using testing::MakeNode;
using testing::MakePod;

constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kHost = "kubernetes.io/hostname";

api::Node zoned_node(const std::string& name, const std::string& zone) {
  return MakeNode().Name(name).Label(kHost, name).Label(kZone, zone).Obj();
}

TEST(TopologyCounts, CountsManyValuesAndReadsZeroForWhatWasNeverAdded) {
  // Values are views: keep the strings alive for the counts' lifetime.
  std::vector<std::string> values;
  for (int i = 0; i < 300; ++i) values.push_back("v" + std::to_string(i));
  TopologyCounts c;
  for (int i = 0; i < 300; ++i) c.add("k", values[i], i + 1);
  c.add("k", values[7], 5);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(c.get("k", values[i]), i + 1 + (i == 7 ? 5 : 0)) << i;
  EXPECT_EQ(c.get("k", "v300"), 0);
  EXPECT_EQ(c.get("other", "v1"), 0);
  EXPECT_EQ(c.get("k", ""), 0);
  EXPECT_FALSE(c.empty());
}

// Probing compares tags, then the text: a value reads the same through a copy held elsewhere,
// across many growths of the table, and for_each visits each counted value once.
TEST(TopologyCounts, FindsAValueByItsTextWhereverItIsHeld) {
  std::vector<std::string> values;
  for (int i = 0; i < 5000; ++i) values.push_back("node-" + std::to_string(i));
  TopologyCounts c;
  for (int i = 0; i < 5000; ++i) c.add(kHost, values[i], (i % 3) + 1);
  std::int64_t total = 0;
  std::size_t visited = 0;
  c.for_each(c.find_key(kHost), [&](std::string_view, std::int64_t n) {
    total += n;
    ++visited;
  });
  EXPECT_EQ(visited, 5000u);
  std::int64_t expected = 0;
  for (int i = 0; i < 5000; ++i) {
    const std::string copy = "node-" + std::to_string(i);  // another buffer, same text
    ASSERT_EQ(c.get(kHost, copy), (i % 3) + 1) << copy;
    expected += (i % 3) + 1;
  }
  EXPECT_EQ(total, expected);
  EXPECT_EQ(c.get(kHost, "node-5000"), 0);
  EXPECT_EQ(c.size(c.find_key(kHost)), 5000u);
}

TEST(TopologyCounts, ACountBackToZeroReadsAsAbsent) {
  TopologyCounts c;
  EXPECT_TRUE(c.empty());
  c.add("k", "a", 2);
  c.add("k", "a", -2);
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.get("k", "a"), 0);
  NodeInfo n(MakeNode().Name("n").Label("k", "a").Ptr());
  EXPECT_FALSE(c.any_positive_for(n));
  EXPECT_EQ(c.sum_for(n), 0);
  // An empty label value is a value like any other.
  c.add("k", "", 1);
  EXPECT_FALSE(c.empty());
  EXPECT_EQ(c.get("k", ""), 1);
}

TEST(TopologyCounts, SumsAndTestsByTheNodesLabels) {
  NodeInfo n1(std::make_shared<api::Node>(zoned_node("n1", "z1")));
  NodeInfo bare(MakeNode().Name("bare").Ptr());
  TopologyCounts c;
  c.add(kZone, "z1", 3);
  c.add(kHost, "n1", -1);
  c.add(kHost, "n2", 4);
  EXPECT_EQ(c.sum_for(n1), 2);
  EXPECT_TRUE(c.any_positive_for(n1));
  EXPECT_EQ(c.sum_for(bare), 0);  // a node lacking every key adds nothing
  EXPECT_FALSE(c.any_positive_for(bare));
  c.add(kZone, "z1", -3);
  // Only the negative hostname count is left for n1.
  EXPECT_EQ(c.sum_for(n1), -1);
  EXPECT_FALSE(c.any_positive_for(n1));
}

// The hostname key is read from the NodeInfo's copy of the label: by the label's value (not the
// node's name), an empty value counting like any other, and a node without the label adding nothing.
TEST(TopologyCounts, HostnameDomainsFollowTheLabelNotTheName) {
  NodeInfo renamed(MakeNode().Name("n1").Label(kHost, "host-a").Ptr());
  NodeInfo empty(MakeNode().Name("n2").Label(kHost, "").Ptr());
  NodeInfo unlabelled(MakeNode().Name("n3").Ptr());
  EXPECT_EQ(renamed.hostname_label(), "host-a");
  EXPECT_NE(empty.hostname_label().data(), nullptr);
  EXPECT_EQ(unlabelled.hostname_label().data(), nullptr);
  TopologyCounts c;
  c.add(kHost, "n1", 5);
  EXPECT_EQ(c.sum_for(renamed), 0);
  c.add(kHost, "host-a", 2);
  c.add(kHost, "", 3);
  EXPECT_EQ(c.sum_for(renamed), 2);
  EXPECT_TRUE(c.any_positive_for(renamed));
  EXPECT_EQ(c.sum_for(empty), 3);
  EXPECT_EQ(c.sum_for(unlabelled), 0);
  EXPECT_FALSE(c.any_positive_for(unlabelled));
  // The view follows the node object it was taken from.
  renamed.set_node(MakeNode().Name("n1").Label(kHost, "n1").Ptr());
  EXPECT_EQ(c.sum_for(renamed), 5);
  renamed.remove_node();
  EXPECT_EQ(renamed.hostname_label().data(), nullptr);
}

// Counts kept by position are read by the node's list position while every hostname count
// names its own node; any other hostname count drops them and the table answers again.
TEST(TopologyCounts, HostnameCountsByPositionHoldWhileEachNamesItsOwnNode) {
  NodeInfo a(MakeNode().Name("a").Label(kHost, "a").Ptr());
  NodeInfo b(MakeNode().Name("b").Label(kHost, "b").Ptr());
  a.set_list_position(0);
  b.set_list_position(1);
  // A node claiming a's hostname at another position: the lister's promise of unique hostnames
  // broken on purpose, to tell which of the two answers is read.
  NodeInfo twin(MakeNode().Name("twin").Label(kHost, "a").Ptr());
  twin.set_list_position(2);
  TopologyCounts c;
  c.track_positions(3);
  const std::uint32_t host = c.key_index(kHost);
  c.add_from(host, a.hostname_label(), 2, a);
  EXPECT_TRUE(c.any_positive_for(a));
  EXPECT_EQ(c.sum_for(a), 2);
  EXPECT_FALSE(c.any_positive_for(b));
  EXPECT_FALSE(c.any_positive_for(twin));  // read by position
  EXPECT_EQ(c.get(kHost, "a"), 2);         // the table holds the same count
  ASSERT_TRUE(c.answers_by_position());
  EXPECT_TRUE(c.any_positive_at(0));
  EXPECT_FALSE(c.any_positive_at(1));
  EXPECT_FALSE(c.any_positive_at(7));  // past the list
  // A count in another domain: a node's answer needs its labels again.
  TopologyCounts zoned = c;
  zoned.add(kZone, "z1", 1);
  EXPECT_FALSE(zoned.answers_by_position());
  c.add_from(host, a.hostname_label(), -2, a);
  EXPECT_FALSE(c.any_positive_for(a));
  EXPECT_TRUE(c.empty());

  // A count that does not name its own node (b adding for "a") drops the positions.
  c.add_from(host, a.hostname_label(), 1, b);
  EXPECT_FALSE(c.answers_by_position());
  EXPECT_TRUE(c.any_positive_for(a));
  EXPECT_TRUE(c.any_positive_for(twin));  // the table answers
  EXPECT_FALSE(c.any_positive_for(b));

  // So does a count without a node.
  TopologyCounts d;
  d.track_positions(3);
  d.add_from(d.key_index(kHost), a.hostname_label(), 1, a);
  d.add(kHost, "b", 1);
  EXPECT_TRUE(d.any_positive_for(twin));
  EXPECT_TRUE(d.any_positive_for(b));
  // A node outside the positions kept is read from the table too.
  TopologyCounts e;
  e.track_positions(3);
  e.add_from(e.key_index(kHost), a.hostname_label(), 1, a);
  NodeInfo unplaced(MakeNode().Name("x").Label(kHost, "a").Ptr());
  EXPECT_TRUE(e.any_positive_for(unplaced));
}

TEST(TopologyCounts, ACopyChangesIndependently) {
  TopologyCounts a;
  a.add("k", "x", 1);
  TopologyCounts b = a;
  b.add("k", "x", 1);
  b.add("k2", "y", 1);
  EXPECT_EQ(a.get("k", "x"), 1);
  EXPECT_EQ(a.get("k2", "y"), 0);
  EXPECT_EQ(b.get("k", "x"), 2);
}

// A cache of per-zone counts of the pods labelled app=web, over a snapshot a real cache updates.
class CountsCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [n, z] : std::vector<std::pair<std::string, std::string>>{{"n1", "z1"}, {"n2", "z1"}, {"n3", "z2"}}) {
      nodes[n] = std::make_shared<const api::Node>(zoned_node(n, z));
      cache.add_node(nodes[n]);
    }
    ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  }
  void add_pod(const std::string& name, const std::string& node, const std::string& app) {
    auto p = std::make_shared<const api::Pod>(MakePod().Name(name).Label("app", app).Node(node).Obj());
    ASSERT_TRUE(cache.add_pod(p).ok());
    pods[name] = p;
  }
  std::shared_ptr<const TopologyCounts> get(TopologyCountsCache& c, const std::string& key,
                                            const std::vector<NodeInfoPtr>& list) {
    return c.get(key, snap, list, parallelizer, count_web);
  }
  std::int64_t zone(const std::shared_ptr<const TopologyCounts>& c, const char* z) { return c->get(kZone, z); }

  // Counts the node's app=web pods under its value for `key` (which must outlive the function).
  static TopologyCountsCache::NodeFn web_counter(const std::string& key) {
    return [&key](const NodeInfo& ni, std::vector<TopologyCountsCache::Contribution>& out) {
      std::int64_t n = 0;
      for (const auto& pi : ni.pods) {
        const auto* app = pi->pod->metadata.labels.find("app");
        if (app != nullptr && *app == "web") ++n;
      }
      const auto* v = ni.node()->metadata.labels.find(key);
      if (n > 0 && v != nullptr) out.push_back({&key, *v, n});
    };
  }
  const std::string zone_key = kZone;
  TopologyCountsCache::NodeFn count_web = web_counter(zone_key);
  cache::Cache cache;
  testing::FakeSnapshot snap;
  testing::InlineParallelizer parallelizer;
  std::map<std::string, PodPtr> pods;
  std::map<std::string, NodePtr> nodes;
};

// Counts by hostname over a snapshot with unique hostnames are kept by position too; they stay
// right as pods come and go on the nodes, through the cache's updates.
TEST_F(CountsCacheTest, HostnameCountsStayRightThroughUpdates) {
  ASSERT_TRUE(snap.hostnames_by_position());
  const std::string host_key = kHost;
  const TopologyCountsCache::NodeFn web_by_host = web_counter(host_key);
  TopologyCountsCache c;
  auto positive = [&]() {
    auto counts = c.get("web", snap, snap.list(), parallelizer, web_by_host);
    std::string out;
    for (const auto& ni : snap.list()) {
      if (counts->any_positive_for(*ni)) out += std::string(ni->name_view()) + "=" + std::to_string(counts->sum_for(*ni)) + " ";
    }
    return out;
  };
  EXPECT_EQ(positive(), "");
  add_pod("a", "n1", "web");
  add_pod("b", "n3", "web");
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  EXPECT_EQ(positive(), "n1=1 n3=1 ");
  add_pod("c", "n3", "web");
  add_pod("d", "n2", "db");
  ASSERT_TRUE(cache.remove_pod(*pods["a"]).ok());
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  EXPECT_EQ(positive(), "n3=2 ");
  ASSERT_TRUE(cache.remove_pod(*pods["b"]).ok());
  ASSERT_TRUE(cache.remove_pod(*pods["c"]).ok());
  add_pod("e", "n2", "web");
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  EXPECT_EQ(positive(), "n2=1 ");
  // Counted once, then updated from the changed nodes only.
  EXPECT_EQ(c.recounts(), 1u);
  EXPECT_EQ(c.updates(), 3u);
}

TEST_F(CountsCacheTest, UpdatesOnlyFromTheNodesThatChanged) {
  add_pod("a", "n1", "web");
  add_pod("b", "n3", "web");
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  TopologyCountsCache c;
  auto first = get(c, "web", snap.list());
  EXPECT_EQ(zone(first, "z1"), 1);
  EXPECT_EQ(zone(first, "z2"), 1);
  EXPECT_EQ(c.recounts(), 1u);

  add_pod("c", "n2", "web");
  add_pod("d", "n2", "db");
  ASSERT_TRUE(cache.remove_pod(*pods["b"]).ok());
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  auto second = get(c, "web", snap.list());
  EXPECT_EQ(c.updates(), 1u);
  EXPECT_EQ(c.recounts(), 1u);
  EXPECT_EQ(zone(second, "z1"), 2);
  EXPECT_EQ(zone(second, "z2"), 0);
  // The first cycle's counts are still held, so the update went to a copy.
  EXPECT_EQ(zone(first, "z1"), 1);
  EXPECT_EQ(zone(first, "z2"), 1);

  // No change: the kept counts are returned as they are.
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  auto third = get(c, "web", snap.list());
  EXPECT_EQ(third, second);
  EXPECT_EQ(c.updates(), 2u);
}

// Counts over the nodes with required anti-affinity pods: a node enters that list with its first
// such pod and leaves it with its last, and the counts follow by update alone.
TEST_F(CountsCacheTest, FollowsNodesIntoAndOutOfTheAffinityLists) {
  auto anti = [&](const std::string& name, const std::string& node) {
    auto p = std::make_shared<const api::Pod>(MakePod()
                                                  .Name(name)
                                                  .Label("app", "web")
                                                  .Node(node)
                                                  .PodAntiAffinityIn("app", kHost, {"web"},
                                                                     testing::AffinityKind::Required)
                                                  .Obj());
    ASSERT_TRUE(cache.add_pod(p).ok());
    pods[name] = p;
  };
  anti("a", "n1");
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  TopologyCountsCache c;
  const auto& list = snap.have_pods_with_required_anti_affinity_list();
  EXPECT_EQ(zone(get(c, "web", list), "z1"), 1);
  anti("b", "n3");
  add_pod("plain", "n2", "web");  // n2 stays out of the list: its pod must not count
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  auto r = get(c, "web", list);
  EXPECT_EQ(zone(r, "z1"), 1);
  EXPECT_EQ(zone(r, "z2"), 1);
  ASSERT_TRUE(cache.remove_pod(*pods["a"]).ok());
  add_pod("plain2", "n1", "web");  // n1 leaves the list with a plain pod left on it
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  r = get(c, "web", list);
  EXPECT_EQ(zone(r, "z1"), 0);
  EXPECT_EQ(zone(r, "z2"), 1);
  EXPECT_EQ(c.recounts(), 1u);
  EXPECT_EQ(c.updates(), 2u);
}

TEST_F(CountsCacheTest, ANewNodeOrARelabelledNodeMeansARecount) {
  add_pod("a", "n1", "web");
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  TopologyCountsCache c;
  get(c, "web", snap.list());
  cache.add_node(std::make_shared<const api::Node>(zoned_node("n4", "z2")));
  add_pod("b", "n4", "web");
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  auto after_add = get(c, "web", snap.list());
  EXPECT_EQ(c.recounts(), 2u);
  EXPECT_EQ(zone(after_add, "z2"), 1);

  cache.update_node(nodes["n1"], std::make_shared<const api::Node>(zoned_node("n1", "z3")));
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  auto after_relabel = get(c, "web", snap.list());
  EXPECT_EQ(c.recounts(), 3u);
  EXPECT_EQ(zone(after_relabel, "z1"), 0);
  EXPECT_EQ(zone(after_relabel, "z3"), 1);
}

TEST_F(CountsCacheTest, AListThatIsNotTheListersIsCountedEveryTimeAndNeverKept) {
  add_pod("a", "n1", "web");
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  TopologyCountsCache c;
  std::vector<NodeInfoPtr> copy = snap.list();
  auto r1 = get(c, "web", copy);
  auto r2 = get(c, "web", copy);
  EXPECT_EQ(zone(r2, "z1"), 1);
  EXPECT_NE(r1, r2);
  EXPECT_EQ(c.updates(), 0u);
  EXPECT_EQ(c.recounts(), 0u);
  // A snapshot made from pods and nodes directly has no history to update from.
  testing::FakeSnapshot fixed({MakePod().Name("x").Label("app", "web").Node("n1").Obj()}, {zoned_node("n1", "z1")});
  auto r3 = c.get("web", fixed, fixed.list(), parallelizer, count_web);
  EXPECT_EQ(r3->get(kZone, "z1"), 1);
  EXPECT_EQ(c.recounts(), 0u);
}

TEST_F(CountsCacheTest, KeepsTheMostRecentlyUsedKeys) {
  ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  TopologyCountsCache c(2);
  get(c, "a", snap.list());
  get(c, "b", snap.list());
  get(c, "a", snap.list());  // a is now the most recent
  get(c, "c", snap.list());  // evicts b
  EXPECT_EQ(c.recounts(), 3u);
  EXPECT_EQ(c.updates(), 1u);
  get(c, "a", snap.list());
  EXPECT_EQ(c.updates(), 2u);
  get(c, "b", snap.list());
  EXPECT_EQ(c.recounts(), 4u);
}

TEST_F(CountsCacheTest, MoreUpdatesThanTheSnapshotRemembersMeanARecount) {
  TopologyCountsCache c;
  get(c, "web", snap.list());
  for (int i = 0; i < 70; ++i) {
    add_pod("p" + std::to_string(i), i % 2 == 0 ? "n1" : "n3", "web");
    ASSERT_TRUE(cache.update_snapshot(snap.raw()).ok());
  }
  auto r = get(c, "web", snap.list());
  EXPECT_EQ(c.recounts(), 2u);
  EXPECT_EQ(zone(r, "z1"), 35);
  EXPECT_EQ(zone(r, "z2"), 35);
}

}  // namespace
}  // namespace ksched::scheduler::framework
