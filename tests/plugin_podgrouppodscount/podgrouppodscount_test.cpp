// Mirrors upstream podgroup_pods_count_test.go (TestScorePlacement, TestNormalizePlacementScore).
#include "scheduler/plugins/podgrouppodscount/podgrouppodscount.h"

#include <gtest/gtest.h>

#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::podgrouppodscount {
namespace {

using testing::MakePod;

framework::PodGroupAssignments two_proposed() {
  framework::PodGroupAssignments a;
  a.proposed.push_back({MakePod().Name("proposed-pod-1").UID("proposed-pod-1").Ptr(), "node1"});
  a.proposed.push_back({MakePod().Name("proposed-pod-2").UID("proposed-pod-2").Ptr(), "node2"});
  return a;
}

// TestScorePlacement: the members placed before the cycle (assigned or assumed: both are in
// scheduledNodes) plus the placement's proposed ones.
TEST(PodGroupPodsCount, ScorePlacementCountsScheduledAndProposedMembers) {
  PodGroupPodsCount pl;
  struct Case {
    const char* name;
    std::vector<std::string> scheduled;
    std::int64_t want;
  } cases[] = {
      {"existing assigned and assumed pods", {"node2", "node3", "node1"}, 5},
      {"no assumed pods", {"node1"}, 3},
      {"no assigned pods", {"node1"}, 3},
      {"no assigned pods, no assumed pods", {}, 2},
  };
  for (const auto& c : cases) {
    framework::PodGroupInfo group;
    group.ns = "default";
    group.name = "pg1";
    group.key = "default/pg1";
    group.scheduledNodes = c.scheduled;
    std::int64_t score = -1;
    ASSERT_TRUE(pl.score_placement(group, two_proposed(), score).is_success()) << c.name;
    EXPECT_EQ(score, c.want) << c.name;
  }
}

std::vector<std::int64_t> normalized(std::vector<std::int64_t> raw, framework::Status* status = nullptr) {
  PodGroupPodsCount pl;
  std::vector<framework::PlacementScore> scores;
  for (auto r : raw) scores.push_back({nullptr, r});
  framework::Status s = pl.normalize_placement_score(framework::PodGroupInfo{}, scores);
  if (status) *status = s;
  std::vector<std::int64_t> out;
  for (const auto& x : scores) out.push_back(x.score);
  return out;
}

// TestNormalizePlacementScore: score * 100 / max, integer division; all zero is an error.
TEST(PodGroupPodsCount, NormalizePlacementScoreDividesByTheLargest) {
  EXPECT_EQ(normalized({10, 50, 110}), (std::vector<std::int64_t>{9, 45, 100}));  // distinct scores
  EXPECT_EQ(normalized({50, 50}), (std::vector<std::int64_t>{100, 100}));         // equal scores
  EXPECT_EQ(normalized({50}), (std::vector<std::int64_t>{100}));                  // single score
  // A minimal score far from a close group is not spread evenly.
  EXPECT_EQ(normalized({11, 100, 101, 102}), (std::vector<std::int64_t>{10, 98, 99, 100}));
  framework::Status s;
  normalized({0, 0}, &s);
  EXPECT_TRUE(s.is_error());
  EXPECT_EQ(s.message(), "no pods from pod group are assigned to any of the candidate placements");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podgrouppodscount
