#include "controllers/daemon/daemon_set.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "api/helpers.h"
#include "controllers/hash.h"
#include "controllers/history/history.h"
#include "controllers/informers.h"
#include "util/log.h"

namespace ksched::controllers {

namespace {

constexpr std::string_view kApiVersion = "apps/v1";
constexpr std::string_view kKind = "DaemonSet";
constexpr std::string_view kRevisionHashLabel = "controller-revision-hash";
constexpr std::string_view kTemplateGenerationLabel = "pod-template-generation";
constexpr std::string_view kTemplateGenerationAnnotation = "deprecated.daemonset.template.generation";

// SetDefaults_DaemonSet.
void apply_defaults(DaemonSet& ds) {
  auto& u = ds.spec.updateStrategy;
  if (u.type.empty()) u.type = "RollingUpdate";
  if (u.type == "RollingUpdate") {
    if (!u.rollingUpdate) u.rollingUpdate.emplace();
    if (!u.rollingUpdate->maxUnavailable) u.rollingUpdate->maxUnavailable = api::IntOrString::from_int(1);
    if (!u.rollingUpdate->maxSurge) u.rollingUpdate->maxSurge = api::IntOrString::from_int(0);
  }
  if (!ds.spec.revisionHistoryLimit) ds.spec.revisionHistoryLimit = 10;
}

std::optional<std::int64_t> template_generation(const DaemonSet& ds) {
  auto v = ds.metadata.annotations.get(kTemplateGenerationAnnotation);
  std::int64_t g = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), g);
  if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size()) return std::nullopt;
  return g;
}

bool requirement_matches(const api::NodeSelectorRequirement& r, std::string_view value, bool present) {
  const auto& op = r.operator_;
  auto in = [&] { return std::find(r.values.begin(), r.values.end(), value) != r.values.end(); };
  if (op == "In") return present && in();
  if (op == "NotIn") return !present || !in();
  if (op == "Exists") return present;
  if (op == "DoesNotExist") return !present;
  if ((op == "Gt" || op == "Lt") && present && r.values.size() == 1) {
    std::int64_t a = 0, b = 0;
    if (std::from_chars(value.data(), value.data() + value.size(), a).ec != std::errc()) return false;
    const auto& s = r.values[0];
    if (std::from_chars(s.data(), s.data() + s.size(), b).ec != std::errc()) return false;
    return op == "Gt" ? a > b : a < b;
  }
  return false;
}

// The pod's nodeSelector and required node affinity against the node (nodeaffinity.GetRequiredNodeAffinity).
bool fits_node_affinity(const api::PodSpec& spec, const api::Node& node) {
  for (const auto& [k, v] : spec.nodeSelector) {
    const auto* got = node.metadata.labels.find(k);
    if (!got || *got != v) return false;
  }
  if (!spec.affinity || !spec.affinity->nodeAffinity || !spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution)
    return true;
  for (const auto& term : spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms) {
    if (term.matchExpressions.empty() && term.matchFields.empty()) continue;  // an empty term matches nothing
    bool ok = true;
    for (const auto& r : term.matchExpressions) {
      const auto* v = node.metadata.labels.find(r.key);
      if (!requirement_matches(r, v ? std::string_view(*v) : std::string_view(), v != nullptr)) ok = false;
    }
    for (const auto& r : term.matchFields) {
      if (r.key != "metadata.name" || (r.operator_ != "In" && r.operator_ != "NotIn") || r.values.size() != 1 ||
          !requirement_matches(r, std::string_view(node.metadata.name), true))
        ok = false;
    }
    if (ok) return true;
  }
  return false;
}

bool tolerates(const api::Toleration& t, const api::Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.operator_ == "Exists") return t.key.empty() || t.key == taint.key;
  return t.key == taint.key && t.value == taint.value && (t.operator_.empty() || t.operator_ == "Equal");
}

bool untolerated(const api::PodSpec& spec, const api::Node& node, bool no_execute_only) {
  for (const auto& taint : node.spec.taints) {
    if (taint.effect != "NoExecute" && (no_execute_only || taint.effect != "NoSchedule")) continue;
    bool ok = std::any_of(spec.tolerations.begin(), spec.tolerations.end(),
                          [&](const api::Toleration& t) { return tolerates(t, taint); });
    if (!ok) return true;
  }
  return false;
}

// The node a daemon pod is for: its nodeName, or the metadata.name of its node affinity.
std::string target_node(const api::Pod& p) {
  if (!p.spec.nodeName.empty()) return std::string(p.spec.nodeName);
  if (p.spec.affinity && p.spec.affinity->nodeAffinity && p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution)
    for (const auto& term : p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms)
      for (const auto& r : term.matchFields)
        if (r.key == "metadata.name" && r.operator_ == "In" && r.values.size() == 1) return r.values[0];
  return {};
}

bool pod_updated(const api::Pod& p, const std::string& hash, std::optional<std::int64_t> generation) {
  bool gen = generation && p.metadata.labels.get(kTemplateGenerationLabel) == std::to_string(*generation);
  bool h = !hash.empty() && p.metadata.labels.get(kRevisionHashLabel) == hash;
  return h || gen;
}

// podByCreationTimestampAndPhase: running before not, then older first.
void sort_by_creation_and_phase(std::vector<Ptr<api::Pod>>& v) {
  std::stable_sort(v.begin(), v.end(), [](const Ptr<api::Pod>& a, const Ptr<api::Pod>& b) {
    bool ra = a->status.phase == "Running", rb = b->status.phase == "Running";
    if (ra != rb) return ra;
    auto ta = a->metadata.creationTimestamp.value_or(api::Time{}).unixNanos;
    auto tb = b->metadata.creationTimestamp.value_or(api::Time{}).unixNanos;
    if (ta == tb) return std::string_view(a->metadata.name) < std::string_view(b->metadata.name);
    return ta < tb;
  });
}

}  // namespace

void DaemonSetController::add_daemon_tolerations(api::PodSpec& spec) {
  auto add = [&](std::string_view key, std::string_view effect) {
    for (const auto& t : spec.tolerations)
      if (t.key == key && t.operator_ == "Exists" && t.value.empty() && t.effect == effect) return;
    api::Toleration t;
    t.key = key;
    t.operator_ = "Exists";
    t.effect = effect;
    spec.tolerations.push_back(t);
  };
  add("node.kubernetes.io/not-ready", "NoExecute");
  add("node.kubernetes.io/unreachable", "NoExecute");
  add("node.kubernetes.io/disk-pressure", "NoSchedule");
  add("node.kubernetes.io/memory-pressure", "NoSchedule");
  add("node.kubernetes.io/pid-pressure", "NoSchedule");
  add("node.kubernetes.io/unschedulable", "NoSchedule");
  if (spec.hostNetwork) add("node.kubernetes.io/network-unavailable", "NoSchedule");
}

std::pair<bool, bool> DaemonSetController::should_run(const api::Node& node, const DaemonSet& ds) {
  api::PodSpec spec = ds.spec.template_.spec;
  add_daemon_tolerations(spec);
  if (!spec.nodeName.empty() && spec.nodeName != node.metadata.name) return {false, false};
  if (!fits_node_affinity(spec, node)) return {false, false};
  if (untolerated(spec, node, false)) return {false, !untolerated(spec, node, true)};
  return {true, true};
}

DaemonSetController::DaemonSetController(const ControllerContext& ctx)
    : ctx_(ctx), expectations_(*ctx.clock), recorder_(ctx.events, "daemonset-controller"),
      workers_("daemonset", [this](const std::string& k) { return sync(k); }, *ctx.clock) {
  ds_informer_ = daemon_set_informer(ctx_);
  pod_informer_ = pod_informer(ctx_);
  node_informer_ = node_informer(ctx_);
  rev_informer_ = controller_revision_informer(ctx_);

  auto dh = std::make_shared<informer::ResourceEventHandlerFuncs<DaemonSet>>();
  dh->add = [this](const Ptr<DaemonSet>& d, bool) { enqueue(*d); };
  dh->update = [this](const Ptr<DaemonSet>&, const Ptr<DaemonSet>& d) { enqueue(*d); };
  dh->del = [this](const informer::Deleted<DaemonSet>& d) { workers_.add(d.key); };
  auto r1 = ds_informer_->add_event_handler(dh);
  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  ph->add = [this](const Ptr<api::Pod>& p, bool) { on_pod_event(*p, true, p->metadata.deletionTimestamp.has_value()); };
  ph->update = [this](const Ptr<api::Pod>& o, const Ptr<api::Pod>& p) {
    if (o->metadata.resourceVersion == p->metadata.resourceVersion) return;
    on_pod_event(*p, false, p->metadata.deletionTimestamp.has_value());
  };
  ph->del = [this](const informer::Deleted<api::Pod>& d) {
    if (d.obj) on_pod_event(*d.obj, false, true);
  };
  auto r2 = pod_informer_->add_event_handler(ph);
  auto nh = std::make_shared<informer::ResourceEventHandlerFuncs<api::Node>>();
  nh->add = [this](const Ptr<api::Node>& n, bool) { on_node_change(nullptr, *n); };
  nh->update = [this](const Ptr<api::Node>& o, const Ptr<api::Node>& n) { on_node_change(o.get(), *n); };
  auto r3 = node_informer_->add_event_handler(nh);
  auto r4 = rev_informer_->add_event_handler(std::make_shared<informer::ResourceEventHandlerFuncs<ControllerRevision>>());
  synced_ = {[r1] { return r1->has_synced(); }, [r2] { return r2->has_synced(); },
             [r3] { return r3->has_synced(); }, [r4] { return r4->has_synced(); }};
}

DaemonSetController::~DaemonSetController() { stop(); }
void DaemonSetController::run(int workers) { workers_.start(workers); }
void DaemonSetController::stop() { workers_.stop(); }
bool DaemonSetController::has_synced() const {
  return std::all_of(synced_.begin(), synced_.end(), [](const auto& f) { return f(); });
}

Ptr<DaemonSet> DaemonSetController::resolve_controller(const std::string& ns, const api::OwnerReference& ref) const {
  if (ref.kind != kKind) return nullptr;
  auto d = ds_informer_->lister().get(ns, ref.name);
  if (!d || d->metadata.uid != ref.uid) return nullptr;
  return d;
}

void DaemonSetController::on_pod_event(const api::Pod& pod, bool created, bool deleted) {
  const auto* ref = controller_of(pod.metadata);
  if (!ref) {
    // An orphan: the DaemonSets that select it may adopt it.
    for (const auto& ds : ds_informer_->lister().list_namespace(std::string(pod.metadata.namespace_))) {
      auto sel = selector_of(ds->spec.selector);
      if (!sel.empty() && sel.matches(pod.metadata.labels)) enqueue(*ds);
    }
    return;
  }
  auto ds = resolve_controller(std::string(pod.metadata.namespace_), *ref);
  if (!ds) return;
  auto key = api::key_of(*ds);
  if (deleted) expectations_.deletion_observed(key, api::key_of(pod));
  else if (created) expectations_.creation_observed(key);
  workers_.add(key);
}

void DaemonSetController::on_node_change(const api::Node* old, const api::Node& cur) {
  if (old && old->metadata.labels == cur.metadata.labels && old->spec.taints.size() == cur.spec.taints.size() &&
      old->spec.unschedulable == cur.spec.unschedulable) {
    bool same = true;
    for (std::size_t i = 0; i < cur.spec.taints.size(); ++i) {
      const auto &a = old->spec.taints[i], &b = cur.spec.taints[i];
      same = same && a.key == b.key && a.value == b.value && a.effect == b.effect;
    }
    if (same) return;  // heartbeats and status changes do not move daemon pods
  }
  for (const auto& ds : ds_informer_->lister().list()) {
    auto now = should_run(cur, *ds);
    if (old && should_run(*old, *ds) == now) continue;
    if (!old && !now.first) continue;
    enqueue(*ds);
  }
}

client::Result<DaemonSetController::NodePods> DaemonSetController::node_pods(const DaemonSet& ds) {
  std::vector<Ptr<api::Pod>> candidates;
  for (auto& p : owned_or_orphans(pod_informer_->indexer(), ds.metadata))
    if (!(p->metadata.deletionTimestamp && api::pod_is_terminal(*p))) candidates.push_back(std::move(p));
  ClaimOwner owner{&ds.metadata, std::string(kApiVersion), std::string(kKind)};
  auto claimed = claim_objects<api::Pod>(*ctx_.client, owner, selector_of(ds.spec.selector), candidates, [&] {
    auto fresh = ctx_.client->get<DaemonSet>(ds.metadata.namespace_, ds.metadata.name);
    return fresh && fresh->metadata.uid == ds.metadata.uid && !fresh->metadata.deletionTimestamp;
  });
  if (claimed.error) return *claimed.error;
  NodePods out;
  for (auto& p : claimed.objects) {
    auto node = target_node(*p);
    if (!node.empty()) out[node].push_back(std::move(p));
  }
  return out;
}

client::Result<std::pair<Ptr<ControllerRevision>, std::vector<Ptr<ControllerRevision>>>>
DaemonSetController::construct_history(const DaemonSet& ds) {
  ClaimOwner owner{&ds.metadata, std::string(kApiVersion), std::string(kKind)};
  auto claimed = claim_objects<ControllerRevision>(*ctx_.client, owner, selector_of(ds.spec.selector),
                                                   owned_or_orphans(rev_informer_->indexer(), ds.metadata), [&] {
                                                     auto fresh = ctx_.client->get<DaemonSet>(ds.metadata.namespace_,
                                                                                              ds.metadata.name);
                                                     return fresh && fresh->metadata.uid == ds.metadata.uid &&
                                                            !fresh->metadata.deletionTimestamp;
                                                   });
  if (claimed.error) return *claimed.error;
  std::string patch = history::template_patch(ds.spec.template_);
  std::vector<Ptr<ControllerRevision>> current, old;
  for (auto& rev : claimed.objects) {
    if (!rev->metadata.labels.contains(kRevisionHashLabel)) {
      ControllerRevision u = *rev;
      u.metadata.labels.set(std::string(kRevisionHashLabel), std::string(u.metadata.name));
      auto r = ctx_.client->update(u);
      if (!r) return r.error();
      rev = std::make_shared<const ControllerRevision>(std::move(*r));
    }
    (history::matches(*rev, patch) ? current : old).push_back(rev);
  }
  std::int64_t next = history::max_revision(old) + 1;
  if (current.empty()) {
    // snapshot: a new revision named "<ds>-<template hash>".
    std::string hash = compute_hash(ds.spec.template_, ds.status.collisionCount);
    ControllerRevision cr;
    cr.apiVersion = "apps/v1";
    cr.kind = "ControllerRevision";
    cr.metadata.name = std::string(ds.metadata.name) + "-" + hash;
    cr.metadata.namespace_ = ds.metadata.namespace_;
    cr.metadata.labels = ds.spec.template_.metadata.labels;
    cr.metadata.labels.set(std::string(kRevisionHashLabel), hash);
    cr.metadata.annotations = ds.metadata.annotations;
    cr.metadata.ownerReferences.push_back(new_controller_ref(ds.metadata, kApiVersion, kKind));
    cr.data.text = patch;
    cr.revision = next;
    auto r = ctx_.client->create(cr);
    if (r) return std::make_pair(std::make_shared<const ControllerRevision>(std::move(*r)), old);
    if (!client::is_already_exists(r.error())) return r.error();
    auto existing = ctx_.client->get<ControllerRevision>(cr.metadata.namespace_, cr.metadata.name);
    if (existing && history::matches(*existing, patch))
      return std::make_pair(std::make_shared<const ControllerRevision>(std::move(*existing)), old);
    // A name collision between different templates: bump collisionCount and try again later.
    auto cur = ctx_.client->get<DaemonSet>(ds.metadata.namespace_, ds.metadata.name);
    if (cur && cur->status.collisionCount == ds.status.collisionCount) {
      cur->status.collisionCount = cur->status.collisionCount.value_or(0) + 1;
      (void)ctx_.client->update_status(*cur);
    }
    return r.error();
  }
  // dedupCurHistories: keep the highest revision, point its duplicates' pods at it.
  history::sort_revisions(current);
  Ptr<ControllerRevision> keep = current.back();
  for (std::size_t i = 0; i + 1 < current.size(); ++i) {
    (void)ctx_.client->remove<ControllerRevision>(current[i]->metadata.namespace_, current[i]->metadata.name);
  }
  if (keep->revision < next) {
    ControllerRevision u = *keep;
    u.revision = next;
    auto r = ctx_.client->update(u);
    if (!r) return r.error();
    keep = std::make_shared<const ControllerRevision>(std::move(*r));
  }
  return std::make_pair(keep, old);
}

util::Result<void> DaemonSetController::sync(const std::string& key) {
  auto [ns, name] = api::split_key(key);
  auto cached = ds_informer_->lister().get(std::string(ns), std::string(name));
  if (!cached) {
    expectations_.forget(key);
    return {};
  }
  DaemonSet ds = *cached;
  apply_defaults(ds);
  auto nodes = node_informer_->lister().list();
  std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
    return std::string_view(a->metadata.name) < std::string_view(b->metadata.name);
  });
  if (ds.spec.selector && ds.spec.selector->matchLabels.empty() && ds.spec.selector->matchExpressions.empty()) {
    recorder_.eventf(object_reference(kApiVersion, kKind, ds.metadata), events::kWarning, "SelectingAll",
                     "This daemon set is selecting all pods. A non-empty selector is required.");
    return {};
  }
  // Being deleted: its revisions may be gone already; leave it to the garbage collector.
  if (ds.metadata.deletionTimestamp) return {};
  auto hist = construct_history(ds);
  if (!hist) return sync_error(hist.error());
  std::string hash(hist->first->metadata.labels.get(kRevisionHashLabel));
  if (!expectations_.satisfied(key)) {
    if (auto r = update_status(ds, nodes, hash, false); !r) return sync_error(r.error());
    return {};
  }
  client::Result<void> err = manage(ds, nodes, hash);
  if (err && expectations_.satisfied(key) && ds.spec.updateStrategy.type == "RollingUpdate")
    err = rolling_update(ds, nodes, hash);
  if (err) err = cleanup_history(ds, hist->second);
  auto st = update_status(ds, nodes, hash, true);
  if (!err) return sync_error(err.error());
  if (!st) return sync_error(st.error());
  return {};
}

client::Result<void> DaemonSetController::manage(const DaemonSet& ds, const std::vector<Ptr<api::Node>>& nodes,
                                                 const std::string& hash) {
  auto by_node = node_pods(ds);
  if (!by_node) return by_node.error();
  std::vector<std::string> needing, to_delete;
  auto ref = object_reference(kApiVersion, kKind, ds.metadata);
  for (const auto& node : nodes) {
    auto [run, keep] = should_run(*node, ds);
    auto it = by_node->find(std::string(node->metadata.name));
    bool exists = it != by_node->end();
    if (run && !exists) {
      needing.push_back(std::string(node->metadata.name));
    } else if (keep && exists) {
      std::vector<Ptr<api::Pod>> running;
      for (const auto& p : it->second) {
        if (p->metadata.deletionTimestamp) continue;
        if (p->status.phase == "Failed") {
          recorder_.eventf(ref, events::kWarning, "FailedDaemonPod",
                           "Found failed daemon pod {}/{} on node {}, will try to kill it",
                           std::string(p->metadata.namespace_), std::string(p->metadata.name),
                           std::string(node->metadata.name));
          to_delete.push_back(std::string(p->metadata.name));
        } else if (p->status.phase == "Succeeded") {
          recorder_.eventf(ref, events::kNormal, "SucceededDaemonPod",
                           "Found succeeded daemon pod {}/{} on node {}, will try to delete it",
                           std::string(p->metadata.namespace_), std::string(p->metadata.name),
                           std::string(node->metadata.name));
          to_delete.push_back(std::string(p->metadata.name));
        } else {
          running.push_back(p);
        }
      }
      // More than one running pod on a node: all but the oldest go.
      if (running.size() > 1) {
        sort_by_creation_and_phase(running);
        for (std::size_t i = 1; i < running.size(); ++i) to_delete.push_back(std::string(running[i]->metadata.name));
      }
    } else if (!keep && exists) {
      for (const auto& p : it->second)
        if (!p->metadata.deletionTimestamp) to_delete.push_back(std::string(p->metadata.name));
    }
  }
  // Unscheduled pods aimed at nodes that no longer exist would never be scheduled: they go.
  for (const auto& [node, pods] : *by_node) {
    bool known = std::any_of(nodes.begin(), nodes.end(), [&](const auto& n) { return n->metadata.name == node; });
    if (known) continue;
    for (const auto& p : pods)
      if (p->spec.nodeName.empty() && !p->metadata.deletionTimestamp) to_delete.push_back(std::string(p->metadata.name));
  }
  return sync_nodes(ds, to_delete, needing, hash);
}

client::Result<void> DaemonSetController::sync_nodes(const DaemonSet& ds, const std::vector<std::string>& pods_to_delete,
                                                     const std::vector<std::string>& nodes_needing_pods,
                                                     const std::string& hash) {
  auto key = api::key_of(ds);
  auto ref = object_reference(kApiVersion, kKind, ds.metadata);
  std::size_t create_n = std::min<std::size_t>(nodes_needing_pods.size(), kBurstReplicas);
  std::size_t delete_n = std::min<std::size_t>(pods_to_delete.size(), kBurstReplicas);
  std::vector<std::string> delete_keys;
  for (std::size_t i = 0; i < delete_n; ++i) delete_keys.push_back(std::string(ds.metadata.namespace_) + "/" + pods_to_delete[i]);
  expectations_.expect(key, static_cast<int>(create_n), delete_keys);
  if (create_n > 0) {
    // CreatePodTemplate: tolerations, the template generation and the revision's hash as labels.
    PodTemplateSpec tmpl = ds.spec.template_;
    add_daemon_tolerations(tmpl.spec);
    if (auto g = template_generation(ds)) tmpl.metadata.labels.set(std::string(kTemplateGenerationLabel), std::to_string(*g));
    if (!hash.empty()) tmpl.metadata.labels.set(std::string(kRevisionHashLabel), hash);
    auto owner_ref = new_controller_ref(ds.metadata, kApiVersion, kKind);
    std::vector<api::Pod> pods;
    for (std::size_t i = 0; i < create_n; ++i) {
      api::Pod p = pod_from_template(tmpl, ds.metadata.namespace_, ds.metadata.name, &owner_ref);
      // ReplaceDaemonSetPodNodeNameNodeAffinity: the scheduler places it on this node only.
      api::NodeSelectorRequirement req;
      req.key = "metadata.name";
      req.operator_ = "In";
      req.values = {nodes_needing_pods[i]};
      api::NodeSelectorTerm term;
      term.matchFields.push_back(req);
      auto& aff = p.spec.affinity ? *p.spec.affinity : p.spec.affinity.emplace();
      auto& na = aff.nodeAffinity ? *aff.nodeAffinity : aff.nodeAffinity.emplace();
      if (!na.requiredDuringSchedulingIgnoredDuringExecution) na.requiredDuringSchedulingIgnoredDuringExecution.emplace();
      na.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms = {term};
      pods.push_back(std::move(p));
    }
    std::optional<client::ApiError> first_error;
    int created = create_pods_slow_start(
        *ctx_.client, std::move(pods),
        [&](const api::Pod&, const client::ApiError& e) {
          if (client::has_status_cause(e, "NamespaceTerminating")) return;
          recorder_.eventf(ref, events::kWarning, "FailedCreate", "Error creating: {}", e.message);
          if (!first_error) first_error = e;
        },
        [&](std::string_view pod) { recorder_.eventf(ref, events::kNormal, "SuccessfulCreate", "Created pod: {}", pod); });
    if (int skipped = static_cast<int>(create_n) - created; skipped > 0) expectations_.lower_creations(key, skipped);
    if (first_error) return *first_error;
  }
  if (delete_n > 0) {
    std::vector<std::pair<std::string, std::string>> names;
    for (std::size_t i = 0; i < delete_n; ++i) names.emplace_back(std::string(ds.metadata.namespace_), pods_to_delete[i]);
    auto results = delete_all(*ctx_.client, client::ResourceFor<api::Pod>::info, names);
    std::optional<client::ApiError> first_error;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i]) {
        recorder_.eventf(ref, events::kNormal, "SuccessfulDelete", "Deleted pod: {}", names[i].second);
        continue;
      }
      expectations_.deletion_observed(key, delete_keys[i]);
      if (!first_error) first_error = results[i].error();
    }
    if (first_error) return *first_error;
  }
  return {};
}

client::Result<void> DaemonSetController::rolling_update(const DaemonSet& ds, const std::vector<Ptr<api::Node>>& nodes,
                                                         const std::string& hash) {
  auto by_node = node_pods(ds);
  if (!by_node) return by_node.error();
  int desired = 0;
  for (const auto& n : nodes)
    if (should_run(*n, ds).first) ++desired;
  const auto& ru = ds.spec.updateStrategy.rollingUpdate;
  auto mu = api::scaled_value_from_int_or_percent(ru && ru->maxUnavailable ? &*ru->maxUnavailable : nullptr, desired, true);
  int max_unavailable = mu ? *mu : 1;
  if (max_unavailable == 0) max_unavailable = 1;  // maxSurge 0 too: one at a time
  auto generation = template_generation(ds);
  auto now = api::now(*ctx_.clock);
  int unavailable = 0;
  std::vector<std::string> replace, candidates;
  for (const auto& [node, pods] : *by_node) {
    Ptr<api::Pod> fresh, old;
    bool ok = true;
    for (const auto& p : pods) {
      if (p->metadata.deletionTimestamp) continue;
      auto& slot = pod_updated(*p, hash, generation) ? fresh : old;
      if (slot) ok = false;
      slot = p;
    }
    if (!ok || (!fresh && !old) || (fresh && old)) {
      ++unavailable;  // the main loop sorts this node out
      continue;
    }
    if (fresh) {
      if (!is_pod_available(*fresh, ds.spec.minReadySeconds, now)) ++unavailable;
      continue;
    }
    if (!is_pod_available(*old, ds.spec.minReadySeconds, now)) {
      replace.push_back(std::string(old->metadata.name));
      ++unavailable;
    } else if (unavailable < max_unavailable) {
      candidates.push_back(std::string(old->metadata.name));
    }
  }
  int room = std::clamp(max_unavailable - unavailable, 0, static_cast<int>(candidates.size()));
  replace.insert(replace.end(), candidates.begin(), candidates.begin() + room);
  if (replace.empty()) return {};
  return sync_nodes(ds, replace, {}, hash);
}

client::Result<void> DaemonSetController::cleanup_history(const DaemonSet& ds,
                                                          const std::vector<Ptr<ControllerRevision>>& old) {
  std::int32_t limit = ds.spec.revisionHistoryLimit.value_or(10);
  if (static_cast<std::int32_t>(old.size()) <= limit) return {};
  // Revisions some live pod still runs are kept.
  std::set<std::string> live;
  for (const auto& p : owned_by(pod_informer_->indexer(), ds.metadata.uid))
    live.insert(std::string(p->metadata.labels.get(kRevisionHashLabel)));
  auto sorted = old;
  history::sort_revisions(sorted);
  std::int32_t to_kill = static_cast<std::int32_t>(old.size()) - limit;
  for (const auto& rev : sorted) {
    if (to_kill <= 0) break;
    if (live.count(std::string(rev->metadata.labels.get(kRevisionHashLabel)))) continue;
    auto r = ctx_.client->remove<ControllerRevision>(rev->metadata.namespace_, rev->metadata.name);
    if (!r && !client::is_not_found(r.error())) return r.error();
    --to_kill;
  }
  return {};
}

client::Result<void> DaemonSetController::update_status(const DaemonSet& ds, const std::vector<Ptr<api::Node>>& nodes,
                                                        const std::string& hash, bool observed) {
  auto by_node = node_pods(ds);
  if (!by_node) return by_node.error();
  auto generation = template_generation(ds);
  auto now = api::now(*ctx_.clock);
  DaemonSetStatus st = ds.status;
  st.desiredNumberScheduled = st.currentNumberScheduled = st.numberMisscheduled = st.numberReady = 0;
  st.updatedNumberScheduled = st.numberAvailable = 0;
  for (const auto& node : nodes) {
    bool run = should_run(*node, ds).first;
    auto it = by_node->find(std::string(node->metadata.name));
    bool scheduled = it != by_node->end() && !it->second.empty();
    if (!run) {
      if (scheduled) ++st.numberMisscheduled;
      continue;
    }
    ++st.desiredNumberScheduled;
    if (!scheduled) continue;
    ++st.currentNumberScheduled;
    auto pods = it->second;
    sort_by_creation_and_phase(pods);
    const auto& p = *pods.front();
    if (is_pod_ready(p)) {
      ++st.numberReady;
      if (is_pod_available(p, ds.spec.minReadySeconds, now)) ++st.numberAvailable;
    }
    if (pod_updated(p, hash, generation)) ++st.updatedNumberScheduled;
  }
  st.numberUnavailable = st.desiredNumberScheduled - st.numberAvailable;
  if (observed) st.observedGeneration = ds.metadata.generation;
  const auto& o = ds.status;
  bool same = o.desiredNumberScheduled == st.desiredNumberScheduled &&
              o.currentNumberScheduled == st.currentNumberScheduled && o.numberMisscheduled == st.numberMisscheduled &&
              o.numberReady == st.numberReady && o.updatedNumberScheduled == st.updatedNumberScheduled &&
              o.numberAvailable == st.numberAvailable && o.numberUnavailable == st.numberUnavailable &&
              o.observedGeneration >= ds.metadata.generation;
  if (ds.spec.minReadySeconds > 0 && st.numberReady != st.numberAvailable)
    workers_.add_after(api::key_of(ds), std::chrono::seconds(ds.spec.minReadySeconds));
  if (same) return {};
  DaemonSet next = ds;
  for (int attempt = 0;; ++attempt) {
    auto keep_observed = next.status.observedGeneration;
    next.status = st;
    if (!observed) next.status.observedGeneration = keep_observed;
    auto r = ctx_.client->update_status(next);
    if (r) return {};
    if (attempt >= 1) return r.error();
    auto fresh = ctx_.client->get<DaemonSet>(ds.metadata.namespace_, ds.metadata.name);
    if (!fresh) return fresh.error();
    next = std::move(*fresh);
  }
}

}  // namespace ksched::controllers
