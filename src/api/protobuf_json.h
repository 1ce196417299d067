// Kubernetes protobuf <-> JSON, driven by the schema tables (protobuf_schema.h):
//  - render: protobuf message bytes -> the JSON Go's encoding/json writes for the decoded struct
//    (omitempty, null times, `{}` for struct values, sorted map keys). The API server turns
//    protobuf request bodies into JSON with it; the client renders the fields its typed structs do
//    not model (their `extra`) and error Statuses.
//  - encode: JSON -> protobuf bytes, byte for byte as Go's generated marshallers write them (fields
//    in number order, non-pointer fields always, zero values included, map keys sorted). The API
//    server encodes its stored JSON objects with it; the client its write bodies.
//  - the envelope: `k8s\0` + runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding,
//    contentType}, as upstream's protobuf serializer writes and reads it.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "api/protobuf_schema.h"
#include "api/protobuf_wire.h"
#include "util/result.h"

namespace ksched::api::protobuf {

struct Envelope {
  std::string_view api_version;
  std::string_view kind;
  std::string_view raw;
  std::string_view content_encoding;
  std::string_view content_type;
};

// Reads `k8s\0` + runtime.Unknown; views into `body`.
util::Result<Envelope> read_envelope(std::string_view body);
// Appends `k8s\0` + runtime.Unknown{typeMeta, raw, "", ""} (upstream writes the empty strings).
void put_envelope(std::string& out, std::string_view api_version, std::string_view kind, std::string_view raw);
// Its size, for a caller that writes a length in front of it.
std::size_t envelope_size(std::string_view api_version, std::string_view kind, std::size_t raw_size);
// The envelope in two parts around `raw_size` bytes the caller appends itself (a list's items).
void put_envelope_head(std::string& out, std::string_view api_version, std::string_view kind, std::size_t raw_size);
void put_envelope_tail(std::string& out);

// ---- protobuf -> JSON

enum class UnknownFields {
  Reject,  // a request body: an unknown field number is an error naming it
  Skip,    // a server's answer: fields newer than the tables are left out, as Go's decoder does
};

// A whole body (envelope included) as a JSON object, kind and apiVersion first.
util::Result<std::string> to_json(std::string_view body, UnknownFields unknown = UnknownFields::Reject);

// One message's bytes as a JSON object appended to `out`. Errors name the field path.
util::Result<void> render_message(const schema::Message& m, std::string_view bytes, std::string& out,
                                  UnknownFields unknown = UnknownFields::Skip);

// One field's value from its occurrences on the wire (length-delimited payloads, or varints for
// varint kinds), appended to `out` as JSON: what the typed decoder keeps for a member it does not
// model. `present` false renders the absent value (zero or null); callers check should_render first.
struct Occurrences {
  std::vector<std::string_view> chunks;
  std::vector<std::uint64_t> numbers;
  bool empty() const { return chunks.empty() && numbers.empty(); }
  void clear() {
    chunks.clear();
    numbers.clear();
  }
};
// Whether Go's encoding/json writes the field (omitempty and pointers), given what the wire held.
bool should_render(const schema::Field& f, const Occurrences& occ);
util::Result<void> render_field(const schema::Field& f, const Occurrences& occ, std::string& out,
                                UnknownFields unknown = UnknownFields::Skip);

// ---- JSON -> protobuf

// A JSON object as `m`'s message bytes (no envelope). Members the tables do not know are left out,
// as upstream's typed decoding drops them; a value of the wrong JSON type is left out too and
// counted in `dropped` (null: none expected).
util::Result<std::string> encode_message(const schema::Message& m, std::string_view json,
                                         std::size_t* dropped = nullptr);

// A JSON object with kind and apiVersion as a whole protobuf body (envelope included). Errors for
// kinds without tables, e.g. "protobuf encoding of kind Foo in example.com/v1 is not supported".
util::Result<std::string> from_json(std::string_view json, std::size_t* dropped = nullptr);

}  // namespace ksched::api::protobuf
