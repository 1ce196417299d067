#include "apiserver/handlers.h"

#include <openssl/rand.h>

#include <array>
#include <boost/json.hpp>
#include <chrono>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "api/yaml_json.h"
#include "apiserver/body_codec.h"
#include "apiserver/write_pipeline.h"
#include "apiserver/auth.h"
#include "apiserver/continue_token.h"
#include "apiserver/discovery.h"
#include "apiserver/rbac_authorizer.h"
#include "apiserver/event_conversion.h"
#include "apiserver/openapi.h"
#include "apiserver/patch.h"
#include "apiserver/protobuf.h"
#include "apiserver/status.h"
#include "apiserver/timeutil.h"
#include "util/log.h"

namespace ksched::apiserver {

namespace json = boost::json;

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

bool query_bool(const std::string* v) {
  if (!v) return false;
  std::string s = *v;
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return !(s == "0" || s == "false");
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

// A version 4 (random) UUID, as upstream's uuid.New().
std::string new_uid() {
  std::array<unsigned char, 16> b;
  const std::uint64_t hi = thread_rng()(), lo = thread_rng()();
  for (int i = 0; i < 8; ++i) {
    b[i] = static_cast<unsigned char>(hi >> (8 * i));
    b[8 + i] = static_cast<unsigned char>(lo >> (8 * i));
  }
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[b[i] >> 4];
    out += kHex[b[i] & 0x0f];
  }
  return out;
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

std::string str(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
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
  if (e.retry_after) r.headers.emplace_back("Retry-After", std::to_string(e.retry_after));
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
Response discovery_root(const Request& req, bool core, const std::string& server_address) {
  std::string type = aggregated_discovery_type(req.accept);
  Response r = json_response(200, !type.empty() ? aggregated_discovery(core, type)
                                  : core        ? discovery_api_versions(server_address)
                                                : discovery_group_list());
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

}  // namespace

// ---------------------------------------------------------------- the verbs

struct Api::Impl {
  Api& api;
  Store& store;

  std::int64_t now() const { return api.now_unix(); }
  std::string now_ts() const { return format_rfc3339(now()); }

  static int res_id(std::string_view group, std::string_view plural) {
    return find_resource(group, "v1", plural)->id;
  }

  std::optional<ApiError> check_namespace(const std::string& ns) {
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
      return e;
    }
    return std::nullopt;
  }

  // ------------------------------------------------------------ create
  Response create(const ResourceInfo& r, const std::string& ns, const Request& req) {
    auto decoded = decode_body(req.content_type, req.body);
    if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
    auto& body = std::get<json::object>(decoded);
    json::object& obj = body;
    bool dry = req.param("dryRun") != nullptr;
    auto res = do_create(r, ns, obj, dry);
    if (!res) return error_response(*res.err);
    return json_response(201, *res);
  }

  struct CreateResult {
    std::optional<std::string> body;
    std::optional<ApiError> err;
    explicit operator bool() const { return body.has_value(); }
    const std::string& operator*() const { return *body; }
  };

  CreateResult fail(ApiError e) {
    CreateResult c;
    c.err = std::move(e);
    return c;
  }

  CreateResult do_create(const ResourceInfo& r, const std::string& ns, json::object& obj, bool dry) {
    std::string kind = str(obj, "kind");
    if (!kind.empty() && kind != r.kind)
      return fail(bad_request("the API version in the data (" + str(obj, "apiVersion") +
                              ") does not match the expected API version (" + r.group_version() + ")"));
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
    meta["creationTimestamp"] = now_ts();
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
    if (auto e = run_write_pipeline(WriteRequest{r, WriteVerb::Create, "", ns}, obj, store)) return fail(*e);
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
        e.retry_after = 1;
      }
      return fail(e);
    }
    CreateResult ok;
    ok.body = to_view(r, c.obj->json);
    return ok;
  }

  // ------------------------------------------------------------ get
  Response get(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
    auto o = store.get(storage_id(r), ns, name);
    if (!o) return error_response(not_found(r, name));
    if (is_table_accept(req.accept)) {
      TableOptions t;
      t.now_unix = now();
      t.include = include_param(req);
      std::string viewed = to_view(r, o->json);
      return json_response(200, make_table(r, {viewed}, t, "", "", -1));
    }
    return json_response(200, to_view(r, o->json));
  }

  static IncludeObject include_param(const Request& req) {
    const std::string* v = req.param("includeObject");
    if (!v) return IncludeObject::Metadata;
    if (*v == "None") return IncludeObject::None;
    if (*v == "Object") return IncludeObject::Object;
    return IncludeObject::Metadata;
  }

  // ------------------------------------------------------------ update / patch
  // Builds the new state from the stored one; `mutate` returns an error to abort.
  using Mutator = std::function<std::optional<ApiError>(json::object& cur, json::object& next)>;

  Response guaranteed_update(const ResourceInfo& r, const std::string& ns, const std::string& name,
                             const std::string& sub, bool dry, const Mutator& mutate) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto cur = store.get(storage_id(r), ns, name);
      if (!cur) return error_response(not_found(r, name));
      json::object cur_obj = json::parse(cur->json).get_object();
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
      // A binding only sets nodeName and the PodScheduled condition on the stored pod; upstream's
      // binding storage does not re-validate the pod, and neither do we.
      if (sub != "binding")
        if (auto e = run_write_pipeline(WriteRequest{r, WriteVerb::Update, sub, ns, &cur_obj}, next, store))
          return error_response(*e);
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
      if (deleting && no_finalizers && !pod_pending_grace) {
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
      return json_response(200, to_view(r, c.obj->json));
    }
    return error_response(conflict_modified(r, name));
  }

  static std::int64_t deadline_of(const ResourceInfo& r, const json::object& obj) {
    if (!(r.group.empty() && r.plural == "pods")) return 0;
    auto* m = obj_at(obj, "metadata");
    if (!m) return 0;
    auto* dt = m->if_contains("deletionTimestamp");
    if (!dt || !dt->is_string()) return 0;
    auto t = parse_rfc3339(dt->get_string());
    return t ? std::max<std::int64_t>(*t, 1) : 0;
  }

  // Carries over what clients may not change and applies the status split.
  std::optional<ApiError> finish_update(const ResourceInfo& r, const std::string& sub, json::object& cur,
                                        json::object& next) {
    std::string name = meta_str(cur, "name");
    auto& nm = meta_of(next);
    auto& cm = meta_of(cur);
    if (!str(nm, "name").empty() && str(nm, "name") != name)
      return bad_request("the name of the object (" + str(nm, "name") + ") does not match the name on the URL (" + name + ")");
    if (r.namespaced && !str(nm, "namespace").empty() && str(nm, "namespace") != str(cm, "namespace"))
      return bad_request("the namespace of the provided object does not match the namespace sent on the request");
    if (sub == "status") {
      // Status writes keep everything but status (and labels/annotations).
      json::object merged = cur;
      if (auto* st = next.if_contains("status")) merged["status"] = *st;
      auto& mm = meta_of(merged);
      if (auto* l = nm.if_contains("labels")) mm["labels"] = *l;
      if (auto* a = nm.if_contains("annotations")) mm["annotations"] = *a;
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
    if (r.tracks_generation) {
      const json::value* cs = cur.if_contains("spec");
      const json::value* ns = next.if_contains("spec");
      bool changed = (cs == nullptr) != (ns == nullptr) || (cs && ns && *cs != *ns);
      std::int64_t g = 1;
      if (auto* gv = cm.if_contains("generation"); gv && gv->is_int64()) g = gv->get_int64();
      m["generation"] = changed ? g + 1 : g;
    }
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

  Response update(const ResourceInfo& r, const std::string& ns, const std::string& name, const std::string& sub,
                  const Request& req) {
    auto decoded = decode_body(req.content_type, req.body);
    if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
    auto& body = std::get<json::object>(decoded);
    json::object in = std::move(body);
    std::string bn = meta_str(in, "name");
    if (!bn.empty() && bn != name)
      return error_response(bad_request("the name of the object (" + bn + ") does not match the name on the URL (" + name + ")"));
    std::string bns = meta_str(in, "namespace");
    if (r.namespaced && !bns.empty() && bns != ns)
      return error_response(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
    return guaranteed_update(r, ns, name, sub, req.param("dryRun") != nullptr,
                             [&](json::object&, json::object& next) -> std::optional<ApiError> {
                               next = in;
                               return std::nullopt;
                             });
  }

  Response patch(const ResourceInfo& r, const std::string& ns, const std::string& name, const std::string& sub,
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
    json::error_code ec;
    json::value p = json::parse(req.body, ec);
    if (ec) return error_response(bad_request("error decoding patch: " + ec.message()));
    return guaranteed_update(r, ns, name, sub, req.param("dryRun") != nullptr,
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
                               // The stored revision is not a precondition unless the patch set one.
                               std::string prv = meta_str(next, "resourceVersion");
                               if (prv == meta_str(cur, "resourceVersion")) meta_of(next).erase("resourceVersion");
                               return std::nullopt;
                             });
  }

  // ------------------------------------------------------------ scale
  static std::string selector_string(const json::object& obj) {
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

  static json::object scale_of(const ResourceInfo& r, const json::object& obj) {
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

  Response scale(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
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

  // ------------------------------------------------------------ binding
  Response binding(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
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
    ResourceInfo binding_info = r;
    binding_info.kind = "Binding";
    if (node.empty()) return error_response(invalid(binding_info, name, {Cause{"FieldValueRequired", "Required value", "target.name"}}));
    std::string want_uid = meta_str(b, "uid");
    json::object annotations;
    if (auto* m = obj_at(b, "metadata"))
      if (auto* a = obj_at(*m, "annotations")) annotations = *a;
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
                                        next = cur;
                                        next["spec"].get_object()["nodeName"] = node;
                                        if (!annotations.empty()) {
                                          auto& a = meta_of(next)["annotations"];
                                          if (!a.is_object()) a = json::object();
                                          for (const auto& kv : annotations) a.get_object()[kv.key()] = kv.value();
                                        }
                                        auto& st = next["status"];
                                        if (!st.is_object()) st = json::object();
                                        auto& conds = st.get_object()["conditions"];
                                        if (!conds.is_array()) conds = json::array();
                                        json::array out;
                                        json::object c{{"type", "PodScheduled"}, {"status", "True"}, {"lastProbeTime", nullptr},
                                                       {"lastTransitionTime", now_ts()}};
                                        bool placed = false;
                                        for (auto& x : conds.get_array()) {
                                          if (x.is_object() && str(x.get_object(), "type") == "PodScheduled") {
                                            out.push_back(c);
                                            placed = true;
                                          } else {
                                            out.push_back(x);
                                          }
                                        }
                                        if (!placed) out.push_back(c);
                                        conds = std::move(out);
                                        meta_of(next).erase("resourceVersion");
                                        return std::nullopt;
                                      });
    if (resp.status != 200) return resp;
    return json_response(201, success_status(201, "", nullptr, ""));
  }

  // ------------------------------------------------------------ delete
  struct DeleteOptions {
    std::optional<std::int64_t> grace;
    std::string propagation;
    std::string pre_uid, pre_rv;
    bool dry = false;
  };

  util::Result<DeleteOptions> delete_options(const Request& req, const json::object* body_override = nullptr) {
    DeleteOptions o;
    json::object body;
    if (body_override) {
      body = *body_override;
    } else if (!req.body.empty() && !protobuf::is_protobuf(req.content_type)) {
      // (A protobuf DeleteOptions body is not decoded: its options are ignored.)
      json::error_code ec;
      json::value v = json::parse(req.body, ec);
      if (ec || !v.is_object()) return util::make_error("invalid DeleteOptions body");
      body = std::move(v.get_object());
    }
    if (auto* g = body.if_contains("gracePeriodSeconds"); g && g->is_int64()) o.grace = g->get_int64();
    o.propagation = str(body, "propagationPolicy");
    if (auto* p = obj_at(body, "preconditions")) {
      o.pre_uid = str(*p, "uid");
      o.pre_rv = str(*p, "resourceVersion");
    }
    if (auto* d = body.if_contains("dryRun"); d && d->is_array() && !d->get_array().empty()) o.dry = true;
    if (auto* g = req.param("gracePeriodSeconds")) {
      auto v = parse_rv(*g);
      if (v) o.grace = *v;
    }
    if (auto* p = req.param("propagationPolicy")) o.propagation = *p;
    if (req.param("dryRun")) o.dry = true;
    return o;
  }

  Response remove(const ResourceInfo& r, const std::string& ns, const std::string& name, const DeleteOptions& opt) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto cur = store.get(storage_id(r), ns, name);
      if (!cur) return error_response(not_found(r, name));
      json::object obj = json::parse(cur->json).get_object();
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
      bool has_finalizers = false;
      if (auto* f = meta.if_contains("finalizers"); f && f->is_array() && !f->get_array().empty()) has_finalizers = true;
      if (is_pod) {
        auto* spec = obj_at(obj, "spec");
        std::string node = spec ? str(*spec, "nodeName") : "";
        std::string phase;
        if (auto* st = obj_at(obj, "status")) phase = str(*st, "phase");
        std::int64_t grace = 30;
        if (opt.grace)
          grace = *opt.grace;
        else if (spec && spec->contains("terminationGracePeriodSeconds") && spec->at("terminationGracePeriodSeconds").is_int64())
          grace = spec->at("terminationGracePeriodSeconds").get_int64();
        bool on_node = !node.empty() && store.get(res_id("", "nodes"), "", node) != nullptr;
        if (!on_node || phase == "Succeeded" || phase == "Failed") grace = 0;
        if (grace < 0) grace = 1;
        if (grace > 0 || has_finalizers) {
          std::int64_t deadline = now() + grace;
          if (auto* dt = meta.if_contains("deletionTimestamp"); dt && dt->is_string()) {
            // A repeated delete may shorten the grace period, never lengthen it.
            auto old = parse_rfc3339(dt->get_string());
            if (old && *old <= deadline) {
              if (!has_finalizers || grace > 0) return json_response(200, to_view(r, cur->json));
            }
          }
          meta["deletionTimestamp"] = format_rfc3339(deadline);
          meta["deletionGracePeriodSeconds"] = grace;
          auto c = store.put(storage_id(r), obj, cur->rv, grace > 0 ? std::max<std::int64_t>(deadline, 1) : 0);
          if (c.status == Store::CommitStatus::Changed) continue;
          if (c.status == Store::CommitStatus::NotFound) return error_response(not_found(r, name));
          return json_response(200, to_view(r, c.obj->json));
        }
        if (!meta.contains("deletionTimestamp")) {
          // Grace 0 (unbound, finished, or asked for): watchers still see MODIFIED with the
          // deletionTimestamp, then DELETED, as upstream writes the graceful update first.
          meta["deletionTimestamp"] = now_ts();
          meta["deletionGracePeriodSeconds"] = 0;
          auto c = store.put(storage_id(r), obj, cur->rv);
          if (c.status == Store::CommitStatus::Changed) continue;
          if (c.status != Store::CommitStatus::Ok) return error_response(not_found(r, name));
          auto d = store.remove(storage_id(r), ns, name, c.obj->rv, &obj);
          if (d.status != Store::CommitStatus::Ok) continue;
          return json_response(200, to_view(r, d.obj->json));
        }
        auto d = store.remove(storage_id(r), ns, name, cur->rv, &obj);
        if (d.status == Store::CommitStatus::Changed) continue;
        if (d.status == Store::CommitStatus::NotFound) return error_response(not_found(r, name));
        return json_response(200, to_view(r, d.obj->json));
      }
      if (has_finalizers) {
        if (!meta.contains("deletionTimestamp")) {
          meta["deletionTimestamp"] = now_ts();
          meta["deletionGracePeriodSeconds"] = 0;
          auto c = store.put(storage_id(r), obj, cur->rv);
          if (c.status == Store::CommitStatus::Changed) continue;
          return json_response(200, to_view(r, c.obj->json));
        }
        return json_response(200, to_view(r, cur->json));
      }
      if (r.group.empty() && r.plural == "namespaces") return delete_namespace(r, name, obj, cur->rv);
      auto d = store.remove(storage_id(r), ns, name, cur->rv, &obj);
      if (d.status == Store::CommitStatus::Changed) continue;
      if (d.status == Store::CommitStatus::NotFound) return error_response(not_found(r, name));
      return json_response(200, success_status(0, name, &r, cur->uid));
    }
    return error_response(conflict_modified(r, name));
  }

  // Namespaces go Terminating, lose their content, then disappear (no namespace controller here).
  Response delete_namespace(const ResourceInfo& r, const std::string& name, json::object obj, std::int64_t rv) {
    auto& meta = meta_of(obj);
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
        json::object o = json::parse(it->json).get_object();
        (void)store.remove(res.id, name, it->name, 0, &o);
      }
    }
    json::object last = json::parse(c.obj->json).get_object();
    (void)store.remove(storage_id(r), "", name, 0, &last);
    return json_response(200, out);
  }

  Response delete_one(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
    auto opt = delete_options(req);
    if (!opt) return error_response(bad_request(opt.error()));
    return remove(r, ns, name, *opt);
  }

  Response eviction(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
    auto decoded = decode_body(req.content_type, req.body);
    if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
    auto& body = std::get<json::object>(decoded);
    std::string bn = meta_str(body, "name");
    if (!bn.empty() && bn != name) return error_response(bad_request("name in URL does not match name in Eviction object"));
    if (auto blocked = pdb_blocks_eviction(r, ns, name)) return error_response(*blocked);
    auto* dopt = obj_at(body, "deleteOptions");
    json::object empty;
    auto opt = delete_options(Request{}, dopt ? dopt : &empty);
    if (!opt) return error_response(bad_request(opt.error()));
    Response resp = remove(r, ns, name, *opt);
    if (resp.status != 200) return resp;
    return json_response(201, success_status(201, "", nullptr, ""));
  }

  // A label selector (metav1.LabelSelector JSON) in the string grammar.
  static std::optional<LabelSelector> selector_of(const json::object* sel) {
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

  static bool pod_healthy(const json::object& pod) {
    auto* st = obj_at(pod, "status");
    if (!st || str(*st, "phase") != "Running") return false;
    if (auto* m = obj_at(pod, "metadata"); m && m->contains("deletionTimestamp")) return false;
    if (auto* cs = st->if_contains("conditions"); cs && cs->is_array())
      for (const auto& c : cs->get_array())
        if (c.is_object() && str(c.get_object(), "type") == "Ready") return str(c.get_object(), "status") == "True";
    return false;
  }

  // PodDisruptionBudget check of pods/eviction, computed from the current pods (there is no
  // disruption controller): 429 when evicting would leave fewer healthy pods than the budget.
  std::optional<ApiError> pdb_blocks_eviction(const ResourceInfo& r, const std::string& ns, const std::string& name) {
    auto cur = store.get(storage_id(r), ns, name);
    if (!cur) return not_found(r, name);
    json::object pod = json::parse(cur->json).get_object();
    auto* st = obj_at(pod, "status");
    std::string phase = st ? str(*st, "phase") : "";
    if (phase != "Running") return std::nullopt;  // pending/terminal pods are evicted regardless
    const ResourceInfo& pdbr = *find_resource("policy", "v1", "poddisruptionbudgets");
    Store::ListOptions lo;
    lo.ns = ns;
    auto pdbs = store.list(pdbr.id, lo);
    if (!pdbs) return std::nullopt;
    for (const auto& po : pdbs->items) {
      json::object pdb = json::parse(po->json).get_object();
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

  // ------------------------------------------------------------ list / watch
  struct Selectors {
    LabelSelector labels;
    FieldSelector fields;
  };

  std::optional<ApiError> parse_selectors(const ResourceInfo& r, const Request& req, Selectors& s) {
    if (auto* ls = req.param("labelSelector")) {
      auto p = LabelSelector::parse(*ls);
      if (!p) return bad_request(p.error());
      s.labels = std::move(*p);
    }
    if (auto* fs = req.param("fieldSelector")) {
      auto p = FieldSelector::parse(*fs);
      if (!p) return bad_request(p.error());
      for (const auto& q : p->requirements()) {
        auto ok = check_field_selector_field(r, q.field);
        if (!ok) return bad_request(ok.error());
      }
      s.fields = std::move(*p);
    }
    return std::nullopt;
  }

  static ApiError list_options_invalid(const std::string& msg) {
    ApiError e{422, "Invalid", "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: " + msg};
    e.kind = "ListOptions";
    e.group = "meta.k8s.io";
    e.causes.push_back(Cause{"FieldValueForbidden", "Forbidden: " + msg, "resourceVersionMatch"});
    return e;
  }

  std::string list_kind(const ResourceInfo& r) { return r.kind + "List"; }

  Response list(const ResourceInfo& r, const std::string& ns, const Request& req) {
    Selectors sel;
    if (auto e = parse_selectors(r, req, sel)) return error_response(*e);
    if (query_bool(req.param("watch"))) return watch(r, ns, req, std::move(sel));
    const std::string* rvp = req.param("resourceVersion");
    const std::string* match = req.param("resourceVersionMatch");
    const std::string* cont = req.param("continue");
    std::string rv = rvp ? *rvp : "";
    std::string m = match ? *match : "";
    if (cont && cont->empty()) cont = nullptr;
    if (query_bool(req.param("sendInitialEvents")))
      return error_response(list_options_invalid("sendInitialEvents is forbidden for list"));
    if (!m.empty()) {
      if (cont) return error_response(list_options_invalid("resourceVersionMatch is forbidden when continue is provided"));
      if (rv.empty()) return error_response(list_options_invalid("resourceVersionMatch is forbidden unless resourceVersion is provided"));
      if (m == "Exact" && rv == "0")
        return error_response(list_options_invalid("resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
      if (m != "Exact" && m != "NotOlderThan") {
        ApiError e{422, "Invalid", "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: \"" + m +
                                       "\": supported values: \"Exact\", \"NotOlderThan\", \"\""};
        return error_response(e);
      }
    }
    std::size_t limit = 0;
    if (auto* l = req.param("limit")) {
      auto v = parse_rv(*l);
      if (v && *v > 0) limit = static_cast<std::size_t>(*v);
    }
    Store::ListOptions lo;
    lo.ns = ns;
    lo.labels = sel.labels.empty() ? nullptr : &sel.labels;
    lo.fields = sel.fields.empty() ? nullptr : &sel.fields;
    std::int64_t current = store.revision();
    if (cont) {
      if (!rv.empty() && rv != "0" && !m.empty())
        return error_response(bad_request("specifying resource version is not allowed when using continue"));
      if (!rv.empty())
        return error_response(bad_request("specifying resource version is not allowed when using continue"));
      auto tok = decode_continue(*cont);
      if (!tok) return error_response(bad_request("invalid continue token: " + tok.error()));
      const std::int64_t trv = tok->rv;
      if (trv > 0) lo.at_rv = trv;  // < 0: from the current state, as upstream
      lo.start_after = ns.empty() ? tok->start : object_key(ns, tok->start);
      lo.limit = limit;
      if (trv > 0 && trv < store.compacted_revision()) {
        ApiError e{410, "Expired",
                   "The provided continue parameter is too old to display a consistent list result. You can start a new "
                   "list without the continue parameter, or use the continue token in this response to retrieve the "
                   "remainder of the results. Continuing with the provided token results in an inconsistent list - "
                   "objects that were created, modified, or deleted between the time the first chunk was returned and "
                   "now may show up in the list."};
        return error_response(e);
      }
    } else if (!rv.empty()) {
      auto v = parse_rv(rv);
      if (!v) return error_response(bad_request("invalid resource version: strconv.ParseUint: parsing \"" + rv + "\": invalid syntax"));
      if (*v > current) {
        ApiError e{504, "Timeout", "Timeout: Too large resource version: " + rv + ", current: " + std::to_string(current)};
        e.causes.push_back(Cause{"ResourceVersionTooLarge", "Too large resource version", ""});
        e.retry_after = 1;
        return error_response(e);
      }
      if (*v == 0) {
        limit = 0;  // served from "cache": everything in one page
      } else if (m == "Exact" || (m.empty() && limit)) {
        lo.at_rv = *v;
        if (*v < store.compacted_revision())
          return error_response(ApiError{410, "Expired", "The resourceVersion for the provided list is too old."});
      }
      lo.limit = limit;
    } else {
      lo.limit = limit;
    }
    auto res = store.list(storage_id(r), lo);
    if (!res) return error_response(ApiError{410, "Expired", "The resourceVersion for the provided list is too old."});
    std::string cont_out;
    if (!res->next_key.empty()) {
      std::string key = res->next_key;
      if (!ns.empty() && key.size() > ns.size() + 1) key = key.substr(ns.size() + 1);
      cont_out = encode_continue(res->rv, key);
    }
    if (is_table_accept(req.accept)) {
      std::vector<std::string> viewed;
      std::vector<std::string_view> items;
      items.reserve(res->items.size());
      if (is_event_view(r)) {
        viewed.reserve(res->items.size());
        for (const auto& o : res->items) viewed.push_back(to_view(r, o->json));
        for (const auto& v : viewed) items.push_back(v);
      } else {
        for (const auto& o : res->items) items.push_back(o->json);
      }
      TableOptions t;
      t.now_unix = now();
      t.include = include_param(req);
      return json_response(200, make_table(r, items, t, std::to_string(res->rv), cont_out,
                                           cont_out.empty() ? -1 : res->remaining));
    }
    std::string out;
    std::size_t total = 128;
    for (const auto& o : res->items) total += o->json.size() + 1;
    out.reserve(total);
    out += "{\"kind\":\"" + list_kind(r) + "\",\"apiVersion\":\"" + r.group_version() + "\",\"metadata\":{\"resourceVersion\":\"" +
           std::to_string(res->rv) + "\"";
    if (!cont_out.empty()) {
      out += ",\"continue\":\"" + cont_out + "\"";
      if (res->remaining >= 0) out += ",\"remainingItemCount\":" + std::to_string(res->remaining);
    }
    out += "},\"items\":[";
    bool first = true;
    // Items of a typed list carry no kind or apiVersion (upstream's list encoding).
    const std::string type_prefix = "{\"kind\":\"" + r.kind + "\",\"apiVersion\":\"" + r.group_version() + "\"";
    for (const auto& o : res->items) {
      if (!first) out += ',';
      first = false;
      std::string viewed;
      std::string_view item = o->json;
      if (is_event_view(r)) item = viewed = to_view(r, o->json);
      if (item.starts_with(type_prefix)) {
        item.remove_prefix(type_prefix.size());
        out += '{';
        if (item.starts_with(',')) item.remove_prefix(1);
      }
      out += item;
    }
    out += "]}";
    return json_response(200, std::move(out));
  }

  Response watch(const ResourceInfo& r, const std::string& ns, const Request& req, Selectors sel) {
    const std::string* rvp = req.param("resourceVersion");
    std::string rv = rvp ? *rvp : "";
    const std::string* match = req.param("resourceVersionMatch");
    bool send_initial = query_bool(req.param("sendInitialEvents"));
    bool bookmarks = query_bool(req.param("allowWatchBookmarks"));
    if (req.param("sendInitialEvents")) {
      if (!match || *match != "NotOlderThan")
        return error_response(list_options_invalid(
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
      if (!bookmarks)
        return error_response(list_options_invalid("sendInitialEvents requires setting allowWatchBookmarks to true"));
    } else if (match && !match->empty()) {
      return error_response(list_options_invalid("resourceVersionMatch is forbidden for watch"));
    }
    std::int64_t from = 0;
    bool initial = rv.empty() || rv == "0";
    if (!initial) {
      auto v = parse_rv(rv);
      if (!v) return error_response(bad_request("invalid resource version: strconv.ParseUint: parsing \"" + rv + "\": invalid syntax"));
      from = *v;
      // A revision this store has not reached (the client saw a previous incarnation of the server):
      // answer as upstream's watch cache does once its wait for freshness expires, so the client
      // relists instead of watching from a point whose history it never got.
      if (std::int64_t current = store.revision(); from > current) {
        ApiError e{504, "Timeout", "Timeout: Too large resource version: " + rv + ", current: " + std::to_string(current)};
        e.causes.push_back(Cause{"ResourceVersionTooLarge", "Too large resource version", ""});
        e.retry_after = 1;
        return error_response(e);
      }
    }
    if (req.param("sendInitialEvents")) initial = send_initial;
    auto w = std::make_shared<Watcher>(storage_id(r), ns, std::move(sel.labels), std::move(sel.fields), kMaxPending);
    Response resp;
    resp.watch_resource = &r;
    resp.bookmarks = bookmarks;
    resp.watch_table = is_table_accept(req.accept);
    resp.watch_include = include_param(req);
    resp.timeout_seconds = 1800;
    if (auto* t = req.param("timeoutSeconds")) {
      auto v = parse_rv(*t);
      if (v && *v > 0) resp.timeout_seconds = static_cast<int>(std::min<std::int64_t>(*v, 1 << 30));
    }
    auto ok = store.watch(w, from, initial, send_initial && initial);
    if (!ok) {
      ApiError e{410, "Expired", ok.error()};
      resp.body = "{\"type\":\"ERROR\",\"object\":" + e.to_json() + "}\n";
      return resp;
    }
    resp.watcher = std::move(w);
    return resp;
  }

  Response delete_collection(const ResourceInfo& r, const std::string& ns, const Request& req) {
    Selectors sel;
    if (auto e = parse_selectors(r, req, sel)) return error_response(*e);
    auto opt = delete_options(req);
    if (!opt) return error_response(bad_request(opt.error()));
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
      out += is_event_view(r) ? to_view(r, o->json) : o->json;
    }
    out += "]}";
    return json_response(200, std::move(out));
  }

  static constexpr std::size_t kMaxPending = 50000;

  // ------------------------------------------------------------ reviews (answered, not stored)
  static json::object review_shell(const ResourceInfo& r, json::object& body) {
    json::object out{{"kind", r.kind}, {"apiVersion", r.group_version()}};
    json::object meta;
    if (auto* m = body.if_contains("metadata"); m && m->is_object()) meta = m->get_object();
    meta["creationTimestamp"] = nullptr;
    out["metadata"] = std::move(meta);
    auto* spec = body.if_contains("spec");
    out["spec"] = spec && spec->is_object() ? spec->get_object() : json::object();
    return out;
  }

  Response token_review(const ResourceInfo& r, const Request& req) {
    auto decoded = decode_body(req.content_type, req.body);
    if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
    auto& body = std::get<json::object>(decoded);
    json::object out = review_shell(r, body);
    std::string token = str(out["spec"].get_object(), "token");
    if (token.empty())
      return error_response(ApiError{422, "Invalid", "TokenReview.authentication.k8s.io \"\" is invalid: spec.token: "
                                                     "Required value: token must be specified"});
    const UserInfo* u = api.authenticator() ? api.authenticator()->authenticate("Bearer " + token) : nullptr;
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

  Response subject_access_review(const ResourceInfo& r, const Request& req) {
    auto decoded = decode_body(req.content_type, req.body);
    if (auto* e = std::get_if<ApiError>(&decoded)) return error_response(*e);
    auto& body = std::get<json::object>(decoded);
    json::object out = review_shell(r, body);
    const json::object& spec = out["spec"].get_object();
    AccessAttributes a;
    a.user = str(spec, "user");
    if (auto* g = spec.if_contains("groups"); g && g->is_array())
      for (const auto& x : g->get_array())
        if (x.is_string()) a.groups.emplace_back(x.get_string());
    const json::object* ra = obj_at(spec, "resourceAttributes");
    const json::object* na = obj_at(spec, "nonResourceAttributes");
    auto invalid = [](const std::string& field, const std::string& msg) {
      ApiError e{422, "Invalid", "SubjectAccessReview.authorization.k8s.io \"\" is invalid: " + field + ": " + msg};
      e.kind = "SubjectAccessReview";
      e.group = "authorization.k8s.io";
      e.causes.push_back(Cause{"FieldValueInvalid", msg, field});
      return e;
    };
    if ((ra != nullptr) == (na != nullptr))
      return error_response(invalid("spec.resourceAttributes",
                                    "Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes "
                                    "must be specified"));
    if (a.user.empty() && a.groups.empty())
      return error_response(invalid("spec.user", "Invalid value: \"\": at least one of user or group must be specified"));
    if (ra) {
      a.resource_request = true;
      a.verb = str(*ra, "verb");
      a.group = str(*ra, "group");
      a.resource = str(*ra, "resource");
      a.subresource = str(*ra, "subresource");
      a.ns = str(*ra, "namespace");
      a.name = str(*ra, "name");
    } else {
      a.resource_request = false;
      a.verb = str(*na, "verb");
      a.path = str(*na, "path");
    }
    AccessDecision d = authorize_rbac(store, a);
    json::object status{{"allowed", d.allowed}};
    if (!d.reason.empty()) status["reason"] = d.reason;
    out["status"] = std::move(status);
    return json_response(201, json::serialize(out));
  }

  // ------------------------------------------------------------ routing
  Response route(const Request& req) {
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
    if (path == "/openapi/v3" || path == "/openapi/v3/") return json_response(200, openapi_v3_index());
    if (path.starts_with("/openapi/v3/")) {
      std::string doc = openapi_v3_document(std::string_view(path).substr(12));
      if (doc.empty()) return plain(404, "404 page not found\n");
      return json_response(200, doc);
    }
    std::vector<std::string> seg;
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
      if (seg.size() == 1) return discovery_root(req, true, api.server_address_);
      if (seg[1] != "v1") return plain(404, "404 page not found\n");
      if (seg.size() == 2) return json_response(200, discovery_resource_list("", "v1"));
      version = seg[1];
      rest = 2;
    } else if (seg[0] == "apis") {
      if (seg.size() == 1) return discovery_root(req, false, api.server_address_);
      if (seg.size() == 2) {
        std::string g = discovery_group(seg[1]);
        if (g.empty()) return plain(404, "404 page not found\n");
        return json_response(200, g);
      }
      std::string rl = discovery_resource_list(seg[1], seg[2]);
      if (rl.empty()) return plain(404, "404 page not found\n");
      if (seg.size() == 3) return json_response(200, rl);
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
    if (!r) return not_found_resource();
    if (!ns.empty() && !r->namespaced) return not_found_resource();
    if (r->namespaced && ns.empty() && !name.empty()) return not_found_resource();
    if (!sub.empty() && !r->has_sub(sub)) return not_found_resource();
    const std::string& m = req.method;
    if (r->create_only && r->plural == "tokenreviews")
      return m == "POST" && name.empty() ? token_review(*r, req) : method_not_allowed();
    if (r->create_only && r->plural == "subjectaccessreviews")
      return m == "POST" && name.empty() ? subject_access_review(*r, req) : method_not_allowed();
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

  static Response not_found_resource() {
    return error_response(ApiError{404, "NotFound", "the server could not find the requested resource"});
  }
  static Response method_not_allowed() {
    return error_response(ApiError{405, "MethodNotAllowed", "the server does not allow this method on the requested resource"});
  }
};

// ---------------------------------------------------------------- Api

Api::Api(std::size_t watch_history, util::Clock& clock) : store_(watch_history), clock_(clock) {}
Api::~Api() = default;

std::int64_t Api::now_unix() const {
  return std::chrono::duration_cast<std::chrono::seconds>(clock_.wall_now().time_since_epoch()).count();
}

Response Api::handle(const Request& req) {
  Impl impl{*this, store_};
  try {
    return impl.route(req);
  } catch (const std::exception& e) {
    log::error("request failed", {{"method", req.method}, {"path", req.path}, {"err", e.what()}});
    return error_response(internal_error(e.what()));
  }
}

void Api::bootstrap() {
  Impl impl{*this, store_};
  const ResourceInfo& nsr = *find_resource("", "v1", "namespaces");
  for (const char* n : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    json::object o{{"metadata", json::object{{"name", n}}}};
    (void)impl.do_create(nsr, "", o, false);
  }
  const ResourceInfo& pcr = *find_resource("scheduling.k8s.io", "v1", "priorityclasses");
  for (auto [n, v] : {std::pair{"system-node-critical", 2000001000}, std::pair{"system-cluster-critical", 2000000000}}) {
    json::object o{{"metadata", json::object{{"name", n}}},
                   {"value", v},
                   {"preemptionPolicy", "PreemptLowerPriority"},
                   {"description", std::string("Used for system critical pods that must not be moved from their current ") +
                                       (v == 2000001000 ? "node." : "node.")}};
    (void)impl.do_create(pcr, "", o, false);
  }
  // The bootstrap RBAC policy a scheduler relies on (rules as upstream's bootstrap policy).
  auto create_rbac = [&](std::string_view plural, const std::string& ns, std::string_view body) {
    json::object o = json::parse(body).as_object();
    auto& meta = o["metadata"].as_object();
    meta["labels"] = json::object{{"kubernetes.io/bootstrapping", "rbac-defaults"}};
    meta["annotations"] = json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}};
    (void)impl.do_create(*find_resource("rbac.authorization.k8s.io", "v1", plural), ns, o, false);
  };
  create_rbac("clusterroles", "", R"({"metadata":{"name":"cluster-admin"},"rules":[
    {"apiGroups":["*"],"resources":["*"],"verbs":["*"]},{"nonResourceURLs":["*"],"verbs":["*"]}]})");
  create_rbac("clusterrolebindings", "", R"({"metadata":{"name":"cluster-admin"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},
    "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:masters"}]})");
  create_rbac("clusterroles", "", R"({"metadata":{"name":"system:kube-scheduler"},"rules":[
    {"apiGroups":["","events.k8s.io"],"resources":["events"],"verbs":["create","patch","update"]},
    {"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["create"]},
    {"apiGroups":["coordination.k8s.io"],"resourceNames":["kube-scheduler"],"resources":["leases"],"verbs":["get","update"]},
    {"apiGroups":[""],"resources":["nodes"],"verbs":["get","list","watch"]},
    {"apiGroups":[""],"resources":["pods"],"verbs":["delete","get","list","watch"]},
    {"apiGroups":[""],"resources":["bindings","pods/binding"],"verbs":["create"]},
    {"apiGroups":[""],"resources":["pods/status"],"verbs":["patch","update"]},
    {"apiGroups":[""],"resources":["replicationcontrollers","services"],"verbs":["get","list","watch"]},
    {"apiGroups":["apps","extensions"],"resources":["replicasets"],"verbs":["get","list","watch"]},
    {"apiGroups":["apps"],"resources":["statefulsets"],"verbs":["get","list","watch"]},
    {"apiGroups":["policy"],"resources":["poddisruptionbudgets"],"verbs":["get","list","watch"]},
    {"apiGroups":[""],"resources":["persistentvolumeclaims","persistentvolumes"],"verbs":["get","list","watch"]},
    {"apiGroups":["authentication.k8s.io"],"resources":["tokenreviews"],"verbs":["create"]},
    {"apiGroups":["authorization.k8s.io"],"resources":["subjectaccessreviews"],"verbs":["create"]},
    {"apiGroups":["storage.k8s.io"],"resources":["csinodes"],"verbs":["get","list","watch"]},
    {"apiGroups":[""],"resources":["namespaces"],"verbs":["get","list","watch"]},
    {"apiGroups":["storage.k8s.io"],"resources":["csidrivers"],"verbs":["get","list","watch"]},
    {"apiGroups":["storage.k8s.io"],"resources":["csistoragecapacities"],"verbs":["get","list","watch"]}]})");
  create_rbac("clusterrolebindings", "", R"({"metadata":{"name":"system:kube-scheduler"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:kube-scheduler"},
    "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:kube-scheduler"}]})");
  create_rbac("clusterroles", "", R"({"metadata":{"name":"system:volume-scheduler"},"rules":[
    {"apiGroups":[""],"resources":["persistentvolumes"],"verbs":["get","list","patch","update","watch"]},
    {"apiGroups":["storage.k8s.io"],"resources":["storageclasses"],"verbs":["get","list","watch"]},
    {"apiGroups":[""],"resources":["persistentvolumeclaims"],"verbs":["get","list","patch","update","watch"]}]})");
  create_rbac("clusterrolebindings", "", R"({"metadata":{"name":"system:volume-scheduler"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:volume-scheduler"},
    "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:kube-scheduler"}]})");
  create_rbac("roles", "kube-system", R"({"metadata":{"name":"extension-apiserver-authentication-reader"},"rules":[
    {"apiGroups":[""],"resourceNames":["extension-apiserver-authentication"],"resources":["configmaps"],
     "verbs":["get","list","watch"]}]})");
  create_rbac("rolebindings", "kube-system", R"({"metadata":{"name":"system::extension-apiserver-authentication-reader"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"extension-apiserver-authentication-reader"},
    "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:kube-controller-manager"},
                {"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:kube-scheduler"}]})");
}

util::Result<void> Api::create_nodes(int n, const std::string& template_path) {
  json::object tmpl;
  if (!template_path.empty()) {
    std::ifstream in(template_path);
    if (!in) return util::make_error("cannot read node template \"" + template_path + "\"");
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      json::value v = api::yaml_to_json(YAML::Load(ss.str()));
      if (!v.is_object()) return util::make_error("node template \"" + template_path + "\" is not an object");
      tmpl = std::move(v.get_object());
    } catch (const std::exception& e) {
      return util::make_error("node template \"" + template_path + "\": " + e.what());
    }
  } else {
    json::object res{{"cpu", "32"}, {"memory", "256Gi"}, {"pods", "110"}, {"ephemeral-storage", "100Gi"}};
    tmpl = json::object{{"status", json::object{{"capacity", res}, {"allocatable", res}}}};
  }
  Impl impl{*this, store_};
  const ResourceInfo& nr = *find_resource("", "v1", "nodes");
  for (int i = 0; i < n; ++i) {
    json::object o = tmpl;
    std::string name = "node-" + std::to_string(i);
    auto& meta = meta_of(o);
    meta["name"] = name;
    auto& labels = meta["labels"];
    if (!labels.is_object()) labels = json::object();
    labels.get_object()["type"] = "simulated";
    labels.get_object()["kubernetes.io/hostname"] = name;
    labels.get_object()["kubernetes.io/os"] = "linux";
    auto& st = o["status"];
    if (!st.is_object()) st = json::object();
    auto& so = st.get_object();
    if (!so.contains("allocatable") && so.contains("capacity")) so["allocatable"] = so["capacity"];
    std::string ts = format_rfc3339(now_unix());
    so["conditions"] = json::array{json::object{{"type", "Ready"},
                                                {"status", "True"},
                                                {"reason", "KubeletReady"},
                                                {"message", "kubelet is posting ready status"},
                                                {"lastHeartbeatTime", ts},
                                                {"lastTransitionTime", ts}}};
    so["addresses"] = json::array{json::object{{"type", "InternalIP"}, {"address", "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1)}},
                                  json::object{{"type", "Hostname"}, {"address", name}}};
    // Every NodeSystemInfo field is required by typed clients (e.g. the Python models).
    json::object info{{"kubeletVersion", "v1.32.0"},       {"kubeProxyVersion", "v1.32.0"},
                      {"osImage", "ksched simulated"},     {"kernelVersion", "6.1.0"},
                      {"containerRuntimeVersion", "sim://1.0"}, {"operatingSystem", "linux"},
                      {"architecture", "amd64"},           {"machineID", name},
                      {"systemUUID", new_uid()},           {"bootID", new_uid()}};
    if (auto* ni = so.if_contains("nodeInfo"); ni && ni->is_object())
      for (const auto& kv : ni->get_object()) info[kv.key()] = kv.value();
    so["nodeInfo"] = std::move(info);
    auto res = impl.do_create(nr, "", o, false);
    if (!res && res.err->code != 409) return util::make_error("creating node " + name + ": " + res.err->message);
  }
  return {};
}

void Api::reap_deletions() {
  const ResourceInfo& pr = *find_resource("", "v1", "pods");
  for (const auto& o : store_.expired_deletions(pr.id, now_unix())) {
    json::object obj = json::parse(o->json).get_object();
    auto& meta = meta_of(obj);
    meta["deletionGracePeriodSeconds"] = 0;
    (void)store_.remove(pr.id, o->ns, o->name, o->rv, &obj);
  }
}

std::string Api::format_watch_item(const ResourceInfo& r, const WatchItem& it, bool table, IncludeObject include,
                                   bool& columns_sent) const {
  auto bookmark = [&](std::int64_t rv, bool end) {
    std::string s = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"" + r.kind + "\",\"apiVersion\":\"" + r.group_version() +
                    "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(rv) + "\",\"creationTimestamp\":null";
    if (end) s += ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}";
    s += "}}}\n";
    return s;
  };
  switch (it.kind) {
    case WatchItem::Kind::Bookmark: return bookmark(it.rv, false);
    case WatchItem::Kind::InitialEnd: return bookmark(it.rv, true);
    case WatchItem::Kind::Error: return "{\"type\":\"ERROR\",\"object\":" + it.text + "}\n";
    default: break;
  }
  const char* type = it.kind == WatchItem::Kind::Added ? "ADDED" : it.kind == WatchItem::Kind::Modified ? "MODIFIED" : "DELETED";
  std::string body;
  std::string restamped;
  std::string_view obj = it.obj->json;
  if (it.restamp) {
    json::value v = json::parse(it.obj->json);
    v.get_object()["metadata"].get_object()["resourceVersion"] = std::to_string(it.rv);
    restamped = json::serialize(v);
    obj = restamped;
  }
  std::string viewed;
  if (is_event_view(r)) {
    viewed = to_view(r, obj);
    obj = viewed;
  }
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
