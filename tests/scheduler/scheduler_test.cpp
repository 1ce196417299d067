// Scheduling cycle end to end over the in-tree plugins, an in-memory client and lister, a fake
// clock and an inline parallelizer: binding, FitError texts, requeue on events, gates, profiles,
// binding failures and preemption.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "scheduler/config/defaults.h"
#include "scheduler/config/features.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler/plugins/dynamicresources/dynamicresources.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_options.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler {
namespace {

using namespace std::chrono_literals;
using testing::MakeNode;
using testing::MakePod;

// The default configuration, plus a copy of its profile under each extra scheduler name.
config::KubeSchedulerConfiguration test_config(const std::vector<std::string>& extra_profiles = {}) {
  auto cfg = config::default_configuration();
  for (const auto& name : extra_profiles) {
    auto p = cfg.profiles.front();
    p.schedulerName = name;
    cfg.profiles.push_back(p);
  }
  return cfg;
}

class SchedulerTest : public ::testing::Test {
 protected:
  // `tweak` adjusts the options before the scheduler is created (feature gates, ...).
  void start(const config::KubeSchedulerConfiguration& cfg, const std::function<void(SchedulerOptions&)>& tweak = {}) {
    auto o = test_scheduler_options(clock, metrics, /*seed=*/7, /*binding_workers=*/2);
    if (tweak) tweak(o);
    auto reg = new_in_tree_registry();
    if (extra_plugins) extra_plugins(reg);
    auto s = Scheduler::create(cfg, reg, client, lister, o);
    ASSERT_TRUE(s.ok()) << s.error();
    sched = std::move(*s);
  }
  void SetUp() override { start(test_config()); }

  void add_node(const api::Node& n) { sched->on_node_add(std::make_shared<const api::Node>(n)); }
  // The API server defaults schedulerName; the builders leave it empty.
  static api::Pod defaulted(api::Pod p) {
    if (p.spec.schedulerName.empty()) p.spec.schedulerName = "default-scheduler";
    return p;
  }
  framework::PodPtr add_pod(const api::Pod& p) {
    auto ptr = std::make_shared<const api::Pod>(defaulted(p));
    lister.add_pod(ptr);
    sched->on_pod_add(ptr);
    return ptr;
  }
  void update_pod(const framework::PodPtr& old_pod, const api::Pod& p) {
    auto ptr = std::make_shared<const api::Pod>(defaulted(p));
    lister.add_pod(ptr);
    sched->on_pod_update(old_pod, ptr);
  }
  // One scheduling cycle plus its binding cycle. False when nothing was pending.
  // One scheduling cycle, then its binding cycle and any asynchronous preemption it started.
  bool cycle() {
    bool ran = sched->schedule_one_if_pending();
    EXPECT_TRUE(sched->wait_for_bindings(10s));
    sched->wait_for_preemptions();
    return ran;
  }
  std::vector<testing::FakeClusterClient::Event> events_with(const std::string& reason) {
    std::vector<testing::FakeClusterClient::Event> out;
    for (auto& e : client.events())
      if (e.reason == reason) out.push_back(e);
    return out;
  }
  double counter(const std::string& result, const std::string& profile = "default-scheduler") {
    return metrics.scheduleAttempts.with({result, profile}).value();
  }

  util::FakeClock clock;
  testing::FakeClusterLister lister;
  testing::FakeClusterClient client;
  metrics::Registry registry;
  metrics::SchedulerMetrics metrics{registry};
  std::function<void(framework::Registry&)> extra_plugins;  // out-of-tree plugins for a test
  // Places a 2-CPU pod where two of three nodes fit it (the third has one CPU); returns the
  // metrics exposition after that cycle.
  std::string place_on_two_fitting_nodes_of_three() {
    add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
    add_node(MakeNode().Name("n2").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
    add_node(MakeNode().Name("full").Capacity({{"cpu", "1"}, {"pods", "10"}}).Obj());
    add_pod(MakePod().Name("p").Req({{"cpu", "2"}}).Obj());
    EXPECT_TRUE(cycle());
    EXPECT_EQ(client.binds().size(), 1u);
    return registry.expose();
  }
  // The same placement on a scheduler that times every cycle, Filter on one node visit in
  // `filter_timing_stride`.
  std::string place_with_every_cycle_timed(int filter_timing_stride) {
    start(test_config(), [&](SchedulerOptions& o) {
      o.plugin_metrics_sample_percent = 100;
      o.filter_timing_stride = filter_timing_stride;
    });
    return place_on_two_fitting_nodes_of_three();
  }
  static constexpr const char* kFitFilterDurationCount =
      "scheduler_plugin_execution_duration_seconds_count{extension_point=\"Filter\",plugin=\"NodeResourcesFit\",status=";
  // Starts a scheduler whose profile also enables the test's own plugin object at `point`.
  void start_with_plugin(std::string name, std::shared_ptr<framework::Plugin> plugin,
                         config::PluginSet config::Plugins::*point) {
    extra_plugins = [name, plugin](framework::Registry& r) {
      (void)r.add(name, [plugin](const framework::PluginArgs&,
                                 framework::Handle&) -> util::Result<std::shared_ptr<framework::Plugin>> { return plugin; });
    };
    auto cfg = test_config();
    (cfg.profiles.front().plugins.*point).enabled.push_back({name, std::nullopt});
    start(cfg);
  }
  std::unique_ptr<Scheduler> sched;
};

// A Reserve plugin that asks the scheduler to activate a given pod (as a coscheduling plugin
// activates the rest of a gang), through the cycle state's PodsToActivate.
class ActivatorPlugin final : public framework::ReservePlugin {
 public:
  std::string_view name() const override { return "Activator"; }
  framework::Status reserve(framework::CycleState& state, const api::Pod&, const std::string&) override {
    auto* p = state.read<framework::PodsToActivate>(framework::kPodsToActivateKey);
    if (!p) return framework::Status::error("no PodsToActivate in the cycle state");
    if (target) p->add(target);
    return {};
  }
  void unreserve(framework::CycleState&, const api::Pod&, const std::string&) override {}
  framework::PodPtr target;
};

// Records which cycle-state entries the binding cycle still sees.
class StateProbePlugin final : public framework::PreBindPlugin {
 public:
  std::string_view name() const override { return "StateProbe"; }
  framework::Status pre_bind(framework::CycleState& state, const api::Pod&, const std::string&) override {
    for (const char* key : {"PreFilterNodeResourcesFit", "PreScoreNodeResourcesFit", "PreFilterNodeAffinity",
                            "PreScoreTaintToleration", "PreFilterNodePorts"}) {
      if (state.read<framework::StateData>(key) != nullptr) seen.push_back(key);
    }
    if (state.read<framework::PodsToActivate>(framework::kPodsToActivateKey) != nullptr) seen.push_back("PodsToActivate");
    skip_sets_empty = state.skip_filter_plugins.empty() && state.skip_score_plugins.empty();
    return {};
  }
  std::vector<std::string> seen;
  bool skip_sets_empty = false;
};

TEST(SchedulerHelpers, NumFeasibleNodesToFind) {
  EXPECT_EQ(num_feasible_nodes_to_find(std::nullopt, 0, 10), 10);
  EXPECT_EQ(num_feasible_nodes_to_find(std::nullopt, 0, 150), 100);   // 50-1=49% of 150 = 73 → floor 100
  EXPECT_EQ(num_feasible_nodes_to_find(std::nullopt, 0, 5000), 500);  // 50-40=10%
  EXPECT_EQ(num_feasible_nodes_to_find(std::nullopt, 0, 6000), 300);  // 50-48=2% → 5%
  EXPECT_EQ(num_feasible_nodes_to_find(std::nullopt, 30, 1000), 300);
  EXPECT_EQ(num_feasible_nodes_to_find(50, 30, 1000), 500);  // profile wins
}

TEST(SchedulerHelpers, TruncateMessage) {
  std::string short_msg(1024, 'a');
  EXPECT_EQ(truncate_message(short_msg), short_msg);
  std::string long_msg(1500, 'b');
  auto t = truncate_message(long_msg);
  EXPECT_EQ(t.size(), 1024u);
  EXPECT_EQ(t.substr(1020), " ...");
}

TEST(SchedulerHelpers, NodeUpdateEvents) {
  auto old_node = MakeNode().Name("n").Capacity({{"cpu", "1"}}).Unschedulable(true).Obj();
  auto new_node = old_node;
  new_node.spec.unschedulable = false;
  new_node.metadata.labels.set("a", "b");
  auto events = node_scheduling_property_change(new_node, old_node);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].label, "NodeSpecUnschedulableChange");
  EXPECT_EQ(events[1].label, "NodeLabelChange");
  // Cordoning emits nothing.
  EXPECT_TRUE(node_scheduling_property_change(old_node, new_node).size() == 1);  // label change only
}

TEST_F(SchedulerTest, BindsPodToTheNodeThatFits) {
  add_node(MakeNode().Name("small").Capacity({{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "10"}}).Obj());
  add_node(MakeNode().Name("big").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("p").Req({{"cpu", "2"}}).Obj());
  ASSERT_TRUE(cycle());
  auto binds = client.binds();
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds[0].pod, "default/p");
  EXPECT_EQ(binds[0].node, "big");
  auto scheduled = events_with("Scheduled");
  ASSERT_EQ(scheduled.size(), 1u);
  EXPECT_EQ(scheduled[0].type, "Normal");
  EXPECT_EQ(scheduled[0].action, "Binding");
  EXPECT_EQ(scheduled[0].note, "Successfully assigned default/p to big");
  EXPECT_EQ(counter("scheduled"), 1);
  EXPECT_EQ(sched->cache().assumed_pod_count(), 1);  // until the informer confirms the binding
  EXPECT_FALSE(cycle());
}

// SchedulePod is replaceable (upstream's sched.SchedulePod): the scheduling cycle assumes, reserves
// and binds whatever node it names, and a FitError it returns goes to PostFilter and the failure
// handler as the algorithm's own would.
TEST_F(SchedulerTest, AReplacedSchedulePodDecidesTheNode) {
  std::vector<std::string> asked;
  start(test_config(), [&](SchedulerOptions& o) {
    o.schedule_pod = [&](framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                         ScheduleResult& result, std::optional<framework::FitError>& fit) {
      asked.push_back(pod.metadata.name);
      // PreFilter writes what the Reserve plugins (VolumeBinding) read later in the cycle.
      framework::PreFilterResult pre;
      std::set<std::string> with_nodes;
      if (auto s = fwk.run_pre_filter_plugins(state, pod, pre, with_nodes); !s.is_success()) return s;
      if (pod.metadata.name == "nowhere") {
        fit.emplace();
        fit->pod = std::make_shared<api::Pod>(pod);
        fit->numAllNodes = 2;
        fit->diagnosis.nodeToStatus.set("small", framework::Status::unschedulable("chosen elsewhere"));
        fit->diagnosis.nodeToStatus.set("big", framework::Status::unschedulable("chosen elsewhere"));
        return framework::Status(framework::Code::Unschedulable, fit->error());
      }
      result.suggestedHost = "small";  // not where the default algorithm would go
      result.evaluatedNodes = 2;
      result.feasibleNodes = 1;
      return framework::Status();
    };
  });
  add_node(MakeNode().Name("small").Capacity({{"cpu", "1"}, {"pods", "10"}}).Obj());
  add_node(MakeNode().Name("big").Capacity({{"cpu", "8"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("p").Req({{"cpu", "100m"}}).Obj());
  ASSERT_TRUE(cycle());
  auto binds = client.binds();
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds[0].node, "small");
  EXPECT_EQ(sched->cache().assumed_pod_count(), 1);

  add_pod(MakePod().Name("nowhere").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(asked, (std::vector<std::string>{"p", "nowhere"}));
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  // PostFilter ran on the replacement's FitError; it found no nodes, since updating the snapshot
  // is the algorithm's work (upstream's schedulePod), which the replacement did not do.
  EXPECT_EQ(failed[0].note, "0/2 nodes are available: 2 chosen elsewhere. preemption: no nodes available");
  EXPECT_EQ(counter("unschedulable"), 1);
}

TEST_F(SchedulerTest, NoNodes) {
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].note, "no nodes available to schedule pods");
  EXPECT_EQ(counter("unschedulable"), 1);
  // Nothing in particular rejected it: it retries after backoff.
  EXPECT_EQ(sched->queue().where(MakePod().Name("p").Obj()), queue::QueueName::Backoff);
}

// Pod-level resources end to end through the scheduler: on a 4-CPU node, a pod with pod-level
// cpu 3 (containers 500m) binds and is assumed with 3; the next, pod level 2 (containers 100m),
// is unschedulable with upstream's "Insufficient cpu", though the containers alone would fit.
TEST_F(SchedulerTest, PodLevelRequestsAreScheduledAndAccounted) {
  add_node(MakeNode().Name("n").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("big").Req({{"cpu", "500m"}}).PodLevelReq({{"cpu", "3"}}).Obj());
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].node, "n");
  add_pod(MakePod().Name("second").Req({{"cpu", "100m"}}).PodLevelReq({{"cpu", "2"}}).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(client.binds().size(), 1u);
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  const std::string fit_text = "0/1 nodes are available: 1 Insufficient cpu.";
  EXPECT_EQ(failed[0].note.substr(0, fit_text.size()), fit_text);
  // A third pod whose pod level fits what is left (1 CPU) binds.
  add_pod(MakePod().Name("third").Req({{"cpu", "100m"}}).PodLevelReq({{"cpu", "1"}}).Obj());
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 2u);
  EXPECT_EQ(client.binds()[1].node, "n");
}

TEST_F(SchedulerTest, FitErrorTextConditionAndRequeueOnNodeAdd) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "10"}}).Obj());
  add_node(MakeNode().Name("n2").Capacity({{"cpu", "4"}, {"pods", "10"}}).Taint("dedicated", "gpu", "NoSchedule").Obj());
  add_node(MakeNode().Name("n3").Capacity({{"cpu", "4"}, {"pods", "10"}}).Taint("dedicated", "gpu", "NoSchedule").Obj());
  auto pod = add_pod(MakePod().Name("p").Req({{"cpu", "2"}}).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].type, "Warning");
  EXPECT_EQ(failed[0].action, "Scheduling");
  const std::string fit_text =
      "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s).";
  EXPECT_EQ(failed[0].note.substr(0, fit_text.size()), fit_text);
  if (sched->profile("default-scheduler")->has_post_filter_plugins()) {
    EXPECT_EQ(failed[0].note,
              // v1.35's DynamicResources runs first at PostFilter and says why it did not help.
              fit_text + " no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
                         "2 Preemption is not helpful for scheduling.");
  }
  auto patches = client.patches();
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_TRUE(patches[0].condition.has_value());
  EXPECT_EQ(patches[0].condition->type, "PodScheduled");
  EXPECT_EQ(patches[0].condition->status, "False");
  EXPECT_EQ(patches[0].condition->reason, "Unschedulable");
  EXPECT_EQ(patches[0].condition->message, failed[0].note);
  EXPECT_EQ(sched->queue().where(*pod), queue::QueueName::Unschedulable);
  EXPECT_EQ(metrics.unschedulablePods.with({"NodeResourcesFit", "default-scheduler"}).value(), 1);
  EXPECT_EQ(metrics.unschedulablePods.with({"TaintToleration", "default-scheduler"}).value(), 1);

  // A node that helps neither rejector (too small for NodeResourcesFit, tainted for
  // TaintToleration) does not requeue it: both hints say Skip.
  add_node(MakeNode().Name("tiny").Capacity({{"cpu", "1"}, {"pods", "10"}}).Taint("dedicated", "gpu", "NoSchedule").Obj());
  EXPECT_EQ(sched->queue().where(*pod), queue::QueueName::Unschedulable);
  // A big enough node does; the pod goes to backoffQ (its 1 s backoff is not over), and since
  // activeQ is empty the next cycle pops it from there at once (SchedulerPopFromBackoffQ).
  add_node(MakeNode().Name("n4").Capacity({{"cpu", "8"}, {"pods", "10"}}).Obj());
  EXPECT_EQ(sched->queue().where(*pod), queue::QueueName::Backoff);
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].node, "n4");
}

TEST_F(SchedulerTest, UnchangedConditionIsNotPatchedAgain) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"pods", "10"}}).Obj());
  auto pod = add_pod(MakePod().Name("p").Req({{"cpu", "2"}}).Obj());
  ASSERT_TRUE(cycle());
  auto patches = client.patches();
  ASSERT_EQ(patches.size(), 1u);
  // The informer now carries the condition the scheduler wrote.
  api::Pod with_cond = *pod;
  with_cond.metadata.resourceVersion = "2";
  with_cond.status.conditions.push_back(*patches[0].condition);
  update_pod(pod, with_cond);
  sched->queue().activate({std::make_shared<const api::Pod>(with_cond)});
  ASSERT_TRUE(cycle());
  EXPECT_EQ(events_with("FailedScheduling").size(), 2u);
  EXPECT_EQ(client.patches().size(), 1u);
}

TEST_F(SchedulerTest, GatedPodWaitsForGateRemoval) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  auto pod = add_pod(MakePod().Name("g").SchedulingGates({"example.com/hold"}).Obj());
  EXPECT_EQ(sched->queue().counts().gated, 1u);
  EXPECT_FALSE(cycle());
  api::Pod ungated = *pod;
  ungated.spec.schedulingGates.clear();
  ungated.metadata.resourceVersion = "2";
  update_pod(pod, ungated);
  EXPECT_EQ(sched->queue().counts().gated, 0u);
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].pod, "default/g");
}

TEST_F(SchedulerTest, SkipsDeletingPod) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("d").Terminating().Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].note, "skip schedule deleting pod: default/d");
}

TEST_F(SchedulerTest, MultipleProfilesAndForeignSchedulers) {
  start(test_config({"other-scheduler"}));
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("mine").SchedulerName("other-scheduler").Obj());
  add_pod(MakePod().Name("foreign").SchedulerName("somebody-else").Obj());
  EXPECT_EQ(sched->queue().counts().active, 1u);
  ASSERT_TRUE(cycle());
  EXPECT_FALSE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].pod, "default/mine");
  EXPECT_EQ(counter("scheduled", "other-scheduler"), 1);
  EXPECT_EQ(counter("scheduled", "default-scheduler"), 0);
}

TEST_F(SchedulerTest, BindingFailureForgetsAndRequeues) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  auto pod = add_pod(MakePod().Name("p").Obj());
  client.bind_error = framework::Status::error("connection refused");
  ASSERT_TRUE(cycle());
  EXPECT_EQ(sched->cache().assumed_pod_count(), 0);
  EXPECT_EQ(sched->queue().where(*pod), queue::QueueName::Backoff);
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].note.find("connection refused"), std::string::npos) << failed[0].note;
  ASSERT_EQ(client.patches().size(), 1u);
  EXPECT_EQ(client.patches()[0].condition->reason, "SchedulerError");
  EXPECT_EQ(counter("error"), 1);

  client.bind_error = framework::Status();
  // An error (no plugin rejected the pod) waits out its backoff even with activeQ empty; 1 s,
  // counted in the backoff queue's 1 s windows.
  EXPECT_FALSE(cycle());
  clock.step(2s);
  sched->queue().flush_backoff_q_completed();
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].node, "n1");
}

// Bindings queued while others are on the wire go out together, in one ClusterClient::bind_all,
// and each pod's binding cycle ends as it would alone.
TEST_F(SchedulerTest, BindingsQueuedWhileOthersAreOnTheWireGoOutTogether) {
  for (const char* n : {"n1", "n2", "n3"}) add_node(MakeNode().Name(n).Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  client.hold_binds();
  for (int i = 0; i < 6; ++i) add_pod(MakePod().Name("p" + std::to_string(i)).Obj());
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(sched->schedule_one_if_pending());
  // At most two batches are held on the wire (two runners); the rest queue behind them.
  client.release_binds();
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  std::set<std::string> bound;
  for (const auto& b : client.binds()) bound.insert(b.pod);
  EXPECT_EQ(bound.size(), 6u);
  EXPECT_EQ(client.binds().size(), 6u);
  EXPECT_EQ(events_with("Scheduled").size(), 6u);
  auto sizes = client.bind_all_sizes();
  ASSERT_FALSE(sizes.empty()) << "no bindings went out together";
  EXPECT_GE(*std::max_element(sizes.begin(), sizes.end()), 2u);
  EXPECT_EQ(counter("scheduled"), 6);
}

// One failed binding in a batch fails that pod alone: it is forgotten and backs off, with its
// FailedScheduling event; the others are bound.
TEST_F(SchedulerTest, AFailedBindingInABatchFailsOnlyItsPod) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  client.bind_error = framework::Status::error("pods \"p2\" is being deleted");
  client.fail_binds_of = {"p2"};
  client.hold_binds();
  std::vector<framework::PodPtr> pods;
  for (int i = 0; i < 5; ++i) pods.push_back(add_pod(MakePod().Name("p" + std::to_string(i)).Obj()));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(sched->schedule_one_if_pending());
  client.release_binds();
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  std::set<std::string> bound;
  for (const auto& b : client.binds()) bound.insert(b.pod);
  EXPECT_EQ(bound, (std::set<std::string>{"default/p0", "default/p1", "default/p3", "default/p4"}));
  auto sizes = client.bind_all_sizes();
  ASSERT_FALSE(sizes.empty());
  EXPECT_GE(*std::max_element(sizes.begin(), sizes.end()), 2u);
  EXPECT_EQ(sched->queue().where(*pods[2]), queue::QueueName::Backoff);
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].regarding, "default/p2");
  EXPECT_NE(failed[0].note.find("is being deleted"), std::string::npos) << failed[0].note;
  EXPECT_EQ(counter("scheduled"), 4);
  EXPECT_EQ(counter("error"), 1);
}

// A Permit plugin that parks the pod named "gated".
class GatePermitPlugin final : public framework::PermitPlugin {
 public:
  std::string_view name() const override { return "Gate"; }
  framework::Status permit(framework::CycleState&, const api::Pod& pod, const std::string&,
                           std::chrono::milliseconds& timeout) override {
    if (pod.metadata.name != "gated") return {};
    timeout = std::chrono::minutes(10);
    return framework::Status(framework::Code::Wait);
  }
};

// A binding that waits on Permit runs alone: bindings scheduled after it do not wait for it.
TEST_F(SchedulerTest, APodWaitingOnPermitHoldsUpNoOtherBinding) {
  start_with_plugin("Gate", std::make_shared<GatePermitPlugin>(), &config::Plugins::permit);
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  auto gated = add_pod(MakePod().Name("gated").UID("uid-gated").Priority(10).Obj());
  add_pod(MakePod().Name("a").Obj());
  add_pod(MakePod().Name("b").Obj());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sched->schedule_one_if_pending());
  ASSERT_TRUE(client.wait_for_binds(2, 10s));
  std::set<std::string> bound;
  for (const auto& b : client.binds()) bound.insert(b.pod);
  EXPECT_EQ(bound, (std::set<std::string>{"default/a", "default/b"}));
  auto waiting = sched->profile("default-scheduler")->get_waiting_pod("uid-gated");
  ASSERT_TRUE(waiting);
  waiting->allow("Gate");
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  ASSERT_EQ(client.binds().size(), 3u);
  EXPECT_EQ(client.binds().back().pod, "default/gated");
}

// NominatedNodeNameForExpectation (beta, on in v1.35): a pod that will wait on Permit gets its
// node as status.nominatedNodeName before the wait; a pod bound right away gets no such patch.
TEST_F(SchedulerTest, NominatedNodeNameIsSetBeforeAPermitWait) {
  start_with_plugin("Gate", std::make_shared<GatePermitPlugin>(), &config::Plugins::permit);
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("gated").UID("uid-gated").Priority(10).Obj());
  add_pod(MakePod().Name("a").Obj());
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(sched->schedule_one_if_pending());
  ASSERT_TRUE(client.wait_for_binds(1, 10s));
  auto waiting = sched->profile("default-scheduler")->get_waiting_pod("uid-gated");
  ASSERT_TRUE(waiting);
  waiting->allow("Gate");
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  ASSERT_EQ(client.binds().size(), 2u);
  std::vector<std::string> nominated;
  for (const auto& p : client.patches())
    if (p.nominatedNodeName) nominated.push_back(p.pod + "=" + *p.nominatedNodeName);
  EXPECT_EQ(nominated, (std::vector<std::string>{"default/gated=n1"}));
}

TEST_F(SchedulerTest, WithoutNominatedNodeNameForExpectationAPermitWaitSetsNoNomination) {
  config::Features f = config::features();
  f.nominatedNodeNameForExpectation = false;
  config::ScopedFeatures gates(f);
  start_with_plugin("Gate", std::make_shared<GatePermitPlugin>(), &config::Plugins::permit);
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("gated").UID("uid-gated").Obj());
  ASSERT_TRUE(sched->schedule_one_if_pending());
  auto waiting = sched->profile("default-scheduler")->get_waiting_pod("uid-gated");
  ASSERT_TRUE(waiting);
  waiting->allow("Gate");
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_TRUE(client.patches().empty());
}

// A PreBind plugin with a configurable pre-flight answer.
class PreFlightPlugin final : public framework::PreBindPlugin {
 public:
  std::string_view name() const override { return "PreFlight"; }
  framework::Status pre_bind(framework::CycleState&, const api::Pod&, const std::string&) override {
    ++pre_binds;
    return {};
  }
  framework::Status pre_bind_pre_flight(const framework::CycleState&, const api::Pod&, const std::string&) override {
    return answer;
  }
  framework::Status answer;
  std::atomic<int> pre_binds{0};
};

// A PreBind plugin that will work (pre-flight Success) also calls for the nomination; one whose
// pre-flight answers what it may not (Unschedulable) fails the binding cycle with upstream's error.
TEST_F(SchedulerTest, PreBindPreFlightDecidesTheNominationAndCanFailTheBinding) {
  auto plugin = std::make_shared<PreFlightPlugin>();
  start_with_plugin("PreFlight", plugin, &config::Plugins::preBind);
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("works").Obj());
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  ASSERT_EQ(client.patches().size(), 1u);
  EXPECT_EQ(client.patches()[0].pod, "default/works");
  EXPECT_EQ(client.patches()[0].nominatedNodeName, std::optional<std::string>("n1"));
  EXPECT_EQ(plugin->pre_binds, 1);

  // A pre-flight Skip skips the plugin's PreBind (upstream SkipPreBindPlugins).
  plugin->answer = framework::Status::skip();
  add_pod(MakePod().Name("skipped").Obj());
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 2u);
  EXPECT_EQ(plugin->pre_binds, 1);

  plugin->answer = framework::Status::unschedulable("no");
  auto bad = add_pod(MakePod().Name("bad").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(client.binds().size(), 2u);
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].note,
            "PreBindPreFlight PreFlight returned \"Unschedulable\", which is "
            "unsupported. It is supposed to return Success, Skip, or Error status");
  EXPECT_EQ(sched->queue().where(*bad), queue::QueueName::Backoff);
}

TEST_F(SchedulerTest, PodsToActivateMovesPodsToActiveQueue) {
  auto activator = std::make_shared<ActivatorPlugin>();
  start_with_plugin("Activator", activator, &config::Plugins::reserve);
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  auto big = add_pod(MakePod().Name("big").Req({{"cpu", "4"}}).Obj());
  ASSERT_TRUE(cycle());
  ASSERT_EQ(sched->queue().where(*big), queue::QueueName::Unschedulable);
  // Scheduling another pod whose Reserve asks for `big` moves it to activeQ right away, without
  // any cluster event or backoff.
  activator->target = big;
  add_pod(MakePod().Name("small").Req({{"cpu", "1"}}).Obj());
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].pod, "default/small");
  EXPECT_EQ(sched->queue().where(*big), queue::QueueName::Active);
}

// The in-tree plugins' PreFilter/PreScore data is let go on the scheduling thread before the
// binding cycle (only Filter and Score read it); what a binding extension point reads stays.
TEST_F(SchedulerTest, BindingCycleSeesNoFilterOrScoreData) {
  auto probe = std::make_shared<StateProbePlugin>();
  start_with_plugin("StateProbe", probe, &config::Plugins::preBind);
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_node(MakeNode().Name("n2").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("p").Req({{"cpu", "1"}}).Obj());
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(probe->seen, std::vector<std::string>{"PodsToActivate"});
  EXPECT_TRUE(probe->skip_sets_empty);
}

TEST_F(SchedulerTest, PluginEvaluationsAreExposed) {
  std::string text = place_on_two_fitting_nodes_of_three();
  // NodeResourcesFit filters all three nodes and scores the two that fit.
  EXPECT_NE(text.find("scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin=\"NodeResourcesFit\","
                      "profile=\"default-scheduler\"} 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler_plugin_evaluation_total{extension_point=\"Score\",plugin=\"NodeResourcesFit\","
                      "profile=\"default-scheduler\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_plugin_evaluation_total{extension_point=\"PreFilter\",plugin=\"NodeResourcesFit\","
                      "profile=\"default-scheduler\"} 1\n"),
            std::string::npos);
}

// InterPodAffinity's quick rejection passes over the nodes its anti-affinity rules out without
// running the other Filter plugins there; when no node fits, each of those nodes still reports
// the first plugin, in the configured order, that rejects it.
TEST_F(SchedulerTest, QuicklyRejectedNodesReportTheirFirstRejectingPlugin) {
  const std::string host = "kubernetes.io/hostname";
  add_node(MakeNode().Name("tainted").Label(host, "tainted").Capacity({{"cpu", "4"}, {"pods", "10"}})
               .Taint("dedicated", "gpu", "NoSchedule").Obj());
  add_node(MakeNode().Name("plain").Label(host, "plain").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  add_node(MakeNode().Name("small").Label(host, "small").Capacity({{"cpu", "1"}, {"pods", "10"}}).Obj());
  add_node(MakeNode().Name("free").Label(host, "free").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  for (const char* n : {"tainted", "plain", "small"}) add_pod(MakePod().Name(std::string("web-") + n).Label("app", "web").Node(n).Obj());
  auto spread = [&](const std::string& name) {
    return MakePod().Name(name).Label("app", "web").Req({{"cpu", "2"}})
        .PodAntiAffinityIn("app", host, {"web"}, testing::AffinityKind::Required).Obj();
  };

  // The one node without a web pod: the other three are passed over, TaintToleration runs on one node.
  add_pod(spread("first"));
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].node, "free");
  const std::string text = registry.expose();
  auto evaluations = [&](const std::string& plugin) {
    const std::string key = "scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin=\"" + plugin +
                            "\",profile=\"default-scheduler\"} ";
    const auto at = text.find(key);
    return at == std::string::npos ? -1 : std::stoi(text.substr(at + key.size()));
  };
  EXPECT_EQ(evaluations("InterPodAffinity"), 4);  // three quick rejections and the walk on "free"
  EXPECT_EQ(evaluations("TaintToleration"), 1);

  // Now every node holds a web pod: each reports the plugin that rejects it first.
  add_pod(spread("second"));
  ASSERT_TRUE(cycle());
  EXPECT_EQ(client.binds().size(), 1u);
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  const std::string fit_text =
      "0/4 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), "
      "2 node(s) didn't match pod anti-affinity rules.";
  EXPECT_EQ(failed[0].note.substr(0, fit_text.size()), fit_text) << failed[0].note;
}

// What a randomized workload did, pod by pod: the node each pod was bound to, or the text of its
// FailedScheduling event. Nodes differ in CPU, taints, zones and schedulability; pods in CPU,
// tolerations and required anti-affinity to their own group by hostname or by zone.
std::vector<std::string> run_anti_affinity_workload(bool quick_rejection, std::uint64_t seed) {
  util::FakeClock clock;
  testing::FakeClusterLister lister;
  testing::FakeClusterClient client;
  metrics::Registry registry;
  metrics::SchedulerMetrics metrics{registry};
  auto o = test_scheduler_options(clock, metrics, /*seed=*/7, /*binding_workers=*/2);
  o.quick_rejection = quick_rejection;
  auto created = Scheduler::create(test_config(), new_in_tree_registry(), client, lister, o);
  EXPECT_TRUE(created.ok());
  if (!created.ok()) return {};
  auto& sched = **created;
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  const std::string host = "kubernetes.io/hostname";
  for (int i = 0; i < 40; ++i) {
    const std::string name = "n" + std::to_string(i);
    auto node = MakeNode().Name(name).Label(host, name).Label("zone", "z" + std::to_string(pick(6)))
                    .Capacity({{"cpu", std::to_string(1 + pick(4))}, {"pods", "20"}});
    if (pick(4) == 0) node.Taint("dedicated", "gpu", "NoSchedule");
    if (pick(10) == 0) node.Unschedulable(true);
    sched.on_node_add(std::make_shared<const api::Node>(node.Obj()));
  }
  std::vector<std::string> outcomes;
  for (int i = 0; i < 120; ++i) {
    const std::string group = "g" + std::to_string(pick(5));
    auto pod = MakePod().Name("p" + std::to_string(i)).Label("app", group).Req({{"cpu", pick(2) == 0 ? "500m" : "1"}});
    if (pick(3) != 0) pod.PodAntiAffinityIn("app", pick(4) == 0 ? "zone" : host, {group}, testing::AffinityKind::Required);
    if (pick(4) == 0) pod.Toleration("dedicated", "Equal", "gpu", "NoSchedule");
    api::Pod p = pod.Obj();
    p.spec.schedulerName = "default-scheduler";
    auto ptr = std::make_shared<const api::Pod>(p);
    lister.add_pod(ptr);
    sched.on_pod_add(ptr);
    const std::size_t binds = client.binds().size();
    const std::size_t events = client.events().size();
    EXPECT_TRUE(sched.schedule_one_if_pending());
    EXPECT_TRUE(sched.wait_for_bindings(10s));
    if (client.binds().size() > binds) {
      outcomes.push_back(client.binds().back().pod + " -> " + client.binds().back().node);
    } else {
      const auto all = client.events();
      outcomes.push_back(all.size() > events ? all.back().regarding + ": " + all.back().note : "no outcome");
    }
  }
  return outcomes;
}

TEST(SchedulerQuickRejection, PlacesAndExplainsEveryPodAsTheFullFilterWalkDoes) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto with = run_anti_affinity_workload(true, seed);
    const auto without = run_anti_affinity_workload(false, seed);
    ASSERT_EQ(with.size(), 120u);
    EXPECT_EQ(with, without) << "seed " << seed;
    // The workload must exercise both outcomes for the comparison to mean anything.
    const auto failed = std::count_if(with.begin(), with.end(), [](const std::string& o) { return o.find(": ") != std::string::npos; });
    EXPECT_GT(failed, 0) << "seed " << seed;
    EXPECT_LT(failed, 120) << "seed " << seed;
  }
}

// Filter's per-node timings reach scheduler_plugin_execution_duration_seconds by the bulk path
// (counted per thread, flushed when metrics are collected), one observation per plugin call.
TEST_F(SchedulerTest, FilterDurationsAreExposedPerPluginAndStatus) {
  std::string text = place_with_every_cycle_timed(/*filter_timing_stride=*/1);
  const std::string fit = kFitFilterDurationCount;
  EXPECT_NE(text.find(fit + "\"Success\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find(fit + "\"Unschedulable\"} 1\n"), std::string::npos);
  // A second scrape adds nothing already counted.
  EXPECT_NE(registry.expose().find(fit + "\"Success\"} 2\n"), std::string::npos);
}

// With a stride of 3, one of the three node visits is timed and stands for three calls: the
// counts over both statuses still add up to the calls made.
TEST_F(SchedulerTest, FilterDurationsOfOneVisitInStrideCountForTheStride) {
  std::string text = place_with_every_cycle_timed(/*filter_timing_stride=*/3);
  const std::string fit = kFitFilterDurationCount;
  auto count_of = [&](const std::string& status) -> int {
    const auto at = text.find(fit + "\"" + status + "\"} ");
    if (at == std::string::npos) return 0;
    return std::stoi(text.substr(at + fit.size() + status.size() + 4));
  };
  const int success = count_of("Success");
  const int rejected = count_of("Unschedulable");
  EXPECT_EQ(success + rejected, 3) << text;
  EXPECT_TRUE(success == 3 || rejected == 3) << text;  // one observation, weighted by 3
}

// Nodes left out by a PreFilter node set (NodeAffinity on metadata.name) are rejected in the
// plugin's name, and the pod waits for that plugin's events too.
TEST_F(SchedulerTest, NodesOutsideAPreFilterResultNameThePlugin) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"pods", "10"}}).Obj());
  add_node(MakeNode().Name("n2").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  add_node(MakeNode().Name("n3").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  api::NodeAffinity na;
  na.requiredDuringSchedulingIgnoredDuringExecution.emplace();
  api::NodeSelectorTerm term;
  term.matchFields.push_back(api::NodeSelectorRequirement{"metadata.name", "In", {"n1"}, {}, {}});
  na.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms.push_back(term);
  auto p = add_pod(MakePod().Name("pinned").Req({{"cpu", "2"}}).NodeAffinity(na).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());
  const auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].note.rfind("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
                                 "[NodeAffinity].",
                                 0),
            0u)
      << failed[0].note;
  auto queued = sched->queue().get(*p);
  ASSERT_NE(queued, nullptr);
  EXPECT_EQ(queued->unschedulablePlugins.count("NodeAffinity"), 1u);
  EXPECT_EQ(queued->unschedulablePlugins.count("NodeResourcesFit"), 1u);
}

TEST_F(SchedulerTest, AssignedPodsFillTheCache) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_node(MakeNode().Name("n2").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("running").Node("n1").Req({{"cpu", "2"}}).Obj());
  add_pod(MakePod().Name("p").Req({{"cpu", "1"}}).Obj());
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].node, "n2");
}

TEST_F(SchedulerTest, PreemptionNominatesAndSchedulesAfterVictimLeaves) {
  ASSERT_TRUE(sched->profile("default-scheduler")->has_post_filter_plugins());  // DefaultPreemption
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  auto victim = add_pod(MakePod().Name("low").Node("n1").Priority(1).Req({{"cpu", "2"}}).Obj());
  auto high = add_pod(MakePod().Name("high").Priority(100).Req({{"cpu", "2"}}).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());
  auto deletes = client.deletes();
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0], "default/low");
  // The preemptor is nominated to n1 via its status patch.
  bool nominated = false;
  for (const auto& p : client.patches())
    if (p.pod == "default/high" && p.nominatedNodeName == std::optional<std::string>("n1")) nominated = true;
  EXPECT_TRUE(nominated);
  EXPECT_EQ(metrics.preemptionAttempts.get().value(), 1);
  EXPECT_EQ(metrics.preemptionVictims.get().count(), 1u);
  EXPECT_EQ(metrics.preemptionVictims.get().sum(), 1.0);

  // The victim's deletion frees n1 and requeues the preemptor.
  lister.remove_pod("default", "low");
  sched->on_pod_delete(victim);
  clock.step(1100ms);
  sched->queue().flush_backoff_q_completed();
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].pod, "default/high");
  EXPECT_EQ(client.binds()[0].node, "n1");
}

// SchedulerAsyncPreemption (on in v1.35): the victims are evicted off the scheduling cycle, and
// while that runs DefaultPreemption's PreEnqueue keeps the preemptor out of activeQ; once the
// eviction has started, the victim's deletion moves it as usual.
TEST_F(SchedulerTest, AsyncPreemptionGatesThePreemptorUntilItsVictimsAreEvicted) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  auto victim = add_pod(MakePod().Name("low").UID("low").Node("n1").Priority(1).Req({{"cpu", "2"}}).Obj());
  auto high = add_pod(MakePod().Name("high").UID("high").Priority(100).Req({{"cpu", "2"}}).Obj());
  client.hold_deletes();
  ASSERT_TRUE(sched->schedule_one_if_pending());
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  // The cycle is over while the eviction is still in flight.
  ASSERT_TRUE(client.wait_for_delete_calls(1, 10s));
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(sched->queue().where(*high), queue::QueueName::Unschedulable);
  // Anything that would move it now finds it gated by DefaultPreemption, with upstream's message.
  sched->queue().activate({high});
  EXPECT_EQ(sched->queue().counts().gated, 1u);
  EXPECT_EQ(sched->queue().counts().active, 0u);
  auto info = sched->queue().get(*high);
  ASSERT_NE(info, nullptr);
  EXPECT_TRUE(info->unschedulablePlugins.count("DefaultPreemption"));
  auto* dp = dynamic_cast<framework::PreEnqueuePlugin*>(sched->profile("default-scheduler")->plugin("DefaultPreemption").get());
  ASSERT_NE(dp, nullptr);
  EXPECT_EQ(dp->pre_enqueue(*high).message(), "waiting for the preemption for this pod to be finished");

  client.release_deletes();
  sched->wait_for_preemptions();
  EXPECT_EQ(client.deletes(), (std::vector<std::string>{"default/low"}));
  EXPECT_TRUE(dp->pre_enqueue(*high).is_success());
  ASSERT_NE(metrics.preemptionGoroutinesExecution, nullptr);
  EXPECT_EQ(metrics.preemptionGoroutinesExecution->with({"success"}).value(), 1);
  // The victim's deletion (an event DefaultPreemption registered for the pods it gates) frees n1;
  // NodeResourcesFit's hint moves the preemptor, which now passes PreEnqueue. A gated pod is not
  // backing off (upstream isPodBackingoff), so it goes straight to activeQ.
  lister.remove_pod("default", "low");
  sched->on_pod_delete(victim);
  EXPECT_EQ(sched->queue().counts().gated, 0u);
  EXPECT_EQ(sched->queue().where(*high), queue::QueueName::Active);
  ASSERT_TRUE(cycle());
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].pod, "default/high");
  EXPECT_EQ(client.binds()[0].node, "n1");
}

// An eviction that fails leaves nothing to move the preemptor: it is activated (upstream's
// deferred Activate on a goroutine error).
TEST_F(SchedulerTest, AsyncPreemptionFailureActivatesThePreemptor) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("low").UID("low").Node("n1").Priority(1).Req({{"cpu", "2"}}).Obj());
  auto high = add_pod(MakePod().Name("high").UID("high").Priority(100).Req({{"cpu", "2"}}).Obj());
  client.delete_error = framework::Status::error("boom");
  // The eviction fails only once the cycle has requeued the pod (else the activation would find
  // it in flight and it would go to backoffQ: upstream's ForceActivate of an in-flight pod).
  client.hold_deletes();
  ASSERT_TRUE(sched->schedule_one_if_pending());
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  ASSERT_TRUE(client.wait_for_delete_calls(1, 10s));
  EXPECT_EQ(sched->queue().where(*high), queue::QueueName::Unschedulable);
  client.release_deletes();
  sched->wait_for_preemptions();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(sched->queue().where(*high), queue::QueueName::Active);
  EXPECT_EQ(metrics.preemptionGoroutinesExecution->with({"error"}).value(), 1);
}

// With the gate off the preemption is synchronous: the victim is gone when the cycle returns,
// DefaultPreemption never gates, registers no event, and the goroutine metrics are not registered.
TEST_F(SchedulerTest, PreemptionWithoutAsyncGateEvictsInTheCycle) {
  sched.reset();
  config::Features f = config::features();
  f.schedulerAsyncPreemption = false;
  config::ScopedFeatures gates(f);
  metrics::Registry reg;
  metrics::SchedulerMetrics m(reg);
  EXPECT_EQ(m.preemptionGoroutinesExecution, nullptr);
  start(test_config());
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("low").UID("low").Node("n1").Priority(1).Req({{"cpu", "2"}}).Obj());
  auto high = add_pod(MakePod().Name("high").UID("high").Priority(100).Req({{"cpu", "2"}}).Obj());
  ASSERT_TRUE(sched->schedule_one_if_pending());
  EXPECT_EQ(client.deletes(), (std::vector<std::string>{"default/low"}));
  auto* dp = dynamic_cast<framework::PreEnqueuePlugin*>(sched->profile("default-scheduler")->plugin("DefaultPreemption").get());
  ASSERT_NE(dp, nullptr);
  EXPECT_TRUE(dp->pre_enqueue(*high).is_success());
  EXPECT_TRUE(sched->profile("default-scheduler")->events_to_register().at("DefaultPreemption").empty());
  ASSERT_TRUE(sched->wait_for_bindings(10s));
}

// SchedulerAsyncAPICalls (beta, off in v1.35): the binding and the failed pod's status patch go
// through the dispatcher, and its three metrics exist only with the gate on.
TEST_F(SchedulerTest, AsyncAPICallsBindAndPatchThroughTheDispatcher) {
  sched.reset();
  config::Features f = config::features();
  f.schedulerAsyncAPICalls = true;
  config::ScopedFeatures gates(f);
  metrics::Registry reg;
  metrics::SchedulerMetrics m(reg);
  ASSERT_NE(m.asyncAPICallsTotal, nullptr);
  EXPECT_EQ(metrics.asyncAPICallsTotal, nullptr);  // built before the gate was on
  start(test_config(), [&](SchedulerOptions& o) { o.metrics = &m; });
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("fits").Req({{"cpu", "1"}}).Obj());
  add_pod(MakePod().Name("too-big").Req({{"cpu", "4"}}).Obj());
  ASSERT_TRUE(cycle());
  ASSERT_TRUE(cycle());
  ASSERT_TRUE(sched->wait_for_api_calls(10s));
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].pod, "default/fits");
  auto patches = client.patches();
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].pod, "default/too-big");
  ASSERT_TRUE(patches[0].condition.has_value());
  EXPECT_EQ(patches[0].condition->reason, "Unschedulable");
  EXPECT_EQ(m.asyncAPICallsTotal->with({"pod_binding", "success"}).value(), 1);
  EXPECT_EQ(m.asyncAPICallsTotal->with({"pod_status_patch", "success"}).value(), 1);
  EXPECT_EQ(m.asyncAPIPendingCalls->with({"pod_binding"}).value(), 0);
  const std::string text = reg.expose();
  EXPECT_NE(text.find("scheduler_async_api_call_execution_duration_seconds_count{call_type=\"pod_binding\",result=\"success\"} 1"),
            std::string::npos);
  // A failing binding reports the API's error to the binding cycle, which forgets the pod.
  client.bind_error = framework::Status::error("conflict");
  add_pod(MakePod().Name("second").Req({{"cpu", "1"}}).Obj());
  ASSERT_TRUE(cycle());
  ASSERT_TRUE(sched->wait_for_api_calls(10s));
  EXPECT_EQ(m.asyncAPICallsTotal->with({"pod_binding", "error"}).value(), 1);
  EXPECT_EQ(sched->cache().assumed_pod_count(), 1);  // "fits" only: "second" was forgotten
  sched.reset();  // before the metrics it records into and the gates it was built with
}

// DRAExtendedResource (alpha, off in v1.35): scheduler_resourceclaim_creates_total{status} exists
// only with the gate (upstream registers it then), and a scrape shows DynamicResources' process-wide
// count of the claims PreBind created, per status once it has counted one (as a Go CounterVec).
TEST_F(SchedulerTest, ResourceClaimCreatesTotalWithExtendedResources) {
  sched.reset();
  {
    metrics::Registry off_reg;
    metrics::SchedulerMetrics off(off_reg);
    EXPECT_EQ(off.resourceClaimCreatesTotal, nullptr);
    EXPECT_EQ(off_reg.expose().find("scheduler_resourceclaim_creates_total"), std::string::npos);
  }
  config::Features f = config::features();
  f.draExtendedResource = true;
  config::ScopedFeatures gates(f);
  metrics::Registry reg;
  metrics::SchedulerMetrics m(reg);
  ASSERT_NE(m.resourceClaimCreatesTotal, nullptr);
  start(test_config(), [&](SchedulerOptions& o) { o.metrics = &m; });
  auto& creates = plugins::dynamicresources::resource_claim_creates();
  creates.success.fetch_add(1);  // as PreBind counts a creation
  const std::string text = reg.expose();
  EXPECT_NE(text.find("scheduler_resourceclaim_creates_total{status=\"success\"} " +
                      std::to_string(creates.success.load())),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("scheduler_resourceclaim_creates_total{status=\"failure\"}") == std::string::npos,
            creates.failure.load() == 0);
  sched.reset();  // before the metrics it records into and the gates it was built with
}

TEST_F(SchedulerTest, RunLoopSchedulesInBackground) {
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  // The fake lister is not thread-safe: fill it before the scheduling thread starts.
  add_pod(MakePod().Name("a").Obj());
  add_pod(MakePod().Name("b").Obj());
  sched->run();
  // Wait (bounded) for both bindings.
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (client.binds().size() < 2 && std::chrono::steady_clock::now() < deadline) {
    sched->wait_for_bindings(100ms);
    std::this_thread::yield();
  }
  sched->stop();
  EXPECT_EQ(client.binds().size(), 2u);
}

}  // namespace
}  // namespace ksched::scheduler
