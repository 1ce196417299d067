// Types as cel-go's checker models them (common/types.Type): primitive kinds, list/map with
// parameters, type(T), type parameters, struct types by name (kubernetes.DRADevice,
// kubernetes.Quantity, kubernetes.Semver) and opaque types (optional_type(T)). Dyn and
// google.protobuf.Any are the two dynamic kinds; DRA's attribute values are Any.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::cel {

enum class TypeKind : std::uint8_t {
  Dyn, Any, Error, Null, Bool, Int, Uint, Double, String, Bytes, Timestamp, Duration,
  List, Map, Type, TypeParam, Struct, Opaque,
};

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Type {
  TypeKind kind = TypeKind::Dyn;
  std::string name;  // cel-go's runtime type name ("int", "list", "kubernetes.Quantity", a param's name)
  std::vector<TypePtr> params;
};

namespace types {
const TypePtr& dyn();
const TypePtr& any();
const TypePtr& error();
const TypePtr& null();
const TypePtr& boolean();
const TypePtr& int64();
const TypePtr& uint64();
const TypePtr& dbl();
const TypePtr& string();
const TypePtr& bytes();
const TypePtr& timestamp();
const TypePtr& duration();
const TypePtr& type();  // `type` without a parameter
const TypePtr& quantity();
const TypePtr& semver();
const TypePtr& device();  // kubernetes.DRADevice

TypePtr list(TypePtr elem);
TypePtr map(TypePtr key, TypePtr value);
TypePtr type_of(TypePtr t);  // type(t)
TypePtr param(std::string name);
TypePtr optional(TypePtr t);  // optional_type(t)
TypePtr opaque(std::string name, std::vector<TypePtr> params);

// Parses the notation the declarations use: "int", "list(A)", "map(string, dyn)", "type(A)",
// "optional_type(A)", "kubernetes.Quantity"; single upper-case letters are type parameters.
TypePtr parse(std::string_view spec);
}  // namespace types

bool is_dyn(const Type& t);           // dyn or google.protobuf.Any
bool is_dyn_or_error(const Type& t);
bool is_optional(const Type& t);
// Type::IsExactType.
bool exact_equal(const Type& a, const Type& b);
// Type::IsEquivalentType (ignores type parameter names).
bool equivalent(const Type& a, const Type& b);

// checker.FormatCELType: "int", "list(string)", "any", "!error!", "null", "_var0".
std::string format_cel_type(const Type& t);
// Type.String(): "int", "google.protobuf.Any", "dyn", "<A>".
std::string type_string(const Type& t);

}  // namespace ksched::cel
