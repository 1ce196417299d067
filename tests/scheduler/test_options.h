// SchedulerOptions for a scheduler under test: the test's fake clock and metrics, filters and scores
// run inline on the loop thread, a fixed seed so tie-breaks repeat.
#pragma once
#include <memory>

#include "scheduler/scheduler.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler {

inline SchedulerOptions test_scheduler_options(util::FakeClock& clock, metrics::SchedulerMetrics& metrics,
                                               std::uint64_t seed, int binding_workers) {
  SchedulerOptions o;
  o.clock = &clock;
  o.parallelizer = std::make_shared<testing::InlineParallelizer>();
  o.metrics = &metrics;
  o.seed = seed;
  o.binding_workers = binding_workers;
  return o;
}

}  // namespace ksched::scheduler
