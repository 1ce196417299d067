#include "apiserver/registry/node/strategies.h"

#include <boost/json.hpp>

#include "apiserver/registry/node/runtimeclass.h"

namespace ksched::apiserver::registry::node {

namespace json = boost::json;

namespace {

class RuntimeClassStrategy final : public Strategy {
 public:
  void validate(rules::Errors& e, const json::object& obj, const WriteContext&) const override {
    e.append(validate_runtime_class(obj));
  }
  // The create rules, then of the update's own causes only the immutable fields (the rest repeat
  // the create rules).
  void validate_update(rules::Errors& e, const json::object& obj, const WriteContext& w) const override {
    e.append(validate_runtime_class(obj));
    for (auto& c : validate_runtime_class_update(obj, *w.old))
      if (c.message.ends_with("field is immutable")) e.causes.push_back(std::move(c));
  }
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0}, {"Handler", "string", "", 0}, {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    const json::object* meta = rules::obj(obj, "metadata");
    return json::array{meta ? rules::sv(*meta, "name") : std::string_view(), rules::sv(obj, "handler"), age(obj, now)};
  }
};

}  // namespace

const Strategy* strategy(std::string_view version, std::string_view plural) {
  static const RuntimeClassStrategy runtime_classes;
  if (version == "v1" && plural == "runtimeclasses") return &runtime_classes;
  return nullptr;
}

}  // namespace ksched::apiserver::registry::node
