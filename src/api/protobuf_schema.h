// The one description of Kubernetes' protobuf messages (application/vnd.kubernetes.protobuf): per
// message, each field's number, JSON name, value kind, shape, and how Go renders it in JSON when
// absent or zero. The API server's body decoder and object encoder and the client's typed decoder
// all read their field numbers here (protobuf_schema.cpp holds the tables, written from upstream's
// Go types by scripts/protobuf_schema_tables.py).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ksched::api::protobuf::schema {

enum class Kind : std::uint8_t {
  String,
  Bytes,        // base64 in JSON
  Int32,
  Int64,
  Bool,
  Message,
  Time,         // metav1.Time {1 seconds, 2 nanos}: RFC 3339 seconds, null when zero
  MicroTime,    // metav1.MicroTime: six fractional digits, null when zero
  Quantity,     // resource.Quantity {1 string}: its string
  IntOrString,  // intstr.IntOrString {1 type, 2 intVal, 3 strVal}: number or string
  RawJson,      // runtime.RawExtension / metav1.FieldsV1 {1 raw}: raw is the JSON value itself
};

enum class Shape : std::uint8_t { Single, Repeated, Map };  // Map = map<string, kind>

// How an absent or zero field is rendered, following the Go field type and json tag.
enum class Emit : std::uint8_t {
  OmitEmpty,    // value type with omitempty: dropped when zero/empty
  Always,       // no omitempty (or a struct value): zero value rendered
  Pointer,      // *T with omitempty: rendered iff present on the wire
  PointerNull,  // *T without omitempty: null when absent
  Inline,       // embedded struct (json:",inline"): its fields join the parent object
};

struct Message;

struct Field {
  std::uint32_t number = 0;
  std::string json;
  Kind kind = Kind::String;
  Shape shape = Shape::Single;
  Emit emit = Emit::OmitEmpty;
  const Message* message = nullptr;  // Kind::Message only

  // A Go pointer ([]byte too): on the wire only when set. Other single fields are always written
  // by Go's marshaller, zero values included.
  bool optional_on_wire() const {
    return shape == Shape::Single && (emit == Emit::Pointer || emit == Emit::PointerNull || kind == Kind::Bytes);
  }
  bool varint() const { return kind == Kind::Int32 || kind == Kind::Int64 || kind == Kind::Bool; }
};

struct Message {
  std::string name;
  std::vector<Field> fields;               // in Go declaration order (JSON output order)
  std::vector<const Field*> wire_order;    // ascending field number (Go's marshalling order)
  std::vector<std::int16_t> by_number;     // field number -> index in fields, -1 = none

  const Field* find(std::uint32_t number) const {
    if (number >= by_number.size() || by_number[number] < 0) return nullptr;
    return &fields[static_cast<std::size_t>(by_number[number])];
  }
  const Field* find(std::string_view json) const {
    for (const auto& f : fields)
      if (f.json == json) return &f;
    return nullptr;
  }
  // The number of a field code names directly (envelopes, watch events, bindings); aborts when the
  // tables lack it, which any test that encodes anything notices.
  std::uint32_t number(std::string_view json) const;
};

struct Registry {
  std::unordered_map<std::string, Message> messages;
  std::unordered_map<std::string, const Message*> kinds;  // "apps/v1/Deployment" -> Deployment

  // The root message of a kind, or null; meta/v1 kinds (Status, DeleteOptions, WatchEvent) match
  // under any apiVersion, as every group version serves them.
  const Message* kind(std::string_view api_version, std::string_view kind) const;
  // A message by table name; aborts when it is missing.
  const Message& message(std::string_view name) const;
};

// Built once from the tables; aborts with a message if the tables are inconsistent (caught by
// any test that decodes anything).
const Registry& registry();

}  // namespace ksched::api::protobuf::schema
