// Fuzz request-info parsing and the RBAC evaluator: any request, any user, any stored RBAC objects.
// The compiled index's fast decision, its decision with a reason, and a reference evaluation
// (upstream's RuleAllows over every rule RulesFor resolves) must agree; the Forbidden Status is a
// well-formed Status; a set of rules always covers itself.
//
// Input lines: "user|group,group", "METHOD path[?query]", then RBAC objects as JSON, one a line
// (their kind says which of Role, ClusterRole, RoleBinding, ClusterRoleBinding).
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/auth/authorization.h"
#include "apiserver/auth/rbac_authorizer.h"
#include "apiserver/endpoints/request_info.h"
#include "apiserver/resources.h"
#include "apiserver/storage/storage.h"

namespace {

using namespace ksched::apiserver;
namespace json = boost::json;

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    auto p = s.find(sep);
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) return out;
    s.remove_prefix(p + 1);
  }
}

void store_object(Store& store, std::string_view line) {
  json::error_code ec;
  json::value v = json::parse(line, ec);
  if (ec || !v.is_object()) return;
  json::object& o = v.get_object();
  auto* kind = o.if_contains("kind");
  if (!kind || !kind->is_string()) return;
  const ResourceInfo* r = find_resource_by_kind("rbac.authorization.k8s.io", kind->get_string());
  if (!r) return;
  auto* meta = o.if_contains("metadata");
  if (!meta || !meta->is_object()) return;
  auto& m = meta->get_object();
  auto* name = m.if_contains("name");
  if (!name || !name->is_string() || name->get_string().empty()) return;
  if (r->namespaced) {
    auto* ns = m.if_contains("namespace");
    if (!ns || !ns->is_string() || ns->get_string().empty()) m["namespace"] = "default";
  } else {
    m.erase("namespace");
  }
  (void)store.put(r->id, o, 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto lines = split(std::string_view(reinterpret_cast<const char*>(data), size), '\n');
  if (lines.size() < 2) return 0;
  auto who = split(lines[0], '|');
  UserInfo user{std::string(who[0]), "", {}};
  if (who.size() > 1)
    for (auto g : split(who[1], ',')) user.groups.emplace_back(g);
  auto req = split(lines[1], ' ');
  if (req.size() < 2) return 0;
  std::string method(req[0]);
  std::string target(req[1]);
  auto q = target.find('?');
  std::string path = target.substr(0, q);
  std::vector<std::pair<std::string, std::string>> query;
  if (q != std::string::npos)
    for (auto kv : split(std::string_view(target).substr(q + 1), '&')) {
      auto eq = kv.find('=');
      query.emplace_back(std::string(kv.substr(0, eq)),
                         eq == std::string_view::npos ? "" : std::string(kv.substr(eq + 1)));
    }

  Store store(16);
  for (std::size_t i = 2; i < lines.size(); ++i) store_object(store, lines[i]);
  Authorizer authz(store);

  RequestInfo info = parse_request_info(method, path, query);
  if (info.malformed) return 0;
  Attributes a = attributes_of(user, info);
  const bool fast = authz.allows(a);
  const AuthorizationResult slow = authz.authorize(a);
  bool reference = is_privileged(user);
  UserRules rules = authz.rbac().rules_for(user, a.ns);
  for (const PolicyRule* r : rules.rules) reference = reference || rule_allows(a, *r);
  if (fast != slow.allowed || fast != reference) {
    std::fprintf(stderr, "fast %d, with reason %d (%s), reference %d\n", fast, slow.allowed,
                 slow.reason.c_str(), reference);
    std::abort();
  }
  if (!fast) {
    ApiError e = forbidden_error(a, slow.reason);
    if (e.code != 403 || e.message.empty() || !json::parse(e.to_json()).is_object()) std::abort();
  }
  // Upstream's validation refuses a rule with both URLs and resource names (whose URL part no rule
  // with names can cover); the server stores what it is given, so those are left out here.
  std::vector<PolicyRule> own;
  for (const PolicyRule* r : rules.rules)
    if (r->non_resource_urls.empty() || r->resource_names.empty()) own.push_back(*r);
  if (!rules_cover(rules.rules, own, nullptr)) std::abort();
  return 0;
}
