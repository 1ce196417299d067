#include "apiserver/registry/events/event_conversion.h"

#include <boost/json.hpp>
#include <type_traits>
#include <utility>

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// Puts `from[src]` into `to[dst]` when present and not null: copied from a const source, moved
// out of one the caller is done with (a view of an object just written), which saves copying
// every nested value of the event.
template <class From>
void move_field(From& from, std::string_view src, json::object& to, std::string_view dst) {
  auto* v = from.if_contains(src);
  if (!v || v->is_null()) return;
  if constexpr (std::is_const_v<From>)
    to[dst] = *v;
  else
    to[dst] = std::move(*v);
}

std::string str_of(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// Fields with the same name and meaning in both versions.
constexpr std::string_view kShared[] = {"metadata", "eventTime", "series", "action", "reason",
                                        "related",  "type",      "reportingInstance"};

}  // namespace

namespace {

template <class From>
json::object core_to_v1(From& core) {
  json::object out;
  out["kind"] = "Event";
  out["apiVersion"] = "events.k8s.io/v1";
  for (auto k : kShared) move_field(core, k, out, k);
  move_field(core, "involvedObject", out, "regarding");
  move_field(core, "message", out, "note");
  move_field(core, "reportingComponent", out, "reportingController");
  move_field(core, "source", out, "deprecatedSource");
  move_field(core, "firstTimestamp", out, "deprecatedFirstTimestamp");
  move_field(core, "lastTimestamp", out, "deprecatedLastTimestamp");
  move_field(core, "count", out, "deprecatedCount");
  // Events written by old-style recorders only carry source: name the reporter from it. Read from
  // `out`, where the source may have been moved; both names first, as inserting may rehash `out`.
  if (const auto* src = out.if_contains("deprecatedSource"); src && src->is_object()) {
    std::string component = str_of(src->get_object(), "component");
    std::string host = str_of(src->get_object(), "host");
    if (!component.empty() && str_of(out, "reportingController").empty()) out["reportingController"] = component;
    if (!host.empty() && str_of(out, "reportingInstance").empty()) out["reportingInstance"] = host;
  }
  return out;
}

template <class From>
json::object v1_to_core(From& ev) {
  json::object out;
  out["kind"] = "Event";
  out["apiVersion"] = "v1";
  for (auto k : kShared) move_field(ev, k, out, k);
  move_field(ev, "regarding", out, "involvedObject");
  move_field(ev, "note", out, "message");
  move_field(ev, "reportingController", out, "reportingComponent");
  move_field(ev, "deprecatedSource", out, "source");
  move_field(ev, "deprecatedFirstTimestamp", out, "firstTimestamp");
  move_field(ev, "deprecatedLastTimestamp", out, "lastTimestamp");
  move_field(ev, "deprecatedCount", out, "count");
  // core/v1 requires these to be objects (the apiserver serialises empty structs).
  if (!out.contains("involvedObject")) out["involvedObject"] = json::object();
  if (!out.contains("source")) out["source"] = json::object();
  return out;
}

}  // namespace

json::object event_core_to_v1(const json::object& core) { return core_to_v1(core); }
json::object event_v1_to_core(const json::object& ev) { return v1_to_core(ev); }

namespace {

// Into core/v1 when asked for "v1", else into events.k8s.io/v1; the object's fields are moved.
void convert_event(json::object& obj, std::string_view to) {
  obj = to == "v1" ? v1_to_core(obj) : core_to_v1(obj);
}

}  // namespace

const Conversion& event_conversion() {
  static const Conversion c{"", "v1", "events", &convert_event};
  return c;
}

}  // namespace ksched::apiserver
