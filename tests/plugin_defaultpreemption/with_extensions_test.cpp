// Preemption dry runs through real PreFilter extensions: removing a victim must update the
// InterPodAffinity / PodTopologySpread state so that Filter sees the node without it.
#include <gtest/gtest.h>

#include "scheduler/plugins/defaultpreemption/defaultpreemption.h"
#include "scheduler/plugins/interpodaffinity/interpodaffinity.h"
#include "scheduler/plugins/podtopologyspread/podtopologyspread.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::defaultpreemption {
namespace {

namespace fw = framework;
using testing::AffinityKind;
using testing::MakeLabelSelector;
using testing::MakeNode;
using testing::MakePod;

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

api::Node node(const std::string& name, const std::string& zone) {
  return MakeNode()
      .Name(name)
      .Label("kubernetes.io/hostname", name)
      .Label("topology.kubernetes.io/zone", zone)
      .Capacity({{"cpu", "4"}, {"pods", "100"}})
      .Obj();
}

// Runs the cycle's PreFilter + Filter of `plugin` and the CPU fit, then PostFilter.
struct Cycle {
  testing::FakeHandle handle;
  std::shared_ptr<DefaultPreemption> preemption;
  fw::CycleState state;
  fw::NodeToStatus statuses;

  Cycle(const std::vector<api::Pod>& pods, const std::vector<api::Node>& nodes) {
    handle.set_snapshot(pods, nodes);
    preemption = std::dynamic_pointer_cast<DefaultPreemption>(make_default_preemption({}, handle).value());
    preemption->offset_rand = [](int) { return 0; };
  }
  template <class P>
  void use(std::shared_ptr<P> plugin) {
    handle.pre_filter_plugins.push_back(plugin);
    handle.filter_plugins.push_back(plugin);
  }
  fw::Status run(const api::Pod& pod, fw::PostFilterResult& result) {
    handle.filter_plugins.push_back(std::make_shared<CpuFit>());
    handle.fake_lister().add_pod(std::make_shared<const api::Pod>(pod));
    for (const auto& p : handle.pre_filter_plugins) {
      fw::PreFilterResult r;
      auto s = p->pre_filter(state, pod, handle.snapshot().list(), r);
      EXPECT_TRUE(s.is_success()) << s.message();
    }
    for (const auto& ni : handle.snapshot().list()) {
      auto s = handle.run_filter_plugins(state, pod, *ni);
      EXPECT_FALSE(s.is_success()) << ni->name();
      statuses.set(ni->name(), s);
    }
    auto st = preemption->post_filter(state, pod, statuses, result);
    handle.wait_for_async();  // the eviction runs off the cycle (SchedulerAsyncPreemption)
    return st;
  }
};

TEST(PreemptionWithExtensions, ExistingAntiAffinityVictim) {
  // n1 hosts a low-priority pod whose required anti-affinity (hostname) rejects app=web pods;
  // n2 is full of higher-priority pods. Removing the hater in the dry run clears the existing
  // anti-affinity count (RemovePod), so n1 works with the hater as the only victim.
  auto hater = MakePod()
                   .Name("hater")
                   .Node("n1")
                   .Priority(1)
                   .Req({{"cpu", "1"}})
                   .PodAntiAffinityIn("app", "kubernetes.io/hostname", {"web"}, AffinityKind::Required)
                   .Obj();
  auto filler = MakePod().Name("filler").Node("n1").Priority(1).Req({{"cpu", "1"}}).Obj();
  auto big = MakePod().Name("big").Node("n2").Priority(100).Req({{"cpu", "4"}}).Obj();
  Cycle c({hater, filler, big}, {node("n1", "z1"), node("n2", "z2")});
  c.use(std::dynamic_pointer_cast<interpodaffinity::InterPodAffinity>(
      interpodaffinity::make_inter_pod_affinity({}, c.handle).value()));
  auto pod = MakePod().Name("web").Label("app", "web").Priority(10).Req({{"cpu", "1"}}).Obj();
  fw::PostFilterResult result;
  auto st = c.run(pod, result);
  ASSERT_TRUE(st.is_success()) << st.message();
  EXPECT_EQ(c.statuses.get("n1")->message(), interpodaffinity::kErrReasonExistingAntiAffinityRulesNotMatch);
  EXPECT_EQ(result.nominatingInfo.nominatedNodeName, "n1");
  // The filler is reprieved; only the hater goes.
  EXPECT_EQ(c.handle.fake_client().deletes(), (std::vector<std::string>{"default/hater"}));
}

TEST(PreemptionWithExtensions, TopologySpreadVictims) {
  // Zone spreading (maxSkew 1) of app=web: z1 has two low-priority web pods, z2 none but n2 is
  // full of high-priority pods. On n1 the dry run removes both (z1 = 0 → skew 1), and reprieving
  // either brings z1 back to 1 → skew 2: both are victims.
  auto w1 = MakePod().Name("w1").Label("app", "web").Node("n1").Priority(1).Req({{"cpu", "100m"}}).StartTime(api::Time{1}).Obj();
  auto w2 = MakePod().Name("w2").Label("app", "web").Node("n1").Priority(1).Req({{"cpu", "100m"}}).StartTime(api::Time{2}).Obj();
  auto big = MakePod().Name("big").Node("n2").Priority(100).Req({{"cpu", "4"}}).Obj();
  Cycle c({w1, w2, big}, {node("n1", "z1"), node("n2", "z2")});
  c.use(std::dynamic_pointer_cast<podtopologyspread::PodTopologySpread>(
      podtopologyspread::make_pod_topology_spread({}, c.handle).value()));
  auto pod = MakePod()
                 .Name("web")
                 .Label("app", "web")
                 .Priority(10)
                 .Req({{"cpu", "100m"}})
                 .SpreadConstraint(1, "topology.kubernetes.io/zone", "DoNotSchedule",
                                   MakeLabelSelector().Label("app", "web").Obj())
                 .Obj();
  fw::PostFilterResult result;
  auto st = c.run(pod, result);
  ASSERT_TRUE(st.is_success()) << st.message();
  EXPECT_EQ(c.statuses.get("n1")->message(), podtopologyspread::kErrReasonConstraintsNotMatch);
  EXPECT_EQ(result.nominatingInfo.nominatedNodeName, "n1");
  auto deletes = c.handle.fake_client().deletes();
  std::sort(deletes.begin(), deletes.end());
  EXPECT_EQ(deletes, (std::vector<std::string>{"default/w1", "default/w2"}));
}

}  // namespace
}  // namespace ksched::scheduler::plugins::defaultpreemption
