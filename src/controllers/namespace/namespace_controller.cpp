#include "controllers/namespace/namespace_controller.h"

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

constexpr std::string_view kFinalizer = "kubernetes";
constexpr std::int64_t kFinalizerEstimateSeconds = 15;

// The deletion conditions, in upstream's order, with their "all is well" reason and message.
struct ConditionKind {
  std::string_view type, ok_reason, ok_message;
};
constexpr ConditionKind kConditions[] = {
    {"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"},
    {"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
    {"NamespaceDeletionContentFailure", "ContentDeleted",
     "All content successfully deleted, may be waiting on finalization"},
    {"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
    {"NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
};

client::Result<json::object> get_namespace(client::RestClient& c, const std::string& name) {
  auto body = c.get(client::ResourceRef{.resource = "namespaces", .name = name});
  if (!body) return body.error();
  json::error_code ec;
  auto v = json::parse(*body, ec);
  if (ec || !v.is_object()) return client::ApiError{0, "DecodeError", "namespace " + name + " is not a JSON object"};
  return std::move(v.get_object());
}

json::object* object_at(json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

std::vector<std::string> spec_finalizers(json::object& ns) {
  std::vector<std::string> out;
  if (auto* spec = object_at(ns, "spec"))
    if (auto* f = spec->if_contains("finalizers"); f && f->is_array())
      for (const auto& x : f->get_array())
        if (x.is_string()) out.emplace_back(x.get_string());
  return out;
}

}  // namespace

NamespaceController::NamespaceController(const ControllerContext& ctx)
    : ctx_(ctx), workers_("namespace", [this](const std::string& k) { return sync(k); }, *ctx.clock) {
  informer::InformerOptions<api::Namespace> o;
  o.reflector.decode.dropManagedFields = true;
  ns_informer_ = ctx_.informers->informer_for<api::Namespace>(std::move(o));
  auto h = std::make_shared<informer::ResourceEventHandlerFuncs<api::Namespace>>();
  h->add = [this](const Ptr<api::Namespace>& n, bool) {
    if (n->metadata.deletionTimestamp) workers_.add(std::string(n->metadata.name));
  };
  h->update = [this](const Ptr<api::Namespace>&, const Ptr<api::Namespace>& n) {
    if (n->metadata.deletionTimestamp) workers_.add(std::string(n->metadata.name));
  };
  auto r1 = ns_informer_->add_event_handler(h);
  // Not upstream: the last pods of a terminating namespace going away is worth a look at once,
  // rather than after half their grace period.
  pod_informer_ = pod_informer(ctx_);
  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  ph->del = [this](const informer::Deleted<api::Pod>& d) {
    if (!d.obj) return;
    auto ns = ns_informer_->lister().get(std::string(d.obj->metadata.namespace_));
    if (ns && ns->metadata.deletionTimestamp) workers_.add(std::string(ns->metadata.name));
  };
  auto r2 = pod_informer_->add_event_handler(ph);
  synced_ = {[r1] { return r1->has_synced(); }, [r2] { return r2->has_synced(); }};
}

NamespaceController::~NamespaceController() { stop(); }
void NamespaceController::run(int workers) { workers_.start(workers); }
void NamespaceController::stop() { workers_.stop(); }
bool NamespaceController::has_synced() const {
  return std::all_of(synced_.begin(), synced_.end(), [](const auto& f) { return f(); });
}

client::Result<std::int64_t> NamespaceController::delete_all_content(const std::string& ns) {
  std::int64_t estimate = 0;
  std::vector<std::string> errors;
  std::vector<std::string> remaining;
  std::map<std::string, int> finalizers_remaining;
  client::DeleteOptions background;
  background.propagationPolicy = "Background";
  for (const auto& r : ctx_.discovery->resources()) {
    if (!r.namespaced || !r.has_verb("delete")) continue;
    std::int64_t gvr_estimate = 0;
    if (r.group.empty() && r.resource == "pods") {
      // estimateGracefulTerminationForPods: the longest grace period of a pod not yet terminal.
      for (const auto& p : pod_informer_->lister().list_namespace(ns))
        if (p->status.phase != "Succeeded" && p->status.phase != "Failed")
          gvr_estimate = std::max<std::int64_t>(gvr_estimate, p->spec.terminationGracePeriodSeconds.value_or(0));
    }
    auto ref = r.ref(ns);
    if (r.has_verb("deletecollection")) {
      auto d = ctx_.client->delete_collection(ref, {}, background);
      if (!d && !client::is_not_found(d.error())) {
        errors.push_back(d.error().message);
        continue;
      }
    } else if (r.has_verb("list")) {
      auto l = ctx_.client->list(ref);
      if (!l) {
        errors.push_back(l.error().message);
        continue;
      }
      auto items = informer::ObjectCodec<ObjectMetadata>::decode_list(*l);
      if (!items) continue;
      for (const auto& it : items->items) {
        auto d = ctx_.client->remove(r.ref(ns, it.metadata.name), background);
        if (!d && !client::is_not_found(d.error())) errors.push_back(d.error().message);
      }
    }
    if (!r.has_verb("list")) {
      estimate = std::max(estimate, gvr_estimate);
      continue;
    }
    auto l = ctx_.client->list(ref);
    if (!l) {
      errors.push_back(l.error().message);
      continue;
    }
    auto items = informer::ObjectCodec<ObjectMetadata>::decode_list(*l);
    if (!items || items->items.empty()) continue;
    remaining.push_back(r.resource + "." + r.group + " has " + std::to_string(items->items.size()) +
                        " resource instances");
    bool any_finalizer = false;
    for (const auto& it : items->items)
      for (const auto& f : it.metadata.finalizers) {
        ++finalizers_remaining[f];
        any_finalizer = true;
      }
    if (gvr_estimate != 0) {
      estimate = std::max(estimate, gvr_estimate);
    } else if (any_finalizer) {
      estimate = std::max(estimate, kFinalizerEstimateSeconds);
    } else {
      errors.push_back("unexpected items still remain in namespace: " + ns + " for gvr: " +
                       (r.group.empty() ? "/" : r.group + "/") + r.version + ", Resource=" + r.resource);
    }
  }

  // The conditions (namespaceConditionUpdater), written when they changed.
  std::map<std::string_view, std::pair<std::string, std::string>> failing;  // type -> reason, message
  if (!errors.empty()) {
    std::string all;
    for (const auto& e : errors) all += (all.empty() ? "" : ", ") + e;
    failing["NamespaceDeletionContentFailure"] = {
        "ContentDeletionFailed",
        "Failed to delete all resource types, " + std::to_string(errors.size()) + " remaining: " + (errors.size() > 1 ? "[" + all + "]" : all)};
  }
  if (!remaining.empty()) {
    std::sort(remaining.begin(), remaining.end());
    std::string m;
    for (const auto& x : remaining) m += (m.empty() ? "" : ", ") + x;
    failing["NamespaceContentRemaining"] = {"SomeResourcesRemain", "Some resources are remaining: " + m};
  }
  if (!finalizers_remaining.empty()) {
    std::vector<std::string> v;
    for (const auto& [f, n] : finalizers_remaining) v.push_back(f + " in " + std::to_string(n) + " resource instances");
    std::sort(v.begin(), v.end());
    std::string m;
    for (const auto& x : v) m += (m.empty() ? "" : ", ") + x;
    failing["NamespaceFinalizersRemaining"] = {"SomeFinalizersRemain",
                                               "Some content in the namespace has finalizers remaining: " + m};
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto cur = get_namespace(*ctx_.client, ns);
    if (!cur) break;
    auto& status = cur->contains("status") && (*cur)["status"].is_object() ? (*cur)["status"].get_object()
                                                                            : ((*cur)["status"] = json::object()).get_object();
    json::array old;
    if (auto* c = status.if_contains("conditions"); c && c->is_array()) old = c->get_array();
    json::array next;
    std::string now = api::format_rfc3339(api::now(*ctx_.clock));
    for (const auto& k : kConditions) {
      std::string status_v = "False", reason(k.ok_reason), message(k.ok_message);
      if (auto f = failing.find(k.type); f != failing.end()) {
        status_v = "True";
        reason = f->second.first;
        message = f->second.second;
      }
      json::object c{{"type", k.type}, {"status", status_v}, {"lastTransitionTime", now}, {"reason", reason},
                     {"message", message}};
      for (const auto& o : old) {
        if (!o.is_object()) continue;
        const auto& oo = o.get_object();
        auto s = [&](std::string_view key) {
          auto* v = oo.if_contains(key);
          return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
        };
        if (s("type") == k.type && s("status") == status_v && s("reason") == reason && s("message") == message) c = oo;
      }
      next.push_back(std::move(c));
    }
    if (next == old) break;
    status["conditions"] = std::move(next);
    auto u = ctx_.client->update(client::ResourceRef{.resource = "namespaces", .name = ns, .subresource = "status"},
                                 json::serialize(*cur));
    if (u || !client::is_conflict(u.error())) break;
  }
  if (!errors.empty()) return client::ApiError{500, "InternalError", failing["NamespaceDeletionContentFailure"].second};
  return estimate;
}

util::Result<void> NamespaceController::sync(const std::string& name) {
  auto cur = get_namespace(*ctx_.client, name);
  if (!cur) {
    if (client::is_not_found(cur.error())) return {};
    return sync_error(cur.error());
  }
  auto* meta = object_at(*cur, "metadata");
  if (!meta || !meta->contains("deletionTimestamp")) return {};

  // The phase says Terminating (the server sets it; a restored object may not).
  auto* status = object_at(*cur, "status");
  auto* phase = status ? status->if_contains("phase") : nullptr;
  if (!phase || !phase->is_string() || phase->get_string() != "Terminating") {
    auto& st = (*cur)["status"];
    if (!st.is_object()) st.emplace_object();
    st.get_object()["phase"] = "Terminating";
    auto u = ctx_.client->update(client::ResourceRef{.resource = "namespaces", .name = name, .subresource = "status"},
                                 json::serialize(*cur));
    if (!u) return sync_error(u.error());
    cur = get_namespace(*ctx_.client, name);
    if (!cur) return client::is_not_found(cur.error()) ? util::Result<void>{} : sync_error(cur.error());
  }
  auto fins = spec_finalizers(*cur);
  if (std::find(fins.begin(), fins.end(), kFinalizer) == fins.end()) return {};

  auto estimate = delete_all_content(name);
  if (!estimate) return sync_error(estimate.error());
  if (*estimate > 0) {
    // ResourcesRemainingError: look again in half the estimate.
    workers_.add_after(name, std::chrono::seconds(*estimate / 2));
    return {};
  }
  // Everything is gone: remove our finalizer; the server deletes the namespace.
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto ns = get_namespace(*ctx_.client, name);
    if (!ns) return client::is_not_found(ns.error()) ? util::Result<void>{} : sync_error(ns.error());
    json::array rest;
    for (const auto& f : spec_finalizers(*ns))
      if (f != kFinalizer) rest.emplace_back(json::string(f));
    auto& spec = (*ns)["spec"].is_object() ? (*ns)["spec"].get_object() : (*ns)["spec"].emplace_object();
    spec["finalizers"] = std::move(rest);
    auto u = ctx_.client->update(client::ResourceRef{.resource = "namespaces", .name = name, .subresource = "finalize"},
                                 json::serialize(*ns));
    if (u || client::is_not_found(u.error())) {
      log::V(2).info("Namespace finalized", {{"namespace", name}});
      return {};
    }
    if (!client::is_conflict(u.error())) return sync_error(u.error());
  }
  return util::make_error("finalizing namespace " + name + ": too many conflicts");
}

}  // namespace ksched::controllers
