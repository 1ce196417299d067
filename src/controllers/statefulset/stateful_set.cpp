#include "controllers/statefulset/stateful_set.h"

#include <algorithm>
#include <charconv>
#include <set>

#include <boost/json.hpp>

#include "api/codec.h"
#include "api/helpers.h"
#include "controllers/history/history.h"
#include "controllers/informers.h"
#include "util/log.h"

namespace ksched::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kApiVersion = "apps/v1";
constexpr std::string_view kKind = "StatefulSet";
constexpr std::string_view kPodNameLabel = "statefulset.kubernetes.io/pod-name";
constexpr std::string_view kPodIndexLabel = "apps.kubernetes.io/pod-index";
constexpr std::string_view kRevisionLabel = "controller-revision-hash";

// SetDefaults_StatefulSet.
void apply_defaults(StatefulSet& s) {
  if (!s.spec.replicas) s.spec.replicas = 1;
  if (s.spec.podManagementPolicy.empty()) s.spec.podManagementPolicy = "OrderedReady";
  auto& u = s.spec.updateStrategy;
  if (u.type.empty()) u.type = "RollingUpdate";
  if (u.type == "RollingUpdate") {
    if (!u.rollingUpdate) u.rollingUpdate.emplace();
    if (!u.rollingUpdate->partition) u.rollingUpdate->partition = 0;
  }
  if (!s.spec.revisionHistoryLimit) s.spec.revisionHistoryLimit = 10;
}

int start_ordinal(const StatefulSet& s) { return s.spec.ordinals ? s.spec.ordinals->start : 0; }

// "<set>-<ordinal>" -> ordinal, -1 when the name is not of the set.
int ordinal_of(const StatefulSet& s, const api::Pod& p) {
  std::string_view n(p.metadata.name);
  auto dash = n.rfind('-');
  if (dash == std::string_view::npos || n.substr(0, dash) != std::string_view(s.metadata.name)) return -1;
  auto digits = n.substr(dash + 1);
  int ord = -1;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), ord);
  if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size()) return -1;
  return ord;
}

bool is_created(const api::Pod& p) { return !p.status.phase.empty(); }
bool is_terminating(const api::Pod& p) { return p.metadata.deletionTimestamp.has_value(); }
bool running_and_ready(const api::Pod& p) { return p.status.phase == "Running" && is_pod_ready(p); }
bool healthy(const api::Pod& p) { return running_and_ready(p) && !is_terminating(p); }
std::string revision_of(const api::Pod& p) { return std::string(p.metadata.labels.get(kRevisionLabel)); }

// The template a revision recorded (ApplyRevision of its "$patch": "replace" patch).
PodTemplateSpec template_of(const ControllerRevision& rev, const PodTemplateSpec& fallback) {
  json::error_code ec;
  auto v = json::parse(std::string_view(rev.data.text), ec);
  if (ec || !v.is_object()) return fallback;
  auto* spec = v.get_object().if_contains("spec");
  if (!spec || !spec->is_object()) return fallback;
  auto* t = spec->get_object().if_contains("template");
  if (!t || !t->is_object()) return fallback;
  t->get_object().erase("$patch");
  auto decoded = api::decode<PodTemplateSpec>(json::serialize(*t));
  return decoded ? std::move(*decoded) : fallback;
}

}  // namespace

struct StatefulSetController::Revisions {
  Ptr<ControllerRevision> current, update;
  PodTemplateSpec current_template, update_template;
  std::int32_t collision_count = 0;
  std::vector<Ptr<ControllerRevision>> all;
};

StatefulSetController::StatefulSetController(const ControllerContext& ctx)
    : ctx_(ctx), recorder_(ctx.events, "statefulset-controller"),
      workers_("statefulset", [this](const std::string& k) { return sync(k); }, *ctx.clock) {
  set_informer_ = stateful_set_informer(ctx_);
  pod_informer_ = pod_informer(ctx_);
  rev_informer_ = controller_revision_informer(ctx_);
  auto sh = std::make_shared<informer::ResourceEventHandlerFuncs<StatefulSet>>();
  sh->add = [this](const Ptr<StatefulSet>& s, bool) { workers_.add(api::key_of(*s)); };
  sh->update = [this](const Ptr<StatefulSet>&, const Ptr<StatefulSet>& s) { workers_.add(api::key_of(*s)); };
  sh->del = [this](const informer::Deleted<StatefulSet>& d) { workers_.add(d.key); };
  auto r1 = set_informer_->add_event_handler(sh);
  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  ph->add = [this](const Ptr<api::Pod>& p, bool) { on_pod_event(nullptr, *p); };
  ph->update = [this](const Ptr<api::Pod>& o, const Ptr<api::Pod>& p) {
    if (o->metadata.resourceVersion != p->metadata.resourceVersion) on_pod_event(o.get(), *p);
  };
  ph->del = [this](const informer::Deleted<api::Pod>& d) {
    if (d.obj) on_pod_event(nullptr, *d.obj);
  };
  auto r2 = pod_informer_->add_event_handler(ph);
  auto r3 = rev_informer_->add_event_handler(std::make_shared<informer::ResourceEventHandlerFuncs<ControllerRevision>>());
  synced_ = {[r1] { return r1->has_synced(); }, [r2] { return r2->has_synced(); }, [r3] { return r3->has_synced(); }};
}

StatefulSetController::~StatefulSetController() { stop(); }
void StatefulSetController::run(int workers) { workers_.start(workers); }
void StatefulSetController::stop() { workers_.stop(); }
bool StatefulSetController::has_synced() const {
  return std::all_of(synced_.begin(), synced_.end(), [](const auto& f) { return f(); });
}

Ptr<StatefulSet> StatefulSetController::resolve_controller(const std::string& ns, const api::OwnerReference& ref) const {
  if (ref.kind != kKind) return nullptr;
  auto s = set_informer_->lister().get(ns, ref.name);
  if (!s || s->metadata.uid != ref.uid) return nullptr;
  return s;
}

void StatefulSetController::on_pod_event(const api::Pod* old, const api::Pod& pod) {
  const auto* ref = controller_of(pod.metadata);
  if (!ref) {
    for (const auto& s : set_informer_->lister().list_namespace(std::string(pod.metadata.namespace_))) {
      auto sel = selector_of(s->spec.selector);
      if (!sel.empty() && sel.matches(pod.metadata.labels)) workers_.add(api::key_of(*s));
    }
    return;
  }
  auto set = resolve_controller(std::string(pod.metadata.namespace_), *ref);
  if (!set) return;
  workers_.add(api::key_of(*set));
  if (old && !is_pod_ready(*old) && is_pod_ready(pod) && set->spec.minReadySeconds > 0)
    workers_.add_after(api::key_of(*set), std::chrono::seconds(set->spec.minReadySeconds) + std::chrono::seconds(1));
}

client::Result<StatefulSetController::Revisions> StatefulSetController::revisions(const StatefulSet& set) {
  ClaimOwner owner{&set.metadata, std::string(kApiVersion), std::string(kKind)};
  auto claimed = claim_objects<ControllerRevision>(*ctx_.client, owner, selector_of(set.spec.selector),
                                                   owned_or_orphans(rev_informer_->indexer(), set.metadata), [&] {
                                                     auto fresh = ctx_.client->get<StatefulSet>(set.metadata.namespace_,
                                                                                                set.metadata.name);
                                                     return fresh && fresh->metadata.uid == set.metadata.uid &&
                                                            !fresh->metadata.deletionTimestamp;
                                                   });
  if (claimed.error) return *claimed.error;
  Revisions r;
  r.all = claimed.objects;
  history::sort_revisions(r.all);
  r.collision_count = set.status.collisionCount.value_or(0);
  std::string patch = history::template_patch(set.spec.template_);
  std::int64_t next = r.all.empty() ? 1 : history::max_revision(r.all) + 1;
  std::vector<Ptr<ControllerRevision>> equal;
  for (const auto& rev : r.all)
    if (history::matches(*rev, patch)) equal.push_back(rev);
  if (!equal.empty() && equal.back() == r.all.back()) {
    r.update = r.all.back();  // unchanged since the last revision
  } else if (!equal.empty()) {
    // Back to an older template: that revision becomes the newest.
    ControllerRevision u = *equal.back();
    u.revision = next;
    auto up = ctx_.client->update(u);
    if (!up) return up.error();
    r.update = std::make_shared<const ControllerRevision>(std::move(*up));
  } else {
    for (;;) {
      auto cr = history::new_revision(set.metadata, kApiVersion, kKind, set.spec.template_.metadata.labels, patch, next,
                                      r.collision_count);
      cr.metadata.annotations = set.metadata.annotations;
      auto c = ctx_.client->create(cr);
      if (c) {
        r.update = std::make_shared<const ControllerRevision>(std::move(*c));
        break;
      }
      if (!client::is_already_exists(c.error())) return c.error();
      auto existing = ctx_.client->get<ControllerRevision>(cr.metadata.namespace_, cr.metadata.name);
      if (existing && history::matches(*existing, patch)) {
        r.update = std::make_shared<const ControllerRevision>(std::move(*existing));
        break;
      }
      ++r.collision_count;  // a different template under the same hash
    }
  }
  for (const auto& rev : r.all)
    if (rev->metadata.name == set.status.currentRevision) r.current = rev;
  if (!r.current) r.current = r.update;
  r.current_template = template_of(*r.current, set.spec.template_);
  r.update_template = template_of(*r.update, set.spec.template_);
  return r;
}

api::Pod StatefulSetController::new_pod(const StatefulSet& set, const Revisions& revs, int ordinal) const {
  // newVersionedStatefulSetPod: ordinals below the partition keep the current revision.
  bool current = false;
  if (set.spec.updateStrategy.type == "RollingUpdate") {
    const auto& ru = set.spec.updateStrategy.rollingUpdate;
    int partition = ru && ru->partition ? *ru->partition : 0;
    current = ordinal < partition + start_ordinal(set);
  }
  const PodTemplateSpec& tmpl = current ? revs.current_template : revs.update_template;
  auto ref = new_controller_ref(set.metadata, kApiVersion, kKind);
  api::Pod p = pod_from_template(tmpl, set.metadata.namespace_, set.metadata.name, &ref);
  std::string name = std::string(set.metadata.name) + "-" + std::to_string(ordinal);
  p.metadata.generateName = api::ThinString();
  p.metadata.name = name;
  // initIdentity: the pod-name and pod-index labels, hostname and subdomain.
  p.metadata.labels.set(std::string(kPodNameLabel), name);
  p.metadata.labels.set(std::string(kPodIndexLabel), std::to_string(ordinal));
  p.metadata.labels.set(std::string(kRevisionLabel),
                        std::string((current ? revs.current : revs.update)->metadata.name));
  api::ExtraFields extra;
  for (auto [k, raw] : p.spec.extra.fields)
    if (k != "hostname" && k != "subdomain") extra.emplace_back(k, raw);
  std::string h, sub;
  api::detail::append_json_string(h, name);
  extra.emplace_back("hostname", h);
  if (!set.spec.serviceName.empty()) {
    api::detail::append_json_string(sub, set.spec.serviceName);
    extra.emplace_back("subdomain", sub);
  }
  p.spec.extra.fields = std::move(extra);
  // updateStorage: each claim template becomes the pod's volume of that name.
  for (const auto& claim : set.spec.volumeClaimTemplates) {
    std::string claim_name = std::string(claim.metadata.name) + "-" + name;
    std::erase_if(p.spec.volumes, [&](const api::Volume& v) { return v.name == claim.metadata.name; });
    api::Volume v;
    v.name = claim.metadata.name;
    v.persistentVolumeClaim.emplace();
    v.persistentVolumeClaim->claimName = claim_name;
    p.spec.volumes.push_back(std::move(v));
  }
  return p;
}

client::Result<void> StatefulSetController::create_pod(const StatefulSet& set, const api::Pod& pod) {
  auto ref = object_reference(kApiVersion, kKind, set.metadata);
  for (const auto& tmpl : set.spec.volumeClaimTemplates) {
    api::PersistentVolumeClaim claim = tmpl;
    claim.apiVersion = "v1";
    claim.kind = "PersistentVolumeClaim";
    claim.metadata.name = std::string(tmpl.metadata.name) + "-" + std::string(pod.metadata.name);
    claim.metadata.namespace_ = set.metadata.namespace_;
    if (set.spec.selector)
      for (const auto& [k, v] : set.spec.selector->matchLabels) claim.metadata.labels.set(k, v);
    auto existing = ctx_.client->get<api::PersistentVolumeClaim>(claim.metadata.namespace_, claim.metadata.name);
    if (existing) continue;
    if (!client::is_not_found(existing.error())) return existing.error();
    auto c = ctx_.client->create(claim);
    if (!c && !client::is_already_exists(c.error())) {
      recorder_.eventf(ref, events::kWarning, "FailedCreate", "create Claim {} for Pod {} in StatefulSet {} failed error: {}",
                       std::string(claim.metadata.name), std::string(pod.metadata.name),
                       std::string(set.metadata.name), c.error().message);
      return c.error();
    }
    if (c)
      recorder_.eventf(ref, events::kNormal, "SuccessfulCreate", "create Claim {} Pod {} in StatefulSet {} success",
                       std::string(claim.metadata.name), std::string(pod.metadata.name), std::string(set.metadata.name));
  }
  auto c = ctx_.client->create(pod);
  if (!c) {
    if (client::is_already_exists(c.error())) return {};  // our cache was behind
    recorder_.eventf(ref, events::kWarning, "FailedCreate", "create Pod {} in StatefulSet {} failed error: {}",
                     std::string(pod.metadata.name), std::string(set.metadata.name), c.error().message);
    return c.error();
  }
  recorder_.eventf(ref, events::kNormal, "SuccessfulCreate", "create Pod {} in StatefulSet {} successful",
                   std::string(pod.metadata.name), std::string(set.metadata.name));
  return {};
}

client::Result<void> StatefulSetController::delete_pod(const StatefulSet& set, const api::Pod& pod) {
  auto ref = object_reference(kApiVersion, kKind, set.metadata);
  auto r = ctx_.client->remove<api::Pod>(pod.metadata.namespace_, pod.metadata.name);
  if (!r && !client::is_not_found(r.error())) {
    recorder_.eventf(ref, events::kWarning, "FailedDelete", "delete Pod {} in StatefulSet {} failed error: {}",
                     std::string(pod.metadata.name), std::string(set.metadata.name), r.error().message);
    return r.error();
  }
  recorder_.eventf(ref, events::kNormal, "SuccessfulDelete", "delete Pod {} in StatefulSet {} successful",
                   std::string(pod.metadata.name), std::string(set.metadata.name));
  return {};
}

client::Result<StatefulSetStatus> StatefulSetController::update_set(const StatefulSet& set, const Revisions& revs,
                                                                     std::vector<Ptr<api::Pod>> pods) {
  StatefulSetStatus status;
  status.observedGeneration = set.metadata.generation;
  status.currentRevision = revs.current->metadata.name;
  status.updateRevision = revs.update->metadata.name;
  status.collisionCount = revs.collision_count;
  auto now = api::now(*ctx_.clock);
  std::string cur_name(revs.current->metadata.name), upd_name(revs.update->metadata.name);
  for (const auto& p : pods) {
    ++status.replicas;
    if (running_and_ready(*p)) {
      ++status.readyReplicas;
      if (is_pod_available(*p, set.spec.minReadySeconds, now)) ++status.availableReplicas;
    }
    if (!is_terminating(*p)) {
      if (revision_of(*p) == cur_name) ++status.currentReplicas;
      if (revision_of(*p) == upd_name) ++status.updatedReplicas;
    }
  }
  const int first = start_ordinal(set);
  const int count = *set.spec.replicas;
  std::vector<std::optional<api::Pod>> replicas(static_cast<std::size_t>(count));
  std::vector<Ptr<api::Pod>> condemned;
  for (const auto& p : pods) {
    int ord = ordinal_of(set, *p);
    if (ord >= first && ord < first + count) replicas[static_cast<std::size_t>(ord - first)] = *p;
    else if (ord >= 0) condemned.push_back(p);
  }
  for (int i = 0; i < count; ++i)
    if (!replicas[static_cast<std::size_t>(i)]) replicas[static_cast<std::size_t>(i)] = new_pod(set, revs, first + i);
  std::sort(condemned.begin(), condemned.end(),
            [&](const Ptr<api::Pod>& a, const Ptr<api::Pod>& b) { return ordinal_of(set, *a) > ordinal_of(set, *b); });
  const api::Pod* first_unhealthy = nullptr;
  for (const auto& r : replicas)
    if (!healthy(*r) && !first_unhealthy) first_unhealthy = &*r;
  for (auto it = condemned.rbegin(); it != condemned.rend(); ++it)
    if (!healthy(**it) && !first_unhealthy) first_unhealthy = it->get();
  if (set.metadata.deletionTimestamp) return status;

  const bool monotonic = set.spec.podManagementPolicy != "Parallel";
  for (int i = 0; i < count; ++i) {
    auto& pod = *replicas[static_cast<std::size_t>(i)];
    if (pod.status.phase == "Failed" || pod.status.phase == "Succeeded") {
      recorder_.eventf(object_reference(kApiVersion, kKind, set.metadata), events::kWarning, "RecreatingFailedPod",
                       "StatefulSet {}/{} is recreating failed Pod {}", std::string(set.metadata.namespace_),
                       std::string(set.metadata.name), std::string(pod.metadata.name));
      if (auto r = delete_pod(set, pod); !r) return r.error();
      if (revision_of(pod) == cur_name) --status.currentReplicas;
      if (revision_of(pod) == upd_name) --status.updatedReplicas;
      --status.replicas;
      pod = new_pod(set, revs, first + i);
    }
    if (!is_created(pod)) {
      if (auto r = create_pod(set, pod); !r) return r.error();
      ++status.replicas;
      if (revision_of(pod) == cur_name) ++status.currentReplicas;
      if (revision_of(pod) == upd_name) ++status.updatedReplicas;
      if (monotonic) return status;  // one at a time
      continue;
    }
    if (is_terminating(pod) && monotonic) return status;
    if (!running_and_ready(pod) && monotonic) return status;
    if (!is_pod_available(pod, set.spec.minReadySeconds, now) && monotonic) return status;
    // identityMatches: labels the set relies on were lost? Put them back.
    std::string name = std::string(set.metadata.name) + "-" + std::to_string(first + i);
    if (pod.metadata.labels.get(kPodNameLabel) != name ||
        pod.metadata.labels.get(kPodIndexLabel) != std::to_string(first + i)) {
      json::object labels{{std::string(kPodNameLabel), name}, {std::string(kPodIndexLabel), std::to_string(first + i)}};
      auto r = ctx_.client->patch<api::Pod>(pod.metadata.namespace_, pod.metadata.name, client::PatchType::Merge,
                                            json::serialize(json::object{{"metadata", json::object{{"labels", labels}}}}));
      if (!r && !client::is_not_found(r.error())) return r.error();
    }
  }
  // Scale down, highest ordinal first, once everything before is healthy.
  for (const auto& victim : condemned) {
    if (is_terminating(*victim)) {
      if (monotonic) return status;
      continue;
    }
    if (monotonic && victim.get() != first_unhealthy &&
        (!running_and_ready(*victim) || !is_pod_available(*victim, set.spec.minReadySeconds, now)))
      return status;
    if (auto r = delete_pod(set, *victim); !r) return r.error();
    if (revision_of(*victim) == cur_name) --status.currentReplicas;
    if (revision_of(*victim) == upd_name) --status.updatedReplicas;
    if (monotonic) return status;
  }
  if (set.spec.updateStrategy.type == "OnDelete") return status;
  // Rolling update: the highest ordinal not at the update revision goes (it comes back updated).
  const auto& ru = set.spec.updateStrategy.rollingUpdate;
  int partition = ru && ru->partition ? *ru->partition : 0;
  for (int target = count - 1; target >= partition; --target) {
    const auto& pod = *replicas[static_cast<std::size_t>(target)];
    if (revision_of(pod) != upd_name && !is_terminating(pod)) {
      if (auto r = delete_pod(set, pod); !r) return r.error();
      --status.currentReplicas;
      return status;
    }
    if (!healthy(pod)) return status;
  }
  return status;
}

util::Result<void> StatefulSetController::sync(const std::string& key) {
  auto [ns, name] = api::split_key(key);
  auto cached = set_informer_->lister().get(std::string(ns), std::string(name));
  if (!cached) return {};
  StatefulSet set = *cached;
  apply_defaults(set);
  auto selector = selector_of(set.spec.selector);
  ClaimOwner owner{&set.metadata, std::string(kApiVersion), std::string(kKind)};
  std::vector<Ptr<api::Pod>> candidates;
  for (auto& p : owned_or_orphans(pod_informer_->indexer(), set.metadata))
    if (ordinal_of(set, *p) >= 0 || controller_of(p->metadata)) candidates.push_back(std::move(p));
  auto claimed = claim_objects<api::Pod>(*ctx_.client, owner, selector, candidates, [&] {
    auto fresh = ctx_.client->get<StatefulSet>(ns, name);
    return fresh && fresh->metadata.uid == set.metadata.uid && !fresh->metadata.deletionTimestamp;
  });
  if (claimed.error) return sync_error(*claimed.error);
  auto revs = revisions(set);
  if (!revs) return sync_error(revs.error());
  auto status = update_set(set, *revs, claimed.objects);
  if (!status) return sync_error(status.error());
  // completeRollingUpdate: every pod updated and ready makes the update revision current.
  if (set.spec.updateStrategy.type == "RollingUpdate" && status->updatedReplicas == status->replicas &&
      status->readyReplicas == status->replicas) {
    status->currentReplicas = status->updatedReplicas;
    status->currentRevision = status->updateRevision;
  }
  const auto& o = set.status;
  bool same = o.observedGeneration == status->observedGeneration && o.replicas == status->replicas &&
              o.readyReplicas == status->readyReplicas && o.currentReplicas == status->currentReplicas &&
              o.updatedReplicas == status->updatedReplicas && o.availableReplicas == status->availableReplicas &&
              o.currentRevision == status->currentRevision && o.updateRevision == status->updateRevision &&
              o.collisionCount == status->collisionCount;
  if (!same) {
    StatefulSet next = *cached;
    for (int attempt = 0;; ++attempt) {
      status->extra = next.status.extra;  // conditions: not ours to drop
      next.status = *status;
      auto r = ctx_.client->update_status(next);
      if (r) break;
      if (attempt >= 1 || !client::is_conflict(r.error())) return sync_error(r.error());
      auto fresh = ctx_.client->get<StatefulSet>(ns, name);
      if (!fresh) return sync_error(fresh.error());
      next = std::move(*fresh);
    }
  }
  if (set.spec.minReadySeconds > 0 && status->readyReplicas != status->availableReplicas)
    workers_.add_after(key, std::chrono::seconds(set.spec.minReadySeconds));
  // truncateHistory: keep revisionHistoryLimit revisions besides the live ones.
  std::set<std::string> live{status->currentRevision, status->updateRevision};
  for (const auto& p : claimed.objects) live.insert(revision_of(*p));
  std::vector<Ptr<ControllerRevision>> dead;
  for (const auto& rev : revs->all)
    if (!live.count(std::string(rev->metadata.name))) dead.push_back(rev);
  std::int32_t limit = *set.spec.revisionHistoryLimit;
  for (std::size_t i = 0; static_cast<std::int32_t>(dead.size() - i) > limit; ++i) {
    auto r = ctx_.client->remove<ControllerRevision>(dead[i]->metadata.namespace_, dead[i]->metadata.name);
    if (!r && !client::is_not_found(r.error())) return sync_error(r.error());
  }
  return {};
}

}  // namespace ksched::controllers
