// Descriptor tables for the protobuf decoder: per message, field number -> JSON name, value kind,
// shape and how Go's encoding/json treats the field when it is absent or zero.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ksched::apiserver::protobuf::schema {

enum class Kind : std::uint8_t {
  String,
  Bytes,        // base64 in JSON
  Int32,
  Int64,
  Bool,
  Message,
  Time,         // metav1.Time: RFC 3339 seconds, null when zero
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
};

struct Message {
  std::string name;
  std::vector<Field> fields;  // in Go declaration order (JSON output order)
  const Field* find(std::uint32_t number) const {
    for (const auto& f : fields)
      if (f.number == number) return &f;
    return nullptr;
  }
};

struct Registry {
  std::unordered_map<std::string, Message> messages;
  std::unordered_map<std::string, const Message*> kinds;  // "apps/v1/Deployment" -> Deployment
};

// Built once from the tables; aborts with a message if the tables are inconsistent (caught by
// any test that decodes anything).
const Registry& registry();

}  // namespace ksched::apiserver::protobuf::schema
