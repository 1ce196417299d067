// Scheduling queue behaviour (upstream backend/queue/scheduling_queue_test.go scenarios), driven by
// a fake clock and direct calls of the flush loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <random>
#include <thread>

#include "scheduler/podgroup/manager.h"
#include "scheduler/queue/heap.h"
#include "scheduler/queue/scheduling_queue.h"

namespace ksched::scheduler::queue {
namespace {

using namespace std::chrono_literals;
using framework::ClusterEvent;
using framework::EventResource;

std::shared_ptr<const api::Pod> make_pod(const std::string& name, int prio = 0, std::vector<std::string> gates = {}) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = name;
  p->metadata.namespace_ = "default";
  p->metadata.uid = "uid-" + name;
  p->spec.schedulerName = "default-scheduler";
  p->spec.priority = prio;
  for (auto& g : gates) {
    api::PodSchedulingGate sg;
    sg.name = g;
    p->spec.schedulingGates.push_back(sg);
  }
  return p;
}

// A member of the PodGroup `pod_group` (spec.schedulingGroup.podGroupName).
std::shared_ptr<const api::Pod> make_pg_pod(const std::string& name, const std::string& pod_group, int prio = 0) {
  auto p = std::make_shared<api::Pod>(*make_pod(name, prio));
  p->spec.schedulingGroup.emplace().podGroupName = pod_group;
  return p;
}

std::shared_ptr<const api::Node> make_node(const std::string& name) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  return n;
}

// PreEnqueue plugin that gates pods with scheduling gates, like SchedulingGates.
class FakeGates final : public framework::PreEnqueuePlugin {
 public:
  std::string_view name() const override { return "SchedulingGates"; }
  framework::Status pre_enqueue(const api::Pod& pod) override {
    if (pod.spec.schedulingGates.empty()) return {};
    return framework::Status::unresolvable("waiting for scheduling gates");
  }
};

class RecordingMetrics final : public QueueMetricsRecorder {
 public:
  void incoming_pod(std::string_view q, std::string_view e) override {
    std::lock_guard l(mu);
    incoming[std::string(q) + "/" + std::string(e)]++;
  }
  void pending_pods(std::string_view q, std::int64_t v) override {
    std::lock_guard l(mu);
    pending[std::string(q)] = v;
  }
  void unschedulable_reason(std::string_view pl, std::string_view, int d) override {
    std::lock_guard l(mu);
    reasons[std::string(pl)] += d;
  }
  void in_flight_events(std::string_view e, int d) override {
    std::lock_guard l(mu);
    in_flight[std::string(e)] += d;
  }
  void queueing_hint(std::string_view pl, std::string_view e, std::string_view hint, double) override {
    std::lock_guard l(mu);
    hints.push_back(std::string(pl) + "/" + std::string(e) + "/" + std::string(hint));
  }
  std::mutex mu;
  std::map<std::string, int> incoming;
  std::map<std::string, std::int64_t> pending;
  std::map<std::string, int> reasons;
  std::map<std::string, int> in_flight;
  std::vector<std::string> hints;
};

ClusterEvent node_add() { return make_event(EventResource::Node, framework::kAdd, "NodeAdd"); }
ClusterEvent pv_add() { return make_event(EventResource::PersistentVolume, framework::kAdd, "PvAdd"); }

class QueueTest : public ::testing::Test {
 protected:
  std::unique_ptr<PriorityQueue> make_queue() {
    QueueOptions o;
    o.clock = &clock;
    o.pop_from_backoff_q = pop_from_backoff;
    o.metrics = &metrics;
    o.pre_enqueue_plugins["default-scheduler"] = {std::make_shared<FakeGates>()};
    for (const auto& pl : extra_pre_enqueue) o.pre_enqueue_plugins["default-scheduler"].push_back(pl);
    // "NodeFit" wants node adds, and only of nodes named "good".
    framework::ClusterEventWithHint reg;
    reg.event = framework::ClusterEvent{EventResource::Node, framework::kAdd, ""};
    reg.hint = [](const api::Pod&, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& n) {
      auto node = std::static_pointer_cast<const api::Node>(n);
      return node && node->metadata.name == "good" ? framework::QueueingHint::Queue : framework::QueueingHint::Skip;
    };
    framework::ClusterEventWithHint gates;
    gates.event = framework::ClusterEvent{EventResource::Pod, framework::kUpdatePodSchedulingGatesEliminated, ""};
    o.plugin_events["default-scheduler"]["NodeFit"] = {reg};
    o.plugin_events["default-scheduler"]["SchedulingGates"] = {gates};
    for (auto& [name, regs] : extra_events) o.plugin_events["default-scheduler"][name] = regs;
    o.unschedulable_indexes = indexes;
    o.pod_lookup = [this](std::string_view ns, std::string_view name) -> framework::PodPtr {
      std::lock_guard l(lookup_mu);
      auto it = informer_pods.find(std::string(ns) + "/" + std::string(name));
      return it == informer_pods.end() ? nullptr : it->second;
    };
    if (group_ordering) {
      o.pod_group_priority = [this](std::string_view ns, std::string_view name) -> std::optional<std::int32_t> {
        std::lock_guard l(lookup_mu);
        auto it = pod_group_priorities.find(std::string(ns) + "/" + std::string(name));
        if (it == pod_group_priorities.end()) return std::nullopt;
        return it->second;
      };
    }
    return std::make_unique<PriorityQueue>(std::move(o));
  }
  void set_pod_group_priority(const std::string& name, std::int32_t prio) {
    std::lock_guard l(lookup_mu);
    pod_group_priorities["default/" + name] = prio;
  }
  std::vector<std::string> pop_all(PriorityQueue& q) {
    std::vector<std::string> order;
    while (auto p = q.try_pop()) order.push_back(p->pod().metadata.name);
    return order;
  }

  // Pops a pod and fails it with the given rejector.
  QueuedPodInfoPtr pop_and_fail(PriorityQueue& q, const std::string& plugin, bool pending = false) {
    auto p = q.try_pop();
    EXPECT_NE(p, nullptr);
    if (!p) return nullptr;
    if (!plugin.empty()) (pending ? p->pendingPlugins : p->unschedulablePlugins).insert(plugin);
    return p;
  }

  util::FakeClock clock;
  bool pop_from_backoff = true;
  RecordingMetrics metrics;
  PluginEventMap extra_events;
  std::vector<std::shared_ptr<framework::PreEnqueuePlugin>> extra_pre_enqueue;
  std::vector<UnschedulablePodIndex> indexes;
  std::mutex lookup_mu;
  std::map<std::string, framework::PodPtr> informer_pods;
  bool group_ordering = false;  // QueueOptions::pod_group_priority, as with GangScheduling
  std::map<std::string, std::int32_t> pod_group_priorities;  // "<ns>/<name>" -> spec.priority
};

TEST_F(QueueTest, PopOrdersByPriorityThenTimestamp) {
  auto q = make_queue();
  q->add(make_pod("low", 1));
  clock.step(1ms);
  q->add(make_pod("high", 10));
  clock.step(1ms);
  q->add(make_pod("low2", 1));
  clock.step(1ms);
  q->add(make_pod("mid", 5));
  std::vector<std::string> order;
  while (auto p = q->try_pop()) order.push_back(p->pod().metadata.name);
  EXPECT_EQ(order, (std::vector<std::string>{"high", "mid", "low", "low2"}));
  EXPECT_EQ(q->scheduling_cycle(), 4);
}

TEST_F(QueueTest, PopIncrementsAttemptsAndSetsInitialAttempt) {
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = q->try_pop();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->attempts, 1);
  ASSERT_TRUE(p->initialAttemptTimestamp.has_value());
  EXPECT_EQ(*p->initialAttemptTimestamp, clock.now());
  EXPECT_EQ(q->counts().inFlight, 1u);
  q->done(p->pod().metadata.uid);
  EXPECT_EQ(q->counts().inFlight, 0u);
}

TEST_F(QueueTest, PopBlocksUntilAddAndCloseWakesIt) {
  auto q = make_queue();
  std::atomic<bool> got{false};
  std::thread t([&] {
    auto p = q->pop();
    got = p && p->pod().metadata.name == "a";
  });
  q->add(make_pod("a"));
  t.join();
  EXPECT_TRUE(got);

  std::atomic<bool> null_after_close{false};
  std::thread t2([&] { null_after_close = q->pop() == nullptr; });
  q->close();
  t2.join();
  EXPECT_TRUE(null_after_close);
}

// Upstream calculateBackoffDuration / getBackoffTime: the count is the pod's unschedulable count,
// or its consecutive error count when that is non-zero; no failure, no backoff.
TEST_F(QueueTest, BackoffDurationDoublesAndCaps) {
  auto q = make_queue();
  framework::QueuedPodInfo p;
  std::vector<std::chrono::nanoseconds> want = {0s, 1s, 2s, 4s, 8s, 10s, 10s};
  for (int count = 0; count < 7; ++count) {
    p.unschedulableCount = count;
    EXPECT_EQ(q->backoff_duration(p), want[count]) << count;
  }
  p.unschedulableCount = 5;
  p.consecutiveErrorsCount = 1;
  EXPECT_EQ(q->backoff_duration(p), 1s) << "errors decide when there are any";
}

// TestBackoffQueue's window rule: a pod backs off until the 1 s window of "now" is past its
// (window-aligned) expiry, so a 1 s backoff that starts on a window boundary ends 2 s later.
TEST_F(QueueTest, FailedPodWithoutRejectorsWaitsOutBackoff) {
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = pop_and_fail(*q, "");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  EXPECT_EQ(p->consecutiveErrorsCount, 1);
  EXPECT_EQ(p->unschedulableCount, 0);
  EXPECT_EQ(q->where(p->pod()), QueueName::Backoff);
  // A pod that failed with an error is not popped early, even with activeQ empty.
  EXPECT_EQ(q->try_pop(), nullptr);
  clock.step(1999ms);
  q->flush_backoff_q_completed();
  EXPECT_EQ(q->where(p->pod()), QueueName::Backoff);
  clock.step(1ms);
  q->flush_backoff_q_completed();
  EXPECT_EQ(q->where(p->pod()), QueueName::Active);

  // Second error in a row: 2 s backoff.
  p = pop_and_fail(*q, "");
  EXPECT_EQ(p->attempts, 2);
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  EXPECT_EQ(p->consecutiveErrorsCount, 2);
  clock.step(2999ms);
  q->flush_backoff_q_completed();
  EXPECT_EQ(q->where(p->pod()), QueueName::Backoff);
  clock.step(1ms);
  q->flush_backoff_q_completed();
  EXPECT_EQ(q->where(p->pod()), QueueName::Active);
  EXPECT_EQ(metrics.incoming["active/BackoffComplete"], 2);

  // A rejection resets the error count and counts as unschedulable.
  p = pop_and_fail(*q, "NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  EXPECT_EQ(p->consecutiveErrorsCount, 0);
  EXPECT_EQ(p->unschedulableCount, 1);
}

// SchedulerPopFromBackoffQ: with activeQ empty, a rejected pod waiting in backoffQ is popped at
// once; pods whose backoff ends in the same window come out in QueueSort order.
TEST_F(QueueTest, EmptyActiveQueuePopsFromBackoffQueueByWindowThenPriority) {
  auto q = make_queue();
  q->add(make_pod("low", 1));
  q->add(make_pod("high", 10));
  auto high = pop_and_fail(*q, "NodeFit");
  auto low = pop_and_fail(*q, "NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(low, q->scheduling_cycle()).ok());
  clock.step(300ms);  // same window: both back off until the same aligned time
  ASSERT_TRUE(q->add_unschedulable_if_not_present(high, q->scheduling_cycle()).ok());
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  ASSERT_EQ(q->where(low->pod()), QueueName::Backoff);
  ASSERT_EQ(q->where(high->pod()), QueueName::Backoff);
  EXPECT_EQ(low->backoffExpiration, high->backoffExpiration);
  auto first = q->try_pop();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->pod().metadata.name, "high");
  EXPECT_EQ(metrics.incoming["active/PopFromBackoffQ"], 1);
  auto second = q->try_pop();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->pod().metadata.name, "low");
  EXPECT_EQ(q->try_pop(), nullptr);
}

TEST_F(QueueTest, PopFromBackoffQueueOffLeavesBackoffAlone) {
  pop_from_backoff = false;
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = pop_and_fail(*q, "NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  ASSERT_EQ(q->where(p->pod()), QueueName::Backoff);
  EXPECT_EQ(q->try_pop(), nullptr);
  clock.step(1001ms);  // no window: the exact expiry counts
  q->flush_backoff_q_completed();
  EXPECT_EQ(q->where(p->pod()), QueueName::Active);
}

TEST_F(QueueTest, AddUnschedulableRejectsDuplicates) {
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = pop_and_fail(*q, "NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  auto again = q->add_unschedulable_if_not_present(p, q->scheduling_cycle());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(), "Pod default/a is already present in unschedulable queue");
}

TEST_F(QueueTest, RejectedPodMovesOnlyOnHelpfulEvent) {
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = pop_and_fail(*q, "NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  EXPECT_EQ(q->where(p->pod()), QueueName::Unschedulable);
  EXPECT_EQ(metrics.reasons["NodeFit"], 1);

  // Nobody registered PV events: ignored.
  q->move_all_to_active_or_backoff_queue(pv_add(), nullptr, nullptr);
  EXPECT_EQ(q->where(p->pod()), QueueName::Unschedulable);
  // Hint says Skip for this node.
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("bad"));
  EXPECT_EQ(q->where(p->pod()), QueueName::Unschedulable);
  // Hint says Queue: still backing off (rejected just now) → backoffQ.
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  EXPECT_EQ(q->where(p->pod()), QueueName::Backoff);
  EXPECT_EQ(metrics.incoming["backoff/NodeAdd"], 1);
  clock.step(2s);  // the 1 s backoff, in 1 s windows
  q->flush_backoff_q_completed();
  EXPECT_EQ(q->where(p->pod()), QueueName::Active);
  auto again = q->try_pop();
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->unschedulablePlugins.empty());
  EXPECT_EQ(metrics.reasons["NodeFit"], 0);
}

TEST_F(QueueTest, HelpfulEventAfterBackoffGoesStraightToActive) {
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = pop_and_fail(*q, "NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  clock.step(5s);
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  EXPECT_EQ(q->where(p->pod()), QueueName::Active);
}

TEST_F(QueueTest, PendingPluginQueueMeansImmediately) {
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = pop_and_fail(*q, "NodeFit", /*pending=*/true);
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  EXPECT_EQ(q->where(p->pod()), QueueName::Unschedulable);
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  EXPECT_EQ(q->where(p->pod()), QueueName::Active);  // despite backoff
}

TEST_F(QueueTest, EventDuringSchedulingCycleRequeuesFailedPod) {
  auto q = make_queue();
  q->add(make_pod("a"));
  q->add(make_pod("b"));
  auto pa = q->try_pop();
  auto pb = q->try_pop();
  // While both are in flight a helpful node arrives; an unhelpful one too.
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("bad"));
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  pa->unschedulablePlugins.insert("NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(pa, q->scheduling_cycle()).ok());
  EXPECT_EQ(q->where(pa->pod()), QueueName::Backoff);
  EXPECT_EQ(q->counts().inFlight, 1u);
  // b was rejected by a plugin whose events never came: parked.
  pb->unschedulablePlugins.insert("SomethingElse");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(pb, q->scheduling_cycle()).ok());
  EXPECT_EQ(q->where(pb->pod()), QueueName::Unschedulable);
  EXPECT_EQ(q->counts().inFlight, 0u);
}

TEST_F(QueueTest, PodFailingAfterDoneRetriesAfterBackoff) {
  // A failure in the binding cycle comes after done(): no in-flight record to consult.
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = pop_and_fail(*q, "NodeFit");
  q->done(p->pod().metadata.uid);
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  EXPECT_EQ(q->where(p->pod()), QueueName::Backoff);
}

TEST_F(QueueTest, EventsBeforePopAreNotReplayed) {
  auto q = make_queue();
  q->add(make_pod("a"));
  q->add(make_pod("b"));
  auto pa = q->try_pop();
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));  // seen by a only
  auto pb = q->try_pop();
  pb->unschedulablePlugins.insert("NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(pb, q->scheduling_cycle()).ok());
  EXPECT_EQ(q->where(pb->pod()), QueueName::Unschedulable);
  pa->unschedulablePlugins.insert("NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(pa, q->scheduling_cycle()).ok());
  EXPECT_EQ(q->where(pa->pod()), QueueName::Backoff);
}

// A PreEnqueue plugin that waits for something the cluster must create (as DynamicResources waits
// for a pod's claims): pods labelled need=X are gated until X is in `ready`.
class FakeWaitsForObject final : public framework::PreEnqueuePlugin {
 public:
  std::string_view name() const override { return "WaitsForObject"; }
  framework::Status pre_enqueue(const api::Pod& pod) override {
    const auto* need = pod.metadata.labels.find("need");
    if (!need || ready.count(std::string(*need))) return {};
    return framework::Status::unresolvable("waiting for " + std::string(*need));
  }
  std::set<std::string> ready;
};

// Upstream v1.35's GatingPluginEvents: a gated pod moves on the events its gating plugin registered
// (and its hint allows), not on others.
TEST_F(QueueTest, GatedPodMovesOnItsGatingPluginsEvents) {
  auto waits = std::make_shared<FakeWaitsForObject>();
  extra_pre_enqueue = {waits};
  framework::ClusterEventWithHint claim_add;
  claim_add.event = framework::ClusterEvent{EventResource::ResourceClaim, framework::kAdd, ""};
  claim_add.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& n) {
    auto name = std::static_pointer_cast<const api::Node>(n);  // stands in for the claim: its name
    const auto* need = pod.metadata.labels.find("need");
    return need && name->metadata.name == *need ? framework::QueueingHint::Queue : framework::QueueingHint::Skip;
  };
  extra_events["WaitsForObject"] = {claim_add};
  auto q = make_queue();
  auto pod = std::make_shared<api::Pod>(*make_pod("w"));
  pod->metadata.labels.set("need", "claim-1");
  q->add(pod);
  EXPECT_EQ(q->where(*pod), QueueName::Unschedulable);
  EXPECT_EQ(q->counts().gated, 1u);
  const auto claim_event = make_event(EventResource::ResourceClaim, framework::kAdd, "ResourceClaimAdd");
  // An event the gating plugin did not register, and one its hint skips: still gated.
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  q->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("claim-2"));
  EXPECT_EQ(q->counts().gated, 1u);
  // Its claim: PreEnqueue runs again and now lets it in.
  waits->ready.insert("claim-1");
  q->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("claim-1"));
  EXPECT_EQ(q->where(*pod), QueueName::Active);
  EXPECT_EQ(q->counts().gated, 0u);
}

// The unschedulable-pod index (DynamicResources' claim index): a claim event asks the hints of the
// pods waiting on that claim only, an event without a key (a deallocation) asks every pod, a pod
// updated while it waits is indexed under its new keys, and a second plugin registered for the
// same events turns the narrowing off (its hint must see every pod).
TEST_F(QueueTest, IndexedEventAsksOnlyThePodsWaitingOnItsObject) {
  auto waits = std::make_shared<FakeWaitsForObject>();
  extra_pre_enqueue = {waits};
  auto hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& n) {
    auto name = std::static_pointer_cast<const api::Node>(n);  // stands in for the claim: its name
    const auto* need = pod.metadata.labels.find("need");
    return need && (name->metadata.name == *need || name->metadata.name == "*") ? framework::QueueingHint::Queue
                                                                               : framework::QueueingHint::Skip;
  };
  framework::ClusterEventWithHint claim_add;
  claim_add.event = framework::ClusterEvent{EventResource::ResourceClaim, framework::kAdd, ""};
  claim_add.hint = hint;
  extra_events["WaitsForObject"] = {claim_add};
  indexes = {UnschedulablePodIndex{
      EventResource::ResourceClaim, "WaitsForObject",
      [](const api::Pod& pod, std::vector<std::string>& out) {
        if (const auto* need = pod.metadata.labels.find("need")) out.push_back("default/" + std::string(*need));
      },
      [](const std::shared_ptr<const void>&, const std::shared_ptr<const void>& n) -> std::optional<std::string> {
        auto name = std::static_pointer_cast<const api::Node>(n)->metadata.name;
        if (name == "*") return std::nullopt;
        return "default/" + std::string(name.view());
      }}};
  auto q = make_queue();
  std::vector<std::shared_ptr<api::Pod>> pods;
  for (int i = 0; i < 5; ++i) {
    auto pod = std::make_shared<api::Pod>(*make_pod("w" + std::to_string(i)));
    pod->metadata.labels.set("need", "claim-" + std::to_string(i));
    q->add(pod);
    pods.push_back(pod);
  }
  ASSERT_EQ(q->counts().gated, 5u);
  const auto claim_event = make_event(EventResource::ResourceClaim, framework::kAdd, "ResourceClaimAdd");
  auto hints_asked = [&] {
    std::lock_guard l(metrics.mu);
    auto n = metrics.hints.size();
    metrics.hints.clear();
    return n;
  };
  hints_asked();
  // A claim nobody waits on asks no pod; claim-1's event asks w1 alone and lets it in.
  q->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("claim-9"));
  EXPECT_EQ(hints_asked(), 0u);
  waits->ready.insert("claim-1");
  q->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("claim-1"));
  EXPECT_EQ(hints_asked(), 1u);
  EXPECT_EQ(q->where(*pods[1]), QueueName::Active);
  EXPECT_EQ(q->counts().gated, 4u);
  // An event without a key asks every waiting pod (they stay gated: PreEnqueue still refuses).
  q->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("*"));
  EXPECT_EQ(hints_asked(), 4u);
  EXPECT_EQ(q->counts().gated, 4u);
  // w2 now waits on claim-7 instead: claim-2 no longer asks it, claim-7 does.
  auto w2 = std::make_shared<api::Pod>(*pods[2]);
  w2->metadata.labels.set("need", "claim-7");
  q->update(pods[2], w2);
  hints_asked();
  q->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("claim-2"));
  EXPECT_EQ(hints_asked(), 0u);
  waits->ready.insert("claim-7");
  q->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("claim-7"));
  EXPECT_EQ(hints_asked(), 1u);
  EXPECT_EQ(q->where(*w2), QueueName::Active);
  // A pod that left the queue is no longer indexed: deleting w3, then its claim's event, asks nobody.
  q->delete_pod(*pods[3]);
  q->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("claim-3"));
  EXPECT_EQ(hints_asked(), 0u);

  // Another plugin registered for claim events. A pod it did not reject is still asked only if it
  // waits on the event's claim (upstream asks a pod its rejectors' hints alone); a pod it rejected
  // is asked on every claim event.
  framework::ClusterEventWithHint other;
  other.event = framework::ClusterEvent{EventResource::ResourceClaim, framework::kAdd, ""};
  other.hint = [](const api::Pod&, const std::shared_ptr<const void>&, const std::shared_ptr<const void>&) {
    return framework::QueueingHint::Skip;
  };
  extra_events["Other"] = {other};
  auto q2 = make_queue();
  for (int i = 0; i < 3; ++i) q2->add(pods[i + 2]);
  auto plain = make_pod("plain");
  q2->add(plain);
  auto failed = pop_and_fail(*q2, "Other");
  ASSERT_NE(failed, nullptr);
  ASSERT_TRUE(q2->add_unschedulable_if_not_present(failed, q2->scheduling_cycle()).ok());
  hints_asked();
  q2->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("claim-4"));
  // w4 (its claim) and "plain" (rejected by Other), not w2 nor w3.
  EXPECT_EQ(hints_asked(), 2u);
  EXPECT_EQ(q2->counts().gated, 3u);
  EXPECT_EQ(q2->where(*plain), QueueName::Unschedulable);
  // The pod's rejectors change when it fails again: rejected by WaitsForObject alone, it is narrowed.
  q2->move_all_to_active_or_backoff_queue(framework::ClusterEvent{EventResource::WildCard, framework::kAll, "Force"},
                                          nullptr, nullptr);
  clock.step(20s);
  q2->flush_backoff_q_completed();
  auto again = pop_and_fail(*q2, "WaitsForObject");
  ASSERT_NE(again, nullptr);
  ASSERT_EQ(again->pod().metadata.name, "plain");
  ASSERT_TRUE(q2->add_unschedulable_if_not_present(again, q2->scheduling_cycle()).ok());
  hints_asked();
  q2->move_all_to_active_or_backoff_queue(claim_event, nullptr, make_node("claim-4"));
  EXPECT_EQ(hints_asked(), 1u);  // w4 alone
}

TEST_F(QueueTest, GatedPodParksUntilGatesRemoved) {
  auto q = make_queue();
  auto gated = make_pod("g", 0, {"example.com/wait"});
  q->add(gated);
  EXPECT_EQ(q->where(*gated), QueueName::Unschedulable);
  EXPECT_EQ(q->counts().gated, 1u);
  EXPECT_EQ(q->counts().unschedulable, 0u);
  EXPECT_EQ(metrics.pending["gated"], 1);
  EXPECT_EQ(metrics.reasons["SchedulingGates"], 1);
  EXPECT_EQ(q->try_pop(), nullptr);

  // Cluster events and the leftover flush do not touch gated pods.
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  clock.step(6min);
  q->flush_unschedulable_pods_leftover();
  EXPECT_EQ(q->where(*gated), QueueName::Unschedulable);

  // Label change: still gated.
  auto relabelled = std::make_shared<api::Pod>(*gated);
  relabelled->metadata.labels.set("x", "y");
  q->update(gated, relabelled);
  EXPECT_EQ(q->counts().gated, 1u);

  auto ungated = std::make_shared<api::Pod>(*relabelled);
  ungated->spec.schedulingGates.clear();
  q->update(relabelled, ungated);
  EXPECT_EQ(q->where(*ungated), QueueName::Active);  // gated pods never back off
  EXPECT_EQ(q->counts().gated, 0u);
  EXPECT_EQ(metrics.pending["gated"], 0);
  EXPECT_EQ(metrics.pending["active"], 1);
  auto p = q->try_pop();
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->pod().spec.schedulingGates.empty());
  EXPECT_EQ(metrics.reasons["SchedulingGates"], 0);
}

TEST_F(QueueTest, LeftoverFlushMovesPodsAfterMaxDuration) {
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = pop_and_fail(*q, "SomethingElse");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  clock.step(5min);
  q->flush_unschedulable_pods_leftover();  // not yet: strictly more than 5 min
  EXPECT_EQ(q->where(p->pod()), QueueName::Unschedulable);
  clock.step(1s);
  q->flush_unschedulable_pods_leftover();
  EXPECT_EQ(q->where(p->pod()), QueueName::Active);
  EXPECT_EQ(metrics.incoming["active/UnschedulableTimeout"], 1);
}

TEST_F(QueueTest, UpdateInActiveQueueReplacesPod) {
  auto q = make_queue();
  auto a = make_pod("a");
  q->add(a);
  auto a2 = std::make_shared<api::Pod>(*a);
  a2->metadata.labels.set("v", "2");
  q->update(a, a2);
  EXPECT_EQ(q->counts().active, 1u);
  auto p = q->try_pop();
  EXPECT_EQ(p->pod().metadata.labels.get("v"), "2");
}

TEST_F(QueueTest, UpdateOfInFlightPodIsRecordedNotQueued) {
  auto q = make_queue();
  auto a = make_pod("a");
  q->add(a);
  auto p = q->try_pop();
  auto a2 = std::make_shared<api::Pod>(*a);
  a2->metadata.labels.set("v", "2");
  q->update(a, a2);
  EXPECT_FALSE(q->where(*a2).has_value());
}

TEST_F(QueueTest, UpdateOfUnknownPodAddsIt) {
  auto q = make_queue();
  auto a = make_pod("a");
  q->update(nullptr, a);
  EXPECT_EQ(q->where(*a), QueueName::Active);
  EXPECT_EQ(metrics.incoming["active/PodUpdate"], 1);
}

TEST_F(QueueTest, DeleteRemovesFromEveryQueue) {
  auto q = make_queue();
  auto a = make_pod("a"), b = make_pod("b"), g = make_pod("g", 0, {"x"});
  q->add(a);
  q->add(b);
  q->add(g);
  auto pb = q->try_pop();  // b? order is by timestamp; both prio 0 at the same instant
  pb->unschedulablePlugins.insert("NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(pb, q->scheduling_cycle()).ok());
  q->delete_pod(*a);
  q->delete_pod(*b);
  q->delete_pod(*g);
  auto c = q->counts();
  EXPECT_EQ(c.active + c.backoff + c.unschedulable + c.gated, 0u);
  EXPECT_EQ(metrics.reasons["NodeFit"], 0);
  EXPECT_EQ(metrics.reasons["SchedulingGates"], 0);
}

TEST_F(QueueTest, ActivateMovesFromUnschedulableAndBackoff) {
  auto q = make_queue();
  auto a = make_pod("a");
  q->add(a);
  auto p = pop_and_fail(*q, "SomethingElse");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  q->activate({a});
  EXPECT_EQ(q->where(*a), QueueName::Active);
  EXPECT_EQ(metrics.incoming["active/ForceActivate"], 1);
}

TEST_F(QueueTest, ActivateOfInFlightPodRequeuesItAfterFailure) {
  auto q = make_queue();
  auto a = make_pod("a");
  q->add(a);
  auto p = pop_and_fail(*q, "SomethingElse");
  q->activate({a});
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  EXPECT_EQ(q->where(*a), QueueName::Backoff);
}

// ForceActivate names its pod: another pod in flight at the time is not moved by it.
TEST_F(QueueTest, ActivateOfInFlightPodConcernsOnlyThatPod) {
  auto q = make_queue();
  auto a = make_pod("a"), b = make_pod("b");
  q->add(a);
  q->add(b);
  auto pa = pop_and_fail(*q, "NodeFit");
  auto pb = pop_and_fail(*q, "NodeFit");
  q->activate({a});
  ASSERT_TRUE(q->add_unschedulable_if_not_present(pb, q->scheduling_cycle()).ok());
  ASSERT_TRUE(q->add_unschedulable_if_not_present(pa, q->scheduling_cycle()).ok());
  EXPECT_EQ(q->where(*b), QueueName::Unschedulable);
  EXPECT_EQ(q->where(*a), QueueName::Backoff);
}

// An assigned pod's arrival is a cluster event like any other (there is no separate
// AssignedPodAdded path since queueing hints are GA): the rejector's hint decides which pods move.
TEST_F(QueueTest, AssignedPodAddMovesPodsWhoseHintSaysQueue) {
  framework::ClusterEventWithHint affinity;
  affinity.event = framework::ClusterEvent{EventResource::Pod, framework::kAdd, ""};
  affinity.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& n) {
    const auto assigned = std::static_pointer_cast<const api::Pod>(n);
    if (!pod.spec.affinity || !pod.spec.affinity->podAffinity) return framework::QueueingHint::Skip;
    for (const auto& term : pod.spec.affinity->podAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
      if (term.labelSelector && assigned->metadata.labels.get("app") == term.labelSelector->matchLabels.get("app"))
        return framework::QueueingHint::Queue;
    }
    return framework::QueueingHint::Skip;
  };
  extra_events["InterPodAffinity"] = {affinity};
  auto q = make_queue();
  auto want = std::make_shared<api::Pod>(*make_pod("affine"));
  api::PodAffinityTerm term;
  term.topologyKey = "kubernetes.io/hostname";
  term.labelSelector.emplace();
  term.labelSelector->matchLabels.set("app", "db");
  want->spec.affinity.emplace();
  want->spec.affinity->podAffinity.emplace();
  want->spec.affinity->podAffinity->requiredDuringSchedulingIgnoredDuringExecution.push_back(term);
  auto plain = make_pod("plain");
  q->add(want);
  q->add(plain);
  auto p1 = pop_and_fail(*q, "InterPodAffinity");
  auto p2 = pop_and_fail(*q, "InterPodAffinity");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p1, q->scheduling_cycle()).ok());
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p2, q->scheduling_cycle()).ok());
  auto assigned = std::make_shared<api::Pod>(*make_pod("db"));
  assigned->metadata.labels.set("app", "db");
  assigned->spec.nodeName = "n1";
  q->move_all_to_active_or_backoff_queue(event_assigned_pod_add(), nullptr, assigned);
  EXPECT_EQ(q->where(*want), QueueName::Backoff);
  EXPECT_EQ(q->where(*plain), QueueName::Unschedulable);  // no term matches the assigned pod
}

// scheduler_inflight_events counts the in-flight pods ("PodPopped") and the events kept for them;
// scheduler_queueing_hint_execution_duration_seconds is labelled with the hint's answer.
TEST_F(QueueTest, InFlightEventsAndQueueingHintMetrics) {
  auto q = make_queue();
  q->add(make_pod("a"));
  auto p = pop_and_fail(*q, "NodeFit");
  EXPECT_EQ(metrics.in_flight["PodPopped"], 1);
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("bad"));
  EXPECT_EQ(metrics.in_flight["NodeAdd"], 1);
  // The failed pod replays the event: NodeFit's hint says QueueSkip for "bad".
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  EXPECT_EQ(metrics.in_flight["PodPopped"], 0);
  EXPECT_EQ(metrics.in_flight["NodeAdd"], 0);
  EXPECT_EQ(metrics.hints, (std::vector<std::string>{"NodeFit/NodeAdd/QueueSkip"}));
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  EXPECT_EQ(metrics.hints.back(), "NodeFit/NodeAdd/Queue");
  // No pod in flight: nothing is kept.
  EXPECT_EQ(metrics.in_flight["NodeAdd"], 0);
}

TEST_F(QueueTest, NominatorTracksNominatedPods) {
  auto q = make_queue();
  auto a = std::make_shared<api::Pod>(*make_pod("a", 5));
  a->status.nominatedNodeName = "n1";
  {
    std::lock_guard l(lookup_mu);
    informer_pods["default/a"] = a;
  }
  q->add(a);
  auto on_n1 = q->nominated_pods_for_node("n1");
  ASSERT_EQ(on_n1.size(), 1u);
  EXPECT_EQ(on_n1[0]->pod->metadata.name, "a");

  // Preemption nominates in memory; a later update without nominatedNodeName keeps it.
  auto& nom = q->nominator();
  auto b = make_pod("b");
  {
    std::lock_guard l(lookup_mu);
    informer_pods["default/b"] = b;
  }
  nom.add_nominated_pod(framework::PodInfo::make(b),
                        framework::NominatingInfo{framework::NominatingInfo::Mode::Override, "n2"});
  auto b2 = std::make_shared<api::Pod>(*b);
  b2->metadata.labels.set("v", "2");
  nom.update_nominated_pod(*b, framework::PodInfo::make(b2));
  EXPECT_EQ(nom.nominated_node_of("uid-b"), "n2");

  // A pod the informer already sees bound is never nominated.
  auto c = make_pod("c");
  auto c_bound = std::make_shared<api::Pod>(*c);
  c_bound->spec.nodeName = "n3";
  {
    std::lock_guard l(lookup_mu);
    informer_pods["default/c"] = c_bound;
  }
  nom.add_nominated_pod(framework::PodInfo::make(c),
                        framework::NominatingInfo{framework::NominatingInfo::Mode::Override, "n3"});
  EXPECT_TRUE(q->nominated_pods_for_node("n3").empty());

  q->delete_pod(*a);
  EXPECT_TRUE(q->nominated_pods_for_node("n1").empty());
  EXPECT_EQ(nom.size(), 1u);
}

TEST_F(QueueTest, PendingGaugeFollowsQueues) {
  auto q = make_queue();
  q->add(make_pod("a"));
  q->add(make_pod("b"));
  EXPECT_EQ(metrics.pending["active"], 2);
  auto p = pop_and_fail(*q, "NodeFit");
  EXPECT_EQ(metrics.pending["active"], 1);
  ASSERT_TRUE(q->add_unschedulable_if_not_present(p, q->scheduling_cycle()).ok());
  EXPECT_EQ(metrics.pending["unschedulable"], 1);
  EXPECT_EQ(metrics.incoming["unschedulable/ScheduleAttemptFailure"], 1);
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  EXPECT_EQ(metrics.pending["unschedulable"], 0);
  EXPECT_EQ(metrics.pending["backoff"], 1);
  EXPECT_EQ(q->pending_pods_summary(), "activeQ:1; backoffQ:1; unschedulablePods:0");
}

TEST_F(QueueTest, RunFlushesInBackgroundAndCloseStops) {
  // Real clock: only check that run/close start and stop the thread cleanly.
  QueueOptions o;
  PriorityQueue q(std::move(o));
  q.run();
  q.add(make_pod("a"));
  EXPECT_NE(q.pop(), nullptr);
  q.close();
}

// The heap against a plain map under random adds, updates (same key, new priority), erases and
// pops: every pop returns the least item, and lookups by key see exactly what is left.
// The pod-group cycle's hand-over: every queued member, wherever it waits (activeQ, backoffQ,
// unschedulablePods), but not a gated one nor a pod of another group; each is popped and in flight.
TEST_F(QueueTest, PopGroupMembersTakesTheGroupFromEveryQueueButNotGatedPods) {
  auto q = make_queue();
  auto member = [](const std::string& name, std::vector<std::string> gates = {}) {
    auto p = std::make_shared<api::Pod>(*make_pod(name, 0, std::move(gates)));
    p->spec.workloadRef.emplace().name = name.substr(0, 1) == "o" ? "other" : "job";
    return std::shared_ptr<const api::Pod>(p);
  };
  q->add(member("m-backoff"));
  auto b = pop_and_fail(*q, "NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(b, q->scheduling_cycle()).ok());
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  ASSERT_EQ(q->where(b->pod()), QueueName::Backoff);
  q->add(member("m-unsched"));
  auto u = pop_and_fail(*q, "NodeFit");
  ASSERT_EQ(u->pod().metadata.name, "m-unsched");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(u, q->scheduling_cycle()).ok());
  ASSERT_EQ(q->where(u->pod()), QueueName::Unschedulable);
  q->add(member("m-active"));
  q->add(member("m-gated", {"wait"}));
  q->add(member("o-other-group"));
  const auto before = q->counts();

  auto first = q->try_pop();  // the group's head, as schedule_one pops it
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first->pod().metadata.name, "m-active");
  // The group named, and no filter: o-other-group stays (the index holds it under its own group).
  auto rest = q->pop_group_members(first, {podgroup::group_key(first->pod())}, [](const api::Pod&) { return true; });
  std::set<std::string> names = {first->pod().metadata.name};
  for (const auto& m : rest) names.insert(m->pod().metadata.name);
  EXPECT_EQ(names, (std::set<std::string>{"m-active", "m-backoff", "m-unsched"}));
  for (const auto& m : rest) {
    EXPECT_FALSE(q->where(m->pod()).has_value());
    EXPECT_TRUE(m->unschedulablePlugins.empty());  // a new attempt records its own rejectors
  }
  EXPECT_EQ(q->counts().inFlight, before.inFlight + 1 + rest.size());
  EXPECT_EQ(q->counts().gated, 1u);
  EXPECT_EQ(metrics.reasons["NodeFit"], 0);
  for (const auto& m : rest) q->done(m->pod().metadata.uid);
  q->done(first->pod().metadata.uid);
}

// The members index that pop_group_members reads (upstream podGroupMemberPods, kept on add, update,
// delete and pop, pod_group_member_pods.go at kubernetes/kubernetes 4b6edafc): a member is listed
// under its group while it waits in any queue, and no longer once popped or deleted; an update
// keeps one entry with the new object; plain pods are never listed.
TEST_F(QueueTest, TheMembersIndexFollowsAddsUpdatesDeletesAndPops) {
  auto q = make_queue();
  for (const char* n : {"g-0", "g-1", "g-2", "g-3"}) q->add(make_pg_pod(n, "g"));
  clock.step(1ms);  // g's members pop first
  q->add(make_pg_pod("h-0", "h"));
  q->add(make_pod("plain"));
  EXPECT_EQ(q->queued_group_members("default/g"),
            (std::vector<std::string>{"default/g-0", "default/g-1", "default/g-2", "default/g-3"}));
  EXPECT_EQ(q->queued_group_members("default/h"), (std::vector<std::string>{"default/h-0"}));

  // Popped alone (schedule_one's head) and sent back through unschedulablePods: listed again.
  auto head = q->try_pop();
  ASSERT_NE(head, nullptr);
  const std::string head_key = "default/" + head->pod().metadata.name;
  const std::string head_group = podgroup::group_key(head->pod());
  auto listed = [&](const std::string& group, const std::string& key) {
    const auto keys = q->queued_group_members(group);
    return std::count(keys.begin(), keys.end(), key);
  };
  EXPECT_EQ(listed(head_group, head_key), 0);
  head->unschedulablePlugins.insert("NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(head, q->scheduling_cycle()).ok());
  ASSERT_EQ(q->where(head->pod()), QueueName::Unschedulable);
  EXPECT_EQ(listed(head_group, head_key), 1);

  // Deleted: gone. Updated: one entry, and the group's hand-over returns the new object.
  q->delete_pod(*make_pg_pod("g-1", "g"));
  EXPECT_EQ(listed("default/g", "default/g-1"), 0);
  auto g2 = std::make_shared<api::Pod>(*make_pg_pod("g-2", "g"));
  g2->metadata.labels.set("v", "2");
  q->update(make_pg_pod("g-2", "g"), g2);
  EXPECT_EQ(listed("default/g", "default/g-2"), 1);

  // A member that starts the cycle pops the rest of its group, wherever they wait.
  auto first = q->try_pop();
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(podgroup::group_key(first->pod()), "default/g");
  auto rest = q->pop_group_members(first, {"default/g"}, [](const api::Pod&) { return true; });
  std::set<std::string> names = {first->pod().metadata.name};
  for (const auto& m : rest) {
    names.insert(m->pod().metadata.name);
    if (m->pod().metadata.name == "g-2") {
      EXPECT_EQ(m->pod().metadata.labels.get("v"), "2");
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"g-0", "g-2", "g-3"}));
  EXPECT_TRUE(q->queued_group_members("default/g").empty());
  // Another group, and plain pods, stay queued.
  EXPECT_EQ(q->queued_group_members("default/h"), (std::vector<std::string>{"default/h-0"}));
  EXPECT_EQ(q->counts().active, 2u);
  for (const auto& m : rest) q->done(m->pod().metadata.uid);
  q->done(first->pod().metadata.uid);
}

// The members index against the queues themselves under random adds, updates (ungating some),
// deletes, pops with group hand-overs (members arriving meanwhile held), requeues, bindings, events
// and flushes: after every step each group lists exactly its members that where() finds queued.
// (ksched's check of the bookkeeping upstream's podGroupMemberPods keeps; no upstream counterpart.)
TEST_F(QueueTest, TheMembersIndexMatchesTheQueuesUnderRandomOperations) {
  group_ordering = true;
  for (const char* g : {"g0", "g1", "g2"}) set_pod_group_priority(g, 0);
  auto q = make_queue();
  std::mt19937 rng(44);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  std::map<std::string, framework::PodPtr> known;  // not bound, not deleted: queued, held or in flight
  int next = 0;
  auto new_pod = [&]() {
    const std::string name = "p" + std::to_string(next++);
    const int g = pick(4);
    auto p = std::make_shared<api::Pod>(*make_pod(name, 0, pick(6) == 0 ? std::vector<std::string>{"wait"} : std::vector<std::string>{}));
    if (g < 3) p->spec.schedulingGroup.emplace().podGroupName = "g" + std::to_string(g);
    known[name] = p;
    q->add(p);
  };
  auto any_known = [&]() -> std::string {
    auto it = known.begin();
    std::advance(it, pick(static_cast<int>(known.size())));
    return it->first;
  };
  // The attempt ends: bound (gone) or failed (requeued).
  auto finish = [&](const QueuedPodInfoPtr& m) {
    if (pick(2) == 0) {
      known.erase(m->pod().metadata.name);
      q->done(m->pod().metadata.uid);
      return true;
    }
    m->unschedulablePlugins.insert("NodeFit");
    EXPECT_TRUE(q->add_unschedulable_if_not_present(m, q->scheduling_cycle()).ok());
    return false;
  };
  for (int step = 0; step < 600; ++step) {
    SCOPED_TRACE(step);
    const int op = pick(6);
    if (op == 0 || known.size() < 4) {
      new_pod();
    } else if (op == 1) {  // an update; a gated pod loses its gate half the time
      const std::string name = any_known();
      auto updated = std::make_shared<api::Pod>(*known[name]);
      updated->metadata.labels.set("step", std::to_string(step));
      if (pick(2) == 0) updated->spec.schedulingGates.clear();
      q->update(known[name], updated);
      known[name] = updated;
    } else if (op == 2) {  // a delete of a pod that is not in flight (an in-flight one is bound or requeued first)
      const std::string name = any_known();
      if (q->where(*known[name]) || !q->get(*known[name])) {
        q->delete_pod(*known[name]);
        known.erase(name);
      }
    } else if (op == 3) {  // a cycle: the head, its group's members, maybe a member arriving meanwhile
      auto head = q->try_pop();
      if (!head) continue;
      std::vector<QueuedPodInfoPtr> cycle = {head};
      if (head->pod().spec.schedulingGroup) {
        for (auto& m : q->pop_group_members(head, {podgroup::group_key(head->pod())}, [](const api::Pod&) { return true; })) {
          EXPECT_FALSE(q->where(m->pod()).has_value());
          cycle.push_back(m);
        }
        if (pick(4) == 0) {
          auto late = std::make_shared<api::Pod>(*make_pod("p" + std::to_string(next++)));
          late->spec.schedulingGroup = head->pod().spec.schedulingGroup;
          known[late->metadata.name] = late;
          q->add(late);
        }
      }
      bool placed = false;
      for (const auto& m : cycle) placed = finish(m) || placed;
      if (head->pod().spec.schedulingGroup) q->pod_group_cycle_done(head, placed);
    } else if (op == 4) {
      q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
    } else {
      clock.step(pick(3) == 0 ? std::chrono::nanoseconds(6min) : std::chrono::nanoseconds(2s));
      q->flush_backoff_q_completed();
      q->flush_unschedulable_pods_leftover();
    }
    for (const char* g : {"g0", "g1", "g2"}) {
      std::vector<std::string> want;
      for (const auto& [name, p] : known) {
        if (p->spec.schedulingGroup && p->spec.schedulingGroup->podGroupName == g && q->where(*p)) want.push_back("default/" + name);
      }
      std::sort(want.begin(), want.end());
      EXPECT_EQ(q->queued_group_members(std::string("default/") + g), want) << g;
    }
  }
  EXPECT_GT(next, 100);
}

// ---------------------------------------------------------------- PodGroups as queued entities
// Upstream's newest queue queues a PodGroup as one entity (QueuedPodGroupInfo) that PrioritySort
// orders by GetPriority (util.PodGroupPriority) and the group's timestamp; ksched's members share a
// QueuedGroupInfo to the same effect.

// Upstream TestPriorityQueue_Add, case "pod group member with GenericWorkload gate enabled": members
// of PodGroups of high, mid and low priority pop in their PodGroups' order, their pods' own
// priorities (all 0 here) not read; a PodGroup of 100 whose pods have 0 pops before a plain pod of
// 50, and a plain pod of 50 added before a PodGroup of 50's member before it.
TEST_F(QueueTest, PodGroupMembersPopByTheirPodGroupsPriority) {
  group_ordering = true;
  set_pod_group_priority("pg-high", 100);
  set_pod_group_priority("pg-med", 50);
  set_pod_group_priority("pg-low", 10);
  auto q = make_queue();
  q->add(make_pg_pod("low", "pg-low"));
  clock.step(1ms);
  q->add(make_pod("plain-50", 50));
  clock.step(1ms);
  q->add(make_pg_pod("med", "pg-med"));
  clock.step(1ms);
  q->add(make_pg_pod("high", "pg-high"));
  clock.step(1ms);
  q->add(make_pod("plain-5", 5));
  EXPECT_EQ(pop_all(*q), (std::vector<std::string>{"high", "plain-50", "med", "low", "plain-5"}));
}

// Without GangScheduling (no pod_group_priority) a PodGroup's members are plain pods to the queue.
TEST_F(QueueTest, WithoutGroupOrderingPodGroupMembersSortByTheirOwnPriority) {
  set_pod_group_priority("pg-high", 100);
  auto q = make_queue();
  q->add(make_pod("plain-50", 50));
  clock.step(1ms);
  q->add(make_pg_pod("high", "pg-high", 0));
  auto p = q->try_pop();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->pod().metadata.name, "plain-50");
  EXPECT_EQ(p->group, nullptr);
}

// Upstream addPodGroupMember/addToPodGroupIfExists: a member that arrives while its group is queued
// joins the group's entity, which keeps the timestamp of its first member (newQueuedPodGroupInfo).
// So of two PodGroups of equal priority the one that entered the queue first pops whole first, a
// late member of it before the other group's earlier member; within a group members keep their
// own order (priority, then enqueue time).
TEST_F(QueueTest, GangsOfEqualPriorityPopInTheOrderTheirGroupsEnteredTheQueue) {
  group_ordering = true;
  set_pod_group_priority("a", 7);
  set_pod_group_priority("b", 7);
  auto q = make_queue();
  q->add(make_pg_pod("a-0", "a"));
  clock.step(1ms);
  q->add(make_pg_pod("b-0", "b"));
  clock.step(1ms);
  q->add(make_pg_pod("b-1", "b", 1000));  // its own priority is not the group's
  clock.step(1ms);
  q->add(make_pg_pod("a-1", "a"));
  clock.step(1ms);
  q->add(make_pg_pod("a-2", "a", 3));
  clock.step(1ms);
  q->add(make_pod("plain-7", 7));  // same priority, entered after both groups
  EXPECT_EQ(pop_all(*q), (std::vector<std::string>{"a-2", "a-0", "a-1", "b-1", "b-0", "plain-7"}));
}

// Upstream's group backoff (GetBackoffExpiration: empty for a member pod, the QueuedPodGroupInfo's is
// used; the group's UnschedulableCount): a failed group cycle is one unschedulable attempt of the
// group however many members it requeues, every member's backoff ends at the group's expiry, and
// the members leave the backoff queue together; a second failed cycle doubles it.
TEST_F(QueueTest, AFailedGroupCycleIsOneBackoffAttemptOfTheGroup) {
  group_ordering = true;
  set_pod_group_priority("g", 10);
  auto q = make_queue();
  for (const char* n : {"g-0", "g-1", "g-2"}) q->add(make_pg_pod(n, "g"));
  for (int attempt = 1; attempt <= 2; ++attempt) {
    SCOPED_TRACE(attempt);
    auto head = q->try_pop();
    ASSERT_NE(head, nullptr);
    auto members = q->pop_group_members(head, {podgroup::group_key(head->pod())},
                                        [](const api::Pod& p) { return p.spec.schedulingGroup.has_value(); });
    members.insert(members.begin(), head);
    ASSERT_EQ(members.size(), 3u);
    clock.step(1ms);  // each member requeued at its own time, as the cycle hands them back
    for (auto& m : members) {
      m->unschedulablePlugins.insert("NodeFit");
      ASSERT_TRUE(q->add_unschedulable_if_not_present(m, q->scheduling_cycle()).ok());
      clock.step(1ms);
    }
    const auto want = attempt == 1 ? 1s : 2s;
    // The group's timestamp is its first requeued member's; the expiry is aligned to the second.
    const auto group_expiry = util::Clock::time_point(
        std::chrono::duration_cast<std::chrono::seconds>((members[0]->group->timestamp + want).time_since_epoch()));
    for (auto& m : members) {
      ASSERT_NE(m->group, nullptr);
      EXPECT_EQ(m->group, members[0]->group);
      EXPECT_EQ(m->group->unschedulableCount, attempt);
      EXPECT_EQ(q->backoff_expiry(*m), group_expiry);
    }
    // A node event that the rejector wants moves them to backoffQ (their backoff not over).
    q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
    EXPECT_EQ(q->counts().backoff, 3u);
    clock.step(want + 1s);
    q->flush_backoff_q_completed();
    EXPECT_EQ(q->counts().active, 3u) << "the group's members leave backoffQ together";
  }
}

// Upstream AddAttemptedPodGroupIfNotPresent: a group comes back as an error (ConsecutiveErrorsCount)
// only when none of its members was rejected by a plugin; one rejected member makes the attempt
// unschedulable and resets the error count, whichever member the cycle hands back first.
TEST_F(QueueTest, AGroupAttemptIsAnErrorOnlyWhenNoMemberWasRejected) {
  group_ordering = true;
  set_pod_group_priority("g", 0);
  auto q = make_queue();
  q->add(make_pg_pod("g-0", "g"));
  q->add(make_pg_pod("g-1", "g"));
  auto pop_group = [&] {
    auto head = q->try_pop();
    auto members = q->pop_group_members(head, {podgroup::group_key(head->pod())},
                                        [](const api::Pod& p) { return p.spec.schedulingGroup.has_value(); });
    members.insert(members.begin(), head);
    return members;
  };
  auto members = pop_group();
  ASSERT_EQ(members.size(), 2u);
  ASSERT_TRUE(q->add_unschedulable_if_not_present(members[0], 0).ok());  // an error: no rejector
  const auto& g = *members[0]->group;
  EXPECT_EQ(g.consecutiveErrorsCount, 1);
  EXPECT_EQ(g.unschedulableCount, 0);
  members[1]->unschedulablePlugins.insert("NodeFit");
  ASSERT_TRUE(q->add_unschedulable_if_not_present(members[1], 0).ok());
  EXPECT_EQ(g.consecutiveErrorsCount, 0);
  EXPECT_EQ(g.unschedulableCount, 1);

  // Both back through backoff; a cycle where every member errs counts one error.
  clock.step(11s);
  q->flush_backoff_q_completed();
  q->move_all_to_active_or_backoff_queue(node_add(), nullptr, make_node("good"));
  members = pop_group();
  ASSERT_EQ(members.size(), 2u);
  for (auto& m : members) ASSERT_TRUE(q->add_unschedulable_if_not_present(m, 0).ok());
  EXPECT_EQ(g.consecutiveErrorsCount, 1);
  EXPECT_EQ(g.unschedulableCount, 1);
}

// A member queued before its PodGroup is known sorts at 0 (the group's priority is unknown); the
// PodGroup's priority is looked up again as a member enters the queue, and the members already
// queued are reordered with it.
TEST_F(QueueTest, AGroupLearnsItsPodGroupsPriorityWhenTheNextMemberEnters) {
  group_ordering = true;
  auto q = make_queue();
  q->add(make_pg_pod("m-0", "late"));
  clock.step(1ms);
  q->add(make_pod("plain-5", 5));
  clock.step(1ms);
  set_pod_group_priority("late", 100);
  q->add(make_pg_pod("m-1", "late"));
  EXPECT_EQ(pop_all(*q), (std::vector<std::string>{"m-0", "m-1", "plain-5"}));
}

// ---------------------------------------------------------------- members arriving during their group's cycle
// Upstream's newest queue (scheduling_queue.go addPodGroupMember, pending_pod_group_pods.go at
// 2cfae350, AddAttemptedPodGroupIfNotPresent): a member added while its group is the entity last
// popped waits in pendingPodGroupPods and is requeued with the group when the group's cycle ends.

// Pops the head as schedule_one does and hands over the rest of its group, as the pod-group cycle does.
std::vector<QueuedPodInfoPtr> pop_group(PriorityQueue& q) {
  auto head = q.try_pop();
  if (!head) return {};
  auto members = q.pop_group_members(head, {podgroup::group_key(head->pod())}, [](const api::Pod&) { return true; });
  members.insert(members.begin(), head);
  return members;
}

std::vector<std::string> names_of(const std::vector<framework::PodPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.emplace_back(p->metadata.name);
  std::sort(out.begin(), out.end());
  return out;
}

// Upstream TestScheduleOnePodGroup_FinishesAttemptWhenAllPoppedPodsAreAssumed, case "pending member
// is requeued": a member added while its group is in its cycle is held (PendingPodGroupPods), not
// queued nor tried on its own; a member of another group and a plain pod are queued as usual. When
// the group is placed the held member goes to activeQ and is popped next.
TEST_F(QueueTest, AMemberAddedWhileItsGroupIsInItsCycleIsHeldUntilTheGroupIsPlaced) {
  group_ordering = true;
  set_pod_group_priority("pg", 0);
  set_pod_group_priority("other", 0);
  auto q = make_queue();
  q->add(make_pg_pod("p1", "pg"));
  auto members = pop_group(*q);
  ASSERT_EQ(members.size(), 1u);
  q->add(make_pg_pod("p2", "pg"));
  q->add(make_pg_pod("o1", "other"));
  EXPECT_EQ(q->counts().held, 1u);
  EXPECT_EQ(names_of(q->pending_pod_group_pods()), (std::vector<std::string>{"p2"}));
  EXPECT_FALSE(q->where(*make_pg_pod("p2", "pg")).has_value());
  EXPECT_EQ(names_of(q->pending_pods()), (std::vector<std::string>{"o1", "p2"}));
  EXPECT_EQ(pop_all(*q), (std::vector<std::string>{"o1"})) << "the held member is not tried on its own";

  q->done(members[0]->pod().metadata.uid);  // p1 placed: bound
  q->pod_group_cycle_done(members[0], /*placed=*/true);
  EXPECT_EQ(q->counts().held, 0u);
  EXPECT_TRUE(q->pending_pod_group_pods().empty());
  EXPECT_EQ(q->where(*make_pg_pod("p2", "pg")), QueueName::Active);
  auto next = q->try_pop();
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->pod().metadata.name, "p2");
  EXPECT_EQ(next->group, members[0]->group) << "it is queued as a member of its group";
}

// Upstream TestScheduleOnePodGroup_FinishesAttemptWhenAllPoppedPodsAreAssumed, case "later member
// starts a new queued PodGroup": once the cycle's outcome is in, a new member is queued at once.
TEST_F(QueueTest, AMemberAddedAfterItsGroupsCycleEndedIsQueuedAtOnce) {
  group_ordering = true;
  set_pod_group_priority("pg", 0);
  auto q = make_queue();
  q->add(make_pg_pod("p1", "pg"));
  auto members = pop_group(*q);
  ASSERT_EQ(members.size(), 1u);
  q->done(members[0]->pod().metadata.uid);
  q->pod_group_cycle_done(members[0], /*placed=*/true);
  q->add(make_pg_pod("p2", "pg"));
  EXPECT_EQ(q->counts().held, 0u);
  EXPECT_EQ(q->where(*make_pg_pod("p2", "pg")), QueueName::Active);
}

// Upstream AddAttemptedPodGroupIfNotPresent after a failed cycle: the held member joins its group,
// whose attempt was counted once by the members' requeue; it waits out the group's backoff (it is
// not popped alone meanwhile, even with PopFromBackoffQ) and then brings the whole group back.
TEST_F(QueueTest, AMemberHeldDuringAFailedCycleBacksOffWithItsGroup) {
  group_ordering = true;
  set_pod_group_priority("pg", 0);
  auto q = make_queue();
  q->add(make_pg_pod("p0", "pg"));
  q->add(make_pg_pod("p1", "pg"));
  auto members = pop_group(*q);
  ASSERT_EQ(members.size(), 2u);
  q->add(make_pg_pod("p2", "pg"));
  ASSERT_EQ(q->counts().held, 1u);
  clock.step(1ms);
  for (auto& m : members) {
    m->unschedulablePlugins.insert("NodeFit");
    ASSERT_TRUE(q->add_unschedulable_if_not_present(m, q->scheduling_cycle()).ok());
  }
  const auto& g = *members[0]->group;
  EXPECT_EQ(g.unschedulableCount, 1);
  q->pod_group_cycle_done(members[0], /*placed=*/false);
  EXPECT_EQ(g.unschedulableCount, 1) << "the held member does not count another attempt";
  EXPECT_EQ(q->counts().held, 0u);
  EXPECT_EQ(q->where(*make_pg_pod("p2", "pg")), QueueName::Backoff);
  auto held = q->get(*make_pg_pod("p2", "pg"));
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->group, members[0]->group);
  auto p0 = std::const_pointer_cast<framework::QueuedPodInfo>(q->get(*make_pg_pod("p0", "pg")));
  ASSERT_NE(p0, nullptr);
  EXPECT_EQ(q->backoff_expiry(*std::make_shared<framework::QueuedPodInfo>(*held)), q->backoff_expiry(*p0));
  EXPECT_EQ(q->try_pop(), nullptr) << "no member is tried before the group's backoff ends";

  clock.step(2s);
  q->flush_backoff_q_completed();
  auto again = pop_group(*q);
  std::vector<std::string> names;
  for (const auto& m : again) names.emplace_back(m->pod().metadata.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"p0", "p1", "p2"}));
}

// Upstream Update (pendingPodGroupPods.update) and deletePodGroupMember (pendingPodGroupPods.delete),
// TestPendingPodGroupMemberPods_Update and _Delete: an updated held member stays held with its new
// object; a deleted one is dropped and does not come back with the group.
TEST_F(QueueTest, AHeldMemberUpdatedStaysHeldAndADeletedOneIsDropped) {
  group_ordering = true;
  set_pod_group_priority("pg", 0);
  auto q = make_queue();
  q->add(make_pg_pod("p0", "pg"));
  auto members = pop_group(*q);
  ASSERT_EQ(members.size(), 1u);
  auto p1 = make_pg_pod("p1", "pg");
  q->add(p1);
  q->add(make_pg_pod("p2", "pg"));
  ASSERT_EQ(q->counts().held, 2u);

  auto updated = std::make_shared<api::Pod>(*p1);
  updated->spec.priority = 5;
  q->update(p1, updated);
  EXPECT_EQ(q->counts().held, 2u);
  EXPECT_EQ(q->counts().active, 0u) << "the update does not queue it on its own";
  q->delete_pod(*make_pg_pod("p2", "pg"));
  EXPECT_EQ(q->counts().held, 1u);
  q->delete_pod(*make_pg_pod("absent", "pg"));  // not held: nothing changes
  EXPECT_EQ(q->counts().held, 1u);

  q->done(members[0]->pod().metadata.uid);
  q->pod_group_cycle_done(members[0], /*placed=*/true);
  EXPECT_EQ(pop_all(*q), (std::vector<std::string>{"p1"}));
  EXPECT_FALSE(q->where(*make_pg_pod("p2", "pg")).has_value());
  auto pending = q->pending_pods();
  EXPECT_TRUE(pending.empty());
}

// The updated object is the one requeued (checked apart: pop_all above drops the popped info).
TEST_F(QueueTest, AHeldMemberComesBackWithItsLatestObject) {
  group_ordering = true;
  set_pod_group_priority("pg", 0);
  auto q = make_queue();
  q->add(make_pg_pod("p0", "pg"));
  auto members = pop_group(*q);
  auto p1 = make_pg_pod("p1", "pg");
  q->add(p1);
  auto updated = std::make_shared<api::Pod>(*p1);
  updated->spec.priority = 5;
  q->update(p1, updated);
  q->done(members[0]->pod().metadata.uid);
  q->pod_group_cycle_done(members[0], /*placed=*/true);
  auto got = q->try_pop();
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->pod().spec.priority, 5);
}

TEST(KeyedHeap, AgreesWithAnOrderedReferenceUnderRandomChanges) {
  using Item = std::pair<std::string, int>;  // key, priority (lower first; ties by key)
  auto less = [](const Item& a, const Item& b) { return a.second != b.second ? a.second < b.second : a.first < b.first; };
  KeyedHeap<Item> heap([](const Item& i) { return i.first; }, less);
  std::map<std::string, int> ref;
  std::mt19937 rng(42);
  for (int step = 0; step < 20000; ++step) {
    const std::string key = "pod-" + std::to_string(rng() % 300);
    switch (rng() % 4) {
      case 0:
      case 1: {
        const int prio = static_cast<int>(rng() % 50);
        heap.add_or_update({key, prio});
        ref[key] = prio;
        break;
      }
      case 2:
        ASSERT_EQ(heap.erase(key), ref.erase(key) == 1);
        break;
      default: {
        if (ref.empty()) {
          ASSERT_TRUE(heap.empty());
          break;
        }
        auto least = std::min_element(ref.begin(), ref.end(), [&](const auto& a, const auto& b) {
          return less({a.first, a.second}, {b.first, b.second});
        });
        Item top = heap.pop();
        ASSERT_EQ(top.first, least->first);
        ASSERT_EQ(top.second, least->second);
        ref.erase(least);
      }
    }
    ASSERT_EQ(heap.size(), ref.size());
    ASSERT_EQ(heap.has(key), ref.count(key) == 1);
    if (const Item* got = heap.get(key)) {
      ASSERT_EQ(got->second, ref.at(key));
    }
  }
}

}  // namespace
}  // namespace ksched::scheduler::queue
