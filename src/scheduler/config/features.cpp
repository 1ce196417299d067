#include "scheduler/config/features.h"

namespace ksched::scheduler::config {

namespace {
// Written at start-up or by a test between scheduler runs, read everywhere after: a plain object,
// as upstream's gates are fixed once the component runs.
Features g_features;
}  // namespace

const Features& features() { return g_features; }

void set_features(const Features& f) { g_features = f; }

Features features_from_gates(const std::map<std::string, bool>& gates) {
  Features f;
  // AllAlpha / AllBeta set every alpha (beta) gate not named on its own.
  auto all = [&](const char* name) {
    auto it = gates.find(name);
    return it != gates.end() && it->second;
  };
  if (all("AllAlpha")) f.nodeDeclaredFeatures = true;
  if (all("AllBeta")) f.podLevelResources = true;
  if (auto it = gates.find("PodLevelResources"); it != gates.end()) f.podLevelResources = it->second;
  if (auto it = gates.find("NodeDeclaredFeatures"); it != gates.end()) f.nodeDeclaredFeatures = it->second;
  return f;
}

}  // namespace ksched::scheduler::config
