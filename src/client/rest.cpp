#include "client/rest.h"

#include <boost/json.hpp>

#include "api/protobuf_json.h"

namespace ksched::client {

std::string url_escape(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string ResourceRef::path() const {
  std::string p = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (!namespace_.empty()) p += "/namespaces/" + url_escape(namespace_);
  p += "/" + resource;
  if (!name.empty()) p += "/" + url_escape(name);
  if (!subresource.empty()) p += "/" + subresource;
  return p;
}

ResourceRef ResourceRef::of(const ResourceInfo& info, std::string_view ns, std::string_view name,
                            std::string_view subresource) {
  ResourceRef r;
  r.group = info.group;
  r.version = info.version;
  r.resource = info.resource;
  if (info.namespaced) r.namespace_ = ns;
  r.name = name;
  r.subresource = subresource;
  return r;
}

std::string ListOptions::query(bool watch) const {
  std::string q;
  auto add = [&](std::string_view k, std::string_view v) {
    q += q.empty() ? '?' : '&';
    q += k;
    q += '=';
    q += url_escape(v);
  };
  if (allowWatchBookmarks && watch) add("allowWatchBookmarks", "true");
  if (!continue_.empty()) add("continue", continue_);
  if (!fieldSelector.empty()) add("fieldSelector", fieldSelector);
  if (!labelSelector.empty()) add("labelSelector", labelSelector);
  if (limit > 0) add("limit", std::to_string(limit));
  if (!resourceVersion.empty()) add("resourceVersion", resourceVersion);
  if (!resourceVersionMatch.empty()) add("resourceVersionMatch", resourceVersionMatch);
  if (sendInitialEvents) add("sendInitialEvents", *sendInitialEvents ? "true" : "false");
  if (timeoutSeconds > 0) add("timeoutSeconds", std::to_string(timeoutSeconds));
  if (watch) add("watch", "true");
  return q;
}

std::string DeleteOptions::body() const {
  boost::json::object o;
  o["kind"] = "DeleteOptions";
  o["apiVersion"] = "v1";
  if (gracePeriodSeconds) o["gracePeriodSeconds"] = *gracePeriodSeconds;
  if (!propagationPolicy.empty()) o["propagationPolicy"] = propagationPolicy;
  if (!preconditionUID.empty() || !preconditionResourceVersion.empty()) {
    boost::json::object p;
    if (!preconditionUID.empty()) p["uid"] = preconditionUID;
    if (!preconditionResourceVersion.empty()) p["resourceVersion"] = preconditionResourceVersion;
    o["preconditions"] = std::move(p);
  }
  if (dryRun) o["dryRun"] = boost::json::array{"All"};
  return boost::json::serialize(o);
}

std::string_view content_type(PatchType t) {
  switch (t) {
    case PatchType::JSON: return "application/json-patch+json";
    case PatchType::Merge: return "application/merge-patch+json";
    case PatchType::StrategicMerge: return "application/strategic-merge-patch+json";
    case PatchType::Apply: return "application/apply-patch+yaml";
  }
  return "application/json";
}

util::Result<std::shared_ptr<RestClient>> RestClient::create(const RestConfig& cfg) {
  auto t = Transport::create(cfg);
  if (!t) return util::make_error(t.error());
  return std::make_shared<RestClient>(std::move(*t));
}

Result<std::string> RestClient::call(std::string method, const ResourceRef& r, std::string query, std::string body,
                                     std::string ct, bool pipelined, std::string_view accept) {
  HttpRequest req;
  req.pipelined = pipelined || (config().pipeline_writes && method != "GET");
  req.method = std::move(method);
  req.target = r.path() + query;
  req.body = std::move(body);
  req.content_type = std::move(ct);
  if (!accept.empty()) req.accept = accept;
  return body_of(t_->round_trip(req));
}

std::string RestClient::accept_for(const ResourceInfo& info, bool list) const {
  const RestConfig& c = config();
  if (!c.prefers_protobuf()) return c.accept_content_types.empty() ? "application/json" : c.accept_content_types;
  std::string gv = info.group.empty() ? std::string(info.version) : std::string(info.group) + "/" + std::string(info.version);
  std::string kind(info.kind);
  if (list) kind += "List";
  if (!api::protobuf::schema::registry().kind(gv, kind)) return "application/json";  // no tables: JSON
  if (!c.accept_content_types.empty()) return c.accept_content_types;
  return c.content_type + ", */*";
}

void RestClient::encode_body(std::string& body, std::string& content_type) const {
  if (!config().prefers_protobuf() || body.empty()) return;
  if (content_type != "application/json") return;  // patches keep their own media types
  if (auto pb = api::protobuf::from_json(body)) {
    body = std::move(*pb);
    content_type = std::string(api::protobuf::kContentType);
  }
}

// The body of a 2xx answer; any other answer is the server's Status as an error.
Result<std::string> RestClient::body_of(Result<HttpResponse> res) {
  if (!res) return res.error();
  if (res->status < 200 || res->status >= 300) {
    int ra = 0;
    auto h = res->header("Retry-After");
    if (!h.empty()) ra = std::atoi(h.c_str());
    return ApiError::from_response(res->status, res->body, ra);
  }
  return std::move(res->body);
}

Result<std::string> RestClient::get(const ResourceRef& r, std::string_view query, std::string_view accept) {
  return call("GET", r, std::string(query), {}, {}, false, accept);
}
Result<std::string> RestClient::list(const ResourceRef& r, const ListOptions& opts, std::string_view accept) {
  return call("GET", r, opts.query(false), {}, {}, false, accept);
}
Result<std::string> RestClient::create(const ResourceRef& r, std::string body, std::string_view query) {
  std::string ct = "application/json";
  encode_body(body, ct);
  return call("POST", r, std::string(query), std::move(body), std::move(ct));
}
std::vector<Result<std::string>> RestClient::create_all(const ResourceRef& r, std::vector<std::string> bodies) {
  std::vector<HttpRequest> reqs(bodies.size());
  const std::string target = r.path();
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    reqs[i].method = "POST";
    reqs[i].target = target;
    reqs[i].body = std::move(bodies[i]);
    reqs[i].content_type = "application/json";
    encode_body(reqs[i].body, reqs[i].content_type);
  }
  auto answers = t_->round_trip_all(reqs);
  std::vector<Result<std::string>> out;
  out.reserve(answers.size());
  for (auto& a : answers) out.push_back(body_of(std::move(a)));
  return out;
}

Result<std::string> RestClient::update(const ResourceRef& r, std::string body, std::string_view query) {
  std::string ct = "application/json";
  encode_body(body, ct);
  return call("PUT", r, std::string(query), std::move(body), std::move(ct));
}
Result<std::string> RestClient::patch(const ResourceRef& r, PatchType type, std::string body, std::string_view query) {
  return call("PATCH", r, std::string(query), std::move(body), std::string(content_type(type)));
}
Result<std::string> RestClient::remove(const ResourceRef& r, const DeleteOptions& opts) {
  std::string body = opts.body(), ct = "application/json";
  encode_body(body, ct);
  return call("DELETE", r, {}, std::move(body), std::move(ct));
}
Result<std::string> RestClient::delete_collection(const ResourceRef& r, const ListOptions& opts,
                                                  const DeleteOptions& d) {
  std::string body = d.body(), ct = "application/json";
  encode_body(body, ct);
  return call("DELETE", r, opts.query(false), std::move(body), std::move(ct));
}

Result<std::unique_ptr<WatchStream>> RestClient::watch(const ResourceRef& r, const ListOptions& opts,
                                                       std::string_view accept) {
  HttpRequest req;
  req.target = r.path() + opts.query(true);
  if (!accept.empty()) req.accept = accept;
  // The server ends the watch after timeoutSeconds; allow a generous idle margin beyond it.
  req.timeout = opts.timeoutSeconds > 0 ? std::chrono::milliseconds((opts.timeoutSeconds + 60) * 1000)
                                        : std::chrono::milliseconds(0);
  auto s = t_->open_stream(req);
  if (!s) return s.error();
  return std::make_unique<WatchStream>(std::move(*s));
}

Result<HttpResponse> RestClient::raw(std::string method, std::string target, std::string body, std::string ct) {
  HttpRequest req;
  req.method = std::move(method);
  req.target = std::move(target);
  req.body = std::move(body);
  req.content_type = std::move(ct);
  return t_->round_trip(req);
}

namespace {
// Written out directly: one per pod, and building a JSON object tree to serialize it cost more
// than the rest of the request.
std::string binding_body(std::string_view ns, std::string_view pod, std::string_view uid, std::string_view node) {
  std::string body;
  body.reserve(112 + ns.size() + pod.size() + uid.size() + node.size());
  body += R"({"kind":"Binding","apiVersion":"v1","metadata":{"name":)";
  api::detail::append_json_string(body, pod);
  body += R"(,"namespace":)";
  api::detail::append_json_string(body, ns);
  if (!uid.empty()) {
    body += R"(,"uid":)";
    api::detail::append_json_string(body, uid);
  }
  body += R"(},"target":{"kind":"Node","name":)";
  api::detail::append_json_string(body, node);
  body += "}}";
  return body;
}
}  // namespace

Result<void> RestClient::bind(std::string_view ns, std::string_view pod, std::string_view uid, std::string_view node) {
  ResourceRef r{"", "v1", "pods", std::string(ns), std::string(pod), "binding"};
  // Bindings are small and answered from memory: concurrent ones share a connection.
  std::string body = binding_body(ns, pod, uid, node), ct = "application/json";
  encode_body(body, ct);
  auto res = call("POST", r, {}, std::move(body), std::move(ct), /*pipelined=*/true, binding_accept());
  if (!res) return res.error();
  return {};
}

std::vector<Result<void>> RestClient::bind_all(const std::vector<BindingTarget>& bindings) {
  std::vector<HttpRequest> reqs(bindings.size());
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const auto& b = bindings[i];
    reqs[i].method = "POST";
    reqs[i].target = ResourceRef{"", "v1", "pods", std::string(b.ns), std::string(b.pod), "binding"}.path();
    reqs[i].body = binding_body(b.ns, b.pod, b.uid, b.node);
    reqs[i].content_type = "application/json";
    encode_body(reqs[i].body, reqs[i].content_type);
    reqs[i].accept = binding_accept();
  }
  auto answers = t_->round_trip_all(reqs);
  std::vector<Result<void>> out;
  out.reserve(answers.size());
  for (auto& a : answers) {
    auto body = body_of(std::move(a));
    if (body) {
      out.emplace_back();
    } else {
      out.emplace_back(body.error());
    }
  }
  return out;
}

}  // namespace ksched::client
