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
// A field path ("spec.containers[0].ports[1].hostPort"), rendered only when an error names it:
// the segments are chained on the stack, so a valid object costs no string. A child refers to its
// parent and must not outlive it (taking a child of a temporary does not compile).
class Path {
 public:
  Path(std::string_view root) : root_(root) {}
  Path(const std::string& root) : root_(root) {}
  Path(const char* root) : root_(root) {}
  Path child(std::string_view name) const& { return Path(this, name, 0, Kind::Child); }
  Path index(std::size_t i) const& { return Path(this, {}, i, Kind::Index); }
  Path key(std::string_view k) const& { return Path(this, k, 0, Kind::Key); }
  Path child(std::string_view) const&& = delete;
  Path index(std::size_t) const&& = delete;
  Path key(std::string_view) const&& = delete;
  std::string str() const;
  operator std::string() const { return str(); }

 private:
  enum class Kind { Root, Child, Index, Key };
  Path(const Path* parent, std::string_view name, std::size_t i, Kind k)
      : parent_(parent), root_(name), index_(i), kind_(k) {}
  void append_to(std::string& out) const;
  const Path* parent_ = nullptr;
  std::string_view root_;  // the root's text, or this segment's name or key
  std::size_t index_ = 0;
  Kind kind_ = Kind::Root;
};

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

// What apiequality.Semantic.DeepEqual compares: the value without null, false, 0, "", [] and {}
// members (recursively), so that a nil and an empty list, or an omitted zero, compare equal.
json::value semantic(const json::value& v);

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

void each(Errors& e, const std::vector<std::string>& msgs, const Path& path, std::string_view value);

// ValidateLabels: keys as qualified names, values as label values.
void labels(Errors& e, const json::object& m, const Path& path);

// ---------------------------------------------------------------- resources
enum class ResourceNames { Container, Pod, Quota, Any };
// validateResourceName and its container/pod/quota forms.
void resource_name(Errors& e, std::string_view name, const Path& path, ResourceNames which);
// ValidateResourceQuantityValue: not negative, whole for integer resources.
void resource_quantity_value(Errors& e, std::string_view name, const json::value& v, const Path& path);
// validateResourceRequirements for a container (or pod-level resources, or an overhead given as
// the limits): names, quantities, requests within limits, hugepages.
void resource_requirements(Errors& e, const json::object* limits, const json::object* requests,
                           const Path& path, ResourceNames which);

// ---------------------------------------------------------------- scheduling
void tolerations(Errors& e, const json::array& ts, const Path& path);
void taint_effect(Errors& e, std::string_view effect, bool allow_empty, const Path& path);
// metav1.LabelSelector (ValidateLabelSelector).
void label_selector(Errors& e, const json::object& sel, const Path& path);
// core NodeSelector (required node affinity) and its requirements.
void node_selector(Errors& e, const json::object& ns, const Path& path);
void node_selector_term(Errors& e, const json::object& term, const Path& path);

// ---------------------------------------------------------------- pods (validation_pod.cpp)
// ValidatePodSpec under `path` ("spec", "spec.template.spec"). A template (is_pod false) may
// leave a host-network port's hostPort 0.
void pod_spec(Errors& e, const json::object& spec, const Path& path, bool is_pod);
// validatePodResourceClaimStatuses (a pod's status write): each names one of `claims`, once.
void pod_resource_claim_statuses(Errors& e, const json::array* statuses, const json::array* claims, const Path& path);

}  // namespace ksched::apiserver::rules
