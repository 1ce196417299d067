#include "controllers/replicaset/replica_set.h"

#include <algorithm>
#include <set>

#include "api/helpers.h"
#include "controllers/informers.h"
#include "util/log.h"

namespace ksched::controllers {

namespace {

constexpr std::string_view kApiVersion = "apps/v1";
constexpr std::string_view kKind = "ReplicaSet";
constexpr int kStatusUpdateRetries = 1;

std::int32_t replicas_of(const ReplicaSet& rs) { return rs.spec.replicas.value_or(1); }

bool status_equal(const ReplicaSetStatus& a, const ReplicaSetStatus& b) {
  if (a.replicas != b.replicas || a.fullyLabeledReplicas != b.fullyLabeledReplicas ||
      a.readyReplicas != b.readyReplicas || a.availableReplicas != b.availableReplicas ||
      a.conditions.size() != b.conditions.size())
    return false;
  for (std::size_t i = 0; i < a.conditions.size(); ++i) {
    const auto &x = a.conditions[i], &y = b.conditions[i];
    if (x.type != y.type || x.status != y.status || x.reason != y.reason || x.message != y.message ||
        x.lastTransitionTime != y.lastTransitionTime)
      return false;
  }
  return true;
}

}  // namespace

ReplicaSetController::ReplicaSetController(const ControllerContext& ctx)
    : ctx_(ctx), expectations_(*ctx.clock), recorder_(ctx.events, "replicaset-controller"),
      workers_("replicaset", [this](const std::string& k) { return sync(k); }, *ctx.clock) {
  rs_informer_ = replica_set_informer(ctx_);
  pod_informer_ = pod_informer(ctx_);

  auto rh = std::make_shared<informer::ResourceEventHandlerFuncs<ReplicaSet>>();
  rh->add = [this](const Ptr<ReplicaSet>& rs, bool) { enqueue(*rs); };
  rh->update = [this](const Ptr<ReplicaSet>&, const Ptr<ReplicaSet>& cur) { enqueue(*cur); };
  rh->del = [this](const informer::Deleted<ReplicaSet>& d) { workers_.add(d.key); };
  auto rr = rs_informer_->add_event_handler(rh);
  synced_.push_back([rr] { return rr->has_synced(); });

  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  ph->add = [this](const Ptr<api::Pod>& p, bool) { on_pod_add(p); };
  ph->update = [this](const Ptr<api::Pod>& o, const Ptr<api::Pod>& c) { on_pod_update(o, c); };
  ph->del = [this](const informer::Deleted<api::Pod>& d) { on_pod_delete(d); };
  auto pr = pod_informer_->add_event_handler(ph);
  synced_.push_back([pr] { return pr->has_synced(); });
}

ReplicaSetController::~ReplicaSetController() { stop(); }

void ReplicaSetController::run(int workers) { workers_.start(workers); }
void ReplicaSetController::stop() { workers_.stop(); }
bool ReplicaSetController::has_synced() const {
  for (const auto& s : synced_)
    if (!s()) return false;
  return true;
}

void ReplicaSetController::enqueue(const ReplicaSet& rs) { workers_.add(api::key_of(rs)); }

Ptr<ReplicaSet> ReplicaSetController::resolve_controller(const std::string& ns, const api::OwnerReference& ref) const {
  if (ref.kind != kKind) return nullptr;
  auto rs = rs_informer_->lister().get(ns, ref.name);
  if (!rs || rs->metadata.uid != ref.uid) return nullptr;
  return rs;
}

void ReplicaSetController::enqueue_selecting(const api::Pod& pod) {
  for (const auto& rs : rs_informer_->lister().list_namespace(std::string(pod.metadata.namespace_))) {
    auto sel = selector_of(rs->spec.selector);
    if (!sel.empty() && sel.matches(pod.metadata.labels)) enqueue(*rs);
  }
}

void ReplicaSetController::on_pod_add(const Ptr<api::Pod>& p) {
  if (p->metadata.deletionTimestamp) {
    on_pod_delete(informer::Deleted<api::Pod>{p, false, api::key_of(*p)});
    return;
  }
  if (const auto* ref = controller_of(p->metadata)) {
    auto rs = resolve_controller(std::string(p->metadata.namespace_), *ref);
    if (!rs) return;
    auto key = api::key_of(*rs);
    expectations_.creation_observed(key);
    workers_.add(key);
    return;
  }
  enqueue_selecting(*p);
}

void ReplicaSetController::on_pod_update(const Ptr<api::Pod>& old, const Ptr<api::Pod>& cur) {
  if (old->metadata.resourceVersion == cur->metadata.resourceVersion) return;  // resync
  bool labels_changed = !(old->metadata.labels == cur->metadata.labels);
  if (cur->metadata.deletionTimestamp) {
    // A graceful deletion started: replace the pod now rather than when the node is done with it.
    on_pod_delete(informer::Deleted<api::Pod>{cur, false, api::key_of(*cur)});
    if (labels_changed) on_pod_delete(informer::Deleted<api::Pod>{old, false, api::key_of(*old)});
    return;
  }
  const auto* cur_ref = controller_of(cur->metadata);
  const auto* old_ref = controller_of(old->metadata);
  bool ref_changed = (cur_ref == nullptr) != (old_ref == nullptr) || (cur_ref && !same_owner_ref(*cur_ref, *old_ref));
  std::string ns(cur->metadata.namespace_);
  if (ref_changed && old_ref)
    if (auto rs = resolve_controller(ns, *old_ref)) enqueue(*rs);
  if (cur_ref) {
    auto rs = resolve_controller(ns, *cur_ref);
    if (!rs) return;
    enqueue(*rs);
    // A pod that became ready is available minReadySeconds later: look again then.
    if (!is_pod_ready(*old) && is_pod_ready(*cur) && rs->spec.minReadySeconds > 0)
      workers_.add_after(api::key_of(*rs), std::chrono::seconds(rs->spec.minReadySeconds) + std::chrono::seconds(1));
    return;
  }
  if (labels_changed || ref_changed) enqueue_selecting(*cur);
}

void ReplicaSetController::on_pod_delete(const informer::Deleted<api::Pod>& d) {
  if (!d.obj) return;
  const auto* ref = controller_of(d.obj->metadata);
  if (!ref) return;  // orphans' deletions change nothing for a ReplicaSet
  auto rs = resolve_controller(std::string(d.obj->metadata.namespace_), *ref);
  if (!rs) return;
  auto key = api::key_of(*rs);
  expectations_.deletion_observed(key, api::key_of(*d.obj));
  workers_.add(key);
}

std::vector<Ptr<api::Pod>> ReplicaSetController::indirectly_related_pods(const ReplicaSet& rs) const {
  // The pods of every ReplicaSet with the same controller (a Deployment's old and new ones), so
  // that scale-down prefers pods doubled up on a node with their siblings.
  std::vector<Ptr<api::Pod>> out;
  const auto* owner = controller_of(rs.metadata);
  std::vector<Ptr<ReplicaSet>> related;
  if (owner) {
    related = owned_by(rs_informer_->indexer(), owner->uid);
  } else if (auto self = rs_informer_->lister().get(std::string(rs.metadata.namespace_), std::string(rs.metadata.name))) {
    related.push_back(self);
  }
  std::set<std::string_view> seen;
  for (const auto& r : related) {
    for (auto& p : owned_by(pod_informer_->indexer(), r->metadata.uid)) {
      if (seen.insert(std::string_view(p->metadata.uid)).second) out.push_back(std::move(p));
    }
  }
  return out;
}

client::Result<void> ReplicaSetController::manage_replicas(const std::vector<Ptr<api::Pod>>& active,
                                                           const ReplicaSet& rs, const std::string& key) {
  int diff = static_cast<int>(active.size()) - replicas_of(rs);
  auto ref = object_reference(kApiVersion, kKind, rs.metadata);
  if (diff < 0) {
    diff = std::min(-diff, kBurstReplicas);
    expectations_.expect_creations(key, diff);
    auto owner_ref = new_controller_ref(rs.metadata, kApiVersion, kKind);
    std::vector<api::Pod> pods;
    pods.reserve(static_cast<std::size_t>(diff));
    for (int i = 0; i < diff; ++i)
      pods.push_back(pod_from_template(rs.spec.template_, rs.metadata.namespace_, rs.metadata.name, &owner_ref));
    std::optional<client::ApiError> first_error;
    int created = create_pods_slow_start(
        *ctx_.client, std::move(pods),
        [&](const api::Pod&, const client::ApiError& e) {
          recorder_.eventf(ref, events::kWarning, "FailedCreate", "Error creating: {}", e.message);
          // A namespace being deleted refuses every creation: nothing to retry (upstream ignores it).
          if (!client::has_status_cause(e, "NamespaceTerminating") && !first_error) first_error = e;
        },
        [&](std::string_view pod) { recorder_.eventf(ref, events::kNormal, "SuccessfulCreate", "Created pod: {}", pod); });
    // Pods never created will never be observed.
    if (int skipped = diff - created; skipped > 0) expectations_.lower_creations(key, skipped);
    if (created > 0)
      log::V(2).info("Created pods", {{"replicaSet", key}, {"count", created}});
    if (first_error) return *first_error;
    return {};
  }
  if (diff > 0) {
    diff = std::min(diff, kBurstReplicas);
    std::vector<Ptr<api::Pod>> victims = active;
    if (static_cast<std::size_t>(diff) < victims.size()) {
      sort_pods_for_deletion(victims, indirectly_related_pods(rs), api::now(*ctx_.clock));
      victims.resize(static_cast<std::size_t>(diff));
    }
    std::vector<std::string> keys;
    std::vector<std::pair<std::string, std::string>> names;
    for (const auto& p : victims) {
      keys.push_back(api::key_of(*p));
      names.emplace_back(std::string(p->metadata.namespace_), std::string(p->metadata.name));
    }
    expectations_.expect_deletions(key, keys);
    auto results = delete_all(*ctx_.client, client::ResourceFor<api::Pod>::info, names);
    std::optional<client::ApiError> first_error;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i]) {
        recorder_.eventf(ref, events::kNormal, "SuccessfulDelete", "Deleted pod: {}", names[i].second);
        continue;
      }
      expectations_.deletion_observed(key, keys[i]);  // it will not be observed
      recorder_.eventf(ref, events::kWarning, "FailedDelete", "Error deleting: {}", results[i].error().message);
      if (!first_error) first_error = results[i].error();
    }
    if (first_error) return *first_error;
  }
  return {};
}

util::Result<void> ReplicaSetController::sync(const std::string& key) {
  auto [ns, name] = api::split_key(key);
  auto cached = rs_informer_->lister().get(std::string(ns), std::string(name));
  if (!cached) {
    expectations_.forget(key);
    return {};
  }
  const ReplicaSet& rs = *cached;
  bool needs_sync = expectations_.satisfied(key);
  auto selector = selector_of(rs.spec.selector);

  std::vector<Ptr<api::Pod>> candidates;
  for (auto& p : owned_or_orphans(pod_informer_->indexer(), rs.metadata))
    if (is_pod_active(*p)) candidates.push_back(std::move(p));
  ClaimOwner owner{&rs.metadata, std::string(kApiVersion), std::string(kKind)};
  auto claimed = claim_objects<api::Pod>(*ctx_.client, owner, selector, candidates, [&] {
    auto fresh = ctx_.client->get<ReplicaSet>(ns, name);
    return fresh && fresh->metadata.uid == rs.metadata.uid && !fresh->metadata.deletionTimestamp;
  });
  if (claimed.error) return sync_error(*claimed.error);
  const auto& active = claimed.objects;

  std::optional<client::ApiError> manage_err;
  if (needs_sync && !rs.metadata.deletionTimestamp)
    if (auto r = manage_replicas(active, rs, key); !r) manage_err = r.error();

  // calculateStatus
  ReplicaSetStatus status = rs.status;
  auto now = api::now(*ctx_.clock);
  auto template_labels = labels::from_set(rs.spec.template_.metadata.labels);
  std::int32_t fully = 0, ready = 0, available = 0;
  for (const auto& p : active) {
    if (template_labels.matches(p->metadata.labels)) ++fully;
    if (is_pod_ready(*p)) {
      ++ready;
      if (is_pod_available(*p, rs.spec.minReadySeconds, now)) ++available;
    }
  }
  auto failure = std::find_if(status.conditions.begin(), status.conditions.end(),
                              [](const ReplicaSetCondition& c) { return c.type == "ReplicaFailure"; });
  if (manage_err && failure == status.conditions.end()) {
    int diff = static_cast<int>(active.size()) - replicas_of(rs);
    ReplicaSetCondition c;
    c.type = "ReplicaFailure";
    c.status = "True";
    c.lastTransitionTime = now;
    c.reason = diff < 0 ? "FailedCreate" : diff > 0 ? "FailedDelete" : "";
    c.message = manage_err->to_string();
    status.conditions.push_back(std::move(c));
  } else if (!manage_err && failure != status.conditions.end()) {
    status.conditions.erase(failure);
  }
  status.replicas = static_cast<std::int32_t>(active.size());
  status.fullyLabeledReplicas = fully;
  status.readyReplicas = ready;
  status.availableReplicas = available;

  // updateReplicaSetStatus: nothing to write in the steady state.
  std::int32_t want = replicas_of(rs);
  if (!(status_equal(rs.status, status) && rs.metadata.generation == rs.status.observedGeneration)) {
    status.observedGeneration = rs.metadata.generation;
    ReplicaSet next = rs;
    for (int attempt = 0;; ++attempt) {
      next.status = status;
      auto r = ctx_.client->update_status(next);
      if (r) {
        next = std::move(*r);
        break;
      }
      if (attempt >= kStatusUpdateRetries) return sync_error(r.error());
      auto fresh = ctx_.client->get<ReplicaSet>(ns, name);
      if (!fresh) return sync_error(fresh.error());
      next = std::move(*fresh);
    }
    // Resync after minReadySeconds as a last line of defence against clock skew.
    if (!manage_err && next.spec.minReadySeconds > 0 && next.status.readyReplicas == want &&
        next.status.availableReplicas != want)
      workers_.add_after(key, std::chrono::seconds(next.spec.minReadySeconds));
  }
  if (manage_err) return sync_error(*manage_err);
  return {};
}

}  // namespace ksched::controllers
