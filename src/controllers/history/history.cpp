#include "controllers/history/history.h"

#include <algorithm>
#include <map>

#include <boost/json.hpp>

#include "api/codec.h"
#include "controllers/controller_utils.h"
#include "controllers/hash.h"

namespace ksched::controllers::history {

namespace json = boost::json;

namespace {

void write_sorted(std::string& out, const json::value& v) {
  if (v.is_object()) {
    std::map<std::string_view, const json::value*> members;
    for (const auto& kv : v.get_object()) members[kv.key()] = &kv.value();
    out += '{';
    bool first = true;
    for (const auto& [k, x] : members) {
      if (!first) out += ',';
      first = false;
      out += json::serialize(json::string(k));
      out += ':';
      write_sorted(out, *x);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& x : v.get_array()) {
      if (!first) out += ',';
      first = false;
      write_sorted(out, x);
    }
    out += ']';
  } else {
    out += json::serialize(v);
  }
}

}  // namespace

std::string template_patch(const PodTemplateSpec& tmpl) {
  json::value t = json::parse(api::encode(tmpl));
  if (!t.is_object()) t = json::object();
  t.get_object()["$patch"] = "replace";
  json::value patch = json::object{{"spec", json::object{{"template", std::move(t)}}}};
  std::string raw;
  write_sorted(raw, patch);
  // encoding/json escapes <, > and & (and U+2028, U+2029) inside strings, where alone they occur.
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    char ch = raw[i];
    if (ch == '<') out += "\\u003c";
    else if (ch == '>') out += "\\u003e";
    else if (ch == '&') out += "\\u0026";
    else if (ch == '\xe2' && i + 2 < raw.size() && raw[i + 1] == '\x80' && (raw[i + 2] == '\xa8' || raw[i + 2] == '\xa9')) {
      out += raw[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += ch;
    }
  }
  return out;
}

bool matches(const ControllerRevision& rev, std::string_view patch) {
  if (rev.data.empty()) return false;
  json::error_code e1, e2;
  auto a = json::parse(std::string_view(rev.data.text), e1);
  auto b = json::parse(patch, e2);
  return !e1 && !e2 && a == b;
}

ControllerRevision new_revision(const api::ObjectMeta& parent, std::string_view api_version, std::string_view kind,
                                const api::StringMap& template_labels, std::string data, std::int64_t revision,
                                std::optional<std::int32_t> collision_count) {
  ControllerRevision cr;
  cr.apiVersion = "apps/v1";
  cr.kind = "ControllerRevision";
  cr.metadata.namespace_ = parent.namespace_;
  cr.metadata.labels = template_labels;
  cr.metadata.ownerReferences.push_back(new_controller_ref(parent, api_version, kind));
  std::string hash = hash_revision_data(data, collision_count);
  std::string prefix(parent.name);
  if (prefix.size() > 223) prefix.resize(223);
  cr.metadata.name = prefix + "-" + hash;
  cr.metadata.labels.set(std::string(kControllerRevisionHashLabel), hash);
  cr.data.text = data;
  cr.revision = revision;
  return cr;
}

std::int64_t max_revision(const std::vector<std::shared_ptr<const ControllerRevision>>& revs) {
  std::int64_t m = 0;
  for (const auto& r : revs) m = std::max(m, r->revision);
  return m;
}

void sort_revisions(std::vector<std::shared_ptr<const ControllerRevision>>& revs) {
  std::stable_sort(revs.begin(), revs.end(), [](const auto& a, const auto& b) {
    if (a->revision != b->revision) return a->revision < b->revision;
    auto ta = a->metadata.creationTimestamp.value_or(api::Time{}).unixNanos;
    auto tb = b->metadata.creationTimestamp.value_or(api::Time{}).unixNanos;
    if (ta != tb) return ta < tb;
    return std::string_view(a->metadata.name) < std::string_view(b->metadata.name);
  });
}

}  // namespace ksched::controllers::history
