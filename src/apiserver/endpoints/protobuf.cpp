// Protobuf request bodies, content negotiation and the protobuf encodings of answers.
#include "apiserver/endpoints/protobuf.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "api/codec.h"
#include "api/protobuf_codec.h"
#include "api/protobuf_json.h"
#include "apiserver/resources.h"
#include "apiserver/storage/storage.h"

namespace ksched::apiserver::protobuf {
namespace {

namespace pb = api::protobuf;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// One clause of an Accept header, as goautoneg parses it.
struct Clause {
  std::string_view type, subtype;
  double q = 1.0;
  std::vector<std::pair<std::string_view, std::string_view>> params;
};

std::vector<Clause> parse_accept(std::string_view header) {
  std::vector<Clause> out;
  std::size_t pos = 0;
  while (pos <= header.size()) {
    std::size_t comma = header.find(',', pos);
    std::string_view part = header.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    pos = comma == std::string_view::npos ? header.size() + 1 : comma + 1;
    std::size_t semi = part.find(';');
    std::string_view range = part.substr(0, semi);
    Clause c;
    std::size_t slash = range.find('/');
    if (slash == std::string_view::npos) {
      if (trim(range) != "*") continue;
      c.type = c.subtype = "*";
    } else {
      if (range.find('/', slash + 1) != std::string_view::npos) continue;
      c.type = trim(range.substr(0, slash));
      c.subtype = trim(range.substr(slash + 1));
    }
    while (semi != std::string_view::npos) {
      std::size_t next = part.find(';', semi + 1);
      std::string_view param = part.substr(semi + 1, next == std::string_view::npos ? std::string_view::npos : next - semi - 1);
      semi = next;
      std::size_t eq = param.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view token = trim(param.substr(0, eq));
      std::string_view value = param.substr(eq + 1);
      if (token == "q") {
        // strconv.ParseFloat on the untrimmed value; a value that does not parse is 0.
        std::string v(value);
        char* end = nullptr;
        double q = std::strtod(v.c_str(), &end);
        c.q = (!v.empty() && end == v.c_str() + v.size() && !std::isspace(static_cast<unsigned char>(v[0]))) ? q : 0.0;
      } else {
        c.params.emplace_back(token, trim(value));
      }
    }
    out.push_back(std::move(c));
  }
  // goautoneg's order (Go's sort.Sort on a few clauses is an insertion sort).
  auto less = [](const Clause& a, const Clause& b) {
    if (a.q > b.q) return true;
    if (a.type != "*" && b.type == "*") return true;
    if (a.subtype != "*" && b.subtype == "*") return true;
    return false;
  };
  for (std::size_t i = 1; i < out.size(); ++i)
    for (std::size_t j = i; j > 0 && less(out[j], out[j - 1]); --j) std::swap(out[j], out[j - 1]);
  return out;
}

const api::protobuf::schema::Message* message_for(std::string_view group_version, std::string_view kind) {
  return pb::schema::registry().kind(group_version, kind);
}

}  // namespace

util::Result<std::string> to_json(std::string_view body) { return pb::to_json(body, pb::UnknownFields::Reject); }

bool is_protobuf(std::string_view content_type) {
  std::string_view media = trim(content_type.substr(0, content_type.find(';')));
  if (media.size() != kContentType.size()) return false;
  return std::equal(media.begin(), media.end(), kContentType.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

std::vector<std::string> supported_kinds() {
  std::vector<std::string> out;
  for (const auto& [k, v] : pb::schema::registry().kinds) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

Output negotiate(std::string_view accept, bool protobuf_ok) {
  if (trim(accept).empty()) return Output::Json;
  enum Served { Json, Yaml, Protobuf };
  static constexpr std::pair<std::string_view, std::string_view> kServed[] = {
      {"application", "json"}, {"application", "yaml"}, {"application", "vnd.kubernetes.protobuf"}};
  for (const Clause& c : parse_accept(accept)) {
    for (int s = Json; s <= Protobuf; ++s) {
      const auto& [type, subtype] = kServed[s];
      bool match = (c.type == type && (c.subtype == subtype || c.subtype == "*")) || (c.type == "*" && c.subtype == "*");
      if (!match) continue;
      if (s == Protobuf && !protobuf_ok) continue;
      bool acceptable = true;
      for (const auto& [k, v] : c.params) {
        // as=Table / PartialObjectMetadata are served in JSON only; stream= must be watch (and YAML
        // has no stream encoding); sv= is never allowed.
        if ((k == "as" || k == "g" || k == "v") && s == Protobuf) acceptable = false;
        if (k == "stream" && !v.empty() && (v != "watch" || s == Yaml)) acceptable = false;
        if (k == "sv" && !v.empty()) acceptable = false;
      }
      if (!acceptable) continue;
      return s == Protobuf ? Output::Protobuf : Output::Json;  // YAML answers are not served: JSON
    }
  }
  return Output::Json;
}

bool encodable(const ResourceInfo& r) { return message_for(r.group_version(), r.kind) != nullptr; }

bool list_encodable(const ResourceInfo& r) {
  return encodable(r) && message_for(r.group_version(), r.kind + "List") != nullptr;
}

const std::string* object_message(const ResourceInfo& r, const StoredObject& o) {
  if (const std::string* p = o.protobuf.get()) return p->empty() ? nullptr : p;
  const auto* m = message_for(r.group_version(), r.kind);
  if (!m) return nullptr;
  std::size_t dropped = 0;
  auto enc = pb::encode_message(*m, o.json, &dropped);
  // Empty: the JSON holds a value the tables cannot carry; such objects are served as JSON.
  const std::string* p = o.protobuf.set(enc && dropped == 0 ? std::move(*enc) : std::string());
  return p->empty() ? nullptr : p;
}

util::Result<std::string> message_of(const ResourceInfo& r, std::string_view json) {
  const auto* m = message_for(r.group_version(), r.kind);
  if (!m) return util::make_error("no protobuf tables for " + r.group_version() + " " + r.kind);
  return pb::encode_message(*m, json);
}

std::string object_body(const ResourceInfo& r, std::string_view message) {
  std::string gv = r.group_version();
  std::string out;
  out.reserve(pb::envelope_size(gv, r.kind, message.size()));
  pb::put_envelope(out, gv, r.kind, message);
  return out;
}

std::string list_body(const ResourceInfo& r, const std::vector<std::string_view>& items, std::string_view resource_version,
                      std::string_view continue_token, std::int64_t remaining) {
  const auto& reg = pb::schema::registry();
  std::string gv = r.group_version();
  std::string kind = r.kind + "List";
  const auto* list = reg.kind(gv, kind);
  const auto& list_meta = reg.message("ListMeta");
  // ListMeta through the tables (selfLink and continue are written empty, as Go writes them).
  std::string meta_json = "{\"resourceVersion\":";
  api::detail::append_json_string(meta_json, resource_version);
  meta_json += ",\"continue\":";
  api::detail::append_json_string(meta_json, continue_token);
  if (!continue_token.empty() && remaining >= 0) meta_json += ",\"remainingItemCount\":" + std::to_string(remaining);
  meta_json += '}';
  std::string meta = pb::encode_message(list_meta, meta_json).value();
  const std::uint32_t meta_no = list->number("metadata"), items_no = list->number("items");
  std::size_t raw = api::protobuf::wire::varint_size(meta_no << 3) + api::protobuf::wire::varint_size(meta.size()) + meta.size();
  for (auto it : items)
    raw += api::protobuf::wire::varint_size(items_no << 3) + api::protobuf::wire::varint_size(it.size()) + it.size();
  std::string out;
  out.reserve(pb::envelope_size(gv, kind, raw) + 8);
  pb::put_envelope_head(out, gv, kind, raw);
  api::protobuf::wire::put_len(out, meta_no, meta);
  for (auto it : items) api::protobuf::wire::put_len(out, items_no, it);
  pb::put_envelope_tail(out);
  return out;
}

util::Result<std::string> status_body(std::string_view status_json) { return pb::from_json(status_json); }

void append_watch_frame(std::string& out, const ResourceInfo& r, std::string_view type, std::string_view message) {
  std::string gv = r.group_version();
  std::size_t n = pb::watch_event_size(type, gv, r.kind, message.size());
  char len[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n)};
  out.append(len, 4);
  pb::put_watch_event(out, type, gv, r.kind, message);
}

util::Result<void> append_watch_frame_json(std::string& out, std::string_view api_version, std::string_view kind,
                                           std::string_view type, std::string_view json) {
  const auto* m = message_for(api_version, kind);
  if (!m) return util::make_error("no protobuf tables for " + std::string(api_version) + " " + std::string(kind));
  auto msg = pb::encode_message(*m, json);
  if (!msg) return util::make_error(msg.error());
  std::size_t n = pb::watch_event_size(type, api_version, kind, msg->size());
  char len[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n)};
  out.append(len, 4);
  pb::put_watch_event(out, type, api_version, kind, *msg);
  return {};
}

}  // namespace ksched::apiserver::protobuf
