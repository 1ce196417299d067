// The pod-group cycle end to end (GangScheduling gate on): quorum gating, a gang placed whole in
// one cycle, a gang whose minimum does not fit left entirely pending with upstream's message and
// placed whole once nodes are added, two gangs that cannot both fit (one is placed, no deadlock),
// and a randomized run (gangs of varied size and minCount, members and Workloads arriving in any
// order, nodes added and removed, the scheduler restarted mid-group with only some of a committed
// gang's bindings stored) that checks after every step that each gang has either none or at least
// minCount members bound (see the randomized test for what a restart can and cannot promise).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "scheduler/config/defaults.h"
#include "scheduler/config/features.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler/pod_group_fixture.h"
#include "scheduler/podgroup/metrics.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_options.h"
#include "scheduler_testing/testing.h"
#include "scheduler_testing/workloads.h"

namespace ksched::scheduler {
namespace {

using namespace std::chrono_literals;
using testing::MakeNode;
using testing::MakeGangWorkload;
using testing::MakePod;
namespace s1 = api::schedulingv1alpha1;

config::Features gang_features() {
  config::Features f = config::features();
  f.gangScheduling = true;
  return f;
}

// A Reserve plugin that runs the test's hook once, in the middle of a scheduling cycle (the first
// member reserved), as an informer event would arrive while the cycle runs.
class MidCycleHook final : public framework::ReservePlugin {
 public:
  explicit MidCycleHook(std::function<void()>* hook) : hook_(hook) {}
  std::string_view name() const override { return "MidCycleHook"; }
  framework::Status reserve(framework::CycleState&, const api::Pod&, const std::string&) override {
    if (*hook_) {
      auto run = std::move(*hook_);
      *hook_ = nullptr;
      run();
    }
    return {};
  }
  void unreserve(framework::CycleState&, const api::Pod&, const std::string&) override {}

 private:
  std::function<void()>* hook_;
};

class PodGroupCycleTest : public PodGroupClusterFixture {
 protected:
  PodGroupCycleTest() : PodGroupClusterFixture(gang_features()) {}
  void SetUp() override { start_scheduler(11); }
  void start_scheduler(std::uint64_t seed) {
    auto o = test_scheduler_options(clock, metrics, seed, /*binding_workers=*/2);
    o.pod_group_metrics = &group_metrics;
    auto cfg = config::default_configuration();
    auto reg = new_in_tree_registry();
    if (with_mid_cycle_hook) {
      auto plugin = std::make_shared<MidCycleHook>(&mid_cycle);
      (void)reg.add("MidCycleHook", [plugin](const framework::PluginArgs&, framework::Handle&)
                                        -> util::Result<std::shared_ptr<framework::Plugin>> { return std::shared_ptr<framework::Plugin>(plugin); });
      cfg.profiles.front().plugins.reserve.enabled.push_back({"MidCycleHook", std::nullopt});
    }
    auto s = Scheduler::create(cfg, reg, client, lister, o);
    ASSERT_TRUE(s.ok()) << s.error();
    sched = std::move(*s);
    ASSERT_NE(sched->pod_group_manager(), nullptr);
  }
  void add_workload(const std::shared_ptr<const s1::Workload>& w) {
    workloads.push_back(w);
    sched->on_workload_add(w);
  }
  // The scheduler process dies in the first scheduling cycle that binds something (a gang's
  // placement, or a plain pod), with only some of that cycle's bindings stored by the API server
  // (binding is asynchronous: each member's binding is its own API call); a new scheduler then
  // starts over the cluster as the server holds it, its informers listing every node, Workload and
  // pod (bound or not). Returns how many of the cycle's bindings were lost.
  std::size_t crash_mid_group_and_restart(std::mt19937& rng) {
    for (int i = 0; i < 100 && client.binds().size() == confirmed && sched->schedule_one_if_pending(); ++i) {
      EXPECT_TRUE(sched->wait_for_bindings(10s));
    }
    auto binds = client.binds();
    const std::size_t issued = binds.size() - confirmed;
    const std::size_t landed = std::uniform_int_distribution<std::size_t>(0, issued)(rng);
    for (std::size_t i = confirmed; i < confirmed + landed; ++i) confirm(binds[i]);
    confirmed = binds.size();  // the rest never reached the server
    sched.reset();
    start_scheduler(rng());
    for (const auto& [name, n] : nodes) sched->on_node_add(n);
    for (const auto& w : workloads) sched->on_workload_add(w);
    for (const auto& [name, p] : pods) sched->on_pod_add(p);
    return issued - landed;
  }
  void remove_node(const std::string& name) {
    sched->on_node_delete(nodes.at(name));
    nodes.erase(name);
  }
  framework::PodPtr add_member(const std::string& name, const std::string& workload, const std::string& cpu,
                               std::int32_t priority = 0, const std::string& policy = {}) {
    api::Pod p = MakePod().Name(name).UID(name).Req({{"cpu", cpu}}).WorkloadRef(workload, "workers").Obj();
    p.spec.schedulerName = "default-scheduler";
    if (priority != 0) p.spec.priority = priority;
    if (!policy.empty()) p.spec.preemptionPolicy = policy;
    return add_pod(std::move(p));
  }
  // The PodGroup's status patches the scheduler sent, as the informer would show them after.
  void confirm_pod_group_status(std::shared_ptr<const api::schedulingv1beta1::PodGroup>& pg) {
    auto patches = client.pod_group_patches();
    auto next = std::make_shared<api::schedulingv1beta1::PodGroup>(*pg);
    for (const auto& patch : patches) {
      if (patch.podGroup != "default/" + std::string(pg->metadata.name.view())) continue;
      auto& conds = next->status.conditions;
      auto it = std::find_if(conds.begin(), conds.end(), [&](const api::Condition& c) { return c.type == patch.condition.type; });
      if (it == conds.end()) {
        conds.push_back(patch.condition);
      } else {
        *it = patch.condition;
      }
    }
    std::shared_ptr<const api::schedulingv1beta1::PodGroup> old = pg;
    pg = next;
    sched->on_pod_group_update(old, pg);
  }
  // A pod without a group, already running on `node` since `start_s` (unix seconds).
  framework::PodPtr add_running(const std::string& name, const std::string& node, const std::string& cpu,
                                std::int32_t priority, std::int64_t start_s) {
    api::Pod p = MakePod().Name(name).UID(name).Req({{"cpu", cpu}}).Node(node).StartTime(api::Time{start_s * 1'000'000'000}).Obj();
    p.spec.schedulerName = "default-scheduler";
    if (priority != 0) p.spec.priority = priority;
    return add_pod(std::move(p));
  }
  // Preemption's deletions: a gang is evicted whole, none of an evicted gang's members is left bound.
  void on_pod_deleted(const api::Pod& gone) override {
    if (gone.spec.workloadRef && !gone.spec.nodeName.empty()) evicted_gangs.insert(gone.spec.workloadRef->name);
  }
  void on_deletes_applied() override {
    auto bound = bound_per_workload();
    for (const auto& g : evicted_gangs) {
      if (bound[g] > 0) ++partial_evictions;
    }
    evicted_gangs.clear();
  }
  std::map<std::string, int> bound_per_workload() {
    std::map<std::string, int> out;
    for (const auto& [name, p] : pods) {
      if (!p->spec.nodeName.empty() && p->spec.workloadRef) ++out[p->spec.workloadRef->name];
    }
    return out;
  }
  std::string last_condition_message(const std::string& pod) {
    std::string msg;
    for (const auto& p : client.patches()) {
      if (p.pod == pod && p.condition) msg = p.condition->message;
    }
    return msg;
  }

  bool with_mid_cycle_hook = false;  // start_scheduler adds MidCycleHook running `mid_cycle`
  std::function<void()> mid_cycle;
  std::vector<std::shared_ptr<const s1::Workload>> workloads;
  std::set<std::string> evicted_gangs;
  int partial_evictions = 0;  // gangs left with members bound after an eviction
};

TEST_F(PodGroupCycleTest, MembersWaitForTheQuorumThenTheGangIsPlacedInOneCycle) {
  add_node("n1", "4");
  add_node("n2", "4");
  sched->on_workload_add(MakeGangWorkload("job", 3));
  add_member("a", "job", "1");
  add_member("b", "job", "1");
  EXPECT_EQ(sched->queue().counts().gated, 2u);
  EXPECT_FALSE(sched->schedule_one_if_pending());
  auto gated = sched->queue().get(*pods.at("a"));
  ASSERT_TRUE(gated);
  EXPECT_TRUE(gated->unschedulablePlugins.count("GangScheduling"));

  add_member("c", "job", "1");  // the third member completes the quorum and moves the others
  EXPECT_EQ(sched->queue().counts().active, 3u);
  ASSERT_TRUE(sched->schedule_one_if_pending());  // one pop: the whole group
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  EXPECT_EQ(client.binds().size(), 3u);
  EXPECT_FALSE(sched->schedule_one_if_pending());
}

TEST_F(PodGroupCycleTest, AMemberOfAMissingWorkloadWaitsForIt) {
  add_node("n1", "4");
  add_member("a", "job", "1");
  auto q = sched->queue().get(*pods.at("a"));
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->gated);
  sched->on_workload_add(MakeGangWorkload("job", 1));  // Workload/Add moves the pod
  settle();
  EXPECT_EQ(client.binds().size(), 1u);
}

TEST_F(PodGroupCycleTest, AGangWhoseMinimumDoesNotFitStaysPendingWholeAndBindsWholeOnNewNodes) {
  add_node("n1", "4");
  sched->on_workload_add(MakeGangWorkload("big", 4));
  for (const char* n : {"w0", "w1", "w2", "w3"}) add_member(n, "big", "2");  // 8 CPUs on 4
  settle();
  EXPECT_EQ(client.binds().size(), 0u);
  EXPECT_EQ(sched->cache().assumed_pod_count(), 0);  // every tentative assumption undone
  // The first two fit; the third does not, and with one member left the group cannot reach 4.
  // Workload-aware preemption then finds nothing of lower priority, and says so (upstream's
  // AppendReason).
  EXPECT_EQ(last_condition_message("default/w0"),
            "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, No preemption victims found for incoming preemptor");
  EXPECT_EQ(last_condition_message("default/w3"),
            "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, No preemption victims found for incoming preemptor");
  EXPECT_EQ(sched->queue().counts().unschedulable, 4u);

  add_node("n2", "4");  // NodeAdd moves the member NodeResourcesFit rejected; it brings the others
  settle();
  EXPECT_EQ(client.binds().size(), 4u);
  EXPECT_EQ(bound_per_workload()["big"], 4);
  // One pod-group attempt per cycle, not per member: one unschedulable, one scheduled.
  const std::string text = registry.expose();
  EXPECT_NE(text.find("scheduler_podgroup_schedule_attempts_total{profile=\"default-scheduler\",result=\"unschedulable\"} 1\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("scheduler_podgroup_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"} 1\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("scheduler_podgroup_scheduling_algorithm_duration_seconds_count 2\n"), std::string::npos) << text;
}

TEST_F(PodGroupCycleTest, TwoGangsThatCannotBothFitDoNotDeadlock) {
  add_node("n1", "4");
  add_node("n2", "4");
  sched->on_workload_add(MakeGangWorkload("a", 4));
  sched->on_workload_add(MakeGangWorkload("b", 4));
  // Interleaved arrival: with per-pod placement each gang would take half the room.
  for (int i = 0; i < 4; ++i) {
    add_member("a" + std::to_string(i), "a", "2");
    add_member("b" + std::to_string(i), "b", "2");
  }
  settle();
  auto bound = bound_per_workload();
  EXPECT_EQ(bound["a"] + bound["b"], 4);
  EXPECT_TRUE((bound["a"] == 4 && bound["b"] == 0) || (bound["a"] == 0 && bound["b"] == 4));
  let_time_pass();
  settle();
  bound = bound_per_workload();
  EXPECT_TRUE((bound["a"] == 4 && bound["b"] == 0) || (bound["a"] == 0 && bound["b"] == 4));
}

TEST_F(PodGroupCycleTest, PodsWithoutAGroupTakeTheSinglePodCycle) {
  add_node("n1", "2");
  sched->on_workload_add(MakeGangWorkload("job", 2));
  add_member("g0", "job", "1");
  add_member("g1", "job", "1");
  api::Pod plain = MakePod().Name("plain").UID("plain").Req({{"cpu", "1"}}).Obj();
  plain.spec.schedulerName = "default-scheduler";
  auto pp = std::make_shared<const api::Pod>(plain);
  lister.add_pod(pp);
  pods["plain"] = pp;
  sched->on_pod_add(pp);
  settle();
  // Two of the three fit: either the gang whole, or the plain pod and no gang member.
  auto bound = bound_per_workload();
  const bool plain_bound = !pods.at("plain")->spec.nodeName.empty();
  EXPECT_TRUE((bound["job"] == 2 && !plain_bound) || (bound["job"] == 0 && plain_bound));
}

// ---- Workload-aware preemption (KEP-5710; upstream podgrouppreemption.go and its test)

// Upstream "Pod group with disruption mode group not reprieved": a lower gang holding the room is a
// single unit, evicted whole (every member, not only as many as the preemptor needs); the higher
// gang is nominated, waits for the deletions, and is then bound whole.
TEST_F(PodGroupCycleTest, AHigherGangEvictsALowerGangWholeAndIsThenBoundWhole) {
  add_node("n1", "4");
  add_node("n2", "4");
  add_workload(MakeGangWorkload("low", 3));
  for (int i = 0; i < 4; ++i) add_member("low-" + std::to_string(i), "low", "2", 10);
  settle();
  ASSERT_EQ(bound_per_workload()["low"], 4);

  add_workload(MakeGangWorkload("high", 2));
  add_member("high-0", "high", "2", 1000);
  add_member("high-1", "high", "2", 1000);
  run_cycles();
  // One pod-group cycle: no room, so preemption; the victims are the whole lower gang.
  auto deletes = client.deletes();
  std::set<std::string> victims(deletes.begin(), deletes.end());
  EXPECT_EQ(victims, (std::set<std::string>{"default/low-0", "default/low-1", "default/low-2", "default/low-3"}));
  EXPECT_EQ(bound_per_workload()["high"], 0);  // nothing binds before the victims are gone
  EXPECT_FALSE(client.last_nomination("default/high-0").empty());
  EXPECT_FALSE(client.last_nomination("default/high-1").empty());
  // The victims' condition and event, as upstream's executor for a pod-group preemptor.
  bool condition = false;
  for (const auto& p : client.patches()) {
    if (p.pod == "default/low-0" && p.condition && p.condition->type == "DisruptionTarget") {
      condition = p.condition->reason == "PreemptionByScheduler" &&
                  p.condition->message == "default-scheduler: preempting to accommodate a higher priority podgroup";
    }
  }
  EXPECT_TRUE(condition);
  bool event = false;
  for (const auto& e : client.events()) {
    if (e.reason == "Preempted" && e.note.find("Preempted by podgroup ") == 0 &&
        e.note.find(" on node cluster") != std::string::npos) {
      event = true;
    }
  }
  EXPECT_TRUE(event);
  // Workload-aware preemption's metrics (upstream v1.37 metrics.go, GenericWorkload): one attempt by
  // its final code, the evaluation and execution timed, 4 victim pods in 1 unit, no PDB violated.
  const std::string text = registry.expose();
  for (const char* want : {"scheduler_workload_preemption_attempts_total{result=\"Success\"} 1\n",
                           "scheduler_preemption_evaluation_duration_seconds_count{preemptor=\"podgroup\",result=\"Success\"} 1\n",
                           "scheduler_preemption_execution_duration_seconds_count{preemptor=\"podgroup\",result=\"Success\"} 1\n",
                           "scheduler_workload_preemption_victims_sum 4\n",
                           "scheduler_workload_preemption_victims_count 1\n",
                           "scheduler_preemption_workload_disruptions_sum{preemptor=\"podgroup\"} 1\n"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << text;
  }
  EXPECT_EQ(text.find("scheduler_preemption_pdb_violations_total{"), std::string::npos) << text;

  EXPECT_EQ(apply_deletes().size(), 4u);
  settle();
  EXPECT_EQ(bound_per_workload()["high"], 2);
  EXPECT_EQ(bound_per_workload()["low"], 0);
}

// A gang of 2 x 2 CPUs on two full nodes of single low-priority pods: upstream's reprieval keeps
// every pod it can, most important first, so only one pod per node (the latest started) goes, and
// the gang is bound whole once they are gone.
TEST_F(PodGroupCycleTest, AGangPreemptsOnlyTheSinglePodsItNeedsAndIsBoundWhole) {
  add_node("n1", "4");
  add_node("n2", "4");
  for (int i = 0; i < 4; ++i) {
    add_running("a" + std::to_string(i), "n1", "1", 0, 100 + i);  // a3 started last on n1
    add_running("b" + std::to_string(i), "n2", "1", 0, 200 + i);  // b3 started last on n2
  }
  add_workload(MakeGangWorkload("job", 2));
  add_member("job-0", "job", "1", 100);
  add_member("job-1", "job", "1", 100);
  run_cycles();
  auto deletes = client.deletes();
  std::set<std::string> victims(deletes.begin(), deletes.end());
  EXPECT_EQ(victims, (std::set<std::string>{"default/a3", "default/b3"}));
  std::set<std::string> nominated{client.last_nomination("default/job-0"), client.last_nomination("default/job-1")};
  EXPECT_EQ(nominated, (std::set<std::string>{"n1", "n2"}));
  apply_deletes();
  settle();
  EXPECT_EQ(bound_per_workload()["job"], 2);
  std::set<std::string> placed{std::string(pods.at("job-0")->spec.nodeName.view()),
                               std::string(pods.at("job-1")->spec.nodeName.view())};
  EXPECT_EQ(placed, nominated);  // where the preemption nominated them
}

// Upstream "Priority: mix of no groups and pod groups" and moreImportantVictim: at equal priority a
// gang is more important than a single pod, so the single pod is the one evicted; and a gang
// victim goes whole even when part of it would do (never below its minimum).
TEST_F(PodGroupCycleTest, AtEqualPriorityASinglePodGoesBeforeAGang) {
  add_node("n1", "4");
  add_workload(MakeGangWorkload("low", 2));
  add_member("low-0", "low", "1", 5);
  add_member("low-1", "low", "1", 5);
  settle();
  ASSERT_EQ(bound_per_workload()["low"], 2);
  add_running("single", "n1", "2", 5, 1);  // started before the gang's members: still less important
  add_workload(MakeGangWorkload("high", 1));
  add_member("high-0", "high", "2", 100);
  run_cycles();
  EXPECT_EQ(client.deletes(), (std::vector<std::string>{"default/single"}));
  apply_deletes();
  settle();
  EXPECT_EQ(bound_per_workload()["high"], 1);
  EXPECT_EQ(bound_per_workload()["low"], 2);

}

// A gang is never preempted below its minimum: when evicting one member would make room, the gang
// still goes whole (upstream's PodGroup disruption mode).
TEST_F(PodGroupCycleTest, AGangVictimGoesWholeEvenWhenOneMemberWouldDo) {
  add_node("n1", "4");
  add_running("keeper", "n1", "2", 2000, 1);  // higher than the preemptor: never a victim
  add_workload(MakeGangWorkload("low", 2));
  add_member("low-0", "low", "1", 5);
  add_member("low-1", "low", "1", 5);
  settle();
  ASSERT_EQ(bound_per_workload()["low"], 2);
  add_workload(MakeGangWorkload("high", 1));
  add_member("high-0", "high", "1", 1000);
  run_cycles();
  auto d = apply_deletes();
  std::set<std::string> victims(d.begin(), d.end());
  EXPECT_EQ(victims, (std::set<std::string>{"low-0", "low-1"}));
  settle();
  EXPECT_EQ(bound_per_workload()["high"], 1);
  EXPECT_EQ(bound_per_workload()["low"], 0);
  EXPECT_NE(pods.count("keeper"), 0u);
}

// Upstream isPreemptionAllowed and preemptorEligibleToPreemptOthers: no victim of equal or higher
// priority; a group whose member says preemptionPolicy Never does not preempt. The group stays
// pending with its message and the preemption's reason.
TEST_F(PodGroupCycleTest, NoPreemptionOfEqualPriorityOrWithPreemptionPolicyNever) {
  add_node("n1", "2");
  add_running("peer", "n1", "2", 100, 1);
  add_workload(MakeGangWorkload("same", 1));
  add_member("same-0", "same", "1", 100);
  settle();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(bound_per_workload()["same"], 0);
  EXPECT_EQ(last_condition_message("default/same-0"),
            "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, No preemption victims found for incoming preemptor");

  add_workload(MakeGangWorkload("polite", 1));
  add_member("polite-0", "polite", "1", 1000, "Never");
  settle();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(bound_per_workload()["polite"], 0);
  EXPECT_EQ(last_condition_message("default/polite-0"),
            "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, not eligible due to preemptionPolicy=Never.");
}

// Preemption that cannot make room (the group does not fit even on empty nodes) evicts nothing.
TEST_F(PodGroupCycleTest, NoPreemptionWhenEvenAllVictimsGoneTheGangDoesNotFit) {
  add_node("n1", "2");
  add_running("low", "n1", "1", 0, 1);
  add_workload(MakeGangWorkload("huge", 2));
  add_member("huge-0", "huge", "2", 1000);
  add_member("huge-1", "huge", "2", 1000);
  settle();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(bound_per_workload()["huge"], 0);
  EXPECT_NE(pods.count("low"), 0u);
  // Attempts counted by their final code; nothing evicted, so no victims observed.
  const std::string text = registry.expose();
  EXPECT_NE(text.find("scheduler_workload_preemption_attempts_total{result=\"Unschedulable\"} "), std::string::npos) << text;
  EXPECT_EQ(text.find("scheduler_workload_preemption_attempts_total{result=\"Success\"}"), std::string::npos) << text;
  EXPECT_EQ(text.find("scheduler_workload_preemption_victims_count 1"), std::string::npos) << text;
  EXPECT_EQ(text.find("scheduler_preemption_execution_duration_seconds_count{"), std::string::npos) << text;
}

// Randomized: after every step each gang has none or at least minCount members bound.
//
// With scheduler restarts mid-group: what the pod-group cycle guarantees is its decision (all
// members of the placement committed, or none), as upstream's; the bindings that follow are
// asynchronous API calls, so a scheduler that dies after committing a gang may leave only some of
// its members bound (a state no scheduler decision made, and that no scheduler can undo: it does
// not unbind pods). What is asserted then: the restarted scheduler never makes a gang partial (a
// gang with none bound, or at least minCount, stays so after every step), and it binds more
// members of a gang the crash left partial only to bring it to minCount or beyond (it counts the
// bound members as scheduled), never to another partial count.
TEST_F(PodGroupCycleTest, RandomizedGangsAreNeverPartiallyBound) {
  std::mt19937 rng(2026);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  struct Gang {
    std::string name;
    int size = 0, min = 0, added = 0;
    std::int32_t priority = 0;
    bool workload = false;
  };
  std::vector<Gang> gangs;
  std::map<std::string, int> left_partial;  // gangs a crash left with 0 < bound < minCount
  int node_seq = 0, restarts = 0, completed_after_restart = 0;
  std::size_t lost_bindings = 0;
  for (int i = 0; i < 2; ++i) add_node("node-" + std::to_string(node_seq++), "4");

  for (int step = 0; step < 400; ++step) {
    const int action = uniform(0, 9);
    if (action == 0 && gangs.size() < 25) {
      Gang g;
      g.name = "gang-" + std::to_string(gangs.size());
      g.size = uniform(1, 8);
      g.min = uniform(1, g.size);
      // Priorities make later gangs preempt earlier ones (workload-aware preemption).
      g.priority = std::array<std::int32_t, 3>{0, 10, 100}[uniform(0, 2)];
      gangs.push_back(g);
    } else if (action <= 5 && !gangs.empty()) {
      // A member, or the Workload, of a random gang arrives (in any order).
      Gang& g = gangs[uniform(0, int(gangs.size()) - 1)];
      if (!g.workload && (g.added == g.size || uniform(0, 2) == 0)) {
        add_workload(MakeGangWorkload(g.name, g.min));
        g.workload = true;
      } else if (g.added < g.size) {
        add_member(g.name + "-" + std::to_string(g.added++), g.name, std::to_string(uniform(1, 3)), g.priority);
      }
    } else if (action == 6 && uniform(0, 1) == 0) {
      add_node("node-" + std::to_string(node_seq++), "4");
    } else if (action == 7 && nodes.size() > 1) {
      // Remove a node nothing is bound to (a node's pods would be lost with it: not a placement).
      std::set<std::string> used;
      for (const auto& [n, p] : pods)
        if (!p->spec.nodeName.empty()) used.insert(p->spec.nodeName);
      for (const auto& [name, n] : nodes) {
        if (!used.count(name)) {
          remove_node(name);
          break;
        }
      }
    } else if (action == 8) {
      let_time_pass();
    }
    // Half the times the step above made pods due (a gang reached its quorum or gained room), the
    // scheduler dies in the first cycle that binds, with only some of its bindings stored.
    if (sched->queue().counts().active > 0 && uniform(0, 1) == 0) {
      lost_bindings += crash_mid_group_and_restart(rng);
      ++restarts;
      auto bound = bound_per_workload();
      for (const auto& g : gangs) {
        const int b = bound[g.name];
        if (b > 0 && b < g.min) left_partial[g.name] = b;  // the crash's doing, not a decision
      }
    }
    settle();
    auto bound = bound_per_workload();
    for (const auto& g : gangs) {
      const int b = bound[g.name];
      auto partial = left_partial.find(g.name);
      if (partial != left_partial.end() && b >= g.min) {
        ++completed_after_restart;
        left_partial.erase(partial);
        partial = left_partial.end();
      }
      const bool unchanged_since_crash = partial != left_partial.end() && b == partial->second;
      ASSERT_TRUE(b == 0 || b >= g.min || unchanged_since_crash)
          << "step " << step << ": " << g.name << " has " << b << " of minCount " << g.min << " bound";
    }
    ASSERT_EQ(sched->cache().assumed_pod_count(), 0) << "step " << step;
  }
  // The run placed gangs, and left some pending (the check above was not vacuous).
  int placed = 0, pending = 0;
  auto bound = bound_per_workload();
  for (const auto& g : gangs) (bound[g.name] > 0 ? placed : pending)++;
  EXPECT_GT(placed, 5);
  EXPECT_GT(pending, 0);
  // Restarts happened (this crowded cluster seldom has room when one does: the next test has).
  EXPECT_GT(restarts, 10);
  // Preemption happened, and never took part of a gang.
  EXPECT_GT(client.deletes().size(), 0u);
  EXPECT_EQ(partial_evictions, 0);
  std::printf("gangs %zu, placed %d, pending %d, restarts %d, pods preempted %zu\n", gangs.size(), placed, pending,
              restarts, client.deletes().size());
}

// Scheduler restarts mid-group with room to place most gangs: each round a gang arrives (its
// Workload before or after its members), the scheduler dies in the cycle that places it with a
// random number of its bindings stored, and a new scheduler takes over. After every step: no gang
// the crash did not leave partial is partial; a gang it left partial is either unchanged or
// completed to minCount (see the test above for why no more can be promised).
TEST_F(PodGroupCycleTest, RestartsMidGroupNeverMakeAGangPartialAndCompleteTheOnesACrashLeftPartial) {
  std::mt19937 rng(44);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::map<std::string, int> min_of;        // gang -> minCount
  std::map<std::string, int> left_partial;  // gangs a crash left with 0 < bound < minCount
  int node_seq = 0, crashes_leaving_partial = 0, completed_after_restart = 0;
  std::size_t lost = 0;
  for (int i = 0; i < 3; ++i) add_node("node-" + std::to_string(node_seq++), "16");
  for (int round = 0; round < 60; ++round) {
    const std::string name = "gang-" + std::to_string(round);
    const int size = uniform(2, 8), min = uniform(2, size);
    min_of[name] = min;
    const bool workload_first = uniform(0, 1) == 0;
    if (workload_first) add_workload(MakeGangWorkload(name, min));
    const std::string cpu = std::to_string(uniform(1, 3));
    for (int m = 0; m < size; ++m) add_member(name + "-" + std::to_string(m), name, cpu);
    if (!workload_first) add_workload(MakeGangWorkload(name, min));
    if (uniform(0, 2) == 0) add_node("node-" + std::to_string(node_seq++), "16");
    lost += crash_mid_group_and_restart(rng);
    auto bound = bound_per_workload();
    for (const auto& [g, m] : min_of) {
      if (bound[g] > 0 && bound[g] < m && !left_partial.count(g)) {
        left_partial[g] = bound[g];
        ++crashes_leaving_partial;
      }
    }
    if (uniform(0, 3) == 0) let_time_pass();
    settle();
    bound = bound_per_workload();
    for (const auto& [g, m] : min_of) {
      const int b = bound[g];
      auto partial = left_partial.find(g);
      if (partial != left_partial.end() && b >= m) {
        ++completed_after_restart;
        left_partial.erase(partial);
        partial = left_partial.end();
      }
      const bool unchanged_since_crash = partial != left_partial.end() && b == partial->second;
      ASSERT_TRUE(b == 0 || b >= m || unchanged_since_crash)
          << "round " << round << ": " << g << " has " << b << " of minCount " << m << " bound";
    }
    ASSERT_EQ(sched->cache().assumed_pod_count(), 0) << "round " << round;
  }
  // Not vacuous: crashes lost bindings, left gangs partial, and later schedulers completed some.
  EXPECT_GT(lost, 10u);
  EXPECT_GT(crashes_leaving_partial, 3);
  EXPECT_GT(completed_after_restart, 0);
  std::printf("bindings lost %zu; crashes that left a gang partial %d, of which completed later %d, still partial %zu\n",
              lost, crashes_leaving_partial, completed_after_restart, left_partial.size());
}

}  // namespace
}  // namespace ksched::scheduler

namespace ksched::scheduler {
namespace {

using testing::MakePodGroup;

// v1.37 (KEP-5832): pods name a scheduling.k8s.io/v1beta1 PodGroup in spec.schedulingGroup; they
// wait in PreEnqueue for the PodGroup (upstream preEnqueueHierarchiesDisabled's message), its
// PodGroup/Add moves them, the gang is placed in one cycle, and the scheduler writes
// PodGroupInitiallyScheduled=True, reason Scheduled (upstream TestSubmitPodGroupAlgorithmResult,
// "All pods feasible").
TEST_F(PodGroupCycleTest, PodGroupMembersWaitForTheirPodGroupThenBindWholeAndItIsMarkedScheduled) {
  add_node("n1", "4");
  add_node("n2", "4");
  for (const char* n : {"p0", "p1", "p2", "p3"}) add_pg_member(n, "pg", "1");
  auto q = sched->queue().get(*pods.at("p0"));
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->gated);
  EXPECT_FALSE(sched->schedule_one_if_pending());
  sched->on_pod_group_add(MakePodGroup("pg", 4));  // PodGroup/Add moves the members
  EXPECT_EQ(sched->queue().counts().active, 4u);
  ASSERT_TRUE(sched->schedule_one_if_pending());  // one pop: the whole group
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  EXPECT_EQ(client.binds().size(), 4u);
  auto patches = client.pod_group_patches();
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].podGroup, "default/pg");
  EXPECT_EQ(patches[0].condition.type, "PodGroupInitiallyScheduled");
  EXPECT_EQ(patches[0].condition.status, "True");
  EXPECT_EQ(patches[0].condition.reason, "Scheduled");
  EXPECT_EQ(patches[0].condition.message, "");
  EXPECT_TRUE(patches[0].condition.lastTransitionTime.has_value());
}

// Upstream TestSubmitPodGroupAlgorithmResult ("All pods unschedulable", "Already Scheduled,
// rejected cycle does not regress condition") on a gang whose minimum does not fit: it stays
// pending whole with the group's message, the PodGroup says False/Unschedulable with the same
// message (written once while unchanged), and once Nodes are added it binds whole and turns True.
TEST_F(PodGroupCycleTest, APodGroupGangThatDoesNotFitIsMarkedUnschedulableThenScheduledOnNewNodes) {
  add_node("n1", "4");
  auto pg = MakePodGroup("big", 4);
  sched->on_pod_group_add(pg);
  for (const char* n : {"w0", "w1", "w2", "w3"}) add_pg_member(n, "big", "2");  // 8 CPUs on 4
  settle();
  EXPECT_EQ(client.binds().size(), 0u);
  EXPECT_EQ(sched->cache().assumed_pod_count(), 0);
  const std::string why =
      "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, No preemption victims found for incoming preemptor";
  EXPECT_EQ(last_condition_message("default/w0"), why);
  EXPECT_EQ(last_condition_message("default/w3"), why);
  auto patches = client.pod_group_patches();
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].condition.status, "False");
  EXPECT_EQ(patches[0].condition.reason, "Unschedulable");
  EXPECT_EQ(patches[0].condition.message, why);
  confirm_pod_group_status(pg);  // the informer shows the condition; minCount unchanged: no move
  let_time_pass();
  settle();
  EXPECT_EQ(client.binds().size(), 0u);
  EXPECT_EQ(client.pod_group_patches().size(), 1u);  // the same condition is not written again

  add_node("n2", "4");
  settle();
  EXPECT_EQ(client.binds().size(), 4u);
  patches = client.pod_group_patches();
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[1].condition.status, "True");
  EXPECT_EQ(patches[1].condition.reason, "Scheduled");
  confirm_pod_group_status(pg);

  // A later member that does not fit fails on its own; the condition stays True (terminal).
  add_pg_member("w4", "big", "4");
  settle();
  EXPECT_EQ(client.binds().size(), 4u);
  EXPECT_EQ(client.pod_group_patches().size(), 2u);
}

// Upstream isSchedulableAfterPodGroupUpdated: lowering a gang's minCount lets the members that
// already exist through; a pod with both schedulingGroup and workloadRef goes by its PodGroup.
TEST_F(PodGroupCycleTest, LoweringAPodGroupsMinCountMovesItsMembersAndSchedulingGroupWinsOverWorkloadRef) {
  add_node("n1", "8");
  auto pg = MakePodGroup("pg", 4);
  sched->on_pod_group_add(pg);
  sched->on_workload_add(MakeGangWorkload("job", 1));  // would let each member through alone
  for (const char* n : {"a", "b"}) add_pg_member(n, "pg", "1");
  api::Pod both = MakePod().Name("c").UID("c").Req({{"cpu", "1"}}).PodGroupName("pg").WorkloadRef("job", "workers").Obj();
  both.spec.schedulerName = "default-scheduler";
  auto c = std::make_shared<const api::Pod>(std::move(both));
  lister.add_pod(c);
  pods["c"] = c;
  sched->on_pod_add(c);
  EXPECT_EQ(sched->queue().counts().gated, 3u);  // 3 of the PodGroup's 4
  EXPECT_FALSE(sched->schedule_one_if_pending());
  auto lowered = MakePodGroup("pg", 3);
  sched->on_pod_group_update(pg, lowered);
  EXPECT_EQ(sched->queue().counts().active, 3u);
  settle();
  EXPECT_EQ(client.binds().size(), 3u);
}


// ---- A PodGroup's own priority, preemptionPolicy and disruptionMode in workload-aware preemption
// (upstream's newest framework/preemption: newPodGroupPreemptor, resolvePreemptionPolicy,
// getHighestAllAncestor, NewPodVictim, getPodPriority; util.PodGroupPriority).

// A PodGroup with those fields set, in "default".
std::shared_ptr<const api::schedulingv1beta1::PodGroup> pod_group(const std::string& name, int min_count,
                                                                  std::optional<std::int32_t> priority,
                                                                  bool disrupt_all = false,
                                                                  const std::string& preemption_policy = {}) {
  auto pg = std::make_shared<api::schedulingv1beta1::PodGroup>(*MakePodGroup(name, min_count));
  pg->spec.priority = priority;
  auto& mode = pg->spec.disruptionMode.emplace();
  if (disrupt_all) {
    mode.all.emplace();
  } else {
    mode.single.emplace();
  }
  if (!preemption_policy.empty()) pg->spec.preemptionPolicy = preemption_policy;
  return pg;
}

std::map<std::string, int> bound_per_pod_group(const std::map<std::string, framework::PodPtr>& pods) {
  std::map<std::string, int> out;
  for (const auto& [name, p] : pods) {
    if (!p->spec.nodeName.empty() && p->spec.schedulingGroup && p->spec.schedulingGroup->podGroupName) {
      ++out[*p->spec.schedulingGroup->podGroupName];
    }
  }
  return out;
}

// Upstream "pod group with higher priority preempts a lower pod group" on PodGroups: the
// preemptor's priority is the PodGroup's (its pods carry none), the victim's its PodGroup's, and a
// victim PodGroup with disruptionMode all goes whole although one member's room would do.
TEST_F(PodGroupCycleTest, APodGroupsOwnPriorityPreemptsALowerPodGroupWithDisruptionModeAllWhole) {
  add_node("n1", "4");
  sched->on_pod_group_add(pod_group("low", 2, 10, /*disrupt_all=*/true));
  add_pg_member("low-0", "low", "2");
  add_pg_member("low-1", "low", "2");
  settle();
  ASSERT_EQ(bound_per_pod_group(pods)["low"], 2);
  sched->on_pod_group_add(pod_group("high", 1, 1000));
  add_pg_member("high-0", "high", "2");  // pod priority 0: only the PodGroup's 1000 can preempt
  run_cycles();
  auto d = apply_deletes();
  EXPECT_EQ(std::set<std::string>(d.begin(), d.end()), (std::set<std::string>{"low-0", "low-1"}));
  bool event = false;
  for (const auto& e : client.events()) event = event || e.note == "Preempted by podgroup uid-high on node cluster";
  EXPECT_TRUE(event);
  settle();
  EXPECT_EQ(bound_per_pod_group(pods)["high"], 1);
  EXPECT_EQ(bound_per_pod_group(pods)["low"], 0);
}

// Upstream's newest queue orders a PodGroup as one entity by the PodGroup's priority (PrioritySort's
// Less on QueuedEntityInfo, util.PodGroupPriority), not by its pods': a PodGroup of 100 whose pods
// carry 0 is placed before plain pods of 50, which go before a PodGroup of 10 created first. Room for
// four pods: the high gang and the plain pods take it without any preemption, and the low gang
// waits (ordered by its pods' 0, the low gang would have been placed first and the high gang would
// then have evicted it).
TEST_F(PodGroupCycleTest, TheHigherPodGroupIsPlacedFirstThoughItsPodsCarryPriorityZero) {
  add_node("n1", "4");
  sched->on_pod_group_add(pod_group("low", 2, 10));
  add_pg_member("low-0", "low", "1");
  add_pg_member("low-1", "low", "1");
  clock.step(1ms);
  for (const char* name : {"plain-0", "plain-1"}) {
    api::Pod p = MakePod().Name(name).UID(name).Req({{"cpu", "1"}}).Obj();
    p.spec.schedulerName = "default-scheduler";
    p.spec.priority = 50;
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    lister.add_pod(ptr);
    pods[name] = ptr;
    sched->on_pod_add(ptr);
  }
  clock.step(1ms);
  sched->on_pod_group_add(pod_group("high", 2, 100));
  add_pg_member("high-0", "high", "1");
  add_pg_member("high-1", "high", "1");
  settle();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(bound_per_pod_group(pods)["high"], 2);
  EXPECT_EQ(bound_per_pod_group(pods)["low"], 0);
  EXPECT_FALSE(pods.at("plain-0")->spec.nodeName.empty());
  EXPECT_FALSE(pods.at("plain-1")->spec.nodeName.empty());
}

// disruptionMode single (the API's default): the victim PodGroup's pods are units of their own, so
// only what the preemptor needs goes.
TEST_F(PodGroupCycleTest, APodGroupWithDisruptionModeSingleLosesOnlyThePodsThePreemptorNeeds) {
  add_node("n1", "4");
  sched->on_pod_group_add(pod_group("low", 2, 10, /*disrupt_all=*/false));
  add_pg_member("low-0", "low", "2");
  add_pg_member("low-1", "low", "2");
  settle();
  ASSERT_EQ(bound_per_pod_group(pods)["low"], 2);
  sched->on_pod_group_add(pod_group("high", 1, 1000));
  add_pg_member("high-0", "high", "2");
  run_cycles();
  EXPECT_EQ(apply_deletes().size(), 1u);
  settle();
  EXPECT_EQ(bound_per_pod_group(pods)["high"], 1);
  EXPECT_EQ(bound_per_pod_group(pods)["low"], 1);
}

// The victim's priority is its PodGroup's, not its pods': pods of priority 0 in a PodGroup of
// priority 2000 are not victims of a PodGroup of 1000; a PodGroup without priority is 0
// (util.PodGroupPriority) and preempts nothing even when its pods say 5000.
TEST_F(PodGroupCycleTest, PriorityComesFromThePodGroupNotItsPods) {
  add_node("n1", "2");
  sched->on_pod_group_add(pod_group("keeper", 1, 2000));
  add_pg_member("keeper-0", "keeper", "2");
  settle();
  ASSERT_EQ(bound_per_pod_group(pods)["keeper"], 1);
  sched->on_pod_group_add(pod_group("mid", 1, 1000));
  add_pg_member("mid-0", "mid", "2");
  settle();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(last_condition_message("default/mid-0"),
            "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, No preemption victims found for incoming preemptor");

  sched->on_pod_group_add(pod_group("unset", 1, std::nullopt));
  api::Pod p = MakePod().Name("unset-0").UID("unset-0").Req({{"cpu", "2"}}).PodGroupName("unset").Obj();
  p.spec.schedulerName = "default-scheduler";
  p.spec.priority = 5000;
  auto ptr = std::make_shared<const api::Pod>(std::move(p));
  lister.add_pod(ptr);
  pods["unset-0"] = ptr;
  sched->on_pod_add(ptr);
  settle();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(bound_per_pod_group(pods)["keeper"], 1);
}

// resolvePreemptionPolicy: with PodGroupPreemptionPolicy the PodGroup's preemptionPolicy Never
// keeps it from preempting (its pods saying nothing); without the gate the PodGroup's field is not
// read and a member's Never decides.
TEST_F(PodGroupCycleTest, APodGroupWithPreemptionPolicyNeverNeverPreempts) {
  config::Features f = gang_features();
  f.podGroupPreemptionPolicy = true;
  config::ScopedFeatures with_gate(f);
  add_node("n1", "2");
  sched->on_pod_group_add(pod_group("low", 1, 0));
  add_pg_member("low-0", "low", "2");
  settle();
  sched->on_pod_group_add(pod_group("polite", 1, 1000, false, "Never"));
  add_pg_member("polite-0", "polite", "2");
  settle();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(last_condition_message("default/polite-0"),
            "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, not eligible due to preemptionPolicy=Never.");

  // The same PodGroup without the gate: its field is ignored, and its pods say nothing: it preempts.
  config::Features off = gang_features();
  off.podGroupPreemptionPolicy = false;
  config::ScopedFeatures without_gate(off);
  sched->on_pod_group_add(pod_group("rude", 1, 1000, false, "Never"));
  add_pg_member("rude-0", "rude", "2");
  run_cycles();
  bool by_rude = false;
  for (const auto& e : client.events()) by_rude = by_rude || e.note == "Preempted by podgroup uid-rude on node cluster";
  EXPECT_TRUE(by_rude);
  EXPECT_EQ(apply_deletes(), (std::vector<std::string>{"low-0"}));
}

// Upstream addPodGroupMember (pendingPodGroupPods) and AddAttemptedPodGroupIfNotPresent: a member
// created while its gang is in its cycle is held, neither queued nor tried on its own; the gang
// fails (room for one of its two members), and the held member backs off with it instead of being
// tried at once; once there is room the three are bound together in one cycle.
TEST_F(PodGroupCycleTest, AMemberCreatedDuringItsGangsFailedCycleBacksOffWithTheGangAndIsBoundWithIt) {
  with_mid_cycle_hook = true;
  start_scheduler(11);
  add_node("n1", "2");
  sched->on_pod_group_add(MakePodGroup("pg", 2));
  add_pg_member("m0", "pg", "2");
  add_pg_member("m1", "pg", "2");
  std::optional<std::size_t> held_mid_cycle;
  bool queued_mid_cycle = true;
  mid_cycle = [&] {
    add_pg_member("m2", "pg", "2");
    held_mid_cycle = sched->queue().counts().held;
    queued_mid_cycle = sched->queue().where(*pods.at("m2")).has_value();
  };
  ASSERT_TRUE(sched->schedule_one_if_pending());  // the gang's cycle: m0 fits, m1 does not
  ASSERT_TRUE(held_mid_cycle.has_value()) << "the hook did not run";
  EXPECT_EQ(*held_mid_cycle, 1u);
  EXPECT_FALSE(queued_mid_cycle);
  EXPECT_EQ(client.binds().size(), 0u);
  EXPECT_EQ(sched->queue().counts().held, 0u);
  EXPECT_EQ(sched->queue().where(*pods.at("m2")), queue::QueueName::Backoff) << "backs off with its gang";
  auto m2 = sched->queue().get(*pods.at("m2"));
  auto m0 = sched->queue().get(*pods.at("m0"));
  ASSERT_TRUE(m2 && m0);
  EXPECT_EQ(m2->group, m0->group);
  EXPECT_EQ(m2->group->unschedulableCount, 1) << "one failed attempt of the gang";

  add_node("n2", "4");
  let_time_pass();
  ASSERT_TRUE(sched->schedule_one_if_pending());  // one cycle places the gang whole
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  EXPECT_EQ(client.binds().size(), 3u);
}

// Upstream TestScheduleOnePodGroup_FinishesAttemptWhenAllPoppedPodsAreAssumed ("pending member is
// requeued"): a member created while its gang is being placed is held; when the gang is placed it
// goes to activeQ and is bound next, beside the gang.
TEST_F(PodGroupCycleTest, AMemberCreatedDuringItsGangsPlacedCycleIsQueuedAfterItAndBoundBesideIt) {
  with_mid_cycle_hook = true;
  start_scheduler(11);
  add_node("n1", "8");
  sched->on_pod_group_add(MakePodGroup("pg", 2));
  add_pg_member("m0", "pg", "1");
  add_pg_member("m1", "pg", "1");
  std::optional<std::size_t> held_mid_cycle;
  mid_cycle = [&] {
    add_pg_member("m2", "pg", "1");
    held_mid_cycle = sched->queue().counts().held;
  };
  ASSERT_TRUE(sched->schedule_one_if_pending());
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  ASSERT_TRUE(held_mid_cycle.has_value()) << "the hook did not run";
  EXPECT_EQ(*held_mid_cycle, 1u);
  EXPECT_EQ(client.binds().size(), 2u);
  EXPECT_EQ(sched->queue().where(*pods.at("m2")), queue::QueueName::Active);
  run_cycles();
  EXPECT_EQ(client.binds().size(), 3u);
}

}  // namespace
}  // namespace ksched::scheduler
