#include "apiserver/write/type_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <deque>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/quantity.h"
#include "api/quantity_text.h"
#include "apiserver/endpoints/openapi.h"
#include "apiserver/timeutil.h"
#include "util/go_format.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// A schema compiled once for fast walking: what JSON a Go field of this type accepts.
struct Shape {
  enum class Kind {
    Any,
    String,
    Int32,
    Int64,
    Float,
    Bool,
    Bytes,  // []byte: a base64 string
    Time,
    MicroTime,
    Quantity,
    IntOrString,
    Array,
    Map,
    Struct,
    OpaqueObject
  };
  struct Field {
    const Shape* shape = nullptr;
    std::string_view embedded;  // the Go struct embedding it ("VolumeSource"), named in type errors
  };
  // A struct's fields by name, sorted by the name's length: a lookup (every member of every
  // object of a body) binary-searches the length and compares the one or few names of that
  // length, with no hashing and no std::string built from the key.
  class Fields {
   public:
    void set(std::string_view name, Field f) {
      auto it = std::lower_bound(entries_.begin(), entries_.end(), name, by_length);
      for (; it != entries_.end() && it->first.size() == name.size(); ++it)
        if (it->first == name) {
          it->second = f;
          return;
        }
      entries_.emplace(it, std::string(name), f);
    }
    const Field* find(std::string_view name) const noexcept {
      auto it = std::lower_bound(entries_.begin(), entries_.end(), name, by_length);
      for (; it != entries_.end() && it->first.size() == name.size(); ++it)
        if (it->first == name) return &it->second;
      return nullptr;
    }

   private:
    static bool by_length(const std::pair<std::string, Field>& e, std::string_view name) noexcept {
      return e.first.size() < name.size();
    }
    std::vector<std::pair<std::string, Field>> entries_;
  };
  Kind kind = Kind::Any;
  std::string go_type;          // as encoding/json names it: "v1.Container", "[]string", "int32"
  std::string struct_name;      // Struct: the Go type name without package ("PodSpec")
  const Shape* elem = nullptr;  // Array and Map
  Fields fields;  // Struct
  bool complete = false;  // Struct: holds every field upstream's type has; others are unknown
};

// Every served kind's shape, compiled on first use (thread-safe static) and read-only after.
class Shapes {
 public:
  Shapes() {
    for (const auto& r : all_resources()) {
      std::string_view def = openapi::kind_definition(r.group, r.version, r.kind);
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
    } else if (def.ends_with(".MicroTime")) {
      s.kind = Shape::Kind::MicroTime;
      s.go_type = "v1.MicroTime";
    } else if (def.ends_with(".Time")) {
      s.kind = Shape::Kind::Time;
      s.go_type = "v1.Time";
    } else if (v && v->is_object()) {
      compile(s, v->get_object(), go_name(def), def);
    }
    return &s;
  }

  // The shape of a property or item schema; `fresh` tells whether it is the caller's own (an
  // inline schema) rather than a shared named one.
  Shape* inline_shape(const json::object& schema, bool& fresh) {
    if (auto* ref = schema.if_contains("$ref"); ref && ref->is_string()) {
      std::string_view r = ref->get_string();
      constexpr std::string_view prefix = "#/definitions/";
      if (r.starts_with(prefix)) r.remove_prefix(prefix.size());
      fresh = false;
      return const_cast<Shape*>(by_ref(std::string(r)));
    }
    Shape& s = store_.emplace_back();
    compile(s, schema, "", "");
    fresh = true;
    return &s;
  }

  void compile(Shape& s, const json::object& schema, const std::string& name, std::string_view def) {
    std::string_view type = schema.contains("type") && schema.at("type").is_string()
                                ? std::string_view(schema.at("type").get_string())
                                : std::string_view();
    std::string_view format = schema.contains("format") && schema.at("format").is_string()
                                  ? std::string_view(schema.at("format").get_string())
                                  : std::string_view();
    bool fresh = false;
    if (type == "string") {
      s.kind = format == "int-or-string" ? Shape::Kind::IntOrString
               : format == "date-time"   ? Shape::Kind::Time
               : format == "byte"        ? Shape::Kind::Bytes
                                         : Shape::Kind::String;
      s.go_type = s.kind == Shape::Kind::IntOrString ? "intstr.IntOrString"
                  : s.kind == Shape::Kind::Bytes     ? "[]uint8"
                                                     : "string";
    } else if (type == "integer") {
      s.kind = format == "int32" ? Shape::Kind::Int32 : Shape::Kind::Int64;
      s.go_type = format == "int32" ? "int32" : "int64";
    } else if (type == "number") {
      s.kind = Shape::Kind::Float;
      s.go_type = "float64";
    } else if (type == "boolean") {
      s.kind = Shape::Kind::Bool;
      s.go_type = "bool";
    } else if (type == "array") {
      s.kind = Shape::Kind::Array;
      auto* items = schema.if_contains("items");
      s.elem = items && items->is_object() ? inline_shape(items->get_object(), fresh) : nullptr;
      s.go_type = "[]" + (s.elem && !s.elem->go_type.empty() ? s.elem->go_type : std::string("interface {}"));
    } else if (type == "object") {
      auto* props = schema.if_contains("properties");
      auto* extra = schema.if_contains("additionalProperties");
      if (props && props->is_object()) {
        s.kind = Shape::Kind::Struct;
        s.go_type = name.empty() ? "struct" : name;
        s.struct_name = name.substr(name.find('.') == std::string::npos ? 0 : name.find('.') + 1);
        s.complete = !def.empty() && openapi::definition_is_complete(def);
        for (const auto& kv : props->get_object()) {
          if (!kv.value().is_object()) continue;
          Shape* f = inline_shape(kv.value().get_object(), fresh);
          if (std::string_view named =
                  def.empty() ? std::string_view() : openapi::go_named_type(def, kv.key());
              !named.empty()) {
            if (!fresh) f = &store_.emplace_back(*f);  // never rename a shared shape
            f->go_type = std::string(named);
            // []v1.Capability: the items are v1.Capability (an inline schema, the field's own).
            if (named.starts_with("[]") && f->elem)
              const_cast<Shape*>(f->elem)->go_type = std::string(named.substr(2));
          }
          s.fields.set(kv.key(),
                       Shape::Field{f, def.empty() ? std::string_view() : openapi::embedded_struct(def, kv.key())});
        }
      } else if (extra && extra->is_object()) {
        s.kind = Shape::Kind::Map;
        s.elem = inline_shape(extra->get_object(), fresh);
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

// The JSON kind encoding/json names in a type error.
std::string_view json_kind(const json::value& v) {
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "number";
}

std::string number_text(const json::value& v) {
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  return fmt::format("{}", v.get_double());  // the shortest text that reads back as the same double
}

// strings.TrimSpace: Unicode white space at both ends (a quantity is parsed after it).
std::string_view trim_go_space(std::string_view s) {
  auto space_len_front = [](std::string_view t) -> std::size_t {
    if (t.empty()) return 0;
    unsigned char c = static_cast<unsigned char>(t[0]);
    if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
    if (c == 0xc2 && t.size() >= 2 &&
        (static_cast<unsigned char>(t[1]) == 0x85 || static_cast<unsigned char>(t[1]) == 0xa0))
      return 2;
    if (t.size() >= 3) {
      unsigned char b1 = static_cast<unsigned char>(t[1]), b2 = static_cast<unsigned char>(t[2]);
      if (c == 0xe1 && b1 == 0x9a && b2 == 0x80) return 3;  // U+1680
      if (c == 0xe2 && b1 == 0x80 && (b2 <= 0x8a || b2 == 0xa8 || b2 == 0xa9 || b2 == 0xaf))
        return 3;                                           // U+2000-200A, 2028, 2029, 202F
      if (c == 0xe2 && b1 == 0x81 && b2 == 0x9f) return 3;  // U+205F
      if (c == 0xe3 && b1 == 0x80 && b2 == 0x80) return 3;  // U+3000
    }
    return 0;
  };
  while (std::size_t n = space_len_front(s)) s.remove_prefix(n);
  while (!s.empty()) {
    std::size_t n = 0;
    for (std::size_t len : {std::size_t{1}, std::size_t{2}, std::size_t{3}})
      if (s.size() >= len && space_len_front(s.substr(s.size() - len)) == len) n = len;
    if (n == 0) break;
    s.remove_suffix(n);
  }
  return s;
}

// encoding/base64's StdEncoding.DecodeString check: nullopt when `s` decodes, else Go's error.
std::optional<std::string> base64_error(std::string_view s) {
  auto value = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
  };
  std::size_t quantum = 0;  // characters of the current 4-character group seen
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\r' || c == '\n') continue;
    if (c == '=') {
      // Padding: only as the 3rd or 4th character of a group, then only the rest of it.
      if (quantum < 2) return fmt::format("illegal base64 data at input byte {}", i);
      std::size_t need = 4 - quantum, j = i;
      while (need > 0) {
        if (j >= s.size()) return fmt::format("illegal base64 data at input byte {}", s.size());
        if (s[j] == '\r' || s[j] == '\n') {
          ++j;
          continue;
        }
        if (s[j] != '=') return fmt::format("illegal base64 data at input byte {}", j);
        ++j;
        --need;
      }
      while (j < s.size() && (s[j] == '\r' || s[j] == '\n')) ++j;
      if (j < s.size()) return fmt::format("illegal base64 data at input byte {}", j);
      return std::nullopt;
    }
    if (!value(c)) return fmt::format("illegal base64 data at input byte {}", i);
    quantum = (quantum + 1) % 4;
  }
  if (quantum == 1) return fmt::format("illegal base64 data at input byte {}", s.size());
  if (quantum != 0) return fmt::format("illegal base64 data at input byte {}", s.size());
  return std::nullopt;
}

// Walks an object with its shape the way encoding/json (sigs.k8s.io/json, case-sensitive)
// decodes it into the Go struct. Type mismatches are "saved" and the walk goes on, as the
// decoder saves them; a field type's own UnmarshalJSON error (Quantity, Time, IntOrString) ends
// the walk, and wins over a saved one, as it ends the decode.
class Walker {
 public:
  Walker(const std::vector<DuplicateKey>* dups, bool collect_strict, bool resource_lists)
      : dups_(dups && !dups->empty() ? dups : nullptr),
        collect_strict_(collect_strict),
        resource_lists_(resource_lists) {
    path_.reserve(16);
  }

  std::optional<std::string> abort;
  std::optional<std::string> saved;
  std::vector<std::string> strict;

  bool walk_struct(json::object& o, const Shape& s) {
    const std::string* saved_struct = struct_name_;
    if (dups_ && collect_strict_) report_duplicates(&s);
    std::vector<std::string> unknown;
    for (auto& kv : o) {
      const Shape::Field* field = s.fields.find(std::string_view(kv.key()));
      if (!field) {
        if (s.complete) {
          if (collect_strict_) add_strict("unknown field ", kv.key());
          unknown.emplace_back(kv.key());
        }
        continue;  // not modelled: kept as sent
      }
      struct_name_ = &s.struct_name;
      path_.push_back(Seg{kv.key(), field->embedded, 0, Seg::Field});
      bool go_on = walk(kv.value(), *field->shape);
      path_.pop_back();
      if (!go_on) return false;
    }
    struct_name_ = saved_struct;
    // What upstream's Go struct has no field for is not stored.
    for (const auto& k : unknown) o.stable_erase(k);
    return true;
  }

 private:
  struct Seg {
    std::string_view key;
    std::string_view embedded;
    std::size_t index;
    enum Kind { Field, Key, Index } kind;
  };

  // "PodSpec.spec.containers": the struct holding the field, then the struct fields from the root
  // (maps' keys and arrays' indices are not part of it; embedded structs are).
  std::string go_field() const {
    std::string out = struct_name_ ? *struct_name_ : std::string();
    out += '.';
    bool first = true;
    for (const auto& s : path_) {
      if (s.kind != Seg::Field) continue;
      if (!first) out += '.';
      first = false;
      if (!s.embedded.empty()) out.append(s.embedded).append(".");
      out.append(s.key);
    }
    return out;
  }

  // "spec.containers[0].foo": upstream's strict error path.
  std::string strict_path() const {
    std::string out;
    for (const auto& s : path_) {
      if (s.kind == Seg::Index) {
        out += '[' + std::to_string(s.index) + ']';
      } else {
        if (!out.empty()) out += '.';
        out.append(s.key);
      }
    }
    return out;
  }

  std::string type_error(std::string_view value, std::string_view go_type) const {
    std::string field = go_field();
    if (field == ".")
      return fmt::format("json: cannot unmarshal {} into Go value of type {}", value, go_type);
    return fmt::format("json: cannot unmarshal {} into Go struct field {} of type {}", value, field, go_type);
  }

  // A type mismatch: kept if it is the first, and the walk goes on.
  bool mismatch(const json::value& v, const Shape& s, bool numeric) {
    if (!saved) {
      std::string value(json_kind(v));
      if (numeric && value == "number") value += " " + number_text(v);
      saved = type_error(value, s.go_type);
    }
    return true;
  }
  bool stop(std::string e) {
    abort = std::move(e);
    return false;
  }

  void add_strict(std::string_view what, std::string_view key) {
    if (strict.size() >= 100) return;
    std::string p = strict_path();
    std::string e =
        std::string(what) + util::go_quote(p.empty() ? std::string(key) : p + "." + std::string(key));
    for (const auto& x : strict)
      if (x == e) return;
    strict.push_back(std::move(e));
  }

  // Upstream reports a repeated key of a struct only if the struct has that field, and any
  // repeated key of a map.
  void report_duplicates(const Shape* s) {
    std::string p = strict_path();
    for (const auto& d : *dups_)
      if (d.object_path == p && (!s || s->fields.find(d.key))) add_strict("duplicate field ", d.key);
  }

  // `in_list`: a value of a ResourceList (see Walker's resource_lists_).
  bool quantity(json::value& v, bool in_list = false) {
    if (v.is_string()) {
      // The common case, without a copy: the trimmed text is parsed in place and, when upstream
      // keeps it as sent, left as it is.
      const std::string_view sent = v.get_string();
      const std::string_view text = trim_go_space(sent);
      auto q = api::Quantity::parse(text);
      if (!q) return stop(q.error());
      if (auto scale = api::kept_text_scale(text); scale && (!in_list || *scale >= -3)) {
        if (text.size() != sent.size()) v = json::string(text);
        return true;
      }
      std::string out = api::upstream_text(text, *q, in_list);
      if (sent != out) v = json::string(out);
      return true;
    }
    // A number, or true, [..], {..}: what UnmarshalJSON would parse (and refuse).
    std::string text = v.is_number() ? number_text(v) : json::serialize(v);
    auto q = api::Quantity::parse(text);
    if (!q) return stop(q.error());
    v = json::string(api::upstream_text(text, *q, in_list));
    return true;
  }

  bool walk(json::value& v, const Shape& s) {
    if (v.is_null()) return true;  // null leaves a Go field at its zero value
    switch (s.kind) {
      case Shape::Kind::Any:
        return true;
      case Shape::Kind::String:
        return v.is_string() || mismatch(v, s, false);
      case Shape::Kind::Bytes:
        if (!v.is_string()) return mismatch(v, s, false);
        if (auto e = base64_error(v.get_string()); e && !saved) saved = std::move(*e);
        return true;
      case Shape::Kind::Time:
      case Shape::Kind::MicroTime:
        // metav1.Time's UnmarshalJSON: a string, then time.Parse; its errors end the decode.
        if (!v.is_string()) return stop(type_error(json_kind(v), "string"));
        if (auto e = go_time_parse_error(v.get_string(), s.kind == Shape::Kind::MicroTime))
          return stop(std::move(*e));
        return true;
      case Shape::Kind::Quantity:
        return quantity(v);
      case Shape::Kind::IntOrString:
        // A string, or what json.Unmarshal takes into an int32.
        if (v.is_string()) return true;
        if ((v.is_int64() && v.get_int64() >= INT32_MIN && v.get_int64() <= INT32_MAX) ||
            (v.is_uint64() && v.get_uint64() <= INT32_MAX))
          return true;
        return stop(
            type_error(v.is_number() ? "number " + number_text(v) : std::string(json_kind(v)), "int32"));
      case Shape::Kind::Bool:
        return v.is_bool() || mismatch(v, s, false);
      case Shape::Kind::Int32:
        if (v.is_int64() && v.get_int64() >= INT32_MIN && v.get_int64() <= INT32_MAX) return true;
        if (v.is_uint64() && v.get_uint64() <= INT32_MAX) return true;
        return mismatch(v, s, true);
      case Shape::Kind::Int64:
        return v.is_int64() || (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) ||
               mismatch(v, s, true);
      case Shape::Kind::Float:
        return v.is_number() || mismatch(v, s, true);
      case Shape::Kind::OpaqueObject:
        return v.is_object() || mismatch(v, s, false);
      case Shape::Kind::Array: {
        if (!v.is_array()) return mismatch(v, s, false);
        if (!s.elem) return true;
        std::size_t i = 0;
        for (auto& e : v.get_array()) {
          path_.push_back(Seg{{}, {}, i++, Seg::Index});
          bool go_on = walk(e, *s.elem);
          path_.pop_back();
          if (!go_on) return false;
        }
        return true;
      }
      case Shape::Kind::Map: {
        if (!v.is_object()) return mismatch(v, s, false);
        if (dups_ && collect_strict_) report_duplicates(nullptr);
        const bool resource_list = resource_lists_ && s.elem && s.elem->kind == Shape::Kind::Quantity;
        for (auto& kv : v.get_object()) {
          path_.push_back(Seg{kv.key(), {}, 0, Seg::Key});
          bool go_on = resource_list && !kv.value().is_null() ? quantity(kv.value(), true) : walk(kv.value(), *s.elem);
          path_.pop_back();
          if (!go_on) return false;
        }
        return true;
      }
      case Shape::Kind::Struct:
        return v.is_object() ? walk_struct(v.get_object(), s) : mismatch(v, s, false);
    }
    return true;
  }

  const std::vector<DuplicateKey>* dups_;
  bool collect_strict_;
  // Maps of quantities are corev1.ResourceLists, which the kind's defaulting rounds up to
  // milli-units (SetDefaults_ResourceList, for core/v1 kinds and the apps/batch pod templates).
  bool resource_lists_;
  std::vector<Seg> path_;
  const std::string* struct_name_ = nullptr;
};

}  // namespace

TypedDecode decode_typed(const ResourceInfo& r, json::object& obj,
                         const std::vector<DuplicateKey>* duplicates, bool collect_strict) {
  TypedDecode out;
  const Shape* s = shapes().of_kind(r);
  if (!s || s->kind != Shape::Kind::Struct) return out;
  Walker w(duplicates, collect_strict, r.group.empty() || r.group == "apps" || r.group == "batch");
  w.walk_struct(obj, *s);
  if (w.abort)
    out.error = std::move(w.abort);
  else if (w.saved)
    out.error = std::move(w.saved);
  else
    out.strict = std::move(w.strict);
  return out;
}

}  // namespace ksched::apiserver
