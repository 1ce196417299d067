// JSON codec for every described API type (see object.h for the description convention).
//  decode: simdjson On-Demand into the typed struct; unknown members are kept as raw JSON in
//          `extra`, presence of known members in `present`. Errors name the field path:
//          "spec.containers[0].resources.requests.cpu: quantities must match the regular expression ..."
//  encode: a hand-written writer; emits a member when it was present in the input or is non-empty,
//          and writes back `extra` verbatim, so decode+encode returns the same JSON value.
#pragma once
#include <string>
#include <string_view>

#include "util/result.h"

namespace ksched::api {

struct DecodeOptions {
  // Skip metadata.managedFields (anywhere in the document, e.g. every item of a list) without
  // copying or validating it, as if upstream's informer transform had trimmed it afterwards. The
  // members around it are still fully checked; the skipped value is only checked for balanced
  // brackets and valid UTF-8.
  bool dropManagedFields = false;
};

// Implementations live in codec_impl.h (templates) and are instantiated for all API types.
template <class T>
util::Result<T> decode(std::string_view json);
template <class T>
util::Result<T> decode(std::string_view json, const DecodeOptions& opts);

template <class T>
util::Result<void> decode_into(T& out, std::string_view json);
template <class T>
util::Result<void> decode_into(T& out, std::string_view json, const DecodeOptions& opts);

template <class T>
void encode_to(std::string& out, const T& value);

template <class T>
std::string encode(const T& value) {
  std::string out;
  encode_to(out, value);
  return out;
}

namespace detail {
// Appends `s` as a JSON string: quoted, with what JSON requires escaped.
void append_json_string(std::string& out, std::string_view s);
}  // namespace detail

}  // namespace ksched::api
