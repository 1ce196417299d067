#include "cel/types.h"

#include <stdexcept>

namespace ksched::cel {
namespace types {
namespace {
TypePtr make(TypeKind k, std::string name, std::vector<TypePtr> params = {}) {
  auto t = std::make_shared<Type>();
  t->kind = k;
  t->name = std::move(name);
  t->params = std::move(params);
  return t;
}
}  // namespace

#define KSCHED_CEL_TYPE(fn, kind, name)   \
  const TypePtr& fn() {                   \
    static const TypePtr t = make(kind, name); \
    return t;                             \
  }
KSCHED_CEL_TYPE(dyn, TypeKind::Dyn, "dyn")
KSCHED_CEL_TYPE(any, TypeKind::Any, "google.protobuf.Any")
KSCHED_CEL_TYPE(error, TypeKind::Error, "error")
KSCHED_CEL_TYPE(null, TypeKind::Null, "null_type")
KSCHED_CEL_TYPE(boolean, TypeKind::Bool, "bool")
KSCHED_CEL_TYPE(int64, TypeKind::Int, "int")
KSCHED_CEL_TYPE(uint64, TypeKind::Uint, "uint")
KSCHED_CEL_TYPE(dbl, TypeKind::Double, "double")
KSCHED_CEL_TYPE(string, TypeKind::String, "string")
KSCHED_CEL_TYPE(bytes, TypeKind::Bytes, "bytes")
KSCHED_CEL_TYPE(timestamp, TypeKind::Timestamp, "google.protobuf.Timestamp")
KSCHED_CEL_TYPE(duration, TypeKind::Duration, "google.protobuf.Duration")
KSCHED_CEL_TYPE(type, TypeKind::Type, "type")
KSCHED_CEL_TYPE(quantity, TypeKind::Struct, "kubernetes.Quantity")
KSCHED_CEL_TYPE(semver, TypeKind::Struct, "kubernetes.Semver")
KSCHED_CEL_TYPE(device, TypeKind::Struct, "kubernetes.DRADevice")
#undef KSCHED_CEL_TYPE

TypePtr list(TypePtr elem) { return make(TypeKind::List, "list", {std::move(elem)}); }
TypePtr map(TypePtr key, TypePtr value) { return make(TypeKind::Map, "map", {std::move(key), std::move(value)}); }
TypePtr type_of(TypePtr t) { return make(TypeKind::Type, "type", {std::move(t)}); }
TypePtr param(std::string name) { return make(TypeKind::TypeParam, std::move(name)); }
TypePtr optional(TypePtr t) { return make(TypeKind::Opaque, "optional_type", {std::move(t)}); }
TypePtr opaque(std::string name, std::vector<TypePtr> params) {
  return make(TypeKind::Opaque, std::move(name), std::move(params));
}

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}
}  // namespace

TypePtr parse(std::string_view spec) {
  spec = trim(spec);
  auto open = spec.find('(');
  std::string_view head = open == std::string_view::npos ? spec : spec.substr(0, open);
  std::vector<TypePtr> params;
  if (open != std::string_view::npos) {
    std::string_view inner = spec.substr(open + 1, spec.size() - open - 2);
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= inner.size(); ++i) {
      if (i == inner.size() || (inner[i] == ',' && depth == 0)) {
        params.push_back(parse(inner.substr(start, i - start)));
        start = i + 1;
      } else if (inner[i] == '(') {
        ++depth;
      } else if (inner[i] == ')') {
        --depth;
      }
    }
  }
  if (head == "list") return list(params.at(0));
  if (head == "map") return map(params.at(0), params.at(1));
  if (head == "type") return params.empty() ? type() : type_of(params.at(0));
  if (head == "optional_type") return optional(params.at(0));
  if (head == "dyn") return dyn();
  if (head == "any") return any();
  if (head == "null") return null();
  if (head == "bool") return boolean();
  if (head == "int") return int64();
  if (head == "uint") return uint64();
  if (head == "double") return dbl();
  if (head == "string") return string();
  if (head == "bytes") return bytes();
  if (head == "timestamp") return timestamp();
  if (head == "duration") return duration();
  if (head == "kubernetes.Quantity") return quantity();
  if (head == "kubernetes.Semver") return semver();
  if (head == "kubernetes.DRADevice") return device();
  if (head.size() == 1 && head[0] >= 'A' && head[0] <= 'Z') return param(std::string(head));
  throw std::invalid_argument("cel: unknown type in declaration: " + std::string(spec));
}

}  // namespace types

bool is_dyn(const Type& t) { return t.kind == TypeKind::Dyn || t.kind == TypeKind::Any; }
bool is_dyn_or_error(const Type& t) { return is_dyn(t) || t.kind == TypeKind::Error; }
bool is_optional(const Type& t) { return t.kind == TypeKind::Opaque && t.name == "optional_type"; }

namespace {
bool same(const Type& a, const Type& b, bool check_param_names) {
  if (&a == &b) return true;
  if (a.kind != b.kind || a.params.size() != b.params.size()) return false;
  if (a.kind == TypeKind::TypeParam && !check_param_names) return true;
  if (a.name != b.name) return false;
  for (std::size_t i = 0; i < a.params.size(); ++i)
    if (!same(*a.params[i], *b.params[i], check_param_names)) return false;
  return true;
}
}  // namespace

bool exact_equal(const Type& a, const Type& b) { return same(a, b, true); }
bool equivalent(const Type& a, const Type& b) { return same(a, b, false); }

std::string format_cel_type(const Type& t) {
  switch (t.kind) {
    case TypeKind::Any: return "any";
    case TypeKind::Duration: return "duration";
    case TypeKind::Error: return "!error!";
    case TypeKind::Null: return "null";
    case TypeKind::Timestamp: return "timestamp";
    case TypeKind::TypeParam: return t.name;
    default: break;
  }
  if (t.params.empty()) return t.name;
  std::string out = t.name + "(";
  for (std::size_t i = 0; i < t.params.size(); ++i) {
    if (i > 0) out += ", ";
    out += format_cel_type(*t.params[i]);
  }
  return out + ")";
}

std::string type_string(const Type& t) {
  if (t.kind == TypeKind::TypeParam) return "<" + t.name + ">";
  if (t.params.empty()) return t.name;
  std::string out = t.name + "(";
  for (std::size_t i = 0; i < t.params.size(); ++i) {
    if (i > 0) out += ", ";
    out += type_string(*t.params[i]);
  }
  return out + ")";
}

}  // namespace ksched::cel
