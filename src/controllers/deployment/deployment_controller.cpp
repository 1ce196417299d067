#include "controllers/deployment/deployment_controller.h"

#include <algorithm>
#include <map>

#include "api/helpers.h"
#include "controllers/hash.h"
#include "controllers/informers.h"
#include "util/log.h"

namespace ksched::controllers {

using namespace deployment;

namespace {

constexpr std::string_view kApiVersion = "apps/v1";
constexpr std::string_view kKind = "Deployment";

bool selects_everything(const std::optional<api::LabelSelector>& s) {
  return s && s->matchLabels.empty() && s->matchExpressions.empty();
}

bool conditions_equal(const std::vector<DeploymentCondition>& a, const std::vector<DeploymentCondition>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto &x = a[i], &y = b[i];
    if (x.type != y.type || x.status != y.status || x.reason != y.reason || x.message != y.message ||
        x.lastUpdateTime != y.lastUpdateTime || x.lastTransitionTime != y.lastTransitionTime)
      return false;
  }
  return true;
}

bool status_equal(const DeploymentStatus& a, const DeploymentStatus& b) {
  return a.observedGeneration == b.observedGeneration && a.replicas == b.replicas &&
         a.updatedReplicas == b.updatedReplicas && a.readyReplicas == b.readyReplicas &&
         a.availableReplicas == b.availableReplicas && a.unavailableReplicas == b.unavailableReplicas &&
         a.collisionCount == b.collisionCount && conditions_equal(a.conditions, b.conditions);
}

}  // namespace

struct DeploymentController::State {
  std::string key;
  Deployment d;  // the cached Deployment with SetDefaults_Deployment applied; status writes go from it
  std::vector<RSPtr> rss;
  std::map<std::string, std::vector<Ptr<api::Pod>>> pods_by_rs;  // ReplicaSet UID -> its pods
  api::Time now;
  api::ObjectReference ref;
};

DeploymentController::DeploymentController(const ControllerContext& ctx)
    : ctx_(ctx), recorder_(ctx.events, "deployment-controller"),
      workers_("deployment", [this](const std::string& k) { return sync(k); }, *ctx.clock, kMaxRetries) {
  d_informer_ = deployment_informer(ctx_);
  rs_informer_ = replica_set_informer(ctx_);
  pod_informer_ = pod_informer(ctx_);

  auto dh = std::make_shared<informer::ResourceEventHandlerFuncs<Deployment>>();
  dh->add = [this](const Ptr<Deployment>& d, bool) { enqueue(*d); };
  dh->update = [this](const Ptr<Deployment>&, const Ptr<Deployment>& d) { enqueue(*d); };
  dh->del = [this](const informer::Deleted<Deployment>& d) { workers_.add(d.key); };
  auto r1 = d_informer_->add_event_handler(dh);
  auto rh = std::make_shared<informer::ResourceEventHandlerFuncs<ReplicaSet>>();
  rh->add = [this](const Ptr<ReplicaSet>& rs, bool) { on_rs_add(rs); };
  rh->update = [this](const Ptr<ReplicaSet>& o, const Ptr<ReplicaSet>& c) { on_rs_update(o, c); };
  rh->del = [this](const informer::Deleted<ReplicaSet>& d) { on_rs_delete(d); };
  auto r2 = rs_informer_->add_event_handler(rh);
  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  ph->del = [this](const informer::Deleted<api::Pod>& d) { on_pod_delete(d); };
  auto r3 = pod_informer_->add_event_handler(ph);
  synced_ = {[r1] { return r1->has_synced(); }, [r2] { return r2->has_synced(); },
             [r3] { return r3->has_synced(); }};
}

DeploymentController::~DeploymentController() { stop(); }
void DeploymentController::run(int workers) { workers_.start(workers); }
void DeploymentController::stop() { workers_.stop(); }
bool DeploymentController::has_synced() const {
  return std::all_of(synced_.begin(), synced_.end(), [](const auto& f) { return f(); });
}

void DeploymentController::enqueue(const Deployment& d) { workers_.add(api::key_of(d)); }

Ptr<Deployment> DeploymentController::resolve_controller(const std::string& ns, const api::OwnerReference& ref) const {
  if (ref.kind != kKind) return nullptr;
  auto d = d_informer_->lister().get(ns, ref.name);
  if (!d || d->metadata.uid != ref.uid) return nullptr;
  return d;
}

void DeploymentController::enqueue_selecting(const ReplicaSet& rs) {
  for (const auto& d : d_informer_->lister().list_namespace(std::string(rs.metadata.namespace_))) {
    auto sel = selector_of(d->spec.selector);
    if (!sel.empty() && sel.matches(rs.metadata.labels)) enqueue(*d);
  }
}

void DeploymentController::on_rs_add(const Ptr<ReplicaSet>& rs) {
  if (rs->metadata.deletionTimestamp) {
    on_rs_delete(informer::Deleted<ReplicaSet>{rs, false, api::key_of(*rs)});
    return;
  }
  if (const auto* ref = controller_of(rs->metadata)) {
    if (auto d = resolve_controller(std::string(rs->metadata.namespace_), *ref)) enqueue(*d);
    return;
  }
  enqueue_selecting(*rs);
}

void DeploymentController::on_rs_update(const Ptr<ReplicaSet>& old, const Ptr<ReplicaSet>& cur) {
  if (old->metadata.resourceVersion == cur->metadata.resourceVersion) return;
  const auto* cur_ref = controller_of(cur->metadata);
  const auto* old_ref = controller_of(old->metadata);
  bool ref_changed = (cur_ref == nullptr) != (old_ref == nullptr) || (cur_ref && !same_owner_ref(*cur_ref, *old_ref));
  std::string ns(cur->metadata.namespace_);
  if (ref_changed && old_ref)
    if (auto d = resolve_controller(ns, *old_ref)) enqueue(*d);
  if (cur_ref) {
    if (auto d = resolve_controller(ns, *cur_ref)) enqueue(*d);
    return;
  }
  if (!(old->metadata.labels == cur->metadata.labels) || ref_changed) enqueue_selecting(*cur);
}

void DeploymentController::on_rs_delete(const informer::Deleted<ReplicaSet>& d) {
  if (!d.obj) return;
  if (const auto* ref = controller_of(d.obj->metadata))
    if (auto dep = resolve_controller(std::string(d.obj->metadata.namespace_), *ref)) enqueue(*dep);
}

// Recreate waits for the old pods to be gone: the last one's deletion is its cue.
void DeploymentController::on_pod_delete(const informer::Deleted<api::Pod>& del) {
  if (!del.obj) return;
  const auto* rs_ref = controller_of(del.obj->metadata);
  if (!rs_ref || rs_ref->kind != "ReplicaSet") return;
  auto rs = rs_informer_->lister().get(std::string(del.obj->metadata.namespace_), rs_ref->name);
  if (!rs || rs->metadata.uid != rs_ref->uid) return;
  const auto* d_ref = controller_of(rs->metadata);
  if (!d_ref) return;
  auto d = resolve_controller(std::string(rs->metadata.namespace_), *d_ref);
  if (!d || d->spec.strategy.type != "Recreate") return;
  for (const auto& sibling : owned_by(rs_informer_->indexer(), d->metadata.uid))
    if (!owned_by(pod_informer_->indexer(), sibling->metadata.uid).empty()) return;
  enqueue(*d);
}

// ---------------------------------------------------------------- sync

util::Result<void> DeploymentController::sync(const std::string& key) {
  auto [ns, name] = api::split_key(key);
  auto cached = d_informer_->lister().get(std::string(ns), std::string(name));
  if (!cached) return {};
  State s;
  s.key = key;
  s.d = *cached;
  apply_defaults(s.d);
  s.now = api::now(*ctx_.clock);
  s.ref = object_reference(kApiVersion, kKind, s.d.metadata);

  if (selects_everything(s.d.spec.selector)) {
    recorder_.eventf(s.ref, events::kWarning, "SelectingAll",
                     "This deployment is selecting all pods. A non-empty selector is required.");
    if (s.d.status.observedGeneration < s.d.metadata.generation) {
      s.d.status.observedGeneration = s.d.metadata.generation;
      if (auto r = update_status(s); !r) return sync_error(r.error());
    }
    return {};
  }

  // getReplicaSetsForDeployment: adopt orphans the selector matches, release what it no longer does.
  auto selector = selector_of(s.d.spec.selector);
  ClaimOwner owner{&s.d.metadata, std::string(kApiVersion), std::string(kKind)};
  auto claimed = claim_objects<ReplicaSet>(*ctx_.client, owner, selector,
                                           owned_or_orphans(rs_informer_->indexer(), s.d.metadata), [&] {
                                             auto fresh = ctx_.client->get<Deployment>(ns, name);
                                             return fresh && fresh->metadata.uid == s.d.metadata.uid &&
                                                    !fresh->metadata.deletionTimestamp;
                                           });
  if (claimed.error) return sync_error(*claimed.error);
  for (const auto& rs : claimed.objects) {
    s.rss.push_back(std::make_shared<ReplicaSet>(*rs));
    s.pods_by_rs[std::string(rs->metadata.uid)] = owned_by(pod_informer_->indexer(), rs->metadata.uid);
  }

  client::Result<void> r;
  if (s.d.metadata.deletionTimestamp) {
    r = sync_status_only(s);
  } else if (auto p = check_paused_conditions(s); !p) {
    r = p;
  } else if (s.d.spec.paused) {
    r = sync_scaling(s);
  } else {
    auto scaling = is_scaling_event(s);
    if (!scaling) r = scaling.error();
    else if (*scaling) r = sync_scaling(s);
    else if (s.d.spec.strategy.type == "Recreate") r = rollout_recreate(s);
    else if (s.d.spec.strategy.type == "RollingUpdate") r = rollout_rolling(s);
    else return util::make_error("unexpected deployment strategy type: " + s.d.spec.strategy.type);
  }
  if (!r) return sync_error(r.error());
  return {};
}

client::Result<void> DeploymentController::update_status(State& s) {
  auto r = ctx_.client->update_status(s.d);
  if (!r) return r.error();
  // Later writes of this sync go from the version just written.
  s.d.metadata.resourceVersion = r->metadata.resourceVersion;
  return {};
}

client::Result<void> DeploymentController::check_paused_conditions(State& s) {
  if (!has_progress_deadline(s.d)) return {};
  const auto* cond = get_condition(s.d.status, "Progressing");
  if (cond && cond->reason == kTimedOutReason) return {};
  bool paused_cond = cond && cond->reason == kPausedDeployReason;
  if (s.d.spec.paused && !paused_cond) {
    set_condition(s.d.status, new_condition("Progressing", "Unknown", kPausedDeployReason, "Deployment is paused", s.now));
  } else if (!s.d.spec.paused && paused_cond) {
    set_condition(s.d.status,
                  new_condition("Progressing", "Unknown", kResumedDeployReason, "Deployment is resumed", s.now));
  } else {
    return {};
  }
  return update_status(s);
}

client::Result<std::pair<DeploymentController::RSPtr, std::vector<DeploymentController::RSPtr>>>
DeploymentController::all_replica_sets(State& s, bool create) {
  RSPtr existing = find_new_replica_set(s.d, s.rss);
  auto old = find_old_replica_sets(s.d, s.rss, existing);
  auto n = new_replica_set(s, old, create);
  if (!n) return n.error();
  return std::make_pair(*n, old);
}

client::Result<DeploymentController::RSPtr> DeploymentController::new_replica_set(State& s, const std::vector<RSPtr>& old,
                                                                                   bool create) {
  RSPtr existing = find_new_replica_set(s.d, s.rss);
  std::string new_revision = std::to_string(max_revision(old) + 1);
  if (existing) {
    auto copy = std::make_shared<ReplicaSet>(*existing);
    bool annotations = set_new_replica_set_annotations(s.d, *copy, new_revision, true);
    if (annotations || copy->spec.minReadySeconds != s.d.spec.minReadySeconds) {
      copy->spec.minReadySeconds = s.d.spec.minReadySeconds;
      auto u = ctx_.client->update(*copy);
      if (!u) return u.error();
      auto updated = std::make_shared<ReplicaSet>(std::move(*u));
      for (auto& rs : s.rss)
        if (rs->metadata.uid == updated->metadata.uid) rs = updated;
      return updated;
    }
    bool needs_update =
        set_deployment_revision(s.d, copy->metadata.annotations.get(kRevisionAnnotation));
    if (has_progress_deadline(s.d) && !get_condition(s.d.status, "Progressing")) {
      set_condition(s.d.status, new_condition("Progressing", "True", kFoundNewRSReason,
                                              "Found new replica set \"" + std::string(copy->metadata.name) + "\"",
                                              s.now));
      needs_update = true;
    }
    if (needs_update)
      if (auto r = update_status(s); !r) return r.error();
    return copy;
  }
  if (!create) return RSPtr{};

  // Create the new ReplicaSet, named after the hash of the template (idempotent).
  std::string hash = compute_hash(s.d.spec.template_, s.d.status.collisionCount);
  auto rs = std::make_shared<ReplicaSet>();
  rs->apiVersion = "apps/v1";
  rs->kind = "ReplicaSet";
  rs->metadata.name = std::string(s.d.metadata.name) + "-" + hash;
  rs->metadata.namespace_ = s.d.metadata.namespace_;
  rs->metadata.ownerReferences.push_back(new_controller_ref(s.d.metadata, kApiVersion, kKind));
  rs->spec.template_ = s.d.spec.template_;
  rs->spec.template_.metadata.labels.set(std::string(kDefaultUniqueLabelKey), hash);
  rs->metadata.labels = rs->spec.template_.metadata.labels;
  rs->spec.minReadySeconds = s.d.spec.minReadySeconds;
  rs->spec.selector = s.d.spec.selector;
  if (!rs->spec.selector) rs->spec.selector.emplace();
  rs->spec.selector->matchLabels.set(std::string(kDefaultUniqueLabelKey), hash);
  rs->spec.replicas = 0;
  rs->spec.present.set(0);  // replicas: 0 must be written, not left to default to 1
  auto all = old;
  all.push_back(rs);
  std::int32_t count = new_rs_new_replicas(s.d, all, *rs);
  rs->spec.replicas = count;
  set_new_replica_set_annotations(s.d, *rs, new_revision, false);

  bool already_exists = false;
  RSPtr created;
  auto c = ctx_.client->create(*rs);
  if (c) {
    created = std::make_shared<ReplicaSet>(std::move(*c));
  } else if (client::is_already_exists(c.error())) {
    already_exists = true;
    auto cur = rs_informer_->lister().get(std::string(rs->metadata.namespace_), std::string(rs->metadata.name));
    if (!cur) return c.error();
    const auto* ref = controller_of(cur->metadata);
    if (ref && ref->uid == s.d.metadata.uid && equal_ignore_hash(s.d.spec.template_, cur->spec.template_)) {
      created = std::make_shared<ReplicaSet>(*cur);
    } else {
      // A hash collision: bump collisionCount so the next sync names it differently.
      s.d.status.collisionCount = s.d.status.collisionCount.value_or(0) + 1;
      if (update_status(s))
        log::V(2).info("Found a hash collision for deployment - bumping collisionCount to resolve it",
                       {{"deployment", s.key}, {"newCollisionCount", *s.d.status.collisionCount}});
      return c.error();
    }
  } else if (client::has_status_cause(c.error(), "NamespaceTerminating")) {
    return c.error();
  } else {
    std::string msg = "Failed to create new replica set \"" + std::string(rs->metadata.name) + "\": " + c.error().message;
    if (has_progress_deadline(s.d)) {
      set_condition(s.d.status, new_condition("Progressing", "False", kFailedRSCreateReason, msg, s.now));
      (void)update_status(s);
    }
    recorder_.eventf(s.ref, events::kWarning, kFailedRSCreateReason, "{}", msg);
    return c.error();
  }
  if (!already_exists && count > 0)
    recorder_.eventf(s.ref, events::kNormal, "ScalingReplicaSet", "Scaled up replica set {} from 0 to {}",
                     std::string(created->metadata.name), count);
  s.rss.push_back(created);
  bool needs_update = set_deployment_revision(s.d, new_revision);
  if (!already_exists && has_progress_deadline(s.d)) {
    set_condition(s.d.status, new_condition("Progressing", "True", kNewReplicaSetReason,
                                            "Created new replica set \"" + std::string(created->metadata.name) + "\"",
                                            s.now));
    needs_update = true;
  }
  if (needs_update)
    if (auto r = update_status(s); !r) return r.error();
  return created;
}

client::Result<bool> DeploymentController::scale_replica_set(State& s, RSPtr& rs, std::int32_t size,
                                                             std::string_view op) {
  bool size_update = replicas(*rs) != size;
  std::int32_t desired = replicas(s.d), max = desired + max_surge(s.d);
  if (!size_update && !replicas_annotations_need_update(*rs, desired, max)) return false;
  std::int32_t old_size = replicas(*rs);
  ReplicaSet copy = *rs;
  copy.spec.replicas = size;
  copy.spec.present.set(0);
  set_replicas_annotations(copy, desired, max);
  auto u = ctx_.client->update(copy);
  if (!u) return u.error();
  auto updated = std::make_shared<ReplicaSet>(std::move(*u));
  for (auto& x : s.rss)
    if (x->metadata.uid == updated->metadata.uid) x = updated;
  rs = updated;
  if (!size_update) return false;
  recorder_.eventf(s.ref, events::kNormal, "ScalingReplicaSet", "{} replica set {} from {} to {}",
                   op == "up" ? "Scaled up" : "Scaled down", std::string(rs->metadata.name), old_size, size);
  return true;
}

client::Result<bool> DeploymentController::scale_and_record(State& s, RSPtr& rs, std::int32_t size) {
  if (replicas(*rs) == size) return false;
  return scale_replica_set(s, rs, size, replicas(*rs) < size ? "up" : "down");
}

client::Result<bool> DeploymentController::is_scaling_event(State& s) {
  auto all = all_replica_sets(s, false);
  if (!all) return all.error();
  auto rss = all->second;
  rss.push_back(all->first);
  for (const auto& rs : filter_active(rss)) {
    auto desired = desired_replicas_annotation(*rs);
    if (desired && *desired != replicas(s.d)) return true;
  }
  return false;
}

client::Result<void> DeploymentController::sync_status_only(State& s) {
  auto all = all_replica_sets(s, false);
  if (!all) return all.error();
  auto rss = all->second;
  rss.push_back(all->first);
  return sync_deployment_status(s, rss, all->first);
}

client::Result<void> DeploymentController::sync_scaling(State& s) {
  auto all = all_replica_sets(s, false);
  if (!all) return all.error();
  auto [new_rs, old] = *all;
  if (auto r = scale(s, new_rs, old); !r) return r;
  if (s.d.spec.paused)
    if (auto r = cleanup(s, old); !r) return r;
  auto rss = old;
  rss.push_back(new_rs);
  return sync_deployment_status(s, rss, new_rs);
}

client::Result<void> DeploymentController::scale(State& s, const RSPtr& new_rs, const std::vector<RSPtr>& old) {
  if (RSPtr one = find_active_or_latest(new_rs, old)) {
    if (replicas(*one) == replicas(s.d)) return {};
    auto r = scale_and_record(s, one, replicas(s.d));
    if (!r) return r.error();
    return {};
  }
  if (is_saturated(s.d, new_rs)) {
    for (auto rs : filter_active(old))
      if (auto r = scale_and_record(s, rs, 0); !r) return r.error();
    return {};
  }
  if (!is_rolling_update(s.d)) return {};
  // Proportional scaling: spread what is to be added (or removed) over the active ReplicaSets by
  // their share of the Deployment before the resize.
  auto with_new = old;
  with_new.push_back(new_rs);
  auto all = filter_active(with_new);
  std::int32_t current = sum_spec_replicas(all);
  std::int32_t allowed = replicas(s.d) > 0 ? replicas(s.d) + max_surge(s.d) : 0;
  std::int32_t to_add = allowed - current;
  std::string op;
  if (to_add > 0) {
    sort_by_size_newer(all);
    op = "up";
  } else if (to_add < 0) {
    sort_by_size_older(all);
    op = "down";
  }
  std::int32_t added = 0;
  std::map<std::string, std::int32_t> size;
  for (const auto& rs : all) {
    if (to_add != 0) {
      std::int32_t p = replica_set_proportion(*rs, s.d, to_add, added);
      size[std::string(rs->metadata.name)] = replicas(*rs) + p;
      added += p;
    } else {
      size[std::string(rs->metadata.name)] = replicas(*rs);
    }
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto& n = size[std::string(all[i]->metadata.name)];
    if (i == 0 && to_add != 0) n = std::max(0, n + (to_add - added));  // leftovers to the largest
    RSPtr rs = all[i];
    if (auto r = scale_replica_set(s, rs, n, op); !r) return r.error();
  }
  return {};
}

client::Result<void> DeploymentController::cleanup(State& s, const std::vector<RSPtr>& old) {
  if (!has_revision_history_limit(s.d)) return {};
  std::vector<RSPtr> cleanable;
  for (const auto& rs : old)
    if (rs && !rs->metadata.deletionTimestamp) cleanable.push_back(rs);
  std::int32_t diff = static_cast<std::int32_t>(cleanable.size()) - *s.d.spec.revisionHistoryLimit;
  if (diff <= 0) return {};
  sort_by_revision(cleanable);
  for (std::int32_t i = 0; i < diff; ++i) {
    const auto& rs = cleanable[static_cast<std::size_t>(i)];
    // Only empty ReplicaSets whose controller has seen their latest spec.
    if (rs->status.replicas != 0 || replicas(*rs) != 0 || rs->metadata.generation > rs->status.observedGeneration ||
        rs->metadata.deletionTimestamp)
      continue;
    auto r = ctx_.client->remove<ReplicaSet>(rs->metadata.namespace_, rs->metadata.name);
    if (!r && !client::is_not_found(r.error())) return r.error();
  }
  return {};
}

DeploymentStatus DeploymentController::calculate_status(const State& s, const std::vector<RSPtr>& all,
                                                         const RSPtr& new_rs) const {
  std::int32_t available = sum_available_replicas(all);
  std::int32_t total = sum_spec_replicas(all);
  DeploymentStatus st;
  st.observedGeneration = s.d.metadata.generation;
  st.replicas = sum_status_replicas(all);
  st.updatedReplicas = sum_status_replicas({new_rs});
  st.readyReplicas = sum_ready_replicas(all);
  st.availableReplicas = available;
  st.unavailableReplicas = std::max(0, total - available);
  st.collisionCount = s.d.status.collisionCount;
  st.conditions = s.d.status.conditions;
  if (available >= replicas(s.d) - max_unavailable(s.d))
    set_condition(st, new_condition("Available", "True", kMinimumReplicasAvailable, "Deployment has minimum availability.",
                                    s.now));
  else
    set_condition(st, new_condition("Available", "False", kMinimumReplicasUnavailable,
                                    "Deployment does not have minimum availability.", s.now));
  return st;
}

client::Result<void> DeploymentController::sync_deployment_status(State& s, const std::vector<RSPtr>& all,
                                                                   const RSPtr& new_rs) {
  auto st = calculate_status(s, all, new_rs);
  if (status_equal(s.d.status, st)) return {};
  s.d.status = std::move(st);
  return update_status(s);
}

client::Result<void> DeploymentController::sync_rollout_status(State& s, const std::vector<RSPtr>& all,
                                                               const RSPtr& new_rs) {
  auto st = calculate_status(s, all, new_rs);
  if (!has_progress_deadline(s.d)) remove_condition(st, "Progressing");
  const auto* cur = get_condition(s.d.status, "Progressing");
  bool complete_before = st.replicas == st.updatedReplicas && cur && cur->reason == kNewRSAvailableReason;
  std::string rs_name = new_rs ? std::string(new_rs->metadata.name) : std::string();
  if (has_progress_deadline(s.d) && !complete_before) {
    if (deployment_complete(s.d, st)) {
      std::string msg = new_rs ? "ReplicaSet \"" + rs_name + "\" has successfully progressed."
                               : "Deployment \"" + std::string(s.d.metadata.name) + "\" has successfully progressed.";
      set_condition(st, new_condition("Progressing", "True", kNewRSAvailableReason, msg, s.now));
    } else if (deployment_progressing(s.d, st)) {
      std::string msg = new_rs ? "ReplicaSet \"" + rs_name + "\" is progressing."
                               : "Deployment \"" + std::string(s.d.metadata.name) + "\" is progressing.";
      auto c = new_condition("Progressing", "True", kReplicaSetUpdatedReason, msg, s.now);
      // Progress moves lastUpdateTime even when the reason stays.
      if (cur) {
        if (cur->status == "True") c.lastTransitionTime = cur->lastTransitionTime;
        remove_condition(st, "Progressing");
      }
      set_condition(st, std::move(c));
    } else if (deployment_timed_out(s.d, st, s.now)) {
      std::string msg = new_rs ? "ReplicaSet \"" + rs_name + "\" has timed out progressing."
                               : "Deployment \"" + std::string(s.d.metadata.name) + "\" has timed out progressing.";
      set_condition(st, new_condition("Progressing", "False", kTimedOutReason, msg, s.now));
    }
  }
  // The ReplicaSets' ReplicaFailure, the new one's first.
  std::optional<DeploymentCondition> failure;
  auto from_rs = [&](const RSPtr& rs) {
    if (!rs || failure) return;
    for (const auto& c : rs->status.conditions)
      if (c.type == "ReplicaFailure") {
        DeploymentCondition d;
        d.type = c.type;
        d.status = c.status;
        d.lastUpdateTime = c.lastTransitionTime;
        d.lastTransitionTime = c.lastTransitionTime;
        d.reason = c.reason;
        d.message = c.message;
        failure = std::move(d);
        return;
      }
  };
  from_rs(new_rs);
  for (const auto& rs : all) from_rs(rs);
  if (failure) set_condition(st, std::move(*failure));
  else remove_condition(st, "ReplicaFailure");

  if (status_equal(s.d.status, st)) {
    requeue_stuck(s, st);
    return {};
  }
  s.d.status = std::move(st);
  return update_status(s);
}

void DeploymentController::requeue_stuck(const State& s, const DeploymentStatus& st) {
  const auto* cur = get_condition(s.d.status, "Progressing");
  if (!has_progress_deadline(s.d) || !cur) return;
  if (deployment_complete(s.d, st) || cur->reason == kTimedOutReason) return;
  std::int64_t last = cur->lastUpdateTime ? cur->lastUpdateTime->unixNanos : 0;
  std::int64_t after_ns = last + std::int64_t{*s.d.spec.progressDeadlineSeconds} * 1'000'000'000 - s.now.unixNanos;
  if (after_ns < 1'000'000'000) {
    workers_.add_rate_limited(s.key);
    return;
  }
  workers_.add_after(s.key, std::chrono::nanoseconds(after_ns) + std::chrono::seconds(1));
}

// ---------------------------------------------------------------- rolling update

client::Result<void> DeploymentController::rollout_rolling(State& s) {
  auto r = all_replica_sets(s, true);
  if (!r) return r.error();
  auto [new_rs, old] = *r;
  auto all = old;
  all.push_back(new_rs);
  auto up = reconcile_new(s, all, new_rs);
  if (!up) return up.error();
  if (*up) {
    all = old;
    all.push_back(new_rs);
    return sync_rollout_status(s, all, new_rs);
  }
  auto down = reconcile_old(s, all, filter_active(old), new_rs);
  if (!down) return down.error();
  // Scaling down replaced entries of s.rss: take the current copies.
  for (auto& o : old)
    for (const auto& x : s.rss)
      if (x->metadata.uid == o->metadata.uid) o = x;
  all = old;
  all.push_back(new_rs);
  if (*down) return sync_rollout_status(s, all, new_rs);
  if (deployment_complete(s.d, s.d.status))
    if (auto c = cleanup(s, old); !c) return c;
  return sync_rollout_status(s, all, new_rs);
}

client::Result<bool> DeploymentController::reconcile_new(State& s, const std::vector<RSPtr>& all, RSPtr& new_rs) {
  if (replicas(*new_rs) == replicas(s.d)) return false;
  if (replicas(*new_rs) > replicas(s.d)) return scale_and_record(s, new_rs, replicas(s.d));
  return scale_and_record(s, new_rs, new_rs_new_replicas(s.d, all, *new_rs));
}

client::Result<bool> DeploymentController::reconcile_old(State& s, const std::vector<RSPtr>& all,
                                                         std::vector<RSPtr> old, const RSPtr& new_rs) {
  if (sum_spec_replicas(old) == 0) return false;
  std::int32_t all_pods = sum_spec_replicas(all);
  std::int32_t min_available = replicas(s.d) - max_unavailable(s.d);
  std::int32_t new_unavailable = replicas(*new_rs) - new_rs->status.availableReplicas;
  std::int32_t max_scaled_down = all_pods - min_available - new_unavailable;
  if (max_scaled_down <= 0) return false;

  // cleanupUnhealthyReplicas: old ReplicaSets' unavailable pods go first; removing them costs no
  // availability.
  sort_by_creation(old);
  std::int32_t cleaned = 0;
  for (auto& rs : old) {
    if (cleaned >= max_scaled_down) break;
    if (replicas(*rs) == 0 || replicas(*rs) == rs->status.availableReplicas) continue;
    std::int32_t n = std::min(max_scaled_down - cleaned, replicas(*rs) - rs->status.availableReplicas);
    if (auto r = scale_and_record(s, rs, replicas(*rs) - n); !r) return r.error();
    cleaned += n;
  }
  // scaleDownOldReplicaSetsForRollingUpdate: then as many available ones as maxUnavailable allows.
  auto with_new = old;
  with_new.push_back(new_rs);
  std::int32_t available = sum_available_replicas(with_new);
  std::int32_t scaled = 0;
  if (available > min_available) {
    sort_by_creation(old);
    std::int32_t total = available - min_available;
    for (auto& rs : old) {
      if (scaled >= total) break;
      if (replicas(*rs) == 0) continue;
      std::int32_t n = std::min(replicas(*rs), total - scaled);
      if (auto r = scale_and_record(s, rs, replicas(*rs) - n); !r) return r.error();
      scaled += n;
    }
  }
  return cleaned + scaled > 0;
}

// ---------------------------------------------------------------- recreate

client::Result<void> DeploymentController::rollout_recreate(State& s) {
  auto r = all_replica_sets(s, false);
  if (!r) return r.error();
  auto [new_rs, old] = *r;
  auto all = old;
  all.push_back(new_rs);
  bool scaled_down = false;
  for (auto rs : filter_active(old)) {
    auto x = scale_and_record(s, rs, 0);
    if (!x) return x.error();
    scaled_down = scaled_down || *x;
  }
  if (scaled_down) {
    for (auto& o : old)
      for (const auto& x : s.rss)
        if (x->metadata.uid == o->metadata.uid) o = x;
    all = old;
    all.push_back(new_rs);
    return sync_rollout_status(s, all, new_rs);
  }
  // Old pods still running (or old ReplicaSets that think so): wait for them.
  bool old_running = sum_status_replicas(old) > 0;
  for (const auto& [uid, pods] : s.pods_by_rs) {
    if (old_running) break;
    if (new_rs && new_rs->metadata.uid == uid) continue;
    for (const auto& p : pods)
      if (p->status.phase != "Succeeded" && p->status.phase != "Failed") old_running = true;
  }
  if (old_running) return sync_rollout_status(s, all, new_rs);
  if (!new_rs) {
    auto again = all_replica_sets(s, true);
    if (!again) return again.error();
    new_rs = again->first;
    old = again->second;
    all = old;
    all.push_back(new_rs);
  }
  if (auto x = scale_and_record(s, new_rs, replicas(s.d)); !x) return x.error();
  if (deployment_complete(s.d, s.d.status))
    if (auto c = cleanup(s, old); !c) return c;
  all = old;
  all.push_back(new_rs);
  return sync_rollout_status(s, all, new_rs);
}

}  // namespace ksched::controllers
