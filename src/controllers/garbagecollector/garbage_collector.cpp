#include "controllers/garbagecollector/garbage_collector.h"

#include <algorithm>
#include <map>

#include <boost/json.hpp>

#include "api/helpers.h"
#include "controllers/controller_utils.h"
#include "controllers/informers.h"
#include "controllers/metadata_informer.h"
#include "util/log.h"

namespace ksched::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kOrphan = "orphan";
constexpr std::string_view kForeground = "foregroundDeletion";

bool has_finalizer(const api::ObjectMeta& m, std::string_view f) {
  return std::find(m.finalizers.begin(), m.finalizers.end(), f) != m.finalizers.end();
}

// The deletion starts waiting on `f` with this event: deleting with the finalizer now, and not before.
bool starts_waiting(const api::ObjectMeta& m, const api::ObjectMeta* old, std::string_view f) {
  if (!m.deletionTimestamp || !has_finalizer(m, f)) return false;
  return !(old && old->deletionTimestamp && has_finalizer(*old, f));
}

bool ignored(const ApiResource& r) {
  return r.resource == "events" && (r.group.empty() || r.group == "events.k8s.io");
}

}  // namespace

GarbageCollector::GarbageCollector(const ControllerContext& ctx)
    : ctx_(ctx),
      delete_workers_("gc-delete", [this](const std::string& uid) { return attempt_to_delete(uid); }, *ctx.clock),
      orphan_workers_("gc-orphan", [this](const std::string& uid) { return attempt_to_orphan(uid); }, *ctx.clock) {
  for (const auto& r : ctx_.discovery->resources()) {
    if (!r.has_verb("list") || !r.has_verb("watch") || !r.has_verb("delete") || ignored(r)) continue;
    // The kinds the other controllers watch typed share their informers; every other resource
    // gets a metadata-only informer of its own.
    if (r.group.empty() && r.resource == "pods") monitor(pod_informer(ctx_), r, false);
    else if (r.group.empty() && r.resource == "nodes") monitor(node_informer(ctx_), r, false);
    else if (r.group == "apps" && r.resource == "replicasets") monitor(replica_set_informer(ctx_), r, false);
    else if (r.group == "apps" && r.resource == "deployments") monitor(deployment_informer(ctx_), r, false);
    else if (r.group == "apps" && r.resource == "daemonsets") monitor(daemon_set_informer(ctx_), r, false);
    else if (r.group == "apps" && r.resource == "statefulsets") monitor(stateful_set_informer(ctx_), r, false);
    else if (r.group == "apps" && r.resource == "controllerrevisions")
      monitor(controller_revision_informer(ctx_), r, false);
    else if (r.group == "batch" && r.resource == "jobs") monitor(job_informer(ctx_), r, false);
    else monitor(new_metadata_informer(ctx_.client, r, std::chrono::milliseconds(0)), r, true);
  }
  // Metadata monitors are the collector's own: they start now, the shared ones with the factory.
  for (auto& inf : own_informers_) inf->start();
}

GarbageCollector::~GarbageCollector() { stop(); }

void GarbageCollector::run(int workers) {
  delete_workers_.start(workers);
  orphan_workers_.start(workers);
}

void GarbageCollector::stop() {
  for (auto& inf : own_informers_) inf->stop();
  delete_workers_.stop();
  orphan_workers_.stop();
}

bool GarbageCollector::has_synced() const {
  return std::all_of(synced_.begin(), synced_.end(), [](const auto& f) { return f(); });
}

std::size_t GarbageCollector::graph_size() const {
  std::lock_guard l(mu_);
  return nodes_.size();
}

template <class T>
void GarbageCollector::monitor(std::shared_ptr<informer::SharedIndexInformer<T>> inf, const ApiResource& r, bool own) {
  auto h = std::make_shared<informer::ResourceEventHandlerFuncs<T>>();
  h->add = [this, r](const Ptr<T>& o, bool) { observe(r, o->metadata, nullptr); };
  h->update = [this, r](const Ptr<T>& old, const Ptr<T>& cur) { observe(r, cur->metadata, &old->metadata); };
  h->del = [this](const informer::Deleted<T>& d) {
    if (d.obj) observe_deleted(d.obj->metadata);
  };
  auto reg = inf->add_event_handler(h, std::chrono::milliseconds(0));
  synced_.push_back([reg] { return reg->has_synced(); });
  if (own) own_informers_.push_back(inf);
}

GarbageCollector::Node* GarbageCollector::add_virtual_owner(const api::OwnerReference& ref, const std::string& ns) {
  auto n = std::make_unique<Node>();
  n->id = Identity{ref.apiVersion, ref.kind, ns, ref.name, ref.uid};
  n->virtual_ = true;
  Node* p = n.get();
  nodes_.emplace(ref.uid, std::move(n));
  return p;
}

void GarbageCollector::observe(const ApiResource& r, const api::ObjectMeta& m, const api::ObjectMeta* old) {
  std::vector<std::string> to_delete, to_orphan;
  {
    std::lock_guard l(mu_);
    std::string uid(m.uid), ns(m.namespace_);
    std::vector<api::OwnerReference> owners(m.ownerReferences.begin(), m.ownerReferences.end());
    auto link = [&](Node* child, const api::OwnerReference& ref) {
      auto it = nodes_.find(ref.uid);
      Node* o;
      if (it == nodes_.end()) {
        o = add_virtual_owner(ref, ns);
        to_delete.push_back(ref.uid);  // does the owner exist at all?
      } else {
        o = it->second.get();
      }
      o->dependents.insert(child);
    };
    Node* n;
    if (auto it = nodes_.find(uid); it == nodes_.end()) {
      auto fresh = std::make_unique<Node>();
      n = fresh.get();
      nodes_.emplace(uid, std::move(fresh));
      n->id = Identity{r.api_version(), r.kind, ns, std::string(m.name), uid};
      n->owners = owners;
      for (const auto& ref : owners) link(n, ref);
    } else {
      n = it->second.get();
      if (n->virtual_) {
        n->virtual_ = false;
        n->id = Identity{r.api_version(), r.kind, ns, std::string(m.name), uid};
      }
      std::map<std::string, const api::OwnerReference*> before, after;
      for (const auto& ref : n->owners) before[ref.uid] = &ref;
      for (const auto& ref : owners) after[ref.uid] = &ref;
      for (const auto& [ouid, ref] : before) {
        auto a = after.find(ouid);
        bool removed = a == after.end();
        bool changed = !removed && !same_owner_ref(*a->second, *ref);
        if (!removed && !changed) continue;
        auto oit = nodes_.find(ouid);
        if (oit == nodes_.end()) continue;
        // An owner waiting for its dependents may go on now that this one no longer blocks it.
        if (oit->second->deleting_dependents) to_delete.push_back(ouid);
        if (removed) oit->second->dependents.erase(n);
      }
      for (const auto& ref : owners)
        if (!before.count(ref.uid)) link(n, ref);
      n->owners = owners;
    }
    if (m.deletionTimestamp) n->being_deleted = true;
    if (starts_waiting(m, old, kOrphan)) {
      to_orphan.push_back(uid);
    } else if (starts_waiting(m, old, kForeground)) {
      n->deleting_dependents = true;
      for (Node* d : n->dependents) to_delete.push_back(d->id.uid);
      to_delete.push_back(uid);
    }
  }
  for (const auto& u : to_delete) delete_workers_.add(u);
  for (const auto& u : to_orphan) orphan_workers_.add(u);
}

void GarbageCollector::remove_node(Node* n) {
  for (const auto& ref : n->owners)
    if (auto it = nodes_.find(ref.uid); it != nodes_.end()) it->second->dependents.erase(n);
  nodes_.erase(n->id.uid);
}

void GarbageCollector::observe_deleted(const api::ObjectMeta& m) {
  std::vector<std::string> to_delete;
  {
    std::lock_guard l(mu_);
    auto it = nodes_.find(std::string(m.uid));
    if (it == nodes_.end()) return;
    Node* n = it->second.get();
    // Its dependents may have lost their last owner; owners deleting in the foreground may be done.
    for (Node* d : n->dependents) to_delete.push_back(d->id.uid);
    for (const auto& ref : n->owners)
      if (auto o = nodes_.find(ref.uid); o != nodes_.end() && o->second->deleting_dependents)
        to_delete.push_back(ref.uid);
    remove_node(n);
  }
  for (const auto& u : to_delete) delete_workers_.add(u);
}

client::Result<std::optional<ObjectMetadata>> GarbageCollector::get_latest(const Identity& id) {
  const ApiResource* r = ctx_.discovery->for_kind(id.api_version, id.kind);
  if (!r) return client::ApiError{0, "NoKindMatch", "unable to get REST mapping for " + id.api_version + "/" + id.kind};
  auto body = ctx_.client->get(r->ref(r->namespaced ? id.ns : std::string(), id.name));
  if (!body) {
    if (client::is_not_found(body.error())) return std::optional<ObjectMetadata>{};
    return body.error();
  }
  auto m = informer::ObjectCodec<ObjectMetadata>::decode(*body);
  if (!m) return client::ApiError{0, "DecodeError", m.error()};
  if (m->metadata.uid != id.uid) return std::optional<ObjectMetadata>{};
  return std::optional<ObjectMetadata>(std::move(*m));
}

client::Result<void> GarbageCollector::remove_finalizer(const Identity& id, std::string_view finalizer) {
  const ApiResource* r = ctx_.discovery->for_kind(id.api_version, id.kind);
  if (!r) return client::ApiError{0, "NoKindMatch", "unable to get REST mapping for " + id.api_version + "/" + id.kind};
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto latest = get_latest(id);
    if (!latest) return latest.error();
    if (!*latest || !has_finalizer((*latest)->metadata, finalizer)) return {};
    json::array rest;
    for (const auto& f : (*latest)->metadata.finalizers)
      if (f != finalizer) rest.emplace_back(json::string(f));
    json::object meta{{"resourceVersion", std::string_view((*latest)->metadata.resourceVersion)}};
    if (rest.empty()) meta["finalizers"] = nullptr;
    else meta["finalizers"] = std::move(rest);
    auto p = ctx_.client->patch(r->ref(r->namespaced ? id.ns : std::string(), id.name), client::PatchType::Merge,
                                json::serialize(json::object{{"metadata", std::move(meta)}}));
    if (p || client::is_not_found(p.error())) return {};
    if (!client::is_conflict(p.error())) return p.error();
  }
  return client::ApiError{409, "Conflict", "removing finalizer " + std::string(finalizer) + " from " + id.name};
}

client::Result<void> GarbageCollector::process_deleting_dependents(const std::string& uid) {
  Identity id;
  std::vector<std::string> blocking_alive;
  bool blocked = false;
  {
    std::lock_guard l(mu_);
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) return {};
    id = it->second->id;
    for (Node* d : it->second->dependents) {
      for (const auto& ref : d->owners) {
        if (ref.uid != uid || !ref.blockOwnerDeletion.value_or(false)) continue;
        blocked = true;
        if (!d->deleting_dependents) blocking_alive.push_back(d->id.uid);
      }
    }
  }
  if (!blocked) return remove_finalizer(id, kForeground);
  for (const auto& u : blocking_alive) delete_workers_.add(u);
  return {};
}

util::Result<void> GarbageCollector::attempt_to_delete(const std::string& uid) {
  Identity id;
  bool deleting_dependents = false;
  std::size_t dependents = 0;
  bool dependent_deleting_dependents = false;
  {
    std::lock_guard l(mu_);
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) return {};
    Node* n = it->second.get();
    if (n->being_deleted && !n->deleting_dependents) return {};
    id = n->id;
    deleting_dependents = n->deleting_dependents;
    dependents = n->dependents.size();
    for (Node* d : n->dependents) dependent_deleting_dependents = dependent_deleting_dependents || d->deleting_dependents;
  }
  auto latest = get_latest(id);
  if (!latest) return sync_error(latest.error());
  if (!*latest) {
    // Gone (or a different object under the name): drop the node as if its deletion had been
    // observed, so its dependents are looked at.
    api::ObjectMeta gone;
    gone.uid = id.uid;
    observe_deleted(gone);
    return {};
  }
  const ObjectMetadata& obj = **latest;
  if (deleting_dependents) {
    if (auto r = process_deleting_dependents(uid); !r) return sync_error(r.error());
    return {};
  }
  const auto& owners = obj.metadata.ownerReferences;
  if (owners.empty()) return {};

  // classifyReferences: solid (there), dangling (gone), waiting (deleting its dependents).
  std::vector<std::string> dangling_or_waiting;
  int solid = 0, waiting = 0;
  for (const auto& ref : owners) {
    const ApiResource* r = ctx_.discovery->for_kind(ref.apiVersion, ref.kind);
    if (!r) return util::make_error("unable to get REST mapping for " + ref.apiVersion + "/" + ref.kind);
    auto body = ctx_.client->get(r->ref(r->namespaced ? id.ns : std::string(), ref.name));
    if (!body && !client::is_not_found(body.error())) return sync_error(body.error());
    std::optional<ObjectMetadata> owner;
    if (body) {
      auto m = informer::ObjectCodec<ObjectMetadata>::decode(*body);
      if (!m) return util::make_error(m.error());
      owner = std::move(*m);
    }
    if (!owner || owner->metadata.uid != ref.uid) {
      dangling_or_waiting.push_back(ref.uid);
    } else if (owner->metadata.deletionTimestamp && has_finalizer(owner->metadata, kForeground)) {
      dangling_or_waiting.push_back(ref.uid);
      ++waiting;
    } else {
      ++solid;
    }
  }
  const ApiResource* self = ctx_.discovery->for_kind(id.api_version, id.kind);
  if (!self) return util::make_error("unable to get REST mapping for " + id.api_version + "/" + id.kind);
  auto ref = self->ref(self->namespaced ? id.ns : std::string(), id.name);

  if (solid > 0) {
    if (dangling_or_waiting.empty()) return {};
    // Drop the references to owners that are gone or deleting their dependents, or those owners
    // would wait on this object for ever.
    json::array refs;
    for (const auto& u : dangling_or_waiting) refs.push_back(json::object{{"$patch", "delete"}, {"uid", u}});
    auto p = ctx_.client->patch(ref, client::PatchType::StrategicMerge,
                                json::serialize(json::object{
                                    {"metadata", json::object{{"ownerReferences", std::move(refs)}, {"uid", id.uid}}}}));
    if (!p && !client::is_not_found(p.error())) return sync_error(p.error());
    return {};
  }
  std::string policy;
  if (waiting > 0 && dependents > 0) {
    if (dependent_deleting_dependents) {
      // A cycle of foreground deletions: stop blocking the owners so that neither waits for ever.
      json::array refs;
      for (const auto& o : owners)
        if (o.blockOwnerDeletion.value_or(false))
          refs.push_back(json::object{{"uid", std::string_view(o.uid)}, {"blockOwnerDeletion", false}});
      if (!refs.empty()) {
        auto p = ctx_.client->patch(ref, client::PatchType::StrategicMerge,
                                    json::serialize(json::object{{"metadata", json::object{{"ownerReferences", std::move(refs)},
                                                                                           {"uid", id.uid}}}}));
        if (!p && !client::is_not_found(p.error())) return sync_error(p.error());
      }
    }
    policy = "Foreground";
  } else if (has_finalizer(obj.metadata, kOrphan)) {
    policy = "Orphan";
  } else if (has_finalizer(obj.metadata, kForeground)) {
    policy = "Foreground";
  } else {
    policy = "Background";
  }
  client::DeleteOptions d;
  d.propagationPolicy = policy;
  d.preconditionUID = id.uid;
  d.preconditionResourceVersion = obj.metadata.resourceVersion;
  auto r = ctx_.client->remove(ref, d);
  if (!r && client::is_conflict(r.error())) {
    // Changed meanwhile: delete anyway if its owners did not change.
    auto now = get_latest(id);
    if (now && !*now) return {};
    if (now && *now && same_owner_refs((*now)->metadata.ownerReferences, obj.metadata.ownerReferences)) {
      d.preconditionResourceVersion.clear();
      r = ctx_.client->remove(ref, d);
    }
  }
  if (!r && !client::is_not_found(r.error())) return sync_error(r.error());
  log::V(2).info("Deleted an object whose owners are gone",
                 {{"object", id.ns + "/" + id.name}, {"kind", id.kind}, {"propagationPolicy", policy}});
  return {};
}

util::Result<void> GarbageCollector::attempt_to_orphan(const std::string& uid) {
  Identity id;
  std::vector<Identity> deps;
  {
    std::lock_guard l(mu_);
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) return {};
    id = it->second->id;
    for (Node* d : it->second->dependents) deps.push_back(d->id);
  }
  for (const auto& d : deps) {
    const ApiResource* r = ctx_.discovery->for_kind(d.api_version, d.kind);
    if (!r) return util::make_error("unable to get REST mapping for " + d.api_version + "/" + d.kind);
    auto p = ctx_.client->patch(r->ref(r->namespaced ? d.ns : std::string(), d.name), client::PatchType::StrategicMerge,
                                release_patch(uid, d.uid));
    if (!p && !client::is_not_found(p.error())) return sync_error(p.error());
  }
  if (auto r = remove_finalizer(id, kOrphan); !r) return sync_error(r.error());
  return {};
}

}  // namespace ksched::controllers
