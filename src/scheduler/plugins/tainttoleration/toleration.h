// Toleration matching as upstream's v1 helpers (Toleration.ToleratesTaint,
// TolerationsTolerateTaint, FindMatchingUntoleratedTaint). Header-only so NodeUnschedulable and
// the queue's pre-checks can share it without linking this plugin.
#pragma once
#include <vector>

#include "api/core.h"

namespace ksched::scheduler::plugins::tainttoleration {

inline constexpr std::string_view kEffectNoSchedule = "NoSchedule";
inline constexpr std::string_view kEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kEffectNoExecute = "NoExecute";

// An empty toleration effect/key is a wildcard; operator "" means Equal.
inline bool tolerates(const api::Toleration& t, const api::Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.operator_.empty() || t.operator_ == "Equal") return t.value == taint.value;
  return t.operator_ == "Exists";
}

inline bool tolerations_tolerate_taint(const std::vector<api::Toleration>& tolerations, const api::Taint& taint) {
  for (const auto& t : tolerations) {
    if (tolerates(t, taint)) return true;
  }
  return false;
}

inline bool is_do_not_schedule_taint(const api::Taint& t) {
  return t.effect == kEffectNoSchedule || t.effect == kEffectNoExecute;
}

// First NoSchedule/NoExecute taint that no toleration tolerates; nullptr when all are tolerated.
inline const api::Taint* find_untolerated_do_not_schedule_taint(const std::vector<api::Taint>& taints,
                                                               const std::vector<api::Toleration>& tolerations) {
  for (const auto& taint : taints) {
    if (!is_do_not_schedule_taint(taint)) continue;
    if (!tolerations_tolerate_taint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

}  // namespace ksched::scheduler::plugins::tainttoleration
