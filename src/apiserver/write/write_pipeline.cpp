#include "apiserver/write/write_pipeline.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>

#include "apiserver/json_access.h"
#include "apiserver/registry/strategy.h"
#include "apiserver/write/type_check.h"
#include "apiserver/write/validation.h"
#include "util/go_format.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// The summary of a body upstream adds when it cannot read the body's kind (summarizeData).
std::string summarize(std::string_view raw) {
  constexpr std::size_t kMax = 30;
  if (raw.empty()) return "<empty>";
  std::string out;
  if (raw[0] == '{') {
    out.assign(raw.substr(0, kMax));
    if (raw.size() > kMax) out.append(" ...");
    return out;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : raw.substr(0, kMax)) {
    out += kHex[c >> 4];
    out += kHex[c & 0xf];
  }
  if (raw.size() > kMax) out.append(" ...");
  return out;
}

// The Go package of a served kind's internal type, as a conversion error names it (core.Pod).
std::string internal_package(std::string_view group) {
  if (group.empty() || group == "events.k8s.io") return "core";
  return std::string(group.substr(0, group.find('.')));
}

// Kinds whose external versions convert to one internal type: core/v1 and events.k8s.io/v1 Event.
bool same_internal_type(std::string_view g1, std::string_view k1, std::string_view g2, std::string_view k2) {
  auto internal_group = [](std::string_view g, std::string_view k) {
    return g == "events.k8s.io" && k == "Event" ? std::string_view() : g;
  };
  return k1 == k2 && internal_group(g1, k1) == internal_group(g2, k2);
}

// What upstream's decoder makes of the body's apiVersion and kind for a write to `r`: the JSON
// serializer reads them (defaulting what is missing from the URL's), the scheme must know the
// kind in that version, and it must convert to the resource's internal type in the URL's version.
std::optional<std::string> type_meta_error(const ResourceInfo& r, const json::object& obj, std::string_view raw) {
  std::string_view api_version, kind;
  for (const auto& kv : obj) {
    if (kv.key() != "apiVersion" && kv.key() != "kind") continue;
    const json::value& v = kv.value();
    if (v.is_null()) continue;
    if (!v.is_string()) {
      std::string_view what = v.is_bool() ? "bool" : v.is_array() ? "array" : v.is_object() ? "object" : "number";
      return "the object provided is unrecognized (must be of type " + r.kind +
             "): couldn't get version/kind; json parse error: json: cannot unmarshal " + std::string(what) +
             " into Go struct field ." + std::string(kv.key()) + " of type string (" + summarize(raw) + ")";
    }
    (kv.key() == "kind" ? kind : api_version) = v.get_string();
  }
  std::string group, version;
  if (auto slash = api_version.find('/'); slash == std::string_view::npos) {
    version = api_version;
  } else if (api_version.find('/', slash + 1) != std::string_view::npos) {
    return "the object provided is unrecognized (must be of type " + r.kind + "): unexpected GroupVersion string: " +
           std::string(api_version) + " (" + summarize(raw) + ")";
  } else {
    group = api_version.substr(0, slash);
    version = api_version.substr(slash + 1);
  }
  std::string k = kind.empty() ? r.kind : std::string(kind);
  if (version.empty() && (group.empty() || group == r.group)) {
    group = r.group;
    version = r.version;
  }
  if (group == r.group && version == r.version && k == r.kind) return std::nullopt;
  std::string gv = group.empty() ? version : group + "/" + version;
  std::string prefix = k + " in version \"" + version + "\" cannot be handled as a " + r.kind + ": ";
  const ResourceInfo* known = find_resource_by_kind(group, version, k);
  if (!known)
    return prefix + "no kind \"" + k + "\" is registered for version \"" + gv +
           "\" in scheme \"k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30\"";
  if (!same_internal_type(group, k, r.group, r.kind))
    return prefix + "converting (" + version + "." + k + ") to (" + internal_package(r.group) + "." + r.kind +
           "): unknown conversion";
  // It converts, but into a group version this endpoint does not serve.
  return "the API version in the data (" + gv + ") does not match the expected API version (" + r.group_version() +
         ")";
}

// A patch's result upstream cannot decode: 422 on the field "patch", quoting the patched object.
ApiError patch_invalid(const std::string& patched, const std::string& why) {
  std::string detail = "Invalid value: " + util::go_quote(patched) + ": " + why;
  ApiError e{422, "Invalid", " \"\" is invalid: patch: " + detail};
  e.causes.push_back(Cause{"FieldValueInvalid", detail, "patch"});
  return e;
}

}  // namespace

std::variant<FieldValidation, ApiError> parse_field_validation(const std::string* value, std::string_view options_kind) {
  if (!value || value->empty() || *value == "Warn") return FieldValidation::Warn;
  if (*value == "Ignore") return FieldValidation::Ignore;
  if (*value == "Strict") return FieldValidation::Strict;
  std::string detail =
      "Unsupported value: " + util::go_quote(*value) + ": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"";
  ApiError e{422, "Invalid",
             std::string(options_kind) + ".meta.k8s.io \"\" is invalid: fieldValidation: " + detail};
  e.group = "meta.k8s.io";
  e.kind = std::string(options_kind);
  e.causes.push_back(Cause{"FieldValueNotSupported", detail, "fieldValidation"});
  return e;
}

std::optional<ApiError> decode_object(const DecodeRequest& d, json::object& obj) {
  const ResourceInfo& r = d.resource;
  if (auto e = type_meta_error(r, obj, d.raw_body)) {
    if (d.patched) return patch_invalid(json::serialize(obj), *e);
    return bad_request(*e);
  }
  // The kind is the resource's from here on (the body's was checked above). A patched object is
  // quoted as the decode left it (upstream quotes the patched JSON, in its Go field order).
  auto undecodable = [&](const std::string& why) {
    if (d.patched) return patch_invalid(json::serialize(obj), why);
    return bad_request(r.kind + " in version \"" + r.version + "\" cannot be handled as a " + r.kind + ": " + why);
  };
  TypedDecode t = decode_typed(r, obj, d.duplicates, d.validation != FieldValidation::Ignore);
  if (t.error) return undecodable(*t.error);
  if (d.prior_strict && d.validation != FieldValidation::Ignore)
    t.strict.insert(t.strict.begin(), d.prior_strict->begin(), d.prior_strict->end());
  if (t.strict.empty()) return std::nullopt;
  if (d.validation == FieldValidation::Strict) {
    std::string all = "strict decoding error: ";
    for (std::size_t i = 0; i < t.strict.size(); ++i) all += (i ? ", " : "") + t.strict[i];
    return undecodable(all);
  }
  if (d.warnings)
    for (auto& s : t.strict) d.warnings->push_back(std::move(s));
  return std::nullopt;
}

std::vector<std::string> warning_headers(const std::vector<std::string>& warnings) {
  constexpr std::size_t kTotal = 4096, kItem = 256;
  auto runes = [](std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xc0) != 0x80;
    return n;
  };
  auto shorten = [](const std::string& s) {  // the first 256 runes
    std::size_t n = 0, i = 0;
    for (; i < s.size(); ++i)
      if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80 && n++ == kItem) break;
    return s.substr(0, i);
  };
  auto header = [](const std::string& text) {
    std::string h = "299 - \"";
    for (char c : text) {
      if (c == '"' || c == '\\') h += '\\';
      h += c;
    }
    return h + "\"";
  };
  std::vector<std::string> seen, out;
  std::size_t written = 0;
  bool truncating = false;
  for (const auto& w : warnings) {
    if (w.empty() || (written >= kTotal && truncating)) continue;
    if (std::find(seen.begin(), seen.end(), w) != seen.end()) continue;
    bool control = false;
    for (unsigned char c : w) control = control || c < 0x20 || c == 0x7f;
    seen.push_back(w);
    if (control) continue;  // upstream's NewWarningHeader refuses them
    std::string text = truncating && runes(w) > kItem ? shorten(w) : w;
    if (written + runes(text) <= kTotal || truncating) {
      written += runes(text);
      out.push_back(header(text));
      continue;
    }
    // Over the limit: from now on every warning, the earlier ones included, is shortened.
    truncating = true;
    written = 0;
    out.clear();
    for (const auto& s : seen) {
      bool bad = false;
      for (unsigned char c : s) bad = bad || c < 0x20 || c == 0x7f;
      if (bad) continue;
      std::string t = runes(s) > kItem ? shorten(s) : s;
      written += runes(t);
      out.push_back(header(t));
    }
  }
  return out;
}

std::optional<ApiError> run_write_pipeline(const WriteRequest& w, json::object& obj, const Store& store) {
  static const FeatureGates kDefaultGates;
  const FeatureGates& gates = w.gates ? *w.gates : kDefaultGates;
  static const AdmissionPlugins kAllAdmission;
  const AdmissionPlugins& admission = w.admission ? *w.admission : kAllAdmission;
  const ResourceInfo& r = w.resource;
  // Each step of the kind's rules is its strategy's (registry/); a kind without one has no rules
  // beyond metadata.
  const registry::Strategy* strategy = registry::strategy_for(r);
  const registry::WriteContext ctx{r, gates, w.ns, w.subresource, w.old, &store, w.now_unix};
  if (strategy) strategy->set_defaults(obj, ctx);
  // Admission plugins ignore subresources (status writes), as upstream's do.
  if (w.subresource.empty())
    if (auto e = admit_mutating(r, w.verb, w.ns, obj, w.old, store, gates, admission)) return e;
  std::vector<Cause> kind_causes;
  if (strategy) {
    if (w.verb == WriteVerb::Create)
      strategy->prepare_for_create(obj, ctx);
    else if (w.subresource == "status")
      strategy->prepare_for_status_update(obj, ctx);
    else
      strategy->prepare_for_update(obj, ctx);
    kind_causes = registry::validate(*strategy, obj, ctx);
  }
  if (auto e = validate_write(r, obj, std::move(kind_causes))) return e;
  if (strategy && w.warnings) strategy->warnings(obj, ctx, *w.warnings);
  if (w.subresource.empty()) return admit_validating(r, w.verb, obj, store, admission);
  return std::nullopt;
}

}  // namespace ksched::apiserver
