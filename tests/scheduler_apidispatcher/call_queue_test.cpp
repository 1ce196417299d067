// The dispatcher's per-object queue: relevance, merging, no-ops, in-flight ordering, sync, close
// (upstream v1.35 backend/api_dispatcher/call_queue.go's rules; where ksched tells a superseded
// call more than upstream does, the test says so).
#include <gtest/gtest.h>

#include <iostream>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "api/core.h"
#include "scheduler/apidispatcher/call_queue.h"
#include "scheduler/apidispatcher/pod_calls.h"

namespace ksched::scheduler::apidispatcher {
namespace {

api::Pod pod(const std::string& name, const std::string& nominated = "") {
  api::Pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = name;
  p.metadata.uid = "uid-" + name;
  p.status.nominatedNodeName = nominated;
  return p;
}

api::PodCondition unschedulable(const std::string& message) {
  api::PodCondition c;
  c.type = "PodScheduled";
  c.status = "False";
  c.reason = "Unschedulable";
  c.message = message;
  return c;
}

std::shared_ptr<PodStatusPatchCall> patch(const api::Pod& p, std::optional<api::PodCondition> c,
                                          std::optional<std::string> nnn = std::nullopt) {
  return std::make_shared<PodStatusPatchCall>(p, std::move(c), std::move(nnn));
}

// Records each call's result, and the queue's pending count per type.
struct Recorder {
  std::map<std::string, std::vector<CallResult::Kind>> results;
  std::map<CallType, int> pending;
  OnFinish on(const std::string& name) {
    return [this, name](const CallResult& r) { results[name].push_back(r.kind); };
  }
  CallQueue::PendingObserver observer() {
    return [this](CallType t, int d) { pending[t] += d; };
  }
};

using K = CallResult::Kind;

TEST(CallQueue, ABindingOverwritesAQueuedStatusPatchOfTheSamePod) {
  Recorder rec;
  CallQueue q(rec.observer());
  api::Pod p = pod("a");
  EXPECT_FALSE(q.add(patch(p, unschedulable("no")), rec.on("patch")));
  EXPECT_EQ(rec.pending[CallType::PodStatusPatch], 1);
  EXPECT_FALSE(q.add(std::make_shared<PodBindingCall>(p, "n1"), rec.on("bind")));
  EXPECT_EQ(rec.results["patch"], std::vector<K>{K::Overwritten});
  EXPECT_EQ(rec.pending[CallType::PodStatusPatch], 0);
  EXPECT_EQ(rec.pending[CallType::PodBinding], 1);
  auto popped = q.pop();
  ASSERT_TRUE(popped);
  EXPECT_EQ(popped.call->type(), CallType::PodBinding);
  EXPECT_EQ(rec.pending[CallType::PodBinding], 0);
  q.finalize(popped, {});
  EXPECT_EQ(rec.results["bind"], std::vector<K>{K::Executed});
  EXPECT_EQ(q.size(), 0u);
}

TEST(CallQueue, AStatusPatchBehindAQueuedBindingIsSkipped) {
  Recorder rec;
  CallQueue q(rec.observer());
  api::Pod p = pod("a");
  EXPECT_FALSE(q.add(std::make_shared<PodBindingCall>(p, "n1"), rec.on("bind")));
  auto refused = q.add(patch(p, unschedulable("no")), rec.on("patch"));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->kind, K::Skipped);
  EXPECT_FALSE(refused->unexpected());
  EXPECT_EQ(refused->status.message(), "a more relevant call is already enqueued for this object: call skipped");
  EXPECT_EQ(rec.results["patch"], std::vector<K>{K::Skipped});
  EXPECT_EQ(rec.pending[CallType::PodStatusPatch], 0);
  EXPECT_EQ(rec.pending[CallType::PodBinding], 1);
}

TEST(CallQueue, TwoStatusPatchesMergeIntoOneThatCarriesBoth) {
  Recorder rec;
  CallQueue q(rec.observer());
  api::Pod p = pod("a");
  EXPECT_FALSE(q.add(patch(p, unschedulable("0/3 nodes are available")), rec.on("first")));
  EXPECT_FALSE(q.add(patch(p, std::nullopt, std::string("n2")), rec.on("second")));
  EXPECT_EQ(rec.results["first"], std::vector<K>{K::Overwritten});
  EXPECT_EQ(rec.pending[CallType::PodStatusPatch], 1);
  auto popped = q.pop();
  ASSERT_TRUE(popped);
  auto* merged = dynamic_cast<PodStatusPatchCall*>(popped.call.get());
  ASSERT_NE(merged, nullptr);
  ASSERT_TRUE(merged->condition());
  EXPECT_EQ(merged->condition()->message, "0/3 nodes are available");
  EXPECT_EQ(merged->nominated_node_name(), std::optional<std::string>("n2"));
}

TEST(CallQueue, APatchThatChangesNothingIsSkippedAndNotQueued) {
  Recorder rec;
  CallQueue q(rec.observer());
  api::Pod p = pod("a", "n1");
  p.status.conditions.push_back(unschedulable("same"));
  auto refused = q.add(patch(p, unschedulable("same"), std::string("n1")), rec.on("patch"));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status.message(), "call does not need to be executed because it has no effect: call skipped");
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(rec.pending[CallType::PodStatusPatch], 0);
  // A different message is a change.
  EXPECT_FALSE(q.add(patch(p, unschedulable("other")), rec.on("changed")));
  EXPECT_EQ(q.size(), 1u);
}

TEST(CallQueue, ACallForAnObjectInFlightWaitsUntilThatOneIsFinalized) {
  Recorder rec;
  CallQueue q(rec.observer());
  api::Pod a = pod("a"), b = pod("b");
  EXPECT_FALSE(q.add(patch(a, unschedulable("1")), rec.on("a1")));
  auto first = q.pop();
  ASSERT_TRUE(first);
  EXPECT_FALSE(q.add(std::make_shared<PodBindingCall>(a, "n1"), rec.on("a2")));
  EXPECT_FALSE(q.add(patch(b, unschedulable("1")), rec.on("b1")));
  // Not a second call for `a` while its first runs: b comes next.
  EXPECT_EQ(rec.pending[CallType::PodBinding], 0);
  auto next = q.pop();
  ASSERT_TRUE(next);
  EXPECT_EQ(next.call->uid(), "uid-b");
  // The running call is not told it was overwritten: it reports its own result.
  EXPECT_TRUE(rec.results["a1"].empty());
  q.finalize(first, {K::Failed, framework::Status::error("boom")});
  EXPECT_EQ(rec.results["a1"], std::vector<K>{K::Failed});
  EXPECT_EQ(rec.pending[CallType::PodBinding], 1);
  auto again = q.pop();
  ASSERT_TRUE(again);
  EXPECT_EQ(again.call->uid(), "uid-a");
  EXPECT_EQ(again.call->type(), CallType::PodBinding);
  q.finalize(next, {});
  q.finalize(again, {});
  EXPECT_EQ(q.size(), 0u);
  for (auto [t, n] : rec.pending) EXPECT_EQ(n, 0) << call_type_name(t);
}

TEST(CallQueue, ASyncThatShowsThePatchAlreadyAppliedDropsIt) {
  Recorder rec;
  CallQueue q(rec.observer());
  api::Pod p = pod("a");
  EXPECT_FALSE(q.add(patch(p, std::nullopt, std::string("n1")), rec.on("patch")));
  api::Pod other = pod("a", "n9");  // not what the patch sets: still needed
  q.sync(other);
  EXPECT_EQ(q.size(), 1u);
  api::Pod newer = pod("a", "n1");
  q.sync(newer);
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(rec.results["patch"], std::vector<K>{K::Skipped});
  EXPECT_EQ(rec.pending[CallType::PodStatusPatch], 0);
}

TEST(CallQueue, CloseEndsQueuedCallsAndWakesPop) {
  Recorder rec;
  CallQueue q(rec.observer());
  EXPECT_FALSE(q.add(std::make_shared<PodBindingCall>(pod("a"), "n1"), rec.on("a")));
  EXPECT_FALSE(q.add(std::make_shared<PodBindingCall>(pod("b"), "n1"), rec.on("b")));
  auto running = q.pop();
  ASSERT_TRUE(running);
  EXPECT_FALSE(q.add(std::make_shared<PodBindingCall>(pod("a"), "n2"), rec.on("a-again")));
  q.close();
  EXPECT_EQ(rec.results["b"], std::vector<K>{K::Closed});
  EXPECT_FALSE(q.pop());
  // The call waiting behind the running one ends when that one is finalized.
  EXPECT_TRUE(rec.results["a-again"].empty());
  q.finalize(running, {});
  EXPECT_EQ(rec.results["a"], std::vector<K>{K::Executed});
  EXPECT_EQ(rec.results["a-again"], std::vector<K>{K::Closed});
  auto late = q.add(std::make_shared<PodBindingCall>(pod("c"), "n1"), rec.on("c"));
  ASSERT_TRUE(late);
  EXPECT_TRUE(late->unexpected());
  for (auto [t, n] : rec.pending) EXPECT_EQ(n, 0) << call_type_name(t);
}

TEST(CallQueue, ABatchTakesTheBindingsNextInLineAndStopsAtAnotherType) {
  CallQueue q;
  for (const char* n : {"a", "b", "c"}) q.add(std::make_shared<PodBindingCall>(pod(n), "n1"), {});
  q.add(patch(pod("d"), unschedulable("x")), {});
  q.add(std::make_shared<PodBindingCall>(pod("e"), "n1"), {});
  auto bindings = [](CallType t) { return t == CallType::PodBinding; };
  auto first = q.pop_batch(2, +bindings);
  ASSERT_EQ(first.size(), 2u);  // the cap
  auto second = q.pop_batch(64, +bindings);
  ASSERT_EQ(second.size(), 1u);  // c; d is a patch
  EXPECT_EQ(second[0].call->uid(), "uid-c");
  auto third = q.pop_batch(64, +bindings);
  ASSERT_EQ(third.size(), 1u);  // a patch is not batched
  EXPECT_EQ(third[0].call->type(), CallType::PodStatusPatch);
  EXPECT_EQ(q.check_invariants(), "");
}

TEST(CallQueue, ObjectsAreServedInTheOrderTheirFirstCallArrived) {
  CallQueue q;
  for (const char* n : {"c", "a", "b"}) q.add(patch(pod(n), unschedulable("x")), {});
  q.add(patch(pod("c"), unschedulable("y")), {});  // merges in place: c keeps its turn
  std::vector<std::string> order;
  for (int i = 0; i < 3; ++i) {
    auto p = q.pop();
    order.push_back(p.call->uid());
    q.finalize(p, {});
  }
  EXPECT_EQ(order, (std::vector<std::string>{"uid-c", "uid-a", "uid-b"}));
}

}  // namespace
}  // namespace ksched::scheduler::apidispatcher

namespace ksched::scheduler::apidispatcher {
namespace {

// Random adds, pops, finalizes and syncs over a few pods: the queue never loses or duplicates an
// object (every pending call can be popped; nothing is left once all is finalized), and never
// hands out two calls of one pod at once.
TEST(CallQueue, RandomOperationsKeepOneCallPerPodAndLoseNone) {
  std::mt19937 rng(12345);
  int pending = 0;
  CallQueue q([&](CallType, int d) { pending += d; });
  std::vector<CallQueue::Popped> running;
  std::set<std::string> running_uids;
  std::vector<std::string> trace;
  auto some_pod = [&] {
    api::Pod p = pod("p" + std::to_string(rng() % 4), rng() % 2 ? "n1" : "");
    if (rng() % 2) p.status.conditions.push_back(unschedulable("m" + std::to_string(rng() % 2)));
    return p;
  };
  for (int step = 0; step < 20000; ++step) {
    switch (rng() % 5) {
      case 0:
      case 1: {
        api::Pod p = some_pod();
        std::optional<api::PodCondition> c;
        if (rng() % 2) c = unschedulable("m" + std::to_string(rng() % 2));
        std::optional<std::string> nnn;
        if (rng() % 2) nnn = rng() % 2 ? "n1" : "";
        auto r = q.add(patch(p, c, nnn), {});
        trace.push_back("patch " + std::string(p.metadata.uid.view()) + (r ? " refused" : " queued"));
        break;
      }
      case 2:
      {
        api::Pod p = some_pod();
        auto r = q.add(std::make_shared<PodBindingCall>(p, "n1"), {});
        trace.push_back("bind " + std::string(p.metadata.uid.view()) + (r ? " refused" : " queued"));
        break;
      }
      case 3:
        if (pending > 0) {
          auto popped = q.pop();
          ASSERT_TRUE(popped);
          trace.push_back("pop " + popped.call->uid());
          if (!running_uids.insert(popped.call->uid()).second) {
            for (const auto& t : trace) if (t.find(popped.call->uid()) != std::string::npos) std::cerr << t << "\n";
            FAIL() << "two calls of one pod at once";
          }
          running.push_back(popped);
        } else if (!running.empty()) {
          std::size_t i = rng() % running.size();
          running_uids.erase(running[i].call->uid());
          trace.push_back("finalize " + running[i].call->uid());
          q.finalize(running[i], {});
          running.erase(running.begin() + long(i));
        }
        break;
      case 4: {
        api::Pod p = some_pod();
        q.sync(p);
        trace.push_back("sync " + std::string(p.metadata.uid.view()) + " size " + std::to_string(q.size()));
        break;
      }
    }
    ASSERT_GE(pending, 0);
    const std::string broken = q.check_invariants();
    if (!broken.empty()) {
      for (std::size_t k = trace.size() > 12 ? trace.size() - 12 : 0; k < trace.size(); ++k) std::cerr << trace[k] << "\n";
      FAIL() << broken;
    }
  }
  // Drain.
  while (pending > 0 || !running.empty()) {
    for (auto& r : running) q.finalize(r, {});
    running.clear();
    while (pending > 0) {
      auto popped = q.pop();
      ASSERT_TRUE(popped);
      running.push_back(popped);
    }
  }
  EXPECT_EQ(q.size(), 0u);
}

}  // namespace
}  // namespace ksched::scheduler::apidispatcher
