#include "apiserver/type_check.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <deque>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "apiserver/openapi.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// Field names are looked up by the JSON key's view, without building a std::string.
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// A schema compiled once for fast walking: what JSON a Go field of this type accepts.
struct Shape {
  enum class Kind { Any, String, Int32, Int64, Bool, Time, Quantity, IntOrString, Array, Map, Struct, OpaqueObject };
  Kind kind = Kind::Any;
  std::string go_type;     // as encoding/json names it: "v1.Container", "[]string", "int32"
  std::string struct_name;  // Struct: the Go type name without package ("PodSpec")
  const Shape* elem = nullptr;  // Array and Map
  std::unordered_map<std::string, const Shape*, KeyHash, std::equal_to<>> fields;  // Struct
};

// Every served kind's shape, compiled on first use (thread-safe static) and read-only after.
class Shapes {
 public:
  Shapes() {
    for (const auto& r : all_resources()) {
      std::string_view def = openapi::kind_definition(r.group, r.kind);
      if (by_id_.size() <= static_cast<std::size_t>(r.id)) by_id_.resize(r.id + 1, nullptr);
      by_id_[r.id] = def.empty() ? nullptr : by_ref(std::string(def));
    }
  }
  const Shape* of_kind(const ResourceInfo& r) const {
    return static_cast<std::size_t>(r.id) < by_id_.size() ? by_id_[r.id] : nullptr;
  }

 private:
  static std::string go_name(std::string_view def) {  // io.k8s.api.core.v1.Container -> v1.Container
    auto last = def.rfind('.');
    if (last == std::string_view::npos) return std::string(def);
    auto prev = def.rfind('.', last - 1);
    return std::string(def.substr(prev == std::string_view::npos ? 0 : prev + 1));
  }

  const Shape* by_ref(const std::string& def) {
    if (auto it = named_.find(def); it != named_.end()) return it->second;
    Shape& s = store_.emplace_back();
    named_[def] = &s;  // before compiling the body: schemas refer to themselves (JSONSchemaProps)
    const auto& defs = openapi::definitions(openapi::Flavor::V2);
    const json::value* v = defs.if_contains(def);
    if (def.ends_with(".Quantity")) {
      s.kind = Shape::Kind::Quantity;
      s.go_type = "resource.Quantity";
    } else if (def.ends_with(".IntOrString")) {
      s.kind = Shape::Kind::IntOrString;
      s.go_type = "intstr.IntOrString";
    } else if (def.ends_with(".Time") || def.ends_with(".MicroTime")) {
      s.kind = Shape::Kind::Time;
      s.go_type = go_name(def);
    } else if (v && v->is_object()) {
      compile(s, v->get_object(), go_name(def));
    }
    return &s;
  }

  const Shape* inline_shape(const json::object& schema) {
    if (auto* ref = schema.if_contains("$ref"); ref && ref->is_string()) {
      std::string_view r = ref->get_string();
      constexpr std::string_view prefix = "#/definitions/";
      if (r.starts_with(prefix)) r.remove_prefix(prefix.size());
      return by_ref(std::string(r));
    }
    Shape& s = store_.emplace_back();
    compile(s, schema, "");
    return &s;
  }

  void compile(Shape& s, const json::object& schema, const std::string& name) {
    std::string_view type = schema.contains("type") && schema.at("type").is_string()
                                ? std::string_view(schema.at("type").get_string())
                                : std::string_view();
    std::string_view format = schema.contains("format") && schema.at("format").is_string()
                                  ? std::string_view(schema.at("format").get_string())
                                  : std::string_view();
    if (type == "string") {
      s.kind = format == "int-or-string" ? Shape::Kind::IntOrString
               : format == "date-time"   ? Shape::Kind::Time
                                         : Shape::Kind::String;
      s.go_type = s.kind == Shape::Kind::IntOrString ? "intstr.IntOrString" : "string";
    } else if (type == "integer") {
      s.kind = format == "int32" ? Shape::Kind::Int32 : Shape::Kind::Int64;
      s.go_type = format == "int32" ? "int32" : "int64";
    } else if (type == "boolean") {
      s.kind = Shape::Kind::Bool;
      s.go_type = "bool";
    } else if (type == "array") {
      s.kind = Shape::Kind::Array;
      auto* items = schema.if_contains("items");
      s.elem = items && items->is_object() ? inline_shape(items->get_object()) : nullptr;
      s.go_type = "[]" + (s.elem && !s.elem->go_type.empty() ? s.elem->go_type : std::string("interface {}"));
    } else if (type == "object") {
      auto* props = schema.if_contains("properties");
      auto* extra = schema.if_contains("additionalProperties");
      if (props && props->is_object()) {
        s.kind = Shape::Kind::Struct;
        s.go_type = name.empty() ? "struct" : name;
        s.struct_name = name.substr(name.find('.') == std::string::npos ? 0 : name.find('.') + 1);
        for (const auto& kv : props->get_object())
          if (kv.value().is_object()) s.fields[std::string(kv.key())] = inline_shape(kv.value().get_object());
      } else if (extra && extra->is_object()) {
        s.kind = Shape::Kind::Map;
        s.elem = inline_shape(extra->get_object());
        s.go_type = "map[string]" + (s.elem->go_type.empty() ? std::string("interface {}") : s.elem->go_type);
      } else {
        s.kind = Shape::Kind::OpaqueObject;
        s.go_type = name.empty() ? "map[string]interface {}" : name;
      }
    }
  }

  std::deque<Shape> store_;  // stable addresses
  std::unordered_map<std::string, const Shape*> named_;
  std::vector<const Shape*> by_id_;
};

Shapes& shapes() {
  static Shapes s;
  return s;
}

std::string json_kind(const json::value& v) {
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "number";
}

struct Walker {
  std::string error;
  // The field path from the root, without indices ("spec.containers"), and the innermost Go
  // struct holding the field: kept as views while walking, joined only for the error.
  std::vector<std::string_view> path;
  const std::string* struct_name = nullptr;

  bool fail(const json::value& v, const Shape& s) {
    std::string value = json_kind(v);
    if (value == "number" && !(s.kind == Shape::Kind::String || s.kind == Shape::Kind::Bool ||
                               s.kind == Shape::Kind::Time || s.kind == Shape::Kind::Array ||
                               s.kind == Shape::Kind::Map || s.kind == Shape::Kind::Struct))
      value += " " + (v.is_double() ? fmt::format("{}", v.get_double()) : json::serialize(v));  // the literal
    std::string joined;
    for (auto p : path) joined.append(joined.empty() ? "" : ".").append(p);
    error = "json: cannot unmarshal " + value + " into Go struct field " + (struct_name ? *struct_name : std::string()) +
            "." + joined + " of type " + s.go_type;
    return false;
  }

  bool walk(const json::value& v, const Shape& s) {
    if (v.is_null()) return true;  // null leaves a Go field at its zero value
    switch (s.kind) {
      case Shape::Kind::Any:
        return true;
      case Shape::Kind::String:
      case Shape::Kind::Time:
        return v.is_string() || fail(v, s);
      case Shape::Kind::Quantity:
        return v.is_string() || v.is_number() || fail(v, s);  // numbers are read by their text
      case Shape::Kind::IntOrString:
        return v.is_string() || v.is_int64() || v.is_uint64() || fail(v, s);
      case Shape::Kind::Bool:
        return v.is_bool() || fail(v, s);
      case Shape::Kind::Int32:
        if (v.is_int64() && v.get_int64() >= INT32_MIN && v.get_int64() <= INT32_MAX) return true;
        if (v.is_uint64() && v.get_uint64() <= INT32_MAX) return true;
        return fail(v, s);
      case Shape::Kind::Int64:
        return v.is_int64() || (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) || fail(v, s);
      case Shape::Kind::OpaqueObject:
        return v.is_object() || fail(v, s);
      case Shape::Kind::Array: {
        if (!v.is_array()) return fail(v, s);
        if (!s.elem) return true;
        for (const auto& e : v.get_array())
          if (!walk(e, *s.elem)) return false;
        return true;
      }
      case Shape::Kind::Map: {
        if (!v.is_object()) return fail(v, s);
        for (const auto& kv : v.get_object())
          if (!walk(kv.value(), *s.elem)) return false;
        return true;
      }
      case Shape::Kind::Struct:
        return v.is_object() ? walk_struct(v.get_object(), s) : fail(v, s);
    }
    return true;
  }

  bool walk_struct(const json::object& o, const Shape& s) {
    const std::string* saved_struct = struct_name;
    for (const auto& kv : o) {
      auto it = s.fields.find(std::string_view(kv.key()));
      if (it == s.fields.end()) continue;  // not modelled: kept as sent
      struct_name = &s.struct_name;
      path.push_back(kv.key());
      if (!walk(kv.value(), *it->second)) return false;
      path.pop_back();
    }
    struct_name = saved_struct;
    return true;
  }
};

}  // namespace

std::optional<std::string> check_field_types(const ResourceInfo& r, const json::object& obj) {
  const Shape* s = shapes().of_kind(r);
  if (!s) return std::nullopt;
  Walker w;
  // The root is walked as the object it is (a json::value made from it would copy the whole tree).
  if (s->kind == Shape::Kind::Struct ? w.walk_struct(obj, *s) : w.walk(json::value(obj), *s)) return std::nullopt;
  return w.error;
}

}  // namespace ksched::apiserver
