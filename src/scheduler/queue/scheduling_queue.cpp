#include "scheduler/queue/scheduling_queue.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/helpers.h"
#include "scheduler/podgroup/manager.h"

#include "util/log.h"
#include "util/thread.h"

namespace ksched::scheduler::queue {

using framework::ClusterEvent;
using framework::QueuedPodInfo;

namespace {

bool default_less(const QueuedPodInfo& a, const QueuedPodInfo& b) { return framework::priority_sort_less(a, b); }

// The PodGroup a pod names (spec.schedulingGroup.podGroupName), or null: two null checks.
const std::string* pod_group_name_of(const api::Pod& pod) {
  const auto& g = pod.spec.schedulingGroup;
  return g && g->podGroupName ? &*g->podGroupName : nullptr;
}

// "<ns>/<name>" of the PodGroup `name` in the pod's namespace.
std::string pod_group_key(const api::Pod& pod, const std::string& name) {
  const auto& ns = pod.metadata.namespace_;
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  return key;
}

// The plugins that rejected the pod (unschedulablePlugins and pendingPlugins), each once, without
// building their union: this runs per queued pod per cluster event. `fn` returns false to stop.
template <class Fn>
void for_each_rejector(const QueuedPodInfo& p, Fn&& fn) {
  for (const auto& pl : p.unschedulablePlugins) {
    if (!fn(pl)) return;
  }
  for (const auto& pl : p.pendingPlugins) {
    if (p.unschedulablePlugins.count(pl) != 0) continue;
    if (!fn(pl)) return;
  }
}
bool has_rejectors(const QueuedPodInfo& p) { return !p.unschedulablePlugins.empty() || !p.pendingPlugins.empty(); }

// Whether an event on objects of `resource` matches a registration on it (an index's events).
bool concerns(framework::EventResource resource, const ClusterEvent& e) {
  return ClusterEvent{resource, framework::kAll, {}}.match(e);
}

// Whether a registration may match some event on objects of `resource`.
bool may_match_resource(const ClusterEvent& reg, framework::EventResource resource) {
  using R = framework::EventResource;
  if (reg.resource == R::WildCard || reg.resource == resource) return true;
  const auto pod_kind = [](R r) { return r == R::Pod || r == R::AssignedPod || r == R::UnscheduledPod; };
  // Pod covers AssignedPod and UnscheduledPod, both ways.
  return pod_kind(reg.resource) && pod_kind(resource) && (reg.resource == R::Pod || resource == R::Pod);
}

// scheduler_inflight_events' label for the in-flight pods themselves (metrics.PodPoppedInFlightEvent).
constexpr std::string_view kPodPoppedInFlightEvent = "PodPopped";

const char* queue_label(QueueName q) {
  switch (q) {
    case QueueName::Active:
      return "active";
    case QueueName::Backoff:
      return "backoff";
    case QueueName::Unschedulable:
      return "unschedulable";
  }
  return "";
}

}  // namespace

PriorityQueue::PriorityQueue(QueueOptions opts)
    : opts_(std::move(opts)),
      clock_(*opts_.clock),
      nominator_(opts_.pod_lookup),
      active_([](const QueuedPodInfoPtr& p) { return api::key_of(p->pod()); },
              [this](const QueuedPodInfoPtr& a, const QueuedPodInfoPtr& b) {
                return opts_.less ? opts_.less(*a, *b) : default_less(*a, *b);
              }),
      backoff_([](const QueuedPodInfoPtr& p) { return api::key_of(p->pod()); },
               [this](const QueuedPodInfoPtr& a, const QueuedPodInfoPtr& b) {
                 // With PopFromBackoffQ, pods whose backoff ends in the same window are popped
                 // in QueueSort order (lessBackoffCompletedWithPriority).
                 auto ea = backoff_expiry(*a), eb = backoff_expiry(*b);
                 if (ea != eb || !opts_.pop_from_backoff_q) return ea < eb;
                 return opts_.less ? opts_.less(*a, *b) : default_less(*a, *b);
               }),
      error_backoff_([](const QueuedPodInfoPtr& p) { return api::key_of(p->pod()); },
                     [this](const QueuedPodInfoPtr& a, const QueuedPodInfoPtr& b) {
                       return backoff_expiry(*a) < backoff_expiry(*b);
                     }) {
  indexes_.resize(opts_.unschedulable_indexes.size());
  for (std::size_t i = 0; i < indexes_.size(); ++i) {
    const auto& idx = opts_.unschedulable_indexes[i];
    for (const auto& [profile, plugins] : opts_.plugin_events) {
      auto& answering = indexes_[i].answering[profile];
      for (const auto& [name, regs] : plugins) {
        if (name == idx.plugin) continue;
        for (const auto& reg : regs) {
          if (may_match_resource(reg.event, idx.resource)) {
            answering.insert(name);
            break;
          }
        }
      }
    }
  }
}

PriorityQueue::~PriorityQueue() { close(); }

QueuedPodInfoPtr PriorityQueue::new_queued_pod_info(framework::PodPtr pod) {
  auto p = std::make_shared<QueuedPodInfo>();
  p->podInfo = framework::PodInfo::make(std::move(pod));
  p->timestamp = clock_.now();
  if (opts_.pod_group_priority) attach_group_locked(*p);
  return p;
}

void PriorityQueue::attach_group_locked(QueuedPodInfo& p) {
  const std::string* name = pod_group_name_of(p.pod());
  if (name == nullptr) return;
  auto& slot = groups_[pod_group_key(p.pod(), *name)];
  if (auto g = slot.lock()) {
    p.group = std::move(g);
    return;
  }
  // The first member the queue holds (again): upstream's newQueuedPodGroupInfo takes its timestamp.
  auto g = std::make_shared<framework::QueuedGroupInfo>();
  g->seq = ++group_seq_;
  g->timestamp = p.timestamp;
  slot = g;
  p.group = std::move(g);
  refresh_group_priority_locked(p);
  if (groups_.size() >= groups_sweep_at_) {
    std::erase_if(groups_, [](const auto& kv) { return kv.second.expired(); });
    groups_sweep_at_ = std::max<std::size_t>(64, 2 * groups_.size());
  }
}

bool PriorityQueue::refresh_group_priority_locked(const QueuedPodInfo& p) {
  auto& g = *p.group;
  const std::string* name = pod_group_name_of(p.pod());
  const auto priority = opts_.pod_group_priority(p.pod().metadata.namespace_, *name);
  if (!priority) return false;  // not known yet: 0 until it is
  g.priorityKnown = true;
  if (g.priority == *priority) return false;
  g.priority = *priority;
  return true;
}

void PriorityQueue::refix_group_locked(const framework::QueuedGroupInfo* g) {
  // Members queued while their group's record changes (late arrivals, or a basic group's members
  // tried one by one): rare, and each heap is walked once.
  std::vector<std::string> keys;
  for (auto* heap : {&active_, &backoff_, &error_backoff_}) {
    keys.clear();
    heap->for_each([&](const QueuedPodInfoPtr& q) {
      if (q->group.get() == g) keys.push_back(api::key_of(q->pod()));
    });
    for (const auto& k : keys) heap->fix_key(k);
  }
}

void PriorityQueue::record_group_failure_locked(const QueuedPodInfo& p) {
  auto& g = *p.group;
  const bool rejected = !p.unschedulablePlugins.empty() || !p.pendingPlugins.empty();
  if (g.requeuedSincePop) {
    // This cycle is counted already; upstream counts it unschedulable if any member was rejected.
    if (!rejected || !g.cycleCountedAsError) return;
    g.cycleCountedAsError = false;
    g.consecutiveErrorsCount = 0;
    ++g.unschedulableCount;
    g.backoffExpiration.reset();
    refix_group_locked(&g);
    return;
  }
  g.requeuedSincePop = true;
  g.cycleCountedAsError = !rejected;
  if (rejected) {
    ++g.unschedulableCount;
    g.consecutiveErrorsCount = 0;
  } else {
    ++g.consecutiveErrorsCount;
  }
  g.timestamp = clock_.now();
  g.backoffExpiration.reset();
  refresh_group_priority_locked(p);
  refix_group_locked(&g);
}

bool PriorityQueue::hold_if_group_in_cycle_locked(const QueuedPodInfoPtr& p) {
  if (!p->group || p->group != in_cycle_group_) return false;
  // Upstream addPodGroupMember: the group is the entity last popped, so the member waits for it to
  // be requeued (pendingPodGroupPods) instead of being tried on its own meanwhile.
  held_[pod_group_key(p->pod(), *pod_group_name_of(p->pod()))].push_back(p);
  ++held_count_;
  // Upstream records the nomination before it decides where the member goes.
  nominator_.add_nominated_pod(p->podInfo, std::nullopt);
  if (auto v = log::V(5); v.enabled()) {
    v.info("Pod added to pending pod group pods, waiting for its pod group to be requeued",
           {{"pod", api::key_of(p->pod())}});
  }
  return true;
}

std::pair<std::vector<QueuedPodInfoPtr>*, std::size_t> PriorityQueue::find_held_locked(const api::Pod& pod) {
  if (held_count_ == 0) return {nullptr, 0};
  const std::string* name = pod_group_name_of(pod);
  if (name == nullptr) return {nullptr, 0};
  auto it = held_.find(pod_group_key(pod, *name));
  if (it == held_.end()) return {nullptr, 0};
  auto& list = it->second;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& m = list[i]->pod().metadata;
    if (m.name == pod.metadata.name && m.namespace_ == pod.metadata.namespace_) return {&list, i};
  }
  return {nullptr, 0};
}

std::chrono::nanoseconds PriorityQueue::backoff_duration(const QueuedPodInfo& p) const {
  return backoff_duration_for(p.consecutiveErrorsCount, p.unschedulableCount);
}

std::chrono::nanoseconds PriorityQueue::backoff_duration_for(int consecutive_errors, int unschedulable) const {
  // The error count, when there is one, decides; else the unschedulable count (getBackoffTime).
  const int count = consecutive_errors > 0 ? consecutive_errors : unschedulable;
  if (count == 0) return std::chrono::nanoseconds::zero();
  // initial · 2^(count−1), capped at max; doubling stops before it would pass max.
  auto d = opts_.pod_initial_backoff;
  for (int i = 1; i < count; ++i) {
    if (d > opts_.pod_max_backoff - d) return opts_.pod_max_backoff;
    d += d;
  }
  return std::min(d, opts_.pod_max_backoff);
}

util::Clock::time_point PriorityQueue::align_to_window(util::Clock::time_point t) const {
  if (!opts_.pop_from_backoff_q) return t;
  // Truncated to a whole second of the clock (backoffQOrderingWindowDuration).
  return util::Clock::time_point(std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()));
}

util::Clock::time_point PriorityQueue::backoff_expiry(QueuedPodInfo& p) const {
  // No backoff at all (the zero time): a maximum of 0, or a pod that never failed.
  if (opts_.pod_max_backoff.count() == 0) return util::Clock::time_point{};
  if (p.group) {
    // A member backs off as its group (upstream leaves a member's expiry empty and uses the group's).
    auto& g = *p.group;
    if (g.consecutiveErrorsCount == 0 && g.unschedulableCount == 0) return util::Clock::time_point{};
    if (!g.backoffExpiration)
      g.backoffExpiration = align_to_window(
          g.timestamp + std::chrono::duration_cast<util::Clock::duration>(
                            backoff_duration_for(g.consecutiveErrorsCount, g.unschedulableCount)));
    return *g.backoffExpiration;
  }
  if (p.consecutiveErrorsCount == 0 && p.unschedulableCount == 0) return util::Clock::time_point{};
  if (!p.backoffExpiration)
    p.backoffExpiration =
        align_to_window(p.timestamp + std::chrono::duration_cast<util::Clock::duration>(backoff_duration(p)));
  return *p.backoffExpiration;
}

bool PriorityQueue::is_backing_off(QueuedPodInfo& p) const {
  if (p.gated) return false;
  // Backing off until the window of the current time has passed the expiry (isPodBackingoff).
  return backoff_expiry(p) >= align_to_window(clock_.now());
}

const QueuedPodInfoPtr* PriorityQueue::backoff_get_locked(const std::string& key) const {
  if (const auto* p = backoff_.get(key)) return p;
  return error_backoff_.get(key);
}

void PriorityQueue::backoff_erase_locked(const std::string& key) {
  backoff_.erase(key);
  error_backoff_.erase(key);
}

bool PriorityQueue::has_pod_to_pop_locked() const {
  return !active_.empty() || (opts_.pop_from_backoff_q && !backoff_.empty());
}

// ---------------------------------------------------------------- internal moves

void PriorityQueue::unschedulable_reason_locked(const QueuedPodInfo& p, int delta) {
  if (!opts_.metrics) return;
  for_each_rejector(p, [&](const std::string& pl) {
    opts_.metrics->unschedulable_reason(pl, p.pod().spec.schedulerName, delta);
    return true;
  });
}

bool PriorityQueue::run_pre_enqueue_locked(QueuedPodInfo& p) {
  auto it = opts_.pre_enqueue_plugins.find(p.pod().spec.schedulerName);
  if (it == opts_.pre_enqueue_plugins.end()) return true;
  for (const auto& pl : it->second) {
    framework::Status s = pl->pre_enqueue(p.pod());
    if (s.is_success()) continue;
    std::string name(pl->name());
    if (p.unschedulablePlugins.insert(name).second && opts_.metrics) {
      opts_.metrics->unschedulable_reason(name, p.pod().spec.schedulerName, 1);
    }
    if (s.is_error()) {
      log::error("Plugin failed", {{"plugin", name}, {"pod", api::key_of(p.pod())}, {"err", s.message()}});
    } else {
      log::V(4).info("Pod is gated by PreEnqueue plugin",
                     {{"pod", api::key_of(p.pod())}, {"plugin", name}, {"reason", s.message()}});
    }
    return false;
  }
  return true;
}

void PriorityQueue::unschedulable_put_locked(const QueuedPodInfoPtr& p) {
  const std::string key = api::key_of(p->pod());
  unschedulable_erase_locked(key);
  auto& e = unschedulable_.emplace(key, UnschedEntry{p, p->gated, {}}).first->second;
  if (p->gated) ++gated_count_;
  index_unschedulable_locked(key, e);
  index_member_locked(p);
}

void PriorityQueue::unschedulable_erase_locked(const std::string& key) {
  auto it = unschedulable_.find(key);
  if (it == unschedulable_.end()) return;
  if (it->second.gated) --gated_count_;
  unindex_unschedulable_locked(key, it->second);
  unschedulable_.erase(it);
}

void PriorityQueue::index_unschedulable_locked(const std::string& key, UnschedEntry& e) {
  unindex_unschedulable_locked(key, e);
  if (indexes_.empty()) return;
  e.slots.resize(indexes_.size());
  const QueuedPodInfo& p = *e.p;
  for (std::size_t i = 0; i < indexes_.size(); ++i) {
    auto& state = indexes_[i];
    auto& slot = e.slots[i];
    // Narrowed only if upstream would ask this pod the index plugin's hints alone (see the contract).
    auto prof = state.answering.find(p.pod().spec.schedulerName.view());
    slot.narrowed = has_rejectors(p) && prof != state.answering.end();
    if (slot.narrowed) {
      for_each_rejector(p, [&](const std::string& plugin) {
        if (prof->second.count(plugin) != 0) slot.narrowed = false;
        return slot.narrowed;
      });
    }
    if (!slot.narrowed) {
      state.others.insert(key);
      continue;
    }
    opts_.unschedulable_indexes[i].keys_of_pod(p.pod(), slot.keys);
    for (const auto& k : slot.keys) state.by_key[k].push_back(key);
  }
}

void PriorityQueue::unindex_unschedulable_locked(const std::string& key, UnschedEntry& e) {
  for (std::size_t i = 0; i < e.slots.size(); ++i) {
    auto& state = indexes_[i];
    auto& slot = e.slots[i];
    if (!slot.narrowed) state.others.erase(key);
    for (const auto& k : slot.keys) {
      auto it = state.by_key.find(k);
      if (it == state.by_key.end()) continue;
      auto& pods = it->second;
      if (auto f = std::find(pods.begin(), pods.end(), key); f != pods.end()) {
        *f = std::move(pods.back());
        pods.pop_back();
      }
      if (pods.empty()) state.by_key.erase(it);
    }
  }
  e.slots.clear();
}

std::optional<std::vector<QueuedPodInfoPtr>> PriorityQueue::narrowed_candidates_locked(
    const ClusterEvent& e, const std::shared_ptr<const void>& old_obj, const std::shared_ptr<const void>& new_obj) {
  for (std::size_t i = 0; i < indexes_.size(); ++i) {
    const auto& idx = opts_.unschedulable_indexes[i];
    if (e.is_wildcard() || !concerns(idx.resource, e)) continue;
    auto key = idx.key_of_event(old_obj, new_obj);
    if (!key) return std::nullopt;
    const auto& state = indexes_[i];
    std::vector<QueuedPodInfoPtr> out;
    auto it = state.by_key.find(*key);
    out.reserve(state.others.size() + (it == state.by_key.end() ? 0 : it->second.size()));
    for (const auto& pod_key : state.others) out.push_back(unschedulable_.at(pod_key).p);
    if (it != state.by_key.end())
      for (const auto& pod_key : it->second) out.push_back(unschedulable_.at(pod_key).p);
    return out;
  }
  return std::nullopt;
}

bool PriorityQueue::move_to_active_locked(const QueuedPodInfoPtr& p, std::string_view event, bool from_backoff_q) {
  const std::string key = api::key_of(p->pod());
  // A member made before its PodGroup was known learns the group's priority on its way in.
  if (p->group && !p->group->priorityKnown && refresh_group_priority_locked(*p)) refix_group_locked(p->group.get());
  // With PopFromBackoffQ the PreEnqueue plugins ran when the pod entered backoffQ.
  if (!(opts_.pop_from_backoff_q && from_backoff_q)) p->gated = !run_pre_enqueue_locked(*p);
  if (p->gated) {
    // A gated pod is parked in unschedulablePods unless it already sits in another queue.
    if (active_.has(key) || backoff_get_locked(key)) return false;
    unschedulable_put_locked(p);
    return false;
  }
  if (!p->initialAttemptTimestamp) p->initialAttemptTimestamp = clock_.now();
  active_.add_or_update(p);
  unschedulable_erase_locked(key);
  backoff_erase_locked(key);
  index_member_locked(p);
  if (opts_.metrics) opts_.metrics->incoming_pod("active", event);
  if (auto v = log::V(5); v.enabled()) {
    v.info("Pod moved to an internal scheduling queue",
           {{"pod", key}, {"event", event}, {"queue", "Active"}});
  }
  if (event == kPodAdd || event == kPodUpdate) nominator_.add_nominated_pod(p->podInfo, std::nullopt);
  return true;
}

bool PriorityQueue::move_to_backoff_locked(const QueuedPodInfoPtr& p, std::string_view event) {
  const std::string key = api::key_of(p->pod());
  if (p->group && !p->group->priorityKnown && refresh_group_priority_locked(*p)) refix_group_locked(p->group.get());
  if (opts_.pop_from_backoff_q) {
    p->gated = !run_pre_enqueue_locked(*p);
    if (p->gated) {
      if (!unschedulable_.count(key)) unschedulable_put_locked(p);
      return false;
    }
  }
  unschedulable_erase_locked(key);
  if (p->unschedulablePlugins.empty() && p->pendingPlugins.empty()) {
    backoff_.erase(key);
    error_backoff_.add_or_update(p);
  } else {
    error_backoff_.erase(key);
    backoff_.add_or_update(p);
  }
  index_member_locked(p);
  if (opts_.metrics) opts_.metrics->incoming_pod("backoff", event);
  return true;
}

QueueName PriorityQueue::requeue_via_hint_locked(const QueuedPodInfoPtr& p, Strategy s, std::string_view event) {
  const std::string key = api::key_of(p->pod());
  if (s == Strategy::Skip) {
    unschedulable_put_locked(p);
    if (opts_.metrics) opts_.metrics->incoming_pod("unschedulable", event);
    return QueueName::Unschedulable;
  }
  // The pod may have finished its backoff while it sat in unschedulablePods.
  if (s == Strategy::AfterBackoff && is_backing_off(*p))
    return move_to_backoff_locked(p, event) ? QueueName::Backoff : QueueName::Unschedulable;
  if (move_to_active_locked(p, event)) return QueueName::Active;
  if (p->gated) return QueueName::Unschedulable;  // parked by move_to_active
  unschedulable_put_locked(p);
  if (opts_.metrics) opts_.metrics->incoming_pod("unschedulable", kScheduleAttemptFailure);
  return QueueName::Unschedulable;
}

namespace {

// Upstream GatingPluginEvents: whether a PreEnqueue plugin that gated `p` registered an event
// matching `e` (only such events can ungate it).
bool gating_plugin_interested(const QueueOptions& opts, const QueuedPodInfo& p, const ClusterEvent& e) {
  auto pre = opts.pre_enqueue_plugins.find(p.pod().spec.schedulerName);
  auto prof = opts.plugin_events.find(p.pod().spec.schedulerName);
  if (pre == opts.pre_enqueue_plugins.end() || prof == opts.plugin_events.end()) return false;
  for (const auto& pl : pre->second) {
    const std::string_view name = pl->name();
    // Runs per gated pod per event: the set is a plugin or two, scanned without building a key
    // (the found entry is the key of the lookup below).
    auto u = std::find_if(p.unschedulablePlugins.begin(), p.unschedulablePlugins.end(),
                          [&](const std::string& s) { return s == name; });
    if (u == p.unschedulablePlugins.end()) continue;
    auto regs = prof->second.find(*u);
    if (regs == prof->second.end()) continue;
    for (const auto& reg : regs->second) {
      if (reg.event.match(e)) return true;
    }
  }
  return false;
}

// Whether any profile's PreEnqueue plugin registered an event `e` matches: if none did, no gated
// pod moves on `e` (gating_plugin_interested is false for each), so a walk of the unschedulable
// pods passes over the gated ones without asking. One answer per event instead of a lookup per
// gated pod (pods waiting for their claims to be created are gated, hundreds of them while a
// Deployment of GPU pods scales up, and every binding is an event).
bool any_gating_plugin_interested(const QueueOptions& opts, const ClusterEvent& e) {
  for (const auto& [profile, plugins] : opts.pre_enqueue_plugins) {
    auto prof = opts.plugin_events.find(profile);
    if (prof == opts.plugin_events.end()) continue;
    for (const auto& pl : plugins) {
      auto regs = prof->second.find(std::string(pl->name()));
      if (regs == prof->second.end()) continue;
      for (const auto& reg : regs->second)
        if (reg.event.match(e)) return true;
    }
  }
  return false;
}

}  // namespace

PriorityQueue::Strategy PriorityQueue::is_pod_worth_requeuing_locked(const QueuedPodInfo& p, const ClusterEvent& e,
                                                                      const std::shared_ptr<const void>& old_obj,
                                                                      const std::shared_ptr<const void>& new_obj) {
  if (!has_rejectors(p)) return Strategy::AfterBackoff;
  if (e.is_wildcard()) {
    // ForceActivate names its pod in new_obj: recorded while several pods were in flight, it
    // concerns that pod only.
    if (new_obj && e.label == kForceActivate &&
        static_cast<const api::Pod*>(new_obj.get())->metadata.uid != p.pod().metadata.uid) {
      return Strategy::Skip;
    }
    return Strategy::AfterBackoff;
  }
  auto prof = opts_.plugin_events.find(p.pod().spec.schedulerName);
  if (prof == opts_.plugin_events.end()) return Strategy::AfterBackoff;
  Strategy result = Strategy::Skip;
  for_each_rejector(p, [&](const std::string& plugin) {
    auto regs = prof->second.find(plugin);
    if (regs == prof->second.end()) return true;
    for (const auto& reg : regs->second) {
      if (!reg.event.match(e)) continue;
      // A registration without a hint means "Queue".
      const auto start = opts_.metrics ? clock_.now() : util::Clock::time_point{};
      const framework::QueueingHint hint =
          reg.hint ? reg.hint(p.pod(), old_obj, new_obj) : framework::QueueingHint::Queue;
      if (opts_.metrics) {
        opts_.metrics->queueing_hint(plugin, e.label, hint == framework::QueueingHint::Skip ? "QueueSkip" : "Queue",
                                     std::chrono::duration<double>(clock_.now() - start).count());
      }
      if (hint == framework::QueueingHint::Skip) continue;
      // Queue from a plugin that returned Pending means retry right away.
      if (p.pendingPlugins.count(plugin) != 0) {
        result = Strategy::Immediately;
        return false;
      }
      result = Strategy::AfterBackoff;
      if (p.pendingPlugins.empty()) return false;
    }
    return true;
  });
  return result;
}

PriorityQueue::Strategy PriorityQueue::hint_for_in_flight_pod_locked(const QueuedPodInfo& p) {
  if (!has_rejectors(p)) return Strategy::AfterBackoff;
  auto it = in_flight_pods_.find(p.pod().metadata.uid);
  // Not in flight (already marked done, e.g. failed after Permit): no record of what happened
  // meanwhile, so retry after backoff rather than risk parking it forever.
  if (it == in_flight_pods_.end()) return Strategy::AfterBackoff;
  Strategy result = Strategy::Skip;
  for (auto e = std::next(it->second); e != in_flight_events_.end(); ++e) {
    const auto* ev = std::get_if<InFlightEvent>(&*e);
    if (!ev) continue;  // another in-flight pod's marker
    switch (is_pod_worth_requeuing_locked(p, ev->event, ev->oldObj, ev->newObj)) {
      case Strategy::Skip:
        continue;
      case Strategy::Immediately:
        return Strategy::Immediately;
      case Strategy::AfterBackoff:
        result = Strategy::AfterBackoff;
        if (p.pendingPlugins.empty()) return result;
        break;
    }
  }
  return result;
}

bool PriorityQueue::is_event_of_interest_locked(const ClusterEvent& e) const {
  if (e.is_wildcard()) return true;
  for (const auto& [profile, plugins] : opts_.plugin_events)
    for (const auto& [name, regs] : plugins)
      for (const auto& reg : regs)
        if (reg.event.match(e)) return true;
  return false;
}

void PriorityQueue::move_pods_locked(const std::vector<QueuedPodInfoPtr>& pods, const ClusterEvent& e,
                                     const std::shared_ptr<const void>& old_obj,
                                     const std::shared_ptr<const void>& new_obj) {
  if (!is_event_of_interest_locked(e)) return;
  bool activated = false;
  for (const auto& p : pods) {
    // A gated pod moves only on an event its gating PreEnqueue plugin registered (upstream v1.35:
    // DynamicResources waits for its claims' informer events); SchedulingGates registers none but
    // the pod's own update, so pods it gates cost no hint here.
    if (p->gated && !gating_plugin_interested(opts_, *p, e)) continue;
    Strategy s = is_pod_worth_requeuing_locked(*p, e, old_obj, new_obj);
    if (s == Strategy::Skip) {
      if (auto v = log::V(5); v.enabled())  // the key is built only when logged: this runs per pod per event
        v.info("Event is not making pod schedulable", {{"pod", api::key_of(p->pod())}, {"event", e.label}});
      continue;
    }
    unschedulable_erase_locked(api::key_of(p->pod()));
    QueueName q = requeue_via_hint_locked(p, s, e.label);
    if (auto v = log::V(4); v.enabled()) {
      v.info("Pod moved to an internal scheduling queue",
             {{"pod", api::key_of(p->pod())}, {"event", e.label}, {"queue", queue_label(q)}});
    }
    if (q == QueueName::Active || (opts_.pop_from_backoff_q && q == QueueName::Backoff)) activated = true;
  }
  // A pod in flight may be rejected later; remember the event so its requeue can consider it.
  record_event_if_any_in_flight_locked(e, old_obj, new_obj);
  if (activated) cond_.notify_all();
}

void PriorityQueue::record_event_if_any_in_flight_locked(const ClusterEvent& e, const std::shared_ptr<const void>& o,
                                                         const std::shared_ptr<const void>& n) {
  if (in_flight_pods_.empty()) return;
  in_flight_events_.push_back(InFlightEvent{e, o, n});
  if (opts_.metrics) opts_.metrics->in_flight_events(e.label, 1);
}

bool PriorityQueue::record_events_if_pod_in_flight_locked(const api::Pod& pod, const std::vector<ClusterEvent>& events,
                                                          const std::shared_ptr<const void>& o,
                                                          const std::shared_ptr<const void>& n) {
  if (!in_flight_pods_.count(pod.metadata.uid)) return false;
  for (const auto& e : events) {
    in_flight_events_.push_back(InFlightEvent{e, o, n});
    if (opts_.metrics) opts_.metrics->in_flight_events(e.label, 1);
  }
  return true;
}

void PriorityQueue::done_locked(const std::string& uid) {
  auto it = in_flight_pods_.find(uid);
  if (it == in_flight_pods_.end()) return;
  in_flight_events_.erase(it->second);
  in_flight_pods_.erase(it);
  if (opts_.metrics) opts_.metrics->in_flight_events(kPodPoppedInFlightEvent, -1);
  // Events older than the oldest pod still in flight can no longer matter to anyone.
  while (!in_flight_events_.empty()) {
    const auto* ev = std::get_if<InFlightEvent>(&in_flight_events_.front());
    if (ev == nullptr) break;
    if (opts_.metrics) opts_.metrics->in_flight_events(ev->event.label, -1);
    in_flight_events_.pop_front();
  }
}

void PriorityQueue::report_locked() {
  if (!opts_.metrics) return;
  Counts c;
  c.active = active_.size();
  c.backoff = backoff_.size() + error_backoff_.size();
  c.gated = gated_count_;
  c.unschedulable = unschedulable_.size() - gated_count_;
  auto emit = [&](std::string_view q, std::size_t now, std::size_t before) {
    if (!reported_once_ || now != before) opts_.metrics->pending_pods(q, static_cast<std::int64_t>(now));
  };
  emit("active", c.active, reported_.active);
  emit("backoff", c.backoff, reported_.backoff);
  emit("unschedulable", c.unschedulable, reported_.unschedulable);
  emit("gated", c.gated, reported_.gated);
  reported_ = c;
  reported_once_ = true;
}

// ---------------------------------------------------------------- public operations

void PriorityQueue::add(framework::PodPtr pod) {
  std::lock_guard l(mu_);
  auto p = new_queued_pod_info(std::move(pod));
  if (!hold_if_group_in_cycle_locked(p) && move_to_active_locked(p, kPodAdd)) cond_.notify_all();
  report_locked();
}

void PriorityQueue::update(framework::PodPtr old_pod, framework::PodPtr new_pod) {
  std::lock_guard l(mu_);
  std::vector<ClusterEvent> events;
  if (old_pod) {
    events = pod_scheduling_property_change(*new_pod, *old_pod);
    // Being scheduled right now: it comes back through add_unschedulable_if_not_present, which
    // replays these events.
    if (record_events_if_pod_in_flight_locked(*new_pod, events, old_pod, new_pod)) return;
  }
  const api::Pod& old_ref = old_pod ? *old_pod : *new_pod;
  if (old_pod) {
    const std::string key = api::key_of(*old_pod);
    for (auto* heap : {&active_, &backoff_, &error_backoff_}) {
      if (const auto* found = heap->get(key)) {
        QueuedPodInfoPtr p = *found;
        unindex_member_locked(p->pod());  // filed again below: a recreated pod may name another group
        p->podInfo = framework::PodInfo::make(new_pod);
        index_member_locked(p);
        heap->add_or_update(p);
        nominator_.update_nominated_pod(*old_pod, p->podInfo);
        report_locked();
        return;
      }
    }
  }
  auto uit = unschedulable_.find(api::key_of(*new_pod));
  if (uit != unschedulable_.end()) {
    QueuedPodInfoPtr p = uit->second.p;
    unindex_member_locked(p->pod());
    p->podInfo = framework::PodInfo::make(new_pod);
    index_unschedulable_locked(uit->first, uit->second);
    index_member_locked(p);
    nominator_.update_nominated_pod(old_ref, p->podInfo);
    if (events.empty()) events = pod_scheduling_property_change(*new_pod, old_ref);
    for (const auto& e : events) {
      // A gated pod's own update is the one event that can ungate it, so it is evaluated here.
      Strategy s = is_pod_worth_requeuing_locked(*p, e, old_pod, new_pod);
      QueueName q = requeue_via_hint_locked(p, s, e.label);
      if (q == QueueName::Active || (opts_.pop_from_backoff_q && q == QueueName::Backoff)) cond_.notify_all();
      if (q != QueueName::Unschedulable) break;
    }
    report_locked();
    return;
  }
  // Held while its group is in its cycle: the new object waits with it (upstream
  // pendingPodGroupPods.update); it is not queued on its own.
  if (auto [list, i] = find_held_locked(*new_pod); list != nullptr) {
    QueuedPodInfoPtr p = (*list)[i];
    p->podInfo = framework::PodInfo::make(new_pod);
    nominator_.update_nominated_pod(old_ref, p->podInfo);
    return;
  }
  auto p = new_queued_pod_info(std::move(new_pod));
  if (!hold_if_group_in_cycle_locked(p) && move_to_active_locked(p, kPodUpdate)) cond_.notify_all();
  report_locked();
}

void PriorityQueue::delete_pod(const api::Pod& pod) {
  std::lock_guard l(mu_);
  nominator_.delete_nominated_pod_if_exists(pod);
  const std::string key = api::key_of(pod);
  QueuedPodInfoPtr found;
  if (const auto* a = active_.get(key)) {
    found = *a;
    active_.erase(key);
  } else if (const auto* b = backoff_get_locked(key)) {
    found = *b;
    backoff_erase_locked(key);
  } else if (auto it = unschedulable_.find(key); it != unschedulable_.end()) {
    found = it->second.p;
    unschedulable_erase_locked(key);
  } else if (auto [list, i] = find_held_locked(pod); list != nullptr) {
    // Held while its group is in its cycle (upstream deletePodGroupMember): it will not come back.
    list->erase(list->begin() + static_cast<std::ptrdiff_t>(i));
    --held_count_;
    if (list->empty()) held_.erase(pod_group_key(pod, *pod_group_name_of(pod)));
  }
  if (found) {
    unindex_member_locked(found->pod());
    unschedulable_reason_locked(*found, -1);
  }
  report_locked();
}

void PriorityQueue::activate(const std::vector<framework::PodPtr>& pods) {
  std::lock_guard l(mu_);
  bool activated = false;
  for (const auto& pod : pods) {
    const std::string key = api::key_of(*pod);
    QueuedPodInfoPtr p;
    if (auto it = unschedulable_.find(key); it != unschedulable_.end()) {
      p = it->second.p;
    } else if (const auto* b = backoff_get_locked(key)) {
      p = *b;
    }
    if (p) {
      if (move_to_active_locked(p, kForceActivate)) activated = true;
      continue;
    }
    // In flight: remember it, so a failure of this attempt requeues the pod promptly.
    record_events_if_pod_in_flight_locked(*pod, {event_force_activate()}, nullptr, pod);
  }
  if (activated) cond_.notify_all();
  report_locked();
}

QueuedPodInfoPtr PriorityQueue::pop_locked() {
  QueuedPodInfoPtr p;
  if (!active_.empty()) {
    p = active_.pop();
  } else {
    // activeQ is empty: the head of backoffQ is tried now rather than left idle until its
    // backoff ends (PopFromBackoffQ); pods that failed with an error still wait theirs out.
    p = backoff_.pop();
    if (opts_.metrics) opts_.metrics->incoming_pod("active", kPopFromBackoffQ);
  }
  mark_popped_locked(p);
  report_locked();
  return p;
}

void PriorityQueue::index_member_locked(const QueuedPodInfoPtr& p) {
  if (!podgroup::has_group(p->pod())) return;
  queued_members_[podgroup::group_key(p->pod())].insert_or_assign(api::key_of(p->pod()), p);
}

void PriorityQueue::unindex_member_locked(const api::Pod& pod) {
  if (!podgroup::has_group(pod)) return;
  auto it = queued_members_.find(podgroup::group_key(pod));
  if (it == queued_members_.end()) return;
  it->second.erase(api::key_of(pod));
  if (it->second.empty()) queued_members_.erase(it);
}

void PriorityQueue::mark_popped_locked(const QueuedPodInfoPtr& p) {
  unindex_member_locked(p->pod());
  p->attempts++;
  scheduling_cycle_++;
  in_flight_pods_[p->pod().metadata.uid] =
      in_flight_events_.insert(in_flight_events_.end(), InFlightPodMarker{p->pod().metadata.uid});
  if (opts_.metrics) opts_.metrics->in_flight_events(kPodPoppedInFlightEvent, 1);
  // The rejectors are counted until the pod is retried; the new attempt records its own.
  unschedulable_reason_locked(*p, -1);
  p->unschedulablePlugins.clear();
  p->pendingPlugins.clear();
  if (p->group) p->group->requeuedSincePop = false;  // the group's next failure is a new attempt
}

std::vector<QueuedPodInfoPtr> PriorityQueue::pop_group_members(const QueuedPodInfoPtr& first,
                                                               const std::vector<std::string>& groups,
                                                               const std::function<bool(const api::Pod&)>& in_group) {
  std::vector<QueuedPodInfoPtr> out;
  std::lock_guard l(mu_);
  // The group is in its cycle until pod_group_cycle_done: members arriving meanwhile are held.
  if (first && first->group) in_cycle_group_ = first->group;
  if (closed_) return out;
  // Every queued member that PreEnqueue lets in, wherever it waits: a member left in
  // unschedulablePods (it fitted, but its group did not) would otherwise wait for an event that
  // only its group's other members get, and the group would never again be tried whole.
  for (const auto& group : groups) {
    auto members = queued_members_.find(group);
    if (members == queued_members_.end()) continue;
    for (const auto& [key, q] : members->second) {
      if (auto u = unschedulable_.find(key); u != unschedulable_.end() && u->second.gated) continue;
      if (in_group(q->pod())) out.push_back(q);
    }
  }
  for (const auto& q : out) {
    const std::string key = api::key_of(q->pod());
    active_.erase(key);
    backoff_erase_locked(key);
    unschedulable_erase_locked(key);
    mark_popped_locked(q);
  }
  if (!out.empty()) report_locked();
  return out;
}

void PriorityQueue::pod_group_cycle_done(const QueuedPodInfoPtr& first, bool placed) {
  std::lock_guard l(mu_);
  if (!first || !first->group) return;
  auto& g = *first->group;
  if (in_cycle_group_ == first->group) in_cycle_group_.reset();
  auto it = held_.find(pod_group_key(first->pod(), *pod_group_name_of(first->pod())));
  if (it == held_.end()) return;
  std::vector<QueuedPodInfoPtr> held = std::move(it->second);
  held_.erase(it);
  held_count_ -= held.size();
  // Upstream AddAttemptedPodGroupIfNotPresent: the group re-enters with a fresh timestamp; a failed
  // cycle was counted (and the timestamp set) by its members' requeue already.
  if (!g.requeuedSincePop) {
    g.timestamp = clock_.now();
    g.backoffExpiration.reset();
    refix_group_locked(&g);
  }
  bool activated = false;
  for (const auto& p : held) {
    if (placed) {
      // Placed: the member is tried next, beside the members the cycle placed.
      activated = move_to_active_locked(p, kPodAdd) || activated;
    } else {
      // Failed: it backs off with its group (the group's expiry), then is tried with it.
      const QueueName q = requeue_via_hint_locked(p, Strategy::AfterBackoff, kScheduleAttemptFailure);
      activated = q == QueueName::Active || (opts_.pop_from_backoff_q && q == QueueName::Backoff) || activated;
    }
  }
  if (activated) cond_.notify_all();
  report_locked();
}

QueuedPodInfoPtr PriorityQueue::pop() {
  std::unique_lock l(mu_);
  cond_.wait(l, [&] { return closed_ || has_pod_to_pop_locked(); });
  if (closed_) return nullptr;
  return pop_locked();
}

QueuedPodInfoPtr PriorityQueue::try_pop() {
  std::lock_guard l(mu_);
  if (closed_ || !has_pod_to_pop_locked()) return nullptr;
  return pop_locked();
}

void PriorityQueue::done(std::string_view uid) {
  std::lock_guard l(mu_);
  done_locked(std::string(uid));
}

util::Result<void> PriorityQueue::add_unschedulable_if_not_present(const QueuedPodInfoPtr& p,
                                                                    std::int64_t /*pod_scheduling_cycle*/) {
  std::lock_guard l(mu_);
  const std::string key = api::key_of(p->pod());
  const std::string uid = p->pod().metadata.uid;
  std::string err;
  if (unschedulable_.count(key)) {
    err = fmt::format("Pod {} is already present in unschedulable queue", key);
  } else if (active_.has(key)) {
    err = fmt::format("Pod {} is already present in the active queue", key);
  } else if (backoff_get_locked(key)) {
    err = fmt::format("Pod {} is already present in the backoff queue", key);
  }
  if (!err.empty()) {
    done_locked(uid);
    return util::make_error(err);
  }
  if (p->unschedulablePlugins.empty() && p->pendingPlugins.empty()) {
    ++p->consecutiveErrorsCount;  // an error (e.g. the API server unreachable), not a rejection
  } else {
    ++p->unschedulableCount;
    p->consecutiveErrorsCount = 0;
  }
  p->timestamp = clock_.now();
  p->backoffExpiration.reset();  // counts and timestamp changed
  if (p->group) record_group_failure_locked(*p);
  unschedulable_reason_locked(*p, 1);
  // The events seen while the pod was in flight decide where it goes (queueing hints).
  const QueueName q = requeue_via_hint_locked(p, hint_for_in_flight_pod_locked(*p), kScheduleAttemptFailure);
  if (auto v = log::V(4); v.enabled()) {
    v.info("Pod moved to an internal scheduling queue",
           {{"pod", key}, {"event", kScheduleAttemptFailure}, {"queue", queue_label(q)}});
  }
  if (q == QueueName::Active || (opts_.pop_from_backoff_q && q == QueueName::Backoff)) cond_.notify_all();
  nominator_.add_nominated_pod(p->podInfo, std::nullopt);
  done_locked(uid);
  report_locked();
  return {};
}

std::int64_t PriorityQueue::scheduling_cycle() const {
  std::lock_guard l(mu_);
  return scheduling_cycle_;
}

void PriorityQueue::move_all_to_active_or_backoff_queue(const ClusterEvent& event, std::shared_ptr<const void> old_obj,
                                                        std::shared_ptr<const void> new_obj,
                                                        const PreEnqueueCheck& pre_check) {
  std::lock_guard l(mu_);
  std::vector<QueuedPodInfoPtr> pods;
  if (auto narrowed = narrowed_candidates_locked(event, old_obj, new_obj)) {
    for (auto& p : *narrowed)
      if (!pre_check || pre_check(p->pod())) pods.push_back(std::move(p));
  } else if (is_event_of_interest_locked(event)) {  // else move_pods_locked returns at once
    // Asked at the first gated pod only: plain pods' events (no pod gated) pay nothing for it.
    std::optional<bool> gated_may_move;
    pods.reserve(unschedulable_.size());
    for (const auto& [key, e] : unschedulable_) {
      if (e.p->gated) {
        if (!gated_may_move) gated_may_move = any_gating_plugin_interested(opts_, event);
        if (!*gated_may_move) continue;  // move_pods_locked would skip it
      }
      if (!pre_check || pre_check(e.p->pod())) pods.push_back(e.p);
    }
  }
  move_pods_locked(pods, event, old_obj, new_obj);
  report_locked();
}

void PriorityQueue::flush_backoff_q_completed() {
  std::lock_guard l(mu_);
  bool activated = false;
  for (auto* heap : {&backoff_, &error_backoff_}) {
    while (!heap->empty()) {
      QueuedPodInfoPtr top = heap->top();
      if (is_backing_off(*top)) break;
      heap->pop();
      if (move_to_active_locked(top, kBackoffComplete, /*from_backoff_q=*/true)) activated = true;
    }
  }
  if (activated) cond_.notify_all();
  report_locked();
}

void PriorityQueue::flush_unschedulable_pods_leftover() {
  std::lock_guard l(mu_);
  const auto now = clock_.now();
  std::vector<QueuedPodInfoPtr> pods;
  for (const auto& [key, e] : unschedulable_)
    if (now - e.p->timestamp > opts_.pod_max_in_unschedulable_pods_duration) pods.push_back(e.p);
  if (!pods.empty()) move_pods_locked(pods, event_unschedulable_timeout(), nullptr, nullptr);
  report_locked();
}

void PriorityQueue::run() {
  std::lock_guard rl(run_mu_);
  if (flusher_.joinable() || stop_) return;
  flusher_ = std::thread([this] {
    util::set_thread_name("sched-queue");
    int ticks = 0;
    // Backoff flushes run at the start of each 1 s ordering window, so pods whose backoff ends in
    // the same window move together (waitUntilAlignedWithOrderingWindow).
    auto next = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    if (opts_.pop_from_backoff_q)
      next = std::chrono::steady_clock::time_point(
          std::chrono::duration_cast<std::chrono::seconds>(next.time_since_epoch()));
    std::unique_lock l(run_mu_);
    while (!stop_) {
      run_cv_.wait_until(l, next, [&] { return stop_; });
      next += std::chrono::seconds(1);
      if (stop_) break;
      l.unlock();
      flush_backoff_q_completed();
      if (++ticks % 30 == 0) flush_unschedulable_pods_leftover();
      l.lock();
    }
  });
}

void PriorityQueue::close() {
  {
    std::lock_guard l(mu_);
    closed_ = true;
  }
  cond_.notify_all();
  std::thread t;
  {
    std::lock_guard rl(run_mu_);
    stop_ = true;
    t = std::move(flusher_);
  }
  run_cv_.notify_all();
  if (t.joinable()) t.join();
}

// ---------------------------------------------------------------- introspection

PriorityQueue::Counts PriorityQueue::counts() const {
  std::lock_guard l(mu_);
  Counts c;
  c.active = active_.size();
  c.backoff = backoff_.size() + error_backoff_.size();
  c.gated = gated_count_;
  c.unschedulable = unschedulable_.size() - gated_count_;
  c.inFlight = in_flight_pods_.size();
  c.held = held_count_;
  return c;
}

std::optional<QueueName> PriorityQueue::where(const api::Pod& pod) const {
  std::lock_guard l(mu_);
  const std::string key = api::key_of(pod);
  if (active_.has(key)) return QueueName::Active;
  if (backoff_get_locked(key)) return QueueName::Backoff;
  if (unschedulable_.count(key)) return QueueName::Unschedulable;
  return std::nullopt;
}

std::shared_ptr<const QueuedPodInfo> PriorityQueue::get(const api::Pod& pod) const {
  std::lock_guard l(mu_);
  const std::string key = api::key_of(pod);
  if (const auto* a = active_.get(key)) return std::make_shared<QueuedPodInfo>(**a);
  if (const auto* b = backoff_get_locked(key)) return std::make_shared<QueuedPodInfo>(**b);
  if (auto it = unschedulable_.find(key); it != unschedulable_.end())
    return std::make_shared<QueuedPodInfo>(*it->second.p);
  return nullptr;
}

std::vector<framework::PodPtr> PriorityQueue::pending_pods() const {
  std::lock_guard l(mu_);
  std::vector<framework::PodPtr> out;
  active_.for_each([&](const QueuedPodInfoPtr& p) { out.push_back(p->podInfo->pod); });
  backoff_.for_each([&](const QueuedPodInfoPtr& p) { out.push_back(p->podInfo->pod); });
  error_backoff_.for_each([&](const QueuedPodInfoPtr& p) { out.push_back(p->podInfo->pod); });
  for (const auto& [k, e] : unschedulable_) out.push_back(e.p->podInfo->pod);
  for (const auto& [k, list] : held_)
    for (const auto& p : list) out.push_back(p->podInfo->pod);
  return out;
}

std::vector<std::string> PriorityQueue::queued_group_members(const std::string& group) const {
  std::lock_guard l(mu_);
  std::vector<std::string> out;
  if (auto it = queued_members_.find(group); it != queued_members_.end()) {
    for (const auto& [key, q] : it->second) out.push_back(key);
  }
  return out;
}

std::vector<framework::PodPtr> PriorityQueue::pending_pod_group_pods() const {
  std::lock_guard l(mu_);
  std::vector<framework::PodPtr> out;
  for (const auto& [k, list] : held_)
    for (const auto& p : list) out.push_back(p->podInfo->pod);
  return out;
}

std::string PriorityQueue::pending_pods_summary() const {
  auto c = counts();
  return fmt::format("activeQ:{}; backoffQ:{}; unschedulablePods:{}", c.active, c.backoff, c.unschedulable + c.gated);
}

}  // namespace ksched::scheduler::queue
