// Subresources and reviews: pods/binding, scale, TokenReview, SelfSubjectReview, and the
// authorization reviews (Subject-, LocalSubject-, SelfSubjectAccessReview, SelfSubjectRulesReview).
#include "apiserver/endpoints/handlers_impl.h"

namespace ksched::apiserver {

std::string Api::Impl::selector_string(const json::object& obj) {
  auto* spec = obj_at(obj, "spec");
  const json::object* sel = spec ? obj_at(*spec, "selector") : nullptr;
  std::string out;
  if (!sel) return out;
  auto* ml = obj_at(*sel, "matchLabels");
  if (!ml && !sel->contains("matchExpressions")) ml = sel;  // ReplicationController: plain map
  if (ml) {
    for (const auto& kv : *ml) {
      if (!kv.value().is_string()) continue;
      if (!out.empty()) out += ",";
      out += std::string(kv.key()) + "=" + std::string(kv.value().get_string());
    }
  }
  return out;
}

json::object Api::Impl::scale_of(const ResourceInfo& r, const json::object& obj) {
  auto* m = obj_at(obj, "metadata");
  json::object meta;
  for (const char* k : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (m && m->contains(k)) meta[k] = m->at(k);
  std::int64_t want = 1, have = 0;
  if (auto* spec = obj_at(obj, "spec"); spec && spec->contains("replicas") && spec->at("replicas").is_int64())
    want = spec->at("replicas").get_int64();
  if (auto* st = obj_at(obj, "status"); st && st->contains("replicas") && st->at("replicas").is_int64())
    have = st->at("replicas").get_int64();
  (void)r;
  return json::object{{"kind", "Scale"},
                      {"apiVersion", "autoscaling/v1"},
                      {"metadata", std::move(meta)},
                      {"spec", json::object{{"replicas", want}}},
                      {"status", json::object{{"replicas", have}, {"selector", selector_string(obj)}}}};
}

Response Api::Impl::scale(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
  if (req.method == "GET") {
    auto o = store.get(storage_id(r), ns, name);
    if (!o) return error_response(not_found(r, name));
    return json_response(200, json::serialize(scale_of(r, json::parse(o->json).get_object())));
  }
  json::error_code ec;
  json::value p = json::parse(req.body, ec);
  if (ec) return error_response(bad_request("error decoding body: " + ec.message()));
  std::string ct = req.content_type.substr(0, req.content_type.find(';'));
  Response resp = guaranteed_update(r, ns, name, "", false,
                                    [&](json::object& cur, json::object& next) -> std::optional<ApiError> {
                                      json::value sc = scale_of(r, cur);
                                      if (req.method == "PUT") {
                                        sc = p;
                                      } else if (ct == "application/json-patch+json") {
                                        auto res = apply_json_patch(sc, p);
                                        if (!res) return ApiError{422, "Invalid", res.error()};
                                      } else {
                                        apply_merge_patch(sc, p);
                                      }
                                      next = cur;
                                      auto* spec = sc.is_object() ? obj_at(sc.get_object(), "spec") : nullptr;
                                      if (!spec || !spec->contains("replicas") || !spec->at("replicas").is_int64())
                                        return invalid(r, name, {Cause{"FieldValueRequired", "Required value", "spec.replicas"}});
                                      // autoscaling/v1 ScaleSpec.replicas is an int32, as is the workload's.
                                      if (std::int64_t n = spec->at("replicas").get_int64(); n < INT32_MIN || n > INT32_MAX)
                                        return bad_request("Scale in version \"v1\" cannot be handled as a Scale: json: cannot "
                                                           "unmarshal number " + std::to_string(n) +
                                                           " into Go struct field ScaleSpec.spec.replicas of type int32");
                                      auto& nspec = next["spec"];
                                      if (!nspec.is_object()) nspec = json::object();
                                      nspec.get_object()["replicas"] = spec->at("replicas");
                                      std::string want_rv = meta_str(sc.get_object(), "resourceVersion");
                                      if (want_rv != meta_str(cur, "resourceVersion")) meta_of(next)["resourceVersion"] = want_rv;
                                      else meta_of(next).erase("resourceVersion");
                                      return std::nullopt;
                                    });
  if (resp.status == 200) resp.body = json::serialize(scale_of(r, json::parse(resp.body).get_object()));
  return resp;
}

Response Api::Impl::binding(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
  auto decoded = decode_body(req.content_type, req.body);
  if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
  auto& body = std::get<json::object>(decoded);
  json::object& b = body;
  std::string bn = meta_str(b, "name");
  if (!bn.empty() && bn != name) return error_response(bad_request("name in URL does not match name in Binding object"));
  std::string bns = meta_str(b, "namespace");
  if (!bns.empty() && bns != ns)
    return error_response(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
  auto* target = obj_at(b, "target");
  std::string node = target ? str(*target, "name") : "";
  if (node.empty()) {
    ResourceInfo binding_info = r;
    binding_info.kind = "Binding";
    return error_response(invalid(binding_info, name, {Cause{"FieldValueRequired", "Required value", "target.name"}}));
  }
  std::string want_uid = meta_str(b, "uid");
  json::object annotations, labels;
  if (auto* m = obj_at(b, "metadata")) {
    if (auto* a = obj_at(*m, "annotations")) annotations = *a;
    if (auto* l = obj_at(*m, "labels")) labels = *l;
  }
  const FeatureGates& gates = api.feature_gates();
  // PodTopologyLabels admission: the node's topology labels join the binding's own, which win
  // (admitBinding); the binding storage then copies them onto the pod over its labels.
  if (gates.PodTopologyLabelsAdmission && target && str(*target, "kind") == "Node")
    if (auto n = store.get(res_id("", "nodes"), "", node))
      for (auto& kv : topology_labels(parse_object(n->json)))
        if (!labels.contains(kv.key())) labels[kv.key()] = std::move(kv.value());
  Response resp = guaranteed_update(r, ns, name, "binding", false,
                                    [&](json::object& cur, json::object& next) -> std::optional<ApiError> {
                                      std::string uid = meta_str(cur, "uid");
                                      if (!want_uid.empty() && want_uid != uid)
                                        return conflict(r.plural, r, name,
                                                        "Precondition failed: UID in precondition: " + want_uid +
                                                            ", UID in object meta: " + uid);
                                      auto& cm = meta_of(cur);
                                      if (cm.contains("deletionTimestamp"))
                                        return conflict("pods/binding", r, name,
                                                        "pod " + name + " is being deleted, cannot be assigned to a host");
                                      auto* spec = obj_at(cur, "spec");
                                      std::string cur_node = spec ? str(*spec, "nodeName") : "";
                                      if (!cur_node.empty())
                                        return conflict("pods/binding", r, name,
                                                        "pod " + name + " is already assigned to node \"" + cur_node + "\"");
                                      if (spec && spec->contains("schedulingGates") && spec->at("schedulingGates").is_array() &&
                                          !spec->at("schedulingGates").get_array().empty())
                                        return conflict("pods/binding", r, name,
                                                        "pod " + name + " has non-empty .spec.schedulingGates");
                                      // The pod moves into `next` (no copy of its tree); `cur` keeps
                                      // the metadata that finish_update checks the result against.
                                      json::object kept{{"metadata", cm}};
                                      next = std::move(cur);
                                      cur = std::move(kept);
                                      next["spec"].get_object()["nodeName"] = node;
                                      if (!annotations.empty()) {
                                        auto& a = meta_of(next)["annotations"];
                                        if (!a.is_object()) a = json::object();
                                        for (const auto& kv : annotations) a.get_object()[kv.key()] = kv.value();
                                      }
                                      if (gates.PodTopologyLabelsAdmission && !labels.empty()) {
                                        auto& l = meta_of(next)["labels"];
                                        if (!l.is_object()) l = json::object();
                                        for (const auto& kv : labels) l.get_object()[kv.key()] = kv.value();
                                      }
                                      auto& st = next["status"];
                                      if (!st.is_object()) st = json::object();
                                      // ClearingNominatedNodeNameAfterBinding (beta in v1.35).
                                      if (gates.ClearingNominatedNodeNameAfterBinding)
                                        st.get_object().erase("nominatedNodeName");
                                      auto& conds = st.get_object()["conditions"];
                                      if (!conds.is_array()) conds = json::array();
                                      json::object c{{"type", "PodScheduled"}, {"status", "True"}, {"lastProbeTime", nullptr},
                                                     {"lastTransitionTime", now_ts()}};
                                      bool placed = false;
                                      for (auto& x : conds.get_array()) {
                                        if (x.is_object() && str(x.get_object(), "type") == "PodScheduled") {
                                          x = c;
                                          placed = true;
                                        }
                                      }
                                      if (!placed) conds.get_array().emplace_back(std::move(c));
                                      meta_of(next).erase("resourceVersion");
                                      return std::nullopt;
                                    },
                                    /*with_object=*/false);
  if (resp.status != 200) return resp;
  return json_response(201, success_status(201, "", nullptr, ""));
}

json::object Api::Impl::review_shell(const ResourceInfo& r, json::object& body) {
  json::object out{{"kind", r.kind}, {"apiVersion", r.group_version()}};
  json::object meta;
  if (auto* m = body.if_contains("metadata"); m && m->is_object()) meta = m->get_object();
  meta["creationTimestamp"] = nullptr;
  out["metadata"] = std::move(meta);
  auto* spec = body.if_contains("spec");
  out["spec"] = spec && spec->is_object() ? spec->get_object() : json::object();
  return out;
}

Response Api::Impl::token_review(const ResourceInfo& r, const Request& req) {
  auto decoded = decode_body(req.content_type, req.body);
  if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
  auto& body = std::get<json::object>(decoded);
  json::object out = review_shell(r, body);
  std::string token = str(out["spec"].get_object(), "token");
  if (token.empty())
    return error_response(ApiError{422, "Invalid", "TokenReview.authentication.k8s.io \"\" is invalid: spec.token: "
                                                   "Required value: token must be specified"});
  const UserInfo* u = api.authenticator() ? api.authenticator()->user_of_token(token) : nullptr;
  json::object status;
  if (u) {
    json::array groups;
    bool has_authenticated = false;
    for (const auto& g : u->groups) {
      groups.emplace_back(g);
      has_authenticated = has_authenticated || g == "system:authenticated";
    }
    if (!has_authenticated) groups.emplace_back("system:authenticated");
    status["authenticated"] = true;
    status["user"] = json::object{{"username", u->name}, {"uid", u->uid}, {"groups", std::move(groups)}};
  } else {
    status["user"] = json::object();
    status["error"] = "invalid bearer token";
  }
  out["status"] = std::move(status);
  return json_response(201, json::serialize(out));
}

namespace {

ApiError review_invalid(const ResourceInfo& r, const std::string& field, const std::string& msg) {
  ApiError e{422, "Invalid", r.kind + "." + r.group + " \"\" is invalid: " + field + ": " + msg};
  e.kind = r.kind;
  e.group = r.group;
  e.causes.push_back(Cause{"FieldValueInvalid", msg, field});
  return e;
}

json::array string_array(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

}  // namespace

Response Api::Impl::subject_access_review(const ResourceInfo& r, const std::string& ns, const Request& req) {
  const bool self = r.plural == "selfsubjectaccessreviews";
  const bool local = r.plural == "localsubjectaccessreviews";
  auto decoded = decode_body(req.content_type, req.body);
  if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
  auto& body = std::get<json::object>(decoded);
  if (local) {
    // As the create handler does for any namespaced kind: the URL's namespace, or a 400.
    auto& meta = meta_of(body);
    std::string body_ns = str(meta, "namespace");
    if (!body_ns.empty() && body_ns != ns)
      return error_response(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
    meta["namespace"] = ns;
  }
  json::object out = review_shell(r, body);
  const json::object& spec = out["spec"].get_object();
  const json::object* ra = obj_at(spec, "resourceAttributes");
  const json::object* na = obj_at(spec, "nonResourceAttributes");
  if (ra && na)
    return error_response(review_invalid(r, "spec.nonResourceAttributes",
                                         "Invalid value: \"object\": cannot be specified in combination with resourceAttributes"));
  if (!ra && !na)
    return error_response(review_invalid(r, "spec.resourceAttributes",
                                         "Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes "
                                         "must be specified"));
  // The subject: the spec's for (Local)SubjectAccessReview, the caller for SelfSubjectAccessReview.
  UserInfo subject;
  if (self) {
    if (req.user) subject = *req.user;
  } else {
    subject.name = str(spec, "user");
    subject.uid = str(spec, "uid");
    if (auto* g = spec.if_contains("groups"); g && g->is_array())
      for (const auto& x : g->get_array())
        if (x.is_string()) subject.groups.emplace_back(x.get_string());
    if (subject.name.empty() && subject.groups.empty())
      return error_response(review_invalid(r, "spec.user", "Invalid value: \"\": at least one of user or group must be specified"));
  }
  if (local) {
    if (na) return error_response(review_invalid(r, "spec.nonResourceAttributes", "Invalid value: \"object\": disallowed on this kind of request"));
    std::string attr_ns = str(*ra, "namespace");
    if (attr_ns != ns)
      return error_response(review_invalid(r, "spec.resourceAttributes.namespace",
                                           "Invalid value: \"" + attr_ns + "\": must match metadata.namespace"));
  }
  // authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom.
  std::string verb, group, version, resource, subresource, attr_ns, name, path;
  Attributes a;
  a.user = &subject;
  if (ra) {
    verb = str(*ra, "verb");
    group = str(*ra, "group");
    version = str(*ra, "version");
    resource = str(*ra, "resource");
    subresource = str(*ra, "subresource");
    attr_ns = str(*ra, "namespace");
    name = str(*ra, "name");
    a.resource_request = true;
    a.group = group;
    a.version = version;
    a.resource = resource;
    a.subresource = subresource;
    a.ns = attr_ns;
    a.name = name;
  } else {
    verb = str(*na, "verb");
    path = str(*na, "path");
    a.path = path;
  }
  a.verb = verb;
  AuthorizationResult d = api.authorizer_->authorize(a);
  json::object status{{"allowed", d.allowed}};
  if (!d.reason.empty()) status["reason"] = d.reason;
  out["status"] = std::move(status);
  return json_response(201, json::serialize(out));
}

Response Api::Impl::self_subject_rules_review(const ResourceInfo& r, const Request& req) {
  auto decoded = decode_body(req.content_type, req.body);
  if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
  auto& body = std::get<json::object>(decoded);
  json::object out = review_shell(r, body);
  std::string ns = str(out["spec"].get_object(), "namespace");
  if (!req.user) return error_response(bad_request("no user present on request"));
  if (ns.empty()) return error_response(bad_request("no namespace on request"));
  json::array resource_rules, non_resource_rules;
  std::string evaluation_error;
  if (api.authorizer_->mode() == AuthorizationMode::AlwaysAllow) {
    // The AlwaysAllow authorizer's rules: everything.
    resource_rules.push_back(json::object{{"verbs", json::array{"*"}}, {"apiGroups", json::array{"*"}}, {"resources", json::array{"*"}}});
    non_resource_rules.push_back(json::object{{"verbs", json::array{"*"}}, {"nonResourceURLs", json::array{"*"}}});
  } else {
    UserRules rules = api.authorizer_->rbac().rules_for(*req.user, ns);
    for (const PolicyRule* p : rules.rules) {
      if (!p->resources.empty()) {
        json::object o{{"verbs", string_array(p->verbs)}};
        if (!p->api_groups.empty()) o["apiGroups"] = string_array(p->api_groups);
        o["resources"] = string_array(p->resources);
        if (!p->resource_names.empty()) o["resourceNames"] = string_array(p->resource_names);
        resource_rules.push_back(std::move(o));
      }
      if (!p->non_resource_urls.empty())
        non_resource_rules.push_back(json::object{{"verbs", string_array(p->verbs)}, {"nonResourceURLs", string_array(p->non_resource_urls)}});
    }
    evaluation_error = aggregate_errors(rules.errors);
  }
  json::object status{{"resourceRules", std::move(resource_rules)},
                      {"nonResourceRules", std::move(non_resource_rules)},
                      {"incomplete", false}};
  if (!evaluation_error.empty()) status["evaluationError"] = evaluation_error;
  out["status"] = std::move(status);
  return json_response(201, json::serialize(out));
}

Response Api::Impl::self_subject_review(const ResourceInfo& r, const Request& req) {
  auto decoded = decode_body(req.content_type, req.body);
  if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
  if (!req.user) return error_response(bad_request("no user present on request"));
  json::object user{{"username", req.user->name}};
  if (!req.user->uid.empty()) user["uid"] = req.user->uid;
  if (!req.user->groups.empty()) user["groups"] = string_array(req.user->groups);
  json::object out{{"kind", r.kind},
                   {"apiVersion", r.group_version()},
                   {"metadata", json::object{{"creationTimestamp", now_ts()}}},
                   {"status", json::object{{"userInfo", std::move(user)}}}};
  return json_response(201, json::serialize(out));
}

}  // namespace ksched::apiserver
