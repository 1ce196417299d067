#include "controllers/deployment/util.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>

#include <boost/json.hpp>

#include "api/codec.h"
#include "api/helpers.h"

namespace ksched::controllers::deployment {

namespace json = boost::json;

void apply_defaults(Deployment& d) {
  if (!d.spec.replicas) d.spec.replicas = 1;
  if (d.spec.strategy.type.empty()) d.spec.strategy.type = "RollingUpdate";
  if (d.spec.strategy.type == "RollingUpdate") {
    auto& ru = d.spec.strategy.rollingUpdate;
    if (!ru) ru.emplace();
    if (!ru->maxUnavailable) ru->maxUnavailable = api::IntOrString::from_string("25%");
    if (!ru->maxSurge) ru->maxSurge = api::IntOrString::from_string("25%");
  }
  if (!d.spec.revisionHistoryLimit) d.spec.revisionHistoryLimit = 10;
  if (!d.spec.progressDeadlineSeconds) d.spec.progressDeadlineSeconds = 600;
}

std::int32_t replicas(const Deployment& d) { return d.spec.replicas.value_or(1); }
std::int32_t replicas(const ReplicaSet& rs) { return rs.spec.replicas.value_or(1); }
bool is_rolling_update(const Deployment& d) { return d.spec.strategy.type == "RollingUpdate"; }
bool has_progress_deadline(const Deployment& d) {
  return d.spec.progressDeadlineSeconds && *d.spec.progressDeadlineSeconds != INT32_MAX;
}
bool has_revision_history_limit(const Deployment& d) {
  return d.spec.revisionHistoryLimit && *d.spec.revisionHistoryLimit != INT32_MAX;
}

std::pair<std::int32_t, std::int32_t> resolve_fenceposts(const Deployment& d) {
  const auto& ru = d.spec.strategy.rollingUpdate;
  api::IntOrString zero = api::IntOrString::from_int(0);
  const api::IntOrString* s = ru && ru->maxSurge ? &*ru->maxSurge : &zero;
  const api::IntOrString* u = ru && ru->maxUnavailable ? &*ru->maxUnavailable : &zero;
  int desired = replicas(d);
  auto surge = api::scaled_value_from_int_or_percent(s, desired, true);
  auto unavailable = api::scaled_value_from_int_or_percent(u, desired, false);
  int sv = surge ? *surge : 0, uv = unavailable ? *unavailable : 0;
  if (sv == 0 && uv == 0) uv = 1;  // both rounded to zero: allow one unavailable
  return {sv, uv};
}

std::int32_t max_surge(const Deployment& d) {
  if (!is_rolling_update(d)) return 0;
  return resolve_fenceposts(d).first;
}

std::int32_t max_unavailable(const Deployment& d) {
  if (!is_rolling_update(d) || replicas(d) == 0) return 0;
  return std::min(resolve_fenceposts(d).second, replicas(d));
}

// ---------------------------------------------------------------- conditions

DeploymentCondition new_condition(std::string_view type, std::string_view status, std::string_view reason,
                                  std::string message, api::Time now) {
  DeploymentCondition c;
  c.type = type;
  c.status = status;
  c.lastUpdateTime = now;
  c.lastTransitionTime = now;
  c.reason = reason;
  c.message = std::move(message);
  return c;
}

const DeploymentCondition* get_condition(const DeploymentStatus& s, std::string_view type) {
  for (const auto& c : s.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

void remove_condition(DeploymentStatus& s, std::string_view type) {
  std::erase_if(s.conditions, [&](const DeploymentCondition& c) { return c.type == type; });
}

void set_condition(DeploymentStatus& s, DeploymentCondition c) {
  const auto* cur = get_condition(s, c.type);
  if (cur && cur->status == c.status && cur->reason == c.reason) return;
  if (cur && cur->status == c.status) c.lastTransitionTime = cur->lastTransitionTime;
  remove_condition(s, c.type);
  s.conditions.push_back(std::move(c));
}

// ---------------------------------------------------------------- annotations

namespace {

std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

bool skip_copy_annotation(std::string_view k) {
  return k == "kubectl.kubernetes.io/last-applied-configuration" || k == kRevisionAnnotation ||
         k == kRevisionHistoryAnnotation || k == kDesiredReplicasAnnotation || k == kMaxReplicasAnnotation ||
         k == "deprecated.deployment.rollback.to";
}

}  // namespace

std::int64_t revision_of(const ReplicaSet& rs) {
  return parse_int(rs.metadata.annotations.get(kRevisionAnnotation)).value_or(0);
}

std::int64_t max_revision(const std::vector<RSPtr>& rss) {
  std::int64_t m = 0;
  for (const auto& rs : rss)
    if (rs) m = std::max(m, revision_of(*rs));
  return m;
}

bool set_deployment_revision(Deployment& d, std::string_view revision) {
  if (d.metadata.annotations.get(kRevisionAnnotation) == revision) return false;
  d.metadata.annotations.set(std::string(kRevisionAnnotation), std::string(revision));
  return true;
}

bool set_replicas_annotations(ReplicaSet& rs, std::int32_t desired, std::int32_t max) {
  bool changed = false;
  auto d = std::to_string(desired), m = std::to_string(max);
  if (rs.metadata.annotations.get(kDesiredReplicasAnnotation) != d) {
    rs.metadata.annotations.set(std::string(kDesiredReplicasAnnotation), d);
    changed = true;
  }
  if (rs.metadata.annotations.get(kMaxReplicasAnnotation) != m) {
    rs.metadata.annotations.set(std::string(kMaxReplicasAnnotation), m);
    changed = true;
  }
  return changed;
}

bool replicas_annotations_need_update(const ReplicaSet& rs, std::int32_t desired, std::int32_t max) {
  return rs.metadata.annotations.get(kDesiredReplicasAnnotation) != std::to_string(desired) ||
         rs.metadata.annotations.get(kMaxReplicasAnnotation) != std::to_string(max);
}

std::optional<std::int32_t> desired_replicas_annotation(const ReplicaSet& rs) {
  auto v = parse_int(rs.metadata.annotations.get(kDesiredReplicasAnnotation));
  if (!v || *v < INT32_MIN || *v > INT32_MAX) return std::nullopt;
  return static_cast<std::int32_t>(*v);
}

bool set_new_replica_set_annotations(const Deployment& d, ReplicaSet& rs, const std::string& new_revision,
                                     bool exists) {
  bool changed = false;
  for (const auto& [k, v] : d.metadata.annotations) {
    if (skip_copy_annotation(k)) continue;
    if (const auto* cur = rs.metadata.annotations.find(k); cur && *cur == v) continue;
    rs.metadata.annotations.set(k, v);
    changed = true;
  }
  std::string old_revision(rs.metadata.annotations.get(kRevisionAnnotation));
  bool had = rs.metadata.annotations.contains(kRevisionAnnotation);
  std::int64_t old_int = 0;
  if (!old_revision.empty()) {
    auto p = parse_int(old_revision);
    if (!p) return false;
    old_int = *p;
  }
  auto new_int = parse_int(new_revision);
  if (!new_int) return false;
  if (old_int < *new_int) {
    rs.metadata.annotations.set(std::string(kRevisionAnnotation), new_revision);
    changed = true;
  }
  // A replica set given a newer revision is being rolled back to: keep its old revisions.
  if (had && old_int < *new_int) {
    std::string history(rs.metadata.annotations.get(kRevisionHistoryAnnotation));
    if (history.empty()) {
      rs.metadata.annotations.set(std::string(kRevisionHistoryAnnotation), old_revision);
    } else {
      std::vector<std::string> parts;
      for (std::size_t start = 0;;) {
        auto comma = history.find(',', start);
        parts.push_back(history.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      std::size_t total = history.size() + old_revision.size() + 1, first = 0;
      while (total > kMaxRevHistoryLengthInChars && first < parts.size()) total -= parts[first++].size() + 1;
      if (total <= kMaxRevHistoryLengthInChars) {
        std::string joined;
        for (std::size_t i = first; i < parts.size(); ++i) joined += parts[i] + ",";
        joined += old_revision;
        rs.metadata.annotations.set(std::string(kRevisionHistoryAnnotation), joined);
      }
    }
  }
  if (!exists && set_replicas_annotations(rs, replicas(d), replicas(d) + max_surge(d))) changed = true;
  return changed;
}

// ---------------------------------------------------------------- replica sets

namespace {

// Semantic equality: nulls, empty lists and empty maps are absent.
void normalize(json::value& v) {
  if (v.is_object()) {
    auto& o = v.get_object();
    for (auto it = o.begin(); it != o.end();) {
      normalize(it->value());
      const auto& x = it->value();
      bool empty = x.is_null() || (x.is_array() && x.get_array().empty()) || (x.is_object() && x.get_object().empty());
      it = empty ? o.erase(it) : it + 1;
    }
  } else if (v.is_array()) {
    for (auto& x : v.get_array()) normalize(x);
  }
}

json::value comparable(const PodTemplateSpec& t) {
  PodTemplateSpec c = t;
  c.metadata.labels.erase(kDefaultUniqueLabelKey);
  json::value v = json::parse(api::encode(c));
  normalize(v);
  return v;
}

std::int64_t created(const ReplicaSet& rs) {
  return rs.metadata.creationTimestamp ? rs.metadata.creationTimestamp->unixNanos : 0;
}

bool by_creation(const RSPtr& a, const RSPtr& b) {
  // Timestamps have second resolution: ties go by name.
  if (created(*a) == created(*b)) return std::string_view(a->metadata.name) < std::string_view(b->metadata.name);
  return created(*a) < created(*b);
}

}  // namespace

bool equal_ignore_hash(const PodTemplateSpec& a, const PodTemplateSpec& b) { return comparable(a) == comparable(b); }

void sort_by_creation(std::vector<RSPtr>& v) { std::stable_sort(v.begin(), v.end(), by_creation); }

void sort_by_size_older(std::vector<RSPtr>& v) {
  std::stable_sort(v.begin(), v.end(), [](const RSPtr& a, const RSPtr& b) {
    if (replicas(*a) == replicas(*b)) return by_creation(a, b);
    return replicas(*a) > replicas(*b);
  });
}

void sort_by_size_newer(std::vector<RSPtr>& v) {
  std::stable_sort(v.begin(), v.end(), [](const RSPtr& a, const RSPtr& b) {
    if (replicas(*a) == replicas(*b)) return by_creation(b, a);
    return replicas(*a) > replicas(*b);
  });
}

void sort_by_revision(std::vector<RSPtr>& v) {
  std::stable_sort(v.begin(), v.end(), [](const RSPtr& a, const RSPtr& b) {
    auto ra = parse_int(a->metadata.annotations.get(kRevisionAnnotation));
    auto rb = parse_int(b->metadata.annotations.get(kRevisionAnnotation));
    if (!ra || !rb || *ra == *rb) return by_creation(a, b);
    return *ra < *rb;
  });
}

RSPtr find_new_replica_set(const Deployment& d, std::vector<RSPtr> rss) {
  sort_by_creation(rss);
  auto want = comparable(d.spec.template_);
  for (const auto& rs : rss)
    if (comparable(rs->spec.template_) == want) return rs;  // the oldest, should there be several
  return nullptr;
}

std::vector<RSPtr> find_old_replica_sets(const Deployment&, const std::vector<RSPtr>& rss, const RSPtr& new_rs) {
  std::vector<RSPtr> out;
  for (const auto& rs : rss)
    if (!new_rs || rs->metadata.uid != new_rs->metadata.uid) out.push_back(rs);
  return out;
}

std::vector<RSPtr> filter_active(const std::vector<RSPtr>& rss) {
  std::vector<RSPtr> out;
  for (const auto& rs : rss)
    if (rs && replicas(*rs) > 0) out.push_back(rs);
  return out;
}

RSPtr find_active_or_latest(const RSPtr& new_rs, std::vector<RSPtr> old_rss) {
  if (!new_rs && old_rss.empty()) return nullptr;
  sort_by_creation(old_rss);
  std::reverse(old_rss.begin(), old_rss.end());
  auto all = old_rss;
  all.push_back(new_rs);
  auto active = filter_active(all);
  if (active.empty()) return new_rs ? new_rs : old_rss.front();
  if (active.size() == 1) return active.front();
  return nullptr;
}

bool is_saturated(const Deployment& d, const RSPtr& rs) {
  if (!rs) return false;
  auto desired = desired_replicas_annotation(*rs);
  return replicas(*rs) == replicas(d) && desired && *desired == replicas(d) &&
         rs->status.availableReplicas == replicas(d);
}

std::int32_t sum_spec_replicas(const std::vector<RSPtr>& rss) {
  std::int32_t n = 0;
  for (const auto& rs : rss)
    if (rs) n += replicas(*rs);
  return n;
}
std::int32_t sum_status_replicas(const std::vector<RSPtr>& rss) {
  std::int32_t n = 0;
  for (const auto& rs : rss)
    if (rs) n += rs->status.replicas;
  return n;
}
std::int32_t sum_ready_replicas(const std::vector<RSPtr>& rss) {
  std::int32_t n = 0;
  for (const auto& rs : rss)
    if (rs) n += rs->status.readyReplicas;
  return n;
}
std::int32_t sum_available_replicas(const std::vector<RSPtr>& rss) {
  std::int32_t n = 0;
  for (const auto& rs : rss)
    if (rs) n += rs->status.availableReplicas;
  return n;
}

std::int32_t new_rs_new_replicas(const Deployment& d, const std::vector<RSPtr>& all, const ReplicaSet& new_rs) {
  if (d.spec.strategy.type == "Recreate") return replicas(d);
  std::int32_t surge = max_surge(d);
  std::int32_t current = sum_spec_replicas(all);
  std::int32_t max_total = replicas(d) + surge;
  if (current >= max_total) return replicas(new_rs);
  std::int32_t up = std::min(max_total - current, replicas(d) - replicas(new_rs));
  return replicas(new_rs) + up;
}

std::int32_t replica_set_proportion(const ReplicaSet& rs, const Deployment& d, std::int32_t to_add,
                                    std::int32_t added) {
  if (replicas(rs) == 0 || to_add == 0 || to_add == added) return 0;
  std::int32_t fraction = 0;
  if (replicas(d) == 0) {
    fraction = -replicas(rs);
  } else {
    std::int32_t max_now = replicas(d) + max_surge(d);
    std::optional<std::int64_t> before = parse_int(rs.metadata.annotations.get(kMaxReplicasAnnotation));
    std::int64_t b = before.value_or(0);
    if (b == 0) b = d.status.replicas;
    if (b == 0) {
      fraction = 0;
    } else {
      double size = static_cast<double>(replicas(rs)) * max_now / static_cast<double>(b);
      fraction = static_cast<std::int32_t>(std::round(size)) - replicas(rs);
    }
  }
  std::int32_t allowed = to_add - added;
  return to_add > 0 ? std::min(fraction, allowed) : std::max(fraction, allowed);
}

bool deployment_complete(const Deployment& d, const DeploymentStatus& s) {
  return s.updatedReplicas == replicas(d) && s.replicas == replicas(d) && s.availableReplicas == replicas(d) &&
         s.observedGeneration >= d.metadata.generation;
}

bool deployment_progressing(const Deployment& d, const DeploymentStatus& s) {
  const auto& o = d.status;
  std::int32_t old_old = o.replicas - o.updatedReplicas;
  std::int32_t new_old = s.replicas - s.updatedReplicas;
  return s.updatedReplicas > o.updatedReplicas || new_old < old_old || s.readyReplicas > o.readyReplicas ||
         s.availableReplicas > o.availableReplicas;
}

bool deployment_timed_out(const Deployment& d, const DeploymentStatus& s, api::Time now) {
  if (!has_progress_deadline(d)) return false;
  const auto* c = get_condition(s, "Progressing");
  if (!c) return false;
  if (c->reason == kNewRSAvailableReason) return false;
  if (c->reason == kTimedOutReason) return true;
  std::int64_t from = c->lastUpdateTime ? c->lastUpdateTime->unixNanos : 0;
  return from + std::int64_t{*d.spec.progressDeadlineSeconds} * 1'000'000'000 < now.unixNanos;
}

}  // namespace ksched::controllers::deployment
