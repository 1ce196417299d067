// The table of served resources: URL names, kinds, scope, verbs, subresources, selectable fields.
#pragma once
#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/features.h"
#include "apiserver/storage/storage.h"

namespace ksched::apiserver {

// How a resource served at a version other than the one it is stored at reaches its objects
// (apiserver/conversion.h has the functions the handlers call). One Conversion serves every
// version of a resource: `convert` turns an object of any version it knows (by its apiVersion)
// into the version `to` ("group/version"), in place, as upstream converts through the internal
// type. The selectable fields (field selectors) are read from the stored version, so a
// conversion keeps them where they are.
struct Conversion {
  std::string_view storage_group, storage_version, storage_plural;  // where the objects are kept
  void (*convert)(boost::json::object& obj, std::string_view to);
};

struct ResourceInfo {
  int id = 0;
  std::string group;    // "" = core
  std::string version;
  std::string plural;
  std::string singular;
  std::string kind;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> subresources;  // status, binding, eviction, scale, finalize
  bool tracks_generation = false;
  bool create_only = false;               // e.g. bindings: POST only, no storage of its own
  std::vector<std::string> extra_fields;  // field selectors beyond metadata.name/namespace
  std::string gate;  // served only while this feature gate is on ("" = always)
  std::string also_gate;  // and only while this one is on too ("" = no second gate)
  // Null for a resource stored at the version it is served at (all but a few): the one check the
  // hot paths pay. Set for another version of a stored resource (Workload v1alpha1, stored as
  // v1beta1), for its storage version when older stored versions are read too (Workload
  // v1beta1), and for a view of another resource (events.k8s.io/v1 Events, stored as core/v1).
  const Conversion* conversion = nullptr;
  int storage = 0;  // id of the resource whose table holds the objects (== id when unconverted)

  std::string group_version() const { return group.empty() ? version : group + "/" + version; }
  // "pods" / "deployments.apps": how NotFound/Conflict messages name the resource.
  std::string qualified_resource() const { return group.empty() ? plural : plural + "." + group; }
  // "Pod" / "Deployment.apps": how Invalid messages name the kind.
  std::string qualified_kind() const { return group.empty() ? kind : kind + "." + group; }
  bool has_sub(std::string_view s) const;
  // URL prefix of the group version: "/api/v1" or "/apis/apps/v1".
  std::string gv_path() const { return group.empty() ? "/api/" + version : "/apis/" + group + "/" + version; }
};

const std::vector<ResourceInfo>& all_resources();
const ResourceInfo* find_resource(std::string_view group, std::string_view version, std::string_view plural);
// Whether `r` is served under these gates (a gated kind only while its gate is on, as upstream
// registers its storage only then).
bool is_served(const ResourceInfo& r, const FeatureGates& gates);
// Whether any resource is served under this group version (a request below it is routed).
bool serves_group_version(std::string_view group, std::string_view version, const FeatureGates& gates);
// The first resource of this kind in the table (its preferred version).
const ResourceInfo* find_resource_by_kind(std::string_view group, std::string_view kind);
// The resource of this kind at this version, if served there.
const ResourceInfo* find_resource_by_kind(std::string_view group, std::string_view version, std::string_view kind);
const ResourceInfo& resource_by_id(int id);
// Group names (non-core) in discovery order, of the resources served under `gates`.
std::vector<std::string> api_groups(const FeatureGates& gates);

// Selectable field values of an object (metadata.name, metadata.namespace + the resource's extras).
fields::FieldSet extract_fields(const ResourceInfo& r, const boost::json::object& obj);
Pairs extract_labels(const boost::json::object& obj);
// Whether `field` may be used in a field selector for `r` (with the error message otherwise).
util::Result<void> check_field_selector_field(const ResourceInfo& r, std::string_view field);

}  // namespace ksched::apiserver
