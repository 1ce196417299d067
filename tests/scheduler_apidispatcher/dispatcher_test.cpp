// The dispatcher's workers and the asynchronous ClusterClient over a recording client: bindings
// wait for their call, status patches return once queued, one call per pod at a time.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "api/core.h"
#include "scheduler/apidispatcher/async_client.h"
#include "scheduler/apidispatcher/pod_calls.h"

namespace ksched::scheduler::apidispatcher {
namespace {

api::Pod pod(const std::string& name) {
  api::Pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = name;
  p.metadata.uid = "uid-" + name;
  return p;
}

// Records bindings and patches; can hold them (to keep a call in flight) and checks that no two
// calls for one pod ever run at once.
class RecordingClient final : public framework::ClusterClient {
 public:
  framework::Status bind(const api::Pod& pod, const std::string& node) override {
    enter(pod);
    std::unique_lock l(mu_);
    ++started_;
    cv_.notify_all();
    cv_.wait(l, [&] { return !held_; });
    binds_.push_back(pod.metadata.name + "->" + node);
    running_.erase(pod.metadata.uid);
    return fail_binds_ ? framework::Status::error("binding refused") : framework::Status();
  }
  std::vector<framework::Status> bind_all(const std::vector<Binding>& bindings) override {
    {
      std::lock_guard l(mu_);
      batch_sizes_.push_back(bindings.size());
    }
    return ClusterClient::bind_all(bindings);  // one by one, through bind()
  }
  std::vector<std::size_t> batch_sizes() {
    std::lock_guard l(mu_);
    return batch_sizes_;
  }
  framework::Status delete_pod(const api::Pod&) override { return {}; }
  framework::Status patch_pod_status(const api::Pod& pod, const std::optional<api::PodCondition>& c,
                                     const std::optional<std::string>& nnn) override {
    enter(pod);
    std::lock_guard l(mu_);
    patches_.push_back(pod.metadata.name + ":" + (c ? std::string(c->message.view()) : "-") + ":" +
                       (nnn ? *nnn : "-"));
    running_.erase(pod.metadata.uid);
    return {};
  }
  void event(const api::Pod&, const std::string&, const std::string&, const std::string&, const std::string&) override {}

  void hold() {
    std::lock_guard l(mu_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard l(mu_);
      held_ = false;
    }
    cv_.notify_all();
  }
  void wait_started(int n) {
    std::unique_lock l(mu_);
    cv_.wait(l, [&] { return started_ >= n; });
  }
  void fail_binds() {
    std::lock_guard l(mu_);
    fail_binds_ = true;
  }
  std::vector<std::string> binds() {
    std::lock_guard l(mu_);
    return binds_;
  }
  std::vector<std::string> patches() {
    std::lock_guard l(mu_);
    return patches_;
  }
  bool overlapped() const { return overlapped_; }

 private:
  void enter(const api::Pod& pod) {
    std::lock_guard l(mu_);
    if (!running_.insert(pod.metadata.uid).second) overlapped_ = true;
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  bool fail_binds_ = false;
  int started_ = 0;
  std::set<std::string> running_;
  std::atomic<bool> overlapped_{false};
  std::vector<std::string> binds_, patches_;
  std::vector<std::size_t> batch_sizes_;
};

TEST(Dispatcher, BindingsWaitForTheirCallAndReportItsError) {
  RecordingClient direct;
  Dispatcher d(direct, 4);
  AsyncClusterClient c(direct, d);
  EXPECT_TRUE(c.bind(pod("a"), "n1").is_success());
  EXPECT_EQ(direct.binds(), std::vector<std::string>{"a->n1"});
  api::Pod b = pod("b"), e = pod("e");
  std::string n2 = "n2", n3 = "n3";
  auto st = c.bind_all({{&b, &n2}, {&e, &n3}});
  ASSERT_EQ(st.size(), 2u);
  EXPECT_TRUE(st[0].is_success());
  EXPECT_TRUE(st[1].is_success());
  EXPECT_EQ(direct.binds().size(), 3u);
  direct.fail_binds();
  framework::Status failed = c.bind(pod("f"), "n1");
  EXPECT_FALSE(failed.is_success());
  EXPECT_EQ(failed.message(), "binding refused");
}

TEST(Dispatcher, AStatusPatchReturnsOnceQueuedAndPatchesOfOnePodMergeIntoOneCall) {
  RecordingClient direct;
  std::mutex mu;
  std::map<std::string, int> executed;
  Dispatcher::Observer obs;
  obs.executed = [&](CallType t, bool ok, double seconds) {
    EXPECT_GE(seconds, 0.0);
    std::lock_guard l(mu);
    ++executed[std::string(call_type_name(t)) + (ok ? "/success" : "/error")];
  };
  Dispatcher d(direct, 1, obs);
  AsyncClusterClient c(direct, d);
  // The only worker is busy with a held binding, so the patches queue behind it.
  direct.hold();
  std::thread binder([&] { EXPECT_TRUE(c.bind(pod("busy"), "n1").is_success()); });
  direct.wait_started(1);
  api::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = "False";
  cond.reason = "Unschedulable";
  cond.message = "full";
  EXPECT_TRUE(c.patch_pod_status(pod("p"), cond, std::nullopt).is_success());
  EXPECT_TRUE(c.patch_pod_status(pod("p"), std::nullopt, std::string("n7")).is_success());
  EXPECT_TRUE(direct.patches().empty());
  // A marker call queued last: once it is done, everything before it is.
  std::promise<void> last;
  auto done = last.get_future();
  d.add(std::make_shared<PodBindingCall>(pod("marker"), "n1"), [&](const CallResult&) { last.set_value(); });
  direct.release();
  binder.join();
  done.wait();
  EXPECT_EQ(direct.patches(), std::vector<std::string>{"p:full:n7"});
  EXPECT_FALSE(direct.overlapped());
  std::lock_guard l(mu);
  EXPECT_EQ(executed["pod_binding/success"], 2);
  EXPECT_EQ(executed["pod_status_patch/success"], 1);
}

TEST(Dispatcher, BindingsQueuedBehindABusyWorkerGoOutAsOneWrite) {
  RecordingClient direct;
  Dispatcher d(direct, 1);
  AsyncClusterClient c(direct, d);
  direct.hold();
  std::thread busy([&] { EXPECT_TRUE(c.bind(pod("busy"), "n1").is_success()); });
  direct.wait_started(1);
  std::vector<api::Pod> pods;
  for (int i = 0; i < 5; ++i) pods.push_back(pod("q" + std::to_string(i)));
  std::string node = "n2";
  std::vector<framework::ClusterClient::Binding> queued;
  for (const auto& p : pods) queued.push_back({&p, &node});
  std::vector<framework::Status> answers;
  std::thread batch([&] { answers = c.bind_all(queued); });
  // All five are queued before the worker is free (bind_all adds them all before waiting).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (d.tracked_objects() < 6 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  const std::size_t in_queue = d.tracked_objects();
  direct.release();
  busy.join();
  batch.join();
  ASSERT_EQ(in_queue, 6u) << "the five bindings were not all queued behind the busy one";
  ASSERT_EQ(answers.size(), 5u);
  for (const auto& a : answers) EXPECT_TRUE(a.is_success());
  EXPECT_EQ(direct.batch_sizes(), std::vector<std::size_t>{5});
  EXPECT_EQ(direct.binds().size(), 6u);
}

TEST(Dispatcher, ManyThreadsNeverRunTwoCallsForOnePodAtOnce) {
  RecordingClient direct;
  std::mutex mu;
  std::map<CallType, int> pending;
  Dispatcher::Observer obs;
  obs.pending = [&](CallType t, int delta) {
    std::lock_guard l(mu);
    pending[t] += delta;
  };
  auto d = std::make_unique<Dispatcher>(direct, 8, obs);
  AsyncClusterClient c(direct, *d);
  std::vector<std::thread> threads;
  std::atomic<int> bound{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        api::Pod p = pod("p" + std::to_string((i * 7 + t) % 23));
        api::PodCondition cond;
        cond.type = "PodScheduled";
        cond.status = "False";
        cond.message = "attempt " + std::to_string(i);
        c.patch_pod_status(p, cond, std::nullopt);
        if (i % 10 == t) {
          // A pod of this thread alone: its queued patch is overwritten by its binding.
          api::Pod own = pod("b" + std::to_string(t) + "-" + std::to_string(i));
          c.patch_pod_status(own, cond, std::nullopt);
          if (c.bind(own, "n" + std::to_string(t)).is_success()) ++bound;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  d->close();
  EXPECT_FALSE(direct.overlapped());
  EXPECT_EQ(int(direct.binds().size()), bound.load());
  std::lock_guard l(mu);
  for (auto [t, n] : pending) EXPECT_EQ(n, 0) << call_type_name(t);
}

}  // namespace
}  // namespace ksched::scheduler::apidispatcher
