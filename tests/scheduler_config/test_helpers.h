// Shared helpers for the scheduler config tests.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scheduler/config/load.h"
#include "scheduler/config/types.h"

namespace ksched::scheduler::config::testing {

inline std::string doc(const std::string& body) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + body;
}

inline KubeSchedulerConfiguration must_decode(const std::string& body) {
  auto r = decode_config(doc(body));
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? *r : KubeSchedulerConfiguration{};
}

inline std::vector<std::string> names_of(const std::vector<Plugin>& ps) {
  std::vector<std::string> out;
  for (const auto& p : ps) out.push_back(p.name);
  return out;
}

}  // namespace ksched::scheduler::config::testing
