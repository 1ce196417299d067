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

// Upstream's newest PrioritySort.Less on QueuedEntityInfo: a pod group is compared by its own
// GetPriority (the PodGroup's spec.priority) and GetTimestamp, not by its pods'. Two entities that
// tie on both keep one order (the group made first, a plain pod before a group); members of one
// group compare by their own pods (the order the pod-group cycle tries them).
TEST(PrioritySort, LessComparesAPodGroupMemberAsItsGroup) {
  PrioritySort pl;
  auto group = [](std::uint64_t seq, std::int32_t prio, int ts_seconds) {
    auto g = std::make_shared<framework::QueuedGroupInfo>();
    g->seq = seq;
    g->priority = prio;
    g->priorityKnown = true;
    g->timestamp = std::chrono::steady_clock::time_point(std::chrono::seconds(ts_seconds));
    return g;
  };
  auto member = [](const testing::PodWrapper& p, int ts_seconds, std::shared_ptr<framework::QueuedGroupInfo> g) {
    auto q = queued(p, ts_seconds);
    q.group = std::move(g);
    return q;
  };
  auto high = group(1, 100, 9), low = group(2, 10, 0), early = group(3, 50, 1), late = group(4, 50, 2);
  auto tie = group(5, 50, 1);
  struct Case {
    const char* name;
    framework::QueuedPodInfo a, b;
    bool want;
  };
  const Case cases[] = {
      {"group 100 with pods of 0 before a plain 50", member(MakePod().Name("m"), 0, high),
       queued(MakePod().Name("p").Priority(50), 0), true},
      {"plain 50 before a group 10 with pods of 1000", queued(MakePod().Name("p").Priority(50), 5),
       member(MakePod().Name("m").Priority(1000), 0, low), true},
      {"equal groups: the earlier group first, whatever the pods' times", member(MakePod().Name("a"), 9, early),
       member(MakePod().Name("b"), 0, late), true},
      {"equal groups, reversed", member(MakePod().Name("b"), 0, late), member(MakePod().Name("a"), 9, early), false},
      {"a plain pod at the group's priority and time first", queued(MakePod().Name("p").Priority(50), 1),
       member(MakePod().Name("m"), 0, early), true},
      {"the group made first wins a full tie", member(MakePod().Name("a"), 5, early), member(MakePod().Name("b"), 0, tie),
       true},
      {"one group: the member's own priority", member(MakePod().Name("a").Priority(1), 5, early),
       member(MakePod().Name("b"), 0, early), true},
      {"one group: the member's own time", member(MakePod().Name("a"), 5, early), member(MakePod().Name("b"), 0, early),
       false},
  };
  for (const auto& c : cases) EXPECT_EQ(pl.less(c.a, c.b), c.want) << c.name;
}

}  // namespace
}  // namespace ksched::scheduler::plugins::prioritysort
