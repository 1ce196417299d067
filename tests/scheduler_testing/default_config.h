// The default KubeSchedulerConfiguration minus any in-tree plugin this build lacks, for tests and
// benchmarks that run a whole Scheduler (they link ksched_scheduler for the in-tree registry).
#pragma once
#include <algorithm>

#include "scheduler/config/defaults.h"
#include "scheduler/in_tree_registry.h"

namespace ksched::scheduler::testing {

inline config::KubeSchedulerConfiguration default_config_for_this_build() {
  auto cfg = config::default_configuration();
  const auto missing = missing_in_tree_plugins();
  for (auto& prof : cfg.profiles) {
    auto& en = prof.plugins.multiPoint.enabled;
    en.erase(std::remove_if(en.begin(), en.end(),
                            [&](const config::Plugin& p) {
                              return std::find(missing.begin(), missing.end(), p.name) != missing.end();
                            }),
             en.end());
  }
  return cfg;
}

}  // namespace ksched::scheduler::testing
