// OpenAPI schemas of the served kinds, generated from the typed API structs (their
// `describe(type_tag<T>)` field tables) with upstream's definition names, and the documents built
// from them: /openapi/v3 (index + one document per group version) and /openapi/v2 (Swagger 2.0,
// JSON or gnostic protobuf).
//
// What kubectl does with them (v1.32):
//  - `explain` reads the v3 document of the resource's group version, takes the GVK from a path
//    operation and follows $refs from the component with that `x-kubernetes-group-version-kind`;
//  - `apply`/`create` see the `fieldValidation` parameter on each kind's PATCH operation and leave
//    validation to the server.
// The schemas cover the fields the structs model (plus a few schema-only additions such as
// workload templates), not all of upstream's. So the PATCH operations deliberately do not list
// application/strategic-merge-patch+json: kubectl then keeps computing apply patches from its
// compiled-in types instead of from these partial schemas.
#pragma once
#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>

namespace ksched::apiserver::openapi {

enum class Flavor {
  V2,  // refs "#/definitions/<name>"; Quantity and IntOrString as typed strings
  V3,  // refs "#/components/schemas/<name>"; Quantity oneOf, IntOrString anyOf
};

// Every generated definition (name -> schema) in the given flavor.
const boost::json::object& definitions(Flavor f);

// Definition name of a served kind's top-level schema ("" if the kind has none).
std::string_view kind_definition(std::string_view group, std::string_view kind);
// The same at one version (the kind's definition at another version if it has none there).
std::string_view kind_definition(std::string_view group, std::string_view version, std::string_view kind);

// What the write path's typed decode (type_check.cpp) needs beyond the schemas:
// whether a definition holds every field upstream's Go type has (a member it lacks is unknown),
bool definition_is_complete(std::string_view def);
// the Go type encoding/json names for a field of a named type ("v1.RestartPolicy"; "" if none),
std::string_view go_named_type(std::string_view def, std::string_view field);
// and the Go struct a field is promoted from ("VolumeSource" for a Volume's "emptyDir"; "" if none).
std::string_view embedded_struct(std::string_view def, std::string_view field);

// Documents, built once and cached. `gv_path` is "api/v1" or "apis/apps/v1"; "" if unknown.
const std::string& v3_index();
const std::string& v3_document(std::string_view gv_path);
const std::string& v2_document();

// /openapi/v2 in gnostic's protobuf encoding (openapi_v2.Document), which is the only form kubectl
// asks for; it parses the definitions for `explain --output=plaintext-openapiv2`. The document has
// no paths, so kubectl finds no PATCH content types in it and `apply` stays on its built-in types.
// kubectl asks with the "@" spelling; responses use the "." one, which Go's mime parser accepts.
inline constexpr std::string_view kV2ProtobufAccept =
    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
inline constexpr std::string_view kV2ProtobufType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
const std::string& v2_document_protobuf();

enum class V2Form { Json, Protobuf, None };
// The form of /openapi/v2 an Accept header selects: the first entry we serve (no header = JSON).
V2Form v2_form(std::string_view accept);

}  // namespace ksched::apiserver::openapi
