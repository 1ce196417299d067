// Get, list (selectors, pagination, tables) and watch.
#include "apiserver/endpoints/handlers_impl.h"

namespace ksched::apiserver {

namespace {
Response protobuf_response(std::string body) {
  Response r;
  r.content_type = std::string(protobuf::kContentType);
  r.body = std::move(body);
  return r;
}
}  // namespace

Response Api::Impl::get(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req) {
  // Without a resourceVersion a GET is a consistent read, as upstream's quorum read of etcd.
  if (auto* rv = req.param("resourceVersion"); !rv || rv->empty()) store.sync_for_read();
  auto o = store.get_published(storage_id(r), ns, name);
  if (!o) return error_response(not_found(r, name));
  if (is_table_accept(req.accept)) {
    if (auto e = check_table_options(req)) return error_response(*e);
    TableOptions t;
    t.now_unix = now();
    t.include = include_param(req);
    std::string viewed = to_view(r, o->json);
    return json_response(200, make_table(r, {viewed}, t, "", "", -1));
  }
  if (protobuf::negotiate(req.accept, protobuf::encodable(r)) == protobuf::Output::Protobuf) {
    if (!is_converted(r)) {
      if (const std::string* m = protobuf::object_message(r, *o)) return protobuf_response(protobuf::object_body(r, *m));
    } else if (auto m = protobuf::message_of(r, to_view(r, o->json))) {
      return protobuf_response(protobuf::object_body(r, *m));
    }
  }
  return json_response(200, to_view(r, o->json));
}

IncludeObject Api::Impl::include_param(const Request& req) {
  const std::string* v = req.param("includeObject");
  if (!v) return IncludeObject::Metadata;
  if (*v == "None") return IncludeObject::None;
  if (*v == "Object") return IncludeObject::Object;
  return IncludeObject::Metadata;
}

std::optional<ApiError> Api::Impl::parse_selectors(const ResourceInfo& r, const Request& req, Selectors& s) {
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

Response Api::Impl::list(const ResourceInfo& r, const std::string& ns, const Request& req) {
  if (auto e = check_list_options(req)) return error_response(*e);
  Selectors sel;
  if (auto e = parse_selectors(r, req, sel)) return error_response(*e);
  if (is_table_accept(req.accept))
    if (auto e = check_table_options(req)) return error_response(*e);
  if (query_bool(req.param("watch"))) return watch(r, ns, req, std::move(sel));
  const std::string* rvp = req.param("resourceVersion");
  const std::string* match = req.param("resourceVersionMatch");
  const std::string* cont = req.param("continue");
  std::string rv = rvp ? *rvp : "";
  std::string m = match ? *match : "";
  if (cont && cont->empty()) cont = nullptr;
  // limit <= 0 is no limit, as upstream (check_list_options made sure it parses).
  std::size_t limit = 0;
  if (auto l = query_int64(req, "limit"); l && *l && **l > 0) limit = static_cast<std::size_t>(**l);
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
    // A revision another server already has: this one catches up for a moment (upstream's cache
    // waits up to 3 s too).
    if (*v > current && store.catch_up(*v, std::chrono::seconds(3))) current = store.revision();
    if (*v > current) {
      ApiError e{504, "Timeout", "Timeout: Too large resource version: " + rv + ", current: " + std::to_string(current)};
      e.causes.push_back(Cause{"ResourceVersionTooLarge", "Too large resource version", ""});
      e.retry_after_seconds = 1;
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
    // A list without a resourceVersion is consistent (upstream serves it from its cache once the
    // cache holds etcd's current revision).
    store.sync_for_read();
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
    if (is_converted(r)) {
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
  if (protobuf::negotiate(req.accept, protobuf::list_encodable(r)) == protobuf::Output::Protobuf) {
    // Each item's encoding is the stored object's own (made once); a list with an object the
    // tables cannot carry is served as JSON.
    std::vector<std::string> converted;
    std::vector<std::string_view> items;
    items.reserve(res->items.size());
    bool ok = true;
    for (const auto& o : res->items) {
      if (is_converted(r)) {
        auto m = protobuf::message_of(r, to_view(r, o->json));
        if (!m) ok = false;
        else converted.push_back(std::move(*m));
      } else if (const std::string* m = protobuf::object_message(r, *o)) {
        items.push_back(*m);
      } else {
        ok = false;
      }
      if (!ok) break;
    }
    for (const auto& m : converted) items.push_back(m);
    if (ok)
      return protobuf_response(protobuf::list_body(r, items, std::to_string(res->rv), cont_out,
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
    if (is_converted(r)) item = viewed = to_view(r, o->json);
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

Response Api::Impl::watch(const ResourceInfo& r, const std::string& ns, const Request& req, Selectors sel) {
  const std::string* rvp = req.param("resourceVersion");
  std::string rv = rvp ? *rvp : "";
  const std::string* match = req.param("resourceVersionMatch");
  bool send_initial = query_bool(req.param("sendInitialEvents"));
  bool bookmarks = query_bool(req.param("allowWatchBookmarks"));
  (void)match;  // list() checked it with the other watch options
  std::int64_t from = 0;
  bool initial = rv.empty() || rv == "0";
  if (!initial) {
    auto v = parse_rv(rv);
    if (!v) return error_response(bad_request("invalid resource version: strconv.ParseUint: parsing \"" + rv + "\": invalid syntax"));
    from = *v;
    // A revision this store has not reached (the client saw a previous incarnation of the server):
    // answer as upstream's watch cache does once its wait for freshness expires, so the client
    // relists instead of watching from a point whose history it never got.
    if (std::int64_t current = store.revision(); from > current && !store.catch_up(from, std::chrono::seconds(3))) {
      ApiError e{504, "Timeout", "Timeout: Too large resource version: " + rv + ", current: " + std::to_string(current)};
      e.causes.push_back(Cause{"ResourceVersionTooLarge", "Too large resource version", ""});
      e.retry_after_seconds = 1;
      return error_response(e);
    }
  }
  if (req.param("sendInitialEvents")) initial = send_initial;
  auto w = std::make_shared<Watcher>(storage_id(r), ns, std::move(sel.labels), std::move(sel.fields), kMaxPending);
  Response resp;
  resp.watch_resource = &r;
  resp.bookmarks = bookmarks;
  resp.watch_table = is_table_accept(req.accept);
  resp.watch_protobuf =
      !resp.watch_table && protobuf::negotiate(req.accept, protobuf::encodable(r)) == protobuf::Output::Protobuf;
  resp.watch_include = include_param(req);
  resp.timeout_seconds = 1800;
  if (auto t = query_int64(req, "timeoutSeconds"); t && *t && **t > 0)
    resp.timeout_seconds = static_cast<int>(std::min<std::int64_t>(**t, 1 << 30));
  // The initial-events-end bookmark is a bookmark: sent only to a watch that asked for them.
  auto ok = store.watch(w, from, initial, send_initial && initial && bookmarks);
  if (!ok) {
    ApiError e{410, "Expired", ok.error()};
    if (resp.watch_protobuf) {
      resp.content_type = std::string(protobuf::kWatchContentType);
      (void)protobuf::append_watch_frame_json(resp.body, "v1", "Status", "ERROR", e.to_json());
    } else {
      resp.body = "{\"type\":\"ERROR\",\"object\":" + e.to_json() + "}\n";
    }
    return resp;
  }
  resp.watcher = std::move(w);
  return resp;
}

}  // namespace ksched::apiserver
