// The building blocks of object validation, private to the API server: upstream's field errors
// (field.Error: its reasons, how each renders the bad value, the aggregate message), field paths,
// and the rules several kinds share (names, labels, resource names and quantities, tolerations,
// node selectors, label selectors). The objects come from the decode step, so modelled fields
// have their JSON types; unmodelled ones may not, and every accessor here treats a member of
// another type as absent.
#pragma once
#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/quantity.h"
#include "apiserver/status.h"

namespace ksched::apiserver::rules {

namespace json = boost::json;

// ---------------------------------------------------------------- paths
inline std::string child(const std::string& p, std::string_view name) {
  std::string out = p;
  if (!out.empty()) out += '.';
  out.append(name);
  return out;
}
inline std::string index(const std::string& p, std::size_t i) { return p + "[" + std::to_string(i) + "]"; }
inline std::string key(const std::string& p, std::string_view k) {
  std::string out = p;
  out.append("[").append(k).append("]");
  return out;
}

// ---------------------------------------------------------------- errors
// An ErrorList: each method appends the cause upstream's constructor of that name builds.
struct Errors {
  std::vector<Cause> causes;

  bool empty() const { return causes.empty(); }
  void required(std::string path, std::string_view detail = {});
  void forbidden(std::string path, std::string_view detail);
  // `rendered`: the bad value as upstream prints it (see quote/number below).
  void invalid(std::string path, std::string_view rendered, std::string_view detail);
  void invalid_str(std::string path, std::string_view v, std::string_view detail);
  void invalid_int(std::string path, std::int64_t v, std::string_view detail);
  void not_supported(std::string path, std::string_view rendered,
                     const std::vector<std::string_view>& supported);
  void duplicate(std::string path, std::string_view rendered, std::string_view detail = {});
  void not_found(std::string path, std::string_view rendered, std::string_view detail = {});
  void too_long(std::string path, std::size_t max_bytes);
  void append(std::vector<Cause> more) {
    for (auto& c : more) causes.push_back(std::move(c));
  }
};

// ---------------------------------------------------------------- accessors
const json::object* obj(const json::object& o, std::string_view k);
const json::array* arr(const json::object& o, std::string_view k);
std::string_view sv(const json::object& o, std::string_view k);  // "" when absent or not a string
std::optional<std::int64_t> int_of(const json::object& o, std::string_view k);
bool bool_of(const json::object& o, std::string_view k);
bool has(const json::object& o, std::string_view k);  // present and not null
// A quantity member as decode left it (canonical text); nullopt when absent or unparsable.
std::optional<api::Quantity> quantity_of(const json::value& v);

// ---------------------------------------------------------------- names
// apimachinery's validation messages (IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName,
// IsValidLabelValue, ...): empty when valid.
std::vector<std::string> dns1123_label(std::string_view v);
std::vector<std::string> dns1123_subdomain(std::string_view v);
std::vector<std::string> dns1035_label(std::string_view v);
std::vector<std::string> qualified_name(std::string_view v);
std::vector<std::string> label_value(std::string_view v);
std::vector<std::string> port_name(std::string_view v);
std::vector<std::string> env_var_name(std::string_view v);    // IsRelaxedEnvVarName
std::vector<std::string> config_map_key(std::string_view v);  // IsConfigMapKey
std::string inclusive_range(std::int64_t lo, std::int64_t hi);

void each(Errors& e, const std::vector<std::string>& msgs, const std::string& path, std::string_view value);

// ValidateLabels: keys as qualified names, values as label values.
void labels(Errors& e, const json::object& m, const std::string& path);

// ---------------------------------------------------------------- resources
enum class ResourceNames { Container, Pod, Quota, Any };
// validateResourceName and its container/pod/quota forms.
void resource_name(Errors& e, std::string_view name, const std::string& path, ResourceNames which);
// ValidateResourceQuantityValue: not negative, whole for integer resources.
void resource_quantity_value(Errors& e, std::string_view name, const json::value& v, const std::string& path);
// validateResourceRequirements for a container (or pod-level resources, or an overhead given as
// the limits): names, quantities, requests within limits, hugepages.
void resource_requirements(Errors& e, const json::object* limits, const json::object* requests,
                           const std::string& path, ResourceNames which);

// ---------------------------------------------------------------- scheduling
void tolerations(Errors& e, const json::array& ts, const std::string& path);
void taint_effect(Errors& e, std::string_view effect, bool allow_empty, const std::string& path);
// metav1.LabelSelector (ValidateLabelSelector).
void label_selector(Errors& e, const json::object& sel, const std::string& path);
// core NodeSelector (required node affinity) and its requirements.
void node_selector(Errors& e, const json::object& ns, const std::string& path);
void node_selector_term(Errors& e, const json::object& term, const std::string& path);

// ---------------------------------------------------------------- pods (validation_pod.cpp)
// ValidatePodSpec under `path` ("spec", "spec.template.spec"). A template (is_pod false) may
// leave a host-network port's hostPort 0.
void pod_spec(Errors& e, const json::object& spec, const std::string& path, bool is_pod);

}  // namespace ksched::apiserver::rules
