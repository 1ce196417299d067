// Small helpers every layer needs: object keys, pod state, PodScheduled condition updates and
// RFC 3339 timestamps (metav1.Time / metav1.MicroTime wire forms).
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/core.h"
#include "api/object.h"
#include "util/clock.h"
#include "util/result.h"

namespace ksched::api {

// ---------------------------------------------------------------- time
// "2024-01-02T03:04:05Z" (Time: seconds, truncating) / "2024-01-02T03:04:05.123456Z" (MicroTime).
std::string format_rfc3339(Time t);
std::string format_rfc3339(MicroTime t);
// Appends the timestamp with `frac_digits` (0, 6 or 9) fractional digits, always in UTC.
void append_rfc3339(std::string& out, std::int64_t unix_nanos, int frac_digits);
// Accepts RFC 3339 with or without fractional seconds (any number of digits) and with "Z" or a
// numeric offset; the result is UTC nanoseconds.
util::Result<Time> parse_rfc3339(std::string_view s);
util::Result<MicroTime> parse_rfc3339_micro(std::string_view s);
// Same, without building a Result (hot path of the codec); false on malformed input.
bool parse_rfc3339_nanos(std::string_view s, std::int64_t& unix_nanos);

Time to_time(std::chrono::system_clock::time_point tp);
MicroTime to_micro_time(std::chrono::system_clock::time_point tp);
std::chrono::system_clock::time_point to_time_point(Time t);
// Wall-clock "now" from a Clock (use a FakeClock in tests). Time is truncated to seconds, as the
// API server stores it; MicroTime to microseconds.
Time now(const util::Clock& clock);
MicroTime micro_now(const util::Clock& clock);

// ---------------------------------------------------------------- objects
// "namespace/name", or "name" for cluster-scoped objects (client-go's MetaNamespaceKeyFunc).
std::string namespaced_key(const ObjectMeta& meta);
std::string namespaced_key(std::string_view ns, std::string_view name);
template <class T>
std::string key_of(const T& obj) {
  return namespaced_key(obj.metadata);
}
// Splits a key produced by namespaced_key back into (namespace, name).
std::pair<std::string_view, std::string_view> split_key(std::string_view key);

// Pod phase is Succeeded or Failed.
bool pod_is_terminal(const Pod& pod);
// Pod has spec.nodeName set.
inline bool pod_is_assigned(const Pod& pod) { return !pod.spec.nodeName.empty(); }

// intstr.GetScaledValueFromIntOrPercent: an int as is, "N%" scaled to `total` (ceil or floor).
util::Result<int> scaled_value_from_int_or_percent(const IntOrString* v, int total, bool round_up);

// spec.priority, 0 when unset (corev1helpers.PodPriority).
inline std::int32_t pod_priority(const Pod& pod) { return pod.spec.priority.value_or(0); }

const NodeCondition* find_node_condition(const NodeStatus& status, std::string_view type);

// ---------------------------------------------------------------- pod conditions
const PodCondition* find_pod_condition(const PodStatus& status, std::string_view type);
PodCondition* find_pod_condition(PodStatus& status, std::string_view type);
// upstream podutil.UpdatePodCondition: sets lastTransitionTime to `now` unless the status is
// unchanged (then the old transition time is kept); returns true if anything changed.
bool update_pod_condition(PodStatus& status, PodCondition condition, Time now);

}  // namespace ksched::api
