// The demo's summary from a known timeline: the burst's rate, the preemption's wait, the
// distribution and the pods left pending are arithmetic on what was seen, so they are exact here.
#include <gtest/gtest.h>

#include "localcluster/demo.h"

using ksched::localcluster::DemoTimeline;
using ksched::localcluster::format_report;
using ksched::localcluster::summarize;

namespace {

// 12 nodes. Set-up: filler-0..3 bound on n0 (filler-3 later the victim). The burst starts at 0.10:
// plain-0..9 bound one per node n1..n10 at 0.15, 0.20, ..., 0.60; too-big never fits. The
// preemptor vip is created at 1.00, found unschedulable at 1.05, its victim is gone at 1.30 and
// it is bound on n0 at 2.50.
DemoTimeline known_timeline() {
  DemoTimeline t;
  t.nodes = 12;
  t.created = 16;
  for (int i = 0; i < 4; ++i) {
    auto& f = t.pods["filler-" + std::to_string(i)];
    f.added = 0.01;
    f.bound = 0.05 + 0.01 * i;
    f.node = "n0";
    t.setup.insert("filler-" + std::to_string(i));
  }
  t.pods["filler-3"].deleted = 1.30;
  t.burst_start = 0.10;
  for (int i = 0; i < 10; ++i) {
    auto& p = t.pods["plain-" + std::to_string(i)];
    p.added = 0.11;
    p.bound = 0.10 + 0.05 * (i + 1);
    p.node = "n" + std::to_string(i + 1);
  }
  auto& big = t.pods["too-big"];
  big.added = 0.12;
  big.unschedulable = 0.40;
  big.reason = "Unschedulable";
  big.message = "0/12 nodes are available: 12 Insufficient cpu.";
  t.preemptor = "vip";
  t.preemptor_priority = 10000;
  t.preemptor_created = 1.00;
  auto& vip = t.pods["vip"];
  vip.added = 1.01;
  vip.unschedulable = 1.05;
  vip.reason = "Unschedulable";
  vip.bound = 2.50;
  vip.node = "n0";
  t.settled = true;
  return t;
}

}  // namespace

TEST(DemoSummary, FiguresFromAKnownTimeline) {
  const auto r = summarize(known_timeline(), "demo");
  EXPECT_EQ(r.created, 16);
  EXPECT_EQ(r.scheduled, 14);  // 3 fillers left + 10 plain + vip
  EXPECT_EQ(r.burst_bound, 10);  // neither the set-up, nor the preemptor, nor the pod that never fits
  EXPECT_NEAR(r.burst_seconds, 0.50, 1e-9);  // 0.10 (first create) -> 0.60 (last binding)
  EXPECT_NEAR(r.burst_pods_per_second, 20.0, 1e-6);
  ASSERT_TRUE(r.preemptor_wait.has_value());
  EXPECT_NEAR(*r.preemptor_wait, 1.50, 1e-9);
  ASSERT_TRUE(r.victims_gone.has_value());
  EXPECT_NEAR(*r.victims_gone, 0.30, 1e-9);
  EXPECT_EQ(r.preemptor_node, "n0");
  EXPECT_EQ(r.preempted, std::vector<std::string>{"filler-3"});
  EXPECT_NEAR(r.settled_seconds, 2.50, 1e-9);
  EXPECT_EQ(r.pods_per_node.at("n0"), 4);
  EXPECT_EQ(r.pods_per_node.size(), 11u);
  ASSERT_EQ(r.unschedulable.size(), 1u);  // vip was unschedulable once, then bound: not listed
  EXPECT_EQ(r.unschedulable[0].pod, "demo/too-big");

  EXPECT_EQ(format_report(r),
            "ksched demo: 16 pods on 12 nodes, settled 2.50 s after the first pod was created\n"
            "  scheduling:    10 pods that fit at once, all bound 0.50 s after the first of them was created: 20 pods/s\n"
            "  preemption:    demo/vip (priority 10000) evicted demo/filler-3, bound on n0 1.50 s after its creation "
            "(victim gone after 0.30 s; the rest is the scheduler's retry backoff)\n"
            "  per node:      min 0 / max 4 pods; pods-per-node histogram: 0:1 1:10 4:1\n"
            "  unschedulable: 1, they stay pending:\n"
            "    demo/too-big (Unschedulable): 0/12 nodes are available: 12 Insufficient cpu.\n");
}

TEST(DemoSummary, TheRateIgnoresTheSlowPreemptor) {
  // However late the preemptor is bound, the burst's figures do not move.
  auto t = known_timeline();
  t.pods["vip"].bound = 60.0;
  const auto r = summarize(t, "demo");
  EXPECT_NEAR(r.burst_seconds, 0.50, 1e-9);
  EXPECT_NEAR(r.burst_pods_per_second, 20.0, 1e-6);
  EXPECT_NEAR(*r.preemptor_wait, 59.0, 1e-9);
  EXPECT_NEAR(r.settled_seconds, 60.0, 1e-9);
}

TEST(DemoSummary, NotSettled) {
  auto t = known_timeline();
  t.settled = false;
  t.pods["vip"].bound.reset();
  t.pods["vip"].node.clear();
  t.pods["filler-3"].deleted.reset();
  t.pods["late"].added = 0.5;  // created, never decided
  const auto r = summarize(t, "demo");
  EXPECT_FALSE(r.preemptor_wait.has_value());
  EXPECT_TRUE(r.preempted.empty());
  const auto text = format_report(r);
  EXPECT_NE(text.find("ksched demo: 16 pods on 12 nodes, NOT settled before the timeout\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  preemption:    demo/vip (priority 10000), not bound\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    demo/late (Pending): no scheduling decision yet\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    demo/vip (Unschedulable): "), std::string::npos) << text;
}
