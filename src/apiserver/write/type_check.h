// The typed half of decoding: upstream decodes a body into Go structs, so a known field with the
// wrong JSON type is a 400 before anything else runs, a quantity is parsed (and written back as
// upstream writes it), and a member the Go struct does not have is dropped (reported as a
// strict decoding error). We keep bodies as JSON and do the same on it, walking the kind's schema
// (openapi.h: generated from our typed structs and the schema-only ones), with encoding/json's
// messages. The schemas of Pod and Node (and ObjectMeta) hold every field upstream defines; in
// other kinds a field the schema does not model passes unchecked and is kept.
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/write/body_codec.h"
#include "apiserver/resources.h"

namespace ksched::apiserver {

struct TypedDecode {
  // The decode error, as upstream's typed decode reports it: encoding/json's ("json: cannot
  // unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container") or a
  // field type's own (a quantity's or a timestamp's parse error).
  std::optional<std::string> error;
  // Unknown and duplicate fields in the order met, deduplicated, at most 100:
  // `unknown field "spec.foo"`, `duplicate field "metadata.name"` (upstream's strict errors).
  std::vector<std::string> strict;
};

// Decodes `obj` (an `r` object) in place: checks every modelled field's JSON type, rewrites every
// resource.Quantity as upstream writes it back (the input when upstream keeps it, else the
// canonical form; ResourceList values rounded up to milli-units), and drops the members of
// complete definitions that upstream does not define. `duplicates` are the body's repeated keys
// (decode_body); strict errors are collected only when `collect_strict`. On error `obj` may be partly rewritten.
TypedDecode decode_typed(const ResourceInfo& r, boost::json::object& obj,
                         const std::vector<DuplicateKey>* duplicates, bool collect_strict);

}  // namespace ksched::apiserver
