#include "apiserver/registry/resource/validation.h"

#include <arpa/inet.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/quantity.h"
#include "api/resource.h"
#include "cel/cel.h"
#include "util/go_format.h"

namespace ksched::apiserver::registry::resource {

namespace json = boost::json;
namespace rv1 = api::resourcev1;

using rules::arr;
using rules::bool_of;
using rules::each;
using rules::has;
using rules::int_of;
using rules::obj;
using rules::sv;
using util::go_quote;

namespace {

const json::object kEmpty;

// ---------------------------------------------------------------- generic list rules
// field.TooMany: "Too many: 33: must have at most 32 items".
void too_many(Errors& e, const Path& path, std::size_t n, std::size_t max) {
  std::string m = "Too many: " + std::to_string(n) + ": must have at most " + std::to_string(max) +
                  (max == 1 ? " item" : " items");
  e.causes.push_back(Cause{"FieldValueTooMany", std::move(m), path.str()});
}

// The JSON a Go value renders as in a field error (encoding/json of the bad value).
std::string rendered(const json::value& v) { return json::serialize(v); }

// validateSlice/validateSet's size check: over the limit, only the size is reported.
bool within(Errors& e, const json::array* a, std::size_t max, const Path& path) {
  if (a && a->size() > max) {
    too_many(e, path, a->size(), max);
    return false;
  }
  return true;
}

// Items of an array that are objects, with their index (the decode made every item an object).
template <class F>
void each_object(const json::array* a, F&& f) {
  if (!a) return;
  for (std::size_t i = 0; i < a->size(); ++i)
    if ((*a)[i].is_object()) f((*a)[i].get_object(), i);
}

// validateSet's uniqueness: the second and later occurrences of a key are duplicates.
void duplicates(Errors& e, const json::array* a, const Path& path, std::string_view key_member) {
  if (!a) return;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < a->size(); ++i) {
    std::string key;
    if ((*a)[i].is_string()) key = std::string((*a)[i].get_string());
    else if ((*a)[i].is_object()) key = std::string(sv((*a)[i].get_object(), key_member));
    if (!seen.insert(key).second) e.duplicate(path.index(i), go_quote(key));
  }
}

// ---------------------------------------------------------------- names
void dns_label(Errors& e, std::string_view v, const Path& path) { each(e, rules::dns1123_label(v), path, v); }
void dns_subdomain(Errors& e, std::string_view v, const Path& path) { each(e, rules::dns1123_subdomain(v), path, v); }

// ValidateCSIDriverName: required, at most 63 bytes, a DNS subdomain once lowercased.
void driver_name(Errors& e, std::string_view v, const Path& path) {
  if (v.empty()) {
    e.required(path);
    return;
  }
  if (v.size() > rv1::kDriverNameMaxLength) e.too_long(path, rv1::kDriverNameMaxLength);
  std::string lower(v);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& m : rules::dns1123_subdomain(lower)) e.invalid_str(path, v, m);
}

// validatePoolName: required, at most 253 bytes, each "/"-separated part a DNS subdomain.
void pool_name(Errors& e, std::string_view v, const Path& path) {
  if (v.empty()) {
    e.required(path);
    return;
  }
  if (v.size() > rv1::kPoolNameMaxLength) e.too_long(path, rv1::kPoolNameMaxLength);
  std::size_t start = 0;
  while (true) {
    std::size_t slash = v.find('/', start);
    std::string_view part = v.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    dns_subdomain(e, part, path);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
}

const char* const kCIdentifierMsg =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_' (e.g. 'my_name', or 'MY_NAME', or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')";

bool is_c_identifier(std::string_view id) {
  if (id.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(id[0])) return false;
  for (char c : id)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

void c_identifier(Errors& e, std::string_view id, const Path& path) {
  if (id.size() > rv1::kDeviceMaxIDLength) e.too_long(path, rv1::kDeviceMaxIDLength);
  if (!is_c_identifier(id)) e.invalid_str(path, id, kCIdentifierMsg);
}

// validateQualifiedName: "<C identifier>" or "<driver name>/<C identifier>".
void qualified_name(Errors& e, std::string_view name, const Path& path) {
  std::size_t slash = name.find('/');
  if (slash == std::string_view::npos) {
    c_identifier(e, name, path);
    return;
  }
  if (name.find('/', slash + 1) != std::string_view::npos) {
    e.invalid_str(path, name, "must not contain more than one slash");
    return;
  }
  std::string_view domain = name.substr(0, slash), id = name.substr(slash + 1);
  if (domain.empty())
    e.invalid_str(path, "", "the domain must not be empty");
  else
    driver_name(e, domain, path);
  if (id.empty())
    e.invalid_str(path, "", "the name must not be empty");
  else
    c_identifier(e, id, path);
}

void fully_qualified_name(Errors& e, std::string_view name, const Path& path) {
  qualified_name(e, name, path);
  if (name.find('/') == std::string_view::npos)
    e.invalid_str(path, name, "a fully qualified name must be a domain and a name separated by a slash");
}

// Map keys longer than this are shortened in the middle in a field path (upstream's
// truncateIfTooLong with the attribute key limit).
std::string truncated_key(std::string_view key, std::size_t max) {
  if (max < 16) max = 16;
  if (key.size() <= max) return std::string(key);
  std::size_t remaining = max - 3;
  std::string out;
  out.reserve(max);
  out.append(key.substr(0, (remaining + 1) / 2)).append("...").append(key.substr(key.size() - remaining / 2));
  return out;
}
constexpr std::size_t kAttributeKeyMax = rv1::kDeviceMaxDomainLength + 1 + rv1::kDeviceMaxIDLength;

// metav1validation.ValidateLabelName.
void label_name(Errors& e, std::string_view v, const Path& path) { each(e, rules::qualified_name(v), path, v); }
void label_value(Errors& e, std::string_view v, const Path& path) { each(e, rules::label_value(v), path, v); }

// ---------------------------------------------------------------- request names
// Request name -> its subrequests' names (empty for a request with `exactly`).
using RequestNames = std::map<std::string, std::set<std::string>, std::less<>>;

RequestNames request_names(const json::object& devices) {
  RequestNames names;
  each_object(arr(devices, "requests"), [&](const json::object& r, std::size_t) {
    auto& subs = names[std::string(sv(r, "name"))];
    each_object(arr(r, "firstAvailable"), [&](const json::object& s, std::size_t) { subs.insert(std::string(sv(s, "name"))); });
  });
  return names;
}

bool has_request(const RequestNames& names, std::string_view ref) {
  std::size_t slash = ref.find('/');
  std::string_view first = ref.substr(0, slash);
  auto it = names.find(first);
  if (it == names.end()) return false;
  if (slash == std::string_view::npos) return true;
  std::string_view second = ref.substr(slash + 1);
  if (second.find('/') != std::string_view::npos) return false;
  return it->second.count(std::string(second)) != 0;
}

constexpr const char* kRequestRefMsg =
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

void request_ref(Errors& e, std::string_view name, const Path& path, const RequestNames& names) {
  std::vector<std::string_view> segments;
  std::size_t start = 0;
  while (true) {
    std::size_t slash = name.find('/', start);
    segments.push_back(name.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (segments.size() > 2) {
    e.invalid_str(path, name, kRequestRefMsg);
    return;
  }
  for (auto s : segments) dns_label(e, s, path);
  if (!has_request(names, name)) e.invalid_str(path, name, kRequestRefMsg);
}

// A list of request references (constraints, configs): at most 32, each known, no duplicates.
void request_refs(Errors& e, const json::array* refs, const Path& path, const RequestNames& names) {
  if (!within(e, refs, rv1::kDeviceRequestsMaxSize, path) || !refs) return;
  for (std::size_t i = 0; i < refs->size(); ++i)
    request_ref(e, (*refs)[i].is_string() ? std::string_view((*refs)[i].get_string()) : std::string_view(),
                path.index(i), names);
  duplicates(e, refs, path, "");
}

// ---------------------------------------------------------------- configuration
// validateRawExtension: required, at most `max` bytes (new values), a JSON object.
void raw_extension(Errors& e, const json::value* v, const Path& path, bool stored, std::size_t max) {
  if (!v || v->is_null()) {
    e.required(path);
    return;
  }
  std::string text = json::serialize(*v);
  if (!stored && text.size() > max) {
    e.too_long(path, max);
    return;
  }
  if (!v->is_object()) e.invalid(path, "\"<value omitted>\"", "must be a valid JSON object");
}

void opaque_config(Errors& e, const json::object& o, const Path& path, bool stored) {
  driver_name(e, sv(o, "driver"), path.child("driver"));
  raw_extension(e, o.if_contains("parameters"), path.child("parameters"), stored, rv1::kOpaqueParametersMaxLength);
}

// validateDeviceConfiguration: the (only) member `opaque` is required.
void device_configuration(Errors& e, const json::object& c, const Path& path, bool stored) {
  if (const json::object* o = obj(c, "opaque"))
    opaque_config(e, *o, path.child("opaque"), stored);
  else
    e.required(path.child("opaque"));
}

// ---------------------------------------------------------------- tolerations and taints
const std::vector<std::string_view> kTaintEffects{"NoExecute", "NoSchedule", "None"};

bool known_effect(std::string_view v) {
  return std::find(kTaintEffects.begin(), kTaintEffects.end(), v) != kTaintEffects.end();
}

void device_toleration(Errors& e, const json::object& t, const Path& path) {
  std::string_view key = sv(t, "key"), op = sv(t, "operator"), value = sv(t, "value"), effect = sv(t, "effect");
  if (!key.empty()) label_name(e, key, path.child("key"));
  if (op == "Exists") {
    if (!value.empty()) e.invalid_str(path.child("value"), value, "must be empty for operator `Exists`");
  } else if (op == "Equal") {
    label_value(e, value, path.child("value"));
  } else if (op.empty()) {
    e.required(path.child("operator"));
  } else {
    e.not_supported(path.child("operator"), go_quote(op), {"Equal", "Exists"});
  }
  if (!effect.empty() && !known_effect(effect)) e.not_supported(path.child("effect"), go_quote(effect), kTaintEffects);
}

void tolerations(Errors& e, const json::array* ts, const Path& path) {
  each_object(ts, [&](const json::object& t, std::size_t i) { device_toleration(e, t, path.index(i)); });
}

void device_taint(Errors& e, const json::object& t, const json::object* old, const Path& path) {
  label_name(e, sv(t, "key"), path.child("key"));
  if (std::string_view v = sv(t, "value"); !v.empty()) label_value(e, v, path.child("value"));
  std::string_view effect = sv(t, "effect");
  if (!old || sv(*old, "effect") != effect) {
    if (effect.empty())
      e.required(path.child("effect"));
    else if (!known_effect(effect))
      e.not_supported(path.child("effect"), go_quote(effect), kTaintEffects);
  }
}

// ---------------------------------------------------------------- requests
void selectors(Errors& e, const json::array* ss, const Path& path, bool stored) {
  if (!within(e, ss, rv1::kDeviceSelectorsMaxSize, path)) return;
  each_object(ss, [&](const json::object& s, std::size_t i) {
    const Path p = path.index(i);
    const json::object* cel = obj(s, "cel");
    if (!cel) {
      e.required(p.child("cel"));
      return;
    }
    const Path cp = p.child("cel");
    selector_expression(e, sv(*cel, "expression"), cp.child("expression"), stored);
  });
}

void allocation_mode(Errors& e, const json::object& r, const Path& path) {
  std::string_view mode = sv(r, "allocationMode");
  std::int64_t count = int_of(r, "count").value_or(0);
  if (mode == "All") {
    if (count != 0) e.invalid_int(path.child("count"), count, "must not be specified when allocationMode is 'All'");
  } else if (mode == "ExactCount") {
    if (count <= 0) e.invalid_int(path.child("count"), count, "must be greater than zero");
  } else {
    e.not_supported(path.child("allocationMode"), go_quote(mode), {"All", "ExactCount"});
  }
}

void device_class_ref(Errors& e, std::string_view name, const Path& path) {
  if (name.empty())
    e.required(path);
  else
    dns_subdomain(e, name, path);
}

// The fields ExactDeviceRequest and DeviceSubRequest share.
void request_body(Errors& e, const json::object& r, const Path& path, bool stored) {
  device_class_ref(e, sv(r, "deviceClassName"), path.child("deviceClassName"));
  selectors(e, arr(r, "selectors"), path.child("selectors"), stored);
  allocation_mode(e, r, path);
  tolerations(e, arr(r, "tolerations"), path.child("tolerations"));
}

void device_request(Errors& e, const json::object& r, const Path& path, bool stored) {
  dns_label(e, sv(r, "name"), path.child("name"));
  const json::array* first = arr(r, "firstAvailable");
  bool has_first = first && !first->empty();
  bool has_exactly = obj(r, "exactly") != nullptr;
  if (!has_first && !has_exactly) {
    e.required(path, "exactly one of `exactly` or `firstAvailable` is required");
  } else if (has_first && has_exactly) {
    e.invalid(path, "null", "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set");
  } else if (has_first) {
    const Path fp = path.child("firstAvailable");
    if (!within(e, first, rv1::kFirstAvailableDeviceRequestMaxSize, fp)) return;
    each_object(first, [&](const json::object& s, std::size_t i) {
      const Path p = fp.index(i);
      dns_label(e, sv(s, "name"), p.child("name"));
      request_body(e, s, p, stored);
    });
    duplicates(e, first, fp, "name");
  } else {
    request_body(e, *obj(r, "exactly"), path.child("exactly"), stored);
  }
}

void constraint(Errors& e, const json::object& c, const Path& path, const RequestNames& names) {
  request_refs(e, arr(c, "requests"), path.child("requests"), names);
  if (has(c, "matchAttribute"))
    fully_qualified_name(e, sv(c, "matchAttribute"), path.child("matchAttribute"));
  else if (has(c, "distinctAttribute"))
    fully_qualified_name(e, sv(c, "distinctAttribute"), path.child("distinctAttribute"));
  else
    e.required(path, "exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, but multiple fields are set");
}

void device_claim(Errors& e, const json::object& devices, const Path& path, bool stored) {
  RequestNames names = request_names(devices);
  const json::array* requests = arr(devices, "requests");
  const Path rp = path.child("requests");
  if (within(e, requests, rv1::kDeviceRequestsMaxSize, rp)) {
    each_object(requests, [&](const json::object& r, std::size_t i) { device_request(e, r, rp.index(i), stored); });
    duplicates(e, requests, rp, "name");
  }
  const json::array* cs = arr(devices, "constraints");
  const Path cp = path.child("constraints");
  if (within(e, cs, rv1::kDeviceConstraintsMaxSize, cp))
    each_object(cs, [&](const json::object& c, std::size_t i) { constraint(e, c, cp.index(i), names); });
  const json::array* config = arr(devices, "config");
  const Path gp = path.child("config");
  if (within(e, config, rv1::kDeviceConfigMaxSize, gp))
    each_object(config, [&](const json::object& c, std::size_t i) {
      const Path p = gp.index(i);
      request_refs(e, arr(c, "requests"), p.child("requests"), names);
      device_configuration(e, c, p, stored);
    });
}

// ---------------------------------------------------------------- allocation results
// validateUID: RFC 4122 normalized form.
void uid(Errors& e, std::string_view v, const Path& path) {
  static const std::regex kUUID("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");
  std::string s(v);
  if (!std::regex_match(s, kUUID)) {
    // google/uuid's Validate: the length first, then the format.
    std::string why = (s.size() == 36 || s.size() == 38 || s.size() == 45 || s.size() == 32)
                          ? "invalid UUID format"
                          : "invalid UUID length: " + std::to_string(s.size());
    e.invalid_str(path, v, "error validating uid: " + why);
    return;
  }
  for (char c : s)
    if (c >= 'A' && c <= 'F') {
      e.invalid_str(path, v,
                    "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
                    "hexadecimal characters");
      return;
    }
}

void binding_parameters(Errors& e, const json::object& o, const Path& path) {
  const json::array* conds = arr(o, "bindingConditions");
  const json::array* failures = arr(o, "bindingFailureConditions");
  const Path cp = path.child("bindingConditions"), fp = path.child("bindingFailureConditions");
  auto text = [](const json::value& v) { return v.is_string() ? std::string_view(v.get_string()) : std::string_view(); };
  if (within(e, conds, rv1::kBindingConditionsMaxSize, cp) && conds)
    for (std::size_t i = 0; i < conds->size(); ++i) label_name(e, text((*conds)[i]), cp.index(i));
  if (within(e, failures, rv1::kBindingFailureConditionsMaxSize, fp) && failures)
    for (std::size_t i = 0; i < failures->size(); ++i) label_name(e, text((*failures)[i]), fp.index(i));
  std::set<std::string_view> seen, seen_failures, all;
  if (conds)
    for (std::size_t i = 0; i < conds->size(); ++i) {
      if (!seen.insert(text((*conds)[i])).second) e.duplicate(cp.index(i), go_quote(text((*conds)[i])));
      all.insert(text((*conds)[i]));
    }
  if (failures)
    for (std::size_t i = 0; i < failures->size(); ++i) {
      std::string_view c = text((*failures)[i]);
      if (!seen_failures.insert(c).second) e.duplicate(fp.index(i), go_quote(c));
      if (all.count(c)) e.invalid_str(fp.index(i), c, "bindingFailureConditions must not overlap with bindingConditions");
    }
  std::size_t nc = conds ? conds->size() : 0, nf = failures ? failures->size() : 0;
  if (nc == 0 && nf > 0) e.invalid(cp, "null", "bindingConditions are required to use bindingFailureConditions");
  if (nf == 0 && nc > 0) e.invalid(fp, "null", "bindingFailureConditions are required to use bindingConditions");
}

void allocation_result(Errors& e, const json::object& a, const Path& path, const RequestNames& names) {
  const json::object& devices = obj(a, "devices") ? *obj(a, "devices") : kEmpty;
  const Path dp = path.child("devices");
  const json::array* results = arr(devices, "results");
  const Path rp = dp.child("results");
  if (within(e, results, rv1::kAllocationResultsMaxSize, rp))
    each_object(results, [&](const json::object& r, std::size_t i) {
      const Path p = rp.index(i);
      request_ref(e, sv(r, "request"), p.child("request"), names);
      driver_name(e, sv(r, "driver"), p.child("driver"));
      pool_name(e, sv(r, "pool"), p.child("pool"));
      dns_label(e, sv(r, "device"), p.child("device"));
      binding_parameters(e, r, p);
      tolerations(e, arr(r, "tolerations"), p.child("tolerations"));
      if (has(r, "shareID")) uid(e, sv(r, "shareID"), p.child("shareID"));
    });
  const json::array* config = arr(devices, "config");
  const Path cp = dp.child("config");
  if (within(e, config, 2 * rv1::kDeviceConfigMaxSize, cp))
    each_object(config, [&](const json::object& c, std::size_t i) {
      const Path p = cp.index(i);
      std::string_view source = sv(c, "source");
      if (source.empty())
        e.required(p.child("source"));
      else if (source != "FromClaim" && source != "FromClass")
        e.not_supported(p.child("source"), go_quote(source), {"FromClaim", "FromClass"});
      request_refs(e, arr(c, "requests"), p.child("requests"), names);
      device_configuration(e, c, p, false);
    });
  if (const json::object* ns = obj(a, "nodeSelector")) rules::node_selector(e, *ns, path.child("nodeSelector"));
}

// The device a status entry names, as "driver/pool/device" (with "/shareID" when shared).
std::string device_key(const json::object& o) {
  std::string k = std::string(sv(o, "driver")) + "/" + std::string(sv(o, "pool")) + "/" + std::string(sv(o, "device"));
  if (has(o, "shareID")) k += "/" + std::string(sv(o, "shareID"));
  return k;
}

// validation.IsValidInterfaceAddress: an address in CIDR form, canonical.
void interface_address(Errors& e, std::string_view v, const Path& path) {
  std::size_t slash = v.find('/');
  std::string addr(v.substr(0, slash));
  unsigned char buf[16];
  int family = addr.find(':') != std::string::npos ? AF_INET6 : AF_INET;
  bool ok = slash != std::string_view::npos && inet_pton(family, addr.c_str(), buf) == 1;
  int bits = -1;
  if (ok) {
    std::string_view len = v.substr(slash + 1);
    ok = !len.empty() && len.size() <= 3 && std::all_of(len.begin(), len.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (ok) bits = std::stoi(std::string(len));
    ok = ok && bits <= (family == AF_INET ? 32 : 128);
  }
  if (!ok) {
    e.invalid_str(path, v, "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)");
    return;
  }
  char out[INET6_ADDRSTRLEN];
  inet_ntop(family, buf, out, sizeof out);
  std::string canonical = std::string(out) + "/" + std::to_string(bits);
  if (canonical != v) e.invalid_str(path, v, "must be in canonical form (" + go_quote(canonical) + ")");
}

void device_status(Errors& e, const json::object& d, const Path& path, const std::set<std::string>& allocated) {
  driver_name(e, sv(d, "driver"), path.child("driver"));
  pool_name(e, sv(d, "pool"), path.child("pool"));
  dns_label(e, sv(d, "device"), path.child("device"));
  if (has(d, "shareID")) uid(e, sv(d, "shareID"), path.child("shareID"));
  if (!allocated.count(device_key(d))) {
    json::object id{{"Driver", sv(d, "driver")}, {"Pool", sv(d, "pool")}, {"Device", sv(d, "device")}};
    e.invalid(path, rendered(id), "must be an allocated device in the claim");
  }
  if (const json::array* cs = arr(d, "conditions"))
    conditions(e, *cs, path.child("conditions"), rv1::kAllocatedDeviceStatusMaxConditions);
  if (const json::value* data = d.if_contains("data"); data && !data->is_null())
    raw_extension(e, data, path.child("data"), false, rv1::kAllocatedDeviceStatusDataMaxLength);
  if (const json::object* nd = obj(d, "networkData")) {
    const Path np = path.child("networkData");
    if (sv(*nd, "interfaceName").size() > rv1::kNetworkDeviceDataInterfaceNameMaxLength)
      e.too_long(np.child("interfaceName"), rv1::kNetworkDeviceDataInterfaceNameMaxLength);
    if (sv(*nd, "hardwareAddress").size() > rv1::kNetworkDeviceDataHardwareAddressMaxLength)
      e.too_long(np.child("hardwareAddress"), rv1::kNetworkDeviceDataHardwareAddressMaxLength);
    const json::array* ips = arr(*nd, "ips");
    const Path ip = np.child("ips");
    if (within(e, ips, rv1::kNetworkDeviceDataMaxIPs, ip) && ips) {
      for (std::size_t i = 0; i < ips->size(); ++i)
        interface_address(e, (*ips)[i].is_string() ? std::string_view((*ips)[i].get_string()) : std::string_view(),
                          ip.index(i));
      duplicates(e, ips, ip, "");
    }
  }
}

// ---------------------------------------------------------------- slices
void device_attribute(Errors& e, const json::object& a, const Path& path) {
  int n = 0;
  for (const char* k : {"bool", "int", "string", "version"})
    if (has(a, k)) ++n;
  if (has(a, "string") && sv(a, "string").size() > rv1::kDeviceAttributeMaxValueLength)
    e.too_long(path.child("string"), rv1::kDeviceAttributeMaxValueLength);
  if (has(a, "version")) {
    static const std::regex kSemver(
        "^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)"
        "(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
        "(\\+[0-9a-zA-Z-]+(\\.[0-9a-zA-Z-]+)*)?$");
    std::string v(sv(a, "version"));
    if (!std::regex_match(v, kSemver))
      e.invalid_str(path.child("version"), v, "must be a string compatible with semver.org spec 2.0.0");
    if (v.size() > rv1::kDeviceAttributeMaxValueLength) e.too_long(path.child("version"), rv1::kDeviceAttributeMaxValueLength);
  }
  if (n == 0)
    e.invalid(path, "\"\"", "exactly one value must be specified");
  else if (n > 1) {
    // The bad value is the Go struct, encoded with its field names.
    json::object go;
    go["IntValue"] = a.contains("int") ? a.at("int") : json::value(nullptr);
    go["BoolValue"] = a.contains("bool") ? a.at("bool") : json::value(nullptr);
    go["StringValue"] = a.contains("string") ? a.at("string") : json::value(nullptr);
    go["VersionValue"] = a.contains("version") ? a.at("version") : json::value(nullptr);
    e.invalid(path, rendered(go), "exactly one value must be specified");
  }
}

int cmp(const api::Quantity& a, const api::Quantity& b) {
  auto c = a <=> b;
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

std::optional<api::Quantity> quantity(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v ? rules::quantity_of(*v) : std::nullopt;
}

// validateRequestPolicy (consumable capacity); only for new or changed capacities.
void request_policy(Errors& e, const api::Quantity& capacity, const json::object& p, const Path& path) {
  const json::array* valid = arr(p, "validValues");
  const json::object* range = obj(p, "validRange");
  if (valid && !valid->empty() && range) {
    e.forbidden(path, "exactly one policy can be specified, cannot specify \"validValues\" and \"validRange\" at the same time");
    return;
  }
  auto dflt = quantity(p, "default");
  if (valid && !valid->empty()) {
    if (!dflt) {
      e.required(path.child("default"), "required when validValues is defined");
      return;
    }
    const Path vp = path.child("validValues");
    std::vector<api::Quantity> qs;
    for (const auto& v : *valid) qs.push_back(rules::quantity_of(v).value_or(api::Quantity()));
    for (std::size_t i = 0; i + 1 < qs.size(); ++i)
      if (cmp(qs[i], qs[i + 1]) > 0) e.invalid_str(vp.index(i + 1), qs[i + 1].to_string(), "values must be sorted in ascending order");
    bool found = false;
    std::set<std::string> keys;
    for (std::size_t i = 0; i < qs.size(); ++i) {
      if (cmp(qs[i], capacity) > 0)
        e.invalid_str(vp.index(i), qs[i].to_string(), "option is larger than capacity value: " + capacity.to_string());
      if (cmp(qs[i], *dflt) == 0) found = true;
      if (!keys.insert(qs[i].to_string()).second) e.duplicate(vp.index(i), go_quote(qs[i].to_string()));
    }
    if (!found) e.invalid_str(vp, dflt->to_string(), "default value is not valid according to the requestPolicy");
    return;
  }
  if (!range) return;
  if (!dflt) {
    e.required(path.child("default"), "required when validRange is defined");
    return;
  }
  const Path rp = path.child("validRange");
  auto min = quantity(*range, "min"), max = quantity(*range, "max"), step = quantity(*range, "step");
  if (!min) {
    e.required(rp.child("min"), "required when validRange is defined");
    return;
  }
  if (cmp(*min, capacity) > 0)
    e.invalid_str(rp.child("min"), min->to_string(), "min is larger than capacity value: " + capacity.to_string());
  if (cmp(*dflt, *min) < 0) e.invalid_str(rp.child("default"), dflt->to_string(), "default is less than min: " + min->to_string());
  if (max) {
    if (cmp(*min, *max) > 0) e.invalid_str(rp.child("max"), min->to_string(), "min is larger than max: " + max->to_string());
    if (cmp(*max, capacity) > 0)
      e.invalid_str(rp.child("max"), max->to_string(), "max is larger than capacity value: " + capacity.to_string());
    if (cmp(*dflt, *max) > 0) e.invalid_str(rp.child("default"), dflt->to_string(), "default is more than max: " + max->to_string());
  }
  if (step) {
    if (step->sign() <= 0) {
      e.invalid_str(rp.child("step"), step->to_string(), "must be greater than zero");
      return;
    }
    api::Quantity added = *min;
    added += *step;
    if (cmp(added, capacity) > 0)
      e.invalid_str(rp.child("step"), step->to_string(),
                    "one step " + added.to_string() + " is larger than capacity value: " + capacity.to_string());
    auto multiple = [&](const api::Quantity& v) {
      auto sv_ = v.value(), mv = min->value(), st = step->value();
      if (st == 0) return;
      if ((sv_ - mv) % st != 0)
        e.invalid_str(rp.child("step"), v.to_string(),
                      "value is not a multiple of a given step (" + step->to_string() + ") from (" + min->to_string() + ")");
    };
    multiple(*dflt);
    if (max) multiple(*max);
  }
}

void device(Errors& e, const json::object& d, const json::object* old, const Path& path, bool per_device_nodes) {
  dns_label(e, sv(d, "name"), path.child("name"));
  const json::object* attrs = obj(d, "attributes");
  const json::object* caps = obj(d, "capacity");
  std::size_t total = (attrs ? attrs->size() : 0) + (caps ? caps->size() : 0);
  if (total > rv1::kResourceSliceMaxAttributesAndCapacitiesPerDevice)
    e.invalid_int(path, static_cast<std::int64_t>(total),
                  "the total number of attributes and capacities must not exceed " +
                      std::to_string(rv1::kResourceSliceMaxAttributesAndCapacitiesPerDevice));
  const Path ap = path.child("attributes");
  if (attrs)
    for (const auto& kv : *attrs) {
      qualified_name(e, kv.key(), ap);
      if (kv.value().is_object()) device_attribute(e, kv.value().get_object(), ap.key(truncated_key(kv.key(), kAttributeKeyMax)));
    }
  bool multiple = bool_of(d, "allowMultipleAllocations");
  const json::value* old_caps = old ? old->if_contains("capacity") : nullptr;
  const json::value* new_caps = d.if_contains("capacity");
  bool caps_same = old && ((old_caps == nullptr) == (new_caps == nullptr)) && (!old_caps || *old_caps == *new_caps);
  const Path cp = path.child("capacity");
  if (caps && !caps_same)
    for (const auto& kv : *caps) {
      qualified_name(e, kv.key(), cp);
      if (!kv.value().is_object()) continue;
      const json::object& c = kv.value().get_object();
      const std::string shown_key = truncated_key(kv.key(), kAttributeKeyMax);  // `p` views it
      const Path p = cp.key(shown_key);
      if (const json::object* policy = obj(c, "requestPolicy")) {
        if (!multiple)
          e.forbidden(p.child("requestPolicy"), "allowMultipleAllocations must be true");
        else
          request_policy(e, quantity(c, "value").value_or(api::Quantity()), *policy, p.child("requestPolicy"));
      }
    }
  const json::value* old_taints = old ? old->if_contains("taints") : nullptr;
  const json::value* new_taints = d.if_contains("taints");
  bool taints_same = old && ((old_taints == nullptr) == (new_taints == nullptr)) && (!old_taints || *old_taints == *new_taints);
  const json::array* taints = arr(d, "taints");
  const Path tp = path.child("taints");
  if (!taints_same && within(e, taints, rv1::kDeviceTaintsMaxLength, tp))
    each_object(taints, [&](const json::object& t, std::size_t i) { device_taint(e, t, nullptr, tp.index(i)); });
  const json::array* consumes = arr(d, "consumesCounters");
  const Path kp = path.child("consumesCounters");
  if (within(e, consumes, rv1::kResourceSliceMaxDeviceCounterConsumptionsPerDevice, kp)) {
    each_object(consumes, [&](const json::object& c, std::size_t i) {
      const Path p = kp.index(i);
      std::string_view set = sv(c, "counterSet");
      if (set.empty())
        e.required(p.child("counterSet"));
      else
        dns_label(e, set, p.child("counterSet"));
      const json::object* counters = obj(c, "counters");
      if (!counters || counters->empty()) {
        e.required(p.child("counters"));
      } else if (counters->size() > rv1::kResourceSliceMaxCountersPerDeviceCounterConsumption) {
        too_many(e, p.child("counters"), counters->size(), rv1::kResourceSliceMaxCountersPerDeviceCounterConsumption);
      } else {
        for (const auto& kv : *counters) dns_label(e, kv.key(), p.child("counters"));
      }
    });
    duplicates(e, consumes, kp, "counterSet");
  }
  if (per_device_nodes) {
    std::vector<std::string> set;
    if (d.contains("nodeName") && !d.at("nodeName").is_null()) {
      std::string_view n = sv(d, "nodeName");
      if (!n.empty()) {
        set.push_back("`nodeName`");
        dns_subdomain(e, n, path.child("nodeName"));
      } else {
        e.invalid_str(path.child("nodeName"), n, "must not be empty");
      }
    }
    if (const json::object* ns = obj(d, "nodeSelector")) {
      set.push_back("`nodeSelector`");
      rules::node_selector(e, *ns, path.child("nodeSelector"));
    }
    if (d.contains("allNodes") && d.at("allNodes").is_bool()) {
      if (d.at("allNodes").get_bool())
        set.push_back("`allNodes`");
      else
        e.invalid(path.child("allNodes"), "false", "must be either unset or set to true");
    }
    constexpr const char* kMsg =
        "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set "
        "to true in the ResourceSlice spec";
    if (set.empty()) {
      e.required(path, kMsg);
    } else if (set.size() > 1) {
      std::string joined;
      for (const auto& s : set) joined += (joined.empty() ? "" : ", ") + s;
      e.invalid_str(path, "{" + joined + "}", kMsg);
    }
  } else if (has(d, "nodeName") || has(d, "nodeSelector") || (d.contains("allNodes") && !d.at("allNodes").is_null())) {
    e.invalid(path, "null",
              "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in "
              "the ResourceSlice spec");
  }
  binding_parameters(e, d, path);
}

const json::object* device_named(const json::object* spec, std::string_view name) {
  if (!spec) return nullptr;
  if (const json::array* ds = arr(*spec, "devices"))
    for (const auto& d : *ds)
      if (d.is_object() && sv(d.get_object(), "name") == name) return &d.get_object();
  return nullptr;
}

void immutable(Errors& e, const json::value* now, const json::value* was, const Path& path) {
  bool same = (now == nullptr || now->is_null()) ? (was == nullptr || was->is_null()) : (was && *was == *now);
  if (!same) e.invalid(path, now && !now->is_null() ? rendered(*now) : "null", "field is immutable");
}

}  // namespace

// ---------------------------------------------------------------- public rules

void selector_expression(Errors& e, std::string_view expression, const Path& path, bool stored) {
  // Upstream's validateCELSelector: an expression already stored is compiled in the stored
  // environment (every function of this version), a new or changed one in the new-expression
  // environment. The consumable-capacity declarations are on: this server serves their fields.
  auto issue = cel::validate_selector(expression, stored, /*consumable_capacity=*/true);
  if (!issue) return;
  switch (issue->kind) {
    case cel::SelectorIssue::Kind::TooLong:
      e.too_long(path, rv1::kCELSelectorExpressionMaxLength);
      break;
    case cel::SelectorIssue::Kind::Invalid:
      e.invalid_str(path, expression, issue->detail);
      break;
    case cel::SelectorIssue::Kind::Forbidden:
      e.forbidden(path, issue->detail);
      break;
    case cel::SelectorIssue::Kind::Internal:
      e.causes.push_back(Cause{"InternalError", "Internal error: " + issue->detail, path.str()});
      break;
  }
}

void claim_spec(Errors& e, const json::object& spec, const Path& path, bool stored) {
  device_claim(e, obj(spec, "devices") ? *obj(spec, "devices") : kEmpty, path.child("devices"), stored);
}

void claim_template_spec(Errors& e, const json::object& spec, const Path& path) {
  // ValidateTemplateObjectMeta: labels and annotations of the claims to be made.
  if (const json::object* m = obj(spec, "metadata")) {
    const Path mp = path.child("metadata");
    if (const json::object* labels = obj(*m, "labels")) rules::labels(e, *labels, mp.child("labels"));
    if (const json::object* ann = obj(*m, "annotations")) {
      std::size_t total = 0;
      for (const auto& kv : *ann) {
        each(e, rules::qualified_name(kv.key()), mp.child("annotations"), kv.key());
        total += kv.key().size() + (kv.value().is_string() ? kv.value().get_string().size() : 0);
      }
      if (total > 256 * 1024) e.too_long(mp.child("annotations"), 256 * 1024);
    }
  }
  claim_spec(e, obj(spec, "spec") ? *obj(spec, "spec") : kEmpty, path.child("spec"), false);
}

void claim_status_update(Errors& e, const json::object& claim, const json::object& old) {
  const json::object& status = obj(claim, "status") ? *obj(claim, "status") : kEmpty;
  const json::object& old_status = obj(old, "status") ? *obj(old, "status") : kEmpty;
  const json::object& spec = obj(claim, "spec") ? *obj(claim, "spec") : kEmpty;
  RequestNames names = request_names(obj(spec, "devices") ? *obj(spec, "devices") : kEmpty);
  const Path path("status");
  const json::array* reserved = arr(status, "reservedFor");
  const Path rp = path.child("reservedFor");
  if (within(e, reserved, rv1::kResourceClaimReservedForMaxSize, rp)) {
    each_object(reserved, [&](const json::object& r, std::size_t i) {
      const Path p = rp.index(i);
      if (sv(r, "resource").empty()) e.required(p.child("resource"));
      if (sv(r, "name").empty()) e.required(p.child("name"));
      if (sv(r, "uid").empty()) e.required(p.child("uid"));
    });
    duplicates(e, reserved, rp, "uid");
  }
  const json::object* allocation = obj(status, "allocation");
  std::set<std::string> allocated;
  if (allocation)
    if (const json::object* d = obj(*allocation, "devices"))
      each_object(arr(*d, "results"), [&](const json::object& r, std::size_t) { allocated.insert(device_key(r)); });
  const json::array* devices = arr(status, "devices");
  const Path dp = path.child("devices");
  each_object(devices, [&](const json::object& d, std::size_t i) { device_status(e, d, dp.index(i), allocated); });
  if (devices) {
    std::set<std::string> seen;
    each_object(devices, [&](const json::object& d, std::size_t i) {
      if (!seen.insert(device_key(d)).second) {
        json::object id{{"Driver", sv(d, "driver")}, {"Pool", sv(d, "pool")}, {"Device", sv(d, "device")}};
        e.duplicate(dp.index(i), rendered(id));
      }
    });
  }
  bool deleted = false;
  if (const json::object* m = obj(claim, "metadata")) deleted = has(*m, "deletionTimestamp");
  if (reserved && !reserved->empty()) {
    if (!allocation) {
      e.forbidden(rp, "may not be specified when `allocated` is not set");
    } else if (deleted) {
      std::set<std::string> before;
      each_object(arr(old_status, "reservedFor"), [&](const json::object& r, std::size_t) { before.insert(json::serialize(r)); });
      bool added = false;
      each_object(reserved, [&](const json::object& r, std::size_t) { added = added || !before.count(json::serialize(r)); });
      if (added)
        e.forbidden(rp, "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set");
    }
  }
  const json::object* old_allocation = obj(old_status, "allocation");
  if (old_allocation && allocation) {
    if (*old_allocation != *allocation) {
      std::string v = rendered(*allocation);
      e.invalid(path.child("allocation"), v, "field is immutable");
    }
  } else if (allocation) {
    allocation_result(e, *allocation, path.child("allocation"), names);
  }
}

void device_class_spec(Errors& e, const json::object& spec, const json::object* old, const Path& path) {
  auto same = [&](std::string_view k) {
    if (!old) return false;
    const json::value* a = spec.if_contains(k);
    const json::value* b = old->if_contains(k);
    auto empty = [](const json::value* v) { return !v || v->is_null() || (v->is_array() && v->get_array().empty()); };
    if (empty(a) || empty(b)) return empty(a) && empty(b);
    return *a == *b;
  };
  selectors(e, arr(spec, "selectors"), path.child("selectors"), same("selectors"));
  const json::array* config = arr(spec, "config");
  const Path cp = path.child("config");
  bool stored = same("config");
  if (within(e, config, rv1::kDeviceConfigMaxSize, cp))
    each_object(config, [&](const json::object& c, std::size_t i) { device_configuration(e, c, cp.index(i), stored); });
  if (has(spec, "extendedResourceName")) {
    std::string_view n = sv(spec, "extendedResourceName");
    // v1helper.IsExtendedResourceName: not native, not "requests."-prefixed, and "requests.<name>"
    // a qualified name.
    bool native = n.find('/') == std::string_view::npos || n.find("kubernetes.io/") != std::string_view::npos;
    bool extended = !native && !n.starts_with("requests.") &&
                    ::ksched::labels::validate_label_key("requests." + std::string(n)).empty();
    if (!extended) e.invalid_str(path.child("extendedResourceName"), n, "must be a valid extended resource name");
  }
}

void slice_spec(Errors& e, const json::object& spec, const json::object* old, const Path& path) {
  driver_name(e, sv(spec, "driver"), path.child("driver"));
  const json::object& pool = obj(spec, "pool") ? *obj(spec, "pool") : kEmpty;
  const Path pp = path.child("pool");
  pool_name(e, sv(pool, "name"), pp.child("name"));
  if (std::int64_t n = int_of(pool, "resourceSliceCount").value_or(0); n <= 0)
    e.invalid_int(pp.child("resourceSliceCount"), n, "must be greater than zero");
  if (std::int64_t g = int_of(pool, "generation").value_or(0); g < 0)
    e.invalid_int(pp.child("generation"), g, "must be greater than or equal to zero");
  if (old) {
    const json::object& old_pool = obj(*old, "pool") ? *obj(*old, "pool") : kEmpty;
    immutable(e, pool.if_contains("name"), old_pool.if_contains("name"), pp.child("name"));
    immutable(e, spec.if_contains("driver"), old->if_contains("driver"), path.child("driver"));
    immutable(e, spec.if_contains("nodeName"), old->if_contains("nodeName"), path.child("nodeName"));
  }
  std::vector<std::string> set;
  if (spec.contains("nodeName") && !spec.at("nodeName").is_null()) {
    std::string_view n = sv(spec, "nodeName");
    if (!n.empty()) {
      set.push_back("`nodeName`");
      dns_subdomain(e, n, path.child("nodeName"));
    } else {
      e.invalid_str(path.child("nodeName"), n, "must be either unset or set to a non-empty string");
    }
  }
  if (const json::object* ns = obj(spec, "nodeSelector")) {
    set.push_back("`nodeSelector`");
    rules::node_selector(e, *ns, path.child("nodeSelector"));
    const json::array* terms = arr(*ns, "nodeSelectorTerms");
    if (!terms || terms->size() != 1) {
      const Path np = path.child("nodeSelector");
      e.invalid(np.child("nodeSelectorTerms"), terms ? rendered(*terms) : "null",
                "must have exactly one node selector term");
    }
  }
  for (const char* k : {"allNodes", "perDeviceNodeSelection"}) {
    if (!spec.contains(k) || !spec.at(k).is_bool()) continue;
    if (spec.at(k).get_bool())
      set.push_back("`" + std::string(k) + "`");
    else
      e.invalid(path.child(k), "false", "must be either unset or set to true");
  }
  constexpr const char* kOneOf = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required";
  if (set.empty()) {
    e.required(path, kOneOf);
  } else if (set.size() > 1) {
    std::string joined;
    for (const auto& s : set) joined += (joined.empty() ? "" : ", ") + s;
    e.invalid_str(path, "{" + joined + "}", std::string(kOneOf) + ", but multiple fields are set");
  }
  const json::array* devices = arr(spec, "devices");
  const json::array* counters = arr(spec, "sharedCounters");
  if (spec.contains("sharedCounters") && !spec.at("sharedCounters").is_null() && spec.contains("devices") &&
      !spec.at("devices").is_null())
    e.invalid_str(path, "", "only one of `sharedCounters` or `devices` is allowed");
  bool advanced = false;
  each_object(devices, [&](const json::object& d, std::size_t) {
    const json::array* t = arr(d, "taints");
    const json::array* c = arr(d, "consumesCounters");
    advanced = advanced || (t && !t->empty()) || (c && !c->empty());
  });
  std::size_t max_devices = advanced ? rv1::kResourceSliceMaxDevicesWithTaintsOrConsumesCounters : rv1::kResourceSliceMaxDevices;
  const Path dp = path.child("devices");
  bool per_device = bool_of(spec, "perDeviceNodeSelection");
  if (within(e, devices, max_devices, dp)) {
    each_object(devices, [&](const json::object& d, std::size_t i) {
      device(e, d, device_named(old, sv(d, "name")), dp.index(i), per_device);
    });
    duplicates(e, devices, dp, "name");
  }
  const Path cp = path.child("sharedCounters");
  if (within(e, counters, rv1::kResourceSliceMaxCounterSets, cp)) {
    each_object(counters, [&](const json::object& s, std::size_t i) {
      const Path p = cp.index(i);
      std::string_view name = sv(s, "name");
      if (name.empty())
        e.required(p.child("name"));
      else
        dns_label(e, name, p.child("name"));
      const json::object* cs = obj(s, "counters");
      if (!cs || cs->empty()) {
        e.required(p.child("counters"));
      } else if (cs->size() > rv1::kResourceSliceMaxCountersPerCounterSet) {
        too_many(e, p.child("counters"), cs->size(), rv1::kResourceSliceMaxCountersPerCounterSet);
      } else {
        for (const auto& kv : *cs) dns_label(e, kv.key(), p.child("counters"));
      }
    });
    duplicates(e, counters, cp, "name");
  }
}

void taint_rule_spec(Errors& e, const json::object& spec, const json::object* old, const Path& path) {
  if (const json::object* sel = obj(spec, "deviceSelector")) {
    const Path sp = path.child("deviceSelector");
    if (has(*sel, "driver")) driver_name(e, sv(*sel, "driver"), sp.child("driver"));
    if (has(*sel, "pool")) pool_name(e, sv(*sel, "pool"), sp.child("pool"));
    if (has(*sel, "device")) dns_label(e, sv(*sel, "device"), sp.child("device"));
  }
  const json::object* old_taint = old ? obj(*old, "taint") : nullptr;
  device_taint(e, obj(spec, "taint") ? *obj(spec, "taint") : kEmpty, old_taint ? old_taint : (old ? &kEmpty : nullptr),
               path.child("taint"));
}

void conditions(Errors& e, const json::array& cs, const Path& path, std::size_t max) {
  if (max > 0 && cs.size() > max) too_many(e, path, cs.size(), max);
  std::set<std::string_view> types;
  static const std::regex kReason("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (!cs[i].is_object()) continue;
    const json::object& c = cs[i].get_object();
    const Path p = path.index(i);
    std::string_view type = sv(c, "type"), status = sv(c, "status"), reason = sv(c, "reason");
    if (!types.insert(type).second) e.duplicate(p.child("type"), go_quote(type));
    label_name(e, type, p.child("type"));
    if (status != "True" && status != "False" && status != "Unknown")
      e.not_supported(p.child("status"), go_quote(status), {"False", "True", "Unknown"});
    if (auto g = int_of(c, "observedGeneration"); g && *g < 0)
      e.invalid_int(p.child("observedGeneration"), *g, "must be greater than or equal to zero");
    if (!has(c, "lastTransitionTime")) e.required(p.child("lastTransitionTime"));
    if (reason.empty()) {
      e.required(p.child("reason"));
    } else {
      if (!std::regex_match(std::string(reason), kReason))
        e.invalid_str(p.child("reason"), reason,
                      "a condition reason must start with alphabetic character, optionally followed by a string of "
                      "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. "
                      "'my_name', or 'MY_NAME', or 'MyName', or 'ReasonA,ReasonB', or 'ReasonA:ReasonB', regex used "
                      "for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')");
      if (reason.size() > 1024) e.too_long(p.child("reason"), 1024);
    }
    if (sv(c, "message").size() > 32 * 1024) e.too_long(p.child("message"), 32 * 1024);
  }
}

void admin_access(Errors& e, const json::array* items, const Path& path,
                  const std::function<const json::object*()>& ns_labels, bool results) {
  std::optional<std::size_t> first;
  each_object(items, [&](const json::object& o, std::size_t i) {
    if (first) return;
    const json::object* r = results ? &o : obj(o, "exactly");
    if (r && bool_of(*r, "adminAccess")) first = i;
  });
  if (!first) return;
  if (const json::object* labels = ns_labels(); labels && sv(*labels, rv1::kAdminNamespaceLabelKey) == "true") return;
  const Path ip = path.index(*first);
  const Path p = results ? ip.child("adminAccess") : ip.child("exactly");
  std::string detail = "admin access to devices requires the `" + std::string(rv1::kAdminNamespaceLabelKey) +
                       ": true` label on the containing namespace";
  if (results)
    e.forbidden(p, detail);
  else
    e.forbidden(p.child("adminAccess"), detail);
}

}  // namespace ksched::apiserver::registry::resource
