#include "scheduler/plugins/imagelocality/imagelocality.h"

#include <gtest/gtest.h>

#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::imagelocality {
namespace {

using testing::FakeHandle;
using testing::MakeNode;
using testing::MakePod;

constexpr std::int64_t MiB = kMB;

TEST(ImageLocality, NormalizedName) {
  EXPECT_EQ(normalized_image_name("nginx"), "nginx:latest");
  EXPECT_EQ(normalized_image_name("nginx:1.25"), "nginx:1.25");
  // A ':' before the last '/' is a registry port, not a tag.
  EXPECT_EQ(normalized_image_name("registry:5000/app"), "registry:5000/app:latest");
  EXPECT_EQ(normalized_image_name("registry:5000/app:v1"), "registry:5000/app:v1");
}

TEST(ImageLocality, CalculatePriority) {
  EXPECT_EQ(calculate_priority(0, 1), 0);                        // below the minimum → 0
  EXPECT_EQ(calculate_priority(2000 * MiB, 1), 100);             // above 1000 MiB·1 → clamped
  EXPECT_EQ(calculate_priority(250 * MiB, 1), 23);               // 100·227/977 = 23
  EXPECT_EQ(calculate_priority(1000 * MiB, 2), 100 * 977 / 1977);  // max grows with containers
  EXPECT_EQ(calculate_priority(0, 0), 0);
}

// Runs Score for `pod` on every node of a snapshot built from `nodes`.
std::vector<std::int64_t> scores(const api::Pod& pod, const std::vector<api::Node>& nodes) {
  FakeHandle handle;
  handle.set_snapshot(std::vector<api::Pod>{}, nodes);
  auto made = make_image_locality({}, handle);
  EXPECT_TRUE(made.ok());
  auto* pl = dynamic_cast<framework::ScorePlugin*>(made.value().get());
  EXPECT_FALSE(pl->has_normalize_score());
  framework::CycleState state;
  std::vector<std::int64_t> out;
  for (const auto& ni : handle.snapshot().list()) {
    std::int64_t s = -1;
    EXPECT_TRUE(pl->score(state, pod, *ni, s).is_success());
    out.push_back(s);
  }
  return out;
}

// Reference check value: one container, 500 MiB image on 5 of 10 nodes → 500·5/10 = 250 MiB →
// 100·(250−23)/(1000−23) = 23.
TEST(ImageLocality, CheckValue) {
  std::vector<api::Node> nodes;
  for (int i = 0; i < 10; ++i) {
    auto n = MakeNode().Name("n" + std::to_string(i));
    if (i < 5) n.Image("app:v1", 500 * MiB);
    nodes.push_back(n.Obj());
  }
  auto got = scores(MakePod().Name("p").Container("app:v1").Obj(), nodes);
  ASSERT_EQ(got.size(), 10u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(got[i], 23) << i;
  for (int i = 5; i < 10; ++i) EXPECT_EQ(got[i], 0) << i;
}

TEST(ImageLocality, InitContainersAndDefaultTag) {
  // Untagged pod image matches the node's ":latest" entry; init container images count too.
  std::vector<api::Node> nodes = {
      MakeNode().Name("a").Image("nginx:latest", 400 * MiB).Image("init:v1", 400 * MiB).Obj(),
      MakeNode().Name("b").Image("nginx:1.0", 400 * MiB).Obj(),
  };
  auto pod = MakePod().Name("p").Container("nginx").Obj();
  api::Container init;
  init.name = "init";
  init.image = "init:v1";
  auto with_init = pod;
  with_init.spec.initContainers.push_back(init);
  // Node a: nginx:latest on 1/2 nodes → 200 MiB, init 200 MiB → 400 MiB; 2 containers:
  // 100·(400−23)/(2000−23) = 37700/1977 = 19.
  auto got = scores(with_init, nodes);
  EXPECT_EQ(got[0], 19);
  EXPECT_EQ(got[1], 0);  // nginx:1.0 is not nginx:latest
  // Without the init container: 200 MiB, 1 container → 100·177/977 = 18.
  got = scores(pod, nodes);
  EXPECT_EQ(got[0], 18);
}

TEST(ImageLocality, ClampedAtMax) {
  std::vector<api::Node> nodes = {MakeNode().Name("a").Image("big:1", 3000 * MiB).Obj()};
  EXPECT_EQ(scores(MakePod().Name("p").Container("big:1").Obj(), nodes)[0], 100);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::imagelocality
