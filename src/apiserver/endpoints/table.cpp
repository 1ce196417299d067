#include "apiserver/endpoints/table.h"

#include <boost/json.hpp>
#include <ctime>

#include "apiserver/registry/strategy.h"
#include "apiserver/timeutil.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

struct Column {
  const char* name;
  const char* type;
  const char* format;
  int priority;
};

const json::value* at(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* cur = &v;
  for (auto k : path) {
    if (!cur->is_object()) return nullptr;
    cur = cur->get_object().if_contains(k);
    if (!cur) return nullptr;
  }
  return cur;
}

std::string s(const json::value& v, std::initializer_list<std::string_view> path, std::string dflt = "") {
  auto* x = at(v, path);
  if (!x) return dflt;
  if (x->is_string()) return x->get_string().empty() ? dflt : std::string(x->get_string());
  if (x->is_int64()) return std::to_string(x->get_int64());
  if (x->is_bool()) return x->get_bool() ? "true" : "false";
  return dflt;
}

std::string age(const json::value& o, std::int64_t now) {
  auto ts = s(o, {"metadata", "creationTimestamp"});
  if (ts.empty()) return "<unknown>";
  auto t = parse_rfc3339(ts);
  if (!t) return "<unknown>";
  return human_age(now - *t);
}

std::vector<Column> columns(const ResourceInfo& r) {
  if (const registry::Strategy* st = registry::strategy_for(r)) {
    std::vector<Column> out;
    for (const auto& c : st->table_columns()) out.push_back(Column{c.name, c.type, c.format, c.priority});
    if (!out.empty()) return out;
  }
  if (r.group.empty() && r.plural == "pods")
    return {{"Name", "string", "name", 0},        {"Ready", "string", "", 0},          {"Status", "string", "", 0},
            {"Restarts", "string", "", 0},        {"Age", "string", "", 0},            {"IP", "string", "", 1},
            {"Node", "string", "", 1},            {"Nominated Node", "string", "", 1}, {"Readiness Gates", "string", "", 1}};
  if (r.group.empty() && r.plural == "nodes")
    return {{"Name", "string", "name", 0},       {"Status", "string", "", 0},         {"Roles", "string", "", 0},
            {"Age", "string", "", 0},            {"Version", "string", "", 0},        {"Internal-IP", "string", "", 1},
            {"External-IP", "string", "", 1},    {"OS-Image", "string", "", 1},       {"Kernel-Version", "string", "", 1},
            {"Container-Runtime", "string", "", 1}};
  if (r.plural == "events" && (r.group.empty() || r.group == "events.k8s.io"))
    return {{"Last Seen", "string", "", 0}, {"Type", "string", "", 0}, {"Reason", "string", "", 0},
            {"Object", "string", "", 0},    {"Message", "string", "", 0}};
  if (r.plural == "leases") return {{"Name", "string", "name", 0}, {"Holder", "string", "", 0}, {"Age", "string", "", 0}};
  return {{"Name", "string", "name", 0}, {"Age", "string", "", 0}};
}

json::array cells(const ResourceInfo& r, const json::value& o, std::int64_t now) {
  if (const registry::Strategy* st = registry::strategy_for(r); st && o.is_object())
    return st->table_cells(o.get_object(), now);
  std::string name = s(o, {"metadata", "name"});
  if (r.group.empty() && r.plural == "pods") {
    std::int64_t total = 0, ready = 0, restarts = 0;
    if (auto* cs = at(o, {"spec", "containers"}); cs && cs->is_array()) total = static_cast<std::int64_t>(cs->get_array().size());
    if (auto* st = at(o, {"status", "containerStatuses"}); st && st->is_array()) {
      for (const auto& c : st->get_array()) {
        if (auto* rd = at(c, {"ready"}); rd && rd->is_bool() && rd->get_bool()) ++ready;
        if (auto* rc = at(c, {"restartCount"}); rc && rc->is_int64()) restarts += rc->get_int64();
      }
    }
    std::string status = s(o, {"status", "reason"}, s(o, {"status", "phase"}));
    if (at(o, {"metadata", "deletionTimestamp"}) && !at(o, {"metadata", "deletionTimestamp"})->is_null())
      status = "Terminating";
    return json::array{name,
                       std::to_string(ready) + "/" + std::to_string(total),
                       status,
                       std::to_string(restarts),
                       age(o, now),
                       s(o, {"status", "podIP"}, "<none>"),
                       s(o, {"spec", "nodeName"}, "<none>"),
                       s(o, {"status", "nominatedNodeName"}, "<none>"),
                       "<none>"};
  }
  if (r.group.empty() && r.plural == "nodes") {
    std::string status = "Unknown";
    if (auto* cs = at(o, {"status", "conditions"}); cs && cs->is_array()) {
      for (const auto& c : cs->get_array()) {
        if (s(c, {"type"}) != "Ready") continue;
        status = s(c, {"status"}) == "True" ? "Ready" : s(c, {"status"}) == "False" ? "NotReady" : "Unknown";
      }
    }
    if (auto* u = at(o, {"spec", "unschedulable"}); u && u->is_bool() && u->get_bool()) status += ",SchedulingDisabled";
    std::string roles;
    if (auto* l = at(o, {"metadata", "labels"}); l && l->is_object()) {
      for (const auto& kv : l->get_object()) {
        std::string_view k = kv.key();
        if (k.starts_with("node-role.kubernetes.io/")) {
          if (!roles.empty()) roles += ",";
          roles += std::string(k.substr(24));
        }
      }
    }
    std::string internal = "<none>", external = "<none>";
    if (auto* as = at(o, {"status", "addresses"}); as && as->is_array()) {
      for (const auto& a : as->get_array()) {
        if (s(a, {"type"}) == "InternalIP") internal = s(a, {"address"}, "<none>");
        if (s(a, {"type"}) == "ExternalIP") external = s(a, {"address"}, "<none>");
      }
    }
    return json::array{name,
                       status,
                       roles.empty() ? "<none>" : roles,
                       age(o, now),
                       s(o, {"status", "nodeInfo", "kubeletVersion"}),
                       internal,
                       external,
                       s(o, {"status", "nodeInfo", "osImage"}, "<unknown>"),
                       s(o, {"status", "nodeInfo", "kernelVersion"}, "<unknown>"),
                       s(o, {"status", "nodeInfo", "containerRuntimeVersion"}, "<unknown>")};
  }
  if (r.plural == "events" && r.group.empty()) {
    // kubectl's order: lastTimestamp, then the series' last observation, then eventTime.
    std::string last = s(o, {"lastTimestamp"},
                         s(o, {"series", "lastObservedTime"}, s(o, {"eventTime"}, s(o, {"metadata", "creationTimestamp"}))));
    auto t = parse_rfc3339(last);
    std::string kind = s(o, {"involvedObject", "kind"});
    for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return json::array{t ? human_age(now - *t) : "<unknown>", s(o, {"type"}), s(o, {"reason"}),
                       kind + "/" + s(o, {"involvedObject", "name"}), s(o, {"message"})};
  }
  if (r.plural == "events" && r.group == "events.k8s.io") {
    // The same columns as core events (upstream prints both from the internal type).
    std::string last = s(o, {"deprecatedLastTimestamp"},
                         s(o, {"series", "lastObservedTime"}, s(o, {"eventTime"}, s(o, {"metadata", "creationTimestamp"}))));
    auto t = parse_rfc3339(last);
    std::string kind = s(o, {"regarding", "kind"});
    for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return json::array{t ? human_age(now - *t) : "<unknown>", s(o, {"type"}), s(o, {"reason"}),
                       kind + "/" + s(o, {"regarding", "name"}), s(o, {"note"})};
  }
  if (r.plural == "leases") return json::array{name, s(o, {"spec", "holderIdentity"}), age(o, now)};
  return json::array{name, age(o, now)};
}

}  // namespace

std::string human_age(std::int64_t secs) {
  if (secs < -1) return "<invalid>";
  if (secs < 0) secs = 0;
  auto f = [](std::int64_t a, const char* u1, std::int64_t b, const char* u2) {
    return b ? std::to_string(a) + u1 + std::to_string(b) + u2 : std::to_string(a) + u1;
  };
  if (secs < 120) return std::to_string(secs) + "s";
  std::int64_t m = secs / 60, h = secs / 3600, d = h / 24, y = d / 365;
  if (m < 10) return f(m, "m", secs % 60, "s");
  if (m < 180) return std::to_string(m) + "m";
  if (h < 8) return f(h, "h", m % 60, "m");
  if (h < 48) return std::to_string(h) + "h";
  if (h < 24 * 8) return f(d, "d", h % 24, "h");
  if (h < 24 * 365 * 2) return std::to_string(d) + "d";
  if (y < 8) return f(y, "y", d % 365, "d");
  return std::to_string(y) + "y";
}

std::string make_table(const ResourceInfo& r, const std::vector<std::string_view>& items_json, const TableOptions& opts,
                       const std::string& rv, const std::string& cont, std::int64_t remaining) {
  json::object t{{"kind", "Table"}, {"apiVersion", "meta.k8s.io/v1"}};
  json::object meta;
  if (!rv.empty()) meta["resourceVersion"] = rv;
  if (!cont.empty()) meta["continue"] = cont;
  if (remaining >= 0) meta["remainingItemCount"] = remaining;
  t["metadata"] = std::move(meta);
  if (opts.with_columns) {
    json::array cols;
    for (const auto& c : columns(r))
      cols.push_back(json::object{{"name", c.name}, {"type", c.type}, {"format", c.format}, {"description", ""},
                                  {"priority", c.priority}});
    t["columnDefinitions"] = std::move(cols);
  } else {
    t["columnDefinitions"] = nullptr;
  }
  json::array rows;
  for (auto js : items_json) {
    json::value o = json::parse(js);
    json::object row{{"cells", cells(r, o, opts.now_unix)}};
    if (opts.include == IncludeObject::Object) {
      row["object"] = o;
    } else if (opts.include == IncludeObject::Metadata) {
      json::value m = o.is_object() && o.get_object().contains("metadata") ? o.get_object()["metadata"] : json::object();
      row["object"] = json::object{{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", m}};
    }
    rows.push_back(std::move(row));
  }
  t["rows"] = std::move(rows);
  return json::serialize(t);
}

}  // namespace ksched::apiserver
