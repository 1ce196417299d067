// DefaultPreemption + preemption Evaluator: victim selection (priority order, PDB-aware reprieve),
// node choice (pickOneNodeForPreemption criteria), candidate preparation (condition patch,
// deletion, event, nomination clearing) and the FitError text when preemption cannot help.
// A small CPU-fit filter stands in for NodeResourcesFit.
#include "scheduler/plugins/defaultpreemption/defaultpreemption.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>

#include "api/policy.h"
#include "scheduler/config/features.h"
#include "scheduler/config/types.h"
#include "scheduler/framework/preemption/preemption.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::defaultpreemption {
namespace {

namespace fw = framework;
namespace pre = framework::preemption;
using testing::MakeLabelSelector;
using testing::MakeNode;
using testing::MakePod;

// Rejects a node whose requested CPU plus the pod's exceeds allocatable.
class CpuFit final : public fw::FilterPlugin {
 public:
  std::string_view name() const override { return "CpuFit"; }
  fw::Status filter(const fw::CycleState&, const api::Pod& pod, const fw::NodeInfo& ni) override {
    const auto want = fw::compute_pod_requests(pod).milliCPU;
    if (ni.requested.milliCPU + want > ni.allocatable.milliCPU) return fw::Status::unschedulable("Insufficient cpu");
    return {};
  }
};

class FakeWaitingPod final : public fw::WaitingPod {
 public:
  explicit FakeWaitingPod(api::Pod p) : pod_(std::move(p)) {}
  const api::Pod& pod() const override { return pod_; }
  std::vector<std::string> pending_plugins() const override { return {"Gate"}; }
  void allow(const std::string&) override {}
  void reject(const std::string& plugin, const std::string& msg) override { rejected.emplace_back(plugin, msg); }
  std::vector<std::pair<std::string, std::string>> rejected;

 private:
  api::Pod pod_;
};

// FakeHandle whose waiting pods can be set.
class Handle final : public testing::FakeHandle {
 public:
  std::shared_ptr<fw::WaitingPod> get_waiting_pod(std::string_view uid) override {
    auto it = waiting.find(std::string(uid));
    return it == waiting.end() ? nullptr : it->second;
  }
  std::map<std::string, std::shared_ptr<FakeWaitingPod>> waiting;
};

api::Node node4(const std::string& name) {
  return MakeNode().Name(name).Label("kubernetes.io/hostname", name).Capacity({{"cpu", "4"}, {"pods", "100"}}).Obj();
}

api::Pod running(const std::string& name, const std::string& node, std::int32_t prio, const std::string& cpu,
                 std::int64_t start_sec = 0) {
  auto w = MakePod().Name(name).UID(name).Node(node).Priority(prio).Req({{"cpu", cpu}});
  if (start_sec > 0) w.StartTime(api::Time{start_sec * 1'000'000'000});
  return w.Obj();
}

struct Env {
  Handle handle;
  std::shared_ptr<DefaultPreemption> plugin;

  Env(const std::vector<api::Pod>& pods, const std::vector<api::Node>& nodes,
      const config::DefaultPreemptionArgs* args = nullptr) {
    handle.set_snapshot(pods, nodes);
    handle.filter_plugins.push_back(std::make_shared<CpuFit>());
    fw::PluginArgs pa;
    if (args) pa.value = *args;
    auto r = make_default_preemption(pa, handle);
    EXPECT_TRUE(r.ok());
    plugin = std::dynamic_pointer_cast<DefaultPreemption>(r.value());
    plugin->offset_rand = [](int) { return 0; };
  }

  // Every node rejected as Unschedulable by the fit filter (what the scheduling cycle reports).
  fw::NodeToStatus all_unschedulable() {
    fw::NodeToStatus m;
    for (const auto& ni : handle.snapshot().list()) {
      m.set(ni->name(), fw::Status::unschedulable("Insufficient cpu"));
    }
    return m;
  }

  // PostFilter, then the asynchronous preparation it started (SchedulerAsyncPreemption).
  fw::Status post_filter(const api::Pod& pod, const fw::NodeToStatus& m, fw::PostFilterResult& result) {
    auto st = post_filter_no_wait(pod, m, result);
    handle.wait_for_async();
    return st;
  }
  fw::Status post_filter_no_wait(const api::Pod& pod, const fw::NodeToStatus& m, fw::PostFilterResult& result) {
    handle.fake_lister().add_pod(std::make_shared<const api::Pod>(pod));
    fw::CycleState state;
    return plugin->post_filter(state, pod, m, result);
  }

  // Victims chosen on one node, by name.
  std::vector<std::string> victims_on(const std::string& node, const api::Pod& pod, int* violations = nullptr) {
    auto ni = handle.snapshot().get(node)->clone();
    fw::CycleState state;
    pre::PdbCache pdbs(handle.lister());
    std::vector<fw::PodPtr> victims;
    int v = 0;
    auto st = plugin->select_victims_on_node(state, pod, *ni, pdbs, victims, v);
    EXPECT_TRUE(st.is_success()) << st.message();
    if (violations) *violations = v;
    std::vector<std::string> out;
    for (const auto& p : victims) out.push_back(p->metadata.name);
    return out;
  }
};

std::shared_ptr<const api::PodDisruptionBudget> pdb(const std::string& name, const std::string& app, int allowed,
                                                    std::vector<std::string> disrupted = {}) {
  auto p = std::make_shared<api::PodDisruptionBudget>();
  p->metadata.name = name;
  p->metadata.namespace_ = "default";
  p->spec.selector = MakeLabelSelector().Label("app", app).Obj();
  p->status.disruptionsAllowed = allowed;
  for (const auto& d : disrupted) p->status.disruptedPods.set(d, api::Time{1});
  return p;
}

// ---------------------------------------------------------------- arguments

TEST(DefaultPreemptionArgs, NumCandidates) {
  struct Case {
    int nodes, pct, abs, want;
  };
  // k = min(max(n·pct/100, abs), n)
  for (const auto& c : std::vector<Case>{{50, 10, 100, 50},
                                         {100, 10, 100, 100},
                                         {1000, 10, 100, 100},
                                         {5000, 10, 100, 500},
                                         {1000, 50, 10, 500},
                                         {10, 0, 3, 3},
                                         {10, 100, 0, 10}}) {
    testing::FakeHandle h;
    config::DefaultPreemptionArgs args;
    args.minCandidateNodesPercentage = c.pct;
    args.minCandidateNodesAbsolute = c.abs;
    fw::PluginArgs pa;
    pa.value = args;
    auto r = make_default_preemption(pa, h);
    ASSERT_TRUE(r.ok());
    auto pl = std::dynamic_pointer_cast<DefaultPreemption>(r.value());
    EXPECT_EQ(pl->calculate_num_candidates(c.nodes), c.want) << c.nodes << " " << c.pct << " " << c.abs;
  }
  testing::FakeHandle h;
  config::DefaultPreemptionArgs bad;
  bad.minCandidateNodesPercentage = 0;
  bad.minCandidateNodesAbsolute = 0;
  fw::PluginArgs pa;
  pa.value = bad;
  EXPECT_FALSE(make_default_preemption(pa, h).ok());
}

// ---------------------------------------------------------------- victims on one node

TEST(SelectVictimsOnNode, LowestPriorityFirstAndReprieve) {
  // 4 CPU full with p1 (prio 1, 1), p2 (prio 2, 1), p3 (prio 3, 2); the preemptor (prio 10) needs 2.
  // Reprieve most important first: p3 (2+2 fits), p2 (3+2 > 4) victim, p1 (3+2) victim.
  // A higher-priority pod (hp, prio 20) is never a victim.
  Env env({running("p1", "n1", 1, "1"), running("p2", "n1", 2, "1"), running("p3", "n1", 3, "2")}, {node4("n1")});
  auto pod = MakePod().Name("pre").Priority(10).Req({{"cpu", "2"}}).Obj();
  EXPECT_EQ(env.victims_on("n1", pod), (std::vector<std::string>{"p2", "p1"}));
}

// Pod-level requests are what a victim frees and what the preemptor needs. 4 CPU with a (prio 1,
// pod level 3, containers 500m) and b (prio 2, pod level 1, containers 100m); the preemptor (prio
// 10, pod level 2, containers 100m) needs 2: b is reprieved (1+2 fits), a is the victim. Counting
// container sums instead, nothing would need to go.
TEST(SelectVictimsOnNode, PodLevelRequestsAreFreed) {
  auto a = MakePod().Name("a").UID("a").Node("n1").Priority(1).Req({{"cpu", "500m"}}).PodLevelReq({{"cpu", "3"}}).Obj();
  auto b = MakePod().Name("b").UID("b").Node("n1").Priority(2).Req({{"cpu", "100m"}}).PodLevelReq({{"cpu", "1"}}).Obj();
  Env env({a, b}, {node4("n1")});
  auto pod = MakePod().Name("pre").Priority(10).Req({{"cpu", "100m"}}).PodLevelReq({{"cpu", "2"}}).Obj();
  EXPECT_EQ(env.victims_on("n1", pod), (std::vector<std::string>{"a"}));
}

TEST(SelectVictimsOnNode, NoLowerPriorityPods) {
  Env env({running("hp", "n1", 20, "4")}, {node4("n1")});
  auto pod = MakePod().Name("pre").Priority(10).Req({{"cpu", "2"}}).Obj();
  auto ni = env.handle.snapshot().get("n1")->clone();
  fw::CycleState state;
  pre::PdbCache pdbs(env.handle.lister());
  std::vector<fw::PodPtr> victims;
  int v = 0;
  auto st = env.plugin->select_victims_on_node(state, pod, *ni, pdbs, victims, v);
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), kNoVictims);
}

TEST(SelectVictimsOnNode, PdbViolatingPodsReprievedFirst) {
  // As above, but p2 (app=guarded) has a PDB with 0 disruptions allowed: it is reprieved first
  // (1+2 fits), then p3 (1+2+2 > 4) is a victim and p1 fits again (1+1+2). One victim, no violation.
  auto p2 = running("p2", "n1", 2, "1");
  p2.metadata.labels.set("app", "guarded");
  Env env({running("p1", "n1", 1, "1"), p2, running("p3", "n1", 3, "2")}, {node4("n1")});
  env.handle.fake_lister().add_pdb(pdb("guard", "guarded", 0));
  auto pod = MakePod().Name("pre").Priority(10).Req({{"cpu", "2"}}).Obj();
  int violations = -1;
  EXPECT_EQ(env.victims_on("n1", pod, &violations), (std::vector<std::string>{"p3"}));
  EXPECT_EQ(violations, 0);

  // A PDB that already lists p2 in disruptedPods does not count it: plain priority order again.
  Env env2({running("p1", "n1", 1, "1"), p2, running("p3", "n1", 3, "2")}, {node4("n1")});
  env2.handle.fake_lister().add_pdb(pdb("guard", "guarded", 0, {"p2"}));
  EXPECT_EQ(env2.victims_on("n1", pod, &violations), (std::vector<std::string>{"p2", "p1"}));
  EXPECT_EQ(violations, 0);
}

TEST(SelectVictimsOnNode, ViolatingVictimCountedAndVictimsSortedByImportance) {
  // n1: g1 (prio 5, 2 CPU, PDB allowed 0) and l1 (prio 1, 2 CPU); preemptor wants 4.
  // Both must go: g1 is a violating victim (1 violation), l1 a plain one. v1.32 re-sorts the
  // victims most important first: [g1, l1].
  auto g1 = running("g1", "n1", 5, "2");
  g1.metadata.labels.set("app", "guarded");
  Env env({running("l1", "n1", 1, "2"), g1}, {node4("n1")});
  env.handle.fake_lister().add_pdb(pdb("guard", "guarded", 0));
  auto pod = MakePod().Name("pre").Priority(10).Req({{"cpu", "4"}}).Obj();
  int violations = -1;
  EXPECT_EQ(env.victims_on("n1", pod, &violations), (std::vector<std::string>{"g1", "l1"}));
  EXPECT_EQ(violations, 1);
}

// ---------------------------------------------------------------- node choice

pre::Candidate cand(const std::string& node, std::vector<api::Pod> victims, std::int64_t pdb_violations = 0) {
  pre::Candidate c;
  c.name = node;
  for (auto& v : victims) c.victims.pods.push_back(std::make_shared<const api::Pod>(std::move(v)));
  c.victims.numPDBViolations = pdb_violations;
  return c;
}

TEST(PickOneNodeForPreemption, Criteria) {
  const std::int64_t now = 1'000'000 * 1'000'000'000LL;
  auto v = [](const std::string& n, std::int32_t prio, std::int64_t start_sec = 0) {
    return running(n, "x", prio, "1", start_sec);
  };
  auto pick = [&](const std::vector<pre::Candidate>& cs) {
    int i = pre::pick_one_node_for_preemption(cs, {}, now);
    return i < 0 ? std::string() : cs[static_cast<std::size_t>(i)].name;
  };
  // 1. Fewest PDB violations, even with more important victims.
  EXPECT_EQ(pick({cand("a", {v("a1", 1)}, 1), cand("b", {v("b1", 100)}, 0)}), "b");
  // 2. Lowest highest-priority victim.
  EXPECT_EQ(pick({cand("a", {v("a1", 3), v("a2", 1)}), cand("b", {v("b1", 2), v("b2", 2), v("b3", 2)})}), "b");
  // 3. Smallest Σ(priority + 2^31): one victim beats two of the same priority.
  EXPECT_EQ(pick({cand("a", {v("a1", 2), v("a2", 1)}), cand("b", {v("b1", 2)})}), "b");
  // 3'. Negative priorities do not make more victims cheaper.
  EXPECT_EQ(pick({cand("a", {v("a1", -5), v("a2", -5)}), cand("b", {v("b1", -5)})}), "b");
  // 4. Fewest victims when the sums tie (INT32_MIN adds 0 to the sum).
  EXPECT_EQ(pick({cand("a", {v("a1", 2), v("a2", INT32_MIN)}), cand("b", {v("b1", 2)})}), "b");
  // 5. Latest earliest start time among the top-priority victims.
  EXPECT_EQ(pick({cand("a", {v("a1", 2, 100)}), cand("b", {v("b1", 2, 200)}), cand("c", {v("c1", 2, 150)})}), "b");
  // A victim that has not started counts as starting now (the latest).
  EXPECT_EQ(pick({cand("a", {v("a1", 2, 100)}), cand("b", {v("b1", 2)})}), "b");
  // 6. Full tie: the first candidate.
  EXPECT_EQ(pick({cand("a", {v("a1", 2, 100)}), cand("b", {v("b1", 2, 100)})}), "a");
  EXPECT_EQ(pick({}), "");
}

// ---------------------------------------------------------------- end to end PostFilter

TEST(DefaultPreemptionPostFilter, PicksNodeAndPreparesCandidate) {
  // n1: a1, a2 (prio 1, 2 CPU each) → one victim [a2] (a1 reprieved), top priority 1.
  // n2: b1 (prio 5, 4 CPU) → [b1], top priority 5.
  // n3: c1..c4 (prio 1, 1 CPU) → [c3, c4], top priority 1 but larger sum.
  // Criteria: no PDBs; min top priority keeps n1, n3; min sum picks n1.
  Env env({running("a1", "n1", 1, "2", 10), running("a2", "n1", 1, "2", 20), running("b1", "n2", 5, "4"),
           running("c1", "n3", 1, "1"), running("c2", "n3", 1, "1"), running("c3", "n3", 1, "1"),
           running("c4", "n3", 1, "1")},
          {node4("n1"), node4("n2"), node4("n3")});
  // Nominated to n1: a lower-priority pod (nomination cleared) and a higher one (kept).
  env.handle.fake_nominator().add(MakePod().Name("low").Priority(0).NominatedNodeName("n1").Info(), "n1");
  env.handle.fake_nominator().add(MakePod().Name("high").Priority(50).NominatedNodeName("n1").Info(), "n1");
  auto pod = MakePod().Name("pre").UID("pre-uid").SchedulerName("default-scheduler").Priority(10).Req({{"cpu", "2"}}).Obj();
  std::vector<std::size_t> observed;
  env.plugin->evaluator().observe_victims = [&](std::size_t n) { observed.push_back(n); };
  fw::PostFilterResult result;
  auto st = env.post_filter(pod, env.all_unschedulable(), result);
  ASSERT_TRUE(st.is_success()) << st.message();
  EXPECT_EQ(observed, (std::vector<std::size_t>{1}));
  EXPECT_EQ(result.nominatingInfo.mode, fw::NominatingInfo::Mode::Override);
  EXPECT_EQ(result.nominatingInfo.nominatedNodeName, "n1");

  auto& client = env.handle.fake_client();
  EXPECT_EQ(client.deletes(), (std::vector<std::string>{"default/a2"}));
  auto patches = client.patches();
  ASSERT_EQ(patches.size(), 2u);
  // Asynchronously (the default) the nominations are cleared first, then the victims evicted.
  std::swap(patches[0], patches[1]);
  EXPECT_EQ(patches[0].pod, "default/a2");
  ASSERT_TRUE(patches[0].condition.has_value());
  EXPECT_EQ(patches[0].condition->type, "DisruptionTarget");
  EXPECT_EQ(patches[0].condition->status, "True");
  EXPECT_EQ(patches[0].condition->reason, "PreemptionByScheduler");
  EXPECT_EQ(patches[0].condition->message, "default-scheduler: preempting to accommodate a higher priority pod");
  EXPECT_FALSE(patches[0].nominatedNodeName.has_value());
  // Lower-priority nomination on n1 cleared.
  EXPECT_EQ(patches[1].pod, "default/low");
  EXPECT_FALSE(patches[1].condition.has_value());
  EXPECT_EQ(patches[1].nominatedNodeName, std::optional<std::string>(""));
  auto events = client.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].regarding, "default/a2");
  EXPECT_EQ(events[0].type, "Normal");
  EXPECT_EQ(events[0].reason, "Preempted");
  EXPECT_EQ(events[0].action, "Preempting");
  EXPECT_EQ(events[0].note, "Preempted by pod pre-uid on node n1");
}

TEST(DefaultPreemptionPostFilter, PrefersNodeWithoutPdbViolation) {
  // n1's only victim is protected by a PDB (violation), n2's victim has higher priority but no PDB.
  auto g = running("g", "n1", 1, "4");
  g.metadata.labels.set("app", "guarded");
  Env env({g, running("h", "n2", 5, "4")}, {node4("n1"), node4("n2")});
  env.handle.fake_lister().add_pdb(pdb("guard", "guarded", 0));
  auto pod = MakePod().Name("pre").Priority(10).Req({{"cpu", "2"}}).Obj();
  fw::PostFilterResult result;
  ASSERT_TRUE(env.post_filter(pod, env.all_unschedulable(), result).is_success());
  EXPECT_EQ(result.nominatingInfo.nominatedNodeName, "n2");
  EXPECT_EQ(env.handle.fake_client().deletes(), (std::vector<std::string>{"default/h"}));
}

TEST(DefaultPreemptionPostFilter, CandidateBudgetAndOffset) {
  // n1's victim has priority 5, n2's priority 1. With k = 2 both are dry-run and n2 wins; with
  // k = 1 (pct 0, abs 1) only the node at the random offset is tried.
  auto make = [](const config::DefaultPreemptionArgs* args) {
    return std::make_unique<Env>(std::vector<api::Pod>{running("v5", "n1", 5, "4"), running("v1", "n2", 1, "4")},
                                 std::vector<api::Node>{node4("n1"), node4("n2")}, args);
  };
  auto pod = MakePod().Name("pre").Priority(10).Req({{"cpu", "2"}}).Obj();
  {
    auto env = make(nullptr);
    fw::PostFilterResult r;
    ASSERT_TRUE(env->post_filter(pod, env->all_unschedulable(), r).is_success());
    EXPECT_EQ(r.nominatingInfo.nominatedNodeName, "n2");
  }
  config::DefaultPreemptionArgs one;
  one.minCandidateNodesPercentage = 0;
  one.minCandidateNodesAbsolute = 1;
  {
    auto env = make(&one);
    fw::PostFilterResult r;
    ASSERT_TRUE(env->post_filter(pod, env->all_unschedulable(), r).is_success());
    EXPECT_EQ(r.nominatingInfo.nominatedNodeName, "n1");
  }
  {
    auto env = make(&one);
    env->plugin->offset_rand = [](int) { return 1; };
    fw::PostFilterResult r;
    ASSERT_TRUE(env->post_filter(pod, env->all_unschedulable(), r).is_success());
    EXPECT_EQ(r.nominatingInfo.nominatedNodeName, "n2");
  }
}

TEST(DefaultPreemptionPostFilter, NotHelpfulFitError) {
  // n1: U&U in the cycle (not a potential node); n2: only higher-priority pods; n3: the pod does
  // not fit even after removing every lower-priority pod.
  Env env({running("hp", "n2", 100, "4"), running("lp", "n3", 1, "1")}, {node4("n1"), node4("n2"), node4("n3")});
  fw::NodeToStatus m;
  m.set("n1", fw::Status::unresolvable("node(s) didn't match Pod's node affinity/selector"));
  m.set("n2", fw::Status::unschedulable("Insufficient cpu"));
  m.set("n3", fw::Status::unschedulable("Insufficient cpu"));
  auto pod = MakePod().Name("pre").Priority(10).Req({{"cpu", "8"}}).NominatedNodeName("n3").Obj();
  fw::PostFilterResult result;
  auto st = env.post_filter(pod, m, result);
  EXPECT_EQ(st.code(), fw::Code::Unschedulable);
  EXPECT_EQ(st.message(),
            "preemption: 0/3 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming "
            "pod, 1 Preemption is not helpful for scheduling.");
  // The nomination is cleared.
  EXPECT_EQ(result.nominatingInfo.mode, fw::NominatingInfo::Mode::Override);
  EXPECT_EQ(result.nominatingInfo.nominatedNodeName, "");
  EXPECT_TRUE(env.handle.fake_client().deletes().empty());

  // No potential node at all: every node counts as "not helpful".
  fw::NodeToStatus uu;
  for (const auto& n : {"n1", "n2", "n3"}) uu.set(n, fw::Status::unresolvable("x"));
  fw::PostFilterResult r2;
  EXPECT_EQ(env.post_filter(pod, uu, r2).message(),
            "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
}

TEST(DefaultPreemptionPostFilter, Eligibility) {
  Env env({running("lp", "n1", 1, "4")}, {node4("n1"), node4("n2")});
  fw::PostFilterResult result;
  auto never = MakePod().Name("pre").Priority(10).PreemptionPolicy("Never").Req({{"cpu", "2"}}).Obj();
  auto st = env.post_filter(never, env.all_unschedulable(), result);
  EXPECT_EQ(st.code(), fw::Code::Unschedulable);
  EXPECT_EQ(st.message(), "preemption: not eligible due to preemptionPolicy=Never.");
  EXPECT_EQ(result.nominatingInfo.mode, fw::NominatingInfo::Mode::Noop);

  // A lower-priority pod on the nominated node is already terminating because of preemption.
  auto victim = running("t", "n2", 1, "1");
  victim.metadata.deletionTimestamp = api::Time{5};
  api::PodCondition c;
  c.type = "DisruptionTarget";
  c.status = "True";
  c.reason = "PreemptionByScheduler";
  victim.status.conditions.push_back(c);
  Env env2({victim}, {node4("n1"), node4("n2")});
  auto nominated = MakePod().Name("pre").Priority(10).NominatedNodeName("n2").Req({{"cpu", "4"}}).Obj();
  fw::PostFilterResult r2;
  EXPECT_EQ(env2.post_filter(nominated, env2.all_unschedulable(), r2).message(),
            "preemption: not eligible due to a terminating pod on the nominated node.");
  // If the nominated node is now U&U, the pod may preempt again (here: nothing to preempt on n1).
  fw::NodeToStatus m = env2.all_unschedulable();
  m.set("n2", fw::Status::unresolvable("gone"));
  fw::PostFilterResult r3;
  EXPECT_EQ(env2.post_filter(nominated, m, r3).message(),
            "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is "
            "not helpful for scheduling.");
}

TEST(DefaultPreemptionPostFilter, WaitingVictimRejectedAndExistingConditionKept) {
  // Victim w is waiting on Permit: rejected instead of deleted; the event is still recorded.
  Env env({running("w", "n1", 1, "4")}, {node4("n1")});
  env.handle.waiting["w"] = std::make_shared<FakeWaitingPod>(running("w", "n1", 1, "4"));
  auto pod = MakePod().Name("pre").UID("u1").Priority(10).Req({{"cpu", "2"}}).Obj();
  fw::PostFilterResult result;
  ASSERT_TRUE(env.post_filter(pod, env.all_unschedulable(), result).is_success());
  EXPECT_EQ(env.handle.waiting["w"]->rejected,
            (std::vector<std::pair<std::string, std::string>>{{"DefaultPreemption", "preempted"}}));
  EXPECT_TRUE(env.handle.fake_client().deletes().empty());
  EXPECT_TRUE(env.handle.fake_client().patches().empty());
  ASSERT_EQ(env.handle.fake_client().events().size(), 1u);
  EXPECT_EQ(env.handle.fake_client().events()[0].note, "Preempted by pod u1 on node n1");

  // A victim already carrying the same DisruptionTarget condition is only deleted.
  auto v = running("v", "n1", 1, "4");
  api::PodCondition c;
  c.type = "DisruptionTarget";
  c.status = "True";
  c.reason = "PreemptionByScheduler";
  c.message = "sched-x: preempting to accommodate a higher priority pod";
  v.status.conditions.push_back(c);
  Env env2({v}, {node4("n1")});
  auto pod2 = MakePod().Name("pre").Priority(10).SchedulerName("sched-x").Req({{"cpu", "2"}}).Obj();
  fw::PostFilterResult r2;
  ASSERT_TRUE(env2.post_filter(pod2, env2.all_unschedulable(), r2).is_success());
  EXPECT_TRUE(env2.handle.fake_client().patches().empty());
  EXPECT_EQ(env2.handle.fake_client().deletes(), (std::vector<std::string>{"default/v"}));
}

// Synchronous preemption (SchedulerAsyncPreemption off): a failed deletion fails PostFilter.
TEST(DefaultPreemptionPostFilter, DeleteFailureIsError) {
  config::Features f = config::features();
  f.schedulerAsyncPreemption = false;
  config::ScopedFeatures gates(f);
  Env env({running("v", "n1", 1, "4")}, {node4("n1")});
  EXPECT_FALSE(env.plugin->evaluator().async_enabled());
  env.handle.fake_client().delete_error = fw::Status::error("boom");
  auto pod = MakePod().Name("pre").Priority(10).Req({{"cpu", "2"}}).Obj();
  fw::PostFilterResult result;
  auto st = env.post_filter(pod, env.all_unschedulable(), result);
  EXPECT_EQ(st.code(), fw::Code::Error);
  EXPECT_EQ(st.message(), "preemption: boom");
  EXPECT_EQ(result.nominatingInfo.mode, fw::NominatingInfo::Mode::Noop);
}

// ---------------------------------------------------------------- asynchronous preemption

// A preempt_pod stand-in whose calls wait, one by one, until the test lets them through.
struct SteppedPreemption {
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0, allowed = 0;
  std::vector<std::string> victims;
  void install(pre::Evaluator& ev) {
    ev.preempt_pod = [this](const pre::Candidate&, const api::Pod&, const api::Pod& victim) {
      std::unique_lock l(mu);
      victims.push_back(victim.metadata.name);
      const int me = ++calls;
      cv.notify_all();
      cv.wait(l, [&] { return allowed >= me; });
      return fw::Status();
    };
  }
  void wait_for_call(int n) {
    std::unique_lock l(mu);
    cv.wait(l, [&] { return calls >= n; });
  }
  void allow(int n) {
    std::lock_guard l(mu);
    allowed = n;
    cv.notify_all();
  }
};

TEST(DefaultPreemptionAsync, PreEnqueueGatesThePreemptorUntilTheLastVictimsDeletionStarted) {
  // Both victims on n1 must go for a 4-CPU preemptor.
  auto v1 = running("v1", "n1", 1, "2", 10), v2 = running("v2", "n1", 2, "2", 20);
  Env env({v1, v2}, {node4("n1")});
  ASSERT_TRUE(env.plugin->evaluator().async_enabled());
  for (const auto& v : {v1, v2}) env.handle.fake_lister().add_pod(std::make_shared<const api::Pod>(v));
  SteppedPreemption steps;
  steps.install(env.plugin->evaluator());
  auto pod = MakePod().Name("pre").UID("pre-uid").Priority(10).Req({{"cpu", "4"}}).Obj();
  EXPECT_TRUE(env.plugin->pre_enqueue(pod).is_success());

  fw::PostFilterResult result;
  // PostFilter returns at once with the nomination; the evictions run behind it.
  ASSERT_TRUE(env.post_filter_no_wait(pod, env.all_unschedulable(), result).is_success());
  EXPECT_EQ(result.nominatingInfo.nominatedNodeName, "n1");
  steps.wait_for_call(1);
  // Evicting the victims before the last: gated, with upstream's status.
  auto st = env.plugin->pre_enqueue(pod);
  EXPECT_EQ(st.code(), fw::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(st.message(), "waiting for the preemption for this pod to be finished");
  EXPECT_TRUE(env.plugin->evaluator().is_pod_running_preemption("pre-uid"));
  EXPECT_FALSE(env.plugin->evaluator().is_pod_running_preemption("other"));

  steps.allow(1);
  steps.wait_for_call(2);
  // The last victim's call is under way, but it is still in the informer, not being deleted.
  EXPECT_FALSE(env.plugin->pre_enqueue(pod).is_success());
  const std::string last = steps.victims.back();
  api::Pod deleting = last == "v1" ? v1 : v2;
  deleting.metadata.deletionTimestamp = api::Time{1};
  env.handle.fake_lister().add_pod(std::make_shared<const api::Pod>(deleting));
  // Its deletion started: the preemption counts as finished even before the call returns.
  EXPECT_TRUE(env.plugin->pre_enqueue(pod).is_success());

  steps.allow(2);
  env.handle.wait_for_async();
  EXPECT_EQ(steps.victims.size(), 2u);
  EXPECT_TRUE(env.plugin->pre_enqueue(pod).is_success());
  EXPECT_EQ(env.handle.goroutine_results(), (std::vector<std::string>{"success"}));
  EXPECT_TRUE(env.handle.activated().empty());
}

TEST(DefaultPreemptionAsync, FailedEvictionActivatesThePreemptor) {
  Env env({running("v", "n1", 1, "4")}, {node4("n1")});
  env.handle.fake_client().delete_error = fw::Status::error("boom");
  auto pod = MakePod().Name("pre").UID("pre-uid").Priority(10).Req({{"cpu", "2"}}).Obj();
  fw::PostFilterResult result;
  // Asynchronously the cycle cannot see the failure: it nominates, and the goroutine activates.
  ASSERT_TRUE(env.post_filter(pod, env.all_unschedulable(), result).is_success());
  EXPECT_EQ(result.nominatingInfo.nominatedNodeName, "n1");
  EXPECT_EQ(env.handle.activated(), (std::vector<std::string>{"pre"}));
  EXPECT_EQ(env.handle.goroutine_results(), (std::vector<std::string>{"error"}));
  EXPECT_TRUE(env.plugin->pre_enqueue(pod).is_success());
}

TEST(DefaultPreemptionAsync, VictimsAlreadyBeingDeletedStartNothing) {
  auto v = running("v", "n1", 1, "4");
  v.metadata.deletionTimestamp = api::Time{1};
  Env env({v}, {node4("n1")});
  auto pod = MakePod().Name("pre").UID("pre-uid").Priority(10).Req({{"cpu", "2"}}).Obj();
  fw::PostFilterResult result;
  ASSERT_TRUE(env.post_filter(pod, env.all_unschedulable(), result).is_success());
  EXPECT_TRUE(env.handle.fake_client().deletes().empty());
  EXPECT_TRUE(env.handle.goroutine_results().empty());
  EXPECT_TRUE(env.plugin->pre_enqueue(pod).is_success());
}

TEST(DefaultPreemptionAsync, RegistersPodDeletionWithASkipHintOnlyWhenOn) {
  Env on({}, {node4("n1")});
  auto events = on.plugin->events_to_register();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, fw::EventResource::Pod);
  EXPECT_EQ(events[0].event.actionType, fw::kDelete);
  auto pod = MakePod().Name("p").Obj();
  EXPECT_EQ(events[0].hint(pod, nullptr, nullptr), fw::QueueingHint::Skip);

  config::Features f = config::features();
  f.schedulerAsyncPreemption = false;
  config::ScopedFeatures gates(f);
  Env off({}, {node4("n1")});
  EXPECT_TRUE(off.plugin->events_to_register().empty());
  EXPECT_TRUE(off.plugin->pre_enqueue(pod).is_success());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::defaultpreemption
