// Dry runs on a real multi-threaded parallelizer pick the same node and victims as the serial
// run when the best candidate is unique (run under ASan/TSan builds to check the shared state).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "scheduler/plugins/defaultpreemption/defaultpreemption.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::defaultpreemption {
namespace {

namespace fw = framework;
using testing::MakeNode;
using testing::MakePod;

// Work-stealing over an atomic index with a fixed number of threads.
class ThreadParallelizer final : public fw::Parallelizer {
 public:
  explicit ThreadParallelizer(int threads) : threads_(threads) {}
  void until(int n, const std::function<void(int)>& fn, const std::function<bool()>& stop = {}) override {
    std::atomic<int> next{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < threads_; ++t) {
      ts.emplace_back([&] {
        for (int i = next++; i < n; i = next++) {
          if (stop && stop()) return;
          fn(i);
        }
      });
    }
    for (auto& t : ts) t.join();
  }
  int parallelism() const override { return threads_; }

 private:
  int threads_;
};

class CpuFit final : public fw::FilterPlugin {
 public:
  std::string_view name() const override { return "CpuFit"; }
  fw::Status filter(const fw::CycleState&, const api::Pod& pod, const fw::NodeInfo& ni) override {
    if (ni.requested.milliCPU + fw::compute_pod_requests(pod).milliCPU > ni.allocatable.milliCPU) {
      return fw::Status::unschedulable("Insufficient cpu");
    }
    return {};
  }
};

class ParallelHandle final : public testing::FakeHandle {
 public:
  fw::Parallelizer& parallelizer() override { return par_; }

 private:
  ThreadParallelizer par_{4};
};

TEST(PreemptionParallel, SameChoiceAsSerial) {
  // 60 full nodes; node i's single victim has priority 1 + (i % 7), except node-42 whose victim
  // has priority 0: the unique best candidate.
  std::vector<api::Pod> pods;
  std::vector<api::Node> nodes;
  for (int i = 0; i < 60; ++i) {
    std::string n = "node-" + std::to_string(i);
    nodes.push_back(MakeNode().Name(n).Capacity({{"cpu", "4"}, {"pods", "100"}}).Obj());
    pods.push_back(MakePod().Name("v-" + std::to_string(i)).Node(n).Priority(i == 42 ? 0 : 1 + i % 7).Req({{"cpu", "4"}}).Obj());
  }
  ParallelHandle h;
  h.set_snapshot(pods, nodes);
  h.filter_plugins.push_back(std::make_shared<CpuFit>());
  auto pl = std::dynamic_pointer_cast<DefaultPreemption>(make_default_preemption({}, h).value());
  pl->offset_rand = [](int) { return 17; };
  auto pod = MakePod().Name("pre").Priority(100).Req({{"cpu", "1"}}).Obj();
  h.fake_lister().add_pod(std::make_shared<const api::Pod>(pod));
  fw::NodeToStatus m;
  m.set_absent(fw::Status::unschedulable("Insufficient cpu"));  // every node, via the absent status
  for (int round = 0; round < 5; ++round) {
    fw::CycleState state;
    fw::PostFilterResult result;
    auto st = pl->post_filter(state, pod, m, result);
    h.wait_for_async();  // the eviction runs off the cycle (SchedulerAsyncPreemption)
    ASSERT_TRUE(st.is_success()) << st.message();
    EXPECT_EQ(result.nominatingInfo.nominatedNodeName, "node-42");
  }
  auto deletes = h.fake_client().deletes();
  ASSERT_EQ(deletes.size(), 5u);
  for (const auto& d : deletes) EXPECT_EQ(d, "default/v-42");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::defaultpreemption
