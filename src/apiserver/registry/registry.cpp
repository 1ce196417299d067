#include <boost/json.hpp>

#include "apiserver/registry/apps/strategies.h"
#include "apiserver/registry/batch/strategies.h"
#include "apiserver/registry/core/strategies.h"
#include "apiserver/registry/node/strategies.h"
#include "apiserver/registry/resource/strategies.h"
#include "apiserver/registry/scheduling/strategies.h"
#include "apiserver/registry/strategy.h"
#include "apiserver/endpoints/table.h"
#include "apiserver/timeutil.h"

namespace ksched::apiserver::registry {

namespace json = boost::json;

void Strategy::set_defaults(json::object&, const WriteContext&) const {}
void Strategy::prepare_for_create(json::object&, const WriteContext&) const {}
void Strategy::prepare_for_update(json::object&, const WriteContext&) const {}
void Strategy::prepare_for_status_update(json::object&, const WriteContext&) const {}
void Strategy::validate_status_update(rules::Errors&, const json::object&, const WriteContext&) const {}
void Strategy::warnings(const json::object&, const WriteContext&, std::vector<std::string>&) const {}

std::string age(const json::object& obj, std::int64_t now_unix) {
  const json::object* m = rules::obj(obj, "metadata");
  auto t = m ? parse_rfc3339(rules::sv(*m, "creationTimestamp")) : std::nullopt;
  return t ? human_age(now_unix - *t) : std::string("<unknown>");
}

std::string cell_text(const json::value* v, std::string_view dflt) {
  if (!v) return std::string(dflt);
  if (v->is_string()) return std::string(v->get_string().empty() ? dflt : std::string_view(v->get_string()));
  if (v->is_int64()) return std::to_string(v->get_int64());
  if (v->is_bool()) return v->get_bool() ? "true" : "false";
  return std::string(dflt);
}

json::array Strategy::table_cells(const json::object& obj, std::int64_t now_unix) const {
  const json::object* m = rules::obj(obj, "metadata");
  return json::array{m ? rules::sv(*m, "name") : std::string_view(), age(obj, now_unix)};
}

const Strategy* strategy_for(const ResourceInfo& r) {
  // One entry per group whose rules are in this shape (registry/<group>/).
  if (r.group.empty()) return core::strategy(r.version, r.plural);
  if (r.group == "apps") return apps::strategy(r.version, r.plural);
  if (r.group == "batch") return batch::strategy(r.version, r.plural);
  if (r.group == "resource.k8s.io") return resource::strategy(r.version, r.plural);
  if (r.group == "scheduling.k8s.io") return scheduling::strategy(r.version, r.plural);
  if (r.group == "node.k8s.io") return node::strategy(r.version, r.plural);
  return nullptr;
}

std::vector<Cause> validate(const Strategy& s, const json::object& obj, const WriteContext& w) {
  rules::Errors e;
  if (!w.old)
    s.validate(e, obj, w);
  else if (w.subresource == "status")
    s.validate_status_update(e, obj, w);
  else
    s.validate_update(e, obj, w);
  return std::move(e.causes);
}

}  // namespace ksched::apiserver::registry
