#include "scheduler/plugins/prioritysort/prioritysort.h"

#include <gtest/gtest.h>

#include "scheduler_testing/builders.h"

namespace ksched::scheduler::plugins::prioritysort {
namespace {

using testing::MakePod;

framework::QueuedPodInfo queued(const testing::PodWrapper& p, int ts_seconds) {
  framework::QueuedPodInfo q;
  q.podInfo = p.Info();
  q.timestamp = std::chrono::steady_clock::time_point(std::chrono::seconds(ts_seconds));
  return q;
}

TEST(PrioritySort, Less) {
  PrioritySort pl;
  struct Case {
    const char* name;
    framework::QueuedPodInfo a, b;
    bool want;
  };
  const Case cases[] = {
      // Higher priority first regardless of time.
      {"p1 > p2", queued(MakePod().Name("a").Priority(100), 5), queued(MakePod().Name("b").Priority(50), 1), true},
      {"p1 < p2", queued(MakePod().Name("a").Priority(50), 1), queued(MakePod().Name("b").Priority(100), 5), false},
      // Equal priority: earlier timestamp first.
      {"equal, earlier", queued(MakePod().Name("a").Priority(10), 1), queued(MakePod().Name("b").Priority(10), 2), true},
      {"equal, later", queued(MakePod().Name("a").Priority(10), 2), queued(MakePod().Name("b").Priority(10), 1), false},
      {"equal, same time", queued(MakePod().Name("a").Priority(10), 1), queued(MakePod().Name("b").Priority(10), 1), false},
      // Unset priority counts as 0, below a positive one and above a negative one.
      {"unset vs 1", queued(MakePod().Name("a"), 0), queued(MakePod().Name("b").Priority(1), 9), false},
      {"unset vs -1", queued(MakePod().Name("a"), 9), queued(MakePod().Name("b").Priority(-1), 0), true},
  };
  for (const auto& c : cases) EXPECT_EQ(pl.less(c.a, c.b), c.want) << c.name;
  EXPECT_EQ(pl.name(), "PrioritySort");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::prioritysort
