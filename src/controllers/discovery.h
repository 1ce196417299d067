// Discovery as the garbage collector and the namespace controller use it (client-go's discovery
// client and RESTMapper): which resources the server serves, their kinds, scopes and verbs, and the
// resource of a (group, kind).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/rest.h"

namespace ksched::controllers {

struct ApiResource {
  std::string group;    // "" = core
  std::string version;
  std::string resource; // plural
  std::string kind;
  bool namespaced = false;
  std::vector<std::string> verbs;

  bool has_verb(std::string_view v) const;
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  // The static ResourceInfo shape the REST client takes; it views this object's strings.
  client::ResourceInfo info() const { return {group, version, resource, kind, namespaced}; }
  client::ResourceRef ref(std::string_view ns = {}, std::string_view name = {}) const {
    return client::ResourceRef::of(info(), ns, name);
  }
};

// The served resources as client-go's ServerPreferredResources lists them: each group's preferred
// version, plus the resources only its other versions serve, each resource once; no subresources.
class Discovery {
 public:
  static client::Result<Discovery> discover(client::RestClient& c);
  const std::vector<ApiResource>& resources() const { return resources_; }
  // The resource serving `kind` in the group of `api_version` ("apps/v1" -> apps), any version.
  const ApiResource* for_kind(std::string_view api_version, std::string_view kind) const;

 private:
  std::vector<ApiResource> resources_;
};

// "apps/v1" -> "apps"; "v1" -> "".
std::string_view group_of(std::string_view api_version);

}  // namespace ksched::controllers
