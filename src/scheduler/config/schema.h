// How the configuration types are described, once, for every use of their wire form: strict
// decoding (load.cpp), the defaulted output of --write-config-to and /configz (write.cpp), and the
// field paths of validation messages (validation.cpp).
//
// As the api types are (api/object.h), each struct T is described by `describe(type_tag<T>)`: a
// FieldList of fields, each its v1 JSON name, its member and how it is written. The member's C++ type
// says the rest: std::string, bool, int32/int64, float (float32), Duration (a Go duration string,
// "15s"), std::optional (absent when unset), std::vector, a described config struct, an api type
// (decoded from its api description, written by the api codec), or PluginArgs (the args of a
// pluginConfig entry, typed by the plugin's name). A struct with a `kKind` is a v1 kind: its
// apiVersion and kind are accepted on input and written on output.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/object.h"

namespace ksched::scheduler::config {

using api::field_list;
using api::type_tag;

// How a field is written.
enum FieldFlags : std::uint8_t {
  kAlways = 0,         // written even when empty (an unset optional as its zero value)
  kOmitEmpty = 1 << 0,  // Go's omitempty: not written when "", false, 0, empty or unset
  kBase64 = 1 << 1,     // a std::string of raw bytes, base64 on the wire ([]byte)
  kNamesOnly = 1 << 2,  // a list of plugins written by name only (disabled plugins carry no weight)
  // A struct that, when given, starts from the zero value of each member rather than from its
  // defaults (a Go pointer that defaulting fills only when absent).
  kZeroWhenGiven = 1 << 3,
};

template <class S, class M>
struct Field {
  std::string_view name;
  M S::*member;
  std::uint8_t flags = kAlways;
};

template <class S, class M>
constexpr Field<S, M> field(std::string_view name, M S::*member, std::uint8_t flags = kAlways) {
  return {name, member, flags};
}

// What the generic decoder and writer tell apart.
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
concept Described = requires { describe(type_tag<T>{}); };
// A v1 kind of its own: its apiVersion and kind go with its members.
template <class T>
concept Kind = requires { T::kKind; };
// An api type: decoded by its api description, written by the api codec.
template <class T>
concept ApiType = requires(const T& t) {
  t.present;
  t.extra;
};

// A field's flags; an api type's fields (api::Field) have none.
template <class F>
constexpr std::uint8_t flags_of(const F& f) {
  if constexpr (requires { f.flags; }) {
    return f.flags;
  } else {
    return kAlways;
  }
}

// The wire name of a described member (config or api type), for field paths:
// field_name(&LeaderElectionConfiguration::leaseDuration) == "leaseDuration".
template <class S, class M>
constexpr std::string_view field_name(M S::*member) {
  constexpr auto desc = describe(type_tag<S>{});
  std::string_view out;
  api::apply_fields(
      [&](const auto&... f) {
        (
            [&] {
              if constexpr (std::is_same_v<decltype(f.member), M S::*>) {
                if (f.member == member) out = f.name;
              }
            }(),
            ...);
      },
      desc);
  return out;
}

}  // namespace ksched::scheduler::config
