#include "informer/list_watch.h"

#include <boost/json.hpp>

namespace ksched::informer {

std::string_view watch_event_object(std::string_view line, std::string& scratch) {
  // A protobuf WatchEvent starts with its type (field 1, length-delimited: 0x0a); a JSON line with '{'.
  if (!line.empty() && line.front() != '{') {
    auto ev = api::protobuf::read_watch_event(line);
    return ev ? ev->object : std::string_view();
  }
  // {"type":"ADDED","object":{...}}
  if (line.size() > 12 && line.substr(0, 9) == "{\"type\":\"") {
    auto q = line.find('"', 9);
    constexpr std::string_view obj = ",\"object\":";
    if (q != std::string_view::npos && line.substr(q + 1, obj.size()) == obj && line.back() == '}') {
      auto start = q + 1 + obj.size();
      return line.substr(start, line.size() - 1 - start);
    }
  }
  boost::system::error_code ec;
  auto v = boost::json::parse(line, ec);
  if (ec || !v.is_object()) return {};
  auto* o = v.as_object().if_contains("object");
  if (!o) return {};
  scratch = boost::json::serialize(*o);
  return scratch;
}

ListWatch rest_list_watch(std::shared_ptr<client::RestClient> c, const client::ResourceInfo& info, std::string ns,
                          std::function<void(client::ListOptions&)> tweak, bool typed_protobuf) {
  auto ref = client::ResourceRef::of(info, ns);
  ListWatch lw;
  std::string list_accept = typed_protobuf ? c->accept_for(info, true) : std::string();
  std::string watch_accept = typed_protobuf ? c->accept_for(info) : std::string();
  lw.list = [c, ref, accept = std::move(list_accept)](const client::ListOptions& o) { return c->list(ref, o, accept); };
  lw.watch = [c, ref, accept = std::move(watch_accept)](const client::ListOptions& o) { return c->watch(ref, o, accept); };
  lw.tweak = std::move(tweak);
  return lw;
}

}  // namespace ksched::informer
