// Delete (graceful pod deletion, finalizers, namespaces), delete collection and eviction.
#include "apiserver/endpoints/handlers_impl.h"

#include <algorithm>
#include <set>

namespace ksched::apiserver {

// DeleteOptions as upstream reads them: from the body when there is one (its media type
// negotiated: 415 otherwise), else from the query (a number that does not parse: 400); then
// ValidateDeleteOptions (422 naming DeleteOptions).
util::Result<Api::Impl::DeleteOptions, ApiError> Api::Impl::delete_options(const Request& req,
                                                                         const json::object* body_override) {
  DeleteOptions o;
  std::optional<std::string> propagation;
  bool orphan = false;
  std::vector<std::string> dry_run;
  json::object body;
  bool from_body = body_override != nullptr;
  if (body_override) {
    body = *body_override;
  } else if (!req.body.empty()) {
    from_body = true;
    auto encoding = body_encoding(req.content_type);
    if (auto* e = std::get_if<ApiError>(&encoding)) return *e;
    // (A protobuf DeleteOptions body is not decoded: its options are ignored.)
    if (std::get<BodyEncoding>(encoding) != BodyEncoding::Protobuf) {
      json::error_code ec;
      json::value v = json::parse(req.body, ec);
      if (ec || !v.is_object()) return bad_request("invalid DeleteOptions body");
      body = std::move(v.get_object());
    }
  }
  if (from_body) {
    if (auto* g = body.if_contains("gracePeriodSeconds"); g && g->is_int64()) o.grace = g->get_int64();
    if (auto* p = body.if_contains("propagationPolicy"); p && p->is_string()) propagation = std::string(p->get_string());
    if (auto* p = obj_at(body, "preconditions")) {
      o.pre_uid = str(*p, "uid");
      o.pre_rv = str(*p, "resourceVersion");
    }
    if (auto* d = body.if_contains("dryRun"); d && d->is_array())
      for (const auto& x : d->get_array()) dry_run.emplace_back(x.is_string() ? std::string(x.get_string()) : "");
    if (auto* od = body.if_contains("orphanDependents"); od && !od->is_null()) orphan = true;
  } else {
    auto grace = query_int64(req, "gracePeriodSeconds");
    if (!grace) return grace.error();
    o.grace = *grace;
    if (auto* p = req.param("propagationPolicy")) propagation = *p;
    orphan = req.param("orphanDependents") != nullptr;
    dry_run = query_values(req, "dryRun");
  }
  std::vector<Cause> causes;
  if (propagation && orphan)
    causes.push_back(Cause{"FieldValueInvalid",
                           "Invalid value: " + util::go_quote(*propagation) +
                               ": orphanDependents and deletionPropagation cannot be both set",
                           "propagationPolicy"});
  if (propagation && *propagation != "Foreground" && *propagation != "Background" && *propagation != "Orphan")
    causes.push_back(Cause{"FieldValueNotSupported",
                           "Unsupported value: " + util::go_quote(*propagation) +
                               ": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
                           "propagationPolicy"});
  validate_dry_run(dry_run, causes);
  if (!causes.empty()) return options_invalid("DeleteOptions", std::move(causes));
  if (propagation) o.propagation = *propagation;
  o.dry = !dry_run.empty();
  return o;
}

Response Api::Impl::remove(const ResourceInfo& r, const std::string& ns, const std::string& name, const DeleteOptions& opt) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto cur = store.get(storage_id(r), ns, name);
    if (!cur) return error_response(not_found(r, name));
    json::object obj = parse_object(cur->json);
    auto& meta = meta_of(obj);
    if (!opt.pre_uid.empty() && opt.pre_uid != cur->uid)
      return error_response(conflict(r.plural, r, name,
                                     "the UID in the precondition (" + opt.pre_uid + ") does not match the UID in record (" +
                                         cur->uid + "). The object might have been deleted and then recreated"));
    if (!opt.pre_rv.empty() && opt.pre_rv != std::to_string(cur->rv))
      return error_response(conflict(r.plural, r, name,
                                     "the ResourceVersion in the precondition (" + opt.pre_rv +
                                         ") does not match the ResourceVersion in record (" + std::to_string(cur->rv) +
                                         "). The object might have been modified"));
    if (opt.dry) return json_response(200, to_view(r, cur->json));
    bool is_pod = r.group.empty() && r.plural == "pods";
    bool is_namespace = r.group.empty() && r.plural == "namespaces";
    bool finalizers_changed = !is_namespace && api.controller_manager() && gc_finalizers(r, meta, opt);
    bool has_finalizers = false;
    if (auto* f = meta.if_contains("finalizers"); f && f->is_array() && !f->get_array().empty()) has_finalizers = true;
    if (is_pod) {
      // rest.BeforeDelete with the pod strategy's CheckGracefulDelete, then the store's Delete
      // (apiserver registry/rest/delete.go, registry/generic/registry/store.go).
      std::optional<std::int64_t> asked = opt.grace;
      if (asked && *asked < 0) asked = 1;  // a negative grace period is 1 s on the delete path
      auto int_member = [](const json::object& o, std::string_view k) -> std::optional<std::int64_t> {
        auto* v = o.if_contains(k);
        return v && v->is_int64() ? std::optional<std::int64_t>(v->get_int64()) : std::nullopt;
      };
      bool graceful = false;
      std::int64_t period = 0;
      if (auto* dt = meta.if_contains("deletionTimestamp"); dt && dt->is_string()) {
        std::optional<std::int64_t> existing = int_member(meta, "deletionGracePeriodSeconds");
        if (existing && *existing < 0) existing = 1;
        if (existing && *existing != 0) {
          // Already being deleted: only a shorter grace period changes anything.
          if (!asked || *asked >= *existing) return json_response(200, to_view(r, cur->json));
          period = *asked;
          std::int64_t when = parse_rfc3339(dt->get_string()).value_or(now()) - *existing + period;
          if (when < now()) {
            when = now();
            if (period != 0) period = 1;  // the grace period has run out: the shortest graceful one
          }
          meta["deletionTimestamp"] = format_rfc3339(when);
          meta["deletionGracePeriodSeconds"] = period;
          graceful = true;
        }
      } else {
        // CheckGracefulDelete: the request's period, else the pod's; at once when the pod is not
        // on a node (ours: or its node is gone, as no pod GC removes it later) or has finished.
        auto* spec = obj_at(obj, "spec");
        period = asked ? *asked : (spec ? int_member(*spec, "terminationGracePeriodSeconds").value_or(0) : 0);
        std::string node = spec ? str(*spec, "nodeName") : "";
        std::string phase;
        if (auto* st = obj_at(obj, "status")) phase = str(*st, "phase");
        bool on_node = !node.empty() && store.get(res_id("", "nodes"), "", node) != nullptr;
        if (!on_node || phase == "Succeeded" || phase == "Failed") period = 0;
        if (period < 0) period = 1;
        meta["deletionTimestamp"] = format_rfc3339(now() + period);
        meta["deletionGracePeriodSeconds"] = period;
        // The first graceful deletion changes what controllers may do: the generation moves on.
        if (auto g = int_member(meta, "generation"); g && *g > 0) meta["generation"] = *g + 1;
        graceful = true;
      }
      if (graceful || has_finalizers || finalizers_changed) {
        if (!graceful) {
          // markAsDeleting: pending finalizers keep the pod; its grace period is 0.
          if (auto* dt = meta.if_contains("deletionTimestamp"); !dt || !dt->is_string())
            meta["deletionTimestamp"] = now_ts();
          meta["deletionGracePeriodSeconds"] = 0;
        }
        if (graceful || has_finalizers) {
          auto c = store.put(storage_id(r), obj, cur->rv, graceful && period > 0 ? std::max<std::int64_t>(now() + period, 1) : 0);
          if (c.status == Store::CommitStatus::Changed) continue;
          if (c.status == Store::CommitStatus::NotFound) return error_response(not_found(r, name));
          // Watchers saw MODIFIED with the deletionTimestamp; a grace period of 0 without
          // finalizers deletes it right after (DELETED), as upstream's store does.
          if (has_finalizers || period > 0) return json_response(200, to_view(r, c.obj->json));
          auto d = store.remove(storage_id(r), ns, name, c.obj->rv, &obj);
          if (d.status != Store::CommitStatus::Ok) continue;
          return json_response(200, to_view(r, d.obj->json));
        }
      }
      auto d = store.remove(storage_id(r), ns, name, cur->rv, &obj);
      if (d.status == Store::CommitStatus::Changed) continue;
      if (d.status == Store::CommitStatus::NotFound) return error_response(not_found(r, name));
      return json_response(200, to_view(r, d.obj->json));
    }
    if (has_finalizers || (finalizers_changed && meta.contains("deletionTimestamp"))) {
      if (!meta.contains("deletionTimestamp") || finalizers_changed) {
        if (!meta.contains("deletionTimestamp")) {
          // markAsDeleting: the generation (when the kind has one) moves on once.
          if (auto* g = meta.if_contains("generation"); g && g->is_int64() && g->get_int64() > 0)
            *g = g->get_int64() + 1;
          meta["deletionTimestamp"] = now_ts();
          meta["deletionGracePeriodSeconds"] = 0;
        }
        if (!has_finalizers) {
          // The last finalizer went with the policy's change: the deletion completes.
          auto d = store.remove(storage_id(r), ns, name, cur->rv, &obj);
          if (d.status == Store::CommitStatus::Changed) continue;
          if (d.status == Store::CommitStatus::NotFound) return error_response(not_found(r, name));
          return json_response(200, to_view(r, d.obj->json));
        }
        auto c = store.put(storage_id(r), obj, cur->rv);
        if (c.status == Store::CommitStatus::Changed) continue;
        return json_response(200, to_view(r, c.obj->json));
      }
      return json_response(200, to_view(r, cur->json));
    }
    if (is_namespace) return delete_namespace(r, name, obj, cur->rv);
    auto d = store.remove(storage_id(r), ns, name, cur->rv, &obj);
    if (d.status == Store::CommitStatus::Changed) continue;
    if (d.status == Store::CommitStatus::NotFound) return error_response(not_found(r, name));
    return json_response(200, success_status(0, name, &r, cur->uid));
  }
  return error_response(conflict_modified(r, name));
}

bool Api::Impl::gc_finalizers(const ResourceInfo& r, json::object& meta, const DeleteOptions& opt) {
  // deletionFinalizersForGarbageCollection: the policy asked for, else the finalizer already
  // there, else the kind's default (orphan for core/v1 ReplicationControllers and batch/v1 Jobs,
  // kept for compatibility; background, which needs no finalizer, for every other kind).
  std::vector<std::string> old;
  if (auto* f = meta.if_contains("finalizers"); f && f->is_array())
    for (const auto& x : f->get_array())
      if (x.is_string()) old.emplace_back(x.get_string());
  auto has = [&](std::string_view f) { return std::find(old.begin(), old.end(), f) != old.end(); };
  bool orphan = false, foreground = false;
  if (opt.propagation == "Orphan") {
    orphan = true;
  } else if (opt.propagation == "Foreground") {
    foreground = true;
  } else if (opt.propagation.empty()) {
    if (has("orphan")) orphan = true;
    else if (has("foregroundDeletion")) foreground = true;
    else orphan = (r.group.empty() && r.plural == "replicationcontrollers") || (r.group == "batch" && r.plural == "jobs");
  }
  std::vector<std::string> next;
  for (const auto& f : old)
    if (f != "orphan" && f != "foregroundDeletion") next.push_back(f);
  if (orphan) next.emplace_back("orphan");
  if (foreground) next.emplace_back("foregroundDeletion");
  if (std::set<std::string>(old.begin(), old.end()) == std::set<std::string>(next.begin(), next.end())) return false;
  json::array a;
  for (auto& f : next) a.emplace_back(json::string(f));
  if (a.empty()) meta.erase("finalizers");
  else meta["finalizers"] = std::move(a);
  return true;
}

Response Api::Impl::delete_namespace(const ResourceInfo& r, const std::string& name, json::object obj, std::int64_t rv) {
  auto& meta = meta_of(obj);
  bool spec_finalizers = false;
  if (auto* spec = obj_at(obj, "spec"))
    if (auto* f = spec->if_contains("finalizers"); f && f->is_array() && !f->get_array().empty()) spec_finalizers = true;
  if (api.controller_manager() && spec_finalizers) {
    // Terminating until the namespace controller has deleted its content and removed the
    // "kubernetes" finalizer (namespaces/<name>/finalize), which deletes it.
    if (meta.contains("deletionTimestamp")) return json_response(200, json::serialize(obj));
    meta["deletionTimestamp"] = now_ts();
    obj["status"] = json::object{{"phase", "Terminating"}};
    auto c = store.put(storage_id(r), obj, rv);
    if (c.status == Store::CommitStatus::Changed) return error_response(conflict_modified(r, name));
    if (c.status != Store::CommitStatus::Ok) return error_response(not_found(r, name));
    return json_response(200, c.obj->json);
  }
  meta["deletionTimestamp"] = now_ts();
  obj["status"] = json::object{{"phase", "Terminating"}};
  auto c = store.put(storage_id(r), obj, rv);
  if (c.status != Store::CommitStatus::Ok) return error_response(conflict_modified(r, name));
  std::string out = c.obj->json;
  for (const auto& res : all_resources()) {
    if (!res.namespaced) continue;
    Store::ListOptions lo;
    lo.ns = name;
    auto items = store.list(res.id, lo);
    if (!items) continue;
    for (const auto& it : items->items) {
      json::object o = parse_object(it->json);
      (void)store.remove(res.id, name, it->name, 0, &o);
    }
  }
  json::object last = parse_object(c.obj->json);
  (void)store.remove(storage_id(r), "", name, 0, &last);
  return json_response(200, out);
}

Response Api::Impl::delete_one(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
  auto opt = delete_options(req);
  if (!opt) return error_response(opt.error());
  return remove(r, ns, name, *opt);
}

Response Api::Impl::eviction(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
  auto decoded = decode_body(req.content_type, req.body);
  if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
  auto& body = std::get<json::object>(decoded);
  std::string bn = meta_str(body, "name");
  if (!bn.empty() && bn != name) return error_response(bad_request("name in URL does not match name in Eviction object"));
  if (auto blocked = pdb_blocks_eviction(r, ns, name)) return error_response(*blocked);
  auto* dopt = obj_at(body, "deleteOptions");
  json::object empty;
  auto opt = delete_options(Request{}, dopt ? dopt : &empty);
  if (!opt) return error_response(opt.error());
  Response resp = remove(r, ns, name, *opt);
  if (resp.status != 200) return resp;
  return json_response(201, success_status(201, "", nullptr, ""));
}

std::optional<LabelSelector> Api::Impl::selector_of(const json::object* sel) {
  if (!sel) return std::nullopt;
  std::string out;
  auto add = [&](const std::string& t) { out += (out.empty() ? "" : ",") + t; };
  if (auto* ml = obj_at(*sel, "matchLabels"))
    for (const auto& kv : *ml)
      if (kv.value().is_string()) add(std::string(kv.key()) + "=" + std::string(kv.value().get_string()));
  if (auto* me = sel->if_contains("matchExpressions"); me && me->is_array()) {
    for (const auto& e : me->get_array()) {
      if (!e.is_object()) continue;
      std::string key = str(e.get_object(), "key"), op = str(e.get_object(), "operator"), vals;
      if (auto* vs = e.get_object().if_contains("values"); vs && vs->is_array())
        for (const auto& v : vs->get_array())
          if (v.is_string()) vals += (vals.empty() ? "" : ",") + std::string(v.get_string());
      if (op == "In") add(key + " in (" + vals + ")");
      else if (op == "NotIn") add(key + " notin (" + vals + ")");
      else if (op == "Exists") add(key);
      else if (op == "DoesNotExist") add("!" + key);
    }
  }
  auto parsed = LabelSelector::parse(out);
  if (!parsed) return std::nullopt;
  return std::move(*parsed);
}

bool Api::Impl::pod_healthy(const json::object& pod) {
  auto* st = obj_at(pod, "status");
  if (!st || str(*st, "phase") != "Running") return false;
  if (auto* m = obj_at(pod, "metadata"); m && m->contains("deletionTimestamp")) return false;
  if (auto* cs = st->if_contains("conditions"); cs && cs->is_array())
    for (const auto& c : cs->get_array())
      if (c.is_object() && str(c.get_object(), "type") == "Ready") return str(c.get_object(), "status") == "True";
  return false;
}

std::optional<ApiError> Api::Impl::pdb_blocks_eviction(const ResourceInfo& r, const std::string& ns, const std::string& name) {
  auto cur = store.get(storage_id(r), ns, name);
  if (!cur) return not_found(r, name);
  json::object pod = parse_object(cur->json);
  auto* st = obj_at(pod, "status");
  std::string phase = st ? str(*st, "phase") : "";
  if (phase != "Running") return std::nullopt;  // pending/terminal pods are evicted regardless
  const ResourceInfo& pdbr = *find_resource("policy", "v1", "poddisruptionbudgets");
  Store::ListOptions lo;
  lo.ns = ns;
  auto pdbs = store.list(pdbr.id, lo);
  if (!pdbs) return std::nullopt;
  for (const auto& po : pdbs->items) {
    json::object pdb = parse_object(po->json);
    auto* spec = obj_at(pdb, "spec");
    auto sel = selector_of(spec ? obj_at(*spec, "selector") : nullptr);
    if (!sel || sel->empty() || !sel->matches(cur->labels)) continue;
    Store::ListOptions pl;
    pl.ns = ns;
    pl.labels = &*sel;
    auto pods = store.list(storage_id(r), pl);
    std::int64_t expected = 0, healthy = 0;
    for (const auto& p : pods->items) {
      ++expected;
      if (pod_healthy(json::parse(p->json).get_object())) ++healthy;
    }
    auto scaled = [&](const json::value& v) -> std::int64_t {
      if (v.is_int64()) return v.get_int64();
      if (v.is_string()) {
        std::string t(v.get_string());
        if (!t.empty() && t.back() == '%') {
          std::int64_t pct = std::atoll(t.c_str());
          return (pct * expected + 99) / 100;
        }
        return std::atoll(t.c_str());
      }
      return 0;
    };
    std::int64_t desired = 0;
    if (auto* mn = spec->if_contains("minAvailable")) desired = scaled(*mn);
    else if (auto* mx = spec->if_contains("maxUnavailable")) desired = std::max<std::int64_t>(0, expected - scaled(*mx));
    if (healthy - desired > 0) continue;
    std::string pdb_name = meta_str(pdb, "name");
    ApiError e{429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget."};
    e.causes.push_back(Cause{"DisruptionBudget",
                             "The disruption budget " + pdb_name + " needs " + std::to_string(desired) +
                                 " healthy pods and has " + std::to_string(healthy) + " currently",
                             ""});
    return e;
  }
  return std::nullopt;
}

Response Api::Impl::delete_collection(const ResourceInfo& r, const std::string& ns, const Request& req) {
  if (auto e = check_list_options(req)) return error_response(*e);
  Selectors sel;
  if (auto e = parse_selectors(r, req, sel)) return error_response(*e);
  auto opt = delete_options(req);
  if (!opt) return error_response(opt.error());
  Store::ListOptions lo;
  lo.ns = ns;
  lo.labels = sel.labels.empty() ? nullptr : &sel.labels;
  lo.fields = sel.fields.empty() ? nullptr : &sel.fields;
  auto res = store.list(storage_id(r), lo);
  if (!res) return error_response(ApiError{410, "Expired", "The resourceVersion for the provided list is too old."});
  // Upstream answers with the list it deleted from, as listed before the deletes; an item
  // deleted meanwhile is no error, any other failure is the answer.
  std::string out = "{\"kind\":\"" + list_kind(r) + "\",\"apiVersion\":\"" + r.group_version() +
                    "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(res->rv) + "\"},\"items\":[";
  bool first = true;
  for (const auto& o : res->items) {
    Response d = remove(r, o->ns, o->name, *opt);
    if (d.status >= 300 && d.status != 404) return d;
    if (!first) out += ',';
    first = false;
    out += is_converted(r) ? to_view(r, o->json) : o->json;
  }
  out += "]}";
  return json_response(200, std::move(out));
}

}  // namespace ksched::apiserver
