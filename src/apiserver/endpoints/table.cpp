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

std::string s(const json::value& v, std::initializer_list<std::string_view> path, std::string_view dflt = {}) {
  return registry::cell_text(at(v, path), dflt);
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
