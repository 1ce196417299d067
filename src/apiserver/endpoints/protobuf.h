// application/vnd.kubernetes.protobuf in the API server:
//  - request bodies: decoded into the JSON the rest of the server understands (api/protobuf_json.h).
//    Clients that default to protobuf (kubectl create <type>, kube-scheduler's bindings, leases,
//    events and delete options) treat a 415 as fatal, so the handler converts the body once and
//    then proceeds exactly as for JSON.
//  - answers: content negotiation (upstream's, over JSON, YAML and protobuf), and the protobuf
//    encodings of objects, lists and watch events. A stored object is encoded once, on the first
//    protobuf read, and kept beside its JSON (StoredObject::protobuf).
//
// Deliberately free of Boost.Beast and util/log so the fuzz build can compile it on its own.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "api/protobuf_wire.h"
#include "util/result.h"

namespace ksched::apiserver {
struct ResourceInfo;
struct StoredObject;
}  // namespace ksched::apiserver

namespace ksched::apiserver::protobuf {

using api::protobuf::kContentType;
using api::protobuf::kWatchContentType;

// Decodes `k8s\0` + runtime.Unknown{typeMeta, raw} into the object's JSON form (see
// api::protobuf::to_json). Errors name the kind, the field path and the problem.
util::Result<std::string> to_json(std::string_view body);

// True for the protobuf media type, parameters ignored (`;stream=watch` is still protobuf).
bool is_protobuf(std::string_view content_type);

// "apiVersion/kind" pairs (e.g. "apps/v1/Deployment") the tables describe, sorted. For tests/docs.
std::vector<std::string> supported_kinds();

// ---- answers

enum class Output { Json, Protobuf };

// The media type an Accept header asks for, as upstream negotiates it: clauses ordered by q-value
// and specificity (goautoneg), the first that names a media type the server serves wins; `*/*`
// and `application/*` are JSON. Protobuf counts only when `protobuf_ok` (the kind has tables);
// clauses with parameters the server does not serve in protobuf (as=Table, as=PartialObjectMetadata,
// stream= other than watch) are passed over, as upstream's endpoint restrictions do. An empty or
// unmatched header is JSON (upstream answers 406 there; JSON keeps what this server always did).
Output negotiate(std::string_view accept, bool protobuf_ok);

// Whether the resource's objects (and its lists) have protobuf tables.
bool encodable(const ResourceInfo& r);
bool list_encodable(const ResourceInfo& r);

// The protobuf message bytes (no envelope) of a stored object, encoded on first use and kept;
// null when its JSON does not fit the tables (a value of the wrong type), then JSON is served.
const std::string* object_message(const ResourceInfo& r, const StoredObject& o);
// The same for JSON not stored as is (a restamped or converted object): encoded each time.
util::Result<std::string> message_of(const ResourceInfo& r, std::string_view json);

// A whole object body: envelope (r's apiVersion and kind) around the message.
std::string object_body(const ResourceInfo& r, std::string_view message);
// A list body: envelope (kind <Kind>List) around ListMeta and the items' messages.
std::string list_body(const ResourceInfo& r, const std::vector<std::string_view>& items, std::string_view resource_version,
                      std::string_view continue_token, std::int64_t remaining);
// A Status (JSON, as StatusError::to_json writes it) as a protobuf body.
util::Result<std::string> status_body(std::string_view status_json);
// One watch frame: the 4-byte big-endian length, then the WatchEvent (type and the object's body).
void append_watch_frame(std::string& out, const ResourceInfo& r, std::string_view type, std::string_view message);
// A watch frame whose object is given as JSON (bookmarks, ERROR's Status, converted objects).
util::Result<void> append_watch_frame_json(std::string& out, std::string_view api_version, std::string_view kind,
                                           std::string_view type, std::string_view json);

}  // namespace ksched::apiserver::protobuf
