#include "apiserver/conversion.h"

#include <boost/json.hpp>

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// Whether stored JSON is already in `r`'s version. Stored objects begin with kind and apiVersion
// (the write path puts them first), so the prefix tells without parsing.
bool stored_in_version(const ResourceInfo& r, std::string_view stored) {
  std::string prefix;
  prefix.reserve(40 + r.kind.size() + r.group.size() + r.version.size());
  prefix.append("{\"kind\":\"").append(r.kind).append("\",\"apiVersion\":\"").append(r.group_version()).append("\"");
  return stored.starts_with(prefix);
}

}  // namespace

std::string to_view(const ResourceInfo& r, std::string_view stored) {
  if (!r.conversion || stored_in_version(r, stored)) return std::string(stored);
  json::value v = json::parse(stored);
  if (!v.is_object()) return std::string(stored);
  r.conversion->convert(v.get_object(), r.group_version());
  return json::serialize(v);
}

std::string to_view(const ResourceInfo& r, json::object&& stored_obj, std::string_view stored_json) {
  if (!r.conversion || stored_in_version(r, stored_json)) return std::string(stored_json);
  json::object obj = std::move(stored_obj);
  r.conversion->convert(obj, r.group_version());
  return json::serialize(obj);
}

void to_storage(const ResourceInfo& r, json::object& obj) {
  if (!r.conversion) return;
  const ResourceInfo& s = resource_by_id(r.storage);
  r.conversion->convert(obj, s.group_version());
}

void from_storage(const ResourceInfo& r, json::object& obj) {
  if (r.conversion) r.conversion->convert(obj, r.group_version());
}

}  // namespace ksched::apiserver
