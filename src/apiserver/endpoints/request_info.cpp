#include "apiserver/endpoints/request_info.h"

#include <array>
#include <cctype>

#include "api/fields.h"

namespace ksched::apiserver {

namespace {

// Up to this many path parts are read; a resource request never needs more than
// prefix/group/version/namespaces/ns/resource/name/subresource plus one.
constexpr std::size_t kMaxParts = 10;

struct Parts {
  std::array<std::string_view, kMaxParts> v;
  std::size_t n = 0;
};

// The path without leading and trailing slashes, split at '/' (upstream's splitPath: empty
// segments in the middle are kept).
Parts split_path(std::string_view path) {
  Parts p;
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.empty()) return p;
  for (;;) {
    auto sl = path.find('/');
    if (p.n == kMaxParts) break;
    p.v[p.n++] = path.substr(0, sl);
    if (sl == std::string_view::npos) break;
    path.remove_prefix(sl + 1);
  }
  return p;
}

std::string_view lower_method(std::string_view m) {
  if (m == "GET") return "get";
  if (m == "POST") return "post";
  if (m == "PUT") return "put";
  if (m == "PATCH") return "patch";
  if (m == "DELETE") return "delete";
  if (m == "HEAD") return "head";
  if (m == "OPTIONS") return "options";
  return {};
}

const std::string* query_value(const std::vector<std::pair<std::string, std::string>>& q,
                               std::string_view key) {
  for (const auto& [k, v] : q)
    if (k == key) return &v;
  return nullptr;
}

// path.IsValidPathSegmentName: not "." or "..", no '/' or '%'.
bool valid_path_segment_name(std::string_view s) {
  if (s == "." || s == "..") return false;
  return s.find('/') == std::string_view::npos && s.find('%') == std::string_view::npos;
}

}  // namespace

bool query_bool(const std::string* v) {
  if (!v) return false;
  if (*v == "0") return false;
  if (v->size() != 5) return true;
  for (std::size_t i = 0; i < 5; ++i)
    if (std::tolower(static_cast<unsigned char>((*v)[i])) != "false"[i]) return true;
  return false;
}

RequestInfo parse_request_info(std::string_view method, std::string_view path,
                               const std::vector<std::pair<std::string, std::string>>& query) {
  RequestInfo info;
  info.path = path;
  info.verb = lower_method(method);
  Parts parts = split_path(path);
  if (parts.n < 3) return info;
  std::size_t i = 0;
  std::string_view prefix = parts.v[0];
  if (prefix != "api" && prefix != "apis") return info;
  info.api_prefix = prefix;
  ++i;
  if (prefix == "apis") {
    // The prefix is consumed: "do we have four parts?"
    if (parts.n - i < 3) return info;
    info.group = parts.v[i++];
  }
  info.resource_request = true;
  info.version = parts.v[i++];
  auto rest = [&](std::size_t k) { return parts.v[i + k]; };
  auto left = [&] { return parts.n - i; };

  if (rest(0) == "proxy" || rest(0) == "watch") {
    info.verb = rest(0);
    if (left() < 2) {
      info.malformed = true;
      return info;
    }
    ++i;
  } else if (method == "POST") {
    info.verb = "create";
  } else if (method == "GET" || method == "HEAD") {
    info.verb = "get";
  } else if (method == "PUT") {
    info.verb = "update";
  } else if (method == "PATCH") {
    info.verb = "patch";
  } else if (method == "DELETE") {
    info.verb = "delete";
  } else {
    info.verb = {};
  }

  // /namespaces/{namespace}/{resource}/...: the parts after the namespace name are the resource's,
  // unless the next part is a namespace subresource (status, finalize).
  if (rest(0) == "namespaces") {
    if (left() > 1) {
      info.ns = rest(1);
      if (left() > 2 && rest(2) != "status" && rest(2) != "finalize") i += 2;
    }
  }
  // resource/name/subresource/...
  const bool no_subresources = info.verb == "proxy";
  if (left() >= 3 && !no_subresources) info.subresource = rest(2);
  if (left() >= 2) info.path_name = rest(1);
  if (left() >= 1) info.resource = rest(0);

  // No name on a get: a list or a watch.
  if (info.path_name.empty() && info.verb == "get") {
    info.verb = query_bool(query_value(query, "watch")) ? "watch" : "list";  // upstream's bool decoding
    if (const std::string* fs = query_value(query, "fieldSelector"); fs && !fs->empty()) {
      if (auto sel = fields::Selector::parse(*fs)) {
        for (const auto& r : sel->requirements()) {
          if (r.field != "metadata.name" || r.not_equals) continue;
          if (valid_path_segment_name(r.value)) info.selector_name = r.value;
          break;
        }
      }
    }
  }
  // No name on a delete: deletecollection.
  if (info.path_name.empty() && info.verb == "delete") info.verb = "deletecollection";
  return info;
}

}  // namespace ksched::apiserver
