#include "apiserver/endpoints/handlers_impl.h"

#include "util/uuid.h"

namespace ksched::apiserver {

// ---------------------------------------------------------------- small helpers

std::string percent_decode(std::string_view s, bool plus_is_space) {
  auto hex = [](char h) -> int {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> parse_query(std::string_view q) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!q.empty()) {
    auto amp = q.find('&');
    auto part = q.substr(0, amp);
    if (!part.empty()) {
      auto eq = part.find('=');
      out.emplace_back(percent_decode(part.substr(0, eq), true),
                       eq == std::string_view::npos ? std::string() : percent_decode(part.substr(eq + 1), true));
    }
    if (amp == std::string_view::npos) break;
    q = q.substr(amp + 1);
  }
  return out;
}


namespace {

// UIDs and generated names need uniqueness, not secrecy: a generator per thread, seeded once
// from OpenSSL's CSPRNG (RAND_bytes per object cost a getpid() and the DRBG's lock each time).
std::mt19937_64& thread_rng() {
  thread_local std::mt19937_64 rng = [] {
    std::array<std::uint32_t, 8> seed{};
    RAND_bytes(reinterpret_cast<unsigned char*>(seed.data()), sizeof seed);
    std::seed_seq seq(seed.begin(), seed.end());
    return std::mt19937_64(seq);
  }();
  return rng;
}

}  // namespace

// A version 4 (random) UUID, as upstream's uuid.New().
std::string new_uid() {
  const std::uint64_t hi = thread_rng()(), lo = thread_rng()();
  return util::format_uuid_v4(hi, lo);
}

// Five characters from upstream's SimpleNameGenerator alphabet (no vowels, no confusable digits).
std::string random_suffix() {
  static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string s;
  for (int i = 0; i < 5; ++i) s += alphabet[pick(thread_rng())];
  return s;
}

json::object& meta_of(json::object& o) {
  auto& m = o["metadata"];
  if (!m.is_object()) m = json::object();
  return m.get_object();
}

std::string meta_str(const json::object& o, std::string_view k) {
  auto* m = o.if_contains("metadata");
  return m && m->is_object() ? str(m->get_object(), k) : std::string();
}

const json::object* obj_at(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

// Stored objects begin with their type: `{"kind":"Pod","apiVersion":"v1",...}`, as upstream
// writes a typed object; a list then drops that prefix from its items (see list()).
void type_meta_first(const ResourceInfo& r, json::object& obj) {
  // Objects read back from the store (updates, bindings) already start with both: no rebuild.
  if (obj.size() >= 2 && obj.begin()->key() == "kind" && (obj.begin() + 1)->key() == "apiVersion") {
    obj.begin()->value() = r.kind;
    (obj.begin() + 1)->value() = r.group_version();
    return;
  }
  json::object out(obj.storage());
  out.reserve(obj.size() + 2);
  out.emplace("kind", r.kind);
  out.emplace("apiVersion", r.group_version());
  for (auto& kv : obj)
    if (kv.key() != "kind" && kv.key() != "apiVersion") out.emplace(kv.key(), std::move(kv.value()));
  obj = std::move(out);
}

Response json_response(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Response error_response(const ApiError& e) {
  Response r = json_response(e.code, e.to_json());
  if (e.retry_after_seconds) r.headers.emplace_back("Retry-After", std::to_string(e.retry_after_seconds));
  return r;
}

Response plain(int status, std::string body) {
  Response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  return r;
}

ApiError not_found(const ResourceInfo& r, const std::string& name) {
  ApiError e{404, "NotFound", r.qualified_resource() + " \"" + name + "\" not found"};
  e.name = name;
  e.group = r.group;
  e.kind = r.plural;
  return e;
}

ApiError conflict_modified(const ResourceInfo& r, const std::string& name) {
  ApiError e{409, "Conflict",
             "Operation cannot be fulfilled on " + r.qualified_resource() + " \"" + name +
                 "\": the object has been modified; please apply your changes to the latest version and try again"};
  e.name = name;
  e.group = r.group;
  e.kind = r.plural;
  return e;
}

// `what` is the resource as upstream's NewConflict(GroupResource{r.group, what}) names it: the
// plural, or "pods/binding" for the subresource. It is the details' kind; the message qualifies
// it with the group.
ApiError conflict(const std::string& what, const ResourceInfo& r, const std::string& name, const std::string& msg) {
  const std::string qualified = r.group.empty() ? what : what + "." + r.group;
  ApiError e{409, "Conflict", "Operation cannot be fulfilled on " + qualified + " \"" + name + "\": " + msg};
  e.name = name;
  e.group = r.group;
  e.kind = what;
  return e;
}

std::string success_status(int code, const std::string& name, const ResourceInfo* r, const std::string& uid) {
  json::object o{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"}};
  if (r) {
    json::object d{{"name", name}, {"kind", r->plural}};
    if (!r->group.empty()) d["group"] = r->group;
    if (!uid.empty()) d["uid"] = uid;
    o["details"] = std::move(d);
  }
  if (code) o["code"] = code;
  return json::serialize(o);
}

// /api and /apis: aggregated discovery when the Accept header asks for it, legacy otherwise.
Response discovery_root(const Request& req, bool core, const std::string& server_address,
                        const FeatureGates& gates) {
  std::string type = aggregated_discovery_type(req.accept);
  Response r = json_response(200, !type.empty() ? aggregated_discovery(core, type, gates)
                                  : core        ? discovery_api_versions(server_address)
                                                : discovery_group_list(gates));
  if (!type.empty()) r.content_type = std::move(type);
  r.headers.emplace_back("Vary", "Accept");
  return r;
}

bool is_table_accept(std::string_view accept) {
  return accept.find("as=Table") != std::string_view::npos && accept.find("g=meta.k8s.io") != std::string_view::npos;
}

std::optional<std::int64_t> parse_rv(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
    if (v > (std::int64_t{1} << 60)) return std::nullopt;
  }
  return v;
}

// ---------------------------------------------------------------- routing

Response Api::Impl::route(const Request& req) {
  const std::string& path = req.path;
  if (path == "/version" || path == "/version/") return json_response(200, version_info());
  if (path == "/healthz" || path == "/livez" || path == "/readyz" || path.starts_with("/healthz/") ||
      path.starts_with("/livez/") || path.starts_with("/readyz/"))
    return plain(200, "ok");
  if (path == "/openapi/v2" || path == "/openapi/v2/") {
    switch (openapi::v2_form(req.accept)) {
      case openapi::V2Form::Json: return json_response(200, openapi::v2_document());
      case openapi::V2Form::Protobuf: {
        Response r = json_response(200, openapi::v2_document_protobuf());
        r.content_type = openapi::kV2ProtobufType;
        return r;
      }
      case openapi::V2Form::None: break;
    }
    return error_response(ApiError{406, "NotAcceptable",
                                   "the server was unable to respond with a content type that the client supports"});
  }
  if (path == "/openapi/v3" || path == "/openapi/v3/") return json_response(200, openapi_v3_index(api.feature_gates()));
  if (path.starts_with("/openapi/v3/")) {
    std::string doc = openapi_v3_document(std::string_view(path).substr(12), api.feature_gates());
    if (doc.empty()) return plain(404, "404 page not found\n");
    return json_response(200, doc);
  }
  std::vector<std::string> seg;
  seg.reserve(8);  // /apis/group/version/namespaces/ns/resource/name/subresource
  {
    std::string_view p = path;
    while (!p.empty()) {
      if (p.front() == '/') {
        p.remove_prefix(1);
        continue;
      }
      auto sl = p.find('/');
      seg.emplace_back(p.substr(0, sl));
      if (sl == std::string_view::npos) break;
      p.remove_prefix(sl);
    }
  }
  if (seg.empty()) return plain(404, "404 page not found\n");
  std::string group, version;
  std::size_t rest;
  if (seg[0] == "api") {
    if (seg.size() == 1) return discovery_root(req, true, api.server_address_, api.feature_gates());
    if (seg[1] != "v1") return plain(404, "404 page not found\n");
    if (seg.size() == 2) return json_response(200, discovery_resource_list("", "v1", api.feature_gates()));
    version = seg[1];
    rest = 2;
  } else if (seg[0] == "apis") {
    if (seg.size() == 1) return discovery_root(req, false, api.server_address_, api.feature_gates());
    if (seg.size() == 2) {
      std::string g = discovery_group(seg[1], api.feature_gates());
      if (g.empty()) return plain(404, "404 page not found\n");
      return json_response(200, g);
    }
    if (seg.size() == 3) {
      std::string rl = discovery_resource_list(seg[1], seg[2], api.feature_gates());
      if (rl.empty()) return plain(404, "404 page not found\n");
      return json_response(200, rl);
    }
    if (!serves_group_version(seg[1], seg[2], api.feature_gates())) return plain(404, "404 page not found\n");
    group = seg[1];
    version = seg[2];
    rest = 3;
  } else {
    return plain(404, "404 page not found\n");
  }
  std::vector<std::string> s(seg.begin() + static_cast<std::ptrdiff_t>(rest), seg.end());
  std::string ns, plural, name, sub;
  if (s[0] == "namespaces" && group.empty() && (s.size() <= 2 || (s.size() == 3 && (s[2] == "status" || s[2] == "finalize")))) {
    plural = "namespaces";
    if (s.size() >= 2) name = s[1];
    if (s.size() == 3) sub = s[2];
  } else if (s[0] == "namespaces" && s.size() >= 3) {
    ns = s[1];
    plural = s[2];
    if (s.size() >= 4) name = s[3];
    if (s.size() >= 5) sub = s[4];
    if (s.size() > 5) return not_found_resource();
  } else {
    plural = s[0];
    if (s.size() >= 2) name = s[1];
    if (s.size() >= 3) sub = s[2];
    if (s.size() > 3) return not_found_resource();
  }
  const ResourceInfo* r = find_resource(group, version, plural);
  if (!r || !is_served(*r, api.feature_gates())) return not_found_resource();
  if (!ns.empty() && !r->namespaced) return not_found_resource();
  if (r->namespaced && ns.empty() && !name.empty()) return not_found_resource();
  if (!sub.empty() && !r->has_sub(sub)) return not_found_resource();
  const std::string& m = req.method;
  if (r->create_only && r->group == "authentication.k8s.io") {
    if (m != "POST" || !name.empty()) return method_not_allowed();
    return r->plural == "tokenreviews" ? token_review(*r, req) : self_subject_review(*r, req);
  }
  if (r->create_only && r->group == "authorization.k8s.io") {
    if (r->namespaced && ns.empty()) return not_found_resource();
    if (m != "POST" || !name.empty()) return method_not_allowed();
    return r->plural == "selfsubjectrulesreviews" ? self_subject_rules_review(*r, req) : subject_access_review(*r, ns, req);
  }
  if (r->create_only) {
    // POST /api/v1/namespaces/{ns}/bindings: the Binding names the pod.
    if (m != "POST" || !name.empty() || ns.empty()) return method_not_allowed();
    auto decoded = decode_body(req.content_type, req.body);
    if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
    auto& body = std::get<json::object>(decoded);
    std::string pod = meta_str(body, "name");
    if (pod.empty()) return error_response(bad_request("name is required in Binding object"));
    return binding(*find_resource("", "v1", "pods"), ns, pod, req);
  }
  if (name.empty()) {
    if (m == "GET") return list(*r, ns, req);
    if (m == "POST") {
      if (r->namespaced && ns.empty()) return method_not_allowed();
      return create(*r, ns, req);
    }
    if (m == "DELETE") return delete_collection(*r, ns, req);
    return method_not_allowed();
  }
  if (sub.empty()) {
    if (m == "GET") return get(*r, ns, name, req);
    if (m == "PUT") return update(*r, ns, name, "", req);
    if (m == "PATCH") return patch(*r, ns, name, "", req);
    if (m == "DELETE") return delete_one(*r, ns, name, req);
    return method_not_allowed();
  }
  if (sub == "binding") return m == "POST" ? binding(*r, ns, name, req) : method_not_allowed();
  if (sub == "eviction") return m == "POST" ? eviction(*r, ns, name, req) : method_not_allowed();
  if (sub == "scale") return (m == "GET" || m == "PUT" || m == "PATCH") ? scale(*r, ns, name, req) : method_not_allowed();
  // status, finalize
  if (m == "GET") return get(*r, ns, name, req);
  if (m == "PUT") return update(*r, ns, name, sub == "status" ? "status" : "", req);
  if (m == "PATCH") return patch(*r, ns, name, sub == "status" ? "status" : "", req);
  return method_not_allowed();
}

Response Api::Impl::not_found_resource() {
  return error_response(ApiError{404, "NotFound", "the server could not find the requested resource"});
}

Response Api::Impl::method_not_allowed() {
  return error_response(ApiError{405, "MethodNotAllowed", "the server does not allow this method on the requested resource"});
}


// ---------------------------------------------------------------- Api

Api::Api(std::size_t watch_history, util::Clock& clock)
    : store_(watch_history), authorizer_(std::make_unique<Authorizer>(store_)), clock_(clock) {}
Api::~Api() = default;

void Api::set_authorization_mode(AuthorizationMode m) { authorizer_->set_mode(m); }

std::optional<Response> Api::Impl::authorize(const Request& req) {
  const Authorizer& authz = *api.authorizer_;
  if (authz.mode() == AuthorizationMode::AlwaysAllow) return std::nullopt;
  RequestInfo info = parse_request_info(req.method, req.path, req.query);
  // Upstream's filters answer these with a plain-text 500 before any authorizer runs.
  if (info.malformed)
    return plain(500, "Internal Server Error: \"" + req.path + "\": failed to create RequestInfo: unable to determine kind "
                      "and namespace from url, " + req.path + "\n");
  if (!req.user) return plain(500, "Internal Server Error: \"" + req.path + "\": no user found for request\n");
  Attributes a = attributes_of(*req.user, info);
  if (authz.allows(a)) return std::nullopt;
  // Denied: once more with the reason text (and in case the policy changed in between).
  AuthorizationResult res = authz.authorize(a);
  if (res.allowed) return std::nullopt;
  if (auto v = log::V(4); v.enabled()) v.info("Forbidden", {{"URI", req.path}, {"reason", res.reason}});
  Response r = error_response(forbidden_error(a, res.reason));
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

std::optional<ApiError> Api::Impl::check_escalation(const ResourceInfo& r, const std::string& ns,
                                                    const std::string& url_name, const json::object& obj,
                                                    const json::object* old) {
  if (!user || !is_rbac_kind(r)) return std::nullopt;
  return check_rbac_write(*api.authorizer_, *user, r, ns, url_name, obj, old);
}

std::int64_t Api::now_unix() const {
  return std::chrono::duration_cast<std::chrono::seconds>(clock_.wall_now().time_since_epoch()).count();
}

namespace {
// A failure's Status goes out in the media type the request negotiates, as upstream writes errors
// with the request's serializer: protobuf for a client that prefers it.
void status_in_negotiated_type(const Request& req, Response& resp) {
  if (resp.status < 400 || resp.watcher || resp.content_type != "application/json") return;
  if (!req.path.starts_with("/api")) return;
  if (!resp.body.starts_with("{\"kind\":\"Status\"")) return;
  if (protobuf::negotiate(req.accept, true) != protobuf::Output::Protobuf) return;
  if (auto body = protobuf::status_body(resp.body)) {
    resp.body = std::move(*body);
    resp.content_type = std::string(protobuf::kContentType);
  }
}
}  // namespace

Response Api::handle(const Request& req) {
  Impl impl{*this, store_, req.user};
  (void)Store::take_thread_commit();
  try {
    if (auto denied = impl.authorize(req)) return std::move(*denied);
    Response resp = impl.route(req);
    resp.commit_rv = Store::take_thread_commit();
    status_in_negotiated_type(req, resp);
    return resp;
  } catch (const ObjectTooLarge& e) {
    // As kube-apiserver passes on etcd's refusal: 500, no reason, etcd's message. A change the
    // request made before this one is still answered only once durable.
    Response resp = error_response(ApiError{500, "", e.what()});
    resp.commit_rv = Store::take_thread_commit();
    return resp;
  } catch (const std::exception& e) {
    log::error("request failed", {{"method", req.method}, {"path", req.path}, {"err", e.what()}});
    return error_response(internal_error(e.what()));
  }
}

void Api::reap_deletions() {
  const ResourceInfo& pr = *find_resource("", "v1", "pods");
  for (const auto& o : store_.expired_deletions(pr.id, now_unix())) {
    json::object obj = parse_object(o->json);
    auto& meta = meta_of(obj);
    meta["deletionGracePeriodSeconds"] = 0;
    (void)store_.remove(pr.id, o->ns, o->name, o->rv, &obj);
  }
}

namespace {
// The object of a bookmark: the resource's kind with only the revision (and the initial-events-end
// annotation) in its metadata.
std::string bookmark_object(const ResourceInfo& r, std::int64_t rv, bool end) {
  std::string s = "{\"kind\":\"" + r.kind + "\",\"apiVersion\":\"" + r.group_version() +
                  "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(rv) + "\",\"creationTimestamp\":null";
  if (end) s += ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}";
  s += "}}";
  return s;
}

// The object of an ADDED/MODIFIED/DELETED item as the watcher sees it: the stored JSON, restamped
// with the event's revision, and converted to the watch's version if it is another (kept in `scratch`).
std::string_view event_object(const ResourceInfo& r, const WatchItem& it, std::string& scratch) {
  std::string_view obj = it.obj->json;
  if (it.restamp) {
    json::value v = json::parse(it.obj->json);
    v.get_object()["metadata"].get_object()["resourceVersion"] = std::to_string(it.rv);
    scratch = json::serialize(v);
    obj = scratch;
  }
  if (is_converted(r)) {
    scratch = to_view(r, obj);
    obj = scratch;
  }
  return obj;
}

const char* event_type(const WatchItem& it) {
  return it.kind == WatchItem::Kind::Added ? "ADDED" : it.kind == WatchItem::Kind::Modified ? "MODIFIED" : "DELETED";
}
}  // namespace

void Api::append_watch_frame(const ResourceInfo& r, const WatchItem& it, std::string& out) const {
  util::Result<void> ok;
  switch (it.kind) {
    case WatchItem::Kind::Bookmark:
    case WatchItem::Kind::InitialEnd:
      ok = protobuf::append_watch_frame_json(out, r.group_version(), r.kind, "BOOKMARK",
                                             bookmark_object(r, it.rv, it.kind == WatchItem::Kind::InitialEnd));
      break;
    case WatchItem::Kind::Error: ok = protobuf::append_watch_frame_json(out, "v1", "Status", "ERROR", it.text); break;
    default:
      // The stored object's own encoding, made once for every protobuf watcher and reader.
      if (!it.restamp && !is_converted(r)) {
        if (const std::string* m = protobuf::object_message(r, *it.obj)) {
          protobuf::append_watch_frame(out, r, event_type(it), *m);
          return;
        }
      }
      std::string converted;
      ok = protobuf::append_watch_frame_json(out, r.group_version(), r.kind, event_type(it),
                                             event_object(r, it, converted));
  }
  if (!ok) log::error("protobuf watch event not encoded", {{"resource", r.plural}, {"err", ok.error()}});
}

std::string Api::format_watch_item(const ResourceInfo& r, const WatchItem& it, bool table, IncludeObject include,
                                   bool& columns_sent) const {
  auto bookmark = [&](std::int64_t rv, bool end) {
    return "{\"type\":\"BOOKMARK\",\"object\":" + bookmark_object(r, rv, end) + "}\n";
  };
  switch (it.kind) {
    case WatchItem::Kind::Bookmark: return bookmark(it.rv, false);
    case WatchItem::Kind::InitialEnd: return bookmark(it.rv, true);
    case WatchItem::Kind::Error: return "{\"type\":\"ERROR\",\"object\":" + it.text + "}\n";
    default: break;
  }
  const char* type = event_type(it);
  std::string body;
  std::string converted;
  std::string_view obj = event_object(r, it, converted);
  if (table) {
    TableOptions t;
    t.now_unix = now_unix();
    t.include = include;
    t.with_columns = !columns_sent;
    columns_sent = true;
    std::string tbl = make_table(r, {obj}, t, std::to_string(it.obj->rv), "", -1);
    body.reserve(tbl.size() + 32);
    body.append("{\"type\":\"").append(type).append("\",\"object\":").append(tbl).append("}\n");
    return body;
  }
  body.reserve(obj.size() + 32);
  body.append("{\"type\":\"").append(type).append("\",\"object\":").append(obj).append("}\n");
  return body;
}

}  // namespace ksched::apiserver
