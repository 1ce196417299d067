// Create, update and patch: the request side of the write pipeline (write_pipeline.h).
#include "apiserver/endpoints/handlers_impl.h"
#include "util/go_format.h"

namespace ksched::apiserver {

// Upstream's order for a create or update: the body's media type (415), then the options in the
// query (400/422), then the body itself.
static std::optional<ApiError> check_request_options(const Request& req, WriteOptionsKind kind) {
  auto encoding = body_encoding(req.content_type);
  if (auto* e = std::get_if<ApiError>(&encoding)) return *e;
  return check_write_options(req, kind);
}

std::optional<ApiError> Api::Impl::check_namespace(const std::string& ns) {
  auto nso = store.get(res_id("", "namespaces"), "", ns);
  if (!nso) {
    ApiError e{404, "NotFound", "namespaces \"" + ns + "\" not found"};
    e.name = ns;
    e.kind = "namespaces";
    return e;
  }
  if (nso->json.find("\"phase\":\"Terminating\"") != std::string::npos) {
    ApiError e{403, "Forbidden", "unable to create new content in namespace " + ns + " because it is being terminated"};
    e.name = ns;
    e.kind = "namespaces";
    e.causes.push_back(Cause{"NamespaceTerminating", e.message, "metadata.namespace"});
    return e;
  }
  return std::nullopt;
}

namespace {

// Adds a request's warnings to its response as upstream's Warning headers.
Response with_warnings(Response resp, const std::vector<std::string>& warnings) {
  for (auto& h : warning_headers(warnings)) resp.headers.emplace_back("Warning", std::move(h));
  return resp;
}

}  // namespace

Response Api::Impl::create(const ResourceInfo& r, const std::string& ns, const Request& req) {
  if (auto e = check_request_options(req, WriteOptionsKind::Create)) return error_response(*e);
  auto fv = parse_field_validation(req.param("fieldValidation"), "CreateOptions");
  if (auto* e = std::get_if<ApiError>(&fv)) return error_response(*e);
  std::vector<DuplicateKey> duplicates;
  auto decoded = decode_body(req.content_type, req.body, &duplicates);
  if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
  json::object& obj = std::get<json::object>(decoded);
  std::vector<std::string> warnings;
  DecodeRequest d{r, std::get<FieldValidation>(fv), &duplicates, &warnings, req.body};
  auto res = do_create(r, ns, obj, req.param("dryRun") != nullptr, &d);
  if (!res) return with_warnings(error_response(*res.err), warnings);
  return with_warnings(json_response(201, *res), warnings);
}

Api::Impl::CreateResult Api::Impl::fail(ApiError e) {
  CreateResult c;
  c.err = std::move(e);
  return c;
}

Api::Impl::CreateResult Api::Impl::do_create(const ResourceInfo& r, const std::string& ns, json::object& obj, bool dry,
                                             const DecodeRequest* decode) {
  // The server's own objects (bootstrap, node templates) are decoded as a body without options is.
  if (auto e = decode_object(decode ? *decode : DecodeRequest{r}, obj)) return fail(*e);
  type_meta_first(r, obj);
  auto& meta = meta_of(obj);
  std::string body_ns = str(meta, "namespace");
  if (r.namespaced) {
    if (!body_ns.empty() && body_ns != ns)
      return fail(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  // RBAC's escalation check comes first, as upstream's policy-based storage wraps the whole create.
  if (auto e = check_escalation(r, ns, "", obj, nullptr)) return fail(*e);
  std::string name = str(meta, "name");
  std::string gen = str(meta, "generateName");
  if (name.empty() && !gen.empty()) {
    name = gen.substr(0, std::min<std::size_t>(gen.size(), 58)) + random_suffix();
    meta["name"] = name;
  }
  if (r.namespaced) {
    if (auto e = check_namespace(ns)) return fail(*e);
  }
  meta["uid"] = new_uid();
  // One reading of the clock for the write: its creationTimestamp and the times its strategy sets.
  const std::int64_t now_unix = now();
  meta["creationTimestamp"] = format_rfc3339(now_unix);
  meta.erase("resourceVersion");
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  meta.erase("managedFields");
  meta.erase("selfLink");
  // Kinds with a spec/status split count spec changes; PriorityClass starts at 1 and stays.
  if (r.tracks_generation || (r.group == "scheduling.k8s.io" && r.kind == "PriorityClass"))
    meta["generation"] = 1;
  else
    meta.erase("generation");
  if (auto e = run_write_pipeline(WriteRequest{r, WriteVerb::Create, "", ns, nullptr, &api.feature_gates(),
                                               decode ? decode->warnings : nullptr, now_unix, &api.admission_plugins()},
                                  obj, store))
    return fail(*e);
  to_storage(r, obj);
  if (dry) {
    CreateResult c;
    c.body = to_view(r, json::serialize(obj));
    return c;
  }
  auto c = store.put(storage_id(r), obj, 0);
  if (c.status == Store::CommitStatus::AlreadyExists) {
    ApiError e{409, "AlreadyExists", r.qualified_resource() + " \"" + name + "\" already exists"};
    e.name = name;
    e.group = r.group;
    e.kind = r.plural;
    if (!gen.empty()) {
      e.message += ", the server was not able to generate a unique name for the object";
      e.retry_after_seconds = 1;
    }
    return fail(e);
  }
  CreateResult ok;
  ok.body = to_view(r, std::move(obj), c.obj->json);  // put() left obj as stored
  return ok;
}

Response Api::Impl::guaranteed_update(const ResourceInfo& r, const std::string& ns, const std::string& name,
                           const std::string& sub, bool dry, const Mutator& mutate, bool with_object,
                           std::vector<std::string>* warnings) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto cur = store.get(storage_id(r), ns, name);
    if (!cur) return error_response(not_found(r, name));
    json::object cur_obj = parse_object(cur->json);
    from_storage(r, cur_obj);
    json::object next;
    if (auto e = mutate(cur_obj, next)) return error_response(*e);
    // The client's resourceVersion (if any) is a precondition.
    std::string want_rv = meta_str(next, "resourceVersion");
    if (!want_rv.empty() && want_rv != std::to_string(cur->rv)) {
      if (!parse_rv(want_rv))
        return error_response(bad_request("invalid resourceVersion \"" + want_rv + "\""));
      return error_response(conflict_modified(r, name));
    }
    if (auto e = finish_update(r, sub, cur_obj, next)) return error_response(*e);
    if (auto e = check_escalation(r, ns, name, next, &cur_obj)) return error_response(*e);
    // A binding only sets nodeName and the PodScheduled condition on the stored pod; upstream's
    // binding storage does not re-validate the pod, and neither do we.
    if (sub != "binding") {
      if (auto e = run_write_pipeline(
              WriteRequest{r, WriteVerb::Update, sub, ns, &cur_obj, &api.feature_gates(), warnings, now(),
                           &api.admission_plugins()},
              next,
              store))
        return error_response(*e);
    }
    // metadata.generation counts changes of the spec as defaulted and prepared (upstream's
    // strategies compare the decoded objects). A binding sets spec.nodeName through the binding
    // storage, which leaves the generation as it is (setPodNodeAndMetadata); a status write
    // keeps the spec.
    if (r.tracks_generation && sub != "binding" && sub != "status") {
      const json::value* cs = cur_obj.if_contains("spec");
      const json::value* nspec = next.if_contains("spec");
      bool changed = (cs == nullptr) != (nspec == nullptr) || (cs && nspec && *cs != *nspec);
      std::int64_t g = 1;
      if (auto* gv = meta_of(cur_obj).if_contains("generation"); gv && gv->is_int64()) g = gv->get_int64();
      meta_of(next)["generation"] = changed ? g + 1 : g;
    }
    to_storage(r, next);
    auto& nmeta = meta_of(next);
    // Emptying the finalizers of an object being deleted completes the deletion.
    bool deleting = nmeta.contains("deletionTimestamp") && !nmeta["deletionTimestamp"].is_null();
    auto* fins = nmeta.if_contains("finalizers");
    bool no_finalizers = !fins || !fins->is_array() || fins->get_array().empty();
    bool pod_pending_grace = r.group.empty() && r.plural == "pods" && nmeta.contains("deletionGracePeriodSeconds") &&
                             nmeta["deletionGracePeriodSeconds"].is_int64() &&
                             nmeta["deletionGracePeriodSeconds"].get_int64() > 0;
    if (dry) return json_response(200, to_view(r, json::serialize(next)));
    // A namespace stays until its "kubernetes" finalizer is gone too (namespaces/<name>/finalize).
    bool ns_finalizers = false;
    if (r.group.empty() && r.plural == "namespaces")
      if (auto* spec = obj_at(next, "spec"))
        if (auto* f = spec->if_contains("finalizers"); f && f->is_array() && !f->get_array().empty()) ns_finalizers = true;
    if (deleting && no_finalizers && !pod_pending_grace && !ns_finalizers) {
      auto c = store.remove(storage_id(r), ns, name, cur->rv, &next);
      if (c.status == Store::CommitStatus::Changed) continue;
      if (c.status == Store::CommitStatus::NotFound) return error_response(not_found(r, name));
      return json_response(200, to_view(r, c.obj->json));
    }
    auto c = store.put(storage_id(r), next, cur->rv, deadline_of(r, next));
    if (c.status == Store::CommitStatus::Changed) {
      if (!want_rv.empty()) return error_response(conflict_modified(r, name));
      continue;
    }
    if (c.status == Store::CommitStatus::NotFound) return error_response(not_found(r, name));
    return json_response(200, with_object ? to_view(r, std::move(next), c.obj->json) : std::string());  // next as stored
  }
  return error_response(conflict_modified(r, name));
}

std::int64_t Api::Impl::deadline_of(const ResourceInfo& r, const json::object& obj) {
  if (!(r.group.empty() && r.plural == "pods")) return 0;
  auto* m = obj_at(obj, "metadata");
  if (!m) return 0;
  auto* dt = m->if_contains("deletionTimestamp");
  if (!dt || !dt->is_string()) return 0;
  auto t = parse_rfc3339(dt->get_string());
  return t ? std::max<std::int64_t>(*t, 1) : 0;
}

std::optional<ApiError> Api::Impl::finish_update(const ResourceInfo& r, const std::string& sub, json::object& cur,
                                      json::object& next) {
  std::string name = meta_str(cur, "name");
  auto& nm = meta_of(next);
  auto& cm = meta_of(cur);
  if (!str(nm, "name").empty() && str(nm, "name") != name)
    return bad_request("the name of the object (" + str(nm, "name") + ") does not match the name on the URL (" + name + ")");
  if (r.namespaced && !str(nm, "namespace").empty() && str(nm, "namespace") != str(cm, "namespace"))
    return bad_request("the namespace of the provided object does not match the namespace sent on the request");
  if (sub == "status") {
    // Status writes keep everything but status (and labels/annotations). Those move out of
    // `next`, which `merged` then replaces (one allocator: a move, not a copy).
    json::object merged = cur;
    if (auto* st = next.if_contains("status")) merged["status"] = std::move(*st);
    auto& mm = meta_of(merged);
    if (auto* l = nm.if_contains("labels")) mm["labels"] = std::move(*l);
    if (auto* a = nm.if_contains("annotations")) mm["annotations"] = std::move(*a);
    next = std::move(merged);
  } else if (r.has_sub("status") && sub != "binding") {
    if (auto* st = cur.if_contains("status"))
      next["status"] = *st;
    else
      next.erase("status");
  }
  auto& m = meta_of(next);
  for (const char* k : {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"}) {
    if (auto* v = cm.if_contains(k))
      m[k] = *v;
    else
      m.erase(k);
  }
  m["name"] = name;
  if (r.namespaced) m["namespace"] = str(cm, "namespace");
  m.erase("resourceVersion");
  m.erase("managedFields");
  // No new finalizers once deletion started.
  if (cm.contains("deletionTimestamp")) {
    std::vector<std::string> old;
    if (auto* f = cm.if_contains("finalizers"); f && f->is_array())
      for (const auto& x : f->get_array())
        if (x.is_string()) old.emplace_back(x.get_string());
    if (auto* f = m.if_contains("finalizers"); f && f->is_array()) {
      for (const auto& x : f->get_array()) {
        if (!x.is_string()) continue;
        bool known = false;
        for (const auto& o : old) known = known || o == x.get_string();
        if (!known)
          return invalid(r, name, {Cause{"FieldValueForbidden",
                                         "Forbidden: no new finalizers can be added if the object is being deleted, "
                                         "found new finalizers []string{\"" + std::string(x.get_string()) + "\"}",
                                         "metadata.finalizers"}});
      }
    }
  }
  if (r.group.empty() && r.plural == "pods" && sub != "status" && sub != "binding") {
    // Binding is the only way to set nodeName on a pod that already exists unbound... upstream
    // forbids most spec updates; keep the stored nodeName authoritative.
    auto* cspec = obj_at(cur, "spec");
    auto& nspec = next["spec"];
    if (cspec && nspec.is_object()) {
      if (auto* nn = cspec->if_contains("nodeName"))
        nspec.get_object()["nodeName"] = *nn;
    }
  }
  type_meta_first(r, next);  // last: it rebuilds `next`, so no reference into it may outlive it
  return std::nullopt;
}

Response Api::Impl::update(const ResourceInfo& r, const std::string& ns, const std::string& name, const std::string& sub,
                const Request& req) {
  if (auto e = check_request_options(req, WriteOptionsKind::Update)) return error_response(*e);
  auto fv = parse_field_validation(req.param("fieldValidation"), "UpdateOptions");
  if (auto* e = std::get_if<ApiError>(&fv)) return error_response(*e);
  std::vector<DuplicateKey> duplicates;
  auto decoded = decode_body(req.content_type, req.body, &duplicates);
  if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
  json::object in = std::move(std::get<json::object>(decoded));
  // The whole body is decoded, also the part a subresource write then ignores, as upstream does.
  std::vector<std::string> warnings;
  if (auto e = decode_object(DecodeRequest{r, std::get<FieldValidation>(fv), &duplicates, &warnings, req.body}, in))
    return with_warnings(error_response(*e), warnings);
  std::string bn = meta_str(in, "name");
  if (!bn.empty() && bn != name)
    return with_warnings(
        error_response(bad_request("the name of the object (" + bn + ") does not match the name on the URL (" + name + ")")),
        warnings);
  std::string bns = meta_str(in, "namespace");
  if (r.namespaced && !bns.empty() && bns != ns)
    return with_warnings(
        error_response(bad_request("the namespace of the provided object does not match the namespace sent on the request")),
        warnings);
  return with_warnings(guaranteed_update(r, ns, name, sub, req.param("dryRun") != nullptr,
                                         [&](json::object&, json::object& next) -> std::optional<ApiError> {
                                           next = in;
                                           return std::nullopt;
                                         },
                                         true, &warnings),
                       warnings);
}

Response Api::Impl::patch(const ResourceInfo& r, const std::string& ns, const std::string& name, const std::string& sub,
               const Request& req) {
  std::string ct = req.content_type.substr(0, req.content_type.find(';'));
  enum { Json, Merge, Strategic } type;
  if (ct == "application/json-patch+json")
    type = Json;
  else if (ct == "application/merge-patch+json")
    type = Merge;
  else if (ct == "application/strategic-merge-patch+json")
    type = Strategic;
  else if (ct == "application/apply-patch+yaml" || ct == "application/apply-patch+cbor")
    return error_response(ApiError{415, "UnsupportedMediaType",
                                   "server-side apply is not supported by this server (application/apply-patch+yaml); "
                                   "use client-side `kubectl apply` (without --server-side)"});
  else
    return error_response(ApiError{415, "UnsupportedMediaType", "415: Unsupported Media Type"});
  if (auto e = check_write_options(req, WriteOptionsKind::Patch)) return error_response(*e);
  auto fv = parse_field_validation(req.param("fieldValidation"), "PatchOptions");
  if (auto* e = std::get_if<ApiError>(&fv)) return error_response(*e);
  FieldValidation validation = std::get<FieldValidation>(fv);
  json::error_code ec;
  std::vector<DuplicateKey> duplicates;
  json::value p = parse_json(req.body, ec, &duplicates);
  if (ec) return error_response(bad_request("error decoding patch: " + ec.message()));
  if (type == Json && p.is_array() && p.get_array().size() > kMaxJsonPatchOperations)
    return error_response(ApiError{413, "RequestEntityTooLarge",
                                   "Request entity too large: The allowed maximum operations in a JSON patch is " +
                                       std::to_string(kMaxJsonPatchOperations) + ", got " +
                                       std::to_string(p.get_array().size())});
  // A merge patch's repeated keys are strict errors of their own (upstream decodes the patch
  // strictly into a map first); the other types' are only dropped.
  std::vector<std::string> patch_strict;
  if (type == Merge && validation != FieldValidation::Ignore)
    for (const auto& dk : duplicates)
      patch_strict.push_back("duplicate field " +
                             util::go_quote(dk.object_path.empty() ? dk.key : dk.object_path + "." + dk.key));
  std::vector<std::string> warnings;
  Response resp = guaranteed_update(r, ns, name, sub, req.param("dryRun") != nullptr,
                           [&](json::object& cur, json::object& next) -> std::optional<ApiError> {
                             json::value doc = cur;
                             if (type == Json) {
                               auto res = apply_json_patch(doc, p);
                               if (!res) return ApiError{422, "Invalid", res.error()};
                             } else if (type == Merge) {
                               if (!p.is_object()) return bad_request("merge patch must be a JSON object");
                               apply_merge_patch(doc, p);
                             } else {
                               auto res = apply_strategic_merge_patch(doc, p, r.kind);
                               if (!res) return bad_request(res.error());
                             }
                             if (!doc.is_object()) return bad_request("patch produced a non-object");
                             next = std::move(doc.get_object());
                             warnings.clear();  // (again on a retry)
                             DecodeRequest d{r, validation, nullptr, &warnings, {}, true};
                             d.prior_strict = &patch_strict;
                             if (auto e = decode_object(d, next)) return e;
                             // The stored revision is not a precondition unless the patch set one.
                             std::string prv = meta_str(next, "resourceVersion");
                             if (prv == meta_str(cur, "resourceVersion")) meta_of(next).erase("resourceVersion");
                             return std::nullopt;
                           },
                           true, &warnings);
  return with_warnings(std::move(resp), warnings);
}

}  // namespace ksched::apiserver
